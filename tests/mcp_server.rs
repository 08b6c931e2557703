//! The MCP server example (`examples/mcp-server.rs`, included here whole) in-process:
//! a full session through its concurrent service under the counting allocator
//! (`tests/common/counting.rs`) — initialize, list, each tool, a countdown with progress
//! (a string token and an integer one), the unknown tool — allocates nothing, and every
//! reply is what the MCP stdio client suite (`tests/clients/mcp/`) expects. The session
//! runs with one slot, so its replies come in request order; a ping during a long
//! countdown, and its cancellation, run with the example's own eight.

#[path = "common/counting.rs"]
mod counting;

#[allow(dead_code)] // its `main`
#[path = "../examples/mcp-server.rs"]
mod mcp_server;

use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::service::concurrent::{Read, Slots, Write};
use mcp_server::{Mcp, Memory, MAX_FRAME, MAX_REPLY, SERVER};
use serde_json::{json, Value};

/// The input, 100 bytes a read (frames cut anywhere), then its end.
struct Chunks<'a>(&'a [u8]);

impl Read for Chunks<'_> {
    type Error = ();
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        let n = self.0.len().min(buf.len()).min(100);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// The output, into room made before the run.
struct Wire(Vec<u8>);

impl Write for Wire {
    type Error = ();
    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), ()> {
        assert!(self.0.capacity() - self.0.len() >= bytes.len(), "wire full");
        self.0.extend_from_slice(bytes);
        Ok(())
    }
    async fn flush(&mut self) -> Result<(), ()> {
        Ok(())
    }
}

/// The session's memory: the example's, with one slot.
struct OneSlot {
    slots: Slots<1, MAX_FRAME, MAX_REPLY>,
    outbox: SharedOutbox<{ 64 * 1024 }>,
    framer: LineAccumulator<MAX_FRAME>,
    chunk: [u8; 16 * 1024],
}

/// Runs `f` on a thread with room for the memory built on its stack.
fn big_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// The session: what a client sends, one message per line.
const SESSION: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"ping"}
{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":40,"b":2}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":"40","b":2}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"line\nnext \"q\" \\ caf\u00e9 ☃ 😀"}}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"countdown","arguments":{"n":3},"_meta":{"progressToken":"tok-6"}}}
{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"name":"countdown","arguments":{"n":2},"_meta":{"progressToken":77}}}
{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"countdown","arguments":{"n":2}}}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"late"}}
{"jsonrpc":"2.0","method":"notifications/whatever"}
{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"no-such-tool","arguments":{}}}
{"jsonrpc":"2.0","id":10,"method":"no/such/method"}
{"jsonrpc":"2.0","id":11,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}
"#;

/// Runs `input` through the example's server with one slot; returns what it wrote,
/// and the number of allocator calls while it ran.
fn serve(input: &[u8]) -> (Vec<u8>, usize) {
    let input = input.to_vec();
    big_stack(move || {
        let mut m = Box::new(OneSlot {
            slots: Slots::new(),
            outbox: SharedOutbox::new(),
            framer: LineAccumulator::new(),
            chunk: [0; 16 * 1024],
        });
        let OneSlot {
            slots,
            outbox,
            framer,
            chunk,
        } = &mut *m;
        let mut wire = Wire(Vec::with_capacity(1024 * 1024));
        let mut reader = Chunks(&input);
        // The documents are written here, once, before the session.
        let mcp = Mcp::new();
        let (served, allocations) = counting::counting(|| {
            embassy_futures::block_on(SERVER.serve(
                &mcp,
                framer,
                slots,
                outbox,
                chunk,
                &mut reader,
                &mut wire,
            ))
        });
        assert_eq!(served, Ok(()));
        (wire.0, allocations)
    })
}

