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
//! `404`; `DELETE` ends it; a `GET` of the session opens its stream of what the server
//! sends outside any call, `Verdict::listen`: here, `notifications/resources/updated`
//! to a session subscribed to `test://watched-resource` when `update_watched_resource`
//! changes it; without a session a `GET` is `405`); 2026-07-28 requests are
//! checked against their headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! which may be `=?base64?…?=`): a mismatch is `400` with `-32020`, a missing `_meta`
//! member `400` with `-32602`, a version it does not speak `400` with `-32022`. In a
//! session's request answered as an event stream, sampling and elicitation ask the
//! client as over stdio: the request goes out on the stream while the tool runs, the
//! client's response comes in another `POST` of the session (`202`) and reaches the
//! tool (`Verdict::peer`). Where the client cannot be asked (`--json`, 2026-07-28
//! requests) they send nothing and answer (a tool error) that they are not available.
//!
//! The tools: `add`, `echo`, `countdown` (progress at each step),
//! `update_watched_resource` (sets a resource's text, its subscribers told), and the fixtures of
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
use jsonrpc_slice::http::Listeners;
use jsonrpc_slice::io::tokio::{stdio, Io};
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::raw::Step::Key;
use jsonrpc_slice::service::concurrent::{Call, Cancellation, ConcurrentServer, PeerError, Slots};
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
    #[schemars(schema_with = "any_integer")]
    sum: i128,
}

/// An integer of any size (JSON Schema has no `int128` format).
fn any_integer(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "integer"})
}

/// `echo`'s arguments.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
pub(crate) struct EchoArgs {
    /// The text to return.
    text: String,
}

/// `update_watched_resource`'s arguments.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
pub(crate) struct UpdateArgs {
    /// The resource's new text.
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

/// `lookup`'s arguments: `region` is mirrored in the `Mcp-Param-Region` header over
/// Streamable HTTP (2026-07-28), which the server checks against the body.
#[derive(JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
pub(crate) struct LookupArgs {
    /// The region to look in.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    /// What to look up.
    query: Option<String>,
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
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"}, "email": {"type": "string"}},
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
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
        tool("lookup", "Says where a query would run (its region travels in a header too).",
             schema::<LookupArgs>()),
        tool("update_watched_resource",
             "Sets the text of test://watched-resource; its subscribers are told.",
             schema::<UpdateArgs>()),
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
        tool("test_logging_tool",
             "Logs at info only when the request's _meta asks for a log level (2026-07-28)", none()),
        tool("test_missing_capability", "Needs the client's sampling capability", none()),
        tool("test_streaming_elicitation", "Asks the client (elicitation) by an input_required result",
             none()),
        tool("test_input_required_result_elicitation", "MRTR: one elicitation", none()),
        tool("test_input_required_result_sampling", "MRTR: one sampling request", none()),
        tool("test_input_required_result_list_roots", "MRTR: the client's roots", none()),
        tool("test_input_required_result_request_state", "MRTR: with requestState", none()),
        tool("test_input_required_result_multiple_inputs", "MRTR: three requests at once", none()),
        tool("test_input_required_result_multi_round", "MRTR: two rounds", none()),
        tool("test_input_required_result_tampered_state", "MRTR: a signed requestState", none()),
        tool("test_input_required_result_capabilities", "MRTR: only what the client declared", none()),
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
        {"name": "test_input_required_result_prompt", "title": "Prompt Needing Input",
         "description": "Asks the client for context first (2026-07-28)"},
    ]})
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
    /// Served over HTTP: a handler's request to the client fails at once
    /// (`PeerError::Lost`) in a request that cannot ask it (see `http::Gate`), which
    /// the tool says as a tool error.
    http: bool,
}

/// What [`Mcp`] holds, made once.
pub(crate) struct Docs {
    /// Each tool's arguments mirrored in `Mcp-Param-*` headers: (tool, [(header
    /// name, property)]), read from the tools' schemas (`x-mcp-header`).
    param_headers: Vec<(String, Vec<(String, String)>)>,
    tools: Doc,
    resources: Doc,
    templates: Doc,
    prompts: Doc,
    discover: Vec<u8>,
    /// The least severe level sent (an index into `LEVELS`).
    log_level: AtomicU8,
    /// `test://watched-resource`, which clients subscribe to.
    watched: Watched,
}

