# Shared by benches/instructions.sh, benches/per_byte.sh and benches/stepcount.sh
# (sourced, not run): the build of the `instructions` bench, the callgrind count, and
# the instruction table's messages, header and rows.
#
# After `parse_build_option` has taken `--target-cpu CPU` out of the arguments and
# `build_instructions` has run: `$exe` is the bench, `$exe_no_std` the same bench on the
# crate's `no_std` build (the bench package without its default `std` feature: the
# crate with its default features alone, its own UTF-8 check where `std`
# has simdutf8), `$build` says how they were built, and `count FUNCTION ARGS...` prints
# the instructions counted inside FUNCTION divided by `$N`, two decimals (`EXE=...
# count` counts another executable, `$exe_no_std`).

TARGET_CPU=""

# build_instructions: the bench profile (lto, codegen-units = 1). With `--target-cpu`,
# `RUSTFLAGS="-C target-cpu=CPU"` into its own target directory (target/v3 for
# x86-64-v3, target/cpu-CPU otherwise), so the default build is not disturbed.
build_instructions() {
    local -a env=()
    build="bench profile, no target-cpu flags (baseline $(uname -m))"
    if [ -n "$TARGET_CPU" ]; then
        local dir="target/cpu-$TARGET_CPU"
        [ "$TARGET_CPU" = x86-64-v3 ] && dir="target/v3"
        env=(RUSTFLAGS="-C target-cpu=$TARGET_CPU" CARGO_TARGET_DIR="$dir")
        build="bench profile, -C target-cpu=$TARGET_CPU"
    fi
    exe=$(env "${env[@]}" cargo bench -p jsonrpc-slice-benches --bench instructions --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
    [ -x "$exe" ] || { echo "could not build the instructions bench" >&2; exit 1; }
    "$exe" check >/dev/null
    exe_no_std=$(env "${env[@]}" cargo bench -p jsonrpc-slice-benches --no-default-features --bench instructions --no-run --message-format=json 2>/dev/null |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
    [ -x "$exe_no_std" ] || { echo "could not build the instructions bench without std" >&2; exit 1; }
    [ "$exe_no_std" != "$exe" ] || { echo "the build without std is the build with it" >&2; exit 1; }
}

command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count FUNCTION ARGS...: instructions inside FUNCTION, divided by N, two decimals.
count() {
    local fn="$1"; shift
    local out="$tmp/cg.$$.$RANDOM"
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="*$fn*" \
        "${EXE:-$exe}" "$@" >/dev/null 2>"$out.log" || { cat "$out.log" >&2; exit 1; }
    local total
    total=$(sed -n 's/^summary: *//p; s/^totals: *//p' "$out" | head -n 1)
    awk -v t="$total" -v n="$N" 'BEGIN { printf "%.2f", t / n }'
}

# The implementations of the instruction table, and the bench messages by file name:
# the shared corpus's eight and benches/messages/'s four.
impls=(jsonrpc-slice serde_json sonic-rs jsonrpsee-types simd-json)
baselines=("${impls[@]:1}")
files=$(for f in ../shared/corpus/bench/*.json benches/messages/*.json; do
    echo "$(basename "$f") $f"
done | sort | cut -d' ' -f2)

# table_header: the table's header (and the CSV's, into `$CSV` if set).
table_header() {
    printf '| message | bytes | jsonrpc-slice | jsonrpc-slice, no std |'
    printf ' %s |' "${baselines[@]}"
    printf ' best baseline ÷ jsonrpc-slice | target (best ÷ 3) | met |\n'
    printf '|---|---:|---:|'
    printf -- '---:|%.0s' "${impls[@]}"
    printf -- '---:|---:|:---:|\n'
    [ -z "${CSV:-}" ] || echo "message,bytes,$(IFS=,; echo "${impls[*]}"),target,jsonrpc-slice no std" >"$CSV"
}

# fmt X: X rounded, thousands grouped with commas (whatever the locale has).
fmt() {
    awk -v x="$1" 'BEGIN {
        s = sprintf("%.0f", x); out = ""
        while (length(s) > 3) { out = "," substr(s, length(s) - 2) out; s = substr(s, 1, length(s) - 3) }
        print s out
    }'
}

row() { # row NAME BYTES SLICE SLICE_NO_STD BASELINE...
    local name="$1" bytes="$2" slice="$3" no_std="$4"; shift 4
    local best target ratio met
    best=$(printf '%s\n' "$@" | sort -g | head -n 1)
    target=$(awk -v b="$best" 'BEGIN { printf "%.2f", b / 3 }')
    # Two decimals near 1, so that a row a baseline wins does not read 1.0×.
    ratio=$(awk -v b="$best" -v s="$slice" 'BEGIN { r = b / s; printf (r < 1.1 ? "%.2f×" : "%.1f×"), r }')
    met=$(awk -v s="$slice" -v t="$target" 'BEGIN { print (s <= t) ? "yes" : "**no**" }')
    printf '| %s | %s | %s | %s |' "$name" "$(fmt "$bytes")" "$(fmt "$slice")" "$(fmt "$no_std")"
    local c
    for c in "$@"; do printf ' %s |' "$(fmt "$c")"; done
    printf ' %s | ≤ %s | %s |\n' "$ratio" "$(fmt "$target")" "$met"
    [ -z "${CSV:-}" ] || echo "$name,$bytes,$slice,$(IFS=,; echo "$*"),$target,$no_std" >>"$CSV"
}
