#!/usr/bin/env python3
"""The host's side of the firmware's `host-call` build (src/host_call.rs): over the
UART in QEMU, answers the device's `host_sum` call, leaves its `host_silent` call
unanswered, and checks what the device sends: the cancellation of the silent call
once its deadline passed, then a `device_report` built from the typed reply (the sum
doubled, the note's length) and the silent call's outcome; then the device's ready
line, and `shutdown`. Exit 0 when every message is the one expected.

    python3 host_call.py --uart PIPEDIR/uart --transcript OUT
"""

import argparse
import json
import sys

from uart_link import Link

NOTE = "from the host"


def compact(value):
    return json.dumps(value, separators=(",", ":")).encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--uart", required=True)
    ap.add_argument("--transcript", required=True)
    args = ap.parse_args()
    link = Link(args.uart)
    failures = []

    def next_message(what, timeout=60.0):
        raw = link.read_line(timeout)
        if raw is None:
            failures.append(f"{what}: nothing within {timeout:.0f} s")
            return None
        try:
            return json.loads(raw)
        except ValueError:
            failures.append(f"{what}: not JSON: {raw!r}")
            return None

    def expect(what, want):
        got = next_message(what)
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")
        return got

    call = expect("the device's call", {"jsonrpc": "2.0", "method": "host_sum", "params": [40, 2], "id": 1})
    if call is not None and not failures:
        link.send(compact({"jsonrpc": "2.0", "result": [sum(call["params"]), NOTE], "id": call["id"]}))
    expect("the call left unanswered", {"jsonrpc": "2.0", "method": "host_silent", "id": 2})
    expect(
        "its cancellation, once its deadline passed",
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "timed out"}},
    )
    expect(
        "the device's report",
        {
            "jsonrpc": "2.0",
            "method": "device_report",
            "params": {"doubled": 84, "note_len": len(NOTE), "silent": "timed out"},
        },
    )
    expect("the ready line", {"jsonrpc": "2.0", "method": "ready"})
    link.send(b'{"jsonrpc":"2.0","method":"shutdown","id":1}')
    expect("shutdown", {"jsonrpc": "2.0", "result": "bye", "id": 1})

    with open(args.transcript, "wb") as f:
        for direction, data in link.log:
            f.write(direction.encode() + b" " + data + b"\n")
    for direction, data in link.log:
        print(direction, data.decode("utf-8", "replace"))
    for failure in failures:
        print("FAIL (host-call):", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
