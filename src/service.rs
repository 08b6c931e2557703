//! Service: the serve loop without its I/O. It turns bytes read from a stream into the
//! bytes to write back — replies, and the messages the server sends on its own — so
//! that each transport (in [`io`](crate::io), or a loop of yours)
//! is only a read and a write around it.
//!
//! A [`Service`] takes one message at a time: a handler runs to its end before the
//! next message is read. Its server is a [`Server`] (blocking handlers: the loop is
//! [`next`](Service::next), or [`next_async`](Service::next_async) in an async loop) or an
//! [`AsyncServer`] (async handlers, each awaited: [`next_async`](Service::next_async)). Where
//! calls must be answered while a handler waits, or cancelled, use the concurrent
//! service (`service::concurrent`, feature `concurrent`): several in flight, no
//! allocation.
//!
//! A [`Service`] holds the server, a framer and two buffers (the chunk a read
//! fills, the output a reply is written into), and optionally:
//!
//! - an outbox ([`with_outbox`](Service::with_outbox)): where in the handlers' context
//!   the [`Outbox`](crate::outbox::Outbox) is. What a handler queued there is sent
//!   before its own reply, in order; what the application queued between requests is
//!   sent at the next turn of the loop.
//! - a response hook ([`with_responses`](Service::with_responses)): responses from the
//!   peer (to requests the server sent) go to it instead of being answered as invalid
//!   requests; match them with a [`Pending`](crate::client::Pending) table.
//! - a stop condition ([`until`](Service::until)): checked after each message; once
//!   it holds, what is queued is sent and the loop ends (an LSP server after `exit`).
//!
//! The loop, for any transport:
//!
//! ```
//! use jsonrpc_slice::frame::newline::LineAccumulator;
//! use jsonrpc_slice::service::Service;
//! use jsonrpc_slice::{demo, Server};
//!
//! static SERVER: Server<()> = Server::new(demo::TABLE);
//! let mut framer = LineAccumulator::<1024>::new();
//! let (mut chunk, mut output) = ([0u8; 256], [0u8; 1024]);
//! let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut output);
//!
//! let mut input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1,2],\"id\":1}\n";
//! let mut wire = Vec::new();
//! loop {
//!     // Write everything there is to send...
//!     while let Some(reply) = service.next(&mut ()) {
//!         reply.pieces().for_each(|p| wire.extend_from_slice(p));
//!     }
//!     if service.is_done() {
//!         break;
//!     }
//!     // ...then read (here: from a slice; 0 bytes is the end of the input).
//!     let buf = service.input_buffer();
//!     let n = input.len().min(buf.len());
//!     buf[..n].copy_from_slice(&input[..n]);
//!     input = &input[n..];
//!     match n {
//!         0 => service.end_of_input(),
//!         n => service.received(n),
//!     }
//! }
//! assert_eq!(wire, b"{\"jsonrpc\":\"2.0\",\"result\":3,\"id\":1}\n");
//! ```

use core::fmt;

#[cfg(feature = "concurrent")]
#[cfg_attr(docsrs, doc(cfg(feature = "concurrent")))]
pub mod concurrent;

use crate::dispatch::{AsyncMethods, AsyncServer, Server};
use crate::envelope::{parse_response, Response, ResponseMessage};
use crate::frame::{end_event, framed, next_event, Event, FramedReply, Framer};
use crate::limits::Limits;
use crate::outbox::Outgoing;

/// Where the outbox is in the handlers' context.
pub type OutboxOf<C> = fn(&mut C) -> &mut dyn Outgoing;

