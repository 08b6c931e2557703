//! A request written byte for byte on a new connection, and its response's head read
//! as it came, for the HTTP tests that look at the wire rather than through a client
//! (`#[path = "common/raw_http.rs"] mod raw_http;` in the tests that run on tokio).
//! No time limit of its own: each test bounds the exchange as it needs.

use std::net::SocketAddr;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A response's status line and headers (names lower-cased), and the connection,
/// positioned at the start of its body.
pub struct Head {
    pub io: BufReader<TcpStream>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The value of header `name` (lower-case), if the response has it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body's length, `None` when it is chunked; 0 when the response gives none.
    pub fn length(&self) -> Option<usize> {
        match self.header("transfer-encoding") {
            Some("chunked") => None,
            _ => Some(
                self.header("content-length")
                    .map_or(0, |v| v.parse().unwrap()),
            ),
        }
    }

    /// The whole body, of the length the head gives.
    #[allow(dead_code)] // not every test that includes this reads a body whole
    pub async fn body(&mut self) -> Vec<u8> {
        let mut body = vec![0; self.length().expect("a body of a known length")];
        self.io.read_exact(&mut body).await.unwrap();
        body
    }
}

/// Writes `method path` with `headers` and the JSON `body` on a new connection to
/// `addr`, then reads the response's head.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Head {
    let mut io = BufReader::new(TcpStream::connect(addr).await.unwrap());
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(body);
    io.get_mut().write_all(head.as_bytes()).await.unwrap();
    let mut line = String::new();
    io.read_line(&mut line).await.unwrap();
    let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        io.read_line(&mut line).await.unwrap();
        let Some((name, value)) = line.trim_end().split_once(':') else {
            break;
        };
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    Head {
        io,
        status,
        headers,
    }
}

/// The longest [`Open`] waits for a response, an event or a body.
pub const LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A response being read: its status and headers, then its body as it comes (one JSON
/// body, or server-sent events each holding a message).
#[allow(dead_code)] // not every test that includes this reads events
pub struct Open {
    pub head: Head,
    /// The body is chunked (streamed), else of this length (left to read).
    length: Option<usize>,
    sse: Box<jsonrpc_slice::frame::sse::SseAccumulator<4096>>,
    /// Body bytes read and not yet fed to `sse`.
    unfed: Vec<u8>,
}

#[allow(dead_code)] // not every test that includes this reads events
impl Open {
    /// The value of header `name` (lower-case), if the response has it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.header(name)
    }

    /// The next event's message, or `None` at the body's end.
    pub async fn next(&mut self) -> Option<serde_json::Value> {
        use jsonrpc_slice::frame::sse::SseFeed;
        tokio::time::timeout(LIMIT, async {
            loop {
                match self.sse.feed_event(&self.unfed) {
                    SseFeed::Event { event, remaining } => {
                        let message = serde_json::from_slice(event.data).unwrap();
                        let rest = remaining.len();
                        self.unfed.drain(..self.unfed.len() - rest);
                        return Some(message);
                    }
                    SseFeed::Oversized { .. } => panic!("an event over the reader's 4 KiB"),
                    SseFeed::Consumed => {}
                }
                self.unfed.clear();
                if let Some(length) = self.length {
                    // A body of a known length: read whole, at once.
                    if length == 0 {
                        return None;
                    }
                    self.unfed.resize(length, 0);
                    self.head.io.read_exact(&mut self.unfed).await.unwrap();
                    self.length = Some(0);
                    continue;
                }
                // The next chunk of the body.
                let mut line = String::new();
                self.head.io.read_line(&mut line).await.unwrap();
                let size = usize::from_str_radix(line.trim_end(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                self.head.io.read_exact(&mut chunk).await.unwrap();
                if size == 0 {
                    return None;
                }
                self.unfed.extend_from_slice(&chunk[..size]);
            }
        })
        .await
        .expect("an event in time")
    }

    /// The whole body (not chunked).
    pub async fn body(mut self) -> Vec<u8> {
        tokio::time::timeout(LIMIT, self.head.body()).await.unwrap()
    }
}

/// [`request`], within [`LIMIT`], its body then read as [`Open`] says.
#[allow(dead_code)] // not every test that includes this reads events
pub async fn open(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Open {
    let head = tokio::time::timeout(LIMIT, request(addr, method, path, headers, body))
        .await
        .expect("a response in time");
    Open {
        length: head.length(),
        head,
        sse: Box::new(jsonrpc_slice::frame::sse::SseAccumulator::new()),
        unfed: Vec::new(),
    }
}
