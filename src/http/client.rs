//! A JSON-RPC client over HTTP/1.1 (hyper 1) or WebSocket (tokio-tungstenite, feature
//! `websocket`): [`RemoteClient`], the crate's [`Client`] over a network link.
//!
//! The calls in flight, their ids, handles, deadlines and outcomes are the
//! [`Client`]'s; this file adds the link and the clock (`std::time::Instant`). Over
//! HTTP each call or batch is one `POST` on a keep-alive connection (made again when
//! the server has closed it), its reply the response body, read up to
//! [`ClientSettings::max_response`]. Over WebSocket (`src/http/websocket/client.rs`)
//! each is one text message, and the server's notifications come on the same
//! connection between the replies: they go to the callback set with
//! [`RemoteClient::on_incoming`], or else to a bounded queue read with
//! [`RemoteClient::next_notification`].

use std::boxed::Box;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::{pin, Pin};
use std::string::String;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use std::vec::Vec;

use hyper::body::{Body, Buf, Incoming as HttpBody};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HeaderMap, HeaderValue, CONTENT_TYPE, HOST};
use hyper::{Method, Request, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::client::{
    Batch, Call, CallError, Client, Handle, Incoming, Notification, Notifications, SendError,
    ToParams,
};
use crate::write::WriteError;

#[cfg(feature = "websocket")]
use super::websocket::client::WsLink;

/// A [`RemoteClient`]'s bounds. [`ClientSettings::default`] gives each its default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientSettings {
    /// The largest request (or batch) written, in bytes (1 MiB). The buffer grows to
    /// it as requests need, and is kept.
    pub max_request: usize,
    /// The largest reply read, in bytes (16 MiB): over HTTP a longer body fails the
    /// exchange (its calls resolve as [`CallError::ConnectionLost`]); over WebSocket a
    /// longer message closes the connection.
    pub max_response: usize,
    /// How long a call waits for its reply when it has no deadline of its own (30 s);
    /// also the longest wait to connect.
    pub timeout: Duration,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self {
            max_request: 1 << 20,
            max_response: 16 << 20,
            timeout: Duration::from_secs(30),
        }
    }
}

/// Why a [`RemoteClient`] could not connect.
#[derive(Debug)]
pub enum ConnectError {
    /// The URL is not `http://HOST[:PORT][/PATH]` (or `ws://…` with the `websocket`
    /// feature).
    Url(String),
    /// The connection (or the WebSocket handshake) failed or timed out.
    Io(io::Error),
}

impl core::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Url(why) => write!(f, "bad URL: {why}"),
            Self::Io(e) => write!(f, "cannot connect: {e}"),
        }
    }
}

impl std::error::Error for ConnectError {}

/// What [`RemoteClient::call`] returns when there is no result: the request was not
/// sent, or the call's outcome (the server's error, a timeout, ...).
#[derive(Debug)]
pub enum RemoteError<'a> {
    /// The request was not written or registered.
    Send(SendError),
    /// The call resolved without a result.
    Call(CallError<'a>),
}

impl core::fmt::Display for RemoteError<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Send(e) => e.fmt(f),
            Self::Call(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RemoteError<'_> {}

impl From<SendError> for RemoteError<'_> {
    fn from(e: SendError) -> Self {
        Self::Send(e)
    }
}

impl<'a> From<CallError<'a>> for RemoteError<'a> {
    fn from(e: CallError<'a>) -> Self {
        Self::Call(e)
    }
}

/// A JSON-RPC client of a server at an `http://` or `ws://` URL: up to `N` calls in
/// flight (a batch's calls each count), `B` bytes kept for replies not yet taken.
///
/// [`send`](Self::send) writes a call, sends it and returns once it has resolved (its
/// reply, its deadline, the connection lost), with its [`Handle`];
/// [`send_batch`](Self::send_batch) does the same for a batch; the outcome is then
/// taken from [`client`](Self::client) (typed with `take`, feature `serde`, or raw
/// with `take_raw`). [`call`](Self::call) is both steps in one. A call without a
/// deadline of its own ([`Call::deadline`], an instant of `std::time::Instant`) gets
/// [`ClientSettings::timeout`].
///
/// The crate allocates the client and its request and reply buffers once (each grows
/// to what the largest message needed and is kept), and nothing per call. The
/// transports do: hyper a few times per exchange (the response's header map and
/// body, its request channel), tokio-tungstenite once per message each way (a
/// message owns its payload).
///
/// ```no_run
/// # #[cfg(feature = "serde")]
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use jsonrpc_slice::http::RemoteClient;
///
/// let mut node: RemoteClient = RemoteClient::connect("http://127.0.0.1:8545").await?;
/// let chain_id: &str = node.call("eth_chainId", ()).await.map_err(|e| e.to_string())?;
/// assert_eq!(chain_id, "0x539");
/// # Ok(())
/// # }
/// ```
pub struct RemoteClient<const N: usize = 16, const B: usize = 65536> {
    calls: Box<Client<N, B, Instant>>,
    /// Where requests are written; sent from here (lent to hyper over HTTP).
    out: Vec<u8>,
    link: Link,
    settings: ClientSettings,
    inbox: Inbox,
    /// Why the link failed last.
    failure: Option<io::Error>,
}

