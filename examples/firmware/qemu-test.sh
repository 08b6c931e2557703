#!/usr/bin/env bash
# The firmware's CI test: for each board, builds the firmware, boots it in QEMU,
# talks JSON-RPC to it over its UART, and checks its budgets.
#
#   bash examples/firmware/qemu-test.sh [BOARD...]      (from anywhere; default: all
#                                                        three, lm3s6965 microbit sifive_e)
#
# 1. installs what it needs: the boards' rustup targets, llvm-tools, qemu-system-arm
#    and qemu-system-misc (riscv32) with apt-get when missing (without them: SKIP,
#    exit 0, but with CI=true: FAIL, exit 1);
# 2. per board: builds the firmware (release), replays the JSON-RPC spec examples and
#    the edge cases of qemu_transcript.py over the UART, then `stats` and `shutdown`
#    (QEMU must exit 0), then budget.sh with the stack peak `stats` reported;
# 3. on the LM3S6965: the `cobs` build (COBS frames with a CRC-32) under the same
#    transcript in that framing; the `host-call` build, which calls the host with the
#    crate's client (host_call.py answers and checks); noisy-link.sh at one rate (1000 requests through a
#    corrupter, both framings: none may reach a handler as another request under
#    COBS+CRC-32, and the device must keep answering); and the `defmt` build, whose
#    decoded log must have every line of defmt-expected.log (defmt-print is
#    installed when missing).
#
# The UART is a `-chardev pipe` (two FIFOs). Every wait has a timeout. A budget over
# its limit fails, unless it is named in FIRMWARE_BUDGET_WARN (see budget.sh).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
. "$HERE/boards.sh"
BOARDS="${*:-$BOARDS_ALL}"
# The specification's examples, from the conformance corpus (JSONRPC_SLICE_CORPUS, else
# ../shared/corpus beside the repository, as for the tests).
SPEC="${JSONRPC_SLICE_CORPUS:-$HERE/../../../shared/corpus}/jsonrpc-spec/README.md"
WORK=target/qemu-test
# The firmware's .cargo/config.toml carries each target's linker script and flags;
# RUSTFLAGS from the environment would replace them, so it is not passed on.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET

stage() { printf '\n--- firmware: %s\n' "$*"; }
skip() { # under CI=true a test that cannot run fails
    if [ "${CI:-}" = true ]; then
        echo "FAIL: firmware QEMU test cannot run under CI=true: $1"
        exit 1
    fi
    echo "SKIP: firmware QEMU test: $1"
    exit 0
}

stage "toolchain"
for board in $BOARDS; do
    rustup target add "$(board_target "$board")"
done
rustup component add llvm-tools >/dev/null 2>&1 || rustup component add llvm-tools-preview >/dev/null 2>&1 || true

stage "QEMU"
need=""
for board in $BOARDS; do
    set -- $(board_qemu "$board")
    command -v "$1" >/dev/null 2>&1 || need="$need $(board_qemu_package "$board")"
done
if [ -n "$need" ]; then
    reason=""
    if ! command -v apt-get >/dev/null 2>&1; then
        reason="no apt-get on this machine"
    else
        SUDO=""
        if [ "$(id -u)" != 0 ]; then
            if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
                SUDO="sudo -n"
            else
                reason="not root, and no password-less sudo"
            fi
        fi
        if [ -z "$reason" ]; then
            echo "installing$need (apt-get)"
            export DEBIAN_FRONTEND=noninteractive
            if ! timeout 600 $SUDO apt-get update -qq >"${TMPDIR:-/tmp}/fw-apt.log" 2>&1 ||
                ! timeout 900 $SUDO apt-get install -y -qq --no-install-recommends $need \
                    >>"${TMPDIR:-/tmp}/fw-apt.log" 2>&1; then
                reason="apt-get failed: $(tail -n 1 "${TMPDIR:-/tmp}/fw-apt.log")"
            fi
        fi
    fi
    for board in $BOARDS; do
        set -- $(board_qemu "$board")
        command -v "$1" >/dev/null 2>&1 || skip "$1 unavailable (${reason:-not installed})"
    done
fi
qemu-system-arm --version | head -n 1

if [ ! -f "$SPEC" ]; then
    echo "FAIL: the JSON-RPC spec examples are missing: $SPEC (the shared corpus belongs next to the repository)"
    exit 1
fi

trap qemu_cleanup EXIT

# run_qemu NAME BOARD ELF [transcript options...]: boots ELF on BOARD, runs the
# transcript against its UART, and checks QEMU's exit status is 0 after `shutdown`.
run_qemu() {
    local name="$1" board="$2" elf="$3"
    shift 3
    local out="$WORK/$name" rc=0 qrc=0
    qemu_start "$board" "$elf" "$out"
    timeout 300 python3 qemu_transcript.py --uart "$PIPEDIR/uart" --spec "$SPEC" \
        --transcript "$out/transcript.txt" --stats-out "$out/stats.json" "$@" || rc=$?
    qemu_finish "$name" || qrc=$?
    if [ "$rc" != 0 ] || [ "$qrc" != 0 ]; then
        echo "FAIL ($name): transcript exit $rc"
        echo "--- QEMU stderr:"
        cat "$out/qemu.err" || true
        return 1
    fi
    echo "QEMU exited with status 0 after shutdown"
}

