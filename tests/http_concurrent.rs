//! `http::HttpServer::concurrent`: async handlers over HTTP through the concurrent
//! service, on loopback, every wait bounded by `LIMIT` (no sleeps: the handlers signal
//! the test through semaphores in their shared state).
//!
//! | property | test |
//! |---|---|
//! | two calls of one batch are in flight at once, and a quick call of the batch completes while they wait | `a_batchs_calls_are_in_flight_at_once` |
//! | the same status and replies as the blocking server's, for singles, notifications, batches (any order), invalid elements, parse errors, `[]`, a batch over the limit | `the_replies_are_the_blocking_servers` |
//! | a request past its time limit is 503, and its handlers are dropped | `a_request_past_its_time_limit_is_503` |
//! | a request whose handler panics is 503, and the worker that ran it is replaced | `a_handler_that_panics_is_503_and_its_worker_replaced` |

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use jsonrpc_slice::http::{HttpServer, Settings};
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
use jsonrpc_slice::{
    async_method_table, method_table, Limits, Params, ResultWriter, RpcError, Server,
};
use serde_json::Value;
use tokio::net::TcpListener;

#[path = "common/raw_http.rs"]
mod raw_http;
use tokio::sync::Semaphore;

/// The longest any step waits.
const LIMIT: Duration = Duration::from_secs(10);

/// What the handlers of one server share with the test.
struct Signals {
    /// A permit for each `wait` call that started.
    arrived: Semaphore,
    /// A permit lets a `wait` call end.
    release: Semaphore,
    /// A permit for each `quick` call that ended.
    quick: Semaphore,
}

impl Default for Signals {
    fn default() -> Self {
        Self {
            arrived: Semaphore::new(0),
            release: Semaphore::new(0),
            quick: Semaphore::new(0),
        }
    }
}

type Ctx<'c> = Call<'c, Arc<Signals>>;

fn subtract<'p>(_: &mut (), p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    let mut args = p.positional();
    let (Some(Ok(a)), Some(Ok(b))) = (args.next_i64(), args.next_i64()) else {
        return Err(RpcError::invalid_params());
    };
    Ok(out.i64(a.wrapping_sub(b))?)
}

fn hello<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(out.str("hello")?)
}

async fn subtract_async<'p>(
    _: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    subtract(&mut (), p, out)
}

async fn hello_async<'p>(
    _: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    hello(&mut (), p, out)
}

/// Tells the test it started, then waits for its release.
async fn wait<'p>(
    call: &mut Ctx<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let signals = call.state().clone();
    signals.arrived.add_permits(1);
    signals
        .release
        .acquire()
        .await
        .map_err(|_| RpcError::internal())?
        .forget();
    Ok(out.str("waited")?)
}

/// Ends at once, and tells the test.
async fn quick<'p>(
    call: &mut Ctx<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    call.state().quick.add_permits(1);
    Ok(out.str("quick")?)
}

/// Panics (a handler's bug).
async fn panics<'p>(
    _: &mut Ctx<'_>,
    _: Params<'p>,
    _: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    panic!("a handler's bug")
}

/// Small batches, so that one over the limit is short to write.
const LIMITS: Limits = Limits::DEFAULT.max_batch(6);

static BLOCKING: Server<()> = Server::new(method_table! {
    "subtract" => subtract,
    "hello" => hello,
})
.with_limits(LIMITS);

async_method_table! {
    Methods<'c, Ctx<'c>> {
        "subtract" => subtract_async,
        "hello" => hello_async,
        "wait" => wait,
        "quick" => quick,
        "panics" => panics,
    }
}

static CONCURRENT: ConcurrentServer<Methods> = ConcurrentServer::new(Methods).with_limits(LIMITS);

fn relaxed() -> Settings {
    Settings {
        header_timeout: LIMIT * 6,
        idle_timeout: LIMIT * 6,
        request_timeout: LIMIT * 6,
        max_body: 64 * 1024,
        max_reply: 64 * 1024,
        buffers: 4,
        ..Settings::default()
    }
}

async fn listen() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

/// A concurrent server (4 calls of a request in flight) and what its handlers share.
async fn concurrent(settings: Settings) -> (SocketAddr, Arc<Signals>) {
    let (listener, addr) = listen().await;
    let signals = Arc::new(Signals::default());
    let shared = signals.clone();
    let server =
        HttpServer::concurrent::<4, _>(&CONCURRENT, move || shared.clone()).with_settings(settings);
    tokio::spawn(server.serve(listener));
    (addr, signals)
}

async fn blocking() -> SocketAddr {
    let (listener, addr) = listen().await;
    let server = HttpServer::new(&BLOCKING, || ()).with_settings(relaxed());
    tokio::spawn(server.serve(listener));
    addr
}

