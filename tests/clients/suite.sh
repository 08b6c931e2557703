# The steps every client suite of tests/clients/ takes, written once; each
# tests/clients/<name>/run.sh sets SUITE and sources this file, then calls:
#
#   build_example NAME          cargo build --release --example NAME; sets SERVER
#   python_venv MIN_MINOR       a venv in target/<SUITE>-venv with the suite's pinned
#                               requirements.txt (Python 3.MIN_MINOR or newer); sets PY,
#                               and CLIENT to it
#   node_packages MIN_MAJOR     `npm ci` in the suite's folder (its package-lock.json;
#                               Node.js MIN_MAJOR or newer); sets CLIENT to node
#   run_client TIMEOUT ARGS...  runs the suite's client (CLIENT ARGS...) under a time
#                               limit, and exits with its status
#   serve_http ARGS...          starts SERVER ARGS... in the background, waits (10 s at
#                               most) for its `listening on URL` line, sets URL; the
#                               server is stopped when the suite exits
#
# A suite that cannot install what it needs (no python3, no venv module, no node or npm,
# the registry unreachable) prints SKIP and exits 0, except under CI=true, where it
# fails.
# Environment: CLIENT_PYTHON (the interpreter that makes the venvs, default python3);
# SUITE_INSTALL_ONLY=1: install the client (python_venv or node_packages), build and
# run nothing, exit 0 (.ci/run fetches every client so while it builds, and each suite
# later installs again from what was fetched).

set -u

ROOT="$(cd "$HERE/../../.." && pwd)"
PYTHON="${CLIENT_PYTHON:-python3}"
LOGS="$ROOT/target/$SUITE-logs"
cd "$ROOT" || exit 1
mkdir -p "$LOGS"

cannot() { # reason: a skip, or a failure under CI=true
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $SUITE suite cannot run under CI=true: $1"
        exit 1
    fi
    echo "SKIP: $SUITE suite: $1"
    exit 0
}

build_example() { # example name
    [ "${SUITE_INSTALL_ONLY:-}" = 1 ] && return 0
    echo "== build: cargo build --release --example $1"
    if ! cargo build --release --example "$1" --message-format=json-render-diagnostics \
        >"$LOGS/build.json"; then
        echo "FAIL: cargo build --release --example $1 failed"
        exit 1
    fi
    # Wherever the target directory is (CARGO_TARGET_DIR, .cargo/config.toml, ...).
    SERVER="$(grep "\"name\":\"$1\"" "$LOGS/build.json" | grep -o '"executable":"[^"]*"' |
        tail -n 1 | sed 's/^"executable":"//; s/"$//')"
    [ -n "$SERVER" ] && [ -x "$SERVER" ] || SERVER="$ROOT/target/release/examples/$1"
    [ -x "$SERVER" ] || { echo "FAIL: built, but no $1 executable at $SERVER"; exit 1; }
}

python_venv() { # minimum Python 3 minor version
    local venv="$ROOT/target/$SUITE-venv"
    echo "== client: $HERE/requirements.txt in target/$SUITE-venv"
    command -v "$PYTHON" >/dev/null 2>&1 || cannot "$PYTHON not found"
    "$PYTHON" -c "import sys; sys.exit(0 if sys.version_info >= (3, $1) else 1)" ||
        cannot "$("$PYTHON" --version 2>&1) is older than 3.$1"
    # Reuse the venv when it still works (pinned requirements already satisfied need no
    # network); make it afresh otherwise.
    if ! "$venv/bin/python" -c 'import pip' >/dev/null 2>&1; then
        rm -rf "$venv"
        "$PYTHON" -m venv "$venv" >"$LOGS/venv.log" 2>&1 ||
            cannot "$PYTHON -m venv failed (on Debian: apt-get install python3-venv), log in $LOGS/venv.log"
    fi
    if ! "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q \
        -r "$HERE/requirements.txt" >"$LOGS/pip-install.log" 2>&1; then
        tail -n 20 "$LOGS/pip-install.log" | sed 's/^/    /'
        cannot "pip install -r requirements.txt failed (registry unreachable?), log in $LOGS/pip-install.log"
    fi
    PY="$venv/bin/python"
    CLIENT="$PY"
    [ "${SUITE_INSTALL_ONLY:-}" = 1 ] && exit 0
    return 0
}

node_packages() { # minimum Node.js major version
    echo "== client: npm ci in ${HERE#"$ROOT"/}"
    command -v node >/dev/null 2>&1 || cannot "node not found"
    command -v npm >/dev/null 2>&1 || cannot "npm not found"
    node -e "process.exit(Number(process.versions.node.split('.')[0]) >= $1 ? 0 : 1)" ||
        cannot "node $(node --version) is older than $1"
    if ! (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) >"$LOGS/npm-ci.log" 2>&1; then
        tail -n 20 "$LOGS/npm-ci.log" | sed 's/^/    /'
        cannot "npm ci failed (registry unreachable?), log in $LOGS/npm-ci.log"
    fi
    CLIENT=node
    [ "${SUITE_INSTALL_ONLY:-}" = 1 ] && exit 0
    return 0
}

serve_http() { # the server's arguments (it picks its port: 127.0.0.1:0)
    local out="$LOGS/server-http.out"
    : >"$out"
    "$SERVER" "$@" >"$out" 2>"$LOGS/server-http.err" &
    SERVER_PID=$!
    trap 'kill "$SERVER_PID" 2>/dev/null' EXIT
    URL=""
    for _ in $(seq 100); do
        URL="$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$out" | head -n 1)"
        [ -n "$URL" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$URL" ]; then
        cat "$LOGS/server-http.err"
        echo "FAIL: $SERVER $* printed no 'listening on' line"
        exit 1
    fi
    echo "== server: $SERVER $* at $URL"
}

run_client() { # timeout in seconds, then the client and its arguments
    local limit="$1"
    shift
    timeout --kill-after=10 "$limit" "$CLIENT" "$@"
    local rc=$?
    case "$rc" in
        0) ;;
        124 | 137) echo "FAIL: $SUITE suite timed out after $limit s" ;;
        *) echo "FAIL: $SUITE suite: exit status $rc" ;;
    esac
    exit "$rc"
}
