#!/usr/bin/env bash
# The `http-node` example under web3.py (HTTPProvider; WebSocketProvider with a
# `newHeads` subscription on the same address; IPCProvider and AsyncIPCProvider on its
# `--ipc` socket) and a plain HTTP client.
#
#   bash tests/clients/web3/run.sh        (from anywhere)
#
# Builds the example (`cargo build --release --example http-node`), makes a venv in
# target/web3-venv, installs requirements.txt (web3 and its dependencies, pinned), and
# runs client.py (HTTP), then ipc.py (IPC), each of which starts the server (on a free
# loopback port; ipc.py with a socket in a fresh temporary folder), prints one line per
# check and `N passed, N failed`. Exit status 0 when every check passed, 1 otherwise.
# When python3, its venv module or the registry is missing, the suite prints SKIP and
# exits 0, except under CI=true, where it fails.
#
# Environment: CLIENT_PYTHON (the interpreter that makes the venv, default python3),
# WEB3_TIMEOUT (seconds for the client, default 120).

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE=web3
. "$HERE/../suite.sh"

build_example http-node
python_venv 10 # web3 8 needs 3.10
# run_client exits: each but the last in a subshell.
(run_client "${WEB3_TIMEOUT:-120}" "$HERE/client.py" "$SERVER") || exit
run_client "${WEB3_TIMEOUT:-120}" "$HERE/ipc.py" "$SERVER"
