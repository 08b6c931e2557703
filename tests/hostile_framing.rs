//! Framing under hostile and ordinary-but-untidy input (issue 13), through
//! `io::std::serve` (so this file needs the `std` feature) fed in arbitrary chunks:
//!
//! | property | test |
//! |---|---|
//! | header lines up to `MAX_HEADER_LINE` bytes, unknown headers anywhere in the block, any case, `\r\n` or `\n`: every message answered once, in order | `content_length_headers_as_clients_send_them` |
//! | a malformed header (bad or over-bound length, no length, no colon, an overlong line) with its body, with or without a line end: answered once, and every frame after it is answered | `a_malformed_header_and_its_body_are_answered_once` |
//! | a last newline message without its `\n` is served as if it had one; one cut short is `-32700` | `the_last_line_is_served_at_end_of_input` |
//! | a `Content-Length` body or header cut short by the end of input is `-32700` | `a_message_cut_short_is_a_parse_error` |
//! | a body longer than declared whose leftover reads as a header loses no frame after it (issue 39) | `a_body_longer_than_declared_loses_no_frame_after_it` |
//!
//! The reproductions of the issue are checked byte for byte in `issue_reproductions`.

use std::io::Read;

use jsonrpc_slice::frame::content_length::{
    ContentLengthAccumulator, MAX_CONTENT_LENGTH, MAX_HEADER_LINE,
};
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::Framer;
use jsonrpc_slice::io::std::{self as std_io, Split};
use jsonrpc_slice::service::Service;
use jsonrpc_slice::{demo, Server};
use proptest::prelude::*;
use serde_json::Value;

static SERVER: Server<()> = Server::new(demo::TABLE);

const MAX: usize = 4096;

/// A reader that hands out its bytes in chunks of the given sizes, in a cycle.
struct Chunked<'a> {
    bytes: &'a [u8],
    sizes: Vec<usize>,
    next: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes[self.next % self.sizes.len()].max(1);
        self.next += 1;
        let n = size.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

fn serve(framer: &mut dyn Framer, stream: &[u8], sizes: &[usize]) -> Vec<u8> {
    let reader = Chunked {
        bytes: stream,
        sizes: if sizes.is_empty() {
            vec![usize::MAX]
        } else {
            sizes.to_vec()
        },
        next: 0,
    };
    let mut wire = Vec::new();
    let (mut chunk, mut out) = ([0u8; 8192], [0u8; MAX]);
    let mut service = Service::new(&SERVER, framer, &mut chunk, &mut out);
    std_io::serve(&mut service, &mut (), &mut Split(reader, &mut wire))
        .expect("writing to a Vec cannot fail");
    wire
}

/// The replies of a newline-framed run.
fn lines(wire: &[u8]) -> Vec<Value> {
    assert!(wire.is_empty() || wire.ends_with(b"\n"), "{wire:?}");
    wire.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("a JSON reply"))
        .collect()
}

/// The replies of a `Content-Length`-framed run.
fn bodies(mut wire: &[u8]) -> Vec<Value> {
    let mut replies = Vec::new();
    while !wire.is_empty() {
        let text = std::str::from_utf8(wire).expect("UTF-8");
        let rest = text.strip_prefix("Content-Length: ").expect("a header");
        let (len, rest) = rest.split_once("\r\n\r\n").expect("a header end");
        let len: usize = len.parse().expect("a length");
        replies.push(serde_json::from_str(&rest[..len]).expect("a JSON reply"));
        wire = &rest.as_bytes()[len..];
    }
    replies
}

fn request(id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"subtract","params":[{id},1],"id":{id}}}"#)
}

fn answers(replies: &[Value], ids: &[u32]) -> bool {
    replies.len() == ids.len()
        && replies
            .iter()
            .zip(ids)
            .all(|(r, &id)| r["id"] == id && r["result"] == id - 1)
}

fn is_error(reply: &Value, code: i64) -> bool {
    reply["error"]["code"] == code && reply["id"].is_null()
}

fn content_length() -> Box<dyn Framer> {
    Box::new(ContentLengthAccumulator::<MAX>::new())
}

fn newline() -> Box<dyn Framer> {
    Box::new(LineAccumulator::<MAX>::new())
}

/// A header line other than `Content-Length`: a token name and a value of printable
/// bytes; together at most `MAX_HEADER_LINE` bytes.
fn other_header() -> impl Strategy<Value = String> {
    (
        "[A-Za-z][A-Za-z0-9-]{0,30}",
        0usize..MAX_HEADER_LINE - 40,
        "[ -~]{0,8}",
    )
        .prop_filter("not Content-Length", |(name, _, _)| {
            !name.eq_ignore_ascii_case("content-length")
        })
        .prop_map(|(name, len, tail)| {
            let mut value = "v".repeat(len);
            value.push_str(tail.trim_end());
            format!("{name}: {value}")
        })
}

