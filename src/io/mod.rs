//! Transports: the serve loops over the stream traits of other crates, one file per
//! crate (the only file that names it), each behind its own feature:
//!
//! - `std` ([`std`](self::std), feature `std`): `std::io::{Read, Write}`.
//! - `embedded_io` (features `embedded-io`, `embedded-io-async`): `embedded-io` 0.6,
//!   blocking or async (a UART).
//! - `embedded_io_07` (features `embedded-io-07`, `embedded-io-async-07`): the same
//!   over 0.7.
//! - `tokio` (feature `tokio`): tokio's async streams, as the concurrent service's
//!   read and write halves.
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

#[cfg(any(feature = "std", feature = "embedded-io", feature = "embedded-io-07"))]
use crate::frame::Framer;
#[cfg(any(feature = "embedded-io-async", feature = "embedded-io-async-07"))]
use crate::service::AsyncServing;
#[cfg(any(
    feature = "std",
    feature = "embedded-io",
    feature = "embedded-io-07",
    feature = "embedded-io-async",
    feature = "embedded-io-async-07"
))]
use crate::service::ServeError;
#[cfg(any(feature = "std", feature = "embedded-io", feature = "embedded-io-07"))]
use crate::service::Service;

/// A blocking byte stream, as the integration files adapt one (one object that reads
/// and writes, or a reader and a writer).
#[cfg(any(feature = "std", feature = "embedded-io", feature = "embedded-io-07"))]
pub(crate) trait Transport {
    type ReadError;
    type WriteError;
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::ReadError>;
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::WriteError>;
    fn flush(&mut self) -> Result<(), Self::WriteError>;
}

