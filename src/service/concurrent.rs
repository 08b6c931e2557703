//! The concurrent service: up to `N` requests in flight at once, read while their
//! handlers run, with cancellation, requests to the peer, and messages pushed on a
//! quiet link — no allocation, no boxing, a fixed memory set by the caller.
//!
//! The [`Service`](super::Service), blocking or async, takes one message at a time: a
//! slow handler holds up every message behind it. A [`ConcurrentServer`] runs its
//! handlers in `N` *slots* and keeps reading while they run, so a `ping` is answered
//! during a long tool call and a cancellation reaches the call it names.
//!
//! # The flow
//!
//! [`ConcurrentServer::serve`] is one future made of three parts and `N` workers, all
//! polled by the task that awaits it (no executor of its own, no `Send` needed):
//!
//! - the **reader** reads the transport whenever everything read was cut into frames
//!   (flushing first what was written, since the peer may wait for it). While every
//!   slot is busy it also cuts the frames itself: a cancellation is applied at once
//!   (it takes no slot), a response from the peer goes to the handler that awaits it,
//!   and a request waits for a slot (see Bounds).
//! - each **worker** runs the message in its slot, exactly as
//!   [`AsyncServer::handle`](crate::AsyncServer::handle) would (the same replies, byte
//!   for byte), and writes its reply as soon as the outbox holds nothing (so what its
//!   handler queued goes first) and the transport is free. While its slot is free it
//!   takes the next frame from the framer itself, copied into its frame buffer and
//!   read once: a worker whose handlers complete at once answers a whole read's worth
//!   of messages in one poll. Replies go out in the order their handlers completed
//!   (JSON-RPC allows any order).
//! - the **writer** sends what the [`SharedOutbox`](crate::outbox::SharedOutbox) holds (notifications and requests
//!   of handlers and of the application) as soon as it holds something, and flushes
//!   the transport once nothing more is ready to be written: the replies to one read
//!   share a flush.
//!
//! # Bounds
//!
//! Memory is [`Slots`] (inline, a `const fn`) or [`LentSlots`] (buffers lent once at
//! start, for buffers too large to build as one value): `N` frame buffers and `N`
//! reply buffers, plus two frame buffers for the reader; the outbox is a
//! [`SharedOutbox`](crate::outbox::SharedOutbox) or a
//! [`LentOutbox`](crate::outbox::LentOutbox). The loop's code is the same for both. When all `N` slots are busy the reader keeps at most one
//! request waiting for a slot and goes on reading, so a cancellation (or a response
//! the peer sends to a handler) is still applied; a second request that finds no slot
//! is held, and reading stops until a slot frees (backpressure: input is never
//! dropped). A batch takes one slot; its calls run one after the other and it is
//! answered as one array once all of them are done.
//!
//! # Cancellation
//!
//! With [`ConcurrentServer::with_cancellation`], a notification of the method a
//! [`Cancellation`] names (`notifications/cancelled` with `params.requestId` in MCP,
//! `$/cancelRequest` with `params.id` in LSP) cancels the request whose id it carries,
//! compared as [`Pending`](crate::client::Pending) compares ids (strings with escapes
//! decoded, numbers by lexeme, never a string with a number). It is consumed by the
//! service: no handler sees it. A request not yet started is not run; a running
//! handler can see it ([`Call::is_cancelled`], [`Call::cancelled`]) and its future is
//! dropped at its next poll. What is answered is the [`CancelReply`]: nothing (MCP) or
//! an error of your choice (LSP: `-32800`). A cancellation of an unknown id, of a
//! request already answered, or a second one, is ignored. A batch's calls cannot be
//! cancelled one by one.
//!
//! # The transport
//!
//! The reader and the writer are separate parts of the loop: the transport comes as
//! a [`Read`] half and a [`Write`] half. The loop never drops a read it started (the
//! reader awaits it whatever else happens, until the loop itself ends or a read or a
//! write fails), so a read need not be cancel-safe; it must
//! return 0 only at the end of the input. Once the input has ended and every slot is
//! answered, `serve` returns; the requests a handler still awaits from the peer then
//! fail with [`PeerError::Lost`].
//!
//! Everything the loop shares lives in `Cell`s and `RefCell`s. A `RefCell` is held
//! across an await only by the part that owns it then (a worker its slot's buffers
//! while its handlers run, the writer the outbox or a reply while it sends it); every
//! other borrow is tried, and waits when it fails. Nothing in the loop can panic, and
//! the loop must be polled from one task (the types are not `Sync`). An application
//! future that pushes events runs beside it in the same task (`join(serve, events)`).

use core::cell::{Cell, RefCell};
use core::fmt;
use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;

use embassy_futures::join::{join3, join_array};

use embassy_futures::select::{select, Either};

use crate::client::{self, same_id, RequestId};
use crate::dispatch::{self as dispatch_async, AsyncMethods};
use crate::dispatch::{MethodTable, Server};
use crate::envelope::{self, parse_response, Call as Message, Envelope, Outcome, ResponseMessage};
use crate::frame::{framed, oversized_frame_reply, Encoding, Event, Framer};
use crate::id::Id;
use crate::limits::Limits;
use crate::outbox::{queue_message, AsQueue, Queue};
use crate::raw::RawJson;
use crate::scan::ScanError;
use crate::write::{Message as Text, ResultWriter, WriteError};
use crate::OutputTooSmall;

use super::Input;

mod blocking;
mod memory;

use self::memory::Buffer;
pub use self::memory::{LentSlots, Memory, Slots};
pub use super::ServeError;

/// The read half of a transport (a UART's receiver, a socket's read half, stdin).
#[allow(async_fn_in_trait)]
pub trait Read {
    /// Why a read failed.
    type Error;
    /// Reads what is there into `buf` (at least one byte), or 0 at the end of the
    /// input.
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error>;
}

/// The write half of a transport.
#[allow(async_fn_in_trait)]
pub trait Write {
    /// Why a write failed.
    type Error;
    /// Writes all of `bytes`.
    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error>;
    /// Sends what was written (called before each read, and once nothing more is
    /// ready to be written).
    async fn flush(&mut self) -> Result<(), Self::Error>;
}

