//! HTTP clients side by side: the library's `http::RemoteClient` (hyper), jsonrpsee
//! 0.26's `HttpClient` and alloy 2.5's `RpcClient` (the client under alloy's provider,
//! on reqwest, without TLS), and a bare hyper 1 client as the floor, each calling the
//! same node: the `http-node` example's server, in-process.
//!
//! ```sh
//! cargo bench -p jsonrpc-slice-benches --bench http_clients -- \
//!     [--seconds S] [--rounds R] [--only NAME] [--workload NAME] [--no-pin] [--calls N]
//! ```
//!
//! - **Node**: `examples/http-node.rs`'s `http()` (the library's `HttpServer`), on a
//!   tokio runtime of one worker thread, pinned to CPU 0 (when the machine has 2 or more
//!   CPUs and `--no-pin` is not given).
//! - **Clients**: each on the main thread (a current-thread tokio runtime, pinned to
//!   the last CPU), one keep-alive connection, one call (or one batch) at a time: the
//!   next is sent when the last is answered. Typed as each library's users write it:
//!   alloy's `U64`/`U256` (alloy-primitives) for alloy and jsonrpsee (whose batch takes
//!   one result type for all its calls: `U256`), `&str` (borrowed from the reply) read
//!   as hex for the library. The bare hyper client sends prepared bodies and only
//!   counts `result"` in what comes back: what hyper itself costs a client.
//! - **Workloads**: a single `eth_chainId`; a batch of 10 (`eth_chainId`,
//!   `eth_blockNumber` and `eth_getBalance(0x…aa, "latest")` in turn). Every result is
//!   checked (1337, 16, 10^18).
//! - **Rounds**: R rounds (default 5) of S seconds (default 2), the clients in an order
//!   that alternates; each figure is the median of its rounds (lowest..highest).
//! - **Figures**: calls (or batches) a second; the client thread's CPU time per call
//!   (from `/proc/thread-self/schedstat`: less moved by other work on the machine than
//!   calls a second, which include the node's time); heap allocations (alloc,
//!   alloc_zeroed, realloc) on the client thread per call (a counting global allocator
//!   armed on that thread only: the node's threads are not counted; a client that did
//!   its work on threads of its own would look cheaper, and none of these does).
//!
//! `--calls N` runs N calls (or batches) of one client and one workload instead of
//! rounds (`--only`, `--workload`), for callgrind: `benches/http_clients.sh`.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use alloy_primitives::{U256, U64};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use jsonrpc_slice::http::RemoteClient;
use jsonrpc_slice::RawJson;
use jsonrpsee_core::client::ClientT;
use jsonrpsee_core::params::BatchRequestBuilder;
use jsonrpsee_core::rpc_params;

#[path = "../examples/http-node.rs"]
#[allow(dead_code)]
mod node;

#[path = "../tests/common/counting_threads.rs"]
mod counting;

/// The node's answers for a fresh chain.
const CHAIN_ID: u64 = 1337;
const BLOCK: u64 = 16;
const BALANCE: u64 = 1_000_000_000_000_000_000;
const AA: &str = "0x00000000000000000000000000000000000000aa";

/// `[AA, "latest"]`.
fn balance_of() -> RawJson<'static> {
    RawJson::new(br#"["0x00000000000000000000000000000000000000aa","latest"]"#).unwrap()
}

/// No params, as alloy's batch writes them: `[]` (`&()` would be `null`, which the
/// specification does not allow and the node refuses).
const NO_PARAMS: [u8; 0] = [];

/// The calls of the batch, in turn.
const BATCH: usize = 10;
const EXPECTED: [u64; 3] = [CHAIN_ID, BLOCK, BALANCE];

// ---------------------------------------------------------------------------------
// The clients: one call, one batch, each checked.

/// A client under test, connected.
enum Client {
    Slice(RemoteClient),
    Jsonrpsee(jsonrpsee_http_client::HttpClient),
    Alloy(alloy_rpc_client::RpcClient),
    Bare(Bare),
}

