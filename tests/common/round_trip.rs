//! The round trip of one message (parse → write → parse → echo), for the crate's own
//! vectors (`tests/round_trip.rs`) and the conformance corpus
//! (`tests/conformance/round_trip.rs`): see the former for what is checked.

use std::collections::HashMap;

use jsonrpc_slice::envelope::{self, Call, Envelope, Request};
use jsonrpc_slice::{demo, Limits, Server};
use serde_json::value::RawValue;
use serde_json::Value;

static SERVER: Server<()> = Server::new(demo::TABLE);

/// The members of one JSON object as serde_json's raw spans (keys decoded).
pub type RawMembers<'a> = HashMap<String, &'a RawValue>;

/// One message to test: where it comes from, and its bytes.
pub struct Message {
    /// Where it comes from.
    pub label: String,
    /// The message.
    pub bytes: Vec<u8>,
}

/// What one source gave.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Messages read.
    pub messages: usize,
    /// Request objects, notifications included: each one is round-tripped.
    pub requests: usize,
    /// The requests without an `id`.
    pub notifications: usize,
    /// Elements that are not requests (responses, fragments): parsed, not round-tripped.
    pub others: usize,
}

/// `{"jsonrpc":"2.0","method":"<method>","params":<params>,"id":<id>}`, without the
/// members that are `None`.
pub fn build(method_raw: &[u8], params: Option<&[u8]>, id: Option<&[u8]>) -> Vec<u8> {
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
pub fn run(source: &str, messages: &[Message]) -> Tally {
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
