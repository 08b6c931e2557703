//! `http::WebSocket` on loopback, driven by tokio-tungstenite's client, every wait
//! bounded by `LIMIT`. A wait for the server to act is a wait for its message or its
//! close, never a sleep; a slow call is held by a signal the test gives.
//!
//! | property | test |
//! |---|---|
//! | calls, a batch, a notification (no reply) over one connection, on the HTTP address | `calls_and_a_batch` |
//! | a slow call does not hold up the calls behind it | `a_slow_call_does_not_stall_the_others` |
//! | a message past the maximum size closes with 1009 | `a_message_too_big_is_closed_with_1009` |
//! | a binary message of UTF-8 is read as text; one not UTF-8 closes with 1007 | `binary_messages` |
//! | a ping is answered with its pong; the server pings | `ping_and_pong` |
//! | subscribe, notifications carry the id, unsubscribe | `subscribe_and_unsubscribe` |
//! | a connection's subscriptions end when it closes | `subscriptions_end_when_the_connection_closes` |
//! | a peer that does not read is closed with 1013, the queue bounded | `a_peer_that_does_not_read_is_disconnected` |
//! | shutdown closes with 1001 | `shutdown_closes_with_1001` |
//! | a malformed upgrade is 400; plain HTTP still served | `a_malformed_upgrade_is_400` |
//! | a write that waits `send_timeout` (the peer does not read a reply) closes with 1013 | `a_write_past_the_send_timeout_is_closed_with_1013` |
//! | a peer silent through a ping interval (no pong) is closed with 1001 | `a_peer_silent_through_a_ping_interval_is_closed` |
//! | WebSockets count against `max_connections`; a new client waits for one to close | `websockets_count_against_the_connection_cap` |
//! | at the cap, a new client is served by closing an idle HTTP connection, not a WebSocket | `at_the_cap_an_idle_http_connection_is_closed_not_a_websocket` |
//! | an idle WebSocket holds no send queue and no read buffer of the crate; they are taken at its first message and byte | `an_idle_websocket_holds_no_buffers` |

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use jsonrpc_slice::http::websocket::Settings as WsSettings;
use jsonrpc_slice::http::{HttpServer, Session, Settings, Subscribers, WebSocket, WithSync};
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
use jsonrpc_slice::subscription::SubscriptionId;
use jsonrpc_slice::{async_method_table, demo, Params, ResultWriter, RpcError, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, Notify};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Bytes, Message};
use tokio_tungstenite::WebSocketStream;

/// Counts the live allocations of exactly `QUEUE` and `READ` bytes (sizes no other
/// test or crate asks for): the send queues and the crate's read buffers of the
/// sessions of `an_idle_websocket_holds_no_buffers`.
struct Counting;

const QUEUE: usize = 777_777;
const READ: usize = 7_777;

static QUEUES: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);
static READS: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

fn count(size: usize, by: isize) {
    let counter = match size {
        QUEUE => &QUEUES,
        READ => &READS,
        _ => return,
    };
    counter.fetch_add(by, std::sync::atomic::Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting is an atomic add (no allocation, no re-entrance).
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        count(layout.size(), 1);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        count(layout.size(), 1);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        count(layout.size(), -1);
        count(size, 1);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.realloc(ptr, layout, size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        count(layout.size(), -1);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn queues() -> isize {
    QUEUES.load(std::sync::atomic::Ordering::Relaxed)
}

fn reads() -> isize {
    READS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The longest any step waits.
const LIMIT: Duration = Duration::from_secs(10);

type Subs = Subscribers<&'static str, 4>;
type Ws<'c> = Call<'c, Session<(), &'static str, 4>>;

/// Releases the `slow` call.
static RELEASE: Notify = Notify::const_new();

async fn subscribe<'p>(
    call: &mut Ws<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    match call.state().subscribe("ticks") {
        Ok(id) => Ok(id.write(out)?),
        Err(_) => Err(RpcError::new(-32005, "too many subscriptions")),
    }
}

async fn unsubscribe<'p>(
    call: &mut Ws<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let id = p.nth(0).and_then(SubscriptionId::parse);
    let id = id.ok_or_else(RpcError::invalid_params)?;
    Ok(out.bool(call.state().unsubscribe(id))?)
}

/// The reply of `big`: more than loopback's send buffer (4 MiB at most by default)
/// and the client's receive buffer (set to 64 KiB) hold together.
const BIG: usize = 12 << 20;

async fn big<'p>(
    _: &mut Ws<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    Ok(out.str(TEXT.get_or_init(|| "x".repeat(BIG)))?)
}

async fn slow<'p>(
    _: &mut Ws<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    RELEASE.notified().await;
    Ok(out.str("done")?)
}

