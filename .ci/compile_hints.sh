#!/usr/bin/env bash
# The compile errors a newcomer meets first point at the fix: a crate that asks for
# typed params from a build without the `serde` feature must fail to compile with an
# error that names the feature (src/without_serde.rs), on the given toolchain.
#
#   bash .ci/compile_hints.sh [TOOLCHAIN]      # default: the one rustup picks
#
# Two throwaway crates under target/compile-hints/ depend on this one without
# features: one calls `Params::decode`, one uses `typed_handler!`. Each must fail, and
# its errors must say "need the `serde` feature" / "needs the `serde` feature".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TOOLCHAIN=${1:+"+$1"}
WORK="$ROOT/target/compile-hints"
export CARGO_TARGET_DIR="$WORK/target"

# check NAME WANTED MAIN_RS: the crate NAME with MAIN_RS must fail with WANTED.
check() {
    local dir="$WORK/$1"
    mkdir -p "$dir/src"
    printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\njsonrpc-slice = { path = "%s" }\n\n[workspace]\n' \
        "$1" "$ROOT" >"$dir/Cargo.toml"
    printf '%s\n' "$3" >"$dir/src/main.rs"
    local log="$dir/errors.log"
    if (cd "$dir" && cargo $TOOLCHAIN check --quiet >"$log" 2>&1); then
        echo "FAIL: $1 compiled without the serde feature"
        exit 1
    fi
    grep -q "$2" "$log" || { cat "$log"; echo "FAIL: $1: no \"$2\" in the errors"; exit 1; }
    echo "ok: $1: $(grep -m1 "$2" "$log")"
}

check decode 'need the `serde` feature' '
fn main() {
    let p = jsonrpc_slice::Params::new(None);
    let _: (i64, i64) = p.decode().unwrap();
}'

check typed-handler 'needs the `serde` feature' '
jsonrpc_slice::typed_handler! {
    pub fn add(_ctx: &mut (), (a, b): (i64, i64)) -> Result<i64, jsonrpc_slice::RpcError<'"'"'static>> {
        Ok(a + b)
    }
}
fn main() {}'
