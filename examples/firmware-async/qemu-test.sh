#!/usr/bin/env bash
# The async firmware's CI test: builds it, boots it in QEMU (lm3s6965evb), talks
# JSON-RPC to it over UART0 (a unix socket) with transcript.py, and prints its flash,
# static RAM, stack peak and the RAM of one slot.
#
#   bash examples/firmware-async/qemu-test.sh        (from anywhere)
#
# Without qemu-system-arm or python3 it prints SKIP and exits 0, except under CI=true,
# where it fails. Every wait has a timeout. Guards (a regression fails the test):
# flash <= 32 KiB, static RAM <= 12 KiB, stack peak <= 8 KiB.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
# The firmware's .cargo/config.toml carries its target and linker script; RUSTFLAGS
# from the environment would replace those rustflags.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET
export CARGO_TARGET_DIR="$HERE/target"
ELF_BUILT=target/thumbv7m-none-eabi/release/firmware-async
WORK=target/qemu-test
FLASH_MAX=$((32 * 1024))
RAM_MAX=$((12 * 1024))
STACK_MAX=$((8 * 1024))

stage() { printf '\n--- firmware-async: %s\n' "$*"; }
skip() {
    if [ "${CI:-}" = true ]; then
        echo "FAIL: firmware-async QEMU test cannot run under CI=true: $1"
        exit 1
    fi
    echo "SKIP: firmware-async QEMU test: $1"
    exit 0
}

stage "toolchain"
rustup target add thumbv7m-none-eabi >/dev/null 2>&1 || true
rustup component add llvm-tools >/dev/null 2>&1 || rustup component add llvm-tools-preview >/dev/null 2>&1 || true
command -v qemu-system-arm >/dev/null 2>&1 || skip "qemu-system-arm not installed (examples/firmware/qemu-test.sh installs it)"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
HOST=$(rustc -vV | sed -n 's/^host: //p')
SIZE="$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-size"
[ -x "$SIZE" ] || { echo "FAIL: llvm-size not found at $SIZE (rustup component add llvm-tools)"; exit 1; }

# flash (vector table, code, read-only data, initialised data) and static RAM (.data,
# .bss, .uninit) of an ELF.
sizes() {
    "$SIZE" -A "$1" | awk '
        $1 == ".vector_table" || $1 == ".text" || $1 == ".rodata" { flash += $2 }
        $1 == ".data" { flash += $2; ram += $2 }
        $1 == ".bss" || $1 == ".uninit" { ram += $2 }
        END { print flash, ram }'
}

stage "build (release; and with one slot, to measure a slot)"
mkdir -p "$WORK"
cargo build --release --quiet --features one-slot
cp "$ELF_BUILT" "$WORK/one-slot.elf"
cargo build --release --quiet
cp "$ELF_BUILT" "$WORK/firmware.elf"

stage "JSON-RPC transcript in QEMU"
SOCKDIR=$(mktemp -d)
QPID=""
cleanup() {
    if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then kill "$QPID" 2>/dev/null || true; fi
    rm -rf "$SOCKDIR"
}
trap cleanup EXIT
timeout 120 qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb -nographic \
    -semihosting-config enable=on,target=native -monitor none \
    -chardev "socket,id=uart0,path=$SOCKDIR/uart0.sock,server=on,wait=on" -serial chardev:uart0 \
    -kernel "$WORK/firmware.elf" </dev/null >"$WORK/semihosting.out" 2>"$WORK/qemu.err" &
QPID=$!
rc=0
timeout 150 python3 transcript.py --socket "$SOCKDIR/uart0.sock" --stats-out "$WORK/stats.json" || rc=$?
# After `shutdown` QEMU must exit by itself, with status 0, promptly.
for _ in $(seq 1 150); do
    kill -0 "$QPID" 2>/dev/null || break
    sleep 0.1
done
qrc=0
if kill -0 "$QPID" 2>/dev/null; then
    echo "FAIL: QEMU still running 15 s after the transcript; killed"
    kill "$QPID" 2>/dev/null || true
    qrc=timeout
else
    wait "$QPID" || qrc=$?
fi
QPID=""
if [ "$rc" != 0 ] || [ "$qrc" != 0 ]; then
    echo "FAIL: transcript exit $rc, QEMU exit $qrc"
    cat "$WORK/qemu.err" || true
    exit 1
fi
echo "QEMU exited with status 0 after shutdown"

stage "memory"
read -r FLASH RAM < <(sizes "$WORK/firmware.elf")
read -r _ RAM1 < <(sizes "$WORK/one-slot.elf")
STACK=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stack_peak"])' "$WORK/stats.json")
SLOT=$(((RAM - RAM1) / 3))
printf '%-12s %7s B  (limit %s)\n' flash "$FLASH" "$FLASH_MAX" "static RAM" "$RAM" "$RAM_MAX" "stack peak" "$STACK" "$STACK_MAX"
printf '%-12s %7s B  (4 slots against 1, over 3: buffers, state, worker)\n' "a slot" "$SLOT"
over=0
[ "$FLASH" -le "$FLASH_MAX" ] || { echo "FAIL: flash over $FLASH_MAX"; over=1; }
[ "$RAM" -le "$RAM_MAX" ] || { echo "FAIL: static RAM over $RAM_MAX"; over=1; }
[ "$STACK" -le "$STACK_MAX" ] || { echo "FAIL: stack peak over $STACK_MAX"; over=1; }
[ "$over" = 0 ] || exit 1

stage "passed"
