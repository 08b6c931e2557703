//! COBS framing, optionally with a checksum: binary-safe frames for serial links.
//!
//! Each frame is its payload (and, with a [`Check`], the payload's checksum after it,
//! little-endian) encoded with Consistent Overhead Byte Stuffing, which removes every
//! `0x00`, then ended by one `0x00`. A receiver that loses its place (a dropped or
//! flipped byte, noise on the line, a device that joined mid-stream) finds the next
//! frame at the next `0x00`: at most the frame around a fault is lost.
//!
//! Newline framing cannot tell a corrupted frame from a valid one (a flipped bit inside
//! a string still reads as JSON; a dropped newline merges two messages). Under COBS
//! with a checksum a corrupted frame fails the check and never reaches the parser.
//!
//! What goes wrong, and what the stream does next (the decided cases of
//! `docs/DESIGN.md`):
//!
//! - **A checksum that does not match**, or **bytes that are not COBS** (a `0x00`
//!   before the block its code byte announced is complete), or a frame shorter than its
//!   checksum: the frame is **dropped, not answered**, and counted
//!   ([`dropped`](CobsAccumulator::dropped)). Nothing in a corrupted frame can be
//!   trusted, its id and whether it was a notification included: an answer would be
//!   an `"id":null` error the peer cannot match to a request, and noise on an idle line
//!   would make unsolicited replies. The peer's timeout and retry recover it, as with
//!   a frame lost on the wire (HDLC discards a frame whose check fails the same way).
//! - **A frame longer than the buffer**: skipped as it streams past and reported once
//!   its `0x00` arrives ([`FeedResult::Oversized`], answered `-32600`), as by the other
//!   framers.
//! - **Empty frames** (`0x00 0x00`, or a `0x00` the sender puts first to flush line
//!   noise): skipped, no answer.
//! - **The end of input** ([`finish`](CobsAccumulator::finish)): what is held is ended
//!   as if its `0x00` had come: served when it decodes and its check holds, dropped
//!   otherwise.
//!
//! The writer side needs no buffer: the framer says [`Encoding::Cobs`], and
//! [`FramedReply::pieces`](super::FramedReply::pieces) yields the encoded frame as
//! pieces borrowed from the reply itself (each block's code byte, then its bytes), its
//! checksum computed once, when it is framed.
//!
//! ```
//! use jsonrpc_slice::frame::cobs::{Check, CobsAccumulator};
//! use jsonrpc_slice::frame::{frame_message, FeedResult};
//!
//! let mut acc = CobsAccumulator::<64>::with_check(Check::Crc32);
//! let framed = frame_message(&acc, br#"{"jsonrpc":"2.0","method":"ping"}"#);
//! let wire: Vec<u8> = framed.pieces().flatten().copied().collect();
//! assert_eq!(wire.iter().filter(|&&b| b == 0).count(), 1);
//! match acc.feed(&wire) {
//!     FeedResult::Frame { frame, remaining } => {
//!         assert_eq!(frame, br#"{"jsonrpc":"2.0","method":"ping"}"#);
//!         assert!(remaining.is_empty());
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```

use super::{EndOfInput, FeedResult};

/// The checksum after each frame's payload, before COBS encoding.
// `Crc32` is the zero value and `State::Idle` too, so that an empty CRC-32
// accumulator is all zero bytes: in a `static` it lands in `.bss`, not in `.data`,
// whose image takes flash as large as the buffer (2 KiB in the firmware's `cobs`
// build, where `qemu-test.sh` checks that `.data` is empty). In the order of their
// lengths, so that `len` stays arithmetic (4 - 2 × the value), not a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// None: COBS alone (a corrupted byte inside a block goes unnoticed).
    None = 2,
    /// CRC-16/IBM-SDLC (X.25, HDLC's FCS-16: reflected polynomial `0x1021`, initial
    /// value and final XOR `0xFFFF`), 2 bytes, little-endian.
    Crc16 = 1,
    /// CRC-32/ISO-HDLC (the CRC-32 of Ethernet, zlib and PNG: reflected polynomial
    /// `0x04C11DB7`, initial value and final XOR `0xFFFF_FFFF`), 4 bytes, little-endian.
    Crc32 = 0,
}

impl Check {
    /// The checksum's length on the wire (before encoding), in bytes.
    pub const fn len(self) -> usize {
        match self {
            Self::None => 0,
            Self::Crc16 => 2,
            Self::Crc32 => 4,
        }
    }

    /// `true` for [`Check::None`].
    pub const fn is_empty(self) -> bool {
        matches!(self, Self::None)
    }

    /// The checksum of `payload`, little-endian, in the first [`len`](Self::len) bytes.
    pub fn of(self, payload: &[u8]) -> [u8; 4] {
        match self {
            Self::None => [0; 4],
            Self::Crc16 => {
                let [a, b] = crc16(payload).to_le_bytes();
                [a, b, 0, 0]
            }
            Self::Crc32 => crc32(payload).to_le_bytes(),
        }
    }
}

/// How a framer lays a message's bytes on the wire (see
/// [`Framer::reply_encoding`](super::Framer::reply_encoding)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// As they are, between the framer's header and trailer.
    Verbatim,
    /// COBS-encoded, the payload followed by its checksum; the trailer (`0x00`) after.
    Cobs(Check),
}

/// A nibble table of a reflected CRC: the remainder of each 4-bit value. Sixteen
/// entries instead of 256: a small share of the flash for two table steps a byte.
const fn nibble_table(poly: u32) -> [u32; 16] {
    let mut table = [0u32; 16];
    let mut i = 0;
    while i < 16 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 4 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ poly
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
}

const CRC32_TABLE: [u32; 16] = nibble_table(0xEDB8_8320);
const CRC16_TABLE: [u32; 16] = nibble_table(0x8408);

/// One reflected CRC over `bytes`, from `crc`, with a nibble table.
fn crc_nibbles(table: &[u32; 16], mut crc: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        crc ^= u32::from(b);
        crc = (crc >> 4) ^ table.get((crc & 15) as usize).copied().unwrap_or(0);
        crc = (crc >> 4) ^ table.get((crc & 15) as usize).copied().unwrap_or(0);
    }
    crc
}

/// CRC-32/ISO-HDLC of `bytes` (check value: `0xCBF4_3926` for `b"123456789"`).
pub fn crc32(bytes: &[u8]) -> u32 {
    !crc_nibbles(&CRC32_TABLE, !0, bytes)
}

/// CRC-16/IBM-SDLC of `bytes` (check value: `0x906E` for `b"123456789"`).
pub fn crc16(bytes: &[u8]) -> u16 {
    (!crc_nibbles(&CRC16_TABLE, 0xFFFF, bytes) & 0xFFFF) as u16
}

/// What the bytes of the current frame are, as they arrive.
// A tag of its own, `Idle` zero (see `Check`): without `repr`, `Idle` would live in
// a niche of `Block`'s `bool`, a non-zero byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum State {
    /// Nothing since the last `0x00`.
    Idle = 0,
    /// Inside a frame: `left` bytes of the current block to come (0: a code byte
    /// next); `zero`: the block, once complete, stands for a `0x00` after it (its code
    /// was under `0xFF`), unless the frame ends there.
    Block { left: u8, zero: bool } = 1,
    /// Longer than the buffer: skipped up to its `0x00`.
    Overflowed = 2,
}

/// How a frame ended (see `CobsAccumulator::end_frame`).
enum FrameEnd {
    /// Nothing, or dropped (counted).
    Skip,
    /// Longer than the buffer.
    Oversized,
    /// A frame of this many bytes (its checksum left out), at the start of the buffer.
    Frame(usize),
}

/// Collects COBS-encoded, `0x00`-delimited frames out of a byte stream: `N` bytes
/// hold a decoded frame and its checksum, so a payload is at most `N` minus the
/// [`Check`]'s length. Decoding happens as the bytes arrive, into the buffer (the
/// encoded frame is never stored).
///
/// ```
/// use jsonrpc_slice::frame::cobs::CobsAccumulator;
/// use jsonrpc_slice::frame::FeedResult;
///
/// let mut acc = CobsAccumulator::<16>::new();
/// // `[1, 0, 2]`, encoded, then the delimiter; then the start of the next frame.
/// match acc.feed(&[0x02, 0x01, 0x02, 0x02, 0x00, 0x03]) {
///     FeedResult::Frame { frame, remaining } => {
///         assert_eq!(frame, [1, 0, 2]);
///         assert_eq!(remaining, [0x03]);
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug)]
pub struct CobsAccumulator<const N: usize> {
    buf: [u8; N],
    len: usize,
    state: State,
    check: Check,
    dropped: u32,
}

