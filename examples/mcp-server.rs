//! An MCP (Model Context Protocol) server, over stdio or Streamable HTTP, speaking the
//! revisions up to 2025-11-25 (an `initialize` handshake; over HTTP, a session) and
//! 2026-07-28 (stateless: every request carries its protocol version and the client's
//! capabilities in `params._meta`), each request by the rules of its own.
//!
//! ```sh
//! cargo run --release --example mcp-server                         # stdio
//! cargo run --release --example mcp-server -- --http 127.0.0.1:3000  # http://127.0.0.1:3000/mcp
//! ```
//!
//! **stdio**: one JSON-RPC message per line on stdin, one per line on stdout, logs on
//! stderr only; the server exits (status 0) when stdin closes. Up to 8 requests are in
//! flight at once (the concurrent service): `ping` and other calls are answered while
//! a `countdown` runs, `notifications/cancelled` stops a call (which then gets no
//! reply), and a tool may ask the client (sampling, elicitation) and await its answer.
//!
//! **Streamable HTTP** (`--http ADDR`, the library's `HttpServer` with a gate for MCP's
//! rules): `POST /mcp` answered with one JSON body or a `text/event-stream` (with
//! `--json`, always JSON), `202` for a notification or a response; `Host` and `Origin`
//! must name this machine (else `403`); 2025-11-25 requests belong to the session
//! `initialize` opened (`Mcp-Session-Id`; none is `400`, an unknown or deleted one is
//! `404`; `DELETE` ends it; there is no `GET` stream: `405`); 2026-07-28 requests are
//! checked against their headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! which may be `=?base64?…?=`): a mismatch is `400` with `-32020`, a missing `_meta`
//! member `400` with `-32602`, a version it does not speak `400` with `-32022`. A
//! request over HTTP cannot wait for the client's answer (the answer would come in
//! another `POST`): sampling and elicitation there send no request and answer (a tool
//! error) that they are not available.
//!
//! The tools: `add`, `echo`, `countdown` (progress at each step), and the fixtures of
//! MCP's conformance suite (`test_*`), with its resources and prompts. Their input and
//! output schemas are derived from the argument and result types (`schemars`), and
//! `tools/list`, `resources/list`, `prompts/list` and `server/discover` are written
//! once at start-up, not per request.
//!
//! Messages up to 64 KiB (a longer line is answered `-32600`); no batches (MCP has had
//! none since 2025-06-18: a batch is one `-32600`, `"id":null`). Over stdio the slots
//! and the outbox are allocated once at start-up, and no message allocates.
//! `tests/mcp_server.rs` includes this file to check that, hence the `pub(crate)`
//! items.

use std::collections::VecDeque;
use std::io;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use jsonrpc_slice::envelope::Outcome;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::io::tokio::Io;
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::raw::Step::Key;
use jsonrpc_slice::service::concurrent::{Call, Cancellation, ConcurrentServer, Slots};
use jsonrpc_slice::service::ServeError;
use jsonrpc_slice::{async_method_table, Kind, Limits, Params, RawJson, ResultWriter, RpcError};
use jsonrpc_slice::{error::code, WriteError};
use schemars::JsonSchema;
use serde_json::{json, Value};

/// The largest message, in bytes (a longer line is answered `-32600`).
pub(crate) const MAX_FRAME: usize = 64 * 1024;
/// The revisions with a handshake the server speaks, oldest first; the last one is its
/// answer to a version it does not know.
const VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The stateless revision.
const STATELESS: &str = "2026-07-28";

/// The `_meta` members of a 2026-07-28 request.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// MCP's own error codes (2026-07-28).
const HEADER_MISMATCH: i32 = -32020;
const UNSUPPORTED_VERSION: i32 = -32022;
/// A resource that does not exist, before 2026-07-28 (then `-32602`).
const RESOURCE_NOT_FOUND: i32 = -32002;

/// Requests in flight at once.
pub(crate) const SLOTS: usize = 8;
/// The largest reply: the largest echo of the largest message, and the reply around it.
pub(crate) const MAX_REPLY: usize = MAX_FRAME + 1024;

/// A 1×1 PNG and a tiny WAV: the conformance suite's image and audio.
const IMAGE: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const AUDIO: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

// ---- The tools' argument and result types: their schemas are derived from these.

/// `add`'s arguments.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)] // read field by field (`tools_call`); the type gives the schema
pub(crate) struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

/// `add`'s structured result.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
pub(crate) struct AddResult {
    /// `a + b` (beyond 64 bits when it must be).
    sum: i128,
}

/// `echo`'s arguments.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
pub(crate) struct EchoArgs {
    /// The text to return.
    text: String,
}

/// `countdown`'s arguments.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
pub(crate) struct CountdownArgs {
    /// How many steps.
    #[schemars(range(min = 0, max = 100))]
    n: u8,
    /// The time between steps, in milliseconds (default 0).
    #[schemars(range(min = 0, max = 60000))]
    delay_ms: Option<u32>,
}

impl CountdownArgs {
    /// Within the ranges its schema states.
    #[allow(dead_code)] // tests/mcp_server.rs
    pub(crate) fn in_range(&self) -> bool {
        self.n <= 100 && self.delay_ms.map_or(true, |d| d <= 60_000)
    }
}

/// `test_sampling`'s arguments.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
pub(crate) struct SamplingArgs {
    /// The prompt to send to the LLM.
    prompt: String,
}

/// `test_elicitation`'s arguments.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
pub(crate) struct ElicitationArgs {
    /// The message to show the user.
    message: String,
}

/// A tool without arguments.
#[derive(JsonSchema, serde::Deserialize)]
pub(crate) struct NoArgs {}

/// `json_schema_2020_12_tool`'s input schema, as the suite gives it (SEP-1613: kept as
/// written, `$schema`, `$defs` and `additionalProperties` included).
fn schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": false
    })
}

/// A type's JSON Schema, as `inputSchema` or `outputSchema` (an object schema; its
/// `title` dropped, the tool names it).
pub(crate) fn schema<T: JsonSchema>() -> Value {
    let mut schema = schemars::schema_for!(T).to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("title");
        object.remove("description");
        object.entry("properties").or_insert_with(|| json!({}));
    }
    schema
}

