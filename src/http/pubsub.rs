//! Subscriptions across connections (feature `websocket`): [`Subscribers`], the set of
//! open WebSocket connections with each one's [`Registry`], which the application
//! tells of its events from any thread, and [`Session`], what a connection's handlers
//! see.

use std::boxed::Box;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::vec;
use std::vec::Vec;

use tokio::sync::Notify;

use crate::dispatch::MethodTable;
use crate::raw::RawStr;
use crate::service::concurrent::Call;
use crate::subscription::{self, Full, Registry, SubscriptionId};
use crate::write::{ResultWriter, WriteError};
use crate::AsyncMethods;
use crate::{Params, RpcError};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while one of these is held.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The close code of a connection whose peer does not read what is pushed to it
/// (its send queue is full): `1013 Try Again Later`.
pub const CLOSE_NOT_READING: u16 = 1013;

/// Why a connection is to close, and the signal that says so (shared by the
/// connection's session, its accept loop and [`Subscribers`]).
#[derive(Debug, Default)]
pub(crate) struct Stop {
    code: AtomicU16,
    signal: Notify,
}

impl Stop {
    /// Asks the session to close with `code` (the first code asked for stays).
    pub(crate) fn stop(&self, code: u16) {
        if self
            .code
            .compare_exchange(0, code, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            // Every waiter: the session's reader and its watch for `CLOSE_NOT_READING`.
            self.signal.notify_waiters();
        }
    }

    /// The code asked for, once one is.
    pub(crate) async fn stopped(&self) -> u16 {
        loop {
            let signal = self.signal.notified();
            match self.code.load(Ordering::Acquire) {
                0 => signal.await,
                code => return code,
            }
        }
    }

    pub(crate) fn code(&self) -> Option<u16> {
        match self.code.load(Ordering::Acquire) {
            0 => None,
            code => Some(code),
        }
    }
}

/// Notifications written for one connection and not yet taken by it: a buffer of
/// fixed size, messages ended by `\n`.
struct Outlet {
    /// Empty until the first notification: a connection without subscriptions holds
    /// no queue.
    buf: Box<[u8]>,
    len: usize,
    /// The size of `buf` once taken.
    size: usize,
}

/// One connection as [`Subscribers`] sees it.
pub(crate) struct Member<K, const N: usize> {
    registry: Mutex<Registry<K, N>>,
    outlet: Mutex<Outlet>,
    /// Something was written into the outlet.
    pub(crate) written: Notify,
    pub(crate) stop: Arc<Stop>,
    gone: AtomicBool,
}

impl<K, const N: usize> Member<K, N> {
    /// Moves what the outlet holds into `spare` (of the outlet's size), returning its
    /// length: the outlet is empty again.
    pub(crate) fn take(&self, spare: &mut Box<[u8]>) -> usize {
        let mut outlet = lock(&self.outlet);
        // Nothing to take (and `buf` may not be taken yet: it stays so).
        if outlet.len == 0 {
            return 0;
        }
        core::mem::swap(&mut outlet.buf, spare);
        core::mem::take(&mut outlet.len)
    }
}

/// Every open WebSocket connection of a server, with its subscriptions (at most `N`
/// per connection): the application tells it of each event ([`notify`](Self::notify))
/// from any thread, and it writes a notification for each subscription of that kind
/// into its connection's send queue. A connection whose queue is full (its peer does
/// not read) is closed with [`CLOSE_NOT_READING`]; nothing is queued past the queue's
/// size (`websocket::Settings::send_queue`). When a connection closes, its
/// subscriptions end.
///
/// ```
/// use jsonrpc_slice::http::Subscribers;
///
/// /// The `newHeads` subscriptions of every connection, 16 at most per connection.
/// static HEADS: Subscribers<&'static str, 16> = Subscribers::new();
/// ```
pub struct Subscribers<K: 'static, const N: usize = 16> {
    members: Mutex<Vec<Arc<Member<K, N>>>>,
    seeds: AtomicU64,
    /// The result of the event being sent, as first written: copied into the other
    /// subscriptions' notifications.
    result: Mutex<Vec<u8>>,
}