/// The callback of [`RemoteClient::on_incoming`].
type OnIncoming = Box<dyn FnMut(Incoming<'_>) + Send>;

/// How messages get to the server.
enum Link {
    // Each boxed (once per client): the connections' states are large.
    Http(Box<HttpLink>),
    #[cfg(feature = "websocket")]
    Ws(Box<WsLink>),
}

impl<const N: usize, const B: usize> core::fmt::Debug for RemoteClient<N, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RemoteClient")
            .field("in_flight", &self.calls.in_flight())
            .field("queued", &self.inbox.queue.len())
            .finish_non_exhaustive()
    }
}

impl<const N: usize, const B: usize> RemoteClient<N, B> {
    /// Connects to `url` (`http://HOST[:PORT][/PATH]`, or `ws://…` with the
    /// `websocket` feature) with the default [`ClientSettings`].
    pub async fn connect(url: &str) -> Result<Self, ConnectError> {
        Self::connect_with(url, ClientSettings::default()).await
    }

    /// Connects to `url` with `settings`.
    pub async fn connect_with(url: &str, settings: ClientSettings) -> Result<Self, ConnectError> {
        let deadline = Instant::now() + settings.timeout;
        let link = if let Some(rest) = url.strip_prefix("http://") {
            let mut link = HttpLink::new(rest)?;
            let connected = link.connect(deadline).await;
            connected.map_err(ConnectError::Io)?;
            Link::Http(Box::new(link))
        } else {
            #[cfg(feature = "websocket")]
            if url.starts_with("ws://") {
                let link = WsLink::connect(url, &settings, deadline).await;
                let link = Box::new(link.map_err(ConnectError::Io)?);
                return Ok(Self::over(Link::Ws(link), settings));
            }
            return Err(ConnectError::Url(std::format!(
                "{url}: not http://{}",
                if cfg!(feature = "websocket") {
                    " or ws://"
                } else {
                    " (ws:// needs the websocket feature)"
                }
            )));
        };
        Ok(Self::over(link, settings))
    }

    fn over(link: Link, settings: ClientSettings) -> Self {
        Self {
            calls: Box::new(Client::new()),
            out: Vec::new(),
            link,
            settings,
            inbox: Inbox {
                incoming: None,
                queue: Box::new(Notifications::new()),
                handed_out: false,
            },
            failure: None,
        }
    }

    /// The calls: each handle's outcome is taken from here (`take`, `take_raw`).
    pub fn client(&mut self) -> &mut Client<N, B, Instant> {
        &mut self.calls
    }

    /// Hands the server's notifications (and every other message that answers no
    /// call in flight: late replies, unknown ids, ...) to `f`, as they are read,
    /// instead of queueing the notifications for
    /// [`next_notification`](Self::next_notification).
    pub fn on_incoming(&mut self, f: impl FnMut(Incoming<'_>) + Send + 'static) {
        self.inbox.incoming = Some(Box::new(f));
    }

    /// Why the link failed last (a call that resolved as
    /// [`CallError::ConnectionLost`] says no more): an I/O error, hyper's, the
    /// WebSocket's, or an oversized reply.
    pub fn last_failure(&self) -> Option<&io::Error> {
        self.failure.as_ref()
    }

    /// Notifications dropped because the queue was full.
    pub fn dropped_notifications(&self) -> u64 {
        u64::from(self.inbox.queue.dropped())
    }

    /// Writes a request for `call`, sends it, and waits until it resolves: its reply,
    /// its deadline (or [`ClientSettings::timeout`]), the connection lost. Then take
    /// its outcome from [`client`](Self::client). Replies to no call and the server's
    /// notifications read meanwhile go to the callback or the queue.
    ///
    /// `params` is `Copy` (`()`, raw JSON, a closure that borrows what it writes):
    /// a request that does not fit the buffer is written again into a larger one.
    pub async fn send<'a, T>(
        &mut self,
        call: impl Into<Call<'a, Instant>>,
        params: impl ToParams + Copy,
    ) -> Result<Handle<T>, SendError> {
        let mut call = call.into();
        if call.deadline.is_none() {
            call.deadline = Some(Instant::now() + self.settings.timeout);
        }
        let (handle, len) = self.write(|calls, out| {
            let (handle, msg) = calls.request_with::<T>(out, call, params)?;
            Ok((handle, msg.len()))
        })?;
        self.exchange(len, handle.cast()).await;
        Ok(handle)
    }