/// What a cancelled request is answered with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CancelReply {
    /// Nothing: the peer stopped waiting (MCP: "receivers ... should not send a
    /// response for the cancelled request").
    Nothing,
    /// An error reply with the request's id (LSP: `-32800 RequestCancelled`).
    Error {
        /// The error code.
        code: i32,
        /// The error message.
        message: &'static str,
    },
}

/// How the peer cancels a request: a notification of `method` whose params member
/// `id_member` is the id of the request to cancel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cancellation {
    method: &'static str,
    id_member: &'static str,
    reply: CancelReply,
}

impl Cancellation {
    /// MCP: `notifications/cancelled` with `params.requestId`; no reply.
    pub const MCP: Cancellation =
        Cancellation::new("notifications/cancelled", "requestId", CancelReply::Nothing);

    /// LSP: `$/cancelRequest` with `params.id`; answered `-32800`.
    pub const LSP: Cancellation = Cancellation::new(
        "$/cancelRequest",
        "id",
        CancelReply::Error {
            code: -32800,
            message: "Request cancelled",
        },
    );

    /// A cancellation of your own protocol.
    pub const fn new(method: &'static str, id_member: &'static str, reply: CancelReply) -> Self {
        Self {
            method,
            id_member,
            reply,
        }
    }
}

/// A JSON-RPC server whose async handlers run up to `N` at once (`N` is the
/// [`Slots`] given to [`serve`](Self::serve)): see the [module](self) docs.
///
/// Its handlers take a [`Call`], the per-call context (the application's shared state,
/// the cancellation, the outbox, requests to the peer), so the table is declared with
/// its lifetime:
///
/// ```
/// use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
/// use jsonrpc_slice::{async_method_table, Params, ResultWriter, RpcError};
///
/// struct App;
///
/// async fn ping<'p>(_: &mut Call<'_, App>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     Ok(out.raw(jsonrpc_slice::RawJson::NULL)?)
/// }
///
/// async_method_table! { pub Methods<'c, Call<'c, App>> { "ping" => ping } }
/// static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);
/// ```
pub struct ConcurrentServer<T> {
    table: T,
    /// The limits, and the error replies (its own table is empty).
    base: Server<()>,
    cancellation: Option<Cancellation>,
}

impl<T: fmt::Debug> fmt::Debug for ConcurrentServer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConcurrentServer")
            .field("table", &self.table)
            .field("limits", self.base.limits())
            .field("cancellation", &self.cancellation)
            .finish()
    }
}

impl<T> ConcurrentServer<T> {
    /// A server for `table` with [`Limits::DEFAULT`] and no cancellation.
    pub const fn new(table: T) -> Self {
        Self {
            table,
            base: Server::new(MethodTable::new(&[], &[0])),
            cancellation: None,
        }
    }

