//! Pipelined throughput of the serve loops: a stream of requests already read (the
//! client sends without waiting), answered by the one-at-a-time `Service` and by the
//! concurrent service with 1 and with 8 slots, each request through the same handlers
//! (a `ping` and an `echo` of small params). `Throughput::Elements`: messages a second.
//!
//!   cargo bench -p jsonrpc-slice-benches --bench serve_loops
//!
//! The concurrent loop runs on `embassy_futures::block_on` over an in-memory reader and
//! writer; every handler completes at its first poll, so this measures the loop's own
//! cost per message (copy into a slot, the second envelope read, the writer's order),
//! not any overlap of slow handlers.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Read, Slots, Write};
use jsonrpc_slice::service::Service;
use jsonrpc_slice::{
    async_method_table, method_table, Params, RawJson, ResultWriter, RpcError, Server,
};
use std::hint::black_box;

const MESSAGES: usize = 1000;

fn input() -> Vec<u8> {
    let mut s = String::new();
    for i in 0..MESSAGES {
        if i % 2 == 0 {
            s.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":{i}}}\n"
            ));
        } else {
            s.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[\"hello\",{i}],\"id\":{i}}}\n"
            ));
        }
    }
    s.into_bytes()
}

fn ping_sync<'p>(
    _: &mut (),
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Ok(out.raw(RawJson::NULL)?)
}

fn echo_sync<'p>(
    _: &mut (),
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Ok(out.raw(p.raw().ok_or(RpcError::invalid_params())?)?)
}

static SYNC: Server<()> = Server::new(method_table! { "ping" => ping_sync, "echo" => echo_sync });

async fn ping<'p>(
    _: &mut Call<'_, ()>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Ok(out.raw(RawJson::NULL)?)
}

async fn echo<'p>(
    _: &mut Call<'_, ()>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Ok(out.raw(p.raw().ok_or(RpcError::invalid_params())?)?)
}

async_method_table! { Methods<'c, Call<'c, ()>> { "ping" => ping, "echo" => echo } }
static CONCURRENT: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);

/// The input in reads of up to the buffer's size.
struct Input<'a>(&'a [u8]);

impl Read for Input<'_> {
    type Error = ();
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        let n = self.0.len().min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// Counts what is written.
struct Count(usize);

impl Write for Count {
    type Error = ();
    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), ()> {
        self.0 += bytes.len();
        Ok(())
    }
    async fn flush(&mut self) -> Result<(), ()> {
        Ok(())
    }
}

fn concurrent<const N: usize>(input: &[u8], slots: &Slots<N, 1024, 1024>) -> usize {
    let outbox = SharedOutbox::<1024>::new();
    let mut framer = LineAccumulator::<1024>::new();
    let mut chunk = [0u8; 16 * 1024];
    let (mut r, mut w) = (Input(input), Count(0));
    let serve = CONCURRENT.serve(&(), &mut framer, slots, &outbox, &mut chunk, &mut r, &mut w);
    embassy_futures::block_on(serve).unwrap();
    w.0
}

fn one_at_a_time(input: &[u8]) -> usize {
    let mut framer = LineAccumulator::<1024>::new();
    let (mut chunk, mut output) = ([0u8; 16 * 1024], [0u8; 1024]);
    let mut service = Service::new(&SYNC, &mut framer, &mut chunk, &mut output);
    let mut rest = input;
    let mut written = 0;
    loop {
        while let Some(reply) = service.next(&mut ()) {
            written += reply.pieces().map(<[u8]>::len).sum::<usize>();
        }
        if service.is_done() {
            return written;
        }
        let buf = service.input_buffer();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        rest = &rest[n..];
        match n {
            0 => service.end_of_input(),
            n => service.received(n),
        }
    }
}

fn bench(c: &mut Criterion) {
    let input = input();
    let want = one_at_a_time(&input);
    let one = Box::new(Slots::<1, 1024, 1024>::new());
    let eight = Box::new(Slots::<8, 1024, 1024>::new());
    // The same bytes out of each loop (the order may differ, the length may not).
    assert_eq!(concurrent(&input, &one), want);
    assert_eq!(concurrent(&input, &eight), want);
    let mut g = c.benchmark_group("serve_loops");
    g.throughput(Throughput::Elements(MESSAGES as u64));
    g.bench_function("Service (one at a time)", |b| {
        b.iter(|| one_at_a_time(black_box(&input)))
    });
    g.bench_function("concurrent, N = 1", |b| {
        b.iter(|| concurrent(black_box(&input), &one))
    });
    g.bench_function("concurrent, N = 8", |b| {
        b.iter(|| concurrent(black_box(&input), &eight))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
