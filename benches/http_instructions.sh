#!/usr/bin/env bash
# Instructions per HTTP request on the server's thread, for each server and workload of
# benches/http_side_by_side.rs (one worker thread), counted by callgrind: the load does
# not move them, where it moves requests/s and CPU time.
#
#   bash benches/http_instructions.sh [SECONDS] [DEPTH]   (default 5 s a run, 4 pipelined)
#
# Each run serves one workload on one server (`--only`, `--workload`) for SECONDS under
# `valgrind --tool=callgrind --separate-threads=yes`; the busiest thread but the first
# (the load generator) is the server's worker, and its count divided by every request
# answered (warm-ups included) is the figure. Start-up is in it: ~0.1 % of a run.
#
# jsonrpc-slice is counted twice: with its defaults, and with hyper's state for a
# connection kept however long the connection waits (`--release-after 60000`). Under
# callgrind the load generator is slow enough that a connection often waits past the
# default `release_after` (1 ms) between requests, so the first column is what a
# request costs when its connection paused (hyper's state made again), the second what
# it costs back to back.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS="${1:-5}"
DEPTH="${2:-4}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
bin=$(cargo bench -p jsonrpc-slice-benches --bench http_side_by_side --no-run \
    --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if (m.get("executable") or "").find("http_side_by_side") >= 0:
        print(m["executable"])' | tail -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "Instructions per HTTP request, server thread (callgrind, $SECS s a run, 1 worker,"
echo "8 connections x $DEPTH pipelined, $(rustc --version | cut -d' ' -f1-2))."
echo
echo "| workload | jsonrpc-slice HttpServer, defaults | the same, hyper's state kept | jsonrpsee 0.26 | hyper, bare | jsonrpsee ÷ jsonrpc-slice (state kept) | jsonrpc-slice (state kept) − hyper |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for workload in "single call, eth_chainId" "single call, echo" "batch of 10"; do
    row=()
    for run in jsonrpc-slice jsonrpc-slice:kept jsonrpsee hyper; do
        server=${run%%:*}
        extra=()
        [ "$run" = jsonrpc-slice:kept ] && extra=(--release-after 60000)
        rm -f "$out"/cg.*
        answered=$(valgrind --tool=callgrind --separate-threads=yes \
            --callgrind-out-file="$out/cg.%p" "$bin" --seconds "$SECS" --rounds 1 \
            --threads 1 --depth "$DEPTH" --no-pin --only "$server" --workload "$workload" \
            "${extra[@]}" 2>/dev/null |
            sed -n 's/^requests answered in all, warm-ups included: //p')
        busiest=$(for f in "$out"/cg.*-*; do
            case "$f" in *-01) continue ;; esac
            sed -n 's/^summary: //p' "$f"
        done | sort -n | tail -1)
        row+=("$((busiest / answered))")
    done
    printf '| %s | %s | %s | %s | %s | %s× | %s |\n' "$workload" "${row[0]}" "${row[1]}" "${row[2]}" \
        "${row[3]}" "$(python3 -c "print(f'{${row[2]}/${row[1]}:.2f}')")" "$((row[1] - row[3]))"
done
