#!/usr/bin/env python3
"""Interop tests: the jsonrpc-slice `serve` example against two Python JSON-RPC clients.

    python interop.py [path/to/serve]        (or JSONRPC_SLICE_SERVE=path/to/serve)

Default server path: <repo root>/target/release/jsonrpc-slice-serve, the repo root being three
levels above this file, so the script works from any working directory.

(a) python-lsp-jsonrpc (the transport of python-lsp-server), `--framing content-length`:
    a1. `pylsp_jsonrpc.streams.JsonRpcStreamReader/Writer` alone: hand-written requests,
        notifications and batches; every reply checked whole.
    a2. `pylsp_jsonrpc.endpoint.Endpoint` on top of them: requests as futures (uuid string
        ids), notifications, 200 concurrent requests, error replies as exceptions.
(b) jsonrpcclient (message builder + response parser, no transport), newline framing
    (the server's default): `request`, `request_json`, `notification_json`, `parse`,
    `parse_json`, `Ok`, `Error`, batches.

Every session ends by closing the server's stdin and checking that nothing else arrived
(JSON-RPC 2.0: notifications get no reply) and that the server exits 0.

Prints one line per failure, then `N passed, M failed`; exits 1 on any failure.
"""

import itertools
import json
import logging
import os
import queue
import subprocess
import sys
import threading
import time
import traceback
from importlib.metadata import version

try:
    from jsonrpcclient import (
        Error,
        Ok,
        notification,
        notification_json,
        parse,
        parse_json,
        request,
        request_json,
        request_json_hex,
        request_json_uuid,
    )
    from pylsp_jsonrpc import exceptions as lsp_exc
    from pylsp_jsonrpc import streams as lsp_streams
    from pylsp_jsonrpc.endpoint import Endpoint
    from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter
except ImportError as e:
    print(f"interop (python): {e}", file=sys.stderr)
    print("install the clients first: pip install -r tests/interop/python/requirements.txt", file=sys.stderr)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SERVER = os.path.abspath(
    (sys.argv[1] if len(sys.argv) > 1 else None)
    or os.environ.get("JSONRPC_SLICE_SERVE")
    or os.path.join(REPO, "target", "release", "jsonrpc-slice-serve")
)
VERBOSE = bool(os.environ.get("INTEROP_VERBOSE"))
TIMEOUT = 10.0  # seconds to wait for any one reply
QUIET = 0.3  # seconds of silence that stand for "no reply"

# ---------------------------------------------------------------------------------------
# A tiny test runner.

PASSED = 0
FAILED = 0
FAILURES = []


class Mismatch(Exception):
    pass


def eq(actual, expected, what="value"):
    # `type` too: True == 1 and 1 == 1.0 in Python, not in JSON.
    if actual != expected or type(actual) is not type(expected):
        raise Mismatch(f"{what}: expected {short(expected)}, got {short(actual)}")


def ok(cond, message):
    if not cond:
        raise Mismatch(message)


def short(v, limit=200):
    s = repr(v)
    return s if len(s) <= limit else s[: limit - 20] + f"... ({len(s)} chars)"


def test(name):
    """Runs the decorated function at once, as one test."""

    def run(fn):
        global PASSED, FAILED
        try:
            fn()
            PASSED += 1
            if VERBOSE:
                print(f"ok   {name}", flush=True)
        except Mismatch as e:
            FAILED += 1
            FAILURES.append(f"{name}: {e}")
            print(f"FAIL {name}: {e}", flush=True)
        except Exception:  # pylint: disable=broad-except
            FAILED += 1
            tb = traceback.format_exc()
            FAILURES.append(f"{name}: {tb}")
            print(f"FAIL {name}: {tb}", flush=True)
        return fn

    return run