/// hyper 1's HTTP/1 client, bare: the floor under any JSON-RPC client on it. Prepared
/// request bodies (static bytes), the response body collected; no JSON written or
/// read, the body only checked to hold the answers (`"0x539"` ...).
struct Bare {
    send: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    host: hyper::header::HeaderValue,
    addr: String,
}

const BARE_SINGLE: &str = r#"{"jsonrpc":"2.0","method":"eth_chainId","id":1}"#;

/// The batch of 10 as the other clients send it.
fn bare_batch() -> &'static str {
    static BATCH_BODY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BATCH_BODY.get_or_init(|| {
        let calls: Vec<String> = (0..BATCH)
            .map(|i| {
                let id = i + 1;
                match i % 3 {
                    0 => format!(r#"{{"jsonrpc":"2.0","method":"eth_chainId","id":{id}}}"#),
                    1 => format!(r#"{{"jsonrpc":"2.0","method":"eth_blockNumber","id":{id}}}"#),
                    _ => format!(
                        r#"{{"jsonrpc":"2.0","method":"eth_getBalance","params":["{AA}","latest"],"id":{id}}}"#
                    ),
                }
            })
            .collect();
        format!("[{}]", calls.join(","))
    })
}

impl Bare {
    async fn connect(addr: &str) -> Bare {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(conn);
        Bare {
            send,
            host: hyper::header::HeaderValue::from_str(addr).unwrap(),
            addr: addr.to_string(),
        }
    }

    async fn post(&mut self, body: &'static str, answers: usize) {
        // The node closes a connection idle for 5 s (while the other clients ran): a
        // new one, as the others' pools make.
        if self.send.ready().await.is_err() {
            *self = Bare::connect(&self.addr).await;
        }
        let mut request = hyper::Request::new(Full::new(Bytes::from_static(body.as_bytes())));
        *request.method_mut() = hyper::Method::POST;
        let headers = request.headers_mut();
        headers.insert(hyper::header::HOST, self.host.clone());
        headers.insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("application/json"),
        );
        let response = self.send.send_request(request).await.expect("hyper: send");
        let body = response
            .into_body()
            .collect()
            .await
            .expect("hyper: body")
            .to_bytes();
        let found = body.windows(7).filter(|w| *w == b"result\"").count();
        assert_eq!(
            found,
            answers,
            "hyper: {:?}",
            String::from_utf8_lossy(&body)
        );
    }
}

const NAMES: [&str; 4] = [
    "jsonrpc-slice RemoteClient (hyper)",
    "jsonrpsee 0.26 HttpClient",
    "alloy 2.5 RpcClient (reqwest)",
    "hyper 1 client, bare (floor)",
];

/// A hex quantity (`"0x539"`) as a number: what the library's user writes (its typed
/// results are borrowed, here `&str`).
fn quantity(hex: &str) -> u64 {
    u64::from_str_radix(hex.trim_start_matches("0x"), 16).expect("a hex quantity")
}

impl Client {
    async fn connect(i: usize, url: &str) -> Client {
        match i {
            0 => Client::Slice(
                RemoteClient::connect(url)
                    .await
                    .expect("jsonrpc-slice client"),
            ),
            1 => Client::Jsonrpsee(
                jsonrpsee_http_client::HttpClientBuilder::default()
                    .build(url)
                    .expect("jsonrpsee client"),
            ),
            2 => {
                Client::Alloy(alloy_rpc_client::ClientBuilder::default().http(url.parse().unwrap()))
            }
            _ => Client::Bare(Bare::connect(url.trim_start_matches("http://")).await),
        }
    }

    async fn single(&mut self) {
        let chain_id = match self {
            Client::Slice(c) => {
                let hex: &str = c
                    .call("eth_chainId", ())
                    .await
                    .expect("jsonrpc-slice: eth_chainId");
                U64::from(quantity(hex))
            }
            Client::Jsonrpsee(c) => c
                .request::<U64, _>("eth_chainId", rpc_params![])
                .await
                .expect("jsonrpsee: eth_chainId"),
            Client::Alloy(c) => c
                .request_noparams::<U64>("eth_chainId")
                .await
                .expect("alloy: eth_chainId"),
            Client::Bare(c) => {
                c.post(BARE_SINGLE, 1).await;
                U64::from(CHAIN_ID)
            }
        };
        assert_eq!(chain_id, U64::from(CHAIN_ID));
    }

