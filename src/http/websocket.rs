//! JSON-RPC over WebSocket on the HTTP server's listener (feature `websocket`, on
//! tokio-tungstenite): [`WebSocket`], given to [`HttpServer::with_websocket`](super::HttpServer::with_websocket).
//!
//! A `GET` with `Upgrade: websocket` (and `Connection: upgrade`,
//! `Sec-WebSocket-Version: 13`, a `Sec-WebSocket-Key`) on the HTTP server's address
//! becomes a WebSocket (`101`); a malformed upgrade is `400`. Then:
//!
//! - **messages**: each text message is one JSON-RPC message or batch, answered by
//!   one text message (none for a notification). Replies go out in the order their
//!   handlers complete: the connection's calls run through the concurrent service
//!   ([`ConcurrentServer`]), [`IN_FLIGHT`] at once, so a slow call does not hold up
//!   the others.
//! - **binary messages**: one whose bytes are UTF-8 is read as the text of one
//!   JSON-RPC message or batch (web3.py sends its requests as binary messages, and
//!   geth takes them so); one that is not UTF-8 is refused: the connection is closed
//!   with `1007 Invalid Payload` (JSON-RPC is text). Replies are always text.
//! - **size**: a message over [`Settings::max_message`] (1 MiB) closes the connection
//!   with `1009 Message Too Big` (the crate stops reading it there).
//! - **ping/pong**: a ping is answered with a pong; the server pings every
//!   [`Settings::ping_interval`] (30 s), and a peer that has sent nothing, not even
//!   the pong, by the next ping is closed (`1001`).
//! - **pushes**: notifications of the handlers ([`Call::notify`]) and of
//!   [`Subscribers::notify`] go through the connection's send queue, bounded:
//!   [`Settings::send_queue`] bytes (256 KiB) for what the application pushes, as
//!   much for the concurrent service's outbox, plus the crate's write buffer. A peer
//!   that does not read is **disconnected with `1013 Try Again Later`**
//!   ([`CLOSE_NOT_READING`]): when a push finds the queue
//!   full, or when a write has waited [`Settings::send_timeout`] (10 s). Nothing is
//!   buffered past those bounds.
//! - **connections**: a WebSocket holds its HTTP connection, so the HTTP server's
//!   [`max_connections`](super::Settings::max_connections) counts both; an open
//!   WebSocket is never closed to make room for a new client (it is not idle in
//!   the HTTP sense). At shutdown each is closed with `1001 Going Away`.
//!
//! The concurrent service's loop is polled from one task and is not `Send`: the
//! sessions run on [`Settings::threads`] threads of their own, each a current-thread
//! tokio runtime. Memory per connection, taken at its first message (a connection
//! that has sent nothing holds its tasks, about 4 KiB; from its first byte or the
//! first ping, the crate's state and [`Settings::read_buffer`] too):
//! `(IN_FLIGHT + 2) × max_message + IN_FLIGHT × max_reply` for the slots (allocated
//! zeroed: pages are touched only as far as messages reach, where the allocator
//! maps them afresh), the outbox and a read chunk; the application's send queue at
//! the first notification.

use std::boxed::Box;
use std::future::Future;
use std::io;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use std::vec;
use std::vec::Vec;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::task::AtomicWaker;
use futures_util::{SinkExt, StreamExt};
use hyper::header::{HeaderMap, HeaderValue, CONNECTION, UPGRADE};
use hyper::upgrade::OnUpgrade;
use hyper::Method;
use tokio::io::AsyncReadExt;
use tokio::sync::{mpsc, oneshot, Mutex};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Bytes, Error as WsError, Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

/// The client's side: [`RemoteClient`](super::RemoteClient) over a WebSocket.
pub(crate) mod client;

use super::pubsub::{Member, Session, Stop, Subscribers, CLOSE_NOT_READING};
use crate::frame::{EndOfInput, FeedResult, Framer};
use crate::outbox::{queue_message, AsQueue, LentOutbox};
use crate::service::concurrent::{Call, ConcurrentServer, LentSlots, Read, Write};
use crate::AsyncMethods;

/// How many calls of one connection run at once (the concurrent service's slots).
pub const IN_FLIGHT: usize = 4;

