//! The codec on the ten benchmark messages (`../shared/corpus/bench/` and `messages/`):
//! validation alone (`scan`), and the whole path from bytes to reply (`handle`).
//!
//! `cargo bench -p jsonrpc-slice-benches --bench codec`. Every iteration checks its result, so nothing is
//! optimised away and a broken codec fails the bench instead of timing it.

mod common;

use common::SERVER;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use jsonrpc_slice::scan::{validate, DEFAULT_MAX_DEPTH};

/// The benchmark messages, by file stem, sorted.
fn messages() -> Vec<(String, Vec<u8>)> {
    common::messages()
        .into_iter()
        .map(|m| (m.stem, m.bytes))
        .collect()
}

fn scan(c: &mut Criterion) {
    let mut g = c.benchmark_group("scan");
    for (stem, bytes) in messages() {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(&stem), &bytes, |b, bytes| {
            b.iter(|| assert!(validate(black_box(bytes), DEFAULT_MAX_DEPTH).is_ok()))
        });
    }
    g.finish();
}

fn handle(c: &mut Criterion) {
    let mut g = c.benchmark_group("handle");
    let mut out = vec![0u8; 64 * 1024];
    for (stem, bytes) in messages() {
        // The reply each message gets, so every iteration can be checked against it.
        let expected = SERVER.handle(&mut (), &bytes, &mut out).unwrap().to_vec();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(&stem), &bytes, |b, bytes| {
            b.iter(|| {
                let reply = SERVER.handle(&mut (), black_box(bytes), &mut out).unwrap();
                assert_eq!(reply.len(), expected.len());
            })
        });
    }
    g.finish();
}

fn write_reply(c: &mut Criterion) {
    let request = br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;
    let mut out = [0u8; 128];
    c.bench_function("handle/spec_subtract_reply", |b| {
        b.iter(|| {
            let reply = SERVER
                .handle(&mut (), black_box(request), &mut out)
                .unwrap();
            assert_eq!(reply, br#"{"jsonrpc":"2.0","result":19,"id":1}"#);
        })
    });
}

criterion_group!(benches, scan, handle, write_reply);
criterion_main!(benches);
