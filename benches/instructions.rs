//! The instruction-count bench: one job, `N` times, inside one function that
//! `benches/instructions.sh` and `benches/per_byte.sh` have callgrind count
//! (`--toggle-collect`), so the count divided by `N` is the instructions one job costs,
//! start-up and setup excluded.
//!
//! ```text
//! instructions <implementation> <message stem> <N>    one bench message, N times
//! instructions reply <implementation> <N>             message 01 answered end to end
//! instructions per-byte <job> <bytes> <N>             a scaling job (below), N times
//! instructions check                                  all implementations agree (what `cargo bench` runs)
//! instructions messages                               writes bench messages 11 and 12 (`common/text.rs`)
//! ```
//!
//! The reply job (every implementation): parse message 01
//! (`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`), look the method up,
//! subtract the params, write `{"jsonrpc":"2.0","result":19,"id":1}` into a reused
//! buffer (`benches/common/mod.rs` has each).
//!
//! The per-byte jobs, for a size of `bytes` (of the string):
//!
//! - `parse-ascii`: `envelope::parse` of
//!   `{"jsonrpc":"2.0","method":"log","params":["<string>"],"id":1}` whose string is plain
//!   printable ASCII (`a`–`z`, digits and spaces, no escape).
//! - `parse-mixed`: the same with non-ASCII text: [`MIXED`](per_byte_text::MIXED) (French with accents, then
//!   Japanese and Chinese; 2- and 3-byte UTF-8, no escape) repeated, cut at a character
//!   boundary and filled up to the size with `.`.
//! - `parse-source`: the same with source-like text: [`SOURCE`](per_byte_text::SOURCE) (Rust-like lines with
//!   `\n` and `\"` escapes among raw é, €, 東京) repeated whole, to at least the size.
//! - `skip-source`: `parse-source`, then the string passed over by `RawJson::elements`
//!   (the trusted skip).
//! - `unescape-ascii`, `unescape-mixed`, `unescape-source`, `unescape-escaped`: the
//!   string of the parse jobs' request (`escaped`: the string of `parse-escaped`),
//!   parsed once, decoded by `RawStr::unescape_into` into a buffer (the decode alone).
//! - `write-ascii`: `ResultWriter::str` of the plain ASCII string into a buffer (a
//!   bare writer, `ResultWriter::new`: the string as a JSON value, no envelope).
//! - `write-escaped`: the same with every 8th byte a newline (`abcdefg\n` repeated),
//!   which the writer must write as `\n`.
//! - `parse-items`: `envelope::parse` of a request whose params are an array of message
//!   08's items (about `bytes` of them); `skip-items`: the same, then every item passed
//!   over by `RawJson::elements` (the trusted skip a handler's lazy access runs).
//! - `parse-escaped`, `skip-escaped`: the same with params `["<abcdefg\n repeated>",1]`
//!   (an escape every 9 bytes of the string).
//! - `path-at`, `path-chain`: the same string as the text of an LSP `didChange`,
//!   params `{"contentChanges":[{"text":"<abcdefg\n repeated>"}],"textDocument":{…}}`,
//!   parsed, then `contentChanges[0].text` reached by `RawJson::at` (one walk) or by
//!   the chain `get("contentChanges")`, `nth(0)`, `get("text")` (the text passed once
//!   per level).
//!
//! Run `benches/instructions.sh` for the table, `benches/per_byte.sh` for the per-byte
//! slopes.

mod common;
#[path = "per_byte_text.rs"]
mod per_byte_text;

use std::hint::black_box;

use common::{job, messages, Job, ReplyJob};
use jsonrpc_slice::envelope::{self, Call, Envelope};
use jsonrpc_slice::raw::Step::{Index, Key};
use jsonrpc_slice::{Limits, ResultWriter};
use per_byte_text::{repeat_to, request, text_of, ASCII};

/// With `STEPCOUNT_MARKERS` set, stops the process (`SIGSTOP`) for
/// `benches/stepcount.rs`, which single-steps from one stop to the next: the measured
/// call between two markers. Without it, nothing.
fn marker(on: bool) {
    if on {
        // SAFETY: raise(3) with a valid signal number; the tracer resumes the process.
        unsafe { libc::raise(libc::SIGSTOP) };
    }
}

