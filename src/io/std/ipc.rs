//! JSON-RPC 2.0 over a Unix socket, blocking (feature `std`, Unix only): [`serve`]
//! runs a [`Server`]'s methods on a [`UnixListener`], a thread per connection.
//!
//! Messages are JSON values back to back (geth's IPC, ethers' `IpcSocketProvider`)
//! or one a line (web3.py's `IPCProvider`, `socat`), both on one socket: the
//! [back-to-back framer](crate::frame::json_stream) skips the whitespace between
//! values. Each reply is written followed by `\n`. Bytes that are not a message are
//! answered once and the stream goes on at the next `{` or `[`. The async server with
//! the same framing is [`io::tokio::ipc`](crate::io::tokio::ipc) (feature `ipc`).
//!
//! Bounds, each a [`Settings`] field with a production default: at most
//! [`Settings::max_connections`] (64) connections, each on its own thread (a client
//! that comes when all are open waits in the listen backlog until one closes); a
//! peer silent for [`Settings::idle_timeout`] (10 min), or that does not take a
//! reply within [`Settings::write_timeout`] (30 s), is closed; a message is at most
//! [`MAX_FRAME`] bytes (a longer one is answered `-32600` and skipped), a reply at most
//! [`Settings::max_reply`]. A connection's buffers (the framer, the reply, the read
//! buffer) are allocated when it opens and freed when it closes.
//!
//! ```no_run
//! use jsonrpc_slice::io::std::ipc::{serve, Settings};
//! use jsonrpc_slice::{demo, Server};
//! use std::os::unix::net::UnixListener;
//!
//! static SERVER: Server<()> = Server::new(demo::TABLE);
//! let listener = UnixListener::bind("/tmp/node.ipc")?;
//! serve(&listener, &SERVER, || (), &Settings::default())?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::boxed::Box;
use std::io;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;
use std::vec;

use crate::frame::json_stream::JsonStreamAccumulator;
use crate::io::accept::{is_per_connection, out_of_descriptors};
use crate::service::Service;
use crate::Server;

/// The largest message, in bytes: the framer's buffer (a longer message is answered
/// `-32600` and skipped as it streams past).
pub const MAX_FRAME: usize = 1024 * 1024;

/// The bounds of [`serve`]. [`Settings::default`] is the production default of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The most connections open at once, each a thread (0 is taken as 1); a client
    /// that comes when all are open waits in the listen backlog until one closes.
    /// Default 64.
    pub max_connections: usize,
    /// How long a peer may send nothing before its connection is closed. Default
    /// 10 min.
    pub idle_timeout: Duration,
    /// How long a reply may wait for the peer to take it before the connection is
    /// closed. Default 30 s.
    pub write_timeout: Duration,
    /// The reply buffer, in bytes: a reply that does not fit is the codec's `-32603`.
    /// Default 1 MiB + 64 KiB.
    pub max_reply: usize,
    /// What one read of the socket takes at most, in bytes. Default 64 KiB.
    pub read_buffer: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_connections: 64,
            idle_timeout: Duration::from_secs(600),
            write_timeout: Duration::from_secs(30),
            max_reply: 1024 * 1024 + 64 * 1024,
            read_buffer: 64 * 1024,
        }
    }
}

/// Serves the connections `listener` accepts with `server`'s methods, for ever, each
/// on its own thread with a context made by `context`; returns only with an error of
/// the listener (one that a closing connection would cure, out of descriptors, is
/// waited out).
pub fn serve<C>(
    listener: &UnixListener,
    server: &'static Server<C>,
    context: impl Fn() -> C + Sync,
    settings: &Settings,
) -> io::Result<()>
where
    Server<C>: Sync,
{
    let open = Open {
        count: Mutex::new(0),
        closed: Condvar::new(),
    };
    let max = settings.max_connections.max(1);
    std::thread::scope(|scope| loop {
        open.wait_below(max);
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if out_of_descriptors(&e) => {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => return Err(e),
        };
        open.opened();
        let (open, context) = (&open, &context);
        let spawned = std::thread::Builder::new()
            .name(std::string::String::from("ipc"))
            .spawn_scoped(scope, move || {
                let _ = connection(server, &mut context(), stream, settings);
                open.close();
            });
        if spawned.is_err() {
            open.close(); // the stream went with the closure
        }
    })
}

/// How many connections are open, and a signal when one closes.
struct Open {
    count: Mutex<usize>,
    closed: Condvar,
}

impl Open {
    fn wait_below(&self, max: usize) {
        let mut count = self.count.lock().unwrap_or_else(PoisonError::into_inner);
        while *count >= max {
            count = self
                .closed
                .wait(count)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn opened(&self) {
        *self.count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
    }

    fn close(&self) {
        let mut count = self.count.lock().unwrap_or_else(PoisonError::into_inner);
        *count = count.saturating_sub(1);
        self.closed.notify_one();
    }
}

/// Serves one connection until its peer closes it, is silent past the idle timeout,
/// or does not take a reply in time.
fn connection<C>(
    server: &Server<C>,
    context: &mut C,
    mut stream: UnixStream,
    settings: &Settings,
) -> io::Result<()> {
    stream.set_read_timeout(Some(settings.idle_timeout.max(Duration::from_millis(1))))?;
    stream.set_write_timeout(Some(settings.write_timeout.max(Duration::from_millis(1))))?;
    let mut framer = Box::new(JsonStreamAccumulator::<MAX_FRAME>::new());
    let mut chunk = vec![0u8; settings.read_buffer.max(1)];
    let mut output = vec![0u8; settings.max_reply.max(1)];
    let mut service = Service::new(server, &mut *framer, &mut chunk, &mut output);
    super::serve(&mut service, context, &mut stream)
}
