#!/usr/bin/env bash
# Instructions per message, per implementation, counted by callgrind.
#
#   benches/instructions.sh [N] [--csv FILE]
#
# Builds the `instructions` bench (bench profile: lto, codegen-units = 1, no target-cpu
# flags), runs each job N times (default 200) under `valgrind --tool=callgrind`, counting
# only inside the measuring loop (`--toggle-collect`), and prints a markdown table of
# instructions per message (the count divided by N). Counts repeat to within 0.01 %
# from run to run; timings on a shared machine do not.
#
# The reply row: for the baselines, serialising {"jsonrpc":"2.0","result":19,"id":1}
# into a reused Vec; for jsonrpc-slice, `Server::handle` of message 01 on a one-method
# table whose handler writes 19, minus `envelope::parse` of 01: dispatch, the handler
# call and writing the reply envelope.
set -euo pipefail
cd "$(dirname "$0")/.."

N=200
CSV=""
while [ $# -gt 0 ]; do
    case "$1" in
        --csv) CSV="$2"; shift 2 ;;
        *) N="$1"; shift ;;
    esac
done

command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }

exe=$(cargo bench --bench instructions --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -x "$exe" ] || { echo "could not build the instructions bench" >&2; exit 1; }
"$exe" check >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count FUNCTION ARGS...: instructions inside FUNCTION, divided by N, two decimals.
count() {
    local fn="$1"; shift
    local out="$tmp/cg.$$.$RANDOM"
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="*$fn*" \
        "$exe" "$@" >/dev/null 2>"$out.log" || { cat "$out.log" >&2; exit 1; }
    local total
    total=$(sed -n 's/^summary: *//p; s/^totals: *//p' "$out" | head -n 1)
    awk -v t="$total" -v n="$N" 'BEGIN { printf "%.2f", t / n }'
}

impls=(jsonrpc-slice serde_json sonic-rs jsonrpsee-types)
# The issue's reference (best baseline measured before the crate existed) and the
# target, one third of it.
declare -A ref=(
    [01]=1920 [02]=3255 [03]=3723 [04]=6717 [05]=107041 [06]=16519 [07]=15693
    [08]=1109180 [reply]=460
)
declare -A target=(
    [01]=640 [02]=1085 [03]=1241 [04]=2239 [05]=35680 [06]=5506 [07]=5231
    [08]=369727 [reply]=153
)

stems=$(ls ../shared/corpus/bench/*.json | xargs -n1 basename | sed 's/\.json$//')

printf '| message | bytes | %s | %s | %s | %s | best baseline ÷ jsonrpc-slice | target | met |\n' "${impls[@]}"
printf '|---|---:|---:|---:|---:|---:|---:|---:|:---:|\n'
[ -z "$CSV" ] || echo "message,bytes,${impls[*]// /,},target" | tr ' ' ',' >"$CSV"

row() { # row NAME BYTES SLICE BASELINE...
    local name="$1" bytes="$2" slice="$3"; shift 3
    local key="${name%%_*}"
    local best
    best=$(printf '%s\n' "$@" | sort -g | head -n 1)
    local ratio met
    ratio=$(awk -v b="$best" -v s="$slice" 'BEGIN { printf "%.1f×", b / s }')
    met=$(awk -v s="$slice" -v t="${target[$key]}" 'BEGIN { print (s <= t) ? "yes" : "**no**" }')
    fmt() { awk -v x="$1" 'BEGIN { printf "%\047.0f", x }'; }
    printf '| %s | %s | %s | %s | %s | %s | %s | ≤ %s | %s |\n' "$name" "$bytes" \
        "$(fmt "$slice")" "$(fmt "$1")" "$(fmt "$2")" "$(fmt "$3")" "$ratio" \
        "$(fmt "${target[$key]}")" "$met"
    [ -z "$CSV" ] || echo "$name,$bytes,$slice,$1,$2,$3,${target[$key]}" >>"$CSV"
}

export LC_NUMERIC=en_US.UTF-8 2>/dev/null || true
for stem in $stems; do
    bytes=$(stat -c %s "../shared/corpus/bench/$stem.json")
    counts=()
    for imp in "${impls[@]}"; do
        counts+=("$(count measured_loop "$imp" "$stem" "$N")")
    done
    row "$stem" "$bytes" "${counts[@]}"
done

handle=$(count measured_handle handle "$N")
parse01=$(count measured_loop jsonrpc-slice 01 "$N")
slice_reply=$(awk -v h="$handle" -v p="$parse01" 'BEGIN { printf "%.2f", h - p }')
counts=()
for imp in serde_json sonic-rs jsonrpsee-types; do
    counts+=("$(count measured_reply reply "$imp" "$N")")
done
row "reply" "36" "$slice_reply" "${counts[@]}"

echo
echo "Instructions per message (callgrind, N=$N, $(rustc --version | cut -d' ' -f1-2), bench profile, $(uname -m))."
