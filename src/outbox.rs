//! Outbox: messages the server sends on its own — notifications (`$/progress`,
//! `window/logMessage`, a button pressed on a board) and requests to the client —
//! queued by handlers or by the application, and sent by the serve loop through the
//! same framing as the replies.
//!
//! A handler queues them in the [`Outbox`] its context holds; the
//! [`Service`](crate::service::Service) that runs the serve loop is told where that is
//! ([`Service::with_outbox`](crate::service::Service::with_outbox)), and sends what a
//! handler queued before that handler's reply, in order. What the application queues
//! between requests goes out at the next turn of the loop.
//!
//! # Sending while a handler runs
//!
//! The serve loop sends a handler's messages when the handler returns, just before its
//! reply. Progress reports of a long call should go out as the work goes on (some
//! clients, such as the MCP TypeScript SDK, drop a progress notification that reaches
//! them in one read with the reply). A handler that can reach the transport
//! (`std::io::stdout()`, a clone of a socket, a UART behind a lock in its context) sends
//! them itself: it writes [`Outbox::queued`] there, then calls [`Outbox::clear`].
//! Each queued message ends with its `\n`, so the bytes are framed already for newline
//! framing (with `Content-Length` framing, write the header before each message). What
//! is still queued when the handler returns goes out before its reply, as always
//! (`tests/service.rs`, `a_handler_can_send_what_it_queued_while_it_runs`).

use crate::client::{self, RequestId};
use crate::write::{ResultWriter, WriteError};

#[cfg(feature = "concurrent")]
mod shared;
#[cfg(feature = "concurrent")]
pub(crate) use shared::{queue_message, AsQueue, Queue};
#[cfg(feature = "concurrent")]
#[cfg_attr(docsrs, doc(cfg(feature = "concurrent")))]
pub use shared::{LentOutbox, SharedOutbox};

/// Messages queued for the peer, whatever holds them: what the serve loop drains.
pub trait Outgoing {
    /// The queued messages, each followed by `\n` (a message never holds a raw line
    /// break: the writer escapes them in strings and drops them between tokens).
    fn queued(&self) -> &[u8];

    /// Forgets the queued messages: they were sent.
    fn clear(&mut self);
}

/// A fixed-capacity queue of outgoing notifications and requests, `N` bytes in all.
///
/// Each message is written whole or not at all: one that does not fit is refused with
/// [`WriteError::OutboxFull`] and the queue keeps what it had, so a handler can
/// decide (drop a progress report, fail the call). Requests take their ids from the
/// caller (an [`IdCounter`](crate::client::IdCounter)); match their responses with a
/// [`Pending`](crate::client::Pending) table, fed by
/// [`Service::with_responses`](crate::service::Service::with_responses).
///
/// ```
/// use jsonrpc_slice::outbox::Outbox;
///
/// let mut outbox = Outbox::<256>::new();
/// outbox.notify("window/logMessage", |p| {
///     p.begin_object()?;
///     p.key("type")?;
///     p.i64(3)?;
///     p.key("message")?;
///     p.str("indexing\u{2026}")?;
///     p.end()
/// })?;
/// assert_eq!(
///     outbox.queued(),
///     "{\"jsonrpc\":\"2.0\",\"method\":\"window/logMessage\",\"params\":{\"type\":3,\"message\":\"indexing\u{2026}\"}}\n".as_bytes()
/// );
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
pub struct Outbox<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Default for Outbox<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::fmt::Debug for Outbox<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Outbox")
            .field("queued_bytes", &self.len)
            .field("capacity", &N)
            .finish()
    }
}

impl<const N: usize> Outbox<N> {
    /// An empty outbox (a `const fn`: it can live in a `static`).
    pub const fn new() -> Self {
        Self {
            buf: [0; N],
            len: 0,
        }
    }

    /// Queues a notification of `method`; `params` writes its params as for
    /// [`client::write_notification`] (an array, an object, or nothing).
    pub fn notify(
        &mut self,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        self.queue(|out| client::write_notification(out, method, params))
    }

    /// Queues a request of `method` with `id`; `params` as for [`notify`](Self::notify).
    pub fn request(
        &mut self,
        id: RequestId<'_>,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        self.queue(|out| client::write_request(out, id, method, params))
    }

