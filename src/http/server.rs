//! The HTTP/1.1 server: connections, bounds and the JSON-RPC-over-HTTP rules (see the
//! module above for what each bound does).

use std::boxed::Box;
use std::convert::Infallible;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use std::vec;
use std::vec::Vec;

use hyper::body::{Body, Buf, Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderValue, ALLOW, CACHE_CONTROL, CONNECTION, CONTENT_TYPE};
use hyper::rt::ReadBufCursor;
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinSet;

use super::concurrent::{Exchange, Handlers, Slotted};
use super::gate::{Head, Verdict};
use super::listen::Listeners;
use super::peers::{Peers, Route};
use super::stream::{Reply, Streamed};
use super::threads::{self, Back, CloseOnDrop, Job, Jobs};
use crate::dispatch::AsyncMethods;
use crate::io::accept::{is_per_connection, out_of_descriptors};
use crate::service::concurrent::{Call, ConcurrentServer};
use crate::{Kind, RawJson, Server};

/// An [`HttpServer`]'s bounds. [`Settings::default`] is the production default of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The most connections open at once (0 is taken as 1). Keep it below the
    /// process's descriptor limit: a client that comes when all are open is served
    /// once the oldest idle connection has been closed for it. Default 1,000.
    pub max_connections: usize,
    /// The longest a request head may take to arrive, from the connection's start or
    /// its first byte (hyper's `header_read_timeout`, with tokio's timer); a peer that
    /// is slower is closed. Default 10 s.
    pub header_timeout: Duration,
    /// How long a keep-alive connection may stay without a request in flight before it
    /// is closed. Default 5 s.
    pub idle_timeout: Duration,
    /// How long a keep-alive connection keeps hyper's state (its read and write
    /// buffers, about 16 KiB) while it waits for its next request; past it the state
    /// is dropped, and made again at the next byte (hyper's allocations for a new
    /// connection, once per wait). A connection that waits holds its socket and its
    /// task only. Default 1 ms.
    pub release_after: Duration,
    /// The longest a request may take, its body read and its reply made: past it the
    /// answer is `503` and the connection closes. Default 30 s.
    pub request_timeout: Duration,
    /// The largest request body, in bytes: a larger one is `413`. Default 1 MiB.
    pub max_body: usize,
    /// The reply buffer, in bytes: a reply that does not fit is the codec's `-32603`
    /// (see [`Server::handle`]). Default 1 MiB + 64 KiB (a batch of errors is larger
    /// than its request).
    pub max_reply: usize,
    /// How many body and reply buffer pairs exist at most, so how many requests are
    /// read and answered at once; more wait for a pair (within their time limit).
    /// For async handlers ([`HttpServer::concurrent`]) also how many workers answer
    /// them, one per pair (see `threads.rs`). Default 64.
    pub buffers: usize,
    /// On shutdown, how long requests in flight may take to finish. Default 10 s.
    pub shutdown_grace: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_connections: 1_000,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(5),
            release_after: Duration::from_millis(1),
            request_timeout: Duration::from_secs(30),
            max_body: 1024 * 1024,
            max_reply: 1024 * 1024 + 64 * 1024,
            buffers: 64,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// A JSON-RPC 2.0 server over HTTP/1.1: a [`Server`]'s methods ([`new`](Self::new)),
/// or a [`ConcurrentServer`]'s async ones ([`concurrent`](Self::concurrent)), behind
/// the rules and bounds of the [module docs](crate::http).
///
/// ```no_run
/// use jsonrpc_slice::http::HttpServer;
/// use jsonrpc_slice::{demo, Server};
///
/// static SERVER: Server<()> = Server::new(demo::TABLE);
///
/// # async fn run() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8545").await?;
/// HttpServer::new(&SERVER, || ()).serve(listener).await
/// # }
/// ```
pub struct HttpServer<C: 'static> {
    server: Methods<C>,
    context: Arc<dyn Fn() -> C + Send + Sync>,
    gate: Option<Arc<Gate>>,
    listeners: Option<Listeners>,
    settings: Settings,
    #[cfg(feature = "websocket")]
    websocket: Option<super::websocket::WebSocket>,
}