/// The resource clients subscribe to (`test://watched-resource`): its text, which
/// `update_watched_resource` sets, and who is told when it changes: over HTTP the
/// sessions subscribed, each on its `GET` stream (a session without one is not told;
/// it reads the resource when it asks), over stdio the one client.
pub(crate) struct Watched {
    text: Mutex<String>,
    /// The sessions subscribed (over stdio, `STDIO` once the client is): at most one
    /// entry a session, and the sessions are bounded.
    subscribers: Mutex<Vec<u64>>,
    /// The sessions' `GET` streams (HTTP).
    pub(crate) listeners: Listeners,
}

/// The subscriber over stdio.
const STDIO: u64 = 0;

/// What a subscriber is sent when the resource changes.
const UPDATED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}}"#;

impl Watched {
    fn new() -> Self {
        Self {
            text: Mutex::new("Watched resource content".to_string()),
            subscribers: Mutex::new(Vec::new()),
            // One stream a session at most, and a bound of its own.
            listeners: Listeners::new(256),
        }
    }

    fn subscribers(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        self.subscribers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `session` subscribed (`true`) or unsubscribed.
    pub(crate) fn subscribe(&self, session: u64, on: bool) {
        let mut subscribers = self.subscribers();
        subscribers.retain(|&s| s != session);
        if on {
            subscribers.push(session);
        }
    }

    /// A session ended: its subscription and its stream too.
    pub(crate) fn ended(&self, session: u64) {
        self.subscribe(session, false);
        self.listeners.close(session);
    }
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
            // 2026-07-28: no `logging/setLevel` (a request's `_meta` asks for its logs)
            // and no resource subscriptions here.
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}},
            "instructions": "A demonstration server of jsonrpc-slice: arithmetic, echo, a countdown with progress, and MCP's conformance fixtures.",
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
            "resultType": "complete", "ttlMs": 300_000, "cacheScope": "public",
        });
        let listed = tools();
        let param_headers = listed["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| {
                let properties = tool["inputSchema"]["properties"].as_object()?;
                let headers: Vec<(String, String)> = properties
                    .iter()
                    .filter_map(|(property, schema)| {
                        let name = schema["x-mcp-header"].as_str()?;
                        Some((
                            format!("mcp-param-{}", name.to_ascii_lowercase()),
                            property.clone(),
                        ))
                    })
                    .collect();
                let name = tool["name"].as_str()?.to_string();
                (!headers.is_empty()).then_some((name, headers))
            })
            .collect();
        Self {
            param_headers,
            tools: Doc::new(listed),
            resources: Doc::new(resources()),
            templates: Doc::new(templates()),
            prompts: Doc::new(prompts()),
            discover: serde_json::to_vec(&discover).unwrap_or_default(),
            log_level: AtomicU8::new(0),
            watched: Watched::new(),
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
        "resources/subscribe" => subscribe,
        "resources/unsubscribe" => unsubscribe,
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

/// The methods 2026-07-28 has (the others, `initialize`, `ping`, `logging/setLevel`,
/// `resources/subscribe`..., were removed: `-32601`, over HTTP with `404`).
const METHODS_2026: [&str; 9] = [
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// [`rules`] for a method 2026-07-28 removed: `-32601` for a stateless request.
fn handshake_only<'p>(p: &Params<'p>, out: &mut ResultWriter<'_>) -> Result<Rev, RpcError<'p>> {
    match rules(p, false, out)? {
        Rev::Stateless => Err(RpcError::method_not_found()),
        rev => Ok(rev),
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
    handshake_only(&p, out)?;
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
    let rev = handshake_only(&p, out)?;
    out.begin_object()?;
    Ok(close(out, rev)?)
}

/// `resources/subscribe`: `{}`; a subscriber to `test://watched-resource` is told
/// when it changes (`update_watched_resource`). Over HTTP the gate, which knows the
/// session, has noted it (`http::Gate::verdict`); over stdio it is noted here.
async fn subscribe<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    subscription(call, p, out, true)
}

/// `resources/unsubscribe`: `{}`, and no more word of the resource.
async fn unsubscribe<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    subscription(call, p, out, false)
}

fn subscription<'p>(
    call: &Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
    on: bool,
) -> Result<(), RpcError<'p>> {
    let rev = handshake_only(&p, out)?;
    if !call.state().http && watches(&p) {
        call.state().docs.watched.subscribe(STDIO, on);
    }
    out.begin_object()?;
    Ok(close(out, rev)?)
}

