//! Framing: cutting a byte stream into messages, separate from the codec.
//!
//! A serial link or a pipe delivers bytes in chunks of any size; a framer collects
//! them in a fixed buffer and hands out one complete frame at a time, which then goes
//! to [`Server::handle`](crate::Server::handle). A frame longer than the buffer is
//! skipped (never buffered whole) and reported, so the caller answers it with
//! [`oversized_frame_reply`]; the stream carries on at the next frame and nothing after
//! it is lost.
//!
//! - [`newline`]: newline-delimited JSON (serial links, sockets, stdio).
//! - [`content_length`]: `Content-Length:` headers, the LSP base protocol.
//! - [`json_stream`]: JSON messages back to back with no delimiter (Ethereum IPC).
//! - [`cobs`]: COBS-encoded frames ended by `0x00`, optionally with a CRC-16 or CRC-32
//!   trailer (binary-safe; corrupted frames dropped).
//! - [`sse`]: server-sent events (`text/event-stream`): each event's `data:` a message;
//!   a writer of events, comments and `retry:` too.
//!
//! All implement [`Framer`], so every serve loop ([`Service`](crate::service::Service),
//! the concurrent service) takes any.

pub mod cobs;
pub mod content_length;
pub mod json_stream;
pub mod newline;
pub mod sse;

use cobs::CobsPieces;
pub use cobs::Encoding;

use crate::dispatch::OutputTooSmall;

use crate::error::code;
use crate::id::Id;
use crate::write::{Message, ResultWriter};

/// What one call to a framer's `feed` found.
#[derive(Debug, PartialEq, Eq)]
pub enum FeedResult<'a, 'b> {
    /// All of the input was taken; no frame is complete yet.
    Consumed,
    /// A complete frame, and the input not yet fed.
    Frame {
        /// The frame: one JSON-RPC message, for [`Server::handle`](crate::Server::handle).
        frame: &'a [u8],
        /// The rest of the input: feed it next.
        remaining: &'b [u8],
    },
    /// A frame longer than the buffer; it was (or is being) skipped. Answer it with
    /// [`oversized_frame_reply`], then feed `remaining`.
    Oversized {
        /// The rest of the input: feed it next.
        remaining: &'b [u8],
    },
    /// Bytes that are not a frame (a malformed header). Answer with
    /// [`malformed_frame_reply`], then feed `remaining`.
    Malformed {
        /// The rest of the input: feed it next.
        remaining: &'b [u8],
    },
}

/// What a framer still held when its input ended (see [`Framer::finish`]).
#[derive(Debug, PartialEq, Eq)]
pub enum EndOfInput<'a> {
    /// Nothing to answer: no bytes, blank lines only, or bytes answered already (a
    /// malformed header, an oversized body).
    Nothing,
    /// A last frame that the end of input completes (a last line without its newline):
    /// answer it as any other frame.
    Frame(&'a [u8]),
    /// A last frame longer than the buffer: answer with [`oversized_frame_reply`].
    Oversized,
    /// A message cut short (a header block, or a body shorter than its
    /// `Content-Length`): answer with `-32700 Parse error`, `"id":null`, as the
    /// serve loops do.
    Truncated,
}

/// A framing: cuts incoming bytes into frames, and frames outgoing replies.
pub trait Framer {
    /// Feeds bytes in; stops at the first event and returns it with the input not yet
    /// taken.
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b>;

    /// Ends the input: says what was left (the framer is then empty, ready for a new
    /// stream). Every serve loop calls it once its reader ends.
    fn finish(&mut self) -> EndOfInput<'_>;

    /// The largest frame, in bytes.
    fn max_frame(&self) -> usize;

    /// The bytes to send before a reply of `len` bytes (written into `scratch`).
    fn reply_header<'s>(&self, len: usize, scratch: &'s mut [u8; 40]) -> &'s [u8];

    /// The bytes to send after a reply.
    fn reply_trailer(&self) -> &'static [u8];

    /// How a reply's own bytes go on the wire, between header and trailer: as they are
    /// (the default), or transformed (COBS, with its checksum), which
    /// [`FramedReply::pieces`] does as it yields them.
    fn reply_encoding(&self) -> Encoding {
        Encoding::Verbatim
    }
}

impl<const N: usize> Framer for newline::LineAccumulator<N> {
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        newline::LineAccumulator::feed(self, input)
    }

    fn finish(&mut self) -> EndOfInput<'_> {
        newline::LineAccumulator::finish(self)
    }

    fn max_frame(&self) -> usize {
        N
    }

    fn reply_header<'s>(&self, _: usize, _: &'s mut [u8; 40]) -> &'s [u8] {
        &[]
    }

    fn reply_trailer(&self) -> &'static [u8] {
        b"\n"
    }
}