fn lines(wire: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(wire).expect("UTF-8 out");
    assert!(text.ends_with('\n'), "each message ends its line");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {e}: {l}")))
        .collect()
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

#[test]
fn a_full_session_allocates_nothing_and_answers_as_mcp_says() {
    counting::the_counter_works();
    let (wire, allocations) = serve(SESSION.as_bytes());
    assert_eq!(allocations, 0, "allocator calls during the session");
    let got = lines(&wire);
    let version = env!("CARGO_PKG_VERSION");
    let progress = |token: Value, i: u64, n: u64| {
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
               "params": {"progressToken": token, "progress": i, "total": n}})
    };
    let ok = |id: Value, result: Value| json!({"jsonrpc": "2.0", "result": result, "id": id});
    let err = |id: Value, code: i64, message: &str| json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": id});
    let info = |v: &str| {
        json!({"protocolVersion": v, "capabilities": capabilities(),
               "serverInfo": {"name": "jsonrpc-slice-mcp", "version": version}})
    };
    let want = vec![
        ok(json!(0), info("2025-06-18")),
        ok(json!(1), json!({})),
        ok(json!(2), tools()),
        ok(
            json!(3),
            json!({"content": [{"type": "text", "text": "42"}], "structuredContent": {"sum": 42}}),
        ),
        ok(
            json!(4),
            json!({"content": [{"type": "text", "text": "argument `a` must be a 64-bit integer"}],
                   "isError": true}),
        ),
        ok(json!(5), text_result("line\nnext \"q\" \\ café ☃ 😀")),
        progress(json!("tok-6"), 1, 3),
        progress(json!("tok-6"), 2, 3),
        progress(json!("tok-6"), 3, 3),
        ok(json!(6), text_result("done")),
        // The token's type is kept (an integer), and so is the id's (a string).
        progress(json!(77), 1, 2),
        progress(json!(77), 2, 2),
        ok(json!("7"), text_result("done")),
        // No token: no progress.
        ok(json!(8), text_result("done")),
        err(json!(9), -32602, "Unknown tool: no-such-tool"),
        err(json!(10), -32601, "Method not found"),
        ok(json!(11), info("2025-11-25")),
    ];
    assert_eq!(got.len(), want.len(), "{}", String::from_utf8_lossy(&wire));
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
}

fn capabilities() -> Value {
    json!({"tools": {"listChanged": false}, "resources": {"subscribe": true, "listChanged": false},
           "prompts": {"listChanged": false}, "logging": {}, "completions": {}})
}

/// What `tools/list` says: the example's document, written once from its types.
fn tools() -> Value {
    mcp_server::tools()
}

/// The schemas derived from the argument types, as `tools/list` gives them: what the
/// types say, pinned here (a change to a type shows as a change to this test).
#[test]
fn the_schemas_are_the_types() {
    let listed = tools();
    let schema = |name: &str, which: &str| {
        let tool = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        let mut s = tool[which].clone();
        s.as_object_mut().unwrap().remove("$schema");
        s
    };
    assert_eq!(
        schema("add", "inputSchema"),
        json!({"type": "object", "required": ["a", "b"], "properties": {
            "a": {"type": "integer", "format": "int64", "description": "The first addend."},
            "b": {"type": "integer", "format": "int64", "description": "The second addend."}}})
    );
    assert_eq!(
        schema("add", "outputSchema"),
        json!({"type": "object", "required": ["sum"], "properties": {
            "sum": {"type": "integer", "description": "`a + b` (beyond 64 bits when it must be)."}}})
    );
    assert_eq!(
        schema("countdown", "inputSchema")["properties"]["n"],
        json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 100, "description": "How many steps."})
    );
    assert_eq!(schema("countdown", "inputSchema")["required"], json!(["n"]));
    assert_eq!(
        schema("test_simple_text", "inputSchema"),
        json!({"type": "object", "properties": {}})
    );
}

/// The handlers' checks agree with the types the schemas come from: an argument
/// object the type takes is a tool result, one it refuses is `isError`. One
/// difference, on purpose: the schema says `integer`, which JSON Schema counts `7.0`
/// as, and the handlers take it; serde's `i64` does not (the last case).
#[test]
fn the_handlers_take_what_the_types_take() {
    use mcp_server::{AddArgs, CountdownArgs, EchoArgs};
    let cases: &[(&str, Value)] = &[
        ("add", json!({"a": 1, "b": 2})),
        ("add", json!({"a": 1})),
        ("add", json!({"a": "1", "b": 2})),
        ("add", json!({"a": 1.5, "b": 2})),
        ("add", json!({"a": 7.0, "b": 2})),
        (
            "add",
            json!({"a": -9223372036854775808i64, "b": 9223372036854775807i64}),
        ),
        ("echo", json!({"text": "hi"})),
        ("echo", json!({"text": 7})),
        ("echo", json!({})),
        ("countdown", json!({"n": 0})),
        ("countdown", json!({"n": 100, "delay_ms": 0})),
        ("countdown", json!({"n": 101})),
        ("countdown", json!({"n": -1})),
        ("countdown", json!({"n": 2, "delay_ms": -5})),
        ("countdown", json!({"delay_ms": 5})),
    ];
    let input: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(id, (name, args))| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": name, "arguments": args}})
            .to_string()
        })
        .collect();
    let (wire, _) = serve(input.join("\n").as_bytes());
    let got = lines(&wire);
    assert_eq!(got.len(), cases.len());
    for ((name, args), reply) in cases.iter().zip(&got) {
        let typed = match *name {
            "add" => serde_json::from_value::<AddArgs>(args.clone()).is_ok(),
            "echo" => serde_json::from_value::<EchoArgs>(args.clone()).is_ok(),
            _ => {
                // The type's range, as its schema states it (`range(max = 100)` on a u8,
                // `max = 60000` on a u32).
                serde_json::from_value::<CountdownArgs>(args.clone()).is_ok_and(|c| c.in_range())
            }
        };
        let handled = reply["result"]["isError"] != true && reply["result"].is_object();
        // `7.0`: an integer to JSON Schema (the handler), not to serde.
        let typed = typed || args["a"].as_f64() == Some(7.0);
        assert_eq!(handled, typed, "{name} {args}: {reply}");
    }
}

