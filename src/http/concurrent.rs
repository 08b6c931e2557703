//! Async handlers over HTTP: one request's message through the concurrent service, a
//! batch's calls each in a slot of their own, so that they run at once and a slow
//! call does not hold up the others.
//!
//! A batch's elements are handed to the service one by one, each as a batch of one
//! (`[element]`): every rule of a call in a batch (its reply, its `-32600`, a
//! notification answered by nothing) stays the codec's, and each reply comes back as
//! `[reply]`, whose brackets are dropped as the replies are joined into the batch
//! reply (in the order the calls complete: JSON-RPC allows any). A single object is
//! handed on as it is (so a server whose `Limits::max_batch` is 0, which refuses every
//! batch, still answers it), and its reply told from the messages handlers send on
//! their own by its lack of a `method`. What no handler answers (a parse error, `[]`, a batch over
//! `Limits::max_batch`, a value that is not an object) is answered by the codec
//! directly. Messages a handler sends on its own (`Call::notify`) are kept as
//! server-sent events when a gate asked for the reply as events (`Buffers::events`,
//! at most the reply buffer's size of them; past it the rest are dropped), and
//! dropped otherwise: a JSON reply has no room for them.
//!
//! The service's futures are not `Send`: each such request is answered by a worker on
//! one of the server's service threads (`threads.rs`: a current-thread runtime each,
//! whose timers and I/O reach the handlers; workers made once, at start-up), its loop
//! awaited within the request's time limit. Its memory is the buffer pair's (slots
//! lent from it, taken at the pair's first such request and kept): the request
//! allocates nothing. Such a loop has no way to ask the client (`serve_from(None,
//! ..)`): a handler's request fails at once, and the client is sent nothing it could
//! not answer. A handler that spawns a task (`tokio::spawn`) spawns it on its service
//! thread's runtime.
//!
//! A request whose handlers may ask the client (a gate's `Verdict::peer`) runs in a
//! loop of its own kind (`Handlers::stream`) on tokio's blocking pool instead, driven
//! by `Handle::block_on`: a rare path, which keeps the pool's task (an allocation)
//! and its thread hand-offs. The request is its first frame, then
//! each response the client sends in another `POST` (routed to it by `peers.rs`);
//! every message it writes goes out at once as an event (`stream.rs`), and its input
//! ends once the reply is written. Its frames are as large as the body limit (a
//! response may be larger than the request), and its outbox is `PEER_OUTBOX` bytes
//! (a request to the client, an elicitation's schema, is larger than a notification).

use core::cell::Cell;
use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;
use std::boxed::Box;
use std::sync::Arc;
use std::time::Duration;
use std::vec::Vec;

use hyper::body::Bytes;
use tokio::sync::mpsc;

use crate::dispatch::{AsyncMethods, Failure, MethodTable, OutputTooSmall, Server};
use crate::envelope::{self, Envelope};
use crate::frame::{sse, EndOfInput, FeedResult, Framer};
use crate::id::Id;
use crate::outbox::{LentOutbox, SharedOutbox};
use crate::raw::RawJson;
use crate::service::concurrent::{Call, ConcurrentServer, LentSlots, Read, Write};
use crate::write::ResultWriter;

use super::peers::Mailbox;
use super::server::Buffers;
use super::stream::event;
use super::threads::{Jobs, Worker};

/// The outbox of a loop whose handlers may ask the client.
const PEER_OUTBOX: usize = 64 * 1024;

/// What a call whose handlers may ask the client is given (see `peers.rs`).
pub(super) struct Exchange {
    /// The id of its first request to the client.
    pub(super) first_id: u64,
    /// Where the client's responses come.
    pub(super) mailbox: Arc<Mailbox>,
    /// Where its events go, to the response body.
    pub(super) events: mpsc::Sender<Bytes>,
    /// The largest response the client may send (the body limit).
    pub(super) max_frame: usize,
}

