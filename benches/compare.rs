//! jsonrpc-slice against what a user would pick instead, side by side in one run.
//!
//! For each of the eight messages of `../shared/corpus/bench/`, the same job by each
//! implementation: validate the whole message and recognise its envelope, handing out
//! `method`, `id` and `params` (for 07, the response: `id` and `result`) as borrowed
//! views. `benches/common/mod.rs` has the jobs and says how each baseline is written.
//! Every iteration checks its digest, so nothing is optimised away and a broken job
//! fails the bench. Then writing the reply `{"jsonrpc":"2.0","result":19,"id":1}`.
//!
//! `cargo bench --bench compare` (criterion reports `compare/<stem>/<implementation>`
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
            let job = job(imp, m.response);
            let want = job(&m.bytes);
            g.bench_with_input(BenchmarkId::new(&m.stem, imp), &m.bytes, |b, bytes| {
                b.iter(|| assert_eq!(job(black_box(bytes)), want))
            });
        }
    }

    // Writing the reply. jsonrpc-slice: the whole answer to 01 once parsed would mix in
    // the handler; here, `Server::handle` of 01 with a handler that writes 19 (see
    // benches/instructions.rs for the instruction count of the reply alone).
    let reply = common::REPLY;
    g.throughput(Throughput::Bytes(reply.len() as u64));
    let one = msgs
        .iter()
        .find(|m| m.stem.starts_with("01"))
        .expect("message 01");
    let mut out = [0u8; 256];
    g.bench_function(BenchmarkId::new("reply", "jsonrpc-slice"), |b| {
        b.iter(|| {
            let n = common::answer_19(black_box(&one.bytes), &mut out);
            assert_eq!(n, reply.len());
        })
    });
    for imp in ["serde_json", "sonic-rs", "jsonrpsee-types"] {
        let job = reply_job(imp);
        let mut out = Vec::with_capacity(256);
        g.bench_function(BenchmarkId::new("reply", imp), |b| {
            b.iter(|| assert_eq!(job(black_box(&mut out)), reply.len()))
        });
    }
    g.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
