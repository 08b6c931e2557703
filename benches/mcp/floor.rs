//! The floor under any MCP server on a pipe: no JSON-RPC and no MCP, a blocking loop
//! that reads a line, finds its id by searching for `"id":`, and writes a fixed
//! reply around it (a fixed `initialize` result for the first line), flushing when no
//! more input is buffered. What the pipe, the kernel and this driver cost a call,
//! measured the same way as the servers.

use std::io::{self, BufRead, Write};
use std::os::fd::AsFd;

#[global_allocator]
static COUNTING: mcp_bench::Counting = mcp_bench::Counting;

fn main() {
    mcp_bench::report_on_sigusr1();
    let noted = mcp_bench::noted();
    let stdin = io::stdin().as_fd().try_clone_to_owned().expect("stdin");
    let mut input = io::BufReader::with_capacity(64 * 1024, std::fs::File::from(stdin));
    let mut output = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
            return;
        }
        let Some(at) = line.windows(5).position(|w| w == b"\"id\":") else {
            continue; // a notification
        };
        let id = &line[at + 5..];
        let id = &id[..id
            .iter()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(id.len())];
        let written = if line.windows(12).any(|w| w == b"\"initialize\"") {
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
