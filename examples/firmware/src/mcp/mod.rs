//! MCP over the UART (`--features mcp`, the LM3S6965): one message a line, as MCP's
//! stdio transport has it, so a host's MCP client can run QEMU as its server command
//! with the UART on standard input and output.
//!
//! Both revisions, chosen per request as 2026-07-28's "dual-era" rules say:
//! - a request whose `params._meta` has `io.modelcontextprotocol/protocolVersion` is
//!   served as 2026-07-28, statelessly: the version must be `2026-07-28` (else
//!   `-32022` with the versions served), `io.modelcontextprotocol/clientCapabilities`
//!   must be there (else `-32602`), and every result has `resultType`;
//!   `server/discover` is served, `ping` is not (2026-07-28 removed it);
//! - `initialize` starts 2025-11-25 (the one handshake revision served, whatever
//!   the client offers); from then on a request without that `_meta` is served as
//!   2025-11-25. Before it, such a request is `-32602` (its `_meta` is missing), but
//!   for `ping`, which 2025-11-25 allows at any time.
//!
//! The tools (`tools.rs`) are the board's ADC and LED (`board::Io`). Bad arguments
//! are a tool result with `isError` (MCP's "tool execution error": the model can
//! correct them); an unknown tool, or `arguments` that is not an object, is `-32602`
//! (a request that fails `CallToolRequest`'s schema). `stats` and `shutdown` are the
//! firmware's test hooks, as in the JSON-RPC image (not MCP methods).
//!
//! Nothing is written before the first request: stdout carries MCP messages only (the
//! JSON-RPC image's `ready` line would be none).

mod tools;

use core::fmt;

use jsonrpc_slice::dispatch::{CallHook, CallInfo};
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::{malformed_frame_reply, oversized_frame_reply, FeedResult};
use jsonrpc_slice::raw::Step::Key;
use jsonrpc_slice::{
    method_table, IdKind, Kind, Limits, Params, RawJson, RawStr, ResultWriter, RpcError, Server,
};

use crate::board::{Clock, Io, Serial, Uart};
use crate::cell::TakeOnce;
use crate::stack;
use tools::{BadArguments, ReadSensor, Sample, SetLed, Tool};

/// The longest line taken, in bytes; a longer one gets `-32600`.
const MAX_FRAME: usize = 1024;
/// The longest id taken, in bytes (JSON text, quotes included); a longer one gets
/// `-32600`. MCP's clients number their requests; 64 bytes hold a UUID string too.
const MAX_ID: usize = 64;
/// The reply buffer: the largest reply, the `tools/list` document, fits in its
/// envelope (`{"jsonrpc":"2.0","result":` … `,"id":` … `}`) with the longest id.
const MAX_REPLY: usize = tools::TOOLS_LIST.len() + 33 + MAX_ID;

/// The receive and reply buffers, in one cell.
struct Buffers {
    frames: LineAccumulator<MAX_FRAME>,
    reply: [u8; MAX_REPLY],
}

static BUFFERS: TakeOnce<Buffers> = TakeOnce::new(Buffers {
    frames: LineAccumulator::new(),
    reply: [0; MAX_REPLY],
});

/// What the handlers see: the UART (progress notifications go out while a tool runs,
/// before its reply), the devices, and the 2025-11-25 handshake's state.
pub struct Ctx {
    uart: Uart,
    io: Io,
    /// `initialize` was answered: requests without 2026-07-28's `_meta` are 2025-11-25.
    initialized: bool,
    /// Frames received (oversized ones and this one included).
    frames: u32,
    /// Instructions the previous `Server::handle` call took.
    last_handle_instructions: u32,
    /// Set by `shutdown`: exit once its reply is out.
    shutdown: bool,
}