/// A [`ConcurrentServer`] with `N` slots, as the HTTP server calls it.
pub(super) trait Handlers<S>: Send + Sync {
    /// Worker `number` of a service thread (`threads.rs`): answers each job it takes
    /// from `jobs` (the message in its pair's `body`, into its `reply`, within its
    /// limit; `None` past it), each with a state `state` makes, until `jobs` closes.
    /// Call it on the thread that runs it: its future is not `Send`.
    fn worker(
        self: Arc<Self>,
        state: Arc<dyn Fn() -> S + Send + Sync>,
        jobs: Arc<Jobs>,
        number: usize,
    ) -> Worker;

    /// Answers the request in `buffers.body` (a single request with an id), its
    /// handlers free to ask the client: every message sent as an event on
    /// `exchange.events` as it is made, the reply last; within `limit` (past it, an
    /// error reply with the request's id), or until the client stops reading. Blocks:
    /// call it off the runtime.
    fn stream(&self, state: &S, buffers: &mut Buffers, limit: Duration, exchange: &Exchange);
}

/// A [`ConcurrentServer`] with `N` slots.
pub(super) struct Slotted<T: 'static, const N: usize> {
    pub(super) server: &'static ConcurrentServer<T>,
    /// The limits and the error replies of what no handler answers.
    pub(super) base: Server<()>,
    pub(super) runtime: tokio::runtime::Handle,
}

impl<T: 'static, const N: usize> Slotted<T, N> {
    pub(super) fn new(server: &'static ConcurrentServer<T>) -> Self {
        Self {
            server,
            base: Server::new(MethodTable::new(&[], &[0])).with_limits(*server.limits()),
            runtime: tokio::runtime::Handle::current(),
        }
    }
}

impl<T: 'static, const N: usize> Slotted<T, N> {
    /// Answers the message in `buffers.body` into `buffers.reply`, within `limit`:
    /// the reply's length, `None` past the limit.
    async fn answer<S>(
        &self,
        state: &S,
        buffers: &mut Buffers,
        limit: Duration,
    ) -> Option<Result<usize, OutputTooSmall>>
    where
        T: for<'c> AsyncMethods<Call<'c, S>> + Sync,
    {
        let Buffers {
            body,
            reply,
            slots,
            spans,
            events,
            keep_events,
            ..
        } = buffers;
        spans.clear();
        let batch = match envelope::parse(body, self.server.limits()) {
            Ok(Envelope::Batch(_)) => true,
            Ok(Envelope::Single(_))
                if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') =>
            {
                false
            }
            // Nothing for a handler: the codec's answer.
            _ => return Some(self.base.handle(&mut (), body, reply).map(<[u8]>::len)),
        };
        if batch {
            let Ok(array) = RawJson::new(body) else {
                return Some(self.base.handle(&mut (), body, reply).map(<[u8]>::len));
            };
            let origin = body.as_ptr() as usize;
            for element in array.elements() {
                let at = element.as_bytes().as_ptr() as usize - origin;
                spans.push((at, at + element.as_bytes().len()));
            }
        } else {
            // No method (a response, or not a request at all): no handler's, and the
            // service would take a response for one to a request of its own, which
            // over HTTP it never sends. The codec's answer.
            if RawJson::new(body).map_or(true, |m| m.get("method").is_none()) {
                return Some(self.base.handle(&mut (), body, reply).map(<[u8]>::len));
            }
            spans.push((0, body.len()));
        }
        let frame = body.len();
        let need = LentSlots::<N>::bytes(frame, reply.len());
        if slots.len() < need {
            *slots = std::vec![0; need];
        }
        let memory = LentSlots::<N>::new(slots, frame, reply.len())?;
        let outbox = SharedOutbox::<1024>::new();
        let mut framer = Elements {
            body,
            spans,
            next: 0,
            restore: None,
            brackets: batch,
        };
        let count = framer.spans.len();
        let room = reply.len();
        let mut collect = Collect {
            out: reply,
            len: 0,
            kept: 0,
            start: 0,
            overflow: false,
            state: State::Length(0),
            single: !batch,
            events: keep_events.then_some(Events {
                out: events,
                room,
                start: 0,
                full: false,
            }),
        };
        let (mut chunk, mut tokens) = ([0u8; 64], Tokens(count));
        {
            // Pinned where it is made: the service's future holds its slots' futures, and
            // moved by value into the timeout it would be copied each time.
            // Over HTTP the client cannot be asked here: its answer would need a
            // stream this reply is not.
            let serve = pin!(self.server.serve_from(
                None,
                state,
                &mut framer,
                &memory,
                &outbox,
                &mut chunk,
                &mut tokens,
                &mut collect,
            ));
            tokio::time::timeout(limit, serve).await.ok()?.ok()?;
        }
        let (len, kept, overflow) = (collect.len, collect.kept, collect.overflow);
        Some(finish(&self.base, reply, len, kept, overflow, batch))
    }
}

