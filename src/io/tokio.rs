//! `tokio` (feature `tokio`): tokio's async streams, for hosts. [`serve`] runs a
//! [`Service`] (one message at a time) over one stream that reads and writes (a
//! `TcpStream`) or a reader and a writer as a [`Split`]; [`Io`] makes a stream (stdin
//! and stdout, a socket's halves, a child's pipes) a half of the concurrent service's
//! transport:
//!
//! ```no_run
//! # async fn serve() -> std::io::Result<()> {
//! use jsonrpc_slice::frame::newline::LineAccumulator;
//! use jsonrpc_slice::outbox::SharedOutbox;
//! use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Slots};
//! use jsonrpc_slice::io::tokio::Io;
//! use jsonrpc_slice::{async_method_table, Params, RawJson, ResultWriter, RpcError};
//!
//! async fn ping<'p>(_: &mut Call<'_, ()>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
//!     Ok(out.raw(RawJson::NULL)?)
//! }
//! async_method_table! { Methods<'c, Call<'c, ()>> { "ping" => ping } }
//! static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);
//!
//! let slots = Box::new(Slots::<8, 65536, 65536>::new());
//! let outbox = SharedOutbox::<65536>::new();
//! let mut framer = Box::new(LineAccumulator::<65536>::new());
//! let mut chunk = vec![0u8; 65536];
//! let (mut stdin, mut stdout) = (Io(tokio::io::stdin()), Io(tokio::io::stdout()));
//! SERVER
//!     .serve(&(), &mut *framer, &*slots, &outbox, &mut chunk, &mut stdin, &mut stdout)
//!     .await
//!     .map_err(|e| match e {
//!         jsonrpc_slice::service::ServeError::Read(e) | jsonrpc_slice::service::ServeError::Write(e) => e,
//!     })
//! # }
//! ```

use std::io;

#[cfg(feature = "stdio")]
#[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
pub mod stdio;

#[cfg(all(unix, feature = "ipc"))]
#[cfg_attr(docsrs, doc(cfg(all(unix, feature = "ipc"))))]
pub mod ipc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

pub use super::Split;
use super::{run_async, AsyncStream};
use crate::frame::Framer;
use crate::service::concurrent::{Read, Write};
use crate::service::{Answers, ServeError, Service};

/// This transport's marker (see [`AsyncStream`]).
#[doc(hidden)]
#[derive(Debug)]
pub enum Via {}

impl<T: AsyncRead + AsyncWrite + Unpin + ?Sized> AsyncStream<Via> for T {
    type ReadError = io::Error;
    type WriteError = io::Error;
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        AsyncReadExt::read(self, buf).await
    }
    async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        AsyncWriteExt::write_all(self, bytes).await
    }
    async fn flush(&mut self) -> io::Result<()> {
        AsyncWriteExt::flush(self).await
    }
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> AsyncStream<Via> for Split<R, W> {
    type ReadError = io::Error;
    type WriteError = io::Error;
    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).await
    }
    async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.1.write_all(bytes).await
    }
    async fn flush(&mut self) -> io::Result<()> {
        self.1.flush().await
    }
}

/// Serves `io` until its input ends or the service's stop condition holds: one tokio
/// stream that reads and writes, or a reader and a writer as a [`Split`]. The
/// service's server is a [`Server`](crate::Server) or an
/// [`AsyncServer`](crate::AsyncServer) (its handlers awaited, one message at a
/// time); see [`Service`] for what is sent when, and the concurrent service for
/// several calls in flight. What one read brings is flushed once, before the next
/// read.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use jsonrpc_slice::frame::newline::LineAccumulator;
/// use jsonrpc_slice::io::tokio::{serve, Split};
/// use jsonrpc_slice::service::Service;
/// use jsonrpc_slice::{demo, Server};
///
/// static SERVER: Server<()> = Server::new(demo::TABLE);
/// let mut framer = LineAccumulator::<1024>::new();
/// let (mut chunk, mut output) = ([0u8; 256], [0u8; 1024]);
/// let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut output);
/// let input = b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1,2],\"id\":1}\n";
/// let mut wire = Vec::new();
/// serve(&mut service, &mut (), &mut Split(&input[..], &mut wire)).await?;
/// assert_eq!(wire, b"{\"jsonrpc\":\"2.0\",\"result\":3,\"id\":1}\n");
/// # Ok(())
/// # }
/// ```
pub async fn serve<C, F, S, IO>(
    service: &mut Service<'_, C, F, S>,
    ctx: &mut C,
    io: &mut IO,
) -> io::Result<()>
where
    F: Framer + ?Sized,
    S: Answers<C>,
    IO: AsyncStream<Via, ReadError = io::Error, WriteError = io::Error> + ?Sized,
{
    run_async(service, ctx, io).await.map_err(|e| match e {
        ServeError::Read(e) | ServeError::Write(e) => e,
    })
}

/// A tokio stream (or one half of one) as a [`Read`] or [`Write`] half of the
/// concurrent service's transport.
#[derive(Debug)]
pub struct Io<T>(pub T);

impl<T: AsyncRead + Unpin> Read for Io<T> {
    type Error = io::Error;

    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, io::Error> {
        self.0.read(buf).await
    }
}

impl<T: AsyncWrite + Unpin> Write for Io<T> {
    type Error = io::Error;

    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), io::Error> {
        self.0.write_all(bytes).await
    }

    async fn flush(&mut self) -> Result<(), io::Error> {
        self.0.flush().await
    }
}
