"""The MCP image (`--features mcp`) in QEMU, driven over its UART on QEMU's standard
input and output, MCP's stdio transport:

1. the official Python MCP SDK (`mcp` on PyPI) launches QEMU as its server command,
   once per revision: `mode="legacy"` (the 2025-11-25 `initialize` handshake) and
   `mode="auto"` (it probes `server/discover` and goes on in 2026-07-28); each time it
   lists the tools and calls every one (with progress, and with bad arguments);
2. a transcript over the same UART, without the SDK: the cases the SDK does not send
   (missing or unsupported `_meta`, a batch, notifications, `ping` in 2026-07-28, ...),
   each reply checked, then `stats` (saved for budget.sh) and `shutdown`, after which
   QEMU must exit with status 0.

    python mcp_client.py --qemu "QEMU COMMAND LINE" --elf ELF --stats-out FILE

Prints one line per check (`ok - ...` or `FAIL - ...: why`), then `N passed, N failed`;
exits 1 if any check failed. Run by mcp-test.sh.
"""

import argparse
import json
import logging
import queue
import shlex
import subprocess
import sys
import threading

import anyio
import mcp.types as types
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

TIMEOUT = 30  # seconds per SDK call or transcript reply
TOOLS = ["read_sensor", "set_led", "sample"]
MODERN, LEGACY = "2026-07-28", "2025-11-25"

passed, failed = 0, 0


