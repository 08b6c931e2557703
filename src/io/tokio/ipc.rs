//! JSON-RPC 2.0 over a Unix socket, as Ethereum nodes serve it (feature `ipc`, Unix
//! only): [`IpcServer`].
//!
//! Messages are JSON values, back to back (geth's IPC, ethers' `IpcSocketProvider`)
//! or one a line (web3.py's `IPCProvider`, `socat`): both on the same socket, since
//! the [back-to-back framer](crate::frame::json_stream) skips the whitespace between
//! values, line ends included. Each reply is written followed by `\n`, as geth does.
//! Bytes that are not a message are answered once (`-32700`, `-32600` for a JSON
//! scalar) and the stream goes on at the next `{` or `[` (the framer's decided cases).
//!
//! The requests of one connection run through the
//! [concurrent service](crate::service::concurrent): up to `N` of them in flight at
//! once ([`IpcServer::in_flight`], 4 by default), answered in the order they
//! complete; while all `N` run, reading stops after one more request (backpressure:
//! no queue grows). A [`MethodTable`](crate::MethodTable) of blocking handlers is a
//! table the concurrent service runs too, so an HTTP server and an IPC server share
//! one set of handlers.
//!
//! What holds a server down is bounded, each bound a named [`Settings`] field with a
//! production default:
//!
//! - **connections**: at most [`Settings::max_connections`] (64) open at once. A
//!   client that comes when all are open is accepted, and the connection that has
//!   been silent the longest (no byte from its peer) has its input ended for it, as
//!   at its idle timeout: its calls in flight are answered, then it closes and the
//!   new client is served.
//! - **time**: a connection whose peer sends nothing for [`Settings::idle_timeout`]
//!   (10 min) has its input ended: the calls in flight are answered, then it closes.
//!   A reply the peer does not read within [`Settings::write_timeout`] (30 s) closes
//!   the connection.
//! - **memory**: a message is at most [`Settings::max_frame`] bytes (1 MiB, and never
//!   more than [`MAX_FRAME`]): a longer one is skipped as it streams past and
//!   answered `-32600`, and the stream goes on. A connection takes its buffers (`N`
//!   slots of [`Settings::max_frame`] and [`Settings::max_reply`], the framer, the
//!   read buffer, the outbox) when its first byte arrives: an idle connection holds
//!   none. Their pages are touched only as far as messages reach.
//! - **shutdown**: [`IpcServer::serve_until`] stops accepting when its signal comes,
//!   ends every connection's input (the calls in flight are answered), gives them
//!   [`Settings::shutdown_grace`] (10 s), drops the rest, and removes the socket
//!   file.
//! - **the socket file**: [`IpcListener::bind`] replaces a stale socket file (one no
//!   server answers on) and refuses a live one (`AddrInUse`) or a file that is not a
//!   socket (`AlreadyExists`); the server removes the file on shutdown if it is still
//!   the one it bound.
//!
//! Every connection runs in the task that awaits [`IpcServer::serve`] (the
//! concurrent service's loop is not `Send`): a handler that blocks holds up the
//! others, so a blocking handler does little, and a slow one awaits.

use std::boxed::Box;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;
use std::vec;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{watch, Notify, Semaphore};
use tokio::task::{JoinSet, LocalSet};

use crate::frame::json_stream::JsonStreamAccumulator;
use crate::io::accept::{is_per_connection, out_of_descriptors};
use crate::outbox::LentOutbox;
use crate::service::concurrent::{Call, ConcurrentServer, LentSlots, Read, Write};
use crate::AsyncMethods;

/// The largest message a connection's framer holds, in bytes: the ceiling of
/// [`Settings::max_frame`].
pub const MAX_FRAME: usize = 1024 * 1024;