impl<C: 'static> core::fmt::Debug for HttpServer<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HttpServer")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl<C: 'static> HttpServer<C>
where
    Server<C>: Sync,
{
    /// A server for `server`'s methods; `context` makes each request's context.
    /// [`Settings::default`] bounds it.
    pub fn new(
        server: &'static Server<C>,
        context: impl Fn() -> C + Send + Sync + 'static,
    ) -> Self {
        Self {
            server: Methods::Blocking(server),
            context: Arc::new(context),
            gate: None,
            listeners: None,
            settings: Settings::default(),
            #[cfg(feature = "websocket")]
            websocket: None,
        }
    }

    /// A server for `server`'s async methods, up to `N` calls of one request in flight
    /// at once: a batch's calls each in a slot, so a slow call does not hold up the
    /// others (the batch is answered once all are, its replies in the order they
    /// completed); `state` makes what each request's calls share ([`Call::state`]).
    /// Each request's calls run on the server's service threads (the service's futures
    /// are not `Send`): started when it starts serving, one per core (at most one per
    /// buffer pair), each with its own current-thread runtime, on which a handler's
    /// `tokio::spawn` spawns; ended when it stops. A call whose handlers may ask the
    /// client ([`Verdict::peer`]) runs on tokio's blocking pool instead. Each request
    /// is answered within [`Settings::request_timeout`]; the slots are lent from the
    /// request's buffer pair: `N + 2` frames of [`Settings::max_body`] and `N` replies
    /// of [`Settings::max_reply`]. Call it inside the tokio runtime that serves.
    ///
    /// ```no_run
    /// use jsonrpc_slice::http::HttpServer;
    /// use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
    /// use jsonrpc_slice::{async_method_table, Params, RawJson, ResultWriter, RpcError};
    ///
    /// async fn ping<'p>(_: &mut Call<'_, ()>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ///     Ok(out.raw(RawJson::NULL)?)
    /// }
    /// async_method_table! { Methods<'c, Call<'c, ()>> { "ping" => ping } }
    /// static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8545").await?;
    /// HttpServer::concurrent::<4, _>(&SERVER, || ()).serve(listener).await
    /// # }
    /// ```
    pub fn concurrent<const N: usize, T>(
        server: &'static ConcurrentServer<T>,
        state: impl Fn() -> C + Send + Sync + 'static,
    ) -> Self
    where
        T: for<'c> AsyncMethods<Call<'c, C>> + Sync + 'static,
    {
        Self {
            server: Methods::Concurrent(Arc::new(Slotted::<T, N>::new(server))),
            context: Arc::new(state),
            gate: None,
            listeners: None,
            settings: Settings::default(),
            #[cfg(feature = "websocket")]
            websocket: None,
        }
    }

    /// The same server, taking WebSocket upgrades on its address (see
    /// [`websocket`](super::websocket)).
    #[cfg(feature = "websocket")]
    #[cfg_attr(docsrs, doc(cfg(feature = "websocket")))]
    pub fn with_websocket(mut self, websocket: super::websocket::WebSocket) -> Self {
        self.websocket = Some(websocket);
        self
    }

    /// The same server, each request shown to `gate` with its body before it is
    /// answered: the gate answers it itself (a refusal), or says how it is answered (a reply as JSON or as server-sent
    /// events, the status of no reply, headers to add). See [`gate`](super::gate).
    ///
    /// ```no_run
    /// use jsonrpc_slice::http::gate::{local_origin, Verdict};
    /// use jsonrpc_slice::http::HttpServer;
    /// use jsonrpc_slice::{demo, Server};
    ///
    /// static SERVER: Server<()> = Server::new(demo::TABLE);
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8545").await?;
    /// let server = HttpServer::new(&SERVER, || ()).with_gate(|head| match head.uri.path() {
    ///     _ if !local_origin(head.headers) => Verdict::respond(hyper::StatusCode::FORBIDDEN, ""),
    ///     "/rpc" => Verdict::answer(),
    ///     _ => Verdict::respond(hyper::StatusCode::NOT_FOUND, ""),
    /// });
    /// server.serve(listener).await
    /// # }
    /// ```
    pub fn with_gate(
        mut self,
        gate: impl Fn(&Head<'_>) -> Verdict + Send + Sync + 'static,
    ) -> Self {
        self.gate = Some(Arc::new(gate));
        self
    }

    /// The same server, opening the streams its gate grants ([`Verdict::listen`]) in
    /// `listeners`, where the application sends them messages. At shutdown every
    /// stream of `listeners` ends.
    ///
    /// ```no_run
    /// use jsonrpc_slice::http::gate::Verdict;
    /// use jsonrpc_slice::http::{HttpServer, Listeners};
    /// use jsonrpc_slice::{demo, Server};
    ///
    /// static SERVER: Server<()> = Server::new(demo::TABLE);
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8545").await?;
    /// let listeners = Listeners::new(100);
    /// let server = HttpServer::new(&SERVER, || ())
    ///     .with_listeners(listeners.clone())
    ///     // Every `GET` hears the server, all in one scope.
    ///     .with_gate(|head| match *head.method {
    ///         hyper::Method::GET => Verdict::listen(0),
    ///         _ => Verdict::answer(),
    ///     });
    /// tokio::spawn(async move {
    ///     loop {
    ///         tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    ///         let _ = listeners.send(0, br#"{"jsonrpc":"2.0","method":"tick"}"#);
    ///     }
    /// });
    /// server.serve(listener).await
    /// # }
    /// ```
    pub fn with_listeners(mut self, listeners: Listeners) -> Self {
        self.listeners = Some(listeners);
        self
    }

    /// The same server with other bounds.
    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// Serves the connections `listener` accepts, for ever (an error comes only from
    /// the listener, and one that a closing connection would cure, out of
    /// descriptors, is waited out).
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        self.serve_until(listener, std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then shuts down gracefully: no more
    /// connections accepted, idle ones closed, requests in flight given
    /// [`Settings::shutdown_grace`] to finish; returns once every connection is
    /// closed.
    pub async fn serve_until(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<()> {
        let settings = self.settings;
        let workers = settings.buffers.max(1);
        // The service threads of async handlers, for as long as this serves.
        let jobs = match &self.server {
            Methods::Blocking(_) => None,
            Methods::Concurrent(_) => Some(Arc::new(Jobs::new(workers))),
        };
        // Closed however this ends (its future may be dropped, even while the threads
        // start): their threads end with it.
        let _close = jobs.clone().map(CloseOnDrop);
        if let (Some(jobs), Methods::Concurrent(handlers)) = (&jobs, &self.server) {
            let (handlers, context) = (handlers.clone(), self.context.clone());
            let worker = move |jobs, number| {
                let (handlers, context) = (handlers.clone(), context.clone());
                handlers.worker(context, jobs, number)
            };
            threads::start(jobs, Arc::new(worker)).await;
        }
        let shared = Arc::new(Shared {
            jobs,
            server: self.server,
            context: self.context,
            gate: self.gate,
            listeners: self.listeners,
            pool: Arc::new(Pool {
                state: Mutex::new(PoolState {
                    free: Vec::with_capacity(settings.buffers),
                    made: 0,
                    waiting: 0,
                }),
                returned: Notify::new(),
                most: workers,
                body: settings.max_body,
                reply: settings.max_reply,
            }),
            // Half the pairs at most: the responses their calls await need pairs too.
            peers: Arc::new(Peers::new(settings.buffers / 2)),
            conns: Mutex::new(Vec::with_capacity(settings.max_connections)),
            http1: {
                let mut builder = http1::Builder::new();
                builder
                    .timer(TokioTimer::new())
                    .header_read_timeout(settings.header_timeout);
                builder
            },
            changed: Notify::new(),
            wants_room: AtomicBool::new(false),
            epoch: Instant::now(),
            next_id: AtomicU64::new(0),
            settings,
            #[cfg(feature = "websocket")]
            websocket: self.websocket.map(super::websocket::WebSocket::start),
        });
        let mut tasks = JoinSet::new();
        let mut shutdown = pin!(shutdown);
        let result = loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                // A connection's task keeps its memory until it is joined: joined as
                // each ends, not at the next accept.
                Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
                () = shutdown.as_mut() => break Ok(()),
            };
            let stream = match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors: wait for a connection to close.
                Err(e) if out_of_descriptors(&e) => {
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(50)) => continue,
                        () = shutdown.as_mut() => break Ok(()),
                    }
                }
                // The client left before it was accepted (ECONNABORTED and kin).
                Err(e) if is_per_connection(&e) => continue,
                Err(e) => break Err(e),
            };
            tokio::select! {
                () = shared.make_room() => {}
                () = shutdown.as_mut() => break Ok(()),
            }
            let conn = shared.open();
            tasks.spawn(connection(shared.clone(), conn, stream));
        };
        drop(listener);
        // The streams opened to hear the server end (their connections then close).
        if let Some(listeners) = &shared.listeners {
            listeners.close_all();
        }
        for conn in lock(&shared.conns).iter() {
            conn.close();
        }
        let grace = shared.settings.shutdown_grace;
        let _ =
            tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
        tasks.shutdown().await;
        result
    }
}