/// The tools, as `tools/list` gives them.
pub(crate) fn tools() -> Value {
    let tool = |name: &str, description: &str, input: Value| json!({"name": name, "description": description, "inputSchema": input});
    let none = || schema::<NoArgs>();
    let mut add = tool("add", "Adds two integers.", schema::<AddArgs>());
    add["outputSchema"] = schema::<AddResult>();
    json!({"tools": [
        add,
        tool("echo", "Returns the text it is given.", schema::<EchoArgs>()),
        tool("countdown", "Counts to n, reporting progress at each step, then says done.",
             schema::<CountdownArgs>()),
        tool("test_simple_text", "Tests simple text content response", none()),
        tool("test_image_content", "Tests image content response", none()),
        tool("test_audio_content", "Tests audio content response", none()),
        tool("test_embedded_resource", "Tests embedded resource content response", none()),
        tool("test_multiple_content_types",
             "Tests response with multiple content types (text, image, resource)", none()),
        tool("test_tool_with_logging", "Tests tool that emits log messages during execution",
             none()),
        tool("test_tool_with_progress", "Tests tool that reports progress notifications", none()),
        tool("test_error_handling", "Tests error response handling", none()),
        tool("test_sampling", "Tests server-initiated sampling (LLM completion request)",
             schema::<SamplingArgs>()),
        tool("test_elicitation", "Tests server-initiated elicitation (user input request)",
             schema::<ElicitationArgs>()),
        tool("test_elicitation_sep1034_defaults",
             "Tests elicitation with default values per SEP-1034", none()),
        tool("test_elicitation_sep1330_enums",
             "Tests elicitation with enum schema improvements per SEP-1330", none()),
        tool("json_schema_2020_12_tool",
             "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
             schema_2020_12()),
    ]})
}

fn resources() -> Value {
    json!({"resources": [
        {"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource",
         "description": "A static text resource for testing", "mimeType": "text/plain"},
        {"uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource",
         "description": "A static binary resource (image) for testing", "mimeType": "image/png"},
        {"uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource",
         "description": "A resource that can be subscribed to", "mimeType": "text/plain"},
    ]})
}

fn templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": "test://template/{id}/data", "name": "template",
         "title": "Resource Template", "description": "A resource template with parameter substitution",
         "mimeType": "application/json"},
    ]})
}

fn prompts() -> Value {
    let arg = |name: &str, description: &str| json!({"name": name, "description": description, "required": true});
    json!({"prompts": [
        {"name": "test_simple_prompt", "title": "Simple Test Prompt",
         "description": "A simple prompt without arguments"},
        {"name": "test_prompt_with_arguments", "title": "Prompt With Arguments",
         "description": "A prompt with required arguments",
         "arguments": [arg("arg1", "First test argument"), arg("arg2", "Second test argument")]},
        {"name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource",
         "description": "A prompt that includes an embedded resource",
         "arguments": [arg("resourceUri", "URI of the resource to embed")]},
        {"name": "test_prompt_with_image", "title": "Prompt With Image",
         "description": "A prompt that includes image content"},
    ]})
}

/// The server's capabilities.
fn capabilities() -> Value {
    json!({"tools": {"listChanged": false}, "resources": {"subscribe": true, "listChanged": false},
           "prompts": {"listChanged": false}, "logging": {}, "completions": {}})
}

fn server_info() -> Value {
    json!({"name": "jsonrpc-slice-mcp", "version": env!("CARGO_PKG_VERSION")})
}

/// A document written once: as the revisions with a handshake give it, and as
/// 2026-07-28 does (with `resultType` and the caching hints).
pub(crate) struct Doc {
    legacy: Vec<u8>,
    stateless: Vec<u8>,
}

impl Doc {
    fn new(mut value: Value) -> Self {
        let legacy = serde_json::to_vec(&value).unwrap_or_default();
        if let Some(object) = value.as_object_mut() {
            object.insert("resultType".into(), json!("complete"));
            object.insert("ttlMs".into(), json!(300_000));
            object.insert("cacheScope".into(), json!("public"));
        }
        let stateless = serde_json::to_vec(&value).unwrap_or_default();
        Self { legacy, stateless }
    }

    fn get(&self, rev: Rev) -> &[u8] {
        match rev {
            Rev::Legacy => &self.legacy,
            Rev::Stateless => &self.stateless,
        }
    }
}

/// The application's state, shared by the calls in flight (and over HTTP, copied into
/// each request's): the documents written at start-up, and the log level
/// `logging/setLevel` chose.
#[derive(Copy, Clone)]
pub(crate) struct Mcp {
    docs: &'static Docs,
    /// Served over HTTP: a handler cannot wait for the client's answer to a request
    /// of its own (it would come in another `POST`), so it sends none.
    http: bool,
}

/// What [`Mcp`] holds, made once.
pub(crate) struct Docs {
    tools: Doc,
    resources: Doc,
    templates: Doc,
    prompts: Doc,
    discover: Vec<u8>,
    /// The least severe level sent (an index into `LEVELS`).
    log_level: AtomicU8,
}

/// The log levels, least severe first (RFC 5424's, as MCP names them).
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

impl Mcp {
    /// The documents, written once (and kept for the process's life).
    pub(crate) fn new() -> Self {
        Self {
            docs: Box::leak(Box::new(Docs::new())),
            http: false,
        }
    }
}

impl Docs {
    fn new() -> Self {
        let mut supported: Vec<&str> = VERSIONS.to_vec();
        supported.push(STATELESS);
        let discover = json!({
            "supportedVersions": supported,
            "capabilities": capabilities(),
            "instructions": "A demonstration server of jsonrpc-slice: arithmetic, echo, a countdown with progress, and MCP's conformance fixtures.",
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
            "resultType": "complete", "ttlMs": 300_000, "cacheScope": "public",
        });
        Self {
            tools: Doc::new(tools()),
            resources: Doc::new(resources()),
            templates: Doc::new(templates()),
            prompts: Doc::new(prompts()),
            discover: serde_json::to_vec(&discover).unwrap_or_default(),
            log_level: AtomicU8::new(0),
        }
    }
}

/// Which rules a request follows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rev {
    /// Up to 2025-11-25: after `initialize`.
    Legacy,
    /// 2026-07-28: stateless, every request with its `_meta`.
    Stateless,
}

/// A handler's context: the state, the call's cancellation, the outbox.
type Ctx<'c> = Call<'c, Mcp>;

async_method_table! {
    pub(crate) Methods<'c, Call<'c, Mcp>> {
        "initialize" => initialize,
        "ping" => ping,
        "server/discover" => discover,
        "tools/list" => tools_list,
        "tools/call" => tools_call,
        "resources/list" => resources_list,
        "resources/templates/list" => templates_list,
        "resources/read" => resources_read,
        "resources/subscribe" => empty,
        "resources/unsubscribe" => empty,
        "prompts/list" => prompts_list,
        "prompts/get" => prompts_get,
        "logging/setLevel" => set_level,
        "completion/complete" => complete,
    }
}