impl<S: 'static, T, const N: usize> Handlers<S> for Slotted<T, N>
where
    T: for<'c> AsyncMethods<Call<'c, S>> + Sync + 'static,
{
    fn worker(
        self: Arc<Self>,
        state: Arc<dyn Fn() -> S + Send + Sync>,
        jobs: Arc<Jobs>,
        number: usize,
    ) -> Worker {
        Box::pin(async move {
            while let Some(mut job) = jobs.next(number).await {
                let (taken, limit, answered) = job.parts();
                if let Some(taken) = taken {
                    *answered = self.answer(&state(), taken.buffers(), limit).await;
                }
                // Dropped: the pair and the answer go back to the request's connection.
            }
        })
    }

    fn stream(&self, state: &S, buffers: &mut Buffers, limit: Duration, exchange: &Exchange) {
        let Buffers {
            body,
            reply,
            slots,
            outbox,
            ..
        } = buffers;
        // A response may be larger than the request: frames as large as a body may be.
        let frame = exchange.max_frame.max(body.len());
        let need = LentSlots::<N>::bytes(frame, reply.len());
        if slots.len() < need {
            *slots = std::vec![0; need];
        }
        if outbox.len() < PEER_OUTBOX {
            *outbox = std::vec![0; PEER_OUTBOX];
        }
        let Some(memory) = LentSlots::<N>::new(slots, frame, reply.len()) else {
            return;
        };
        let outbox = LentOutbox::new(outbox);
        let answered = Cell::new(false);
        let mailbox = &*exchange.mailbox;
        let mut framer = Exchanged {
            body,
            mailbox,
            response: None,
            started: false,
        };
        let mut reader = Asked {
            mailbox,
            answered: &answered,
            started: false,
        };
        let mut writer = Streamer {
            events: &exchange.events,
            answered: &answered,
        };
        let mut chunk = [0u8; 64];
        let timed_out = {
            // Pinned where it is made, as in `answer`.
            let serve = pin!(self.server.serve_from(
                Some(exchange.first_id),
                state,
                &mut framer,
                &memory,
                &outbox,
                &mut chunk,
                &mut reader,
                &mut writer,
            ));
            // The client stopped reading (it closed the connection): nothing more
            // reaches it.
            let gone = pin!(exchange.events.closed());
            let run = async {
                tokio::select! {
                    biased;
                    _ = serve => {}
                    () = gone => {}
                }
            };
            self.runtime
                .block_on(tokio::time::timeout(limit, run))
                .is_err()
        };
        if timed_out && !answered.get() {
            // The stream has begun (`200`): the time limit is told as the reply.
            let id = RawJson::new(body)
                .ok()
                .and_then(|m| m.get("id"))
                .and_then(Id::from_raw);
            let mut w = ResultWriter::new(reply);
            let written = w.error_reply(
                id.unwrap_or(Id::NULL),
                crate::error::code::INTERNAL_ERROR,
                crate::write::Message::plain("Internal error: the call did not finish in time"),
                None,
            );
            if written.is_ok() {
                let _ = exchange.events.try_send(event(w.into_written()));
            }
        }
    }
}

