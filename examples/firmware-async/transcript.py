"""The QEMU test's host side (qemu-test.sh): talks JSON-RPC to the firmware over
UART0 (a unix socket), one message per line. Every wait has a timeout; no sleep is
used to order anything: each step waits for the message that lets it go on.

    python3 transcript.py --socket PATH --stats-out FILE

Prints one line per check, then `N passed, N failed`; exits 1 on any failure.
"""

import argparse
import json
import socket
import sys
import time

TIMEOUT = 20.0
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}{': ' + detail if detail else ''}")


class Link:
    def __init__(self, path):
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)  # waiting for QEMU to create the socket, not ordering
        self.buf = b""
        self.seen = []  # every message received, in order

    def send(self, *messages):
        self.sock.sendall(b"".join(json.dumps(m).encode() + b"\n" for m in messages))

    def send_raw(self, data):
        self.sock.sendall(data)

    def next(self, until):
        """Receives messages until `until(message)` holds; returns that message."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                message = json.loads(line)
                self.seen.append(message)
                if until(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no such message in time")
            self.sock.settimeout(left)
            data = self.sock.recv(4096)
            if not data:
                raise EOFError("the firmware closed the link")
            self.buf += data


def reply_to(id_):
    return lambda m: m.get("id") == id_ and "method" not in m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--stats-out", required=True)
    args = ap.parse_args()
    link = Link(args.socket)

    # Nothing sent yet: the device pushes an alarm on its own.
    alarm = link.next(lambda m: m.get("method") == "alarm")
    check("an alarm is pushed with no host input", "id" not in alarm and alarm["params"]["n"] == 1, json.dumps(alarm))

    # A reading awaits the sensor task; a ping sent after it is answered first.
    link.send({"jsonrpc": "2.0", "method": "sensor/read", "id": 1},
              {"jsonrpc": "2.0", "method": "ping", "id": 2})
    pong = link.next(lambda m: "id" in m)
    check("ping answered while sensor/read awaits the sensor task",
          pong == {"jsonrpc": "2.0", "result": "pong", "id": 2}, json.dumps(pong))
    # Only now does the sensor's conversion end.
    link.send({"jsonrpc": "2.0", "method": "sensor/convert"})
    reading = link.next(lambda m: "id" in m)
    check("then sensor/read answers with the sensor task's reading",
          reading == {"jsonrpc": "2.0", "result": 21.51, "id": 1}, json.dumps(reading))

    # More requests than slots at once: all answered, none lost (backpressure).
    link.send(*({"jsonrpc": "2.0", "method": "ping", "id": 100 + i} for i in range(12)))
    ids = set()
    while len(ids) < 12:
        ids.add(link.next(lambda m: "id" in m)["id"])
    check("12 pings at once through 4 slots: 12 replies", ids == set(range(100, 112)), str(sorted(ids)))

    link.send({"jsonrpc": "2.0", "method": "nope", "id": 3})
    e = link.next(reply_to(3))
    check("an unknown method: -32601", e.get("error", {}).get("code") == -32601, json.dumps(e))
    link.send_raw(b'{"jsonrpc":"2.0","method":\n')
    e = link.next(lambda m: "error" in m and m.get("id") is None)
    check("a broken line: -32700 with id null", e["error"]["code"] == -32700, json.dumps(e))
    link.send_raw(b'{"jsonrpc":"2.0","method":"ping","params":["' + b"x" * 300 + b'"],"id":4}\n')
    e = link.next(lambda m: "error" in m and m["error"]["code"] == -32600)
    check("a line longer than a frame: -32600", True, json.dumps(e))

    link.send({"jsonrpc": "2.0", "method": "stats", "id": 5})
    stats = link.next(reply_to(5))["result"]
    with open(args.stats_out, "w") as f:
        json.dump(stats, f)
    check("stats: a stack peak", 0 < stats["stack_peak"] <= stats["stack_size"], json.dumps(stats))
    alarms = [m for m in link.seen if m.get("method") == "alarm"]
    check("alarms kept coming, numbered in order",
          [m["params"]["n"] for m in alarms] == list(range(1, len(alarms) + 1)), str(len(alarms)))

    link.send({"jsonrpc": "2.0", "method": "shutdown", "id": 6})
    bye = link.next(reply_to(6))
    check("shutdown: null", bye.get("result", 0) is None, json.dumps(bye))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (TimeoutError, EOFError, OSError) as e:
        print(f"FAIL transcript stopped: {e!r}")
        print(f"{passed} passed, {failed + 1} failed")
        sys.exit(1)
