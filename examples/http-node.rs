//! A tiny Ethereum-style node: JSON-RPC 2.0 over HTTP and WebSocket, on hyper 1 and
//! tokio.
//!
//! ```sh
//! cargo run --release --example http-node -- --addr 127.0.0.1:8545 [--ipc /tmp/node.ipc]
//! ```
//!
//! Prints `listening on http://ADDR` when ready (and, with `--ipc PATH`, then `listening
//! on ipc://PATH`). The transport is the library's
//! `http::HttpServer` (feature `hyper`), with its production defaults: HTTP/1.1 with
//! keep-alive, any path, `POST` only, JSON content types, bodies up to 1 MiB, at most
//! 1,000 connections, header, idle and request time limits, buffers from a bounded
//! pool (see `src/http/`). With `--ipc PATH` the same methods are also served on a Unix
//! socket (the library's `io::tokio::ipc::IpcServer`, feature `ipc`), in both framings
//! Ethereum clients speak there: JSON values back to back or one a line. Ctrl-C shuts
//! both down gracefully.
//!
//! The HTTP address takes WebSocket upgrades too (`ws://ADDR`, feature `websocket`):
//! the same methods, and `eth_subscribe("newHeads")` / `eth_unsubscribe`. Whenever
//! `evm_mine` makes a block, over any transport, every `newHeads` subscriber is sent
//! its header (an `eth_subscription` notification).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use jsonrpc_slice::http::{HttpServer, Session, Subscribers, WebSocket, WithSync};
use jsonrpc_slice::io::tokio::ipc::{IpcListener, IpcServer};
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
use jsonrpc_slice::subscription::SubscriptionId;
use jsonrpc_slice::{
    async_method_table, method_table, MethodTable, OutputTooSmall, Params, RawJson, ResultWriter,
    RpcError, Server, WriteError,
};

/// The chain's head, shared by every connection: `evm_mine` advances it.
static BLOCK: AtomicU64 = AtomicU64::new(0x10);

/// Every WebSocket connection's `newHeads` subscriptions (16 at most per connection).
static HEADS: Subscribers<NewHeads> = Subscribers::new();

/// The one kind of subscription this node has.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct NewHeads;

/// What the handlers see.
#[derive(Clone)]
pub struct Node {
    block: &'static AtomicU64,
}

type Rpc<'p> = Result<(), RpcError<'p>>;

fn chain_id<'p>(_: &mut Node, _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    Ok(out.str("0x539")?)
}

fn net_version<'p>(_: &mut Node, _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    Ok(out.str("1337")?)
}

fn client_version<'p>(_: &mut Node, _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    Ok(out.str(concat!("jsonrpc-slice-node/", env!("CARGO_PKG_VERSION")))?)
}

fn block_number<'p>(node: &mut Node, _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    let n = node.block.load(Ordering::Relaxed);
    Ok(out.display(format_args!("{n:#x}"))?)
}

fn mine<'p>(node: &mut Node, _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    let n = node.block.fetch_add(1, Ordering::Relaxed) + 1;
    HEADS.notify(&NewHeads, "eth_subscription", |out| header(out, n));
    Ok(out.str("0x0")?)
}

/// Block `n`'s header, as `newHeads` sends it (a chain of empty blocks).
fn header(out: &mut ResultWriter<'_>, n: u64) -> Result<(), WriteError> {
    let zeros = "0x0000000000000000000000000000000000000000000000000000000000000000";
    let hash = |out: &mut ResultWriter<'_>, n: u64| out.display(format_args!("0x{n:064x}"));
    out.begin_object()?;
    out.key("number")?;
    out.display(format_args!("{n:#x}"))?;
    out.key("hash")?;
    hash(out, n)?;
    out.key("parentHash")?;
    hash(out, n - 1)?;
    for key in ["stateRoot", "transactionsRoot", "receiptsRoot", "mixHash"] {
        out.key(key)?;
        out.str(zeros)?;
    }
    out.key("sha3Uncles")?;
    out.str("0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347")?;
    out.key("miner")?;
    out.str("0x0000000000000000000000000000000000000000")?;
    out.key("logsBloom")?;
    out.display(format_args!("0x{:0>512}", ""))?;
    for (key, value) in [
        ("difficulty", "0x0"),
        ("gasLimit", "0x1c9c380"),
        ("gasUsed", "0x0"),
    ] {
        out.key(key)?;
        out.str(value)?;
    }
    out.key("timestamp")?;
    out.display(format_args!("{:#x}", 1_700_000_000 + 12 * n))?;
    for (key, value) in [("extraData", "0x"), ("nonce", "0x0000000000000000")] {
        out.key(key)?;
        out.str(value)?;
    }
    out.key("baseFeePerGas")?;
    out.str("0x7")?;
    out.end()
}

/// A WebSocket call's context: the node, and the connection's subscriptions.
type Ws<'c> = Call<'c, Session<Node, NewHeads>>;

/// `["newHeads"]`: the new subscription's id.
async fn subscribe<'p>(call: &mut Ws<'_>, p: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    let mut buf = [0u8; 8];
    let kind = p.nth(0).and_then(|k| k.as_str()?.unescape_into(&mut buf));
    if kind != Some("newHeads") || p.nth(1).is_some() {
        return Err(RpcError::new(-32602, "only newHeads subscriptions"));
    }
    match call.state().subscribe(NewHeads) {
        Ok(id) => Ok(id.write(out)?),
        Err(_full) => Err(RpcError::new(-32005, "too many subscriptions")),
    }
}

