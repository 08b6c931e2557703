//! Transports: the serve loops over the stream traits of other crates, one file per
//! crate (the only file that names it), each behind its own feature:
//!
//! - `std` (feature `std`): `std::io::{Read, Write}`; `std::ipc`, a blocking
//!   Unix-socket server.
//! - `embedded_io` (features `embedded-io`, `embedded-io-async`): `embedded-io` 0.6,
//!   blocking or async (a UART).
//! - `embedded_io_07` (features `embedded-io-07`, `embedded-io-async-07`): the same
//!   over 0.7.
//! - `tokio` (feature `tokio`): tokio's async streams.
//!
//! Each has one `serve` per kind of loop it has (blocking: `serve`; async:
//! `serve_async`, or `serve` where there is only the async one), driving a
//! [`Service`]. What it serves is one object that reads and writes (a `TcpStream`, a
//! UART), or a reader and a writer as a [`Split`] (stdin and stdout): the same function
//! takes either. Give the halves by value where they are references already: an
//! `embedded-io-async` `&mut T` is one more future a read. The concurrent service
//! (`service::concurrent`), whose reader and writer run at once, takes the two halves
//! (`embedded_io::Half`, `tokio::Io`).
//!
//! The loops themselves are written once, here, over the crate's own view of a
//! stream; each file only adapts its crate's traits to it.

#[cfg(any(feature = "embedded-io", feature = "embedded-io-async"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "embedded-io", feature = "embedded-io-async")))
)]
pub mod embedded_io;
#[cfg(any(feature = "embedded-io-07", feature = "embedded-io-async-07"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "embedded-io-07", feature = "embedded-io-async-07")))
)]
pub mod embedded_io_07;
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod std;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod tokio;

#[cfg(feature = "std")]
pub(crate) mod accept;

use crate::frame::Framer;
use crate::service::{Answers, ServeError, Service};

/// A reader and a writer, served as one stream: `serve(&mut service, &mut ctx, &mut
/// Split(stdin, stdout))`. Each transport's `serve` takes it where it takes one object
/// that reads and writes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Split<R, W>(pub R, pub W);

/// A blocking byte stream, as a transport file adapts its crate's (`Via` is the
/// transport's marker, so that each may adapt every type of its crate): one object
/// that reads and writes, or a [`Split`]. Implemented in this crate only.
#[doc(hidden)]
pub trait Stream<Via> {
    /// Why a read failed.
    type ReadError;
    /// Why a write failed.
    type WriteError;
    /// Reads what is there into `buf`, or 0 at the end of the input.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::ReadError>;
    /// Writes all of `bytes`.
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::WriteError>;
    /// Sends what was written.
    fn flush(&mut self) -> Result<(), Self::WriteError>;
    /// `true` if a read failed only because its time ran out (a read timeout): the
    /// client's loops then check their deadlines and read again.
    fn timed_out(_: &Self::ReadError) -> bool {
        false
    }
}

/// An async byte stream (see [`Stream`]).
#[doc(hidden)]
#[allow(async_fn_in_trait)]
pub trait AsyncStream<Via> {
    /// Why a read failed.
    type ReadError;
    /// Why a write failed.
    type WriteError;
    /// Reads what is there into `buf`, or 0 at the end of the input.
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::ReadError>;
    /// Writes all of `bytes`.
    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::WriteError>;
    /// Sends what was written.
    async fn flush(&mut self) -> Result<(), Self::WriteError>;
    /// `true` if a read failed only because its time ran out (see [`Stream`]).
    fn timed_out(_: &Self::ReadError) -> bool {
        false
    }
}

/// The blocking serve loop: send what there is, read, until done.
#[allow(dead_code)] // With no blocking transport's feature on.
pub(crate) fn run<V, C, F: Framer + ?Sized, T: Stream<V> + ?Sized>(
    service: &mut Service<'_, C, F>,
    ctx: &mut C,
    io: &mut T,
) -> Result<(), ServeError<T::ReadError, T::WriteError>> {
    loop {
        // What one read brings is answered, then flushed once, before the next read
        // (which may block): not a write to the peer per reply.
        let mut written = false;
        while let Some(reply) = service.next(ctx) {
            for piece in reply.pieces() {
                io.write_all(piece).map_err(ServeError::Write)?;
            }
            written = true;
        }
        if written {
            io.flush().map_err(ServeError::Write)?;
        }
        if service.is_done() {
            return Ok(());
        }
        match io.read(service.input_buffer()).map_err(ServeError::Read)? {
            0 => service.end_of_input(),
            n => service.received(n),
        }
    }
}

