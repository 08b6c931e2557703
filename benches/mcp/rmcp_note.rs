//! The `note` tool on the official Rust MCP SDK (rmcp), written as its docs and
//! examples write a tool server: a `#[tool_router]` with a typed `#[tool]`, served on
//! stdio (`rmcp::transport::stdio`, or `stdio_pipes` with `--pipes`), on a
//! multi-threaded tokio runtime (`#[tokio::main]`'s; `--current-thread` for tokio's
//! single-threaded one, as the jsonrpc-slice server runs).
//!
//! `note` takes `{"text": string}` (typed: decoded into `Note`) and answers one text
//! content, `noted: TEXT`. The tool's code runs inside `mcp_bench::handler`, so what
//! it allocates is counted as the handler's.

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
    match runtime.block_on(serve(has("--pipes"))) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp-note: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
