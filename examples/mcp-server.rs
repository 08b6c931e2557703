//! An MCP (Model Context Protocol) server on stdio, with three tools: `add`, `echo`
//! and `countdown` (which reports its progress as it goes).
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
//! Notifications are never answered: the server drops those it has no handler for.
//!
//! Up to 8 requests are in flight at once (the concurrent service): `ping` and other
//! calls are answered while a `countdown` runs. `countdown` takes `n` and an optional
//! `delay_ms` (the time between its steps, default 0) and sends each progress
//! notification as its step ends; `notifications/cancelled` stops it, and the
//! cancelled request gets no reply, as MCP says.
//!
//! Messages up to 64 KiB (a longer line gets `-32600`). The slots and the outbox are
//! allocated once at start-up, and no message allocates. `tests/mcp_server.rs`
//! includes this file to check that, hence the `pub(crate)` items.

use std::io;
use std::process::ExitCode;
use std::time::Duration;

use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::io::tokio::Io;
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::service::concurrent::{Call, Cancellation, ConcurrentServer, Slots};
use jsonrpc_slice::service::ServeError;
use jsonrpc_slice::{async_method_table, Kind, Params, RawJson, ResultWriter, RpcError};
use jsonrpc_slice::{error::code, WriteError};

/// The largest message, in bytes (a longer line is answered `-32600`).
pub(crate) const MAX_FRAME: usize = 64 * 1024;
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
"properties":{"n":{"type":"integer","minimum":0,"maximum":100},
"delay_ms":{"type":"integer","minimum":0,"maximum":60000}},"required":["n"]}}
]}"#;

/// Requests in flight at once.
pub(crate) const SLOTS: usize = 8;
/// The largest reply: the largest echo of the largest message, and the reply around it.
pub(crate) const MAX_REPLY: usize = MAX_FRAME + 1024;

/// The application's state, shared by the calls in flight (none: the tools are pure).
pub(crate) struct Mcp;

/// A handler's context: the state, the call's cancellation, the outbox.
type Ctx<'c> = Call<'c, Mcp>;

async_method_table! {
    pub(crate) Methods<'c, Call<'c, Mcp>> {
        "initialize" => initialize,
        "ping" => ping,
        "tools/list" => tools_list,
        "tools/call" => tools_call,
    }
}

pub(crate) static SERVER: ConcurrentServer<Methods> =
    ConcurrentServer::new(Methods).with_cancellation(Cancellation::MCP);

async fn initialize<'p>(
    _: &mut Ctx<'_>,
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

async fn ping<'p>(
    _: &mut Ctx<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    out.begin_object()?;
    Ok(out.end()?)
}

async fn tools_list<'p>(
    _: &mut Ctx<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    // One page: `params.cursor` is never needed. (`raw` drops the line breaks.)
    Ok(out.raw(json(TOOLS)?)?)
}

async fn tools_call<'p>(
    call: &mut Ctx<'_>,
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
        let delay = match arg("delay_ms") {
            None => Some(0),
            Some(d) => int(Some(d)).filter(|d| (0..=60_000).contains(d)),
        };
        let Some(delay) = delay else {
            return Ok(tool_error(
                out,
                "argument `delay_ms` must be an integer from 0 to 60000",
            )?);
        };
        // A string or a number, sent back as it came (the same type).
        let token = p.get("_meta").and_then(|m| m.get("progressToken"));
        let token = token.filter(|t| matches!(t.kind(), Kind::String | Kind::Number));
        for i in 1..=n {
            // Each step takes `delay_ms`; the loop serves other calls meanwhile, and
            // a cancellation drops this future here.
            if delay > 0 {
                tokio::time::sleep(Duration::from_millis(delay as u64)).await;
            }
            if let Some(token) = token {
                call.notify("notifications/progress", |w| {
                    w.begin_object()?;
                    w.key("progressToken")?;
                    w.raw(token)?;
                    w.key("progress")?;
                    w.i64(i)?;
                    w.key("total")?;
                    w.i64(n)?;
                    w.end()
                })
                .await
                .map_err(|_| RpcError::new(code::INTERNAL_ERROR, "Internal error: outbox full"))?;
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

/// The memory of the loop, allocated once: the slots, the outbox, the framer and the
/// read chunk.
pub(crate) struct Memory {
    pub(crate) slots: Slots<SLOTS, MAX_FRAME, MAX_REPLY>,
    pub(crate) outbox: SharedOutbox<{ 64 * 1024 }>,
    pub(crate) framer: LineAccumulator<MAX_FRAME>,
    pub(crate) chunk: [u8; 16 * 1024],
}

impl Memory {
    pub(crate) fn new() -> Box<Self> {
        Box::new(Self {
            slots: Slots::new(),
            outbox: SharedOutbox::new(),
            framer: LineAccumulator::new(),
            chunk: [0; 16 * 1024],
        })
    }
}

fn main() -> ExitCode {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let Ok(runtime) = runtime else {
        eprintln!("mcp-server: cannot start the runtime");
        return ExitCode::FAILURE;
    };
    eprintln!(
        "mcp-server {}: serving MCP on stdio",
        env!("CARGO_PKG_VERSION")
    );
    let mut memory = Memory::new();
    let Memory {
        slots,
        outbox,
        framer,
        chunk,
    } = &mut *memory;
    let (mut stdin, mut stdout) = (Io(tokio::io::stdin()), Io(tokio::io::stdout()));
    let served =
        runtime.block_on(SERVER.serve(&Mcp, framer, slots, outbox, chunk, &mut stdin, &mut stdout));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        // The client went away mid-write: nothing left to answer.
        Err(ServeError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(ServeError::Read(e) | ServeError::Write(e)) => {
            eprintln!("mcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}
