//! The two WebSocket crates the issue names, tokio-tungstenite and fastwebsockets, on
//! the same job, to choose one for `http::websocket`.
//!
//! ```sh
//! cargo bench -p jsonrpc-slice-benches --bench ws_crates -- [--calls N] [--pushes P]
//! ```
//!
//! Each server is the same: hyper 1 takes the upgrade, then the crate answers every
//! text message with `Server::handle` (an `eth_chainId` table), on a current-thread
//! tokio runtime of its own thread. One client (tokio-tungstenite's, on another
//! thread) drives both over one connection: N calls lock-step (send, wait for the
//! reply), N calls pipelined (a writer and a reader at once), and P pushed
//! notifications of a ~550-byte block header (the server writes them as fast as the
//! socket takes them). Printed: messages per second, and heap allocations (alloc,
//! alloc_zeroed, realloc) made on the server's thread per message. One run each.

use std::net::SocketAddr;
use std::time::Instant;

use futures_util::{SinkExt, StreamExt};
use http_body_util::Empty;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use jsonrpc_slice::{method_table, Params, ResultWriter, RpcError, Server};
use tokio_tungstenite::tungstenite::Message;

#[path = "../tests/common/counting_threads.rs"]
mod counting;

fn chain_id<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(out.str("0x539")?)
}

static SERVER: Server<()> = Server::new(method_table! { "eth_chainId" => chain_id });

/// What the client sends to ask for P pushes: the server then writes P copies of
/// `HEADER` as notifications.
const PUSH: &str = "push";

const HEADER: &str = r#"{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x9cef478923ff08bf67fde6c64013158d","result":{"parentHash":"0x9b18ae0b6e5fd9b2f3b0f1d8b4a1bb9b0c7a3b1d5b4f6a6b7c8d9e0f1a2b3c4d","sha3Uncles":"0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347","miner":"0x0000000000000000000000000000000000000000","stateRoot":"0x0000000000000000000000000000000000000000000000000000000000000000","number":"0x1b4","gasUsed":"0x0","gasLimit":"0x1c9c380","timestamp":"0x5f5e100","extraData":"0x","baseFeePerGas":"0x7","hash":"0xdc0818cf78f21a8e70579cb46a43643f78291264dda342ae31049421c82d21ae"}}}"#;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Crate {
    Tungstenite,
    Fast,
}

fn accept_key(req: &Request<Incoming>) -> Option<String> {
    let key = req.headers().get("sec-websocket-key")?;
    Some(tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes()))
}

async fn upgrade(
    which: Crate,
    pushes: usize,
    mut req: Request<Incoming>,
) -> Result<Response<Empty<Bytes>>, std::convert::Infallible> {
    match which {
        Crate::Fast => {
            let (response, fut) = fastwebsockets::upgrade::upgrade(&mut req).expect("upgrade");
            tokio::task::spawn_local(async move {
                let ws = fut.await.expect("upgraded");
                serve_fast(ws, pushes).await;
            });
            Ok(response)
        }
        Crate::Tungstenite => {
            let key = accept_key(&req).expect("key");
            let on = hyper::upgrade::on(&mut req);
            tokio::task::spawn_local(async move {
                let io = TokioIo::new(on.await.expect("upgraded"));
                let ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
                    io,
                    tokio_tungstenite::tungstenite::protocol::Role::Server,
                    None,
                )
                .await;
                serve_tungstenite(ws, pushes).await;
            });
            Ok(Response::builder()
                .status(101)
                .header("connection", "upgrade")
                .header("upgrade", "websocket")
                .header("sec-websocket-accept", key)
                .body(Empty::new())
                .expect("response"))
        }
    }
}

async fn serve_tungstenite(
    mut ws: tokio_tungstenite::WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>,
    pushes: usize,
) {
    let mut reply = vec![0u8; 4096];
    while let Some(Ok(message)) = ws.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        if text.as_str() == PUSH {
            for _ in 0..pushes {
                if ws.feed(Message::text(HEADER)).await.is_err() {
                    return;
                }
            }
            let _ = ws.flush().await;
            continue;
        }
        let out = SERVER
            .handle(&mut (), text.as_bytes(), &mut reply)
            .expect("fits");
        let out = std::str::from_utf8(out).expect("utf-8");
        if ws.send(Message::text(out)).await.is_err() {
            return;
        }
    }
}