/// No batches: MCP removed them in 2025-06-18 (a batch is one `-32600`, `"id":null`).
pub(crate) static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods)
    .with_cancellation(Cancellation::MCP)
    .with_limits(Limits::DEFAULT.max_batch(0));

/// The rules a request follows: 2026-07-28 when its `_meta` says a protocol version
/// or client capabilities (then both must be there, the version one spoken here), or
/// when it is `server/discover`; the revisions with a handshake otherwise.
fn revision<'p>(p: &Params<'p>, discover: bool) -> Result<Rev, RpcError<'p>> {
    match check_meta(p, discover) {
        Ok(rev) => Ok(rev),
        Err(Refusal::Missing) => Err(RpcError::new(
            code::INVALID_PARAMS,
            "Invalid params: `_meta` must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities",
        )),
        // Written with its data by `unsupported`.
        Err(Refusal::Unsupported(v)) => Err(RpcError::new(UNSUPPORTED_VERSION, "Unsupported protocol version")
            .with_data(v)),
    }
}

/// Why a request's `_meta` is refused.
enum Refusal<'p> {
    /// A member 2026-07-28 requires is missing.
    Missing,
    /// A version not spoken here (the version as sent).
    Unsupported(RawJson<'p>),
}

fn check_meta<'p>(p: &Params<'p>, discover: bool) -> Result<Rev, Refusal<'p>> {
    let version = p.meta(META_VERSION);
    let capabilities = p.meta(META_CAPABILITIES);
    if version.is_none() && capabilities.is_none() && !discover {
        return Ok(Rev::Legacy);
    }
    let (Some(version), Some(capabilities)) = (version, capabilities) else {
        return Err(Refusal::Missing);
    };
    if capabilities.kind() != Kind::Object {
        return Err(Refusal::Missing);
    }
    match version.as_str() {
        Some(v) if v.eq_str(STATELESS) => Ok(Rev::Stateless),
        _ => Err(Refusal::Unsupported(version)),
    }
}

/// The `-32022` error: the versions spoken and the one asked for, in its data.
fn unsupported<'p>(
    out: &mut ResultWriter<'_>,
    asked: RawJson<'_>,
) -> Result<RpcError<'p>, WriteError> {
    let e = out.error(UNSUPPORTED_VERSION, "Unsupported protocol version")?;
    out.begin_object()?;
    out.key("supported")?;
    out.begin_array()?;
    for v in VERSIONS.iter().chain([&STATELESS]) {
        out.str(v)?;
    }
    out.end()?;
    out.key("requested")?;
    out.raw(asked)?;
    out.end()?;
    Ok(e)
}

/// [`revision`], with the `-32022` written with its data.
fn rules<'p>(
    p: &Params<'p>,
    discover: bool,
    out: &mut ResultWriter<'_>,
) -> Result<Rev, RpcError<'p>> {
    match revision(p, discover) {
        Err(e) if e.code == UNSUPPORTED_VERSION => match e.data {
            Some(asked) => Err(unsupported(out, asked)?),
            None => Err(e),
        },
        other => other,
    }
}

/// Ends a result object: with `"resultType":"complete"` under 2026-07-28.
fn close(out: &mut ResultWriter<'_>, rev: Rev) -> Result<(), WriteError> {
    if rev == Rev::Stateless {
        out.key("resultType")?;
        out.str("complete")?;
    }
    out.end()
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
    out.raw(json_const(
        br#"{"tools":{"listChanged":false},"resources":{"subscribe":true,"listChanged":false},"prompts":{"listChanged":false},"logging":{},"completions":{}}"#,
    )?)?;
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
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    out.begin_object()?;
    Ok(close(out, rev)?)
}

/// `{}`: `resources/subscribe` and `unsubscribe` (no resource here changes).
async fn empty<'p>(
    _: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    out.begin_object()?;
    Ok(close(out, rev)?)
}

async fn discover<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    rules(&p, true, out)?;
    Ok(out.raw(json_const(&call.state().docs.discover)?)?)
}

async fn tools_list<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    // One page: `params.cursor` is never needed.
    let rev = rules(&p, false, out)?;
    Ok(out.raw(json_const(call.state().docs.tools.get(rev))?)?)
}

async fn resources_list<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    Ok(out.raw(json_const(call.state().docs.resources.get(rev))?)?)
}

async fn templates_list<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    Ok(out.raw(json_const(call.state().docs.templates.get(rev))?)?)
}

async fn prompts_list<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    Ok(out.raw(json_const(call.state().docs.prompts.get(rev))?)?)
}

async fn resources_read<'p>(
    _: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    let uri = p.get("uri").filter(|u| u.kind() == Kind::String);
    let Some(uri) = uri else {
        return Err(RpcError::new(
            code::INVALID_PARAMS,
            "Invalid params: `uri` must be a string",
        ));
    };
    let text = uri.as_str().ok_or(RpcError::invalid_params())?;
    // `test://template/{id}/data`: the id as sent (escapes and all, a JSON string).
    let template = text
        .as_plain_str()
        .and_then(|t| t.strip_prefix("test://template/"))
        .and_then(|t| t.strip_suffix("/data"))
        .filter(|id| !id.is_empty() && !id.contains('/'));
    let fixed: Option<(&str, &str)> = match () {
        _ if text.eq_str("test://static-text") => Some((
            "text/plain",
            "This is the content of the static text resource.",
        )),
        _ if text.eq_str("test://watched-resource") => {
            Some(("text/plain", "Watched resource content"))
        }
        _ if text.eq_str("test://static-binary") => Some(("image/png", "")),
        _ => None,
    };
    if fixed.is_none() && template.is_none() {
        let (code, message) = match rev {
            Rev::Legacy => (RESOURCE_NOT_FOUND, "Resource not found"),
            Rev::Stateless => (code::INVALID_PARAMS, "Resource not found"),
        };
        let e = out.error(code, message)?;
        out.begin_object()?;
        out.key("uri")?;
        out.raw(uri)?;
        out.end()?;
        return Err(e);
    }
    out.begin_object()?;
    out.key("contents")?;
    out.begin_array()?;
    out.begin_object()?;
    out.key("uri")?;
    out.raw(uri)?;
    match (fixed, template) {
        (Some(("image/png", _)), _) => {
            out.key("mimeType")?;
            out.str("image/png")?;
            out.key("blob")?;
            out.str(IMAGE)?;
        }
        (Some((mime, text)), _) => {
            out.key("mimeType")?;
            out.str(mime)?;
            out.key("text")?;
            out.str(text)?;
        }
        (None, Some(id)) => {
            out.key("mimeType")?;
            out.str("application/json")?;
            out.key("text")?;
            // A JSON document as a string: built with `display`, escaped as it goes.
            out.display(format_args!(
                r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#
            ))?;
        }
        (None, None) => {}
    }
    out.end()?;
    out.end()?;
    if rev == Rev::Stateless {
        out.key("ttlMs")?;
        out.i64(0)?;
        out.key("cacheScope")?;
        out.str("private")?;
    }
    Ok(close(out, rev)?)
}