/// A WebSocket connection's bounds. [`Settings::default`] is the production default
/// of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The largest message, in bytes (a text message, after reassembly of its
    /// fragments); a larger one closes the connection with `1009`. Default 1 MiB.
    pub max_message: usize,
    /// A reply's buffer, in bytes: a reply that does not fit is the codec's
    /// `-32603`. Default 1 MiB + 64 KiB.
    pub max_reply: usize,
    /// The send queue of what the application pushes ([`Subscribers::notify`]), in
    /// bytes; the concurrent service's outbox is as large. A push that finds it full
    /// closes the connection with `1013`. Default 256 KiB.
    pub send_queue: usize,
    /// The longest a write to the peer may wait (its socket full: it does not read);
    /// past it the connection is closed with `1013`. Default 10 s.
    pub send_timeout: Duration,
    /// How often the server pings; a peer silent for a whole interval is closed.
    /// Default 30 s.
    pub ping_interval: Duration,
    /// The crate's read buffer, in bytes: what one read of the socket takes at most
    /// (the crate zeroes it at each read). Taken at the peer's first byte (or its
    /// first ping), and held by each open connection from then on. Default 4 KiB.
    pub read_buffer: usize,
    /// The threads the sessions run on (0: as many as the machine has cores).
    /// Default 0.
    pub threads: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_message: 1024 * 1024,
            max_reply: 1024 * 1024 + 64 * 1024,
            send_queue: 256 * 1024,
            send_timeout: Duration::from_secs(10),
            ping_interval: Duration::from_secs(30),
            read_buffer: 4 * 1024,
            threads: 0,
        }
    }
}

/// WebSocket on an [`HttpServer`](super::HttpServer)'s address: a
/// [`ConcurrentServer`] whose handlers see a [`Session`] (the application's value
/// `A` and the connection's subscriptions, kinds `K`, at most `N`), and the
/// [`Subscribers`] the application notifies. See the [module docs](crate::http::websocket).
///
/// ```no_run
/// use jsonrpc_slice::http::{HttpServer, Session, Subscribers, WebSocket, WithSync};
/// use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
/// use jsonrpc_slice::{async_method_table, demo, Params, ResultWriter, RpcError, Server};
///
/// type Ws<'c> = Call<'c, Session<(), &'static str>>;
/// async fn subscribe<'p>(call: &mut Ws<'_>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     let id = call.state().subscribe("ticks").map_err(|_| RpcError::new(-32005, "too many"))?;
///     Ok(id.write(out)?)
/// }
/// async_method_table! { Subs<'c, Ws<'c>> { "subscribe" => subscribe } }
///
/// static SERVER: Server<()> = Server::new(demo::TABLE);
/// static WS: ConcurrentServer<WithSync<Subs, ()>> =
///     ConcurrentServer::new(WithSync::new(Subs, &demo::TABLE));
/// static TICKS: Subscribers<&'static str> = Subscribers::new();
///
/// # async fn run() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8545").await?;
/// HttpServer::new(&SERVER, || ())
///     .with_websocket(WebSocket::new(&WS, &TICKS, ()))
///     .serve(listener)
///     .await
/// # }
/// ```
pub struct WebSocket {
    sessions: Arc<dyn Sessions>,
    settings: Settings,
}

impl core::fmt::Debug for WebSocket {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WebSocket")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl WebSocket {
    /// WebSocket sessions of `server`'s methods, with `subscribers` for their
    /// subscriptions and `app` (cloned for each connection) as what their handlers
    /// see beside them. [`Settings::default`] bounds them.
    pub fn new<A, T, K, const N: usize>(
        server: &'static ConcurrentServer<T>,
        subscribers: &'static Subscribers<K, N>,
        app: A,
    ) -> Self
    where
        A: Clone + Send + Sync + 'static,
        K: Send + 'static,
        T: for<'c> AsyncMethods<Call<'c, Session<A, K, N>>> + Sync + 'static,
    {
        Self {
            sessions: Arc::new(Of {
                server,
                subscribers,
                app,
            }),
            settings: Settings::default(),
        }
    }

    /// The same, with other bounds.
    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// Starts the session threads.
    pub(crate) fn start(self) -> Running {
        let threads = match self.settings.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let senders = (0..threads)
            .filter_map(|i| {
                let (tx, rx) = mpsc::unbounded_channel::<Job>();
                std::thread::Builder::new()
                    .name(std::format!("websocket-{i}"))
                    .spawn(move || sessions_thread(rx))
                    .ok()
                    .map(|_| tx)
            })
            .collect();
        Running {
            sessions: self.sessions,
            settings: self.settings,
            threads: senders,
            next: AtomicUsize::new(0),
        }
    }
}

