//! [`Client`]: the calls in flight, from the request that registers one to the reply
//! (or the deadline, the cancellation, the lost connection) that resolves it.

use super::call::{Call, ToParams};
use super::deadline::Cancel;
use super::error::{CallError, SendError};
use super::handle::Handle;
use super::id::{compare, IdCounter, RequestId, Same, StoredId};
use super::incoming::Incoming;
use super::pending::InsertError;
use super::retired::{Left, Retired};
use super::write::{message, write_notification, BatchWriter};
use crate::envelope::{self, parse_response, ErrorObject, Outcome, Response, ResponseMessage};
use crate::id::{Id, IdKind};
use crate::limits::Limits;
use crate::raw::{RawJson, RawStr};
use crate::write::{ResultWriter, WriteError};

/// How many ids that left the table a [`Client`] remembers, to tell a late or
/// duplicate reply from an unknown one.
pub const RETIRED: usize = 8;

/// Bytes of the arena kept by a span.
#[derive(Copy, Clone, Debug)]
struct Span {
    start: usize,
    len: usize,
}

/// What a call resolved to, its bytes in the arena.
#[derive(Copy, Clone, Debug)]
enum Reply {
    Result(Span),
    Error {
        code: i64,
        message: Span,
        data: Option<Span>,
    },
    Failed(Failure),
}

/// Why a call resolved without a reply (or with one that cannot be taken).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Failure {
    TimedOut,
    Cancelled,
    ConnectionLost,
    NoReply,
    IdTypeChanged,
    ReplyTooLarge,
}

impl Failure {
    fn error(self) -> CallError<'static> {
        match self {
            Self::TimedOut => CallError::TimedOut,
            Self::Cancelled => CallError::Cancelled,
            Self::ConnectionLost => CallError::ConnectionLost,
            Self::NoReply => CallError::NoReply,
            Self::IdTypeChanged => CallError::IdTypeChanged,
            Self::ReplyTooLarge => CallError::ReplyTooLarge,
        }
    }
}

enum State<I, G> {
    Free,
    /// Written into a batch not yet finished: freed if the batch is dropped.
    Unsent {
        deadline: Option<I>,
        tag: G,
    },
    Waiting {
        deadline: Option<I>,
        tag: G,
    },
    /// Resolved; the handle takes it. `cancel_due`: given up, and the protocol's
    /// cancellation not sent yet.
    Done {
        tag: G,
        reply: Reply,
        cancel_due: bool,
    },
}

struct Slot<I, G> {
    generation: u32,
    /// The message that carried it (a batch's calls share one): see
    /// [`Client::unanswered`].
    exchange: u32,
    id: StoredId,
    state: State<I, G>,
}

impl<I, G> Slot<I, G> {
    const FREE: Self = Self {
        generation: 0,
        exchange: 0,
        id: StoredId::EMPTY,
        state: State::Free,
    };

    fn is_waiting(&self) -> bool {
        matches!(self.state, State::Waiting { .. })
    }

    fn deadline(&self) -> Option<&I> {
        match &self.state {
            State::Waiting { deadline, .. } => deadline.as_ref(),
            _ => None,
        }
    }
}

/// Whether a handle's call has resolved.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Sent (or being written into a batch), no reply yet.
    Waiting,
    /// Resolved: [`Client::take_raw`] (or `take`, feature `serde`) gives the outcome.
    Ready,
    /// Taken already, or not this client's.
    Stale,
}