/// One message with its header block: unknown headers before and after the length,
/// the name in any case, lines ending in `\r\n` or `\n`.
fn framed_message(id: u32) -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(other_header(), 0..3),
        proptest::collection::vec(other_header(), 0..3),
        any::<bool>(),
        select(vec!["Content-Length", "content-length", "CONTENT-LENGTH"]),
        select(vec!["", " ", "\t"]),
    )
        .prop_map(move |(before, after, crlf, name, pad)| {
            let body = request(id);
            let end = if crlf { "\r\n" } else { "\n" };
            let mut block = String::new();
            for h in &before {
                block.push_str(h);
                block.push_str(end);
            }
            block.push_str(&format!("{name}:{pad} {}{pad}{end}", body.len()));
            for h in &after {
                block.push_str(h);
                block.push_str(end);
            }
            block.push_str(end);
            block.push_str(&body);
            block.into_bytes()
        })
}

use proptest::sample::select;

fn sizes() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(1usize..200, 0..4)
}

/// A malformed header block, with or without the body that follows it.
fn malformed_block() -> impl Strategy<Value = Vec<u8>> {
    let body = request(999);
    (
        select(vec![
            "Content-Length: abc".to_string(),
            "Content-Length: 12x".to_string(),
            "Content-Length:".to_string(),
            "Content-Length: 9223372036854775808".to_string(),
            format!("Content-Length: {}", MAX_CONTENT_LENGTH + 1),
            "Content-Length: 99999999999999999999999999".to_string(),
            "Content-Type: only".to_string(),
            "no colon here".to_string(),
            format!("X-Long: {}", "a".repeat(MAX_HEADER_LINE)),
            format!(
                "Content-Length: 61\r\nX-Long: {}",
                "b".repeat(MAX_HEADER_LINE + 5)
            ),
        ]),
        select(vec!["", "\r\n", "\n", "\r\n\r\n"]),
    )
        .prop_map(move |(header, after_body)| {
            format!("{header}\r\n\r\n{body}{after_body}").into_bytes()
        })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn content_length_headers_as_clients_send_them(
        messages in (1u32..6).prop_flat_map(|n| {
            (1..=n).map(framed_message).collect::<Vec<_>>()
        }),
        sizes in sizes(),
    ) {
        let stream = messages.concat();
        let replies = bodies(&serve(content_length().as_mut(), &stream, &sizes));
        let ids: Vec<u32> = (1..=messages.len() as u32).collect();
        prop_assert!(answers(&replies, &ids), "{:?}", replies);
    }

    #[test]
    fn a_malformed_header_and_its_body_are_answered_once(
        bad in malformed_block(),
        after in (0u32..4).prop_flat_map(|n| {
            (1..=n).map(framed_message).collect::<Vec<_>>()
        }),
        sizes in sizes(),
    ) {
        let mut stream = bad.clone();
        stream.extend(after.concat());
        let replies = bodies(&serve(content_length().as_mut(), &stream, &sizes));
        prop_assert!(!replies.is_empty(), "no reply");
        prop_assert!(is_error(&replies[0], -32600), "{:?}", replies);
        prop_assert_eq!(
            replies[0]["error"]["message"].as_str(),
            Some("Invalid Request: malformed frame header")
        );
        let ids: Vec<u32> = (1..=after.len() as u32).collect();
        prop_assert!(answers(&replies[1..], &ids), "{:?}", replies);
    }

    #[test]
    fn the_last_line_is_served_at_end_of_input(
        n in 1u32..6,
        crlf in any::<bool>(),
        cut in proptest::option::of(1usize..60),
        sizes in sizes(),
    ) {
        let end = if crlf { "\r\n" } else { "\n" };
        let messages: Vec<String> = (1..=n).map(request).collect();
        let with_end = format!("{}{end}", messages.join(end));
        let ids: Vec<u32> = (1..=n).collect();
        let want = lines(&serve(newline().as_mut(), with_end.as_bytes(), &sizes));
        prop_assert!(answers(&want, &ids), "{:?}", want);
        let mut without = messages.join(end);
        if crlf {
            // A `\r` alone at the end is stripped as that of a `\r\n` would be.
            without.push('\r');
        }
        let got = lines(&serve(newline().as_mut(), without.as_bytes(), &sizes));
        prop_assert_eq!(&got, &want);
        if let Some(cut) = cut {
            let last = messages.last().unwrap();
            let cut_at = without.len() - last.len() - usize::from(crlf) + cut.min(last.len() - 1);
            let got = lines(&serve(newline().as_mut(), &without.as_bytes()[..cut_at], &sizes));
            prop_assert!(answers(&got[..got.len() - 1], &ids[..ids.len() - 1]), "{:?}", got);
            prop_assert!(is_error(got.last().unwrap(), -32700), "{:?}", got);
        }
    }

    #[test]
    fn a_message_cut_short_is_a_parse_error(
        n in 1u32..4,
        cut in 1usize..200,
        sizes in sizes(),
    ) {
        let messages: Vec<String> = (1..=n)
            .map(|id| {
                let body = request(id);
                format!("Content-Length: {}\r\n\r\n{body}", body.len())
            })
            .collect();
        let stream = messages.concat();
        let last = messages.last().unwrap();
        let cut_at = stream.len() - last.len() + 1 + cut % (last.len() - 1);
        let got = bodies(&serve(content_length().as_mut(), &stream.as_bytes()[..cut_at], &sizes));
        let ids: Vec<u32> = (1..n).collect();
        prop_assert!(answers(&got[..got.len() - 1], &ids), "{:?}", got);
        prop_assert!(is_error(got.last().unwrap(), -32700), "{:?}", got);
    }
}

