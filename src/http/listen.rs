//! Streams a client opens to hear the server ([`Verdict::listen`]): [`Listeners`],
//! where the application sends them messages, from any thread.
//!
//! A client that wants the server's messages outside any call of its own (MCP's
//! 2025-11-25 `GET` stream, on which a server sends notifications unrelated to a
//! request) asks with a request the gate answers with [`Verdict::listen`]: the
//! response is `200` with `Content-Type: text/event-stream`, held open; each message
//! the application sends to its scope ([`Listeners::send`]) goes out as one event, as
//! it is sent. The stream ends when [`Listeners::close`] closes its scope, when the
//! client stops reading (its queue full), when it is replaced, and at the server's
//! shutdown.
//!
//! Bounds: one stream a scope (a new one replaces the old, which ends: a client that
//! reconnects is not refused for its own stale stream); at most `most` streams at
//! once, the oldest ended for a new one past that; [`DEPTH`] messages waiting for a
//! client at most (a send that finds them all waiting ends the stream, and is refused:
//! [`Unsent::NotReading`]); a comment line every [`KEEP_ALIVE`] while nothing is sent,
//! so a client gone without a word is found by the write that fails, and proxies do
//! not close the quiet stream. A stream holds its connection (counted busy: it is not
//! closed as idle, nor for a new client) and no buffer pair; each message sent is one
//! allocation, the event's bytes.
//!
//! [`Verdict::listen`]: super::gate::Verdict::listen

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use std::vec::Vec;

use hyper::body::Bytes;
use tokio::sync::mpsc;

use super::server::lock;
use super::stream::event;

/// How many messages wait for a stream's client at most.
pub const DEPTH: usize = 64;

/// How long a stream stays quiet before a comment line (`:`) is sent on it.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The streams open to hear the server, by scope; a clone is the same set.
///
/// Made by the application, given to the server ([`HttpServer::with_listeners`]), and
/// kept where its code sends from (a handler's state, the gate, another task).
///
/// ```
/// use jsonrpc_slice::http::Listeners;
///
/// let listeners = Listeners::new(100);
/// // No stream of scope 7 is open: the message is not sent.
/// assert!(listeners.send(7, br#"{"jsonrpc":"2.0","method":"tick"}"#).is_err());
/// ```
///
/// [`HttpServer::with_listeners`]: super::HttpServer::with_listeners
#[derive(Clone)]
pub struct Listeners {
    inner: Arc<Inner>,
}

impl core::fmt::Debug for Listeners {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Listeners")
            .field("open", &lock(&self.inner.open).len())
            .field("most", &self.inner.most)
            .finish()
    }
}

struct Inner {
    /// Oldest first.
    open: Mutex<Vec<Open>>,
    /// The most streams at once (at least one).
    most: usize,
    /// Tells the streams apart across reopenings of one scope.
    serial: AtomicU64,
}

struct Open {
    scope: u64,
    serial: u64,
    events: mpsc::Sender<Bytes>,
}

/// Why [`Listeners::send`] did not send a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsent {
    /// No stream of the scope is open.
    NoStream,
    /// The stream's client has [`DEPTH`] messages waiting: it does not read. The
    /// stream was ended (its client may open another).
    NotReading,
}

impl core::fmt::Display for Unsent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NoStream => "no stream of this scope is open",
            Self::NotReading => "the stream's client does not read: the stream was ended",
        })
    }
}

impl std::error::Error for Unsent {}

impl Listeners {
    /// An empty set that holds at most `most` streams at once (0 is taken as 1).
    pub fn new(most: usize) -> Self {
        Self {
            inner: Arc::new(Inner {
                open: Mutex::new(Vec::new()),
                most: most.max(1),
                serial: AtomicU64::new(0),
            }),
        }
    }