async_method_table! { Methods<'c, Ws<'c>> {
    "subscribe" => subscribe,
    "unsubscribe" => unsubscribe,
    "slow" => slow,
    "big" => big,
} }

static HTTP: Server<()> = Server::new(demo::TABLE);
static WS: ConcurrentServer<WithSync<Methods, ()>> =
    ConcurrentServer::new(WithSync::new(Methods, &demo::TABLE));

struct Running {
    addr: SocketAddr,
    subs: &'static Subs,
    stop: Option<oneshot::Sender<()>>,
    done: JoinHandle<std::io::Result<()>>,
}

async fn start(settings: WsSettings) -> Running {
    start_with(Settings::default(), settings).await
}

async fn start_with(http: Settings, settings: WsSettings) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // A set of its own per test: the counts below are this server's.
    let subs: &'static Subs = Box::leak(Box::new(Subscribers::new()));
    let (stop, stopped) = oneshot::channel::<()>();
    let websocket = WebSocket::new(&WS, subs, ()).with_settings(settings);
    let server = HttpServer::new(&HTTP, || ())
        .with_settings(http)
        .with_websocket(websocket);
    let done = tokio::spawn(server.serve_until(listener, async {
        let _ = stopped.await;
    }));
    Running {
        addr,
        subs,
        stop: Some(stop),
        done,
    }
}

fn small() -> WsSettings {
    WsSettings {
        max_message: 4096,
        max_reply: 8192,
        send_queue: 16 * 1024,
        threads: 2,
        ..WsSettings::default()
    }
}

type Client = WebSocketStream<TcpStream>;

async fn connect(addr: SocketAddr) -> Client {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (ws, response) = tokio_tungstenite::client_async(format!("ws://{addr}/"), stream)
        .await
        .unwrap();
    assert_eq!(response.status(), 101);
    ws
}

async fn next(ws: &mut Client) -> Message {
    tokio::time::timeout(LIMIT, ws.next())
        .await
        .expect("in time")
        .expect("a message")
        .expect("no error")
}

async fn text(ws: &mut Client) -> String {
    match next(ws).await {
        Message::Text(t) => t.as_str().to_owned(),
        other => panic!("not text: {other:?}"),
    }
}

async fn send(ws: &mut Client, message: &str) {
    ws.send(Message::text(message)).await.unwrap();
}

async fn close_code(ws: &mut Client) -> CloseCode {
    loop {
        match next(ws).await {
            Message::Close(Some(frame)) => return frame.code,
            Message::Close(None) => panic!("a close without a code"),
            _ => {}
        }
    }
}

#[tokio::test]
async fn calls_and_a_batch() {
    let server = start(small()).await;
    let mut ws = connect(server.addr).await;
    send(
        &mut ws,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
    )
    .await;
    assert_eq!(
        text(&mut ws).await,
        r#"{"jsonrpc":"2.0","result":19,"id":1}"#
    );
    // A notification gets nothing: the next message is the next call's reply.
    send(
        &mut ws,
        r#"{"jsonrpc":"2.0","method":"update","params":[1]}"#,
    )
    .await;
    send(
        &mut ws,
        r#"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"a"},{"jsonrpc":"2.0","method":"nope","id":"b"}]"#,
    )
    .await;
    assert_eq!(
        text(&mut ws).await,
        r#"[{"jsonrpc":"2.0","result":7,"id":"a"},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"b"}]"#
    );
    // A message pretty-printed over several lines is one message.
    send(&mut ws, "{\n \"jsonrpc\": \"2.0\",\n \"method\": \"subtract\",\n \"params\": [5, 3],\n \"id\": 2\n}").await;
    assert_eq!(
        text(&mut ws).await,
        r#"{"jsonrpc":"2.0","result":2,"id":2}"#
    );
    send(&mut ws, "{").await;
    assert!(text(&mut ws).await.contains("-32700"));
}

