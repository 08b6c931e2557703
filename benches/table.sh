#!/usr/bin/env bash
# Instructions per method-table lookup, counted by callgrind.
#
#   benches/table.sh [N]
#
# Builds the `table` bench (bench profile), runs each lookup N times (default 10000)
# under `valgrind --tool=callgrind`, counting only inside `measured_find`, and prints
# the count divided by N: `MethodTable::find` plus the loop's own few instructions.
set -euo pipefail
cd "$(dirname "$0")/.."

N="${1:-10000}"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }

exe=$(cargo bench -p jsonrpc-slice-benches --bench table --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -x "$exe" ] || { echo "could not build the table bench" >&2; exit 1; }
"$exe" check >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count TABLE WHICH: instructions per lookup, the measuring loop's own included (the
# `loop` row: subtract it for the lookup alone).
count() {
    local out="$tmp/cg.$RANDOM" n="$N"
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="*measured_*" \
        "$exe" "$1" "$2" "$N" >/dev/null 2>"$out.log" || { cat "$out.log" >&2; exit 1; }
    local total
    total=$(sed -n 's/^summary: *//p; s/^totals: *//p' "$out" | head -n 1)
    if [ "$2" = all ]; then
        n=$((N * $([ "$1" = demo ] && echo 9 || echo 1024)))
    fi
    awk -v t="$total" -v n="$n" 'BEGIN { printf "%.1f", t / n }'
}

echo "| table | first | middle | last | missing | every row (mean) |"
echo "|---|---:|---:|---:|---:|---:|"
for table in demo big; do
    printf '| %s |' "$table"
    for which in first middle last missing; do
        printf ' %s |' "$(count "$table" "$which")"
    done
    printf ' %s |\n' "$(N=$((N / 100 + 1)) count "$table" all)"
done
loop_only() {
    local out="$tmp/cg.$RANDOM"
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="*measured_*" \
        "$exe" loop "$N" >/dev/null 2>"$out.log" || { cat "$out.log" >&2; exit 1; }
    sed -n 's/^summary: *//p; s/^totals: *//p' "$out" | head -n 1 |
        awk -v n="$N" '{ printf "%.1f", $1 / n }'
}
echo
echo "The measuring loop alone (its \`black_box\`es, no lookup): $(loop_only) per turn, included above."
echo "Instructions per lookup (callgrind, N=$N, $(rustc --version | cut -d' ' -f1-2), bench profile, $(uname -m))."
