//! `std::io` adapters (feature `std`): serve a framed byte stream — one object that
//! reads and writes (a `TcpStream`), or a reader and a writer (stdin and stdout). The
//! loop is [`Service`]'s.

use std::io::{self, Read, Write};

use super::{run, Transport};
use crate::frame::Framer;
use crate::service::{ServeError, Service};

/// One object that reads and writes.
struct One<'a, T: ?Sized>(&'a mut T);

/// A reader and a writer.
struct Two<'a, R: ?Sized, W: ?Sized>(&'a mut R, &'a mut W);

/// A read, retried when interrupted by a signal.
fn read(reader: &mut (impl Read + ?Sized), buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            done => return done,
        }
    }
}

impl<T: Read + Write + ?Sized> Transport for One<'_, T> {
    type ReadError = io::Error;
    type WriteError = io::Error;
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read(self.0, buf)
    }
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.write_all(bytes)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl<R: Read + ?Sized, W: Write + ?Sized> Transport for Two<'_, R, W> {
    type ReadError = io::Error;
    type WriteError = io::Error;
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read(self.0, buf)
    }
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.1.write_all(bytes)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.1.flush()
    }
}

fn one_error(e: ServeError<io::Error, io::Error>) -> io::Error {
    match e {
        ServeError::Read(e) | ServeError::Write(e) => e,
    }
}

/// Serves `io`, one object that reads and writes (a `TcpStream`, a serial port), until
/// its input ends or the service's stop condition holds: see [`Service`] for what is
/// sent when. Each reply, and each message from the outbox, is written whole; what one
/// read brings is flushed once, before the next read. The buffers are the service's; nothing is allocated.
pub fn serve<C, F: Framer + ?Sized, IO: Read + Write + ?Sized>(
    service: &mut Service<'_, C, F>,
    ctx: &mut C,
    io: &mut IO,
) -> io::Result<()> {
    run(service, ctx, &mut One(io)).map_err(one_error)
}

/// [`serve`] over a reader and a writer (stdin and stdout).
///
/// ```
/// use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
/// use jsonrpc_slice::service::Service;
/// use jsonrpc_slice::io::std as std_io;
/// use jsonrpc_slice::{demo, Server};
///
/// static SERVER: Server<()> = Server::new(demo::TABLE);
/// let mut framer = ContentLengthAccumulator::<1024>::new();
/// let (mut chunk, mut output) = ([0u8; 256], [0u8; 1024]);
/// let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut output);
/// let input = b"Content-Length: 46\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"id\":\"x\"}";
/// let mut wire = Vec::new();
/// std_io::serve_split(&mut service, &mut (), &mut &input[..], &mut wire)?;
/// assert_eq!(wire, b"Content-Length: 47\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":[\"hello\",5],\"id\":\"x\"}");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn serve_split<C, F: Framer + ?Sized, R: Read + ?Sized, W: Write + ?Sized>(
    service: &mut Service<'_, C, F>,
    ctx: &mut C,
    reader: &mut R,
    writer: &mut W,
) -> io::Result<()> {
    run(service, ctx, &mut Two(reader, writer)).map_err(one_error)
}
