//! The floor under any MCP server on a pipe: no JSON-RPC and no MCP, a blocking loop
//! that reads a line, finds its id by searching for `"id":`, and writes a fixed
//! reply around it (a fixed `initialize` result for the first line), flushing when no
//! more input is buffered. What the pipe, the kernel and this driver cost a call,
//! measured the same way as the servers.
//!
//! With `--http ADDR` (and `--sse` for `text/event-stream` replies), the same over
//! HTTP: hyper's HTTP/1 server on tokio's multi-threaded runtime (as both servers
//! run it), each POST's body read whole, its id found the same way, a fixed reply
//! sent (202 for a body without an id). What hyper, tokio, the kernel and the driver
//! cost a call over Streamable HTTP, under any MCP server built on them.

use std::io::{self, BufRead, Write};
use std::os::fd::AsFd;

#[global_allocator]
static COUNTING: mcp_bench::Counting = mcp_bench::Counting;

fn main() {
    mcp_bench::report_on_sigusr1();
    let noted = mcp_bench::noted();
    let args: Vec<String> = std::env::args().collect();
    if let Some(addr) = args
        .iter()
        .position(|a| a == "--http")
        .and_then(|i| args.get(i + 1))
    {
        let sse = args.iter().any(|a| a == "--sse");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime");
        return runtime.block_on(http::serve(addr, sse, noted));
    }
    let stdin = io::stdin().as_fd().try_clone_to_owned().expect("stdin");
    let mut input = io::BufReader::with_capacity(64 * 1024, std::fs::File::from(stdin));
    let mut output = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
            return;
        }
        let Some(id) = id_of(&line) else {
            continue; // a notification
        };
        let written = if is_initialize(&line) {
            output.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":").and_then(|()| output.write_all(id)).and_then(|()| {
                output.write_all(
                    br#","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0"}}}"#,
                )
            })
        } else {
            output
                .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":")
                .and_then(|()| output.write_all(id))
                .and_then(|()| {
                    write!(
                        output,
                        r#","result":{{"content":[{{"type":"text","text":"{noted}"}}]}}}}"#
                    )
                })
        };
        let ended = written.and_then(|()| output.write_all(b"\n"));
        let flushed = match input.buffer().is_empty() {
            true => ended.and_then(|()| output.flush()),
            false => ended,
        };
        if flushed.is_err() {
            return;
        }
    }
}

/// The digits after the first `"id":` of `message`, if it has one.
fn id_of(message: &[u8]) -> Option<&[u8]> {
    let at = message.windows(5).position(|w| w == b"\"id\":")?;
    let id = &message[at + 5..];
    Some(
        &id[..id
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(id.len())],
    )
}

fn is_initialize(message: &[u8]) -> bool {
    message.windows(12).any(|w| w == b"\"initialize\"")
}

mod http {
    use std::convert::Infallible;

    use http_body_util::{BodyExt, Full};
    use hyper::body::{Bytes, Incoming};
    use hyper::{Request, Response};
    use hyper_util::rt::TokioIo;

    /// Serves `http://ADDR/mcp` until the process is stopped.
    pub async fn serve(addr: &str, sse: bool, noted: String) {
        let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
        let local = listener.local_addr().expect("address");
        eprintln!("listening on http://{local}/mcp");
        let noted: &'static str = Box::leak(noted.into_boxed_str());
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service =
                    hyper::service::service_fn(move |request| answer(request, sse, noted));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    }

    async fn answer(
        request: Request<Incoming>,
        sse: bool,
        noted: &str,
    ) -> Result<Response<Full<Bytes>>, Infallible> {
        let body = match request.into_body().collect().await {
            Ok(body) => body.to_bytes(),
            Err(_) => Bytes::new(),
        };
        let Some(id) = super::id_of(&body) else {
            let accepted = Response::builder()
                .status(202)
                .body(Full::new(Bytes::new()));
            return Ok(accepted.expect("a response"));
        };
        let id = String::from_utf8_lossy(id);
        let message = if super::is_initialize(&body) {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"{}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"floor","version":"0"}}}}}}"#,
                mcp_bench::PROTOCOL_VERSION
            )
        } else {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{noted}"}}]}}}}"#
            )
        };
        let (kind, body) = match sse {
            true => (
                "text/event-stream",
                format!("event: message\ndata: {message}\n\n"),
            ),
            false => ("application/json", message),
        };
        let reply = Response::builder()
            .header("content-type", kind)
            .body(Full::new(Bytes::from(body)));
        Ok(reply.expect("a response"))
    }
}
