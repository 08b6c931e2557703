#!/usr/bin/env python3
"""JSON-RPC transcript against the firmware's UART, over QEMU's `-chardev pipe`.

Called by qemu-test.sh. Waits for the `ready` message, replays every request of the
JSON-RPC 2.0 specification's examples (read from the shared corpus) and the edge
cases below, compares each reply with the expected one, then calls `stats` and
`shutdown`. Every wait has a timeout. Exit status 0 only if every check passed; the
transcript is printed on failure (and always written to --transcript).

With `--framing cobs` (the firmware's `cobs` feature) every message goes as a COBS
frame whose payload ends in its CRC-32, and the newline-only cases (blank lines,
`\r\n`) give way to COBS ones (a frame whose CRC fails is dropped unanswered).
"""

import argparse
import json
import sys

from uart_link import Link, frame

READY = b'{"jsonrpc":"2.0","method":"ready"}'
MAX_FRAME = 1024


# ---- the spec examples --------------------------------------------------------------

def spec_examples(path):
    """(section, request bytes, expected reply text or None) of section 7's examples.

    Same rules as tests/spec_examples.rs: in the fenced blocks of "## The examples,
    byte for byte", `--> ` opens a request and `<-- ` a response; either continues on
    the following lines until the next `-->`/`<--` line, a blank line or the block's
    end; a request with no response after it expects none. A multi-line request is
    sent as one line: its newlines (JSON whitespace) become spaces.
    """
    text = open(path, encoding="utf-8").read()
    start = text.index("\n## The examples, byte for byte")
    body = text[start + 1:]
    end = body.find("\n## ", 3)
    if end >= 0:
        body = body[:end]

    examples = []
    section = None
    in_block = False
    state = {"open": None, "lines": [], "pending": None}

    def close():
        kind, lines = state["open"], state["lines"]
        state["open"], state["lines"] = None, []
        if kind == "req":
            if state["pending"] is not None:
                examples.append((section, state["pending"], None))
            state["pending"] = " ".join(lines).encode()
        elif kind == "resp":
            if state["pending"] is None:
                raise SystemExit(f"a response without a request in {section}")
            examples.append((section, state["pending"], "\n".join(lines)))
            state["pending"] = None

    for line in body.split("\n"):
        if not in_block:
            if line.startswith("### "):
                section = line[4:]
            elif line.startswith("```"):
                in_block = True
            continue
        if line.startswith("```"):
            close()
            if state["pending"] is not None:
                examples.append((section, state["pending"], None))
                state["pending"] = None
            in_block = False
        elif line.startswith("--> "):
            close()
            state["open"], state["lines"] = "req", [line[4:]]
        elif line.startswith("<-- "):
            close()
            state["open"], state["lines"] = "resp", [line[4:]]
        elif line == "":
            close()
        elif state["open"]:
            state["lines"].append(line)
        else:
            raise SystemExit(f"a line outside any message in {section}: {line!r}")
    return examples


# ---- comparing replies ----------------------------------------------------------------

def parse(text):
    """JSON with number lexemes kept as text, so `1` and `1.0` differ, as on the wire."""
    return json.loads(text, parse_int=lambda s: ("num", s), parse_float=lambda s: ("num", s))