    /// Sends `message` (one JSON-RPC message) on the stream of `scope`, as one event
    /// (a line break in it makes another `data:` line, as server-sent events carry
    /// one). Does not wait: refused when no stream of `scope` is open, or when its
    /// client does not read (the stream is then ended).
    pub fn send(&self, scope: u64, message: &[u8]) -> Result<(), Unsent> {
        let mut open = lock(&self.inner.open);
        let Some(at) = open.iter().position(|o| o.scope == scope) else {
            return Err(Unsent::NoStream);
        };
        match open[at].events.try_send(event(message)) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(_)) => {
                // Dropping the sender ends the stream once its client has read what waits.
                open.remove(at);
                Err(Unsent::NotReading)
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                open.remove(at);
                Err(Unsent::NoStream)
            }
        }
    }

    /// Ends the stream of `scope` (a session that ended): `false` if none was open.
    /// What it was sent before is still delivered.
    pub fn close(&self, scope: u64) -> bool {
        let mut open = lock(&self.inner.open);
        let before = open.len();
        open.retain(|o| o.scope != scope);
        open.len() != before
    }

    /// Whether a stream of `scope` is open.
    pub fn is_open(&self, scope: u64) -> bool {
        lock(&self.inner.open)
            .iter()
            .any(|o| o.scope == scope && !o.events.is_closed())
    }

    /// How many streams are open.
    pub fn len(&self) -> usize {
        lock(&self.inner.open).len()
    }

    /// No stream is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Opens the stream of `scope`, replacing the one open (which ends), and, past
    /// `most`, ending the oldest: the events to send, and what takes the stream out
    /// of the set when its body is dropped.
    pub(super) fn open(&self, scope: u64) -> (mpsc::Receiver<Bytes>, Leave) {
        let (events, receiver) = mpsc::channel(DEPTH);
        let serial = self.inner.serial.fetch_add(1, Ordering::Relaxed);
        let mut open = lock(&self.inner.open);
        open.retain(|o| o.scope != scope);
        while open.len() >= self.inner.most {
            open.remove(0);
        }
        open.push(Open {
            scope,
            serial,
            events,
        });
        let leave = Leave {
            inner: self.inner.clone(),
            serial,
        };
        (receiver, leave)
    }

    /// Ends every stream (the server shuts down).
    pub(super) fn close_all(&self) {
        lock(&self.inner.open).clear();
    }
}

/// A stream's place in its set: taken out when the stream's body is dropped (sent to
/// its end, or the client gone).
pub(super) struct Leave {
    inner: Arc<Inner>,
    serial: u64,
}

impl Drop for Leave {
    fn drop(&mut self) {
        lock(&self.inner.open).retain(|o| o.serial != self.serial);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_reaches_the_stream_of_its_scope_as_one_event() {
        let listeners = Listeners::new(4);
        let (mut seven, _leave) = listeners.open(7);
        assert_eq!(listeners.send(8, b"{}"), Err(Unsent::NoStream));
        assert_eq!(listeners.send(7, b"{\"a\":\n1}"), Ok(()));
        assert_eq!(
            seven.try_recv().as_deref(),
            Ok(&b"data: {\"a\":\ndata: 1}\n\n"[..])
        );
        assert!(listeners.is_open(7) && !listeners.is_open(8));
    }

    #[test]
    fn a_stream_replaced_full_or_dropped_leaves_the_set() {
        let listeners = Listeners::new(2);
        let (mut old, old_leave) = listeners.open(1);
        let (new, new_leave) = listeners.open(1);
        // The old one ends (its sender gone); dropping it now does not take the new one out.
        assert_eq!(old.try_recv(), Err(mpsc::error::TryRecvError::Disconnected));
        drop((old, old_leave));
        assert_eq!(listeners.len(), 1);
        for _ in 0..DEPTH {
            assert_eq!(listeners.send(1, b"{}"), Ok(()));
        }
        assert_eq!(listeners.send(1, b"{}"), Err(Unsent::NotReading));
        assert_eq!(listeners.send(1, b"{}"), Err(Unsent::NoStream));
        drop((new, new_leave));
        assert!(listeners.is_empty());
    }

    #[test]
    fn past_the_bound_the_oldest_stream_ends() {
        let listeners = Listeners::new(2);
        let (mut a, _la) = listeners.open(1);
        let (_b, _lb) = listeners.open(2);
        let (_c, _lc) = listeners.open(3);
        assert_eq!(listeners.len(), 2);
        assert_eq!(a.try_recv(), Err(mpsc::error::TryRecvError::Disconnected));
        assert!(!listeners.is_open(1) && listeners.is_open(2) && listeners.is_open(3));
        assert!(listeners.close(2) && !listeners.close(2));
        listeners.close_all();
        assert!(listeners.is_empty());
    }
}