/// An [`IpcServer`]'s bounds. [`Settings::default`] is the production default of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The most connections open at once (0 is taken as 1); a client that comes when
    /// all are open is served once the connection silent the longest has had its
    /// input ended for it and closed. Default 64.
    pub max_connections: usize,
    /// How long a peer may send nothing before its connection's input is ended (its
    /// calls in flight are answered, then it closes). Default 10 min.
    pub idle_timeout: Duration,
    /// How long a write of replies may wait for the peer to read before the
    /// connection is closed. Default 30 s.
    pub write_timeout: Duration,
    /// The largest message, in bytes (at most [`MAX_FRAME`]): a longer one is
    /// answered `-32600` and skipped. Default 1 MiB.
    pub max_frame: usize,
    /// Each slot's reply buffer, in bytes: a reply that does not fit is the codec's
    /// `-32603`. Default 1 MiB + 64 KiB (a batch of errors is larger than its
    /// request).
    pub max_reply: usize,
    /// The read buffer of a connection, in bytes. Default 64 KiB.
    pub read_buffer: usize,
    /// The outbox of a connection (the replies the reader makes itself, to bytes
    /// that are not a message), in bytes. Default 4 KiB.
    pub outbox: usize,
    /// On shutdown, how long calls in flight may take to finish. Default 10 s.
    pub shutdown_grace: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_connections: 64,
            idle_timeout: Duration::from_secs(600),
            write_timeout: Duration::from_secs(30),
            max_frame: MAX_FRAME,
            max_reply: 1024 * 1024 + 64 * 1024,
            read_buffer: 64 * 1024,
            outbox: 4 * 1024,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// A JSON-RPC 2.0 server on a Unix socket: a [`ConcurrentServer`]'s methods behind
/// the framing and bounds of the [module docs](self). `N` calls of a connection run at
/// once.
///
/// ```no_run
/// use jsonrpc_slice::service::concurrent::ConcurrentServer;
/// use jsonrpc_slice::io::tokio::ipc::{IpcListener, IpcServer};
/// use jsonrpc_slice::{demo, MethodTable};
///
/// static SERVER: ConcurrentServer<MethodTable<()>> = ConcurrentServer::new(demo::TABLE);
///
/// # async fn run() -> std::io::Result<()> {
/// let listener = IpcListener::bind("/tmp/node.ipc")?;
/// IpcServer::new(&SERVER, || ()).serve(listener).await
/// # }
/// ```
pub struct IpcServer<T: 'static, S: 'static, const N: usize = 4> {
    server: &'static ConcurrentServer<T>,
    state: Arc<dyn Fn() -> S + Send + Sync>,
    settings: Settings,
}

impl<T: 'static, S: 'static, const N: usize> core::fmt::Debug for IpcServer<T, S, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IpcServer")
            .field("in_flight", &N)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

/// A bound socket: the listener, and the file it is bound to (removed on shutdown if
/// it is still this one).
#[derive(Debug)]
pub struct IpcListener {
    listener: UnixListener,
    path: PathBuf,
    /// The file's device and inode once bound.
    file: Option<(u64, u64)>,
}

impl IpcListener {
    /// Binds a Unix socket at `path`, for [`IpcServer::serve`]: a file already there
    /// is replaced if it is a socket no server answers on (left by a server that
    /// crashed); a socket a server answers on is `AddrInUse`, any other file
    /// `AlreadyExists` (neither is touched). Call it inside the tokio runtime.
    pub fn bind(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.file_type().is_socket() => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "a file that is not a socket is in the way",
                ))
            }
            Ok(_) => match std::os::unix::net::UnixStream::connect(&path) {
                Ok(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::AddrInUse,
                        "a server answers on this socket",
                    ))
                }
                // No one listens: a stale socket file.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    std::fs::remove_file(&path)?
                }
                Err(e) => return Err(e),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let listener = UnixListener::bind(&path)?;
        let file = std::fs::symlink_metadata(&path)
            .ok()
            .map(|m| (m.dev(), m.ino()));
        Ok(Self {
            listener,
            path,
            file,
        })
    }

    /// The socket file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl<T: 'static, S: 'static> IpcServer<T, S, 4> {
    /// A server for `server`'s methods; `state` makes each connection's state (what
    /// its handlers' [`Call::state`] gives). [`Settings::default`] bounds it, and 4
    /// calls of a connection run at once.
    pub fn new(
        server: &'static ConcurrentServer<T>,
        state: impl Fn() -> S + Send + Sync + 'static,
    ) -> Self {
        Self {
            server,
            state: Arc::new(state),
            settings: Settings::default(),
        }
    }
}

