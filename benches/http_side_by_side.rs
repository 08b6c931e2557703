//! The `http-node` example side by side with the same methods on jsonrpsee's HTTP
//! server, both driven by one load generator (hyper's client) on loopback.
//!
//! ```sh
//! cargo bench -p jsonrpc-slice-benches --bench http_side_by_side -- [--requests N] [--seconds S] [--connections C] [--rounds R]
//! ```
//!
//! Each server runs on its own tokio runtime with one worker thread; the load
//! generator runs on another, with C keep-alive connections (default 8) sending one
//! request at a time each. Each round of a workload runs until N HTTP requests
//! (default 20 000) are answered or S seconds (default 5) have passed, after a warm-up
//! on the same connections; R rounds (default 3) alternate the servers and each keeps
//! its best. Printed: HTTP requests per second, and heap allocations (alloc,
//! alloc_zeroed, realloc; frees not counted) made on the server's threads per HTTP
//! request. Every reply is checked: status 200, and no error in it (the warm-up's are
//! parsed: the expected number of results).
//!
//! First, the codec's part of the example (`answer`, i.e. `Server::handle`) runs on
//! the same messages under the counting allocator; it must allocate nothing, or the
//! program fails.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::Request;
use hyper_util::rt::TokioIo;
use jsonrpsee::server::{RpcModule, Server, ServerConfig};
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::Value;

#[path = "../examples/http-node.rs"]
#[allow(dead_code)]
mod node;

// ---------------------------------------------------------------------------------
// The counting allocator: counts on the threads that armed it (the servers' threads).

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if ARMED.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only a
// const-initialised thread-local and an atomic (no allocation, no re-entrance).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// ---------------------------------------------------------------------------------
// jsonrpsee: the same methods, written as its users write them.

static BLOCK: AtomicU64 = AtomicU64::new(0x10);

fn invalid(message: String) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(-32602, message, None::<()>)
}

fn jsonrpsee_module() -> RpcModule<()> {
    let mut m = RpcModule::new(());
    m.register_method("eth_chainId", |_, _, _| "0x539").unwrap();
    m.register_method("net_version", |_, _, _| "1337").unwrap();
    m.register_method("web3_clientVersion", |_, _, _| "jsonrpsee-node/0.1.0")
        .unwrap();
    m.register_method("eth_blockNumber", |_, _, _| {
        format!("{:#x}", BLOCK.load(Ordering::Relaxed))
    })
    .unwrap();
    m.register_method("evm_mine", |_, _, _| {
        BLOCK.fetch_add(1, Ordering::Relaxed);
        "0x0"
    })
    .unwrap();
    m.register_method("eth_gasPrice", |_, _, _| "0x3b9aca00")
        .unwrap();
    m.register_method("eth_getBalance", |params, _, _| {
        let (address, tag): (String, String) = params.parse()?;
        let digits = address.strip_prefix("0x").unwrap_or("-");
        if digits.len() != 40 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid(format!("invalid address: {address:?}")));
        }
        let quantity = |d: &str| {
            d == "0"
                || (!d.is_empty()
                    && !d.starts_with('0')
                    && d.len() <= 16
                    && d.bytes().all(|b| b.is_ascii_hexdigit()))
        };
        let named = ["latest", "earliest", "pending", "safe", "finalized"];
        if !named.contains(&tag.as_str()) && !tag.strip_prefix("0x").is_some_and(quantity) {
            return Err(invalid("invalid block tag".into()));
        }
        let aa = digits.eq_ignore_ascii_case("00000000000000000000000000000000000000aa");
        Ok(if aa { "0xde0b6b3a7640000" } else { "0x0" })
    })
    .unwrap();
    m
}

// ---------------------------------------------------------------------------------
// Workloads.

const BALANCE: &str = r#"{"jsonrpc":"2.0","method":"eth_getBalance","params":["0x00000000000000000000000000000000000000AA","latest"],"id":1}"#;
const CHAIN_ID: &str = r#"{"jsonrpc":"2.0","method":"eth_chainId","params":[],"id":1}"#;

