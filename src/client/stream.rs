//! [`Connection`]: a [`Client`] over a framed byte stream (`std::io`, `embedded-io`
//! 0.6 and 0.7, blocking or async): each call sent framed, then the stream read and
//! its frames fed to the client until the call's handle resolves.

use core::fmt;
use core::ops::Add;

use super::call::{Call, ToParams};
use super::calls::{Batch, Client, Status};
use super::deadline::{Cancel, Clock};
use super::error::{CallError, SendError};
use super::handle::Handle;
use super::incoming::Incoming;
use super::write::write_notification;
use crate::frame::{frame_message, EndOfInput, FeedResult, Framer};
use crate::io::{AsyncStream, Stream};
use crate::raw::RawJson;

/// Why a call over a [`Connection`] gave no result: the call's own outcome, or the
/// stream's.
#[derive(Debug)]
pub enum ConnectionError<'a, R, W> {
    /// The call resolved without a result (the server's error, a timeout, the
    /// connection lost...).
    Call(CallError<'a>),
    /// The request was not written or registered.
    Send(SendError),
    /// Reading the stream failed.
    Read(R),
    /// Writing the stream failed.
    Write(W),
}

impl<R: fmt::Display, W: fmt::Display> fmt::Display for ConnectionError<'_, R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Call(e) => e.fmt(f),
            Self::Send(e) => e.fmt(f),
            Self::Read(e) => write!(f, "read: {e}"),
            Self::Write(e) => write!(f, "write: {e}"),
        }
    }
}

impl<R: fmt::Display + fmt::Debug, W: fmt::Display + fmt::Debug> core::error::Error
    for ConnectionError<'_, R, W>
{
}

impl<'a, R, W> From<CallError<'a>> for ConnectionError<'a, R, W> {
    fn from(e: CallError<'a>) -> Self {
        Self::Call(e)
    }
}

impl<R, W> From<SendError> for ConnectionError<'_, R, W> {
    fn from(e: SendError) -> Self {
        Self::Send(e)
    }
}

/// What a [`Connection`]'s loops return when the stream fails (the call itself
/// cannot have failed yet).
type IoResult<T, IO, V> = Result<
    T,
    ConnectionError<'static, <IO as Stream<V>>::ReadError, <IO as Stream<V>>::WriteError>,
>;

type AsyncIoResult<T, IO, V> = Result<
    T,
    ConnectionError<'static, <IO as AsyncStream<V>>::ReadError, <IO as AsyncStream<V>>::WriteError>,
>;

/// A [`Client`] over a framed stream: the framer (the crate's: newline,
/// `Content-Length`, COBS...) both frames what is sent and cuts what is read; `input`
/// is the buffer each read fills, `output` the one each request is written into;
/// `clock` tells the deadlines. The stream itself is given to each call (a
/// `std::io` or `embedded-io` object that reads and writes, or a
/// [`Split`](crate::io::Split) reader and writer), blocking (`call`, feature `serde`,
/// or [`call_raw`](Self::call_raw): send and wait; [`send`](Self::send),
/// [`send_batch`](Self::send_batch), [`notify`](Self::notify), [`wait`](Self::wait),
/// [`read_once`](Self::read_once))
/// or async (the `_async` twins). Where a stream type implements the traits of more
/// than one crate (`&[u8]` reads in `std` and both `embedded-io`s), name the
/// transport: `conn.call::<u64, jsonrpc_slice::io::std::Via, _>(...)`.
///
/// While it waits for one call, the replies to others are kept by the client, and
/// the server's notifications go to the callback set with
/// [`on_incoming`](Self::on_incoming) (otherwise they are dropped). Deadlines are
/// checked each time a read returns: give the stream a read timeout
/// (`TcpStream::set_read_timeout`, a UART's) so that one returns, as an error of kind
/// `TimedOut` or `WouldBlock`, which the loop takes as the clock's turn. When the
/// input ends, every call waiting resolves as [`CallError::ConnectionLost`].
/// Nothing is allocated.
///
/// ```
/// use jsonrpc_slice::client::Connection;
/// use jsonrpc_slice::frame::newline::LineAccumulator;
/// use jsonrpc_slice::io::Split;
///
/// let mut framer = LineAccumulator::<256>::new();
/// let (mut input, mut output) = ([0u8; 64], [0u8; 256]);
/// let mut conn: Connection<'_, _, _, 4, 256> =
///     Connection::new(&mut framer, &mut input, &mut output, || 0u64);
/// // A server that has answered already: its reply to call 1.
/// let server = br#"{"jsonrpc":"2.0","result":19,"id":1}
/// "#;
/// let mut sent = Vec::new();
/// let io = &mut Split(&server[..], &mut sent);
/// let answer = conn.call_raw(io, "subtract", jsonrpc_slice::RawJson::new(b"[42,23]").unwrap());
/// assert_eq!(answer.unwrap().as_i64(), Some(19));
/// assert_eq!(sent, b"{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[42,23],\"id\":1}\n");
/// ```
pub struct Connection<'b, F: Framer + ?Sized, C: Clock, const N: usize, const B: usize, G = ()> {
    client: Client<N, B, C::Instant, G>,
    framer: &'b mut F,
    input: &'b mut [u8],
    output: &'b mut [u8],
    clock: C,
    incoming: Option<&'b mut dyn FnMut(Incoming<'_>)>,
    /// The input ended: nothing more will be read.
    ended: bool,
}