/// MCP's methods, and the firmware's two test hooks. MCP has no batches since
/// 2025-06-18: a batch is refused whole (`max_batch(0)`). Ids up to [`MAX_ID`], and
/// never `null` (the hook).
static SERVER: Server<Ctx> = Server::new(method_table! {
    "initialize" => initialize,
    "ping" => ping,
    "server/discover" => discover,
    "tools/list" => tools_list,
    "tools/call" => tools_call,
    "stats" => stats,
    "shutdown" => shutdown,
})
.with_limits(Limits::DEFAULT.max_batch(0).max_id_len(MAX_ID))
.with_hook(CallHook {
    before: refuse_null_id,
    after: |_, _, _| {},
});

/// MCP's request ids are strings or numbers, never `null` (both revisions): such a
/// request is `-32600`, before its handler runs.
fn refuse_null_id(call: &CallInfo<'_>) -> Result<(), RpcError<'static>> {
    match call.id.is_some_and(|id| id.kind() == IdKind::Null) {
        true => Err(RpcError::new(
            -32600,
            "Invalid Request: an MCP request id is a string or a number, not null",
        )),
        false => Ok(()),
    }
}

/// `-32022`: the request's protocol version is not served.
const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
/// `-32602`.
const INVALID_PARAMS: i32 = -32602;

// The handlers' paths out of line (`era`, each tool, `tool_result`): a request's stack
// is then the depth of its own path, not the sum of every tool's locals in one frame
// of `tools_call` (1 008 B of stack at the peak, against the 1 KiB budget).

/// The revision a request is served under.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Era {
    /// 2026-07-28: the request carried its `_meta`.
    Modern,
    /// 2025-11-25, after `initialize`.
    Legacy,
}

/// The revision of a request, from its `_meta` and the handshake's state; the error
/// reply when it has none (see the module's rules).
#[inline(never)]
fn era<'p>(ctx: &Ctx, p: &Params<'p>, out: &mut ResultWriter<'_>) -> Result<Era, RpcError<'p>> {
    let Some(version) = p.at(&[Key("_meta"), Key("io.modelcontextprotocol/protocolVersion")])
    else {
        return match ctx.initialized {
            true => Ok(Era::Legacy),
            false => Err(RpcError::new(
                INVALID_PARAMS,
                "Invalid params: _meta has no io.modelcontextprotocol/protocolVersion, and no initialize came before",
            )),
        };
    };
    let Some(v) = version.as_str() else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            "Invalid params: io.modelcontextprotocol/protocolVersion must be a string",
        ));
    };
    if !v.eq_str(tools::MODERN) {
        let e = out.error(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")?;
        out.begin_object()?;
        out.key("supported")?;
        out.begin_array()?;
        out.str(tools::MODERN)?;
        out.str(tools::LEGACY)?;
        out.end()?;
        out.key("requested")?;
        out.raw(version)?;
        out.end()?;
        return Err(e);
    }
    let capabilities = p.at(&[
        Key("_meta"),
        Key("io.modelcontextprotocol/clientCapabilities"),
    ]);
    if capabilities.is_none_or(|c| c.kind() != Kind::Object) {
        return Err(RpcError::new(
            INVALID_PARAMS,
            "Invalid params: _meta has no io.modelcontextprotocol/clientCapabilities object",
        ));
    }
    Ok(Era::Modern)
}

/// Writes a constant document (one of `tools.rs`'s) as the result.
fn document<'p>(out: &mut ResultWriter<'_>, doc: &'static str) -> Result<(), RpcError<'p>> {
    let value = RawJson::new(doc.as_bytes()).map_err(|_| RpcError::internal())?;
    Ok(out.raw(value)?)
}

/// `initialize` (2025-11-25): the handshake; answered with 2025-11-25 whatever the
/// client offered (its one handshake revision), which the client may then refuse.
fn initialize<'p>(
    ctx: &mut Ctx,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    if p.get("protocolVersion")
        .is_none_or(|v| v.as_str().is_none())
    {
        return Err(RpcError::new(
            INVALID_PARAMS,
            "Invalid params: protocolVersion must be a string",
        ));
    }
    ctx.initialized = true;
    document(out, tools::INITIALIZE)
}

