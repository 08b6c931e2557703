//! A tiny Ethereum-style node: JSON-RPC 2.0 over HTTP, on hyper 1 and tokio.
//!
//! ```sh
//! cargo run --release --example http-node -- --addr 127.0.0.1:8545
//! ```
//!
//! Prints `listening on http://ADDR` when ready. HTTP/1.1 with keep-alive, any path.
//! The HTTP rules: `POST` only (else 405, `Allow: POST`); the request's `Content-Type`
//! is `application/json` (parameters allowed; `application/json-rpc` and
//! `application/jsonrequest` too), else 415; bodies up to 1 MiB (else 413). A reply is
//! 200 with `Content-Type: application/json`, JSON-RPC errors included; a message that
//! gets no reply (a notification, a batch of them) is 204 with no body.
//!
//! Each connection owns its buffers, allocated when it opens and reused by every
//! request on it: the body is read into one, the reply is written into the other,
//! which is lent to hyper as the response body and comes back when hyper has sent it.
//! The codec allocates nothing per request (hyper and tokio do: see the README).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use http_body_util::BodyExt;
use hyper::body::{Body, Buf, Frame, Incoming, SizeHint};
use hyper::header::{HeaderMap, HeaderValue, ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use jsonrpc_slice::{
    method_table, OutputTooSmall, Params, RawJson, ResultWriter, RpcError, Server,
};
use tokio::net::TcpStream;

/// The largest request body, in bytes.
const MAX_BODY: usize = 1024 * 1024;
/// The reply buffer: room for replies larger than their request (a batch of errors).
const MAX_REPLY: usize = MAX_BODY + 64 * 1024;
/// The most of a too large body that is read (and dropped) before the 413 is sent.
const DRAIN: usize = 4 * MAX_BODY;

/// The chain's head, shared by every connection: `evm_mine` advances it.
static BLOCK: AtomicU64 = AtomicU64::new(0x10);

/// What the handlers see.
struct Node {
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
    node.block.fetch_add(1, Ordering::Relaxed);
    Ok(out.str("0x0")?)
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

static SERVER: Server<Node> = Server::new(method_table! {
    "eth_chainId" => chain_id,
    "net_version" => net_version,
    "web3_clientVersion" => client_version,
    "eth_blockNumber" => block_number,
    "evm_mine" => mine,
    "eth_gasPrice" => gas_price,
    "eth_getBalance" => get_balance,
});

/// The codec's part of a request: the reply to a message (empty when none is due).
pub fn answer<'o>(message: &[u8], reply: &'o mut [u8]) -> Result<&'o [u8], OutputTooSmall> {
    SERVER.handle(&mut Node { block: &BLOCK }, message, reply)
}

/// A connection's buffers: the body read, the reply written.
#[derive(Default)]
struct Buffers {
    body: Vec<u8>,
    reply: Vec<u8>,
}

type Home = Arc<Mutex<Buffers>>;

/// The connection's buffers (nothing panics while they are held: no poisoning to fear).
fn lock(home: &Home) -> MutexGuard<'_, Buffers> {
    home.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A reply buffer lent to hyper: given back to its connection when hyper drops it.
struct Lent {
    buf: Vec<u8>,
    at: usize,
    len: usize,
    home: Home,
}

impl Buf for Lent {
    fn remaining(&self) -> usize {
        self.len - self.at
    }
    fn chunk(&self) -> &[u8] {
        &self.buf[self.at..self.len]
    }
    fn advance(&mut self, n: usize) {
        self.at = (self.at + n).min(self.len);
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        lock(&self.home).reply = std::mem::take(&mut self.buf);
    }
}

/// A response body: one lent buffer, or nothing.
struct Reply(Option<Lent>);

impl Body for Reply {
    type Data = Lent;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Lent>, Infallible>>> {
        Poll::Ready(self.0.take().map(|lent| Ok(Frame::data(lent))))
    }
    fn is_end_stream(&self) -> bool {
        self.0.is_none()
    }
    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.0.as_ref().map_or(0, |l| l.remaining() as u64))
    }
}

