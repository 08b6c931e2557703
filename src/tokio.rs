//! `tokio` adapters (feature `tokio`): tokio's async streams as the halves of the
//! concurrent service's transport, for hosts (stdin and stdout, a socket's halves, a
//! child's pipes).
//!
//! ```no_run
//! # async fn serve() -> std::io::Result<()> {
//! use jsonrpc_slice::frame::newline::LineAccumulator;
//! use jsonrpc_slice::outbox::SharedOutbox;
//! use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Slots};
//! use jsonrpc_slice::tokio::Io;
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

#[cfg(all(unix, feature = "ipc"))]
#[cfg_attr(docsrs, doc(cfg(all(unix, feature = "ipc"))))]
pub mod ipc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::service::concurrent::{Read, Write};

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