    /// Writes a batch with `build` (which adds its calls with [`RemoteBatch::call`]
    /// and returns their handles), sends it, and waits until its calls resolve. An
    /// empty batch is refused ([`SendError::EmptyBatch`]). `build` may run more than
    /// once: a batch that does not fit the buffer is written again into a larger one.
    pub async fn send_batch<R>(
        &mut self,
        mut build: impl FnMut(&mut RemoteBatch<'_, '_, N, B>) -> Result<R, SendError>,
    ) -> Result<R, SendError> {
        let timeout = Instant::now() + self.settings.timeout;
        let (handles, first, len) = self.write(|calls, out| {
            let mut batch = RemoteBatch {
                batch: calls.batch(out),
                timeout,
                first: None,
            };
            let handles = build(&mut batch)?;
            let first = batch.first;
            let msg = batch.batch.finish()?;
            Ok((handles, first, msg.len()))
        })?;
        if let Some(first) = first {
            self.exchange(len, first).await;
        } else {
            // Notifications only: no reply comes.
            self.exchange_notifications(len).await;
        }
        Ok(handles)
    }

    /// [`send`](Self::send), then the result decoded as `T` (feature `serde`; strings
    /// with escapes decoded into the client's reply room), or why there is none.
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    pub async fn call<'s, 'a, T: serde::Deserialize<'s>>(
        &'s mut self,
        call: impl Into<Call<'a, Instant>>,
        params: impl ToParams + Copy,
    ) -> Result<T, RemoteError<'s>> {
        let handle = self.send::<T>(call, params).await?;
        // `send` returned: the call has resolved.
        let taken = self.calls.take(&handle);
        Ok(taken.unwrap_or(Err(CallError::NoReply))?)
    }

    /// Waits for the server's next notification (a subscription's event, say): the
    /// oldest queued, or the next read (replies read meanwhile resolve their calls).
    /// `None` once the connection has ended, and over HTTP (where the server cannot
    /// send unasked). With a callback set ([`on_incoming`](Self::on_incoming)),
    /// notifications go to it, and this waits until the connection ends.
    pub async fn next_notification(&mut self) -> Option<Notification<'_>> {
        // The one handed out last leaves the queue now.
        if core::mem::take(&mut self.inbox.handed_out) {
            self.inbox.queue.pop();
        }
        while self.inbox.queue.is_empty() {
            if !self.read_one().await {
                return None;
            }
        }
        self.inbox.handed_out = true;
        self.inbox.queue.front()
    }

    /// Writes with `f` into the request buffer, growing it (up to
    /// [`ClientSettings::max_request`]) while the message does not fit.
    fn write<R>(
        &mut self,
        mut f: impl FnMut(&mut Client<N, B, Instant>, &mut [u8]) -> Result<R, SendError>,
    ) -> Result<R, SendError> {
        loop {
            match f(&mut self.calls, &mut self.out) {
                Err(SendError::Write(WriteError::BufferFull))
                    if self.out.len() < self.settings.max_request =>
                {
                    let len = (self.out.len() * 2).clamp(4096, self.settings.max_request);
                    self.out.resize(len, 0);
                }
                done => return done,
            }
        }
    }

    /// Sends the `len` bytes written, and reads until `handle`'s call (and so every
    /// call of the message: one reply answers them all) has resolved.
    async fn exchange(&mut self, len: usize, handle: Handle<()>) {
        match &mut self.link {
            Link::Http(http) => {
                let outcome = http
                    .post(&mut self.out, len, &mut self.calls, &self.settings)
                    .await;
                match outcome {
                    Ok(body) => {
                        // One response answers the whole message: an `"id":null`
                        // error answers all its calls, and those it left out will
                        // not be answered.
                        feed(&mut self.calls, &mut self.inbox, body, Some(&handle));
                    }
                    Err(e) => {
                        self.failure = Some(e);
                        self.calls.connection_lost();
                    }
                }
            }
            #[cfg(feature = "websocket")]
            Link::Ws(ws) => {
                if let Err(e) = ws.send(&self.out[..len]).await {
                    self.failure = Some(e);
                    self.calls.connection_lost();
                    return;
                }
                while self.calls.status(&handle) == crate::client::Status::Waiting {
                    if !self.read_one().await {
                        break;
                    }
                }
            }
        }
    }

    /// Sends a message of notifications only: over HTTP the response is read (and
    /// dropped: a server answers `204`).
    async fn exchange_notifications(&mut self, len: usize) {
        let sent = match &mut self.link {
            Link::Http(http) => {
                let posted = http
                    .post(&mut self.out, len, &mut self.calls, &self.settings)
                    .await;
                posted.map(|_| ())
            }
            #[cfg(feature = "websocket")]
            Link::Ws(ws) => ws.send(&self.out[..len]).await,
        };
        if let Err(e) = sent {
            self.failure = Some(e);
        }
    }

    /// Reads one message and feeds it (WebSocket), waiting at most until the earliest
    /// deadline of the calls in flight, when they time out. `false`
    /// once nothing more can be read.
    async fn read_one(&mut self) -> bool {
        match &mut self.link {
            Link::Http(_) => false,
            #[cfg(feature = "websocket")]
            Link::Ws(ws) => {
                let deadline = self.calls.next_deadline();
                match ws.read(deadline).await {
                    Ok(Some(message)) => {
                        feed(&mut self.calls, &mut self.inbox, &message, None);
                        true
                    }
                    // A deadline passed.
                    Ok(None) => {
                        self.calls.expire(Instant::now());
                        true
                    }
                    Err(e) => {
                        self.failure = Some(e);
                        self.calls.connection_lost();
                        false
                    }
                }
            }
        }
    }
}

