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

pub mod newline;

use crate::dispatch::OutputTooSmall;
use crate::error::code;
use crate::id::Id;
use crate::write::{Message, ResultWriter};

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
        Ok(()) => Ok(w.into_written()),
        Err(_) => Err(OutputTooSmall),
    }
}
