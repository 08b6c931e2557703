#!/usr/bin/env bash
# The `node-client` example against a fresh `http-node`, over HTTP and over WebSocket:
# each run must print exactly the line below (the issue's "done when").
#
#   bash tests/node_client.sh        (from anywhere; CI runs it)
#
# Builds both examples (release), starts the node on a free loopback port (it prints
# `listening on http://ADDR`), runs `node-client --url http://ADDR` and `--url
# ws://ADDR`, and stops the node. Exit status 0 when both printed the line.
set -euo pipefail
cd "$(dirname "$0")/.."
EXPECTED="chain_id=1337 block=16 balance=1000000000000000000"
cargo build --release --quiet --example http-node --example node-client
BIN="${CARGO_TARGET_DIR:-target}/release/examples"
# The node prints its address once it listens: read as it comes.
coproc NODE { exec "$BIN/http-node" --addr 127.0.0.1:0; }
trap 'kill "$NODE_PID" 2>/dev/null' EXIT
line=""
read -r -t 60 line <&"${NODE[0]}" || true
ADDR=${line#listening on http://}
[ -n "$ADDR" ] && [ "$ADDR" != "$line" ] || { echo "FAIL: http-node did not say where it listens ('$line')"; exit 1; }
status=0
for url in "http://$ADDR" "ws://$ADDR"; do
    got=$("$BIN/node-client" --url "$url" 2>&1) || true
    if [ "$got" = "$EXPECTED" ]; then
        echo "ok: node-client --url $url: $got"
    else
        echo "FAIL: node-client --url $url printed '$got'; expected '$EXPECTED'"
        status=1
    fi
done
exit $status
