#!/usr/bin/env bash
# The noisy link through a firmware's UART in QEMU: noisy_link.py corrupts a seeded
# stream of valid requests at each rate, for newline framing and for COBS frames
# with a CRC-32 (the `cobs` build), and counts what came back.
#
#   bash examples/firmware/noisy-link.sh [--board BOARD] [--requests N] [RATE...]
#
# Defaults: the lm3s6965, 1000 requests, the table's rates (0 0.001 0.003 0.01 0.03).
# qemu-test.sh runs it at one rate in CI. Prints the rows of the table in
# examples/firmware/README.md ("The noisy link"). Fails if a
# run did not go through (the device stopped answering, `shutdown` unanswered, QEMU
# not exiting 0), if under COBS+CRC-32 a corrupted frame reached a handler as another
# request, or if at rate 0 a request was not answered exactly. QEMU must be
# installed (qemu-test.sh installs it).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
. "$HERE/boards.sh"
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_TARGET

BOARD=lm3s6965
REQUESTS=1000
RATES=""
while [ $# -gt 0 ]; do
    case "$1" in
        --board) BOARD="$2"; shift 2 ;;
        --requests) REQUESTS="$2"; shift 2 ;;
        *) RATES="$RATES $1"; shift ;;
    esac
done
RATES="${RATES:-0 0.001 0.003 0.01 0.03}"
WORK=target/noisy-link/$BOARD
mkdir -p "$WORK"
set -- $(board_qemu "$BOARD")
command -v "$1" >/dev/null 2>&1 || { echo "FAIL: $1 not installed (qemu-test.sh installs it)"; exit 1; }

trap qemu_cleanup EXIT
declare -A ELF
ELF[newline]=$(firmware_build "$BOARD" plain)
ELF[cobs]=$(firmware_build "$BOARD" cobs cobs)

FAIL=0
for rate in $RATES; do
    for framing in newline cobs; do
        name="$framing-$rate"
        qemu_start "$BOARD" "${ELF[$framing]}" "$WORK/$name"
        rc=0
        timeout 300 python3 noisy_link.py --uart "$PIPEDIR/uart" --framing "$framing" \
            --rate "$rate" --requests "$REQUESTS" --json-out "$WORK/$name.json" \
            >"$WORK/$name.log" 2>&1 || rc=$?
        qemu_finish "$name" || rc=1
        if [ "$rc" != 0 ] || [ ! -s "$WORK/$name.json" ]; then
            echo "FAIL ($name): the run did not go through:"
            cat "$WORK/$name.log"
            FAIL=1
        fi
    done
done

# The table, and the checks that make it a test.
python3 - "$WORK" "$REQUESTS" $RATES <<'PY' || FAIL=1
import json, sys
work, n, rates = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ok = True
print("| faults per byte | newline: clean answered | newline: errors | newline: wrong requests | newline: clean lost | COBS+CRC-32: clean answered | COBS+CRC-32: errors | COBS+CRC-32: wrong requests | COBS+CRC-32: clean lost | still answering |")
print("|---|---|---:|---:|---:|---|---:|---:|---:|---|")
for rate in rates:
    row = {}
    for framing in ("newline", "cobs"):
        try:
            row[framing] = json.load(open(f"{work}/{framing}-{rate}.json"))
        except (OSError, ValueError):
            ok = False
            row[framing] = None
    if None in row.values():
        print(f"| {rate} | (run failed) |")
        continue
    cells = [rate]
    for framing in ("newline", "cobs"):
        c = row[framing]
        cells += [f"{c['clean_answered']} of {c['clean']}", str(c["error_replies"]),
                  str(c["wrong_results"]), str(c["clean_lost"])]
        if framing == "cobs" and c["wrong_results"] != 0:
            print(f"FAIL: under COBS+CRC-32 at rate {rate}, {c['wrong_results']} corrupted frames reached a handler", file=sys.stderr)
            ok = False
        if float(rate) == 0 and (c["clean_answered"] != n or c["error_replies"] or c["wrong_results"]):
            print(f"FAIL: {framing} at rate 0 did not answer every request exactly", file=sys.stderr)
            ok = False
        if not (c["still_answering"] and c["shutdown_answered"]):
            ok = False
    cells.append("yes" if all(row[f]["still_answering"] for f in row) else "NO")
    print("| " + " | ".join(cells) + " |")
sys.exit(0 if ok else 1)
PY
if [ "$FAIL" != 0 ]; then
    echo "noisy link: FAILED (logs in $WORK)"
    exit 1
fi
echo "noisy link: passed ($REQUESTS requests a rate, board $BOARD)"
