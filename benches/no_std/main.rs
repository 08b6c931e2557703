//! The per-byte jobs on the crate built without `std` (the binary itself uses `std`;
//! the library does not get the feature): `benches/per_byte.sh` has callgrind count
//! `measured_loop`, as for the `instructions` bench's jobs of the same names.
//!
//! ```text
//! per-byte-no-std per-byte <job> <bytes> <N>
//! ```
//!
//! The jobs: `parse-ascii`, `parse-mixed`, `parse-source` (`envelope::parse` of a
//! request whose params are one string, as in `instructions.rs`), `skip-source` (the
//! same, then the string passed over by `elements()`), `unescape-*` (the string,
//! parsed once, decoded by `RawStr::unescape_into`).

#[path = "../per_byte_text.rs"]
mod per_byte_text;

use std::hint::black_box;

use jsonrpc_slice::envelope::{self, Call, Envelope};
use jsonrpc_slice::Limits;

/// A job: one call on the message, and its digest.
type Job<'a> = Box<dyn FnMut(&[u8]) -> u64 + 'a>;

/// Counted by callgrind: everything under this function, nothing else.
#[inline(never)]
fn measured_loop(job: &mut dyn FnMut(&[u8]) -> u64, msg: &[u8], n: usize) -> u64 {
    let mut acc = 0u64;
    for _ in 0..n {
        acc = acc.wrapping_add(job(black_box(msg)));
    }
    acc
}

/// The params of the request in `msg`: the string's length (with its quotes and the
/// brackets), or with `skip` the number of elements passed over.
fn params(msg: &[u8], skip: bool) -> u64 {
    let Ok(Envelope::Single(Call::Request(r))) = envelope::parse(msg, &Limits::DEFAULT) else {
        panic!("not a request")
    };
    let params = r.params.expect("params");
    if skip {
        params.elements().count() as u64
    } else {
        params.as_bytes().len() as u64
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ["per-byte", what, bytes, count] = args.as_slice() else {
        println!("usage: per-byte-no-std per-byte <job> <bytes> <N> (see benches/per_byte.sh)");
        return;
    };
    let n = |s: &str| s.parse::<usize>().expect("a number");
    let text = per_byte_text::text_of(what, n(bytes)).expect("a job's text");
    let msg = per_byte_text::request(&text);
    let mut buf = vec![0u8; text.len()];
    let mut job: Job = match what.split('-').next() {
        Some("parse") => Box::new(|msg: &[u8]| params(msg, false)),
        Some("skip") => Box::new(|msg: &[u8]| params(msg, true)),
        Some("unescape") => {
            let s = per_byte_text::string_param(msg.clone());
            Box::new(move |_: &[u8]| s.unescape_into(&mut buf).expect("room").len() as u64)
        }
        _ => panic!("unknown job {what}"),
    };
    let want = job(&msg);
    match what.split('-').next() {
        Some("parse") => assert_eq!(want, text.len() as u64 + 4),
        Some("skip") => assert_eq!(want, 1),
        _ => assert!(want > 0 && want <= text.len() as u64),
    }
    let total = measured_loop(&mut *job, &msg, n(count));
    assert_eq!(total, want.wrapping_mul(n(count) as u64));
}
