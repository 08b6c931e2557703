//! JSON values back to back, with no delimiter: what Ethereum clients speak over IPC
//! (geth's Unix socket, ethers' `IpcSocketProvider`, web3.py's `IPCProvider`).
//!
//! ```text
//! {"jsonrpc":"2.0","method":"eth_blockNumber","id":1}[{"jsonrpc":"2.0",…}]
//! {"jsonrpc":"2.0","method":"eth_chainId","id":2}
//! ```
//!
//! A message is an object or an array; where it ends is found by following its
//! structure, one byte at a time, in constant space: strings and their escapes, and
//! the grammar of the brackets, colons and commas (which bracket closes which, for the
//! first [`TRACKED_DEPTH`] levels; deeper, brackets are only counted). Whitespace
//! between messages is skipped. Replies are written each followed by `\n`, as geth
//! does (ethers splits what it reads at line ends; web3.py reads JSON values).
//!
//! What goes wrong, and what the stream does next (the newline framer's decided cases,
//! where they apply):
//!
//! - **Bytes that do not start a message** (`1`, `"x"`, `hello`): they run up to the
//!   next `{`, `[` or line end, and that run is one frame, answered as the codec
//!   answers it (`-32600` for a JSON scalar, `-32700` for anything else).
//! - **A message that breaks its grammar** (a raw control byte in a string, `[1 2]`,
//!   `{{`, a bracket that does not match, a byte that no JSON token holds): it ends
//!   there as a run, so the rest of it up to the next `{`, `[` or line end joins it,
//!   and it is answered once (`-32700`). The `{` or `[` that ends the run starts the
//!   next message: a message cut short by garbage loses only itself.
//! - **A frame longer than the buffer**: skipped as it streams past, following its
//!   structure to its end (never buffered), and reported then, as
//!   [`FeedResult::Oversized`].
//! - **The end of input** ([`finish`](JsonStreamAccumulator::finish)) inside a message:
//!   [`EndOfInput::Truncated`], answered `-32700`; after a run, the run is a frame.
//!
//! An opening bracket that is never closed holds back what follows it until its
//! grammar breaks, which a well-formed message after it does at once (`{` then
//! `{"jsonrpc"…}`: the second `{` cannot start a key).

use super::{EndOfInput, FeedResult};

/// The nesting depth up to which the framer checks which bracket closes which (one bit
/// a level). Deeper brackets are counted, not checked; the codec refuses such a
/// message anyway (its default nesting limit is 128).
pub const TRACKED_DEPTH: usize = 128;

/// Collects back-to-back JSON messages of at most `N` bytes out of a byte stream.
///
/// ```
/// use jsonrpc_slice::frame::json_stream::JsonStreamAccumulator;
/// use jsonrpc_slice::frame::FeedResult;
///
/// let mut acc = JsonStreamAccumulator::<64>::new();
/// let stream = br#"{"a":"}{"}[1, {"b":[]}] {"c":1}"#;
/// let mut frames = Vec::new();
/// let mut input = &stream[..];
/// while let FeedResult::Frame { frame, remaining } = acc.feed(input) {
///     frames.push(frame.to_vec());
///     input = remaining;
/// }
/// assert_eq!(frames, [&br#"{"a":"}{"}"#[..], br#"[1, {"b":[]}]"#, br#"{"c":1}"#]);
/// ```
#[derive(Debug)]
pub struct JsonStreamAccumulator<const N: usize> {
    buf: [u8; N],
    len: usize,
    /// The current frame outgrew `buf` and is being skipped.
    overflowed: bool,
    state: State,
    /// Open brackets of the current message.
    depth: usize,
    /// Which of the first `TRACKED_DEPTH` open brackets are `{` (bit set) or `[`.
    objects: [u8; TRACKED_DEPTH / 8],
    /// Inside a string: the byte after a `\`.
    escaped: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    /// Between frames.
    Idle,
    /// Bytes that are not a message, up to the next `{`, `[` or line end.
    Run,
    /// Inside a message, expecting what `Expect` says.
    Message(Expect),
    /// Inside a string of a message; `Expect` is what comes after it.
    String(Expect),
}