/// The blocking serve loop: send what there is, read, until done.
#[cfg(any(feature = "std", feature = "embedded-io", feature = "embedded-io-07"))]
pub(crate) fn run<C, F: Framer + ?Sized, T: Transport + ?Sized>(
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

/// An async byte stream (see [`Transport`]).
#[cfg(any(feature = "embedded-io-async", feature = "embedded-io-async-07"))]
pub(crate) trait AsyncTransport {
    type ReadError;
    type WriteError;
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::ReadError>;
    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::WriteError>;
    async fn flush(&mut self) -> Result<(), Self::WriteError>;
}

/// The async serve loop (see [`run`]).
#[cfg(any(feature = "embedded-io-async", feature = "embedded-io-async-07"))]
pub(crate) async fn run_async<C, S: AsyncServing<C> + ?Sized, T: AsyncTransport + ?Sized>(
    service: &mut S,
    ctx: &mut C,
    io: &mut T,
) -> Result<(), ServeError<T::ReadError, T::WriteError>> {
    loop {
        // As in `run`: one flush for what one read brings.
        let mut written = false;
        while let Some(reply) = service.next_send(ctx).await {
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

/// The `embedded-io` serve loops of one version of the crate (`$io`, `$io_async`:
/// the names it has in this crate; `$feature`, `$feature_async`: the features that
/// bring them), over one object that reads and writes or over a reader and a writer,
/// blocking or async. Written once for every version: `src/io/embedded_io.rs` (0.6) and
/// `src/io/embedded_io_07.rs` (0.7) are one line each.
#[cfg(any(
    feature = "embedded-io",
    feature = "embedded-io-async",
    feature = "embedded-io-07",
    feature = "embedded-io-async-07"
))]
macro_rules! embedded_io_loops {
    ($io:ident, $feature:literal, $io_async:ident, $feature_async:literal, $version:literal) => {
        pub use $crate::service::ServeError;

        /// One object that reads and writes.
        struct One<'a, T: ?Sized>(&'a mut T);

        /// A reader and a writer.
        struct Two<'a, R: ?Sized, W: ?Sized>(&'a mut R, &'a mut W);

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
        impl<T: ::$io::Read + ::$io::Write + ?Sized> $crate::io::Transport for One<'_, T> {
            type ReadError = T::Error;
            type WriteError = T::Error;
            fn read(&mut self, buf: &mut [u8]) -> Result<usize, T::Error> {
                ::$io::Read::read(self.0, buf)
            }
            fn write_all(&mut self, bytes: &[u8]) -> Result<(), T::Error> {
                ::$io::Write::write_all(self.0, bytes)
            }
            fn flush(&mut self) -> Result<(), T::Error> {
                ::$io::Write::flush(self.0)
            }
        }

        #[cfg(feature = $feature)]
        impl<R: ::$io::Read + ?Sized, W: ::$io::Write + ?Sized> $crate::io::Transport
            for Two<'_, R, W>
        {
            type ReadError = R::Error;
            type WriteError = W::Error;
            fn read(&mut self, buf: &mut [u8]) -> Result<usize, R::Error> {
                ::$io::Read::read(self.0, buf)
            }
            fn write_all(&mut self, bytes: &[u8]) -> Result<(), W::Error> {
                ::$io::Write::write_all(self.1, bytes)
            }
            fn flush(&mut self) -> Result<(), W::Error> {
                ::$io::Write::flush(self.1)
            }
        }

        #[cfg(feature = $feature_async)]
        impl<T: ::$io_async::Read + ::$io_async::Write + ?Sized> $crate::io::AsyncTransport
            for One<'_, T>
        {
            type ReadError = T::Error;
            type WriteError = T::Error;
            async fn read(&mut self, buf: &mut [u8]) -> Result<usize, T::Error> {
                ::$io_async::Read::read(self.0, buf).await
            }
            async fn write_all(&mut self, bytes: &[u8]) -> Result<(), T::Error> {
                ::$io_async::Write::write_all(self.0, bytes).await
            }
            async fn flush(&mut self) -> Result<(), T::Error> {
                ::$io_async::Write::flush(self.0).await
            }
        }

        #[cfg(feature = $feature_async)]
        impl<R: ::$io_async::Read + ?Sized, W: ::$io_async::Write + ?Sized>
            $crate::io::AsyncTransport for Two<'_, R, W>
        {
            type ReadError = R::Error;
            type WriteError = W::Error;
            async fn read(&mut self, buf: &mut [u8]) -> Result<usize, R::Error> {
                ::$io_async::Read::read(self.0, buf).await
            }
            async fn write_all(&mut self, bytes: &[u8]) -> Result<(), W::Error> {
                ::$io_async::Write::write_all(self.1, bytes).await
            }
            async fn flush(&mut self) -> Result<(), W::Error> {
                ::$io_async::Write::flush(self.1).await
            }
        }

        #[doc = concat!("Serves `io`, one `embedded-io` ", $version, " object that reads and")]
        /// writes (a UART), until its input ends (a read of 0 bytes) or the service's
        /// stop condition holds: see [`Service`](crate::service::Service) for what is sent
        /// when. Each reply, and
        /// each message from the outbox, is written whole; what one read brings is
        /// flushed once, before the next read.
        #[cfg(feature = $feature)]
        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        pub fn serve<C, F, IO>(
            service: &mut $crate::service::Service<'_, C, F>,
            ctx: &mut C,
            io: &mut IO,
        ) -> Result<(), ServeError<IO::Error, IO::Error>>
        where
            F: $crate::frame::Framer + ?Sized,
            IO: ::$io::Read + ::$io::Write + ?Sized,
        {
            $crate::io::run(service, ctx, &mut One(io))
        }

        /// [`serve`] over a reader and a writer.
        #[cfg(feature = $feature)]
        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        pub fn serve_split<C, F, R, W>(
            service: &mut $crate::service::Service<'_, C, F>,
            ctx: &mut C,
            reader: &mut R,
            writer: &mut W,
        ) -> Result<(), ServeError<R::Error, W::Error>>
        where
            F: $crate::frame::Framer + ?Sized,
            R: ::$io::Read + ?Sized,
            W: ::$io::Write + ?Sized,
        {
            $crate::io::run(service, ctx, &mut Two(reader, writer))
        }

        /// [`serve`] over an async object (`embedded-io-async`). `service` is a
        /// [`Service`](crate::service::Service), or an [`AsyncService`](crate::service::AsyncService) whose
        /// handlers are awaited.
        #[cfg(feature = $feature_async)]
        #[cfg_attr(docsrs, doc(cfg(feature = $feature_async)))]
        pub async fn serve_async<C, S, IO>(
            service: &mut S,
            ctx: &mut C,
            io: &mut IO,
        ) -> Result<(), ServeError<IO::Error, IO::Error>>
        where
            S: $crate::service::AsyncServing<C> + ?Sized,
            IO: ::$io_async::Read + ::$io_async::Write + ?Sized,
        {
            $crate::io::run_async(service, ctx, &mut One(io)).await
        }

        /// [`serve_async`] over an async reader and writer.
        #[cfg(feature = $feature_async)]
        #[cfg_attr(docsrs, doc(cfg(feature = $feature_async)))]
        pub async fn serve_async_split<C, S, R, W>(
            service: &mut S,
            ctx: &mut C,
            reader: &mut R,
            writer: &mut W,
        ) -> Result<(), ServeError<R::Error, W::Error>>
        where
            S: $crate::service::AsyncServing<C> + ?Sized,
            R: ::$io_async::Read + ?Sized,
            W: ::$io_async::Write + ?Sized,
        {
            $crate::io::run_async(service, ctx, &mut Two(reader, writer)).await
        }
    };
}

#[cfg(any(
    feature = "embedded-io",
    feature = "embedded-io-async",
    feature = "embedded-io-07",
    feature = "embedded-io-async-07"
))]
pub(crate) use embedded_io_loops;
