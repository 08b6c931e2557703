#!/usr/bin/env bash
# Instructions per `tools/call` of each server of mcp_side_by_side.rs, counted by
# callgrind over the whole server process (every thread): the load does not move them,
# where it moves calls per second and CPU time.
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
for server in "floor: no JSON-RPC, a fixed reply" "jsonrpc-slice" "jsonrpc-slice, pipes" \
    "rmcp 3.11, stdio()" "rmcp 3.11, stdio_pipes()" "rmcp 3.11, stdio_pipes(), 1 thread"; do
    row="| $server |"
    for mode in pipelined lock-step; do
        counts=()
        for n in "$SHORT" "$((SHORT + CALLS))"; do
            dir="$out/$mode-$n-$RANDOM"
            mkdir -p "$dir"
            MCP_SERVER_WRAP="valgrind --tool=callgrind --callgrind-out-file=$dir/callgrind.out.%p" \
                "$bin" --only "$server" --mode "$mode" --rounds 1 --warmup "$WARMUP" \
                --calls "$n" --lockstep-calls "$n" >/dev/null 2>"$dir/log" \
                || { cat "$dir/log" >&2; exit 1; }
            counts+=("$(total "$dir")")
        done
        row="$row $(python3 -c 'import sys; a, b, n = map(int, sys.argv[1:]); print(f"{(b - a) / n:,.0f}")' "${counts[0]}" "${counts[1]}" "$CALLS") |"
    done
    echo "$row"
done
