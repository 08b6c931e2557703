#!/usr/bin/env bash
# The `lsp-server` example driven by pygls's language client (PyPI).
#
#   bash tests/clients/lsp/run.sh          (from anywhere)
#
# Builds the server (`cargo build --release --example lsp-server`), makes a venv in
# target/lsp-client-venv, `pip install -r requirements.txt`, then runs check.py: one
# line per check and a closing `N passed, N failed`. Exit status 0 when every check
# passed, 1 otherwise. When python3 or the install is missing it prints SKIP and exits
# 0, except under CI=true, where it fails.
#
# Environment: LSP_CLIENT_TIMEOUT (seconds, default 300), LSP_CLIENT_PYTHON (the
# interpreter that makes the venv, default python3).

set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
PYTHON="${LSP_CLIENT_PYTHON:-python3}"
cd "$ROOT" || exit 1

cannot() { # reason
    if [ "${CI:-}" = true ]; then
        echo "FAIL: lsp client suite cannot run under CI=true: $1"
        exit 1
    fi
    echo "SKIP: lsp client suite: $1"
    exit 0
}

echo "== build: cargo build --release --example lsp-server"
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
if ! cargo build --release --example lsp-server --message-format=json-render-diagnostics >"$build_log"; then
    echo "FAIL: cargo build --release --example lsp-server failed"
    exit 1
fi
SERVER="$(grep '"name":"lsp-server"' "$build_log" | grep -o '"executable":"[^"]*"' | tail -n 1 | sed 's/^"executable":"//; s/"$//')"
[ -x "$SERVER" ] || SERVER="$ROOT/target/release/examples/lsp-server"
[ -x "$SERVER" ] || { echo "FAIL: built, but no lsp-server binary at $SERVER"; exit 1; }

echo "== client: pygls (requirements.txt) in target/lsp-client-venv"
command -v "$PYTHON" >/dev/null 2>&1 || cannot "$PYTHON not found"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' ||
    cannot "$("$PYTHON" --version 2>&1) is older than 3.9 (pygls 2 needs 3.9)"
venv="$ROOT/target/lsp-client-venv"
mkdir -p "$ROOT/target"
# Reuse the venv when it still works; make it afresh otherwise.
if ! "$venv/bin/python" -c 'import pip' >/dev/null 2>&1; then
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv" >"$ROOT/target/lsp-client-venv.log" 2>&1 ||
        cannot "could not create a venv with $PYTHON -m venv (on Debian: apt-get install python3-venv)"
fi
if ! "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q \
    -r "$HERE/requirements.txt" >"$ROOT/target/lsp-client-pip.log" 2>&1; then
    tail -n 20 "$ROOT/target/lsp-client-pip.log" | sed 's/^/    /'
    cannot "pip install -r requirements.txt failed (registry unreachable?), log in target/lsp-client-pip.log"
fi

echo "== checks"
timeout --kill-after=10 "${LSP_CLIENT_TIMEOUT:-300}" "$venv/bin/python" "$HERE/check.py" "$SERVER"
rc=$?
[ "$rc" -eq 124 ] && echo "FAIL: lsp client suite timed out"
exit "$rc"