/// The framer of a loop whose handlers may ask the client: the request first (one
/// byte read for it), then, for each byte after, the response the mailbox holds.
/// Neither header nor trailer around a reply: the loop writes each message in one
/// `write_all`, which is then the message.
struct Exchanged<'b> {
    body: &'b [u8],
    mailbox: &'b Mailbox,
    /// The response being read (kept until the next frame).
    response: Option<Bytes>,
    started: bool,
}

impl Framer for Exchanged<'_> {
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        let Some((_, remaining)) = input.split_first() else {
            return FeedResult::Consumed;
        };
        if !self.started {
            self.started = true;
            return FeedResult::Frame {
                frame: self.body,
                remaining,
            };
        }
        self.response = self.mailbox.take();
        match &self.response {
            Some(response) => FeedResult::Frame {
                frame: response,
                remaining,
            },
            // The reader read a byte only for a response held: not reached.
            None => FeedResult::Consumed,
        }
    }

    fn finish(&mut self) -> EndOfInput<'_> {
        EndOfInput::Nothing
    }

    fn max_frame(&self) -> usize {
        usize::MAX
    }

    fn reply_header<'s>(&self, _: usize, _: &'s mut [u8; 40]) -> &'s [u8] {
        &[]
    }

    fn reply_trailer(&self) -> &'static [u8] {
        b""
    }
}

/// The reader of a loop whose handlers may ask the client: a byte for the request,
/// then one for each response the mailbox holds, until the reply is written (the
/// end).
struct Asked<'b> {
    mailbox: &'b Mailbox,
    answered: &'b Cell<bool>,
    started: bool,
}

impl Read for Asked<'_> {
    type Error = core::convert::Infallible;

    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let Some(first) = buf.first_mut() else {
            return Ok(0);
        };
        if !self.started {
            self.started = true;
            *first = b'.';
            return Ok(1);
        }
        loop {
            // `notify_one` keeps a permit: a response put in after the look below
            // wakes this wait at once.
            let mut arrived = pin!(self.mailbox.arrived.notified());
            let next = poll_fn(|cx| {
                // The loop polls its parts again once the reply is written.
                if self.answered.get() {
                    return Poll::Ready(Some(0));
                }
                if self.mailbox.holds() {
                    return Poll::Ready(Some(1));
                }
                arrived.as_mut().poll(cx).map(|()| None)
            })
            .await;
            if let Some(n) = next {
                *first = b'.';
                return Ok(n);
            }
        }
    }
}

/// The writer of a loop whose handlers may ask the client: each message (one
/// `write_all`, see `Exchanged`) an event, sent at once; the reply (a message with
/// no `method`) marks the call answered.
struct Streamer<'b> {
    events: &'b mpsc::Sender<Bytes>,
    answered: &'b Cell<bool>,
}

/// The client stopped reading.
#[derive(Debug)]
struct Gone;