impl<const N: usize> Framer for content_length::ContentLengthAccumulator<N> {
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        content_length::ContentLengthAccumulator::feed(self, input)
    }

    fn finish(&mut self) -> EndOfInput<'_> {
        content_length::ContentLengthAccumulator::finish(self)
    }

    fn max_frame(&self) -> usize {
        N
    }

    fn reply_header<'s>(&self, len: usize, scratch: &'s mut [u8; 40]) -> &'s [u8] {
        content_length::header(len, scratch)
    }

    fn reply_trailer(&self) -> &'static [u8] {
        b""
    }
}

impl<const N: usize> Framer for json_stream::JsonStreamAccumulator<N> {
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        json_stream::JsonStreamAccumulator::feed(self, input)
    }

    fn finish(&mut self) -> EndOfInput<'_> {
        json_stream::JsonStreamAccumulator::finish(self)
    }

    fn max_frame(&self) -> usize {
        N
    }

    fn reply_header<'s>(&self, _: usize, _: &'s mut [u8; 40]) -> &'s [u8] {
        &[]
    }

    // As geth writes its replies: ethers splits what it reads at line ends.
    fn reply_trailer(&self) -> &'static [u8] {
        b"\n"
    }
}

impl<const N: usize> Framer for sse::SseAccumulator<N> {
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        sse::SseAccumulator::feed(self, input)
    }

    fn finish(&mut self) -> EndOfInput<'_> {
        sse::SseAccumulator::finish(self)
    }

    fn max_frame(&self) -> usize {
        N
    }

    // The codec's replies hold no line break: one `data:` line, then the blank line
    // that ends the event.
    fn reply_header<'s>(&self, _: usize, _: &'s mut [u8; 40]) -> &'s [u8] {
        sse::DATA
    }

    fn reply_trailer(&self) -> &'static [u8] {
        sse::EVENT_END
    }
}

impl<const N: usize> Framer for cobs::CobsAccumulator<N> {
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        cobs::CobsAccumulator::feed(self, input)
    }

    fn finish(&mut self) -> EndOfInput<'_> {
        cobs::CobsAccumulator::finish(self)
    }

    fn max_frame(&self) -> usize {
        self.capacity()
    }

    fn reply_header<'s>(&self, _: usize, _: &'s mut [u8; 40]) -> &'s [u8] {
        &[]
    }

    fn reply_trailer(&self) -> &'static [u8] {
        b"\0"
    }

    fn reply_encoding(&self) -> Encoding {
        Encoding::Cobs(self.check())
    }
}

/// A framed reply, ready to send: header, body (as the framing encodes it), trailer.
/// Nothing is copied: [`pieces`](Self::pieces) yields them borrowed.
#[derive(Debug)]
pub struct FramedReply<'o> {
    header: [u8; 40],
    header_len: usize,
    /// The reply itself, before its encoding (see [`Framer::reply_encoding`]).
    pub body: &'o [u8],
    /// What follows it (`\n` for newline framing, `0x00` for COBS).
    pub trailer: &'static [u8],
    encoding: Encoding,
    /// The body's checksum (COBS with a [`Check`](cobs::Check)), its first
    /// `Check::len` bytes.
    check: [u8; 4],
}

impl FramedReply<'_> {
    /// What precedes the body (`Content-Length: N\r\n\r\n`, or nothing).
    pub fn header(&self) -> &[u8] {
        self.header.get(..self.header_len).unwrap_or(&[])
    }

    /// The bytes to write, in order, as borrowed pieces: header, body and trailer, or,
    /// for COBS, each block's code byte and bytes, then the delimiter. Written one
    /// after the other they are the frame; nothing is buffered.
    pub fn pieces(&self) -> Pieces<'_> {
        let inner = match self.encoding {
            Encoding::Verbatim => PiecesInner::Verbatim([self.header(), self.body], 0),
            Encoding::Cobs(check) => {
                let check = self.check.get(..check.len()).unwrap_or(&[]);
                PiecesInner::Cobs(CobsPieces::new(self.body, check))
            }
        };
        Pieces {
            inner,
            trailer: Some(self.trailer),
        }
    }

    /// The length of the frame on the wire, in bytes: the sum of its pieces.
    pub fn wire_len(&self) -> usize {
        self.pieces().map(<[u8]>::len).sum()
    }
}

/// The pieces of a [`FramedReply`], in the order they are written (see
/// [`FramedReply::pieces`]).
#[derive(Debug, Clone)]
pub struct Pieces<'r> {
    inner: PiecesInner<'r>,
    trailer: Option<&'static [u8]>,
}

