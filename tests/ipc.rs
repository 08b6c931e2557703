//! `io::tokio::ipc::IpcServer` on a Unix socket in the temporary directory, with raw
//! clients, every wait bounded by `LIMIT`. The time limits under test are set short
//! through `Settings`; a wait for the server to act is a wait for its bytes or its
//! close, never a sleep.
//!
//! | property | test |
//! |---|---|
//! | newline-delimited and back-to-back JSON on one socket, batches too | `both_framings_on_one_socket` |
//! | bytes that are not a message answered once, the stream goes on | `garbage_is_answered_and_the_stream_resyncs` |
//! | a message past the frame limit answered `-32600`, the stream goes on | `a_message_past_the_frame_limit_is_refused` |
//! | at the cap the connection silent the longest is closed for a new client | `at_the_cap_the_connection_silent_longest_is_closed` |
//! | a connection so closed answers its calls in flight first; the client waits for it | `at_the_cap_a_client_waits_for_a_connection_to_close` |
//! | a silent connection, and one idle after a call, are closed | `idle_connections_are_closed` |
//! | several calls of one connection in flight at once | `several_calls_of_a_connection_are_in_flight` |
//! | a peer that does not read its replies is closed after the write limit | `a_peer_that_does_not_read_is_closed` |
//! | shutdown: idle connections closed, a call in flight answered, file removed | `shutdown_is_graceful` |
//! | a stale socket file replaced, a live one or another file refused | `the_socket_file_is_replaced_only_when_stale` |
//! | a `MethodTable` of blocking handlers served as the concurrent service's table | `a_table_of_blocking_handlers_is_served` |

#![cfg(unix)]

use std::cell::RefCell;
use std::future::Future;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use jsonrpc_slice::io::tokio::ipc::{IpcListener, IpcServer, Settings};
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
use jsonrpc_slice::{async_method_table, Params, RawJson, ResultWriter, RpcError};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::{oneshot, Notify};

/// The longest any step waits: far above every time limit set here.
const LIMIT: Duration = Duration::from_secs(10);

/// A gate the `wait` calls wait at until `release` (a call, or the test) opens it.
#[derive(Default)]
struct Gate {
    open: AtomicBool,
    opened: Notify,
    /// A `wait` call has started (a permit stored for the next waiter).
    entered: Notify,
}

impl Gate {
    fn release(&self) {
        self.open.store(true, Ordering::Release);
        self.opened.notify_waiters();
    }

    async fn wait(&self) {
        loop {
            // Made before the check: a release in between still wakes it.
            let opened = self.opened.notified();
            if self.open.load(Ordering::Acquire) {
                return;
            }
            opened.await;
        }
    }
}

type State = Arc<Gate>;
type Rpc<'p> = Result<(), RpcError<'p>>;

async fn ping<'p>(_: &mut Call<'_, State>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    Ok(out.str("pong")?)
}

async fn wait<'p>(
    call: &mut Call<'_, State>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Rpc<'p> {
    call.state().entered.notify_one();
    call.state().wait().await;
    Ok(out.str("waited")?)
}

async fn release<'p>(
    call: &mut Call<'_, State>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Rpc<'p> {
    call.state().release();
    Ok(out.raw(RawJson::NULL)?)
}

/// A result of `params[0]` bytes.
async fn big<'p>(_: &mut Call<'_, State>, p: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    let n = p.nth(0).and_then(|n| n.as_i64()).unwrap_or(0);
    Ok(out.str(&"x".repeat(usize::try_from(n).unwrap_or(0)))?)
}

async_method_table! {
    Methods<'c, Call<'c, State>> { "ping" => ping, "wait" => wait, "release" => release, "big" => big }
}

static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);

/// Settings whose time limits stay out of the way unless a test sets them.
fn relaxed() -> Settings {
    Settings {
        idle_timeout: LIMIT * 6,
        write_timeout: LIMIT * 6,
        shutdown_grace: LIMIT * 6,
        ..Settings::default()
    }
}