impl Write for Streamer<'_> {
    type Error = Gone;

    async fn write_all(&mut self, message: &[u8]) -> Result<(), Self::Error> {
        if message.is_empty() {
            return Ok(());
        }
        let reply = !message.starts_with(SENT);
        self.events.send(event(message)).await.map_err(|_| Gone)?;
        if reply {
            self.answered.set(true);
        }
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// How every message a handler sends (a request, a notification) starts, and no
/// reply does: the crate writes a message's members in one order (`client.rs`), its
/// method first, a reply's result or error first.
const SENT: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\"";

/// The reply made of what was collected: the batch's `[...]` around the replies (none:
/// nothing to send), or the one reply; a batch whose replies did not fit is the
/// codec's `-32603` for a batch reply too large.
fn finish(
    base: &Server<()>,
    reply: &mut [u8],
    len: usize,
    kept: usize,
    overflow: bool,
    batch: bool,
) -> Result<usize, OutputTooSmall> {
    if overflow || (batch && kept > 0 && len + 2 > reply.len()) {
        let mut w = ResultWriter::new(reply);
        return match base.fail(&mut w, 0, Id::NULL, Failure::BatchTooLarge) {
            Ok(_) => Ok(w.into_written().len()),
            Err(_) => Err(OutputTooSmall),
        };
    }
    if !batch || kept == 0 {
        return Ok(len);
    }
    reply.copy_within(..len, 1);
    reply[0] = b'[';
    reply[len + 1] = b']';
    Ok(len + 2)
}

/// The framer of one request: each element of the body, in order, as a batch of one
/// (`[element]`), one for each byte read (the reader gives a byte per element). The
/// brackets are written over the bytes around the element (the array's own, a
/// separator or whitespace), which are put back before the next element.
struct Elements<'b> {
    body: &'b mut Vec<u8>,
    spans: &'b [(usize, usize)],
    next: usize,
    /// The bytes the last frame's brackets replaced, and where.
    restore: Option<[(usize, u8); 2]>,
    /// Each element is put between brackets (a batch's); else the one message is
    /// handed on as it is.
    brackets: bool,
}

impl Framer for Elements<'_> {
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        if let Some(restore) = self.restore.take() {
            for (at, byte) in restore {
                if let Some(b) = self.body.get_mut(at) {
                    *b = byte;
                }
            }
        }
        let (Some((_, remaining)), Some(&(start, end))) =
            (input.split_first(), self.spans.get(self.next))
        else {
            return FeedResult::Consumed;
        };
        self.next += 1;
        if !self.brackets {
            return FeedResult::Frame {
                frame: &self.body[start..end],
                remaining,
            };
        }
        let (open, close) = (start - 1, end);
        self.restore = Some([(open, self.body[open]), (close, self.body[close])]);
        self.body[open] = b'[';
        self.body[close] = b']';
        FeedResult::Frame {
            frame: &self.body[open..=close],
            remaining,
        }
    }

    fn finish(&mut self) -> EndOfInput<'_> {
        EndOfInput::Nothing
    }

    fn max_frame(&self) -> usize {
        self.body.len()
    }

    /// The reply's length and `:`, so that the writer knows where each ends.
    fn reply_header<'s>(&self, len: usize, scratch: &'s mut [u8; 40]) -> &'s [u8] {
        let mut digits = [0u8; 20];
        let mut n = len;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let count = digits.len() - i;
        scratch[..count].copy_from_slice(&digits[i..]);
        scratch[count] = b':';
        &scratch[..=count]
    }

    fn reply_trailer(&self) -> &'static [u8] {
        b""
    }
}

/// The reader of one request: a byte for each element, then the end.
struct Tokens(usize);

impl Read for Tokens {
    type Error = core::convert::Infallible;

    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let n = self.0.min(buf.len());
        buf[..n].fill(b'.');
        self.0 -= n;
        Ok(n)
    }
}

/// Where a frame's bytes are, for [`Collect`].
enum State {
    /// Reading the header's digits: the length so far.
    Length(usize),
    /// In a reply of `left` bytes more; `keep`: a reply to a call (`[...]`), not a
    /// message a handler sent on its own.
    Body {
        left: usize,
        keep: bool,
        first: bool,
    },
}

/// The writer of one request: the replies joined with `,`, each without its brackets.
struct Collect<'r> {
    out: &'r mut [u8],
    len: usize,
    /// Replies kept.
    kept: usize,
    /// Where the message being written starts (a single request's).
    start: usize,
    /// The replies did not fit in `out`.
    overflow: bool,
    state: State,
    /// Where the messages handlers send on their own go, if anywhere.
    events: Option<Events<'r>>,
    /// The request is one message, not a batch: every message is written to `out`,
    /// then dropped (or moved to `events`) at its end if it is not a response.
    single: bool,
}

