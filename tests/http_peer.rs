//! `Verdict::peer`: a handler of the HTTP server asks the client (`Call::request`) and
//! awaits its answer, which comes in another `POST`, on loopback. Every step waits on
//! the other side's message (no sleeps); every wait is bounded by `LIMIT`.
//!
//! | property | test |
//! |---|---|
//! | the request goes out on the call's event stream while the handler runs; the client's response, in a second `POST` (`202`), reaches it; the reply follows on the stream, which then ends | `a_handler_asks_and_the_answer_comes_in_another_post` |
//! | the server's ids are of the call's own range, below 2^53; two calls at once get different ranges | same, and `two_calls_ask_at_once_each_answered_its_own` |
//! | a response of another scope, or for an id no call awaits, is `202` and dropped | `a_response_of_another_scope_is_dropped` |
//! | a reply as JSON cannot carry a request: the handler's request fails at once, the client sent nothing | `a_json_reply_cannot_ask` |
//! | at most half the buffer pairs ask at once: past that, the request fails at once | `past_the_bound_a_call_cannot_ask` |
//! | a call that passes the request's time limit ends its stream with an error reply of its id | `a_call_past_its_time_limit_ends_with_an_error_reply` |

use std::net::SocketAddr;
use std::time::Duration;

use hyper::StatusCode;
use jsonrpc_slice::envelope::Outcome;
use jsonrpc_slice::http::gate::Verdict;
use jsonrpc_slice::http::{HttpServer, Settings};
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
use jsonrpc_slice::{async_method_table, Params, ResultWriter, RpcError};
use serde_json::{json, Value};

#[path = "common/raw_http.rs"]
mod raw_http;
use raw_http::Open;

/// Asks the client `confirm` and answers with what it said (its result's JSON), or
/// why it could not ask.
async fn ask<'p>(
    call: &mut Call<'_, ()>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let asked = call
        .request(
            "confirm",
            |w| {
                w.begin_object()?;
                w.key("q")?;
                w.str("sure?")?;
                w.end()
            },
            core::future::pending(),
            |outcome| match outcome {
                Outcome::Result(r) => String::from_utf8_lossy(r.as_bytes()).into_owned(),
                Outcome::Error(_) => "an error".to_string(),
            },
        )
        .await;
    let text = match asked {
        Ok(said) => format!("client said {said}"),
        Err(e) => format!("not asked: {e:?}"),
    };
    Ok(out.str(&text)?)
}

async_method_table! { Methods<'c, Call<'c, ()>> { "ask" => ask } }

static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);

/// A server whose gate puts each request in the scope its `X-Scope` header names, its
/// reply as events when the client accepts them, `202` for no reply.
async fn server(settings: Settings) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = HttpServer::concurrent::<2, _>(&SERVER, || ())
        .with_settings(settings)
        .with_gate(|head| {
            let scope = head.headers.get("x-scope").and_then(|s| s.to_str().ok());
            let verdict = Verdict::answer().no_reply(StatusCode::ACCEPTED);
            let verdict = match scope.and_then(|s| s.parse().ok()) {
                Some(scope) => verdict.peer(scope),
                None => verdict,
            };
            let accepts = head.headers.get("accept").and_then(|a| a.to_str().ok());
            match accepts.is_some_and(|a| a.contains("text/event-stream")) {
                true => verdict.events(),
                false => verdict,
            }
        });
    tokio::spawn(server.serve(listener));
    addr
}

fn settings() -> Settings {
    Settings {
        max_body: 4096,
        max_reply: 4096,
        buffers: 8,
        ..Settings::default()
    }
}

/// `POST`s `body` with `headers` on a new connection; reads the response's head.
async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> Open {
    raw_http::open(addr, "POST", "/rpc", headers, body).await
}

const EVENTS: (&str, &str) = ("Accept", "application/json, text/event-stream");

/// Calls `ask` with `id` in `scope`, and reads the request it sends the client: its id.
async fn asking(addr: SocketAddr, scope: &str, id: u64) -> (Open, u64) {
    let call = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ask"}}"#);
    let mut open = post(addr, &[EVENTS, ("X-Scope", scope)], &call).await;
    assert_eq!(open.head.status, 200);
    assert_eq!(open.header("content-type"), Some("text/event-stream"));
    let request = open.next().await.expect("the server's request");
    let asked = request["id"].as_u64().expect("a numeric id");
    assert_eq!(
        request,
        json!({"jsonrpc": "2.0", "method": "confirm", "params": {"q": "sure?"}, "id": asked})
    );
    (open, asked)
}