/// A [`WebSocket`] while its server serves: the threads its sessions run on.
pub(crate) struct Running {
    sessions: Arc<dyn Sessions>,
    settings: Settings,
    threads: Vec<mpsc::UnboundedSender<Job>>,
    next: AtomicUsize,
}

/// A session's socket, taken back from hyper and out of the HTTP runtime's reactor
/// (so that its readiness wakes the session thread directly, not a worker that then
/// wakes it), with what hyper had read past the upgrade request.
struct Socket {
    tcp: std::net::TcpStream,
    read: Vec<u8>,
}

/// One session to start on a session thread.
struct Job {
    io: Socket,
    stop: Arc<Stop>,
    done: oneshot::Sender<()>,
    sessions: Arc<dyn Sessions>,
    settings: Settings,
}

fn sessions_thread(mut jobs: mpsc::UnboundedReceiver<Job>) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        while let Some(job) = jobs.recv().await {
            tokio::task::spawn_local(async move {
                let session = job.sessions.session(job.io, job.stop, job.settings);
                session.await;
                let _ = job.done.send(());
            });
        }
    });
}

/// A request that asks for a WebSocket (whether or not it is a valid one).
pub(crate) fn is_upgrade(method: &Method, headers: &HeaderMap) -> bool {
    method == Method::GET && has_token(headers, UPGRADE, "websocket")
}

fn has_token(headers: &HeaderMap, name: hyper::header::HeaderName, token: &str) -> bool {
    headers.get_all(name).iter().any(|v| {
        v.to_str()
            .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    })
}

/// The `Sec-WebSocket-Accept` of a valid upgrade request; `None` if it is not one
/// (answered `400`).
pub(crate) fn accept(headers: &HeaderMap) -> Option<HeaderValue> {
    if !has_token(headers, CONNECTION, "upgrade") {
        return None;
    }
    if headers.get("sec-websocket-version")?.as_bytes() != b"13" {
        return None;
    }
    let key = headers.get("sec-websocket-key")?;
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
    HeaderValue::from_str(&accept).ok()
}

impl Running {
    /// Runs the WebSocket of an upgraded connection until it closes; `close` asks it
    /// to close (`1001`, shutdown).
    pub(crate) async fn run(&self, upgrade: OnUpgrade, close: impl Future<Output = ()>) {
        let Ok(upgraded) = upgrade.await else {
            return;
        };
        // The server's connections are its `Socket`s: never `Err` here.
        let Ok(parts) = upgraded.downcast::<super::server::Socket>() else {
            return;
        };
        // What hyper read past the upgrade request, then what it had not read yet,
        // copied: `read_buf` keeps hyper's whole read buffer alive, and this task
        // waits here for as long as the session lasts.
        let (tcp, unread) = parts.io.into_tcp();
        let mut read = parts.read_buf.to_vec();
        read.extend_from_slice(&unread);
        drop((parts.read_buf, unread));
        let Ok(tcp) = tcp.into_std() else {
            return;
        };
        let io = Socket { tcp, read };
        let stop = Arc::new(Stop::default());
        let (done, ended) = oneshot::channel();
        let job = Job {
            io,
            stop: stop.clone(),
            done,
            sessions: self.sessions.clone(),
            settings: self.settings.clone(),
        };
        let n = self.threads.len().max(1);
        let i = self.next.fetch_add(1, Ordering::Relaxed) % n;
        let Some(thread) = self.threads.get(i) else {
            return;
        };
        if thread.send(job).is_err() {
            return;
        }
        let mut ended = pin!(ended);
        tokio::select! {
            _ = ended.as_mut() => {}
            () = close => {
                stop.stop(1001);
                let _ = ended.await;
            }
        }
    }
}

/// A session's code, whatever its types (the server holds it as `dyn`).
trait Sessions: Send + Sync {
    fn session(
        &self,
        io: Socket,
        stop: Arc<Stop>,
        settings: Settings,
    ) -> Pin<Box<dyn Future<Output = ()>>>;
}

struct Of<A, T: 'static, K: 'static, const N: usize> {
    server: &'static ConcurrentServer<T>,
    subscribers: &'static Subscribers<K, N>,
    app: A,
}