/// A server's methods.
enum Methods<C: 'static> {
    /// Called, on the connection's task.
    Blocking(&'static Server<C>),
    /// Awaited in the concurrent service, on the service threads (`threads.rs`).
    Concurrent(Arc<dyn Handlers<C>>),
}

impl<C> Clone for Methods<C> {
    fn clone(&self) -> Self {
        match self {
            Self::Blocking(server) => Self::Blocking(server),
            Self::Concurrent(handlers) => Self::Concurrent(handlers.clone()),
        }
    }
}

/// An application's rules on a request (see [`HttpServer::with_gate`]).
type Gate = dyn Fn(&Head<'_>) -> Verdict + Send + Sync;

/// What every connection and request of one server shares.
struct Shared<C: 'static> {
    server: Methods<C>,
    /// The service threads' queue (async handlers only).
    jobs: Option<Arc<Jobs>>,
    context: Arc<dyn Fn() -> C + Send + Sync>,
    gate: Option<Arc<Gate>>,
    listeners: Option<Listeners>,
    settings: Settings,
    pool: Arc<Pool>,
    /// The calls whose handlers may ask the client, while they run.
    peers: Arc<Peers>,
    /// The open connections, oldest first.
    conns: Mutex<Vec<Arc<Conn>>>,
    /// hyper's settings for a connection (its timer, the header-read timeout).
    http1: http1::Builder,
    /// A connection closed or went idle (the latter told only while `wants_room`).
    changed: Notify,
    /// The accept loop waits for a connection to go idle: told by the request that
    /// leaves one idle (a check, rather than a wake-up per request).
    wants_room: AtomicBool,
    /// The origin of `Conn::idle_since`.
    epoch: Instant,
    next_id: AtomicU64,
    #[cfg(feature = "websocket")]
    websocket: Option<super::websocket::Running>,
}

/// One open connection, as the accept loop sees it.
pub(super) struct Conn {
    id: u64,
    /// Requests in flight.
    busy: AtomicUsize,
    /// When the last request ended (or the connection opened), in nanoseconds from
    /// `Shared::epoch`.
    idle_since: AtomicU64,
    /// When the request in flight started (HTTP/1.1 has one at a time), likewise.
    started: AtomicU64,
    /// The request in flight is past its time limit: it answers `503` when next
    /// polled. Set by the connection's task, which also polls the request.
    expired: AtomicBool,
    /// Asked to close (once).
    closing: AtomicBool,
    close: Notify,
    /// hyper's last write found the socket full (or hyper was told to yield): it may
    /// hold bytes it has not sent, so its state is not released.
    blocked: AtomicBool,
    /// The upgrade a `101` answered, taken by the connection once hyper lets it go.
    #[cfg(feature = "websocket")]
    upgrade: Mutex<Option<hyper::upgrade::OnUpgrade>>,
    /// Where the service threads give its request's buffer pair back.
    pub(super) back: Back,
}

impl Conn {
    fn close(&self) {
        if !self.closing.swap(true, Ordering::AcqRel) {
            self.close.notify_one();
        }
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while one of these is held.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<C: 'static> Shared<C> {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Waits until a connection may open: below the cap, or once the oldest idle
    /// connection has closed for it.
    async fn make_room(&self) {
        loop {
            // Raised before the connections are looked at, and a request lowers `busy`
            // before it looks at this (both sequentially consistent): a connection that
            // goes idle after the look below sees it raised, and wakes this.
            self.wants_room.store(true, Ordering::SeqCst);
            {
                let conns = lock(&self.conns);
                // At least one: a cap of 0 would never accept.
                if conns.len() < self.settings.max_connections.max(1) {
                    self.wants_room.store(false, Ordering::Relaxed);
                    return;
                }
                let idle = conns.iter().filter(|c| c.busy.load(Ordering::SeqCst) == 0);
                let closing = idle.clone().any(|c| c.closing.load(Ordering::Acquire));
                if !closing {
                    let oldest = idle.min_by_key(|c| c.idle_since.load(Ordering::Acquire));
                    if let Some(oldest) = oldest {
                        oldest.close();
                    }
                }
            }
            // A permit stored by a change since the check above wakes this at once.
            self.changed.notified().await;
        }
    }

    fn open(&self) -> Arc<Conn> {
        let conn = Arc::new(Conn {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.now()),
            started: AtomicU64::new(0),
            expired: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            close: Notify::new(),
            blocked: AtomicBool::new(false),
            #[cfg(feature = "websocket")]
            upgrade: Mutex::new(None),
            back: Back::new(),
        });
        lock(&self.conns).push(conn.clone());
        conn
    }