/// The client's response to `id` in `scope`, in a `POST` of its own: its status.
async fn answer(addr: SocketAddr, scope: &str, id: u64, result: &str) -> u16 {
    let response = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"{result}"}}"#);
    let open = post(addr, &[EVENTS, ("X-Scope", scope)], &response).await;
    let status = open.head.status;
    assert_eq!(open.body().await, b"", "no body");
    status
}

fn reply(id: u64, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "result": text, "id": id})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_asks_and_the_answer_comes_in_another_post() {
    let addr = server(settings()).await;
    let (mut open, asked) = asking(addr, "1", 5).await;
    assert!(asked >= 1 << 20, "a range of its own: {asked}");
    assert!(asked < 1 << 53, "exact in JavaScript: {asked}");
    assert_eq!(answer(addr, "1", asked, "yes").await, 202);
    assert_eq!(open.next().await, Some(reply(5, r#"client said "yes""#)));
    assert_eq!(open.next().await, None, "the stream ends with the reply");
    // The call is gone: a second answer is dropped, and still 202.
    assert_eq!(answer(addr, "1", asked, "again").await, 202);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_calls_ask_at_once_each_answered_its_own() {
    let addr = server(settings()).await;
    let (mut first, a) = asking(addr, "1", 1).await;
    let (mut second, b) = asking(addr, "1", 2).await;
    assert_ne!(a >> 20, b >> 20, "ranges of their own");
    // Answered in the other order.
    assert_eq!(answer(addr, "1", b, "two").await, 202);
    assert_eq!(second.next().await, Some(reply(2, r#"client said "two""#)));
    assert_eq!(answer(addr, "1", a, "one").await, 202);
    assert_eq!(first.next().await, Some(reply(1, r#"client said "one""#)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_of_another_scope_is_dropped() {
    let addr = server(settings()).await;
    let (mut open, asked) = asking(addr, "1", 3).await;
    assert_eq!(answer(addr, "2", asked, "foreign").await, 202);
    assert_eq!(answer(addr, "1", asked + (1 << 20), "unknown").await, 202);
    assert_eq!(answer(addr, "1", asked, "mine").await, 202);
    // Had either reached the call, it would have been its answer.
    assert_eq!(open.next().await, Some(reply(3, r#"client said "mine""#)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_reply_cannot_ask() {
    let addr = server(settings()).await;
    let call = r#"{"jsonrpc":"2.0","id":4,"method":"ask"}"#;
    let open = post(addr, &[("X-Scope", "1")], call).await;
    assert_eq!(open.head.status, 200);
    assert_eq!(open.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_slice(&open.body().await).unwrap();
    assert_eq!(body, reply(4, "not asked: Lost"));
    // Events, but no scope: the same.
    let mut open = post(addr, &[EVENTS], call).await;
    assert_eq!(open.next().await, Some(reply(4, "not asked: Lost")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_bound_a_call_cannot_ask() {
    // Two pairs: one call may ask at a time (its answer needs the other pair).
    let addr = server(Settings {
        buffers: 2,
        ..settings()
    })
    .await;
    let (mut first, asked) = asking(addr, "1", 1).await;
    let mut second = post(
        addr,
        &[EVENTS, ("X-Scope", "1")],
        r#"{"jsonrpc":"2.0","id":2,"method":"ask"}"#,
    )
    .await;
    assert_eq!(second.next().await, Some(reply(2, "not asked: Lost")));
    assert_eq!(answer(addr, "1", asked, "yes").await, 202);
    assert_eq!(first.next().await, Some(reply(1, r#"client said "yes""#)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_time_limit_ends_with_an_error_reply() {
    let addr = server(Settings {
        request_timeout: Duration::from_millis(200),
        ..settings()
    })
    .await;
    // Never answered: the time limit ends the call.
    let (mut open, _) = asking(addr, "1", 9).await;
    let error = open.next().await.expect("an error reply");
    assert_eq!(error["id"], 9);
    assert_eq!(error["error"]["code"], -32603);
    assert_eq!(open.next().await, None);
}
