//! `embedded-io` 0.6 adapters (features `embedded-io`, `embedded-io-async`): serve a
//! framed byte stream from a UART or any other `Read` + `Write` pair.
//!
//! The one file that names `embedded-io` types; a later major version gets a file of
//! its own.

use crate::dispatch::Server;
#[cfg(feature = "embedded-io")]
use crate::frame::answer_chunk;
#[cfg(feature = "embedded-io-async")]
use crate::frame::answer_next;
use crate::frame::{answer_end, Framer};

/// A read or a write failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ServeError<R, W> {
    /// Reading failed.
    Read(R),
    /// Writing failed.
    Write(W),
}

/// Serves `reader` until it ends (a read of 0 bytes): reads chunks into `chunk`,
/// answers every frame with `server` into `output`, and writes each framed reply to
/// `writer`, flushing after each. At the end, what the framer still holds is answered
/// too ([`answer_end`]: a last line without its newline is served).
#[cfg(feature = "embedded-io")]
#[cfg_attr(docsrs, doc(cfg(feature = "embedded-io")))]
pub fn serve<C, F, R, W>(
    server: &Server<C>,
    ctx: &mut C,
    framer: &mut F,
    reader: &mut R,
    writer: &mut W,
    chunk: &mut [u8],
    output: &mut [u8],
) -> Result<(), ServeError<R::Error, W::Error>>
where
    F: Framer + ?Sized,
    R: embedded_io::Read + ?Sized,
    W: embedded_io::Write + ?Sized,
{
    loop {
        let n = reader.read(chunk).map_err(ServeError::Read)?;
        if n == 0 {
            if let Some(reply) = answer_end(server, ctx, framer, output) {
                for piece in reply.pieces() {
                    writer.write_all(piece).map_err(ServeError::Write)?;
                }
                writer.flush().map_err(ServeError::Write)?;
            }
            return Ok(());
        }
        let input = chunk.get(..n).unwrap_or(&[]);
        answer_chunk(server, ctx, framer, input, output, |pieces| {
            for piece in pieces {
                writer.write_all(piece)?;
            }
            writer.flush()
        })
        .map_err(ServeError::Write)?;
    }
}

/// The same as [`serve`], over `embedded-io-async` streams.
#[cfg(feature = "embedded-io-async")]
#[cfg_attr(docsrs, doc(cfg(feature = "embedded-io-async")))]
pub async fn serve_async<C, F, R, W>(
    server: &Server<C>,
    ctx: &mut C,
    framer: &mut F,
    reader: &mut R,
    writer: &mut W,
    chunk: &mut [u8],
    output: &mut [u8],
) -> Result<(), ServeError<R::Error, W::Error>>
where
    F: Framer + ?Sized,
    R: embedded_io_async::Read + ?Sized,
    W: embedded_io_async::Write + ?Sized,
{
    loop {
        let n = reader.read(chunk).await.map_err(ServeError::Read)?;
        if n == 0 {
            if let Some(reply) = answer_end(server, ctx, framer, output) {
                for piece in reply.pieces() {
                    writer.write_all(piece).await.map_err(ServeError::Write)?;
                }
                writer.flush().await.map_err(ServeError::Write)?;
            }
            return Ok(());
        }
        let mut input = chunk.get(..n).unwrap_or(&[]);
        while let Some(reply) = answer_next(server, ctx, framer, &mut input, output) {
            for piece in reply.pieces() {
                writer.write_all(piece).await.map_err(ServeError::Write)?;
            }
            writer.flush().await.map_err(ServeError::Write)?;
        }
    }
}