impl<'b, F: Framer + ?Sized, C: Clock, const N: usize, const B: usize, G>
    Connection<'b, F, C, N, B, G>
{
    /// A connection with an empty [`Client`].
    pub fn new(framer: &'b mut F, input: &'b mut [u8], output: &'b mut [u8], clock: C) -> Self {
        Self {
            client: Client::new(),
            framer,
            input,
            output,
            clock,
            incoming: None,
            ended: false,
        }
    }

    /// Hands the server's notifications (and the other messages that answer no call:
    /// [`Incoming`]) to `f`, as they are read.
    pub fn on_incoming(mut self, f: &'b mut dyn FnMut(Incoming<'_>)) -> Self {
        self.incoming = Some(f);
        self
    }

    /// Sends `cancel` for each call that times out or is cancelled.
    pub fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.client = self.client.with_cancel(cancel);
        self
    }

    /// The client: its calls' handles are taken from it, its calls cancelled.
    pub fn client(&mut self) -> &mut Client<N, B, C::Instant, G> {
        &mut self.client
    }

    /// The present, by the connection's clock.
    pub fn now(&mut self) -> C::Instant {
        self.clock.now()
    }

    /// The instant `after` from now: a deadline (`conn.after(Duration::from_secs(2))`).
    pub fn after<D>(&mut self, after: D) -> C::Instant
    where
        C::Instant: Add<D, Output = C::Instant>,
    {
        self.clock.now() + after
    }

    /// `true` once the input has ended.
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Writes a request for `call`, registers it and sends it (framed, flushed).
    pub fn send<'c, T, V, IO: Stream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        call: impl Into<Call<'c, C::Instant, G>>,
        params: impl ToParams,
    ) -> IoResult<Handle<T>, IO, V> {
        let (handle, msg) = self.client.request(self.output, call, params)?;
        send_framed(self.framer, io, msg)?;
        io.flush().map_err(ConnectionError::Write)?;
        Ok(handle)
    }

    /// Sends a notification (no reply, nothing registered).
    pub fn notify<V, IO: Stream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        method: &str,
        params: impl ToParams,
    ) -> IoResult<(), IO, V> {
        let msg = write_notification(self.output, method, |p| params.write_params(p))
            .map_err(SendError::Write)?;
        send_framed(self.framer, io, msg)?;
        io.flush().map_err(ConnectionError::Write)
    }

    /// Writes a batch with `build` (which adds its calls and returns their handles),
    /// and sends it.
    pub fn send_batch<R, V, IO: Stream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        build: impl FnOnce(&mut Batch<'_, '_, N, B, C::Instant, G>) -> Result<R, SendError>,
    ) -> IoResult<R, IO, V> {
        let mut batch = self.client.batch(self.output);
        let handles = build(&mut batch)?;
        let msg = batch.finish()?;
        send_framed(self.framer, io, msg)?;
        io.flush().map_err(ConnectionError::Write)?;
        Ok(handles)
    }

    /// Reads until `handle`'s call resolves (a reply, its deadline, the end of the
    /// input); then take its outcome from [`client`](Self::client). Replies to other
    /// calls read meanwhile are kept.
    pub fn wait<T, V, IO: Stream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        handle: &Handle<T>,
    ) -> IoResult<(), IO, V>
    where
        C::Instant: Copy + Ord,
    {
        loop {
            // Settled first: what expires now has its cancellation sent before return.
            let settled = self.settled(handle);
            if self.cancellations(io)? {
                io.flush().map_err(ConnectionError::Write)?;
            }
            if settled {
                return Ok(());
            }
            match io.read(self.input) {
                Ok(0) => self.end(),
                Ok(n) => self.absorb(n),
                Err(e) if IO::timed_out(&e) => {
                    let now = self.clock.now();
                    self.client.expire(now);
                }
                Err(e) => return Err(ConnectionError::Read(e)),
            }
        }
    }

    /// Reads once and feeds what came (replies, the server's notifications to the
    /// [`on_incoming`](Self::on_incoming) callback), then sends the cancellations due:
    /// how a client that waits for no call in particular (a subscription's events)
    /// reads. `false` once the input has ended. A read that times out is the clock's
    /// turn, as in [`wait`](Self::wait).
    pub fn read_once<V, IO: Stream<V> + ?Sized>(&mut self, io: &mut IO) -> IoResult<bool, IO, V>
    where
        C::Instant: Copy + Ord,
    {
        if !self.ended {
            match io.read(self.input) {
                Ok(0) => self.end(),
                Ok(n) => self.absorb(n),
                Err(e) if IO::timed_out(&e) => {
                    let now = self.clock.now();
                    self.client.expire(now);
                }
                Err(e) => return Err(ConnectionError::Read(e)),
            }
        }
        if self.cancellations(io)? {
            io.flush().map_err(ConnectionError::Write)?;
        }
        Ok(!self.ended)
    }

    /// Sends a call and waits for it: its result as raw JSON, or why there is none.
    pub fn call_raw<'c, V, IO: Stream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        call: impl Into<Call<'c, C::Instant, G>>,
        params: impl ToParams,
    ) -> Result<RawJson<'_>, ConnectionError<'_, IO::ReadError, IO::WriteError>>
    where
        C::Instant: Copy + Ord,
    {
        let handle = self.send::<RawJson<'static>, V, IO>(io, call, params)?;
        self.wait(io, &handle)?;
        self.take_raw(&handle)
    }

    /// [`send`](Self::send) over an async stream.
    pub async fn send_async<'c, T, V, IO: AsyncStream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        call: impl Into<Call<'c, C::Instant, G>>,
        params: impl ToParams,
    ) -> AsyncIoResult<Handle<T>, IO, V> {
        let (handle, msg) = self.client.request(self.output, call, params)?;
        send_framed_async(self.framer, io, msg).await?;
        io.flush().await.map_err(ConnectionError::Write)?;
        Ok(handle)
    }

    /// [`notify`](Self::notify) over an async stream.
    pub async fn notify_async<V, IO: AsyncStream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        method: &str,
        params: impl ToParams,
    ) -> AsyncIoResult<(), IO, V> {
        let msg = write_notification(self.output, method, |p| params.write_params(p))
            .map_err(SendError::Write)?;
        send_framed_async(self.framer, io, msg).await?;
        io.flush().await.map_err(ConnectionError::Write)
    }

    /// [`send_batch`](Self::send_batch) over an async stream.
    pub async fn send_batch_async<R, V, IO: AsyncStream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        build: impl FnOnce(&mut Batch<'_, '_, N, B, C::Instant, G>) -> Result<R, SendError>,
    ) -> AsyncIoResult<R, IO, V> {
        let mut batch = self.client.batch(self.output);
        let handles = build(&mut batch)?;
        let msg = batch.finish()?;
        send_framed_async(self.framer, io, msg).await?;
        io.flush().await.map_err(ConnectionError::Write)?;
        Ok(handles)
    }

    /// [`wait`](Self::wait) over an async stream.
    pub async fn wait_async<T, V, IO: AsyncStream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        handle: &Handle<T>,
    ) -> AsyncIoResult<(), IO, V>
    where
        C::Instant: Copy + Ord,
    {
        loop {
            // As in `wait`: settled first.
            let settled = self.settled(handle);
            let mut sent = false;
            while let Some(msg) = self.client.next_cancellation(self.output) {
                // A cancellation that does not fit is not sent: it is a courtesy.
                if let Ok(msg) = msg {
                    send_framed_async(self.framer, io, msg).await?;
                    sent = true;
                }
            }
            if sent {
                io.flush().await.map_err(ConnectionError::Write)?;
            }
            if settled {
                return Ok(());
            }
            match io.read(self.input).await {
                Ok(0) => self.end(),
                Ok(n) => self.absorb(n),
                Err(e) if IO::timed_out(&e) => {
                    let now = self.clock.now();
                    self.client.expire(now);
                }
                Err(e) => return Err(ConnectionError::Read(e)),
            }
        }
    }

    /// [`read_once`](Self::read_once) over an async stream.
    pub async fn read_once_async<V, IO: AsyncStream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
    ) -> AsyncIoResult<bool, IO, V>
    where
        C::Instant: Copy + Ord,
    {
        if !self.ended {
            match io.read(self.input).await {
                Ok(0) => self.end(),
                Ok(n) => self.absorb(n),
                Err(e) if IO::timed_out(&e) => {
                    let now = self.clock.now();
                    self.client.expire(now);
                }
                Err(e) => return Err(ConnectionError::Read(e)),
            }
        }
        let mut sent = false;
        while let Some(msg) = self.client.next_cancellation(self.output) {
            // A cancellation that does not fit is not sent: it is a courtesy.
            if let Ok(msg) = msg {
                send_framed_async(self.framer, io, msg).await?;
                sent = true;
            }
        }
        if sent {
            io.flush().await.map_err(ConnectionError::Write)?;
        }
        Ok(!self.ended)
    }

    /// [`call_raw`](Self::call_raw) over an async stream.
    pub async fn call_raw_async<'c, V, IO: AsyncStream<V> + ?Sized>(
        &mut self,
        io: &mut IO,
        call: impl Into<Call<'c, C::Instant, G>>,
        params: impl ToParams,
    ) -> Result<RawJson<'_>, ConnectionError<'_, IO::ReadError, IO::WriteError>>
    where
        C::Instant: Copy + Ord,
    {
        let handle = self
            .send_async::<RawJson<'static>, V, IO>(io, call, params)
            .await?;
        self.wait_async(io, &handle).await?;
        self.take_raw(&handle)
    }

    fn take_raw<T, R, W>(
        &mut self,
        handle: &Handle<T>,
    ) -> Result<RawJson<'_>, ConnectionError<'_, R, W>> {
        match self.client.take_raw(handle) {
            Some(outcome) => Ok(outcome?),
            // `wait` returns once the call is resolved.
            None => Err(ConnectionError::Call(CallError::Stale)),
        }
    }

    /// Whether `handle` no longer waits: expires what is due, and resolves every
    /// call as lost once the input has ended.
    fn settled<T>(&mut self, handle: &Handle<T>) -> bool
    where
        C::Instant: Copy + Ord,
    {
        if self.client.status(handle) != Status::Waiting {
            return true;
        }
        if self.ended {
            self.client.connection_lost();
            return true;
        }
        let now = self.clock.now();
        self.client.expire(now) > 0 && self.client.status(handle) != Status::Waiting
    }

    /// Sends the cancellations due; `true` if any was written.
    fn cancellations<V, IO: Stream<V> + ?Sized>(&mut self, io: &mut IO) -> IoResult<bool, IO, V> {
        let mut sent = false;
        while let Some(msg) = self.client.next_cancellation(self.output) {
            // A cancellation that does not fit is not sent: it is a courtesy.
            if let Ok(msg) = msg {
                send_framed(self.framer, io, msg)?;
                sent = true;
            }
        }
        Ok(sent)
    }

    /// Feeds the first `n` bytes of the input buffer to the framer, and each frame to
    /// the client.
    fn absorb(&mut self, n: usize)
    where
        C::Instant: Copy + Ord,
    {
        let Self {
            client,
            framer,
            input,
            clock,
            incoming,
            ..
        } = self;
        let mut note = |i: Incoming<'_>| {
            if let Some(f) = incoming.as_mut() {
                f(i);
            }
        };
        let mut rest = input.get(..n).unwrap_or(&[]);
        loop {
            rest = match framer.feed(rest) {
                FeedResult::Consumed => return,
                FeedResult::Frame { frame, remaining } => {
                    client.receive(frame, clock.now(), &mut note);
                    remaining
                }
                FeedResult::Oversized { remaining } => {
                    note(Incoming::Oversized);
                    remaining
                }
                FeedResult::Malformed { remaining } => {
                    note(Incoming::Malformed);
                    remaining
                }
            };
        }
    }

    /// The input ended: a last frame it completes is fed, and every call waiting is
    /// lost.
    fn end(&mut self)
    where
        C::Instant: Copy + Ord,
    {
        let Self {
            client,
            framer,
            clock,
            incoming,
            ..
        } = self;
        let mut note = |i: Incoming<'_>| {
            if let Some(f) = incoming.as_mut() {
                f(i);
            }
        };
        match framer.finish() {
            EndOfInput::Frame(frame) => {
                client.receive(frame, clock.now(), &mut note);
            }
            EndOfInput::Oversized => note(Incoming::Oversized),
            EndOfInput::Truncated => note(Incoming::Malformed),
            EndOfInput::Nothing => {}
        }
        client.connection_lost();
        self.ended = true;
    }
}

fn send_framed<V, F: Framer + ?Sized, IO: Stream<V> + ?Sized>(
    framer: &F,
    io: &mut IO,
    msg: &[u8],
) -> IoResult<(), IO, V> {
    for piece in frame_message(framer, msg).pieces() {
        io.write_all(piece).map_err(ConnectionError::Write)?;
    }
    Ok(())
}

async fn send_framed_async<V, F: Framer + ?Sized, IO: AsyncStream<V> + ?Sized>(
    framer: &F,
    io: &mut IO,
    msg: &[u8],
) -> AsyncIoResult<(), IO, V> {
    for piece in frame_message(framer, msg).pieces() {
        io.write_all(piece).await.map_err(ConnectionError::Write)?;
    }
    Ok(())
}