    async fn batch(&mut self) {
        match self {
            Client::Slice(c) => {
                let mut handles = [None; BATCH];
                c.send_batch(|b| {
                    for (i, h) in handles.iter_mut().enumerate() {
                        *h = Some(match i % 3 {
                            0 => b.call::<&str>("eth_chainId", ())?,
                            1 => b.call::<&str>("eth_blockNumber", ())?,
                            _ => b.call::<&str>("eth_getBalance", balance_of())?,
                        });
                    }
                    Ok(())
                })
                .await
                .expect("jsonrpc-slice: batch");
                for (i, h) in handles.into_iter().enumerate() {
                    let hex = c
                        .client()
                        .take(&h.unwrap())
                        .unwrap()
                        .expect("jsonrpc-slice: a call");
                    assert_eq!(quantity(hex), EXPECTED[i % 3]);
                }
            }
            Client::Jsonrpsee(c) => {
                // One result type for the whole batch (jsonrpsee's `batch_request`):
                // every answer here is a quantity.
                let mut batch = BatchRequestBuilder::new();
                for i in 0..BATCH {
                    match i % 3 {
                        0 => batch.insert("eth_chainId", rpc_params![]),
                        1 => batch.insert("eth_blockNumber", rpc_params![]),
                        _ => batch.insert("eth_getBalance", rpc_params![AA, "latest"]),
                    }
                    .expect("jsonrpsee: batch");
                }
                let answers = c
                    .batch_request::<U256>(batch)
                    .await
                    .expect("jsonrpsee: batch");
                assert_eq!(answers.num_successful_calls(), BATCH);
                for (i, a) in answers.into_iter().enumerate() {
                    assert_eq!(a.expect("jsonrpsee: a call"), U256::from(EXPECTED[i % 3]));
                }
            }
            Client::Alloy(c) => {
                let mut batch = c.new_batch();
                let mut u64s = Vec::new();
                let mut balances = Vec::new();
                for i in 0..BATCH {
                    match i % 3 {
                        0 => u64s.push((
                            i,
                            batch.add_call::<_, U64>("eth_chainId", &NO_PARAMS).unwrap(),
                        )),
                        1 => u64s.push((
                            i,
                            batch
                                .add_call::<_, U64>("eth_blockNumber", &NO_PARAMS)
                                .unwrap(),
                        )),
                        _ => balances.push(
                            batch
                                .add_call::<_, U256>("eth_getBalance", &(AA, "latest"))
                                .unwrap(),
                        ),
                    }
                }
                batch.send().await.expect("alloy: batch");
                for (i, waiter) in u64s {
                    assert_eq!(
                        waiter.await.expect("alloy: a call"),
                        U64::from(EXPECTED[i % 3])
                    );
                }
                for waiter in balances {
                    assert_eq!(waiter.await.expect("alloy: a call"), U256::from(BALANCE));
                }
            }
            Client::Bare(c) => c.post(bare_batch(), BATCH).await,
        }
    }
}

// ---------------------------------------------------------------------------------
// The node.

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

/// The node on a runtime of one worker (pinned to `cpu`), serving until the process
/// ends.
fn start_node(cpu: Option<usize>) -> (tokio::runtime::Runtime, SocketAddr) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .on_thread_start(move || {
            counting::disarm();
            if let Some(cpu) = cpu {
                pin_to(&[cpu]);
            }
        })
        .enable_all()
        .build()
        .unwrap();
    let addr = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(node::http().serve(listener));
        addr
    });
    (rt, addr)
}

// ---------------------------------------------------------------------------------
// Figures.

/// This thread's CPU time so far, in nanoseconds (schedstat's first field).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

struct Outcome {
    calls: u64,
    seconds: f64,
    allocations: u64,
    cpu_ns: u64,
}

