"""The `lsp-server` example driven by pygls's language client (tests/clients/lsp/run.sh).

    python check.py <path to the lsp-server binary>

Prints one line per check, then `N passed, N failed`; exits 1 on any failure. Every
message the server sends is also kept as the raw JSON the client parsed (before
pygls turns it into lsprotocol types), so that the checks see exactly the fields the
server wrote.
"""

import asyncio
import copy
import json
import sys

from importlib.metadata import version

from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

SERVER = sys.argv[1]
NAME = "jsonrpc-slice-lsp"
URI = "file:///tmp/caf%C3%A9/notes.txt"
TIMEOUT = 20

passed = failed = 0
# The publishDiagnostics params as pygls hands them to a client's handler.
TYPED = []


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}{': ' + detail if detail else ''}")


class Recording(LanguageServerProtocol):
    """Keeps each message the server sends, raw, before pygls structures it."""

    raw = []

    def structure_message(self, data):
        if "jsonrpc" in data:
            Recording.raw.append(copy.deepcopy(data))
        return super().structure_message(data)


def units(s, utf8):
    """The length of `s` in the negotiated encoding."""
    return len(s.encode("utf-8")) if utf8 else len(s.encode("utf-16-le")) // 2


def expected_diagnostics(text, utf8):
    """What the server must publish for `text`, computed independently."""
    out = []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for n, line in enumerate(lines):
        at = line.find("TODO")
        while at >= 0:
            col = units(line[:at], utf8)
            out.append({
                "range": {"start": {"line": n, "character": col},
                          "end": {"line": n, "character": col + 4}},
                "severity": 2,
                "source": NAME,
                "message": f"TODO on line {n + 1}",
            })
            at = line.find("TODO", at + 4)
    return out


def raw_diagnostics(since, uri):
    """The raw publishDiagnostics params for `uri` received after index `since`."""
    return [m["params"] for m in Recording.raw[since:]
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]


async def wait_for(pred, what):
    for _ in range(TIMEOUT * 100):
        if pred():
            return True
        await asyncio.sleep(0.01)
    print(f"  (timed out waiting for {what})")
    return False


async def publish(client, send, uri, what):
    """Sends a notification, waits for the diagnostics it makes, returns their raw list."""
    since = len(Recording.raw)
    send()
    await wait_for(lambda: raw_diagnostics(since, uri), what)
    got = raw_diagnostics(since, uri)
    return got[0]["diagnostics"] if got else None


def last_raw_reply():
    return next((m for m in reversed(Recording.raw) if "id" in m and "method" not in m), None)


async def error_of(coro):
    try:
        await coro
    except JsonRpcException as e:
        return e
    return None


def hover_params(uri, line, character):
    return t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri),
                         position=t.Position(line=line, character=character))


async def start(encodings):
    client = LanguageClient("jsonrpc-slice-check", "1", protocol_cls=Recording)
    client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda params: TYPED.append(params))
    await client.start_io(SERVER)
    general = t.GeneralClientCapabilities(position_encodings=encodings) if encodings else None
    params = t.InitializeParams(capabilities=t.ClientCapabilities(general=general),
                                process_id=None, root_uri=None)
    return client, params


async def exit_code(client):
    client.exit(None)
    try:
        return await asyncio.wait_for(client._server.wait(), TIMEOUT)
    except asyncio.TimeoutError:
        client._server.kill()
        return "still running"


# A document with non-ASCII text before its TODOs (two-unit emoji in UTF-16, 4 bytes in
# UTF-8), escapes on the wire (quotes, backslashes, tabs), and all three line ends.
TEXT = ('caf\u00e9 \U0001F600 TODO: a "quoted" \\ TODOs\tTODO\n'
        'na\u00efve_word \u65e5\u672c TODO\r\n'
        'no todo here\r'
        '\u00e9TODO\u00e9 end')