impl<const N: usize> Default for CobsAccumulator<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> CobsAccumulator<N> {
    /// An empty accumulator of COBS frames without a checksum (a `const fn`, so it can
    /// live in a `static`).
    pub const fn new() -> Self {
        Self::with_check(Check::None)
    }

    /// An empty accumulator of COBS frames each ending in `check`.
    pub const fn with_check(check: Check) -> Self {
        Self {
            buf: [0; N],
            len: 0,
            state: State::Idle,
            check,
            dropped: 0,
        }
    }

    /// The checksum its frames end in.
    pub const fn check(&self) -> Check {
        self.check
    }

    /// The largest payload it holds, in bytes (the buffer less the checksum).
    pub const fn capacity(&self) -> usize {
        N.saturating_sub(self.check.len())
    }

    /// Decoded bytes of an incomplete frame held so far.
    pub fn pending(&self) -> usize {
        self.len
    }

    /// Frames dropped so far: a checksum that did not match, bytes that are not COBS
    /// (saturates at `u32::MAX`). A measure of the link's quality.
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// Forgets any partial frame (the count of dropped frames stays).
    pub fn clear(&mut self) {
        self.len = 0;
        self.state = State::Idle;
    }

    /// Ends the input: what is held is ended as if its `0x00` had come (served if it
    /// decodes and its check holds, dropped otherwise). The accumulator is empty
    /// afterwards.
    pub fn finish(&mut self) -> EndOfInput<'_> {
        match self.end_frame() {
            FrameEnd::Skip => EndOfInput::Nothing,
            FrameEnd::Oversized => EndOfInput::Oversized,
            FrameEnd::Frame(len) => EndOfInput::Frame(self.buf.get(..len).unwrap_or(&[])),
        }
    }

    /// Feeds bytes in; stops at the first complete frame (or oversized frame) and
    /// returns it with the input not yet taken. Dropped frames and empty ones are
    /// passed over.
    pub fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        let mut k = 0;
        while let Some(&b) = input.get(k) {
            k += 1;
            if b != 0 {
                self.take(b);
                continue;
            }
            let rest = input.get(k..).unwrap_or(&[]);
            match self.end_frame() {
                FrameEnd::Skip => {}
                FrameEnd::Oversized => return FeedResult::Oversized { remaining: rest },
                FrameEnd::Frame(len) => {
                    return FeedResult::Frame {
                        frame: self.buf.get(..len).unwrap_or(&[]),
                        remaining: rest,
                    }
                }
            }
        }
        FeedResult::Consumed
    }

    /// One byte of a frame (never `0x00`).
    fn take(&mut self, b: u8) {
        match self.state {
            State::Overflowed => {}
            State::Idle => self.code(b, false),
            State::Block { left: 0, zero } => self.code(b, zero),
            State::Block { left, zero } => {
                self.state = State::Block {
                    left: left - 1,
                    zero,
                };
                self.push(b);
            }
        }
    }

    /// A code byte: the `0x00` the block before it stands for, then a block of
    /// `code - 1` bytes.
    fn code(&mut self, code: u8, zero_before: bool) {
        self.state = State::Block {
            left: code - 1,
            zero: code != 0xFF,
        };
        if zero_before {
            self.push(0);
        }
    }

    fn push(&mut self, b: u8) {
        if let Some(d) = self.buf.get_mut(self.len) {
            *d = b;
            self.len += 1;
        } else {
            self.state = State::Overflowed;
            self.len = 0;
        }
    }

    /// Ends the current frame at its `0x00`: what it was, and the accumulator emptied
    /// for the next one (the frame's bytes stay in the buffer until then).
    fn end_frame(&mut self) -> FrameEnd {
        let len = core::mem::replace(&mut self.len, 0);
        let state = core::mem::replace(&mut self.state, State::Idle);
        let complete = match state {
            State::Idle => return FrameEnd::Skip,
            State::Overflowed => return FrameEnd::Oversized,
            // A block cut short by a `0x00`: not COBS.
            State::Block { left, .. } => left == 0,
        };
        let check_len = self.check.len();
        let payload_len = len.wrapping_sub(check_len);
        let good = complete
            && match (self.buf.get(..payload_len), self.buf.get(payload_len..len)) {
                (Some(payload), Some(sum)) => {
                    // Compared as one word, the missing bytes zero on both sides.
                    let mut got = [0u8; 4];
                    for (g, s) in got.iter_mut().zip(sum) {
                        *g = *s;
                    }
                    self.check.of(payload) == got
                }
                _ => false,
            };
        if !good {
            self.dropped = self.dropped.saturating_add(1);
            return FrameEnd::Skip;
        }
        FrameEnd::Frame(payload_len)
    }
}

