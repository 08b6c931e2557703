//! The library's `http::HttpServer` side by side with jsonrpsee 0.26's HTTP server on
//! the same methods, and a bare hyper server as the floor, all driven by one load
//! generator on loopback, at 1 and 2 server worker threads.
//!
//! ```sh
//! cargo bench -p jsonrpc-slice-benches --bench http_side_by_side -- \
//!     [--seconds S] [--rounds R] [--connections C] [--depth D] [--threads 1,2] [--no-pin]
//!     [--release-after MS]
//! ```
//!
//! - **Methods**: `eth_chainId` (a constant string) and `echo` (its params back), on
//!   each server as its users write them. Workloads: one `eth_chainId`, one `echo` of
//!   an Ethereum-style `[address, tag]`, and a batch of 10 (the two alternating).
//! - **Servers**: `HttpServer` with its production defaults (`--release-after MS` sets
//!   its `release_after`: how long a keep-alive connection waits for its next request
//!   before hyper's state for it is dropped; under callgrind every gap is long enough); jsonrpsee's `Server` with
//!   its defaults but a 1 MiB body limit (the same); and **hyper**: hyper 1's HTTP/1
//!   server with the same builder settings as `HttpServer` (its timer and header-read
//!   timeout), whose service reads the body and answers the workload's reply as a
//!   static body, reusing the request's header map: what hyper itself costs, the floor
//!   under any JSON-RPC server on it.
//! - **Threads**: each server on its own tokio runtime with W worker threads (every
//!   thread it starts counted as the server's). With pinning (the default, when the
//!   machine has 2 or more CPUs), the load generator runs on the last CPU; a one-worker
//!   server on CPU 0, a two-worker server on every CPU.
//! - **Load generator**: one thread, C keep-alive connections (default 8), each with D
//!   requests pipelined (default 4): requests are written as prepared bytes and replies
//!   read by their `content-length`, so the client costs far less than any server. Every
//!   reply is checked: status 200 and no `"error"` in its body; in each round's warm-up
//!   every body is also parsed (serde_json) and must hold one result per call.
//! - **Rounds**: for each workload, R rounds (default 5) of S seconds (default 2); in
//!   each round every server runs once, in an order that alternates (A B C, C B A, ...).
//!   Each figure is the median of its rounds, with its spread (lowest..highest).
//! - **Figures**: HTTP requests per second; the server threads' CPU time per request
//!   (from `/proc/self/task/TID/schedstat`: it depends less on the machine's load than
//!   requests per second do); heap allocations (alloc, alloc_zeroed, realloc; frees not
//!   counted) on the server's threads per request, by a counting global allocator.
//!
//! First, the codec's part (`Server::handle`) runs on each workload under the counting
//! allocator: it must allocate nothing, or the program fails.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use jsonrpc_slice::http::{HttpServer, Settings};
use jsonrpc_slice::{demo, method_table, Params, ResultWriter, RpcError, Server};
use jsonrpsee::server::{RpcModule, ServerConfig};
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[path = "../tests/common/counting_threads.rs"]
mod counting;

// ---------------------------------------------------------------------------------
// The methods.

type Rpc<'p> = Result<(), RpcError<'p>>;

fn chain_id<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    Ok(out.str("0x539")?)
}

static SLICE: Server<()> = Server::new(method_table! {
    "eth_chainId" => chain_id,
    "echo" => demo::echo,
});

fn jsonrpsee_module() -> RpcModule<()> {
    let mut m = RpcModule::new(());
    m.register_method("eth_chainId", |_, _, _| "0x539").unwrap();
    m.register_method("echo", |params, _, _| {
        let raw = params.as_str().unwrap_or("null").to_owned();
        RawValue::from_string(raw)
            .map_err(|e| ErrorObjectOwned::owned(-32602, e.to_string(), None::<()>))
    })
    .unwrap();
    m
}

// ---------------------------------------------------------------------------------
// Workloads.

