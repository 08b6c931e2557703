//! Every input a fuzz target ever failed on (`tests/regressions/<target>-<name>`),
//! replayed as an ordinary test, so a regression fails `cargo test` and not only the
//! fuzz smoke run. Each input is decoded the way its target decodes it (see the
//! target's header in `fuzz/fuzz_targets/`).

use std::fs;
use std::path::Path;

use jsonrpc_slice::envelope::{parse_response, Outcome, ResponseMessage};
use jsonrpc_slice::frame::newline::{FeedResult, LineAccumulator};
use jsonrpc_slice::{demo, Limits, Server};

#[path = "common/chunks.rs"]
mod chunks;
#[path = "common/room.rs"]
mod room;
use chunks::chunks;
use room::without_room;

/// The regression inputs of `target`, by file name.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut found: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{target}-"))
        })
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

/// The frames (`Some`) and oversized markers (`None`) of a newline stream fed in
/// chunks of `sizes` (cycled; empty or all zero: whole).
fn line_events<const N: usize>(stream: &[u8], sizes: &[u8]) -> Vec<Option<Vec<u8>>> {
    let mut acc = LineAccumulator::<N>::new();
    let mut events = Vec::new();
    for mut input in chunks(stream, sizes) {
        loop {
            match acc.feed(input) {
                FeedResult::Consumed => break,
                FeedResult::Frame { frame, remaining } => {
                    events.push(Some(frame.to_vec()));
                    input = remaining;
                }
                FeedResult::Oversized { remaining } | FeedResult::Malformed { remaining } => {
                    events.push(None);
                    input = remaining;
                }
            }
        }
    }
    events
}

#[test]
fn line_framing_inputs_frame_alike_whole_and_chunked() {
    let found = inputs("line_framing");
    assert!(
        found.len() >= 2,
        "the committed line_framing regressions are missing"
    );
    for (name, data) in found {
        // `k = data[0] % 8 + 1` chunk sizes follow, then the stream.
        let (_, sizes, stream) = chunks::split_input(&data).expect(&name);
        assert_eq!(
            line_events::<256>(stream, &[]),
            line_events::<256>(stream, sizes),
            "{name}"
        );
        assert_eq!(
            line_events::<8>(stream, &[]),
            line_events::<8>(stream, sizes),
            "{name}"
        );
    }
}

#[test]
fn response_inputs_parse_as_error_responses() {
    let found = inputs("response");
    assert!(
        found.len() >= 2,
        "the committed response regressions are missing"
    );
    for (name, data) in found {
        // Both are error responses that serde_json reads differently from a plain
        // `Value` (a number beyond f64 in `data`, a code of `-0`): the parser accepts
        // them, with an integer code.
        let Ok(ResponseMessage::Single(Ok(r))) = parse_response(&data, &Limits::DEFAULT) else {
            panic!("{name}: not an accepted response");
        };
        let Outcome::Error(e) = r.outcome else {
            panic!("{name}: not an error response");
        };
        assert!(e.code == 0 || e.code == -32000, "{name}: code {}", e.code);
    }
}

#[test]
fn handle_inputs_answer_alike_in_a_small_and_a_large_buffer() {
    static SERVER: Server<()> = Server::new(demo::TABLE);
    let found = inputs("handle");
    assert!(
        !found.is_empty(),
        "the committed handle regressions are missing"
    );
    for (name, data) in found {
        let mut small = [0u8; 256];
        let mut large = vec![0u8; 64 * 1024];
        let small = SERVER.handle(&mut (), &data, &mut small).unwrap();
        let large = SERVER.handle(&mut (), &data, &mut large).unwrap();
        assert!(large.len() <= 256, "{name}: the reply fits in 256 bytes");
        // The replies may differ only in the room an overflow message names (the first
        // input: a batch whose `big` call overflows, answered -32603 with 254 and 65534
        // bytes of room).
        assert_eq!(without_room(small), without_room(large), "{name}");
    }
}

#[test]
fn stream_framing_inputs_answer_every_frame_with_a_response_that_keeps_the_id() {
    static SERVER: Server<()> = Server::new(demo::TABLE);
    let found = inputs("stream_framing");
    assert!(
        !found.is_empty(),
        "the committed stream_framing regressions are missing"
    );
    for (name, data) in found {
        // `data[0]`: bit 7 set picks Content-Length (these are newline streams);
        // `k = data[0] % 8 + 1` chunk sizes follow, then the stream.
        let (head, _, stream) = chunks::split_input(&data).expect(&name);
        assert_eq!(head & 0x80, 0, "{name}: a newline stream");
        let frames: Vec<Vec<u8>> = line_events::<256>(stream, &[])
            .into_iter()
            .flatten()
            .collect();
        assert!(!frames.is_empty(), "{name}");
        for frame in frames {
            let mut out = [0u8; 256];
            let reply = SERVER.handle(&mut (), &frame, &mut out).unwrap();
            // The id `999999999999E99999990` is beyond f64: a reader that converts
            // numbers refuses it, but it is valid JSON and must come back as sent.
            let id_at = frame.windows(5).position(|w| w == b"\"id\":").unwrap() + 5;
            let id_end = frame[id_at..].iter().position(|&b| b == b'}').unwrap() + id_at;
            let id = &frame[id_at..id_end];
            assert!(
                reply.ends_with(&[b"\"id\":", id, b"}"].concat()),
                "{name}: {}",
                String::from_utf8_lossy(reply)
            );
        }
    }
}