    fn closed(&self, conn: &Conn) {
        lock(&self.conns).retain(|c| c.id != conn.id);
        self.changed.notify_one();
    }
}

/// Serves one connection until the peer closes it or it is closed (idle, for a new
/// client, at shutdown).
async fn connection<C: 'static>(shared: Arc<Shared<C>>, conn: Arc<Conn>, stream: TcpStream)
where
    Server<C>: Sync,
{
    let _ = stream.set_nodelay(true);
    let settings = &shared.settings;
    let mut socket = Socket {
        io: TokioIo::new(stream),
        unread: Bytes::new(),
        conn: conn.clone(),
    };
    // Nothing of hyper's (its read buffer, 8 KiB taken at its first read, and its
    // write buffer) is made until the peer sends: a connection that sends nothing
    // holds its socket and this task only. It is closed as hyper would close it (the
    // header or the idle timeout, whichever is shorter), or when closed for a new
    // client or at shutdown. A keep-alive connection that waits for its next request
    // past `release_after` goes back to that state.
    let mut silent = settings.header_timeout.min(settings.idle_timeout);
    loop {
        if socket.unread.is_empty() && !first_byte(&conn, socket.io.inner(), silent).await {
            shared.closed(&conn);
            return;
        }
        match http(&shared, &conn, socket).await {
            Some(released) => socket = released,
            None => break,
        }
        let since = conn.idle_since.load(Ordering::Acquire);
        let idle_for = Duration::from_nanos(shared.now().saturating_sub(since));
        silent = settings.idle_timeout.saturating_sub(idle_for);
    }
    #[cfg(feature = "websocket")]
    let upgrade = lock(&conn.upgrade).take();
    #[cfg(feature = "websocket")]
    if let (Some(websocket), Some(upgrade)) = (&shared.websocket, upgrade) {
        // Busy while it is open: never closed to make room for a new client.
        let _open = InFlight::new(&shared, &conn);
        let close = async {
            if !conn.closing.load(Ordering::Acquire) {
                conn.close.notified().await;
            }
        };
        websocket.run(upgrade, close).await;
    }
    shared.closed(&conn);
}

/// Waits up to `silent` for the peer's next byte: `false` if it closed, said nothing
/// in time, or the connection was asked to close.
async fn first_byte(conn: &Conn, stream: &TcpStream, silent: Duration) -> bool {
    if conn.closing.load(Ordering::Acquire) {
        return false;
    }
    let mut first = [0u8; 1];
    tokio::select! {
        // `peek` waits for a byte (`readable` may wake with none); 0 is the end.
        peeked = stream.peek(&mut first) => matches!(peeked, Ok(1..)),
        () = conn.close.notified() => false,
        () = tokio::time::sleep(silent) => false,
    }
}

/// Serves `socket` with hyper until the connection ends (`None`) or has waited for
/// its next request past `release_after` (its socket back, hyper's state dropped).
async fn http<C: 'static>(
    shared: &Arc<Shared<C>>,
    conn: &Arc<Conn>,
    socket: Socket,
) -> Option<Socket>
where
    Server<C>: Sync,
{
    let settings = &shared.settings;
    let service = {
        let (shared, conn) = (shared.clone(), conn.clone());
        hyper::service::service_fn(move |req| request(shared.clone(), conn.clone(), req))
    };
    conn.blocked.store(false, Ordering::Release);
    // Bytes of a request head read before the state was released: hyper's header
    // timer for it went with the state, so the head is held to the time it had left
    // at most (it began after the last request ended).
    let resumed = !socket.unread.is_empty();
    let head_by = conn
        .idle_since
        .load(Ordering::Acquire)
        .saturating_add(u64::try_from(settings.header_timeout.as_nanos()).unwrap_or(u64::MAX));
    let mut http = shared
        .http1
        .serve_connection(socket, service)
        .with_upgrades();
    let idle = settings.idle_timeout;
    let release = settings.release_after;
    let limit = settings.request_timeout;
    let limit_ns = u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX);
    let mut closing = conn.closing.load(Ordering::Acquire);
    if closing {
        Pin::new(&mut http).graceful_shutdown();
    }
    // The state is released only once hyper has been polled, and after it has been
    // waiting `release_after` for its next request.
    let built = shared.now();
    let mut polled = false;
    loop {
        let now = shared.now();
        // The request's time limit is kept here, by this task's one sleep, rather than
        // by a timer per request: the request is polled by this same task (inside
        // `http`), so a flag set here is seen when `http` is polled next, first thing
        // below.
        let wait = if conn.busy.load(Ordering::Acquire) > 0 {
            let deadline = conn
                .started
                .load(Ordering::Acquire)
                .saturating_add(limit_ns);
            match deadline.saturating_sub(now) {
                0 => {
                    conn.expired.store(true, Ordering::Release);
                    limit
                }
                // The end of a request does not wake this loop (a wake per request
                // would cost every request a lock): one seen in flight is looked at
                // again within `BUSY_RECHECK`, so the idle timeout and the release
                // come at most that late after it.
                left => Duration::from_nanos(left).min(BUSY_RECHECK),
            }
        } else {
            let since = conn.idle_since.load(Ordering::Acquire);
            let idle_for = Duration::from_nanos(now.saturating_sub(since));
            let waited = Duration::from_nanos(now.saturating_sub(since.max(built)));
            // No request has begun since the resumed head's bytes.
            let head_open = resumed && conn.started.load(Ordering::Acquire) < built;
            if head_open && now >= head_by {
                return None;
            }
            if !closing && idle_for >= idle {
                conn.close();
            } else if polled
                && !closing
                && !head_open
                && waited >= release
                && !conn.blocked.load(Ordering::Acquire)
            {
                // No request in flight and every byte of the last reply written
                // (hyper polled to a stop just before this, see `select!` below):
                // what hyper read past it, if anything, is read first next time,
                // copied (the bytes hyper lends keep its whole read buffer).
                return http.into_parts().map(|parts| {
                    let mut socket = parts.io;
                    socket.unread = match parts.read_buf.is_empty() {
                        true => Bytes::new(),
                        false => Bytes::copy_from_slice(&parts.read_buf),
                    };
                    socket
                });
            }
            // A request that starts before this sleep ends has its limit end after
            // it: looked at then, it is never late.
            match closing {
                true => limit,
                false if head_open => Duration::from_nanos(head_by.saturating_sub(now)),
                false => idle
                    .saturating_sub(idle_for)
                    .min(match release.saturating_sub(waited) {
                        Duration::ZERO => RECHECK,
                        left => left,
                    })
                    .min(limit),
            }
        };
        tokio::select! {
            // The connection first: it is what wakes this task for each request, and
            // select!'s random start order would cost a draw per wake.
            biased;
            _ = &mut http => return None,
            () = conn.close.notified(), if !closing => {
                closing = true;
                Pin::new(&mut http).graceful_shutdown();
            }
            () = tokio::time::sleep(wait) => {}
        }
        polled = true;
    }
}