async fn prompts_get<'p>(
    _: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    let name = p.get("name").and_then(|n| n.as_str());
    let name = name.ok_or(RpcError::new(
        code::INVALID_PARAMS,
        "Invalid params: `name` must be a string",
    ))?;
    let arg = |key| {
        p.at(&[Key("arguments"), Key(key)])
            .filter(|a| a.kind() == Kind::String)
    };
    let user = |out: &mut ResultWriter<'_>,
                content: &dyn Fn(&mut ResultWriter<'_>) -> Result<(), WriteError>| {
        out.begin_object()?;
        out.key("role")?;
        out.str("user")?;
        out.key("content")?;
        content(out)?;
        out.end()
    };
    let text = |t: &'static str| {
        move |out: &mut ResultWriter<'_>| {
            out.begin_object()?;
            out.key("type")?;
            out.str("text")?;
            out.key("text")?;
            out.str(t)?;
            out.end()
        }
    };
    out.begin_object()?;
    out.key("messages")?;
    out.begin_array()?;
    if name.eq_str("test_simple_prompt") {
        user(out, &text("This is a simple prompt for testing."))?;
    } else if name.eq_str("test_prompt_with_arguments") {
        let (Some(a1), Some(a2)) = (arg("arg1"), arg("arg2")) else {
            return Err(out.error(
                code::INVALID_PARAMS,
                "Invalid params: `arg1` and `arg2` must be strings",
            )?);
        };
        let (a1, a2) = (
            a1.as_str().ok_or(RpcError::invalid_params())?,
            a2.as_str().ok_or(RpcError::invalid_params())?,
        );
        let mut b1 = [0u8; 1024];
        let mut b2 = [0u8; 1024];
        let (Some(a1), Some(a2)) = (a1.unescape_into(&mut b1), a2.unescape_into(&mut b2)) else {
            return Err(out.error(
                code::INVALID_PARAMS,
                "Invalid params: arguments up to 1 KiB",
            )?);
        };
        user(out, &|out: &mut ResultWriter<'_>| {
            out.begin_object()?;
            out.key("type")?;
            out.str("text")?;
            out.key("text")?;
            out.display(format_args!(
                "Prompt with arguments: arg1='{a1}', arg2='{a2}'"
            ))?;
            out.end()
        })?;
    } else if name.eq_str("test_prompt_with_embedded_resource") {
        let Some(uri) = arg("resourceUri") else {
            return Err(out.error(
                code::INVALID_PARAMS,
                "Invalid params: `resourceUri` must be a string",
            )?);
        };
        user(out, &|out: &mut ResultWriter<'_>| {
            out.begin_object()?;
            out.key("type")?;
            out.str("resource")?;
            out.key("resource")?;
            out.begin_object()?;
            out.key("uri")?;
            out.raw(uri)?;
            out.key("mimeType")?;
            out.str("text/plain")?;
            out.key("text")?;
            out.str("Embedded resource content for testing.")?;
            out.end()?;
            out.end()
        })?;
        user(out, &text("Please process the embedded resource above."))?;
    } else if name.eq_str("test_prompt_with_image") {
        user(out, &|out: &mut ResultWriter<'_>| image(out))?;
        user(out, &text("Please analyze the image above."))?;
    } else {
        return Err(out.error(code::INVALID_PARAMS, format_args!("Unknown prompt: {name}"))?);
    }
    out.end()?;
    Ok(close(out, rev)?)
}

async fn set_level<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    let level = p.get("level").and_then(|l| l.as_str());
    let level = level.and_then(|l| LEVELS.iter().position(|n| l.eq_str(n)));
    let Some(level) = level else {
        return Err(RpcError::new(
            code::INVALID_PARAMS,
            "Invalid params: `level` must be a log level",
        ));
    };
    call.state()
        .docs
        .log_level
        .store(level as u8, Ordering::Relaxed);
    out.begin_object()?;
    Ok(close(out, rev)?)
}

