//! The calls whose handlers may ask the client ([`Verdict::peer`]), and the client's
//! responses routed to them.
//!
//! Over HTTP the client answers a server's request in a `POST` of its own, not on the
//! stream the request went out on: the response must find the call that awaits it.
//! Each such call is given a *range* of ids (`range << RANGE_BITS` on), registered
//! with its scope while it runs; a response's id names its range (`id >>
//! RANGE_BITS`), and it is handed to the call that holds that range in the same
//! scope, through the call's mailbox (one response at a time: a call awaits one
//! request's response at a time).
//!
//! Bounds: at most `most` calls registered at once (each also holds a buffer pair);
//! one response held per call; ranges count up and are not reused while 2^33 others
//! are handed out, so a late response to a call that ended does not reach a later one.
//!
//! [`Verdict::peer`]: super::gate::Verdict::peer

use std::sync::{Arc, Mutex};
use std::vec::Vec;

use hyper::body::Bytes;
use tokio::sync::Notify;

use super::server::lock;

/// The bits of an id that count a call's own requests.
pub(super) const RANGE_BITS: u32 = 20;

/// The ranges: every id below 2^53, exact in a JavaScript number.
const RANGES: u64 = 1 << (53 - RANGE_BITS);

/// The calls that may ask the client, while they run.
pub(super) struct Peers {
    state: Mutex<State>,
    /// The most calls registered at once.
    most: usize,
}

struct State {
    /// The range the next call is given (from 1; 0 is never handed out).
    next: u64,
    live: Vec<Live>,
}

struct Live {
    scope: u64,
    range: u64,
    mailbox: Arc<Mailbox>,
}

/// Where a call's response waits until the call's loop reads it.
pub(super) struct Mailbox {
    response: Mutex<Option<Bytes>>,
    /// A response was put in.
    pub(super) arrived: Notify,
}

impl Mailbox {
    /// The response waiting, taken out.
    pub(super) fn take(&self) -> Option<Bytes> {
        lock(&self.response).take()
    }

    /// A response waits.
    pub(super) fn holds(&self) -> bool {
        lock(&self.response).is_some()
    }
}

impl Peers {
    pub(super) fn new(most: usize) -> Self {
        Self {
            state: Mutex::new(State {
                next: 1,
                live: Vec::with_capacity(most),
            }),
            most,
        }
    }

    /// Registers a call of `scope`: its range, or `None` when `most` calls are
    /// registered already.
    pub(super) fn open(self: &Arc<Self>, scope: u64) -> Option<Route> {
        let mut state = lock(&self.state);
        if state.live.len() >= self.most {
            return None;
        }
        // Fewer live ranges than there are ranges: the search ends.
        let mut range = state.next;
        while state.live.iter().any(|l| l.range == range) {
            range = (range + 1) % RANGES;
            range = range.max(1);
        }
        state.next = ((range + 1) % RANGES).max(1);
        let mailbox = Arc::new(Mailbox {
            response: Mutex::new(None),
            arrived: Notify::new(),
        });
        state.live.push(Live {
            scope,
            range,
            mailbox: mailbox.clone(),
        });
        Some(Route {
            peers: self.clone(),
            range,
            mailbox,
        })
    }

    /// Hands `response` (whose id is `id`) to the call of `scope` whose range holds
    /// `id`: `false` when there is none, or it holds a response already (dropped).
    pub(super) fn deliver(&self, scope: u64, id: u64, response: Bytes) -> bool {
        let range = id >> RANGE_BITS;
        let mailbox = {
            let state = lock(&self.state);
            let live = state.live.iter();
            match live
                .into_iter()
                .find(|l| l.range == range && l.scope == scope)
            {
                Some(live) => live.mailbox.clone(),
                None => return false,
            }
        };
        {
            let mut held = lock(&mailbox.response);
            if held.is_some() {
                return false;
            }
            *held = Some(response);
        }
        // A permit is kept when the call's loop is not waiting yet.
        mailbox.arrived.notify_one();
        true
    }
}

/// A registered call: its range and mailbox; unregistered when dropped.
pub(super) struct Route {
    peers: Arc<Peers>,
    range: u64,
    pub(super) mailbox: Arc<Mailbox>,
}

impl Route {
    /// The id of the call's first request to the client.
    pub(super) fn first_id(&self) -> u64 {
        self.range << RANGE_BITS
    }
}

impl Drop for Route {
    fn drop(&mut self) {
        lock(&self.peers.state)
            .live
            .retain(|l| l.range != self.range);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_reaches_the_call_of_its_range_and_scope_only() {
        let peers = Arc::new(Peers::new(2));
        let a = peers.open(7).unwrap();
        let b = peers.open(8).unwrap();
        assert!(peers.open(7).is_none(), "at most two calls");
        assert_ne!(a.first_id() >> RANGE_BITS, b.first_id() >> RANGE_BITS);
        let body = Bytes::from_static(b"{}");
        // Another scope's range, or no live range: dropped.
        assert!(!peers.deliver(8, a.first_id(), body.clone()));
        assert!(!peers.deliver(7, 0, body.clone()));
        assert!(peers.deliver(7, a.first_id() + 5, body.clone()));
        // One held at a time.
        assert!(!peers.deliver(7, a.first_id() + 6, body.clone()));
        assert!(a.mailbox.holds() && !b.mailbox.holds());
        assert_eq!(a.mailbox.take().as_deref(), Some(&b"{}"[..]));
        let range = a.first_id() >> RANGE_BITS;
        drop(a);
        assert!(!peers.deliver(7, range << RANGE_BITS, body), "gone");
        // A new call gets a range not handed out before.
        let c = peers.open(7).unwrap();
        assert!(c.first_id() >> RANGE_BITS > range);
        assert!(c.first_id() < 1 << 53);
    }

    #[test]
    fn ranges_wrap_below_2_to_the_53_and_skip_live_ones() {
        let peers = Arc::new(Peers::new(2));
        lock(&peers.state).next = RANGES - 1;
        let last = peers.open(1).unwrap();
        assert_eq!(last.first_id() >> RANGE_BITS, RANGES - 1);
        assert!(last.first_id() + (1 << RANGE_BITS) - 1 < 1 << 53);
        let first = peers.open(1).unwrap();
        assert_eq!(first.first_id() >> RANGE_BITS, 1);
        drop(first);
        lock(&peers.state).next = RANGES - 1;
        let skipped = peers.open(1).unwrap();
        assert_eq!(
            skipped.first_id() >> RANGE_BITS,
            1,
            "the live range is skipped"
        );
    }
}
