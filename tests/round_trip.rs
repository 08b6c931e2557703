//! Round trips over real JSON-RPC traffic: parse → write → parse.
//!
//! For every request and notification found in `../shared/corpus/bench/` and
//! `../shared/corpus/traffic/`:
//!
//! 1. `envelope::parse` reads it, and its `method`, `params` and `id` views are the
//!    exact spans serde_json's `RawValue` finds for the same members;
//! 2. a new message is written from those views alone
//!    (`{"jsonrpc":"2.0","method":…,"params":…,"id":…}`) and parsed again: the views
//!    are byte-identical, serde_json reads the same values as in the original, and
//!    writing it once more gives the same bytes;
//! 3. the demo `echo` method is called with the message's params (and id): the reply
//!    is JSON, its `result` is the params byte for byte (raw line breaks, which are
//!    whitespace, dropped) and its `id` the id.
//!
//! Sources, and what is taken from each:
//!
//! | source | messages |
//! |---|---|
//! | `bench/*.json` | each file (one batch of 10; the response file is not a request) |
//! | `traffic/ethereum-execution-apis/tests/**/*.io` | every `>> ` line |
//! | `traffic/lsp-devtools/session/*.jsonl` | every line (responses are not requests) |
//! | `traffic/lsp-devtools/client-capabilities/*.json` | wrapped as `initialize` requests |
//! | `traffic/mcp-spec-examples/examples/**/*.json` | files with a top-level `jsonrpc` |
//! | `traffic/lsp-inspector/**/*.json` | request/notification entries, wrapped |
//!
//! A message counts as a request when serde_json sees an object with a `method`
//! member; `envelope::parse` must then give a `Call::Request`, and must not for the
//! others. Each source asserts its count of requests, so an empty or changed corpus
//! fails.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use jsonrpc_slice::envelope::{self, Call, Envelope, Request};
use jsonrpc_slice::{demo, Limits, Server};
use serde_json::value::RawValue;
use serde_json::Value;

static SERVER: Server<()> = Server::new(demo::TABLE);

/// The members of one JSON object as serde_json's raw spans (keys decoded).
type RawMembers<'a> = HashMap<String, &'a RawValue>;

/// One message to test: where it comes from, and its bytes.
struct Message {
    label: String,
    bytes: Vec<u8>,
}

/// What one source gave.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    messages: usize,
    /// Request objects, notifications included: each one is round-tripped.
    requests: usize,
    /// The requests without an `id`.
    notifications: usize,
    /// Elements that are not requests (responses, fragments): parsed, not round-tripped.
    others: usize,
}

