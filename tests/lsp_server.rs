//! The `lsp-server` example, run in-process over byte slices under the counting
//! allocator (`tests/common/counting.rs`): what allocates per message is only the
//! example's own storage of open documents. (The protocol itself is checked by a real
//! client: `tests/clients/lsp/run.sh`.)

#[path = "common/counting.rs"]
mod counting;

#[allow(dead_code)]
#[path = "../examples/lsp-server.rs"]
mod lsp;

use std::cell::RefCell;
use std::future::poll_fn;
use std::task::Poll;

use counting::counting;
use jsonrpc_slice::service::concurrent::{Read, Write};
use serde_json::Value;

const URI: &str = "file:///a.txt";
/// Escaped as a client sends it: non-ASCII as `\u` escapes (a surrogate pair too),
/// quotes, a backslash, line ends.
const TEXT: &str = r#""caf\u00e9 \ud83d\ude00 TODO: \"q\" \\ TODOs\r\nna\u00efve TODO""#;
/// As long as `TEXT` once decoded: a change that fits the document's buffer.
const CHANGED: &str = r#""caf\u00e9 \ud83d\ude00 todo: \"q\" \\ TODOs\r\nna\u00efve TODO""#;

fn frame(body: &str) -> Vec<u8> {
    let mut f = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    f.extend_from_slice(body.as_bytes());
    f
}

fn request(id: u32, method: &str, params: &str) -> Vec<u8> {
    frame(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
    ))
}

fn notify(method: &str, params: &str) -> Vec<u8> {
    frame(&format!(
        r#"{{"jsonrpc":"2.0","method":"{method}","params":{params}}}"#
    ))
}

/// `shutdown` and `exit` have no params (LSP's `void`; `"params":null` is not a valid
/// JSON-RPC 2.0 request, and is answered `-32600`).
fn shutdown(id: u32) -> Vec<u8> {
    frame(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#
    ))
}

fn exit() -> Vec<u8> {
    frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)
}

fn open(uri: &str, text: &str) -> Vec<u8> {
    notify(
        "textDocument/didOpen",
        &format!(
            r#"{{"textDocument":{{"uri":"{uri}","languageId":"plaintext","version":1,"text":{text}}}}}"#
        ),
    )
}

fn hover(id: u32, uri: &str, line: u32, character: u32) -> Vec<u8> {
    request(
        id,
        "textDocument/hover",
        &format!(
            r#"{{"textDocument":{{"uri":"{uri}"}},"position":{{"line":{line},"character":{character}}}}}"#
        ),
    )
}