impl<A, T, K, const N: usize> Sessions for Of<A, T, K, N>
where
    A: Clone + Send + Sync + 'static,
    K: Send + 'static,
    T: for<'c> AsyncMethods<Call<'c, Session<A, K, N>>> + Sync + 'static,
{
    fn session(
        &self,
        io: Socket,
        stop: Arc<Stop>,
        settings: Settings,
    ) -> Pin<Box<dyn Future<Output = ()>>> {
        let (server, subscribers, app) = (self.server, self.subscribers, self.app.clone());
        Box::pin(async move {
            let member = subscribers.join(settings.send_queue, stop.clone());
            let session = Session::new(app, member.clone());
            serve(server, subscribers, &session, &member, io, &stop, &settings).await;
        })
    }
}

type Stream = WebSocketStream<tokio::net::TcpStream>;

/// One connection's session: the concurrent service over the socket, beside the
/// pump of the application's pushes, then the close.
async fn serve<A, T, K, const N: usize>(
    server: &'static ConcurrentServer<T>,
    subscribers: &Subscribers<K, N>,
    session: &Session<A, K, N>,
    member: &Member<K, N>,
    io: Socket,
    stop: &Stop,
    settings: &Settings,
) where
    T: for<'c> AsyncMethods<Call<'c, Session<A, K, N>>>,
{
    // The crate's write buffer is flushed past 128 KiB, and may hold at most twice
    // the largest reply besides: a bound on what waits for a peer that does not read.
    // Its read buffer is zeroed up to `read_buffer_size` at every read, even one
    // that finds nothing, so a small one (4 KiB by default) costs a lock-step call
    // least; a larger message takes more reads, and the buffer still grows to hold
    // it. (The measurements: docs/perf/LOG.md.)
    let config = WebSocketConfig::default()
        .read_buffer_size(settings.read_buffer.max(1))
        .max_message_size(Some(settings.max_message))
        .max_frame_size(Some(settings.max_message))
        .write_buffer_size(128 * 1024)
        .max_write_buffer_size((settings.max_reply + 128 * 1024).saturating_mul(2));
    // Registered with this thread's reactor.
    let Ok(mut tcp) = tokio::net::TcpStream::from_std(io.tcp) else {
        subscribers.leave(member);
        return;
    };
    // Until the peer's first byte (or the first ping due, or the stop) the session
    // holds no WebSocket state: the crate's read buffer is touched at its first read.
    let mut part = io.read;
    let first_ping = tokio::time::Instant::now() + settings.ping_interval;
    if part.is_empty() {
        let mut first = [0u8; 16];
        let read = tokio::select! {
            // The end or an error: the crate meets it again at its first read.
            read = tcp.read(&mut first) => read.unwrap_or(0),
            () = tokio::time::sleep_until(first_ping) => 0,
            _ = stop.stopped() => 0,
        };
        part.extend_from_slice(first.get(..read).unwrap_or_default());
    }
    let ws = Stream::from_partially_read(tcp, part, Role::Server, Some(config)).await;
    let (sink, stream) = ws.split();
    let sink = Mutex::new(sink);
    let gate = Arc::new(Gate::default());
    let gate_waker = Waker::from(gate.clone());
    let mut reader = WsRead {
        stream,
        gate: (&gate, &gate_waker),
        sink: &sink,
        pending: None,
        at: 0,
        stop,
        heard: true,
        ping: tokio::time::interval_at(first_ping, settings.ping_interval),
        timeout: settings.send_timeout,
        close: None,
    };
    // An idle connection holds no buffers: they are taken at its first message. A
    // connection that has sent nothing has no subscriptions, so nothing to push.
    reader.first().await;
    if reader.close.is_some() {
        return close(
            subscribers,
            member,
            stop,
            &sink,
            reader.close,
            false,
            settings,
        )
        .await;
    }
    // The serving loop's future (the concurrent service's slots of futures, the pump)
    // is about 11 KiB: made here, at the first message, not held by an idle session.
    Box::pin(messages(
        server,
        subscribers,
        session,
        member,
        reader,
        &sink,
        stop,
        settings,
    ))
    .await;
}

