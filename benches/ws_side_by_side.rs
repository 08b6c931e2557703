//! WebSocket: the `http-node` example side by side with the same methods on
//! jsonrpsee's server, both driven by one client (tokio-tungstenite's) on loopback.
//!
//! ```sh
//! cargo bench -p jsonrpc-slice-benches --bench ws_side_by_side -- [--calls N] [--connections C] [--blocks B] [--subscribers S]
//! ```
//!
//! For 1 and then 2 server worker threads (each server on a tokio runtime of that many
//! workers; the example's WebSocket sessions on as many session threads), two jobs:
//!
//! - **calls**: C connections (default 8), each sending `eth_chainId` lock-step (send,
//!   wait for the reply), N calls in all (default 40 000), after a warm-up.
//! - **pushes**: S connections (default 8) each subscribe to `newHeads`; a driver
//!   connection calls `evm_mine` B times (default 2 000), in bursts of 50, each burst
//!   waited for until every subscriber has its 50 headers (so no queue overflows:
//!   this is throughput, not a slow-reader test). Notifications pushed per second:
//!   S × B over the time from the first mine to the last header received.
//!
//! `--only slice|jsonrpsee` runs one server, `--workers W` one worker count, `--job
//! calls|pushes` one job (for a profiler: `benches/ws_instructions.sh`).
//!
//! Printed: calls per second, notifications per second, the CPU time of every thread
//! but the client's (the main thread) per call and per notification (from
//! `/proc/self/task/*/schedstat`: less disturbed by other work on the machine than
//! wall time), and heap allocations (alloc, alloc_zeroed, realloc) on those threads
//! per call and per notification. One run each.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use jsonrpc_slice::http::websocket::Settings as WsSettings;
use jsonrpsee::server::{RpcModule, Server, ServerConfig, SubscriptionMessage};
use tokio::sync::broadcast;
use tokio_tungstenite::tungstenite::Message;

#[path = "../examples/http-node.rs"]
#[allow(dead_code)]
mod node;

#[path = "../tests/common/counting_threads.rs"]
mod counting;

/// CPU time, in nanoseconds, of every thread of the process but the main one (the
/// client's): the servers' threads.
fn server_cpu_ns() -> u64 {
    let main = std::process::id().to_string();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter(|t| t.file_name().to_str() != Some(main.as_str()))
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// Block `n`'s header, as the example writes it.
fn header(n: u64) -> String {
    let zeros = format!("0x{:064x}", 0);
    format!(
        r#"{{"number":"{n:#x}","hash":"0x{n:064x}","parentHash":"0x{p:064x}","stateRoot":"{zeros}","transactionsRoot":"{zeros}","receiptsRoot":"{zeros}","mixHash":"{zeros}","sha3Uncles":"0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347","miner":"0x0000000000000000000000000000000000000000","logsBloom":"0x{bloom:0>512}","difficulty":"0x0","gasLimit":"0x1c9c380","gasUsed":"0x0","timestamp":"{t:#x}","extraData":"0x","nonce":"0x0000000000000000","baseFeePerGas":"0x7"}}"#,
        p = n - 1,
        bloom = "",
        t = 1_700_000_000 + 12 * n
    )
}

struct Chain {
    block: AtomicU64,
    heads: broadcast::Sender<u64>,
}

fn jsonrpsee_module() -> RpcModule<Chain> {
    let (heads, _) = broadcast::channel(4096);
    let mut m = RpcModule::new(Chain {
        block: AtomicU64::new(0x10),
        heads,
    });
    m.register_method("eth_chainId", |_, _, _| "0x539").unwrap();
    m.register_method("evm_mine", |_, chain, _| {
        let n = chain.block.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = chain.heads.send(n);
        "0x0"
    })
    .unwrap();
    m.register_subscription(
        "eth_subscribe",
        "eth_subscription",
        "eth_unsubscribe",
        |_, pending, chain, _| async move {
            let mut heads = chain.heads.subscribe();
            let Ok(sink) = pending.accept().await else {
                return;
            };
            while let Ok(n) = heads.recv().await {
                let raw = serde_json::value::RawValue::from_string(header(n)).unwrap();
                if sink.send(SubscriptionMessage::from(raw)).await.is_err() {
                    return;
                }
            }
        },
    )
    .unwrap();
    m
}

type Client =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(addr: SocketAddr) -> Client {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/"))
        .await
        .expect("connect");
    ws
}

async fn text(ws: &mut Client) -> String {
    loop {
        match ws.next().await.expect("open").expect("message") {
            Message::Text(t) => return t.as_str().to_owned(),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("{other:?}"),
        }
    }
}

const CHAIN_ID: &str = r#"{"jsonrpc":"2.0","method":"eth_chainId","params":[],"id":1}"#;
const MINE: &str = r#"{"jsonrpc":"2.0","method":"evm_mine","params":[],"id":2}"#;
const SUBSCRIBE: &str =
    r#"{"jsonrpc":"2.0","method":"eth_subscribe","params":["newHeads"],"id":3}"#;

/// Calls per second, server CPU µs per call, allocations per call.
async fn calls(addr: SocketAddr, connections: usize, calls: usize) -> (f64, f64, f64) {
    let mut clients = Vec::new();
    for _ in 0..connections {
        let mut ws = connect(addr).await;
        for _ in 0..200 {
            ws.send(Message::text(CHAIN_ID)).await.unwrap();
            assert!(text(&mut ws).await.contains("0x539"));
        }
        clients.push(ws);
    }
    let each = calls / connections;
    let (before, start) = (counting::allocations(), Instant::now());
    let cpu = server_cpu_ns();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|mut ws| {
            tokio::spawn(async move {
                for _ in 0..each {
                    ws.send(Message::text(CHAIN_ID)).await.unwrap();
                    assert!(text(&mut ws).await.contains("0x539"));
                }
                ws
            })
        })
        .collect();
    for t in tasks {
        let _ = t.await.unwrap();
    }
    let secs = start.elapsed().as_secs_f64();
    let n = (each * connections) as f64;
    let cpu = server_cpu_ns().saturating_sub(cpu) as f64 / 1000.0;
    let allocations = (counting::allocations() - before) as f64;
    (n / secs, cpu / n, allocations / n)
}

