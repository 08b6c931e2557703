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

# steps EXE ARGS... (the last argument N): the instructions of one job.
steps() {
    local exe="$1"; shift
    local one two
    one=$(STEPCOUNT_MARKERS=1 "$stepper" --markers "$exe" "$@" 1)
    two=$(STEPCOUNT_MARKERS=1 "$stepper" --markers "$exe" "$@" 2)
    echo $((two - one))
}

# counts ARGS...: the row's counts, jsonrpc-slice with and without std, then each
# baseline; ARGS are the bench's arguments with IMPL standing for the implementation.
counts() {
    local imp
    steps "$exe" "${@/IMPL/jsonrpc-slice}"
    steps "$exe_no_std" "${@/IMPL/jsonrpc-slice}"
    for imp in "${baselines[@]}"; do
        steps "$exe" "${@/IMPL/$imp}"
    done
}

asked=("$@")
# wanted STEM: whether the row was asked for (every row when none was).
wanted() {
    [ ${#asked[@]} -eq 0 ] && return 0
    local a
    for a in "${asked[@]}"; do
        [ "$a" = "$1" ] || [[ "$1" == "${a}_"* ]] && return 0
    done
    return 1
}

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
avx512=no
grep -qw avx512bw /proc/cpuinfo && avx512=yes
echo "Instructions per message on this CPU by single-stepping ($cpu; AVX-512 BW: $avx512; $build)."
echo
table_header
for file in $files; do
    stem=$(basename "$file" .json)
    wanted "$stem" || continue
    mapfile -t row_counts < <(counts IMPL "$stem")
    row "$stem" "$(stat -c %s "$file")" "${row_counts[@]}"
done
if wanted reply; then
    mapfile -t row_counts < <(counts reply IMPL)
    row reply 61 "${row_counts[@]}"
fi
echo
echo "Target: one third of the best baseline of the row, measured in this run."
