//! [`Notifications`]: a bounded queue of the server's notifications, for a client
//! that reads them later rather than in [`Client::receive`](super::Client::receive)'s
//! callback.

use crate::envelope::Request;
use crate::raw::{RawJson, RawStr};

/// A notification kept by a [`Notifications`] queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Notification<'a> {
    /// The method, escapes as sent.
    pub method: RawStr<'a>,
    /// The params, if it had any.
    pub params: Option<RawJson<'a>>,
}

/// Where one queued notification's bytes are, in the queue's buffer.
#[derive(Copy, Clone, Debug)]
struct Entry {
    /// The method's bytes, then the params' bytes, from the end of the entry before.
    method: usize,
    params: usize,
    /// Whether it had params.
    has_params: bool,
}

/// Up to `N` notifications, their method and params copied into `B` bytes, read in
/// the order they came. What does not fit is not queued, and counted
/// ([`dropped`](Self::dropped)): a bounded queue, never a growing one. Nothing is
/// allocated; `new` is a `const fn`.
///
/// ```
/// use jsonrpc_slice::client::{Client, Incoming, Notifications};
///
/// let mut client: Client<2, 64> = Client::new();
/// let mut queue: Notifications<4, 128> = Notifications::new();
/// for message in [&br#"{"jsonrpc":"2.0","method":"tick","params":[1]}"#[..], br#"{"jsonrpc":"2.0","method":"done"}"#] {
///     client.receive(message, 0, |i| {
///         if let Incoming::Notification(n) = i {
///             queue.push(&n);
///         }
///     });
/// }
/// let first = queue.front().unwrap();
/// assert!(first.method.eq_str("tick"));
/// assert_eq!(first.params.unwrap().as_bytes(), b"[1]");
/// queue.pop();
/// assert!(queue.front().unwrap().method.eq_str("done"));
/// queue.pop();
/// assert!(queue.is_empty());
/// ```
pub struct Notifications<const N: usize, const B: usize> {
    entries: [Entry; N],
    len: usize,
    bytes: [u8; B],
    used: usize,
    dropped: u32,
}

impl<const N: usize, const B: usize> Default for Notifications<N, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const B: usize> Notifications<N, B> {
    /// An empty queue.
    pub const fn new() -> Self {
        Self {
            entries: [Entry {
                method: 0,
                params: 0,
                has_params: false,
            }; N],
            len: 0,
            bytes: [0; B],
            used: 0,
            dropped: 0,
        }
    }

    /// Queues a copy of `notification` (as [`Incoming::Notification`](super::Incoming)
    /// hands it on). `false`, and counted as dropped, if it does not fit.
    pub fn push(&mut self, notification: &Request<'_>) -> bool {
        let method = notification.method.as_raw();
        let params = notification.params.map(|p| p.as_bytes());
        let need = method.len() + params.map_or(0, <[u8]>::len);
        let fits = self.len < N && need <= B - self.used;
        let (Some(entry), true) = (self.entries.get_mut(self.len), fits) else {
            self.dropped = self.dropped.saturating_add(1);
            return false;
        };
        *entry = Entry {
            method: method.len(),
            params: params.map_or(0, <[u8]>::len),
            has_params: params.is_some(),
        };
        let mut at = self.used;
        for part in [method, params.unwrap_or(&[])] {
            if let Some(dst) = self.bytes.get_mut(at..at + part.len()) {
                dst.copy_from_slice(part);
            }
            at += part.len();
        }
        self.used = at;
        self.len += 1;
        true
    }

    /// The oldest notification queued.
    pub fn front(&self) -> Option<Notification<'_>> {
        let entry = self.entries.get(..self.len)?.first()?;
        let method = self.bytes.get(..entry.method)?;
        let params = self.bytes.get(entry.method..entry.method + entry.params)?;
        Some(Notification {
            // Copied from a validated request: a string's inside, and JSON.
            method: RawStr::trusted(method),
            params: entry.has_params.then(|| RawJson::trusted(params)),
        })
    }

    /// Removes the oldest notification (the rest move down in the buffer).
    pub fn pop(&mut self) {
        let Some(first) = self
            .entries
            .get(..self.len)
            .and_then(<[Entry]>::first)
            .copied()
        else {
            return;
        };
        let size = first.method + first.params;
        if size <= self.used {
            self.bytes.copy_within(size..self.used, 0);
            self.used -= size;
        }
        self.entries.copy_within(1..self.len, 0);
        self.len -= 1;
    }

    /// Notifications queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when none is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Notifications that did not fit, since the queue was made.
    pub fn dropped(&self) -> u32 {
        self.dropped
    }
}