    /// The same server with other limits.
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.base = self.base.with_limits(limits);
        self
    }

    /// The same server, telling `hook` of every call (see
    /// [`CallHook`](crate::dispatch::CallHook)); the duration it is given includes the
    /// handler's awaits, not the time the request waited for a slot.
    pub const fn with_hook(mut self, hook: crate::dispatch::CallHook) -> Self {
        self.base = self.base.with_hook(hook);
        self
    }

    /// The same server, cancelling requests as `cancellation` says.
    pub const fn with_cancellation(mut self, cancellation: Cancellation) -> Self {
        self.cancellation = Some(cancellation);
        self
    }

    /// The limits in force.
    pub const fn limits(&self) -> &Limits {
        self.base.limits()
    }

    /// Serves the stream read from `reader` (cut into messages by `framer`, each
    /// read going into `chunk`), answering on `writer`, until the input ends and
    /// every call is answered: see the [module](self) docs. `state` is what every
    /// handler's [`Call::state`] gives; `slots` is the loop's [`Memory`] ([`Slots`]
    /// or [`LentSlots`]); `outbox` ([`SharedOutbox`](crate::outbox::SharedOutbox) or
    /// [`LentOutbox`](crate::outbox::LentOutbox)) is where handlers and the
    /// application queue what the server sends on its own.
    ///
    /// `slots` and `outbox` may be used again by a later `serve`.
    ///
    /// The requests handlers send the peer ([`Call::request`]) are numbered from 1:
    /// [`serve_from`](Self::serve_from) says otherwise.
    #[allow(clippy::too_many_arguments)]
    pub async fn serve<S, F, R, W, M, O, const N: usize>(
        &self,
        state: &S,
        framer: &mut F,
        slots: &M,
        outbox: &O,
        chunk: &mut [u8],
        reader: &mut R,
        writer: &mut W,
    ) -> Result<(), ServeError<R::Error, W::Error>>
    where
        T: for<'c> AsyncMethods<Call<'c, S>>,
        F: Framer + ?Sized,
        R: Read + ?Sized,
        W: Write + ?Sized,
        M: Memory<N> + ?Sized,
        O: AsQueue + ?Sized,
    {
        self.serve_from(Some(1), state, framer, slots, outbox, chunk, reader, writer)
            .await
    }

    /// [`serve`](Self::serve), the requests to the peer numbered from
    /// `first_peer_id` (counting up, wrapping at `u64::MAX`), or, with `None`, none
    /// sent: [`Call::request`] fails at once with [`PeerError::Lost`], the peer told
    /// nothing.
    ///
    /// For loops that share one peer, each given ids of its own so that a response
    /// can be told to the loop that awaits it (the HTTP server gives each `POST`
    /// whose handlers may ask the client a range of its own, and routes the
    /// client's responses, which come in other `POST`s, by it); or for a loop with
    /// no way to ask its peer (a reply that cannot carry a request).
    #[allow(clippy::too_many_arguments)]
    pub async fn serve_from<S, F, R, W, M, O, const N: usize>(
        &self,
        first_peer_id: Option<u64>,
        state: &S,
        framer: &mut F,
        slots: &M,
        outbox: &O,
        chunk: &mut [u8],
        reader: &mut R,
        writer: &mut W,
    ) -> Result<(), ServeError<R::Error, W::Error>>
    where
        T: for<'c> AsyncMethods<Call<'c, S>>,
        F: Framer + ?Sized,
        R: Read + ?Sized,
        W: Write + ?Sized,
        M: Memory<N> + ?Sized,
        O: AsQueue + ?Sized,
    {
        let control: [Control; N] = [const { Control::new() }; N];
        let hub = Hub {
            control: &control,
            outbox: outbox.as_queue(),
            held_buf: slots.held(),
            held: Cell::new(Held::Nothing),
            waiting: Cell::new(None),
            read_all: Cell::new(false),
            failed: Cell::new(false),
            unflushed: Cell::new(false),
            moved: Cell::new(false),
            ended: Cell::new(0),
            next_peer_id: Cell::new(first_peer_id),
            limits: self.base.limits(),
        };
        let io = Io {
            input: RefCell::new(Input {
                chunk,
                start: 0,
                end: 0,
                ended: false,
                finished: false,
            }),
            framer: RefCell::new(framer),
            writer: RefCell::new(writer),
            read_error: Cell::new(None),
            write_error: Cell::new(None),
        };
        // Made in the place it is pinned: the parts hold every slot's future, which a
        // move (a `let` between) would copy. For the same reason no part is ever done
        // (`Hub::part`): a join takes its parts' outputs by moving each whole future
        // out of its place; the loop ends when every part has ended, or one failed.
        let mut parts = pin!(select(
            join3(
                hub.part(|| self.read(&hub, slots, &io, reader)),
                join_array(core::array::from_fn::<_, N, _>(|i| {
                    let (hub, io) = (&hub, &io);
                    hub.part(move || self.work(hub, state, i, slots, io))
                })),
                hub.part(|| async {
                    if let Err(e) = self.write(&hub, &io).await {
                        io.fail(&hub, ServeError::Write(e));
                    }
                }),
            ),
            hub.until(|| (hub.failed.get() || hub.ended.get() == N + 2).then_some(())),
        ));
        // A part that changed what another can act on polls them all again at once, not
        // after a trip through the executor: what a poll can finish (a reply waiting for
        // the outbox to be sent, say) is finished before the loop returns, so a future
        // selected with the loop (an `exit`) never cuts it short. Bounded: past that,
        // the executor is asked to poll again.
        poll_fn(|cx| {
            for _ in 0..REPOLLS {
                hub.moved.set(false);
                if parts.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(());
                }
                if !hub.moved.get() {
                    return Poll::Pending;
                }
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        })
        .await;
        if let Some(e) = io.read_error.take() {
            return Err(ServeError::Read(e));
        }
        if let Some(e) = io.write_error.take() {
            return Err(ServeError::Write(e));
        }
        Ok(())
    }

    /// The reader: reads the transport whenever everything read was fed to the framer
    /// (flushing what was written first), and takes frames itself only while every
    /// slot is busy (a free worker takes its own): a cancellation is applied, a
    /// response handed over, a request kept waiting for a slot or held.
    // The input stays borrowed while a read fills it (no worker has anything to take
    // meanwhile), the transport while it is flushed.
    #[allow(clippy::await_holding_refcell_ref)]
    async fn read<F, R, W, const N: usize, M: Memory<N> + ?Sized>(
        &self,
        hub: &Hub<'_>,
        slots: &M,
        io: &Io<'_, F, R, W>,
        reader: &mut R,
    ) where
        F: Framer + ?Sized,
        R: Read + ?Sized,
        W: Write + ?Sized,
    {
        // The replies the reader writes itself: a frame that is not one, a cancelled
        // request that had no slot yet.
        let mut own = [0u8; OWN_REPLY];
        loop {
            let next = hub.until(|| {
                // What waits goes into a slot first; a held frame stops reading.
                if !settle(hub, slots) {
                    return None;
                }
                let input = io.input.try_borrow().ok()?;
                if input.has_more() {
                    return hub.free_slot().is_none().then_some(Reading::Take);
                }
                match (input.ended, input.finished) {
                    (false, _) => Some(Reading::Read),
                    (true, true) => Some(Reading::End),
                    (true, false) => None,
                }
            });
            let step = match next.await {
                Reading::End => break,
                Reading::Read => {
                    // The peer may wait for these replies before it sends more. While
                    // a write is under way the reader reads on (that write waits for
                    // the peer, and the writer flushes once it is done).
                    let writer = hub.unflushed.get().then(|| io.writer.try_borrow_mut().ok());
                    if let Some(Some(mut writer)) = writer {
                        if let Err(e) = writer.flush().await {
                            return io.fail(hub, ServeError::Write(e));
                        }
                        hub.unflushed.set(false);
                        // The flush may have waited: the parts that tried the transport
                        // meanwhile wait for a wake.
                        drop(writer);
                        hub.wake();
                    }
                    let Ok(mut input) = io.input.try_borrow_mut() else {
                        continue;
                    };
                    match reader.read(input.chunk).await {
                        Ok(0) => input.ended = true,
                        Ok(n) => (input.start, input.end) = (0, n.min(input.chunk.len())),
                        Err(e) => return io.fail(hub, ServeError::Read(e)),
                    }
                    hub.wake();
                    continue;
                }
                Reading::Take => {
                    let (Ok(mut input), Ok(mut framer)) =
                        (io.input.try_borrow_mut(), io.framer.try_borrow_mut())
                    else {
                        continue;
                    };
                    match input.next_event(&mut **framer, &mut own) {
                        None => continue,
                        Some(Event::Answered(len)) => len,
                        Some(Event::Frame(frame)) => self.take(hub, slots, frame, &mut own),
                    }
                }
            };
            if step > 0 {
                let reply = own.get(..step).unwrap_or(&[]);
                // A reply of the server's own, queued as a message is (it holds no
                // raw line break: the writer escapes them).
                let _ = queue_message(hub.outbox, &mut |room| {
                    let room = room.get_mut(..reply.len()).ok_or(WriteError::BufferFull)?;
                    room.copy_from_slice(reply);
                    Ok(room)
                })
                .await;
            }
        }
        // Every message read into a slot, then the end is known to all.
        hub.until(|| {
            let placed = settle(hub, slots) && hub.waiting.get().is_none();
            placed.then_some(())
        })
        .await;
        hub.read_all.set(true);
        hub.wake();
    }

    /// What `frame` is to the loop, read from its envelope `parsed`.
    #[inline(always)]
    fn kind<'a>(
        &self,
        frame: &'a [u8],
        parsed: &Result<Envelope<'a>, ScanError>,
        limits: &'a Limits,
    ) -> Kind<'a> {
        match parsed {
            Ok(Envelope::Single(Message::Request(req))) => {
                if let Some(cancellation) = self.cancellation {
                    if req.id.is_none() && req.method.eq_str(cancellation.method) {
                        let id = req.params.and_then(|p| p.get(cancellation.id_member));
                        return Kind::Cancel(id.and_then(Id::from_raw));
                    }
                }
                Kind::Message(req.id.map(|id| place_of(frame, id.as_bytes())))
            }
            Ok(Envelope::Single(Message::Invalid { .. })) => match parse_response(frame, limits) {
                Ok(ResponseMessage::Single(Ok(response))) => Kind::Response(response.id),
                _ => Kind::Message(None),
            },
            _ => Kind::Message(None),
        }
    }

    /// Takes a frame the reader cut while every slot was busy: a cancellation, a
    /// response for a handler, or a message to wait for a slot (copied out of the
    /// framer, which is then free to read on). The length of a reply the reader
    /// writes itself (0: none).
    fn take<const N: usize, M: Memory<N> + ?Sized>(
        &self,
        hub: &Hub<'_>,
        slots: &M,
        frame: &[u8],
        own: &mut [u8],
    ) -> usize {
        let limit = slots.frame_len();
        if frame.len() > limit {
            return oversized_frame_reply(limit, own).map_or(0, <[u8]>::len);
        }
        let parsed = envelope::parse(frame, hub.limits);
        match self.kind(frame, &parsed, hub.limits) {
            Kind::Cancel(id) => id.map_or(0, |id| self.cancel(hub, slots, id, own)),
            Kind::Response(id) => {
                route_response(hub, slots, frame, id);
                0
            }
            Kind::Message(id) => {
                place(hub, slots, frame, id);
                0
            }
        }
    }

    /// Cancels the request with `id`: one not started is not run, a running one is
    /// dropped at its next poll. Returns the length of a reply the reader must send
    /// (a cancelled request that was still waiting for a slot), or 0.
    fn cancel<const N: usize, M: Memory<N> + ?Sized>(
        &self,
        hub: &Hub<'_>,
        slots: &M,
        id: Id<'_>,
        own: &mut [u8],
    ) -> usize {
        for (i, control) in hub.control.iter().enumerate() {
            let live = matches!(control.state.get(), State::Ready(_) | State::Running);
            if !live || control.cancelled.get() {
                continue;
            }
            let Some(frame) = slots.frame(i).and_then(Buffer::read) else {
                continue;
            };
            if id_at(&frame[..], control.id.get()).is_some_and(|mine| same_id(mine, id)) {
                control.cancelled.set(true);
                hub.wake();
                return 0;
            }
        }
        if let Some((_, place)) = hub.waiting.get() {
            let Some(waiting) = slots.waiting().read() else {
                return 0;
            };
            if let Some(mine) = id_at(&waiting[..], place).filter(|mine| same_id(*mine, id)) {
                let written = self.cancelled_reply(mine, own);
                drop(waiting);
                hub.waiting.set(None);
                hub.wake();
                return written;
            }
        }
        0
    }

    /// Writes what a cancelled request `id` is answered with into `out`: its length
    /// (0: nothing, by the policy, or it did not fit).
    fn cancelled_reply(&self, id: Id<'_>, out: &mut [u8]) -> usize {
        let Some(Cancellation {
            reply: CancelReply::Error { code, message },
            ..
        }) = self.cancellation
        else {
            return 0;
        };
        let mut w = ResultWriter::new(out);
        match w.error_reply(id, code, Text::plain(message), None) {
            Ok(_) => w.into_written().len(),
            Err(_) => 0,
        }
    }

    /// Worker `i`: runs the message the reader put in slot `i`, or, while its slot is
    /// free and nothing waits, takes the next frame from the framer itself; then
    /// writes the reply, and goes on with the next message in the same poll.
    // The slot's buffers stay borrowed while its handlers run, and the transport while
    // the reply is written (see below and `write`).
    #[allow(clippy::await_holding_refcell_ref)]
    async fn work<S, F, R, W, const N: usize, M: Memory<N> + ?Sized>(
        &self,
        hub: &Hub<'_>,
        state: &S,
        i: usize,
        slots: &M,
        io: &Io<'_, F, R, W>,
    ) where
        T: for<'c> AsyncMethods<Call<'c, S>>,
        F: Framer + ?Sized,
        R: Read + ?Sized,
        W: Write + ?Sized,
    {
        let (Some(control), Some(frame), Some(reply)) =
            (hub.control.get(i), slots.frame(i), slots.reply(i))
        else {
            return;
        };
        // The reply buffer is this worker's alone: borrowed once, for the worker's life.
        let Some(mut reply) = reply.write() else {
            return;
        };
        // The handlers' context: the same for every call this worker runs.
        let mut call = Call {
            state,
            hub,
            slot: i,
        };
        loop {
            // Asked once before waiting: the next message is most often there.
            let job = match next_job(hub, slots, io, control, frame, &mut reply) {
                Some(job) => job,
                None => {
                    hub.until(|| next_job(hub, slots, io, control, frame, &mut reply))
                        .await
                }
            };
            let len = match job {
                Job::Stop => return,
                // The slot stays taken while the reply is written.
                Job::Answered(len) => {
                    control.state.set(State::Running);
                    len
                }
                // Runs the `len` bytes in the frame buffer as `AsyncServer::handle`
                // would, the reply into the reply buffer; a cancellation drops the
                // handlers at their next poll. A `fresh` frame (taken from the framer)
                // may be a cancellation or a response, which take no slot. The buffers
                // stay borrowed while the handlers run: the borrow is the worker's hold
                // on its slot (the reader and the writer only try to borrow them, and
                // only in states where the worker does not).
                Job::Run(len, fresh) => 'run: {
                    control.state.set(State::Running);
                    let Some(frame) = frame.read() else {
                        break 'run 0;
                    };
                    let input = frame.get(..len).unwrap_or(&[]);
                    let parsed = envelope::parse(input, hub.limits);
                    if fresh {
                        match self.kind(input, &parsed, hub.limits) {
                            Kind::Cancel(id) => {
                                let out = &mut reply[..];
                                break 'run id.map_or(0, |id| self.cancel(hub, slots, id, out));
                            }
                            Kind::Response(id) => {
                                route_response(hub, slots, input, id);
                                break 'run 0;
                            }
                            Kind::Message(id) => control.id.set(id),
                        }
                    }
                    let done = {
                        let (table, base, out) = (&self.table, &self.base, &mut reply[..]);
                        let mut handling = pin!(async {
                            // A single call, the usual message, is answered here
                            // rather than in `handle_parsed`: one future fewer a
                            // message (the same reply: `handle_parsed` does this).
                            let Ok(Envelope::Single(single)) = &parsed else {
                                return dispatch_async::handle_parsed(
                                    table, base, &mut call, &parsed, out,
                                )
                                .await;
                            };
                            let mut w = ResultWriter::new(out);
                            match dispatch_async::answer(table, base, &mut call, single, &mut w)
                                .await
                            {
                                Ok(()) => Ok(w.into_written()),
                                Err(_) => Err(OutputTooSmall),
                            }
                        });
                        poll_fn(|cx| {
                            if control.cancelled.get() {
                                return Poll::Ready(None);
                            }
                            handling.as_mut().poll(cx).map(Some)
                        })
                        .await
                        .map(|r| r.map_or(0, <[u8]>::len))
                    };
                    match done {
                        Some(len) => len,
                        None => match id_at(input, control.id.get()) {
                            Some(id) => self.cancelled_reply(id, &mut reply[..]),
                            None => 0,
                        },
                    }
                }
            };
            if len > 0 {
                // This call's notifications go first (the outbox is empty), then the
                // reply, once the transport is free.
                let free = || {
                    let writer = io.writer.try_borrow_mut().ok()?;
                    hub.outbox.is_empty().then_some(writer)
                };
                let mut writer = match free() {
                    Some(writer) => writer,
                    None => hub.until(free).await,
                };
                // Most framings write a reply in one piece: its trailer put after it.
                let sent = match framed_in_place(&io.framer, &mut reply, len) {
                    Some(framed) => writer.write_all(framed).await,
                    None => {
                        let body = reply.get(..len).unwrap_or(&[]);
                        send(hub, &io.framer, &mut **writer, body).await
                    }
                };
                drop(writer);
                if let Err(e) = sent {
                    return io.fail(hub, ServeError::Write(e));
                }
                hub.unflushed.set(true);
                // The write may have waited: the parts that tried the transport
                // meanwhile (and the writer, to flush) wait for a wake.
                hub.wake();
            }
            // A slot is free: what waits for one takes it now (`next` settles first).
            control.reset();
        }
    }

    /// The writer: what the outbox holds, as soon as it holds something; a flush once
    /// nothing more is ready to be written. (Each worker writes its own replies.)
    // The outbox stays borrowed while it is written: what is queued meanwhile waits,
    // and what is sent cannot change under the write.
    #[allow(clippy::await_holding_refcell_ref)]
    async fn write<F, R, W>(&self, hub: &Hub<'_>, io: &Io<'_, F, R, W>) -> Result<(), W::Error>
    where
        F: Framer + ?Sized,
        R: Read + ?Sized,
        W: Write + ?Sized,
    {
        loop {
            let next = hub.until(|| {
                if !hub.outbox.is_empty() {
                    return Some(Next::Queued);
                }
                if hub.unflushed.get() {
                    return Some(Next::Flush);
                }
                (hub.read_all.get() && hub.idle()).then_some(Next::End)
            });
            let next = next.await;
            let mut writer = hub.until(|| io.writer.try_borrow_mut().ok()).await;
            match next {
                Next::End => return Ok(()),
                Next::Flush => {
                    writer.flush().await?;
                    hub.unflushed.set(false);
                    // As after the reader's flush: a flush may have waited.
                    drop(writer);
                    hub.wake();
                }
                Next::Queued => {
                    let Some(queued) = hub.outbox.queued() else {
                        continue;
                    };
                    for message in crate::outbox::messages(&queued) {
                        send(hub, &io.framer, &mut **writer, message).await?;
                    }
                    drop(queued);
                    hub.unflushed.set(true);
                    hub.outbox.clear();
                    hub.wake();
                }
            }
        }
    }
}

