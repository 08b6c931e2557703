//! Subscriptions: a method that opens a stream of notifications (Ethereum's
//! `eth_subscribe` / `eth_subscription` / `eth_unsubscribe`), as a pattern the
//! application follows on any transport that pushes.
//!
//! - a call to the subscribe method takes a place in the connection's [`Registry`]
//!   (bounded: `N` subscriptions at most) and is answered with the
//!   [`SubscriptionId`] minted for it;
//! - each event is sent to every subscription of its kind as a notification whose
//!   `params` carry the id: `{"subscription": ID, "result": EVENT}`
//!   ([`write_notification`]);
//! - the unsubscribe method takes the id ([`SubscriptionId::parse`]) and answers
//!   `true` if the subscription was open ([`Registry::unsubscribe`]);
//! - when the connection closes, its registry goes with it: every subscription of
//!   the connection ends ([`Registry::clear`]).
//!
//! No allocation: the registry is `N` inline entries, ids are 64-bit numbers written
//! as `0x`-prefixed hex strings (as geth writes them), notifications are written into
//! the caller's buffer. Over WebSocket, `http::websocket` (feature `websocket`) keeps a
//! registry per connection and delivers the notifications.
//!
//! ```
//! use jsonrpc_slice::subscription::{write_notification, Registry};
//!
//! let mut subs = Registry::<&str, 4>::new(7);
//! let id = subs.subscribe("newHeads").unwrap();
//! let mut buf = [0u8; 128];
//! for (id, _) in subs.iter().filter(|(_, kind)| **kind == "newHeads") {
//!     let sent = write_notification(&mut buf, "eth_subscription", id, |out| out.str("0x1")).unwrap();
//!     assert!(sent.starts_with(br#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x"#));
//! }
//! assert!(subs.unsubscribe(id));
//! assert!(!subs.unsubscribe(id));
//! ```

use core::fmt;

use crate::client;
use crate::raw::RawJson;
use crate::write::{ResultWriter, WriteError};

/// A subscription's id: a 64-bit number, written as a JSON string of `0x` and its hex
/// digits (`"0x9cef478923ff08bf"`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SubscriptionId(pub u64);

impl SubscriptionId {
    /// The id a JSON value names: a string of `0x` and 1 to 16 hex digits (either
    /// case), as [`write`](Self::write) writes it. Anything else is `None`.
    pub fn parse(value: RawJson<'_>) -> Option<Self> {
        let s = value.as_str()?;
        let mut buf = [0u8; 18];
        let text = s.unescape_into(&mut buf)?;
        let digits = text.strip_prefix("0x")?;
        if digits.is_empty() || digits.len() > 16 {
            return None;
        }
        u64::from_str_radix(digits, 16).ok().map(Self)
    }

    /// Writes the id as a JSON string (`"0x…"`).
    pub fn write(self, out: &mut ResultWriter<'_>) -> Result<(), WriteError> {
        out.display(self)
    }
}

impl fmt::Display for SubscriptionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// The registry is full: the subscribe call is refused (answer it with an error).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Full;

impl fmt::Display for Full {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("too many subscriptions on this connection")
    }
}

impl core::error::Error for Full {}

/// One connection's subscriptions: at most `N`, each an id and the kind of event it
/// receives (`K`: a topic name, an enum, a filter).
///
/// Ids are minted from a counter through a bijective 64-bit mix of `seed`: unique
/// within the registry (never two open with the same id, none reused before 2^64
/// subscriptions), and unlike a bare counter they do not tell a peer how many
/// subscriptions were made before its own.
#[derive(Clone, Debug)]
pub struct Registry<K, const N: usize> {
    entries: [Option<(SubscriptionId, K)>; N],
    next: u64,
    seed: u64,
}

impl<K, const N: usize> Registry<K, N> {
    /// An empty registry whose ids derive from `seed` (a per-connection value: a
    /// counter, a random number).
    pub const fn new(seed: u64) -> Self {
        Self {
            entries: [const { None }; N],
            next: 0,
            seed,
        }
    }