async fn bounded<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(LIMIT, f)
        .await
        .unwrap_or_else(|_| panic!("{what}: not within {LIMIT:?}"))
}

/// POSTs `body` on a new connection: the status and the body of the response.
async fn post(addr: SocketAddr, body: &str) -> (u16, String) {
    bounded("a response", async {
        let mut head = raw_http::request(addr, "POST", "/", &[], body).await;
        let body = head.body().await;
        (head.status, String::from_utf8(body).unwrap())
    })
    .await
}

/// A reply as JSON, a batch's elements sorted (their order is the order the calls
/// completed in).
fn normalised(body: &str) -> Value {
    if body.is_empty() {
        return Value::Null;
    }
    match serde_json::from_str(body).unwrap() {
        Value::Array(mut v) => {
            v.sort_by_key(|e| e.to_string());
            Value::Array(v)
        }
        v => v,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batchs_calls_are_in_flight_at_once() {
    let (addr, signals) = concurrent(relaxed()).await;
    let batch = r#"[{"jsonrpc":"2.0","method":"wait","id":1},
                    {"jsonrpc":"2.0","method":"wait","id":2},
                    {"jsonrpc":"2.0","method":"quick","id":3}]"#;
    let reply = tokio::spawn(post(addr, batch));
    // Both waits started, and the quick call ended, while neither wait may end: the
    // calls of one batch run at once.
    bounded("two calls in flight", signals.arrived.acquire_many(2))
        .await
        .unwrap()
        .forget();
    bounded("the quick call", signals.quick.acquire())
        .await
        .unwrap()
        .forget();
    assert!(!reply.is_finished());
    signals.release.add_permits(2);
    let (status, body) = reply.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(
        normalised(&body),
        normalised(
            r#"[{"jsonrpc":"2.0","result":"waited","id":1},{"jsonrpc":"2.0","result":"waited","id":2},{"jsonrpc":"2.0","result":"quick","id":3}]"#
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replies_are_the_blocking_servers() {
    let (with_async, _) = concurrent(relaxed()).await;
    let with_blocking = blocking().await;
    let call = r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;
    let note = r#"{"jsonrpc":"2.0","method":"hello"}"#;
    let bodies = [
        call.to_string(),
        format!("  {call}\n"),
        note.to_string(),
        r#"{"jsonrpc":"2.0","method":"nope","id":"x"}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"subtract","params":[1],"id":2}"#.to_string(),
        r#"{"jsonrpc":"2.0","result":1,"id":1}"#.to_string(),
        r#"{"foo":"bar"}"#.to_string(),
        "{".to_string(),
        "[]".to_string(),
        "1".to_string(),
        "[1,2]".to_string(),
        "[[1]]".to_string(),
        format!("[{note},{note}]"),
        format!(
            "[ {call} ,\n {note},1,{{\"foo\":1}}, [] ,{{\"jsonrpc\":\"2.0\",\"method\":\"hello\",\"id\":[1]}},\"x\"]"
        ),
        format!(r#"[{call},{{"jsonrpc":"2.0","result":1,"id":1}},{{"jsonrpc":"2.0","method":"hello","id":null}}]"#),
        format!("[{}]", [call; 7].join(",")),
        format!("[{}]", [call; 6].join(",")),
    ];
    for body in &bodies {
        let (want_status, want) = post(with_blocking, body).await;
        let (status, got) = post(with_async, body).await;
        assert_eq!(status, want_status, "{body}");
        assert_eq!(
            normalised(&got),
            normalised(&want),
            "{body}: {got} vs {want}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_that_panics_is_503_and_its_worker_replaced() {
    // One buffer pair: one worker, which the panic ends. Were it not replaced, the
    // next request would find none, and wait past `LIMIT` (then `503`).
    let (addr, _) = concurrent(Settings {
        buffers: 1,
        ..relaxed()
    })
    .await;
    let (status, _) = post(addr, r#"{"jsonrpc":"2.0","method":"panics","id":1}"#).await;
    assert_eq!(status, 503);
    let (status, body) = post(addr, r#"{"jsonrpc":"2.0","method":"quick","id":2}"#).await;
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"jsonrpc":"2.0","result":"quick","id":2}"#)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_its_time_limit_is_503() {
    let (addr, signals) = concurrent(Settings {
        request_timeout: Duration::from_millis(200),
        ..relaxed()
    })
    .await;
    let (status, _) = post(addr, r#"{"jsonrpc":"2.0","method":"wait","id":1}"#).await;
    assert_eq!(status, 503);
    // The call started, and was dropped: the server answers the next request.
    signals.arrived.acquire().await.unwrap().forget();
    let (status, body) = post(addr, r#"{"jsonrpc":"2.0","method":"quick","id":2}"#).await;
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"jsonrpc":"2.0","result":"quick","id":2}"#)
    );
}