#[test]
fn arguments_are_checked_and_named() {
    let call = |id: u32, args: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{args}}}}}"#)
    };
    let input = [
        call(1, r#""add","arguments":{"a":1}"#),
        call(2, r#""add""#),
        call(3, r#""add","arguments":{"a":1,"b":2.5}"#),
        call(4, r#""add","arguments":{"a":9223372036854775807,"b":9223372036854775807}"#),
        call(5, r#""add","arguments":{"a":7.0,"b":-1e1}"#),
        call(6, r#""echo","arguments":{"text":7}"#),
        call(7, r#""countdown","arguments":{"n":101}"#),
        call(8, r#""countdown","arguments":{"n":-1}"#),
        call(9, r#""countdown","arguments":{"n":0},"_meta":{"progressToken":1}"#),
        call(10, r#""t\u00e9\"st","arguments":{}"#),
        r#"{"jsonrpc":"2.0","id":11,"method":"tools/call"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":12,"method":"initialize"}"#.to_string(),
        // A tools/call notification: no reply, and no progress.
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"countdown","arguments":{"n":2},"_meta":{"progressToken":1}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"ping"}"#.to_string(),
    ]
    .join("\n");
    let (wire, _) = serve(input.as_bytes());
    let got = lines(&wire);
    let results: Vec<String> = got
        .iter()
        .map(|v| match &v["result"]["content"][0]["text"] {
            Value::String(s) if v["result"]["isError"] == true => format!("isError: {s}"),
            Value::String(s) => s.clone(),
            _ => v["error"]["message"]
                .as_str()
                .map_or(v["result"].to_string(), |m| {
                    format!("{}: {m}", v["error"]["code"])
                }),
        })
        .collect();
    assert_eq!(
        results,
        [
            "isError: argument `b` must be a 64-bit integer",
            "isError: argument `a` must be a 64-bit integer",
            "isError: argument `b` must be a 64-bit integer",
            "18446744073709551614",
            "-3",
            "isError: argument `text` must be a string",
            "isError: argument `n` must be an integer from 0 to 100",
            "isError: argument `n` must be an integer from 0 to 100",
            "done",
            "-32602: Unknown tool: té\"st",
            "-32602: Invalid params: `name` must be a string",
            &format!(
                r#"{{"capabilities":{{"completions":{{}},"logging":{{}},"prompts":{{"listChanged":false}},"resources":{{"listChanged":false,"subscribe":true}},"tools":{{"listChanged":false}}}},"protocolVersion":"2025-11-25","serverInfo":{{"name":"jsonrpc-slice-mcp","version":"{}"}}}}"#,
                env!("CARGO_PKG_VERSION")
            ),
        ]
    );
}

#[test]
fn limits_give_clean_errors() {
    // A line longer than the largest frame: -32600 with a null id, then the next line
    // is served.
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
        "x".repeat(70_000)
    );
    // Progress notifications that fill the outbox many times over: each waits for
    // room (the writer drains it), so all of them go out, then the result.
    let token = "t".repeat(1000);
    let countdown = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"countdown","arguments":{{"n":100}},"_meta":{{"progressToken":"{token}"}}}}}}"#
    );
    let input = [
        &long,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        &countdown,
    ]
    .join("\n");
    let (wire, _) = serve(input.as_bytes());
    let got = lines(&wire);
    assert_eq!(got[0]["error"]["code"], -32600);
    assert_eq!(got[0]["id"], Value::Null);
    assert_eq!(got[1], json!({"jsonrpc": "2.0", "result": {}, "id": 2}));
    let progress = &got[2..got.len() - 1];
    assert_eq!(progress.len(), 100);
    for (i, p) in progress.iter().enumerate() {
        assert_eq!(p["params"]["progressToken"], token.as_str());
        assert_eq!(p["params"]["progress"], i + 1);
    }
    let last = &got[got.len() - 1];
    assert_eq!(
        last,
        &json!({"jsonrpc": "2.0", "result": text_result("done"), "id": 3})
    );
}

#[test]
fn a_ping_is_answered_during_a_countdown_and_a_cancelled_countdown_is_not() {
    // The example's own memory and runtime: eight slots, tokio's timer. The countdown
    // waits a minute between steps; the test never waits for it: the ping's reply is
    // read first, then the countdown is cancelled, and the input ends.
    big_stack(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut memory = Memory::new();
            let Memory { slots, outbox, framer, chunk } = &mut *memory;
            let (client, server) = tokio::io::duplex(64 * 1024);
            let (server_r, server_w) = tokio::io::split(server);
            let (mut client_r, mut client_w) = tokio::io::split(client);
            let (mut r, mut w) = (jsonrpc_slice::io::tokio::Io(server_r), jsonrpc_slice::io::tokio::Io(server_w));
            let mcp = Mcp::new();
            let serve = SERVER.serve(&mcp, framer, slots, outbox, chunk, &mut r, &mut w);
            let client = async {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut got = Vec::new();
                let mut buf = [0u8; 4096];
                let line = |got: &mut Vec<u8>| {
                    let end = got.iter().position(|&b| b == b'\n')?;
                    let l: Vec<u8> = got.drain(..=end).collect();
                    Some(serde_json::from_slice::<Value>(&l).unwrap())
                };
                client_w.write_all(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"countdown","arguments":{"n":3,"delay_ms":60000},"_meta":{"progressToken":"p"}}}
{"jsonrpc":"2.0","id":2,"method":"ping"}
"#).await.unwrap();
                let first = loop {
                    if let Some(v) = line(&mut got) {
                        break v;
                    }
                    let n = client_r.read(&mut buf).await.unwrap();
                    got.extend_from_slice(&buf[..n]);
                };
                assert_eq!(first, json!({"jsonrpc": "2.0", "result": {}, "id": 2}));
                client_w.write_all(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}
{"jsonrpc":"2.0","id":3,"method":"ping"}
"#).await.unwrap();
                let second = loop {
                    if let Some(v) = line(&mut got) {
                        break v;
                    }
                    let n = client_r.read(&mut buf).await.unwrap();
                    got.extend_from_slice(&buf[..n]);
                };
                assert_eq!(second, json!({"jsonrpc": "2.0", "result": {}, "id": 3}));
                client_w.shutdown().await.unwrap();
                got
            };
            let (served, rest) = tokio::join!(serve, client);
            assert!(served.is_ok());
            // The loop ended with its input: the cancelled countdown never answered.
            assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
        });
    });
}