const CHAIN_ID: &str = r#"{"jsonrpc":"2.0","method":"eth_chainId","params":[],"id":1}"#;
const ECHO: &str = r#"{"jsonrpc":"2.0","method":"echo","params":["0x00000000000000000000000000000000000000aa","latest"],"id":1}"#;

/// A batch of 10: `eth_chainId` and `echo` alternating, numeric ids.
fn batch() -> String {
    let calls: Vec<String> = (1..=10)
        .map(|id| match id % 2 {
            1 => format!(r#"{{"jsonrpc":"2.0","method":"eth_chainId","params":[],"id":{id}}}"#),
            _ => format!(
                r#"{{"jsonrpc":"2.0","method":"echo","params":["0x{id:040x}","latest"],"id":{id}}}"#
            ),
        })
        .collect();
    format!("[{}]", calls.join(","))
}

struct Workload {
    name: &'static str,
    body: String,
    calls: usize,
    /// The library's reply, which the bare hyper server answers with.
    reply: &'static [u8],
}

/// `true` when `reply` holds `calls` results and no error.
fn good_reply(reply: &[u8], calls: usize) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(reply) else {
        return false;
    };
    let ok = |r: &Value| r.get("result").is_some() && r.get("error").is_none();
    match &v {
        Value::Array(rs) => rs.len() == calls && rs.iter().all(ok),
        one => calls == 1 && ok(one),
    }
}

// ---------------------------------------------------------------------------------
// The servers.

/// A server under test: its address, and the threads its runtime started.
struct Running {
    name: &'static str,
    addr: SocketAddr,
    threads: Arc<Mutex<Vec<libc::pid_t>>>,
    _runtime: tokio::runtime::Runtime,
}

