//! Write: replies into a fixed buffer, with checkpoints and rollback.
//!
//! The last room of the flow. [`ResultWriter`] is the one writer of a reply: the
//! dispatcher writes the envelope through it, and a handler writes its `result` through
//! it. Every write either fits whole or is refused; the dispatcher checkpoints before
//! each reply and rolls back a reply that did not fit, writing `-32603` in its place, so
//! the buffer only ever holds complete, valid JSON.
//!
//! # Contract
//!
//! - No write panics, whatever the buffer size and whatever a handler calls in
//!   whatever order: a call out of order (a key inside an array, `end` with nothing
//!   open, a second top-level value, ...) is refused with [`WriteError::Misuse`] and
//!   poisons the result, which the dispatcher then replaces with `-32603`.
//! - Strings are escaped (`"`, `\`, control characters), so nothing a handler writes
//!   through [`ResultWriter::str`] can break the JSON or put a raw newline on the wire.
//!   [`RawJson`](crate::RawJson) values (results, error `data`) are valid JSON by construction and are
//!   copied verbatim, except that raw line breaks, which a valid value holds only as
//!   whitespace, are dropped: no reply ever holds one.
//!
//! # Files
//!
//! One job each, all of them `impl ResultWriter` blocks over the one struct here:
//!
//! - `sink.rs`: the byte sink: the room (`end`, the allowance), checkpoints and
//!   rollback, the compact build's byte loop; `copy_fast.rs` or `copy_compact.rs`,
//!   one per build: `push` and its forms, and the copy of raw JSON values.
//! - `string.rs`: string content, escaped (a loop over `simd::plain_end`), after
//!   `string_fast.rs`'s blocks in the fast build (`string_compact.rs`: none).
//! - `number.rs`: integers' digits; `float.rs`: floats and decimals.
//! - `reply.rs`: the envelope of replies and error replies, and
//!   [`ResultWriter::error`].
//! - `result.rs`: the handler's API for one JSON value and the checks of its
//!   structure.

use core::fmt;

pub(crate) mod float;
mod number;
mod reply;
mod result;
// The build's copy into the buffer: one file each, the build switch named here alone.
#[cfg_attr(jsonrpc_slice_fast, path = "copy_fast.rs")]
#[cfg_attr(not(jsonrpc_slice_fast), path = "copy_compact.rs")]
mod copy;
mod sink;
mod string;
// The build's escaping of strings before the run loop: blocks, or none.
#[cfg_attr(jsonrpc_slice_fast, path = "string_fast.rs")]
#[cfg_attr(not(jsonrpc_slice_fast), path = "string_compact.rs")]
mod string_blocks;

#[cfg(feature = "serde")]
pub(crate) use float::{f32_text, f64_text, NumberText};
pub(crate) use reply::Message;

/// Why a write was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
// A word, and no variant 0: `Ok(())` of a write is then 0 in a register, and each of
// the many checks of a write's outcome is one compare with zero (flash, on a
// Cortex-M).
#[repr(u32)]
pub enum WriteError {
    /// The reply (or the message a client writes) does not fit in the output buffer.
    BufferFull = 1,
    /// A call out of order for the JSON being written (a handler bug).
    Misuse = 2,
    /// The message does not fit in what is left of an outbox
    /// ([`Outbox`](crate::outbox::Outbox), `SharedOutbox`): nothing was queued; the
    /// messages queued before it go out first, or it is too long for the outbox.
    OutboxFull = 3,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::BufferFull => "reply does not fit in the output buffer",
            Self::Misuse => "result written out of order",
            Self::OutboxFull => "message does not fit in what is left of the outbox",
        })
    }
}

impl core::error::Error for WriteError {}

/// Lets a handler use `?` on writes: the dispatcher sees the overflow or the misuse
/// itself and answers `-32603` in place of the reply.
impl From<WriteError> for crate::error::RpcError<'_> {
    // Out of line: a failed write is rare, and each inlined copy wrote the whole error
    // at every `?` of every handler.
    #[cold]
    #[inline(never)]
    fn from(_: WriteError) -> Self {
        crate::error::RpcError::internal()
    }
}

/// The deepest nesting a handler may open in its result.
pub const MAX_RESULT_DEPTH: u8 = 64;