impl<K, const N: usize> core::fmt::Debug for Subscribers<K, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Subscribers")
            .field("connections", &self.connections())
            .finish_non_exhaustive()
    }
}

impl<K, const N: usize> Default for Subscribers<K, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, const N: usize> Subscribers<K, N> {
    /// No connection yet (a `const fn`: a `static` holds it).
    pub const fn new() -> Self {
        Self {
            members: Mutex::new(Vec::new()),
            seeds: AtomicU64::new(0x5eed),
            result: Mutex::new(Vec::new()),
        }
    }

    /// The WebSocket connections open now.
    pub fn connections(&self) -> usize {
        lock(&self.members).len()
    }

    /// The subscriptions open now, on every connection.
    pub fn subscriptions(&self) -> usize {
        lock(&self.members)
            .iter()
            .map(|m| lock(&m.registry).len())
            .sum()
    }

    /// A connection joins, with a send queue of `queue` bytes.
    pub(crate) fn join(&self, queue: usize, stop: Arc<Stop>) -> Arc<Member<K, N>> {
        // Distinct per connection, and not the count of connections so far.
        let seed = self
            .seeds
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
            .rotate_left(17);
        let member = Arc::new(Member {
            registry: Mutex::new(Registry::new(seed)),
            outlet: Mutex::new(Outlet {
                buf: Box::default(),
                len: 0,
                size: queue,
            }),
            written: Notify::new(),
            stop,
            gone: AtomicBool::new(false),
        });
        lock(&self.members).push(member.clone());
        member
    }

    /// The connection closed: its subscriptions end.
    pub(crate) fn leave(&self, member: &Member<K, N>) {
        member.gone.store(true, Ordering::Release);
        lock(&member.registry).clear();
        lock(&self.members).retain(|m| !core::ptr::eq(&**m, member));
    }
}

impl<K: PartialEq, const N: usize> Subscribers<K, N> {
    /// Sends an event of `kind` to every subscription of that kind: a notification of
    /// `method` (`eth_subscription`) with `params: {"subscription": ID, "result": …}`,
    /// the result written by `result` once, for the first subscription whose queue
    /// takes it, and copied into the others' (again for the next if the queue had no
    /// room). Returns how many were
    /// queued. A connection whose send queue has no room for it is closed with
    /// [`CLOSE_NOT_READING`]; an event too large for an empty queue is not sent.
    pub fn notify(
        &self,
        kind: &K,
        method: &str,
        mut result: impl FnMut(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> usize {
        let mut sent = 0;
        let members = lock(&self.members);
        let mut first = lock(&self.result);
        let mut written = false;
        for member in members.iter() {
            let registry = lock(&member.registry);
            let mut wrote = false;
            for (id, _) in registry.iter().filter(|(_, k)| *k == kind) {
                let mut outlet = lock(&member.outlet);
                let Outlet { buf, len, size } = &mut *outlet;
                if buf.is_empty() {
                    *buf = vec![0; *size].into_boxed_slice();
                }
                let room = buf.get_mut(*len..).unwrap_or_default();
                // A message and its `\n`.
                let room_len = room.len().saturating_sub(1);
                let room = room.get_mut(..room_len).unwrap_or_default();
                let message = match written {
                    true => subscription::write_notification(room, method, id, |w| {
                        // Written by a `ResultWriter` just now: JSON, one line.
                        w.written_value(&first)
                    }),
                    false => {
                        let mut span = (0, 0);
                        let message = subscription::write_notification(room, method, id, |w| {
                            let start = w.written().len();
                            result(w)?;
                            span = (start, w.written().len());
                            Ok(())
                        });
                        if let Ok(message) = &message {
                            first.clear();
                            first.extend_from_slice(message.get(span.0..span.1).unwrap_or(&[]));
                            written = true;
                        }
                        message
                    }
                };
                match message {
                    Ok(message) => {
                        let n = message.len();
                        if let Some(end) = buf.get_mut(*len + n) {
                            *end = b'\n';
                        }
                        *len += n + 1;
                        sent += 1;
                        wrote = true;
                    }
                    // Not even an empty queue holds it: this event is not sent.
                    Err(_) if *len == 0 => {}
                    Err(_) => {
                        member.stop.stop(CLOSE_NOT_READING);
                        break;
                    }
                }
            }
            if wrote {
                member.written.notify_one();
            }
        }
        sent
    }
}

/// What the handlers of one WebSocket connection see (the state of their
/// [`Call`]): the application's value `A` and the connection's subscriptions.
pub struct Session<A, K: 'static, const N: usize = 16> {
    app: A,
    member: Arc<Member<K, N>>,
}

impl<A: core::fmt::Debug, K, const N: usize> core::fmt::Debug for Session<A, K, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Session")
            .field("app", &self.app)
            .field("subscriptions", &lock(&self.member.registry).len())
            .finish()
    }
}