# build BOARD DIR [FEATURE...]: firmware_build (boards.sh), the ELF copied to
# $WORK/BOARD-DIR.elf.
build() {
    local elf
    elf=$(firmware_build "$@")
    mkdir -p "$WORK"
    cp "$elf" "$WORK/$1-$2.elf"
}

for board in $BOARDS; do
    stage "$board: build (release)"
    build "$board" plain
    stage "$board: JSON-RPC transcript in QEMU"
    run_qemu "$board" "$board" "$WORK/$board-plain.elf"
    stage "$board: budgets"
    if ! bash "$HERE/budget.sh" "$board" --stats "$WORK/$board/stats.json"; then
        echo "FAIL: firmware over budget on $board (FIRMWARE_BUDGET_WARN names budgets that only warn)"
        exit 1
    fi
done

case " $BOARDS " in *" lm3s6965 "*) ;; *) stage "passed"; exit 0 ;; esac

stage "lm3s6965: COBS frames with a CRC-32, the same transcript"
build lm3s6965 cobs cobs
run_qemu lm3s6965-cobs lm3s6965 "$WORK/lm3s6965-cobs.elf" --framing cobs
# An empty COBS+CRC-32 accumulator is all zero bytes (frame::cobs): its static lands
# in .bss, and .data, whose image would take as much flash, stays empty.
HOST=$(rustc -vV | sed -n 's/^host: //p')
DATA=$("$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-size" -B "$WORK/lm3s6965-cobs.elf" | awk 'NR == 2 { print $2 }')
if [ "$DATA" != 0 ]; then
    echo "FAIL (cobs): .data holds $DATA bytes (the buffers' static is not all zeros)"
    exit 1
fi

stage "lm3s6965: the device calls the host (host-call: the crate's client over the UART)"
build lm3s6965 host-call host-call
qemu_start lm3s6965 "$WORK/lm3s6965-host-call.elf" "$WORK/host-call"
rc=0
timeout 180 python3 host_call.py --uart "$PIPEDIR/uart" --transcript "$WORK/host-call/transcript.txt" || rc=$?
qemu_finish host-call || rc=1
if [ "$rc" != 0 ]; then
    echo "FAIL (host-call): exit $rc"
    cat "$WORK/host-call/qemu.err" || true
    exit 1
fi

stage "lm3s6965: the noisy link through the UART, newline and COBS+CRC-32, at one rate"
# The table in this folder's README is the same script at five rates (noisy-link.sh
# with no rate).
bash "$HERE/noisy-link.sh" --board lm3s6965 0.01

stage "lm3s6965: defmt build, logging over semihosting"
build lm3s6965 defmt defmt
ELF="$WORK/lm3s6965-defmt.elf"
run_qemu defmt lm3s6965 "$ELF" --quick
if [ ! -s "$WORK/defmt/semihosting.out" ]; then
    echo "FAIL (defmt): no defmt frames on semihosting stdout"
    exit 1
fi
echo "defmt log: $(wc -c <"$WORK/defmt/semihosting.out") bytes of frames in $WORK/defmt/semihosting.out"
if ! command -v defmt-print >/dev/null 2>&1; then
    # A debug build: it decodes a few frames, and a fresh machine builds it in about
    # half the time of a release build.
    echo "installing defmt-print (cargo install --locked --debug)"
    cargo install defmt-print --locked --quiet --debug
fi
# The log as the crate's `defmt::Format` impls write it: every line of
# defmt-expected.log must be in it, whole (the `stats` reply, whose numbers vary, is not
# among them).
if ! timeout 30 defmt-print -e "$ELF" <"$WORK/defmt/semihosting.out" \
    >"$WORK/defmt/decoded.log"; then
    echo "FAIL (defmt): defmt-print could not decode the frames"
    exit 1
fi
missing=0
while IFS= read -r want; do
    if ! grep -qxF -- "$want" "$WORK/defmt/decoded.log"; then
        echo "FAIL (defmt): the decoded log lacks: $want"
        missing=1
    fi
done <"$HERE/defmt-expected.log"
if [ "$missing" != 0 ]; then
    echo "--- the decoded log:"
    cat "$WORK/defmt/decoded.log"
    exit 1
fi
echo "defmt log decoded: $(wc -l <"$WORK/defmt/decoded.log") lines, all $(wc -l <"$HERE/defmt-expected.log") expected ones among them"

stage "passed"