/// Runs workload `w` on `client` for `seconds` (or `count` times), after a warm-up
/// of 200.
async fn drive(client: &mut Client, w: usize, seconds: f64, count: Option<u64>) -> Outcome {
    async fn one(client: &mut Client, w: usize) {
        match w {
            0 => client.single().await,
            _ => client.batch().await,
        }
    }
    for _ in 0..200 {
        one(client, w).await;
    }
    let (allocations, cpu) = (counting::allocations(), thread_cpu_ns());
    let start = Instant::now();
    let until = start + Duration::from_secs_f64(seconds);
    let mut calls = 0;
    loop {
        one(client, w).await;
        calls += 1;
        match count {
            Some(n) if calls >= n => break,
            None if calls % 16 == 0 && Instant::now() >= until => break,
            _ => {}
        }
    }
    Outcome {
        calls,
        seconds: start.elapsed().as_secs_f64(),
        allocations: counting::allocations() - allocations,
        cpu_ns: thread_cpu_ns() - cpu,
    }
}

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

const WORKLOADS: [&str; 2] = ["single call (eth_chainId)", "batch of 10"];

fn main() {
    let (mut seconds, mut rounds, mut pin) = (2.0, 5, true);
    let (mut only, mut workload, mut count) = (String::new(), String::new(), None);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().unwrap_or_default();
        match flag.as_str() {
            "--seconds" => seconds = value().parse().expect("--seconds S"),
            "--rounds" => rounds = value().parse().expect("--rounds R"),
            "--only" => only = value(),
            "--workload" => workload = value(),
            "--calls" => count = Some(value().parse().expect("--calls N")),
            "--no-pin" => pin = false,
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pin = pin && cpus >= 2;
    let (_node, addr) = start_node(pin.then_some(0));
    if pin {
        pin_to(&[cpus - 1]);
    }
    counting::arm();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = format!("http://{addr}");
    let mut clients: Vec<(usize, Client)> = (0..NAMES.len())
        .filter(|&i| NAMES[i].starts_with(&only))
        .map(|i| (i, rt.block_on(Client::connect(i, &url))))
        .collect();
    let workloads: Vec<(usize, &str)> = WORKLOADS
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, w)| w.starts_with(&workload))
        .collect();

    if let Some(n) = count {
        for (_, client) in &mut clients {
            for &(w, _) in &workloads {
                let o = rt.block_on(drive(client, w, 0.0, Some(n)));
                println!("calls: {}, allocations: {}", o.calls, o.allocations);
            }
        }
        return;
    }

    println!(
        "load average before: {}; {cpus} CPUs; {rounds} rounds of {seconds} s; {}",
        load_average(),
        match pin {
            true => "client pinned to the last CPU, the node (1 worker) to CPU 0",
            false => "nothing pinned",
        }
    );
    println!("\n| workload | client | calls/s | client CPU µs/call | allocations/call |");
    println!("|---|---|---:|---:|---:|");
    for &(w, name) in &workloads {
        let per = if w == 0 { 1.0 } else { BATCH as f64 };
        let mut figures = vec![(Vec::new(), Vec::new(), Vec::new()); clients.len()];
        for round in 0..rounds {
            let mut order: Vec<usize> = (0..clients.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for i in order {
                let client = &mut clients[i].1;
                let o = rt.block_on(drive(client, w, seconds, None));
                let calls = o.calls as f64 * per;
                figures[i].0.push(calls / o.seconds);
                figures[i].1.push(o.cpu_ns as f64 / calls / 1000.0);
                figures[i].2.push(o.allocations as f64 / calls);
            }
        }
        for ((i, _), (r, c, a)) in clients.iter().zip(&mut figures) {
            let (r, c, a) = (median(r), median(c), median(a));
            println!(
                "| {name} | {} | {:.0} ({:.0}..{:.0}) | {:.2} ({:.2}..{:.2}) | {:.2} ({:.2}..{:.2}) |",
                NAMES[*i], r.0, r.1, r.2, c.0, c.1, c.2, a.0, a.1, a.2
            );
        }
    }
    println!("\nload average after: {}", load_average());
}