/// A session from its first message on: its buffers taken, its calls served beside
/// the pump of the application's pushes, then the close.
#[allow(clippy::too_many_arguments)]
async fn messages<A, T, K, const N: usize>(
    server: &'static ConcurrentServer<T>,
    subscribers: &Subscribers<K, N>,
    session: &Session<A, K, N>,
    member: &Member<K, N>,
    mut reader: WsRead<'_>,
    sink: &Mutex<SplitSink<Stream, Message>>,
    stop: &Stop,
    settings: &Settings,
) where
    T: for<'c> AsyncMethods<Call<'c, Session<A, K, N>>>,
{
    let (frame, reply) = (settings.max_message.max(1), settings.max_reply.max(1));
    let mut memory = vec![0u8; LentSlots::<IN_FLIGHT>::bytes(frame, reply)];
    let Some(slots) = LentSlots::<IN_FLIGHT>::new(&mut memory, frame, reply) else {
        return;
    };
    let mut queue = vec![0u8; settings.send_queue.max(1)];
    let outbox = LentOutbox::new(&mut queue);
    let mut framer = Messages::new(frame);
    let mut chunk = vec![0u8; 64 * 1024];
    let mut writer = WsWrite {
        sink,
        message: Vec::new(),
        timeout: settings.send_timeout,
    };
    let served = server.serve(
        session,
        &mut framer,
        &slots,
        &outbox,
        &mut chunk,
        &mut reader,
        &mut writer,
    );
    let pump = pump(member, &outbox, settings.send_queue.max(1));
    // A peer that does not read is not waited for: what is queued for it is dropped.
    let not_reading = async {
        if stop.stopped().await != CLOSE_NOT_READING {
            std::future::pending::<()>().await;
        }
    };
    let write_failed = tokio::select! {
        served = served => served.is_err(),
        () = pump => false,
        () = not_reading => false,
    };
    let read_close = reader.close;
    drop(reader);
    close(
        subscribers,
        member,
        stop,
        sink,
        read_close,
        write_failed,
        settings,
    )
    .await;
}

/// Ends a session: its subscriptions, then the close frame (within the send time
/// limit).
async fn close<K, const N: usize>(
    subscribers: &Subscribers<K, N>,
    member: &Member<K, N>,
    stop: &Stop,
    sink: &Mutex<SplitSink<Stream, Message>>,
    read_close: Option<u16>,
    write_failed: bool,
    settings: &Settings,
) {
    // Its subscriptions end before the peer sees the close.
    subscribers.leave(member);
    let code = match (stop.code(), read_close) {
        (Some(code), _) | (None, Some(code)) => code,
        // The writer waited past its time limit: the peer does not read.
        (None, None) if write_failed => CLOSE_NOT_READING,
        (None, None) => 1000,
    };
    let frame = CloseFrame {
        code: CloseCode::from(code),
        reason: Utf8Bytes::from_static(match code {
            1007 => "a binary message that is not UTF-8: JSON-RPC is text",
            1009 => "message too big",
            CLOSE_NOT_READING => "the peer does not read",
            1001 => "going away",
            _ => "",
        }),
    };
    let mut sink = sink.lock().await;
    let closing = async {
        let _ = sink.send(Message::Close(Some(frame))).await;
        let _ = sink.close().await;
    };
    let _ = tokio::time::timeout(settings.send_timeout, closing).await;
}

/// Moves what the application pushed for this connection into the concurrent
/// service's outbox, message by message, as the outbox has room. Never ends.
async fn pump<K, const N: usize>(member: &Member<K, N>, outbox: &LentOutbox<'_>, size: usize) {
    let mut spare = vec![0u8; size].into_boxed_slice();
    loop {
        let written = member.written.notified();
        let len = member.take(&mut spare);
        if len == 0 {
            written.await;
            continue;
        }
        for message in crate::outbox::messages(spare.get(..len).unwrap_or_default()) {
            let mut copy = writer(|room| {
                let room = room
                    .get_mut(..message.len())
                    .ok_or(crate::WriteError::BufferFull)?;
                room.copy_from_slice(message);
                Ok(room)
            });
            let _ = queue_message(outbox.as_queue(), &mut copy).await;
        }
    }
}

/// `write`, with the signature a queued message's writer has (closures do not infer
/// it alone).
fn writer<W: FnMut(&mut [u8]) -> Result<&[u8], crate::WriteError>>(write: W) -> W {
    write
}

/// The byte that ends each message in the stream the concurrent service reads and
/// writes: `0xFF` never occurs in UTF-8, so never inside a text message.
const END: u8 = 0xFF;

/// The framing of the WebSocket session: a frame is the bytes up to [`END`], at most
/// `max` of them.
struct Messages {
    buf: Vec<u8>,
    max: usize,
    skipping: bool,
    /// `buf` holds a frame handed out: it is emptied at the next feed.
    handed: bool,
}