#[tokio::test]
async fn a_slow_call_does_not_stall_the_others() {
    let server = start(small()).await;
    let mut ws = connect(server.addr).await;
    send(&mut ws, r#"{"jsonrpc":"2.0","method":"slow","id":1}"#).await;
    send(
        &mut ws,
        r#"{"jsonrpc":"2.0","method":"subtract","params":[3,1],"id":2}"#,
    )
    .await;
    assert_eq!(
        text(&mut ws).await,
        r#"{"jsonrpc":"2.0","result":2,"id":2}"#
    );
    RELEASE.notify_one();
    assert_eq!(
        text(&mut ws).await,
        r#"{"jsonrpc":"2.0","result":"done","id":1}"#
    );
}

#[tokio::test]
async fn a_message_too_big_is_closed_with_1009() {
    let server = start(small()).await;
    let mut ws = connect(server.addr).await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"echo","params":["{}"],"id":1}}"#,
        "x".repeat(5000)
    );
    send(&mut ws, &big).await;
    assert_eq!(close_code(&mut ws).await, CloseCode::Size);
}

#[tokio::test]
async fn binary_messages() {
    let server = start(small()).await;
    let mut ws = connect(server.addr).await;
    let call = br#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#;
    ws.send(Message::Binary(Bytes::from_static(call)))
        .await
        .unwrap();
    assert_eq!(
        text(&mut ws).await,
        r#"{"jsonrpc":"2.0","result":1,"id":1}"#
    );
    // 0xFF is what ends a message inside the session: never taken as data.
    let not_utf8 = b"{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1],\"id\":2}\xff";
    ws.send(Message::Binary(Bytes::from_static(not_utf8)))
        .await
        .unwrap();
    assert_eq!(close_code(&mut ws).await, CloseCode::Invalid);
}