fn pin_to(cpus: &[usize]) {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes inside it, and
    // sched_setaffinity reads it (0: this thread).
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

fn runtime(
    workers: usize,
    cpus: Option<Vec<usize>>,
) -> (tokio::runtime::Runtime, Arc<Mutex<Vec<libc::pid_t>>>) {
    let threads = Arc::new(Mutex::new(Vec::new()));
    let seen = threads.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .on_thread_start(move || {
            counting::arm();
            // SAFETY: gettid has no preconditions.
            seen.lock().unwrap().push(unsafe { libc::gettid() });
            if let Some(cpus) = &cpus {
                pin_to(cpus);
            }
        })
        .enable_all()
        .build()
        .unwrap();
    (rt, threads)
}

async fn listener() -> (tokio::net::TcpListener, SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

fn start_slice(workers: usize, cpus: Option<Vec<usize>>, release: Option<Duration>) -> Running {
    let (rt, threads) = runtime(workers, cpus);
    let addr = rt.block_on(async {
        let (listener, addr) = listener().await;
        let mut settings = Settings::default();
        if let Some(release) = release {
            settings.release_after = release;
        }
        let server = HttpServer::new(&SLICE, || ()).with_settings(settings);
        tokio::spawn(server.serve(listener));
        addr
    });
    Running {
        name: "jsonrpc-slice HttpServer",
        addr,
        threads,
        _runtime: rt,
    }
}

fn start_jsonrpsee(workers: usize, cpus: Option<Vec<usize>>) -> Running {
    let (rt, threads) = runtime(workers, cpus);
    let addr = rt.block_on(async {
        let config = ServerConfig::builder().max_request_body_size(1024 * 1024);
        let server = jsonrpsee::server::Server::builder()
            .set_config(config.build())
            .build("127.0.0.1:0")
            .await
            .unwrap();
        let addr = server.local_addr().unwrap();
        // Runs until the process ends.
        std::mem::forget(server.start(jsonrpsee_module()));
        addr
    });
    Running {
        name: "jsonrpsee 0.26",
        addr,
        threads,
        _runtime: rt,
    }
}

/// The bare hyper server: the body read and dropped, `REPLY` answered.
fn start_hyper(workers: usize, cpus: Option<Vec<usize>>, reply: &'static Mutex<Bytes>) -> Running {
    let (rt, threads) = runtime(workers, cpus);
    let addr = rt.block_on(async {
        let (listener, addr) = listener().await;
        tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                stream.set_nodelay(true).unwrap();
                let service =
                    hyper::service::service_fn(move |req: Request<Incoming>| async move {
                        let (head, mut body) = req.into_parts();
                        while let Some(frame) = body.frame().await {
                            drop(frame);
                        }
                        let mut headers = head.headers;
                        headers.clear();
                        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                        let body = reply.lock().unwrap().clone();
                        let mut response = Response::new(Full::new(body));
                        *response.headers_mut() = headers;
                        Ok::<_, std::convert::Infallible>(response)
                    });
                tokio::spawn(async move {
                    let mut builder = hyper::server::conn::http1::Builder::new();
                    builder
                        .timer(TokioTimer::new())
                        .header_read_timeout(Duration::from_secs(10));
                    let _ = builder
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        addr
    });
    Running {
        name: "hyper, bare (floor)",
        addr,
        threads,
        _runtime: rt,
    }
}

/// Nanoseconds the threads have run (schedstat's first field), in total.
fn cpu_ns(threads: &Mutex<Vec<libc::pid_t>>) -> u64 {
    threads
        .lock()
        .unwrap()
        .iter()
        .filter_map(|tid| std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

// ---------------------------------------------------------------------------------
// The load generator.

struct Config {
    seconds: f64,
    rounds: usize,
    connections: usize,
    depth: usize,
    threads: Vec<usize>,
    pin: bool,
    /// Only the servers whose name starts with this (for a profiler's run).
    only: String,
    /// Only the workloads whose name starts with this.
    workload: String,
    /// `HttpServer`'s `release_after`, if not its default.
    release_after: Option<Duration>,
}

/// Every request answered, warm-ups included: a profiler's run divides by it.
static ANSWERED: AtomicU64 = AtomicU64::new(0);

struct Outcome {
    requests: u64,
    seconds: f64,
    allocations: u64,
    cpu_ns: u64,
}

/// A prepared HTTP request.
fn http_request(addr: SocketAddr, body: &str) -> Vec<u8> {
    format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The first complete response in `buf`: its length, and its body's range.
fn response(buf: &[u8]) -> Option<(usize, std::ops::Range<usize>)> {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = &buf[..end];
    assert!(
        head.starts_with(b"HTTP/1.1 200 "),
        "not 200: {:?}",
        String::from_utf8_lossy(head)
    );
    let len = head
        .split(|&b| b == b'\n')
        .find_map(|line| {
            let (name, value) = line.split_at(line.iter().position(|&b| b == b':')?);
            name.eq_ignore_ascii_case(b"content-length").then(|| {
                std::str::from_utf8(&value[1..])
                    .ok()?
                    .trim()
                    .parse::<usize>()
                    .ok()
            })?
        })
        .expect("a content-length");
    (buf.len() >= end + len).then_some((end + len, end..end + len))
}

/// One connection: `depth` requests in flight until `until`, then the rest answered.
/// Returns how many were answered.
async fn one_connection(
    addr: SocketAddr,
    request: Arc<Vec<u8>>,
    depth: usize,
    calls: usize,
    until: Instant,
    parse: bool,
) -> u64 {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).unwrap();
    let mut out = Vec::with_capacity(request.len() * depth);
    for _ in 0..depth {
        out.extend_from_slice(&request);
    }
    stream.write_all(&out).await.unwrap();
    let (mut in_flight, mut answered) = (depth, 0u64);
    let mut buf = vec![0u8; 64 * 1024];
    let mut filled = 0;
    while in_flight > 0 {
        let n = stream.read(&mut buf[filled..]).await.expect("read");
        assert!(n > 0, "the server closed the connection");
        filled += n;
        let mut at = 0;
        let mut more = 0;
        while let Some((len, body)) = response(&buf[at..filled]) {
            let body = &buf[at..][body];
            let good = match parse {
                true => good_reply(body, calls),
                false => !body.windows(7).any(|w| w == b"\"error\""),
            };
            assert!(good, "bad reply: {:?}", String::from_utf8_lossy(body));
            at += len;
            answered += 1;
            in_flight -= 1;
            more += 1;
        }
        buf.copy_within(at..filled, 0);
        filled -= at;
        if Instant::now() < until && more > 0 {
            out.clear();
            for _ in 0..more {
                out.extend_from_slice(&request);
            }
            stream.write_all(&out).await.unwrap();
            in_flight += more;
        }
    }
    answered
}

/// Drives `server` with `work` for `seconds`, after a short warm-up on other
/// connections (every reply parsed).
async fn drive(server: &Running, work: &Workload, cfg: &Config) -> Outcome {
    let request = Arc::new(http_request(server.addr, &work.body));
    let round = |seconds: f64, parse: bool| {
        let until = Instant::now() + Duration::from_secs_f64(seconds);
        let tasks: Vec<_> = (0..cfg.connections)
            .map(|_| {
                let request = request.clone();
                let (addr, depth, calls) = (server.addr, cfg.depth, work.calls);
                tokio::spawn(one_connection(addr, request, depth, calls, until, parse))
            })
            .collect();
        async move {
            let mut answered = 0;
            for t in tasks {
                answered += t.await.unwrap();
            }
            answered
        }
    };
    let warm_up = round(0.2, true).await;
    let (allocations, cpu) = (counting::allocations(), cpu_ns(&server.threads));
    let start = Instant::now();
    let requests = round(cfg.seconds, false).await;
    ANSWERED.fetch_add(warm_up + requests, Ordering::Relaxed);
    Outcome {
        seconds: start.elapsed().as_secs_f64(),
        allocations: counting::allocations() - allocations,
        cpu_ns: cpu_ns(&server.threads) - cpu,
        requests,
    }
}

// ---------------------------------------------------------------------------------
// Figures.

/// The median and the spread of `xs`.
fn median(xs: &mut [f64]) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let mid = match n % 2 {
        1 => xs[n / 2],
        _ => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    };
    (mid, xs[0], xs[n - 1])
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let mut cfg = Config {
        seconds: 2.0,
        rounds: 5,
        connections: 8,
        depth: 4,
        threads: vec![1, 2],
        pin: true,
        only: String::new(),
        workload: String::new(),
        release_after: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().unwrap_or_default();
        match flag.as_str() {
            "--seconds" => cfg.seconds = value().parse().expect("--seconds S"),
            "--rounds" => cfg.rounds = value().parse().expect("--rounds R"),
            "--connections" => cfg.connections = value().parse().expect("--connections C"),
            "--depth" => cfg.depth = value().parse().expect("--depth D"),
            "--threads" => {
                cfg.threads = value()
                    .split(',')
                    .map(|t| t.parse().expect("--threads 1,2"))
                    .collect()
            }
            "--no-pin" => cfg.pin = false,
            "--only" => cfg.only = value(),
            "--workload" => cfg.workload = value(),
            "--release-after" => {
                let ms = value().parse().expect("--release-after MS");
                cfg.release_after = Some(Duration::from_millis(ms));
            }
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pin = cfg.pin && cpus >= 2;

    let mut reply = vec![0u8; 64 * 1024];
    let workloads: Vec<Workload> = [
        ("single call, eth_chainId", CHAIN_ID.to_string(), 1),
        ("single call, echo", ECHO.to_string(), 1),
        ("batch of 10", batch(), 10),
    ]
    .into_iter()
    .map(|(name, body, calls)| {
        // The codec's part, armed: it must allocate nothing.
        counting::arm();
        let before = counting::allocations();
        for _ in 0..1000 {
            let _ = std::hint::black_box(SLICE.handle(&mut (), body.as_bytes(), &mut reply));
        }
        let n = counting::allocations() - before;
        counting::disarm();
        println!("codec (Server::handle), {name}: {n} allocations in 1000 messages");
        assert_eq!(n, 0, "the codec allocated");
        let answer = SLICE.handle(&mut (), body.as_bytes(), &mut reply).unwrap();
        assert!(good_reply(answer, calls));
        let reply = Vec::leak(answer.to_vec());
        Workload {
            name,
            body,
            calls,
            reply,
        }
    })
    .collect();

    if pin {
        pin_to(&[cpus - 1]);
    }
    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "\nload average before: {}; {} CPUs; {} connections x {} pipelined; {} rounds of {} s; {}",
        load_average(),
        cpus,
        cfg.connections,
        cfg.depth,
        cfg.rounds,
        cfg.seconds,
        match pin {
            true => "client pinned to the last CPU, a 1-worker server to CPU 0",
            false => "nothing pinned",
        }
    );
    let hyper_reply: &'static Mutex<Bytes> = Box::leak(Box::new(Mutex::new(Bytes::new())));
    for &workers in &cfg.threads {
        let on: Option<Vec<usize>> = match (pin, workers) {
            (false, _) => None,
            (true, 1) => Some(vec![0]),
            (true, _) => Some((0..cpus).collect()),
        };
        let servers = [
            start_slice(workers, on.clone(), cfg.release_after),
            start_jsonrpsee(workers, on.clone()),
            start_hyper(workers, on, hyper_reply),
        ];
        println!("\n### {workers} server worker thread(s)\n");
        println!("| workload | server | HTTP requests/s | CPU µs/request | allocations/request |");
        println!("|---|---|---:|---:|---:|");
        for w in workloads
            .iter()
            .filter(|w| w.name.starts_with(&cfg.workload))
        {
            *hyper_reply.lock().unwrap() = Bytes::from_static(w.reply);
            let mut figures = vec![(Vec::new(), Vec::new(), Vec::new()); servers.len()];
            for round in 0..cfg.rounds {
                let mut order: Vec<usize> = (0..servers.len()).collect();
                if round % 2 == 1 {
                    order.reverse();
                }
                for i in order {
                    if !servers[i].name.starts_with(&cfg.only) {
                        continue;
                    }
                    let o = client.block_on(drive(&servers[i], w, &cfg));
                    let n = o.requests.max(1) as f64;
                    figures[i].0.push(o.requests as f64 / o.seconds);
                    figures[i].1.push(o.cpu_ns as f64 / n / 1000.0);
                    figures[i].2.push(o.allocations as f64 / n);
                }
            }
            let (mut rps, mut cpu) = (Vec::new(), Vec::new());
            for (server, (r, c, a)) in servers.iter().zip(&mut figures) {
                if r.is_empty() {
                    rps.push(f64::NAN);
                    cpu.push(f64::NAN);
                    continue;
                }
                let (r, c, a) = (median(r), median(c), median(a));
                rps.push(r.0);
                cpu.push(c.0);
                println!(
                    "| {} | {} | {:.0} ({:.0}..{:.0}) | {:.2} ({:.2}..{:.2}) | {:.2} ({:.2}..{:.2}) |",
                    w.name, server.name, r.0, r.1, r.2, c.0, c.1, c.2, a.0, a.1, a.2
                );
            }
            println!(
                "| {} | jsonrpc-slice against jsonrpsee (medians) | {:.2}x | {:.2}x less | |",
                w.name,
                rps[0] / rps[1],
                cpu[1] / cpu[0]
            );
        }
        println!("\nload average after: {}", load_average());
    }
    println!(
        "requests answered in all, warm-ups included: {}",
        ANSWERED.load(Ordering::Relaxed)
    );
}
