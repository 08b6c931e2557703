#!/usr/bin/env bash
# Interop tests: the `serve` example against JSON-RPC clients written elsewhere
# (vscode-jsonrpc on Node, python-lsp-jsonrpc and jsonrpcclient on Python).
#
#   bash tests/interop/run.sh          (from the repo root, or from anywhere)
#
# 1. builds the server (`cargo build --release --features std --bin jsonrpc-slice-serve`);
# 2. node: `npm ci` in tests/interop/node, then `node interop.mjs <server>`;
# 3. python: a venv in target/interop-venv, `pip install -r requirements.txt`, then
#    `python interop.py <server>`.
#
# A missing node/npm or python3, or a failed registry install, prints
# `SKIP: interop <which>: <reason>` and is not a failure, except under `CI=true`, where it fails. Exit status: 0 when every suite
# passed or was skipped, 1 when a suite failed (or the build did), 2 on bad usage.
#
# Environment: INTEROP_TIMEOUT (seconds per suite, default 120), INTEROP_VERBOSE=1 (one
# line per test), INTEROP_PYTHON (the interpreter that makes the venv, default python3).

set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TIMEOUT="${INTEROP_TIMEOUT:-120}"
PYTHON="${INTEROP_PYTHON:-python3}"

cd "$ROOT" || exit 1

if [ "$#" -ne 0 ]; then
    echo "usage: bash tests/interop/run.sh   (no arguments)" >&2
    exit 2
fi

started=$(date +%s)
status=0
results=()

say() { printf '\n== %s\n' "$*"; }
skip() { # which, reason; under CI=true a suite that cannot run fails
    if [ "${CI:-}" = true ]; then
        echo "FAIL: interop $1 cannot run under CI=true: $2"
        results+=("$1: FAIL (cannot run: $2)")
        status=1
        return
    fi
    echo "SKIP: interop $1: $2"
    results+=("$1: SKIP ($2)")
}
log_tail() { # file
    tail -n 20 "$1" | sed 's/^/    /'
}
run_suite() { # which, command...
    local which="$1"
    shift
    local t0 rc
    t0=$(date +%s)
    timeout --kill-after=10 "$TIMEOUT" "$@"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        results+=("$which: PASS ($(($(date +%s) - t0)) s)")
    else
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "FAIL: interop $which: timed out after $TIMEOUT s"
        else
            echo "FAIL: interop $which: exit status $rc"
        fi
        results+=("$which: FAIL (exit $rc)")
        status=1
    fi
}

# ---------------------------------------------------------------------------------------
say "build: cargo build --release --features std --bin jsonrpc-slice-serve"
if ! command -v cargo >/dev/null 2>&1; then
    echo "FAIL: interop: cargo not found; the server cannot be built"
    exit 1
fi
# The JSON messages name the executable wherever the target directory is
# (CARGO_TARGET_DIR, .cargo/config.toml, ...).
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
if ! cargo build --release --features std --bin jsonrpc-slice-serve --message-format=json-render-diagnostics >"$build_log"; then
    echo "FAIL: interop: cargo build --release --features std --bin jsonrpc-slice-serve failed"
    exit 1
fi
SERVE="$(grep '"name":"jsonrpc-slice-serve"' "$build_log" | grep -o '"executable":"[^"]*"' | tail -n 1 | sed 's/^"executable":"//; s/"$//')"
if [ -z "$SERVE" ] || [ ! -x "$SERVE" ]; then
    SERVE="$ROOT/target/release/jsonrpc-slice-serve"
fi
if [ ! -x "$SERVE" ]; then
    echo "FAIL: interop: built, but the serve binary is not at $SERVE"
    exit 1
fi
echo "server: $SERVE"

mkdir -p "$ROOT/target" 2>/dev/null
LOGS="$ROOT/target/interop-logs"
mkdir -p "$LOGS"

# ---------------------------------------------------------------------------------------
say "node: vscode-jsonrpc"
node_suite() {
    if ! command -v node >/dev/null 2>&1; then
        skip node "node not found"
        return
    fi
    if ! command -v npm >/dev/null 2>&1; then
        skip node "npm not found"
        return
    fi
    if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 16 ? 0 : 1)'; then
        skip node "node $(node --version) is older than 16"
        return
    fi
    echo "node $(node --version), npm $(npm --version)"
    if ! (cd "$HERE/node" && npm ci --no-audit --no-fund --loglevel=error) >"$LOGS/npm-ci.log" 2>&1; then
        log_tail "$LOGS/npm-ci.log"
        skip node "npm ci failed (registry unreachable?), log in target/interop-logs/npm-ci.log"
        return
    fi
    run_suite node node "$HERE/node/interop.mjs" "$SERVE"
}
node_suite

# ---------------------------------------------------------------------------------------
say "python: python-lsp-jsonrpc, jsonrpcclient"
python_suite() {
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        skip python "$PYTHON not found"
        return
    fi
    if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 8) else 1)'; then
        skip python "$("$PYTHON" --version 2>&1) is older than 3.8"
        return
    fi
    local venv="$ROOT/target/interop-venv"
    local py="$venv/bin/python"
    # Reuse the venv when it still works (pinned requirements already satisfied need no
    # network); make it afresh otherwise.
    if ! "$py" -c 'import pip' >/dev/null 2>&1; then
        rm -rf "$venv"
        if ! "$PYTHON" -m venv "$venv" >"$LOGS/venv.log" 2>&1; then
            log_tail "$LOGS/venv.log"
            skip python "could not create a venv with $PYTHON -m venv (on Debian: apt-get install python3-venv)"
            return
        fi
    fi
    echo "$("$py" --version 2>&1) in target/interop-venv"
    if ! "$py" -m pip install --disable-pip-version-check --no-input -q -r "$HERE/python/requirements.txt" \
        >"$LOGS/pip-install.log" 2>&1; then
        log_tail "$LOGS/pip-install.log"
        skip python "pip install -r requirements.txt failed (registry unreachable?), log in target/interop-logs/pip-install.log"
        return
    fi
    run_suite python "$py" "$HERE/python/interop.py" "$SERVE"
}
python_suite

# ---------------------------------------------------------------------------------------
say "summary ($(($(date +%s) - started)) s)"
for r in "${results[@]}"; do
    echo "  $r"
done
exit "$status"
