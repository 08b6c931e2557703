#!/usr/bin/env bash
# The firmware example's CI test: builds it, boots it in QEMU (lm3s6965evb), talks
# JSON-RPC to it over UART0 (a unix socket), and checks the budgets.
#
#   bash examples/firmware-lm3s6965/qemu-test.sh        (from anywhere)
#
# 1. installs what it needs: the thumbv7m-none-eabi target, llvm-tools, and
#    qemu-system-arm (apt-get, when missing; without it: SKIP, exit 0, but with
#    CI=true: FAIL, exit 1);
# 2. builds the firmware (release) and replays the JSON-RPC spec examples and the
#    edge cases of qemu_transcript.py, then `stats` and `shutdown`: QEMU must exit 0;
# 3. builds the `defmt` variant, runs a short transcript with defmt logging on, decodes
#    the frames with defmt-print (installed with `cargo install --locked` when missing)
#    and checks that the log has every line of defmt-expected.log;
# 4. budget.sh: flash, codec share, static RAM, stack peak.
#
# Every wait has a timeout. A budget over its limit fails, unless it is named in
# FIRMWARE_BUDGET_WARN (see budget.sh).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
# The specification's examples, from the conformance corpus (JSONRPC_SLICE_CORPUS, else
# ../shared/corpus beside the repository, as for the tests).
SPEC="${JSONRPC_SLICE_CORPUS:-$HERE/../../../shared/corpus}/jsonrpc-spec/README.md"
ELF_BUILT=target/thumbv7m-none-eabi/release/firmware-lm3s6965
WORK=target/qemu-test
# The firmware's .cargo/config.toml carries its target and linker script; RUSTFLAGS
# from the environment would replace those rustflags, so it is not passed on.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET
export CARGO_TARGET_DIR="$HERE/target"

stage() { printf '\n--- firmware: %s\n' "$*"; }
skip() { # under CI=true a test that cannot run fails
    if [ "${CI:-}" = true ]; then
        echo "FAIL: firmware QEMU test cannot run under CI=true: qemu-system-arm unavailable ($1)"
        exit 1
    fi
    echo "SKIP: firmware QEMU test: qemu-system-arm unavailable ($1)"
    exit 0
}

stage "toolchain"
rustup target add thumbv7m-none-eabi
rustup component add llvm-tools >/dev/null 2>&1 || rustup component add llvm-tools-preview >/dev/null 2>&1 || true

stage "qemu-system-arm"
if ! command -v qemu-system-arm >/dev/null 2>&1; then
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
            echo "installing qemu-system-arm (apt-get)"
            export DEBIAN_FRONTEND=noninteractive
            if ! timeout 600 $SUDO apt-get update -qq >"${TMPDIR:-/tmp}/fw-apt.log" 2>&1 ||
                ! timeout 900 $SUDO apt-get install -y -qq --no-install-recommends qemu-system-arm \
                    >>"${TMPDIR:-/tmp}/fw-apt.log" 2>&1; then
                reason="apt-get failed: $(tail -n 1 "${TMPDIR:-/tmp}/fw-apt.log")"
            fi
        fi
    fi
    command -v qemu-system-arm >/dev/null 2>&1 || skip "${reason:-not installed}"
fi
qemu-system-arm --version | head -n 1

if [ ! -f "$SPEC" ]; then
    echo "FAIL: the JSON-RPC spec examples are missing: $SPEC (the shared corpus belongs next to the repository)"
    exit 1
fi

QPID=""
SOCKDIR=""
cleanup() {
    if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
        kill "$QPID" 2>/dev/null || true
    fi
    if [ -n "$SOCKDIR" ]; then rm -rf "$SOCKDIR"; fi
}
trap cleanup EXIT

# run_qemu NAME ELF [transcript options...]: boots ELF with UART0 on a unix socket,
# runs the transcript against it, and checks QEMU's exit status is 0 after `shutdown`.
run_qemu() {
    local name="$1" elf="$2"
    shift 2
    local out="$WORK/$name"
    mkdir -p "$out"
    SOCKDIR=$(mktemp -d)
    local sock="$SOCKDIR/uart0.sock"
    # -icount shift=0: one virtual nanosecond per instruction, so SysTick counts
    # instructions (see src/cycles.rs). The overall timeout is a backstop only.
    timeout 180 qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb -nographic \
        -semihosting-config enable=on,target=native -monitor none -icount shift=0 \
        -chardev "socket,id=uart0,path=$sock,server=on,wait=on" -serial chardev:uart0 \
        -kernel "$elf" </dev/null >"$out/semihosting.out" 2>"$out/qemu.err" &
    QPID=$!

    local rc=0
    timeout 300 python3 qemu_transcript.py --socket "$sock" --spec "$SPEC" \
        --transcript "$out/transcript.txt" --stats-out "$out/stats.json" "$@" || rc=$?

    # After `shutdown` QEMU must exit by itself, with status 0, promptly.
    local i
    for i in $(seq 1 150); do
        kill -0 "$QPID" 2>/dev/null || break
        sleep 0.1
    done
    local qrc=0
    if kill -0 "$QPID" 2>/dev/null; then
        echo "FAIL ($name): QEMU still running 15 s after the transcript; killed"
        kill "$QPID" 2>/dev/null || true
        wait "$QPID" 2>/dev/null || true
        qrc=timeout
    else
        wait "$QPID" || qrc=$?
    fi
    QPID=""
    rm -rf "$SOCKDIR"
    SOCKDIR=""
    if [ "$rc" != 0 ] || [ "$qrc" != 0 ]; then
        echo "FAIL ($name): transcript exit $rc, QEMU exit $qrc"
        echo "--- QEMU stderr:"
        cat "$out/qemu.err" || true
        return 1
    fi
    echo "QEMU exited with status 0 after shutdown"
}

stage "build (release)"
cargo build --release
mkdir -p "$WORK"
cp "$ELF_BUILT" "$WORK/firmware.elf"

stage "JSON-RPC transcript in QEMU"
run_qemu firmware "$WORK/firmware.elf"

stage "defmt build, logging over semihosting"
cargo build --release --features defmt
cp "$ELF_BUILT" "$WORK/firmware-defmt.elf"
run_qemu defmt "$WORK/firmware-defmt.elf" --quick
if [ ! -s "$WORK/defmt/semihosting.out" ]; then
    echo "FAIL (defmt): no defmt frames on semihosting stdout"
    exit 1
fi
echo "defmt log: $(wc -c <"$WORK/defmt/semihosting.out") bytes of frames in $WORK/defmt/semihosting.out"
if ! command -v defmt-print >/dev/null 2>&1; then
    echo "installing defmt-print (cargo install --locked)"
    cargo install defmt-print --locked --quiet
fi
# The log as the crate's `defmt::Format` impls write it: every line of
# defmt-expected.log must be in it, whole (the `stats` reply, whose numbers vary, is not
# among them).
if ! timeout 30 defmt-print -e "$WORK/firmware-defmt.elf" <"$WORK/defmt/semihosting.out" \
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

stage "budgets"
if ! bash "$HERE/budget.sh" --stats "$WORK/firmware/stats.json"; then
    echo "FAIL: firmware over budget (FIRMWARE_BUDGET_WARN names budgets that only warn)"
    exit 1
fi

stage "passed"
