//! `JsonStreamAccumulator` (back-to-back JSON, Ethereum IPC) fed one byte stream whole,
//! and cut into chunks: the same frames and oversized markers, each ended at the same
//! offset, and the same verdict at the end of input. Run with N = 256 and N = 8 (so
//! that oversized frames are cheap). And serde_json's `StreamDeserializer` as the
//! oracle: each object or array it reads from the stream, up to its first error or
//! scalar, is the framer's frame, in order.
//!
//! Input: `k = data[0] % 8 + 1`, then k chunk sizes (one byte each, 0 = an empty feed,
//! used in a cycle), then the stream.
#![no_main]

use jsonrpc_slice::frame::json_stream::JsonStreamAccumulator;
use jsonrpc_slice::frame::{EndOfInput, FeedResult};
use jsonrpc_slice_fuzz as oracle;
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;

#[derive(Debug, PartialEq, Eq)]
enum Event {
    Frame(Vec<u8>),
    Oversized,
    /// What `finish` said.
    End(String),
}

/// The events, each with the offset just past the bytes it took. `sizes` empty: the
/// whole stream in one feed.
fn run<const N: usize>(stream: &[u8], sizes: &[u8]) -> Vec<(usize, Event)> {
    let mut acc = JsonStreamAccumulator::<N>::new();
    let mut events = Vec::new();
    let mut end = 0;
    for chunk in oracle::chunks(stream, sizes) {
        end += chunk.len();
        let mut input = chunk;
        loop {
            let (event, remaining) = match acc.feed(input) {
                FeedResult::Consumed => break,
                FeedResult::Frame { frame, remaining } => {
                    assert!(frame.len() <= N && !frame.is_empty());
                    (Event::Frame(frame.to_vec()), remaining)
                }
                FeedResult::Oversized { remaining } => (Event::Oversized, remaining),
                other => panic!("json_stream framing reported {other:?}"),
            };
            assert!(remaining.len() <= input.len());
            events.push((end - remaining.len(), event));
            input = remaining;
        }
    }
    let last = match acc.finish() {
        EndOfInput::Frame(frame) => {
            assert!(frame.len() <= N && !frame.is_empty());
            format!("frame {frame:?}")
        }
        other => format!("{other:?}"),
    };
    events.push((stream.len(), Event::End(last)));
    events
}

fn check<const N: usize>(stream: &[u8], sizes: &[u8]) {
    let whole = run::<N>(stream, &[]);
    let chunked = run::<N>(stream, sizes);
    if whole != chunked {
        let at = whole.iter().zip(&chunked).position(|(w, c)| w != c);
        let at = at.unwrap_or(whole.len().min(chunked.len()));
        let (w, c) = (whole.get(at), chunked.get(at));
        panic!("N = {N}, event {at}: whole {w:?}, chunked {c:?} (end offset, event)");
    }
}

/// serde_json's values, as the spans of the stream they came from, while they are
/// objects or arrays.
fn serde_spans(stream: &[u8]) -> Vec<&[u8]> {
    let mut spans = Vec::new();
    let mut values = serde_json::Deserializer::from_slice(stream).into_iter::<&RawValue>();
    let mut start = 0;
    while let Some(Ok(value)) = values.next() {
        if !value.get().starts_with(['{', '[']) {
            break;
        }
        let end = values.byte_offset();
        spans.push(stream[start..end].trim_ascii_start());
        start = end;
    }
    spans
}

fuzz_target!(|data: &[u8]| {
    let Some((_, sizes, stream)) = oracle::split_input(data) else {
        return;
    };
    check::<256>(stream, sizes);
    check::<8>(stream, sizes);
    let frames = run::<4096>(stream, sizes);
    for (i, span) in serde_spans(stream).into_iter().enumerate() {
        assert_eq!(
            frames.get(i).map(|(_, e)| e),
            Some(&Event::Frame(span.to_vec())),
            "value {i} as serde_json reads it"
        );
    }
});
