//! The `note` tool on jsonrpc-slice: an MCP server on stdio written as
//! `examples/mcp-server.rs` is (the concurrent service, 8 calls in flight, one
//! message per line, the memory allocated once at start-up), with one tool.
//!
//! With `--pipes`, standard input and output are read and written as non-blocking
//! pipes on tokio's reactor (`jsonrpc_slice::io::tokio::stdio`, as the example has
//! them; rmcp's `stdio_pipes`) instead of through `tokio::io::stdin` and `stdout`,
//! which hand every read and write to a thread of tokio's blocking pool.
//!
//! With `--http ADDR`, Streamable HTTP instead (`mod http`), with `--json` for JSON
//! replies, `--keep` to keep hyper's state for a waiting connection (`release_after`
//! 60 s instead of 1 ms).
//!
//! `note` takes `{"text": string}` (typed: decoded into `Note`) and answers one text
//! content, `noted: TEXT`. The tool's code runs inside `mcp_bench::handler`, so what
//! it allocates is counted as the handler's.

use std::borrow::Cow;
use std::io;
use std::process::ExitCode;

use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::io::tokio::{stdio, Io};
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Slots};
use jsonrpc_slice::service::ServeError;
use jsonrpc_slice::{async_method_table, Params, RawJson, ResultWriter, RpcError};
use jsonrpc_slice::{error::code, WriteError};

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

/// Streamable HTTP at `http://ADDR/mcp`: the library's `HttpServer` (the same
/// methods, 8 calls in flight) with a gate for MCP's rules, written as
/// `examples/mcp-server.rs` writes its own but for 2025-11-25 only: `Host` and
/// `Origin` checked (`403`), `POST /mcp` only, `202` for a notification; with `sse`,
/// sessions (an `Mcp-Session-Id` for each `initialize`, required after it: `400`
/// without, `404` unknown) and replies as server-sent events, as rmcp's defaults; else
/// no sessions and JSON replies, as rmcp's `json_response`, which is stateless.
mod http {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;

    use hyper::header::{HeaderName, HeaderValue};
    use hyper::{Method, StatusCode};
    use jsonrpc_slice::http::gate::{local_origin, Head, Verdict};
    use jsonrpc_slice::http::{HttpServer, Settings};
    use jsonrpc_slice::RawJson;

    const SESSION: HeaderName = HeaderName::from_static("mcp-session-id");
    const MAX_SESSIONS: usize = 1024;

    /// The sessions open: at most `MAX_SESSIONS`, the oldest closed for a new one.
    struct Sessions {
        open: Mutex<Vec<u64>>,
        next: AtomicU64,
        /// Mixed into the ids, so that they cannot be guessed from the count.
        key: u64,
    }

    impl Sessions {
        fn open(&self) -> u64 {
            let n = self.next.fetch_add(1, Ordering::Relaxed);
            let id = (n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.key).rotate_left(29);
            let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
            if open.len() >= MAX_SESSIONS {
                open.remove(0);
            }
            open.push(id);
            id
        }

        fn find(&self, id: u64) -> bool {
            let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
            open.contains(&id)
        }
    }

    struct Gate {
        sessions: Option<Sessions>,
    }

    impl Gate {
        fn verdict(&self, head: &Head<'_>) -> Verdict {
            if !local_origin(head.headers) {
                return Verdict::respond(StatusCode::FORBIDDEN, "");
            }
            if head.uri.path() != "/mcp" {
                return Verdict::respond(StatusCode::NOT_FOUND, "");
            }
            let answer = Verdict::answer().no_reply(StatusCode::ACCEPTED);
            // Not POST: the library's `405`.
            let (&Method::POST, Some(sessions)) = (head.method, &self.sessions) else {
                return answer;
            };
            let answer = answer.events();
            let Ok(message) = RawJson::new(head.body) else {
                return answer; // the codec's -32700
            };
            let method = message.get("method").and_then(|m| m.as_str());
            if method.is_some_and(|m| m.eq_str("initialize")) {
                let id = HeaderValue::from_str(&format!("{:016x}", sessions.open()));
                return match id {
                    Ok(id) => answer.header(SESSION, id),
                    Err(_) => Verdict::respond(StatusCode::INTERNAL_SERVER_ERROR, ""),
                };
            }
            let session = head.headers.get(&SESSION).and_then(|v| v.to_str().ok());
            match session.and_then(|s| u64::from_str_radix(s, 16).ok()) {
                Some(s) if sessions.find(s) => answer,
                Some(_) => Verdict::respond(StatusCode::NOT_FOUND, ""),
                None => Verdict::respond(StatusCode::BAD_REQUEST, ""),
            }
        }
    }

    pub(super) async fn serve(addr: &str, sse: bool, keep: bool) -> std::io::Result<()> {
        use std::hash::{BuildHasher, Hasher};
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let mut key = std::collections::hash_map::RandomState::new().build_hasher();
        key.write_u64(0);
        let gate = Gate {
            sessions: sse.then(|| Sessions {
                open: Mutex::new(Vec::with_capacity(MAX_SESSIONS)),
                next: AtomicU64::new(1),
                key: key.finish(),
            }),
        };
        let server = HttpServer::concurrent::<{ super::SLOTS }, _>(&super::SERVER, || super::Notes)
            .with_settings(Settings {
                max_body: super::MAX_FRAME,
                max_reply: super::MAX_REPLY,
                // `--keep`: hyper's state for a connection kept while it waits, as
                // axum keeps it (the default drops it after 1 ms without a request).
                release_after: match keep {
                    true => std::time::Duration::from_secs(60),
                    false => Settings::default().release_after,
                },
                ..Settings::default()
            })
            .with_gate(move |head| gate.verdict(head));
        eprintln!("listening on http://{}/mcp", listener.local_addr()?);
        server.serve(listener).await
    }
}

fn main() -> ExitCode {
    mcp_bench::report_on_sigusr1();
    let args: Vec<String> = std::env::args().collect();
    if let Some(addr) = args
        .iter()
        .position(|a| a == "--http")
        .and_then(|i| args.get(i + 1))
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build();
        let Ok(runtime) = runtime else {
            eprintln!("slice-note: cannot start the runtime");
            return ExitCode::FAILURE;
        };
        let sse = !args.iter().any(|a| a == "--json");
        let keep = args.iter().any(|a| a == "--keep");
        return match runtime.block_on(http::serve(addr, sse, keep)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("slice-note: {e}");
                ExitCode::FAILURE
            }
        };
    }
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
        let (stdin, stdout) = runtime.block_on(async { (stdio::stdin(), stdio::stdout()) });
        if !(stdin.is_pipe() && stdout.is_pipe()) {
            eprintln!("slice-note: --pipes needs stdin and stdout to be pipes");
            return ExitCode::FAILURE;
        }
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
