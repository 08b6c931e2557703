#!/usr/bin/env bash
# Instructions per call on the client's thread, for each client of
# benches/http_clients.rs (the library's RemoteClient, jsonrpsee's HttpClient, alloy's
# RpcClient, and hyper's bare client as the floor), counted by callgrind: the load
# does not move them. CLIENTS="NAME ..." counts some of them only.
#
#   bash benches/http_clients.sh [CALLS]    (default 400)
#
# Each client and workload runs twice under `valgrind --tool=callgrind
# --separate-threads=yes` (`--calls CALLS`, then 3 x CALLS, one at a time, after the
# bench's warm-up); the main thread's count (the client's: the node runs on a thread
# of its own), the second run's less the first's, divided by 2 x CALLS, is the figure
# per call (per batch of 10 for the batch): start-up, connection and warm-up cancel
# out. HTTP_CLIENTS_BIN=PATH counts another build of the bench.
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS="${1:-400}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
bin=${HTTP_CLIENTS_BIN:-$(cargo bench -p jsonrpc-slice-benches --bench http_clients --no-run \
    --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if (m.get("executable") or "").find("http_clients") >= 0:
        print(m["executable"])' | tail -1)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "Instructions per call (per batch of 10 for the batch) on the client's thread"
echo "(callgrind, $CALLS and $((CALLS * 3)) calls, one at a time; $(rustc --version | cut -d' ' -f1-2))."
echo
echo "| client | single call (eth_chainId) | batch of 10 |"
echo "|---|---:|---:|"
count() { # client workload calls: the main thread's instructions
    rm -f "$out"/cg.*
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.%p" \
        "$bin" --no-pin --only "$1" --workload "$2" --calls "$3" >/dev/null 2>&1
    sed -n 's/^summary: //p' "$out"/cg.*-01
}
# shellcheck disable=SC2086
for client in ${CLIENTS:-jsonrpc-slice jsonrpsee alloy hyper}; do
    row=()
    for workload in "single" "batch"; do
        a=$(count "$client" "$workload" "$CALLS")
        b=$(count "$client" "$workload" $((CALLS * 3)))
        row+=("$(((b - a) / (CALLS * 2)))")
    done
    printf '| %s | %s | %s |\n' "$client" "${row[0]}" "${row[1]}"
done