/// Every byte value, each the one-byte slice a COBS code byte is written from (the
/// encoder borrows its pieces, it owns no buffer).
static CODES: [u8; 256] = {
    let mut codes = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        codes[i] = i as u8;
        i += 1;
    }
    codes
};

/// The longest run of bytes a COBS block holds (its code byte `0xFF`).
const MAX_RUN: usize = 254;

/// The COBS encoding of `body` followed by `check`, as pieces: each block's code byte
/// (from [`CODES`]), then its bytes as one or two slices of `body` and `check`.
#[derive(Debug, Clone)]
pub(crate) struct CobsPieces<'a> {
    body: &'a [u8],
    check: &'a [u8],
    /// Where the next block starts, in `body` then `check`; `None` once the last
    /// block's code byte was given.
    next: Option<usize>,
    /// The current block's bytes not yet given, `[from, to)`.
    from: usize,
    to: usize,
}

impl<'a> CobsPieces<'a> {
    pub(crate) fn new(body: &'a [u8], check: &'a [u8]) -> Self {
        Self {
            body,
            check,
            next: Some(0),
            from: 0,
            to: 0,
        }
    }

    /// The run of non-zero bytes at `at`, at most [`MAX_RUN`].
    fn run_at(&self, at: usize) -> usize {
        let body = self.body.get(at..).unwrap_or(&[]);
        let in_body = body.iter().take(MAX_RUN).position(|&b| b == 0);
        match in_body {
            Some(run) => run,
            None if body.len() >= MAX_RUN => MAX_RUN,
            None => {
                let from = at.saturating_sub(self.body.len());
                let check = self.check.get(from..).unwrap_or(&[]);
                let room = MAX_RUN - body.len();
                let in_check = check.iter().take(room).position(|&b| b == 0);
                body.len() + in_check.unwrap_or(check.len().min(room))
            }
        }
    }
}