    /// Opens a subscription to `kind`: its id, or [`Full`] when `N` are open.
    pub fn subscribe(&mut self, kind: K) -> Result<SubscriptionId, Full> {
        let free = self.entries.iter_mut().find(|e| e.is_none()).ok_or(Full)?;
        let id = SubscriptionId(mix(self.seed.wrapping_add(self.next)));
        self.next = self.next.wrapping_add(1);
        *free = Some((id, kind));
        Ok(id)
    }

    /// Ends the subscription `id`: `true` if it was open.
    pub fn unsubscribe(&mut self, id: SubscriptionId) -> bool {
        match self
            .entries
            .iter_mut()
            .find(|e| matches!(e, Some((i, _)) if *i == id))
        {
            Some(entry) => {
                *entry = None;
                true
            }
            None => false,
        }
    }

    /// Every open subscription, with its kind.
    pub fn iter(&self) -> impl Iterator<Item = (SubscriptionId, &K)> {
        self.entries.iter().flatten().map(|(id, kind)| (*id, kind))
    }

    /// How many are open.
    pub fn len(&self) -> usize {
        self.entries.iter().flatten().count()
    }

    /// `true` when none is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ends every subscription (the connection closed).
    pub fn clear(&mut self) {
        self.entries = [const { None }; N];
    }
}

/// splitmix64's finaliser: a bijection of `u64`, so distinct counters give distinct
/// ids.
const fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Writes the notification of one event for subscription `id` into `out`:
/// `{"jsonrpc":"2.0","method":METHOD,"params":{"subscription":ID,"result":…}}`, the
/// result written by `result`. Returns what was written; `Err` if it does not fit.
pub fn write_notification<'o>(
    out: &'o mut [u8],
    method: &str,
    id: SubscriptionId,
    result: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<&'o [u8], WriteError> {
    client::write_notification(out, method, |w| {
        w.begin_object()?;
        w.key("subscription")?;
        id.write(w)?;
        w.key("result")?;
        result(w)?;
        w.end()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_and_parse_back() {
        let mut subs = Registry::<u8, 3>::new(0);
        let a = subs.subscribe(1).unwrap();
        let b = subs.subscribe(1).unwrap();
        let c = subs.subscribe(2).unwrap();
        assert_eq!(subs.subscribe(2), Err(Full));
        assert!(a != b && b != c && a != c);
        let mut buf = [0u8; 24];
        let mut w = ResultWriter::new(&mut buf);
        b.write(&mut w).unwrap();
        let written = w.into_written();
        let value = RawJson::new(written).unwrap();
        assert_eq!(SubscriptionId::parse(value), Some(b));
        assert!(subs.unsubscribe(b));
        assert_eq!(subs.len(), 2);
        let d = subs.subscribe(3).unwrap();
        assert!(d != a && d != b && d != c);
        subs.clear();
        assert!(subs.is_empty());
    }

    #[test]
    fn parse_refuses_what_is_not_an_id() {
        for text in [
            "1",
            "\"1\"",
            "\"0x\"",
            "\"0xg\"",
            "\"0x10000000000000000\"",
            "null",
        ] {
            let value = RawJson::new(text.as_bytes()).unwrap();
            assert_eq!(SubscriptionId::parse(value), None, "{text}");
        }
        let value = RawJson::new(b"\"0xAbC\"").unwrap();
        assert_eq!(SubscriptionId::parse(value), Some(SubscriptionId(0xabc)));
    }

    #[test]
    fn notification_carries_the_id() {
        let mut buf = [0u8; 160];
        let out = write_notification(&mut buf, "eth_subscription", SubscriptionId(0x1f), |w| {
            w.raw(RawJson::NULL)
        })
        .unwrap();
        assert_eq!(
            out,
            br#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1f","result":null}}"#
        );
    }
}
