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