/// Issue 39's reproduction: a body longer than its declared length leaves, before the
/// next header on the same line, text that reads as a header (`ile:///tmp/a"}}}`); the
/// `Content-Length:` inside that line starts the next message, which is answered.
#[test]
fn a_body_longer_than_declared_loses_no_frame_after_it() {
    let did_close = r#"{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///tmp/a"}}}"#;
    let subtract = request(7);
    let next = format!("Content-Length: {}\r\n\r\n{subtract}", subtract.len());
    for cut in 14..=17 {
        let leftover = &did_close[did_close.len() - cut..];
        // The leftover reads as `name: value` (the case the framer once took for an
        // unknown header).
        let (name, _) = leftover.split_once(':').expect("a colon");
        assert!(
            name.bytes().all(|b| b.is_ascii_alphanumeric()),
            "{leftover}"
        );
        let stream = format!(
            "Content-Length: {}\r\n\r\n{did_close}{next}",
            did_close.len() - cut
        );
        for sizes in [&[][..], &[1], &[7, 3]] {
            let replies = bodies(&serve(content_length().as_mut(), stream.as_bytes(), sizes));
            // The cut body is not JSON; the leftover is a malformed header line, answered
            // once; the request after it is answered.
            assert_eq!(replies.len(), 3, "cut {cut}: {replies:?}");
            assert!(is_error(&replies[0], -32700), "cut {cut}: {replies:?}");
            assert!(is_error(&replies[1], -32600), "cut {cut}: {replies:?}");
            assert!(answers(&replies[2..], &[7]), "cut {cut}: {replies:?}");
        }
    }
}

/// The issue's reproductions, against the demo server with the serve example's sizes.
#[test]
fn issue_reproductions() {
    let wire = |framer: &mut dyn Framer, stream: &[u8]| {
        String::from_utf8(serve(framer, stream, &[])).expect("UTF-8")
    };
    let subtract = r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;
    let result = r#"{"jsonrpc":"2.0","result":19,"id":1}"#;
    let malformed = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: malformed frame header"},"id":null}"#;
    let framed = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    // 2: a header line of 128 bytes or more.
    let long = format!(
        "Content-Length: 61\r\nContent-Type: application/json; {:096}\r\n\r\n{subtract}",
        0
    );
    assert_eq!(
        wire(content_length().as_mut(), long.as_bytes()),
        framed(result)
    );
    // 3: a malformed header with its body.
    let bad = format!("Content-Length: abc\r\n\r\n{subtract}\r\n");
    assert_eq!(
        wire(content_length().as_mut(), bad.as_bytes()),
        framed(malformed)
    );
    // 4: the last request without a trailing newline.
    assert_eq!(
        wire(newline().as_mut(), subtract.as_bytes()),
        format!("{result}\n")
    );
    // 6: a length past the sanity bound swallows nothing after it.
    let huge = format!(
        "Content-Length: 9223372036854775808\r\n\r\n{subtract}{}",
        framed(subtract)
    );
    assert_eq!(
        wire(content_length().as_mut(), huge.as_bytes()),
        format!("{}{}", framed(malformed), framed(result))
    );
}