/// The async serve loop (see [`run`]), for either kind of server.
#[allow(dead_code)] // With no async transport's feature on.
pub(crate) async fn run_async<V, C, F, S, T>(
    service: &mut Service<'_, C, F, S>,
    ctx: &mut C,
    io: &mut T,
) -> Result<(), ServeError<T::ReadError, T::WriteError>>
where
    F: Framer + ?Sized,
    S: Answers<C>,
    T: AsyncStream<V> + ?Sized,
{
    loop {
        // As in `run`: one flush for what one read brings.
        let mut written = false;
        // `next_send` itself, not `next_async` around it: one future less a step.
        while let Some(reply) = S::next_send(service, ctx).await {
            for piece in reply.pieces() {
                io.write_all(piece).await.map_err(ServeError::Write)?;
            }
            written = true;
        }
        if written {
            io.flush().await.map_err(ServeError::Write)?;
        }
        if service.is_done() {
            return Ok(());
        }
        match io
            .read(service.input_buffer())
            .await
            .map_err(ServeError::Read)?
        {
            0 => service.end_of_input(),
            n => service.received(n),
        }
    }
}

/// The `embedded-io` adapters of one version of the crate (`$io`, `$io_async`: the
/// names it has in this crate; `$feature`, `$feature_async`: the features that bring
/// them): the blocking and the async `serve`, each over one object that reads and
/// writes or a [`Split`], and `Half`, the concurrent service's halves. Written once for
/// both versions: `src/io/embedded_io.rs` (0.6) and `src/io/embedded_io_07.rs` (0.7)
/// are one call each.
#[cfg(any(
    feature = "embedded-io",
    feature = "embedded-io-async",
    feature = "embedded-io-07",
    feature = "embedded-io-async-07"
))]
macro_rules! embedded_io_adapters {
    ($io:ident, $feature:literal, $io_async:ident, $feature_async:literal, $version:literal) => {
        pub use $crate::io::Split;
        pub use $crate::service::ServeError;

        #[doc = concat!("This transport's marker (`embedded-io` ", $version, ").")]
        #[doc(hidden)]
        #[derive(Debug)]
        pub enum Via {}

        #[doc = concat!("An `embedded-io-async` ", $version, " reader or writer (a UART's halves) as a")]
        /// [`Read`](crate::service::concurrent::Read) or
        /// [`Write`](crate::service::concurrent::Write) half of the concurrent
        /// service's transport. The service never drops a read it started, so the
        /// reader need not be cancel-safe.
        #[cfg(all(feature = $feature_async, feature = "concurrent"))]
        #[cfg_attr(docsrs, doc(cfg(all(feature = $feature_async, feature = "concurrent"))))]
        #[derive(Debug)]
        pub struct Half<T>(pub T);

        #[cfg(all(feature = $feature_async, feature = "concurrent"))]
        impl<T: ::$io_async::Read> $crate::service::concurrent::Read for Half<T> {
            type Error = T::Error;
            async fn read(&mut self, buf: &mut [u8]) -> Result<usize, T::Error> {
                ::$io_async::Read::read(&mut self.0, buf).await
            }
        }

        #[cfg(all(feature = $feature_async, feature = "concurrent"))]
        impl<T: ::$io_async::Write> $crate::service::concurrent::Write for Half<T> {
            type Error = T::Error;
            async fn write_all(&mut self, bytes: &[u8]) -> Result<(), T::Error> {
                ::$io_async::Write::write_all(&mut self.0, bytes).await
            }
            async fn flush(&mut self) -> Result<(), T::Error> {
                ::$io_async::Write::flush(&mut self.0).await
            }
        }

        #[cfg(feature = $feature)]
        impl<T: ::$io::Read + ::$io::Write + ?Sized> $crate::io::Stream<Via> for T {
            type ReadError = T::Error;
            type WriteError = T::Error;
            fn read(&mut self, buf: &mut [u8]) -> Result<usize, T::Error> {
                ::$io::Read::read(self, buf)
            }
            fn write_all(&mut self, bytes: &[u8]) -> Result<(), T::Error> {
                ::$io::Write::write_all(self, bytes)
            }
            fn flush(&mut self) -> Result<(), T::Error> {
                ::$io::Write::flush(self)
            }
            fn timed_out(e: &T::Error) -> bool {
                ::$io::Error::kind(e) == ::$io::ErrorKind::TimedOut
            }
        }

        #[cfg(feature = $feature)]
        impl<R: ::$io::Read, W: ::$io::Write> $crate::io::Stream<Via> for Split<R, W> {
            type ReadError = R::Error;
            type WriteError = W::Error;
            fn read(&mut self, buf: &mut [u8]) -> Result<usize, R::Error> {
                ::$io::Read::read(&mut self.0, buf)
            }
            fn write_all(&mut self, bytes: &[u8]) -> Result<(), W::Error> {
                ::$io::Write::write_all(&mut self.1, bytes)
            }
            fn flush(&mut self) -> Result<(), W::Error> {
                ::$io::Write::flush(&mut self.1)
            }
            fn timed_out(e: &R::Error) -> bool {
                ::$io::Error::kind(e) == ::$io::ErrorKind::TimedOut
            }
        }

        #[cfg(feature = $feature_async)]
        impl<T: ::$io_async::Read + ::$io_async::Write + ?Sized> $crate::io::AsyncStream<Via> for T {
            type ReadError = T::Error;
            type WriteError = T::Error;
            async fn read(&mut self, buf: &mut [u8]) -> Result<usize, T::Error> {
                ::$io_async::Read::read(self, buf).await
            }
            async fn write_all(&mut self, bytes: &[u8]) -> Result<(), T::Error> {
                ::$io_async::Write::write_all(self, bytes).await
            }
            async fn flush(&mut self) -> Result<(), T::Error> {
                ::$io_async::Write::flush(self).await
            }
            fn timed_out(e: &T::Error) -> bool {
                ::$io_async::Error::kind(e) == ::$io_async::ErrorKind::TimedOut
            }
        }

        #[cfg(feature = $feature_async)]
        impl<R: ::$io_async::Read, W: ::$io_async::Write> $crate::io::AsyncStream<Via>
            for Split<R, W>
        {
            type ReadError = R::Error;
            type WriteError = W::Error;
            async fn read(&mut self, buf: &mut [u8]) -> Result<usize, R::Error> {
                ::$io_async::Read::read(&mut self.0, buf).await
            }
            async fn write_all(&mut self, bytes: &[u8]) -> Result<(), W::Error> {
                ::$io_async::Write::write_all(&mut self.1, bytes).await
            }
            async fn flush(&mut self) -> Result<(), W::Error> {
                ::$io_async::Write::flush(&mut self.1).await
            }
            fn timed_out(e: &R::Error) -> bool {
                ::$io_async::Error::kind(e) == ::$io_async::ErrorKind::TimedOut
            }
        }

        #[doc = concat!("Serves `io` until its input ends (a read of 0 bytes) or the service's stop condition holds: one `embedded-io` ", $version)]
        /// object that reads and writes (a UART), or a reader and a writer as a
        /// [`Split`]. See [`Service`](crate::service::Service) for what is sent when.
        /// Each reply, and each message from the outbox, is written whole; what one
        /// read brings is flushed once, before the next read.
        #[cfg(feature = $feature)]
        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        pub fn serve<C, F, IO>(
            service: &mut $crate::service::Service<'_, C, F>,
            ctx: &mut C,
            io: &mut IO,
        ) -> Result<(), ServeError<IO::ReadError, IO::WriteError>>
        where
            F: $crate::frame::Framer + ?Sized,
            IO: $crate::io::Stream<Via> + ?Sized,
        {
            $crate::io::run(service, ctx, io)
        }

        /// [`serve`] over an async object that reads and writes, or an async
        /// [`Split`] (`embedded-io-async`). The service's server is a
        /// [`Server`](crate::Server) or an [`AsyncServer`](crate::AsyncServer), whose
        /// handlers are awaited.
        #[cfg(feature = $feature_async)]
        #[cfg_attr(docsrs, doc(cfg(feature = $feature_async)))]
        pub async fn serve_async<C, F, S, IO>(
            service: &mut $crate::service::Service<'_, C, F, S>,
            ctx: &mut C,
            io: &mut IO,
        ) -> Result<(), ServeError<IO::ReadError, IO::WriteError>>
        where
            F: $crate::frame::Framer + ?Sized,
            S: $crate::service::Answers<C>,
            IO: $crate::io::AsyncStream<Via> + ?Sized,
        {
            $crate::io::run_async(service, ctx, io).await
        }
    };
}

#[cfg(any(
    feature = "embedded-io",
    feature = "embedded-io-async",
    feature = "embedded-io-07",
    feature = "embedded-io-async-07"
))]
pub(crate) use embedded_io_adapters;