async fn complete<'p>(
    _: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let rev = rules(&p, false, out)?;
    out.begin_object()?;
    out.key("completion")?;
    out.raw(json_const(br#"{"values":[],"total":0,"hasMore":false}"#)?)?;
    Ok(close(out, rev)?)
}

async fn tools_call<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    if p.is_notification() {
        return Ok(()); // nobody waits for it: no progress either
    }
    let rev = rules(&p, false, out)?;
    let name = p.get("name").and_then(|n| n.as_str());
    let name = name.ok_or(RpcError::new(
        code::INVALID_PARAMS,
        "Invalid params: `name` must be a string",
    ))?;
    let args = p.get("arguments");
    let arg = |key| args.and_then(|a| a.get(key));
    // A string or a number, sent back as it came (the same type).
    let token = p.meta("progressToken");
    let token = token.filter(|t| matches!(t.kind(), Kind::String | Kind::Number));
    if name.eq_str("add") {
        match (int(arg("a")), int(arg("b"))) {
            (Some(a), Some(b)) => {
                let sum = i128::from(a) + i128::from(b);
                out.begin_object()?;
                content(out, |o| item(o, "text", |o| o.display(sum)))?;
                out.key("structuredContent")?;
                out.begin_object()?;
                out.key("sum")?;
                int128(out, sum)?;
                out.end()?;
                close(out, rev)?;
            }
            (None, _) => tool_error(out, rev, "argument `a` must be a 64-bit integer")?,
            (_, None) => tool_error(out, rev, "argument `b` must be a 64-bit integer")?,
        }
    } else if name.eq_str("echo") {
        match arg("text").filter(|t| t.kind() == Kind::String) {
            // The string as the client escaped it: the same text.
            Some(t) => text(out, rev, |o| o.raw(t))?,
            None => tool_error(out, rev, "argument `text` must be a string")?,
        }
    } else if name.eq_str("countdown") {
        let Some(n) = int(arg("n")).filter(|n| (0..=100).contains(n)) else {
            return Ok(tool_error(
                out,
                rev,
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
                rev,
                "argument `delay_ms` must be an integer from 0 to 60000",
            )?);
        };
        for i in 1..=n {
            // Each step takes `delay_ms`; the loop serves other calls meanwhile, and
            // a cancellation drops this future here.
            if delay > 0 {
                tokio::time::sleep(Duration::from_millis(delay as u64)).await;
            }
            if let Some(token) = token {
                progress(call, token, i, n, None).await?;
            }
        }
        text(out, rev, |o| o.str("done"))?;
    } else if name.eq_str("test_simple_text") {
        text(out, rev, |o| {
            o.str("This is a simple text response for testing.")
        })?;
    } else if name.eq_str("test_image_content") {
        out.begin_object()?;
        content(out, image)?;
        close(out, rev)?;
    } else if name.eq_str("test_audio_content") {
        out.begin_object()?;
        content(out, |o| {
            o.begin_object()?;
            o.key("type")?;
            o.str("audio")?;
            o.key("data")?;
            o.str(AUDIO)?;
            o.key("mimeType")?;
            o.str("audio/wav")?;
            o.end()
        })?;
        close(out, rev)?;
    } else if name.eq_str("test_embedded_resource") {
        out.begin_object()?;
        content(out, |o| {
            embedded(
                o,
                "test://embedded-resource",
                "text/plain",
                "This is an embedded resource content.",
            )
        })?;
        close(out, rev)?;
    } else if name.eq_str("test_multiple_content_types") {
        out.begin_object()?;
        out.key("content")?;
        out.begin_array()?;
        item(out, "text", |o| o.str("Multiple content types test:"))?;
        image(out)?;
        embedded(
            out,
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )?;
        out.end()?;
        close(out, rev)?;
    } else if name.eq_str("test_tool_with_logging") {
        for message in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ] {
            log(call, 1, message).await?;
        }
        text(out, rev, |o| {
            o.str("Tool with logging executed successfully")
        })?;
    } else if name.eq_str("test_tool_with_progress") {
        for step in [0, 50, 100] {
            if let Some(token) = token {
                progress(call, token, step, 100, Some(step)).await?;
            }
        }
        match token {
            Some(t) if t.kind() == Kind::String => text(out, rev, |o| o.raw(t))?,
            Some(t) => text(out, rev, |o| o.display(format_args!("{}", AsText(t))))?,
            None => text(out, rev, |o| o.str("0"))?,
        }
    } else if name.eq_str("test_error_handling") {
        tool_error(
            out,
            rev,
            "This tool intentionally returns an error for testing",
        )?;
    } else if name.eq_str("test_sampling") {
        let prompt = arg("prompt").filter(|t| t.kind() == Kind::String);
        let Some(prompt) = prompt else {
            return Ok(tool_error(out, rev, "argument `prompt` must be a string")?);
        };
        if call.state().http {
            return Ok(tool_error(out, rev, NOT_OVER_HTTP)?);
        }
        let asked = call
            .request(
                "sampling/createMessage",
                |w| {
                    w.begin_object()?;
                    w.key("messages")?;
                    w.begin_array()?;
                    w.begin_object()?;
                    w.key("role")?;
                    w.str("user")?;
                    w.key("content")?;
                    w.begin_object()?;
                    w.key("type")?;
                    w.str("text")?;
                    w.key("text")?;
                    w.raw(prompt)?;
                    w.end()?;
                    w.end()?;
                    w.end()?;
                    w.key("maxTokens")?;
                    w.i64(100)?;
                    w.end()
                },
                tokio::time::sleep(Duration::from_secs(60)),
                |outcome| {
                    let mut reply = Reply::default();
                    if let Outcome::Result(r) = outcome {
                        let text = r.at(&[Key("content"), Key("text")]);
                        reply.keep(text);
                    }
                    reply
                },
            )
            .await;
        match asked {
            Ok(reply) => text(out, rev, |o| {
                o.display(format_args!("LLM response: {}", reply.as_str()))
            })?,
            Err(e) => text(out, rev, |o| {
                o.display(format_args!("Sampling not supported or error: {e}"))
            })?,
        }
    } else if let Some(form) = elicitation_form(name) {
        if call.state().http {
            return Ok(tool_error(out, rev, NOT_OVER_HTTP)?);
        }
        let message = match form {
            Form::Message => match arg("message").filter(|t| t.kind() == Kind::String) {
                Some(m) => Some(m),
                None => return Ok(tool_error(out, rev, "argument `message` must be a string")?),
            },
            _ => None,
        };
        let asked = call
            .request(
                "elicitation/create",
                |w| elicit(w, form, message),
                tokio::time::sleep(Duration::from_secs(60)),
                |outcome| {
                    let mut action = Reply::default();
                    let mut content = Reply::default();
                    if let Outcome::Result(r) = outcome {
                        action.keep(r.get("action"));
                        content.keep_raw(r.get("content"));
                    }
                    (action, content)
                },
            )
            .await;
        let lead = match form {
            Form::Message => "User response",
            _ => "Elicitation completed",
        };
        match asked {
            Ok((action, content)) => text(out, rev, |o| {
                let content = match content.as_str() {
                    "" => "{}",
                    c => c,
                };
                o.display(format_args!(
                    "{lead}: action={}, content={content}",
                    action.as_str()
                ))
            })?,
            Err(e) => text(out, rev, |o| {
                o.display(format_args!("Elicitation not supported or error: {e}"))
            })?,
        }
    } else if name.eq_str("json_schema_2020_12_tool") {
        let args = args.unwrap_or(RawJson::NULL);
        text(out, rev, |o| {
            o.display(format_args!(
                "JSON Schema 2020-12 tool called with: {}",
                AsText(args)
            ))
        })?;
    } else {
        // An unknown tool is a protocol error (not a tool result), naming the tool.
        return Err(out.error(code::INVALID_PARAMS, format_args!("Unknown tool: {name}"))?);
    }
    Ok(())
}

/// Why sampling and elicitation are not available over HTTP.
const NOT_OVER_HTTP: &str = "not available over HTTP: this server cannot wait for the client's answer to its own request there (use stdio)";

/// Which elicitation a tool asks for.
#[derive(Copy, Clone)]
enum Form {
    /// `test_elicitation`: the message given, a `response` string.
    Message,
    /// SEP-1034: every primitive type with a default.
    Defaults,
    /// SEP-1330: the five enum forms.
    Enums,
}