/// The request's `uri` is `test://watched-resource`.
pub(crate) fn watches(p: &Params<'_>) -> bool {
    p.get("uri")
        .and_then(|u| u.as_str())
        .is_some_and(|u| u.eq_str("test://watched-resource"))
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
    call: &mut Ctx<'_>,
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
        _ if text.eq_str("test://watched-resource") => Some(("text/plain", "")),
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
            match text.is_empty() {
                // The watched resource: its text as last set, written under the lock.
                true => {
                    let watched = &call.state().docs.watched.text;
                    out.str(&watched.lock().unwrap_or_else(|e| e.into_inner()))?
                }
                false => out.str(text)?,
            }
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
    let context = mrtr::text_of(&p, "user_context", "context");
    if name.eq_str("test_input_required_result_prompt") {
        match (rev, &context) {
            (Rev::Legacy, _) => {
                return Err(RpcError::new(
                    code::INVALID_PARAMS,
                    "Invalid params: this prompt needs 2026-07-28",
                ));
            }
            // The input this prompt needs first.
            (Rev::Stateless, None) => return Ok(mrtr::ask(out, &[&mrtr::CONTEXT], None)?),
            (Rev::Stateless, Some(_)) => {}
        }
    }
    out.begin_object()?;
    out.key("messages")?;
    out.begin_array()?;
    if let Some(context) = context.filter(|_| name.eq_str("test_input_required_result_prompt")) {
        user(out, &|out: &mut ResultWriter<'_>| {
            item(out, "text", |o| {
                o.display(format_args!("Prompt with context: {}", context.as_str()))
            })
        })?;
    } else if name.eq_str("test_simple_prompt") {
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
    let rev = handshake_only(&p, out)?;
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
    if name.eq_str("lookup") {
        return match arg("region").filter(|r| r.kind() == Kind::String) {
            Some(region) => Ok(text(out, rev, |o| {
                o.display(format_args!("would run in {}", AsText(region)))
            })?),
            None => Ok(tool_error(out, rev, "argument `region` must be a string")?),
        };
    }
    if let Some(capability) = missing_capability(&p) {
        return Err(missing(out, capability)?);
    }
    if mrtr::tool(&p, out, rev, name)? {
        return Ok(());
    }
    if name.eq_str("test_logging_tool") {
        // 2026-07-28: logs only when the request's `_meta` asks for a level.
        let asked = p.meta(META_LOG_LEVEL).and_then(|l| l.as_str());
        let asked = asked.and_then(|l| LEVELS.iter().position(|n| l.eq_str(n)));
        if rev == Rev::Legacy || asked.is_some_and(|l| l <= 1) {
            log(call, 1, "test_logging_tool ran").await?;
        }
        text(out, rev, |o| o.str("logged as asked"))?;
        return Ok(());
    }
    if name.eq_str("test_missing_capability") {
        text(out, rev, |o| o.str("Success"))?;
        return Ok(());
    }
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
    } else if name.eq_str("update_watched_resource") {
        let Some(new) = arg("text").and_then(|t| t.as_str()) else {
            return Ok(tool_error(out, rev, "argument `text` must be a string")?);
        };
        let watched = &call.state().docs.watched;
        {
            let mut text = watched.text.lock().unwrap_or_else(|e| e.into_inner());
            // Decoded (a string's escapes are the client's): valid UTF-8, as the
            // message was.
            let decoded: Vec<u8> = new.bytes().collect();
            *text = String::from_utf8_lossy(&decoded).into_owned();
        }
        // The subscribers told (a copy of the list: no lock held across an await).
        let subscribers = watched.subscribers().clone();
        let mut told = 0;
        for session in subscribers {
            if session == STDIO && !call.state().http {
                let params = |w: &mut ResultWriter<'_>| {
                    w.begin_object()?;
                    w.key("uri")?;
                    w.str("test://watched-resource")?;
                    w.end()
                };
                if call
                    .notify("notifications/resources/updated", params)
                    .await
                    .is_ok()
                {
                    told += 1;
                }
            } else if watched.listeners.send(session, UPDATED).is_ok() {
                told += 1;
            }
        }
        text(out, rev, |o| {
            o.display(format_args!("updated; {told} subscribers told"))
        })?;
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
            Err(PeerError::Lost) if call.state().http => tool_error(out, rev, NOT_OVER_HTTP)?,
            Ok(reply) => text(out, rev, |o| {
                o.display(format_args!("LLM response: {}", reply.as_str()))
            })?,
            Err(e) => text(out, rev, |o| {
                o.display(format_args!("Sampling not supported or error: {e}"))
            })?,
        }
    } else if let Some(form) = elicitation_form(name) {
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
            Err(PeerError::Lost) if call.state().http => tool_error(out, rev, NOT_OVER_HTTP)?,
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

/// Why sampling and elicitation are not available in an HTTP request that cannot ask
/// the client (the library fails the request at once, sending nothing).
const NOT_OVER_HTTP: &str = "not available in this request: over HTTP the server asks the client only in a 2025-11-25 session's request whose reply is an event stream (not with --json; at 2026-07-28, by an input_required result)";

/// The `_meta` member of a 2026-07-28 request that asks for its logs.
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// MCP's code for a request that needs a capability the client did not declare.
const MISSING_CAPABILITY: i32 = -32021;

/// The client capability a 2026-07-28 `tools/call` needs and its `_meta` does not
/// declare (the tools that need one: `test_missing_capability`, sampling;
/// `test_streaming_elicitation`, elicitation).
fn missing_capability(p: &Params<'_>) -> Option<&'static str> {
    let name = p.get("name").and_then(|n| n.as_str())?;
    let needs = match () {
        _ if name.eq_str("test_missing_capability") => "sampling",
        _ if name.eq_str("test_streaming_elicitation") => "elicitation",
        _ => return None,
    };
    let declared = p.meta(META_CAPABILITIES)?;
    declared.get(needs).is_none().then_some(needs)
}

/// The `-32021` error naming the capability.
fn missing<'p>(out: &mut ResultWriter<'_>, capability: &str) -> Result<RpcError<'p>, WriteError> {
    let e = out.error(
        MISSING_CAPABILITY,
        format_args!("Missing required client capability: {capability}"),
    )?;
    out.begin_object()?;
    out.key("requiredCapabilities")?;
    out.begin_object()?;
    out.key(capability)?;
    out.begin_object()?;
    out.end()?;
    out.end()?;
    out.end()?;
    Ok(e)
}

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

