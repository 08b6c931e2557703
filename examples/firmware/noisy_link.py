#!/usr/bin/env python3
"""A noisy link between the host and a firmware's UART in QEMU (noisy-link.sh boots it).

Sends --requests `echo` requests, each framed (a line, or a COBS frame with its
CRC-32), through a corrupter at --rate faults per byte: each byte, with that
probability, is bit-flipped, dropped, preceded by an inserted random byte, or
replaced (with the bytes after it) by a burst of 2 to 8 random bytes. The generator
is seeded: the same stream on every run. Then three clean probes (after a delimiter
that ends whatever the noise left open), whose replies say the device still answers
and that every frame before them was handled; then `shutdown`.

Counted from the replies, which come back clean:
- clean frames (no fault in their bytes or delimiter) answered correctly;
- error replies (corrupted frames, or the runs the noise made, answered as errors);
- wrong results: success replies that answer no request sent, that is a corrupted
  frame that reached a handler as a different valid request (what a CRC exists to
  drive to zero);
- clean frames lost around a corruption (merged with or cut by a corrupted one);
- whether the device still answered afterwards (all three probes, in order).

Exit status 0 if the run itself went through (ready, probes, shutdown answered);
the counts go to --json-out, and noisy-link.sh checks them.
"""

import argparse
import json
import os
import random
import select
import sys
import threading
import time

from uart_link import Link, frame, unframe

READY = b'{"jsonrpc":"2.0","method":"ready"}'


def request(k):
    params = '[%d,"sensor-%05d-ok"]' % (k, k)
    return (('{"jsonrpc":"2.0","method":"echo","params":%s,"id":%d}' % (params, k)).encode(),
            ('{"jsonrpc":"2.0","result":%s,"id":%d}' % (params, k)).encode())


def corrupt(frames, rate, rng):
    """The frames' bytes with faults at `rate` per byte; per frame, whether one hit it."""
    out = bytearray()
    hit = [False] * len(frames)
    for k, f in enumerate(frames):
        i = 0
        while i < len(f):
            b = f[i]
            i += 1
            if rate <= 0 or rng.random() >= rate:
                out.append(b)
                continue
            hit[k] = True
            kind = rng.randrange(4)
            if kind == 0:
                out.append(b ^ (1 << rng.randrange(8)))
            elif kind == 1:
                pass
            elif kind == 2:
                out.append(rng.randrange(256))
                out.append(b)
            else:
                n = 2 + rng.randrange(7)
                out += bytes(rng.randrange(256) for _ in range(n))
                i += n - 1
    return bytes(out), hit


class Drain(threading.Thread):
    """Reads the UART's output as it comes, so that QEMU never blocks writing it, and
    signals each arrival to `wait_for`."""

    def __init__(self, fd, start):
        super().__init__(daemon=True)
        self.fd = fd
        self.data = bytearray(start)
        self.arrived = threading.Condition()
        self.stop = False

    def run(self):
        while not self.stop:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except BlockingIOError:
                    continue
                with self.arrived:
                    self.data += chunk
                    self.arrived.notify_all()

    def wait_for(self, needle, timeout):
        """True once `needle` has arrived; False after `timeout` seconds without it."""
        with self.arrived:
            return self.arrived.wait_for(lambda: needle in self.data, timeout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uart", required=True)
    ap.add_argument("--framing", choices=["newline", "cobs"], default="newline")
    ap.add_argument("--rate", type=float, required=True)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json-out", required=True)
    args = ap.parse_args()

    link = Link(args.uart, args.framing, connect_timeout=10.0)
    ready = link.read_line(10.0)
    if ready != READY:
        print(f"noisy link: first message is {ready!r}, not {READY!r}")
        return 1
    delim = link.delimiter

    wanted = {}
    frames = []
    for k in range(args.requests):
        message, reply = request(k)
        frames.append(frame(message, args.framing))
        wanted[reply] = k
    stream, hit = corrupt(frames, args.rate, random.Random(args.seed))

    probes = []
    tail = bytearray(delim)  # ends whatever the noise left open
    for i in range(3):
        pid = '"probe-%d"' % i
        message = ('{"jsonrpc":"2.0","method":"echo","params":[%d],"id":%s}' % (i, pid)).encode()
        probes.append(('{"jsonrpc":"2.0","result":[%d],"id":%s}' % (i, pid)).encode())
        tail += frame(message, args.framing)

    drain = Drain(link.rx, link.buf)
    drain.start()
    start = time.monotonic()
    link.send_raw(stream + bytes(tail))
    # The last probe's reply is the signal that everything before it was handled.
    drain.wait_for(frame(probes[-1], args.framing), args.timeout)
    elapsed = time.monotonic() - start
    drain.stop = True
    drain.join()
    wire = bytes(drain.data)

    answered = [False] * args.requests
    errors = wrong = 0
    seen_probes = []
    undecodable = 0
    for raw in wire.split(delim):
        if not raw:
            continue
        reply = unframe(raw, args.framing)
        if reply is None:
            undecodable += 1
            continue
        if reply in wanted:
            answered[wanted[reply]] = True
        elif reply in probes:
            seen_probes.append(probes.index(reply))
        else:
            try:
                obj = json.loads(reply)
            except ValueError:
                obj = None
            if isinstance(obj, dict) and "error" in obj:
                errors += 1
            else:
                wrong += 1
    clean = [k for k in range(args.requests) if not hit[k]]
    counts = {
        "framing": args.framing,
        "rate": args.rate,
        "requests": args.requests,
        "clean": len(clean),
        "clean_answered": sum(1 for k in clean if answered[k]),
        "corrupted": args.requests - len(clean),
        "corrupted_answered_correctly": sum(1 for k in range(args.requests) if hit[k] and answered[k]),
        "error_replies": errors,
        "wrong_results": wrong,
        "undecodable_replies": undecodable,
        "still_answering": seen_probes == [0, 1, 2],
        "seconds": round(elapsed, 2),
    }
    counts["clean_lost"] = counts["clean"] - counts["clean_answered"]

    # The device is still in step: `shutdown` is answered (QEMU then exits 0).
    link.buf = b""
    link.send(b'{"jsonrpc":"2.0","method":"shutdown","id":"end"}')
    bye = link.read_line(10.0)
    counts["shutdown_answered"] = bye == b'{"jsonrpc":"2.0","result":"bye","id":"end"}'
    with open(args.json_out, "w") as f:
        json.dump(counts, f)
    print(json.dumps(counts))
    return 0 if counts["still_answering"] and counts["shutdown_answered"] else 1


if __name__ == "__main__":
    sys.exit(main())