/// `ping` (2025-11-25, at any time) → `{}`; under 2026-07-28, which removed it,
/// `-32601`.
fn ping<'p>(ctx: &mut Ctx, p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    if p.at(&[Key("_meta"), Key("io.modelcontextprotocol/protocolVersion")])
        .is_some()
    {
        era(ctx, &p, out)?;
        return Err(RpcError::method_not_found());
    }
    out.begin_object()?;
    Ok(out.end()?)
}

/// `server/discover` (2026-07-28): the versions, capabilities and identity.
fn discover<'p>(
    ctx: &mut Ctx,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    if era(ctx, &p, out)? != Era::Modern {
        return Err(RpcError::new(
            INVALID_PARAMS,
            "Invalid params: server/discover is 2026-07-28's, and its _meta is missing",
        ));
    }
    document(out, tools::DISCOVER)
}

/// `tools/list`: one page, the whole list (a cursor is one this server never gave).
fn tools_list<'p>(
    ctx: &mut Ctx,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    era(ctx, &p, out)?;
    if p.get("cursor").is_some() {
        return Err(RpcError::new(
            INVALID_PARAMS,
            "Invalid params: unknown cursor",
        ));
    }
    document(out, tools::TOOLS_LIST)
}

/// `tools/call`: the named tool on its arguments.
fn tools_call<'p>(
    ctx: &mut Ctx,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    era(ctx, &p, out)?;
    let Some(name) = p.get("name").and_then(|n| n.as_str()) else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            "Invalid params: name must be a string",
        ));
    };
    let arguments = p.get("arguments");
    let outcome = if name.eq_str(ReadSensor::NAME) {
        ReadSensor::parse(arguments).map(|args| read_sensor(ctx, args, out))
    } else if name.eq_str(SetLed::NAME) {
        SetLed::parse(arguments).map(|args| set_led(ctx, args, out))
    } else if name.eq_str(Sample::NAME) {
        // The token is looked up here, not in `sample`: the walk of `_meta` (the
        // validator's frame, when it skips a sibling) then does not sit on top of
        // `sample`'s frame (−48 B of peak stack).
        let token = p
            .at(&[Key("_meta"), Key("progressToken")])
            .filter(|t| matches!(t.kind(), Kind::String | Kind::Number));
        Sample::parse(arguments).map(|args| sample(ctx, token, args, out))
    } else {
        let e = out.error(INVALID_PARAMS, UnknownTool(name))?;
        return Err(e);
    };
    match outcome {
        Ok(done) => done,
        Err(BadArguments::NotAnObject) => Err(RpcError::new(
            INVALID_PARAMS,
            "Invalid params: arguments must be an object",
        )),
        // Input validation: a tool execution error, which the model can correct.
        Err(bad) => tool_error(out, format_args!("Invalid arguments: {bad}")),
    }
}

/// The message of `-32602` for a tool this server does not have.
struct UnknownTool<'a>(RawStr<'a>);

impl fmt::Display for UnknownTool<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Unknown tool: ")?;
        fmt::Display::fmt(&self.0, f)
    }
}