def line(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def req(method, params=None, id_=None, id_raw=None):
    """A compact request; `id_raw` is spliced in as raw JSON text."""
    parts = ['"jsonrpc":"2.0"', '"method":' + json.dumps(method)]
    if params is not None:
        parts.append('"params":' + json.dumps(params, separators=(",", ":")))
    if id_raw is not None:
        parts.append('"id":' + id_raw)
    elif id_ is not None:
        parts.append('"id":' + json.dumps(id_))
    return ("{" + ",".join(parts) + "}").encode()


def err(code, message, id_raw="null", data_raw=None):
    e = '{"code":%d,"message":%s' % (code, json.dumps(message))
    if data_raw is not None:
        e += ',"data":' + data_raw
    return ('{"jsonrpc":"2.0","error":%s},"id":%s}' % (e, id_raw)).encode()


def ok(result_raw, id_raw):
    return ('{"jsonrpc":"2.0","result":%s,"id":%s}' % (result_raw, id_raw)).encode()


# ---- the transcript -------------------------------------------------------------------

def edge_cases(framing):
    """(name, bytes to send, expected): expected is bytes (compared as JSON, numbers
    as lexemes), ("exact", bytes) (compared byte for byte), or None (no reply)."""
    cases = []
    add = lambda name, data, want: cases.append((name, data, want))

    # Not JSON, not a request.
    add("invalid JSON", b'{"jsonrpc":"2.0","method":"sum","params":[1,2', err(-32700, "Parse error"))
    add("empty batch", b"[]", err(-32600, "Invalid Request"))
    add("empty object", b"{}", err(-32600, "Invalid Request"))
    add("scalar", b"42", err(-32600, "Invalid Request"))
    add("jsonrpc 1.0 keeps its id", b'{"jsonrpc":"1.0","method":"sum","params":[1],"id":5}',
        err(-32600, "Invalid Request", "5"))
    add("params null", b'{"jsonrpc":"2.0","method":"sum","params":null,"id":6}',
        err(-32600, "Invalid Request", "6"))
    add("control character in a string", b'{"jsonrpc":"2.0","method":"echo","params":["a\x01"],"id":1}',
        err(-32700, "Parse error"))
    add("invalid UTF-8", b'{"jsonrpc":"2.0","method":"echo","params":["\xff"],"id":1}',
        err(-32700, "Parse error"))
    add("duplicate id member", b'{"jsonrpc":"2.0","method":"sum","params":[1],"id":1,"id":2}',
        err(-32600, "Invalid Request"))

    # Notifications: never answered, whatever their handler does.
    add("notification", req("notify_sum", [1, 2, 4]), None)
    add("notification, unknown method", req("no_such_method", [1]), None)
    add("notification, failing handler", req("fail", [1]), None)
    add("notification, bad params", req("subtract", ["a"]), None)
    add("batch of notifications", b"[" + req("update", [1]) + b"," + req("notify_hello", [7]) + b"]", None)

    # Ids: echoed byte for byte, type and spelling kept.
    for raw in ["1", "-7", "0", "1.0", "1e3", "-0.5E-2", "12345678901234567890123",
                '"1"', '""', '"a\\u0062"', '"\\"q\\""', '"\u00e9\u6f22"', "null"]:
        add("id %s echoed" % raw, req("subtract", [42, 23], id_raw=raw),
            ("exact", ok("19", raw).decode("utf-8").encode()))
    add("id object", req("subtract", [1, 1], id_raw='{"a":1}'), err(-32600, "Invalid Request"))
    add("id true", req("subtract", [1, 1], id_raw="true"), err(-32600, "Invalid Request"))

    # The demo methods.
    add("sum", req("sum", [1, 2, 3, -10], 10), ok("-4", "10"))
    add("subtract named", req("subtract", {"minuend": 5, "subtrahend": 8}, 11), ok("-3", "11"))
    add("subtract bad params", req("subtract", ["a", 1], 12), err(-32602, "Invalid params", "12"))
    add("subtract overflow", req("subtract", [-9223372036854775808, 1], 13), err(-32602, "Invalid params", "13"))
    add("get_data", req("get_data", None, "g"), ok('["hello",5]', '"g"'))
    add("echo, params byte for byte",
        b'{"jsonrpc":"2.0","method":"echo","params":{"a": [1, 2.50, "\\u00e9"], "b" :null},"id":14}',
        ("exact", ok('{"a": [1, 2.50, "\\u00e9"], "b" :null}', "14")))
    add("fail with data", req("fail", {"why": [1, 2]}, "f"),
        err(-32000, "Server error", '"f"', '{"why":[1,2]}'))
    add("method name with an escape", b'{"jsonrpc":"2.0","method":"s\\u0075m","params":[2,3],"id":15}', ok("5", "15"))
    add("method not found", req("nope", [], 16), err(-32601, "Method not found", "16"))
    add("rpc. method", req("rpc.discover", None, 17), err(-32601, "Method not found", "17"))
    add("members in any order", b'{"id":18,"params":[3,1],"method":"subtract","jsonrpc":"2.0"}', ok("2", "18"))

    # Reply limits: 1024-byte reply buffer.
    add("big n=900 fits", req("big", [900], 19), ok('"' + "x" * 900 + '"', "19"))
    add("big n=2000: -32603, same id", req("big", [2000], 20),
        ("exact", err(-32603, "Internal error: reply larger than 1024 bytes", "20")))
    # The element that does not fit names the room it had: the buffer less the
    # closing `]` and what the batch reply holds before it.
    batch_head = b"[" + ok('"' + "x" * 400 + '"', "21") + b"," + ok('"' + "x" * 400 + '"', "22") + b","
    room = 1024 - 1 - len(batch_head)
    add("batch overflow: the element that does not fit is replaced",
        b"[" + req("big", [400], 21) + b"," + req("big", [400], 22) + b"," + req("big", [400], 23) + b"]",
        batch_head + err(-32603, "Internal error: reply larger than %d bytes" % room, "23") + b"]")
    add("batch", b"[" + req("sum", [1, 2], 24) + b"," + req("update") + b",1]",
        b"[" + ok("3", "24") + b"," + err(-32600, "Invalid Request") + b"]")

    # Nesting: bounded, reported with the limit.
    add("nesting [ x 200", b"[" * 200, err(-32700, "Parse error: nesting deeper than 128"))
    add("nesting [ x 1000", b"[" * 1000, err(-32700, "Parse error: nesting deeper than 128"))
    deep = b'{"jsonrpc":"2.0","method":"echo","params":' + b"[" * 127 + b"]" * 127 + b',"id":25}'
    add("nesting 128 with the envelope: accepted", deep, ok("[" * 127 + "]" * 127, "25"))

    # Framing: 1024-byte frames.
    def echo_frame(size, id_):
        head = b'{"jsonrpc":"2.0","method":"echo","params":["'
        tail = b'"],"id":%d}' % id_
        pad = size - len(head) - len(tail)
        return head + b"p" * pad + tail, ok('["' + "p" * pad + '"]', str(id_))
    f, want = echo_frame(MAX_FRAME, 26)
    add("frame of exactly 1024 bytes", f, want)
    if framing == "newline":
        f, want = echo_frame(MAX_FRAME, 27)
        add("frame of 1024 bytes + \\r\\n", f + b"\r", want)  # "\n" added when sent
    f, _ = echo_frame(MAX_FRAME + 1, 28)
    add("frame of 1025 bytes: -32600", f,
        ("exact", err(-32600, "Invalid Request: frame larger than 1024 bytes")))
    f, _ = echo_frame(3000, 29)
    add("frame of 3000 bytes: -32600", f,
        ("exact", err(-32600, "Invalid Request: frame larger than 1024 bytes")))
    add("the next frame after an oversized one", req("sum", [4, 5], 30), ok("9", "30"))
    if framing == "newline":
        add("\\r\\n line ending", req("sum", [1, 1], 31) + b"\r", ok("2", "31"))
    return cases


class Transcript:
    def __init__(self, link, timeout):
        self.link = link
        self.timeout = timeout
        self.failures = []
        self.checks = 0
        self.probe = 0

    def fail(self, what):
        self.failures.append(what)
        self.link.log.append(("!!!", what.encode()))

    def expect_reply(self, name, want):
        got = self.link.read_line(self.timeout)
        self.checks += 1
        if got is None:
            # The link is dead or out of step: nothing after this could be trusted.
            self.fail(f"{name}: no reply")
            raise StopIteration
        if isinstance(want, tuple):
            if got != want[1]:
                self.fail(f"{name}: reply differs byte for byte from {want[1]!r}")
            return got
        try:
            same = parse(got) == parse(want)
        except (ValueError, RecursionError) as e:
            self.fail(f"{name}: reply is not JSON ({type(e).__name__}: {e})")
            return got
        if not same:
            self.fail(f"{name}: expected {want!r}")
        return got

    def expect_silence(self, name):
        """Nothing for `name`: the next reply must be the probe sent after it."""
        self.probe += 1
        probe_id = '"probe-%d"' % self.probe
        self.link.send(req("echo", [self.probe], id_raw=probe_id))
        self.expect_reply(f"{name} (no reply: the next one answers the probe)",
                          ok("[%d]" % self.probe, probe_id))

    def case(self, name, data, want, pieces=1):
        self.link.send(data, pieces=pieces, pause=0.02 if pieces > 1 else 0.0)
        if want is None:
            self.expect_silence(name)
        else:
            self.expect_reply(name, want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uart", required=True, help="QEMU's -chardev pipe path (P.in, P.out)")
    ap.add_argument("--framing", choices=["newline", "cobs"], default="newline")
    ap.add_argument("--spec", required=True)
    ap.add_argument("--transcript", required=True)
    ap.add_argument("--stats-out", required=True)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--quick", action="store_true", help="ready, a few requests, shutdown")
    args = ap.parse_args()

    link = Link(args.uart, args.framing, connect_timeout=args.timeout)
    t = Transcript(link, args.timeout)
    stats = None
    try:
        ready = link.read_line(args.timeout)
        t.checks += 1
        if ready != READY:
            t.fail(f"first line is {ready!r}, not {READY!r}")
            raise StopIteration

        if args.quick:
            t.case("subtract", req("subtract", [42, 23], 1), ok("19", "1"))
            t.case("parse error", b"[1,", err(-32700, "Parse error"))
            t.case("batch", b"[" + req("sum", [1, 2], 2) + b"," + req("update") + b"]", b"[" + ok("3", "2") + b"]")
        else:
            examples = spec_examples(args.spec)
            if len(examples) != 15:
                t.fail(f"expected 15 request/response pairs in the spec examples, found {len(examples)}")
            for section, request, response in examples:
                t.case("spec: " + section, request, None if response is None else response.encode())
            for name, data, want in edge_cases(args.framing):
                t.case(name, data, want)
            # The same things in awkward chunks: pieces, pipelining; what each framing
            # skips or drops.
            if args.framing == "newline":
                link.send_raw(b"\n \n\t\r\n\r\n")
                t.case("blank lines are skipped", req("sum", [7], 40), ok("7", "40"))
            else:
                link.send_raw(b"\0\0")
                t.case("empty frames are skipped", req("sum", [7], 40), ok("7", "40"))
                bad = bytearray(frame(req("sum", [1, 2], 44), "cobs"))
                bad[5] ^= 0x04
                link.send_raw(bytes(bad))
                t.expect_silence("a frame whose CRC fails: dropped, unanswered")
                link.send_raw(b"\x13\x37noise\0")
                t.case("noise up to a 0x00 is dropped; the next frame is answered",
                       req("sum", [8], 45), ok("8", "45"))
            t.case("request in 5 pieces", req("subtract", [100, 1], 41), ok("99", "41"), pieces=5)
            three = [req("sum", [1], 42), req("notify_hello", [1]), req("sum", [2], 43)]
            link.counted += 3
            link.send_raw(b"".join(frame(m, args.framing) for m in three))
            t.expect_reply("pipelined 1/2", ok("1", "42"))
            t.expect_reply("pipelined 2/2", ok("2", "43"))

            # Instructions for the spec's first request: `stats` reports the previous
            # frame's Server::handle.
            t.case("spec subtract, measured", b'{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}',
                   b'{"jsonrpc": "2.0", "result": 19, "id": 1}')

        frames_before = link.frames_sent()
        link.send(req("stats", None, "stats"))
        raw = link.read_line(args.timeout)
        t.checks += 1
        try:
            if raw is None:
                raise ValueError("no reply")
            reply = json.loads(raw)
            stats = reply["result"]
            if reply.get("id") != "stats":
                t.fail("stats: wrong id")
            if stats["frames"] != frames_before + 1:
                t.fail(f"stats: frames {stats['frames']}, sent {frames_before} before it (+1 for stats)")
            if not 0 < stats["stack_peak_bytes"] < stats["stack_size_bytes"]:
                t.fail("stats: implausible stack_peak_bytes")
        except (TypeError, ValueError, KeyError) as e:
            t.fail(f"stats: unexpected reply ({e!r})")

        link.send(req("shutdown", None, "end"))
        t.expect_reply("shutdown", ok('"bye"', '"end"'))
    except StopIteration:
        pass
    except OSError as e:
        t.fail(f"link error: {e}")
    except Exception as e:  # a bug here must still print the transcript
        t.fail(f"test driver error: {type(e).__name__}: {e}")

    with open(args.transcript, "wb") as f:
        for d, data in link.log:
            f.write(d.encode() + b" " + data + b"\n")
    if stats is not None:
        with open(args.stats_out, "w") as f:
            json.dump(stats, f)

    if t.failures:
        sys.stdout.write("--- transcript (%d lines)\n" % len(link.log))
        for d, data in link.log:
            text = data.decode("utf-8", "backslashreplace")
            if len(text) > 300:
                text = text[:150] + " ... (%d bytes) ... " % len(data) + text[-100:]
            sys.stdout.write(f"{d} {text}\n")
        sys.stdout.write("--- %d of %d checks FAILED:\n" % (len(t.failures), t.checks))
        for f in t.failures:
            sys.stdout.write("  - " + f + "\n")
        return 1
    print("transcript: %d checks passed (%d frames sent)" % (t.checks, link.frames_sent()))
    if stats is not None:
        print("stats: " + json.dumps(stats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
