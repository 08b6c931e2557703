//! Pipelined throughput of the serve loops: a stream of requests the client sends
//! without waiting, answered by the one-at-a-time `Service` and by the concurrent
//! service with 1 and with 8 slots, each request through the same handlers (a `ping`
//! and an `echo` of small params). `Throughput::Elements`: messages a second.
//!
//!   cargo bench -p jsonrpc-slice-benches --bench serve_loops
//!
//! Two transports:
//!
//! - in memory: 1,000 requests already read, replies counted; this is the loop's own
//!   cost per message.
//! - over OS pipes (`std::io::pipe`): 10,000 requests written into one pipe by a
//!   thread, replies read out of another by a third; the loop reads 16 KiB at a time
//!   and writes through an 8 KiB `BufWriter` (`io::std::serve` for `Service`, the
//!   same pipe ends as `Read` and `Write` halves for the concurrent loop), each
//!   flushing before it reads.
//!
//! The concurrent loop runs on `embassy_futures::block_on`; every handler completes at
//! its first poll, so this measures the loop, not any overlap of slow handlers.
//!
//! `serve_loops count <service|n1|n8>[-piped] <messages>` runs one loop once, in memory
//! or over pipes, for callgrind to count (`--toggle-collect='*counted*'`, then divide by
//! the messages; over pipes callgrind counts the serving thread only, and no time in
//! the kernel):
//!
//!   valgrind --tool=callgrind --toggle-collect='*counted*' target/release/deps/serve_loops-* count n1 20000
//!
//! `serve_loops cpu <messages> <rounds>` runs the three loops over pipes and in memory,
//! interleaved, and prints the serving thread's CPU time (user and system apart) and
//! the wall time a message: on a loaded machine the CPU time is the steadier of the two.

use criterion::{criterion_group, Criterion, Throughput};
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Read, Slots, Write};
use jsonrpc_slice::service::Service;
use jsonrpc_slice::{
    async_method_table, method_table, Params, RawJson, ResultWriter, RpcError, Server,
};
use std::hint::black_box;
use std::io::{BufWriter, PipeReader, PipeWriter};

const MESSAGES: usize = 1000;
/// Over pipes: more messages, so that starting the threads is a small part.
const PIPED: usize = 10_000;

fn input(messages: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..messages {
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
    let (mut r, mut w) = (Input(input), Count(0));
    serve_concurrent(slots, &mut r, &mut w);
    w.0
}

fn serve_concurrent<const N: usize, R: Read, W: Write>(
    slots: &Slots<N, 1024, 1024>,
    r: &mut R,
    w: &mut W,
) {
    let outbox = SharedOutbox::<1024>::new();
    let mut framer = LineAccumulator::<1024>::new();
    let mut chunk = [0u8; 16 * 1024];
    let serve = CONCURRENT.serve(&(), &mut framer, slots, &outbox, &mut chunk, r, w);
    if embassy_futures::block_on(serve).is_err() {
        panic!("the loop failed");
    }
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

/// The read end of a pipe, as the concurrent loop's reader (a blocking read).
struct PipeIn(PipeReader);

impl Read for PipeIn {
    type Error = std::io::Error;
    async fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        std::io::Read::read(&mut self.0, buf)
    }
}

/// The write end of a pipe behind a `BufWriter`, as the concurrent loop's writer.
struct PipeOut(BufWriter<PipeWriter>);

impl Write for PipeOut {
    type Error = std::io::Error;
    async fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        std::io::Write::write_all(&mut self.0, bytes)
    }
    async fn flush(&mut self) -> std::io::Result<()> {
        std::io::Write::flush(&mut self.0)
    }
}

/// Serves `input` over two OS pipes: a thread writes it into one, `serve` answers from
/// it into the other (and drops its end), a thread reads the replies out. The bytes
/// read out.
fn piped(input: &[u8], serve: impl FnOnce(PipeReader, PipeWriter)) -> usize {
    let (requests, mut client) = std::io::pipe().unwrap();
    let (mut replies, server) = std::io::pipe().unwrap();
    std::thread::scope(|s| {
        s.spawn(move || std::io::Write::write_all(&mut client, input).unwrap());
        let drain = s.spawn(move || {
            let (mut buf, mut n) = (vec![0u8; 64 * 1024], 0);
            loop {
                match std::io::Read::read(&mut replies, &mut buf).unwrap() {
                    0 => return n,
                    k => n += k,
                }
            }
        });
        serve(requests, server);
        drain.join().unwrap()
    })
}

fn one_at_a_time_piped(input: &[u8]) -> usize {
    piped(input, |mut requests, server| {
        let mut framer = LineAccumulator::<1024>::new();
        let (mut chunk, mut output) = ([0u8; 16 * 1024], [0u8; 1024]);
        let mut service = Service::new(&SYNC, &mut framer, &mut chunk, &mut output);
        let mut replies = BufWriter::new(server);
        let mut io = jsonrpc_slice::io::std::Split(&mut requests, &mut replies);
        jsonrpc_slice::io::std::serve(&mut service, &mut (), &mut io).unwrap();
    })
}