/// A tool's result: named numbers.
type Members<'a> = &'a [(&'a str, u32)];

/// A `CallToolResult` up to its text: `resultType` and the one content block's start.
fn result_head<'p>(out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    out.begin_object()?;
    out.key("resultType")?;
    out.str("complete")?;
    out.key("content")?;
    out.begin_array()?;
    out.begin_object()?;
    out.key("type")?;
    out.str("text")?;
    Ok(out.key("text")?)
}

/// The rest of a `CallToolResult` after its text: the structured content if any,
/// `isError`, and the server's identity in `_meta`.
#[inline(never)]
fn result_tail<'p>(
    out: &mut ResultWriter<'_>,
    structured: Option<Members<'_>>,
) -> Result<(), RpcError<'p>> {
    out.end()?;
    out.end()?;
    if let Some(members) = structured {
        out.key("structuredContent")?;
        out.begin_object()?;
        for &(key, value) in members {
            out.key(key)?;
            out.u64(u64::from(value))?;
        }
        out.end()?;
    }
    out.key("isError")?;
    out.bool(structured.is_none())?;
    // `tools::SERVER_INFO_META`, written member by member: no scan of a document
    // (whose validator's stack would come on top of this path's).
    out.key("_meta")?;
    out.begin_object()?;
    out.key("io.modelcontextprotocol/serverInfo")?;
    out.begin_object()?;
    out.key("name")?;
    out.str(tools::SERVER_NAME)?;
    out.key("version")?;
    out.str(tools::SERVER_VERSION)?;
    out.end()?;
    out.end()?;
    Ok(out.end()?)
}

/// A tool's `CallToolResult`: `members` as its structured content, and as its text
/// the same object serialized (MCP: a tool that returns structured content SHOULD
/// also return it as JSON in a text block). Written piece by piece, without
/// `core::fmt`, whose machinery would sit on the stack of every tool's path.
#[inline(never)]
fn tool_result<'p>(out: &mut ResultWriter<'_>, members: Members<'_>) -> Result<(), RpcError<'p>> {
    result_head(out)?;
    out.string_start()?;
    let mut separator = "{\"";
    for &(key, value) in members {
        out.string_push(separator)?;
        out.string_push(key)?;
        out.string_push("\":")?;
        let mut digits = [0u8; 10];
        let mut at = digits.len();
        let mut n = value;
        loop {
            at -= 1;
            if let Some(d) = digits.get_mut(at) {
                *d = b'0' + (n % 10) as u8;
            }
            n /= 10;
            if n == 0 || at == 0 {
                break;
            }
        }
        let digits = digits.get(at..).unwrap_or(&[]);
        out.string_push(core::str::from_utf8(digits).unwrap_or("0"))?;
        separator = ",\"";
    }
    out.string_push("}")?;
    out.string_end()?;
    result_tail(out, Some(members))
}

/// A `CallToolResult` with `isError`: `text` says what went wrong.
#[inline(never)]
fn tool_error<'p>(out: &mut ResultWriter<'_>, text: impl fmt::Display) -> Result<(), RpcError<'p>> {
    result_head(out)?;
    out.display(text)?;
    result_tail(out, None)
}

/// The result of a conversion the ADC did not answer.
fn adc_failed<'p>(out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    tool_error(out, "The ADC did not convert")
}

/// `read_sensor`.
#[inline(never)]
fn read_sensor<'p>(
    ctx: &mut Ctx,
    args: ReadSensor,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let channel = args.channel;
    let Some(value) = ctx.io.convert(channel) else {
        return adc_failed(out);
    };
    tool_result(
        out,
        &[("channel", u32::from(channel)), ("value", u32::from(value))],
    )
}

/// `set_led`.
#[inline(never)]
fn set_led<'p>(
    ctx: &mut Ctx,
    args: SetLed,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let on = ctx.io.set_led(args.on);
    tool_result(out, &[("on", u32::from(on))])
}

/// `sample`: `count` conversions, a progress notification after each when the
/// request has a progress token (a string or a number).
#[inline(never)]
fn sample<'p>(
    ctx: &mut Ctx,
    token: Option<RawJson<'_>>,
    args: Sample,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let (channel, count) = (args.channel, args.count);
    let (mut min, mut max, mut sum) = (u32::MAX, 0, 0);
    for done in 1..=count {
        let Some(value) = ctx.io.convert(channel) else {
            return adc_failed(out);
        };
        let value = u32::from(value);
        min = min.min(value);
        max = max.max(value);
        sum += value;
        if let Some(token) = token {
            progress(&mut ctx.uart, token, done, count);
        }
    }
    let (channel, count) = (u32::from(channel), u32::from(count));
    tool_result(
        out,
        &[
            ("channel", channel),
            ("count", count),
            ("min", min),
            ("max", max),
            ("mean", sum / count.max(1)),
        ],
    )
}