/// What to do with a response from the peer.
pub type ResponseHook<C> = fn(&mut C, Response<'_>);

/// The serve loop's state and logic, without the I/O: see the [module](self) docs.
///
/// `S`, the server, is a [`Server<C>`] (the default) or an [`AsyncServer<C, T>`].
pub struct Service<'b, C: 'static, F: Framer + ?Sized, S = Server<C>> {
    server: &'b S,
    framer: &'b mut F,
    input: Input<'b>,
    output: &'b mut [u8],
    outbox: Option<OutboxOf<C>>,
    responses: Option<ResponseHook<C>>,
    stop: Option<fn(&C) -> bool>,
    /// The stop condition held.
    stopped: bool,
    /// Bytes of the outbox's queue sent so far.
    sent: usize,
    /// The length of a reply waiting in `output` behind the outbox's messages.
    reply: usize,
}

/// What was read and not yet fed, and the end of the input.
struct Input<'b> {
    /// The input read and not yet fed: `chunk[start..end]`.
    chunk: &'b mut [u8],
    start: usize,
    end: usize,
    /// The input has ended; `finished`: the framer was told, and what it held answered.
    ended: bool,
    finished: bool,
}

impl Input<'_> {
    /// There is something to feed: bytes read, or the end of the input not yet told.
    /// (The concurrent loop asks; the one-at-a-time loops feed until `None`.)
    #[cfg(feature = "concurrent")]
    fn has_more(&self) -> bool {
        self.start < self.end || (self.ended && !self.finished)
    }

    /// Feeds `framer` up to its next event (answering into `output` what is not a
    /// frame); once the input has ended and all of it was fed, tells the framer, once.
    /// `None`: nothing more until the next read (or ever, after the end).
    fn next_event<'f, F: Framer + ?Sized>(
        &mut self,
        framer: &'f mut F,
        output: &mut [u8],
    ) -> Option<Event<'f>> {
        let mut unfed = self.chunk.get(self.start..self.end).unwrap_or(&[]);
        let before = unfed.len();
        if before == 0 && self.ended && !self.finished {
            self.finished = true;
            return end_event(framer, output);
        }
        let event = next_event(framer, &mut unfed, output);
        self.start += before - unfed.len();
        event
    }
}

impl<C, F: Framer + ?Sized, S> fmt::Debug for Service<'_, C, F, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Service")
            .field("unfed", &(self.input.end - self.input.start))
            .field("ended", &self.input.ended)
            .field("stopped", &self.stopped)
            .finish()
    }
}

/// What `next` sends.
enum Send {
    /// `len` bytes of the outbox's queue from `at`.
    Queued { at: usize, len: usize },
    /// The reply in `output`.
    Reply(usize),
}

impl<'b, C, F: Framer + ?Sized, S: Answers<C>> Service<'b, C, F, S> {
    /// A service answering with `server` (a [`Server`] or an [`AsyncServer`]) the
    /// frames `framer` cuts from what is read into `chunk`, each reply written into
    /// `output` (its size is the largest reply).
    pub fn new(
        server: &'b S,
        framer: &'b mut F,
        chunk: &'b mut [u8],
        output: &'b mut [u8],
    ) -> Self {
        Self {
            server,
            framer,
            input: Input {
                chunk,
                start: 0,
                end: 0,
                ended: false,
                finished: false,
            },
            output,
            outbox: None,
            responses: None,
            stop: None,
            stopped: false,
            sent: 0,
            reply: 0,
        }
    }

    /// Sends what the handlers (and the application) queue in the outbox `outbox`
    /// finds in the context: `|ctx| &mut ctx.outbox`.
    pub fn with_outbox(mut self, outbox: OutboxOf<C>) -> Self {
        self.outbox = Some(outbox);
        self
    }

    /// Hands every response the peer sends (a single one, or a batch made only of
    /// responses) to `hook` instead of answering it as an invalid request.
    pub fn with_responses(mut self, hook: ResponseHook<C>) -> Self {
        self.responses = Some(hook);
        self
    }

    /// Ends the loop once `stop` holds (checked after each message): what is queued
    /// and the reply to that message are still sent, then [`next`](Self::next) gives
    /// nothing more and [`is_done`](Self::is_done) is `true`.
    pub fn until(mut self, stop: fn(&C) -> bool) -> Self {
        self.stop = Some(stop);
        self
    }

