#!/usr/bin/env bash
# The MCP server example against the official Python MCP SDK (`mcp` on PyPI) over stdio and
# over Streamable HTTP (`mcp-server --http 127.0.0.1:0`), at 2025-11-25 and 2026-07-28.
#
#   bash tests/clients/mcp/run.sh          (from the repo root, or from anywhere)
#
# 1. builds the server (`cargo build --release --example mcp-server`);
# 2. makes a venv in target/mcp-client-venv and `pip install -r requirements.txt`;
# 3. runs `python client.py <server> <crate version>`: one line per check, then
#    `N passed, N failed`.
#
# A missing python3 (3.10 or later), venv or registry prints `SKIP: mcp client: <reason>`
# and exits 0, except under `CI=true`, where it fails. Exit status: 0 when every check
# passed (or the suite was skipped), 1 otherwise, 2 on bad usage.
#
# Environment: MCP_CLIENT_TIMEOUT (seconds for the client run, default 300),
# CLIENT_PYTHON (the interpreter that makes the venv, default python3).

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE=mcp-client
. "$HERE/../suite.sh"

if [ "$#" -ne 0 ]; then
    echo "usage: bash tests/clients/mcp/run.sh   (no arguments)" >&2
    exit 2
fi
build_example mcp-server
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
python_venv 10 # the mcp SDK needs 3.10
serve_http --http 127.0.0.1:0
run_client "${MCP_CLIENT_TIMEOUT:-300}" "$HERE/client.py" "$SERVER" "$VERSION" "$URL"
