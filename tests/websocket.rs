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

use std::net::SocketAddr;
use std::time::Duration;

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
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // A set of its own per test: the counts below are this server's.
    let subs: &'static Subs = Box::leak(Box::new(Subscribers::new()));
    let (stop, stopped) = oneshot::channel::<()>();
    let websocket = WebSocket::new(&WS, subs, ()).with_settings(settings);
    let server = HttpServer::new(&HTTP, || ())
        .with_settings(Settings::default())
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
    let _ = text(&mut other).await;
    assert_eq!(tick(server.subs, 7), 2);
    let pushed: serde_json::Value = serde_json::from_str(&text(&mut ws).await).unwrap();
    assert_eq!(
        pushed,
        serde_json::json!({"jsonrpc":"2.0","method":"tick","params":{"subscription":id,"result":7}})
    );
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
