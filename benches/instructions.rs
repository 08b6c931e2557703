//! The instruction-count bench: one job, `N` times, inside one function that
//! `benches/instructions.sh` has callgrind count (`--toggle-collect`), so the count
//! divided by `N` is the instructions one message costs, start-up excluded.
//!
//! ```text
//! instructions <implementation> <message stem> <N>   one message, N times
//! instructions reply <implementation> <N>            writing {"jsonrpc":"2.0","result":19,"id":1}
//! instructions handle <N>                            jsonrpc-slice: Server::handle of 01 (one-method table)
//! instructions check                                 all implementations agree (what `cargo bench` runs)
//! ```
//!
//! Run `benches/instructions.sh` for the whole table.

mod common;

use std::hint::black_box;

use common::{job, messages, Job, ReplyJob};

/// Counted by callgrind: everything under this function, nothing else.
#[inline(never)]
fn measured_loop(job: Job, msg: &[u8], n: usize) -> u64 {
    let mut acc = 0u64;
    for _ in 0..n {
        acc = acc.wrapping_add(job(black_box(msg)));
    }
    acc
}

#[inline(never)]
fn measured_reply(job: ReplyJob, out: &mut Vec<u8>, n: usize) -> usize {
    let mut acc = 0usize;
    for _ in 0..n {
        acc = acc.wrapping_add(job(black_box(out)));
    }
    acc
}

#[inline(never)]
fn measured_handle(msg: &[u8], out: &mut [u8], n: usize) -> usize {
    let mut acc = 0usize;
    for _ in 0..n {
        acc = acc.wrapping_add(common::answer_19(black_box(msg), out));
    }
    acc
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let msgs = messages();
    let one = |stem: &str| {
        msgs.iter()
            .find(|m| m.stem == stem || m.stem.starts_with(&format!("{stem}_")))
            .unwrap_or_else(|| panic!("no message {stem}"))
    };
    let n = |s: &str| s.parse::<usize>().expect("N");
    match args.as_slice() {
        ["reply", imp, count] => {
            let mut out = Vec::with_capacity(256);
            if *imp == "jsonrpc-slice" {
                panic!("the jsonrpc-slice reply is `handle` minus the parse of 01");
            }
            let job = common::reply_job(imp);
            assert_eq!(job(&mut out), common::REPLY.len());
            let v = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap();
            assert_eq!(v(&out), v(common::REPLY));
            let total = measured_reply(job, &mut out, n(count));
            assert_eq!(total, common::REPLY.len() * n(count));
        }
        ["handle", count] => {
            let msg = &one("01").bytes;
            let mut out = [0u8; 256];
            let len = common::answer_19(msg, &mut out);
            assert_eq!(&out[..len], common::REPLY);
            let total = measured_handle(msg, &mut out, n(count));
            assert_eq!(total, common::REPLY.len() * n(count));
        }
        [imp, stem, count] => {
            let m = one(stem);
            let job = job(imp, m.response);
            let want = job(&m.bytes);
            let total = measured_loop(job, &m.bytes, n(count));
            assert_eq!(total, want.wrapping_mul(n(count) as u64));
        }
        // `cargo bench` runs every bench target: check, and say how to get the table.
        _ => {
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