/// The messages handlers sent on their own, as server-sent events of one line each
/// ([`sse::DATA`]: the codec's messages hold no line break).
struct Events<'r> {
    out: &'r mut Vec<u8>,
    /// The most bytes kept.
    room: usize,
    /// Where the event being written starts.
    start: usize,
    /// One did not fit: it and the rest are dropped.
    full: bool,
}

impl Events<'_> {
    fn push(&mut self, byte: u8, first: bool, last: bool) {
        if self.full {
            return;
        }
        if first {
            self.start = self.out.len();
            self.out.extend_from_slice(sse::DATA);
        }
        self.out.push(byte);
        if last {
            self.out.extend_from_slice(sse::EVENT_END);
        }
        if self.out.len() > self.room {
            self.out.truncate(self.start);
            self.full = true;
        }
    }
}

impl Collect<'_> {
    /// A message of a single request ended (at `start..len`): the reply stays; a
    /// message a handler sent on its own (it has a `method`) goes to `events`, or
    /// nowhere.
    fn end_single(&mut self) {
        let message = &self.out[self.start..self.len];
        // Every message here is the crate's own writing, whose members come in one
        // order: a request or notification starts with its method (`client.rs`), a
        // reply with its result or error. The prefix tells them apart without a scan.
        let sent = message.starts_with(SENT);
        if !sent {
            self.kept += 1;
            return;
        }
        if let Some(events) = &mut self.events {
            let last = message.len().saturating_sub(1);
            for (i, &byte) in message.iter().enumerate() {
                events.push(byte, i == 0, i == last);
            }
        }
        self.len = self.start;
    }

    /// [`push`](Self::push) for each of `bytes`.
    fn push_all(&mut self, bytes: &[u8]) {
        let room = self.out.len().saturating_sub(self.len);
        let n = bytes.len().min(room);
        if let (Some(to), Some(from)) = (self.out.get_mut(self.len..self.len + n), bytes.get(..n)) {
            to.copy_from_slice(from);
            self.len += n;
        }
        if n < bytes.len() {
            self.overflow = true;
        }
    }

    fn push(&mut self, byte: u8) {
        match self.out.get_mut(self.len) {
            Some(b) => {
                *b = byte;
                self.len += 1;
            }
            None => self.overflow = true,
        }
    }
}

