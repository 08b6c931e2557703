#!/usr/bin/env bash
# The MCP server example against the official Python MCP SDK (`mcp` on PyPI) over stdio.
#
#   bash tests/clients/mcp/run.sh          (from the repo root, or from anywhere)
#
# 1. builds the server (`cargo build --release --example mcp-server`);
# 2. makes a venv in target/mcp-client-venv and `pip install -r requirements.txt`;
# 3. runs `python client.py <server> <crate version>`: one line per check, then
#    `N passed, N failed`.
#
# A missing python3 (3.10 or later), venv or registry prints `SKIP: mcp client: <reason>`
# and exits 0, except under `CI=true`, where it fails. Exit status: 0 when every check
# passed (or the suite was skipped), 1 otherwise, 2 on bad usage.
#
# Environment: MCP_CLIENT_TIMEOUT (seconds for the client run, default 300),
# MCP_CLIENT_PYTHON (the interpreter that makes the venv, default python3).

set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
TIMEOUT="${MCP_CLIENT_TIMEOUT:-300}"
PYTHON="${MCP_CLIENT_PYTHON:-python3}"

cd "$ROOT" || exit 1

if [ "$#" -ne 0 ]; then
    echo "usage: bash tests/clients/mcp/run.sh   (no arguments)" >&2
    exit 2
fi

skip() { # reason; under CI=true a suite that cannot run fails
    if [ "${CI:-}" = true ]; then
        echo "FAIL: mcp client cannot run under CI=true: $1"
        exit 1
    fi
    echo "SKIP: mcp client: $1"
    exit 0
}

echo "== build: cargo build --release --example mcp-server"
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
if ! cargo build --release --example mcp-server --message-format=json-render-diagnostics >"$build_log"; then
    echo "FAIL: cargo build --release --example mcp-server failed"
    exit 1
fi
# Wherever the target directory is (CARGO_TARGET_DIR, .cargo/config.toml, ...).
SERVER="$(grep '"name":"mcp-server"' "$build_log" | grep -o '"executable":"[^"]*"' | tail -n 1 | sed 's/^"executable":"//; s/"$//')"
if [ -z "$SERVER" ] || [ ! -x "$SERVER" ]; then
    SERVER="$ROOT/target/release/examples/mcp-server"
fi
if [ ! -x "$SERVER" ]; then
    echo "FAIL: built, but the mcp-server binary is not at $SERVER"
    exit 1
fi
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"

echo "== client: the Python MCP SDK"
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    skip "$PYTHON not found"
fi
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
    skip "$("$PYTHON" --version 2>&1) is older than 3.10 (the mcp SDK needs 3.10)"
fi
mkdir -p "$ROOT/target/mcp-client-logs"
LOGS="$ROOT/target/mcp-client-logs"
venv="$ROOT/target/mcp-client-venv"
py="$venv/bin/python"
# Reuse the venv when it still works (pinned requirements already satisfied need no
# network); make it afresh otherwise.
if ! "$py" -c 'import pip' >/dev/null 2>&1; then
    rm -rf "$venv"
    if ! "$PYTHON" -m venv "$venv" >"$LOGS/venv.log" 2>&1; then
        tail -n 20 "$LOGS/venv.log" | sed 's/^/    /'
        skip "could not create a venv with $PYTHON -m venv (on Debian: apt-get install python3-venv)"
    fi
fi
if ! "$py" -m pip install --disable-pip-version-check --no-input -q -r "$HERE/requirements.txt" \
    >"$LOGS/pip-install.log" 2>&1; then
    tail -n 20 "$LOGS/pip-install.log" | sed 's/^/    /'
    skip "pip install -r requirements.txt failed (registry unreachable?), log in target/mcp-client-logs/pip-install.log"
fi
echo "$("$py" --version 2>&1) in target/mcp-client-venv"

timeout --kill-after=10 "$TIMEOUT" "$py" "$HERE/client.py" "$SERVER" "$VERSION"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "FAIL: the mcp client timed out after $TIMEOUT s"
fi
exit "$rc"