fn corpus(rel: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(rel);
    assert!(
        path.exists(),
        "corpus missing at {} (see ../shared/corpus/README.md)",
        path.display()
    );
    path
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn read_text(path: &Path) -> String {
    String::from_utf8(read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Files under `dir` (recursively) whose name ends with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot list {}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("read_dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn label(path: &Path) -> String {
    let base = corpus("");
    path.strip_prefix(&base)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `{"jsonrpc":"2.0","method":"<method>","params":<params>,"id":<id>}`, without the
/// members that are `None`.
fn build(method_raw: &[u8], params: Option<&[u8]>, id: Option<&[u8]>) -> Vec<u8> {
    let mut m = br#"{"jsonrpc":"2.0","method":""#.to_vec();
    m.extend_from_slice(method_raw);
    m.push(b'"');
    if let Some(p) = params {
        m.extend_from_slice(br#","params":"#);
        m.extend_from_slice(p);
    }
    if let Some(id) = id {
        m.extend_from_slice(br#","id":"#);
        m.extend_from_slice(id);
    }
    m.push(b'}');
    m
}

/// The request's views as owned bytes: (method inside the quotes, params, id).
type Views = (Vec<u8>, Option<Vec<u8>>, Option<Vec<u8>>);

fn views(r: &Request<'_>) -> Views {
    (
        r.method.as_raw().to_vec(),
        r.params.map(|p| p.as_bytes().to_vec()),
        r.id.map(|id| id.as_bytes().to_vec()),
    )
}

fn single_request(bytes: &[u8]) -> Result<Request<'_>, String> {
    match envelope::parse(bytes, &Limits::DEFAULT) {
        Ok(Envelope::Single(Call::Request(r))) => Ok(r),
        other => Err(format!("not a single request: {other:?}")),
    }
}

fn text(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(&b[..b.len().min(120)]).into_owned();
    if b.len() > 120 {
        format!("{s}... ({} bytes)", b.len())
    } else {
        s
    }
}

/// Compares one view with serde_json's raw span of the same member.
fn same_span(what: &str, ours: Option<&[u8]>, serde: Option<&RawValue>) -> Result<(), String> {
    let serde = serde.map(|v| v.get().as_bytes());
    if ours == serde {
        Ok(())
    } else {
        Err(format!(
            "{what}: jsonrpc-slice {:?}, serde_json RawValue {:?}",
            ours.map(text),
            serde.map(text)
        ))
    }
}

/// The whole round trip of one request, `element` being the object's bytes (the whole
/// message, or one element of a batch). `n` numbers the request, for made-up ids.
fn round_trip(req: &Request<'_>, element: &str, n: usize) -> Result<(), String> {
    // 1. The views are serde_json's RawValue spans.
    let members: RawMembers<'_> =
        serde_json::from_str(element).map_err(|e| format!("serde_json RawValue map: {e}"))?;
    let method_quoted = [b"\"", req.method.as_raw(), b"\""].concat();
    same_span(
        "method",
        Some(&method_quoted),
        members.get("method").copied(),
    )?;
    same_span(
        "params",
        req.params.map(|p| p.as_bytes()),
        members.get("params").copied(),
    )?;
    same_span(
        "id",
        req.id.map(|id| id.as_bytes()),
        members.get("id").copied(),
    )?;

    // 2. Write a message from the views alone; parse it again.
    let (method, params, id) = views(req);
    let rebuilt = build(&method, params.as_deref(), id.as_deref());
    let again = single_request(&rebuilt).map_err(|e| format!("rebuilt {}: {e}", text(&rebuilt)))?;
    if views(&again) != (method.clone(), params.clone(), id.clone()) {
        return Err(format!(
            "views changed through the round trip: {:?} then {:?}",
            req, again
        ));
    }
    let rewritten = {
        let (m, p, i) = views(&again);
        build(&m, p.as_deref(), i.as_deref())
    };
    if rewritten != rebuilt {
        return Err("writing the reparsed views gave other bytes".into());
    }
    let mut original: Value = serde_json::from_str(element).map_err(|e| e.to_string())?;
    if let Some(obj) = original.as_object_mut() {
        obj.retain(|k, _| matches!(k.as_str(), "jsonrpc" | "method" | "params" | "id"));
    }
    let reread: Value = serde_json::from_slice(&rebuilt)
        .map_err(|e| format!("serde_json rejects the rebuilt message ({e})"))?;
    if reread != original {
        return Err("serde_json reads other values in the rebuilt message".into());
    }

    // 3. Echo the params (with the id; a notification gets a made-up one).
    let made_up = format!("\"echo-{n}\"").into_bytes();
    let echo_id = id.clone().unwrap_or(made_up);
    let call = build(b"echo", params.as_deref(), Some(&echo_id));
    let mut out = vec![0u8; call.len() + 64];
    let reply = SERVER
        .handle(&mut (), &call, &mut out)
        .map_err(|e| format!("echo: {e}"))?;
    let reply = std::str::from_utf8(reply).map_err(|e| format!("echo reply: {e}"))?;
    let fields: RawMembers<'_> = serde_json::from_str(reply).map_err(|e| {
        format!(
            "serde_json rejects the echo reply ({e}): {}",
            text(reply.as_bytes())
        )
    })?;
    // The params byte for byte, but for raw line breaks (JSON whitespace), which the
    // writer drops so that no reply holds one.
    let want_result: Vec<u8> = params
        .as_deref()
        .unwrap_or(b"null")
        .iter()
        .copied()
        .filter(|b| !matches!(b, b'\n' | b'\r'))
        .collect();
    let want_result = &want_result[..];
    let ok = fields.len() == 3
        && fields.get("jsonrpc").map(|v| v.get()) == Some("\"2.0\"")
        && fields.get("result").map(|v| v.get().as_bytes()) == Some(want_result)
        && fields.get("id").map(|v| v.get().as_bytes()) == Some(&echo_id[..]);
    if !ok {
        return Err(format!("echo reply: {}", text(reply.as_bytes())));
    }
    // The same echo as a notification is never answered.
    if req.is_notification() {
        let note = build(b"echo", params.as_deref(), None);
        let reply = SERVER
            .handle(&mut (), &note, &mut out)
            .map_err(|e| format!("echo notification: {e}"))?;
        if !reply.is_empty() {
            return Err(format!("echo notification answered: {}", text(reply)));
        }
    }
    Ok(())
}

/// `true` if serde_json sees a Request object (an object with a `method` member).
fn is_request(v: &Value) -> bool {
    v.get("method").is_some()
}

/// Runs every message of a source; panics listing every failure.
fn run(source: &str, messages: &[Message]) -> Tally {
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for msg in messages {
        tally.messages += 1;
        let mut fail = |e: String| failures.push(format!("{}: {e}", msg.label));
        let Ok(whole) = std::str::from_utf8(&msg.bytes) else {
            fail("not UTF-8".into());
            continue;
        };
        let parsed = match envelope::parse(&msg.bytes, &Limits::DEFAULT) {
            Ok(p) => p,
            Err(e) => {
                fail(format!("envelope::parse: {e}"));
                continue;
            }
        };
        // Pair each call with its object's text, as serde_json splits the message.
        let (calls, elements): (Vec<Call<'_>>, Vec<&str>) = match parsed {
            Envelope::Single(call) => (vec![call], vec![whole]),
            Envelope::Batch(batch) => {
                let items: Vec<&RawValue> = match serde_json::from_str(whole) {
                    Ok(items) => items,
                    Err(e) => {
                        fail(format!("serde_json batch: {e}"));
                        continue;
                    }
                };
                let len = batch.len();
                let calls: Vec<Call<'_>> = batch.collect();
                if calls.len() != len {
                    fail(format!("Batch::len {len}, but {} calls", calls.len()));
                    continue;
                }
                (calls, items.iter().map(|v| v.get()).collect())
            }
        };
        if calls.len() != elements.len() {
            fail(format!(
                "{} calls, serde_json sees {} elements",
                calls.len(),
                elements.len()
            ));
            continue;
        }
        for (i, (call, element)) in calls.iter().zip(&elements).enumerate() {
            let value: Value = serde_json::from_str(element).expect("serde_json read it once");
            let at = if elements.len() > 1 {
                format!("[{i}] ")
            } else {
                String::new()
            };
            match (call, is_request(&value)) {
                (Call::Request(req), true) => {
                    tally.requests += 1;
                    if req.is_notification() {
                        tally.notifications += 1;
                    }
                    if let Err(e) = round_trip(req, element, tally.requests) {
                        fail(format!("{at}{e}"));
                    }
                }
                (Call::Invalid { .. }, false) => tally.others += 1,
                (call, _) => fail(format!(
                    "{at}serde_json request: {}, got {call:?}",
                    is_request(&value)
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{source}: {} failure(s):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
    println!("{source}: {tally:?}");
    tally
}

#[test]
fn bench_messages() {
    let messages: Vec<Message> = files(&corpus("bench"), ".json")
        .iter()
        .map(|p| Message {
            label: label(p),
            bytes: read(p),
        })
        .collect();
    let tally = run("bench", &messages);
    // 01–05, 08: one request each (02 and 05 are notifications); 06: a batch of 7
    // calls and 3 notifications; 07: a response.
    assert_eq!(
        tally,
        Tally {
            messages: 8,
            requests: 16,
            notifications: 5,
            others: 1
        }
    );
}

#[test]
fn ethereum_execution_api_requests() {
    let mut messages = Vec::new();
    for path in files(&corpus("traffic/ethereum-execution-apis/tests"), ".io") {
        for (n, line) in read_text(&path).lines().enumerate() {
            if let Some(json) = line.strip_prefix(">> ") {
                messages.push(Message {
                    label: format!("{}:{}", label(&path), n + 1),
                    bytes: json.as_bytes().to_vec(),
                });
            }
        }
    }
    let tally = run("ethereum-execution-apis", &messages);
    assert_eq!(
        tally,
        Tally {
            messages: 236,
            requests: 236,
            notifications: 0,
            others: 0
        }
    );
}

#[test]
fn lsp_devtools_session() {
    let mut messages = Vec::new();
    for path in files(&corpus("traffic/lsp-devtools/session"), ".jsonl") {
        for (n, line) in read_text(&path).lines().enumerate() {
            if !line.trim().is_empty() {
                messages.push(Message {
                    label: format!("{}:{}", label(&path), n + 1),
                    bytes: line.as_bytes().to_vec(),
                });
            }
        }
    }
    let tally = run("lsp-devtools session", &messages);
    // 233 lines: 6 calls, 221 notifications, 6 responses.
    assert_eq!(
        tally,
        Tally {
            messages: 233,
            requests: 227,
            notifications: 221,
            others: 6
        }
    );
}

#[test]
fn lsp_devtools_client_capabilities_as_initialize() {
    let messages: Vec<Message> =
        files(&corpus("traffic/lsp-devtools/client-capabilities"), ".json")
            .iter()
            .map(|p| {
                let mut bytes =
                    br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":"#.to_vec();
                bytes.extend_from_slice(&read(p));
                bytes.push(b'}');
                Message {
                    label: label(p),
                    bytes,
                }
            })
            .collect();
    let tally = run("lsp-devtools client-capabilities", &messages);
    assert_eq!(
        tally,
        Tally {
            messages: 7,
            requests: 7,
            notifications: 0,
            others: 0
        }
    );
}

#[test]
fn mcp_spec_examples() {
    let mut messages = Vec::new();
    for path in files(&corpus("traffic/mcp-spec-examples/examples"), ".json") {
        let bytes = read(&path);
        let value: Value =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if value.get("jsonrpc").is_some() {
            messages.push(Message {
                label: label(&path),
                bytes,
            });
        }
    }
    let tally = run("mcp-spec-examples", &messages);
    // 32 envelopes: 10 calls, 8 notifications, 14 responses (results and errors).
    assert_eq!(
        tally,
        Tally {
            messages: 32,
            requests: 18,
            notifications: 8,
            others: 14
        }
    );
}

#[test]
fn lsp_inspector_entries_wrapped() {
    let mut messages = Vec::new();
    for path in files(&corpus("traffic/lsp-inspector"), ".json") {
        let text = read_text(&path);
        let entries: Vec<RawMembers<'_>> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (n, entry) in entries.iter().enumerate() {
            let field = |k: &str| -> Option<String> {
                entry
                    .get(k)
                    .and_then(|v| serde_json::from_str(v.get()).ok())
            };
            let kind = field("msgKind").unwrap_or_default();
            let with_id = match kind.as_str() {
                "send-request" | "recv-request" => true,
                "send-notification" | "recv-notification" => false,
                _ => continue,
            };
            let method = field("msgType").expect("msgType");
            let method = serde_json::to_string(&method).expect("method as JSON");
            let id = with_id.then(|| {
                let id = field("msgId").expect("msgId");
                let numeric = id.bytes().all(|b| b.is_ascii_digit())
                    && !id.is_empty()
                    && (id == "0" || !id.starts_with('0'));
                if numeric {
                    id
                } else {
                    serde_json::to_string(&id).expect("id as JSON")
                }
            });
            // The params are the entry's `arg`, byte for byte as stored.
            let params = entry.get("arg").map(|v| v.get().as_bytes());
            let method_raw = &method.as_bytes()[1..method.len() - 1];
            messages.push(Message {
                label: format!("{}[{n}]", label(&path)),
                bytes: build(method_raw, params, id.as_ref().map(|s| s.as_bytes())),
            });
        }
    }
    let tally = run("lsp-inspector", &messages);
    // 103 requests (95 sent, 8 received) and 71 notifications (49 sent, 22 received).
    assert_eq!(
        tally,
        Tally {
            messages: 174,
            requests: 174,
            notifications: 71,
            others: 0
        }
    );
}