/// A batch of 10 as ethers sends them: mixed methods, numeric ids.
fn batch() -> String {
    let calls = [
        r#""eth_chainId","params":[]"#,
        r#""eth_blockNumber","params":[]"#,
        r#""eth_gasPrice","params":[]"#,
        r#""net_version","params":[]"#,
        r#""eth_getBalance","params":["0x00000000000000000000000000000000000000aa","latest"]"#,
        r#""eth_getBalance","params":["0x1111111111111111111111111111111111111111","pending"]"#,
        r#""eth_getBalance","params":["0x00000000000000000000000000000000000000AA","0x10"]"#,
        r#""web3_clientVersion","params":[]"#,
        r#""eth_chainId","params":[]"#,
        r#""eth_getBalance","params":["0x2222222222222222222222222222222222222222","latest"]"#,
    ];
    let calls: Vec<String> = (0..10)
        .map(|i| {
            format!(
                r#"{{"jsonrpc":"2.0","method":{},"id":{}}}"#,
                calls[i],
                i + 1
            )
        })
        .collect();
    format!("[{}]", calls.join(","))
}

/// `true` when `reply` answers `request` with results only (no error).
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

struct Workload {
    name: &'static str,
    body: Bytes,
    calls: usize,
}

struct Outcome {
    requests: u64,
    elapsed: Duration,
    allocations: u64,
}

struct Config {
    requests: u64,
    seconds: u64,
    connections: usize,
    rounds: usize,
}

/// Drives `addr` with `work`: warm-up, then the measured run.
async fn drive(addr: SocketAddr, work: &Workload, cfg: &Config) -> Outcome {
    let mut senders = Vec::new();
    for _ in 0..cfg.connections {
        let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).unwrap();
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(conn);
        senders.push(sender);
    }
    let host = addr.to_string();
    let run = |senders: Vec<hyper::client::conn::http1::SendRequest<Full<Bytes>>>,
               budget: u64,
               deadline: Instant,
               full_check: bool| {
        let done = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let tasks: Vec<_> = senders
            .into_iter()
            .map(|mut sender| {
                let (done, stop) = (done.clone(), stop.clone());
                let (body, host, calls) = (work.body.clone(), host.clone(), work.calls);
                tokio::spawn(async move {
                    loop {
                        if done.fetch_add(1, Ordering::Relaxed) >= budget
                            || stop.load(Ordering::Relaxed)
                            || Instant::now() >= deadline
                        {
                            done.fetch_sub(1, Ordering::Relaxed);
                            stop.store(true, Ordering::Relaxed);
                            return sender;
                        }
                        sender.ready().await.expect("connection");
                        let req = Request::post("/")
                            .header(HOST, &host)
                            .header(CONTENT_TYPE, "application/json")
                            .body(Full::new(body.clone()))
                            .unwrap();
                        let res = sender.send_request(req).await.expect("response");
                        assert_eq!(res.status(), 200);
                        let reply = res.into_body().collect().await.unwrap().to_bytes();
                        // Every reply of the warm-up is parsed and checked; in the
                        // measured run, a cheap look (the client is not the bench).
                        let good = match full_check {
                            true => good_reply(&reply, calls),
                            false => !reply.windows(8).any(|w| w == b"\"error\":"),
                        };
                        assert!(good, "bad reply: {reply:?}");
                    }
                })
            })
            .collect();
        async move {
            let mut senders = Vec::new();
            for t in tasks {
                senders.push(t.await.unwrap());
            }
            (senders, done.load(Ordering::Relaxed))
        }
    };
    let warm_up = 200 * cfg.connections as u64;
    let (senders, _) = run(
        senders,
        warm_up,
        Instant::now() + Duration::from_secs(10),
        true,
    )
    .await;
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let start = Instant::now();
    let deadline = start + Duration::from_secs(cfg.seconds);
    let (_senders, requests) = run(senders, cfg.requests, deadline, false).await;
    let elapsed = start.elapsed();
    let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
    Outcome {
        requests,
        elapsed,
        allocations,
    }
}