/// What the parts of the loop share beside the [`Hub`]: the transport, the input read
/// and not yet fed, the framer, and why the loop failed.
struct Io<'a, F: ?Sized, R: Read + ?Sized, W: Write + ?Sized> {
    input: RefCell<Input<'a>>,
    framer: RefCell<&'a mut F>,
    writer: RefCell<&'a mut W>,
    read_error: Cell<Option<R::Error>>,
    write_error: Cell<Option<W::Error>>,
}

impl<F: ?Sized, R: Read + ?Sized, W: Write + ?Sized> Io<'_, F, R, W> {
    /// A read or a write failed: the loop ends with `e`.
    fn fail(&self, hub: &Hub<'_>, e: ServeError<R::Error, W::Error>) {
        match e {
            ServeError::Read(e) => self.read_error.set(Some(e)),
            ServeError::Write(e) => self.write_error.set(Some(e)),
        }
        hub.failed.set(true);
        hub.wake();
    }
}

/// What worker `control`'s next job is: the message the reader put in its slot, or
/// (free, nothing held) the next event it takes from the input itself, or the end.
fn next_job<F, R, W, const N: usize, M: Memory<N> + ?Sized>(
    hub: &Hub<'_>,
    slots: &M,
    io: &Io<'_, F, R, W>,
    control: &Control,
    frame: &impl Buffer,
    reply: &mut [u8],
) -> Option<Job>
where
    F: Framer + ?Sized,
    R: Read + ?Sized,
    W: Write + ?Sized,
{
    settle(hub, slots);
    match control.state.get() {
        State::Ready(len) => return Some(Job::Run(len, false)),
        State::Free => {}
        _ => return None,
    }
    if hub.held.get() == Held::Nothing {
        if let Some(job) = pull(hub, io, frame, reply, slots.frame_len()) {
            return Some(job);
        }
    }
    hub.read_all.get().then_some(Job::Stop)
}