/// `[id]`: `true` if the subscription was open on this connection.
async fn unsubscribe<'p>(call: &mut Ws<'_>, p: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    let id = p.nth(0).and_then(SubscriptionId::parse);
    let Some(id) = id.filter(|_| p.nth(1).is_none()) else {
        return Err(RpcError::new(-32602, "expected [subscription id]"));
    };
    Ok(out.bool(call.state().unsubscribe(id))?)
}

fn gas_price<'p>(_: &mut Node, _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    Ok(out.str("0x3b9aca00")?)
}

/// `[address, blockTag]`: 1 ether for `0x…aa`, nothing for any other address.
fn get_balance<'p>(_: &mut Node, p: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    let address = p.nth(0).unwrap_or(RawJson::NULL);
    let mut buf = [0u8; 42];
    let hex = address.as_str().and_then(|s| s.unescape_into(&mut buf));
    let digits = hex.and_then(|h| h.strip_prefix("0x")).unwrap_or("-");
    if digits.len() != 40 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        // The address as sent (a long one by its length only).
        let e = match address.as_bytes().len() {
            0..=100 => out.error(-32602, format_args!("invalid address: {address}"))?,
            n => out.error(-32602, format_args!("invalid address: a {n}-byte value"))?,
        };
        return Err(e);
    }
    let mut buf = [0u8; 20];
    let tag = p.nth(1).and_then(|t| t.as_str()?.unescape_into(&mut buf));
    if !tag.is_some_and(block_tag) || p.nth(2).is_some() {
        return Err(RpcError::new(
            -32602,
            "invalid block tag: latest, earliest, pending, safe, finalized or a hex quantity",
        ));
    }
    let aa = digits.eq_ignore_ascii_case("00000000000000000000000000000000000000aa");
    Ok(out.str(if aa { "0xde0b6b3a7640000" } else { "0x0" })?)
}

/// A named block, or a quantity: `0x` and 1 to 16 hex digits, no leading zero.
fn block_tag(tag: &str) -> bool {
    let quantity = |d: &str| {
        d == "0"
            || (matches!(d.len(), 1..=16)
                && !d.starts_with('0')
                && d.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    let named = ["latest", "earliest", "pending", "safe", "finalized"];
    named.contains(&tag) || tag.strip_prefix("0x").is_some_and(quantity)
}

const METHODS: MethodTable<Node> = method_table! {
    "eth_chainId" => chain_id,
    "net_version" => net_version,
    "web3_clientVersion" => client_version,
    "eth_blockNumber" => block_number,
    "evm_mine" => mine,
    "eth_gasPrice" => gas_price,
    "eth_getBalance" => get_balance,
};

/// The methods over HTTP, one request at a time.
static SERVER: Server<Node> = Server::new(METHODS);

/// The same methods on the Unix socket, several calls of a connection in flight.
static IPC: ConcurrentServer<MethodTable<Node>> = ConcurrentServer::new(METHODS);

async_method_table! { Subscriptions<'c, Ws<'c>> {
    "eth_subscribe" => subscribe,
    "eth_unsubscribe" => unsubscribe,
} }

/// The WebSocket methods: the subscriptions, then every method of `METHODS`.
static WS: ConcurrentServer<WithSync<Subscriptions, Node>> =
    ConcurrentServer::new(WithSync::new(Subscriptions, &METHODS));

/// The codec's part of a request: the reply to a message (empty when none is due).
pub fn answer<'o>(message: &[u8], reply: &'o mut [u8]) -> Result<&'o [u8], OutputTooSmall> {
    SERVER.handle(&mut node(), message, reply)
}

/// A request's context.
fn node() -> Node {
    Node { block: &BLOCK }
}

/// The WebSocket side of this node (its defaults: see `http::websocket::Settings`).
pub fn websocket() -> WebSocket {
    WebSocket::new(&WS, &HEADS, node())
}

/// The HTTP server of this node, WebSocket on the same address (its defaults: see
/// `http::Settings`).
pub fn http() -> HttpServer<Node> {
    HttpServer::new(&SERVER, node).with_websocket(websocket())
}

/// The IPC server of this node (its defaults: see `io::tokio::ipc::Settings`).
pub fn ipc() -> IpcServer<MethodTable<Node>, Node> {
    IpcServer::new(&IPC, node)
}

const USAGE: &str = "usage: http-node [--addr HOST:PORT] [--ipc PATH]";

#[tokio::main]
async fn main() -> ExitCode {
    let mut addr: SocketAddr = ([127, 0, 0, 1], 8545).into();
    let mut ipc_path = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match (flag.as_str(), args.next()) {
            ("--addr", Some(a)) => match a.parse() {
                Ok(a) => addr = a,
                Err(e) => return usage(&format!("{a}: {e}")),
            },
            ("--ipc", Some(path)) => ipc_path = Some(path),
            _ => return usage(USAGE),
        }
    }
    let socket = match ipc_path.map(IpcListener::bind).transpose() {
        Ok(socket) => socket,
        Err(e) => return usage(&format!("cannot listen on the IPC socket: {e}")),
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(e) => return usage(&format!("cannot listen on {addr}: {e}")),
    };
    println!(
        "listening on http://{}",
        listener.local_addr().unwrap_or(addr)
    );
    if let Some(socket) = &socket {
        println!("listening on ipc://{}", socket.path().display());
    }
    // Ctrl-C, told to both servers.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        let _ = stop.send(true);
    });
    let until = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    };
    let over_ipc = async {
        match socket {
            Some(socket) => ipc().serve_until(socket, until(stopped.clone())).await,
            None => Ok(()),
        }
    };
    let over_http = http().serve_until(listener, until(stopped.clone()));
    match tokio::join!(over_http, over_ipc) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("http-node: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("http-node: {message}");
    ExitCode::from(2)
}