/// Notifications per second, server CPU µs per notification, allocations per
/// notification (the `evm_mine` calls that made them included).
async fn pushes(addr: SocketAddr, subscribers: usize, blocks: usize) -> (f64, f64, f64) {
    const BURST: usize = 50;
    let mut driver = connect(addr).await;
    let (got, mut progress) = tokio::sync::watch::channel(0usize);
    let got = Arc::new(got);
    let mut tasks = Vec::new();
    for _ in 0..subscribers {
        let mut ws = connect(addr).await;
        ws.send(Message::text(SUBSCRIBE)).await.unwrap();
        let reply = text(&mut ws).await;
        assert!(reply.contains("\"result\":"), "{reply}");
        let got = got.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..blocks {
                let pushed = text(&mut ws).await;
                assert!(pushed.contains("eth_subscription"), "{pushed}");
                got.send_modify(|n| *n += 1);
            }
            ws
        }));
    }
    let (before, start) = (counting::allocations(), Instant::now());
    let cpu = server_cpu_ns();
    let mut mined = 0;
    while mined < blocks {
        let burst = BURST.min(blocks - mined);
        for _ in 0..burst {
            driver.send(Message::text(MINE)).await.unwrap();
            let _ = text(&mut driver).await;
        }
        mined += burst;
        let want = mined * subscribers;
        let waited =
            tokio::time::timeout(Duration::from_secs(30), progress.wait_for(|n| *n >= want));
        waited.await.expect("every header in time").expect("open");
    }
    let secs = start.elapsed().as_secs_f64();
    let n = (blocks * subscribers) as f64;
    let cpu = server_cpu_ns().saturating_sub(cpu) as f64 / 1000.0;
    let allocations = (counting::allocations() - before) as f64;
    for t in tasks {
        let _ = t.await.unwrap();
    }
    (n / secs, cpu / n, allocations / n)
}

fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1)?.parse().ok())
            .unwrap_or(default)
    };
    let n_calls = arg("--calls", 40_000);
    let connections = arg("--connections", 8);
    let blocks = arg("--blocks", 2_000);
    let subscribers = arg("--subscribers", 8);
    let named = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let only = named("--only");
    let job = named("--job");
    let workers_list = match arg("--workers", 0) {
        0 => vec![1, 2],
        w => vec![w],
    };
    // Every thread counts (the servers' runtimes, the example's session threads, which
    // it spawns itself), but this one, the client's.
    counting::count_every_thread();
    counting::disarm();
    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "\n{connections} connections lock-step, {n_calls} calls; {subscribers} subscribers, {blocks} blocks\n"
    );
    println!("| server | workers | calls/s | CPU µs/call | allocations/call | notifications/s | CPU µs/notification | allocations/notification |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for workers in workers_list {
        let slice_rt = runtime(workers);
        let slice = slice_rt.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let ws = node::websocket().with_settings(WsSettings {
                threads: workers,
                ..WsSettings::default()
            });
            tokio::spawn(node::http().with_websocket(ws).serve(listener));
            addr
        });
        let rpsee_rt = runtime(workers);
        let (rpsee, _handle) = rpsee_rt.block_on(async {
            let server = Server::builder()
                .set_config(ServerConfig::builder().build())
                .build("127.0.0.1:0")
                .await
                .unwrap();
            let addr = server.local_addr().unwrap();
            (addr, server.start(jsonrpsee_module()))
        });
        for (name, addr) in [
            ("jsonrpc-slice http-node", slice),
            ("jsonrpsee 0.26", rpsee),
        ] {
            if only.as_deref().is_some_and(|o| !name.contains(o)) {
                continue;
            }
            let (cps, c_cpu, c_allocs) = match job.as_deref() {
                Some("pushes") => (0.0, 0.0, 0.0),
                _ => client.block_on(calls(addr, connections, n_calls)),
            };
            let (nps, n_cpu, n_allocs) = match job.as_deref() {
                Some("calls") => (0.0, 0.0, 0.0),
                _ => client.block_on(pushes(addr, subscribers, blocks)),
            };
            println!(
                "| {name} | {workers} | {cps:.0} | {c_cpu:.1} | {c_allocs:.1} | {nps:.0} | {n_cpu:.1} | {n_allocs:.2} |"
            );
        }
    }
}
