#!/usr/bin/env bash
# The `lsp-server` example driven by pygls's language client (PyPI).
#
#   bash tests/clients/lsp/run.sh          (from anywhere)
#
# Builds the server (`cargo build --release --example lsp-server`), makes a venv in
# target/lsp-client-venv, `pip install -r requirements.txt`, then runs check.py: one
# line per check and a closing `N passed, N failed`. Exit status 0 when every check
# passed, 1 otherwise. When python3 or the install is missing it prints SKIP and exits
# 0, except under CI=true, where it fails.
#
# Environment: LSP_CLIENT_TIMEOUT (seconds, default 300), CLIENT_PYTHON (the
# interpreter that makes the venv, default python3).

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE=lsp-client
. "$HERE/../suite.sh"

build_example lsp-server
python_venv 9 # pygls 2 needs 3.9
run_client "${LSP_CLIENT_TIMEOUT:-300}" "$HERE/check.py" "$SERVER"