/// How soon a connection whose request was in flight when last looked at looks again.
const BUSY_RECHECK: Duration = Duration::from_millis(100);

/// How soon a connection due to release hyper's state while hyper still writes a
/// reply (the peer reads slowly) looks again.
const RECHECK: Duration = Duration::from_millis(10);

/// A connection's socket as hyper sees it: what hyper had read and not used when its
/// state was released comes first; a write that does not complete is noted in
/// [`Conn::blocked`].
pub(crate) struct Socket {
    io: TokioIo<TcpStream>,
    unread: Bytes,
    conn: Arc<Conn>,
}

impl Socket {
    /// The TCP stream, and what was read from it that hyper has not seen: for a
    /// WebSocket upgrade, which takes the socket back (after hyper's own unread
    /// bytes, `Parts::read_buf`).
    #[cfg(feature = "websocket")]
    pub(crate) fn into_tcp(self) -> (TcpStream, Bytes) {
        (self.io.into_inner(), self.unread)
    }

    fn wrote<T>(&self, polled: Poll<T>) -> Poll<T> {
        self.conn
            .blocked
            .store(polled.is_pending(), Ordering::Release);
        polled
    }
}

impl hyper::rt::Read for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.unread.is_empty() {
            let n = this.unread.len().min(buf.remaining());
            buf.put_slice(this.unread.get(..n).unwrap_or_default());
            this.unread.advance(n);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Socket {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_write(cx, buf);
        this.wrote(polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.wrote(polled)
    }

    fn is_write_vectored(&self) -> bool {
        hyper::rt::Write::is_write_vectored(&self.io)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_flush(cx);
        this.wrote(polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// Marks a connection busy while a request is in flight.
struct InFlight<'a, C: 'static> {
    shared: &'a Shared<C>,
    conn: &'a Conn,
}

impl<'a, C: 'static> InFlight<'a, C> {
    fn new(shared: &'a Shared<C>, conn: &'a Conn) -> Self {
        conn.started.store(shared.now(), Ordering::Release);
        conn.expired.store(false, Ordering::Release);
        conn.busy.fetch_add(1, Ordering::AcqRel);
        Self { shared, conn }
    }
}

impl<C: 'static> InFlight<'_, C> {
    /// A request (or a streamed reply) of `conn` ended.
    fn leave(shared: &Shared<C>, conn: &Conn) {
        conn.idle_since.store(shared.now(), Ordering::Release);
        if conn.busy.fetch_sub(1, Ordering::SeqCst) == 1 && shared.wants_room.load(Ordering::SeqCst)
        {
            shared.changed.notify_one();
        }
    }
}

impl<C: 'static> Drop for InFlight<'_, C> {
    fn drop(&mut self) {
        Self::leave(self.shared, self.conn);
    }
}

/// One HTTP request, within its time limit (kept by `connection`).
async fn request<C: 'static>(
    shared: Arc<Shared<C>>,
    conn: Arc<Conn>,
    #[allow(unused_mut)] mut req: Request<Incoming>,
) -> Result<Response<Reply>, Infallible>
where
    Server<C>: Sync,
{
    #[cfg(feature = "websocket")]
    if let Some(response) = upgrade(&shared, &conn, &mut req) {
        return Ok(response);
    }
    let _in_flight = InFlight::new(&shared, &conn);
    // Only the header map (reused for the reply) and the body are kept past here:
    // the future hyper holds, and moves, stays small.
    let (head, incoming) = req.into_parts();
    let refused = match () {
        _ if head.method != Method::POST => Some(StatusCode::METHOD_NOT_ALLOWED),
        _ if !json_content_type(&head.headers) => Some(StatusCode::UNSUPPORTED_MEDIA_TYPE),
        _ => None,
    };
    // The gate's view of the target: only kept when there is a gate.
    let target = shared.gate.as_ref().map(|_| (head.method, head.uri));
    let mut answer = pin!(answer(
        &shared,
        &conn,
        head.headers,
        target,
        refused,
        incoming
    ));
    let mut response = poll_fn(|cx| match answer.as_mut().poll(cx) {
        Poll::Ready(response) => Poll::Ready(response),
        Poll::Pending if conn.expired.load(Ordering::Acquire) => Poll::Ready(respond(
            HeaderMap::new(),
            StatusCode::SERVICE_UNAVAILABLE,
            None,
        )),
        Poll::Pending => Poll::Pending,
    })
    .await;
    // A stream goes on after this returns: the connection stays busy until its body
    // is dropped (sent, or the client gone).
    if let Reply::Stream(stream) = response.body_mut() {
        stream.busy = Some(Box::new(Busy::new(shared.clone(), conn.clone())));
    }
    Ok(response)
}

/// A connection counted busy while a streamed reply is sent (as [`InFlight`] while a
/// request is answered).
struct Busy<C: 'static> {
    shared: Arc<Shared<C>>,
    conn: Arc<Conn>,
}

impl<C: 'static> Busy<C> {
    fn new(shared: Arc<Shared<C>>, conn: Arc<Conn>) -> Self {
        conn.busy.fetch_add(1, Ordering::AcqRel);
        Self { shared, conn }
    }
}

