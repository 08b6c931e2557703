#!/usr/bin/env bash
# The `http-node` example under ethers.js 6 (JsonRpcProvider; WebSocketProvider with a
# `newHeads` subscription on the same address; IpcSocketProvider on its `--ipc` socket).
#
#   bash tests/clients/ethers/run.sh        (from anywhere)
#
# Builds the example (`cargo build --release --example http-node`), runs `npm ci` here
# (ethers, pinned in package-lock.json; node_modules/ is not committed), and runs
# client.mjs (JsonRpcProvider), then ipc.mjs (IpcSocketProvider), each of which starts
# the server (on a free loopback port; ipc.mjs with a socket in a fresh temporary
# folder), prints one line per check and `N passed, N failed`. Exit status 0 when every check passed, 1 otherwise. When
# node, npm or the registry is missing, the suite prints SKIP and exits 0, except under
# CI=true, where it fails.
#
# Environment: ETHERS_TIMEOUT (seconds for the client, default 120).

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE=ethers
. "$HERE/../suite.sh"

build_example http-node
node_packages 18 # ethers 6 uses the global fetch of Node.js 18
# run_client exits: each but the last in a subshell.
(run_client "${ETHERS_TIMEOUT:-120}" "$HERE/client.mjs" "$SERVER") || exit
run_client "${ETHERS_TIMEOUT:-120}" "$HERE/ipc.mjs" "$SERVER"