/// A session: initialize, open `URI`, `middle`, shutdown, a request after it, exit.
fn session(middle: &[Vec<u8>]) -> Vec<u8> {
    let mut s = request(1, "initialize", r#"{"capabilities":{}}"#);
    s.extend(notify("initialized", "{}"));
    s.extend(open(URI, TEXT));
    s.extend(middle.concat());
    s.extend(shutdown(2));
    s.extend(hover(3, URI, 0, 0));
    s.extend(exit());
    s
}

/// The steady state, `n` times: hovers on and off words and on a document not open, a
/// change that fits, cancel and trace notifications, an unknown request.
fn steady(n: u32) -> Vec<Vec<u8>> {
    let change = format!(
        r#"{{"textDocument":{{"uri":"{URI}","version":2}},"contentChanges":[{{"text":{CHANGED}}}]}}"#
    );
    (0..n)
        .flat_map(|i| {
            let id = 100 + 10 * i;
            [
                hover(id, URI, 1, 2),
                hover(id + 1, URI, 0, 4),
                hover(id + 2, "file:///not-open", 0, 0),
                notify("textDocument/didChange", &change),
                notify("$/cancelRequest", &format!(r#"{{"id":{id}}}"#)),
                notify("$/setTrace", r#"{"value":"off"}"#),
                request(id + 3, "custom/unknown", "{}"),
            ]
        })
        .collect()
}

/// The input of a run: parts, each sent once the output holds the reply its gate
/// names (a part with no gate goes at once), read in chunks as the example asks.
struct Input<'a> {
    parts: Vec<(Option<u64>, &'a [u8])>,
    output: &'a RefCell<Vec<u8>>,
    /// Polls that found a gate closed.
    stalled: usize,
}

impl Read for Input<'_> {
    type Error = std::convert::Infallible;

    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        poll_fn(|_| {
            let Some((gate, part)) = self.parts.first_mut() else {
                return Poll::Ready(Ok(0));
            };
            if let Some(id) = gate.filter(|&id| reply(&self.output.borrow(), id).is_none()) {
                // `block_on` polls again: the test's signal is that reply, written. The
                // loop is polled a few times per message: a million polls without it
                // is a server that will not answer.
                self.stalled += 1;
                assert!(self.stalled < 1_000_000, "the reply to {id} never came");
                return Poll::Pending;
            }
            *gate = None;
            let n = buf.len().min(part.len());
            buf[..n].copy_from_slice(&part[..n]);
            *part = &part[n..];
            if part.is_empty() {
                self.parts.remove(0);
            }
            Poll::Ready(Ok(n))
        })
        .await
    }
}

/// The output of a run: a buffer with room for all of it (growing it would count).
struct Output<'a>(&'a RefCell<Vec<u8>>);

impl Write for Output<'_> {
    type Error = std::convert::Infallible;

    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error> {
        let mut out = self.0.borrow_mut();
        assert!(out.len() + bytes.len() <= out.capacity(), "room enough");
        out.extend_from_slice(bytes);
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Runs `input` through the example with the allocator armed: the exit code, what was
/// written (as JSON messages), and the allocator calls.
fn run(input: &[u8]) -> (u8, Vec<Value>, usize) {
    let wire = RefCell::new(Vec::with_capacity(64 << 20));
    let mut input = Input {
        parts: vec![(None, input)],
        output: &wire,
        stalled: 0,
    };
    let (code, allocations) =
        counting(|| embassy_futures::block_on(lsp::run(&mut input, &mut Output(&wire))));
    let code = code.expect("serving slices does not fail");
    (code, messages(wire.into_inner()), allocations)
}

/// The messages written, as JSON.
fn messages(wire: Vec<u8>) -> Vec<Value> {
    let text = String::from_utf8(wire).expect("UTF-8");
    text.split("Content-Length: ")
        .skip(1)
        .map(|m| serde_json::from_str(m.split_once("\r\n\r\n").unwrap().1).unwrap())
        .collect()
}

/// Where the reply to request `id` ends in `wire`, once it is written.
fn reply(wire: &[u8], id: u64) -> Option<usize> {
    let tail = format!(r#","id":{id}}}"#);
    wire.windows(tail.len()).position(|w| w == tail.as_bytes())
}

fn replies(messages: &[Value], id: u64) -> Vec<&Value> {
    messages.iter().filter(|m| m["id"] == id).collect()
}

#[test]
fn the_steady_state_allocates_nothing() {
    counting::the_counter_works();
    let (code, base, allocations_0) = run(&session(&[]));
    assert_eq!(code, 0);
    let (code, messages, allocations_50) = run(&session(&steady(50)));
    assert_eq!(code, 0);
    // The work was done: every request answered, every change published.
    assert_eq!(messages.len(), base.len() + 50 * 5, "{messages:#?}");
    let first = 100;
    assert_eq!(
        replies(&messages, first)[0]["result"]["contents"]["value"],
        "`naïve`"
    );
    assert_eq!(replies(&messages, first + 1)[0]["result"], Value::Null);
    assert_eq!(replies(&messages, first + 2)[0]["error"]["code"], -32602);
    assert_eq!(replies(&messages, first + 3)[0]["error"]["code"], -32601);
    assert_eq!(replies(&messages, 3)[0]["error"]["code"], -32600);
    let published = |m: &&Value| m["method"] == "textDocument/publishDiagnostics";
    let last = messages.iter().rfind(published).unwrap();
    // After the change: `todo` is not a TODO any more; `TODOs` and line 2's remain.
    assert_eq!(last["params"]["diagnostics"].as_array().unwrap().len(), 2);
    assert_eq!(
        last["params"]["diagnostics"][0]["range"]["start"]["character"],
        // "café 😀 todo: "q" \ " in UTF-16 code units.
        "café 😀 todo: \"q\" \\ ".encode_utf16().count()
    );
    // 350 messages more, not one allocator call more.
    assert_eq!(
        allocations_50, allocations_0,
        "the steady state allocated: {allocations_0} calls without it, {allocations_50} with it"
    );
    println!("{allocations_0} allocator calls for a session, with or without 350 messages more");
}

#[test]
fn open_and_close_allocate_the_documents_only() {
    let pairs = |n: u32| -> Vec<Vec<u8>> {
        (0..n)
            .flat_map(|i| {
                let uri = format!("file:///b{i}.txt");
                [
                    open(&uri, TEXT),
                    notify(
                        "textDocument/didClose",
                        &format!(r#"{{"textDocument":{{"uri":"{uri}"}}}}"#),
                    ),
                ]
            })
            .collect()
    };
    let (_, _, allocations_0) = run(&session(&pairs(0)));
    let (_, messages, allocations_20) = run(&session(&pairs(20)));
    let closed = messages
        .iter()
        .filter(|m| m["params"]["uri"] == "file:///b7.txt")
        .map(|m| m["params"]["diagnostics"].as_array().unwrap().len())
        .collect::<Vec<_>>();
    assert_eq!(closed, [3, 0], "published on open, emptied on close");
    // didOpen: the uri, the text and its line starts (3 allocations); didClose frees
    // them (3). The index of documents and the buffer that decodes uris are allocated
    // in the base session already (it opens a document too), and reused.
    assert_eq!(allocations_20 - allocations_0, 20 * 6);
}

#[test]
fn exit_codes() {
    let init = request(1, "initialize", "{}");
    let (code, _, _) = run(&[init.clone(), exit()].concat());
    assert_eq!(code, 1, "exit without shutdown");
    let (code, messages, _) = run(&init);
    assert_eq!(code, 1, "the input ended without exit");
    assert_eq!(messages.len(), 1);
    let (code, messages, _) = run(&[shutdown(1), exit()].concat());
    assert_eq!(code, 1, "shutdown before initialize is refused");
    assert_eq!(messages[0]["error"]["code"], -32002);
}

#[test]
fn more_todos_than_the_outbox_holds_publishes_the_first_ones() {
    let text = format!("\"{}\"", "TODO ".repeat(50_000));
    let (code, messages, _) = run(&session(&[open("file:///many.txt", &text)]));
    assert_eq!(code, 0);
    let list = messages
        .iter()
        .find(|m| m["params"]["uri"] == "file:///many.txt")
        .map(|m| m["params"]["diagnostics"].as_array().unwrap().clone())
        .expect("published");
    assert!(list.len() > 10_000 && list.len() < 50_000, "{}", list.len());
    for (i, d) in list.iter().enumerate() {
        assert_eq!(d["range"]["start"]["character"], 5 * i);
    }
    // The session went on: shutdown answered, exit 0.
    assert_eq!(replies(&messages, 2)[0]["result"], Value::Null);
}

#[test]
fn hovers_find_their_line_and_their_document() {
    // Lines ended by `\n`, `\r\n` and `\r`, an empty line, and a last line ended too.
    let text = r#""one\ntwo\r\nthree\rfour\n\nsix_6 w\u00e9\n""#;
    let close = |uri: &str| {
        notify(
            "textDocument/didClose",
            &format!(r#"{{"textDocument":{{"uri":"{uri}"}}}}"#),
        )
    };
    let mut middle: Vec<Vec<u8>> = (0..50)
        .map(|i| open(&format!("file:///other{i}.txt"), r#""other""#))
        .collect();
    // Opened with escapes, looked up without them and with others.
    middle.push(open(r"file:\/\/\/lines.txt", text));
    let plain = "file:///lines.txt";
    let escaped = r"\u0066ile:///lines\u002etxt";
    for (id, line, character) in [(10, 0, 1), (11, 1, 0), (12, 2, 4), (13, 3, 3)] {
        middle.push(hover(id, plain, line, character));
    }
    middle.push(hover(14, escaped, 4, 0)); // The empty line.
    middle.push(hover(15, escaped, 5, 7)); // `é`, one UTF-16 unit.
    middle.push(hover(16, plain, 6, 0)); // After the last line end: an empty line.
    middle.push(hover(17, plain, 7, 0)); // Past the last line.
    middle.push(hover(18, "file:///other49.txt", 0, 0));
    middle.push(close(escaped));
    middle.push(hover(19, plain, 0, 0));
    middle.push(hover(20, "file:///other7.txt", 0, 0));
    let (code, messages, _) = run(&session(&middle));
    assert_eq!(code, 0);
    let word = |id: u64| {
        let r = &replies(&messages, id)[0]["result"];
        let range = &r["range"];
        (
            r["contents"]["value"].as_str().map(str::to_owned),
            range["start"]["line"].as_u64(),
            range["start"]["character"].as_u64(),
            range["end"]["character"].as_u64(),
        )
    };
    let some =
        |w: &str, line, start, end| (Some(format!("`{w}`")), Some(line), Some(start), Some(end));
    assert_eq!(word(10), some("one", 0, 0, 3));
    assert_eq!(word(11), some("two", 1, 0, 3));
    assert_eq!(word(12), some("three", 2, 0, 5));
    assert_eq!(word(13), some("four", 3, 0, 4));
    assert_eq!(word(15), some("wé", 5, 6, 8));
    assert_eq!(word(18), some("other", 0, 0, 5));
    assert_eq!(word(20), some("other", 0, 0, 5));
    for id in [14, 16, 17] {
        assert_eq!(replies(&messages, id)[0]["result"], Value::Null, "{id}");
    }
    assert_eq!(replies(&messages, 19)[0]["error"]["code"], -32602, "closed");
}

#[test]
fn a_hover_is_answered_while_a_request_waits_then_the_cancel_is() {
    // Each part goes once the reply it waits for is written: no sleep, no timing.
    let wait = |id| request(id, "jsonrpc-slice/wait", "{}");
    let first = [
        request(1, "initialize", "{}"),
        notify("initialized", "{}"),
        open(URI, TEXT),
        wait(50),
        hover(51, URI, 1, 2),
    ]
    .concat();
    let cancel = notify("$/cancelRequest", r#"{"id":50}"#);
    let released = [wait(52), notify("jsonrpc-slice/release", "{}")].concat();
    let end = [shutdown(2), exit()].concat();
    let wire = RefCell::new(Vec::with_capacity(1 << 20));
    let mut input = Input {
        parts: vec![
            (None, &first[..]),
            (Some(51), &cancel[..]),
            (Some(50), &released[..]),
            (Some(52), &end[..]),
        ],
        output: &wire,
        stalled: 0,
    };
    let code = embassy_futures::block_on(lsp::run(&mut input, &mut Output(&wire)));
    assert_eq!(code, Ok(0));
    let wire = wire.into_inner();
    // The hover's reply came while request 50 waited; 50 was then cancelled.
    assert!(reply(&wire, 51) < reply(&wire, 50));
    let messages = messages(wire);
    assert_eq!(
        replies(&messages, 51)[0]["result"]["contents"]["value"],
        "`naïve`"
    );
    let cancelled = replies(&messages, 50);
    assert_eq!(cancelled.len(), 1);
    assert_eq!(cancelled[0]["error"]["code"], -32800);
    // A wait let go by `jsonrpc-slice/release` answers null.
    assert_eq!(replies(&messages, 52)[0]["result"], Value::Null);
    assert_eq!(replies(&messages, 2)[0]["result"], Value::Null);
}

#[test]
fn over_tokio_streams_a_hover_is_answered() {
    // A real transport, whose reads wait for the client and wake the task (the runs
    // above poll without wakers).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let (mut client_in, mut client_out) = tokio::io::split(client);
        let serve = async move {
            let (mut r, mut w) = (
                jsonrpc_slice::io::tokio::Io(server_in),
                jsonrpc_slice::io::tokio::Io(server_out),
            );
            lsp::run(&mut r, &mut w).await
        };
        let client = async move {
            let mut got = Vec::new();
            let mut buf = [0u8; 4096];
            for (message, id) in [
                (request(1, "initialize", "{}"), Some(1)),
                (
                    [notify("initialized", "{}"), open(URI, TEXT)].concat(),
                    None,
                ),
                (hover(2, URI, 1, 2), Some(2)),
                (shutdown(3), Some(3)),
            ] {
                client_out.write_all(&message).await.unwrap();
                while id.is_some_and(|id| reply(&got, id).is_none()) {
                    let n = client_in.read(&mut buf).await.unwrap();
                    assert!(n > 0, "the server ended");
                    got.extend_from_slice(&buf[..n]);
                }
            }
            client_out.write_all(&exit()).await.unwrap();
            got
        };
        let (code, got) = tokio::join!(serve, client);
        assert_eq!(code.ok(), Some(0));
        let messages = messages(got);
        assert_eq!(
            replies(&messages, 2)[0]["result"]["contents"]["value"],
            "`naïve`"
        );
    });
}

/// The `TODO`s of a text as the lines read them one by one: LSP's line ends (`\n`,
/// `\r\n`, `\r`), and each `TODO`'s column in the line, in the width asked for.
fn todos_line_by_line(text: &str, utf8: bool) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut rest = text;
    for n in 0.. {
        let end = rest.find(['\r', '\n']).unwrap_or(rest.len());
        let line = &rest[..end];
        for (at, _) in line.match_indices("TODO") {
            found.push((n, lsp::width(&line[..at], utf8)));
        }
        if end == rest.len() {
            break;
        }
        rest = &rest[end
            + if rest[end..].starts_with("\r\n") {
                2
            } else {
                1
            }..];
    }
    found
}

#[test]
fn todos_are_found_where_the_lines_put_them() {
    // Texts of fragments in a pseudo-random order: every line end, `TODO`s side by
    // side and at either end of a line, 2- to 4-byte characters before them. Every
    // tenth text is long (up to about 6 KB), so that the searches run over many of
    // their blocks, as on a source file.
    let parts = [
        "TODO", "TODOTODO", "\n", "\r\n", "\r", "\r\r\n", "é", "東京", "😀", "abc ", " ", "TOD",
        "ODO", "\n\n",
    ];
    let mut seed = 7u64;
    for case in 0..2000 {
        let mut text = String::new();
        let fragments = if case % 10 == 0 {
            case % 40 * 25
        } else {
            case % 40
        };
        for _ in 0..fragments {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.push_str(parts[(seed >> 33) as usize % parts.len()]);
        }
        let mut starts = Vec::new();
        lsp::line_starts(&text, &mut starts);
        for utf8 in [false, true] {
            let found: Vec<_> = lsp::todos(&text, &starts, utf8).collect();
            assert_eq!(found, todos_line_by_line(&text, utf8), "{text:?}");
        }
    }
}
