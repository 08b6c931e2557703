//! `Verdict::listen` and `Listeners`: a stream a client opens to hear the server (MCP's
//! 2025-11-25 `GET` stream), on loopback. Every step waits on the other side's message
//! (no sleeps); every wait is bounded by `raw_http::LIMIT`.
//!
//! | property | test |
//! |---|---|
//! | a `GET` the gate grants is `200`, `text/event-stream`, held open; each message sent to its scope arrives as an event, in order; another scope's does not | `messages_sent_to_a_scope_arrive_on_its_stream` |
//! | `Listeners::close` ends the stream (the body's end), and a send then finds none | same |
//! | a second stream of a scope replaces the first, which ends | `a_new_stream_of_a_scope_replaces_the_old` |
//! | a stream holds no buffer pair: with one pair, a `POST` is answered while it is open | `a_stream_holds_no_buffer_pair` |
//! | at shutdown the streams end and the server returns | `shutdown_ends_the_streams` |
//! | without `with_listeners` the verdict is `answer`'s: a `GET` is `405` | `without_listeners_a_get_is_405` |

use std::net::SocketAddr;

use jsonrpc_slice::http::gate::Verdict;
use jsonrpc_slice::http::{HttpServer, Listeners, Settings, Unsent};
use jsonrpc_slice::{demo, Server};
use serde_json::{json, Value};

#[path = "common/raw_http.rs"]
mod raw_http;
use raw_http::{Open, LIMIT};

static SERVER: Server<()> = Server::new(demo::TABLE);

const EVENTS: (&str, &str) = ("Accept", "text/event-stream");

/// A server whose gate grants a `GET` the stream of the scope its `X-Scope` header
/// names; `listeners` given to it or not; one buffer pair.
fn server(listeners: Option<&Listeners>) -> HttpServer<()> {
    let server = HttpServer::new(&SERVER, || ())
        .with_settings(Settings {
            buffers: 1,
            ..Settings::default()
        })
        .with_gate(|head| {
            let scope = head.headers.get("x-scope").and_then(|s| s.to_str().ok());
            match (head.method, scope.and_then(|s| s.parse().ok())) {
                (&hyper::Method::GET, Some(scope)) => Verdict::listen(scope),
                _ => Verdict::answer(),
            }
        });
    match listeners {
        Some(listeners) => server.with_listeners(listeners.clone()),
        None => server,
    }
}

async fn serve(listeners: Option<&Listeners>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server(listeners).serve(listener));
    addr
}

/// Opens the stream of `scope`, and waits until the server has it.
async fn listen(addr: SocketAddr, listeners: &Listeners, scope: &str) -> Open {
    let open = raw_http::open(addr, "GET", "/", &[EVENTS, ("X-Scope", scope)], "").await;
    assert_eq!(open.head.status, 200);
    assert_eq!(open.header("content-type"), Some("text/event-stream"));
    assert_eq!(open.header("transfer-encoding"), Some("chunked"));
    // The head is sent once the stream is in the set.
    assert!(listeners.is_open(scope.parse().unwrap()));
    open
}

fn tick(n: u64) -> Value {
    json!({"jsonrpc": "2.0", "method": "tick", "params": [n]})
}

fn send(listeners: &Listeners, scope: u64, message: &Value) -> Result<(), Unsent> {
    listeners.send(scope, &serde_json::to_vec(message).unwrap())
}

#[tokio::test]
async fn messages_sent_to_a_scope_arrive_on_its_stream() {
    let listeners = Listeners::new(8);
    let addr = serve(Some(&listeners)).await;
    let mut seven = listen(addr, &listeners, "7").await;
    let mut eight = listen(addr, &listeners, "8").await;
    for n in 0..3 {
        send(&listeners, 7, &tick(n)).unwrap();
    }
    // Pretty-printed: its lines are `data:` lines of one event.
    let pretty = serde_json::to_vec_pretty(&tick(99)).unwrap();
    listeners.send(8, &pretty).unwrap();
    for n in 0..3 {
        assert_eq!(seven.next().await, Some(tick(n)));
    }
    assert_eq!(eight.next().await, Some(tick(99)));
    assert!(listeners.close(7));
    assert_eq!(seven.next().await, None, "the stream ends");
    assert_eq!(send(&listeners, 7, &tick(3)), Err(Unsent::NoStream));
    send(&listeners, 8, &tick(100)).unwrap();
    assert_eq!(eight.next().await, Some(tick(100)), "the other goes on");
}

#[tokio::test]
async fn a_new_stream_of_a_scope_replaces_the_old() {
    let listeners = Listeners::new(8);
    let addr = serve(Some(&listeners)).await;
    let mut old = listen(addr, &listeners, "1").await;
    let mut new = listen(addr, &listeners, "1").await;
    assert_eq!(old.next().await, None, "the old stream ends");
    send(&listeners, 1, &tick(1)).unwrap();
    assert_eq!(new.next().await, Some(tick(1)));
    assert_eq!(listeners.len(), 1);
}

#[tokio::test]
async fn a_stream_holds_no_buffer_pair() {
    let listeners = Listeners::new(8);
    let addr = serve(Some(&listeners)).await;
    let mut stream = listen(addr, &listeners, "1").await;
    // The server's one pair: free, though the stream is open.
    let call = r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;
    let reply = raw_http::open(addr, "POST", "/", &[], call)
        .await
        .body()
        .await;
    let reply: Value = serde_json::from_slice(&reply).unwrap();
    assert_eq!(reply, json!({"jsonrpc": "2.0", "result": 19, "id": 1}));
    send(&listeners, 1, &tick(1)).unwrap();
    assert_eq!(stream.next().await, Some(tick(1)));
}

#[tokio::test]
async fn shutdown_ends_the_streams() {
    let listeners = Listeners::new(8);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(server(Some(&listeners)).serve_until(listener, async {
        let _ = stopped.await;
    }));
    let mut stream = listen(addr, &listeners, "1").await;
    stop.send(()).unwrap();
    assert_eq!(stream.next().await, None, "the stream ends");
    let served = tokio::time::timeout(LIMIT, served).await;
    assert!(matches!(served, Ok(Ok(Ok(())))), "the server returns");
    assert!(listeners.is_empty());
}

#[tokio::test]
async fn without_listeners_a_get_is_405() {
    let addr = serve(None).await;
    let open = raw_http::open(addr, "GET", "/", &[EVENTS, ("X-Scope", "1")], "").await;
    assert_eq!(open.head.status, 405);
    assert_eq!(open.header("allow"), Some("POST"));
}