/// What may come next inside a message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Expect {
    /// A value, or `]` (just after `[`).
    ValueOrClose,
    /// A value (after `:`, or `,` in an array).
    Value,
    /// A key, or `}` (just after `{`).
    KeyOrClose,
    /// A key (after `,` in an object).
    Key,
    /// The `:` after a key.
    Colon,
    /// `,` or the closing bracket, after a value.
    CommaOrClose,
    /// More of a number or literal, or what may follow one.
    Scalar,
    /// Deeper than `TRACKED_DEPTH`: brackets and strings only.
    Untracked,
}

/// What one byte does to the frame.
enum Step {
    /// Part of the frame.
    Take,
    /// Part of the frame, and its last byte.
    End,
    /// Not part of the frame: the frame ends before it.
    EndBefore,
    /// Outside any frame (whitespace between messages).
    Skip,
}

impl<const N: usize> Default for JsonStreamAccumulator<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> JsonStreamAccumulator<N> {
    /// An empty accumulator (a `const fn`, so it can live in a `static`).
    pub const fn new() -> Self {
        Self {
            buf: [0; N],
            len: 0,
            overflowed: false,
            state: State::Idle,
            depth: 0,
            objects: [0; TRACKED_DEPTH / 8],
            escaped: false,
        }
    }

    /// The largest frame it holds, in bytes.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Forgets any partial frame.
    pub fn clear(&mut self) {
        self.len = 0;
        self.overflowed = false;
        self.state = State::Idle;
        self.depth = 0;
        self.escaped = false;
    }

