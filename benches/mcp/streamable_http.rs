//! The Streamable HTTP rows of `mcp_side_by_side.rs`: each server a child process
//! serving `http://ADDR/mcp` (it says `listening on http://ADDR/mcp` on stderr once
//! it accepts), driven by hyper's HTTP/1 client on loopback.
//!
//! A session: `initialize` (2025-11-25; the `Mcp-Session-Id` of the reply, when it
//! gives one, goes on every later request), `notifications/initialized` (202), then
//! on each of C keep-alive connections (default 4) a warm-up of `tools/call`s and the
//! measured ones, lock-step on each connection (HTTP/1 has no useful pipelining), the
//! C connections at once. Every reply is checked: status 200, the content type the row
//! is about (`application/json` or `text/event-stream`), the result's text and id.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::Request;
use hyper_util::rt::TokioIo;

/// A server of the HTTP rows.
pub struct HttpKind {
    pub name: &'static str,
    pub exe: &'static str,
    pub args: &'static [&'static str],
    /// The content type its replies to `tools/call` must have.
    pub sse: bool,
}

struct Running {
    child: Child,
    addr: SocketAddr,
    reports: mpsc::Receiver<(u64, u64)>,
}

fn start(kind: &HttpKind) -> Running {
    let wrap = std::env::var("MCP_SERVER_WRAP").unwrap_or_default();
    let mut words = wrap.split_whitespace().chain([kind.exe]);
    let mut child = Command::new(words.next().unwrap())
        .args(words)
        .args(kind.args)
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", kind.exe));
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (tx, reports) = mpsc::channel();
    let (addr_tx, addr_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("allocations ") {
                let counts: Vec<u64> = rest.split(' ').filter_map(|n| n.parse().ok()).collect();
                let _ = tx.send((counts[0], counts[1]));
            } else if let Some(url) = line.strip_prefix("listening on http://") {
                let addr = url.trim_end_matches("/mcp").parse::<SocketAddr>();
                let _ = addr_tx.send(addr.expect("an address"));
            } else {
                eprintln!("server: {line}");
            }
        }
    });
    let addr = addr_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("`listening on http://ADDR/mcp` from the server");
    Running {
        child,
        addr,
        reports,
    }
}

impl Running {
    fn allocations(&self) -> (u64, u64) {
        // SAFETY: kill has no memory preconditions; the pid is our live child's.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGUSR1) };
        self.reports
            .recv_timeout(Duration::from_secs(60))
            .expect("an allocations report")
    }

    fn cpu_ns(&self) -> u64 {
        super::cpu_ns(self.child.id())
    }

    /// Stops the server with `SIGTERM` (under callgrind, which then writes its
    /// counts) and waits for it.
    fn stop(mut self) {
        // SAFETY: kill has no memory preconditions; the pid is our live child's.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

type Sender = SendRequest<Full<Bytes>>;

async fn connect(addr: SocketAddr) -> Sender {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    sender
}

/// POSTs `body` to `/mcp`; the reply's status, content type, session id and body.
async fn post(
    sender: &mut Sender,
    addr: SocketAddr,
    session: Option<&str>,
    body: String,
) -> (u16, String, Option<String>, Bytes) {
    let mut request = Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", mcp_bench::PROTOCOL_VERSION);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let request = request.body(Full::new(Bytes::from(body))).unwrap();
    sender.ready().await.unwrap();
    let reply = sender.send_request(request).await.unwrap();
    let header = |name: &str| {
        reply
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let (status, kind, session) = (
        reply.status().as_u16(),
        header("content-type").unwrap_or_default(),
        header("mcp-session-id"),
    );
    let body = reply.into_body().collect().await.unwrap().to_bytes();
    (status, kind, session, body)
}

/// One `tools/call` on `sender`, its reply checked.
async fn call(sender: &mut Sender, addr: SocketAddr, session: Option<&str>, id: u64, sse: bool) {
    let (status, kind, _, body) = post(sender, addr, session, mcp_bench::call(id)).await;
    let body = String::from_utf8_lossy(&body);
    assert_eq!(status, 200, "{body}");
    let wanted = if sse {
        "text/event-stream"
    } else {
        "application/json"
    };
    assert!(kind.starts_with(wanted), "{kind}: {body}");
    let noted = format!("\"text\":\"{}\"", mcp_bench::noted());
    assert!(body.contains(&noted), "{body}");
    // The reply's own id (within the JSON-RPC message, wherever the SSE event puts it).
    let at = body.find("\"id\":").expect("an id") + 5;
    let digits: String = body[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert_eq!(digits.parse::<u64>().ok(), Some(id), "{body}");
}

/// Calls per second, server CPU µs per call, allocations per call (all, the
/// handler's).
pub fn session(
    kind: &HttpKind,
    client: &tokio::runtime::Runtime,
    connections: u64,
    calls: u64,
    warmup: u64,
) -> super::Row {
    let server = start(kind);
    let addr = server.addr;
    let sse = kind.sse;
    let (session, senders) = client.block_on(async {
        let mut first = connect(addr).await;
        let (status, _, session, body) =
            post(&mut first, addr, None, mcp_bench::initialize()).await;
        let body = String::from_utf8_lossy(&body).into_owned();
        assert_eq!(status, 200, "{body}");
        let version = format!("\"protocolVersion\":\"{}\"", mcp_bench::PROTOCOL_VERSION);
        assert!(body.contains(&version), "{}: {body}", kind.name);
        let initialized = mcp_bench::INITIALIZED.to_owned();
        let (status, ..) = post(&mut first, addr, session.as_deref(), initialized).await;
        assert_eq!(status, 202);
        let mut senders = vec![first];
        for _ in 1..connections {
            senders.push(connect(addr).await);
        }
        for (c, sender) in senders.iter_mut().enumerate() {
            for i in 0..warmup / connections {
                let id = 1 + c as u64 * warmup + i;
                call(sender, addr, session.as_deref(), id, sse).await;
            }
        }
        (session, senders)
    });
    let each = calls / connections;
    let (a0, h0) = server.allocations();
    let cpu0 = server.cpu_ns();
    let start = Instant::now();
    client.block_on(async {
        let tasks: Vec<_> = senders
            .into_iter()
            .enumerate()
            .map(|(c, mut sender)| {
                let session = session.clone();
                let first = 1_000_000_000 * (c as u64 + 1);
                tokio::spawn(async move {
                    for id in first..first + each {
                        call(&mut sender, addr, session.as_deref(), id, sse).await;
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let cpu = server.cpu_ns().saturating_sub(cpu0);
    let (a1, h1) = server.allocations();
    server.stop();
    let n = (each * connections) as f64;
    super::Row {
        calls_per_s: n / secs,
        cpu_us: cpu as f64 / 1000.0 / n,
        allocations: (a1 - a0) as f64 / n,
        handler: (h1 - h0) as f64 / n,
    }
}