/// What the server sent that answers no call: to the callback, or (notifications)
/// to the bounded queue.
struct Inbox {
    incoming: Option<OnIncoming>,
    /// The server's notifications not yet read.
    queue: Box<Notifications<QUEUED, QUEUED_BYTES>>,
    /// The queue's first was handed out by `next_notification`, and leaves at its
    /// next call.
    handed_out: bool,
}

/// Notifications a [`RemoteClient`] keeps for
/// [`next_notification`](RemoteClient::next_notification) when no callback is set.
pub const QUEUED: usize = 64;

/// The bytes (methods and params) of the notifications kept.
pub const QUEUED_BYTES: usize = 64 * 1024;

/// Feeds a message to the calls (as the whole answer to the exchange that carried
/// `exchange`'s call, over HTTP); what answers none goes to the inbox.
fn feed<const N: usize, const B: usize>(
    calls: &mut Client<N, B, Instant>,
    inbox: &mut Inbox,
    message: &[u8],
    exchange: Option<&Handle<()>>,
) {
    let (incoming, queue) = (&mut inbox.incoming, &mut inbox.queue);
    let to_inbox = |i: Incoming<'_>| match (incoming.as_mut(), i) {
        (Some(f), i) => f(i),
        (None, Incoming::Notification(n)) => {
            // A full queue counts what it drops.
            queue.push(&n);
        }
        (None, _) => {}
    };
    let now = Instant::now();
    match exchange {
        Some(handle) => calls.receive_exchange(message, now, handle, to_inbox),
        None => calls.receive(message, now, to_inbox),
    };
}

/// A batch being written by [`RemoteClient::send_batch`]: each [`call`](Self::call)
/// registers its call (with [`ClientSettings::timeout`] as its deadline if it has
/// none) and hands back its handle.
pub struct RemoteBatch<'c, 'o, const N: usize, const B: usize> {
    batch: Batch<'c, 'o, N, B, Instant, ()>,
    timeout: Instant,
    first: Option<Handle<()>>,
}

impl<const N: usize, const B: usize> RemoteBatch<'_, '_, N, B> {
    /// Appends a request for `call` (see [`Batch::call`]).
    pub fn call<'a, T>(
        &mut self,
        call: impl Into<Call<'a, Instant>>,
        params: impl ToParams,
    ) -> Result<Handle<T>, SendError> {
        let mut call = call.into();
        call.deadline.get_or_insert(self.timeout);
        let handle = self.batch.call_with::<T>(call, params)?;
        self.first.get_or_insert(handle.cast());
        Ok(handle)
    }

    /// Appends a notification (no reply, no handle).
    pub fn notify(&mut self, method: &str, params: impl ToParams) -> Result<(), SendError> {
        self.batch.notify(method, params)
    }

    /// The calls and notifications in the batch so far.
    pub fn len(&self) -> usize {
        self.batch.len()
    }

    /// `true` before the first call.
    pub fn is_empty(&self) -> bool {
        self.batch.is_empty()
    }
}