#[derive(Debug, Clone)]
enum PiecesInner<'r> {
    /// Header and body, and how many of them were given.
    Verbatim([&'r [u8]; 2], usize),
    Cobs(CobsPieces<'r>),
}

impl<'r> Iterator for Pieces<'r> {
    type Item = &'r [u8];

    fn next(&mut self) -> Option<&'r [u8]> {
        let piece = match &mut self.inner {
            PiecesInner::Verbatim(parts, given) => {
                let piece = parts.get(*given).copied();
                *given += 1;
                piece
            }
            PiecesInner::Cobs(cobs) => cobs.next(),
        };
        piece.or_else(|| self.trailer.take())
    }
}

/// `message` framed as `framer` frames its replies: how a client sends a request, or
/// an application a message of its own, over the same framing.
///
/// ```
/// use jsonrpc_slice::frame::{frame_message, newline::LineAccumulator};
///
/// let framer = LineAccumulator::<64>::new();
/// let framed = frame_message(&framer, b"{}");
/// assert_eq!(framed.pieces().collect::<Vec<_>>().concat(), b"{}\n");
/// ```
pub fn frame_message<'m, F: Framer + ?Sized>(framer: &F, message: &'m [u8]) -> FramedReply<'m> {
    framed(framer, message, message.len())
}

/// What the framer gave next: a frame to answer, or bytes that are not one, answered
/// already (an oversized frame, a malformed header).
pub(crate) enum Event<'f> {
    /// A frame, borrowed from the framer.
    Frame(&'f [u8]),
    /// The length of the error reply written into the output (0: none fit).
    Answered(usize),
}

/// Feeds `input` up to the next frame (or the next bytes that are not one, which it
/// answers into `output`). `None` once all of `input` is taken.
pub(crate) fn next_event<'f, F: Framer + ?Sized>(
    framer: &'f mut F,
    input: &mut &[u8],
    output: &mut [u8],
) -> Option<Event<'f>> {
    let max_frame = framer.max_frame();
    let (event, remaining) = match framer.feed(input) {
        FeedResult::Consumed => {
            *input = &[];
            return None;
        }
        FeedResult::Frame { frame, remaining } => (Event::Frame(frame), remaining),
        FeedResult::Oversized { remaining } => {
            let len = oversized_frame_reply(max_frame, output).map_or(0, <[u8]>::len);
            (Event::Answered(len), remaining)
        }
        FeedResult::Malformed { remaining } => {
            let len = malformed_frame_reply(output).map_or(0, <[u8]>::len);
            (Event::Answered(len), remaining)
        }
    };
    *input = remaining;
    Some(event)
}

/// Ends the framer's input ([`Framer::finish`]): what it held, as [`next_event`]
/// gives it (a message cut short is the empty frame, which `Server::handle` answers
/// `-32700`). `None` when it held nothing.
pub(crate) fn end_event<'f, F: Framer + ?Sized>(
    framer: &'f mut F,
    output: &mut [u8],
) -> Option<Event<'f>> {
    let max_frame = framer.max_frame();
    Some(match framer.finish() {
        EndOfInput::Nothing => return None,
        EndOfInput::Frame(frame) => Event::Frame(frame),
        EndOfInput::Oversized => {
            Event::Answered(oversized_frame_reply(max_frame, output).map_or(0, <[u8]>::len))
        }
        EndOfInput::Truncated => Event::Frame(&[]),
    })
}

/// The first `len` bytes of `output`, framed by `framer`.
pub(crate) fn framed<'o, F: Framer + ?Sized>(
    framer: &F,
    output: &'o [u8],
    len: usize,
) -> FramedReply<'o> {
    let mut header = [0u8; 40];
    let header_len = framer.reply_header(len, &mut header).len();
    let body = output.get(..len).unwrap_or(&[]);
    let encoding = framer.reply_encoding();
    let check = match encoding {
        Encoding::Cobs(check) => check.of(body),
        Encoding::Verbatim => [0; 4],
    };
    FramedReply {
        header,
        header_len,
        body,
        trailer: framer.reply_trailer(),
        encoding,
        check,
    }
}

/// Writes the reply to a frame longer than `max_frame` bytes: `-32600`, `"id":null`,
/// message `Invalid Request: frame larger than N bytes`.
///
/// ```
/// let mut out = [0u8; 128];
/// let reply = jsonrpc_slice::frame::oversized_frame_reply(1024, &mut out)?;
/// assert_eq!(
///     reply,
///     br#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: frame larger than 1024 bytes"},"id":null}"#
/// );
/// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
/// ```
pub fn oversized_frame_reply(max_frame: usize, output: &mut [u8]) -> Result<&[u8], OutputTooSmall> {
    let mut w = ResultWriter::new(output);
    let message = Message::with("Invalid Request: frame larger than ", max_frame, " bytes");
    match w.error_reply(Id::NULL, code::INVALID_REQUEST, message, None) {
        Ok(_) => Ok(w.into_written()),
        Err(_) => Err(OutputTooSmall),
    }
}

/// Writes the reply to bytes that are not a frame (a malformed header): `-32600`,
/// `"id":null`, message `Invalid Request: malformed frame header`.
pub fn malformed_frame_reply(output: &mut [u8]) -> Result<&[u8], OutputTooSmall> {
    let mut w = ResultWriter::new(output);
    let message = Message::plain("Invalid Request: malformed frame header");
    match w.error_reply(Id::NULL, code::INVALID_REQUEST, message, None) {
        Ok(_) => Ok(w.into_written()),
        Err(_) => Err(OutputTooSmall),
    }
}