    /// `true` when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The queued messages, each followed by `\n` (as [`Outgoing::queued`], without
    /// the trait in scope).
    pub fn queued(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Forgets the queued messages (as [`Outgoing::clear`], without the trait in scope).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Writes one message after the queued ones, with its `\n`: all of it, or nothing.
    fn queue(
        &mut self,
        write: impl FnOnce(&mut [u8]) -> Result<&[u8], WriteError>,
    ) -> Result<(), WriteError> {
        push(&mut self.buf, &mut self.len, write)
    }
}

/// Writes one message after the `len` bytes queued in `buf`, with its `\n`: all of
/// it, or nothing (`len` unchanged).
fn push(
    buf: &mut [u8],
    len: &mut usize,
    write: impl FnOnce(&mut [u8]) -> Result<&[u8], WriteError>,
) -> Result<(), WriteError> {
    let room = buf.get_mut(*len..).unwrap_or(&mut []);
    // Keep a byte for the `\n`.
    let room_len = room.len().checked_sub(1).ok_or(WriteError::OutboxFull)?;
    let written = write(room.get_mut(..room_len).unwrap_or(&mut []))
        .map_err(|e| match e {
            WriteError::BufferFull => WriteError::OutboxFull,
            e => e,
        })?
        .len();
    if let Some(nl) = buf.get_mut(*len + written) {
        *nl = b'\n';
    }
    *len += written + 1;
    Ok(())
}

impl<const N: usize> Outgoing for Outbox<N> {
    fn queued(&self) -> &[u8] {
        Outbox::queued(self)
    }

    fn clear(&mut self) {
        Outbox::clear(self);
    }
}

/// The messages of an outbox's queued bytes (each followed by `\n`), in order, empty
/// ones skipped: what a transport that frames each message itself (the concurrent
/// service's writer, a WebSocket's text messages) sends one by one.
#[cfg(feature = "concurrent")]
pub(crate) fn messages(queued: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = queued;
    core::iter::from_fn(move || loop {
        if rest.is_empty() {
            return None;
        }
        let end = crate::simd::find_byte(rest, b'\n').unwrap_or(rest.len());
        let (message, after) = rest.split_at(end);
        rest = after.get(1..).unwrap_or_default();
        if !message.is_empty() {
            return Some(message);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `messages` hands out each `\n`-ended message of queued bytes in order, skips
    /// empty ones (a blank line, a leading or a doubled `\n`), and takes an unended
    /// last one whole.
    #[test]
    #[cfg(feature = "concurrent")]
    fn messages_are_the_lines_that_are_not_empty() {
        extern crate std;
        use std::vec::Vec;
        let cases: [(&[u8], &[&[u8]]); 6] = [
            (b"", &[]),
            (b"\n\n", &[]),
            (b"{\"a\":1}\n", &[b"{\"a\":1}"]),
            (b"a\n\nb\n", &[b"a", b"b"]),
            (b"\na\nbb", &[b"a", b"bb"]),
            (b"0123456789abcdef\nx\n", &[b"0123456789abcdef", b"x"]),
        ];
        for (queued, want) in cases {
            assert_eq!(messages(queued).collect::<Vec<_>>(), want, "{queued:?}");
        }
    }

    #[test]
    fn messages_fit_whole_or_not_at_all() {
        let mut outbox = Outbox::<128>::new();
        outbox.notify("a", |_| Ok(())).unwrap();
        outbox
            .request(RequestId::Number(7), "b", |p| {
                p.begin_array()?;
                p.end()
            })
            .unwrap();
        let queued = br#"{"jsonrpc":"2.0","method":"a"}
{"jsonrpc":"2.0","method":"b","params":[],"id":7}
"#;
        assert_eq!(outbox.queued(), queued);
        // Longer than what is left: refused, and the queue is as it was.
        let e = outbox.notify("c", |p| {
            p.begin_array()?;
            for _ in 0..20 {
                p.i64(1_000_000)?;
            }
            p.end()
        });
        assert_eq!(e, Err(WriteError::OutboxFull));
        assert_eq!(outbox.queued(), queued);
        // What fits exactly, with its `\n`, is taken.
        let left = 128 - queued.len();
        // `{"jsonrpc":"2.0","method":"` name `"}` and the `\n`.
        let exact = br#"{"jsonrpc":"2.0","method":""#.len() + 2 + 1;
        let name = "x".repeat(left - exact);
        outbox.notify(&name, |_| Ok(())).unwrap();
        assert_eq!(outbox.queued().len(), 128);
        assert_eq!(outbox.notify("", |_| Ok(())), Err(WriteError::OutboxFull));
        outbox.clear();
        assert!(outbox.is_empty());
    }
}
