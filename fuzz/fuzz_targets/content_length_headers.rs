//! `Content-Length` header blocks as clients send them, and malformed ones (issue 13,
//! items 2, 3 and 6), answered by the demo server through `service::Service` (the input
//! ended at the end), fed whole and in fuzzed chunks.
//!
//! The input is a script: `data[0] % 8 + 1` chunk sizes, then parts of 4 bytes each:
//! a kind, a length, a byte for names and values, and flags. A part is either a valid
//! message (its header block holds unknown headers of any length up to
//! `MAX_HEADER_LINE`, before and after `Content-Length`, in any case, lines ending in
//! `\r\n` or `\n`), or a malformed header block followed by its body (a length that is
//! not a number, or past `MAX_CONTENT_LENGTH`, or missing; a line without a colon; a
//! line over `MAX_HEADER_LINE`), with or without a line end after the body.
//!
//! Oracle: every valid message is answered with its own result, in order, and each
//! malformed block with exactly one `-32600` "malformed frame header", nothing else;
//! fed whole or in chunks, the same replies. (A malformed block right after another
//! one is part of the first's skipped garbage, and not answered on its own, unless it
//! starts with a `Content-Length:` line: nothing else can tell where it begins.)
#![no_main]

use jsonrpc_slice::frame::content_length::{
    ContentLengthAccumulator, MAX_CONTENT_LENGTH, MAX_HEADER_LINE,
};
use jsonrpc_slice::{demo, Server};
use jsonrpc_slice_fuzz as oracle;
use libfuzzer_sys::fuzz_target;

static SERVER: Server<()> = Server::new(demo::TABLE);

const MALFORMED: &str = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: malformed frame header"},"id":null}"#;

fn run(stream: &[u8], sizes: &[u8]) -> Vec<String> {
    let mut framer = ContentLengthAccumulator::<512>::new();
    let mut out = [0u8; 512];
    let served = oracle::served(
        &SERVER,
        &mut (),
        &mut framer,
        &mut out,
        oracle::chunks(stream, sizes),
    );
    // Each reply's body: what follows its `Content-Length` header.
    let body = |wire: &Vec<u8>| {
        let at = wire
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(0, |i| i + 4);
        String::from_utf8(wire[at..].to_vec()).expect("UTF-8")
    };
    served
        .replies
        .iter()
        .chain(&served.at_end)
        .map(body)
        .collect()
}

/// A header line other than `Content-Length`, `len` bytes long in all.
fn other(len: usize, seed: u8) -> String {
    let name = format!("X-{}", (b'a' + seed % 26) as char);
    let fill = (b'!' + seed % 90) as char;
    let fill = if fill == ':' { 'v' } else { fill };
    let value: String = std::iter::repeat(fill)
        .take(len.saturating_sub(name.len() + 2))
        .collect();
    format!("{name}: {value}")
}

fuzz_target!(|data: &[u8]| {
    let Some((_, sizes, script)) = jsonrpc_slice_fuzz::split_input(data) else {
        return;
    };
    let mut stream = String::new();
    let mut want = Vec::new();
    let mut after_malformed = false;
    for (i, part) in script.chunks_exact(4).take(16).enumerate() {
        let [kind, len, seed, flags] = [part[0], part[1], part[2], part[3]];
        let end = if flags & 1 != 0 { "\r\n" } else { "\n" };
        // Lengths up to MAX_HEADER_LINE, the limit itself often.
        let len = if len == 255 {
            MAX_HEADER_LINE
        } else {
            len as usize * 4
        };
        let id = i + 1;
        let body =
            format!(r#"{{"jsonrpc":"2.0","method":"subtract","params":[{id},1],"id":{id}}}"#);
        if kind % 2 == 0 {
            let name = ["Content-Length", "content-length", "CONTENT-length"][(seed % 3) as usize];
            let pad = ["", " ", "\t"][(flags >> 1) as usize % 3];
            let mut block = String::new();
            if flags & 8 != 0 {
                block += &other(len, seed);
                block += end;
            }
            block += &format!("{name}:{pad} {}{pad}{end}", body.len());
            if flags & 16 != 0 {
                block += &other(len / 2, seed.wrapping_add(1));
                block += end;
            }
            stream += &block;
            stream += end;
            stream += &body;
            want.push(format!(
                r#"{{"jsonrpc":"2.0","result":{},"id":{id}}}"#,
                id - 1
            ));
            after_malformed = false;
        } else {
            let which = (kind / 2) % 7;
            let header = match which {
                0 => "Content-Length: abc".to_string(),
                1 => format!(
                    "Content-Length: {}",
                    MAX_CONTENT_LENGTH + u64::from(seed) + 1
                ),
                2 => "Content-Length: 9223372036854775808".to_string(),
                3 => other(len.min(MAX_HEADER_LINE), seed),
                4 => "no colon".to_string(),
                5 => other(MAX_HEADER_LINE + 1 + len, seed),
                _ => format!(
                    "Content-Length: {}{end}{}",
                    body.len(),
                    other(MAX_HEADER_LINE + 1, seed)
                ),
            };
            stream += &header;
            stream += end;
            stream += end;
            stream += &body;
            if flags & 32 != 0 {
                stream += end;
            }
            // Kinds 3, 4 and 5 do not start with `Content-Length:`.
            if !(after_malformed && (3..=5).contains(&which)) {
                want.push(MALFORMED.to_string());
            }
            after_malformed = true;
        }
    }
    let whole = run(stream.as_bytes(), &[]);
    assert_eq!(whole, want, "stream {stream:?}");
    let chunked = run(stream.as_bytes(), sizes);
    assert_eq!(chunked, want, "chunk sizes {sizes:?}");
});