    /// Ends the input: a message cut short is [`EndOfInput::Truncated`]; a run (bytes
    /// that are not a message) is a frame like any other, as a last line without its
    /// newline is; either longer than the buffer is [`EndOfInput::Oversized`];
    /// whitespace or nothing is [`EndOfInput::Nothing`]. The accumulator is empty
    /// afterwards.
    pub fn finish(&mut self) -> EndOfInput<'_> {
        let (state, overflowed, len) = (self.state, self.overflowed, self.len);
        self.clear();
        match state {
            State::Idle => EndOfInput::Nothing,
            _ if overflowed => EndOfInput::Oversized,
            State::Run => EndOfInput::Frame(self.buf.get(..len).unwrap_or(&[])),
            State::Message(_) | State::String(_) => EndOfInput::Truncated,
        }
    }

    /// Feeds bytes in; stops at the first complete frame (or oversized frame) and
    /// returns it with the input not yet taken.
    pub fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        let mut k = 0;
        while let Some(&b) = input.get(k) {
            let end = match self.step(b) {
                Step::Skip => {
                    k += 1;
                    continue;
                }
                Step::Take => {
                    self.store(b);
                    k += 1;
                    continue;
                }
                Step::End => {
                    self.store(b);
                    k + 1
                }
                Step::EndBefore => k,
            };
            let remaining = input.get(end..).unwrap_or(&[]);
            let (len, overflowed) = (self.len, self.overflowed);
            self.clear();
            if overflowed {
                return FeedResult::Oversized { remaining };
            }
            return FeedResult::Frame {
                frame: self.buf.get(..len).unwrap_or(&[]),
                remaining,
            };
        }
        FeedResult::Consumed
    }

    fn store(&mut self, b: u8) {
        match self.buf.get_mut(self.len) {
            Some(d) if !self.overflowed => {
                *d = b;
                self.len += 1;
            }
            _ => self.overflowed = true,
        }
    }

    /// The next state for byte `b`, and what `b` does to the frame.
    fn step(&mut self, b: u8) -> Step {
        let expect = match self.state {
            State::Idle => {
                return match b {
                    b' ' | b'\t' | b'\n' | b'\r' => Step::Skip,
                    b'{' | b'[' => {
                        self.open(b);
                        Step::Take
                    }
                    _ => {
                        self.state = State::Run;
                        Step::Take
                    }
                };
            }
            State::Run => {
                return match b {
                    b'{' | b'[' | b'\n' => Step::EndBefore,
                    _ => Step::Take,
                };
            }
            State::String(after) => return self.string(b, after),
            State::Message(expect) => expect,
        };
        let value = matches!(expect, Expect::Value | Expect::ValueOrClose);
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                if expect == Expect::Scalar {
                    self.state = State::Message(Expect::CommaOrClose);
                }
                return Step::Take;
            }
            b'"' if value => self.state = State::String(Expect::CommaOrClose),
            b'"' if matches!(expect, Expect::Key | Expect::KeyOrClose) => {
                self.state = State::String(Expect::Colon);
            }
            b'"' if expect == Expect::Untracked => self.state = State::String(expect),
            b'{' | b'[' if value || expect == Expect::Untracked => self.open(b),
            b':' if expect == Expect::Colon => self.state = State::Message(Expect::Value),
            b',' if matches!(expect, Expect::CommaOrClose | Expect::Scalar) => {
                self.state = State::Message(if self.top_is_object() {
                    Expect::Key
                } else {
                    Expect::Value
                });
            }
            b'}' | b']' if self.closes(expect, b) => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.state = State::Idle;
                    return Step::End;
                }
                self.state = State::Message(if self.depth <= TRACKED_DEPTH {
                    Expect::CommaOrClose
                } else {
                    Expect::Untracked
                });
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z'
                if value || matches!(expect, Expect::Scalar | Expect::Untracked) =>
            {
                if value {
                    self.state = State::Message(Expect::Scalar);
                }
            }
            _ if expect == Expect::Untracked && b >= 0x20 => {}
            // Broken: a run from here, which this byte may end (`{`, `[`, a line end).
            _ => {
                self.depth = 0;
                self.state = State::Run;
                return self.step(b);
            }
        }
        Step::Take
    }

    /// A byte inside a string; `after` is what follows its closing quote.
    fn string(&mut self, b: u8, after: Expect) -> Step {
        if b < 0x20 {
            // JSON has no raw control byte in a string: broken, a run from here.
            self.depth = 0;
            self.escaped = false;
            self.state = State::Run;
            return self.step(b);
        }
        if self.escaped {
            self.escaped = false;
        } else if b == b'\\' {
            self.escaped = true;
        } else if b == b'"' {
            self.state = State::Message(after);
        }
        Step::Take
    }

    /// Opens a bracket (`b` is `{` or `[`).
    fn open(&mut self, b: u8) {
        let object = b == b'{';
        if let Some(byte) = self.objects.get_mut(self.depth / 8) {
            let bit = 1 << (self.depth % 8);
            if object {
                *byte |= bit;
            } else {
                *byte &= !bit;
            }
        }
        self.depth += 1;
        self.state = State::Message(match (self.depth > TRACKED_DEPTH, object) {
            (true, _) => Expect::Untracked,
            (false, true) => Expect::KeyOrClose,
            (false, false) => Expect::ValueOrClose,
        });
    }

    /// The innermost open bracket is a tracked `{`.
    fn top_is_object(&self) -> bool {
        let Some(top) = self.depth.checked_sub(1) else {
            return false;
        };
        self.objects
            .get(top / 8)
            .is_some_and(|byte| byte & (1 << (top % 8)) != 0)
    }

    /// `b` (`}` or `]`) may close the innermost bracket here.
    fn closes(&self, expect: Expect, b: u8) -> bool {
        if self.depth > TRACKED_DEPTH {
            return true;
        }
        match (b, self.top_is_object()) {
            (b'}', true) => matches!(
                expect,
                Expect::KeyOrClose | Expect::CommaOrClose | Expect::Scalar
            ),
            (b']', false) => matches!(
                expect,
                Expect::ValueOrClose | Expect::CommaOrClose | Expect::Scalar
            ),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    #[derive(Debug, PartialEq)]
    enum Ev {
        Frame(Vec<u8>),
        Oversized,
    }

    fn run<const N: usize>(acc: &mut JsonStreamAccumulator<N>, chunks: &[&[u8]]) -> Vec<Ev> {
        let mut out = Vec::new();
        for &chunk in chunks {
            let mut input = chunk;
            loop {
                match acc.feed(input) {
                    FeedResult::Consumed => break,
                    FeedResult::Frame { frame, remaining } => {
                        out.push(Ev::Frame(frame.to_vec()));
                        input = remaining;
                    }
                    FeedResult::Oversized { remaining } => {
                        out.push(Ev::Oversized);
                        input = remaining;
                    }
                    FeedResult::Malformed { .. } => panic!("json_stream reports no Malformed"),
                }
            }
        }
        out
    }

    fn f(s: &[u8]) -> Ev {
        Ev::Frame(s.to_vec())
    }

    #[test]
    fn messages_back_to_back_at_every_split() {
        let stream: &[u8] = br#" {"a":"}]\"{"}[1,-2.5e3,true,{"b":[]}]
{"c":null} "#;
        let want = [
            f(br#"{"a":"}]\"{"}"#),
            f(br#"[1,-2.5e3,true,{"b":[]}]"#),
            f(br#"{"c":null}"#),
        ];
        for split in 0..=stream.len() {
            let mut acc = JsonStreamAccumulator::<32>::new();
            let got = run(&mut acc, &[&stream[..split], &stream[split..]]);
            assert_eq!(got, want, "split at {split}");
            assert_eq!(acc.finish(), EndOfInput::Nothing);
        }
    }

    #[test]
    fn bytes_that_are_not_a_message_run_to_the_next_bracket_or_line_end() {
        let mut acc = JsonStreamAccumulator::<32>::new();
        let got = run(
            &mut acc,
            &[b"1 2{}hello\n\"x\"[]", b"ile:///tmp/a\"}}}{\"id\":1}"],
        );
        assert_eq!(
            got,
            [
                f(b"1 2"),
                f(b"{}"),
                f(b"hello"),
                f(b"\"x\""),
                f(b"[]"),
                f(b"ile:///tmp/a\"}}}"),
                f(b"{\"id\":1}"),
            ]
        );
        run(&mut acc, &[b"  null "]);
        assert_eq!(acc.finish(), EndOfInput::Frame(b"null "));
    }

    #[test]
    fn a_broken_message_is_one_frame_and_the_next_is_served() {
        let cases: [(&[u8], &[u8]); 9] = [
            (b"[1 2]", b"[1 2]"),
            (b"{", b"{"),
            (b"{\"a\":1]", b"{\"a\":1]"),
            (b"[1}", b"[1}"),
            (b"{\"a\" 1}", b"{\"a\" 1}"),
            (b"{\"a\":\"x\n", b"{\"a\":\"x"),
            (b"{\"a\":1,}", b"{\"a\":1,}"),
            (b"[,]", b"[,]"),
            (b"{\"method\":\"x\"", b"{\"method\":\"x\""),
        ];
        for (bad, frame) in cases {
            let mut acc = JsonStreamAccumulator::<32>::new();
            let got = run(&mut acc, &[bad, b"{\"id\":2}"]);
            assert_eq!(
                got,
                [f(frame), f(b"{\"id\":2}")],
                "{}",
                std::string::String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn oversized_frames_are_skipped_to_their_end() {
        let mut acc = JsonStreamAccumulator::<8>::new();
        let got = run(
            &mut acc,
            &[
                br#"{"a":"0123456789{"}"#,
                br#"[1]0123456789{"b":[[[1]]]}[2]"#,
                b"{\"c\":\"\n",
                b"[3]",
            ],
        );
        assert_eq!(
            got,
            [
                Ev::Oversized,
                f(b"[1]"),
                Ev::Oversized,
                Ev::Oversized,
                f(b"[2]"),
                Ev::Frame(br#"{"c":""#.to_vec()),
                f(b"[3]"),
            ]
        );
    }

    #[test]
    fn nesting_past_the_tracked_depth_is_counted() {
        let deep = TRACKED_DEPTH + 40;
        let mut stream = Vec::new();
        for i in 0..deep {
            stream.push(if i % 2 == 0 { b'[' } else { b'{' });
            if i % 2 == 1 {
                stream.extend_from_slice(b"\"k\":");
            }
        }
        stream.extend_from_slice(b"\"}{]\"");
        for i in (0..deep).rev() {
            stream.push(if i % 2 == 0 { b']' } else { b'}' });
        }
        let mut acc = JsonStreamAccumulator::<4096>::new();
        let got = run(&mut acc, &[&stream, b"[1]"]);
        assert_eq!(got, [f(&stream), f(b"[1]")]);
    }

    #[test]
    fn the_end_of_input_inside_a_message_is_truncated() {
        let cases: [(&[u8], EndOfInput<'_>); 7] = [
            (b"", EndOfInput::Nothing),
            (b" \r\n\t", EndOfInput::Nothing),
            (b"{}\n", EndOfInput::Nothing),
            (b"{\"a\"", EndOfInput::Truncated),
            (b"[\"\\", EndOfInput::Truncated),
            (b"42", EndOfInput::Frame(b"42")),
            (b"[\"0123456789\"", EndOfInput::Oversized),
        ];
        for (stream, want) in cases {
            let mut acc = JsonStreamAccumulator::<8>::new();
            run(&mut acc, &[stream]);
            assert_eq!(acc.finish(), want, "{stream:?}");
            assert_eq!(run(&mut acc, &[b"[1]"]), [f(b"[1]")]);
        }
    }
}
