#!/usr/bin/env bash
# Instructions a byte of typed decoding into serde_json::Value, counted by callgrind.
#
#   benches/typed_nested.sh [DEPTH...]
#
# Builds the root package's `typed_nested` bench (bench profile, feature `serde`) and,
# for each depth (default 8 and 120) and shape (eight nests of arrays or of one-member
# objects side by side, benches/typed_nested.rs), counts the instructions of decoding
# the input 20 times, by `RawJson::decode` and by `serde_json::from_slice`, and prints
# them a byte. A typed decode that walks each byte a bounded number of times costs
# about as much a byte at depth 120 as at depth 8.
set -euo pipefail
cd "$(dirname "$0")/.."

depths=("$@")
[ ${#depths[@]} -gt 0 ] || depths=(8 120)
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
exe=$(cargo bench --features serde --bench typed_nested --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -x "$exe" ] || { echo "could not build the typed_nested bench" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=20

# per_byte SHAPE IMPL DEPTH: instructions inside `measured`, a byte of input.
per_byte() {
    local out="$tmp/cg.$RANDOM"
    local bytes
    bytes=$(valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*typed_nested::measured*' \
        "$exe" "$1" "$2" "$3" "$N" 2>"$out.log" | cut -d' ' -f1) || { cat "$out.log" >&2; exit 1; }
    local total
    total=$(sed -n 's/^summary: *//p; s/^totals: *//p' "$out" | head -n 1)
    awk -v t="$total" -v n="$N" -v b="$bytes" 'BEGIN { printf "%.0f", t / n / b }'
}

echo "Instructions a byte, decoding into serde_json::Value (callgrind, $(rustc --version | cut -d' ' -f1-2), bench profile)."
echo
printf '| shape | depth | bytes | jsonrpc-slice | serde_json |\n|---|---:|---:|---:|---:|\n'
for shape in arrays objects; do
    for depth in "${depths[@]}"; do
        bytes=$("$exe" "$shape" slice "$depth" 1 | cut -d' ' -f1)
        printf '| %s | %s | %s | %s | %s |\n' "$shape" "$depth" "$bytes" \
            "$(per_byte "$shape" slice "$depth")" "$(per_byte "$shape" serde_json "$depth")"
    done
done
