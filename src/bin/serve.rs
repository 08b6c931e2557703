//! A JSON-RPC 2.0 server on stdin/stdout, serving the demo method table.
//!
//! Newline-delimited by default: one message per line in, one reply per line out,
//! flushed after each. `--framing content-length` speaks the LSP base protocol
//! instead (`Content-Length: N` headers, replies framed the same way). `--framing
//! cobs` reads and writes COBS-encoded frames each ended by one `0x00`; `--framing
//! cobs-crc32` the same with the payload followed by its CRC-32/ISO-HDLC,
//! little-endian, before encoding (a frame whose CRC fails is dropped, not answered).
//! `--framing json` reads JSON messages written back to back with no delimiter (what
//! Ethereum clients speak over IPC) and writes each reply followed by `\n`.
//!
//! Frames and replies up to 64 KiB, nesting depth 128. A longer frame gets `-32600`
//! with `"id":null` and the next one is served normally; blank lines are skipped and a
//! trailing `\r` is stripped; a malformed header gets `-32600` (once, its body skipped
//! with it) and the stream resynchronises at the next `Content-Length:`. At the end of
//! input a last line without its newline is served, and a message cut short gets
//! `-32700` (the serve loop asks the framer what it holds at the end of input).
//!
//! ```sh
//! echo '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}' \
//!   | cargo run --release --features std
//! ```
//!
//! The buffers are allocated once at start-up; no message allocates.

use std::io;
use std::process::ExitCode;

use jsonrpc_slice::frame::cobs::{Check, CobsAccumulator};
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::json_stream::JsonStreamAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::Framer;
use jsonrpc_slice::io::std::{serve, Split};
use jsonrpc_slice::service::Service;
use jsonrpc_slice::{demo, Server};

/// The largest frame, in bytes.
const MAX_FRAME: usize = 64 * 1024;
/// The largest reply, in bytes.
const MAX_REPLY: usize = 64 * 1024;

static SERVER: Server<()> = Server::new(demo::TABLE);

const USAGE: &str = "usage: serve [--framing newline|content-length|json|cobs|cobs-crc32]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let framing = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] | ["--framing", "newline"] => "newline",
        ["--framing", f @ ("content-length" | "json" | "cobs" | "cobs-crc32")] => f,
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut framer: Box<dyn Framer> = match framing {
        "newline" => Box::new(LineAccumulator::<MAX_FRAME>::new()),
        "json" => Box::new(JsonStreamAccumulator::<MAX_FRAME>::new()),
        "cobs" => Box::new(CobsAccumulator::<MAX_FRAME>::new()),
        "cobs-crc32" => Box::new(CobsAccumulator::<MAX_FRAME>::with_check(Check::Crc32)),
        _ => Box::new(ContentLengthAccumulator::<MAX_FRAME>::new()),
    };
    let mut chunk = vec![0u8; 64 * 1024];
    let mut out = vec![0u8; MAX_REPLY];
    let mut service = Service::new(&SERVER, framer.as_mut(), &mut chunk, &mut out);
    let mut stdio = Split(io::stdin().lock(), io::stdout().lock());
    let result = serve(&mut service, &mut (), &mut stdio);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away mid-write: nothing left to answer.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("serve: {e}");
            ExitCode::FAILURE
        }
    }
}