def check(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok - {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL - {name}: {why}", flush=True)


class Complaints(logging.Handler):
    """Every warning or error the SDK logs (a message it could not parse or
    validate...): a session with the firmware must have none."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(f"{record.name}: {record.getMessage()}")


sdk_complaints = Complaints()
logging.getLogger().addHandler(sdk_complaints)


def text_of(result):
    return "".join(c.text for c in result.content if c.type == "text")


# ---------------------------------------------------------------------------------------
# The SDK.


async def tool_checks(client, era):
    """Lists the tools and calls each, as the SDK's `Client` does in `era`."""
    with anyio.fail_after(TIMEOUT):
        listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    check(f"{era}: tools/list gives {TOOLS}, each inputSchema an object schema",
          [t.name for t in listed.tools] == TOOLS
          and all(t.input_schema.get("type") == "object" for t in listed.tools),
          [t.name for t in listed.tools])
    check(f"{era}: sample's inputSchema bounds count to 1..16, channel to 0..3 (default 0)",
          tools["sample"].input_schema["properties"]["count"]["minimum"] == 1
          and tools["sample"].input_schema["properties"]["count"]["maximum"] == 16
          and tools["sample"].input_schema["properties"]["channel"]["default"] == 0,
          tools["sample"].input_schema)

    async def call(name, arguments, **kw):
        with anyio.fail_after(TIMEOUT):
            return await client.call_tool(name, arguments, **kw)

    got = []
    for channel in range(4):
        res = await call("read_sensor", {"channel": channel})
        s = res.structured_content or {}
        got.append((res.is_error, s.get("channel"), 0 <= s.get("value", -1) <= 1023,
                    json.loads(text_of(res)) == s))
    check(f"{era}: read_sensor on channels 0..3: a 10-bit value, the text its JSON",
          got == [(False, c, True, True) for c in range(4)], got)

    on = await call("set_led", {"on": True})
    off = await call("set_led", {"on": False})
    check(f"{era}: set_led on, then off: the pin read back",
          (on.is_error, on.structured_content, off.is_error, off.structured_content)
          == (False, {"on": 1}, False, {"on": 0}),
          (on, off))

    progress = []

    async def on_progress(p, total, message):
        progress.append((p, total))

    res = await call("sample", {"channel": 3, "count": 5}, progress_callback=on_progress)
    s = res.structured_content or {}
    check(f"{era}: sample, 5 conversions: 5 progress callbacks (1..5 of 5) before the result",
          progress == [(i, 5) for i in range(1, 6)] and not res.is_error
          and s.get("count") == 5 and s.get("channel") == 3
          and s.get("min", 1) <= s.get("mean", 0) <= s.get("max", -1),
          (progress, res))
    progress.clear()
    res = await call("sample", {"count": 2})
    check(f"{era}: sample without a progress callback: no progress, channel 0 by default",
          progress == [] and (res.structured_content or {}).get("channel") == 0, res)

    bad = [("read_sensor", {"channel": 4}, "`channel` must be an integer from 0 to 3"),
           ("read_sensor", {"channel": 1.5}, "`channel` must be an integer from 0 to 3"),
           ("read_sensor", {}, "`channel` is required"),
           ("read_sensor", {"channel": 1, "gain": 2}, "`gain` is not an argument of this tool"),
           ("set_led", {"on": "yes"}, "`on` must be true or false"),
           ("sample", {"count": 0}, "`count` must be an integer from 1 to 16"),
           ("sample", {"count": 17, "channel": 0}, "`count` must be an integer from 1 to 16")]
    got = []
    for name, args, why in bad:
        res = await call(name, args)
        got.append(res.is_error is True and text_of(res) == f"Invalid arguments: {why}")
    check(f"{era}: bad arguments are a result with isError saying which and why", all(got), got)

    try:
        res = await call("no_such_tool", {})
        check(f"{era}: an unknown tool is -32602", False, f"result {res}")
    except MCPError as e:
        check(f"{era}: an unknown tool is -32602 naming it",
              e.error.code == -32602 and e.error.message == "Unknown tool: no_such_tool", e.error)


async def sdk_checks(qemu):
    params = StdioServerParameters(command=qemu[0], args=qemu[1:])
    with anyio.fail_after(TIMEOUT * 10):
        async with Client(params, mode="legacy") as client:
            check("legacy: initialize negotiates 2025-11-25 with the firmware",
                  client.protocol_version == LEGACY
                  and client.server_info.name == "jsonrpc-slice-firmware",
                  (client.protocol_version, client.server_info))
            with anyio.fail_after(TIMEOUT):
                pong = await client.send_ping()
            check("legacy: ping answers {}", isinstance(pong, types.EmptyResult), pong)
            await tool_checks(client, "legacy 2025-11-25")
    with anyio.fail_after(TIMEOUT * 10):
        async with Client(params, mode="auto") as client:
            check("auto: server/discover answers, the SDK goes on in 2026-07-28",
                  client.protocol_version == MODERN
                  and client.server_info.name == "jsonrpc-slice-firmware",
                  (client.protocol_version, client.server_info))
            await tool_checks(client, "2026-07-28")
    check("the SDK logged no warning or error", sdk_complaints.records == [], sdk_complaints.records)


# ---------------------------------------------------------------------------------------
# The transcript.


class Uart:
    """QEMU with its UART on stdin/stdout; lines read by a thread into a queue."""

    def __init__(self, qemu):
        self.p = subprocess.Popen(qemu, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message):
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.p.stdin.write(line + b"\n")
        self.p.stdin.flush()

    def read(self):
        line = self.lines.get(timeout=TIMEOUT)
        if line is None:
            raise EOFError("the UART closed")
        return json.loads(line)


META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "transcript", "version": "0"}}


def req(id, method, params=None, meta=META):
    params = dict(params or {})
    if meta is not None:
        params["_meta"] = meta
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params:
        m["params"] = params
    return m


