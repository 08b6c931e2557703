//! Newline-delimited JSON: one message per line.
//!
//! [`LineAccumulator`] is fed chunks as they arrive (a UART interrupt's few bytes, a
//! pipe's 64 KiB) and yields each complete line from its fixed buffer. Empty and blank
//! lines are skipped, a trailing `\r` is stripped, and a line longer than the buffer is
//! dropped as it streams past (it is never buffered) and reported once, when its
//! newline arrives, so replies keep the order of the frames.
//!
//! A JSON-RPC message never needs a raw newline (JSON allows one only as whitespace),
//! so the codec's replies, which are compact, never hold one either.

pub use super::{EndOfInput, FeedResult};

/// How a line ended (see `LineAccumulator::end_line`).
enum LineEnd {
    /// Empty, or only blanks: skipped.
    Blank,
    /// Longer than the buffer: dropped.
    Oversized,
    /// A frame of this many bytes, at the start of the buffer.
    Frame(usize),
}

/// Collects newline-delimited frames of at most `N` bytes out of a byte stream.
///
/// ```
/// use jsonrpc_slice::frame::newline::{FeedResult, LineAccumulator};
///
/// let mut acc = LineAccumulator::<64>::new();
/// let mut frames = 0;
/// for chunk in [&b"{\"a\":"[..], b"1}\r\n\n  \n[2", b"]\n"] {
///     let mut input = chunk;
///     loop {
///         match acc.feed(input) {
///             FeedResult::Consumed => break,
///             FeedResult::Frame { frame, remaining } => {
///                 assert!(frame == b"{\"a\":1}" || frame == b"[2]");
///                 frames += 1;
///                 input = remaining;
///             }
///             FeedResult::Oversized { remaining } | FeedResult::Malformed { remaining } => {
///                 input = remaining
///             }
///         }
///     }
/// }
/// assert_eq!(frames, 2);
/// ```
#[derive(Debug)]
pub struct LineAccumulator<const N: usize> {
    buf: [u8; N],
    len: usize,
    /// The current line has outgrown the buffer and is being skipped.
    overflowed: bool,
    /// The buffer is full and a `\r` came after it, not stored (see `append`).
    held_cr: bool,
}

impl<const N: usize> Default for LineAccumulator<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> LineAccumulator<N> {
    /// An empty accumulator (a `const fn`, so it can live in a `static`).
    pub const fn new() -> Self {
        Self {
            buf: [0; N],
            len: 0,
            overflowed: false,
            held_cr: false,
        }
    }

    /// The largest frame it holds, in bytes.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Bytes of an incomplete line held so far.
    pub fn pending(&self) -> usize {
        self.len
    }

    /// Forgets any partial line.
    pub fn clear(&mut self) {
        self.len = 0;
        self.overflowed = false;
        self.held_cr = false;
    }

