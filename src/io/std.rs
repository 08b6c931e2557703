//! `std::io` (feature `std`): serve a framed byte stream, one object that reads and
//! writes (a `TcpStream`) or a reader and a writer as a [`Split`] (stdin and stdout).
//! The loop is [`Service`]'s.

use std::io::{self, Read, Write};

#[cfg(unix)]
#[cfg_attr(docsrs, doc(cfg(unix)))]
pub mod ipc;

pub use super::Split;
use super::{run, Stream};
use crate::frame::Framer;
use crate::service::{ServeError, Service};

/// This transport's marker (see [`Stream`]).
#[doc(hidden)]
#[derive(Debug)]
pub enum Via {}

/// A read that ran out of time (a read timeout: `WouldBlock` on Unix, `TimedOut` on
/// Windows).
fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// A read, retried when interrupted by a signal.
fn read(reader: &mut (impl Read + ?Sized), buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            done => return done,
        }
    }
}

impl<T: Read + Write + ?Sized> Stream<Via> for T {
    type ReadError = io::Error;
    type WriteError = io::Error;
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read(self, buf)
    }
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(self, bytes)
    }
    fn flush(&mut self) -> io::Result<()> {
        Write::flush(self)
    }
    fn timed_out(e: &io::Error) -> bool {
        timed_out(e)
    }
}

impl<R: Read, W: Write> Stream<Via> for Split<R, W> {
    type ReadError = io::Error;
    type WriteError = io::Error;
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read(&mut self.0, buf)
    }
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.1.write_all(bytes)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.1.flush()
    }
    fn timed_out(e: &io::Error) -> bool {
        timed_out(e)
    }
}

/// Serves `io` until its input ends or the service's stop condition holds: one object
/// that reads and writes (a `TcpStream`, a serial port), or a reader and a writer as
/// a [`Split`]. See [`Service`] for what is sent when. Each reply, and each message
/// from the outbox, is written whole; what one read brings is flushed once, before
/// the next read. The buffers are the service's; nothing is allocated.
///
/// ```
/// use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
/// use jsonrpc_slice::io::std::{serve, Split};
/// use jsonrpc_slice::service::Service;
/// use jsonrpc_slice::{demo, Server};
///
/// static SERVER: Server<()> = Server::new(demo::TABLE);
/// let mut framer = ContentLengthAccumulator::<1024>::new();
/// let (mut chunk, mut output) = ([0u8; 256], [0u8; 1024]);
/// let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut output);
/// let input = b"Content-Length: 46\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"id\":\"x\"}";
/// let mut wire = Vec::new();
/// serve(&mut service, &mut (), &mut Split(&input[..], &mut wire))?;
/// assert_eq!(wire, b"Content-Length: 47\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":[\"hello\",5],\"id\":\"x\"}");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn serve<C, F, IO>(service: &mut Service<'_, C, F>, ctx: &mut C, io: &mut IO) -> io::Result<()>
where
    F: Framer + ?Sized,
    IO: Stream<Via, ReadError = io::Error, WriteError = io::Error> + ?Sized,
{
    run(service, ctx, io).map_err(|e| match e {
        ServeError::Read(e) | ServeError::Write(e) => e,
    })
}
