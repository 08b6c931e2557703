#!/usr/bin/env bash
# Prints one board's resource budgets, and exits 1 if one is over.
#
#   bash examples/firmware/budget.sh BOARD [--stats FILE]     (BOARD: lm3s6965,
#                                                              microbit, sifive_e)
#   bash examples/firmware/budget.sh lm3s6965 --mcp [--stats FILE]
#                                            (the MCP image, `--features mcp`: the
#                                            same limits but the codec share's, which
#                                            is reported as the MCP share, unbudgeted)
#
# flash        .vector_table + .text + .rodata + .data of the release ELF
#              (opt-level "s", LTO)                                     <= 24 KiB
# codec share  flash minus the `echo-only` build (same boot, same UART,
#              same instruction counter, same ready line, a byte echo
#              instead of JSON-RPC)                                     <=  8 KiB
#              (microbit: 8.5 KiB, the Cortex-M0 allowance the issue grants, see
#              README "Budgets")
# static RAM   .data + .bss (both 1 KiB buffers included)               <=  4 KiB
# stack peak   `stats` after qemu-test.sh's transcript (FILE: the
#              `stats` result qemu-test.sh saved)                       <=  1 KiB
#
# Without --stats the stack peak is reported as not measured (it needs QEMU).
#
# FIRMWARE_BUDGET_WARN: budgets (by the name in their row: flash, codec, ram, stack,
# comma-separated) that are reported as OVER but do not fail, for local experiments.
# CI names none: every budget over its limit fails it.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
. "$HERE/boards.sh"
# The firmware's own .cargo/config.toml carries each target's linker script and
# flags; RUSTFLAGS from the environment would replace them.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET

BOARD="${1:-}"
[ -n "$BOARD" ] && shift || { echo "usage: $0 BOARD [--stats FILE]" >&2; exit 2; }
TARGET=$(board_target "$BOARD")
STATS=""
IMAGE=plain
while [ $# -gt 0 ]; do
    case "$1" in
        --stats) STATS="$2"; shift 2 ;;
        --mcp) IMAGE=mcp; shift ;;
        *) echo "usage: $0 BOARD [--stats FILE]" >&2; exit 2 ;;
    esac
done

FLASH_MAX=$((24 * 1024))
CODEC_MAX=$((8 * 1024))
CODEC_NOTE=""
case "$BOARD" in
    microbit)
        CODEC_MAX=$((8 * 1024 + 512))
        CODEC_NOTE="Cortex-M0 allowance (issue: 8 KiB + a stated allowance for the M0)" ;;
esac
RAM_MAX=$((4 * 1024))
STACK_MAX=1024

rustup target add "$TARGET" >/dev/null 2>&1 || true
rustup component add llvm-tools >/dev/null 2>&1 || rustup component add llvm-tools-preview >/dev/null 2>&1 || true
HOST=$(rustc -vV | sed -n 's/^host: //p')
SIZE="$(rustc --print sysroot)/lib/rustlib/$HOST/bin/llvm-size"
if [ ! -x "$SIZE" ]; then
    echo "budget: llvm-size not found at $SIZE (rustup component add llvm-tools)" >&2
    exit 1
fi

OUT=target/budget/$BOARD
FEATURES=""
if [ "$IMAGE" = mcp ]; then
    OUT=$OUT-mcp
    FEATURES=mcp
fi
mkdir -p "$OUT"
cp "$(firmware_build "$BOARD" echo-only echo-only)" "$OUT/echo-only.elf"
cp "$(firmware_build "$BOARD" "$IMAGE" $FEATURES)" "$OUT/firmware.elf"

# Berkeley format: text (code + rodata + vector table), data, bss.
sizes() { "$SIZE" -B "$1" | awk 'NR == 2 { print $1, $2, $3 }'; }
read -r TEXT DATA BSS < <(sizes "$OUT/firmware.elf")
read -r E_TEXT E_DATA E_BSS < <(sizes "$OUT/echo-only.elf")
FLASH=$((TEXT + DATA))
ECHO_FLASH=$((E_TEXT + E_DATA))
CODEC=$((FLASH - ECHO_FLASH))
RAM=$((DATA + BSS))

STACK=""
INSTR=""
if [ -n "$STATS" ] && [ -s "$STATS" ]; then
    read -r STACK INSTR < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
print(s["stack_peak_bytes"], s.get("last_handle_instructions", ""))' "$STATS")
fi

FAIL=0
WARNED=""
WARN_ONLY=",${FIRMWARE_BUDGET_WARN:-},"
row() { # name measured limit key [note]
    local verdict=ok
    if [ "$2" -gt "$3" ]; then
        if [[ "$WARN_ONLY" == *",$4,"* ]]; then
            verdict="OVER (FIRMWARE_BUDGET_WARN: not failing)"
            WARNED="$WARNED $1;"
        else
            verdict=OVER
            FAIL=1
        fi
    fi
    printf '%-12s %7d B  %5.1f KiB   limit %5d B  %s%s\n' "$1" "$2" "$(echo "$2" | awk '{ printf "%.1f", $1 / 1024 }')" "$3" "$verdict" "${5:+  ($5)}"
}
echo "firmware budgets, $BOARD${FEATURES:+ --features $FEATURES} ($TARGET, opt-level \"s\", LTO):"
row "flash" "$FLASH" "$FLASH_MAX" flash
if [ "$IMAGE" = mcp ]; then
    printf '%-12s %7d B  %5.1f KiB   not budgeted (the MCP server and its tools on the codec)\n' \
        "MCP share" "$CODEC" "$(echo "$CODEC" | awk '{ printf "%.1f", $1 / 1024 }')"
else
    row "codec share" "$CODEC" "$CODEC_MAX" codec "$CODEC_NOTE"
fi
if [ "$IMAGE" = plain ] && [ "$CODEC" -gt $((8 * 1024)) ]; then
    printf '%-12s %7d B over the issue'"'"'s 8 KiB\n' "" $((CODEC - 8 * 1024))
fi
row "static RAM" "$RAM" "$RAM_MAX" ram
if [ -n "$STACK" ]; then
    row "stack peak" "$STACK" "$STACK_MAX" stack
else
    printf '%-12s %s\n' "stack peak" "not measured (qemu-test.sh measures it)"
fi
printf '  (echo-only baseline: flash %d B, static RAM %d B; firmware: text %d, data %d, bss %d)\n' \
    "$ECHO_FLASH" "$((E_DATA + E_BSS))" "$TEXT" "$DATA" "$BSS"
if [ -n "$INSTR" ] && [ "$INSTR" != "0" ]; then
    if [ "$IMAGE" = mcp ]; then
        printf '%-12s %7d instructions in Server::handle for a 2026-07-28 tools/call of set_led (QEMU -icount)\n' \
            "per message" "$INSTR"
    else
        printf '%-12s %7d instructions in Server::handle for the spec'"'"'s first subtract request (QEMU -icount)\n' \
            "per message" "$INSTR"
    fi
fi
if [ "$FAIL" -ne 0 ]; then
    echo "budget: OVER BUDGET"
    exit 1
fi
if [ -n "$WARNED" ]; then
    echo "budget: OVER BUDGET, warned only:${WARNED%;}"
else
    echo "budget: all within budget"
fi
