//! The specification's examples (section 7) as test cases, and the checks every
//! example's reply must pass; the examples themselves are in
//! [`super::vectors::spec_examples`] (and, as published, in the conformance corpus).

use std::collections::BTreeMap;

use jsonrpc_slice::{demo, Server};
use serde_json::value::RawValue;
use serde_json::Value;

/// One example: a request and the response it expects (`None`: no response at all).
#[derive(Debug)]
pub struct Example {
    /// The `### N. title` heading it is under.
    pub section: String,
    /// The request, byte for byte.
    pub request: Vec<u8>,
    /// The response the specification shows.
    pub response: Option<Vec<u8>>,
}

/// The raw text of the `id` member of each response object of a reply (an object, or
/// an array of them), in order. `None` for an object without `id`.
pub fn raw_ids(reply: &[u8]) -> Vec<Option<String>> {
    type Obj = BTreeMap<String, Box<RawValue>>;
    let objects: Vec<Obj> = match serde_json::from_slice::<Value>(reply) {
        Ok(Value::Array(_)) => serde_json::from_slice(reply).expect("an array of objects"),
        Ok(Value::Object(_)) => vec![serde_json::from_slice(reply).expect("an object")],
        other => panic!(
            "not a JSON object or array: {other:?}: {}",
            String::from_utf8_lossy(reply)
        ),
    };
    objects
        .into_iter()
        .map(|o| o.get("id").map(|id| id.get().to_owned()))
        .collect()
}

pub fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Replays every example against the demo server: no reply where none is due, else
/// the response the specification shows (as parsed JSON) with every id echoed byte for
/// byte. Returns the failures.
pub fn reply_failures(examples: &[Example]) -> Vec<String> {
    let server = Server::new(demo::TABLE);
    let mut out = vec![0u8; 64 * 1024];
    let mut failures = Vec::new();

    for e in examples {
        let reply = match server.handle(&mut (), &e.request, &mut out) {
            Ok(reply) => reply.to_vec(),
            Err(err) => {
                failures.push(format!("{}: handle failed: {err}", e.section));
                continue;
            }
        };
        let Some(expected) = &e.response else {
            if !reply.is_empty() {
                failures.push(format!(
                    "{}: expected no reply at all, got {:?}\n  request: {}",
                    e.section,
                    show(&reply),
                    show(&e.request)
                ));
            }
            continue;
        };
        let want: Value = serde_json::from_slice(expected).expect("expected is JSON");
        let got: Value = match serde_json::from_slice(&reply) {
            Ok(v) => v,
            Err(err) => {
                failures.push(format!(
                    "{}: reply is not JSON ({err}): {:?}",
                    e.section,
                    show(&reply)
                ));
                continue;
            }
        };
        if want != got {
            failures.push(format!(
                "{}: wrong reply\n  request:  {}\n  expected: {}\n  got:      {}",
                e.section,
                show(&e.request),
                want,
                show(&reply)
            ));
            continue;
        }
        let (want_ids, got_ids) = (raw_ids(expected), raw_ids(&reply));
        if want_ids != got_ids {
            failures.push(format!(
                "{}: ids not echoed byte for byte: expected {want_ids:?}, got {got_ids:?}\n  reply: {}",
                e.section,
                show(&reply)
            ));
        }
        for id in got_ids.iter().flatten() {
            if !reply.windows(id.len()).any(|w| w == id.as_bytes()) {
                failures.push(format!("{}: id {id} not in the raw reply", e.section));
            }
        }
    }
    failures
}

/// The same replies into a buffer just large enough (no bytes at all where no reply
/// is due): a reply must never depend on spare room after it. Returns the failures.
pub fn exact_buffer_failures(examples: &[Example]) -> Vec<String> {
    // The same replies into a buffer just large enough (no bytes at all where no reply
    // is due): a reply must never depend on spare room after it.
    let server = Server::new(demo::TABLE);
    let mut big = vec![0u8; 64 * 1024];
    let mut failures = Vec::new();
    for e in examples {
        let reply = server
            .handle(&mut (), &e.request, &mut big)
            .expect("fits in 64 KiB")
            .to_vec();
        let mut exact = vec![0u8; reply.len()];
        match server.handle(&mut (), &e.request, &mut exact) {
            Ok(again) if again == reply.as_slice() => {}
            Ok(again) => failures.push(format!(
                "{}: in a buffer of {} bytes: {:?}, in 64 KiB: {:?}",
                e.section,
                reply.len(),
                show(again),
                show(&reply)
            )),
            Err(err) => failures.push(format!(
                "{}: {err:?} in a buffer of {} bytes (the reply is {:?})",
                e.section,
                reply.len(),
                show(&reply)
            )),
        }
    }
    failures
}