// ---- Multi-round-trip results (2026-07-28): a tool that needs the client's input
// answers `input_required` with the requests, and the client calls again with the
// responses (and the `requestState` it was given, signed here).

mod mrtr {
    use super::*;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::OnceLock;

    /// One request for the client to fulfil: its key, its method, its params.
    pub(crate) struct Ask {
        key: &'static str,
        method: &'static str,
        params: &'static [u8],
    }

    const fn elicit(key: &'static str, params: &'static [u8]) -> Ask {
        Ask {
            key,
            method: "elicitation/create",
            params,
        }
    }

    pub(crate) const CONTEXT: Ask = elicit("user_context", br#"{"message":"What context should the prompt use?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}"#);
    const USER_NAME: Ask = elicit("user_name", br#"{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#);
    const CONFIRM: Ask = elicit("confirm", br#"{"message":"Please confirm","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}"#);
    const STEP1: Ask = elicit("step1", br#"{"message":"Step 1: What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#);
    const STEP2: Ask = elicit("step2", br#"{"message":"Step 2: What is your favorite color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}"#);
    const ELICIT_INPUT: Ask = elicit("elicit_input", br#"{"message":"Elicitation input","requestedSchema":{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}}"#);
    const STREAMING: Ask = elicit("streaming_input", br#"{"message":"Anything to add?","requestedSchema":{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}}"#);
    const SAMPLE: Ask = Ask {
        key: "sample_request",
        method: "sampling/createMessage",
        params: br#"{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}"#,
    };
    const GREETING: Ask = Ask {
        key: "greeting",
        method: "sampling/createMessage",
        params: br#"{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}"#,
    };
    const SAMPLE_INPUT: Ask = Ask {
        key: "sample_input",
        method: "sampling/createMessage",
        params: br#"{"messages":[{"role":"user","content":{"type":"text","text":"Sample request"}}],"maxTokens":50}"#,
    };
    const ROOTS: Ask = Ask {
        key: "roots_request",
        method: "roots/list",
        params: b"{}",
    };
    const CLIENT_ROOTS: Ask = Ask {
        key: "client_roots",
        method: "roots/list",
        params: b"{}",
    };

    /// `{"resultType":"input_required","inputRequests":{…},"requestState":…}`.
    pub(crate) fn ask(
        out: &mut ResultWriter<'_>,
        asks: &[&Ask],
        state: Option<&str>,
    ) -> Result<(), WriteError> {
        out.begin_object()?;
        out.key("resultType")?;
        out.str("input_required")?;
        out.key("inputRequests")?;
        out.begin_object()?;
        for a in asks {
            out.key(a.key)?;
            out.begin_object()?;
            out.key("method")?;
            out.str(a.method)?;
            out.key("params")?;
            out.raw(RawJson::new(a.params).map_err(|_| WriteError::Misuse)?)?;
            out.end()?;
        }
        out.end()?;
        if let Some(state) = state {
            out.key("requestState")?;
            out.str(state)?;
        }
        out.end()
    }

    /// The client's response to the request `key`, if it sent one (an object).
    fn response<'p>(p: &Params<'p>, key: &str) -> Option<RawJson<'p>> {
        p.at(&[Key("inputResponses"), Key(key)])
            .filter(|r| r.kind() == Kind::Object)
    }

    /// An elicitation's answer: `content.field` of the response to `key`, decoded.
    pub(crate) fn text_of(p: &Params<'_>, key: &str, field: &str) -> Option<Reply> {
        let value = response(p, key)?.at(&[Key("content"), Key(field)])?;
        let mut reply = Reply::default();
        match value.kind() {
            Kind::String => reply.keep(Some(value)),
            _ => reply.keep_raw(Some(value)),
        }
        Some(reply)
    }

    /// The key of the request states: made at start-up, never sent.
    fn key() -> &'static std::hash::RandomState {
        static KEY: OnceLock<std::hash::RandomState> = OnceLock::new();
        KEY.get_or_init(std::hash::RandomState::new)
    }

    fn mac(text: &str) -> u64 {
        let mut h = key().build_hasher();
        h.write(text.as_bytes());
        h.finish()
    }

    /// A request state: `kind.round.nonce.extra` and its keyed hash (SipHash with a
    /// key of this process: a client that changes a byte of it is found out; not a
    /// cryptographic MAC, for which a server would use HMAC).
    fn sign(kind: &str, round: u32, extra: &str) -> String {
        static NONCE: AtomicU64 = AtomicU64::new(1);
        let nonce = NONCE.fetch_add(1, Ordering::Relaxed);
        let hex: String = extra.bytes().map(|b| format!("{b:02x}")).collect();
        let body = format!("{kind}.{round}.{nonce}.{hex}");
        format!("{body}.{:016x}", mac(&body))
    }

    /// The state the client sent back: (kind, round, extra), `Err` if it was changed.
    fn verify(p: &Params<'_>) -> Option<Result<(String, u32, String), ()>> {
        let state = p.get("requestState")?.as_str()?;
        let mut buf = [0u8; 512];
        let Some(state) = state.unescape_into(&mut buf) else {
            return Some(Err(()));
        };
        let Some((body, sig)) = state.rsplit_once('.') else {
            return Some(Err(()));
        };
        if format!("{:016x}", mac(body)) != sig {
            return Some(Err(()));
        }
        let mut parts = body.splitn(4, '.');
        let (Some(kind), Some(round), Some(_), Some(hex)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Some(Err(()));
        };
        let bytes: Option<Vec<u8>> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
            .collect();
        let extra = bytes.and_then(|b| String::from_utf8(b).ok());
        match (round.parse(), extra) {
            (Ok(round), Some(extra)) => Some(Ok((kind.to_string(), round, extra))),
            _ => Some(Err(())),
        }
    }

    /// A sampling response's `content.text`.
    fn sampled(p: &Params<'_>, key: &str) -> Option<Reply> {
        let text = response(p, key)?.at(&[Key("content"), Key("text")])?;
        let mut reply = Reply::default();
        reply.keep(Some(text));
        Some(reply)
    }

    /// How many roots a `roots/list` response lists.
    fn roots(p: &Params<'_>, key: &str) -> Option<usize> {
        Some(response(p, key)?.get("roots")?.elements().count())
    }

    /// The multi-round-trip tools: `Ok(true)` if `name` is one (its answer written).
    pub(crate) fn tool<'p>(
        p: &Params<'p>,
        out: &mut ResultWriter<'_>,
        rev: Rev,
        name: jsonrpc_slice::RawStr<'_>,
    ) -> Result<bool, RpcError<'p>> {
        let is = |n: &str| name.eq_str(n);
        let mrtr = is("test_streaming_elicitation") || {
            let mut buf = [0u8; 64];
            name.unescape_into(&mut buf)
                .is_some_and(|n| n.starts_with("test_input_required_result_"))
        };
        if !mrtr {
            return Ok(false);
        }
        if rev == Rev::Legacy {
            tool_error(
                out,
                rev,
                "this tool asks for input by a multi-round-trip result: 2026-07-28 only",
            )?;
            return Ok(true);
        }
        let state = verify(p);
        if matches!(state, Some(Err(()))) {
            return Err(RpcError::new(
                code::INVALID_PARAMS,
                "Invalid params: requestState integrity check failed",
            ));
        }
        let state = state.and_then(Result::ok);
        let kind = state.as_ref().map(|(k, r, _)| (k.as_str(), *r));
        // `inputResponses` that is there but not an object of objects: refused.
        if let Some(responses) = p.get("inputResponses") {
            let objects = responses.kind() == Kind::Object
                && responses.members().all(|(_, v)| v.kind() == Kind::Object);
            if !objects {
                return Err(RpcError::new(
                    code::INVALID_PARAMS,
                    "Invalid params: inputResponses must map keys to results",
                ));
            }
        }
        let done = |out: &mut ResultWriter<'_>, text: std::fmt::Arguments<'_>| {
            super::text(out, rev, |o| o.display(text))
        };
        if is("test_streaming_elicitation") {
            match text_of(p, STREAMING.key, "value") {
                Some(v) => done(out, format_args!("Thanks: {}", v.as_str()))?,
                None => ask(out, &[&STREAMING], None)?,
            }
        } else if is("test_input_required_result_elicitation") {
            match text_of(p, USER_NAME.key, "name") {
                Some(n) => done(out, format_args!("Hello, {}!", n.as_str()))?,
                None => ask(out, &[&USER_NAME], None)?,
            }
        } else if is("test_input_required_result_sampling") {
            match sampled(p, SAMPLE.key) {
                Some(t) => done(out, format_args!("Sampling result: {}", t.as_str()))?,
                None => ask(out, &[&SAMPLE], None)?,
            }
        } else if is("test_input_required_result_list_roots") {
            match roots(p, ROOTS.key) {
                Some(n) => done(out, format_args!("Found {n} root(s)"))?,
                None => ask(out, &[&ROOTS], None)?,
            }
        } else if is("test_input_required_result_request_state")
            || is("test_input_required_result_tampered_state")
        {
            let (kind_name, word) = match is("test_input_required_result_request_state") {
                true => ("request-state", "state-ok: requestState validated"),
                false => ("tamper-test", "integrity-ok: state verified"),
            };
            match (kind, response(p, CONFIRM.key)) {
                (Some((k, 1)), Some(_)) if k == kind_name => done(out, format_args!("{word}"))?,
                _ => ask(out, &[&CONFIRM], Some(&sign(kind_name, 1, "")))?,
            }
        } else if is("test_input_required_result_multiple_inputs") {
            let all = (
                text_of(p, USER_NAME.key, "name"),
                sampled(p, GREETING.key),
                roots(p, CLIENT_ROOTS.key),
            );
            match (kind, all) {
                (Some(("multiple-inputs", 1)), (Some(n), Some(g), Some(r))) => done(
                    out,
                    format_args!("Name: {}; Greeting: {}; Roots: {r}", n.as_str(), g.as_str()),
                )?,
                _ => ask(
                    out,
                    &[&USER_NAME, &GREETING, &CLIENT_ROOTS],
                    Some(&sign("multiple-inputs", 1, "")),
                )?,
            }
        } else if is("test_input_required_result_multi_round") {
            match (
                &state,
                text_of(p, STEP1.key, "name"),
                text_of(p, STEP2.key, "color"),
            ) {
                (Some((k, 1, _)), Some(n), _) if k == "multi-round" => {
                    ask(out, &[&STEP2], Some(&sign("multi-round", 2, n.as_str())))?
                }
                (Some((k, 2, n)), _, Some(c)) if k == "multi-round" => done(
                    out,
                    format_args!("Multi-round complete for {n} who likes {}", c.as_str()),
                )?,
                _ => ask(out, &[&STEP1], Some(&sign("multi-round", 1, "")))?,
            }
        } else if is("test_input_required_result_capabilities") {
            let declared = |c: &str| p.meta(META_CAPABILITIES).and_then(|d| d.get(c)).is_some();
            let mut asks: Vec<&Ask> = Vec::new();
            if declared("elicitation") {
                asks.push(&ELICIT_INPUT);
            }
            if declared("sampling") {
                asks.push(&SAMPLE_INPUT);
            }
            let answered = p
                .get("inputResponses")
                .is_some_and(|r| r.members().next().is_some());
            match (answered, asks.is_empty()) {
                (true, _) => done(out, format_args!("capabilities-ok"))?,
                (false, true) => done(out, format_args!("No supported capabilities declared"))?,
                (false, false) => ask(out, &asks, Some(&sign("capabilities-test", 1, "")))?,
            }
        } else {
            return Err(out.error(code::INVALID_PARAMS, format_args!("Unknown tool: {name}"))?);
        }
        Ok(true)
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

        /// A new session's id, and the session closed for it, if one was.
        fn open(&self) -> (u64, Option<u64>) {
            let n = self.next.fetch_add(1, Ordering::Relaxed);
            // A bijection of the count (odd multiplier, xor, rotation): never repeats.
            let id = (n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.key).rotate_left(29);
            let mut open = self.lock();
            let closed = match open.len() >= MAX_SESSIONS {
                true => open.pop_front(),
                false => None,
            };
            open.push_back(id);
            (id, closed)
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
        pub(crate) mcp: Mcp,
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
            let watched = &self.mcp.docs.watched;
            match *head.method {
                Method::POST => {}
                Method::DELETE => {
                    return match session {
                        Some(id) if self.sessions.close(id) => {
                            watched.ended(id);
                            Verdict::respond(StatusCode::OK, "")
                        }
                        Some(_) => Verdict::respond(StatusCode::NOT_FOUND, ""),
                        None => Verdict::respond(StatusCode::BAD_REQUEST, ""),
                    };
                }
                // A session's stream of what the server sends outside its calls (the
                // resource's updates), replacing the one it had.
                Method::GET => {
                    return match session {
                        Some(s) if !self.sessions.find(s) => {
                            Verdict::respond(StatusCode::NOT_FOUND, "")
                        }
                        Some(_) if !accepts_events(head.headers) => {
                            Verdict::respond(StatusCode::NOT_ACCEPTABLE, "")
                        }
                        Some(s) => Verdict::listen(s),
                        // No session, no stream (2026-07-28 has none): the library's
                        // `405`.
                        None => Verdict::answer(),
                    };
                }
                // The library's `405`.
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
                // A response, to a handler's request (sampling, elicitation): the
                // library hands it to the call of this session that awaits it. Outside
                // a session nothing awaits one: taken, and dropped.
                return match session {
                    Some(s) if self.sessions.find(s) => {
                        Verdict::answer().no_reply(StatusCode::ACCEPTED).peer(s)
                    }
                    _ => Verdict::respond(StatusCode::ACCEPTED, ""),
                };
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
                let (id, closed) = self.sessions.open();
                if let Some(closed) = closed {
                    watched.ended(closed);
                }
                let value = HeaderValue::from_str(&format!("{id:016x}"));
                return match value {
                    Ok(value) => answer().header(SESSION, value),
                    Err(_) => Verdict::respond(StatusCode::INTERNAL_SERVER_ERROR, ""),
                };
            }
            match session {
                // The session's client answers the server's requests (in other
                // `POST`s of the session): the call may ask it.
                Some(s) if self.sessions.find(s) => {
                    // A subscription is the session's: noted here, where the session
                    // is known (the handler answers `{}`).
                    let on = method.eq_str("resources/subscribe");
                    if (on || method.eq_str("resources/unsubscribe")) && watches(&params) {
                        watched.subscribe(s, on);
                    }
                    answer().peer(s)
                }
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
            if !METHODS_2026.iter().any(|m| method.eq_str(m)) {
                return Some(error(
                    StatusCode::NOT_FOUND,
                    id,
                    code::METHOD_NOT_FOUND,
                    "Method not found",
                ));
            }
            if method.eq_str("tools/call") {
                if let Some(capability) = missing_capability(params) {
                    let body = json!({"jsonrpc": "2.0", "id": raw_value(id),
                        "error": {"code": MISSING_CAPABILITY,
                                  "message": format!("Missing required client capability: {capability}"),
                                  "data": {"requiredCapabilities": {capability: {}}}}});
                    return Some(Verdict::respond(
                        StatusCode::BAD_REQUEST,
                        serde_json::to_vec(&body).unwrap_or_default(),
                    ));
                }
            }
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
            // The tool's arguments mirrored in `Mcp-Param-*` headers: each there
            // exactly when the argument is, and the same value.
            let tool = method
                .eq_str("tools/call")
                .then(|| params.get("name").and_then(|n| n.as_str()))
                .flatten();
            let mirrored = tool.and_then(|t| {
                self.mcp
                    .docs
                    .param_headers
                    .iter()
                    .find(|(name, _)| t.eq_str(name))
            });
            for (header, property) in mirrored.map(|(_, h)| h.as_slice()).unwrap_or(&[]) {
                let value = params.at(&[Key("arguments"), Key(property)]);
                let said = headers.get(header.as_str());
                let same = match (value, said) {
                    (None, None) => true,
                    (Some(value), Some(said)) => match decoded(said.as_bytes(), &mut buf) {
                        Some(said) => same_param(value, said),
                        None => false,
                    },
                    _ => false,
                };
                if !same {
                    return Some(error(
                        StatusCode::BAD_REQUEST,
                        id,
                        HEADER_MISMATCH,
                        &format!("Header mismatch: {header} is not the argument `{property}`"),
                    ));
                }
            }
            None
        }
    }

    /// An argument as its header carries it: a string as its text, an integer in
    /// decimal, a boolean as `true` or `false`.
    fn same_param(value: RawJson<'_>, said: &[u8]) -> bool {
        match value.kind() {
            Kind::String => value.as_str().is_some_and(|v| v.eq_bytes(said)),
            Kind::Number | Kind::Bool => value.as_bytes() == said,
            _ => false,
        }
    }

    /// A header value as its text: `=?base64?…?=` decoded into `buf`, else as sent
    /// (surrounding blanks dropped). `None`: base64 that does not decode.
    fn decoded<'b>(value: &'b [u8], buf: &'b mut [u8]) -> Option<&'b [u8]> {
        let value = value.trim_ascii();
        // RFC 9110's field value: visible ASCII, space, tab.
        if !value
            .iter()
            .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b))
        {
            return None;
        }
        let Some(b64) = value
            .strip_prefix(b"=?base64?")
            .and_then(|v| v.strip_suffix(b"?="))
        else {
            return Some(value);
        };
        // Strictly base64: padded to a multiple of 4, `=` only at the end.
        if b64.len() % 4 != 0 {
            return None;
        }
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
        if b64.contains(&b'=') {
            return None;
        }
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
    // Pipes (as a client launches the server) are read and written on the runtime's
    // reactor; a terminal or a file through tokio's blocking pool.
    let (stdin, stdout) = runtime.block_on(async { (stdio::stdin(), stdio::stdout()) });
    let (mut stdin, mut stdout) = (Io(stdin), Io(stdout));
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
    // The documents are written once; each request's state is a reference to them.
    let mcp = Mcp {
        http: true,
        ..Mcp::new()
    };
    let gate = http::Gate {
        sessions: http::Sessions::new(),
        json_only,
        mcp,
    };
    let server = HttpServer::concurrent::<SLOTS, _>(&SERVER, move || mcp)
        .with_listeners(mcp.docs.watched.listeners.clone())
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
