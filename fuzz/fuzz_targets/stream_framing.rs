//! Both framings, end to end: the same byte stream answered by the demo server through
//! `service::Service`, fed whole and cut into fuzzed chunk sizes, must give the same
//! reply bytes. Every framed reply must also be complete: a `Content-Length` header
//! whose length is its body's, or one line ending in its only `\n`; and what it frames
//! is a response or a batch of them (`oracle::responses`).
//!
//! Every run ends its input, as the serve loops do. Over
//! newline framing, a stream that does not end in `\n` must get the same replies as
//! the same stream with a `\n` after it (the last line is served at the end of input);
//! over `Content-Length` framing, the reply at the end of input, if any, is `-32700`
//! (a message cut short).
//!
//! Input: `data[0]`: bit 7 picks the framing (set: Content-Length), `k = data[0] % 8 + 1`;
//! then k chunk sizes (one byte each, 0 = an empty feed, used in a cycle); then the
//! stream.
#![no_main]

use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::Framer;
use jsonrpc_slice::{demo, Server};
use jsonrpc_slice_fuzz as oracle;
use libfuzzer_sys::fuzz_target;

static SERVER: Server<()> = Server::new(demo::TABLE);

/// The framed replies to `stream`, fed in chunks of `sizes` (empty or all zero: whole),
/// and the reply at the end of input, if any.
fn run(framer: &mut dyn Framer, stream: &[u8], sizes: &[u8]) -> (Vec<Vec<u8>>, Option<Vec<u8>>) {
    let mut out = [0u8; 512];
    let served = oracle::served(
        &SERVER,
        &mut (),
        framer,
        &mut out,
        oracle::chunks(stream, sizes),
    );
    // The end of input answers at most what the framer held: one message.
    assert!(served.at_end.len() <= 1);
    (served.replies, served.at_end.into_iter().next())
}

fuzz_target!(|data: &[u8]| {
    let Some((head, sizes, stream)) = jsonrpc_slice_fuzz::split_input(data) else {
        return;
    };
    let content_length = head & 0x80 != 0;
    let fresh = || -> Box<dyn Framer> {
        if content_length {
            Box::new(ContentLengthAccumulator::<256>::new())
        } else {
            Box::new(LineAccumulator::<256>::new())
        }
    };
    let whole = run(fresh().as_mut(), stream, &[]);
    let chunked = run(fresh().as_mut(), stream, sizes);
    assert_eq!(whole, chunked, "chunk sizes {sizes:?}");
    if content_length {
        if let Some(last) = &whole.1 {
            let want =
                br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
            assert!(
                last.ends_with(want),
                "end of input: {:?}",
                String::from_utf8_lossy(last)
            );
        }
    } else if !stream.ends_with(b"\n") {
        let mut ended = stream.to_vec();
        ended.push(b'\n');
        let (replies, last) = run(fresh().as_mut(), &ended, sizes);
        assert_eq!(last, None);
        let (mut got, last) = whole.clone();
        got.extend(last);
        assert_eq!(got, replies, "the last line, served at the end of input");
    }
    let (mut whole, last) = whole;
    whole.extend(last);
    for reply in &whole {
        if content_length {
            let text = std::str::from_utf8(reply).expect("UTF-8 reply");
            let rest = text.strip_prefix("Content-Length: ").expect("a header");
            let (len, body) = rest.split_once("\r\n\r\n").expect("a header end");
            assert_eq!(len.parse::<usize>().unwrap(), body.len());
            // A response or a batch of them; numbers kept as lexemes, since an echoed id
            // may be beyond f64 (`1E99999990`).
            oracle::responses(body.as_bytes());
        } else {
            assert_eq!(
                reply.iter().position(|&b| b == b'\n'),
                Some(reply.len() - 1)
            );
            oracle::responses(&reply[..reply.len() - 1]);
        }
    }
});
