#!/usr/bin/env bash
# The session replay (benches/replay.rs) in instructions, counted by callgrind.
#
#   benches/replay.sh [--misses]
#
# Builds the `replay` bench (bench profile), checks that each pair of servers writes the
# same messages (criterion's test mode runs each job once after the checks), then runs
# each replay once under `valgrind --tool=callgrind`, counting only inside `counted`,
# and prints instructions a message (the count divided by the session's messages) and
# each pair's ratio. With `--misses`, callgrind also simulates the branch predictor and
# the caches (`--branch-sim=yes --cache-sim=yes`): mispredicted conditional and
# indirect branches and first-level data misses, a message. Then the allocator calls
# a message of each (`replay allocations`). Time: `cargo bench -p jsonrpc-slice-benches
# --bench replay` (criterion); docs/perf/replay.md says how the figures were taken.
set -euo pipefail
cd "$(dirname "$0")/.."

SIM=()
[ "${1:-}" = --misses ] && SIM=(--branch-sim=yes --cache-sim=yes)
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
exe=$(cargo bench -p jsonrpc-slice-benches --bench replay --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -x "$exe" ] || { echo "could not build the replay bench" >&2; exit 1; }
"$exe" --test >/dev/null
read -r messages bytes < <("$exe" session)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count JOB: the callgrind totals of one replay (the events in the order of `events:`).
declare -A ir bcm bim d1
count() {
    local out="$tmp/cg.$1"
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*counted*' "${SIM[@]}" \
        "$exe" count "$1" >/dev/null 2>"$out.log" || { cat "$out.log" >&2; exit 1; }
    local events totals
    events=$(sed -n 's/^events: *//p' "$out" | head -n 1)
    totals=$(sed -n 's/^summary: *//p; s/^totals: *//p' "$out" | head -n 1)
    # event NAME: the total of event NAME (0 when not simulated).
    event() { awk -v e="$events" -v t="$totals" -v n="$1" 'BEGIN {
        split(e, names, " "); split(t, v, " "); r = 0
        for (i in names) if (names[i] == n) r = v[i]
        print r }'; }
    ir[$1]=$(event Ir)
    bcm[$1]=$(event Bcm)
    bim[$1]=$(event Bim)
    d1[$1]=$(( $(event D1mr) + $(event D1mw) ))
}

echo "Session replay: $messages messages, $bytes bytes of bodies (callgrind, $(rustc --version | cut -d' ' -f1-2), bench profile, $(uname -m))."
echo
if [ ${#SIM[@]} -gt 0 ]; then
    echo "| replay | instructions a message | mispredicted branches a message (conditional + indirect) | D1 misses a message |"
    echo "|---|---:|---:|---:|"
else
    echo "| replay | instructions a message |"
    echo "|---|---:|"
fi
for job in codec-slice codec-serde lsp-example lsp-port; do
    count "$job"
    if [ ${#SIM[@]} -gt 0 ]; then
        awk -v j="$job" -v i="${ir[$job]}" -v c="${bcm[$job]}" -v b="${bim[$job]}" -v d="${d1[$job]}" -v m="$messages" \
            'BEGIN { printf "| %s | %.0f | %.1f + %.1f | %.1f |\n", j, i / m, c / m, b / m, d / m }'
    else
        awk -v j="$job" -v i="${ir[$job]}" -v m="$messages" 'BEGIN { printf "| %s | %.0f |\n", j, i / m }'
    fi
done
echo
awk -v a="${ir[codec-serde]}" -v b="${ir[codec-slice]}" -v c="${ir[lsp-port]}" -v d="${ir[lsp-example]}" 'BEGIN {
    printf "codec alone: serde_json DOM ÷ jsonrpc-slice = %.2f× (instructions)\n", a / b
    printf "LSP server: lsp-server port ÷ LSP example = %.2f× (instructions)\n", c / d }'
echo
"$exe" allocations
