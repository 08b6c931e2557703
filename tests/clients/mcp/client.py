"""The MCP server example (examples/mcp-server.rs) driven by the official Python MCP SDK
(`mcp` on PyPI) over stdio, plus a few raw checks of the stdio transport itself; with a
URL, over Streamable HTTP too; each transport at 2025-11-25 (the initialize handshake)
and at 2026-07-28 (stateless: `server/discover`, every request with its `_meta`).

    python client.py <path to the mcp-server binary> <crate version> [http://ADDR/mcp]

Prints one line per check (`ok - ...` or `FAIL - ...: why`), then `N passed, N failed`;
exits 1 if any check failed. Run by tests/clients/mcp/run.sh.
"""

import json
import logging
import subprocess
import sys
from importlib.metadata import version as installed

import anyio
import mcp.types as types
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

SERVER, CRATE_VERSION = sys.argv[1], sys.argv[2]
URL = sys.argv[3] if len(sys.argv) > 3 else None
TIMEOUT = 20  # seconds per check
HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]

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
    """Every warning or error the SDK logs (a message it could not parse or validate...),
    and every response it dropped for matching no request (logged at debug level: a
    reply to a notification would be one): a session with the server must have none."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        message = record.getMessage()
        if record.levelno >= logging.WARNING or message.startswith("dropping response"):
            self.records.append(f"{record.name}: {message}")


sdk_complaints = Complaints()
logging.getLogger().addHandler(sdk_complaints)
logging.getLogger("mcp.shared.jsonrpc_dispatcher").setLevel(logging.DEBUG)


def text_of(result):
    return "".join(c.text for c in result.content if c.type == "text")


# ---------------------------------------------------------------------------------------
# Raw stdio: the transport as the MCP spec words it, without the SDK in between.


def raw(lines):
    """Runs the server on `lines` (each one JSON message); returns (status, replies as
    dicts, stdout, stderr)."""
    stdin = "".join(json.dumps(m) + "\n" for m in lines)
    p = subprocess.run([SERVER], input=stdin.encode(), capture_output=True, timeout=TIMEOUT)
    out = p.stdout.decode()
    replies = [json.loads(line) for line in out.splitlines()]
    return p.returncode, replies, out, p.stderr.decode()


def raw_checks():
    status, replies, out, err = raw([])
    check("stdio: exits 0 when stdin closes, having written nothing", status == 0 and out == "",
          f"status {status}, stdout {out!r}")

    def init(v):
        params = {"capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
        if v is not None:
            params["protocolVersion"] = v
        return {"jsonrpc": "2.0", "id": v or "none", "method": "initialize", "params": params}

    asked = HANDSHAKE_VERSIONS + ["2026-07-28", "1.0"]
    status, replies, out, err = raw([init(v) for v in asked])
    # Replies may come in any order (several requests are in flight): matched by id.
    got = {r["id"]: r.get("result", {}).get("protocolVersion") for r in replies}
    want = dict(zip(asked, HANDSHAKE_VERSIONS + ["2025-11-25", "2025-11-25"]))
    check("initialize: each known protocolVersion is answered as asked, any other with 2025-11-25",
          got == want and len(replies) == len(asked), f"got {got}")
    status, replies, out, err = raw([{"jsonrpc": "2.0", "id": 1, "method": "initialize"}])
    check("initialize: params absent is answered with 2025-11-25",
          replies and replies[0].get("result", {}).get("protocolVersion") == "2025-11-25", out)

    n = lambda method, **params: {"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})}
    r = lambda id, method: {"jsonrpc": "2.0", "id": id, "method": method}
    session = [
        init("2025-11-25"),
        n("notifications/initialized"),
        r(1, "ping"),
        n("notifications/cancelled", requestId=99, reason="never sent"),
        n("notifications/no-such-thing", x=1),
        n("no-such-method"),
        n("ping"),
        n("tools/call", name="countdown", arguments={"n": 2}, _meta={"progressToken": 1}),
        r("two", "tools/list"),
        r(3, "no/such/method"),
    ]
    status, replies, out, err = raw(session)
    ids = sorted(json.dumps(m.get("id")) for m in replies)
    by_id = {json.dumps(m.get("id")): m for m in replies}
    check("notifications (initialized, cancelled, unknown ones, known methods sent as notifications) "
          "get no reply and start no progress",
          ids == sorted(json.dumps(i) for i in ["2025-11-25", 1, "two", 3]), f"replies: {out}")
    check("ping and tools/list with params absent are answered ({} and the tools)",
          len(replies) == 4 and by_id.get("1", {}).get("result") == {}
          and len(by_id.get('"two"', {}).get("result", {}).get("tools", [])) >= 3, out)
    check("an unknown request gets -32601",
          len(replies) == 4 and by_id.get("3", {}).get("error", {}).get("code") == -32601, out)
    check("stdout holds one JSON-RPC 2.0 message per line and nothing else; logs go to stderr",
          status == 0 and out.endswith("\n") and all(m.get("jsonrpc") == "2.0" for m in replies)
          and "mcp-server" in err and "mcp-server" not in out,
          f"status {status}, stderr {err!r}")


# ---------------------------------------------------------------------------------------
# The SDK's stdio client.


async def sdk_checks():
    notifications = []

    async def on_message(message):
        notifications.append(message)

    params = StdioServerParameters(command=SERVER)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            with anyio.fail_after(TIMEOUT):
                init = await session.initialize()
            caps = init.capabilities.model_dump(by_alias=True, exclude_none=True)
            check("handshake: initialize negotiates 2025-11-25 (the SDK's offer)",
                  init.protocol_version == "2025-11-25" and session.protocol_version == "2025-11-25",
                  init.protocol_version)
            check("handshake: capabilities: tools, resources (subscribe), prompts, logging, completions",
                  caps == {"tools": {"listChanged": False}, "resources": {"subscribe": True, "listChanged": False},
                           "prompts": {"listChanged": False}, "logging": {}, "completions": {}}, caps)
            check("handshake: serverInfo is jsonrpc-slice-mcp at the crate's version",
                  init.server_info.name == "jsonrpc-slice-mcp" and init.server_info.version == CRATE_VERSION,
                  init.server_info)

            with anyio.fail_after(TIMEOUT):
                pong = await session.send_ping()
            check("ping answers {}", isinstance(pong, types.EmptyResult), pong)

            with anyio.fail_after(TIMEOUT):
                listed = await session.list_tools()
            tools = {t.name: t for t in listed.tools}
            check("tools/list: add, echo and countdown first, in that order",
                  [t.name for t in listed.tools][:3] == ["add", "echo", "countdown"], list(tools))
            props = lambda name: tools[name].input_schema["properties"]
            pick = lambda schema: {k: schema.get(k) for k in ("type", "minimum", "maximum")}
            schemas_ok = (
                {k: v["type"] for k, v in props("add").items()} == {"a": "integer", "b": "integer"}
                and tools["add"].input_schema["required"] == ["a", "b"]
                and tools["add"].output_schema["properties"]["sum"]["type"] == "integer"
                and props("echo")["text"]["type"] == "string"
                and pick(props("countdown")["n"]) == {"type": "integer", "minimum": 0, "maximum": 100}
                and pick(props("countdown")["delay_ms"])["maximum"] == 60000
                and all(t.input_schema["type"] == "object" for t in listed.tools)
                and listed.next_cursor is None
            )
            check("tools/list: each inputSchema is the JSON Schema of its arguments", schemas_ok,
                  [t.input_schema for t in listed.tools])

            async def call(name, arguments, **kw):
                with anyio.fail_after(TIMEOUT):
                    return await session.call_tool(name, arguments, **kw)

            sums = [((2, 3), "5"), ((-7, 9007199254740993), "9007199254740986"),
                    ((9223372036854775807, 9223372036854775807), "18446744073709551614")]
            got = []
            for (a, b), _ in sums:
                res = await call("add", {"a": a, "b": b})
                got.append((text_of(res), res.is_error))
            check("add: a + b as text (small, beyond 2^53, beyond i64)",
                  got == [(want, False) for _, want in sums], got)
            bad = [({"a": 1}, "`b`"), ({"b": 1}, "`a`"), ({"a": "1", "b": 2}, "`a`"),
                   ({"a": 1, "b": 2.5}, "`b`"), ({"a": None, "b": 2}, "`a`")]
            got = []
            for args, name in bad:
                res = await call("add", args)
                got.append(res.is_error is True and name in text_of(res))
            check("add: a missing or non-integer argument is a result with isError, naming it",
                  all(got), got)

            texts = ["hello", "", 'quote " backslash \\ slash / ', "line1\nline2\r\n\ttab\b\f",
                     "caf\u00e9 \u2603 \U0001F600 \u2028\u2029", "\u0000\u0001\u001f\u007f", "x" * 20000]
            got = []
            for t in texts:
                res = await call("echo", {"text": t})
                got.append(text_of(res) == t and not res.is_error)
            check("echo: the text back exactly (escapes, controls, unicode, newlines, 20 kB)",
                  all(got), got)

            progress = []

            async def on_progress(p, total, message):
                progress.append((p, total))

            notifications.clear()
            res = await call("countdown", {"n": 5}, progress_callback=on_progress)
            check("countdown: 5 progress callbacks (progress 1..5, total 5) before the result `done`",
                  progress == [(i, 5) for i in range(1, 6)] and text_of(res) == "done", progress)
            tokens = [m.params.progress_token for m in notifications if isinstance(m, types.ProgressNotification)]
            check("countdown: the SDK's integer progress token comes back an integer",
                  len(tokens) == 5 and all(type(t) is int for t in tokens) and len(set(tokens)) == 1, tokens)

            notifications.clear()
            res = await call("countdown", {"n": 3}, meta={"progressToken": "tok-\u00e9\"x"})
            seen = [(m.params.progress_token, m.params.progress, m.params.total)
                    for m in notifications if isinstance(m, types.ProgressNotification)]
            check("countdown: a string progress token comes back the same string",
                  seen == [("tok-\u00e9\"x", i, 3) for i in (1, 2, 3)] and text_of(res) == "done", seen)

            progress.clear()
            res = await call("countdown", {"n": 0}, progress_callback=on_progress)
            res_none = await call("countdown", {"n": 2})
            res_big = await call("countdown", {"n": 101}, progress_callback=on_progress)
            check("countdown: n = 0 sends no progress; no token, no progress; n = 101 is isError naming n",
                  progress == [] and text_of(res) == "done" and text_of(res_none) == "done"
                  and res_big.is_error and "`n`" in text_of(res_big), (progress, text_of(res_big)))

            # Requests in flight: a ping sent while a slow countdown runs (50 steps of
            # 200 ms) is answered while it still runs; the countdown, abandoned, makes the
            # SDK send notifications/cancelled, and the server never answers it (a reply
            # would reach the SDK as a response to no request: see `Complaints`).
            steps = []
            first_step = anyio.Event()

            async def on_step(p, total, message):
                steps.append(p)
                first_step.set()

            outcome = {}

            async def slow(scope):
                with scope:
                    outcome["result"] = await session.call_tool(
                        "countdown", {"n": 50, "delay_ms": 200}, progress_callback=on_step)

            scope = anyio.CancelScope()
            async with anyio.create_task_group() as tg:
                tg.start_soon(slow, scope)
                with anyio.fail_after(TIMEOUT):
                    await first_step.wait()
                    pong = await session.send_ping()
                check("a ping sent during a slow countdown is answered while the countdown runs",
                      isinstance(pong, types.EmptyResult) and "result" not in outcome and len(steps) < 50,
                      (pong, outcome, steps))
                scope.cancel()
            with anyio.fail_after(TIMEOUT):
                await session.send_ping()
            check("the cancelled countdown stopped: no result, no further progress",
                  "result" not in outcome and len(steps) < 50, (outcome, steps))

            # Never a reply to a cancelled request, with the server's own clock as the
            # signal (no sleep): a countdown of 2 steps of 300 ms is cancelled after its
            # first step, then one of 3 steps of 300 ms runs to its end. Had the server
            # not stopped the first, its reply (due 300 ms after the cancellation) would
            # come before the second's, and the SDK would drop it as matching no request.
            short_step = anyio.Event()

            async def on_short_step(p, total, message):
                short_step.set()

            short = {}

            async def short_call(scope):
                with scope:
                    short["result"] = await session.call_tool(
                        "countdown", {"n": 2, "delay_ms": 300}, progress_callback=on_short_step)

            scope = anyio.CancelScope()
            async with anyio.create_task_group() as tg:
                tg.start_soon(short_call, scope)
                with anyio.fail_after(TIMEOUT):
                    await short_step.wait()
                scope.cancel()
            before = list(sdk_complaints.records)
            with anyio.fail_after(TIMEOUT):
                clock = await session.call_tool("countdown", {"n": 3, "delay_ms": 300})
            check("a cancelled countdown is never answered: nothing came for it before a longer "
                  "countdown, started after the cancellation, ended",
                  text_of(clock) == "done" and "result" not in short
                  and sdk_complaints.records == before, (short, sdk_complaints.records[len(before):]))

            try:
                res = await call("no_such_tool", {})
                check("an unknown tool is a JSON-RPC error -32602 naming the tool", False, f"result {res}")
            except MCPError as e:
                check("an unknown tool is a JSON-RPC error -32602 naming the tool",
                      e.error.code == -32602 and "no_such_tool" in e.error.message, e.error)

            with anyio.fail_after(TIMEOUT):
                res = await session.list_resources()
            check("resources/list: the conformance fixtures",
                  [str(r.uri) for r in res.resources]
                  == ["test://static-text", "test://static-binary", "test://watched-resource"], res)

            # Notifications the server has no handler for: never answered (an answer
            # would reach the SDK as a response to no request: see `Complaints`).
            await session.send_notification(types.CancelledNotification(
                params=types.CancelledNotificationParams(request_id=12345, reason="done already")))
            await session.send_notification(types.RootsListChangedNotification())
            with anyio.fail_after(TIMEOUT):
                await session.send_ping()
            check("notifications/cancelled and an unknown notification: no reply, the session goes on", True)

    check("the SDK logged no warning or error, and dropped no response as matching no request",
          sdk_complaints.records == [], sdk_complaints.records)

    # The SDK's high-level client, as its README shows it: mode 'auto' probes
    # `server/discover` and speaks 2026-07-28; mode 'legacy' does the handshake.
    await client_checks("stdio", lambda mode, on: Client(StdioServerParameters(command=SERVER), mode=mode,
                                                         message_handler=on))
    if URL:
        await client_checks("http", lambda mode, on: Client(URL, mode=mode, message_handler=on))


async def client_checks(over, connect):
    """One session at each revision through the SDK's `Client`."""
    for mode, version in (("legacy", "2025-11-25"), ("auto", "2026-07-28")):
        name = f"{over}, Client(mode={mode!r})"
        updated = anyio.Event()

        async def on_message(message):
            if isinstance(message, types.ResourceUpdatedNotification) \
                    and str(message.params.uri) == "test://watched-resource":
                updated.set()

        try:
            with anyio.fail_after(TIMEOUT * 2):
                async with connect(mode, on_message) as client:
                    got_version = client.protocol_version
                    if mode == "legacy":
                        # Subscribed, the resource changed: the server's word comes on
                        # its own (over HTTP, on the session's GET stream).
                        await client.subscribe_resource("test://watched-resource")
                        told = await client.call_tool("update_watched_resource", {"text": "new"})
                        with anyio.fail_after(TIMEOUT):
                            await updated.wait()
                        reread = await client.read_resource("test://watched-resource")
                        check(f"{name}: resources/subscribe, then notifications/resources/updated "
                              "when update_watched_resource changes it; the new text read back",
                              text_of(told) == "updated; 1 subscribers told"
                              and reread.contents[0].text == "new", (told, reread))
                    added = await client.call_tool("add", {"a": 2, "b": 40})
                    echoed = await client.call_tool("echo", {"text": "caf\u00e9 \"q\" \n"})
                    progress = []

                    async def on_progress(p, total, message):
                        progress.append((p, total))

                    counted = await client.call_tool("countdown", {"n": 3}, progress_callback=on_progress)
                    tools = await client.list_tools()
                    # `region` is marked x-mcp-header: over HTTP at 2026-07-28 the SDK
                    # mirrors it in Mcp-Param-Region (base64: it is not ASCII), which the
                    # server checks against the body.
                    looked = await client.call_tool("lookup", {"region": "z\u00fcrich-1", "query": "q"})
                    read = await client.read_resource("test://static-text")
                    prompt = await client.get_prompt("test_simple_prompt")
                    try:
                        await client.call_tool("nope", {})
                        unknown = None
                    except MCPError as e:
                        unknown = e.error.code
            check(f"{name}: speaks {version}", got_version == version, got_version)
            check(f"{name}: add (text and structuredContent), echo, countdown with 3 progress",
                  (text_of(added), added.structured_content, text_of(echoed), text_of(counted), progress)
                  == ("42", {"sum": 42}, "caf\u00e9 \"q\" \n", "done", [(1, 3), (2, 3), (3, 3)]),
                  (text_of(added), added.structured_content, text_of(echoed), text_of(counted), progress))
            check(f"{name}: lookup (a header-mirrored argument)",
                  text_of(looked) == "would run in \"z\u00fcrich-1\"" and not looked.is_error, looked)
            check(f"{name}: tools/list, resources/read, prompts/get, an unknown tool -32602",
                  [t.name for t in tools.tools][:3] == ["add", "echo", "countdown"]
                  and read.contents[0].text == "This is the content of the static text resource."
                  and prompt.messages[0].content.text == "This is a simple prompt for testing."
                  and unknown == -32602, (tools, read, prompt, unknown))
        except BaseException as e:
            check(f"{name}: the session ran to the end", False, repr(e))


def main():
    print(f"mcp {installed('mcp')}, server {SERVER}", flush=True)
    try:
        raw_checks()
    except Exception as e:  # a crash is a failed check, not a lost summary
        check("raw stdio checks ran to the end", False, repr(e))
    try:
        anyio.run(sdk_checks)
    except BaseException as e:
        check("SDK checks ran to the end", False, repr(e))
    print(f"{passed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed else 0)


main()