/// Takes the next event of the input into a free slot (its worker's own turn): a
/// frame into its frame buffer (of `limit` bytes), a reply of the framer's own into
/// its reply buffer. Wakes the reader once everything read was fed.
fn pull<F, R, W>(
    hub: &Hub<'_>,
    io: &Io<'_, F, R, W>,
    frame: &impl Buffer,
    out: &mut [u8],
    limit: usize,
) -> Option<Job>
where
    F: Framer + ?Sized,
    R: Read + ?Sized,
    W: Write + ?Sized,
{
    let (Ok(mut input), Ok(mut framer)) = (io.input.try_borrow_mut(), io.framer.try_borrow_mut())
    else {
        return None;
    };
    if !input.has_more() {
        return None;
    }
    let event = input.next_event(&mut **framer, out);
    if !input.has_more() {
        hub.wake();
    }
    match event? {
        Event::Answered(len) => Some(Job::Answered(len)),
        Event::Frame(bytes) if bytes.len() > limit => {
            let len = oversized_frame_reply(limit, out).map_or(0, <[u8]>::len);
            Some(Job::Answered(len))
        }
        Event::Frame(bytes) => copy_into(frame, bytes).then_some(Job::Run(bytes.len(), true)),
    }
}

/// `write`, with the signature a queued message's writer has (closures do not infer
/// it alone).
fn message_writer<W: FnMut(&mut [u8]) -> Result<&[u8], WriteError>>(write: W) -> W {
    write
}