fn server_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .on_thread_start(|| ARMED.with(|a| a.set(true)))
        .enable_all()
        .build()
        .unwrap()
}

fn main() {
    let mut cfg = Config {
        requests: 20_000,
        seconds: 5,
        connections: 8,
        rounds: 3,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = || it.clone().next().and_then(|v| v.parse::<u64>().ok());
        match flag.as_str() {
            "--requests" => cfg.requests = value().expect("--requests N"),
            "--seconds" => cfg.seconds = value().expect("--seconds S"),
            "--connections" => cfg.connections = value().expect("--connections C") as usize,
            "--rounds" => cfg.rounds = value().expect("--rounds R") as usize,
            "--bench" => continue,
            other => panic!("unknown argument {other}"),
        }
        it.next();
    }

    let batch = batch();
    let workloads = [
        Workload {
            name: "single call (eth_chainId)",
            body: Bytes::from_static(CHAIN_ID.as_bytes()),
            calls: 1,
        },
        Workload {
            name: "single call (eth_getBalance)",
            body: Bytes::from_static(BALANCE.as_bytes()),
            calls: 1,
        },
        Workload {
            name: "batch of 10",
            body: Bytes::from(batch.clone()),
            calls: 10,
        },
    ];

    // The codec's part: `answer` (Server::handle) on each message, armed.
    let mut reply = vec![0u8; 64 * 1024];
    for w in &workloads {
        ARMED.with(|a| a.set(true));
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for _ in 0..1000 {
            let _ = std::hint::black_box(node::answer(&w.body, &mut reply));
        }
        let n = ALLOCATIONS.load(Ordering::Relaxed) - before;
        ARMED.with(|a| a.set(false));
        println!(
            "codec (Server::handle), {}: {n} allocations in 1000 messages",
            w.name
        );
        assert_eq!(n, 0, "the codec allocated");
    }

    // The servers, each on its own one-worker runtime.
    let slice_rt = server_runtime();
    let slice_addr = slice_rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(node::http().serve(listener));
        addr
    });
    let rpsee_rt = server_runtime();
    let (rpsee_addr, _handle) = rpsee_rt.block_on(async {
        let config = ServerConfig::builder().max_request_body_size(1024 * 1024);
        let server = Server::builder()
            .set_config(config.build())
            .build("127.0.0.1:0")
            .await
            .unwrap();
        let addr = server.local_addr().unwrap();
        (addr, server.start(jsonrpsee_module()))
    });

    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "\n{} connections, at most {} requests or {} s per round, best of {} rounds, one server worker thread\n",
        cfg.connections, cfg.requests, cfg.seconds, cfg.rounds
    );
    println!("| workload | server | HTTP requests/s | calls/s | allocations per HTTP request |");
    println!("|---|---|---:|---:|---:|");
    let servers = [
        ("jsonrpc-slice http-node", slice_addr),
        ("jsonrpsee 0.26", rpsee_addr),
    ];
    for w in &workloads {
        // Rounds alternate the servers; each row keeps its best round (the machine is
        // shared: the best round is the one least disturbed).
        let mut best = [(0.0f64, 0.0f64); 2];
        for _ in 0..cfg.rounds {
            for (i, (_, addr)) in servers.iter().enumerate() {
                let o = client.block_on(drive(*addr, w, &cfg));
                let rps = o.requests as f64 / o.elapsed.as_secs_f64();
                let per_request = o.allocations as f64 / o.requests.max(1) as f64;
                if rps > best[i].0 {
                    best[i] = (rps, per_request);
                }
            }
        }
        for ((server, _), (rps, allocations)) in servers.iter().zip(best) {
            println!(
                "| {} | {} | {:.0} | {:.0} | {:.1} |",
                w.name,
                server,
                rps,
                rps * w.calls as f64,
                allocations
            );
        }
    }
}