async fn serve_fast(
    ws: fastwebsockets::WebSocket<TokioIo<hyper::upgrade::Upgraded>>,
    pushes: usize,
) {
    use fastwebsockets::{Frame, OpCode, Payload};
    let mut ws = fastwebsockets::FragmentCollector::new(ws);
    let mut reply = vec![0u8; 4096];
    loop {
        let Ok(frame) = ws.read_frame().await else {
            return;
        };
        match frame.opcode {
            OpCode::Close => return,
            OpCode::Text => {}
            _ => continue,
        }
        if &frame.payload[..] == PUSH.as_bytes() {
            for _ in 0..pushes {
                let frame = Frame::text(Payload::Borrowed(HEADER.as_bytes()));
                if ws.write_frame(frame).await.is_err() {
                    return;
                }
            }
            continue;
        }
        let out = SERVER
            .handle(&mut (), &frame.payload, &mut reply)
            .expect("fits");
        let len = out.len();
        if ws
            .write_frame(Frame::text(Payload::Borrowed(&reply[..len])))
            .await
            .is_err()
        {
            return;
        }
    }
}

/// Serves on a thread of its own; returns the address.
fn start(which: Crate, pushes: usize) -> SocketAddr {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    std_listener.set_nonblocking(true).expect("nonblocking");
    let addr = std_listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        counting::arm();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("rt");
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
            loop {
                let (stream, _) = listener.accept().await.expect("accept");
                let _ = stream.set_nodelay(true);
                let service = hyper::service::service_fn(move |req| upgrade(which, pushes, req));
                tokio::task::spawn_local(async move {
                    let conn = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .with_upgrades();
                    let _ = conn.await;
                });
            }
        });
    });
    addr
}

fn call(i: usize) -> Message {
    Message::text(format!(
        r#"{{"jsonrpc":"2.0","id":{i},"method":"eth_chainId","params":[]}}"#
    ))
}

/// Runs the three jobs against `which`; prints a line each.
fn run(which: Crate, calls: usize, pushes: usize) {
    let addr = start(which, pushes);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    rt.block_on(async move {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/"))
            .await
            .expect("connect");
        let (mut tx, mut rx) = ws.split();
        // Warm-up.
        for i in 0..1000 {
            tx.send(call(i)).await.expect("send");
            rx.next().await.expect("reply").expect("reply");
        }
        let measure = |name: &str, n: usize, start: Instant, before: u64| {
            let secs = start.elapsed().as_secs_f64();
            let allocs = counting::allocations() - before;
            println!(
                "{:<12} {:<11} {:>9.0} messages/s  {:>5.2} allocations/message (server)",
                format!("{which:?}"),
                name,
                n as f64 / secs,
                allocs as f64 / n as f64
            );
        };
        let (start, before) = (Instant::now(), counting::allocations());
        for i in 0..calls {
            tx.send(call(i)).await.expect("send");
            let reply = rx.next().await.expect("reply").expect("reply");
            assert!(reply.to_text().expect("text").contains("0x539"));
        }
        measure("lock-step", calls, start, before);
        let (start, before) = (Instant::now(), counting::allocations());
        let write = async {
            for i in 0..calls {
                tx.feed(call(i)).await.expect("send");
            }
            tx.flush().await.expect("flush");
        };
        let read = async {
            for _ in 0..calls {
                let reply = rx.next().await.expect("reply").expect("reply");
                assert!(reply.to_text().expect("text").contains("0x539"));
            }
        };
        tokio::join!(write, read);
        measure("pipelined", calls, start, before);
        let (start, before) = (Instant::now(), counting::allocations());
        tx.send(Message::text(PUSH)).await.expect("send");
        for _ in 0..pushes {
            let pushed = rx.next().await.expect("push").expect("push");
            assert_eq!(pushed.len(), HEADER.len());
        }
        measure("pushed", pushes, start, before);
    });
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1)?.parse().ok())
            .unwrap_or(default)
    };
    let (calls, pushes) = (arg("--calls", 50_000), arg("--pushes", 200_000));
    for which in [Crate::Tungstenite, Crate::Fast] {
        run(which, calls, pushes);
    }
}