impl Messages {
    fn new(max: usize) -> Self {
        Self {
            buf: Vec::with_capacity(max),
            max,
            skipping: false,
            handed: false,
        }
    }
}

impl Framer for Messages {
    fn feed<'a, 'b>(&'a mut self, input: &'b [u8]) -> FeedResult<'a, 'b> {
        if core::mem::take(&mut self.handed) {
            self.buf.clear();
        }
        let (part, rest) = match crate::simd::find_byte(input, END) {
            Some(i) => (
                input.get(..i).unwrap_or_default(),
                Some(input.get(i + 1..).unwrap_or_default()),
            ),
            None => (input, None),
        };
        if !self.skipping && self.buf.len() + part.len() <= self.max {
            self.buf.extend_from_slice(part);
        } else {
            self.skipping = true;
            self.buf.clear();
        }
        let Some(remaining) = rest else {
            return FeedResult::Consumed;
        };
        if core::mem::take(&mut self.skipping) {
            return FeedResult::Oversized { remaining };
        }
        // Emptied at the next feed (the frame is borrowed until then).
        self.handed = true;
        let frame = self.buf.as_slice();
        FeedResult::Frame { frame, remaining }
    }

    fn finish(&mut self) -> EndOfInput<'_> {
        self.buf.clear();
        self.skipping = false;
        self.handed = false;
        EndOfInput::Nothing
    }

    fn max_frame(&self) -> usize {
        self.max
    }

    fn reply_header<'s>(&self, _: usize, _: &'s mut [u8; 40]) -> &'s [u8] {
        &[]
    }

    fn reply_trailer(&self) -> &'static [u8] {
        &[END]
    }
}

/// The read half: each text message's bytes, then [`END`]; pings and pongs kept
/// apart; the end of input when the peer closes, a binary message is not UTF-8, a message
/// is too big, the peer is silent for a ping interval, or the session is stopped.
struct WsRead<'s> {
    stream: SplitStream<Stream>,
    /// What a read waits on is polled only once it has woken (see [`Gate`]).
    gate: (&'s Arc<Gate>, &'s Waker),
    sink: &'s Mutex<SplitSink<Stream, Message>>,
    pending: Option<Utf8Bytes>,
    /// How much of `pending` was read (its length + 1 once `END` was too).
    at: usize,
    stop: &'s Stop,
    /// Something came from the peer since the last ping.
    heard: bool,
    ping: tokio::time::Interval,
    timeout: Duration,
    /// The close code the reader decided on.
    close: Option<u16>,
}

impl WsRead<'_> {
    fn end(&mut self, code: u16) -> io::Result<usize> {
        self.close.get_or_insert(code);
        Ok(0)
    }
}

impl Read for WsRead<'_> {
    type Error = io::Error;

    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(text) = &self.pending {
                let bytes = text.as_bytes();
                let rest = bytes.get(self.at..).unwrap_or_default();
                let n = rest.len().min(buf.len());
                if let (Some(to), Some(from)) = (buf.get_mut(..n), rest.get(..n)) {
                    to.copy_from_slice(from);
                }
                self.at += n;
                let mut read = n;
                if self.at == bytes.len() {
                    if let Some(end) = buf.get_mut(n) {
                        *end = END;
                        read += 1;
                        self.pending = None;
                        self.at = 0;
                    }
                }
                if read > 0 {
                    return Ok(read);
                }
            }
            if self.close.is_some() {
                return Ok(0);
            }
            if let Some(read) = self.receive().await {
                return read;
            }
        }
    }
}

