//! A JSON-RPC 2.0 server on stdin/stdout, serving the demo method table.
//!
//! Newline-delimited: one message per line in, one reply per line out, flushed after
//! each. Frames and replies up to 64 KiB, nesting depth 128; a longer line gets
//! `-32600` with `"id":null` and the next line is served normally; blank lines are
//! skipped and a trailing `\r` is stripped.
//!
//! ```sh
//! echo '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}' \
//!   | cargo run --release --example serve
//! ```
//!
//! The buffers are allocated once at start-up; no message allocates.

use std::io::{self, Read, Write};

use jsonrpc_slice::frame::newline::{FeedResult, LineAccumulator};
use jsonrpc_slice::frame::oversized_frame_reply;
use jsonrpc_slice::{demo, Server};

/// The largest frame, in bytes.
const MAX_FRAME: usize = 64 * 1024;
/// The largest reply, in bytes (without its newline).
const MAX_REPLY: usize = 64 * 1024;

static SERVER: Server<()> = Server::new(demo::TABLE);

fn main() -> io::Result<()> {
    let mut acc = Box::new(LineAccumulator::<MAX_FRAME>::new());
    let mut out = vec![0u8; MAX_REPLY + 1];
    let mut chunk = vec![0u8; 64 * 1024];
    let stdin = io::stdin();
    let mut stdin = stdin.lock();
    let stdout = io::stdout();
    let mut stdout = stdout.lock();
    loop {
        let n = match stdin.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut input = &chunk[..n];
        loop {
            let reply = match acc.feed(input) {
                FeedResult::Consumed => break,
                FeedResult::Frame { frame, remaining } => {
                    input = remaining;
                    SERVER.handle(&mut (), frame, &mut out[..MAX_REPLY])
                }
                FeedResult::Oversized { remaining } => {
                    input = remaining;
                    oversized_frame_reply(MAX_FRAME, &mut out[..MAX_REPLY])
                }
            };
            match reply {
                Ok([]) => {}
                Ok(reply) => {
                    stdout.write_all(reply)?;
                    stdout.write_all(b"\n")?;
                    stdout.flush()?;
                }
                // Cannot happen with 64 KiB replies; say so rather than stay silent.
                Err(e) => eprintln!("serve: {e}"),
            }
        }
    }
}