impl<A, K, const N: usize> Session<A, K, N> {
    pub(crate) fn new(app: A, member: Arc<Member<K, N>>) -> Self {
        Self { app, member }
    }

    /// The application's value, as the server was given it.
    pub fn app(&self) -> &A {
        &self.app
    }

    /// Opens a subscription to `kind` on this connection: its id (answer the call with
    /// it), or [`Full`] when `N` are open. Events of that kind reach it from the next
    /// [`Subscribers::notify`] on.
    pub fn subscribe(&self, kind: K) -> Result<SubscriptionId, Full> {
        if self.member.gone.load(Ordering::Acquire) {
            return Err(Full);
        }
        lock(&self.member.registry).subscribe(kind)
    }

    /// Ends subscription `id` of this connection: `true` if it was open.
    pub fn unsubscribe(&self, id: SubscriptionId) -> bool {
        lock(&self.member.registry).unsubscribe(id)
    }
}

/// A WebSocket connection's methods: the async rows of `T` first (`eth_subscribe`,
/// `eth_unsubscribe`: what needs the [`Session`]), then the rows of a synchronous
/// table, each run with a clone of the application's value: the methods the HTTP
/// server serves are served over WebSocket as they are.
#[derive(Debug)]
pub struct WithSync<T, A: 'static> {
    first: T,
    then: &'static MethodTable<A>,
}

impl<T, A> WithSync<T, A> {
    /// `first`'s rows, then `then`'s.
    pub const fn new(first: T, then: &'static MethodTable<A>) -> Self {
        Self { first, then }
    }
}

/// The bit that marks a row of the synchronous table in `WithSync`'s indexes.
const SYNC_ROW: usize = 1 << (usize::BITS - 1);

impl<'c, T, A, K, const N: usize> AsyncMethods<Call<'c, Session<A, K, N>>> for WithSync<T, A>
where
    T: AsyncMethods<Call<'c, Session<A, K, N>>>,
    A: Clone,
{
    fn find(&self, method: RawStr<'_>) -> Option<usize> {
        match self.first.find(method) {
            Some(row) => Some(row & !SYNC_ROW),
            None => self.then.position(method).map(|row| row | SYNC_ROW),
        }
    }

    async fn run<'p>(
        &self,
        index: usize,
        ctx: &mut Call<'c, Session<A, K, N>>,
        params: Params<'p>,
        out: &mut ResultWriter<'_>,
    ) -> Result<(), RpcError<'p>> {
        if index & SYNC_ROW == 0 {
            return self.first.run(index, ctx, params, out).await;
        }
        let Some(method) = self.then.methods().get(index & !SYNC_ROW) else {
            return Err(RpcError::method_not_found());
        };
        let mut app = ctx.state().app.clone();
        (method.handler())(&mut app, params, out)
    }
}
