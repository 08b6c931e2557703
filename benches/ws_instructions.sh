#!/usr/bin/env bash
# Instructions per WebSocket call and per pushed notification, on every server
# thread (all but the client's, the main thread), for the `http-node` example's
# WebSocket and jsonrpsee 0.26 (benches/ws_side_by_side.rs), counted by callgrind:
# the load does not move them.
#
#   bash benches/ws_instructions.sh [WORKERS] [CALLS] [BLOCKS]   (default 1, 4000, 400)
#
# Each job runs twice on one server under `valgrind --tool=callgrind
# --separate-threads=yes`, with CALLS (BLOCKS) and three times as many; the sum over
# the threads but the first, the second run's less the first's, divided by the calls
# (or by the notifications: 8 subscribers x BLOCKS x 2, the `evm_mine` calls that
# made them included) is the figure: start-up, the warm-up and each session's
# buffers cancel out. WS_BIN=PATH counts another build of the bench.
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERS="${1:-1}"
CALLS="${2:-4000}"
BLOCKS="${3:-400}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
bin=${WS_BIN:-$(cargo bench -p jsonrpc-slice-benches --bench ws_side_by_side --no-run \
    --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if (m.get("executable") or "").find("ws_side_by_side") >= 0:
        print(m["executable"])' | tail -1)}
out=${WS_CG_OUT:-$(mktemp -d)}
mkdir -p "$out"

echo "Instructions on the server threads (callgrind, $WORKERS worker(s), 8 connections,"
echo "$CALLS lock-step calls; 8 subscribers x $BLOCKS blocks; $(rustc --version | cut -d' ' -f1-2))."
echo
echo "| server | per call | per notification |"
echo "|---|---:|---:|"
count() {
    rm -f "$out"/cg.*
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.%p" \
        "$bin" --only "$1" --workers "$WORKERS" --job "$2" --calls "$3" --blocks "$4" \
        >/dev/null 2>&1
    for f in "$out"/cg.*-*; do
        case "$f" in *-01) continue ;; esac
        sed -n 's/^summary: //p' "$f"
    done | awk '{s += $1} END {print s}'
}
for server in slice jsonrpsee; do
    calls=$(( ($(count "$server" calls $((CALLS * 3)) 10) - $(count "$server" calls "$CALLS" 10)) / (CALLS / 8 * 8 * 2) ))
    pushes=$(( ($(count "$server" pushes 800 $((BLOCKS * 3))) - $(count "$server" pushes 800 "$BLOCKS")) / (BLOCKS * 8 * 2) ))
    printf '| %s | %s | %s |\n' "$server" "$calls" "$pushes"
done