    /// Where the next read goes: the whole chunk buffer once everything read before
    /// was taken (that is, once [`next`](Self::next) gave `None`), else nothing.
    pub fn input_buffer(&mut self) -> &mut [u8] {
        if self.input.start < self.input.end {
            return &mut [];
        }
        self.input.chunk
    }

    /// `n` bytes were read into [`input_buffer`](Self::input_buffer).
    pub fn received(&mut self, n: usize) {
        self.input.start = 0;
        self.input.end = n.min(self.input.chunk.len());
    }

    /// The input has ended (a read of 0 bytes): what the framer still holds is
    /// answered next (a last line without its newline is served; a message cut short
    /// is answered `-32700`).
    pub fn end_of_input(&mut self) {
        self.input.ended = true;
    }

    /// `true` once the input ended or the stop condition held, and everything was
    /// sent: the loop is over.
    pub fn is_done(&self) -> bool {
        self.stopped || (self.input.ended && self.input.finished)
    }

    /// The next thing to send, as [`next`](Service::next) gives it, each handler
    /// awaited: the loop of an async transport, for either kind of server.
    pub async fn next_async<'a>(&'a mut self, ctx: &'a mut C) -> Option<FramedReply<'a>> {
        S::next_send(self, ctx).await
    }

    /// The bytes of `send`, framed.
    fn framed<'a>(&'a self, ctx: &'a mut C, send: Send) -> FramedReply<'a> {
        match send {
            Send::Queued { at, len } => {
                let queued = self.outbox.map_or(&[][..], |outbox| outbox(ctx).queued());
                let message = queued.get(at..at + len).unwrap_or(&[]);
                framed(&*self.framer, message, len)
            }
            Send::Reply(len) => framed(&*self.framer, self.output, len),
        }
    }

    /// What is waiting to be sent before the next frame is read: the outbox's next
    /// message, then the reply of the frame handled last.
    fn pending(&mut self, ctx: &mut C) -> Option<Send> {
        if let Some(outbox) = self.outbox {
            let outbox = outbox(ctx);
            let rest = outbox.queued().get(self.sent..).unwrap_or(&[]);
            if !rest.is_empty() {
                let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                let at = self.sent;
                self.sent += len + 1;
                return Some(Send::Queued { at, len });
            }
            if self.sent > 0 {
                outbox.clear();
                self.sent = 0;
            }
        }
        if self.reply > 0 {
            return Some(Send::Reply(core::mem::take(&mut self.reply)));
        }
        None
    }

    /// A frame was handled, its reply `reply` bytes long (0: none): it is sent after
    /// what the handler queued; and the stop condition is checked.
    fn after_frame(&mut self, ctx: &mut C, reply: usize) {
        self.reply = reply;
        if self.stop.is_some_and(|stop| stop(ctx)) {
            self.stopped = true;
        }
    }
}

impl<C, F: Framer + ?Sized> Service<'_, C, F> {
    /// The next thing to send: a message from the outbox, or a reply; `None` when
    /// there is nothing more until the next read. Handlers run here, as their frames
    /// are reached.
    pub fn next<'a>(&'a mut self, ctx: &'a mut C) -> Option<FramedReply<'a>> {
        let send = self.step(ctx)?;
        Some(self.framed(ctx, send))
    }

    /// Decides what `next` sends (borrowing nothing past its return).
    fn step(&mut self, ctx: &mut C) -> Option<Send> {
        loop {
            if let Some(send) = self.pending(ctx) {
                return Some(send);
            }
            if self.stopped {
                return None;
            }
            let (server, responses) = (self.server, self.responses);
            let event = self.input.next_event(self.framer, self.output)?;
            let reply = match event {
                Event::Frame(frame) if routed(ctx, responses, frame, server.limits()) => 0,
                Event::Frame(frame) => server
                    .handle(ctx, frame, self.output)
                    .map_or(0, <[u8]>::len),
                Event::Answered(len) => len,
            };
            self.after_frame(ctx, reply);
        }
    }
}