/// The reply of `len` bytes at the start of `buf` with its framing around it, in
/// `buf`, when the framing has no header and `buf` has room for the trailer (a
/// newline, a JSON stream): the one piece to write. `None`: `send` it.
fn framed_in_place<'b, F: Framer + ?Sized>(
    framer: &RefCell<&mut F>,
    buf: &'b mut [u8],
    len: usize,
) -> Option<&'b [u8]> {
    let framer = framer.try_borrow().ok()?;
    let mut header = [0u8; 40];
    let verbatim = matches!(framer.reply_encoding(), Encoding::Verbatim);
    if !verbatim || !framer.reply_header(len, &mut header).is_empty() {
        return None;
    }
    let trailer = framer.reply_trailer();
    let end = len.checked_add(trailer.len())?;
    buf.get_mut(len..end)?.copy_from_slice(trailer);
    buf.get(..end)
}

/// Writes `message`, framed as `framer` frames replies.
async fn send<F: Framer + ?Sized, W: Write + ?Sized>(
    hub: &Hub<'_>,
    framer: &RefCell<&mut F>,
    io: &mut W,
    message: &[u8],
) -> Result<(), W::Error> {
    // The framer is borrowed mutably only while a frame is cut, never across an
    // await: it is free here (the wait is for safety, not for a turn).
    let mut header = [0u8; 40];
    let framed = {
        let framer = match framer.try_borrow() {
            Ok(framer) => framer,
            Err(_) => hub.until(|| framer.try_borrow().ok()).await,
        };
        match framer.reply_encoding() {
            Encoding::Verbatim => {
                let header_len = framer.reply_header(message.len(), &mut header).len();
                Ok((header_len, framer.reply_trailer()))
            }
            Encoding::Cobs(_) => Err(framed(&**framer, message, message.len())),
        }
    };
    // Most framings send a message as it is: its header, it, its trailer, written
    // without the framed reply's piece iterator (which is for COBS).
    let framed = match framed {
        Ok((header_len, trailer)) => {
            if header_len > 0 {
                io.write_all(header.get(..header_len).unwrap_or(&[]))
                    .await?;
            }
            io.write_all(message).await?;
            if !trailer.is_empty() {
                io.write_all(trailer).await?;
            }
            return Ok(());
        }
        Err(framed) => framed,
    };
    for piece in framed.pieces() {
        if !piece.is_empty() {
            io.write_all(piece).await?;
        }
    }
    Ok(())
}

/// The longest reply the reader writes itself (a framing error, a cancelled
/// request's error with an id of up to [`MAX_PENDING_ID`](crate::client::MAX_PENDING_ID)
/// bytes).
const OWN_REPLY: usize = 256;

/// How many times one poll of the loop polls its parts while they make progress.
const REPOLLS: usize = 64;

/// What the reader does next.
enum Reading {
    /// Read more input (everything read was fed to the framer).
    Read,
    /// Take the next frame: every slot is busy.
    Take,
    /// The input has ended and the framer was told.
    End,
}

/// What a worker does next.
enum Job {
    /// Run the message of this length in its slot (`true`: taken from the framer,
    /// not read yet).
    Run(usize, bool),
    /// Send the reply of this length the framer wrote (a frame that is not one).
    Answered(usize),
    /// Everything was read and answered.
    Stop,
}

/// What a frame is to the loop.
enum Kind<'a> {
    /// A cancellation, of the request with this id (none: it names none).
    Cancel(Option<Id<'a>>),
    /// A response from the peer, with its id.
    Response(Id<'a>),
    /// A message for a slot, with its id's place.
    Message(IdPlace),
}

/// What the writer does next.
enum Next {
    Queued,
    Flush,
    End,
}

/// Where `id` (a sub-slice of `frame`) is in `frame`.
fn place_of(frame: &[u8], id: &[u8]) -> (usize, usize) {
    let at = (id.as_ptr() as usize).wrapping_sub(frame.as_ptr() as usize);
    (at, id.len())
}

/// The id at `place` in `frame`, if there is one.
fn id_at(frame: &[u8], place: IdPlace) -> Option<Id<'_>> {
    let (at, len) = place?;
    let bytes = frame.get(at..at.checked_add(len)?)?;
    // Copied from a validated request's id: a string, a number or null.
    Id::from_raw(RawJson::trusted(bytes))
}

/// Copies `frame` into a free slot, or else to wait for one, or else holds it (and
/// reading stops). The held buffer is free whenever the reader takes a frame.
fn place<const N: usize, M: Memory<N> + ?Sized>(
    hub: &Hub<'_>,
    slots: &M,
    frame: &[u8],
    id: IdPlace,
) {
    let len = frame.len();
    if hub.waiting.get().is_none() {
        if let Some(i) = hub.free_slot() {
            fill(hub, slots, i, frame, id);
        } else if copy_into(slots.waiting(), frame) {
            hub.waiting.set(Some((len, id)));
        }
    } else if copy_into(slots.held(), frame) {
        hub.held.set(Held::Message(len, id));
    }
    hub.wake();
}

/// Copies `frame` into slot `i`, ready to run.
fn fill<const N: usize, M: Memory<N> + ?Sized>(
    hub: &Hub<'_>,
    slots: &M,
    i: usize,
    frame: &[u8],
    id: IdPlace,
) {
    let (Some(control), Some(buf)) = (hub.control.get(i), slots.frame(i)) else {
        return;
    };
    if copy_into(buf, frame) {
        control.id.set(id);
        control.cancelled.set(false);
        control.state.set(State::Ready(frame.len()));
    }
}