impl Write for Collect<'_> {
    type Error = core::convert::Infallible;

    async fn write_all(&mut self, mut bytes: &[u8]) -> Result<(), Self::Error> {
        while let Some((&byte, rest)) = bytes.split_first() {
            // Inside a message that is kept (a single request's, a call's reply past
            // its first byte): the run of it this write holds is copied at once,
            // rather than a byte at a time through the states below. What it does
            // is what they would do, byte by byte.
            if let State::Body {
                left,
                keep,
                first: false,
            } = self.state
            {
                if self.single || keep {
                    let run = left.min(bytes.len());
                    let ends = run == left;
                    // A call's reply without its closing bracket (its last byte).
                    let copied = match (self.single, ends) {
                        (false, true) => run.saturating_sub(1),
                        _ => run,
                    };
                    self.push_all(&bytes[..copied]);
                    if ends && self.single && !self.overflow {
                        self.end_single();
                    }
                    self.state = match ends {
                        true => State::Length(0),
                        false => State::Body {
                            left: left - run,
                            keep,
                            first: false,
                        },
                    };
                    bytes = &bytes[run..];
                    continue;
                }
            }
            bytes = rest;
            self.state = match self.state {
                State::Length(0) if byte == b':' => State::Length(0),
                State::Length(n) if byte == b':' => State::Body {
                    left: n,
                    keep: false,
                    first: true,
                },
                State::Length(n) => State::Length(
                    n.saturating_mul(10)
                        .saturating_add(usize::from(byte.wrapping_sub(b'0'))),
                ),
                State::Body { left, first, .. } if self.single => {
                    if first {
                        self.start = self.len;
                    }
                    self.push(byte);
                    if left == 1 && !self.overflow {
                        self.end_single();
                    }
                    match left - 1 {
                        0 => State::Length(0),
                        left => State::Body {
                            left,
                            keep: false,
                            first: false,
                        },
                    }
                }
                State::Body { left, keep, first } => {
                    let keep = if first { byte == b'[' } else { keep };
                    if keep && first && self.kept > 0 {
                        self.push(b',');
                    }
                    if keep && first {
                        self.kept += 1;
                    }
                    // The reply's own brackets are dropped.
                    if keep && !first && left > 1 {
                        self.push(byte);
                    }
                    if let (false, Some(events)) = (keep, &mut self.events) {
                        events.push(byte, first, left == 1);
                    }
                    match left - 1 {
                        0 => State::Length(0),
                        left => State::Body {
                            left,
                            keep,
                            first: false,
                        },
                    }
                }
            };
        }
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `Collect` makes of `stream` written in pieces of `piece` bytes: the reply
    /// (its length, the bytes), whether it overflowed, the events kept.
    fn collect(stream: &[u8], piece: usize, single: bool, room: usize) -> (Vec<u8>, bool, Vec<u8>) {
        let mut out = std::vec![0u8; room];
        let mut events = Vec::new();
        let mut collect = Collect {
            out: &mut out,
            len: 0,
            kept: 0,
            start: 0,
            overflow: false,
            state: State::Length(0),
            single,
            events: Some(Events {
                out: &mut events,
                room,
                start: 0,
                full: false,
            }),
        };
        // `Waker::noop` is newer than the MSRV.
        struct Noop;
        impl std::task::Wake for Noop {
            fn wake(self: Arc<Self>) {}
        }
        let waker = std::task::Waker::from(Arc::new(Noop));
        for chunk in stream.chunks(piece) {
            let mut write = pin!(collect.write_all(chunk));
            let polled = write
                .as_mut()
                .poll(&mut core::task::Context::from_waker(&waker));
            assert!(polled.is_ready());
        }
        let (len, overflow) = (collect.len, collect.overflow);
        out.truncate(len);
        (out, overflow, events)
    }

    #[test]
    fn a_reply_is_collected_the_same_whatever_the_pieces_it_is_written_in() {
        let sent = br#"{"jsonrpc":"2.0","method":"note","params":{}}"#;
        let one = br#"[{"jsonrpc":"2.0","result":1,"id":1}]"#;
        let two = br#"[{"jsonrpc":"2.0","result":"two","id":2}]"#;
        let mut batch = Vec::new();
        for message in [&one[..], &sent[..], &two[..]] {
            batch.extend_from_slice(std::format!("{}:", message.len()).as_bytes());
            batch.extend_from_slice(message);
        }
        let single_reply = br#"{"jsonrpc":"2.0","result":1,"id":1}"#;
        let mut single = Vec::new();
        for message in [&sent[..], &single_reply[..]] {
            single.extend_from_slice(std::format!("{}:", message.len()).as_bytes());
            single.extend_from_slice(message);
        }
        for (stream, is_single) in [(&batch, false), (&single, true)] {
            // Room for all, and for less than all (the overflow).
            for room in [1024, 40, 20] {
                let whole = collect(stream, stream.len(), is_single, room);
                for piece in 1..stream.len() {
                    assert_eq!(
                        collect(stream, piece, is_single, room),
                        whole,
                        "pieces of {piece}, room {room}"
                    );
                }
            }
        }
        let (reply, overflow, events) = collect(&batch, batch.len(), false, 1024);
        assert_eq!(
            (&reply[..], overflow),
            (
                &br#"{"jsonrpc":"2.0","result":1,"id":1},{"jsonrpc":"2.0","result":"two","id":2}"#
                    [..],
                false
            )
        );
        assert_eq!(events, [&b"data: "[..], sent, b"\n\n"].concat());
        let (reply, _, events) = collect(&single, single.len(), true, 1024);
        assert_eq!(reply, single_reply);
        assert_eq!(events, [&b"data: "[..], sent, b"\n\n"].concat());
    }
}