impl<T: 'static, S: 'static, const N: usize> IpcServer<T, S, N>
where
    T: for<'c> AsyncMethods<Call<'c, S>>,
{
    /// The same server with other bounds.
    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// The same server, running up to `M` calls of a connection at once.
    pub fn in_flight<const M: usize>(self) -> IpcServer<T, S, M> {
        IpcServer {
            server: self.server,
            state: self.state,
            settings: self.settings,
        }
    }

    /// Serves the connections of `bound`, for ever (an error comes only from the
    /// listener).
    pub async fn serve(self, bound: IpcListener) -> io::Result<()> {
        self.serve_until(bound, std::future::pending()).await
    }

    /// Serves until `shutdown` completes, then shuts down gracefully (see the
    /// [module docs](self)); returns once every connection is closed and the socket
    /// file removed.
    pub async fn serve_until(
        self,
        bound: IpcListener,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<()> {
        let settings = Rc::new(self.settings);
        let permits = Arc::new(Semaphore::new(settings.max_connections.max(1)));
        let open: Rc<RefCell<std::vec::Vec<Rc<Open>>>> = Rc::default();
        let mut next_id = 0u64;
        let (stop, stopped) = watch::channel(false);
        let local = LocalSet::new();
        let mut tasks = JoinSet::new();
        let mut shutdown = pin!(shutdown);
        let result = local
            .run_until(async {
                loop {
                    let accepted = tokio::select! {
                        accepted = bound.listener.accept() => accepted,
                        () = shutdown.as_mut() => break Ok(()),
                    };
                    while tasks.try_join_next().is_some() {}
                    let stream = match accepted {
                        Ok((stream, _)) => stream,
                        Err(e) if out_of_descriptors(&e) => {
                            tokio::select! {
                                () = tokio::time::sleep(Duration::from_millis(50)) => continue,
                                () = shutdown.as_mut() => break Ok(()),
                            }
                        }
                        Err(e) if is_per_connection(&e) => continue,
                        Err(e) => break Err(e),
                    };
                    // At the cap, the connection silent the longest ends its input for
                    // this client, which waits until a connection has closed.
                    let permit = match permits.clone().try_acquire_owned() {
                        Ok(permit) => permit,
                        Err(_) => {
                            end_silent_longest(&open.borrow());
                            tokio::select! {
                                permit = permits.clone().acquire_owned() => match permit {
                                    Ok(permit) => permit,
                                    Err(_) => break Ok(()), // never closed
                                },
                                () = shutdown.as_mut() => break Ok(()),
                            }
                        }
                    };
                    let state = (self.state)();
                    let (settings, stopped) = (settings.clone(), stopped.clone());
                    let server = self.server;
                    next_id += 1;
                    let this = Rc::new(Open {
                        id: next_id,
                        heard: Cell::new(tokio::time::Instant::now()),
                        ending: Cell::new(false),
                        end: Notify::new(),
                    });
                    open.borrow_mut().push(this.clone());
                    let open = open.clone();
                    tasks.spawn_local(async move {
                        connection::<T, S, N>(server, state, stream, &settings, stopped, &this)
                            .await;
                        open.borrow_mut().retain(|c| c.id != this.id);
                        drop(permit);
                    });
                }
            })
            .await;
        drop(bound.listener);
        remove_if_ours(&bound.path, bound.file);
        let _ = stop.send(true);
        let grace = settings.shutdown_grace;
        local
            .run_until(async {
                let all = async { while tasks.join_next().await.is_some() {} };
                let _ = tokio::time::timeout(grace, all).await;
                tasks.shutdown().await;
            })
            .await;
        result
    }
}

/// One open connection, as the accept loop sees it.
struct Open {
    id: u64,
    /// When its peer's last byte came (or it opened).
    heard: Cell<tokio::time::Instant>,
    /// Its input was ended for a new client.
    ending: Cell<bool>,
    end: Notify,
}

/// Ends the input of the open connection whose peer has been silent the longest,
/// unless one is already ending (it will close for the client waiting).
fn end_silent_longest(open: &[Rc<Open>]) {
    if open.iter().any(|c| c.ending.get()) {
        return;
    }
    if let Some(oldest) = open.iter().min_by_key(|c| c.heard.get()) {
        oldest.ending.set(true);
        // Stored if the connection is not waiting for input at this moment.
        oldest.end.notify_one();
    }
}

/// Removes the socket file at `path` if it is still the one bound (`file`: its
/// device and inode), not one another server put there since.
fn remove_if_ours(path: &Path, file: Option<(u64, u64)>) {
    let now = std::fs::symlink_metadata(path).ok();
    if file.is_some() && now.map(|m| (m.dev(), m.ino())) == file {
        let _ = std::fs::remove_file(path);
    }
}

/// Serves one connection until its input ends (the peer closed it, it was idle, or
/// the server shuts down) and its calls are answered, or a write fails.
async fn connection<T, S, const N: usize>(
    server: &'static ConcurrentServer<T>,
    state: S,
    stream: UnixStream,
    settings: &Settings,
    mut stopped: watch::Receiver<bool>,
    open: &Open,
) where
    T: for<'c> AsyncMethods<Call<'c, S>>,
{
    // Nothing is taken until the peer sends.
    let first = tokio::select! {
        readable = stream.readable() => readable.is_ok(),
        () = tokio::time::sleep(settings.idle_timeout) => false,
        _ = stopped.wait_for(|stop| *stop) => false,
        () = open.end.notified() => false,
    };
    if !first {
        return;
    }
    let frame = settings.max_frame.clamp(1, MAX_FRAME);
    let reply = settings.max_reply.max(1);
    let mut memory = vec![0u8; LentSlots::<N>::bytes(frame, reply)];
    let Some(slots) = LentSlots::<N>::new(&mut memory, frame, reply) else {
        return;
    };
    let mut queue = vec![0u8; settings.outbox.max(1)];
    let outbox = LentOutbox::new(&mut queue);
    let mut framer = Box::new(JsonStreamAccumulator::<MAX_FRAME>::new());
    let mut chunk = vec![0u8; settings.read_buffer.max(1)];
    let (read, write) = stream.into_split();
    let mut reader = Reader {
        half: read,
        idle: settings.idle_timeout,
        stopped,
        open,
    };
    let mut writer = Writer {
        half: write,
        timeout: settings.write_timeout,
    };
    let served = server
        .serve(
            &state,
            &mut *framer,
            &slots,
            &outbox,
            &mut chunk,
            &mut reader,
            &mut writer,
        )
        .await;
    if served.is_ok() {
        let timeout = settings.write_timeout;
        let _ = tokio::time::timeout(timeout, writer.half.shutdown()).await;
    }
}

/// A connection's read half: its input ends when the peer closes it, sends nothing
/// for the idle timeout, the server shuts down, or it is ended for a new client.
struct Reader<'o> {
    half: OwnedReadHalf,
    idle: Duration,
    stopped: watch::Receiver<bool>,
    open: &'o Open,
}

impl Read for Reader<'_> {
    type Error = io::Error;

    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.open.ending.get() {
            return Ok(0);
        }
        // tokio's read is cancel-safe: nothing read is lost when the others win.
        let read = tokio::select! {
            read = self.half.read(buf) => read,
            () = tokio::time::sleep(self.idle) => Ok(0),
            _ = self.stopped.wait_for(|stop| *stop) => Ok(0),
            () = self.open.end.notified() => Ok(0),
        };
        if matches!(read, Ok(1..)) {
            self.open.heard.set(tokio::time::Instant::now());
        }
        read
    }
}

/// A connection's write half: a write the peer does not take within the time limit
/// fails.
struct Writer {
    half: OwnedWriteHalf,
    timeout: Duration,
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "the peer did not read its replies")
}

impl Write for Writer {
    type Error = io::Error;

    async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let write = self.half.write_all(bytes);
        tokio::time::timeout(self.timeout, write)
            .await
            .unwrap_or_else(|_| Err(timed_out()))
    }

    async fn flush(&mut self) -> io::Result<()> {
        let flush = self.half.flush();
        tokio::time::timeout(self.timeout, flush)
            .await
            .unwrap_or_else(|_| Err(timed_out()))
    }
}
