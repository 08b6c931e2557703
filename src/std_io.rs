//! `std::io` adapters (feature `std`): serve a framed byte stream.

use std::io::{self, Read, Write};

use crate::dispatch::Server;
use crate::frame::{answer_chunk, answer_end, Framer};

/// Serves `reader` until it ends: reads chunks into `chunk`, answers every frame with
/// `server` into `output`, and writes each framed reply to `writer`, flushing after
/// each. At the end of input, what the framer still holds is answered too
/// ([`answer_end`]: a last line without its newline is served). The buffers are the
/// caller's; nothing is allocated.
///
/// ```
/// use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
/// use jsonrpc_slice::{demo, std_io, Server};
///
/// let server = Server::new(demo::TABLE);
/// let mut framer = ContentLengthAccumulator::<1024>::new();
/// let input = b"Content-Length: 46\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"id\":\"x\"}";
/// let mut wire = Vec::new();
/// std_io::serve(&server, &mut (), &mut framer, &mut &input[..], &mut wire, &mut [0; 256], &mut [0; 1024])?;
/// assert_eq!(wire, b"Content-Length: 47\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":[\"hello\",5],\"id\":\"x\"}");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn serve<C, F: Framer + ?Sized, R: Read + ?Sized, W: Write + ?Sized>(
    server: &Server<C>,
    ctx: &mut C,
    framer: &mut F,
    reader: &mut R,
    writer: &mut W,
    chunk: &mut [u8],
    output: &mut [u8],
) -> io::Result<()> {
    loop {
        let n = match reader.read(chunk) {
            Ok(0) => {
                if let Some(reply) = answer_end(server, ctx, framer, output) {
                    for piece in reply.pieces() {
                        writer.write_all(piece)?;
                    }
                    writer.flush()?;
                }
                return Ok(());
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let input = chunk.get(..n).unwrap_or(&[]);
        answer_chunk(server, ctx, framer, input, output, |pieces| {
            for piece in pieces {
                writer.write_all(piece)?;
            }
            writer.flush()
        })?;
    }
}