/// Sends `notifications/progress` for `token` (a string or a number, copied as
/// received: no line break can be in either), `done` of `total`.
fn progress(uart: &mut Uart, token: RawJson<'_>, done: u8, total: u8) {
    uart.write_all(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"#,
    );
    uart.write_all(token.as_bytes());
    uart.write_all(br#","progress":"#);
    write_decimal(uart, done);
    uart.write_all(br#","total":"#);
    write_decimal(uart, total);
    uart.write_all(b"}}\n");
}

/// Writes `n` in decimal.
fn write_decimal(uart: &mut Uart, n: u8) {
    if n >= 100 {
        uart.write_byte(b'0' + n / 100);
    }
    if n >= 10 {
        uart.write_byte(b'0' + n / 10 % 10);
    }
    uart.write_byte(b'0' + n % 10);
}

/// `stats` (a test hook) → `{"stack_peak_bytes":N,"stack_size_bytes":S,"frames":M,
/// "last_handle_instructions":I}`, as the JSON-RPC image answers it.
fn stats<'p>(ctx: &mut Ctx, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    let members = [
        ("stack_peak_bytes", stack::peak() as i64),
        ("stack_size_bytes", stack::size() as i64),
        ("frames", i64::from(ctx.frames)),
        (
            "last_handle_instructions",
            i64::from(ctx.last_handle_instructions),
        ),
    ];
    out.begin_object()?;
    for (name, value) in members {
        out.key(name)?;
        out.i64(value)?;
    }
    Ok(out.end()?)
}

/// `shutdown` (a test hook) → `"bye"`; once the reply is out, QEMU exits with status 0.
fn shutdown<'p>(
    ctx: &mut Ctx,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    ctx.shutdown = true;
    Ok(out.str("bye")?)
}

/// Serves MCP on `uart` until `shutdown`.
pub fn run(uart: Uart, clock: Clock) -> ! {
    let Some(Buffers { frames, reply }) = BUFFERS.take() else {
        crate::board::exit(false)
    };
    let mut ctx = Ctx {
        uart,
        io: Io::init(),
        initialized: false,
        frames: 0,
        last_handle_instructions: 0,
        shutdown: false,
    };
    let mut chunk = [0u8; 16];
    loop {
        let n = ctx.uart.read_some(&mut chunk);
        let mut input = chunk.get(..n).unwrap_or(&[]);
        loop {
            let answer = match frames.feed(input) {
                FeedResult::Consumed => break,
                FeedResult::Frame { frame, remaining } => {
                    input = remaining;
                    ctx.frames = ctx.frames.wrapping_add(1);
                    let start = clock.now();
                    let answer = SERVER.handle(&mut ctx, frame, reply);
                    ctx.last_handle_instructions = clock.instructions(start, clock.now());
                    answer
                }
                FeedResult::Oversized { remaining } => {
                    input = remaining;
                    ctx.frames = ctx.frames.wrapping_add(1);
                    oversized_frame_reply(MAX_FRAME, reply)
                }
                // Lines have no headers to get wrong; answered all the same.
                FeedResult::Malformed { remaining } => {
                    input = remaining;
                    ctx.frames = ctx.frames.wrapping_add(1);
                    malformed_frame_reply(reply)
                }
            };
            // An empty reply is a notification's: nothing to send.
            if let Ok(answer) = answer {
                if !answer.is_empty() {
                    ctx.uart.write_all(answer);
                    ctx.uart.write_byte(b'\n');
                }
            }
            if ctx.shutdown {
                ctx.uart.flush();
                crate::board::exit(true);
            }
        }
    }
}
