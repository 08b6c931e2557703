//! Back-to-back JSON framing (`frame::json_stream`, Ethereum IPC):
//!
//! | property | test |
//! |---|---|
//! | for any bytes, each message serde_json's `StreamDeserializer` reads (before its first error or scalar) is the framer's frame, in order, in any chunks | `the_frames_are_serde_jsons_values` |
//! | messages of any JSON shape, with or without whitespace between, in any chunks | `back_to_back_messages_in_any_chunks` |
//! | the newline framer's decided cases, where they apply: each message gets the reply it gets on a line of its own | `the_newline_framers_decided_cases` |
//! | the same events whole and in chunks, frames never over the buffer | `the_events_do_not_depend_on_the_chunks` |

#[path = "common/chunks.rs"]
#[allow(dead_code)]
mod chunks;
#[path = "common/served.rs"]
mod served;

use served::served;

use jsonrpc_slice::frame::json_stream::JsonStreamAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::{FeedResult, Framer};
use jsonrpc_slice::{demo, Server};
use proptest::prelude::*;
use serde_json::Value;

static SERVER: Server<()> = Server::new(demo::TABLE);

#[derive(Debug, PartialEq)]
enum Ev {
    Frame(Vec<u8>),
    Oversized,
}

/// The framer's events for `stream` fed in chunks of `sizes` (see `chunks::chunks`).
fn events<const N: usize>(stream: &[u8], sizes: &[u8]) -> Vec<Ev> {
    let mut acc = JsonStreamAccumulator::<N>::new();
    let mut out = Vec::new();
    for mut input in chunks::chunks(stream, sizes) {
        loop {
            input = match acc.feed(input) {
                FeedResult::Consumed => break,
                FeedResult::Frame { frame, remaining } => {
                    assert!(frame.len() <= N);
                    out.push(Ev::Frame(frame.to_vec()));
                    remaining
                }
                FeedResult::Oversized { remaining } => {
                    out.push(Ev::Oversized);
                    remaining
                }
                FeedResult::Malformed { .. } => panic!("json_stream reported Malformed"),
            };
        }
    }
    out
}

/// The values serde_json reads from `stream`, as the byte spans they came from, up to
/// its first error or first scalar (which the framer runs together with what follows
/// it up to a bracket, where serde_json reads each scalar alone).
fn serde_spans(stream: &[u8]) -> Vec<&[u8]> {
    let mut spans = Vec::new();
    let mut values = serde_json::Deserializer::from_slice(stream).into_iter::<Value>();
    let mut start = 0;
    while let Some(Ok(value)) = values.next() {
        if !(value.is_object() || value.is_array()) {
            break;
        }
        let end = values.byte_offset();
        let span = stream[start..end].trim_ascii_start();
        spans.push(span);
        start = end;
    }
    spans
}

/// A JSON value of any shape: strings with brackets, quotes, escapes and non-ASCII.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[{}\\[\\]\"\\\\:, a-zé\u{1F600}\u{0}-\u{1f}]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("[{}\"a-z]{0,4}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A message: an object or an array, compact or pretty.
fn message() -> impl Strategy<Value = Vec<u8>> {
    (json(), any::<bool>(), any::<bool>()).prop_map(|(v, array, pretty)| {
        let v = match v {
            v @ (Value::Array(_) | Value::Object(_)) => v,
            v if array => Value::Array(vec![v]),
            v => serde_json::json!({ "v": v }),
        };
        if pretty {
            serde_json::to_vec_pretty(&v).unwrap()
        } else {
            serde_json::to_vec(&v).unwrap()
        }
    })
}

fn whitespace() -> impl Strategy<Value = String> {
    "[ \t\r\n]{0,3}"
}