/// Counted by callgrind: everything under this function, nothing else.
#[inline(never)]
fn measured_loop(job: &mut dyn FnMut(&[u8]) -> u64, msg: &[u8], n: usize) -> u64 {
    let mut acc = 0u64;
    for _ in 0..n {
        acc = acc.wrapping_add(job(black_box(msg)));
    }
    acc
}

#[inline(never)]
fn measured_reply(job: &mut ReplyJobFn, msg: &[u8], out: &mut Vec<u8>, n: usize) -> usize {
    let mut acc = 0usize;
    for _ in 0..n {
        acc = acc.wrapping_add(job(black_box(msg), black_box(&mut *out)));
    }
    acc
}

type ReplyJobFn = dyn FnMut(&[u8], &mut Vec<u8>) -> usize;

/// The input and the job of a per-byte mode, and the digest each call must return.
fn per_byte(what: &str, bytes: usize) -> (Vec<u8>, Job, u64) {
    let write = |text: String| -> (Vec<u8>, Job, u64) {
        // The writer's output, checked once against serde_json's.
        let want = serde_json::to_vec(&text).unwrap();
        let mut check = vec![0u8; 2 * text.len() + 64];
        let mut w = ResultWriter::new(&mut check);
        w.str(&text).unwrap();
        assert_eq!(w.written(), &want[..]);
        // The job writes its own copy of the text (a `&str`: no UTF-8 check counted),
        // into a buffer of its own, reused.
        let mut buf = vec![0u8; 2 * text.len() + 64];
        let own = text.clone();
        let job: Job = Box::new(move |_| {
            let mut w = ResultWriter::new(&mut buf);
            w.str(black_box(own.as_str())).unwrap();
            w.written().len() as u64
        });
        (text.into_bytes(), job, want.len() as u64)
    };
    match what {
        "unescape-ascii" | "unescape-mixed" | "unescape-source" | "unescape-escaped" => {
            let text = text_of(what, bytes).expect("a text");
            let s = per_byte_text::string_param(request(&text));
            let decoded: String = serde_json::from_str(&format!("\"{text}\"")).unwrap();
            let mut buf = vec![0u8; text.len()];
            assert_eq!(s.unescape_into(&mut buf), Some(decoded.as_str()));
            let job = move |_: &[u8]| s.unescape_into(&mut buf).expect("room").len() as u64;
            (Vec::new(), Box::new(job), decoded.len() as u64)
        }
        "skip-source" => {
            let msg = request(&text_of(what, bytes).expect("a text"));
            let job = |msg: &[u8]| -> u64 {
                let Ok(Envelope::Single(Call::Request(r))) = envelope::parse(msg, &Limits::DEFAULT)
                else {
                    panic!("not a request")
                };
                r.params.expect("params").elements().count() as u64
            };
            assert_eq!(job(&msg), 1);
            (msg, Box::new(job), 1)
        }
        "parse-ascii" | "parse-mixed" | "parse-source" => {
            let text = text_of(what, bytes).expect("a text");
            let msg = request(&text);
            // method "log" (3), an id, params `["…"]` (the string and 4 bytes).
            let want = ((3u64) << 40) + (1 << 32) + (text.len() as u64 + 4);
            assert_eq!(common::slice_request(&msg), want);
            (msg, Box::new(common::slice_request), want)
        }
        // A handler's walk over params it has not decoded: each step of `elements()`
        // skips a value with the trusted skipper. `parse-*` is the same message parsed
        // alone: the skip's cost is the difference.
        "parse-items" | "skip-items" | "parse-escaped" | "skip-escaped" => {
            let params = if what.ends_with("items") {
                // 08's items (numbers, short strings, nested objects and arrays).
                let item = r#"{"id":7,"sku":"SKU-000007","name":"Item number 7","price":465.78,"qty":392,"active":false,"tags":["a","bb"],"dims":{"w":6.532,"h":9.316},"note":null}"#;
                let items = vec![item; bytes / (item.len() + 1) + 1];
                format!("[{}]", items.join(","))
            } else {
                // One string, every 8th character a newline written as `\n`, then 1.
                format!(r#"["{}",1]"#, r"abcdefg\n".repeat(bytes / 9))
            };
            let msg = format!(r#"{{"jsonrpc":"2.0","method":"log","params":{params},"id":1}}"#)
                .into_bytes();
            let skip = what.starts_with("skip");
            let job = move |msg: &[u8]| -> u64 {
                let Ok(Envelope::Single(Call::Request(r))) = envelope::parse(msg, &Limits::DEFAULT)
                else {
                    panic!("not a request")
                };
                let params = r.params.expect("params");
                if skip {
                    params.elements().count() as u64
                } else {
                    params.as_bytes().len() as u64
                }
            };
            let want = job(&msg);
            (msg, Box::new(job), want)
        }
        // A handler reaching a nested member: the one walk against the chain of calls.
        "path-at" | "path-chain" => {
            let text = r"abcdefg\n".repeat(bytes / 9);
            let msg = format!(
                r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"contentChanges":[{{"text":"{text}"}}],"textDocument":{{"uri":"file:///a.rs","version":2}}}}}}"#
            )
            .into_bytes();
            let one_walk = what == "path-at";
            let job = move |msg: &[u8]| -> u64 {
                let Ok(Envelope::Single(Call::Request(r))) = envelope::parse(msg, &Limits::DEFAULT)
                else {
                    panic!("not a request")
                };
                let params = r.params.expect("params");
                let found = if one_walk {
                    params.at(&[Key("contentChanges"), Index(0), Key("text")])
                } else {
                    params
                        .get("contentChanges")
                        .and_then(|c| c.nth(0))
                        .and_then(|c| c.get("text"))
                };
                found.expect("the text").as_bytes().len() as u64
            };
            let want = job(&msg);
            assert_eq!(want, text.len() as u64 + 2);
            (msg, Box::new(job), want)
        }
        "write-ascii" => write(repeat_to(ASCII, bytes)),
        "write-escaped" => write(repeat_to("abcdefg\n", bytes)),
        _ => panic!("unknown per-byte job {what}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if args == ["messages"] {
        // Before reading them: the files may not be there yet.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("messages");
        for (name, text) in common::text::generated_messages() {
            std::fs::write(dir.join(name), text).unwrap();
        }
        return;
    }
    let msgs = messages();
    let one = |stem: &str| {
        msgs.iter()
            .find(|m| m.stem == stem || m.stem.starts_with(&format!("{stem}_")))
            .unwrap_or_else(|| panic!("no message {stem}"))
    };
    let n = |s: &str| s.parse::<usize>().expect("N");
    let markers = std::env::var_os("STEPCOUNT_MARKERS").is_some();
    match args.as_slice() {
        ["reply", imp, count] => {
            let msg = &one("01").bytes;
            let mut out = Vec::with_capacity(256);
            let mut job: ReplyJob = common::reply_job(imp);
            let len = job(msg, &mut out);
            common::check_reply(imp, &out[..len]);
            marker(markers);
            let total = measured_reply(&mut *job, msg, &mut out, n(count));
            marker(markers);
            assert_eq!(total, common::REPLY.len() * n(count));
            common::check_reply(imp, &out[..len]);
        }
        ["per-byte", what, bytes, count] => {
            let (input, mut job, want) = per_byte(what, n(bytes));
            assert_eq!(job(&input), want);
            // `measured_loop` too: a copy of it under another name would be merged with it.
            marker(markers);
            let total = measured_loop(&mut *job, &input, n(count));
            marker(markers);
            assert_eq!(total, want.wrapping_mul(n(count) as u64));
        }
        [imp, stem, count] => {
            let m = one(stem);
            let mut job: Job = job(imp, m.response);
            let want = common::expected(imp, m);
            assert_eq!(job(&m.bytes), want, "{imp} on {stem}");
            marker(markers);
            let total = measured_loop(&mut *job, &m.bytes, n(count));
            marker(markers);
            assert_eq!(total, want.wrapping_mul(n(count) as u64));
        }
        // `cargo bench` runs every bench target: check, and say how to get the table.
        _ => {
            common::check_generated();
            common::check_agreement(&msgs);
            println!(
                "instructions: all {} implementations agree on the {} messages; \
                 run benches/instructions.sh for the instruction table",
                common::IMPLS.len(),
                msgs.len()
            );
        }
    }
}
