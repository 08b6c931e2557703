#!/usr/bin/env bash
# The MCP image (`--features mcp`, the LM3S6965) in QEMU: the official Python MCP SDK
# runs QEMU as its stdio server command (the UART on QEMU's standard input and
# output) and lists and calls every tool, in 2025-11-25 and in 2026-07-28; then a
# transcript over the same UART checks what the SDK does not send; then budget.sh
# --mcp with the stack peak `stats` reported.
#
#   bash examples/firmware/mcp-test.sh          (from anywhere)
#
# Installs into a venv (target/mcp-venv) the SDK as tests/clients/mcp/requirements.txt
# pins it (the host MCP example's client suite: one pin list). Without python3 (3.10
# or later), its venv module, the registry or qemu-system-arm: SKIP, exit 0, but
# with CI=true: FAIL, exit 1. Logs and stats in target/mcp-test/.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
. "$HERE/boards.sh"
# .cargo/config.toml has each target's flags; RUSTFLAGS would replace them.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET
WORK=target/mcp-test
PYTHON="${CLIENT_PYTHON:-python3}"
VENV=target/mcp-venv
mkdir -p "$WORK"

cannot() { # under CI=true a test that cannot run fails
    if [ "${CI:-}" = true ]; then
        echo "FAIL: firmware MCP test cannot run under CI=true: $1"
        exit 1
    fi
    echo "SKIP: firmware MCP test: $1"
    exit 0
}

set -- $(board_qemu lm3s6965)
command -v "$1" >/dev/null 2>&1 || cannot "$1 not installed (qemu-test.sh installs it)"
command -v "$PYTHON" >/dev/null 2>&1 || cannot "$PYTHON not found"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' ||
    cannot "$("$PYTHON" --version 2>&1) is older than 3.10 (the mcp SDK needs 3.10)"
if ! "$VENV/bin/python" -c 'import pip' >/dev/null 2>&1; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV" >"$WORK/venv.log" 2>&1 ||
        cannot "$PYTHON -m venv failed (on Debian: apt-get install python3-venv), log in $WORK/venv.log"
fi
if ! "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q \
    -r ../../tests/clients/mcp/requirements.txt >"$WORK/pip-install.log" 2>&1; then
    tail -n 20 "$WORK/pip-install.log" | sed 's/^/    /'
    cannot "pip install failed (registry unreachable?), log in $WORK/pip-install.log"
fi

echo "--- firmware MCP image: build (release, --features mcp)"
ELF=$(firmware_build lm3s6965 mcp mcp)
cp "$ELF" "$WORK/lm3s6965-mcp.elf"

echo "--- firmware MCP image: the Python MCP SDK and the transcript, over the UART in QEMU"
rc=0
timeout --kill-after=10 600 "$VENV/bin/python" mcp_client.py --qemu "$(board_qemu lm3s6965)" \
    --elf "$WORK/lm3s6965-mcp.elf" --stats-out "$WORK/stats.json" 2>"$WORK/stderr.log" || rc=$?
if [ "$rc" != 0 ]; then
    echo "FAIL: firmware MCP test: exit status $rc; its stderr (QEMU's and the SDK's):"
    tail -n 40 "$WORK/stderr.log"
    exit 1
fi

echo "--- firmware MCP image: budgets"
if ! bash "$HERE/budget.sh" lm3s6965 --mcp --stats "$WORK/stats.json"; then
    echo "FAIL: the MCP image is over budget (FIRMWARE_BUDGET_WARN names budgets that only warn)"
    exit 1
fi