    /// Ends the input: the last line, if its newline never came, is complete all the
    /// same (a file without a final newline, `printf '{…}' | serve`). Blank, it is
    /// [`EndOfInput::Nothing`]; longer than the buffer, [`EndOfInput::Oversized`];
    /// otherwise the frame, to be handled (JSON cut short is then `-32700`). The
    /// accumulator is empty afterwards.
    pub fn finish(&mut self) -> EndOfInput<'_> {
        match self.end_line() {
            LineEnd::Blank => EndOfInput::Nothing,
            LineEnd::Oversized => EndOfInput::Oversized,
            LineEnd::Frame(len) => EndOfInput::Frame(self.buf.get(..len).unwrap_or(&[])),
        }
    }

    /// Feeds bytes in; stops at the first complete line (or oversized line) and
    /// returns it with the input not yet taken.
    pub fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        if !cfg!(jsonrpc_slice_fast) {
            return self.feed_bytewise(input);
        }
        let mut input = input;
        loop {
            let (segment, rest, complete) = match input.iter().position(|&b| b == b'\n') {
                Some(nl) => (
                    input.get(..nl).unwrap_or(&[]),
                    input.get(nl + 1..).unwrap_or(&[]),
                    true,
                ),
                None => (input, &[][..], false),
            };
            if !self.overflowed {
                self.append(segment, complete);
            }
            if !complete {
                return FeedResult::Consumed;
            }
            match self.end_line() {
                LineEnd::Blank => input = rest,
                LineEnd::Oversized => return FeedResult::Oversized { remaining: rest },
                LineEnd::Frame(len) => {
                    return FeedResult::Frame {
                        frame: self.buf.get(..len).unwrap_or(&[]),
                        remaining: rest,
                    }
                }
            }
        }
    }

    /// [`feed`](Self::feed) in the compact build: one loop
    /// that looks for the newline and stores the bytes before it, one at a time, with
    /// no `memchr` and no `memcpy` to link. Same frames, same rules as `append`.
    fn feed_bytewise<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        let mut input = input;
        let mut k = 0;
        while let Some(&b) = input.get(k) {
            k += 1;
            if b != b'\n' {
                if self.overflowed {
                    continue;
                }
                if self.held_cr {
                    // The held `\r` was content, and the buffer is full.
                    self.overflow();
                } else if let Some(d) = self.buf.get_mut(self.len) {
                    *d = b;
                    self.len += 1;
                } else if b == b'\r' {
                    // The buffer is full: maybe the `\r` of a `\r\n`.
                    self.held_cr = true;
                } else {
                    self.overflow();
                }
                continue;
            }
            let rest = input.get(k..).unwrap_or(&[]);
            match self.end_line() {
                LineEnd::Blank => {
                    input = rest;
                    k = 0;
                }
                LineEnd::Oversized => return FeedResult::Oversized { remaining: rest },
                LineEnd::Frame(len) => {
                    return FeedResult::Frame {
                        frame: self.buf.get(..len).unwrap_or(&[]),
                        remaining: rest,
                    }
                }
            }
        }
        FeedResult::Consumed
    }

    /// Ends the current line at its newline: what it was, and the buffer emptied for
    /// the next one (the frame's bytes stay in it until then).
    // Out of line: one copy for both feeds (flash, on a Cortex-M).
    #[inline(never)]
    fn end_line(&mut self) -> LineEnd {
        let len = self.len;
        self.len = 0;
        self.held_cr = false;
        if self.overflowed {
            self.overflowed = false;
            return LineEnd::Oversized;
        }
        let line = self.buf.get(..len).unwrap_or(&[]);
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            // Empty or blank: skipped, no answer.
            return LineEnd::Blank;
        }
        // Not blank, so not empty: a trailing `\r` (of `\r\n`) is not part of it.
        LineEnd::Frame(len - usize::from(line.last() == Some(&b'\r')))
    }

    /// Appends a piece of the current line (`complete`: its newline follows). A
    /// trailing `\r` that does not fit is held back, since it may turn out to be the
    /// `\r` of a `\r\n`, which is not part of the frame.
    fn append(&mut self, segment: &[u8], complete: bool) {
        if self.held_cr {
            if segment.is_empty() {
                // The held `\r` ends the line (complete) or waits for more.
                return;
            }
            // The held `\r` was content, and the buffer is full.
            self.overflow();
            return;
        }
        let end = self.len + segment.len();
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            dst.copy_from_slice(segment);
            self.len = end;
            return;
        }
        if let [head @ .., b'\r'] = segment {
            let end = self.len + head.len();
            if let Some(dst) = self.buf.get_mut(self.len..end) {
                dst.copy_from_slice(head);
                self.len = end;
                // Complete: the `\r` of `\r\n`, dropped. Otherwise: held back.
                self.held_cr = !complete;
                return;
            }
        }
        self.overflow();
    }

    fn overflow(&mut self) {
        self.overflowed = true;
        self.held_cr = false;
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames<const N: usize>(
        acc: &mut LineAccumulator<N>,
        mut input: &[u8],
        out: &mut [(usize, bool)],
    ) -> usize {
        let mut n = 0;
        loop {
            match acc.feed(input) {
                FeedResult::Consumed => return n,
                FeedResult::Frame { frame, remaining } => {
                    out[n] = (frame.len(), true);
                    n += 1;
                    input = remaining;
                }
                FeedResult::Oversized { remaining } | FeedResult::Malformed { remaining } => {
                    out[n] = (0, false);
                    n += 1;
                    input = remaining;
                }
            }
        }
    }

    #[test]
    fn oversized_lines_are_reported_at_their_end_and_the_stream_goes_on() {
        let mut acc = LineAccumulator::<4>::new();
        let mut out = [(0, false); 8];
        let n = frames(&mut acc, b"1234\n12345\nabc\r\n123\r\n", &mut out);
        assert_eq!(&out[..n], &[(4, true), (0, false), (3, true), (3, true)]);
        assert_eq!(frames(&mut acc, b"1234567", &mut out), 0);
        assert_eq!(frames(&mut acc, b"89\n1\n", &mut out), 2);
        assert_eq!(&out[..2], &[(0, false), (1, true)]);
    }

    #[test]
    fn the_end_of_input_completes_the_last_line() {
        let mut out = [(0, false); 8];
        let cases: [(&[u8], EndOfInput<'_>); 7] = [
            (b"", EndOfInput::Nothing),
            (b"1\n \t\r", EndOfInput::Nothing),
            (b"1\n[2]", EndOfInput::Frame(b"[2]")),
            (b"[2]\r", EndOfInput::Frame(b"[2]")),
            (b"1234", EndOfInput::Frame(b"1234")),
            (b"1234\r", EndOfInput::Frame(b"1234")),
            (b"12345", EndOfInput::Oversized),
        ];
        for (stream, want) in cases {
            let mut acc = LineAccumulator::<4>::new();
            frames(&mut acc, stream, &mut out);
            assert_eq!(acc.finish(), want);
            assert_eq!(acc.pending(), 0);
            assert_eq!(acc.finish(), EndOfInput::Nothing);
        }
    }

    #[test]
    fn blank_lines_are_skipped() {
        let mut acc = LineAccumulator::<8>::new();
        let mut out = [(0, false); 8];
        assert_eq!(frames(&mut acc, b"\n\r\n \t \r\n1\n", &mut out), 1);
    }

    #[test]
    fn a_full_line_whose_crlf_is_split_across_chunks_still_fits() {
        let mut out = [(0, false); 8];
        for split in 0..=7 {
            let stream = b"1234\r\n5678\rx\n";
            let mut acc = LineAccumulator::<4>::new();
            let n1 = frames(&mut acc, &stream[..split], &mut out);
            let mut got = out[..n1].to_vec();
            let n2 = frames(&mut acc, &stream[split..], &mut out);
            got.extend_from_slice(&out[..n2]);
            assert_eq!(got, [(4, true), (0, false)], "split at {split}");
        }
    }

    /// What an accumulator makes of `input` fed in `chunks`, through `feed` or through
    /// `feed_bytewise`: each event and how much input it leaves, then the end.
    fn events(
        input: &[u8],
        chunks: &[usize],
        bytewise: bool,
    ) -> std::vec::Vec<std::string::String> {
        use std::format;
        let mut acc = LineAccumulator::<16>::new();
        let mut out = std::vec::Vec::new();
        let (mut at, mut k) = (0, 0);
        while at < input.len() {
            let n = chunks[k % chunks.len()].min(input.len() - at);
            k += 1;
            let mut rest = &input[at..at + n];
            at += n;
            loop {
                let r = if bytewise {
                    acc.feed_bytewise(rest)
                } else {
                    acc.feed(rest)
                };
                match r {
                    FeedResult::Consumed => break,
                    FeedResult::Frame { frame, remaining } => {
                        out.push(format!("frame {frame:?} {}", remaining.len()));
                        rest = remaining;
                    }
                    FeedResult::Oversized { remaining } => {
                        out.push(format!("oversized {}", remaining.len()));
                        rest = remaining;
                    }
                    FeedResult::Malformed { remaining } => {
                        out.push(format!("malformed {}", remaining.len()));
                        rest = remaining;
                    }
                }
            }
        }
        out.push(format!("{:?}", acc.finish()));
        out
    }

    /// The two ways of feeding, the fast build's and the compact build's, make the same
    /// frames from the same bytes, however they are cut: lines short and long, blank,
    /// with `\r\n`, with a `\r` alone, one byte under, at and over the buffer's size.
    #[test]
    fn feed_and_feed_bytewise_agree() {
        let mut rng: u64 = 0x243F_6A88_85A3_08D3;
        let alphabet = b"ab\n\n\r{}\"x";
        let mut checked = 0;
        for len in 0..200 {
            let mut input = std::vec::Vec::new();
            for _ in 0..len {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                input.push(alphabet[(rng >> 33) as usize % alphabet.len()]);
            }
            for line in [15usize, 16, 17] {
                input.extend(core::iter::repeat(b'y').take(line));
                input.push(b'\n');
            }
            for chunks in [&[1usize][..], &[3, 1, 7], &[16], &[64], &[5, 17, 2]] {
                assert_eq!(
                    events(&input, chunks, false),
                    events(&input, chunks, true),
                    "{input:?} in {chunks:?}"
                );
                checked += 1;
            }
        }
        assert!(checked >= 1000);
    }
}
