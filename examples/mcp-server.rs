//! An MCP (Model Context Protocol) server on stdio, with three tools: `add`, `echo`
//! and `countdown` (which reports its progress).
//!
//! The stdio transport of MCP: one JSON-RPC message per line on stdin, one per line
//! on stdout, logs on stderr only; the server exits (status 0) when stdin closes.
//!
//! ```sh
//! cargo run --release --example mcp-server
//! ```
//!
//! It answers `initialize` (with the client's protocol version when it knows it, else
//! its latest), `ping`, `tools/list` and `tools/call`; other requests get `-32601`.
//! Notifications (`notifications/initialized`, `notifications/cancelled`, any other)
//! are never answered: the server drops those it has no handler for.
//!
//! Messages up to 64 KiB (a longer line gets `-32600`). The buffers and the outbox
//! (where `countdown` queues its progress notifications, sent before its reply) are
//! allocated once at start-up, and no message allocates. `tests/mcp_server.rs` includes this file to
//! check that, hence the `pub(crate)` items.

use std::io;
use std::process::ExitCode;

use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::outbox::Outbox;
use jsonrpc_slice::service::Service;
use jsonrpc_slice::{error::code, WriteError};
use jsonrpc_slice::{method_table, std_io, Kind, Params, RawJson, ResultWriter, RpcError, Server};

/// The largest message, in bytes (a longer line is answered `-32600`).
const MAX_FRAME: usize = 64 * 1024;
/// The protocol versions the server speaks, oldest first; the last one is its answer
/// to a version it does not know.
const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The tools, as `tools/list` gives them.
const TOOLS: &[u8] = br#"{"tools":[
{"name":"add","description":"Adds two integers.","inputSchema":{"type":"object",
"properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}},
{"name":"echo","description":"Returns the text it is given.","inputSchema":{"type":"object",
"properties":{"text":{"type":"string"}},"required":["text"]}},
{"name":"countdown","description":"Counts to n, reporting progress at each step, then says done.",
"inputSchema":{"type":"object",
"properties":{"n":{"type":"integer","minimum":0,"maximum":100}},"required":["n"]}}
]}"#;

/// The handlers' context: where they queue progress notifications.
pub(crate) struct Mcp {
    pub(crate) outbox: Outbox<{ 64 * 1024 }>,
}

pub(crate) static SERVER: Server<Mcp> = Server::new(method_table! {
    "initialize" => initialize,
    "ping" => ping,
    "tools/list" => tools_list,
    "tools/call" => tools_call,
});

fn initialize<'p>(
    _: &mut Mcp,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let asked = p.get("protocolVersion").and_then(|v| v.as_str());
    let known = VERSIONS.iter().find(|v| asked.is_some_and(|a| a.eq_str(v)));
    out.begin_object()?;
    out.key("protocolVersion")?;
    out.str(known.unwrap_or(&VERSIONS[VERSIONS.len() - 1]))?;
    out.key("capabilities")?;
    out.raw(json(br#"{"tools":{"listChanged":false}}"#)?)?;
    out.key("serverInfo")?;
    out.begin_object()?;
    out.key("name")?;
    out.str("jsonrpc-slice-mcp")?;
    out.key("version")?;
    out.str(env!("CARGO_PKG_VERSION"))?;
    out.end()?;
    Ok(out.end()?)
}

fn ping<'p>(_: &mut Mcp, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    out.begin_object()?;
    Ok(out.end()?)
}

fn tools_list<'p>(
    _: &mut Mcp,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    // One page: `params.cursor` is never needed. (`raw` drops the line breaks.)
    Ok(out.raw(json(TOOLS)?)?)
}

