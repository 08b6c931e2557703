//! A `tracing` span per call (feature `tracing`), built on the
//! [call hook](crate::dispatch::CallHook): [`HOOK`].
//!
//! Each call gets a span named `rpc.call` with the OpenTelemetry fields of JSON-RPC:
//! `rpc.system` (`"jsonrpc"`), `rpc.method`, `rpc.jsonrpc.request_id` (the id as sent;
//! empty for a notification) and a `trace_id` of its own, unique in the process. When
//! the call ends the span records `rpc.outcome` (`result`, `error` or `no_reply`),
//! `rpc.jsonrpc.error_code` for an error, and `rpc.duration_us`, then closes; a
//! subscriber that logs span closes (`tracing-subscriber`'s `FmtSpan::CLOSE`) prints one
//! line per call with all of them.
//!
//! The span is *entered* from the hook's `before` to its `after`, on the thread that
//! runs the call: what the handler logs is inside it, and so in the context of its
//! request. That is right for every handler that runs to its end once started: every
//! blocking handler, whichever server runs it ([`Server`](crate::Server), the HTTP
//! server, a [`MethodTable`](crate::MethodTable) in the concurrent service). An async
//! handler that awaits lets other calls of its task run meanwhile; their spans are then
//! opened inside its span (their parent is the span current when they start), and
//! their logs are attributed to both. A call whose future moves to another thread
//! between `before` and `after` (a `Send` future on a multi-threaded runtime) is not
//! closed by `after` there: its span stays open until 256 later calls on its first
//! thread have pushed it out.
//!
//! **A trace id for the client.** The request's id is the span's
//! `rpc.jsonrpc.request_id`, so a client's report of the id it sent finds the server's
//! log line. For errors, [`error`] writes the call's [`trace_id`] into the error's
//! `data` (`{"traceId":"…"}`, 16 hex digits), the same value the span records as
//! `trace_id`: a user who reports the error brings the key to the server's logs.
//!
//! ```
//! use jsonrpc_slice::{method_table, Params, ResultWriter, RpcError, Server};
//!
//! fn open<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
//!     ::tracing::warn!("the door is locked"); // inside the call's span
//!     Err(jsonrpc_slice::tracing::error(out, -32001, "locked")?)
//! }
//!
//! static SERVER: Server<()> =
//!     Server::new(method_table! { "open" => open }).with_hook(jsonrpc_slice::tracing::HOOK);
//!
//! let mut out = [0u8; 256];
//! let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"open","id":7}"#, &mut out)?;
//! let reply = std::str::from_utf8(reply).unwrap();
//! assert!(reply.starts_with(r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"locked","data":{"traceId":""#));
//! # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
//! ```
//!
//! To log and also limit or count, call [`before`] and [`after`] from a hook of your own.

use core::cell::RefCell;
use core::fmt;
use core::sync::atomic::{AtomicU64, Ordering};
use core::time::Duration;
use std::thread_local;
use std::vec::Vec;

use ::tracing::field::Empty;
use ::tracing::span::EnteredSpan;

use crate::dispatch::{CallHook, CallInfo, Outcome};
use crate::error::RpcError;
use crate::write::{ResultWriter, WriteError};

/// The hook that opens a span per call: [`before`] and [`after`].
pub const HOOK: CallHook = CallHook { before, after };

/// How many calls a thread keeps open at once (past it the oldest is closed).
const OPEN: usize = 256;

/// A call in progress on this thread: where its method's bytes are (what tells it
/// from the others in flight), its trace id, its span.
struct Open {
    key: usize,
    trace_id: u64,
    span: EnteredSpan,
}

thread_local! {
    static CALLS: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
}

/// The last trace id given.
static TRACE_IDS: AtomicU64 = AtomicU64::new(0);

/// A call's key: the address of its method's bytes, in the message its server holds
/// while the call runs (two calls in flight are two messages, or two places in one).
fn key(call: &CallInfo<'_>) -> usize {
    call.method.as_raw().as_ptr() as usize
}

/// An id as sent, for the span (`Empty` stays for a notification).
struct Shown<T>(T);

impl<T: fmt::Display> fmt::Debug for Shown<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Opens and enters the call's span. Never refuses a call.
pub fn before(call: &CallInfo<'_>) -> Result<(), RpcError<'static>> {
    // Never 0, so a trace id is always non-zero.
    let trace_id = TRACE_IDS.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
    let span = ::tracing::info_span!(
        "rpc.call",
        rpc.system = "jsonrpc",
        rpc.method = %call.method,
        rpc.jsonrpc.request_id = Empty,
        trace_id = %format_args!("{trace_id:016x}"),
        rpc.outcome = Empty,
        rpc.jsonrpc.error_code = Empty,
        rpc.duration_us = Empty,
    );
    if let Some(id) = call.id {
        span.record("rpc.jsonrpc.request_id", ::tracing::field::debug(Shown(id)));
    }
    let open = Open {
        key: key(call),
        trace_id,
        span: span.entered(),
    };
    let _ = CALLS.try_with(|calls| {
        let Ok(mut calls) = calls.try_borrow_mut() else {
            return;
        };
        if calls.len() >= OPEN {
            calls.remove(0);
        }
        calls.push(open);
    });
    Ok(())
}

/// Records how the call ended and closes its span.
pub fn after(call: &CallInfo<'_>, outcome: Outcome, elapsed: Option<Duration>) {
    let key = key(call);
    let open = CALLS
        .try_with(|calls| {
            let mut calls = calls.try_borrow_mut().ok()?;
            let at = calls.iter().rposition(|open| open.key == key)?;
            Some(calls.remove(at))
        })
        .ok()
        .flatten();
    let Some(open) = open else {
        return;
    };
    let span = open.span;
    let (name, code) = match outcome {
        Outcome::Result => ("result", None),
        Outcome::Error(code) => ("error", Some(code)),
        Outcome::NoReply => ("no_reply", None),
    };
    span.record("rpc.outcome", name);
    if let Some(code) = code {
        span.record("rpc.jsonrpc.error_code", code);
    }
    if let Some(elapsed) = elapsed {
        let us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        span.record("rpc.duration_us", us);
    }
    // Exited and closed here.
    drop(span);
}

/// The trace id of the innermost call running on this thread (the one whose handler
/// asks), or `None` outside a call or without [`HOOK`].
pub fn trace_id() -> Option<u64> {
    CALLS
        .try_with(|calls| calls.try_borrow().ok()?.last().map(|open| open.trace_id))
        .ok()
        .flatten()
}

/// Writes an error reply whose `data` is `{"traceId":"…"}`, the running call's
/// [`trace_id`] as 16 hex digits (no `data` outside a call traced by [`HOOK`]), as
/// [`ResultWriter::error`] does; return the error it gives from the handler.
pub fn error(
    out: &mut ResultWriter<'_>,
    code: i32,
    message: impl fmt::Display,
) -> Result<RpcError<'static>, WriteError> {
    let e = out.error(code, message)?;
    if let Some(id) = trace_id() {
        out.begin_object()?;
        out.key("traceId")?;
        out.display(format_args!("{id:016x}"))?;
        out.end()?;
    }
    Ok(e)
}