/// Copies `bytes` to the start of `buf`; `false` if they do not fit or it is borrowed.
fn copy_into(buf: &impl Buffer, bytes: &[u8]) -> bool {
    let Some(mut buf) = buf.write() else {
        return false;
    };
    match buf.get_mut(..bytes.len()) {
        Some(room) => {
            room.copy_from_slice(bytes);
            true
        }
        None => false,
    }
}

/// Moves what waits into slots (the waiting request first, then the held one), as
/// far as slots are free. `true` when nothing is held: the reader may read on.
// The usual case, nothing waiting, is asked where `settle` is called.
#[inline(always)]
fn settle<const N: usize, M: Memory<N> + ?Sized>(hub: &Hub<'_>, slots: &M) -> bool {
    let held = hub.held.get();
    if hub.waiting.get().is_none() && !matches!(held, Held::Message(..)) {
        return held == Held::Nothing;
    }
    settle_waiting(hub, slots)
}

/// `settle`, once something waits.
#[inline(never)]
fn settle_waiting<const N: usize, M: Memory<N> + ?Sized>(hub: &Hub<'_>, slots: &M) -> bool {
    if let (Some((len, id)), Some(i)) = (hub.waiting.get(), hub.free_slot()) {
        if let Some(waiting) = slots.waiting().read() {
            fill(hub, slots, i, waiting.get(..len).unwrap_or(&[]), id);
            drop(waiting);
            hub.waiting.set(None);
            hub.wake();
        }
    }
    if let Held::Message(len, id) = hub.held.get() {
        if hub.waiting.get().is_none() {
            if let Some(held) = slots.held().read() {
                let bytes = held.get(..len).unwrap_or(&[]);
                match hub.free_slot() {
                    Some(i) => fill(hub, slots, i, bytes, id),
                    None => {
                        if copy_into(slots.waiting(), bytes) {
                            hub.waiting.set(Some((len, id)));
                        }
                    }
                }
                drop(held);
                hub.held.set(Held::Nothing);
                hub.wake();
            }
        }
    }
    hub.held.get() == Held::Nothing
}

/// Hands a response with `id` to the handler that awaits it (held until it is read);
/// a response nobody awaits (late, after a deadline; unknown) is dropped.
fn route_response<const N: usize, M: Memory<N> + ?Sized>(
    hub: &Hub<'_>,
    slots: &M,
    frame: &[u8],
    id: Id<'_>,
) {
    let Some(id) = id
        .as_raw()
        .as_u64()
        .filter(|_| id.kind() == crate::IdKind::Number)
    else {
        return;
    };
    let slot = hub
        .control
        .iter()
        .position(|c| c.peer.get() == Peer::Waiting(id));
    if let Some(slot) = slot {
        if copy_into(slots.held(), frame) {
            hub.held.set(Held::Response(frame.len(), slot));
            hub.wake();
        }
    }
}

/// The state of a slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    /// Empty: the reader may copy a message in, or its worker take one.
    Free,
    /// A message of this length is in the frame buffer; its handlers have not started.
    Ready(usize),
    /// Its handlers run, or its worker writes their reply.
    Running,
}

/// A handler's request to the peer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Peer {
    Idle,
    /// Sent with this id; no response yet.
    Waiting(u64),
}

/// What the reader and the writer know of a slot (the buffers are beside it).
struct Control {
    state: Cell<State>,
    /// Where the request's id is in the frame buffer (a single request with an id).
    id: Cell<IdPlace>,
    cancelled: Cell<bool>,
    peer: Cell<Peer>,
}

impl Control {
    const fn new() -> Self {
        Self {
            state: Cell::new(State::Free),
            id: Cell::new(None),
            cancelled: Cell::new(false),
            peer: Cell::new(Peer::Idle),
        }
    }

    fn reset(&self) {
        self.state.set(State::Free);
        self.id.set(None);
        self.cancelled.set(false);
        self.peer.set(Peer::Idle);
    }
}

/// Where a request's id is in the buffer that holds the request: its offset and
/// length (none for a notification, a batch, or what is not a request).
type IdPlace = Option<(usize, usize)>;

/// What the reader holds in the `held` buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Held {
    Nothing,
    /// A message (of this length, id at this place) that found neither a slot nor
    /// room to wait: reading stops until it has one.
    Message(usize, IdPlace),
    /// A response (of this length) for the handler in this slot.
    Response(usize, usize),
}

/// What every part of the loop shares (but the buffers, whose sizes are the const
/// parameters).
struct Hub<'h> {
    control: &'h [Control],
    outbox: &'h dyn Queue,
    /// The held buffer, for a handler to read the response it awaited.
    held_buf: &'h dyn Buffer,
    held: Cell<Held>,
    /// The request waiting for a slot: its length and its id's place.
    waiting: Cell<Option<(usize, IdPlace)>>,
    /// The input has ended and every message read is in a slot.
    read_all: Cell<bool>,
    /// A read or a write failed: the loop ends.
    failed: Cell<bool>,
    /// Something was written and not flushed yet.
    unflushed: Cell<bool>,
    /// A part changed what another can act on during this poll.
    moved: Cell<bool>,
    /// The parts of the loop (the reader, the workers, the writer) that have ended.
    ended: Cell<usize>,
    /// The next request to the peer's id; `None`: the loop sends the peer none.
    next_peer_id: Cell<Option<u64>>,
    limits: &'h Limits,
}

impl Hub<'_> {
    /// A part's state changed: the loop's parts are polled again before the loop
    /// returns (see `serve`).
    fn wake(&self) {
        self.moved.set(true);
    }

    /// Runs the part of the loop that `make` makes, counts it ended, then never
    /// completes: the loop ends on the count (see `serve`), so no part's future is
    /// moved out to end it. The part is made here, at its first poll, not passed in:
    /// an `async fn` keeps an argument future and the future it awaits in two places,
    /// which would hold every slot's worker twice.
    async fn part<F: Future<Output = ()>>(&self, make: impl FnOnce() -> F) {
        make().await;
        self.ended.set(self.ended.get() + 1);
        self.wake();
        core::future::pending::<()>().await
    }

    /// Waits until `ready` gives a value, asking again each time the task is polled.
    async fn until<R>(&self, mut ready: impl FnMut() -> Option<R>) -> R {
        poll_fn(|cx| match ready() {
            Some(r) => Poll::Ready(r),
            None => {
                self.outbox.register(cx);
                Poll::Pending
            }
        })
        .await
    }

    fn free_slot(&self) -> Option<usize> {
        self.control
            .iter()
            .position(|c| c.state.get() == State::Free)
    }

    /// Every slot is free: nothing runs, nothing waits to be sent.
    fn idle(&self) -> bool {
        self.control.iter().all(|c| c.state.get() == State::Free)
    }
}