impl<C, F: Framer + ?Sized, T: AsyncMethods<C>> Service<'_, C, F, AsyncServer<C, T>> {
    /// The twin of `step`, with the frame's handlers awaited.
    async fn step_async(&mut self, ctx: &mut C) -> Option<Send> {
        loop {
            if let Some(send) = self.pending(ctx) {
                return Some(send);
            }
            if self.stopped {
                return None;
            }
            let (server, responses) = (self.server, self.responses);
            let event = self.input.next_event(self.framer, self.output)?;
            let reply = match event {
                Event::Frame(frame) if routed(ctx, responses, frame, server.limits()) => 0,
                Event::Frame(frame) => {
                    let reply = server.handle(ctx, frame, self.output).await;
                    reply.map_or(0, <[u8]>::len)
                }
                Event::Answered(len) => len,
            };
            self.after_frame(ctx, reply);
        }
    }
}

/// `true` if `frame` went to the response hook (see [`route_responses`]).
fn routed<C>(ctx: &mut C, hook: Option<ResponseHook<C>>, frame: &[u8], limits: &Limits) -> bool {
    hook.is_some_and(|hook| route_responses(ctx, hook, frame, limits))
}

/// Hands `frame` to `hook` if it is a response, or a batch made only of responses;
/// `false` (and nothing handed) otherwise.
fn route_responses<C>(ctx: &mut C, hook: ResponseHook<C>, frame: &[u8], limits: &Limits) -> bool {
    match parse_response(frame, limits) {
        Ok(ResponseMessage::Single(Ok(response))) => {
            hook(ctx, response);
            true
        }
        Ok(ResponseMessage::Batch(batch)) if batch.clone().all(|r| r.is_ok()) => {
            for response in batch.flatten() {
                hook(ctx, response);
            }
            true
        }
        _ => false,
    }
}

/// A read or a write failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ServeError<R, W> {
    /// Reading failed.
    Read(R),
    /// Writing failed.
    Write(W),
}

impl<R: fmt::Display, W: fmt::Display> fmt::Display for ServeError<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read(e) => write!(f, "read failed: {e}"),
            Self::Write(e) => write!(f, "write failed: {e}"),
        }
    }
}

/// What a [`Service`] answers with: a [`Server`] (its handlers called) or an
/// [`AsyncServer`] (its handlers awaited). Not implemented outside this crate.
#[doc(hidden)]
#[allow(async_fn_in_trait)]
pub trait Answers<C: 'static>: Sized + sealed::Sealed {
    /// [`Service::next_async`]: a `Server`'s is its `next` (one copy of the loop's
    /// step, whichever loop drives it); an `AsyncServer`'s awaits each handler.
    async fn next_send<'a, F: Framer + ?Sized>(
        service: &'a mut Service<'_, C, F, Self>,
        ctx: &'a mut C,
    ) -> Option<FramedReply<'a>>;
}

mod sealed {
    pub trait Sealed {}
    impl<C> Sealed for super::Server<C> {}
    impl<C, T> Sealed for super::AsyncServer<C, T> {}
}

impl<C> Answers<C> for Server<C> {
    async fn next_send<'a, F: Framer + ?Sized>(
        service: &'a mut Service<'_, C, F, Self>,
        ctx: &'a mut C,
    ) -> Option<FramedReply<'a>> {
        service.next(ctx)
    }
}

impl<C, T: AsyncMethods<C>> Answers<C> for AsyncServer<C, T> {
    async fn next_send<'a, F: Framer + ?Sized>(
        service: &'a mut Service<'_, C, F, Self>,
        ctx: &'a mut C,
    ) -> Option<FramedReply<'a>> {
        let send = service.step_async(ctx).await?;
        Some(service.framed(ctx, send))
    }
}