/// The response: `reply` (none: an empty body) with `code` and the headers it needs,
/// in `headers`, the request's map cleared. hyper keeps the map a response is sent
/// with for the next request it reads: no request allocates one.
fn respond(mut headers: HeaderMap, code: StatusCode, reply: Option<Lent>) -> Response<Reply> {
    headers.clear();
    let _ = match code {
        StatusCode::OK => {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        }
        StatusCode::METHOD_NOT_ALLOWED => headers.insert(ALLOW, HeaderValue::from_static("POST")),
        // What is left of the body is not read: the connection ends with this reply.
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::BAD_REQUEST => {
            headers.insert(CONNECTION, HeaderValue::from_static("close"))
        }
        _ => None,
    };
    let mut response = Response::new(Reply(reply));
    *response.status_mut() = code;
    *response.headers_mut() = headers;
    response
}

/// `application/json`, `application/json-rpc` or `application/jsonrequest`, with or
/// without parameters.
fn json_content_type(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let mime = value.split(';').next().unwrap_or("").trim();
    [
        "application/json",
        "application/json-rpc",
        "application/jsonrequest",
    ]
    .iter()
    .any(|m| mime.eq_ignore_ascii_case(m))
}

/// One HTTP request: the rules above, then the message through the codec.
async fn serve(req: Request<Incoming>, home: Home) -> Result<Response<Reply>, Infallible> {
    let (head, mut incoming) = req.into_parts();
    // A refused request's body is read all the same (a too large one up to 4 MiB, then
    // dropped): the connection then stays open for the next request, and a client that
    // sends its whole body before it reads the reply gets the reply.
    let mut refused = match () {
        _ if head.method != Method::POST => Some(StatusCode::METHOD_NOT_ALLOWED),
        _ if !json_content_type(&head.headers) => Some(StatusCode::UNSUPPORTED_MEDIA_TYPE),
        _ => None,
    };
    let declared = head
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse().ok());
    if declared.is_some_and(|n: u64| n > DRAIN as u64) {
        return Ok(respond(head.headers, StatusCode::PAYLOAD_TOO_LARGE, None));
    }
    // The buffers, taken from the connection (made afresh if a reply was never given back).
    let Buffers {
        mut body,
        mut reply,
    } = std::mem::take(&mut *lock(&home));
    body.clear();
    body.reserve(MAX_BODY);
    reply.resize(MAX_REPLY, 0);
    let mut seen = 0;
    while let Some(frame) = incoming.frame().await {
        let Ok(frame) = frame else {
            refused = Some(StatusCode::BAD_REQUEST);
            break;
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        seen += data.len();
        match seen <= MAX_BODY {
            true => body.extend_from_slice(&data),
            false => refused = Some(StatusCode::PAYLOAD_TOO_LARGE),
        }
        if seen > DRAIN {
            break;
        }
    }
    let len = match refused {
        None => answer(&body, &mut reply).map(<[u8]>::len),
        Some(_) => Ok(0),
    };
    let mut buffers = lock(&home);
    buffers.body = body;
    let code = match (refused, len) {
        (Some(code), _) => code,
        (None, Err(_too_small)) => StatusCode::INTERNAL_SERVER_ERROR,
        (None, Ok(0)) => StatusCode::NO_CONTENT,
        (None, Ok(len)) => {
            drop(buffers);
            let lent = Lent {
                buf: reply,
                at: 0,
                len,
                home,
            };
            return Ok(respond(head.headers, StatusCode::OK, Some(lent)));
        }
    };
    buffers.reply = reply;
    Ok(respond(head.headers, code, None))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr: SocketAddr = match &args[..] {
        [] => ([127, 0, 0, 1], 8545).into(),
        [flag, addr] if flag == "--addr" => match addr.parse() {
            Ok(addr) => addr,
            Err(e) => return usage(&format!("{addr}: {e}")),
        },
        _ => return usage("usage: http-node [--addr HOST:PORT]"),
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(e) => return usage(&format!("cannot listen on {addr}: {e}")),
    };
    println!(
        "listening on http://{}",
        listener.local_addr().unwrap_or(addr)
    );
    loop {
        match listener.accept().await {
            Ok((stream, _)) => drop(tokio::spawn(connection(stream))),
            // Out of file descriptors, most likely: wait for some to close.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    }
}

/// Serves one connection (HTTP/1.1, keep-alive) until the client closes it.
pub async fn connection(stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let home: Home = Arc::new(Mutex::new(Buffers {
        body: Vec::with_capacity(MAX_BODY),
        reply: vec![0; MAX_REPLY],
    }));
    let service = hyper::service::service_fn(move |req| serve(req, home.clone()));
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(stream), service)
        .await;
}

fn usage(message: &str) -> ExitCode {
    eprintln!("http-node: {message}");
    ExitCode::from(2)
}