async def session_utf16():
    client, params = await start(None)
    result = await asyncio.wait_for(client.initialize_async(params), TIMEOUT)
    raw = last_raw_reply()["result"]
    check("initialize: positionEncoding utf-16 when the client lists no encodings",
          raw["capabilities"].get("positionEncoding") == "utf-16", json.dumps(raw))
    check("initialize: exactly positionEncoding, textDocumentSync 1 (full), hoverProvider true",
          raw["capabilities"] == {"positionEncoding": "utf-16", "textDocumentSync": 1, "hoverProvider": True},
          json.dumps(raw["capabilities"]))
    check("initialize: serverInfo is exactly {name}", raw.get("serverInfo") == {"name": NAME}
          and set(raw) == {"capabilities", "serverInfo"}, json.dumps(raw))
    check("initialize: pygls reads the result (server_info.name, text_document_sync FULL)",
          result.server_info.name == NAME and result.capabilities.text_document_sync == t.TextDocumentSyncKind.Full)
    client.initialized(t.InitializedParams())

    diags = await publish(client, lambda: client.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=URI, language_id="plaintext", version=1, text=TEXT))),
        URI, "didOpen diagnostics")
    want = expected_diagnostics(TEXT, utf8=False)
    check("didOpen: one diagnostic per TODO after non-ASCII text, UTF-16 columns",
          diags == want, f"got {json.dumps(diags)}\n  want {json.dumps(want)}")
    check("didOpen: 5 TODOs found (TODOs counts once; lines end in \\n, \\r\\n, \\r)", diags is not None and len(diags) == 5,
          str(diags and len(diags)))
    check("diagnostics: each has exactly range, severity, source, message",
          diags is not None and all(set(d) == {"range", "severity", "source", "message"} for d in diags))
    typed = TYPED[-1] if TYPED else None
    check("diagnostics: pygls reads them (PublishDiagnosticsParams, severity Warning)",
          typed is not None and typed.uri == URI and len(typed.diagnostics) == 5
          and all(d.severity == t.DiagnosticSeverity.Warning for d in typed.diagnostics), repr(typed))

    h = await client.text_document_hover_async(hover_params(URI, 1, 3))
    raw = last_raw_reply()["result"]
    start_col = 0
    end_col = units("na\u00efve_word", False)
    check("hover on a non-ASCII word: markdown `word` and its range",
          raw == {"contents": {"kind": "markdown", "value": "`na\u00efve_word`"},
                  "range": {"start": {"line": 1, "character": start_col}, "end": {"line": 1, "character": end_col}}},
          json.dumps(raw))
    check("hover: pygls reads MarkupContent", isinstance(h.contents, t.MarkupContent)
          and h.contents.value == "`na\u00efve_word`")
    # Line 1 is "naïve_word 日本 TODO": 日本 at UTF-16 column 11.
    await client.text_document_hover_async(hover_params(URI, 1, 12))
    raw = last_raw_reply()["result"]
    check("hover on CJK word (non-ASCII alphanumerics), range in UTF-16 units",
          raw is not None and raw["contents"]["value"] == "`\u65e5\u672c`" and raw["range"]["start"]["character"] == 11
          and raw["range"]["end"]["character"] == 13, json.dumps(raw))
    # Line 0: "café 😀 TODO..." the emoji is at UTF-16 column 5..7; TODO at 8.
    await client.text_document_hover_async(hover_params(URI, 0, 9))
    raw = last_raw_reply()["result"]
    check("hover after an emoji: columns count UTF-16 code units",
          raw is not None and raw["contents"]["value"] == "`TODO`" and raw["range"]["start"]["character"] == 8,
          json.dumps(raw))
    h = await client.text_document_hover_async(hover_params(URI, 0, 4))
    check("hover off a word (a space): null", h is None and last_raw_reply()["result"] is None,
          json.dumps(last_raw_reply()))
    h = await client.text_document_hover_async(hover_params(URI, 99, 0))
    check("hover past the last line: null", h is None)
    e = await error_of(client.text_document_hover_async(hover_params("file:///not/open.txt", 0, 0)))
    check("hover on a document not open: -32602 naming the uri",
          e is not None and e.code == -32602 and "file:///not/open.txt" in e.message, repr(e))
    raw = last_raw_reply()
    check("that error on the wire: exactly code and message, and the request's id",
          raw.get("error") == {"code": -32602, "message": "document not open: file:///not/open.txt"}
          and isinstance(raw.get("id"), str) and set(raw) == {"jsonrpc", "error", "id"}, json.dumps(raw))

    # Requests in flight: `jsonrpc-slice/wait` stays pending until it is released or
    # cancelled; a hover is answered meanwhile, then the cancellation is, -32800.
    waiting = client.protocol.send_request_async("jsonrpc-slice/wait", {}, msg_id="wait-1")
    h = await asyncio.wait_for(client.text_document_hover_async(hover_params(URI, 1, 3)), TIMEOUT)
    check("a hover is answered while jsonrpc-slice/wait is pending",
          h is not None and h.contents.value == "`na\u00efve_word`" and not waiting.done(), repr(h))
    client.protocol.notify("$/cancelRequest", t.CancelParams(id="wait-1"))
    e = await error_of(asyncio.wait_for(waiting, TIMEOUT))
    check("$/cancelRequest: the pending request is answered -32800",
          e is not None and getattr(e, "code", None) == -32800, repr(e))
    raw = next((m for m in Recording.raw if m.get("id") == "wait-1"), None)
    check("that reply on the wire: exactly code -32800, its message and the request's id",
          raw == {"jsonrpc": "2.0", "error": {"code": -32800, "message": "Request cancelled"}, "id": "wait-1"},
          json.dumps(raw))
    waiting = client.protocol.send_request_async("jsonrpc-slice/wait", {}, msg_id="wait-2")
    client.protocol.notify("jsonrpc-slice/release", {})
    result = await asyncio.wait_for(waiting, TIMEOUT)
    check("jsonrpc-slice/release: the pending wait answers null", result is None, repr(result))

    new_text = "\u00e9\u00e9\u00e9 TODO\n\U0001F600TODO"
    diags = await publish(client, lambda: client.text_document_did_change(t.DidChangeTextDocumentParams(
        text_document=t.VersionedTextDocumentIdentifier(uri=URI, version=2),
        content_changes=[t.TextDocumentContentChangeWholeDocument(text=new_text)])), URI, "didChange diagnostics")
    check("didChange: diagnostics of the new text", diags == expected_diagnostics(new_text, False), json.dumps(diags))
    await client.text_document_hover_async(hover_params(URI, 1, 3))
    raw = last_raw_reply()["result"]
    check("hover after didChange sees the new text",
          raw is not None and raw["contents"]["value"] == "`TODO`", json.dumps(raw))

    # Notifications that must be ignored, then a request: the next message is its reply.
    since = len(Recording.raw)
    client.protocol.notify("$/cancelRequest", t.CancelParams(id="nothing-pending"))
    client.protocol.notify("$/setTrace", t.SetTraceParams(value=t.TraceValue.Verbose))
    client.protocol.notify("custom/unknownNotification", {"x": 1})
    e = await error_of(client.protocol.send_request_async("custom/unknownRequest", {"x": 1}))
    check("unknown request: -32601", e is not None and e.code == -32601, repr(e))
    check("$/cancelRequest, $/setTrace, unknown notification: no reply",
          len(Recording.raw) - since == 1, json.dumps(Recording.raw[since:]))

    # A frame of exactly 8 MiB: a didOpen whose text fills it, TODOs at both ends.
    big_uri = "file:///tmp/big.txt"
    n = 8 << 20
    def body(text):
        msg = client.protocol.get_message_type("textDocument/didOpen")(
            method="textDocument/didOpen", jsonrpc="2.0",
            params=t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
                uri=big_uri, language_id="plaintext", version=1, text=text)))
        return json.dumps(msg, default=client.protocol._serialize_message).encode()
    escaped = len(json.dumps("\u00e9TODO\n\nTODO")) - 2
    filler = n - len(body("")) - escaped
    big = "\u00e9TODO\n" + "x" * filler + "\nTODO"
    size = len(body(big))
    diags = await publish(client, lambda: client.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=big_uri, language_id="plaintext", version=1, text=big))),
        big_uri, "8 MiB didOpen diagnostics")
    check(f"a frame of {size} bytes (8 MiB = {n}): its diagnostics",
          size == n and diags == expected_diagnostics(big, False), f"size {size}, {json.dumps(diags)[:300]}")

    diags = await publish(client, lambda: client.text_document_did_close(t.DidCloseTextDocumentParams(
        text_document=t.TextDocumentIdentifier(uri=URI))), URI, "didClose diagnostics")
    check("didClose: an empty list for that uri", diags == [], json.dumps(diags))
    e = await error_of(client.text_document_hover_async(hover_params(URI, 0, 0)))
    check("hover after didClose: -32602", e is not None and e.code == -32602, repr(e))

    result = await client.shutdown_async(None)
    raw = last_raw_reply()
    check("shutdown: result null", result is None and "result" in raw and raw["result"] is None, json.dumps(raw))
    e = await error_of(client.text_document_hover_async(hover_params(big_uri, 0, 1)))
    check("a request after shutdown: -32600", e is not None and e.code == -32600, repr(e))
    e = await error_of(client.protocol.send_request_async("custom/unknownRequest", {}))
    check("an unknown request after shutdown: -32600", e is not None and e.code == -32600, repr(e))
    code = await exit_code(client)
    check("exit after shutdown: the process exits 0", code == 0, str(code))
    await client.stop()