/// The per-call context of a [`ConcurrentServer`]'s handler: the application's
/// state, the call's cancellation, the outbox, and requests to the peer.
pub struct Call<'c, S> {
    state: &'c S,
    hub: &'c Hub<'c>,
    slot: usize,
}

impl<S> fmt::Debug for Call<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("slot", &self.slot)
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// Why a request to the peer ([`Call::request`]) has no response.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PeerError {
    /// The deadline came first.
    TimedOut,
    /// The input ended (the peer is gone) before the response came, or the loop has
    /// no way to ask its peer ([`ConcurrentServer::serve_from`] with `None`).
    Lost,
    /// The request does not fit in the outbox, even empty.
    TooLarge,
    /// This call has a request to the peer pending already (one at a time per call).
    Busy,
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::TimedOut => "the peer did not answer in time",
            Self::Lost => "the connection ended before the peer answered",
            Self::TooLarge => "the request does not fit in the outbox",
            Self::Busy => "a request to the peer is pending already",
        })
    }
}

impl core::error::Error for PeerError {}

impl<'c, S> Call<'c, S> {
    /// The application's state, shared by every call in flight (use `Cell`s, or a
    /// lock of your executor, for what handlers change).
    pub fn state(&self) -> &'c S {
        self.state
    }

    fn control(&self) -> Option<&'c Control> {
        self.hub.control.get(self.slot)
    }

    /// `true` once the peer cancelled this call (its future is dropped at its next
    /// poll: a handler that computes without awaiting checks this between steps).
    pub fn is_cancelled(&self) -> bool {
        self.control().is_some_and(|c| c.cancelled.get())
    }

    /// Resolves once the peer cancels this call (to `select` on, for a handler that
    /// must clean up before it returns).
    pub async fn cancelled(&self) {
        self.hub.until(|| self.is_cancelled().then_some(())).await;
    }

    /// Queues a notification for the peer, waiting while the outbox is full: it goes
    /// out as soon as the writer is free, before this call's reply. `params` as for
    /// [`Outbox::notify`](crate::outbox::Outbox::notify); it may be called more than
    /// once (each time the message did not fit). `Err(OutboxFull)`: it does not fit
    /// even in an empty outbox.
    pub async fn notify(
        &self,
        method: &str,
        mut params: impl FnMut(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        queue_message(self.hub.outbox, &mut |room| {
            client::write_notification(room, method, &mut params)
        })
        .await
    }

    /// Sends a request to the peer and waits for its response, or for `deadline`
    /// (a timer of your executor; `core::future::pending()` for none), whichever comes
    /// first. The response's outcome, a result or an error object, is handed to
    /// `read` (it borrows the reader's buffer: decode what you need there). Other
    /// calls are served, and the input read, meanwhile. One request at a time per
    /// call; its id is a number the service mints (counting up from 1, or from where
    /// [`ConcurrentServer::serve_from`] says).
    pub async fn request<R>(
        &self,
        method: &str,
        mut params: impl FnMut(&mut ResultWriter<'_>) -> Result<(), WriteError>,
        deadline: impl Future<Output = ()>,
        read: impl FnOnce(Outcome<'_>) -> R,
    ) -> Result<R, PeerError> {
        let hub = self.hub;
        let control = self.control().ok_or(PeerError::Lost)?;
        if control.peer.get() != Peer::Idle {
            return Err(PeerError::Busy);
        }
        let id = hub.next_peer_id.get().ok_or(PeerError::Lost)?;
        hub.next_peer_id.set(Some(id.wrapping_add(1)));
        let mut write = message_writer(|room| {
            client::write_request(room, RequestId::Number(id), method, &mut params)
        });
        let sent = queue_message(hub.outbox, &mut write);
        let sent = select(sent, hub.until(|| hub.read_all.get().then_some(()))).await;
        match sent {
            Either::First(Ok(())) => {}
            Either::First(Err(_)) => return Err(PeerError::TooLarge),
            Either::Second(()) => return Err(PeerError::Lost),
        }
        // Awaited from now on; the guard forgets it however this future ends.
        control.peer.set(Peer::Waiting(id));
        let _guard = PeerGuard {
            hub,
            slot: self.slot,
        };
        let mut deadline = pin!(deadline);
        let len = poll_fn(|cx| {
            if let Held::Response(len, slot) = hub.held.get() {
                if slot == self.slot {
                    return Poll::Ready(Ok(len));
                }
            }
            if hub.read_all.get() {
                return Poll::Ready(Err(PeerError::Lost));
            }
            if deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(PeerError::TimedOut));
            }
            hub.outbox.register(cx);
            Poll::Pending
        })
        .await?;
        let held = hub.held_buf.read().ok_or(PeerError::Lost)?;
        let bytes = held.get(..len).unwrap_or(&[]);
        match parse_response(bytes, hub.limits) {
            Ok(ResponseMessage::Single(Ok(response))) => Ok(read(response.outcome)),
            // The reader held it as a valid response: not reached.
            _ => Err(PeerError::Lost),
        }
    }
}

/// Forgets a call's request to the peer when the request future ends (answered,
/// timed out, or dropped with its handler), and frees the reader's held buffer if it
/// held that request's response.
struct PeerGuard<'h> {
    hub: &'h Hub<'h>,
    slot: usize,
}

impl Drop for PeerGuard<'_> {
    fn drop(&mut self) {
        if let Some(control) = self.hub.control.get(self.slot) {
            control.peer.set(Peer::Idle);
        }
        if let Held::Response(_, slot) = self.hub.held.get() {
            if slot == self.slot {
                self.hub.held.set(Held::Nothing);
                self.hub.wake();
            }
        }
    }
}