// ---------------------------------------------------------------------------------
// HTTP: one POST per message on a keep-alive connection.

/// The HTTP side of a [`RemoteClient`].
struct HttpLink {
    /// `HOST:PORT`, connected to.
    authority: String,
    host: HeaderValue,
    path: Uri,
    conn: Option<Connection>,
    /// The last response's header map, cleared and used for the next request.
    headers: Option<HeaderMap>,
    /// The request buffer comes back here once hyper has written it.
    home: Arc<Mutex<Option<Vec<u8>>>>,
    /// The response body read.
    body: Vec<u8>,
}

struct Connection {
    send: SendRequest<Outgoing>,
    /// Drives the connection; polled alongside every exchange (no task spawned).
    /// `None` once it has ended (the connection closed or failed): dropped then, so
    /// that hyper hands back a request it had not written.
    driver: Option<http1::Connection<TokioIo<TcpStream>, Outgoing>>,
}

impl HttpLink {
    fn new(rest: &str) -> Result<Self, ConnectError> {
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let bad = |why: &str| ConnectError::Url(std::format!("http://{rest}: {why}"));
        if authority.is_empty() {
            return Err(bad("no host"));
        }
        let host = HeaderValue::from_str(authority).map_err(|_| bad("bad host"))?;
        let path = Uri::try_from(path).map_err(|_| bad("bad path"))?;
        let authority = match authority.rsplit_once(':') {
            Some((_, port)) if !port.ends_with(']') => String::from(authority),
            _ => std::format!("{authority}:80"),
        };
        Ok(Self {
            authority,
            host,
            path,
            conn: None,
            headers: None,
            home: Arc::new(Mutex::new(None)),
            body: Vec::new(),
        })
    }

    async fn connect(&mut self, deadline: Instant) -> io::Result<()> {
        let deadline = tokio::time::Instant::from_std(deadline);
        let connect = TcpStream::connect(self.authority.as_str());
        let stream = match tokio::time::timeout_at(deadline, connect).await {
            Ok(stream) => stream?,
            Err(_) => return Err(io::ErrorKind::TimedOut.into()),
        };
        stream.set_nodelay(true)?;
        let (send, driver) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(io::Error::other)?;
        self.conn = Some(Connection {
            send,
            driver: Some(driver),
        });
        Ok(())
    }

    /// POSTs `out[..len]` and reads the response body, until the earliest deadline of
    /// the calls in flight (each call past its deadline then times out, and the wait
    /// goes on for the others). `Err` when the connection failed (it is dropped, and
    /// made again by the next exchange).
    async fn post<const N: usize, const B: usize>(
        &mut self,
        out: &mut Vec<u8>,
        len: usize,
        calls: &mut Client<N, B, Instant>,
        settings: &ClientSettings,
    ) -> io::Result<&mut Vec<u8>> {
        let deadline = |calls: &Client<N, B, Instant>| {
            calls
                .next_deadline()
                .unwrap_or_else(|| Instant::now() + settings.timeout)
        };
        let mut headers = self.headers.take().unwrap_or_default();
        headers.clear();
        headers.insert(HOST, self.host.clone());
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        // The request buffer is lent to hyper as the body, and comes back to `home`
        // once written.
        let lent = Lent {
            buf: core::mem::take(out),
            at: 0,
            len,
            home: self.home.clone(),
        };
        let mut request = Request::new(super::OneFrame(Some(lent)));
        *request.method_mut() = Method::POST;
        *request.uri_mut() = self.path.clone();
        *request.headers_mut() = headers;
        // A keep-alive connection the server has closed takes the request back
        // unsent: it goes again on a new connection (once).
        let mut fresh = false;
        let result = loop {
            if self
                .conn
                .as_ref()
                .map_or(true, |c| c.driver.is_none() || c.send.is_closed())
            {
                if let Err(e) = self.connect(deadline(calls)).await {
                    break Err(e);
                }
                fresh = true;
            }
            let Some(conn) = self.conn.as_mut() else {
                break Err(io::ErrorKind::NotConnected.into());
            };
            self.body.clear();
            let done = {
                let exchange = exchange(conn, request, &mut self.body, settings.max_response);
                let mut exchange = pin!(exchange);
                loop {
                    let at = tokio::time::Instant::from_std(deadline(calls));
                    match tokio::time::timeout_at(at, exchange.as_mut()).await {
                        Ok(done) => break done,
                        Err(_) => {
                            // Each call past its deadline times out; the wait goes on for
                            // the others.
                            calls.expire(Instant::now());
                            if calls.in_flight() == 0 {
                                break Err(Failed::Io(io::ErrorKind::TimedOut.into()));
                            }
                        }
                    }
                }
            };
            match done {
                Err(Failed::Unsent(unsent)) if !fresh => {
                    self.conn = None;
                    request = *unsent;
                }
                Err(Failed::Unsent(_)) => break Err(io::ErrorKind::ConnectionAborted.into()),
                Err(Failed::Io(e)) => break Err(e),
                Ok(headers) => break Ok(headers),
            }
        };
        if let Some(buf) = self
            .home
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            *out = buf;
        }
        match result {
            Ok(headers) => {
                self.headers = Some(headers);
                Ok(&mut self.body)
            }
            Err(e) => {
                self.conn = None;
                Err(e)
            }
        }
    }
}

