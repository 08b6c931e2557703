#!/usr/bin/env bash
# Instructions per `tools/call` of each server of mcp_side_by_side.rs (stdio and
# Streamable HTTP), counted by callgrind over the whole server process (every thread):
# the load does not move them, where it moves calls per second and CPU time.
#
#   bash benches/mcp/instructions.sh [CALLS]      (default 2000 measured calls)
#
# Each server runs twice per mode under `valgrind --tool=callgrind`: two sessions the
# same but for CALLS more measured calls in the second, so start-up, the handshake,
# the warm-up and the exit cancel out: (instructions of the long run - those of the
# short one) / CALLS.
set -euo pipefail
cd "$(dirname "$0")"
CALLS="${1:-2000}"
SHORT=100
WARMUP=200
bin=$(cargo bench --bench mcp_side_by_side --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if (m.get("executable") or "").find("mcp_side_by_side") >= 0:
        print(m["executable"])' | tail -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# total DIR: the instructions (Ir) of the one callgrind output in DIR.
total() { sed -n 's/^totals: \([0-9]*\).*/\1/p' "$1"/callgrind.out.* | head -1; }

echo "Instructions per tools/call, whole server process (callgrind; runs of $((SHORT)) and"
echo "$((SHORT + CALLS)) measured calls after $WARMUP, the difference over $CALLS; $(rustc --version | cut -d' ' -f1-2))."
echo
echo "| server | pipelined | lock-step |"
echo "|---|---:|---:|"
# run TRANSPORT SERVER MODE N: the instructions of one session of N measured calls.
run() {
    local dir="$out/$RANDOM$RANDOM"
    mkdir -p "$dir"
    MCP_SERVER_WRAP="valgrind --tool=callgrind --callgrind-out-file=$dir/callgrind.out.%p" \
        "$bin" --transport "$1" --only "$2" --mode "$3" --rounds 1 --warmup "$WARMUP" \
        --calls "$4" --lockstep-calls "$4" --http-calls "$4" >/dev/null 2>"$dir/log" \
        || { cat "$dir/log" >&2; exit 1; }
    total "$dir"
}
# per_call TRANSPORT SERVER MODE: instructions a call, two runs' difference.
per_call() {
    local short long
    short=$(run "$1" "$2" "$3" "$SHORT")
    long=$(run "$1" "$2" "$3" "$((SHORT + CALLS))")
    python3 -c 'import sys; a, b, n = map(int, sys.argv[1:]); print(f"{(b - a) / n:,.0f}")' "$short" "$long" "$CALLS"
}
for server in "floor: no JSON-RPC, a fixed reply" "jsonrpc-slice" "jsonrpc-slice, pipes" \
    "rmcp 3.11, stdio()" "rmcp 3.11, stdio_pipes()" "rmcp 3.11, stdio_pipes(), 1 thread"; do
    echo "| $server | $(per_call stdio "$server" pipelined) | $(per_call stdio "$server" lock-step) |"
done
echo
echo "Streamable HTTP, $CALLS calls on 4 connections lock-step:"
echo
echo "| server | replies | instructions/call |"
echo "|---|---|---:|"
for row in "JSON:floor: hyper, no JSON-RPC, a fixed reply, JSON" "JSON:jsonrpc-slice, no sessions, JSON" "JSON:jsonrpc-slice, no sessions, JSON, state kept" \
    "JSON:rmcp 3.11, stateless, json_response" "SSE:jsonrpc-slice, sessions, SSE" \
    "SSE:floor: hyper, no JSON-RPC, a fixed reply, SSE" "SSE:jsonrpc-slice, sessions, SSE, state kept" \
    "SSE:rmcp 3.11, sessions (its defaults)"; do
    echo "| ${row#*:} | ${row%%:*} | $(per_call http "${row#*:}" pipelined) |"
done