fn concurrent_piped<const N: usize>(input: &[u8], slots: &Slots<N, 1024, 1024>) -> usize {
    piped(input, |requests, server| {
        let (mut r, mut w) = (PipeIn(requests), PipeOut(BufWriter::new(server)));
        serve_concurrent(slots, &mut r, &mut w);
    })
}

fn bench(c: &mut Criterion) {
    let input = input(MESSAGES);
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

    let input = input_piped();
    let want = one_at_a_time(&input);
    assert_eq!(one_at_a_time_piped(&input), want);
    assert_eq!(concurrent_piped(&input, &one), want);
    assert_eq!(concurrent_piped(&input, &eight), want);
    let mut g = c.benchmark_group("serve_loops over pipes");
    g.throughput(Throughput::Elements(PIPED as u64));
    g.bench_function("Service (one at a time)", |b| {
        b.iter(|| one_at_a_time_piped(black_box(&input)))
    });
    g.bench_function("concurrent, N = 1", |b| {
        b.iter(|| concurrent_piped(black_box(&input), &one))
    });
    g.bench_function("concurrent, N = 8", |b| {
        b.iter(|| concurrent_piped(black_box(&input), &eight))
    });
    g.finish();
}

fn input_piped() -> Vec<u8> {
    input(PIPED)
}

/// One loop (`service`, `n1`, `n8`) over `input` in memory, or over pipes (`-piped`):
/// what callgrind counts.
#[inline(never)]
fn counted(which: &str, input: &[u8]) -> usize {
    match which {
        "service" => one_at_a_time(input),
        "n1" => concurrent(input, &Slots::<1, 1024, 1024>::new()),
        "n8" => concurrent(input, &Slots::<8, 1024, 1024>::new()),
        "service-piped" => one_at_a_time_piped(input),
        "n1-piped" => concurrent_piped(input, &Slots::<1, 1024, 1024>::new()),
        "n8-piped" => concurrent_piped(input, &Slots::<8, 1024, 1024>::new()),
        _ => panic!("count service|n1|n8[-piped] MESSAGES"),
    }
}

/// The CPU time the calling thread has used, in user and in system mode, in clock
/// ticks (`/proc/thread-self/stat`, Linux).
fn thread_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    // The fields after the command's closing parenthesis; utime and stime are the
    // 14th and 15th of the line.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    (fields[11].parse().unwrap(), fields[12].parse().unwrap())
}

/// `cpu <messages> <rounds>`: each loop over pipes and in memory, the rounds
/// interleaved; the serving thread's CPU time (user, and system: the reads and writes)
/// and the wall time per message. The CPU time is what a loaded machine disturbs least.
fn cpu(messages: usize, rounds: usize) {
    let input = input(messages);
    let one = Box::new(Slots::<1, 1024, 1024>::new());
    let eight = Box::new(Slots::<8, 1024, 1024>::new());
    let loops: [(&str, &dyn Fn() -> usize); 6] = [
        ("Service, piped", &|| one_at_a_time_piped(&input)),
        ("concurrent, N = 1, piped", &|| {
            concurrent_piped(&input, &one)
        }),
        ("concurrent, N = 8, piped", &|| {
            concurrent_piped(&input, &eight)
        }),
        ("Service, in memory", &|| one_at_a_time(&input)),
        ("concurrent, N = 1, in memory", &|| concurrent(&input, &one)),
        ("concurrent, N = 8, in memory", &|| {
            concurrent(&input, &eight)
        }),
    ];
    // Clock ticks a second: 100 on Linux (USER_HZ).
    let tick_ns = 10_000_000.0;
    for round in 0..rounds {
        for (name, run) in &loops {
            let ((user, system), start) = (thread_ticks(), std::time::Instant::now());
            black_box(run());
            let wall = start.elapsed().as_nanos() as f64;
            let (user_after, system_after) = thread_ticks();
            let m = messages as f64;
            println!(
                "round {round}: {name}: {:.1} ns user + {:.1} ns system, {:.1} ns wall a message",
                (user_after - user) as f64 * tick_ns / m,
                (system_after - system) as f64 * tick_ns / m,
                wall / m
            );
        }
    }
}

criterion_group!(benches, bench);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("cpu") {
        return cpu(args[2].parse().unwrap(), args[3].parse().unwrap());
    }
    if args.get(1).map(String::as_str) == Some("count") {
        let (which, messages) = (&args[2], args[3].parse().unwrap());
        let input = input(messages);
        println!("{} bytes written", counted(which, black_box(&input)));
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