impl WsRead<'_> {
    /// Waits until the first message has come (or the end): until then the session
    /// holds none of its buffers.
    async fn first(&mut self) {
        while self.pending.is_none() && self.close.is_none() {
            let _ = self.receive().await;
        }
    }

    /// The next thing from the peer, a ping due, or the stop: a text kept in
    /// `pending` (`None`), or what `read` returns.
    async fn receive(&mut self) -> Option<io::Result<usize>> {
        let (gate, waker) = self.gate;
        let mut first = true;
        let mut waiting = pin!(self.wait());
        std::future::poll_fn(|cx| gate.poll(cx, waker, &mut first, waiting.as_mut())).await
    }

    async fn wait(&mut self) -> Option<io::Result<usize>> {
        {
            tokio::select! {
                next = self.stream.next() => {
                    self.heard = true;
                    match next {
                        Some(Ok(Message::Text(text))) => {
                            self.pending = Some(text);
                            self.at = 0;
                        }
                        Some(Ok(Message::Binary(bytes))) => match Utf8Bytes::try_from(bytes) {
                            Ok(text) => {
                                self.pending = Some(text);
                                self.at = 0;
                            }
                            // Not text: and `END` may be among its bytes.
                            Err(_) => return Some(self.end(1007)),
                        },
                        // Pongs to pings are the crate's (sent at its next read).
                        Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                        Some(Ok(Message::Close(_))) | None => return Some(self.end(1000)),
                        Some(Err(WsError::Capacity(_))) => return Some(self.end(1009)),
                        Some(Err(_)) => return Some(self.end(1002)),
                    }
                }
                _ = self.ping.tick() => {
                    if !core::mem::take(&mut self.heard) {
                        return Some(self.end(1001));
                    }
                    let ping = async { self.sink.lock().await.send(Message::Ping(Bytes::new())).await };
                    if !matches!(tokio::time::timeout(self.timeout, ping).await, Ok(Ok(()))) {
                        return Some(self.end(CLOSE_NOT_READING));
                    }
                }
                code = self.stop.stopped() => return Some(self.end(code)),
            }
        }
        None
    }
}

/// Wakes a session for its read only when what the read waits on (the socket, the
/// ping timer, the stop) has woken: the session's task is woken for every push and
/// every reply too, and each poll of the read costs tungstenite a zeroing of its
/// read buffer (`read_buffer_size`) before the socket says it has nothing.
#[derive(Default)]
struct Gate {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Gate {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl Gate {
    /// Polls `fut` with `waker` (this gate's) at its first poll and whenever the gate
    /// has been woken since the last; else it is still pending.
    fn poll<F: Future>(
        &self,
        cx: &mut Context<'_>,
        waker: &Waker,
        first: &mut bool,
        fut: Pin<&mut F>,
    ) -> Poll<F::Output> {
        self.task.register(cx.waker());
        // Cleared before the poll: a wake during it is kept for the next.
        let woken = self.woken.swap(false, Ordering::AcqRel);
        if !core::mem::take(first) && !woken {
            return Poll::Pending;
        }
        fut.poll(&mut Context::from_waker(waker))
    }
}

/// The write half: the bytes up to each [`END`] sent as one text message; a write
/// that waits past the time limit fails (the peer does not read).
struct WsWrite<'s> {
    sink: &'s Mutex<SplitSink<Stream, Message>>,
    /// The message being written.
    message: Vec<u8>,
    timeout: Duration,
}

/// `op`, given up after `limit`: `None` then. The timer is armed only when `op` does
/// not complete at its first poll (a write into the crate's buffer, a flush the
/// socket takes at once): most writes pay no timer.
async fn within<F: Future>(limit: Duration, op: F) -> Option<F::Output> {
    let mut op = pin!(op);
    let first = std::future::poll_fn(|cx| Poll::Ready(op.as_mut().poll(cx))).await;
    match first {
        Poll::Ready(out) => Some(out),
        Poll::Pending => tokio::time::timeout(limit, op).await.ok(),
    }
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "the peer does not read")
}

impl Write for WsWrite<'_> {
    type Error = io::Error;

    async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut bytes = bytes;
        while let Some(i) = crate::simd::find_byte(bytes, END) {
            self.message
                .extend_from_slice(bytes.get(..i).unwrap_or_default());
            bytes = bytes.get(i + 1..).unwrap_or_default();
            let text = match std::string::String::from_utf8(core::mem::take(&mut self.message)) {
                Ok(text) => Message::Text(Utf8Bytes::from(text)),
                // Not reached: the codec writes UTF-8.
                Err(e) => Message::Binary(Bytes::from(e.into_bytes())),
            };
            let send = async { self.sink.lock().await.feed(text).await };
            match within(self.timeout, send).await {
                Some(Ok(())) => {}
                Some(Err(e)) => return Err(io::Error::other(e)),
                None => return Err(timed_out()),
            }
        }
        self.message.extend_from_slice(bytes);
        Ok(())
    }

    async fn flush(&mut self) -> io::Result<()> {
        let flush = async { self.sink.lock().await.flush().await };
        match within(self.timeout, flush).await {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => Err(io::Error::other(e)),
            None => Err(timed_out()),
        }
    }
}