/// A client's calls in flight: up to `N` at once, each registered by the request that
/// sends it and resolved by the reply that answers it, with `B` bytes kept for the
/// replies that came and are not yet taken. No I/O: messages go out as bytes you send
/// and come in as bytes you [`receive`](Self::receive), so the same table serves an
/// HTTP exchange (one body out, one body back), a WebSocket or a framed stream (see
/// [`Connection`](super::Connection) for the loop over a stream).
///
/// `I` is the clock's instant (deadlines; `u64` ticks by default, `std::time::Instant`,
/// `embassy_time::Instant`), `G` a tag kept with each call (none by default). Nothing
/// is allocated; `new` is a `const fn`, so a client can live in a `static`.
///
/// ```
/// use jsonrpc_slice::client::{params, CallError, Client, Incoming};
///
/// let mut client: Client<4, 256> = Client::new();
/// let mut out = [0u8; 128];
/// let (sum, msg) = client.request::<i64>(&mut out, "sum", params(|p| {
///     p.begin_array()?;
///     p.i64(1)?;
///     p.i64(2)?;
///     p.end()
/// }))?;
/// assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}"#);
/// let (boom, _) = client.request::<i64>(&mut out, "boom", ())?;
///
/// // The replies come in one message or several, in any order, with the server's
/// // notifications among them.
/// let mut notes = 0;
/// client.receive(br#"{"jsonrpc":"2.0","method":"tick"}"#, 0, |n| {
///     assert!(matches!(n, Incoming::Notification(_)));
///     notes += 1;
/// });
/// client.receive(
///     br#"[{"jsonrpc":"2.0","error":{"code":-1,"message":"no \u00e9"},"id":2},
///          {"jsonrpc":"2.0","result":3,"id":1}]"#,
///     0,
///     |_| {},
/// );
/// assert_eq!(notes, 1);
/// assert_eq!(client.take_raw(&sum).unwrap().unwrap().as_i64(), Some(3));
/// let err = client.take_raw(&boom).unwrap().unwrap_err();
/// assert_eq!(err.to_string(), "error -1: no é");
/// assert_eq!(client.take_raw(&sum).unwrap(), Err(CallError::Stale));
/// # Ok::<(), jsonrpc_slice::client::SendError>(())
/// ```
pub struct Client<const N: usize, const B: usize, I = u64, G = ()> {
    slots: [Slot<I, G>; N],
    retired: Retired<RETIRED>,
    arena: [u8; B],
    /// The arena's bytes in use: replies are kept from 0 up to here, and the rest is
    /// the scratch typed results decode escaped strings into.
    top: usize,
    ids: IdCounter,
    /// The last generation (and exchange number) handed out.
    counter: u32,
    cancel: Option<Cancel>,
}

impl<const N: usize, const B: usize, I, G> Default for Client<N, B, I, G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const B: usize, I, G> Client<N, B, I, G> {
    /// An empty table whose minted ids count up from 1, sending no cancellation.
    pub const fn new() -> Self {
        Self {
            slots: [const { Slot::FREE }; N],
            retired: Retired::new(),
            arena: [0; B],
            top: 0,
            ids: IdCounter::new(1),
            counter: 0,
            cancel: None,
        }
    }

    /// The same, sending `cancel` for each call that times out or is cancelled (see
    /// [`Cancel::LSP`], [`Cancel::MCP`]).
    pub const fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// The same, minting ids from `first` on.
    pub const fn with_first_id(mut self, first: u64) -> Self {
        self.ids = IdCounter::new(first);
        self
    }

    /// Calls sent and not yet resolved.
    pub fn in_flight(&self) -> usize {
        self.slots.iter().filter(|s| s.is_waiting()).count()
    }

    /// Writes a request for `call` into `out` and registers it: the handle its
    /// outcome is taken with, and the message to send. Nothing is registered if the
    /// message is refused (it does not fit, its params are not an array or an
    /// object) or the table is.
    pub fn request<'c, 'o, T>(
        &mut self,
        out: &'o mut [u8],
        call: impl Into<Call<'c, I, G>>,
        params: impl ToParams,
    ) -> Result<(Handle<T>, &'o [u8]), SendError> {
        self.request_with(out, call.into(), params)
    }

