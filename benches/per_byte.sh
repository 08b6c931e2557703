#!/usr/bin/env bash
# Instructions per byte, counted by callgrind, from scaling runs.
#
#   benches/per_byte.sh [--target-cpu CPU]
#
# Each job of `instructions per-byte` (benches/instructions.rs says exactly what each
# input is) runs at 1 KiB, 16 KiB, 256 KiB and 1 MiB; the script prints instructions per
# call and per byte at each size, and the slope between the two largest sizes
# ((I(1 MiB) - I(256 KiB)) / (1 MiB - 256 KiB)), in which the fixed costs (envelope,
# call, setup of the writer) drop out:
#
#   parse-ascii    envelope::parse of a request whose params are ["<plain ASCII string>"]
#   parse-mixed    the same, the string non-ASCII text (French and CJK, 73 % non-ASCII bytes)
#   parse-source   the same, source-like text (Rust-like lines, `\n` and `\"` escapes among raw é, €, 東京)
#   skip-source    the same, then the string passed over by `elements()` (the trusted skip)
#   unescape-*     the string of `parse-*` (`-escaped`: the string of `parse-escaped`),
#                  parsed once, decoded by `RawStr::unescape_into` (the decode alone)
#   write-ascii    ResultWriter::str of a plain ASCII string
#   write-escaped  the same with every 8th byte a newline (written as \n)
#   parse-items    envelope::parse of a request whose params are an array of 08's items
#   skip-items     the same, then every item passed over by `elements()` (the trusted skip)
#   parse-escaped  envelope::parse of params `["<every 8th character \n>", 1]`
#   skip-escaped   the same, then both elements passed over by `elements()`
#   path-at        the same string as an LSP didChange's text, reached by `at` (one walk)
#   path-chain     the same, reached by `get("contentChanges")`, `nth(0)`, `get("text")`
#
# Then messages 05, 08, 11 and 12 of the table: jsonrpc-slice's instructions per message
# divided by the message's size. Beside each, the issue's target where it names one.
#
# Every figure twice: on the `std` build and on the `no_std` one (the bench package
# without its `std` feature: the crate's default features alone, whose UTF-8 check is
# its own, 64 bytes at a time, where `std` has simdutf8; benches/callgrind.sh builds both).
# The size columns are the `std` build's.
# `--target-cpu x86-64-v3` builds as benches/instructions.sh does (target/v3).
set -euo pipefail
cd "$(dirname "$0")/.."

N=1
source benches/callgrind.sh
while [ $# -gt 0 ]; do
    case "$1" in
        --target-cpu) TARGET_CPU="$2"; shift 2 ;;
        *) echo "usage: benches/per_byte.sh [--target-cpu CPU]" >&2; exit 2 ;;
    esac
done
build_instructions

sizes=(1024 16384 262144 1048576)
declare -A target=([parse-ascii]="—" [parse-mixed]="≤ 4; ≤ 2 no std" [parse-source]="≤ 2.5" [skip-source]="—" [unescape-ascii]="≤ 4" [unescape-mixed]="≤ 4"
    [unescape-source]="≤ 4" [unescape-escaped]="≤ 4" [write-ascii]="≤ 2" [write-escaped]="—"
    [parse-items]="—" [skip-items]="—" [parse-escaped]="—" [skip-escaped]="—" [path-at]="—" [path-chain]="—" [05]="≤ 2" [08]="≤ 3.5" [11]="—" [12]="—")

echo "Instructions per byte (callgrind, $(rustc --version | cut -d' ' -f1-2), $build)."
echo
printf '| job | 1 KiB | 16 KiB | 256 KiB | 1 MiB | per byte, slope 256 KiB → 1 MiB | no std: slope | target |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
for job in parse-ascii parse-mixed parse-source skip-source unescape-ascii unescape-mixed unescape-source \
    unescape-escaped write-ascii write-escaped parse-items skip-items parse-escaped skip-escaped path-at path-chain; do
    per_call=()
    cells=""
    for size in "${sizes[@]}"; do
        # About 4 MiB of input per run: many calls at small sizes, 4 at 1 MiB.
        N=$(( 4194304 / size ))
        c=$(count measured_loop per-byte "$job" "$size" "$N")
        per_call+=("$c")
        cells+=$(awk -v c="$c" -v s="$size" 'BEGIN { printf " %.2f |", c / s }')
    done
    slope=$(awk -v a="${per_call[2]}" -v b="${per_call[3]}" -v sa="${sizes[2]}" -v sb="${sizes[3]}" \
        'BEGIN { printf "%.3f", (b - a) / (sb - sa) }')
    a=$(N=$(( 4194304 / sizes[2] )) EXE=$exe_no_std count measured_loop per-byte "$job" "${sizes[2]}" "$(( 4194304 / sizes[2] ))")
    b=$(N=$(( 4194304 / sizes[3] )) EXE=$exe_no_std count measured_loop per-byte "$job" "${sizes[3]}" "$(( 4194304 / sizes[3] ))")
    no_std=$(awk -v a="$a" -v b="$b" -v sa="${sizes[2]}" -v sb="${sizes[3]}" \
        'BEGIN { printf "%.3f", (b - a) / (sb - sa) }')
    printf '| %s |%s **%s** | %s | %s |\n' "$job" "$cells" "$slope" "$no_std" "${target[$job]}"
done
echo
echo "(The size columns: instructions per call divided by the string's size, fixed costs included.)"
echo
printf '| message | bytes | jsonrpc-slice instructions | per byte | no std: instructions | per byte | target |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
N=50
for stem in 05 08 11 12; do
    file=$(ls ../shared/corpus/bench/"$stem"_*.json benches/messages/"$stem"_*.json 2>/dev/null || true)
    bytes=$(stat -c %s "$file")
    c=$(count measured_loop jsonrpc-slice "$stem" "$N")
    d=$(EXE=$exe_no_std count measured_loop jsonrpc-slice "$stem" "$N")
    printf '| %s | %s | %.0f | **%s** | %.0f | %s | %s |\n' "$(basename "$file" .json)" "$bytes" "$c" \
        "$(awk -v c="$c" -v b="$bytes" 'BEGIN { printf "%.3f", c / b }')" "$d" \
        "$(awk -v c="$d" -v b="$bytes" 'BEGIN { printf "%.3f", c / b }')" "${target[$stem]}"
done