impl<'a> Iterator for CobsPieces<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let (from, to, split) = (self.from, self.to, self.body.len());
        if from < to {
            // The block's bytes: what of them is in `body`, then what is in `check`.
            return if from < split {
                self.from = to.min(split);
                self.body.get(from..self.from)
            } else {
                self.from = to;
                self.check.get(from - split..to - split)
            };
        }
        let at = self.next?;
        let run = self.run_at(at);
        let end = at + run;
        (self.from, self.to) = (at, end);
        self.next = if end >= split + self.check.len() {
            None
        } else if run < MAX_RUN {
            // The block ends at a `0x00`, which its code byte stands for.
            Some(end + 1)
        } else {
            Some(end)
        };
        CODES.get(run + 1..run + 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;
    use std::vec::Vec;

    fn encode(body: &[u8], check: &[u8]) -> Vec<u8> {
        let mut out: Vec<u8> = CobsPieces::new(body, check).flatten().copied().collect();
        out.push(0);
        out
    }

    /// The COBS encoding, written the textbook way (one output buffer, each code byte
    /// filled in behind its block), the oracle of the pieces.
    fn reference(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0];
        let (mut code_at, mut code) = (0, 1u8);
        let mut full_at_end = false;
        for (i, &b) in data.iter().enumerate() {
            if b != 0 {
                out.push(b);
                code += 1;
            }
            if b == 0 || code == 0xFF {
                out[code_at] = code;
                code_at = out.len();
                out.push(0);
                full_at_end = b != 0 && i + 1 == data.len();
                code = 1;
            }
        }
        out[code_at] = code;
        if full_at_end {
            // A last block of 254 bytes: no empty block after it (a 0xFF block stands
            // for no 0x00).
            out.pop();
        }
        out.push(0);
        out
    }

    fn decode_all<const N: usize>(acc: &mut CobsAccumulator<N>, mut input: &[u8]) -> Vec<Vec<u8>> {
        let mut frames = Vec::new();
        loop {
            match acc.feed(input) {
                FeedResult::Consumed => return frames,
                FeedResult::Frame { frame, remaining } => {
                    frames.push(frame.to_vec());
                    input = remaining;
                }
                FeedResult::Oversized { remaining } => {
                    frames.push(b"OVERSIZED".to_vec());
                    input = remaining;
                }
                FeedResult::Malformed { remaining } => {
                    frames.push(b"MALFORMED".to_vec());
                    input = remaining;
                }
            }
        }
    }

    #[test]
    fn check_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc16(b"123456789"), 0x906E);
        assert_eq!(crc32(b""), 0);
        assert_eq!(Check::Crc32.of(b"123456789"), [0x26, 0x39, 0xF4, 0xCB]);
        assert_eq!(Check::Crc16.of(b"123456789")[..2], [0x6E, 0x90]);
    }

    #[test]
    fn textbook_vectors() {
        let cases: [(&[u8], &[u8]); 6] = [
            (&[], &[0x01, 0x00]),
            (&[0x00], &[0x01, 0x01, 0x00]),
            (&[0x00, 0x00], &[0x01, 0x01, 0x01, 0x00]),
            (
                &[0x11, 0x22, 0x00, 0x33],
                &[0x03, 0x11, 0x22, 0x02, 0x33, 0x00],
            ),
            (
                &[0x11, 0x00, 0x00, 0x00],
                &[0x02, 0x11, 0x01, 0x01, 0x01, 0x00],
            ),
            (
                &[0x11, 0x22, 0x33, 0x44],
                &[0x05, 0x11, 0x22, 0x33, 0x44, 0x00],
            ),
        ];
        for (data, wire) in cases {
            assert_eq!(encode(data, &[]), wire, "{data:?}");
            let mut acc = CobsAccumulator::<8>::new();
            let frames = decode_all(&mut acc, wire);
            // The empty payload encodes to `01 00`, which decodes to an empty frame.
            assert_eq!(frames, [data.to_vec()], "{data:?}");
        }
    }

    /// The long vectors of the COBS paper's examples (Wikipedia's 7 to 11): the
    /// 254-byte blocks.
    #[test]
    fn long_blocks() {
        let run = |from: u8, to: u8| (from..=to).collect::<Vec<u8>>();
        let cat = |parts: &[&[u8]]| parts.concat();
        let cases = [
            (run(1, 254), cat(&[&[0xFF], &run(1, 254), &[0]])),
            (run(0, 254), cat(&[&[0x01, 0xFF], &run(1, 254), &[0]])),
            (run(1, 255), cat(&[&[0xFF], &run(1, 254), &[0x02, 0xFF, 0]])),
            (
                cat(&[&run(2, 255), &[0]]),
                cat(&[&[0xFF], &run(2, 255), &[0x01, 0x01, 0]]),
            ),
            (
                cat(&[&run(3, 255), &[0, 1]]),
                cat(&[&[0xFE], &run(3, 255), &[0x02, 0x01, 0]]),
            ),
        ];
        for (data, wire) in cases {
            assert_eq!(encode(&data, &[]), wire, "{data:?}");
            assert_eq!(reference(&data), wire, "{data:?}");
            let mut acc = CobsAccumulator::<300>::new();
            assert_eq!(decode_all(&mut acc, &wire), [data]);
        }
        // The other spelling of a last 254-byte block, with an empty block after it:
        // the same frame.
        let mut acc = CobsAccumulator::<300>::new();
        let wire = cat(&[&[0xFF], &run(1, 254), &[0x01, 0]]);
        assert_eq!(decode_all(&mut acc, &wire), [run(1, 254)]);
    }

    /// Every split of body and checksum, every length around the 254-byte blocks,
    /// zeros anywhere: the pieces are the textbook encoding, and decode back.
    #[test]
    fn encoding_matches_the_textbook_and_round_trips() {
        let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut checked = 0;
        for len in (0usize..20)
            .chain(250..262)
            .chain(505..512)
            .chain([1000, 1300])
        {
            for zeros in [0u64, 3, 50] {
                let data: Vec<u8> = (0..len)
                    .map(|_| {
                        rng = rng
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let r = (rng >> 33) % 100;
                        if r < zeros {
                            0
                        } else {
                            (rng >> 40) as u8 | 1
                        }
                    })
                    .collect();
                let want = reference(&data);
                for split in [0, len / 2, len.saturating_sub(4), len] {
                    let (body, check) = data.split_at(split.min(len));
                    assert_eq!(encode(body, check), want, "len {len} split {split}");
                }
                let mut acc = CobsAccumulator::<1400>::new();
                assert_eq!(decode_all(&mut acc, &want), [data], "len {len}");
                checked += 1;
            }
        }
        assert!(checked > 100);
    }

    fn crc_frame(payload: &[u8], check: Check) -> Vec<u8> {
        let sum = check.of(payload);
        encode(payload, &sum[..check.len()])
    }

    #[test]
    fn every_prefix_is_consumed_and_the_whole_is_one_frame() {
        for check in [Check::None, Check::Crc16, Check::Crc32] {
            let payload = br#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}"#;
            let wire = crc_frame(payload, check);
            for cut in 0..wire.len() {
                let mut acc = CobsAccumulator::<64>::with_check(check);
                assert_eq!(acc.feed(&wire[..cut]), FeedResult::Consumed, "cut {cut}");
                match acc.feed(&wire[cut..]) {
                    FeedResult::Frame { frame, remaining } => {
                        assert_eq!(frame, payload);
                        assert!(remaining.is_empty());
                    }
                    other => panic!("{check:?} cut {cut}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn a_corrupted_frame_is_dropped_and_the_next_one_served() {
        for check in [Check::Crc16, Check::Crc32] {
            let first = crc_frame(br#"{"id":1}"#, check);
            let second = crc_frame(br#"{"id":2}"#, check);
            // Every single bit flip of the first frame that keeps its delimiter where
            // it is (a flip to 0x00 cuts it short: dropped too).
            for at in 0..first.len() - 1 {
                for bit in 0..8 {
                    let mut stream = first.clone();
                    stream[at] ^= 1 << bit;
                    stream.extend_from_slice(&second);
                    let mut acc = CobsAccumulator::<32>::with_check(check);
                    let frames = decode_all(&mut acc, &stream);
                    assert!(
                        frames.last() == Some(&br#"{"id":2}"#.to_vec()),
                        "{check:?} flip {at}.{bit}: {frames:?}"
                    );
                    assert!(
                        !frames.iter().any(|f| f == br#"{"id":1}"#),
                        "{check:?} flip {at}.{bit}: a corrupted frame served"
                    );
                    assert!(acc.dropped() >= 1, "{check:?} flip {at}.{bit}");
                }
            }
        }
    }

    #[test]
    fn oversized_frames_are_reported_at_their_delimiter_and_the_stream_goes_on() {
        let mut acc = CobsAccumulator::<8>::with_check(Check::Crc16);
        assert_eq!(acc.capacity(), 6);
        let mut stream = crc_frame(b"1234567", Check::Crc16);
        stream.extend(crc_frame(b"123456", Check::Crc16));
        stream.extend(crc_frame(&[b'x'; 300], Check::Crc16));
        stream.extend(crc_frame(b"ok", Check::Crc16));
        let frames = decode_all(&mut acc, &stream);
        assert_eq!(
            frames,
            [
                b"OVERSIZED".to_vec(),
                b"123456".to_vec(),
                b"OVERSIZED".to_vec(),
                b"ok".to_vec()
            ]
        );
        assert_eq!(acc.dropped(), 0);
    }

    #[test]
    fn garbage_and_empty_frames_between_frames() {
        let mut acc = CobsAccumulator::<64>::with_check(Check::Crc32);
        let mut stream = vec![0, 0, 0x37, 0xFF, 0x12, 0];
        stream.extend(crc_frame(b"[1]", Check::Crc32));
        stream.extend([0, 0, 0x05, 0x01]);
        // The garbage without its own delimiter merges into the next frame: both lost.
        stream.extend(crc_frame(b"[2]", Check::Crc32));
        stream.push(0);
        stream.extend(crc_frame(b"[3]", Check::Crc32));
        let frames = decode_all(&mut acc, &stream);
        assert_eq!(frames, [b"[1]".to_vec(), b"[3]".to_vec()]);
        assert_eq!(acc.dropped(), 2);
    }

    #[test]
    fn a_short_block_is_dropped() {
        // A code byte announcing 4 bytes, and the delimiter after 2.
        let mut acc = CobsAccumulator::<16>::new();
        assert!(decode_all(&mut acc, &[0x05, 1, 2, 0, 0x02, 9, 0]) == [vec![9u8]]);
        assert_eq!(acc.dropped(), 1);
        // Shorter than its checksum.
        let mut acc = CobsAccumulator::<16>::with_check(Check::Crc32);
        assert!(decode_all(&mut acc, &[0x04, 1, 2, 3, 0]).is_empty());
        assert_eq!(acc.dropped(), 1);
    }

    #[test]
    fn the_end_of_input_ends_the_last_frame() {
        let wire = crc_frame(b"[7]", Check::Crc32);
        let body = &wire[..wire.len() - 1];
        let mut acc = CobsAccumulator::<16>::with_check(Check::Crc32);
        assert_eq!(acc.feed(body), FeedResult::Consumed);
        assert_eq!(acc.finish(), EndOfInput::Frame(b"[7]"));
        assert_eq!(acc.finish(), EndOfInput::Nothing);
        assert_eq!(acc.feed(&body[..body.len() - 1]), FeedResult::Consumed);
        assert_eq!(acc.finish(), EndOfInput::Nothing);
        assert_eq!(acc.dropped(), 1);
        assert_eq!(acc.feed(&[0x10; 20]), FeedResult::Consumed);
        assert_eq!(acc.finish(), EndOfInput::Oversized);
        assert_eq!(acc.pending(), 0);
    }
}