#[tokio::test]
async fn ping_and_pong() {
    let server = start(WsSettings {
        ping_interval: Duration::from_millis(50),
        ..small()
    })
    .await;
    let mut ws = connect(server.addr).await;
    ws.send(Message::Ping(Bytes::from_static(b"are you there")))
        .await
        .unwrap();
    let mut pong = false;
    let mut pinged = false;
    while !(pong && pinged) {
        match next(&mut ws).await {
            Message::Pong(p) => {
                assert_eq!(&p[..], b"are you there");
                pong = true;
            }
            // The client answers it (tungstenite does, at its next read).
            Message::Ping(_) => pinged = true,
            other => panic!("{other:?}"),
        }
    }
    // Still open, still answering.
    send(
        &mut ws,
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#,
    )
    .await;
    loop {
        match next(&mut ws).await {
            Message::Text(t) => {
                assert_eq!(t.as_str(), r#"{"jsonrpc":"2.0","result":1,"id":1}"#);
                break;
            }
            Message::Ping(_) => {}
            other => panic!("{other:?}"),
        }
    }
}

fn tick(subs: &Subs, n: u64) -> usize {
    subs.notify(&"ticks", "tick", |out| out.u64(n))
}

#[tokio::test]
async fn subscribe_and_unsubscribe() {
    let server = start(small()).await;
    let mut ws = connect(server.addr).await;
    send(&mut ws, r#"{"jsonrpc":"2.0","method":"subscribe","id":1}"#).await;
    let reply: serde_json::Value = serde_json::from_str(&text(&mut ws).await).unwrap();
    let id = reply["result"].as_str().unwrap().to_owned();
    assert!(id.starts_with("0x"));
    assert_eq!(server.subs.subscriptions(), 1);
    // Another connection's subscriptions are its own.
    let mut other = connect(server.addr).await;
    send(
        &mut other,
        r#"{"jsonrpc":"2.0","method":"subscribe","id":1}"#,
    )
    .await;
    let reply: serde_json::Value = serde_json::from_str(&text(&mut other).await).unwrap();
    let other_id = reply["result"].as_str().unwrap().to_owned();
    assert_eq!(tick(server.subs, 7), 2);
    // The result is written once and copied into the other's notification.
    for (ws, id) in [(&mut ws, &id), (&mut other, &other_id)] {
        let pushed: serde_json::Value = serde_json::from_str(&text(ws).await).unwrap();
        assert_eq!(
            pushed,
            serde_json::json!({"jsonrpc":"2.0","method":"tick","params":{"subscription":id,"result":7}})
        );
    }
    let unsubscribe =
        format!(r#"{{"jsonrpc":"2.0","method":"unsubscribe","params":["{id}"],"id":2}}"#);
    send(&mut ws, &unsubscribe).await;
    assert_eq!(
        text(&mut ws).await,
        r#"{"jsonrpc":"2.0","result":true,"id":2}"#
    );
    send(&mut ws, &unsubscribe.replace("\"id\":2", "\"id\":3")).await;
    assert_eq!(
        text(&mut ws).await,
        r#"{"jsonrpc":"2.0","result":false,"id":3}"#
    );
    // Only the other connection's subscription is left.
    assert_eq!(tick(server.subs, 8), 1);
    let pushed: serde_json::Value = serde_json::from_str(&text(&mut other).await).unwrap();
    assert_eq!(pushed["params"]["result"], 8);
    assert_eq!(server.subs.subscriptions(), 1);
}

#[tokio::test]
async fn subscriptions_end_when_the_connection_closes() {
    let server = start(small()).await;
    let mut ws = connect(server.addr).await;
    for id in 1..=2 {
        send(
            &mut ws,
            &format!(r#"{{"jsonrpc":"2.0","method":"subscribe","id":{id}}}"#),
        )
        .await;
        let _ = text(&mut ws).await;
    }
    assert_eq!(server.subs.subscriptions(), 2);
    assert_eq!(server.subs.connections(), 1);
    ws.close(None).await.unwrap();
    // The server drops the connection once its subscriptions have ended: the end of
    // the stream is the signal.
    loop {
        match tokio::time::timeout(LIMIT, ws.next())
            .await
            .expect("in time")
        {
            None | Some(Err(_)) => break,
            Some(Ok(_)) => {}
        }
    }
    assert_eq!(server.subs.subscriptions(), 0);
    assert_eq!(server.subs.connections(), 0);
    assert_eq!(tick(server.subs, 1), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_does_not_read_is_disconnected() {
    let server = start(small()).await;
    let mut ws = connect(server.addr).await;
    send(&mut ws, r#"{"jsonrpc":"2.0","method":"subscribe","id":1}"#).await;
    let _ = text(&mut ws).await;
    // The client reads nothing now: the sockets' buffers fill, then the send queue
    // (16 KiB), and the push that finds it full closes the connection.
    let header = "0".repeat(500);
    let mut queued = 0usize;
    let overflowed = tokio::task::block_in_place(|| {
        for _ in 0..1_000_000 {
            match server.subs.notify(&"ticks", "tick", |out| out.str(&header)) {
                1 => queued += 1,
                _ => return true,
            }
        }
        false
    });
    assert!(overflowed, "{queued} notifications queued and no overflow");
    // Bounded: the socket buffers of loopback (a few MiB) and 2 × 16 KiB.
    assert!(queued * 560 < 64 << 20, "{queued} queued");
    // The client reads again: what was sent, then the close.
    let mut received = 0usize;
    let code = loop {
        match next(&mut ws).await {
            Message::Close(Some(frame)) => break frame.code,
            Message::Text(_) => received += 1,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(code, CloseCode::Again);
    assert!(received <= queued);
    assert_eq!(server.subs.connections(), 0);
}

#[tokio::test]
async fn shutdown_closes_with_1001() {
    let mut server = start(small()).await;
    let mut ws = connect(server.addr).await;
    send(
        &mut ws,
        r#"{"jsonrpc":"2.0","method":"sum","params":[2],"id":1}"#,
    )
    .await;
    let _ = text(&mut ws).await;
    let _ = server.stop.take().unwrap().send(());
    assert_eq!(close_code(&mut ws).await, CloseCode::Away);
    drop(ws);
    let done = tokio::time::timeout(LIMIT, server.done)
        .await
        .expect("in time");
    done.unwrap().unwrap();
}

#[tokio::test]
async fn a_malformed_upgrade_is_400() {
    let server = start(small()).await;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    // No Sec-WebSocket-Key.
    tcp.write_all(
        b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    .await
    .unwrap();
    let mut head = [0u8; 12];
    tokio::time::timeout(LIMIT, tcp.read_exact(&mut head))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&head, b"HTTP/1.1 400");
    // A plain GET is still 405, a POST still answered.
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    tokio::time::timeout(LIMIT, tcp.read_exact(&mut head))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&head, b"HTTP/1.1 405");
}

/// Waits, at most `LIMIT`, until `done` holds: for a state the server reaches with no
/// message to the client (a client that reads would change what is tested).
async fn until(mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + LIMIT;
    while !done() {
        assert!(Instant::now() < deadline, "not in time");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_past_the_send_timeout_is_closed_with_1013() {
    let send_timeout = Duration::from_millis(300);
    let server = start(WsSettings {
        max_reply: BIG + 1024,
        send_timeout,
        ..small()
    })
    .await;
    // A small receive buffer: the reply stays mostly in the server's buffers.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let stream = socket.connect(server.addr).await.unwrap();
    let addr = server.addr;
    let (mut ws, _) = tokio_tungstenite::client_async(format!("ws://{addr}/"), stream)
        .await
        .unwrap();
    send(
        &mut ws,
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#,
    )
    .await;
    let _ = text(&mut ws).await;
    assert_eq!(server.subs.connections(), 1);
    // A reply of a call, not a push: no send queue is involved, only the write that
    // waits for a peer that does not read.
    let asked = Instant::now();
    send(&mut ws, r#"{"jsonrpc":"2.0","method":"big","id":2}"#).await;
    // The session leaves its subscribers before it sends its close.
    until(|| server.subs.connections() == 0).await;
    assert!(asked.elapsed() >= send_timeout, "{:?}", asked.elapsed());
    // The client reads again (within `send_timeout`, the close's own limit): the
    // reply, then the close.
    let mut replies = 0;
    let code = loop {
        match next(&mut ws).await {
            Message::Close(Some(frame)) => break frame.code,
            Message::Text(t) => {
                assert_eq!(t.len(), BIG + 36, "{}", &t[..60]);
                replies += 1;
            }
            other => panic!("{other:?}"),
        }
    };
    assert_eq!((code, replies), (CloseCode::Again, 1));
}

/// A WebSocket on a bare socket: nothing is answered unless the test writes it (a
/// client library would answer pings).
async fn bare_upgrade(addr: SocketAddr) -> TcpStream {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(
        b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    )
    .await
    .unwrap();
    let head = read_head(&mut tcp).await;
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    tcp
}

/// An HTTP response's head, byte by byte (nothing past it is read).
async fn read_head(tcp: &mut TcpStream) -> String {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        let n = tokio::time::timeout(LIMIT, tcp.read(&mut b))
            .await
            .expect("in time")
            .unwrap();
        assert_eq!(n, 1, "the end before the head's: {head:?}");
        head.push(b[0]);
    }
    String::from_utf8(head).unwrap()
}

/// One frame from the server (unmasked, unfragmented): its opcode and payload.
async fn bare_frame(tcp: &mut TcpStream) -> (u8, Vec<u8>) {
    let read = async {
        let mut b = [0u8; 2];
        tcp.read_exact(&mut b).await.unwrap();
        let len = match b[1] & 0x7f {
            126 => usize::from(tcp.read_u16().await.unwrap()),
            127 => usize::try_from(tcp.read_u64().await.unwrap()).unwrap(),
            n => usize::from(n),
        };
        let mut payload = vec![0u8; len];
        tcp.read_exact(&mut payload).await.unwrap();
        (b[0] & 0x0f, payload)
    };
    tokio::time::timeout(LIMIT, read).await.expect("in time")
}

#[tokio::test]
async fn a_peer_silent_through_a_ping_interval_is_closed() {
    let interval = Duration::from_millis(50);
    let server = start(WsSettings {
        ping_interval: interval,
        ..small()
    })
    .await;
    let mut tcp = bare_upgrade(server.addr).await;
    let opened = Instant::now();
    // The peer says nothing, not even the pong: the server's ping, then its close.
    let (op, _) = bare_frame(&mut tcp).await;
    assert_eq!(op, 0x9, "a ping");
    let (op, payload) = bare_frame(&mut tcp).await;
    assert_eq!(op, 0x8, "a close");
    assert_eq!(u16::from_be_bytes([payload[0], payload[1]]), 1001);
    assert!(opened.elapsed() >= interval, "{:?}", opened.elapsed());
    let mut b = [0u8; 1];
    let n = tokio::time::timeout(LIMIT, tcp.read(&mut b))
        .await
        .expect("in time")
        .unwrap();
    assert_eq!(n, 0, "the end of the stream");
    assert_eq!(server.subs.connections(), 0);
}

const POST: &[u8] = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 61\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[42,23],\"id\":1}";

/// An HTTP reply's status, its body read (the connection stays usable).
async fn http_status(tcp: &mut TcpStream) -> u16 {
    let head = read_head(tcp).await;
    let length = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    tokio::time::timeout(LIMIT, tcp.read_exact(&mut body))
        .await
        .expect("in time")
        .unwrap();
    head[9..12].parse().unwrap()
}

/// Nothing has come on `tcp` (yet).
fn nothing_yet(tcp: &TcpStream) -> bool {
    let mut b = [0u8; 1];
    matches!(tcp.try_read(&mut b), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

async fn round_trip(ws: &mut Client) {
    send(
        ws,
        r#"{"jsonrpc":"2.0","method":"sum","params":[3],"id":9}"#,
    )
    .await;
    assert_eq!(text(ws).await, r#"{"jsonrpc":"2.0","result":3,"id":9}"#);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websockets_count_against_the_connection_cap() {
    let server = start_with(
        Settings {
            max_connections: 2,
            ..Settings::default()
        },
        small(),
    )
    .await;
    let mut first = connect(server.addr).await;
    round_trip(&mut first).await;
    let mut second = connect(server.addr).await;
    round_trip(&mut second).await;
    let mut waiting = TcpStream::connect(server.addr).await.unwrap();
    waiting.write_all(POST).await.unwrap();
    // Both WebSockets open (never idle): the new client is not served, and neither
    // WebSocket is closed for it.
    round_trip(&mut first).await;
    round_trip(&mut second).await;
    assert!(nothing_yet(&waiting));
    // One closes: the client is served.
    first.close(None).await.unwrap();
    assert_eq!(http_status(&mut waiting).await, 200);
    round_trip(&mut second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_an_idle_http_connection_is_closed_not_a_websocket() {
    let server = start_with(
        Settings {
            max_connections: 2,
            ..Settings::default()
        },
        small(),
    )
    .await;
    // The WebSocket first: the older of the two.
    let mut ws = connect(server.addr).await;
    round_trip(&mut ws).await;
    let mut idle = TcpStream::connect(server.addr).await.unwrap();
    idle.write_all(POST).await.unwrap();
    assert_eq!(http_status(&mut idle).await, 200);
    // The cap reached: a new client is served, the idle HTTP connection closed for it.
    let mut third = TcpStream::connect(server.addr).await.unwrap();
    third.write_all(POST).await.unwrap();
    assert_eq!(http_status(&mut third).await, 200);
    let mut b = [0u8; 1];
    let n = tokio::time::timeout(LIMIT, idle.read(&mut b))
        .await
        .expect("in time")
        .unwrap_or(0);
    assert_eq!(n, 0, "the idle connection closed");
    round_trip(&mut ws).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_websocket_holds_no_buffers() {
    let server = start(WsSettings {
        send_queue: QUEUE,
        read_buffer: READ,
        ..small()
    })
    .await;
    // Connections that upgrade and say nothing: their sessions started (joined),
    // and no send queue taken (a thousand such would otherwise hold a thousand).
    let mut idle = Vec::new();
    for _ in 0..10 {
        idle.push(bare_upgrade(server.addr).await);
    }
    until(|| server.subs.connections() == 10).await;
    assert_eq!(queues(), 0);
    // A connection that speaks takes its buffers, the outbox among them; one on
    // each of the two session threads, each of which has by then polled the idle
    // sessions it was given before it (in order).
    let mut speaking = Vec::new();
    for _ in 0..2 {
        let mut ws = connect(server.addr).await;
        round_trip(&mut ws).await;
        speaking.push(ws);
    }
    assert!(queues() >= 1, "{}", queues());
    // The idle ones hold no read buffer of the crate (taken at a peer's first byte).
    assert!(
        reads() <= 2,
        "{} read buffers for 2 speaking, 10 idle",
        reads()
    );
    // And give them back when they close.
    for mut ws in speaking {
        ws.close(None).await.unwrap();
    }
    drop(idle);
    until(|| queues() == 0 && reads() == 0).await;
}
