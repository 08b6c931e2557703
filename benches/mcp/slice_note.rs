//! The `note` tool on jsonrpc-slice: an MCP server on stdio written as
//! `examples/mcp-server.rs` is (the concurrent service, 8 calls in flight, one
//! message per line, the memory allocated once at start-up), with one tool.
//!
//! With `--pipes`, standard input and output are read and written as non-blocking
//! pipes on tokio's reactor (as rmcp's `stdio_pipes`) instead of through
//! `tokio::io::stdin` and `stdout` (the example's), which hand every read and write to
//! a thread of tokio's blocking pool.
//!
//! `note` takes `{"text": string}` (typed: decoded into `Note`) and answers one text
//! content, `noted: TEXT`. The tool's code runs inside `mcp_bench::handler`, so what
//! it allocates is counted as the handler's.

use std::borrow::Cow;
use std::io;
use std::os::fd::AsFd;
use std::process::ExitCode;

use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::io::tokio::Io;
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Slots};
use jsonrpc_slice::service::ServeError;
use jsonrpc_slice::{async_method_table, Params, RawJson, ResultWriter, RpcError};
use jsonrpc_slice::{error::code, WriteError};
use tokio::net::unix::pipe;

#[global_allocator]
static COUNTING: mcp_bench::Counting = mcp_bench::Counting;

const MAX_FRAME: usize = 64 * 1024;
const MAX_REPLY: usize = MAX_FRAME + 1024;
const SLOTS: usize = 8;
const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

const TOOLS: &[u8] = br#"{"tools":[{"name":"note","description":"Takes a note and says so.",
"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}"#;

struct Notes;

type Ctx<'c> = Call<'c, Notes>;

async_method_table! {
    Methods<'c, Call<'c, Notes>> {
        "initialize" => initialize,
        "ping" => ping,
        "tools/list" => tools_list,
        "tools/call" => tools_call,
    }
}

static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);

/// The note tool's arguments.
#[derive(serde::Deserialize)]
struct Note<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

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
    out.str("jsonrpc-slice-note")?;
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
    Ok(out.raw(json(TOOLS)?)?)
}

async fn tools_call<'p>(
    _: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    mcp_bench::handler(|| {
        let name = p.get("name").and_then(|n| n.as_str());
        let name = name.ok_or(RpcError::new(
            code::INVALID_PARAMS,
            "Invalid params: `name` must be a string",
        ))?;
        if !name.eq_str("note") {
            return Err(out.error(code::INVALID_PARAMS, format_args!("Unknown tool: {name}"))?);
        }
        let args = p.get("arguments").unwrap_or(RawJson::NULL);
        match args.decode_with_scratch::<Note>(&mut [0; 256]) {
            Ok(note) => text(out, false, |o| {
                o.string_start()?;
                o.string_push("noted: ")?;
                o.string_push(&note.text)?;
                o.string_end()
            })?,
            Err(e) => text(out, true, |o| o.display(e))?,
        }
        Ok(())
    })
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

fn json(bytes: &[u8]) -> Result<RawJson<'_>, RpcError<'static>> {
    RawJson::new(bytes).map_err(|_| RpcError::internal())
}

struct Memory {
    slots: Slots<SLOTS, MAX_FRAME, MAX_REPLY>,
    outbox: SharedOutbox<{ 64 * 1024 }>,
    framer: LineAccumulator<MAX_FRAME>,
    chunk: [u8; 16 * 1024],
}

/// Standard input and output as tokio pipes (`None` unless both are pipes). Within
/// the runtime: the pipes register with its reactor.
fn pipes() -> Option<(pipe::Receiver, pipe::Sender)> {
    let stdin = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let stdout = io::stdout().as_fd().try_clone_to_owned().ok()?;
    let stdin = pipe::Receiver::from_owned_fd(stdin).ok()?;
    let stdout = pipe::Sender::from_owned_fd(stdout).ok()?;
    Some((stdin, stdout))
}

fn main() -> ExitCode {
    mcp_bench::report_on_sigusr1();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let Ok(runtime) = runtime else {
        eprintln!("slice-note: cannot start the runtime");
        return ExitCode::FAILURE;
    };
    let mut memory = Box::new(Memory {
        slots: Slots::new(),
        outbox: SharedOutbox::new(),
        framer: LineAccumulator::new(),
        chunk: [0; 16 * 1024],
    });
    let Memory {
        slots,
        outbox,
        framer,
        chunk,
    } = &mut *memory;
    let served = if std::env::args().any(|a| a == "--pipes") {
        // The standard streams as non-blocking pipes on tokio's reactor, as rmcp's
        // `stdio_pipes` has them: no blocking-pool thread between the loop and a read.
        let Some((stdin, stdout)) = runtime.block_on(async { pipes() }) else {
            eprintln!("slice-note: --pipes needs stdin and stdout to be pipes");
            return ExitCode::FAILURE;
        };
        let (mut stdin, mut stdout) = (Io(stdin), Io(stdout));
        runtime.block_on(SERVER.serve(
            &Notes,
            framer,
            slots,
            outbox,
            chunk,
            &mut stdin,
            &mut stdout,
        ))
    } else {
        let (mut stdin, mut stdout) = (Io(tokio::io::stdin()), Io(tokio::io::stdout()));
        runtime.block_on(SERVER.serve(
            &Notes,
            framer,
            slots,
            outbox,
            chunk,
            &mut stdin,
            &mut stdout,
        ))
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(ServeError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(ServeError::Read(e) | ServeError::Write(e)) => {
            eprintln!("slice-note: {e}");
            ExitCode::FAILURE
        }
    }
}
