#!/usr/bin/env bash
# The `http-node` example under web3.py (HTTPProvider) and a plain HTTP client.
#
#   bash tests/clients/web3/run.sh        (from anywhere)
#
# Builds the example (`cargo build --release --example http-node`), makes a venv in
# target/web3-venv, installs requirements.txt (web3 and its dependencies, pinned), and
# runs client.py, which starts the server on a free loopback port, prints one line per
# check and `N passed, N failed`. Exit status 0 when every check passed, 1 otherwise.
# When python3, its venv module or the registry is missing, the suite prints SKIP and
# exits 0, except under CI=true, where it fails.
#
# Environment: WEB3_PYTHON (the interpreter that makes the venv, default python3),
# WEB3_TIMEOUT (seconds for the client, default 120).

set -u

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
PYTHON="${WEB3_PYTHON:-python3}"
TIMEOUT="${WEB3_TIMEOUT:-120}"
cd "$ROOT" || exit 1

cannot() { # reason: a skip, or a failure under CI=true
    if [ "${CI:-}" = true ]; then
        echo "FAIL: web3 suite cannot run under CI=true: $1"
        exit 1
    fi
    echo "SKIP: web3 suite: $1"
    exit 0
}

echo "== build: cargo build --release --example http-node"
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
if ! cargo build --release --example http-node --message-format=json-render-diagnostics >"$build_log"; then
    echo "FAIL: cargo build --release --example http-node failed"
    exit 1
fi
SERVER="$(grep '"name":"http-node"' "$build_log" | grep -o '"executable":"[^"]*"' | tail -n 1 | sed 's/^"executable":"//; s/"$//')"
[ -x "$SERVER" ] || SERVER="$ROOT/target/release/examples/http-node"
[ -x "$SERVER" ] || { echo "FAIL: built, but no http-node executable at $SERVER"; exit 1; }

echo "== web3.py in target/web3-venv"
command -v "$PYTHON" >/dev/null 2>&1 || cannot "$PYTHON not found"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
    || cannot "$("$PYTHON" --version 2>&1) is older than 3.10 (web3 8 needs 3.10)"
VENV="$ROOT/target/web3-venv"
LOGS="$ROOT/target/web3-logs"
mkdir -p "$LOGS"
if ! "$VENV/bin/python" -c 'import pip' >/dev/null 2>&1; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV" >"$LOGS/venv.log" 2>&1 \
        || cannot "$PYTHON -m venv failed (on Debian: apt-get install python3-venv), log in target/web3-logs/venv.log"
fi
if ! "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$HERE/requirements.txt" \
    >"$LOGS/pip-install.log" 2>&1; then
    tail -n 20 "$LOGS/pip-install.log" | sed 's/^/    /'
    cannot "pip install -r requirements.txt failed (registry unreachable?), log in target/web3-logs/pip-install.log"
fi

echo "== client: $SERVER"
timeout --kill-after=10 "$TIMEOUT" "$VENV/bin/python" "$HERE/client.py" "$SERVER"
rc=$?
[ "$rc" -eq 0 ] || echo "FAIL: web3 suite: exit status $rc"
exit "$rc"