    /// [`request`](Self::request) with a [`Call`] that borrows (an id or a method
    /// that is not `'static`).
    pub fn request_with<'o, T>(
        &mut self,
        out: &'o mut [u8],
        call: Call<'_, I, G>,
        params: impl ToParams,
    ) -> Result<(Handle<T>, &'o [u8]), SendError> {
        let exchange = self.next_counter();
        let method = call.method;
        let slot = self.register(call, exchange, false)?;
        let mut w = ResultWriter::new(out);
        let id = self.slot_id(slot);
        match message(&mut w, Some(id), method, |p| params.write_params(p)) {
            Ok(()) => Ok((self.handle(slot), w.into_written())),
            Err(e) => {
                self.free(slot);
                Err(SendError::Write(e))
            }
        }
    }

    /// A batch written into `out`: [`Batch::call`] registers each call, and
    /// [`Batch::finish`] closes it (an empty batch is refused). Dropped unfinished,
    /// its calls are forgotten.
    pub fn batch<'c, 'o>(&'c mut self, out: &'o mut [u8]) -> Batch<'c, 'o, N, B, I, G> {
        let exchange = self.next_counter();
        Batch {
            client: self,
            w: BatchWriter::new(out),
            exchange,
            finished: false,
        }
    }

    /// Whether `handle`'s call has resolved.
    pub fn status<T>(&self, handle: &Handle<T>) -> Status {
        match self.slot(handle).map(|s| &s.state) {
            Some(State::Done { .. }) => Status::Ready,
            Some(State::Waiting { .. } | State::Unsent { .. }) => Status::Waiting,
            Some(State::Free) | None => Status::Stale,
        }
    }

    /// The tag kept with `handle`'s call, until its outcome is taken.
    pub fn tag<T>(&self, handle: &Handle<T>) -> Option<&G> {
        match &self.slot(handle)?.state {
            State::Free => None,
            State::Unsent { tag, .. } | State::Waiting { tag, .. } | State::Done { tag, .. } => {
                Some(tag)
            }
        }
    }

    /// Takes `handle`'s outcome: its result as raw JSON, or why there is none.
    /// `None` while it waits; once taken, the handle is stale.
    pub fn take_raw<T>(
        &mut self,
        handle: &Handle<T>,
    ) -> Option<Result<RawJson<'_>, CallError<'_>>> {
        Some(self.take_parts(handle)?.map(|(result, _)| result))
    }

    /// The earliest deadline of the calls waiting: when [`expire`](Self::expire) next
    /// has something to do.
    pub fn next_deadline(&self) -> Option<I>
    where
        I: Copy + Ord,
    {
        self.slots.iter().filter_map(Slot::deadline).min().copied()
    }

    /// Resolves every waiting call whose deadline is `now` or before as timed out
    /// (a reply that comes later is reported [`Incoming::Late`]), with the protocol's
    /// cancellation due for each. Returns how many.
    pub fn expire(&mut self, now: I) -> usize
    where
        I: Copy + Ord,
    {
        let mut n = 0;
        for i in 0..N {
            let due = self
                .slots
                .get(i)
                .and_then(Slot::deadline)
                .is_some_and(|d| *d <= now);
            if due {
                self.give_up(i, Failure::TimedOut, true);
                n += 1;
            }
        }
        n
    }

    /// Gives up `handle`'s call: it resolves as [`CallError::Cancelled`], a reply that
    /// comes later is reported [`Incoming::Late`], and the protocol's cancellation is
    /// due. `false` if it was not waiting.
    pub fn cancel<T>(&mut self, handle: &Handle<T>) -> bool {
        match self.slot(handle) {
            Some(s) if s.is_waiting() => {
                self.give_up(handle.slot, Failure::Cancelled, true);
                true
            }
            _ => false,
        }
    }

    /// Writes the next cancellation due (a call timed out or cancelled, with a
    /// [`Cancel`] set) into `out`: the notification to send. `None` when none is due.
    pub fn next_cancellation<'o>(
        &mut self,
        out: &'o mut [u8],
    ) -> Option<Result<&'o [u8], WriteError>> {
        let cancel = self.cancel?;
        let slot = self.slots.iter_mut().find(|s| {
            matches!(
                s.state,
                State::Done {
                    cancel_due: true,
                    ..
                }
            )
        })?;
        if let State::Done { cancel_due, .. } = &mut slot.state {
            *cancel_due = false;
        }
        let id = slot.id.id();
        Some(write_notification(out, cancel.method, |p| {
            (cancel.params)(p, id)
        }))
    }

    /// The connection ended: every call waiting resolves as
    /// [`CallError::ConnectionLost`]. Returns how many.
    pub fn connection_lost(&mut self) -> usize {
        let mut n = 0;
        for i in 0..N {
            if self.slots.get(i).is_some_and(Slot::is_waiting) {
                self.give_up(i, Failure::ConnectionLost, false);
                n += 1;
            }
        }
        n
    }

    /// The reply to the message that carried `handle`'s call has been received whole
    /// (an HTTP exchange's body): every call of that message still waiting resolves
    /// as [`CallError::NoReply`]. Returns how many.
    pub fn unanswered<T>(&mut self, handle: &Handle<T>) -> usize {
        match self.slot(handle) {
            Some(s) => self.fail_exchange(s.exchange),
            None => 0,
        }
    }

    /// Feeds a received message (a reply, a batch of replies, a notification or a
    /// request from the server): each reply resolves its call; what answers no call
    /// goes to `incoming` (notifications, late and duplicate replies, unknown ids,
    /// what is not a response). Then calls whose deadline is `now` or before time out
    /// ([`expire`](Self::expire)), so that a reply in hand is never thrown away.
    /// Returns how many calls the message resolved.
    pub fn receive(
        &mut self,
        message: &[u8],
        now: I,
        mut incoming: impl FnMut(Incoming<'_>),
    ) -> usize
    where
        I: Copy + Ord,
    {
        let resolved = self.resolve_message(message, None, &mut incoming);
        self.expire(now);
        resolved
    }

    /// [`receive`](Self::receive) for the body that answers one exchange (an HTTP
    /// POST): the message that carried `handle`'s call (one call, or a batch). A
    /// reply with `"id":null` (the server could not read the message) resolves every
    /// call of the exchange still waiting with that error; then those still waiting
    /// resolve as [`CallError::NoReply`] ([`unanswered`](Self::unanswered)): no other
    /// body will answer them. Returns how many calls the body resolved.
    pub fn receive_exchange<T>(
        &mut self,
        body: &[u8],
        now: I,
        handle: &Handle<T>,
        mut incoming: impl FnMut(Incoming<'_>),
    ) -> usize
    where
        I: Copy + Ord,
    {
        let exchange = self.slot(handle).map(|s| s.exchange);
        let resolved = self.resolve_message(body, exchange, &mut incoming);
        if let Some(exchange) = exchange {
            self.fail_exchange(exchange);
        }
        self.expire(now);
        resolved
    }

    /// Resolves what `message` answers; a reply with a null id resolves the calls of
    /// `exchange` still waiting, if one is given (the body of an exchange).
    fn resolve_message(
        &mut self,
        message: &[u8],
        exchange: Option<u32>,
        incoming: &mut impl FnMut(Incoming<'_>),
    ) -> usize {
        self.reclaim();
        let limits = &Limits::DEFAULT;
        match parse_response(message, limits) {
            Err(e) => incoming(Incoming::NotJson(e)),
            Ok(ResponseMessage::Single(Ok(response))) => match exchange {
                Some(exchange) if response.id.kind() == IdKind::Null => {
                    return self.settle_exchange(exchange, response.outcome);
                }
                _ => return usize::from(self.resolve(response, incoming).is_some()),
            },
            Ok(ResponseMessage::Single(Err(e))) => match envelope::parse(message, limits) {
                // A request from the server (a notification, most often).
                Ok(envelope::Envelope::Single(envelope::Call::Request(request))) => {
                    incoming(if request.is_notification() {
                        Incoming::Notification(request)
                    } else {
                        Incoming::Request(request)
                    });
                }
                _ => incoming(Incoming::Invalid(e)),
            },
            Ok(ResponseMessage::Batch(batch)) => {
                let (mut resolved, mut exchange) = (0, None);
                for element in batch {
                    match element {
                        Ok(response) => {
                            if let Some(e) = self.resolve(response, incoming) {
                                resolved += 1;
                                exchange = Some(e);
                            }
                        }
                        Err(e) => incoming(Incoming::Invalid(e)),
                    }
                }
                // A server answers a batch's calls in one reply: those it left out
                // will not come.
                if let Some(exchange) = exchange {
                    self.fail_exchange(exchange);
                }
                return resolved;
            }
        }
        0
    }

    /// Matches one response; the exchange of the call it resolved.
    fn resolve(
        &mut self,
        response: Response<'_>,
        incoming: &mut impl FnMut(Incoming<'_>),
    ) -> Option<u32> {
        let id = response.id;
        if id.kind() == IdKind::Null {
            incoming(Incoming::NullId(response.outcome));
            return None;
        }
        if let Some(i) = self.waiting(id, Same::Yes) {
            let reply = self.keep(response.outcome);
            return Some(self.settle(i, reply));
        }
        if let Some(i) = self.waiting(id, Same::OtherType) {
            return Some(self.settle(i, Reply::Failed(Failure::IdTypeChanged)));
        }
        incoming(match self.retired.find(id) {
            Some(Left::Answered) => Incoming::Duplicate(id),
            Some(Left::GivenUp) => Incoming::Late(id),
            None => Incoming::Unknown(id),
        });
        None
    }

    /// Resolves every waiting call of `exchange` with `outcome` (a null-id reply to
    /// the whole exchange). Returns how many.
    fn settle_exchange(&mut self, exchange: u32, outcome: Outcome<'_>) -> usize {
        let mut n = 0;
        for i in 0..N {
            let in_exchange = self
                .slots
                .get(i)
                .is_some_and(|s| s.is_waiting() && s.exchange == exchange);
            if in_exchange {
                let reply = self.keep(outcome);
                self.settle(i, reply);
                n += 1;
            }
        }
        n
    }

    /// Copies a reply's outcome into the arena.
    fn keep(&mut self, outcome: Outcome<'_>) -> Reply {
        let kept = match outcome {
            Outcome::Result(result) => self.copy(result.as_bytes()).map(Reply::Result),
            Outcome::Error(e) => {
                let mark = self.top;
                let message = self.copy(e.message.as_raw());
                let data = match e.data {
                    Some(data) => self.copy(data.as_bytes()).map(Some),
                    None => Some(None),
                };
                match (message, data) {
                    (Some(message), Some(data)) => Some(Reply::Error {
                        code: e.code,
                        message,
                        data,
                    }),
                    _ => {
                        self.top = mark;
                        None
                    }
                }
            }
        };
        kept.unwrap_or(Reply::Failed(Failure::ReplyTooLarge))
    }

    fn copy(&mut self, bytes: &[u8]) -> Option<Span> {
        let start = self.top;
        let end = start.checked_add(bytes.len())?;
        self.arena.get_mut(start..end)?.copy_from_slice(bytes);
        self.top = end;
        Some(Span {
            start,
            len: bytes.len(),
        })
    }

    /// Frees the arena when no reply waiting to be taken holds any of it.
    fn reclaim(&mut self) {
        let held = self.slots.iter().any(|s| {
            matches!(
                s.state,
                State::Done {
                    reply: Reply::Result(_) | Reply::Error { .. },
                    ..
                }
            )
        });
        if !held {
            self.top = 0;
        }
    }

    /// Resolves slot `i` with `reply`: its id leaves as answered. Returns its exchange.
    fn settle(&mut self, i: usize, reply: Reply) -> u32 {
        let Some(slot) = self.slots.get_mut(i) else {
            return 0;
        };
        if let State::Waiting { tag, .. } = core::mem::replace(&mut slot.state, State::Free) {
            slot.state = State::Done {
                tag,
                reply,
                cancel_due: false,
            };
        }
        self.retired.retire(slot.id, Left::Answered);
        slot.exchange
    }

    /// Resolves waiting slot `i` with `why`: its id leaves as given up.
    fn give_up(&mut self, i: usize, why: Failure, cancel: bool) {
        let cancel_due = cancel && self.cancel.is_some();
        let Some(slot) = self.slots.get_mut(i) else {
            return;
        };
        if let State::Waiting { tag, .. } = core::mem::replace(&mut slot.state, State::Free) {
            slot.state = State::Done {
                tag,
                reply: Reply::Failed(why),
                cancel_due,
            };
            self.retired.retire(slot.id, Left::GivenUp);
        }
    }

    fn fail_exchange(&mut self, exchange: u32) -> usize {
        let mut n = 0;
        for i in 0..N {
            let left_out = self
                .slots
                .get(i)
                .is_some_and(|s| s.is_waiting() && s.exchange == exchange);
            if left_out {
                self.give_up(i, Failure::NoReply, false);
                n += 1;
            }
        }
        n
    }

    /// The waiting slot whose id compares to `id` as `how`.
    fn waiting(&self, id: Id<'_>, how: Same) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.is_waiting() && compare(s.id.id(), id) == how)
    }

    /// Takes the slot of `handle`: its result and the arena's free bytes (the scratch
    /// typed results decode into), or why there is no result.
    #[allow(clippy::type_complexity)] // Two borrows of the arena, each named where used.
    pub(crate) fn take_parts<T>(
        &mut self,
        handle: &Handle<T>,
    ) -> Option<Result<(RawJson<'_>, &mut [u8]), CallError<'_>>> {
        let reply = match self.slot(handle).map(|s| &s.state) {
            Some(State::Done { reply, .. }) => *reply,
            Some(State::Waiting { .. } | State::Unsent { .. }) => return None,
            Some(State::Free) | None => return Some(Err(CallError::Stale)),
        };
        self.free(handle.slot);
        let (kept, scratch) = self.arena.split_at_mut(self.top.min(B));
        let kept: &[u8] = kept;
        let span = |s: Span| kept.get(s.start..s.start + s.len).unwrap_or(&[]);
        Some(match reply {
            // Copied from a validated reply: valid JSON, and a string's inside.
            Reply::Result(result) => Ok((RawJson::trusted(span(result)), scratch)),
            Reply::Error {
                code,
                message,
                data,
            } => Err(CallError::Rpc(ErrorObject {
                code,
                message: RawStr::trusted(span(message)),
                data: data.map(|d| RawJson::trusted(span(d))),
            })),
            Reply::Failed(why) => Err(why.error()),
        })
    }

    fn slot<T>(&self, handle: &Handle<T>) -> Option<&Slot<I, G>> {
        self.slots
            .get(handle.slot)
            .filter(|s| s.generation == handle.generation)
    }

    fn handle<T>(&self, slot: usize) -> Handle<T> {
        let generation = self.slots.get(slot).map_or(0, |s| s.generation);
        Handle::new(slot, generation)
    }

    fn slot_id(&self, slot: usize) -> RequestId<'_> {
        RequestId::Raw(self.slots.get(slot).map_or(Id::NULL, |s| s.id.id()))
    }

    fn next_counter(&mut self) -> u32 {
        // 0 is never handed out: a free slot's generation.
        self.counter = self.counter.checked_add(1).unwrap_or(1);
        self.counter
    }

    fn free(&mut self, slot: usize) {
        if let Some(s) = self.slots.get_mut(slot) {
            s.state = State::Free;
        }
    }

    /// Registers `call` in a free slot (sent, or `unsent` in a batch being written).
    fn register(
        &mut self,
        call: Call<'_, I, G>,
        exchange: u32,
        unsent: bool,
    ) -> Result<usize, SendError> {
        let slot = self
            .slots
            .iter()
            .position(|s| matches!(s.state, State::Free))
            .ok_or(SendError::Table(InsertError::Full))?;
        let id = match call.id {
            Some(id) => {
                let stored = match StoredId::new(id) {
                    Some(s) if s.id().kind() != IdKind::Null => s,
                    _ => return Err(InsertError::UnsuitableId.into()),
                };
                if self.in_use(stored.id()) {
                    return Err(InsertError::DuplicateId.into());
                }
                stored
            }
            None => self.mint(),
        };
        let generation = self.next_counter();
        let Some(s) = self.slots.get_mut(slot) else {
            return Err(InsertError::Full.into());
        };
        let (deadline, tag) = (call.deadline, call.tag);
        *s = Slot {
            generation,
            exchange,
            id,
            state: if unsent {
                State::Unsent { deadline, tag }
            } else {
                State::Waiting { deadline, tag }
            },
        };
        Ok(slot)
    }

    /// The next counted id that no call in flight has.
    fn mint(&mut self) -> StoredId {
        loop {
            let n = self.ids.next_id();
            // A number always fits.
            let stored = StoredId::new(RequestId::Number(n)).unwrap_or(StoredId::EMPTY);
            if !self.in_use(stored.id()) {
                return stored;
            }
        }
    }

    fn in_use(&self, id: Id<'_>) -> bool {
        self.slots.iter().any(|s| {
            matches!(s.state, State::Waiting { .. } | State::Unsent { .. })
                && compare(s.id.id(), id) == Same::Yes
        })
    }
}

/// A batch being written: each [`call`](Self::call) registers its call and hands back
/// its handle; [`finish`](Self::finish) closes the batch, refusing an empty one.
/// Dropped unfinished, its calls are forgotten (their handles read
/// [`CallError::Stale`]).
///
/// ```
/// use jsonrpc_slice::client::{Client, SendError};
///
/// let mut client: Client<4, 256> = Client::new();
/// let mut out = [0u8; 256];
/// let mut batch = client.batch(&mut out);
/// let chain = batch.call::<u64>("eth_chainId", ())?;
/// let block = batch.call::<u64>("eth_blockNumber", ())?;
/// let msg = batch.finish()?;
/// assert_eq!(
///     msg,
///     br#"[{"jsonrpc":"2.0","method":"eth_chainId","id":1},{"jsonrpc":"2.0","method":"eth_blockNumber","id":2}]"#
/// );
/// client.receive(br#"[{"jsonrpc":"2.0","result":"0x10","id":2},{"jsonrpc":"2.0","result":"0x539","id":1}]"#, 0, |_| {});
/// assert_eq!(client.take_raw(&chain).unwrap().unwrap().as_bytes(), br#""0x539""#);
/// assert_eq!(client.take_raw(&block).unwrap().unwrap().as_bytes(), br#""0x10""#);
///
/// assert_eq!(client.batch(&mut out).finish(), Err(SendError::EmptyBatch));
/// # Ok::<(), SendError>(())
/// ```
pub struct Batch<'c, 'o, const N: usize, const B: usize, I, G> {
    client: &'c mut Client<N, B, I, G>,
    w: BatchWriter<'o>,
    exchange: u32,
    finished: bool,
}

impl<'o, const N: usize, const B: usize, I, G> Batch<'_, 'o, N, B, I, G> {
    /// Appends a request for `call` and registers it (see [`Client::request`]). One
    /// that does not fit, or is refused, leaves the batch as it was.
    pub fn call<'c, T>(
        &mut self,
        call: impl Into<Call<'c, I, G>>,
        params: impl ToParams,
    ) -> Result<Handle<T>, SendError> {
        self.call_with(call.into(), params)
    }

    /// [`call`](Self::call) with a [`Call`] that borrows.
    pub fn call_with<T>(
        &mut self,
        call: Call<'_, I, G>,
        params: impl ToParams,
    ) -> Result<Handle<T>, SendError> {
        let method = call.method;
        let slot = self.client.register(call, self.exchange, true)?;
        let id = self.client.slot_id(slot);
        match self.w.request(id, method, |p| params.write_params(p)) {
            Ok(()) => Ok(self.client.handle(slot)),
            Err(e) => {
                self.client.free(slot);
                Err(SendError::Write(e))
            }
        }
    }

    /// Appends a notification (no reply, no handle).
    pub fn notify(&mut self, method: &str, params: impl ToParams) -> Result<(), SendError> {
        Ok(self.w.notification(method, |p| params.write_params(p))?)
    }

    /// The calls and notifications in the batch so far.
    pub fn len(&self) -> usize {
        self.w.len()
    }

    /// `true` before the first call.
    pub fn is_empty(&self) -> bool {
        self.w.is_empty()
    }

    /// Closes the batch: its calls are in flight, and here is the message to send.
    /// An empty batch is refused with [`SendError::EmptyBatch`].
    pub fn finish(mut self) -> Result<&'o [u8], SendError> {
        if self.w.is_empty() {
            return Err(SendError::EmptyBatch);
        }
        let w = core::mem::replace(&mut self.w, BatchWriter::new(&mut []));
        let msg = w.finish()?;
        for slot in self.client.slots.iter_mut() {
            if slot.exchange == self.exchange {
                if let State::Unsent { deadline, tag } =
                    core::mem::replace(&mut slot.state, State::Free)
                {
                    slot.state = State::Waiting { deadline, tag };
                }
            }
        }
        self.finished = true;
        Ok(msg)
    }
}

impl<const N: usize, const B: usize, I, G> Drop for Batch<'_, '_, N, B, I, G> {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        for slot in self.client.slots.iter_mut() {
            if slot.exchange == self.exchange && matches!(slot.state, State::Unsent { .. }) {
                slot.state = State::Free;
            }
        }
    }
}