/// Writes compact JSON into a fixed buffer. Handlers get one to write their `result`.
///
/// A handler writes exactly one JSON value, with the typed calls below or as a
/// [`RawJson`](crate::RawJson) copied verbatim. A handler that writes nothing and returns `Ok` answers
/// `null`.
///
/// ```
/// use jsonrpc_slice::ResultWriter;
///
/// let mut buf = [0u8; 64];
/// let mut w = ResultWriter::new(&mut buf);
/// w.begin_object()?;
/// w.key("sum")?;
/// w.i64(-7)?;
/// w.key("tags")?;
/// w.begin_array()?;
/// w.str("a\"b")?;
/// w.bool(true)?;
/// w.end()?;
/// w.end()?;
/// assert_eq!(w.written(), br#"{"sum":-7,"tags":["a\"b",true]}"#);
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
// In this order (`repr(C)`): the byte-sized state first, where a Cortex-M reaches it
// with its short loads and stores (their offsets go up to 31; with the bytes last the
// codec share was 24 bytes larger).
#[repr(C)]
pub struct ResultWriter<'o> {
    /// Structure of the value being written.
    value: ValueState,
    /// `false` while a notification's handler runs: everything is accepted and dropped.
    live: bool,
    /// A write did not fit since the last checkpoint.
    full: bool,
    buf: &'o mut [u8],
    len: usize,
    /// Writes may not go past this offset (`<= buf.len()`).
    end: usize,
    /// The work budget left: how far `end` may still be, which every rollback lowers
    /// by the bytes it drops (`usize::MAX`: no budget; see `set_allowance`).
    allowance: usize,
    /// Where the reply being written starts (`usize::MAX` outside a handler's call).
    reply_at: usize,
    /// After [`error`](ResultWriter::error): where the error's `,"data":` starts;
    /// 0 when the handler wrote no error.
    error_data_at: usize,
}

/// Where a handler is in the one JSON value it writes.
// In this order (`repr(C)`): the first four bytes are zero exactly when the value is
// not left open or misused, which `ResultWriter::finish_value` reads as one word.
#[derive(Copy, Clone)]
#[repr(C)]
struct ValueState {
    depth: u8,
    after_key: bool,
    in_string: bool,
    misuse: bool,
    done: bool,
    /// One bit per open level, the innermost in the lowest bit: set for an object.
    /// (Shifted by one on open and close: cheap on a 32-bit core too.)
    objects: u64,
    /// The same levels: set once the level holds an item.
    items: u64,
}

impl<'o> ResultWriter<'o> {
    /// A writer over all of `buf`.
    // Out of line in the compact build: one copy for the server and the framers'
    // error replies.
    #[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
    pub fn new(buf: &'o mut [u8]) -> Self {
        let end = buf.len();
        Self {
            buf,
            len: 0,
            end,
            allowance: usize::MAX,
            live: true,
            full: false,
            reply_at: usize::MAX,
            error_data_at: 0,
            value: ValueState {
                depth: 0,
                // Any bits: none above `depth` is read before `open` shifts it in.
                // (All zeros made the whole writer one `memset` call on a Cortex-M.)
                objects: u64::MAX,
                items: u64::MAX,
                after_key: false,
                in_string: false,
                done: false,
                misuse: false,
            },
        }
    }

    /// The bytes written so far.
    pub fn written(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Consumes the writer, giving back the written part of the buffer.
    pub fn into_written(self) -> &'o [u8] {
        let len = self.len;
        let buf: &'o [u8] = self.buf;
        buf.get(..len).unwrap_or(&[])
    }

    /// Bytes still free in the buffer (`0` while writing for a notification, whose
    /// result is dropped: a handler may skip work when this is `false`, see
    /// [`ResultWriter::is_live`]).
    pub fn remaining(&self) -> usize {
        if self.live {
            self.end.saturating_sub(self.len)
        } else {
            0
        }
    }

    /// `false` while the result is for a notification and will be dropped.
    pub fn is_live(&self) -> bool {
        self.live
    }
}

impl fmt::Debug for ResultWriter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResultWriter")
            .field("len", &self.len)
            .field("end", &self.end)
            .field("live", &self.live)
            .finish()
    }
}
