# Shared by benches/instructions.sh and benches/per_byte.sh (sourced, not run): the
# build of the `instructions` bench and the callgrind count.
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
