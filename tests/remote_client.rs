//! `http::RemoteClient` over HTTP and WebSocket: every outcome of a call (its result,
//! the server's error, a result that does not decode, its deadline, the connection
//! lost), a batch, a keep-alive connection the server closed, and a subscription's
//! notifications on the connection that carries the replies.
//!
//! The node is the `http-node` example's (in-process); the servers that misbehave
//! (never answer, close the connection, answer once per connection) are written here
//! on plain sockets.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use jsonrpc_slice::client::{Call, CallError, Incoming};
use jsonrpc_slice::http::{ClientSettings, RemoteClient};
use jsonrpc_slice::RawJson;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[path = "../examples/http-node.rs"]
#[allow(dead_code)]
mod node;

async fn listener() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

/// The node, serving until the test's runtime ends.
async fn start_node() -> SocketAddr {
    let (listener, addr) = listener().await;
    tokio::spawn(node::http().serve(listener));
    addr
}

fn urls(addr: SocketAddr) -> [String; 2] {
    [format!("http://{addr}"), format!("ws://{addr}")]
}

/// Reads one HTTP request (head and a `Content-Length` body) from `stream`; `false`
/// once the peer has closed.
async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> bool {
    buf.clear();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            if buf.len() >= end + 4 + len {
                return true;
            }
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

#[tokio::test]
async fn results_errors_and_decode_errors_over_both() {
    let addr = start_node().await;
    for url in urls(addr) {
        let mut node: RemoteClient = RemoteClient::connect(&url).await.unwrap();
        // A result, typed.
        let chain: &str = node.call("eth_chainId", ()).await.unwrap();
        assert_eq!(chain, "0x539", "{url}");
        // The server's error: code and message.
        let params = RawJson::new(br#"["0x12","latest"]"#).unwrap();
        let h = node.send::<&str>("eth_getBalance", params).await.unwrap();
        match node.client().take(&h) {
            Some(Err(CallError::Rpc(e))) => {
                assert_eq!(e.code, -32602, "{url}");
                assert!(
                    e.message.to_string().starts_with("invalid address"),
                    "{url}"
                );
            }
            other => panic!("{url}: {other:?}"),
        }
        // A result that does not decode as asked.
        let h = node.send::<u64>("eth_chainId", ()).await.unwrap();
        assert!(
            matches!(node.client().take(&h), Some(Err(CallError::Decode(_)))),
            "{url}"
        );
        // A batch: each call its own type, one message.
        let (chain, block, version) = node
            .send_batch(|b| {
                Ok((
                    b.call::<&str>("eth_chainId", ())?,
                    b.call::<&str>("eth_blockNumber", ())?,
                    b.call::<&str>("net_version", ())?,
                ))
            })
            .await
            .unwrap();
        assert_eq!(node.client().take(&version), Some(Ok("1337")), "{url}");
        assert_eq!(node.client().take(&chain), Some(Ok("0x539")), "{url}");
        assert!(matches!(node.client().take(&block), Some(Ok(_))), "{url}");
        // Nothing left in flight, nothing kept.
        assert_eq!(node.client().in_flight(), 0);
        // An empty batch is refused before anything is sent.
        let empty = node.send_batch(|_| Ok(())).await;
        assert_eq!(empty, Err(jsonrpc_slice::client::SendError::EmptyBatch));
    }
}

#[tokio::test]
async fn a_server_that_never_answers_times_the_call_out() {
    // HTTP: the request is read, and nothing answered.
    let (http, http_addr) = listener().await;
    tokio::spawn(async move {
        let (mut stream, _) = http.accept().await.unwrap();
        let mut buf = Vec::new();
        while read_request(&mut stream, &mut buf).await {}
    });
    // WebSocket: the handshake made, messages read, nothing answered.
    let (ws, ws_addr) = listener().await;
    tokio::spawn(async move {
        let (stream, _) = ws.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
        while ws.next().await.is_some() {}
    });
    for url in [format!("http://{http_addr}"), format!("ws://{ws_addr}")] {
        let mut client: RemoteClient = RemoteClient::connect(&url).await.unwrap();
        let deadline = Instant::now() + Duration::from_millis(100);
        let call = Call::new("eth_chainId").deadline(deadline);
        let h = client.send::<&str>(call, ()).await.unwrap();
        assert!(Instant::now() >= deadline, "{url}");
        assert_eq!(
            client.client().take(&h),
            Some(Err(CallError::TimedOut)),
            "{url}"
        );
    }
    // Without a deadline of its own, a call gets the settings' timeout.
    let settings = ClientSettings {
        timeout: Duration::from_millis(50),
        ..ClientSettings::default()
    };
    let (ws, ws_addr) = listener().await;
    tokio::spawn(async move {
        let (stream, _) = ws.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
        while ws.next().await.is_some() {}
    });
    let url = format!("ws://{ws_addr}");
    let mut client: RemoteClient = RemoteClient::connect_with(&url, settings).await.unwrap();
    let h = client.send::<&str>("eth_chainId", ()).await.unwrap();
    assert_eq!(client.client().take(&h), Some(Err(CallError::TimedOut)));
}

#[tokio::test]
async fn a_connection_closed_before_the_reply_loses_the_call() {
    // HTTP: the request is read, then the connection closed.
    let (http, http_addr) = listener().await;
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = http.accept().await.unwrap();
            let mut buf = Vec::new();
            read_request(&mut stream, &mut buf).await;
        }
    });
    // WebSocket: one message read, then the TCP connection dropped.
    let (ws, ws_addr) = listener().await;
    tokio::spawn(async move {
        let (stream, _) = ws.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
        let _ = ws.next().await;
    });
    for url in [format!("http://{http_addr}"), format!("ws://{ws_addr}")] {
        let mut client: RemoteClient = RemoteClient::connect(&url).await.unwrap();
        let h = client.send::<&str>("eth_chainId", ()).await.unwrap();
        assert_eq!(
            client.client().take(&h),
            Some(Err(CallError::ConnectionLost)),
            "{url}"
        );
        assert!(client.last_failure().is_some(), "{url}");
    }
}

