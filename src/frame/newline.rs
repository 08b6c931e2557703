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

/// What one call to [`LineAccumulator::feed`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum FeedResult<'a, 'b> {
    /// All of the input was taken; no line is complete yet.
    Consumed,
    /// A complete line (without its `\n` or a trailing `\r`), and the input not yet fed.
    Frame {
        /// The line.
        frame: &'a [u8],
        /// The rest of the input: feed it next.
        remaining: &'b [u8],
    },
    /// A line longer than the buffer ended here; it was dropped. Answer it with
    /// [`oversized_frame_reply`](super::oversized_frame_reply), then feed `remaining`.
    Oversized {
        /// The rest of the input: feed it next.
        remaining: &'b [u8],
    },
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
///             FeedResult::Oversized { remaining } => input = remaining,
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
    }

    /// Feeds bytes in; stops at the first complete line (or oversized line) and
    /// returns it with the input not yet taken.
    pub fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        let mut input = input;
        loop {
            let (line, rest, complete) = match input.iter().position(|&b| b == b'\n') {
                Some(nl) => (
                    input.get(..nl).unwrap_or(&[]),
                    input.get(nl + 1..).unwrap_or(&[]),
                    true,
                ),
                None => (input, &[][..], false),
            };
            if !self.overflowed {
                let end = self.len + line.len();
                match self.buf.get_mut(self.len..end) {
                    Some(dst) => {
                        dst.copy_from_slice(line);
                        self.len = end;
                    }
                    None => {
                        // A line with a `\r` just before its `\n` may fit without it.
                        let fits_without_cr =
                            complete && line.last() == Some(&b'\r') && end - 1 <= N;
                        if fits_without_cr {
                            let line = line.get(..line.len() - 1).unwrap_or(&[]);
                            if let Some(dst) = self.buf.get_mut(self.len..end - 1) {
                                dst.copy_from_slice(line);
                            }
                            self.len = end - 1;
                        } else {
                            self.overflowed = true;
                            self.len = 0;
                        }
                    }
                }
            }
            if !complete {
                return FeedResult::Consumed;
            }
            if self.overflowed {
                self.overflowed = false;
                return FeedResult::Oversized { remaining: rest };
            }
            let mut len = self.len;
            self.len = 0;
            if len > 0 && self.buf.get(len - 1) == Some(&b'\r') {
                len -= 1;
            }
            let frame = self.buf.get(..len).unwrap_or(&[]);
            if frame.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                // Empty or blank: skipped, no answer.
                input = rest;
                continue;
            }
            // Re-borrow for the caller's lifetime.
            let frame = self.buf.get(..len).unwrap_or(&[]);
            return FeedResult::Frame {
                frame,
                remaining: rest,
            };
        }
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
                FeedResult::Oversized { remaining } => {
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
    fn blank_lines_are_skipped() {
        let mut acc = LineAccumulator::<8>::new();
        let mut out = [(0, false); 8];
        assert_eq!(frames(&mut acc, b"\n\r\n \t \r\n1\n", &mut out), 1);
    }
}
