# The three boards, sourced by qemu-test.sh, budget.sh and noisy-link.sh:
# board_target BOARD, board_qemu BOARD (the QEMU command line up to the UART options).
BOARDS_ALL="lm3s6965 microbit sifive_e"

board_target() {
    case "$1" in
        lm3s6965) echo thumbv7m-none-eabi ;;
        microbit) echo thumbv6m-none-eabi ;;
        sifive_e) echo riscv32imac-unknown-none-elf ;;
        *) echo "unknown board: $1 (one of: $BOARDS_ALL)" >&2; return 1 ;;
    esac
}

# -icount shift=0: one virtual nanosecond per instruction, so the boards' counters
# count instructions (src/board/systick.rs, sifive_e.rs).
board_qemu() {
    local common="-nographic -monitor none -semihosting-config enable=on,target=native -icount shift=0"
    case "$1" in
        lm3s6965) echo "qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb $common" ;;
        microbit) echo "qemu-system-arm -machine microbit $common" ;;
        sifive_e) echo "qemu-system-riscv32 -machine sifive_e $common" ;;
        *) echo "unknown board: $1" >&2; return 1 ;;
    esac
}

# The Debian package of each board's QEMU.
board_qemu_package() {
    case "$1" in
        sifive_e) echo qemu-system-misc ;;
        *) echo qemu-system-arm ;;
    esac
}

# firmware_build BOARD DIR [FEATURE...]: the release firmware for BOARD with those
# features, built in target/DIR (each variant in its own directory, so none relinks
# another; budget.sh's are plain/ and echo-only/); prints the ELF's path. Run from
# the firmware's folder, without RUSTFLAGS (.cargo/config.toml has each target's).
firmware_build() {
    local board="$1" dir="$2" target features
    shift 2
    target=$(board_target "$board")
    features="$board${*:+ $*}"
    CARGO_TARGET_DIR="$PWD/target/$dir" cargo build --release --quiet --features "${features// /,}" \
        --target "$target" >&2
    echo "target/$dir/$target/release/firmware"
}

# qemu_start BOARD ELF OUT: boots ELF on BOARD in the background, its UART on two
# FIFOs ($PIPEDIR/uart.in, .out: `-chardev pipe`), semihosting output and QEMU's
# stderr in OUT; sets QPID and PIPEDIR. The timeout is a backstop only.
qemu_start() {
    local board="$1" elf="$2" out="$3"
    mkdir -p "$out"
    PIPEDIR=$(mktemp -d)
    mkfifo "$PIPEDIR/uart.in" "$PIPEDIR/uart.out"
    timeout 300 $(board_qemu "$board") \
        -chardev "pipe,id=uart0,path=$PIPEDIR/uart" -serial chardev:uart0 \
        -kernel "$elf" </dev/null >"$out/semihosting.out" 2>"$out/qemu.err" &
    QPID=$!
}

# qemu_finish NAME: after `shutdown`, QEMU must exit by itself, with status 0, within
# 15 s; returns 1 (and says why) otherwise. Clears QPID and PIPEDIR.
qemu_finish() {
    local name="$1" i qrc=0
    for i in $(seq 1 150); do
        kill -0 "$QPID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$QPID" 2>/dev/null; then
        echo "FAIL ($name): QEMU still running 15 s after shutdown; killed"
        kill "$QPID" 2>/dev/null || true
        wait "$QPID" 2>/dev/null || true
        qrc=timeout
    else
        wait "$QPID" || qrc=$?
    fi
    QPID=""
    rm -rf "$PIPEDIR"
    PIPEDIR=""
    if [ "$qrc" != 0 ]; then
        echo "FAIL ($name): QEMU exit $qrc"
        return 1
    fi
}

# qemu_cleanup: the EXIT trap of the scripts that boot QEMU.
QPID=""
PIPEDIR=""
qemu_cleanup() {
    if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
        kill "$QPID" 2>/dev/null || true
    fi
    if [ -n "$PIPEDIR" ]; then rm -rf "$PIPEDIR"; fi
}
