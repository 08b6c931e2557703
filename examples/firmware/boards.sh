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
