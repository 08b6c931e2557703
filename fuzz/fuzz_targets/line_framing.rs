//! `LineAccumulator` fed one byte stream whole, and cut into chunks: the same frames
//! and oversized markers, each at the same newline, and the same pending bytes at the
//! end. Run with N = 256 (a host-sized buffer) and N = 8 (so that long lines are cheap).
//!
//! Input: `k = data[0] % 8 + 1`, then k chunk sizes (one byte each, 0 = an empty feed,
//! used in a cycle), then the stream.
//!
//! No case is exempted. The `\r\n` edge (a line of exactly N bytes, then `\r\n` with
//! the `\r` and the `\n` in different chunks: a frame when fed whole, `Oversized` when
//! cut) was found by this target at commit e3ba09b and fixed in 6423205 (`held_cr`
//! in `newline.rs`); its inputs are kept in `tests/regressions/line_framing-cr-split-*`,
//! which `smoke.sh` replays on every run.
#![no_main]

use jsonrpc_slice::frame::newline::{FeedResult, LineAccumulator};
use jsonrpc_slice_fuzz as oracle;
use libfuzzer_sys::fuzz_target;

#[derive(PartialEq, Eq)]
enum Event {
    Frame(Vec<u8>),
    Oversized,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Event::Frame(b) => write!(
                f,
                "Frame({} bytes: {:?})",
                b.len(),
                String::from_utf8_lossy(b)
            ),
            Event::Oversized => f.write_str("Oversized"),
        }
    }
}

/// The events, each with the offset of the newline that ended its line, and the bytes
/// pending at the end. `sizes` empty: the whole stream in one feed.
fn run<const N: usize>(stream: &[u8], sizes: &[u8]) -> (Vec<(usize, Event)>, usize) {
    let mut acc = LineAccumulator::<N>::new();
    let mut events = Vec::new();
    let mut end = 0;
    for chunk in oracle::chunks(stream, sizes) {
        end += chunk.len();
        let mut input = chunk;
        loop {
            let (event, remaining) = match acc.feed(input) {
                FeedResult::Consumed => break,
                FeedResult::Frame { frame, remaining } => {
                    assert!(frame.len() <= N && !frame.contains(&b'\n'));
                    (Event::Frame(frame.to_vec()), remaining)
                }
                FeedResult::Oversized { remaining } => (Event::Oversized, remaining),
                #[allow(unreachable_patterns)]
                other => panic!("newline framing reported {other:?}"),
            };
            assert!(remaining.len() < input.len(), "no progress");
            let newline = end - remaining.len() - 1;
            assert_eq!(stream[newline], b'\n');
            assert!(events.last().is_none_or(|&(last, _)| last < newline));
            events.push((newline, event));
            input = remaining;
        }
    }
    (events, acc.pending())
}

fn check<const N: usize>(stream: &[u8], sizes: &[u8]) {
    let (whole, whole_pending) = run::<N>(stream, &[]);
    let (chunked, chunked_pending) = run::<N>(stream, sizes);
    if whole != chunked {
        let at = whole.iter().zip(&chunked).position(|(w, c)| w != c);
        let at = at.unwrap_or(whole.len().min(chunked.len()));
        let (w, c) = (whole.get(at), chunked.get(at));
        panic!("N = {N}, event {at}: whole {w:?}, chunked {c:?} (newline offset, event)");
    }
    assert_eq!(whole_pending, chunked_pending, "pending bytes (N = {N})");
}

fuzz_target!(|data: &[u8]| {
    let Some((_, sizes, stream)) = oracle::split_input(data) else {
        return;
    };
    let sizes: &[u8] = if sizes.iter().all(|&s| s == 0) {
        &[1]
    } else {
        sizes
    };
    check::<256>(stream, sizes);
    check::<8>(stream, sizes);
});