/// A fresh socket path for one test.
fn socket(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir();
    let path = dir.join(format!("jrs-ipc-{}-{n}-{name}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// Shuts the server down: by the test, or once its client is done.
#[derive(Clone)]
struct Stop(Rc<RefCell<Option<oneshot::Sender<()>>>>);

impl Stop {
    fn fire(&self) {
        if let Some(stop) = self.0.borrow_mut().take() {
            let _ = stop.send(());
        }
    }
}

/// Runs the server on `path` beside `client`, which is given the gate and the
/// server's [`Stop`] (fired once it is done); returns once both are done, within a
/// bound.
async fn with_server<F, C>(name: &str, settings: Settings, client: C) -> PathBuf
where
    C: FnOnce(PathBuf, State, Stop) -> F,
    F: Future<Output = ()>,
{
    let path = socket(name);
    let listener = IpcListener::bind(&path).unwrap();
    let gate = State::default();
    let (stop, stopped) = oneshot::channel::<()>();
    let stop = Stop(Rc::new(RefCell::new(Some(stop))));
    let server = {
        let gate = gate.clone();
        IpcServer::new(&SERVER, move || gate.clone()).with_settings(settings)
    };
    let served = server.serve_until(listener, async {
        let _ = stopped.await;
    });
    let client = async {
        client(path.clone(), gate, stop.clone()).await;
        stop.fire();
    };
    let both = async { tokio::join!(served, client) };
    let (served, ()) = tokio::time::timeout(LIMIT * 3, both)
        .await
        .expect("the server and its client finish");
    served.unwrap();
    path
}

struct Client {
    io: BufReader<UnixStream>,
}

impl Client {
    async fn connect(path: &PathBuf) -> Self {
        let stream = UnixStream::connect(path).await.unwrap();
        Self {
            io: BufReader::new(stream),
        }
    }

    async fn send(&mut self, bytes: &str) {
        self.io.get_mut().write_all(bytes.as_bytes()).await.unwrap();
    }

    /// The next reply line (without its `\n`), or `None` at the end of the stream.
    async fn line(&mut self) -> Option<String> {
        let mut line = String::new();
        let n = tokio::time::timeout(LIMIT, self.io.read_line(&mut line))
            .await
            .expect("a reply within the limit")
            .unwrap();
        (n > 0).then(|| line.trim_end_matches('\n').to_string())
    }

    /// The next `n` replies, sorted (replies come in the order their calls end).
    async fn lines(&mut self, n: usize) -> Vec<String> {
        let mut lines = Vec::new();
        for _ in 0..n {
            lines.push(self.line().await.expect("a reply, not the end"));
        }
        lines.sort();
        lines
    }

    /// Waits for the server to close the connection: `true` if it did within the
    /// limit with nothing more sent.
    async fn closed(&mut self) -> bool {
        let mut rest = Vec::new();
        let read = tokio::time::timeout(LIMIT, self.io.read_to_end(&mut rest)).await;
        matches!(read, Ok(Ok(0)))
    }
}

fn call(method: &str, id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"{method}","id":{id}}}"#)
}

fn result(value: &str, id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","result":{value},"id":{id}}}"#)
}

#[tokio::test]
async fn both_framings_on_one_socket() {
    with_server("framings", relaxed(), |path, _, _stop| async move {
        let mut c = Client::connect(&path).await;
        // One a line, then back to back, then a batch, with whitespace between.
        let stream = format!(
            "{}\n{}{}[{},{}]\r\n \t{}",
            call("ping", 1),
            call("ping", 2),
            call("ping", 3),
            call("ping", 4),
            call("ping", 5),
            call("ping", 6),
        );
        c.send(&stream).await;
        let mut expected: Vec<String> = [1, 2, 3, 6]
            .iter()
            .map(|&id| result(r#""pong""#, id))
            .collect();
        expected.push(format!(
            "[{},{}]",
            result(r#""pong""#, 4),
            result(r#""pong""#, 5)
        ));
        expected.sort();
        assert_eq!(c.lines(5).await, expected);
        // A message split across writes is one message.
        let split = call("ping", 7);
        c.send(&split[..10]).await;
        c.send(&split[10..]).await;
        assert_eq!(c.line().await.unwrap(), result(r#""pong""#, 7));
    })
    .await;
}

#[tokio::test]
async fn garbage_is_answered_and_the_stream_resyncs() {
    with_server("garbage", relaxed(), |path, _, _stop| async move {
        let mut c = Client::connect(&path).await;
        c.send(&format!("hello{}", call("ping", 1))).await;
        assert_eq!(
            c.lines(2).await,
            [
                r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#
                    .to_string(),
                result(r#""pong""#, 1),
            ]
        );
        // A message cut short by garbage loses only itself; a scalar is -32600.
        c.send(&format!(
            "{}{}42\n",
            r#"{"jsonrpc":"2.0",]"#,
            call("ping", 2)
        ))
        .await;
        let lines = c.lines(3).await;
        assert_eq!(lines[2], result(r#""pong""#, 2), "{lines:?}");
        assert!(
            lines[0].contains("-32600") && lines[1].contains("-32700"),
            "{lines:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_message_past_the_frame_limit_is_refused() {
    let settings = Settings {
        max_frame: 128,
        ..relaxed()
    };
    with_server("frame", settings, |path, _, _stop| async move {
        let mut c = Client::connect(&path).await;
        let long = format!(
            r#"{{"jsonrpc":"2.0","method":"ping","params":["{}"],"id":1}}"#,
            "a".repeat(300)
        );
        c.send(&format!("{long}{}", call("ping", 2))).await;
        assert_eq!(
            c.lines(2).await,
            [
                r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: frame larger than 128 bytes"},"id":null}"#.to_string(),
                result(r#""pong""#, 2),
            ]
        );
        // A frame of exactly the limit is served.
        let short = call("ping", 3);
        let open = &short[..short.len() - 1];
        let exact = format!("{open}{}}}", " ".repeat(128 - short.len()));
        assert_eq!(exact.len(), 128);
        c.send(&exact).await;
        assert_eq!(c.line().await.unwrap(), result(r#""pong""#, 3));
    })
    .await;
}

#[tokio::test]
async fn at_the_cap_the_connection_silent_longest_is_closed() {
    let settings = Settings {
        max_connections: 2,
        ..relaxed()
    };
    with_server("cap-oldest", settings, |path, _, _stop| async move {
        let mut a = Client::connect(&path).await;
        a.send(&call("ping", 1)).await;
        assert_eq!(a.line().await.unwrap(), result(r#""pong""#, 1));
        let mut b = Client::connect(&path).await;
        b.send(&call("ping", 2)).await;
        assert_eq!(b.line().await.unwrap(), result(r#""pong""#, 2));
        // A again, then B: B is now the one silent the longest.
        a.send(&call("ping", 3)).await;
        assert_eq!(a.line().await.unwrap(), result(r#""pong""#, 3));
        let mut c = Client::connect(&path).await;
        c.send(&call("ping", 4)).await;
        assert!(b.closed().await, "B, silent the longest, closed for C");
        assert_eq!(c.line().await.unwrap(), result(r#""pong""#, 4));
        a.send(&call("ping", 5)).await;
        assert_eq!(a.line().await.unwrap(), result(r#""pong""#, 5));
    })
    .await;
}

#[tokio::test]
async fn at_the_cap_a_client_waits_for_a_connection_to_close() {
    let settings = Settings {
        max_connections: 1,
        ..relaxed()
    };
    with_server("cap", settings, |path, gate, _stop| async move {
        let mut a = Client::connect(&path).await;
        a.send(&call("wait", 1)).await;
        tokio::time::timeout(LIMIT, gate.entered.notified())
            .await
            .expect("the call started");
        // B comes while A's call is in flight: A's input is ended for it, but A
        // answers its call first.
        let mut b = Client::connect(&path).await;
        b.send(&call("ping", 2)).await;
        // Not answered while A is open: nothing for B yet.
        let mut byte = [0u8; 1];
        let unread = b.io.get_ref().try_read(&mut byte);
        assert!(
            matches!(&unread, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
            "{unread:?}"
        );
        gate.release();
        assert_eq!(a.line().await.unwrap(), result(r#""waited""#, 1));
        assert!(a.closed().await, "A closed once its call was answered");
        assert_eq!(b.line().await.unwrap(), result(r#""pong""#, 2));
    })
    .await;
}

#[tokio::test]
async fn idle_connections_are_closed() {
    let settings = Settings {
        idle_timeout: Duration::from_millis(100),
        ..relaxed()
    };
    with_server("idle", settings, |path, _, _stop| async move {
        let mut silent = Client::connect(&path).await;
        let mut used = Client::connect(&path).await;
        used.send(&call("ping", 1)).await;
        assert_eq!(used.line().await.unwrap(), result(r#""pong""#, 1));
        assert!(silent.closed().await);
        assert!(used.closed().await);
    })
    .await;
}

#[tokio::test]
async fn several_calls_of_a_connection_are_in_flight() {
    with_server("in-flight", relaxed(), |path, _, _stop| async move {
        let mut c = Client::connect(&path).await;
        // The waits end only once `release`, sent after them, has run: one at a time
        // would never answer.
        let calls = [call("wait", 1), call("wait", 2), call("release", 3)].concat();
        c.send(&calls).await;
        let waited = |id| result(r#""waited""#, id);
        let mut expected = vec![waited(1), waited(2), result("null", 3)];
        expected.sort();
        assert_eq!(c.lines(3).await, expected);
    })
    .await;
}

#[tokio::test]
async fn a_peer_that_does_not_read_is_closed() {
    let settings = Settings {
        write_timeout: Duration::from_millis(100),
        ..relaxed()
    };
    with_server("no-read", settings, |path, _, _stop| async move {
        let mut c = Client::connect(&path).await;
        // Replies far larger than the socket's buffers, never read: the server's
        // writes wait, its slots fill, it stops reading, and then so do these writes,
        // until the server gives up on the peer and closes.
        let big = r#"{"jsonrpc":"2.0","method":"big","params":[1000000],"id":1}"#;
        let mut sent = 0;
        let closed = loop {
            let write = c.io.get_mut().write_all(big.as_bytes());
            match tokio::time::timeout(LIMIT, write).await {
                Ok(Ok(())) => sent += 1,
                Ok(Err(e)) => break e,
                Err(_) => panic!("the server neither read nor closed"),
            }
            assert!(sent < 1_000_000, "the server reads without bound");
        };
        assert!(
            matches!(
                closed.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ),
            "{closed:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn shutdown_is_graceful() {
    let path = with_server("shutdown", relaxed(), |path, gate, stop| async move {
        let mut busy = Client::connect(&path).await;
        let mut idle = Client::connect(&path).await;
        // `wait` is in a slot once `ping`, read after it, is answered.
        busy.send(&[call("wait", 1), call("ping", 2)].concat())
            .await;
        assert_eq!(busy.line().await.unwrap(), result(r#""pong""#, 2));
        stop.fire();
        // The idle connection is closed: shutdown has reached the connections.
        assert!(idle.closed().await);
        assert!(!path.exists(), "the socket file is removed");
        // The call in flight is answered, then the connection closes.
        gate.release();
        assert_eq!(busy.line().await.unwrap(), result(r#""waited""#, 1));
        assert!(busy.closed().await);
    })
    .await;
    assert!(!path.exists());
}

#[tokio::test]
async fn the_socket_file_is_replaced_only_when_stale() {
    // Stale: a socket file no one listens on.
    let path = socket("stale");
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(path.exists());
    let live = IpcListener::bind(&path).unwrap();
    // Live: refused, and still served.
    let again = IpcListener::bind(&path).unwrap_err();
    assert_eq!(again.kind(), std::io::ErrorKind::AddrInUse);
    assert!(UnixStream::connect(&path).await.is_ok());
    drop(live);
    let _ = std::fs::remove_file(&path);
    // Not a socket: refused, left as it was.
    let path = socket("file");
    std::fs::write(&path, b"keep me").unwrap();
    let refused = IpcListener::bind(&path).unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(&path).unwrap(), b"keep me");
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn a_table_of_blocking_handlers_is_served() {
    use jsonrpc_slice::{demo, MethodTable};
    static DEMO: ConcurrentServer<MethodTable<()>> = ConcurrentServer::new(demo::TABLE);
    let path = socket("blocking");
    let listener = IpcListener::bind(&path).unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let served = IpcServer::new(&DEMO, || ()).serve_until(listener, async {
        let _ = stopped.await;
    });
    let client = async {
        let mut c = Client::connect(&path).await;
        c.send(concat!(
            r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
            r#"{"jsonrpc":"2.0","method":"nope","id":2}"#,
            r#"{"jsonrpc":"2.0","method":"notify_hello","params":[7]}"#,
            r#"{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":3}"#,
        ))
        .await;
        let lines = c.lines(3).await;
        let _ = stop.send(());
        lines
    };
    let (served, lines) = tokio::time::timeout(LIMIT * 3, async { tokio::join!(served, client) })
        .await
        .expect("bounded");
    served.unwrap();
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}"#,
            r#"{"jsonrpc":"2.0","result":19,"id":1}"#,
            r#"{"jsonrpc":"2.0","result":7,"id":3}"#,
        ]
    );
}
