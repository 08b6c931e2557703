//! The `note` tool on the official Rust MCP SDK (rmcp), written as its docs and
//! examples write a tool server: a `#[tool_router]` with a typed `#[tool]`, served on
//! stdio (`rmcp::transport::stdio`, or `stdio_pipes` with `--pipes`), on a
//! multi-threaded tokio runtime (`#[tokio::main]`'s; `--current-thread` for tokio's
//! single-threaded one, as the jsonrpc-slice server runs).
//!
//! With `--http ADDR`, Streamable HTTP instead (`serve_http`), with `--json` for
//! JSON replies.
//!
//! `note` takes `{"text": string}` (typed: decoded into `Note`) and answers one text
//! content, `noted: TEXT`. The tool's code runs inside `mcp_bench::handler`, so what
//! it allocates is counted as the handler's.

use axum::serve::ListenerExt;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};

#[global_allocator]
static COUNTING: mcp_bench::Counting = mcp_bench::Counting;

/// The note tool's arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Note {
    /// The note.
    text: String,
}

#[derive(Debug, Clone)]
struct Notes {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Notes {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Takes a note and says so.")]
    fn note(&self, Parameters(Note { text }): Parameters<Note>) -> String {
        mcp_bench::handler(|| format!("noted: {text}"))
    }
}

// The router built once and kept, rather than `#[tool_handler]`'s default
// `Self::tool_router()`, which builds it again for every call.
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Streamable HTTP at `http://ADDR/mcp`, served as rmcp's docs and tests serve it (an
/// axum router nesting `StreamableHttpService`): with sessions and SSE replies (its
/// defaults), or with `json` stateless with JSON replies (`legacy_session_mode`
/// off, `json_response` on: rmcp answers JSON only without sessions).
async fn serve_http(addr: &str, json: bool) -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!json)
        .with_json_response(json);
    let service: StreamableHttpService<Notes, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(Notes::new()), Default::default(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    // TCP_NODELAY, which axum leaves off: an SSE reply goes out in several small
    // writes, and with Nagle's algorithm each waited for the client's delayed ACK
    // (~40 ms a call).
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    eprintln!("listening on http://{local}/mcp");
    axum::serve(listener, router).await?;
    Ok(())
}

async fn serve(pipes: bool) -> Result<(), Box<dyn std::error::Error>> {
    let service = if pipes {
        Notes::new().serve(rmcp::transport::stdio_pipes()).await?
    } else {
        Notes::new().serve(rmcp::transport::stdio()).await?
    };
    service.waiting().await?;
    Ok(())
}

fn main() -> std::process::ExitCode {
    mcp_bench::report_on_sigusr1();
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let runtime = if has("--current-thread") {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    }
    .enable_all()
    .build()
    .expect("runtime");
    let http = args
        .iter()
        .position(|a| a == "--http")
        .and_then(|i| args.get(i + 1));
    let served = match http {
        Some(addr) => runtime.block_on(serve_http(addr, has("--json"))),
        None => runtime.block_on(serve(has("--pipes"))),
    };
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp-note: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