#[tokio::test]
async fn a_keep_alive_connection_the_server_closed_is_made_again() {
    // Each connection answers one request, as keep-alive; once the client has the
    // reply, it is closed (as a server's idle timeout does), and the server says so.
    let (http, addr) = listener().await;
    let (closed, mut was_closed) = tokio::sync::mpsc::unbounded_channel();
    let (close, mut to_close) = tokio::sync::mpsc::unbounded_channel::<()>();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = http.accept().await.unwrap();
            let mut buf = Vec::new();
            if read_request(&mut stream, &mut buf).await {
                // The request's id, answered.
                let start = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
                let request: serde_json::Value = serde_json::from_slice(&buf[start..]).unwrap();
                let body = format!(
                    r#"{{"jsonrpc":"2.0","result":"0x539","id":{}}}"#,
                    request["id"]
                );
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).await.unwrap();
                stream.write_all(body.as_bytes()).await.unwrap();
            }
            to_close.recv().await.unwrap();
            drop(stream);
            closed.send(()).unwrap();
        }
    });
    let mut client: RemoteClient = RemoteClient::connect(&format!("http://{addr}"))
        .await
        .unwrap();
    for _ in 0..3 {
        let chain: &str = client.call("eth_chainId", ()).await.unwrap();
        assert_eq!(chain, "0x539");
        // The next call finds the connection closed.
        close.send(()).unwrap();
        was_closed.recv().await.unwrap();
    }
}

#[tokio::test]
async fn notifications_come_beside_the_replies() {
    let addr = start_node().await;
    let mut ws: RemoteClient = RemoteClient::connect(&format!("ws://{addr}"))
        .await
        .unwrap();
    let params = RawJson::new(br#"["newHeads"]"#).unwrap();
    let sub: String = ws
        .call::<&str>("eth_subscribe", params)
        .await
        .unwrap()
        .to_string();
    // The block's header is pushed on the connection the reply comes on: `evm_mine`'s
    // reply and the notification, in either order.
    let mined: &str = ws.call("evm_mine", ()).await.unwrap();
    assert_eq!(mined, "0x0");
    let n = ws.next_notification().await.expect("a notification");
    assert_eq!(n.method.as_raw(), b"eth_subscription");
    let text = String::from_utf8_lossy(n.params.unwrap().as_bytes()).into_owned();
    assert!(text.contains(&sub), "{text}");
    assert!(text.contains(r#""number":"0x"#), "{text}");

    // With a callback, notifications go to it as they are read.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    ws.on_incoming(move |i| {
        if let Incoming::Notification(n) = i {
            let _ = tx.send(n.method.as_raw().to_vec());
        }
    });
    let _: &str = ws.call("evm_mine", ()).await.unwrap();
    // The reply may come first: read on until the notification has come.
    let mut got = rx.try_recv().ok();
    while got.is_none() {
        let _: &str = ws.call("eth_chainId", ()).await.unwrap();
        got = rx.try_recv().ok();
    }
    assert_eq!(got.unwrap(), b"eth_subscription");
}

#[tokio::test]
async fn an_error_with_id_null_answers_every_call_of_the_post() {
    // The server could not read the batch: one error, `"id":null`, for all of it.
    let (http, addr) = listener().await;
    tokio::spawn(async move {
        let (mut stream, _) = http.accept().await.unwrap();
        let mut buf = Vec::new();
        while read_request(&mut stream, &mut buf).await {
            let body =
                br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).await.unwrap();
            stream.write_all(body).await.unwrap();
        }
    });
    let mut client: RemoteClient = RemoteClient::connect(&format!("http://{addr}"))
        .await
        .unwrap();
    let (a, b) = client
        .send_batch(|b| Ok((b.call::<&str>("a", ())?, b.call::<&str>("b", ())?)))
        .await
        .unwrap();
    for h in [a, b] {
        match client.client().take(&h) {
            Some(Err(CallError::Rpc(e))) => assert_eq!(e.code, -32700),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(client.client().in_flight(), 0);
}
