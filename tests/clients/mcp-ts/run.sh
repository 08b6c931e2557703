#!/usr/bin/env bash
# The MCP server example under the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`
# on npm) over stdio and over Streamable HTTP (`mcp-server --http 127.0.0.1:0`).
#
#   bash tests/clients/mcp-ts/run.sh        (from anywhere)
#
# Builds the example (`cargo build --release --example mcp-server`), runs `npm ci` here
# (the SDK, pinned in package-lock.json; node_modules/ is not committed), and runs
# client.mjs: one line per check, then `N passed, N failed`. Exit status 0 when every
# check passed, 1 otherwise. When node, npm or the registry is missing, the suite
# prints SKIP and exits 0, except under CI=true, where it fails.
#
# Environment: MCP_TS_TIMEOUT (seconds for the client, default 120).

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE=mcp-ts
. "$HERE/../suite.sh"

build_example mcp-server
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
node_packages 18 # the SDK's engines field
serve_http --http 127.0.0.1:0
run_client "${MCP_TS_TIMEOUT:-120}" "$HERE/client.mjs" "$SERVER" "$VERSION" "$URL"