def transcript(qemu, stats_out):
    uart = Uart(qemu)
    ask = lambda m: (uart.send(m), uart.read())[1]
    code = lambda r: r.get("error", {}).get("code")

    r = ask(req(1, "server/discover"))
    res = r.get("result", {})
    check("discover: 2026-07-28 and 2025-11-25, tools, resultType, ttlMs, cacheScope, serverInfo",
          r.get("id") == 1 and res.get("resultType") == "complete"
          and res.get("supportedVersions") == [MODERN, LEGACY]
          and "tools" in res.get("capabilities", {}) and res.get("ttlMs", -1) >= 0
          and res.get("cacheScope") == "public"
          and res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "jsonrpc-slice-firmware", r)
    r = ask(req(2, "tools/list"))
    check("tools/list (2026-07-28): resultType, the three tools, ttlMs, cacheScope",
          r["result"]["resultType"] == "complete" and [t["name"] for t in r["result"]["tools"]] == TOOLS
          and "ttlMs" in r["result"] and "cacheScope" in r["result"], r)
    r = ask(req(3, "tools/list", meta=None))
    check("a request without _meta, before any initialize: -32602", code(r) == -32602 and r["id"] == 3, r)
    r = ask(req(4, "tools/list", meta={"io.modelcontextprotocol/clientCapabilities": {}}))
    check("_meta without protocolVersion: -32602", code(r) == -32602, r)
    r = ask(req(5, "tools/list", meta={"io.modelcontextprotocol/protocolVersion": MODERN}))
    check("_meta without clientCapabilities: -32602", code(r) == -32602, r)
    r = ask(req(6, "tools/list", meta={**META, "io.modelcontextprotocol/clientCapabilities": []}))
    check("clientCapabilities not an object: -32602", code(r) == -32602, r)
    r = ask(req(7, "tools/list", meta={**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}))
    check("an unknown version: -32022 with data {supported, requested}",
          code(r) == -32022 and r["error"]["data"] == {"supported": [MODERN, LEGACY], "requested": "2099-01-01"}, r)
    uart.send(b'{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{"_meta":'
              b'{"io.modelcontextprotocol/protocolVersion":"2099-\\u00301-01"}}}')
    r = uart.read()
    check("-32022's data.requested is the version as sent (escapes kept)",
          code(r) == -32022 and r["error"]["data"]["requested"] == "2099-01-01", r)
    r = ask(req(9, "tools/list", meta={**META, "io.modelcontextprotocol/protocolVersion": 20260728}))
    check("a protocolVersion that is not a string: -32602", code(r) == -32602, r)
    r = ask(req(10, "ping"))
    check("ping under 2026-07-28 (removed there): -32601", code(r) == -32601, r)
    r = ask(req(11, "tools/list", {"cursor": "x"}))
    check("tools/list with a cursor never given: -32602", code(r) == -32602, r)
    r = ask(req(12, "tools/call", {"name": "read_sensor", "arguments": [1]}))
    check("tools/call with arguments not an object: -32602", code(r) == -32602, r)
    r = ask(req(13, "tools/call", {"arguments": {}}))
    check("tools/call without a name: -32602", code(r) == -32602, r)
    r = ask(req(14, "tools/call", {"name": "read_sensor", "arguments": {"channel": "1"}}))
    check("read_sensor with channel \"1\": a result with isError (and resultType)",
          r["result"]["isError"] is True and r["result"]["resultType"] == "complete", r)
    r = ask(req(15, "tools/call", {"name": "read_sensor", "arguments": {"channel": 2.0}}))
    check("read_sensor with channel 2.0 (an integer to JSON Schema): channel 2",
          r["result"]["isError"] is False and r["result"]["structuredContent"]["channel"] == 2, r)
    uart.send(b'{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"read_sensor",'
              b'"arguments":{"channel":1,"channel":2},"_meta":' + json.dumps(META).encode() + b"}}")
    r = uart.read()
    check("an argument given twice: isError", r["result"]["isError"] is True
          and "given twice" in r["result"]["content"][0]["text"], r)

    # Progress: the token comes back as sent, byte for byte, on every notification.
    for n, token in enumerate([b'"tok-\\u00e9\\"x"', b"7", b"-1.5e3"]):
        uart.send(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sample",'
                  b'"arguments":{"count":3},"_meta":{"progressToken":%s,%s}}}'
                  % (20 + n, token, json.dumps(META).encode()[1:-1]))
        got = [uart.read() for _ in range(4)]
        notes = [m for m in got if m.get("method") == "notifications/progress"]
        want = json.loads(token)
        check(f"sample with progressToken {token.decode()}: 3 notifications, then the result",
              [(m["params"]["progressToken"], m["params"]["progress"], m["params"]["total"]) for m in notes]
              == [(want, i, 3) for i in (1, 2, 3)] and got[3].get("id") == 20 + n, got)
    r = ask(req(23, "tools/call", {"name": "sample", "arguments": {"count": 1}},
                meta={**META, "progressToken": {"not": "a token"}}))
    check("a progress token that is neither string nor number: no progress, the result",
          r.get("id") == 23 and r["result"]["structuredContent"]["count"] == 1, r)

    # No reply to notifications; batches refused whole.
    uart.send({"jsonrpc": "2.0", "method": "tools/call",
               "params": {"name": "set_led", "arguments": {"on": True}, "_meta": META}})
    uart.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    r = ask(req(24, "tools/list"))
    check("notifications (tools/call without id, notifications/cancelled): no reply", r.get("id") == 24, r)
    uart.send(json.dumps([req(25, "server/discover"), req(26, "server/discover")]).encode())
    r = uart.read()
    probe = ask(req(27, "tools/list"))
    check("a batch (removed from MCP in 2025-06-18): one -32600 with id null, nothing else",
          code(r) == -32600 and r.get("id") is None and probe.get("id") == 27, (r, probe))

    r = ask(req(None, "tools/list"))
    check("a request with id null (MCP: never null): -32600", code(r) == -32600 and r.get("id") is None, r)

    # The largest reply with the longest id taken; one byte more is refused.
    long_id = "i" * 62  # 64 bytes of JSON with its quotes
    r = ask(req(long_id, "tools/list"))
    check("tools/list with a 64-byte id (the longest taken): the whole list, the id echoed",
          r.get("id") == long_id and len(r["result"]["tools"]) == 3, r)
    r = ask(req(long_id + "i", "tools/list"))
    check("a 65-byte id: -32600", code(r) == -32600, r)

    # 2025-11-25.
    r = ask({"jsonrpc": "2.0", "id": 30, "method": "initialize", "params": {"capabilities": {}}})
    check("initialize without protocolVersion: -32602", code(r) == -32602, r)
    r = ask({"jsonrpc": "2.0", "id": 31, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "transcript", "version": "0"}}})
    check("initialize offering 2025-06-18: answered with 2025-11-25 (the one served), tools, serverInfo",
          r["result"]["protocolVersion"] == LEGACY and "tools" in r["result"]["capabilities"]
          and r["result"]["serverInfo"]["name"] == "jsonrpc-slice-firmware", r)
    uart.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    r = ask(req(32, "ping", meta=None))
    check("ping (2025-11-25): {}, and notifications/initialized got no reply", r == {"jsonrpc": "2.0", "result": {}, "id": 32}, r)
    r = ask(req(33, "tools/list", meta=None))
    check("after initialize, tools/list without _meta: the tools", [t["name"] for t in r["result"]["tools"]] == TOOLS, r)
    r = ask(req(34, "tools/call", {"name": "set_led", "arguments": {"on": True}}, meta=None))
    check("after initialize, tools/call without _meta: served", r["result"]["structuredContent"] == {"on": 1}, r)
    r = ask(req(35, "server/discover", meta=None))
    check("server/discover without _meta, after initialize: -32602", code(r) == -32602, r)
    r = ask(req(36, "tools/list"))
    check("a 2026-07-28 request after initialize: served as 2026-07-28", r["result"]["resultType"] == "complete", r)

    # The last request before `stats`, whose instructions `stats` reports (budget.sh).
    r = ask(req(37, "tools/call", {"name": "set_led", "arguments": {"on": False}}))
    check("set_led off (2026-07-28)", r["result"]["structuredContent"] == {"on": 0}, r)
    r = ask(req("stats", "stats", meta=None))
    stats = r.get("result", {})
    check("stats: the stack peak, within the stack", 0 < stats.get("stack_peak_bytes", 0) < stats.get("stack_size_bytes", 0), r)
    with open(stats_out, "w") as f:
        json.dump(stats, f)
    r = ask(req("bye", "shutdown", meta=None))
    try:
        status = uart.p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        uart.p.kill()
        status = "still running after 15 s"
    check("shutdown: bye, then QEMU exits 0", r.get("result") == "bye" and status == 0, (r, status))
    print(f"stats: {json.dumps(stats)}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qemu", required=True, help="the QEMU command line up to -serial")
    ap.add_argument("--elf", required=True)
    ap.add_argument("--stats-out", required=True)
    a = ap.parse_args()
    qemu = shlex.split(a.qemu) + ["-serial", "stdio", "-kernel", a.elf]
    print(f"mcp {__import__('importlib.metadata').metadata.version('mcp')}; server: {' '.join(qemu)}", flush=True)
    try:
        anyio.run(sdk_checks, qemu)
    except BaseException as e:  # a crash is a failed check, not a lost summary
        check("SDK checks ran to the end", False, repr(e))
    try:
        transcript(qemu, a.stats_out)
    except Exception as e:
        check("transcript ran to the end", False, repr(e))
    print(f"{passed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed else 0)


main()
