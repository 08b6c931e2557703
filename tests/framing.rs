//! Stream framing: the same byte stream cut at every possible chunk boundary gives
//! the same replies as one-shot input, and garbage or oversized frames in the middle
//! of a stream lose no valid frame after them. Both framings, through the same
//! serve loop (`service::Service`) the servers use. COBS, with and without a
//! checksum, through the same loop and through `Service`, with corrupted frames among
//! the valid ones.

#[path = "common/served.rs"]
mod served;

use served::served;

use jsonrpc_slice::frame::cobs::{Check, CobsAccumulator};
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::{frame_message, FeedResult, Framer};
use jsonrpc_slice::service::Service;
use jsonrpc_slice::{demo, Server};
use serde_json::Value;

static SERVER: Server<()> = Server::new(demo::TABLE);

/// The frame size both framers get here: small, so oversized frames are cheap.
const MAX: usize = 256;

/// The messages of the stream, in order, each with the reply it must get (`None`:
/// no reply).
fn messages() -> Vec<(Vec<u8>, Option<Value>)> {
    let ok = |result: Value, id: Value| {
        Some(serde_json::json!({"jsonrpc": "2.0", "result": result, "id": id}))
    };
    let err = |code: i64, id: Value| Some(serde_json::json!({"code": code, "id": id}));
    vec![
        (br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#.to_vec(), ok(19.into(), 1.into())),
        (br#"{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}"#.to_vec(), None),
        (br#"{"jsonrpc":"2.0","method":"foobar, "params": "bar", "baz]"#.to_vec(), err(-32700, Value::Null)),
        (format!(r#"{{"jsonrpc":"2.0","method":"echo","params":["{}"],"id":2}}"#, "x".repeat(2 * MAX)).into_bytes(), err(-32600, Value::Null)),
        (br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]"#.to_vec(), Some(serde_json::json!([{"jsonrpc":"2.0","result":7,"id":"1"}]))),
        (br#"{"jsonrpc":"2.0","method":"get_data","id":"9"}"#.to_vec(), ok(serde_json::json!(["hello", 5]), "9".into())),
        (b"[]".to_vec(), err(-32600, Value::Null)),
        (br#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":3}"#.to_vec(), ok(19.into(), 3.into())),
    ]
}

/// The replies of one run (before the end of its input), as framed bytes.
fn run<F: Framer>(framer: &mut F, chunks: &[&[u8]]) -> Vec<u8> {
    let mut out = [0u8; 1024];
    served(&SERVER, &mut (), framer, &mut out, chunks.iter().copied())
        .replies
        .concat()
}

/// Splits framed replies back into JSON values.
fn newline_replies(wire: &[u8]) -> Vec<Value> {
    wire.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn content_length_replies(mut wire: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    while !wire.is_empty() {
        let text = std::str::from_utf8(wire).unwrap();
        let rest = text.strip_prefix("Content-Length: ").expect("a header");
        let end = rest.find("\r\n\r\n").unwrap();
        let len: usize = rest[..end].parse().unwrap();
        let body_start = "Content-Length: ".len() + end + 4;
        out.push(serde_json::from_slice(&wire[body_start..body_start + len]).unwrap());
        wire = &wire[body_start + len..];
    }
    out
}

/// Checks replies against the expected ones: code and id for errors, whole value
/// otherwise.
fn check(got: &[Value], want: &[Value]) {
    assert_eq!(got.len(), want.len(), "replies: {got:?}");
    for (g, w) in got.iter().zip(want) {
        match w.get("code") {
            Some(code) => {
                assert_eq!(&g["error"]["code"], code, "{g}");
                assert_eq!(&g["id"], &w["id"], "{g}");
            }
            None => assert_eq!(g, w),
        }
    }
}

fn every_split<F: Framer>(stream: &[u8], fresh: impl Fn() -> F) -> Vec<u8> {
    let whole = run(&mut fresh(), &[stream]);
    for split in 0..=stream.len() {
        let got = run(&mut fresh(), &[&stream[..split], &stream[split..]]);
        assert_eq!(got, whole, "split at {split}");
    }
    for size in 1..=9 {
        let chunks: Vec<&[u8]> = stream.chunks(size).collect();
        assert_eq!(run(&mut fresh(), &chunks), whole, "chunks of {size}");
    }
    whole
}

#[test]
fn newline_stream_at_every_split() {
    let mut stream = Vec::new();
    let mut want = Vec::new();
    for (i, (msg, reply)) in messages().into_iter().enumerate() {
        stream.extend_from_slice(&msg);
        // Vary the line ends, and put blank lines in between.
        stream.extend_from_slice(if i % 2 == 0 { b"\r\n" } else { b"\n \t\n\n" });
        want.extend(reply);
    }
    let wire = every_split(&stream, LineAccumulator::<MAX>::new);
    check(&newline_replies(&wire), &want);
}

#[test]
fn content_length_stream_at_every_split() {
    let mut stream = Vec::new();
    let mut want = Vec::new();
    for (i, (msg, reply)) in messages().into_iter().enumerate() {
        stream.extend_from_slice(format!("Content-Length: {}\r\n", msg.len()).as_bytes());
        if i % 2 == 1 {
            stream
                .extend_from_slice(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n");
        }
        stream.extend_from_slice(b"\r\n");
        stream.extend_from_slice(&msg);
        want.extend(reply);
        if i == 4 {
            // Garbage between two messages: one -32600, and nothing after it lost.
            stream.extend_from_slice(b"this is not a header\r\n\r\n");
            want.push(serde_json::json!({"code": -32600, "id": null}));
        }
    }
    let wire = every_split(&stream, ContentLengthAccumulator::<MAX>::new);
    check(&content_length_replies(&wire), &want);
}

#[test]
fn replies_never_hold_a_raw_newline() {
    // Over newline framing a reply must be one line: params with escaped newlines
    // come back escaped.
    let wire = run(
        &mut LineAccumulator::<MAX>::new(),
        &[
            br#"{"jsonrpc":"2.0","method":"echo","params":["a\nb"],"id":"\n"}"#,
            b"\n",
        ],
    );
    assert_eq!(wire.iter().filter(|&&b| b == b'\n').count(), 1);
    assert_eq!(wire.last(), Some(&b'\n'));
}

/// A message framed as `framer` frames its own.
fn framed_by<F: Framer>(framer: &F, msg: &[u8]) -> Vec<u8> {
    frame_message(framer, msg)
        .pieces()
        .flatten()
        .copied()
        .collect()
}

/// Splits COBS-framed replies back into JSON values, checking each one's checksum.
fn cobs_replies(check: Check, mut wire: &[u8]) -> Vec<Value> {
    let mut acc = CobsAccumulator::<4096>::with_check(check);
    let mut out = Vec::new();
    loop {
        match acc.feed(wire) {
            FeedResult::Consumed => break,
            FeedResult::Frame { frame, remaining } => {
                out.push(serde_json::from_slice(frame).unwrap());
                wire = remaining;
            }
            other => panic!("not a reply frame: {other:?}"),
        }
    }
    assert_eq!(acc.dropped(), 0, "a reply failed its check");
    assert_eq!(acc.pending(), 0, "a reply without its delimiter");
    out
}

/// The stream of `messages()` under COBS with `check`, empty frames and corrupted
/// frames in between: with a checksum a corrupted frame is dropped (no reply, the
/// next frame served); without one, a flipped byte inside a string goes through.
fn cobs_stream(check: Check) -> (Vec<u8>, Vec<Value>) {
    let framer = CobsAccumulator::<MAX>::with_check(check);
    let mut stream = vec![0];
    let mut want = Vec::new();
    for (i, (msg, reply)) in messages().into_iter().enumerate() {
        if i == 2 && check != Check::None {
            // A request with one bit flipped in its payload: never answered.
            let mut bad = framed_by(
                &framer,
                br#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":7}"#,
            );
            bad[30] ^= 0x04;
            stream.extend_from_slice(&bad);
            // A request with its last byte before the delimiter dropped: the same.
            let mut short = framed_by(
                &framer,
                br#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":8}"#,
            );
            short.remove(short.len() - 2);
            stream.extend_from_slice(&short);
        }
        stream.extend(framed_by(&framer, &msg));
        if i % 3 == 0 {
            stream.push(0);
        }
        want.extend(reply);
    }
    (stream, want)
}

#[test]
fn cobs_stream_at_every_split() {
    for check in [Check::None, Check::Crc16, Check::Crc32] {
        let (stream, want) = cobs_stream(check);
        let wire = every_split(&stream, || CobsAccumulator::<MAX>::with_check(check));
        check_replies(check, &wire, &want);
    }
}

fn check_replies(sum: Check, wire: &[u8], want: &[Value]) {
    assert_eq!(
        wire.iter().filter(|&&b| b == 0).count(),
        want.len(),
        "one delimiter per reply ({sum:?})"
    );
    check(&cobs_replies(sum, wire), want);
}

/// The same stream through `Service`, the serve loops' state machine, read in small
/// chunks: the same replies.
#[test]
fn cobs_through_the_service() {
    for check in [Check::None, Check::Crc32] {
        let (stream, want) = cobs_stream(check);
        let mut framer = CobsAccumulator::<MAX>::with_check(check);
        let (mut chunk, mut output) = ([0u8; 7], [0u8; 1024]);
        let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut output);
        let mut input = &stream[..];
        let mut wire = Vec::new();
        loop {
            while let Some(reply) = service.next(&mut ()) {
                reply.pieces().for_each(|p| wire.extend_from_slice(p));
            }
            if service.is_done() {
                break;
            }
            let buf = service.input_buffer();
            let n = input.len().min(buf.len());
            buf[..n].copy_from_slice(&input[..n]);
            input = &input[n..];
            match n {
                0 => service.end_of_input(),
                n => service.received(n),
            }
        }
        check_replies(check, &wire, &want);
        assert_eq!(framer.dropped(), if check == Check::None { 0 } else { 2 });
    }
}