fn tools_call<'p>(
    ctx: &mut Mcp,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    if p.is_notification() {
        return Ok(()); // nobody waits for it: no progress either
    }
    let name = p.get("name").and_then(|n| n.as_str());
    let name = name.ok_or(RpcError::new(
        code::INVALID_PARAMS,
        "Invalid params: `name` must be a string",
    ))?;
    let args = p.get("arguments");
    let arg = |key| args.and_then(|a| a.get(key));
    if name.eq_str("add") {
        match (int(arg("a")), int(arg("b"))) {
            (Some(a), Some(b)) => text(out, false, |o| o.display(i128::from(a) + i128::from(b)))?,
            (None, _) => tool_error(out, "argument `a` must be a 64-bit integer")?,
            (_, None) => tool_error(out, "argument `b` must be a 64-bit integer")?,
        }
    } else if name.eq_str("echo") {
        match arg("text").filter(|t| t.kind() == Kind::String) {
            // The string as the client escaped it: the same text.
            Some(t) => text(out, false, |o| o.raw(t))?,
            None => tool_error(out, "argument `text` must be a string")?,
        }
    } else if name.eq_str("countdown") {
        let Some(n) = int(arg("n")).filter(|n| (0..=100).contains(n)) else {
            return Ok(tool_error(
                out,
                "argument `n` must be an integer from 0 to 100",
            )?);
        };
        // A string or a number, sent back as it came (the same type).
        let token = p.get("_meta").and_then(|m| m.get("progressToken"));
        if let Some(token) = token.filter(|t| matches!(t.kind(), Kind::String | Kind::Number)) {
            for i in 1..=n {
                ctx.outbox
                    .notify("notifications/progress", |w| {
                        w.begin_object()?;
                        w.key("progressToken")?;
                        w.raw(token)?;
                        w.key("progress")?;
                        w.i64(i)?;
                        w.key("total")?;
                        w.i64(n)?;
                        w.end()
                    })
                    .map_err(|_| {
                        RpcError::new(code::INTERNAL_ERROR, "Internal error: outbox full")
                    })?;
            }
        }
        text(out, false, |o| o.str("done"))?;
    } else {
        // An unknown tool is a protocol error (not a tool result), naming the tool.
        return Err(out.error(code::INVALID_PARAMS, format_args!("Unknown tool: {name}"))?);
    }
    Ok(())
}

/// A tool's failure: a result with `isError`, saying why.
fn tool_error(out: &mut ResultWriter<'_>, why: &str) -> Result<(), WriteError> {
    text(out, true, |o| o.str(why))
}

/// A tool's result: one text item, written by `write`; `isError` when the tool failed.
fn text(
    out: &mut ResultWriter<'_>,
    is_error: bool,
    write: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    out.begin_object()?;
    out.key("content")?;
    out.begin_array()?;
    out.begin_object()?;
    out.key("type")?;
    out.str("text")?;
    out.key("text")?;
    write(out)?;
    out.end()?;
    out.end()?;
    if is_error {
        out.key("isError")?;
        out.bool(true)?;
    }
    out.end()
}

/// An integer argument, as JSON Schema counts them: `7`, and also `7.0` or `7e0` (up
/// to 2^53, where every integer is exact).
fn int(v: Option<RawJson<'_>>) -> Option<i64> {
    let v = v?;
    let exact = |f: &f64| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0;
    v.as_i64()
        .or_else(|| v.as_f64().filter(exact).map(|f| f as i64))
}

/// A JSON constant of this file.
fn json(bytes: &[u8]) -> Result<RawJson<'_>, RpcError<'static>> {
    RawJson::new(bytes).map_err(|_| RpcError::internal())
}

impl Mcp {
    pub(crate) fn new() -> Self {
        Self {
            outbox: Outbox::new(),
        }
    }
}

fn main() -> ExitCode {
    let mut framer = Box::new(LineAccumulator::<MAX_FRAME>::new());
    let mut ctx = Box::new(Mcp::new());
    let mut chunk = vec![0u8; 16 * 1024];
    // Room for the largest echo of the largest message, and the reply around it.
    let mut out = vec![0u8; MAX_FRAME + 1024];
    let mut service = Service::new(&SERVER, framer.as_mut(), &mut chunk, &mut out)
        .with_outbox(|c: &mut Mcp| &mut c.outbox);
    eprintln!(
        "mcp-server {}: serving MCP on stdio",
        env!("CARGO_PKG_VERSION")
    );
    let (mut stdin, mut stdout) = (io::stdin().lock(), io::stdout().lock());
    match std_io::serve_split(&mut service, &mut ctx, &mut stdin, &mut stdout) {
        Ok(()) => ExitCode::SUCCESS,
        // The client went away mid-write: nothing left to answer.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}