fn elicitation_form(name: jsonrpc_slice::RawStr<'_>) -> Option<Form> {
    match () {
        _ if name.eq_str("test_elicitation") => Some(Form::Message),
        _ if name.eq_str("test_elicitation_sep1034_defaults") => Some(Form::Defaults),
        _ if name.eq_str("test_elicitation_sep1330_enums") => Some(Form::Enums),
        _ => None,
    }
}

/// An `elicitation/create` request's params.
fn elicit(
    w: &mut ResultWriter<'_>,
    form: Form,
    message: Option<RawJson<'_>>,
) -> Result<(), WriteError> {
    let (text, schema): (&str, &[u8]) = match form {
        Form::Message => ("", br#"{"type":"object","properties":{"response":{"type":"string","description":"User's response"}},"required":["response"]}"#),
        Form::Defaults => ("Please review and update the form fields with defaults", br#"{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}"#),
        Form::Enums => ("Please select options from the enum fields", br#"{"type":"object","properties":{"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}"#),
    };
    w.begin_object()?;
    w.key("message")?;
    match message {
        Some(m) => w.raw(m)?,
        None => w.str(text)?,
    }
    w.key("requestedSchema")?;
    w.raw(RawJson::new(schema).map_err(|_| WriteError::Misuse)?)?;
    w.end()
}

/// What a handler keeps of the client's answer (the reader's buffer is lent only
/// while it reads): up to 1 KiB of text.
struct Reply {
    buf: [u8; 1024],
    len: usize,
}

impl Default for Reply {
    fn default() -> Self {
        Self {
            buf: [0; 1024],
            len: 0,
        }
    }
}

impl Reply {
    /// A string's text (decoded), or nothing.
    fn keep(&mut self, v: Option<RawJson<'_>>) {
        if let Some(s) = v.and_then(|v| v.as_str()) {
            self.len = s.unescape_into(&mut self.buf).map_or(0, str::len);
        }
    }

    /// A value's JSON, as sent.
    fn keep_raw(&mut self, v: Option<RawJson<'_>>) {
        if let Some(v) = v {
            let bytes = v.as_bytes();
            if bytes.len() <= self.buf.len() {
                self.buf[..bytes.len()].copy_from_slice(bytes);
                self.len = bytes.len();
            }
        }
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

/// A raw value's bytes as text (it is UTF-8: the scanner checked it).
struct AsText<'a>(RawJson<'a>);

impl std::fmt::Display for AsText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(std::str::from_utf8(self.0.as_bytes()).unwrap_or(""))
    }
}

/// A `notifications/progress`.
async fn progress(
    call: &Ctx<'_>,
    token: RawJson<'_>,
    i: i64,
    n: i64,
    message: Option<i64>,
) -> Result<(), RpcError<'static>> {
    call.notify("notifications/progress", |w| {
        w.begin_object()?;
        w.key("progressToken")?;
        w.raw(token)?;
        w.key("progress")?;
        w.i64(i)?;
        w.key("total")?;
        w.i64(n)?;
        if let Some(step) = message {
            w.key("message")?;
            w.display(format_args!("Completed step {step} of {n}"))?;
        }
        w.end()
    })
    .await
    .map_err(|_| RpcError::new(code::INTERNAL_ERROR, "Internal error: outbox full"))
}

/// A `notifications/message` at `level` (an index into `LEVELS`), if the client's
/// `logging/setLevel` lets it through.
async fn log(call: &Ctx<'_>, level: u8, message: &str) -> Result<(), RpcError<'static>> {
    if level < call.state().docs.log_level.load(Ordering::Relaxed) {
        return Ok(());
    }
    call.notify("notifications/message", |w| {
        w.begin_object()?;
        w.key("level")?;
        w.str(LEVELS[usize::from(level)])?;
        w.key("logger")?;
        w.str("jsonrpc-slice-mcp")?;
        w.key("data")?;
        w.str(message)?;
        w.end()
    })
    .await
    .map_err(|_| RpcError::new(code::INTERNAL_ERROR, "Internal error: outbox full"))
}

/// `"content":[item]`.
fn content(
    out: &mut ResultWriter<'_>,
    item: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    out.key("content")?;
    out.begin_array()?;
    item(out)?;
    out.end()
}

/// `{"type":kind,kind:…}` (a text item: `kind` "text").
fn item(
    out: &mut ResultWriter<'_>,
    kind: &str,
    write: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    out.begin_object()?;
    out.key("type")?;
    out.str(kind)?;
    out.key(kind)?;
    write(out)?;
    out.end()
}

/// The test image as a content item.
fn image(out: &mut ResultWriter<'_>) -> Result<(), WriteError> {
    out.begin_object()?;
    out.key("type")?;
    out.str("image")?;
    out.key("data")?;
    out.str(IMAGE)?;
    out.key("mimeType")?;
    out.str("image/png")?;
    out.end()
}

/// An embedded text resource as a content item.
fn embedded(
    out: &mut ResultWriter<'_>,
    uri: &str,
    mime: &str,
    text: &str,
) -> Result<(), WriteError> {
    out.begin_object()?;
    out.key("type")?;
    out.str("resource")?;
    out.key("resource")?;
    out.begin_object()?;
    out.key("uri")?;
    out.str(uri)?;
    out.key("mimeType")?;
    out.str(mime)?;
    out.key("text")?;
    out.str(text)?;
    out.end()?;
    out.end()
}

/// A tool's failure: a result with `isError`, saying why.
fn tool_error(out: &mut ResultWriter<'_>, rev: Rev, why: &str) -> Result<(), WriteError> {
    out.begin_object()?;
    content(out, |o| item(o, "text", |o| o.str(why)))?;
    out.key("isError")?;
    out.bool(true)?;
    close(out, rev)
}

/// A tool's result: one text item, written by `write`.
fn text(
    out: &mut ResultWriter<'_>,
    rev: Rev,
    write: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    out.begin_object()?;
    content(out, |o| item(o, "text", write))?;
    close(out, rev)
}

/// An integer as a JSON number, 128 bits wide.
fn int128(out: &mut ResultWriter<'_>, n: i128) -> Result<(), WriteError> {
    if let Ok(n) = i64::try_from(n) {
        return out.i64(n);
    }
    use std::io::Write as _;
    let mut digits = [0u8; 48];
    let mut cursor = io::Cursor::new(&mut digits[..]);
    write!(cursor, "{n}").map_err(|_| WriteError::Misuse)?;
    let len = cursor.position() as usize;
    out.raw(RawJson::new(&digits[..len]).map_err(|_| WriteError::Misuse)?)
}

/// An integer argument, as JSON Schema counts them: `7`, and also `7.0` or `7e0` (up
/// to 2^53, where every integer is exact).
fn int(v: Option<RawJson<'_>>) -> Option<i64> {
    let v = v?;
    let exact = |f: &f64| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0;
    v.as_i64()
        .or_else(|| v.as_f64().filter(exact).map(|f| f as i64))
}

/// JSON of this file (a constant, or a document written at start-up).
fn json_const(bytes: &[u8]) -> Result<RawJson<'_>, RpcError<'static>> {
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

// ---- Streamable HTTP: MCP's rules, as the library's HTTP server's gate.

mod http {
    use super::*;
    use hyper::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT};
    use hyper::{Method, StatusCode};
    use jsonrpc_slice::http::gate::{local_origin, Head, Verdict};

    const SESSION: HeaderName = HeaderName::from_static("mcp-session-id");
    const VERSION: &str = "mcp-protocol-version";
    const METHOD: &str = "mcp-method";
    const NAME: &str = "mcp-name";

    /// The sessions open (2025-11-25): at most `MAX_SESSIONS`, the oldest closed for a
    /// new one.
    pub(crate) struct Sessions {
        open: Mutex<VecDeque<u64>>,
        next: AtomicU64,
        /// Mixed into the ids, so that they cannot be guessed from the count.
        key: u64,
    }

    const MAX_SESSIONS: usize = 1024;

    impl Sessions {
        pub(crate) fn new() -> Self {
            use std::hash::{BuildHasher, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(0);
            Self {
                open: Mutex::new(VecDeque::new()),
                next: AtomicU64::new(1),
                key: h.finish(),
            }
        }

        fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<u64>> {
            self.open.lock().unwrap_or_else(|e| e.into_inner())
        }

        fn open(&self) -> u64 {
            let n = self.next.fetch_add(1, Ordering::Relaxed);
            // A bijection of the count (odd multiplier, xor, rotation): never repeats.
            let id = (n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.key).rotate_left(29);
            let mut open = self.lock();
            if open.len() >= MAX_SESSIONS {
                open.pop_front();
            }
            open.push_back(id);
            id
        }

        fn find(&self, id: u64) -> bool {
            self.lock().contains(&id)
        }

        fn close(&self, id: u64) -> bool {
            let mut open = self.lock();
            let before = open.len();
            open.retain(|&s| s != id);
            open.len() != before
        }
    }

    /// How replies go: as events when the client takes them, unless `--json`.
    pub(crate) struct Gate {
        pub(crate) sessions: Sessions,
        pub(crate) json_only: bool,
    }

    impl Gate {
        pub(crate) fn verdict(&self, head: &Head<'_>) -> Verdict {
            if !local_origin(head.headers) {
                return error(
                    StatusCode::FORBIDDEN,
                    None,
                    -32600,
                    "Forbidden: Host or Origin is not this machine",
                );
            }
            if head.uri.path() != "/mcp" {
                return Verdict::respond(StatusCode::NOT_FOUND, "");
            }
            let session = head.headers.get(&SESSION).and_then(|v| v.to_str().ok());
            let session = session.and_then(|s| u64::from_str_radix(s, 16).ok());
            match *head.method {
                Method::POST => {}
                Method::DELETE => {
                    return match session {
                        Some(id) if self.sessions.close(id) => Verdict::respond(StatusCode::OK, ""),
                        Some(_) => Verdict::respond(StatusCode::NOT_FOUND, ""),
                        None => Verdict::respond(StatusCode::BAD_REQUEST, ""),
                    };
                }
                // No GET stream: the library's `405`.
                _ => return Verdict::answer(),
            }
            let Ok(message) = RawJson::new(head.body) else {
                return Verdict::answer(); // the codec's -32700
            };
            if message.kind() != Kind::Object {
                return Verdict::answer(); // a batch: the codec's -32600
            }
            let id = message.get("id");
            let method = message.get("method").and_then(|m| m.as_str());
            let events = !self.json_only && accepts_events(head.headers);
            let answer = || {
                let v = Verdict::answer().no_reply(StatusCode::ACCEPTED);
                match events {
                    true => v.events(),
                    false => v,
                }
            };
            let Some(method) = method else {
                // A response (to a request this server never sent over HTTP: a
                // handler's request cannot wait for it): taken, and dropped.
                return Verdict::respond(StatusCode::ACCEPTED, "");
            };
            let params = Params::new(message.get("params"));
            let header = head.headers.get(VERSION).map(HeaderValue::as_bytes);
            let stateless = header == Some(STATELESS.as_bytes())
                || params.meta(META_VERSION).is_some()
                || method.eq_str("server/discover");
            if stateless {
                return self
                    .stateless(head.headers, id, method, &params, header)
                    .unwrap_or_else(answer);
            }
            if method.eq_str("initialize") {
                let id = self.sessions.open();
                let value = HeaderValue::from_str(&format!("{id:016x}"));
                return match value {
                    Ok(value) => answer().header(SESSION, value),
                    Err(_) => Verdict::respond(StatusCode::INTERNAL_SERVER_ERROR, ""),
                };
            }
            match session {
                Some(s) if self.sessions.find(s) => answer(),
                Some(_) => error(StatusCode::NOT_FOUND, id, -32001, "Session not found"),
                None => error(
                    StatusCode::BAD_REQUEST,
                    id,
                    -32600,
                    "Bad Request: no Mcp-Session-Id (send initialize first)",
                ),
            }
        }

        /// The 2026-07-28 rules over HTTP: `None` if the request passes them.
        fn stateless(
            &self,
            headers: &HeaderMap,
            id: Option<RawJson<'_>>,
            method: jsonrpc_slice::RawStr<'_>,
            params: &Params<'_>,
            version: Option<&[u8]>,
        ) -> Option<Verdict> {
            let is_discover = method.eq_str("server/discover");
            match check_meta(params, true) {
                Err(Refusal::Missing) => {
                    return Some(error(StatusCode::BAD_REQUEST, id, code::INVALID_PARAMS,
                        "Invalid params: `_meta` must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"));
                }
                Err(Refusal::Unsupported(asked)) => {
                    // The header says one thing, the body another: a mismatch first.
                    let said = asked.as_str();
                    if let (Some(header), Some(said)) = (version, said) {
                        if !said.eq_bytes(header) {
                            return Some(error(StatusCode::BAD_REQUEST, id, HEADER_MISMATCH,
                                "Header mismatch: MCP-Protocol-Version is not _meta's protocolVersion"));
                        }
                    }
                    let mut supported: Vec<&str> = VERSIONS.to_vec();
                    supported.push(STATELESS);
                    let body = json!({"jsonrpc": "2.0", "id": raw_value(id),
                        "error": {"code": UNSUPPORTED_VERSION, "message": "Unsupported protocol version",
                                  "data": {"supported": supported, "requested": raw_value(Some(asked))}}});
                    return Some(Verdict::respond(
                        StatusCode::BAD_REQUEST,
                        serde_json::to_vec(&body).unwrap_or_default(),
                    ));
                }
                Ok(_) => {}
            }
            let _ = is_discover;
            if version.is_some_and(|v| v != STATELESS.as_bytes()) {
                return Some(error(
                    StatusCode::BAD_REQUEST,
                    id,
                    HEADER_MISMATCH,
                    "Header mismatch: MCP-Protocol-Version is not _meta's protocolVersion",
                ));
            }
            // `Mcp-Method` must be the body's method; `Mcp-Name` its tool, prompt or
            // resource, when the method has one.
            let mut buf = [0u8; 1024];
            let said = headers.get(METHOD).map(|v| decoded(v.as_bytes(), &mut buf));
            if !matches!(said, Some(Some(m)) if method.eq_bytes(m)) {
                return Some(error(
                    StatusCode::BAD_REQUEST,
                    id,
                    HEADER_MISMATCH,
                    "Header mismatch: Mcp-Method is not the body's method",
                ));
            }
            let named = match () {
                _ if method.eq_str("tools/call") || method.eq_str("prompts/get") => {
                    params.get("name")
                }
                _ if method.eq_str("resources/read") => params.get("uri"),
                _ => None,
            };
            if let Some(named) = named.and_then(|n| n.as_str()) {
                let said = headers.get(NAME).map(|v| decoded(v.as_bytes(), &mut buf));
                if !matches!(said, Some(Some(n)) if named.eq_bytes(n)) {
                    return Some(error(
                        StatusCode::BAD_REQUEST,
                        id,
                        HEADER_MISMATCH,
                        "Header mismatch: Mcp-Name is not the body's name",
                    ));
                }
            }
            None
        }
    }

    /// A header value as its text: `=?base64?…?=` decoded into `buf`, else as sent
    /// (surrounding blanks dropped). `None`: base64 that does not decode.
    fn decoded<'b>(value: &'b [u8], buf: &'b mut [u8]) -> Option<&'b [u8]> {
        let value = value.trim_ascii();
        let Some(b64) = value
            .strip_prefix(b"=?base64?")
            .and_then(|v| v.strip_suffix(b"?="))
        else {
            return Some(value);
        };
        let sextet = |c: u8| match c {
            b'A'..=b'Z' => Some(c - b'A'),
            b'a'..=b'z' => Some(c - b'a' + 26),
            b'0'..=b'9' => Some(c - b'0' + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        };
        let b64 = b64
            .strip_suffix(b"==")
            .or_else(|| b64.strip_suffix(b"="))
            .unwrap_or(b64);
        let (mut acc, mut bits, mut n) = (0u32, 0, 0);
        for &c in b64 {
            acc = (acc << 6) | u32::from(sextet(c)?);
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                *buf.get_mut(n)? = (acc >> bits) as u8;
                n += 1;
            }
        }
        Some(&buf[..n])
    }

    fn accepts_events(headers: &HeaderMap) -> bool {
        headers
            .get_all(ACCEPT)
            .iter()
            .any(|v| v.to_str().is_ok_and(|v| v.contains("text/event-stream")))
    }

    /// A raw JSON value as serde_json's (`null` if none).
    fn raw_value(v: Option<RawJson<'_>>) -> Value {
        v.and_then(|v| serde_json::from_slice(v.as_bytes()).ok())
            .unwrap_or(Value::Null)
    }

    /// `status` with a JSON-RPC error for the request's `id`.
    fn error(status: StatusCode, id: Option<RawJson<'_>>, code: i32, message: &str) -> Verdict {
        let body = json!({"jsonrpc": "2.0", "id": raw_value(id), "error": {"code": code, "message": message}});
        Verdict::respond(status, serde_json::to_vec(&body).unwrap_or_default())
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = match args.iter().position(|a| a == "--http") {
        Some(i) => match args.get(i + 1) {
            Some(addr) => Some(addr.clone()),
            None => {
                eprintln!("usage: mcp-server [--http ADDR [--json]]");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let json_only = args.iter().any(|a| a == "--json");
    let runtime = match http {
        Some(_) => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
        None => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    };
    let Ok(runtime) = runtime else {
        eprintln!("mcp-server: cannot start the runtime");
        return ExitCode::FAILURE;
    };
    if let Some(addr) = http {
        return runtime.block_on(serve_http(&addr, json_only));
    }
    eprintln!(
        "mcp-server {}: serving MCP on stdio",
        env!("CARGO_PKG_VERSION")
    );
    let mcp = Mcp::new();
    let mut memory = Memory::new();
    let Memory {
        slots,
        outbox,
        framer,
        chunk,
    } = &mut *memory;
    let (mut stdin, mut stdout) = (Io(tokio::io::stdin()), Io(tokio::io::stdout()));
    let served =
        runtime.block_on(SERVER.serve(&mcp, framer, slots, outbox, chunk, &mut stdin, &mut stdout));
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

/// Serves Streamable HTTP at `http://ADDR/mcp`.
async fn serve_http(addr: &str, json_only: bool) -> ExitCode {
    use jsonrpc_slice::http::{HttpServer, Settings};
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("mcp-server: cannot listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let local = listener
        .local_addr()
        .map_or(addr.to_string(), |a| a.to_string());
    let gate = http::Gate {
        sessions: http::Sessions::new(),
        json_only,
    };
    // The documents are written once; each request's state is a reference to them.
    let mcp = Mcp {
        http: true,
        ..Mcp::new()
    };
    let server = HttpServer::concurrent::<SLOTS, _>(&SERVER, move || mcp)
        .with_settings(Settings {
            max_body: MAX_FRAME,
            max_reply: MAX_REPLY,
            ..Settings::default()
        })
        .with_gate(move |head| gate.verdict(head));
    println!("listening on http://{local}/mcp");
    match server.serve(listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-server: {e}");
            ExitCode::FAILURE
        }
    }
}