/// How an exchange failed.
enum Failed {
    /// The connection had closed before the request was written: here it is, to
    /// send on a new one.
    Unsent(Box<Request<Outgoing>>),
    Io(io::Error),
}

impl From<io::Error> for Failed {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

/// One exchange on `conn`: the request sent, the response's body read into `body`
/// (at most `max` bytes), the connection driven meanwhile. Returns the response's
/// header map (for the next request).
async fn exchange(
    conn: &mut Connection,
    request: Request<Outgoing>,
    body: &mut Vec<u8>,
    max: usize,
) -> Result<HeaderMap, Failed> {
    let Connection { send, driver } = conn;
    // The connection's own future, polled beside the exchange's: it does the I/O.
    // Once it has ended it is dropped, and the exchange's futures end too (hyper's
    // error, or the request handed back unsent).
    let mut drive = |cx: &mut Context<'_>| {
        if driver
            .as_mut()
            .is_some_and(|d| Pin::new(d).poll(cx).is_ready())
        {
            *driver = None;
        }
    };
    let mut response = pin!(send.try_send_request(request));
    let response = poll_fn(|cx| {
        if let Poll::Ready(r) = response.as_mut().poll(cx) {
            return Poll::Ready(r);
        }
        drive(cx);
        Poll::Pending
    })
    .await;
    let response = match response {
        Ok(response) => response,
        Err(mut e) => {
            return Err(match e.take_message() {
                Some(request) => Failed::Unsent(Box::new(request)),
                None => Failed::Io(io::Error::other(e.into_error())),
            })
        }
    };
    let (parts, mut incoming) = response.into_parts();
    if incoming.size_hint().lower() > max as u64 {
        return Err(too_large(max).into());
    }
    poll_fn(|cx| loop {
        match Pin::new(&mut incoming).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    if body.len() + data.len() > max {
                        return Poll::Ready(Err(too_large(max)));
                    }
                    body.extend_from_slice(&data);
                }
            }
            Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(io::Error::other(e))),
            Poll::Ready(None) => return Poll::Ready(Ok(())),
            Poll::Pending => {
                drive(cx);
                return Poll::Pending;
            }
        }
    })
    .await?;
    let _: &HttpBody = &incoming;
    Ok(parts.headers)
}

fn too_large(max: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        std::format!("reply over the {max}-byte limit"),
    )
}

/// The request buffer lent to hyper as a body: `len` bytes, `at` of them written. It
/// goes back to `home` when hyper drops it.
struct Lent {
    buf: Vec<u8>,
    at: usize,
    len: usize,
    home: Arc<Mutex<Option<Vec<u8>>>>,
}

impl Buf for Lent {
    fn remaining(&self) -> usize {
        self.len - self.at
    }
    fn chunk(&self) -> &[u8] {
        self.buf.get(self.at..self.len).unwrap_or(&[])
    }
    fn advance(&mut self, n: usize) {
        self.at = (self.at + n).min(self.len);
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        let buf = core::mem::take(&mut self.buf);
        *self.home.lock().unwrap_or_else(PoisonError::into_inner) = Some(buf);
    }
}

/// A request body: the lent buffer, one frame.
type Outgoing = super::OneFrame<Lent>;
