#!/usr/bin/env bash
# Instructions per message on this CPU, every path as it runs here (AVX-512 included),
# counted by single-stepping (benches/stepcount.rs) where valgrind cannot: callgrind
# runs a CPU of its own, without AVX-512, so benches/instructions.sh counts the AVX2
# loops on a machine that runs the AVX-512 ones.
#
#   benches/stepcount.sh [STEM...]      (default: every bench message and the reply)
#
# For each message, the `instructions` bench's job run N = 1 and N = 2 times between
# two markers (`STEPCOUNT_MARKERS`), each run stepped; the difference is one job, the
# markers' own instructions cancelled. The same columns and target as
# benches/instructions.sh (a third of the best baseline, measured in the same run).
# Where a path is the same under callgrind and here, the two counts agree to a few
# instructions in ten thousand (glibc's memcpy and friends are picked for the CPU each
# sees). Slow: about 25,000 instructions a second on this 2-core VM; the whole table
# takes about 20 minutes, row 08 alone 10.
set -euo pipefail
cd "$(dirname "$0")/.."

source benches/callgrind.sh
build_instructions
stepper=$(cargo build --release -p jsonrpc-slice-benches --example stepcount --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
[ -x "$stepper" ] || { echo "could not build stepcount" >&2; exit 1; }

impls=(jsonrpc-slice serde_json sonic-rs jsonrpsee-types simd-json)
baselines=("${impls[@]:1}")

# steps EXE ARGS... (the last argument N): the instructions of one job.
steps() {
    local exe="$1"; shift
    local one two
    one=$(STEPCOUNT_MARKERS=1 "$stepper" --markers "$exe" "$@" 1)
    two=$(STEPCOUNT_MARKERS=1 "$stepper" --markers "$exe" "$@" 2)
    echo $((two - one))
}

stems=("$@")
if [ ${#stems[@]} -eq 0 ]; then
    for f in ../shared/corpus/bench/*.json benches/messages/*.json; do
        stems+=("$(basename "$f" .json | cut -d_ -f1)")
    done
    mapfile -t stems < <(printf '%s\n' "${stems[@]}" | sort)
    stems+=(reply)
fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
avx512=no
grep -qw avx512bw /proc/cpuinfo && avx512=yes
echo "Instructions per message on this CPU by single-stepping ($cpu; AVX-512 BW: $avx512; $build)."
echo
printf '| message | jsonrpc-slice | jsonrpc-slice, no std |'
printf ' %s |' "${baselines[@]}"
printf ' best baseline ÷ jsonrpc-slice | target (best ÷ 3) | met |\n'
printf '|---|---:|---:|'
printf -- '---:|%.0s' "${baselines[@]}"
printf -- '---:|---:|:---:|\n'
job() { # job IMPL: the bench's arguments for IMPL on the row $stem, N left off
    if [ "$stem" = reply ]; then echo "reply $1"; else echo "$1 $stem"; fi
}
for stem in "${stems[@]}"; do
    # shellcheck disable=SC2046
    slice=$(steps "$exe" $(job jsonrpc-slice))
    # shellcheck disable=SC2046
    no_std=$(steps "$exe_no_std" $(job jsonrpc-slice))
    counts=()
    for imp in "${baselines[@]}"; do
        # shellcheck disable=SC2046
        counts+=("$(steps "$exe" $(job "$imp"))")
    done
    best=$(printf '%s\n' "${counts[@]}" | sort -g | head -n 1)
    awk -v name="$stem" -v s="$slice" -v ns="$no_std" -v best="$best" -v cs="${counts[*]}" 'BEGIN {
        n = split(cs, c, " ")
        line = sprintf("| %s | %d | %d |", name, s, ns)
        for (k = 1; k <= n; k++) line = line sprintf(" %d |", c[k])
        t = best / 3
        line = line sprintf(" %.2f× | ≤ %d | %s |", best / s, t, s <= t ? "yes" : "**no**")
        print line
    }'
done
echo
echo "Target: one third of the best baseline of the row, measured in this run."
