//! jsonrpc-slice against what a user would pick instead, side by side in one run.
//!
//! For each of the ten bench messages (`../shared/corpus/bench/` and `messages/`), the same job by each
//! implementation: validate the whole message and recognise its envelope, handing out
//! `method`, `id` and `params` (for 07, the response: `id` and `result`) as borrowed
//! views. `benches/common/mod.rs` has the jobs and says how each baseline is written.
//! Every iteration checks its digest, so nothing is optimised away and a broken job
//! fails the bench. The baselines are serde_json, sonic-rs, jsonrpsee-types and
//! simd-json (whose job includes copying the message into its reused, padded buffer: it
//! parses in place).
//!
//! Then the reply, end to end for everyone: parse message 01
//! (`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`), look the method
//! up, subtract the params, write `{"jsonrpc":"2.0","result":19,"id":1}` into a reused
//! buffer (jsonrpc-slice: `Server::handle`).
//!
//! `cargo bench -p jsonrpc-slice-benches --bench compare` (criterion reports `compare/<stem>/<implementation>`
//! and `compare/reply/<implementation>`). On a shared machine prefer the instruction
//! counts of `benches/instructions.sh`: they repeat, timings do not.

mod common;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use common::{check_agreement, job, messages, reply_job, IMPLS};

fn compare(c: &mut Criterion) {
    let msgs = messages();
    check_agreement(&msgs);
    let mut g = c.benchmark_group("compare");
    for m in &msgs {
        g.throughput(Throughput::Bytes(m.bytes.len() as u64));
        for imp in IMPLS {
            let mut job = job(imp, m.response);
            let want = common::expected(imp, m);
            assert_eq!(job(&m.bytes), want, "{imp} on {}", m.stem);
            g.bench_with_input(BenchmarkId::new(&m.stem, imp), &m.bytes, |b, bytes| {
                b.iter(|| assert_eq!(job(black_box(bytes)), want))
            });
        }
    }

    // The reply: message 01 answered end to end by each implementation.
    let reply = common::REPLY;
    let one = msgs
        .iter()
        .find(|m| m.stem.starts_with("01"))
        .expect("message 01");
    g.throughput(Throughput::Bytes(one.bytes.len() as u64));
    for imp in IMPLS {
        let mut job = reply_job(imp);
        let mut out = Vec::with_capacity(256);
        let len = job(&one.bytes, &mut out);
        common::check_reply(imp, &out[..len]);
        g.bench_function(BenchmarkId::new("reply", imp), |b| {
            b.iter(|| assert_eq!(job(black_box(&one.bytes), &mut out), reply.len()))
        });
    }
    g.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