/// `test://watched-resource` over stdio: a subscriber is sent
/// `notifications/resources/updated` when `update_watched_resource` sets its text (before
/// the tool's reply, which says one subscriber was told), and reads the new text; after
/// `resources/unsubscribe` it is told nothing. (Over HTTP the same goes out on the
/// session's `GET` stream: the Python SDK's session checks it, tests/clients/mcp.)
#[test]
fn a_subscriber_is_told_when_the_watched_resource_changes() {
    let session = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_watched_resource","arguments":{"text":"before"}}}
{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"update_watched_resource","arguments":{"text":"caf\u00e9 \"new\""}}}
{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://watched-resource"}}
{"jsonrpc":"2.0","id":5,"method":"resources/unsubscribe","params":{"uri":"test://watched-resource"}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"update_watched_resource","arguments":{"text":"after"}}}
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"update_watched_resource","arguments":{"text":7}}}
"#;
    let (wire, _) = serve(session.as_bytes());
    let got = lines(&wire);
    let updated = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                         "params": {"uri": "test://watched-resource"}});
    let result = |id: u64, result: Value| json!({"jsonrpc": "2.0", "result": result, "id": id});
    assert_eq!(
        got[1],
        result(1, text_result("updated; 0 subscribers told"))
    );
    assert_eq!(got[2], result(2, json!({})));
    assert_eq!(got[3], updated);
    assert_eq!(
        got[4],
        result(3, text_result("updated; 1 subscribers told"))
    );
    assert_eq!(
        got[5],
        result(
            4,
            json!({"contents": [{"uri": "test://watched-resource", "mimeType": "text/plain",
                                        "text": "caf\u{e9} \"new\""}]})
        )
    );
    assert_eq!(got[6], result(5, json!({})));
    assert_eq!(
        got[7],
        result(6, text_result("updated; 0 subscribers told"))
    );
    assert_eq!(got[8]["result"]["isError"], json!(true));
    assert_eq!(got.len(), 9);
}