impl<C: 'static> Drop for Busy<C> {
    fn drop(&mut self) {
        InFlight::leave(&self.shared, &self.conn);
    }
}

/// A WebSocket upgrade's answer (`101`, or `400` for a malformed one), or the request
/// back when it is not one (or the server takes no WebSocket).
#[cfg(feature = "websocket")]
fn upgrade<C: 'static>(
    shared: &Shared<C>,
    conn: &Conn,
    req: &mut Request<Incoming>,
) -> Option<Response<Reply>> {
    use super::websocket;
    if shared.websocket.is_none() || !websocket::is_upgrade(req.method(), req.headers()) {
        return None;
    }
    let Some(accept) = websocket::accept(req.headers()) else {
        return Some(respond(HeaderMap::new(), StatusCode::BAD_REQUEST, None));
    };
    *lock(&conn.upgrade) = Some(hyper::upgrade::on(req));
    let mut response = Response::new(Reply::One(None));
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(CONNECTION, HeaderValue::from_static("upgrade"));
    headers.insert(
        hyper::header::UPGRADE,
        HeaderValue::from_static("websocket"),
    );
    headers.insert(hyper::header::SEC_WEBSOCKET_ACCEPT, accept);
    Some(response)
}

/// The rules of the module docs, then the message through the codec.
/// `refused`: the status of a request the rules refuse before its body is read.
async fn answer<C: 'static>(
    shared: &Shared<C>,
    conn: &Arc<Conn>,
    headers: HeaderMap,
    target: Option<(Method, Uri)>,
    mut refused: Option<StatusCode>,
    mut incoming: Incoming,
) -> Response<Reply>
where
    Server<C>: Sync,
{
    let max_body = shared.settings.max_body;
    // A refused request's body is read all the same (a too large one up to four times
    // the limit, then dropped): the connection then stays open for the next request,
    // and a client that sends its whole body before it reads the reply gets the reply.
    let drain = max_body.saturating_mul(4);
    // hyper's body knows the declared `Content-Length` (none when chunked).
    let declared = incoming.size_hint().exact();
    if declared.is_some_and(|n| n > drain as u64) {
        return respond(headers, StatusCode::PAYLOAD_TOO_LARGE, None);
    }
    let mut taken = shared.pool.take().await;
    let buffers = taken.buffers();
    // A body that comes in one frame (the usual case) is read where hyper put it;
    // only a second frame copies them into the body buffer.
    let mut held: Option<Bytes> = None;
    let mut seen = 0;
    while let Some(frame) = poll_fn(|cx| Pin::new(&mut incoming).poll_frame(cx)).await {
        let Ok(frame) = frame else {
            refused = Some(StatusCode::BAD_REQUEST);
            break;
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        seen += data.len();
        match seen <= max_body {
            true if seen == data.len() => held = Some(data),
            true => {
                if let Some(first) = held.take() {
                    buffers.body.extend_from_slice(&first);
                }
                buffers.body.extend_from_slice(&data);
            }
            false => refused = Some(StatusCode::PAYLOAD_TOO_LARGE),
        }
        // All the declared length is here: hyper's body has nothing more to give.
        if seen > drain || declared == Some(seen as u64) {
            break;
        }
    }
    // The application's rules: on every request whose body was read whole (the
    // method and content type are the gate's to overrule).
    let readable = !matches!(
        refused,
        Some(StatusCode::PAYLOAD_TOO_LARGE | StatusCode::BAD_REQUEST)
    );
    let verdict = match (&shared.gate, &target) {
        (Some(gate), Some((method, uri))) if readable => {
            let body = match &held {
                Some(held) => &held[..],
                None => &taken.buffers().body[..],
            };
            let verdict = gate(&Head {
                method,
                uri,
                headers: &headers,
                body,
            });
            if let Some((status, why)) = &verdict.respond {
                let reply = &mut taken.buffers().reply;
                let len = why.len().min(reply.len());
                reply[..len].copy_from_slice(&why[..len]);
                let lent = (len > 0).then_some(Lent { taken, at: 0, len });
                return respond_as(headers, *status, Reply::One(lent), &verdict);
            }
            Some(verdict)
        }
        _ => None,
    };
    // A stream to hear the server: held open, with no buffer pair.
    if let (Some(verdict), Some(listeners)) = (&verdict, &shared.listeners) {
        if let Some(scope) = verdict.listen {
            drop(taken);
            let (events, leave) = listeners.open(scope);
            let stream = Reply::Stream(Streamed::listen(events, leave));
            return respond_as(headers, StatusCode::OK, stream, verdict);
        }
    }
    // A call that may ask the client, or the client's response to one.
    if let (Some(verdict), None) = (&verdict, refused) {
        if let Some(scope) = verdict.peer {
            let body = match &held {
                Some(held) => &held[..],
                None => &taken.buffers().body[..],
            };
            match peer_message(body) {
                PeerMessage::Response(id) => {
                    let response = match held.take() {
                        Some(held) => held,
                        None => Bytes::copy_from_slice(&taken.buffers().body),
                    };
                    drop(taken);
                    shared.peers.deliver(scope, id, response);
                    return respond_as(headers, verdict.no_reply, Reply::One(None), verdict);
                }
                PeerMessage::Request if verdict.events => {
                    if let Methods::Concurrent(handlers) = &shared.server {
                        if let Some(route) = shared.peers.open(scope) {
                            if let Some(first) = held.take() {
                                taken.buffers().body.extend_from_slice(&first);
                            }
                            let body = stream(shared, handlers, route, taken);
                            return respond_as(headers, StatusCode::OK, body, verdict);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let events = verdict.as_ref().is_some_and(|v| v.events);
    taken.buffers().events.clear();
    taken.buffers().keep_events = events;
    let len = match (refused, &shared.server) {
        (Some(_), _) => Ok(0),
        (None, Methods::Blocking(server)) => {
            let mut context = (shared.context)();
            let Buffers { body, reply, .. } = taken.buffers();
            let body = held.as_deref().unwrap_or(body);
            server.handle(&mut context, body, reply).map(<[u8]>::len)
        }
        (None, Methods::Concurrent(_)) => {
            if let Some(first) = held.take() {
                taken.buffers().body.extend_from_slice(&first);
            }
            // Answered by a worker of the service threads; the pair comes back in
            // the connection's slot.
            let (Some(jobs), Some(mut awaiting)) = (&shared.jobs, conn.back.send()) else {
                return respond(headers, StatusCode::SERVICE_UNAVAILABLE, None);
            };
            let limit = shared.settings.request_timeout;
            jobs.push(Job::new(taken, limit, conn.clone()));
            match awaiting.answer().await {
                (Some(back), Some(len)) => {
                    taken = back;
                    len
                }
                // Past the time limit (or a handler panicked, or the server shut
                // down first).
                _ => return respond(headers, StatusCode::SERVICE_UNAVAILABLE, None),
            }
        }
    };
    let code = match (refused, len) {
        (Some(code), _) => code,
        (None, Err(_too_small)) => StatusCode::INTERNAL_SERVER_ERROR,
        (None, Ok(0)) => verdict
            .as_ref()
            .map_or(StatusCode::NO_CONTENT, |v| v.no_reply),
        (None, Ok(len)) => {
            let len = match events {
                true => as_events(taken.buffers(), len),
                false => len,
            };
            let lent = Lent { taken, at: 0, len };
            return match &verdict {
                Some(verdict) => {
                    respond_as(headers, StatusCode::OK, Reply::One(Some(lent)), verdict)
                }
                None => respond(headers, StatusCode::OK, Some(lent)),
            };
        }
    };
    drop(taken);
    match &verdict {
        Some(verdict) if refused.is_none() => respond_as(headers, code, Reply::One(None), verdict),
        _ => respond(headers, code, None),
    }
}

/// Starts the call in `taken`'s body, whose handlers may ask the client (`route`, see
/// [`Verdict::peer`]), on the blocking pool: its events reach the body returned as
/// they are made; the pair and the range are given back at its end.
fn stream<C: 'static>(
    shared: &Shared<C>,
    handlers: &Arc<dyn Handlers<C>>,
    route: Route,
    mut taken: Taken,
) -> Reply {
    let (sender, events) = tokio::sync::mpsc::channel(super::stream::DEPTH);
    let exchange = Exchange {
        first_id: route.first_id(),
        mailbox: route.mailbox.clone(),
        events: sender,
        max_frame: shared.settings.max_body,
    };
    let (handlers, context) = (handlers.clone(), shared.context.clone());
    let limit = shared.settings.request_timeout;
    // Not awaited: the call ends on its own (answered, past its limit, or the client
    // gone).
    drop(tokio::task::spawn_blocking(move || {
        handlers.stream(&context(), taken.buffers(), limit, &exchange);
        drop((route, taken));
    }));
    Reply::Stream(Streamed::call(events))
}

/// What a message is to a call that may ask the client ([`Verdict::peer`]).
enum PeerMessage {
    /// A request with an id: its handlers may ask.
    Request,
    /// A response, with its id (a number: every id the server sends is one).
    Response(u64),
    /// Anything else: answered as usual.
    Other,
}

fn peer_message(body: &[u8]) -> PeerMessage {
    let Ok(message) = RawJson::new(body) else {
        return PeerMessage::Other;
    };
    if message.kind() != Kind::Object {
        return PeerMessage::Other;
    }
    let id = message.get("id");
    match (message.get("method"), id) {
        (Some(_), Some(_)) => PeerMessage::Request,
        (None, Some(id)) if message.get("result").is_some() || message.get("error").is_some() => {
            match (id.kind(), id.as_u64()) {
                (Kind::Number, Some(id)) => PeerMessage::Response(id),
                _ => PeerMessage::Other,
            }
        }
        _ => PeerMessage::Other,
    }
}

/// The reply's first `len` bytes made server-sent events: the messages the handlers
/// sent on their own (already events, in `events`), then the reply as one; those
/// messages are dropped when they do not fit with it. The new length.
fn as_events(buffers: &mut Buffers, len: usize) -> usize {
    use crate::frame::sse::{DATA, EVENT_END as END};
    let Buffers { reply, events, .. } = buffers;
    let room = reply.len();
    let fits = |before: usize| before + DATA.len() + len + END.len() <= room;
    let before = match (fits(events.len()), fits(0)) {
        (true, _) => events.len(),
        (false, true) => 0,
        // Not even the reply alone: it goes as JSON, whole, rather than cut.
        (false, false) => return len,
    };
    let at = before + DATA.len();
    reply.copy_within(..len, at);
    reply[..before].copy_from_slice(&events[..before]);
    reply[before..at].copy_from_slice(DATA);
    reply[at + len..at + len + END.len()].copy_from_slice(END);
    at + len + END.len()
}

/// [`respond`], then what a gate's verdict adds: its headers, and for a reply sent as
/// events or a refusal with a body, their content type.
fn respond_as(
    headers: HeaderMap,
    code: StatusCode,
    reply: Reply,
    verdict: &Verdict,
) -> Response<Reply> {
    let with_body = !matches!(reply, Reply::One(None));
    let mut response = respond_with(headers, code, reply);
    let headers = response.headers_mut();
    let events = verdict.events || verdict.listen.is_some();
    if code == StatusCode::OK && events && with_body {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    } else if with_body {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    for (name, value) in &verdict.headers {
        headers.append(name, value.clone());
    }
    response
}

/// The response: `reply` (none: an empty body) with `code` and the headers it needs,
/// in `headers`, the request's map cleared. hyper keeps the map a response is sent
/// with for the next request it reads: no request allocates one.
fn respond(headers: HeaderMap, code: StatusCode, reply: Option<Lent>) -> Response<Reply> {
    respond_with(headers, code, Reply::One(reply))
}

/// [`respond`], with any body.
fn respond_with(mut headers: HeaderMap, code: StatusCode, reply: Reply) -> Response<Reply> {
    headers.clear();
    let _ = match code {
        StatusCode::OK => {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        }
        StatusCode::METHOD_NOT_ALLOWED => headers.insert(ALLOW, HeaderValue::from_static("POST")),
        // What is left of the body is not read: the connection ends with this reply.
        StatusCode::PAYLOAD_TOO_LARGE
        | StatusCode::BAD_REQUEST
        | StatusCode::SERVICE_UNAVAILABLE => {
            headers.insert(CONNECTION, HeaderValue::from_static("close"))
        }
        _ => None,
    };
    let mut response = Response::new(reply);
    *response.status_mut() = code;
    *response.headers_mut() = headers;
    response
}

/// `application/json`, `application/json-rpc` or `application/jsonrequest`, with or
/// without parameters.
fn json_content_type(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(CONTENT_TYPE) else {
        return false;
    };
    // What nearly every client sends, without the split and trim below.
    if value.as_bytes() == b"application/json" {
        return true;
    }
    let Ok(value) = value.to_str() else {
        return false;
    };
    let mime = value.split(';').next().unwrap_or("").trim();
    [
        "application/json",
        "application/json-rpc",
        "application/jsonrequest",
    ]
    .iter()
    .any(|m| mime.eq_ignore_ascii_case(m))
}

/// A request's buffers: the body read, the reply written; for async handlers, the
/// memory their slots are lent (taken at the first such request) and where each
/// element of a batch is.
pub(super) struct Buffers {
    pub(super) body: Vec<u8>,
    pub(super) reply: Vec<u8>,
    pub(super) slots: Vec<u8>,
    pub(super) spans: Vec<(usize, usize)>,
    /// The messages handlers sent on their own, as server-sent events, when
    /// `keep_events` (a gate asked for the reply as events); else they are dropped.
    pub(super) events: Vec<u8>,
    pub(super) keep_events: bool,
    /// The outbox of a loop whose handlers may ask the client (made at the pair's
    /// first such request, then kept).
    pub(super) outbox: Vec<u8>,
}

/// The buffer pairs: at most `most` made, each reused once given back.
struct Pool {
    state: Mutex<PoolState>,
    /// A pair was given back while a request waited for one.
    returned: Notify,
    most: usize,
    body: usize,
    reply: usize,
}

// Boxed on purpose (clippy's `vec_box`): see `free`.
#[allow(clippy::vec_box)]
struct PoolState {
    /// Boxed, so that what a request and its reply move about is a pointer.
    free: Vec<Box<Buffers>>,
    made: usize,
    /// Requests waiting for a pair.
    waiting: usize,
}

impl Pool {
    /// A pair, once one is free; allocated if the pool has none spare and fewer than
    /// `most` exist.
    async fn take(self: &Arc<Self>) -> Taken {
        loop {
            {
                let mut state = lock(&self.state);
                let buffers = match state.free.pop() {
                    Some(buffers) => Some(buffers),
                    None if state.made < self.most => {
                        state.made += 1;
                        Some(Box::new(Buffers {
                            // Neither is written here: their pages stay untouched (not
                            // resident) until a body or a reply reaches them. (Two bytes
                            // more: async handlers put a single message between brackets.)
                            body: Vec::with_capacity(self.body + 2),
                            reply: vec![0; self.reply],
                            slots: Vec::new(),
                            spans: Vec::new(),
                            events: Vec::new(),
                            keep_events: false,
                            outbox: Vec::new(),
                        }))
                    }
                    None => None,
                };
                if let Some(buffers) = buffers {
                    return Taken {
                        buffers: Some(buffers),
                        pool: self.clone(),
                    };
                }
                state.waiting += 1;
            }
            // Counted out again however this wait ends (a request may be dropped at
            // its time limit while it waits).
            let _waiting = Waiting(self);
            // `notify_one` keeps a permit when no one is waiting yet: a pair given back
            // between the unlock above and this wait is not missed.
            self.returned.notified().await;
        }
    }
}

/// A request counted in `PoolState::waiting`.
struct Waiting<'a>(&'a Pool);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).waiting -= 1;
    }
}

/// A pair out of the pool: back in it when dropped (answered, sent, or given up at
/// the time limit).
pub(super) struct Taken {
    buffers: Option<Box<Buffers>>,
    pool: Arc<Pool>,
}

impl Taken {
    pub(super) fn buffers(&mut self) -> &mut Buffers {
        self.buffers.get_or_insert_with(|| {
            Box::new(Buffers {
                body: Vec::new(),
                reply: Vec::new(),
                slots: Vec::new(),
                spans: Vec::new(),
                events: Vec::new(),
                keep_events: false,
                outbox: Vec::new(),
            })
        })
    }

    fn reply(&self) -> &[u8] {
        self.buffers.as_ref().map_or(&[], |b| &b.reply)
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        if let Some(mut buffers) = self.buffers.take() {
            buffers.body.clear();
            let mut state = lock(&self.pool.state);
            state.free.push(buffers);
            if state.waiting > 0 {
                self.pool.returned.notify_one();
            }
        }
    }
}

/// A reply lent to hyper as its response body, `len` bytes of it, `at` of them sent.
pub(super) struct Lent {
    taken: Taken,
    at: usize,
    len: usize,
}

impl Buf for Lent {
    fn remaining(&self) -> usize {
        self.len - self.at
    }
    fn chunk(&self) -> &[u8] {
        self.taken.reply().get(self.at..self.len).unwrap_or(&[])
    }
    fn advance(&mut self, n: usize) {
        self.at = (self.at + n).min(self.len);
    }
}