fn sizes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..4)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn back_to_back_messages_in_any_chunks(
        messages in proptest::collection::vec((message(), whitespace()), 1..6),
        sizes in sizes(),
    ) {
        let mut stream = Vec::new();
        for (m, ws) in &messages {
            stream.extend_from_slice(m);
            stream.extend_from_slice(ws.as_bytes());
        }
        let want: Vec<Ev> = messages.iter().map(|(m, _)| Ev::Frame(m.clone())).collect();
        prop_assert_eq!(events::<{ 1 << 16 }>(&stream, &sizes), want);
    }

    #[test]
    fn the_frames_are_serde_jsons_values(
        messages in proptest::collection::vec((message(), whitespace()), 1..5),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 0..4),
        sizes in sizes(),
    ) {
        let mut stream = Vec::new();
        for (m, ws) in &messages {
            stream.extend_from_slice(m);
            stream.extend_from_slice(ws.as_bytes());
        }
        // Bytes replaced, inserted or removed anywhere (JSON's own bytes most often).
        let alphabet = b"{}[]\":,\\ \n\x01a1-";
        for (at, byte, kind) in edits {
            let at = at.index(stream.len() + 1);
            let byte = if byte < 128 { alphabet[usize::from(byte) % alphabet.len()] } else { byte };
            match kind {
                0 if at < stream.len() => stream[at] = byte,
                1 => stream.insert(at, byte),
                _ if at < stream.len() => { stream.remove(at); }
                _ => {}
            }
        }
        let want = serde_spans(&stream);
        let got = events::<{ 1 << 16 }>(&stream, &sizes);
        prop_assert!(got.len() >= want.len(), "{:?} for {:?}", got, want);
        for (g, w) in got.iter().zip(&want) {
            prop_assert_eq!(g, &Ev::Frame(w.to_vec()), "in {:?}", String::from_utf8_lossy(&stream));
        }
    }

    #[test]
    fn the_events_do_not_depend_on_the_chunks(
        stream in proptest::collection::vec(
            prop_oneof![
                3 => proptest::sample::select(b"{}[]\":,\\ \n\r\tae1-".to_vec()),
                1 => any::<u8>(),
            ],
            0..200,
        ),
        sizes in sizes(),
    ) {
        prop_assert_eq!(events::<16>(&stream, &sizes), events::<16>(&stream, &[]));
    }
}

/// The replies of a run with `framer`, each as JSON.
fn replies<F: Framer>(framer: &mut F, stream: &[u8]) -> Vec<Value> {
    let mut out = [0u8; 1024];
    let wire = served(&SERVER, &mut (), framer, &mut out, [stream]).wire();
    // Each reply ends in `\n`, as geth's do.
    assert!(wire.is_empty() || wire.ends_with(b"\n"));
    wire.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON reply"))
        .collect()
}

/// Each message gets the reply it gets from the newline framer on a line of its own:
/// requests, notifications, batches, scalars (`-32600`), text that is not JSON and
/// messages that break off (`-32700`), frames over the buffer (`-32600`), the end of
/// input inside a message (`-32700`); and the message after each is served.
#[test]
fn the_newline_framers_decided_cases() {
    const MAX: usize = 512;
    let next = br#"{"jsonrpc":"2.0","method":"subtract","params":[9,2],"id":"next"}"#;
    let cases: Vec<Vec<u8>> = vec![
        br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}"#.to_vec(),
        br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]"#.to_vec(),
        br#"[{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"nope","id":{"a":1}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"foobar"}"#.to_vec(),
        b"[]".to_vec(),
        b"[1,2]".to_vec(),
        b"{}".to_vec(),
        b"1".to_vec(),
        b"\"x\"".to_vec(),
        b"null".to_vec(),
        b"hello".to_vec(),
        br#"{"jsonrpc":"2.0","method":"foobar, "params": "bar", "baz]"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"subtract","params":[1 2],"id":3}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":3"#.to_vec(),
        format!(r#"{{"jsonrpc":"2.0","method":"echo","params":["{}"],"id":2}}"#, "x".repeat(2 * MAX)).into_bytes(),
        common_nested(200).into_bytes(),
    ];
    for case in &cases {
        let mut lines = case.clone();
        lines.push(b'\n');
        lines.extend_from_slice(next);
        lines.push(b'\n');
        let want = replies(&mut LineAccumulator::<MAX>::new(), &lines);
        let mut back_to_back = case.clone();
        back_to_back.extend_from_slice(next);
        let got = replies(&mut JsonStreamAccumulator::<MAX>::new(), &back_to_back);
        assert_eq!(got, want, "{}", String::from_utf8_lossy(case));
        assert_eq!(got.last().unwrap()["id"], "next");
        // At the end of input: the same again.
        let want = replies(&mut LineAccumulator::<MAX>::new(), case);
        let got = replies(&mut JsonStreamAccumulator::<MAX>::new(), case);
        assert_eq!(got, want, "at the end: {}", String::from_utf8_lossy(case));
    }
    // A message cut short by the end of input: `-32700`, `"id":null`, as a line cut
    // short is.
    for cut in [1, 10, 40] {
        let got = replies(&mut JsonStreamAccumulator::<MAX>::new(), &next[..cut]);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0]["error"]["code"], -32700);
        assert_eq!(got[0]["id"], Value::Null);
    }
    // Whitespace only: nothing.
    assert!(replies(&mut JsonStreamAccumulator::<MAX>::new(), b" \r\n\t\n").is_empty());
}

/// Arrays nested `depth` deep in a request's params.
fn common_nested(depth: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"echo","params":{}{},"id":4}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    )
}