async def session_utf8():
    client, params = await start([t.PositionEncodingKind.Utf8, t.PositionEncodingKind.Utf16])
    e = await error_of(client.text_document_hover_async(hover_params(URI, 0, 0)))
    check("a request before initialize: -32002", e is not None and e.code == -32002, repr(e))
    await asyncio.wait_for(client.initialize_async(params), TIMEOUT)
    raw = last_raw_reply()["result"]
    check("initialize: positionEncoding utf-8 when the client lists it",
          raw["capabilities"].get("positionEncoding") == "utf-8", json.dumps(raw))
    client.initialized(t.InitializedParams())
    diags = await publish(client, lambda: client.text_document_did_open(t.DidOpenTextDocumentParams(
        text_document=t.TextDocumentItem(uri=URI, language_id="plaintext", version=1, text=TEXT))),
        URI, "didOpen diagnostics (utf-8)")
    check("didOpen: diagnostics in UTF-8 columns (bytes)", diags == expected_diagnostics(TEXT, utf8=True),
          json.dumps(diags))
    # "café 😀 TODO": TODO at byte 11 (é is 2 bytes, 😀 4).
    await client.text_document_hover_async(hover_params(URI, 0, 12))
    raw = last_raw_reply()["result"]
    check("hover: positions and range in bytes",
          raw is not None and raw["contents"]["value"] == "`TODO`" and raw["range"]["start"]["character"] == 11
          and raw["range"]["end"]["character"] == 15, json.dumps(raw))
    code = await exit_code(client)
    check("exit without shutdown: the process exits 1", code == 1, str(code))
    await client.stop()


async def main():
    print(f"pygls {version('pygls')}, lsprotocol {version('lsprotocol')}")
    for session in (session_utf16, session_utf8):
        try:
            await asyncio.wait_for(session(), 4 * TIMEOUT)
        except Exception as e:  # a session that breaks is a failure, not a crash
            check(f"{session.__name__} ran to its end", False, repr(e))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
