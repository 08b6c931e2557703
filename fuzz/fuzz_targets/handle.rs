//! `Server::handle` on the demo table, any input, into a 256 B and a 64 KiB buffer.
//!
//! - Never panics; the 64 KiB buffer always holds a reply (ids are at most 256 bytes).
//! - A reply is one response object or a non-empty array of them (see
//!   `jsonrpc_slice_fuzz::responses`); the 256 B reply is the 64 KiB one whenever that
//!   fits, and otherwise holds a `-32603` in its place (or nothing, `OutputTooSmall`).
//! - Not JSON for serde_json → exactly one `-32700`, id `null`. The two documented
//!   differences are decided exactly: nesting deeper than 128 and unpaired `\u`
//!   surrogate escapes are `-32700` here, while serde_json's `RawValue` takes them.
//! - Valid JSON otherwise → never `-32700`; notifications (and all-notification
//!   batches) get no reply; a call is answered with its id byte for byte; an invalid
//!   Request object gets `-32600`; batch replies keep request order.
#![no_main]

use jsonrpc_slice::{demo, Server};
use jsonrpc_slice_fuzz::{self as oracle, Shape};
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;

static SERVER: Server<()> = Server::new(demo::TABLE);

fuzz_target!(|data: &[u8]| {
    let mut small = [0u8; 256];
    let mut large = vec![0u8; 64 * 1024];
    let small = SERVER.handle(&mut (), data, &mut small);
    let large = SERVER
        .handle(&mut (), data, &mut large)
        .expect("a 64 KiB buffer always holds an error reply");
    let (batch, replies) = match large {
        [] => (false, Vec::new()),
        reply => oracle::responses(reply),
    };
    // A reply that fits in 256 bytes is the same in both buffers, but for the room an
    // overflow message names (the whole buffer, or what a batch left: 65536 or
    // 65534 against 256 or 254).
    if large.len() <= 256 {
        let small = small.map(oracle::without_room);
        assert_eq!(
            small,
            Ok(oracle::without_room(large)),
            "256 B reply differs though the reply fits"
        );
    } else if let Ok(small) = small {
        if !small.is_empty() {
            oracle::responses(small);
        }
        let internal = small.windows(6).any(|w| w == b"-32603");
        assert!(
            small == large || internal,
            "256 B reply differs without -32603"
        );
    }

    let parse_error = !large.is_empty() && oracle::is_parse_error(large);
    if !oracle::serde_accepts(data)
        || oracle::nesting(data) > oracle::MAX_DEPTH
        || oracle::has_unpaired_surrogate(data)
    {
        assert!(parse_error, "not JSON, but no single -32700");
        return;
    }
    assert!(!parse_error, "valid JSON answered with -32700");

    let text = std::str::from_utf8(data).unwrap_or_default();
    let text = text.trim_matches([' ', '\t', '\n', '\r']);
    let single_code = |code| !batch && replies.len() == 1 && replies[0].code == Some(code);
    if !text.starts_with('[') {
        match oracle::shape(text) {
            Shape::Notification => assert!(large.is_empty(), "notification answered"),
            Shape::Call(id) => assert!(!batch && replies.len() == 1 && replies[0].id == id),
            Shape::Invalid => assert!(single_code(-32600), "invalid request not -32600"),
            Shape::Unknown => {}
        }
        return;
    }
    let elements: Vec<&RawValue> = serde_json::from_str(text).expect("an array");
    if elements.is_empty() || elements.len() > 1024 {
        assert!(
            single_code(-32600),
            "empty or too large batch not one -32600"
        );
        return;
    }
    let shapes: Vec<Shape> = elements.iter().map(|e| oracle::shape(e.get())).collect();
    if shapes.contains(&Shape::Unknown) || single_code(-32603) {
        return; // undecided element, or the whole batch reply did not fit
    }
    let answered: Vec<&Shape> = shapes
        .iter()
        .filter(|s| **s != Shape::Notification)
        .collect();
    if answered.is_empty() {
        assert!(large.is_empty(), "all-notification batch answered");
        return;
    }
    assert!(batch, "batch not answered with an array");
    assert_eq!(
        replies.len(),
        answered.len(),
        "one response per non-notification"
    );
    for (shape, reply) in answered.iter().zip(&replies) {
        match shape {
            Shape::Call(id) => assert_eq!(reply.id, *id, "batch reply out of order"),
            _ => assert_eq!(reply.code, Some(-32600), "invalid element not -32600"),
        }
    }
});