class LogCapture(logging.Handler):
    """Collects what pylsp_jsonrpc logs at WARNING and above."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(f"{record.levelname} {record.name}: {record.getMessage()}")

    def take(self, needle):
        """Removes and returns the records that contain `needle`."""
        hit = [r for r in self.records if needle in r]
        self.records = [r for r in self.records if needle not in r]
        return hit


LOGS = LogCapture()
# pylsp_jsonrpc logs through its own loggers; Endpoint's future callbacks fail through
# concurrent.futures' ("exception calling callback for <Future ...>").
for _name in ("pylsp_jsonrpc", "concurrent.futures"):
    logging.getLogger(_name).addHandler(LOGS)
    logging.getLogger(_name).setLevel(logging.WARNING)
    logging.getLogger(_name).propagate = False

# ---------------------------------------------------------------------------------------
# The server under test.

EOF = object()


class Server:
    """The serve example as a child process; its output goes through a queue."""

    def __init__(self, framing):
        args = [SERVER] + (["--framing", framing] if framing != "newline" else [])
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.stderr = b""
        self.q = queue.Queue()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _drain_stderr(self):
        self.stderr = self.proc.stderr.read()

    def start_reader(self, target):
        def run():
            try:
                target()
            finally:
                self.q.put(EOF)

        threading.Thread(target=run, daemon=True).start()

    def next(self, what):
        try:
            m = self.q.get(timeout=TIMEOUT)
        except queue.Empty:
            raise Mismatch(f"{what}: no reply within {TIMEOUT} s") from None
        if m is EOF:
            raise Mismatch(f"{what}: the server closed its output")
        return m

    def silent(self, what):
        try:
            m = self.q.get(timeout=QUIET)
        except queue.Empty:
            return
        raise Mismatch(f"{what}: unexpected message {short(m)}")

    def finish(self):
        """Closes stdin; nothing may arrive but EOF, and the server must exit 0."""
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Mismatch("the server did not exit within 5 s of stdin closing") from None
        stray = []
        while True:
            try:
                m = self.q.get(timeout=TIMEOUT)
            except queue.Empty:
                stray.append("(the reader never saw end of file)")
                break
            if m is EOF:
                break
            stray.append(short(m))
        ok(not stray, f"messages nobody asked for: {stray}")
        ok(code == 0, f"server exited with {code}; stderr: {self.stderr.decode(errors='replace')}")


def no_logs(what):
    got, LOGS.records = LOGS.records, []
    ok(not got, f"{what}: pylsp_jsonrpc logged {got}")


# ---------------------------------------------------------------------------------------
# (a1) pylsp_jsonrpc streams: JsonRpcStreamReader / JsonRpcStreamWriter.


def part_a1_streams():
    srv = Server("content-length")
    reader = JsonRpcStreamReader(srv.proc.stdout)
    writer = JsonRpcStreamWriter(srv.proc.stdin)
    srv.start_reader(lambda: reader.listen(srv.q.put))

    def call(message):
        writer.write(message)
        return srv.next(f"reply to {short(message, 80)}")

    def req(method, params=None, id=1):  # pylint: disable=redefined-builtin
        m = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            m["params"] = params
        m["id"] = id
        return m

    def res(result, id=1):  # pylint: disable=redefined-builtin
        return {"jsonrpc": "2.0", "result": result, "id": id}

    def err(code, message, id=1, **data):  # pylint: disable=redefined-builtin
        e = {"code": code, "message": message}
        e.update(data)
        return {"jsonrpc": "2.0", "error": e, "id": id}

    @test("pylsp streams: the writer's frame carries Content-Type (charset=utf8)")
    def _():
        import io

        buf = io.BytesIO()
        JsonRpcStreamWriter(buf).write(req("get_data"))
        head, body = buf.getvalue().split(b"\r\n\r\n", 1)
        eq(
            head.split(b"\r\n"),
            [b"Content-Length: %d" % len(body), b"Content-Type: application/vscode-jsonrpc; charset=utf8"],
            "header lines",
        )

    @test("pylsp streams: subtract [42, 23] = 19 (server ignores Content-Type)")
    def _():
        eq(call(req("subtract", [42, 23])), res(19))

    @test("pylsp streams: subtract [23, 42] = -19")
    def _():
        eq(call(req("subtract", [23, 42], 2)), res(-19, 2))

    @test("pylsp streams: named subtract = 19, either key order")
    def _():
        eq(call(req("subtract", {"subtrahend": 23, "minuend": 42}, 3)), res(19, 3))
        eq(call(req("subtract", {"minuend": 42, "subtrahend": 23}, 4)), res(19, 4))

    @test("pylsp streams: sum [1, 2, 4] = 7; sum [] = 0")
    def _():
        eq(call(req("sum", [1, 2, 4], 5)), res(7, 5))
        eq(call(req("sum", [], 6)), res(0, 6))

    @test("pylsp streams: get_data = ['hello', 5]")
    def _():
        eq(call(req("get_data", id=7)), res(["hello", 5], 7))

    @test("pylsp streams: echo with non-ASCII and '/' (ujson escapes both)")
    def _():
        v = {"path": "a/b", "text": "é😀 ✓", "n": [0, -1, 2.5, None, True, False], "big": 2**63 - 1}
        eq(call(req("echo", v, 8)), res(v, 8))

    @test("pylsp streams: echo without params = null; update = null")
    def _():
        eq(call(req("echo", id=9)), res(None, 9))
        eq(call(req("update", [1, 2, 3], 10)), res(None, 10))

    @test("pylsp streams: string, zero, negative, null ids")
    def _():
        for i in ("abc", "", "é😀", "1", 0, -5, 2**53):
            eq(call(req("sum", [1], i)), res(1, i), f"reply for id {i!r}")
        eq(call(req("sum", [1], None)), res(1, None), "reply for id null")

    @test("pylsp streams: notifications get no reply")
    def _():
        for m, p in (
            ("update", [1, 2, 3, 4, 5]),
            ("notify_hello", [7]),
            ("notify_sum", [1, 2, 4]),
            ("no_such_method", None),
            ("fail", {"x": 1}),
            ("subtract", ["a"]),
            ("big", [1000000]),
        ):
            n = {"jsonrpc": "2.0", "method": m}
            if p is not None:
                n["params"] = p
            writer.write(n)
        eq(call(req("get_data", id="after")), res(["hello", 5], "after"))
        srv.silent("after notifications")

    @test("pylsp streams: unknown method → -32601")
    def _():
        eq(call(req("foobar", id="m")), err(-32601, "Method not found", "m"))

    @test("pylsp streams: bad params → -32602")
    def _():
        eq(call(req("subtract", [1], 11)), err(-32602, "Invalid params", 11))
        eq(call(req("subtract", {"minuend": 1, "x": 2}, 12)), err(-32602, "Invalid params", 12))
        eq(call(req("sum", {"a": 1}, 13)), err(-32602, "Invalid params", 13))
        eq(call(req("subtract", [-(2**63), 1], 14)), err(-32602, "Invalid params", 14))

    @test("pylsp streams: fail → -32000 with data = params")
    def _():
        eq(call(req("fail", {"why": [1, None]}, 15)), err(-32000, "Server error", 15, data={"why": [1, None]}))
        eq(call(req("fail", id=16)), err(-32000, "Server error", 16))

    @test("pylsp streams: reply limit: big [65500] fits exactly (65 536-byte body), [65501] → -32603")
    def _():
        r = call(req("big", [65500], 1))
        eq(r, res("x" * 65500, 1))
        r = call(req("big", [65501], 1))
        eq(r["error"]["code"], -32603, "error code")
        ok(r["error"]["message"].startswith("Internal error"), f"message: {r['error']['message']!r}")
        eq(r["id"], 1, "id")

    @test("pylsp streams: frame limit: a 65 536-byte request fits, 65 537 → -32600 id null")
    def _():
        def sized(total):
            m = req("echo", [""], "f")
            pad = total - len(lsp_streams.json.dumps(m).encode())
            m["params"] = ["x" * pad]
            eq(len(lsp_streams.json.dumps(m).encode()), total, "frame size")
            return m

        m = sized(65536)
        eq(call(m), res(m["params"], "f"))
        eq(call(sized(65537)), err(-32600, "Invalid Request: frame larger than 65536 bytes", None))
        eq(call(req("sum", [40, 2], "after")), res(42, "after"))

    @test("pylsp streams: the specification batch example (reader passes the list through)")
    def _():
        reply = call(
            [
                req("sum", [1, 2, 4], "1"),
                {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
                req("subtract", [42, 23], "2"),
                {"foo": "boo"},
                req("foo.get", {"name": "myself"}, "5"),
                req("get_data", id="9"),
            ]
        )
        ok(isinstance(reply, list), f"batch reply is a list: {short(reply)}")
        eq(
            sorted(reply, key=lambda r: str(r["id"])),
            sorted(
                [
                    res(7, "1"),
                    res(19, "2"),
                    err(-32600, "Invalid Request", None),
                    err(-32601, "Method not found", "5"),
                    res(["hello", 5], "9"),
                ],
                key=lambda r: str(r["id"]),
            ),
            "batch reply",
        )

    @test("pylsp streams: notification-only batch gets no reply; [] gets one -32600 object")
    def _():
        writer.write([{"jsonrpc": "2.0", "method": "notify_sum", "params": [1]}, {"jsonrpc": "2.0", "method": "update"}])
        eq(call([]), err(-32600, "Invalid Request", None))

    @test("pylsp streams: parse error → -32700 id null (raw bytes through the same pipe)")
    def _():
        body = b'{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]'
        srv.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        srv.proc.stdin.flush()
        eq(srv.next("reply to invalid JSON"), err(-32700, "Parse error", None))

    @test("pylsp streams: 200 pipelined requests, replies in order")
    def _():
        for i in range(200):
            writer.write(req("subtract", {"minuend": i, "subtrahend": 7}, f"p{i}"))
        for i in range(200):
            eq(srv.next(f"reply p{i}"), res(i - 7, f"p{i}"), f"reply p{i}")

    @test("pylsp streams: session end (no stray message, no log, exit 0)")
    def _():
        srv.finish()
        no_logs("streams session")


# ---------------------------------------------------------------------------------------
# (a2) pylsp_jsonrpc Endpoint on the streams.


def part_a2_endpoint():
    srv = Server("content-length")
    reader = JsonRpcStreamReader(srv.proc.stdout)
    writer = JsonRpcStreamWriter(srv.proc.stdin)
    endpoint = Endpoint({}, writer.write)
    sent = []
    seen = []

    def consume(m):
        seen.append(m)
        endpoint.consume(m)

    def tap(m):
        sent.append(m)
        writer.write(m)

    endpoint._consumer = tap  # pylint: disable=protected-access
    srv.start_reader(lambda: reader.listen(consume))

    def result(method, params=None):
        return endpoint.request(method, params).result(timeout=TIMEOUT)

    def error(method, params=None):
        f = endpoint.request(method, params)
        e = f.exception(timeout=TIMEOUT)
        if e is None:
            raise Mismatch(f"{method}: expected an error, got result {short(f.result())}")
        return e

    @test("pylsp Endpoint: subtract positional and named; ids are uuid strings")
    def _():
        eq(result("subtract", [42, 23]), 19)
        eq(result("subtract", [23, 42]), -19)
        eq(result("subtract", {"minuend": 42, "subtrahend": 23}), 19)
        ok(isinstance(sent[0]["id"], str) and len(sent[0]["id"]) == 36, f"id {sent[0]['id']!r}")

    @test("pylsp Endpoint: sum, get_data, echo, update (null result)")
    def _():
        eq(result("sum", [1, 2, 4]), 7)
        eq(result("get_data"), ["hello", 5])
        eq(result("echo", {"k": ["v", 1.5, None]}), {"k": ["v", 1.5, None]})
        eq(result("echo"), None)
        eq(result("echo", []), [])
        eq(result("update", [1]), None)

    @test("pylsp Endpoint: notify() gets no reply")
    def _():
        before = len(seen)
        endpoint.notify("notify_hello", [7])
        endpoint.notify("notify_sum", [1, 2, 4])
        endpoint.notify("update")
        endpoint.notify("no_such_method", {"a": 1})
        eq(result("get_data"), ["hello", 5])
        time.sleep(QUIET)
        eq(len(seen), before + 1, "messages received after 4 notifications and 1 request")

    @test("pylsp Endpoint: 200 concurrent requests, results matched")
    def _():
        fs = [(endpoint.request("subtract", [i, 1000 - i]), i - (1000 - i)) for i in range(100)]
        fs += [(endpoint.request("sum", [i, i, i]), 3 * i) for i in range(100)]
        for n, (f, want) in enumerate(fs):
            eq(f.result(timeout=TIMEOUT), want, f"result #{n}")

    @test("pylsp Endpoint: -32601 → JsonRpcMethodNotFound (server's message kept)")
    def _():
        e = error("no_such_method")
        eq(type(e), lsp_exc.JsonRpcMethodNotFound, "exception type")
        eq((e.code, e.message, e.data), (-32601, "Method not found", None), "code, message, data")

    @test("pylsp Endpoint: -32602 → JsonRpcInvalidParams")
    def _():
        e = error("subtract", ["a", "b"])
        eq(type(e), lsp_exc.JsonRpcInvalidParams, "exception type")
        eq((e.code, e.message, e.data), (-32602, "Invalid params", None), "code, message, data")

    @test("pylsp Endpoint: -32000 → JsonRpcServerError with data")
    def _():
        e = error("fail", {"why": "because"})
        eq(type(e), lsp_exc.JsonRpcServerError, "exception type")
        eq((e.code, e.message, e.data), (-32000, "Server error", {"why": "because"}), "code, message, data")

    @test("pylsp Endpoint: -32603 → plain JsonRpcException (library maps InternalError to -32602)")
    def _():
        e = error("big", [70000])
        eq(type(e), lsp_exc.JsonRpcException, "exception type")
        eq(e.code, -32603, "code")
        ok(e.message.startswith("Internal error"), f"message {e.message!r}")
        eq(lsp_exc.JsonRpcInternalError.CODE, -32602, "the library's JsonRpcInternalError.CODE")

    @test("pylsp Endpoint: integer ids via id_generator, starting at 0")
    def _():
        counter = itertools.count(0)
        endpoint._id_generator = lambda: next(counter)  # pylint: disable=protected-access
        try:
            eq(result("sum", [2, 3]), 5)
            eq(sent[-1]["id"], 0, "first id")
            eq(result("sum", [3, 3]), 6)
        finally:
            endpoint._id_generator = Endpoint.__init__.__defaults__[0]  # pylint: disable=protected-access

    @test("pylsp Endpoint: a batch reply is dropped with a warning (no batch support)")
    def _():
        writer.write([{"jsonrpc": "2.0", "method": "sum", "params": [1, 2], "id": "side"}])
        eq(result("get_data"), ["hello", 5])
        time.sleep(QUIET)
        ok(any(isinstance(m, list) for m in seen), "the server sent a batch reply")
        eq(len(LOGS.take("Unknown message type")), 1, "warnings logged for the batch reply")

    @test("pylsp Endpoint: an id-null error reply (oversized frame) leaves the future pending")
    def _():
        f = endpoint.request("echo", ["x" * 70000])
        eq(result("sum", [1, 1]), 2)
        time.sleep(QUIET)
        ok(not f.done(), "the oversized request's future is still pending")
        eq(len(LOGS.take("unknown message id None")), 1, "warnings logged for the id-null reply")
        # Cancelling sends $/cancelRequest, a notification the server must ignore. The
        # library's cancel callback then calls set_exception() on the cancelled future,
        # which raises InvalidStateError inside concurrent.futures (logged, harmless).
        ok(f.cancel(), "future.cancel()")
        eq(result("sum", [2, 2]), 4)
        time.sleep(QUIET)
        cancels = [m for m in sent if m.get("method") == "$/cancelRequest"]
        eq(len(cancels), 1, "$/cancelRequest notifications sent")
        ok("id" not in cancels[0], "$/cancelRequest is a notification")
        eq(len(LOGS.take("exception calling callback")), 1, "concurrent.futures callback errors logged")

    @test("pylsp Endpoint: session end (every request answered once, no log, exit 0)")
    def _():
        replies = [m for m in seen if isinstance(m, dict)]
        requests = [m for m in sent if "id" in m]
        answered = [r["id"] for r in replies if r["id"] is not None]
        eq(sorted(map(str, answered)), sorted(str(m["id"]) for m in requests if m["method"] != "echo" or m.get("params") != ["x" * 70000]), "ids answered")
        srv.finish()
        endpoint.shutdown()
        no_logs("Endpoint session")


# ---------------------------------------------------------------------------------------
# (b) jsonrpcclient, newline framing.


def part_b_jsonrpcclient():
    srv = Server("newline")
    lines = []

    def read_lines():
        for line in srv.proc.stdout:
            lines.append(line)
            srv.q.put(line.decode("utf-8"))

    srv.start_reader(read_lines)

    def send(text):
        ok("\n" not in text, "a message must fit on one line")
        srv.proc.stdin.write(text.encode("utf-8") + b"\n")
        srv.proc.stdin.flush()

    def call(text):
        send(text)
        return srv.next(f"reply to {short(text, 80)}").rstrip("\n")

    def rid(text):
        return json.loads(text)["id"]

    @test("jsonrpcclient: request_json subtract [42, 23] → Ok(19)")
    def _():
        r = request_json("subtract", params=[42, 23])
        eq(parse_json(call(r)), Ok(19, rid(r)))

    @test("jsonrpcclient: tuple params become a JSON array; subtract (23, 42) → Ok(-19)")
    def _():
        r = request_json("subtract", params=(23, 42))
        eq(json.loads(r)["params"], [23, 42], "params on the wire")
        eq(parse_json(call(r)), Ok(-19, rid(r)))

    @test("jsonrpcclient: named subtract → Ok(19)")
    def _():
        r = request_json("subtract", params={"minuend": 42, "subtrahend": 23})
        eq(parse_json(call(r)), Ok(19, rid(r)))

    @test("jsonrpcclient: request() dict + parse(); sum [1, 2, 4] → Ok(7)")
    def _():
        r = request("sum", params=[1, 2, 4])
        eq(parse(json.loads(call(json.dumps(r)))), Ok(7, r["id"]))

    @test("jsonrpcclient: get_data → Ok(['hello', 5])")
    def _():
        r = request_json("get_data")
        ok("params" not in json.loads(r), "no params member")
        eq(parse_json(call(r)), Ok(["hello", 5], rid(r)))

    @test("jsonrpcclient: echo is byte for byte (json.dumps spacing kept)")
    def _():
        params = {"a": [1, 2.5, None, True], "s": "é/😀", "big": 2**70}
        r = request_json("echo", params=params)
        reply = call(r)
        eq(reply, '{"jsonrpc":"2.0","result":%s,"id":%d}' % (json.dumps(params), rid(r)), "raw reply line")
        eq(parse_json(reply), Ok(params, rid(r)))

    @test("jsonrpcclient: empty params are dropped: echo [] → Ok(None), sum [] → -32602")
    def _():
        r = request_json("echo", params=[])
        ok("params" not in json.loads(r), "jsonrpcclient left out the empty params")
        eq(parse_json(call(r)), Ok(None, rid(r)))
        r = request_json("sum", params=[])
        eq(parse_json(call(r)), Error(-32602, "Invalid params", None, rid(r)))
        # What the spec-conformant message would get:
        eq(parse_json(call('{"jsonrpc":"2.0","method":"sum","params":[],"id":"s0"}')), Ok(0, "s0"))

    @test("jsonrpcclient: update → Ok(None) (null result)")
    def _():
        r = request_json("update", params=[1, 2, 3])
        eq(parse_json(call(r)), Ok(None, rid(r)))

    @test("jsonrpcclient: chosen ids: strings, 0, null; hex and uuid generators")
    def _():
        for i in ("abc", "", "é😀", "1", 0, -3):
            eq(parse_json(call(request_json("sum", params=[1], id=i))), Ok(1, i), f"id {i!r}")
        eq(parse_json(call(request_json("sum", params=[1], id=None))), Ok(1, None), "id null")
        r = request_json_hex("sum", params=[2])
        ok(isinstance(rid(r), str), f"hex id {rid(r)!r}")
        eq(parse_json(call(r)), Ok(2, rid(r)))
        r = request_json_uuid("sum", params=[3])
        eq(parse_json(call(r)), Ok(3, rid(r)))

    @test("jsonrpcclient: notification_json gets no reply; the next request gets its own")
    def _():
        send(notification_json("notify_hello", params=[7]))
        send(notification_json("notify_sum", params=[1, 2, 4]))
        send(notification_json("update"))
        send(notification_json("update", params={"x": 1}))
        send(notification_json("no_such_method"))
        send(notification_json("fail", params=["x"]))
        send(json.dumps(notification("subtract", params=["a", "b"])))
        r = request_json("get_data")
        eq(parse_json(call(r)), Ok(["hello", 5], rid(r)))
        srv.silent("after notifications")

    @test("jsonrpcclient: unknown method → Error(-32601)")
    def _():
        r = request_json("foobar")
        eq(parse_json(call(r)), Error(-32601, "Method not found", None, rid(r)))

    @test("jsonrpcclient: invalid params → Error(-32602)")
    def _():
        for p in (["a", 1], [1], {"minuend": 1}, {"minuend": 1, "subtrahend": 2, "x": 3}):
            r = request_json("subtract", params=p)
            eq(parse_json(call(r)), Error(-32602, "Invalid params", None, rid(r)), f"params {p!r}")

    @test("jsonrpcclient: non-structured params (not validated by the client) → Error(-32600)")
    def _():
        r = request_json("sum", params=5)
        eq(json.loads(r)["params"], 5, "params on the wire")
        eq(parse_json(call(r)), Error(-32600, "Invalid Request", None, rid(r)))

    @test("jsonrpcclient: fail → Error(-32000, data); absent data reads as None")
    def _():
        r = request_json("fail", params={"why": ["x", None]})
        eq(parse_json(call(r)), Error(-32000, "Server error", {"why": ["x", None]}, rid(r)))
        r = request_json("fail")
        reply = call(r)
        ok('"data"' not in reply, "no data member on the wire")
        eq(parse_json(reply), Error(-32000, "Server error", None, rid(r)))
        r = request_json("fail", params=[None])
        eq(parse_json(call(r)), Error(-32000, "Server error", [None], rid(r)))

    @test("jsonrpcclient: big [65500] id 1 fits (65 536-byte reply), [65501] → Error(-32603)")
    def _():
        eq(parse_json(call(request_json("big", params=[65500], id=1))), Ok("x" * 65500, 1))
        e = parse_json(call(request_json("big", params=[65501], id=1)))
        ok(isinstance(e, Error), f"expected Error, got {short(e)}")
        eq((e.code, e.id, e.data), (-32603, 1, None), "code, id, data")
        ok(e.message.startswith("Internal error"), f"message {e.message!r}")

    @test("jsonrpcclient: invalid JSON → Error(-32700, id None)")
    def _():
        eq(parse_json(call('{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]')), Error(-32700, "Parse error", None, None))

    @test("jsonrpcclient: NaN params are sent as bare NaN (invalid JSON) → Error(-32700)")
    def _():
        r = request_json("echo", params=[float("nan")])
        ok("NaN" in r, f"json.dumps wrote {r!r}")
        eq(parse_json(call(r)), Error(-32700, "Parse error", None, None))

    @test("jsonrpcclient: the specification batch example; parse returns a lazy map")
    def _():
        batch = [
            request("sum", params=[1, 2, 4], id="1"),
            notification("notify_hello", params=[7]),
            request("subtract", params=[42, 23], id="2"),
            {"foo": "boo"},
            request("foo.get", params={"name": "myself"}, id="5"),
            request("get_data", id="9"),
        ]
        parsed = parse_json(call(json.dumps(batch)))
        eq(type(parsed), map, "type parse_json returns for a batch")
        got = sorted(parsed, key=lambda r: str(r.id))
        eq(
            got,
            sorted(
                [
                    Ok(7, "1"),
                    Ok(19, "2"),
                    Error(-32600, "Invalid Request", None, None),
                    Error(-32601, "Method not found", None, "5"),
                    Ok(["hello", 5], "9"),
                ],
                key=lambda r: str(r.id),
            ),
            "batch responses",
        )

    @test("jsonrpcclient: notification-only batch → no reply line at all")
    def _():
        send(json.dumps([notification("notify_sum", params=[1, 2, 4]), notification("notify_hello", params=[7])]))
        r = request_json("sum", params=[2, 2])
        eq(parse_json(call(r)), Ok(4, rid(r)))

    @test("jsonrpcclient: empty batch → a single Error, not a list")
    def _():
        eq(parse_json(call("[]")), Error(-32600, "Invalid Request", None, None))

    @test("jsonrpcclient: 100-element batch of mixed results and errors, matched by id")
    def _():
        batch = []
        want = {}
        for i in range(100):
            if i % 3 == 0:
                batch.append(request("fail", params=[i], id=f"f{i}"))
                want[f"f{i}"] = Error(-32000, "Server error", [i], f"f{i}")
            elif i % 3 == 1:
                batch.append(request("subtract", params={"minuend": i, "subtrahend": 1}, id=i))
                want[i] = Ok(i - 1, i)
            else:
                batch.append(notification("update", params=[i]))
        got = list(parse_json(call(json.dumps(batch))))
        eq(len(got), len(want), "responses in the batch reply")
        eq({r.id: r for r in got}, want, "responses by id")

    @test("jsonrpcclient: batch whose reply would pass 64 KiB: the element that overflows → Error(-32603)")
    def _():
        batch = [request("big", params=[30000], id=i) for i in (1, 2, 3)] + [request("sum", params=[1], id=4)]
        got = {r.id: r for r in parse_json(call(json.dumps(batch)))}
        eq(sorted(got), [1, 2, 3, 4], "ids in the batch reply")
        eq((got[1], got[2], got[4]), (Ok("x" * 30000, 1), Ok("x" * 30000, 2), Ok(1, 4)), "replies 1, 2, 4")
        ok(isinstance(got[3], Error) and got[3].code == -32603, f"reply 3: {short(got[3])}")

    @test("jsonrpcclient: 200 pipelined requests in one write, replies in order")
    def _():
        reqs = [request_json("sum", params=[i, i]) for i in range(200)]
        srv.proc.stdin.write(("\n".join(reqs) + "\n").encode())
        srv.proc.stdin.flush()
        for i, r in enumerate(reqs):
            eq(parse_json(srv.next(f"reply #{i}")), Ok(2 * i, rid(r)), f"reply #{i}")

    @test("jsonrpcclient: session end (one reply line per request, exit 0)")
    def _():
        srv.finish()
        ok(all(line.endswith(b"\n") for line in lines), "every reply ends in a newline")


# ---------------------------------------------------------------------------------------


def main():
    if not os.path.exists(SERVER):
        print(f"interop (python): server binary not found: {SERVER}", file=sys.stderr)
        print("build it with `cargo build --release --features std`, or pass its path", file=sys.stderr)
        return 2
    started = time.monotonic()
    print(
        f"interop (python): python-lsp-jsonrpc {version('python-lsp-jsonrpc')}"
        f" (json: {lsp_streams.json.__name__} {getattr(lsp_streams.json, '__version__', '')}),"
        f" jsonrpcclient {version('jsonrpcclient')}, python {sys.version.split()[0]}, server {SERVER}",
        flush=True,
    )
    part_a1_streams()
    part_a2_endpoint()
    part_b_jsonrpcclient()
    if FAILURES:
        print(f"\n{FAILED} failure(s):")
        for f in FAILURES:
            print(f"  - {f}")
    print(f"{PASSED} passed, {FAILED} failed ({time.monotonic() - started:.1f} s)")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
