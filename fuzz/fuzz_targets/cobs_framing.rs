//! `CobsAccumulator`, both directions, on any bytes.
//!
//! Input: `data[0]` (its bits 3-4 pick the check: none, CRC-16, CRC-32, CRC-32), `k =
//! data[0] % 8 + 1` chunk sizes (0 = an empty feed, used in a cycle), then the stream.
//!
//! - **Decoding a stream.** Fed whole and cut into the chunk sizes, the same frames and
//!   oversized markers, each at the same `0x00`, the same count of dropped frames and
//!   the same bytes pending at the end (N = 256, and N = 8 so long frames are cheap).
//!   Every frame fits the capacity, and under a check it is one whose checksum held:
//!   framed again with the same check it encodes back to a stream that decodes to it.
//! - **Encoding any payload.** The stream taken as one payload and framed as a reply
//!   (`frame_message`): exactly one `0x00`, at the end, and it decodes back to the
//!   payload (whole and cut), with nothing dropped, under every check.
#![no_main]

use jsonrpc_slice::frame::cobs::{Check, CobsAccumulator};
use jsonrpc_slice::frame::{frame_message, FeedResult};
use jsonrpc_slice_fuzz as oracle;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, PartialEq, Eq)]
enum Event {
    Frame(Vec<u8>),
    Oversized,
}

/// The events with the offset of the `0x00` that ended each, the dropped count and
/// the bytes pending at the end.
fn run<const N: usize>(check: Check, stream: &[u8], sizes: &[u8]) -> (Vec<(usize, Event)>, u32, usize) {
    let mut acc = CobsAccumulator::<N>::with_check(check);
    let mut events = Vec::new();
    let mut end = 0;
    for chunk in oracle::chunks(stream, sizes) {
        end += chunk.len();
        let mut input = chunk;
        loop {
            let (event, remaining) = match acc.feed(input) {
                FeedResult::Consumed => break,
                FeedResult::Frame { frame, remaining } => {
                    assert!(frame.len() + check.len() <= N);
                    (Event::Frame(frame.to_vec()), remaining)
                }
                FeedResult::Oversized { remaining } => (Event::Oversized, remaining),
                other => panic!("COBS framing reported {other:?}"),
            };
            assert!(remaining.len() < input.len(), "no progress");
            let delimiter = end - remaining.len() - 1;
            assert_eq!(stream[delimiter], 0);
            events.push((delimiter, event));
            input = remaining;
        }
    }
    (events, acc.dropped(), acc.pending())
}

fn encode<const N: usize>(acc: &CobsAccumulator<N>, payload: &[u8]) -> Vec<u8> {
    frame_message(acc, payload).pieces().flatten().copied().collect()
}

fn decode_stream<const N: usize>(check: Check, stream: &[u8], sizes: &[u8]) {
    let whole = run::<N>(check, stream, &[]);
    let chunked = run::<N>(check, stream, sizes);
    assert_eq!(whole, chunked, "N = {N}, {check:?}: whole, then chunked");
    let acc = CobsAccumulator::<N>::with_check(check);
    for (_, event) in &whole.0 {
        if let Event::Frame(frame) = event {
            let again = encode(&acc, frame);
            let (events, dropped, pending) = run::<N>(check, &again, &[]);
            assert_eq!(events.len(), 1);
            assert_eq!(&events[0].1, event);
            assert_eq!((dropped, pending), (0, 0));
        }
    }
}

fn round_trip(check: Check, payload: &[u8], sizes: &[u8]) {
    let acc = CobsAccumulator::<4096>::with_check(check);
    let wire = encode(&acc, payload);
    assert_eq!(wire.iter().position(|&b| b == 0), Some(wire.len() - 1));
    for sizes in [&[][..], sizes] {
        let (events, dropped, pending) = run::<4096>(check, &wire, sizes);
        assert_eq!(events, [(wire.len() - 1, Event::Frame(payload.to_vec()))]);
        assert_eq!((dropped, pending), (0, 0));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((head, sizes, stream)) = oracle::split_input(data) else {
        return;
    };
    let check = match (head >> 3) & 3 {
        0 => Check::None,
        1 => Check::Crc16,
        _ => Check::Crc32,
    };
    decode_stream::<256>(check, stream, sizes);
    decode_stream::<8>(check, stream, sizes);
    if stream.len() <= 4000 {
        for check in [Check::None, Check::Crc16, Check::Crc32] {
            round_trip(check, stream, sizes);
        }
    }
});
