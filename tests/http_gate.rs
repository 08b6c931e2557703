//! `HttpServer::with_gate`: a protocol's rules on each request before the codec, and
//! replies as server-sent events, on loopback (every wait bounded by `LIMIT`).
//!
//! | property | test |
//! |---|---|
//! | a gate's own answer (status, JSON body, headers) replaces the codec's, whatever the method | `the_gate_answers_what_it_refuses` |
//! | a reply as events: what the handler sent during the call, in order, then the reply, read back by the crate's SSE reader; a header added | `a_reply_as_events_carries_the_calls_notifications_first` |
//! | the same call as JSON: the notifications dropped, the reply alone | `a_reply_as_json_drops_the_notifications` |
//! | no reply (a notification, a response) is the gate's status (`202`) | `no_reply_is_the_gates_status` |
//! | `Limits::max_batch(0)`: a batch is one `-32600` with `id: null`, a single call is answered | `no_batches_is_one_invalid_request` |

use std::net::SocketAddr;

use hyper::header::{HeaderName, HeaderValue};
use hyper::StatusCode;
use jsonrpc_slice::http::gate::{local_origin, Verdict};
use jsonrpc_slice::http::{HttpServer, Settings};
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
use jsonrpc_slice::{async_method_table, Limits, Params, ResultWriter, RpcError};
use serde_json::{json, Value};
use tokio::net::TcpListener;

#[path = "common/raw_http.rs"]
mod raw_http;
use raw_http::{Head, LIMIT};

type Ctx<'c> = Call<'c, ()>;

/// Sends two notifications, then answers `"done"`.
async fn work<'p>(
    call: &mut Ctx<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    for step in 1..=2 {
        call.notify("progress", |w| {
            w.begin_object()?;
            w.key("step")?;
            w.i64(step)?;
            w.end()
        })
        .await
        .map_err(|_| RpcError::internal())?;
    }
    Ok(out.str("done")?)
}

async_method_table! { Methods<'c, Call<'c, ()>> { "work" => work } }

/// No batches: MCP's rule since 2025-06-18.
static SERVER: ConcurrentServer<Methods> =
    ConcurrentServer::new(Methods).with_limits(Limits::DEFAULT.max_batch(0));

/// A server whose gate: refuses a foreign `Origin` (403), answers `DELETE` itself
/// (200), sends replies as events when the client accepts them, says `202` for no
/// reply, and adds a header.
async fn server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = HttpServer::concurrent::<4, _>(&SERVER, || ())
        .with_settings(Settings {
            max_body: 64 * 1024,
            max_reply: 64 * 1024,
            ..Settings::default()
        })
        .with_gate(|head| {
            if !local_origin(head.headers) {
                return Verdict::respond(StatusCode::FORBIDDEN, r#"{"why":"origin"}"#);
            }
            if head.method == hyper::Method::DELETE {
                return Verdict::respond(StatusCode::OK, "");
            }
            let verdict = Verdict::answer().no_reply(StatusCode::ACCEPTED).header(
                HeaderName::from_static("x-gate"),
                HeaderValue::from_static("seen"),
            );
            let accepts = head.headers.get("accept").and_then(|a| a.to_str().ok());
            match accepts.is_some_and(|a| a.contains("text/event-stream")) {
                true => verdict.events(),
                false => verdict,
            }
        });
    tokio::spawn(server.serve(listener));
    addr
}

/// A response: its head, and its body read whole.
struct Reply {
    status: u16,
    head: Head,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.header(name)
    }
}

/// `method` with `headers` and `body` on a new connection.
async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    tokio::time::timeout(LIMIT, async {
        let mut head = raw_http::request(addr, method, "/mcp", headers, body).await;
        let body = head.body().await;
        Reply {
            status: head.status,
            head,
            body,
        }
    })
    .await
    .expect("a response in time")
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"work"}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gate_answers_what_it_refuses() {
    let addr = server().await;
    let refused = send(addr, "POST", &[("Origin", "http://evil.example")], CALL).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.body, br#"{"why":"origin"}"#);
    assert_eq!(refused.header("content-type"), Some("application/json"));
    // A method the server itself refuses (405) is the gate's to answer first.
    let deleted = send(addr, "DELETE", &[], "").await;
    assert_eq!((deleted.status, deleted.body.len()), (200, 0));
    let got = send(addr, "GET", &[], "").await;
    assert_eq!(got.status, 405, "let through: the server's own rule");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_as_events_carries_the_calls_notifications_first() {
    let addr = server().await;
    let events = [("Accept", "application/json, text/event-stream")];
    let mut reply = raw_http::open(addr, "POST", "/mcp", &events, CALL).await;
    assert_eq!(reply.head.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    assert_eq!(reply.header("x-gate"), Some("seen"));
    let mut messages = Vec::new();
    while let Some(message) = reply.next().await {
        messages.push(message);
    }
    let note = |step| json!({"jsonrpc": "2.0", "method": "progress", "params": {"step": step}});
    assert_eq!(
        messages,
        [
            note(1),
            note(2),
            json!({"jsonrpc": "2.0", "result": "done", "id": 7})
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_as_json_drops_the_notifications() {
    let addr = server().await;
    let reply = send(addr, "POST", &[("Accept", "application/json")], CALL).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(
        serde_json::from_slice::<Value>(&reply.body).unwrap(),
        json!({"jsonrpc": "2.0", "result": "done", "id": 7})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_reply_is_the_gates_status() {
    let addr = server().await;
    let events = [("Accept", "text/event-stream")];
    for body in [
        r#"{"jsonrpc":"2.0","method":"work"}"#,
        r#"{"jsonrpc":"2.0","method":"nope"}"#,
    ] {
        let reply = send(addr, "POST", &events, body).await;
        assert_eq!((reply.status, reply.body.len()), (202, 0), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_batches_is_one_invalid_request() {
    let addr = server().await;
    let invalid = json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null});
    for batch in [
        format!("[{CALL}]"),
        format!("[{CALL},{CALL}]"),
        "[]".to_string(),
    ] {
        let reply = send(addr, "POST", &[], &batch).await;
        assert_eq!(reply.status, 200, "{batch}");
        let got: Value = serde_json::from_slice(&reply.body).unwrap();
        assert_eq!(
            got["error"]["code"], invalid["error"]["code"],
            "{batch}: {got}"
        );
        assert_eq!(got["id"], Value::Null, "{batch}");
    }
    let single = send(addr, "POST", &[], CALL).await;
    assert_eq!(
        serde_json::from_slice::<Value>(&single.body).unwrap()["result"],
        "done"
    );
}
