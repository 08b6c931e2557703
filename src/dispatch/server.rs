//! The [`Server`]: a message parsed, its calls dispatched through the method table,
//! and the reply written (scan → envelope → dispatch → write).

use core::fmt;

use super::call::{call_end, call_start, is_notification, parse_failure, BatchState, Failure};
use super::hook::{CallHook, CallInfo, Outcome, Started};
use super::table::{Fallback, Handler, MethodTable};
use crate::envelope::{self, Batch, Call, Envelope, Request};
use crate::error::{code, InvalidRequest};
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::{RawJson, RawStr};
use crate::write::{Message, ResultWriter, WriteError};

/// What runs a call: a method's handler, or the fallback.
enum Target<C: 'static> {
    Method(Handler<C>),
    Fallback(Fallback<C>),
}

/// The output buffer cannot hold even the error reply that replaces a reply too large
/// for it. Nothing was written.
///
/// The longest error reply written in place of another is 126 bytes plus the id it
/// echoes; ids are at most [`Limits`]`::max_id_len` bytes (256 by default). So a buffer of
/// [`OutputTooSmall::enough`] bytes, 128 plus `max_id_len` (384 by default), never gives
/// this error.
///
/// ```
/// use jsonrpc_slice::{Limits, OutputTooSmall};
///
/// assert_eq!(OutputTooSmall::enough(&Limits::DEFAULT), 384);
/// assert_eq!(OutputTooSmall::enough(&Limits::DEFAULT.max_id_len(16)), 144);
/// ```
// A unit: it travels in a register pair with the reply's length (flash, on a
// Cortex-M); the size it names is `enough`'s, computed only where it is asked for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OutputTooSmall;

impl OutputTooSmall {
    /// The output buffer size that never gives this error under `limits`: the longest
    /// error reply written in place of another (126 bytes) and two to spare, plus the
    /// longest id `limits` lets through.
    pub const fn enough(limits: &Limits) -> usize {
        128 + limits.max_id_len
    }
}

impl fmt::Display for OutputTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "output buffer too small for an error reply: give it at least 128 bytes more \
             than the longest id (Limits::max_id_len, 256 by default)",
        )
    }
}

impl core::error::Error for OutputTooSmall {}

/// A JSON-RPC 2.0 server: a method table and the limits it applies.
///
/// Its handlers run one at a time, each to its end before the next message is read:
/// the loops that serve it ([`Service`](crate::service::Service)) answer messages in
/// order. For handlers that wait (a sensor, a peer, a long tool) while other calls
/// are answered, and for cancellation, use the concurrent service
/// (`service::concurrent`, feature `concurrent`).
///
/// ```
/// use jsonrpc_slice::{demo, Server};
///
/// static SERVER: Server<()> = Server::new(demo::TABLE);
/// let mut out = [0u8; 256];
/// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"}"#, &mut out)?;
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":7,"id":"1"}"#);
/// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
/// ```
pub struct Server<C: 'static> {
    table: MethodTable<C>,
    limits: Limits,
    /// The handler for names the table lacks.
    fallback: Option<Fallback<C>>,
    /// What is told of each call, if anything.
    hook: Option<CallHook>,
}

impl<C> fmt::Debug for Server<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("table", &self.table)
            .field("limits", &self.limits)
            .finish()
    }
}

impl<C> Server<C> {
    /// A server for `table` with [`Limits::DEFAULT`].
    pub const fn new(table: MethodTable<C>) -> Self {
        Self {
            table,
            limits: Limits::DEFAULT,
            fallback: None,
            hook: None,
        }
    }

    /// The same server with a handler for every method name the table lacks (`$/…`
    /// notifications, a proxy, names matched by a pattern): it is given the name, and
    /// answers `-32601` itself with [`RpcError::method_not_found`](crate::RpcError::method_not_found) for names it does
    /// not serve either. Without one, such calls get `-32601` and such notifications
    /// are dropped.
    ///
    /// ```
    /// use jsonrpc_slice::{method_table, MethodTable, Params, RawStr, ResultWriter, RpcError, Server};
    ///
    /// fn version<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ///     Ok(out.str("1.0")?)
    /// }
    /// /// Every `$/` method is accepted and ignored; other names are not found.
    /// fn dollar<'p>(_: &mut (), method: RawStr<'p>, _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ///     match method.as_raw().starts_with(b"$/") {
    ///         true => Ok(()),
    ///         false => Err(RpcError::method_not_found()),
    ///     }
    /// }
    /// static SERVER: Server<()> = Server::new(method_table! { "version" => version }).with_fallback(dollar);
    /// let mut out = [0u8; 128];
    /// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"$/ping","id":1}"#, &mut out)?;
    /// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":null,"id":1}"#);
    /// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"nope","id":2}"#, &mut out)?;
    /// assert_eq!(reply, br#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}"#);
    /// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
    /// ```
    pub const fn with_fallback(mut self, handler: Fallback<C>) -> Self {
        self.fallback = Some(handler);
        self
    }

    /// The same server with other limits.
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The same server, telling `hook` of every call before its handler runs (the
    /// hook may refuse it) and once it has ended: see [`CallHook`].
    pub const fn with_hook(mut self, hook: CallHook) -> Self {
        self.hook = Some(hook);
        self
    }

    /// The hook, if there is one.
    pub(crate) const fn hook(&self) -> Option<&CallHook> {
        self.hook.as_ref()
    }

    /// The limits in force.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The method table.
    pub const fn table(&self) -> &MethodTable<C> {
        &self.table
    }

    /// Handles one message: parses `input`, calls the handlers, and writes the reply
    /// into `output`. Returns the reply, which is empty when nothing is to be sent
    /// (a notification, or a batch of them).
    pub fn handle<'o>(
        &self,
        ctx: &mut C,
        input: &[u8],
        output: &'o mut [u8],
    ) -> Result<&'o [u8], OutputTooSmall> {
        let mut w = ResultWriter::new(output);
        let done = match envelope::parse(input, &self.limits) {
            Err(e) => self
                .fail(&mut w, 0, Id::NULL, parse_failure(e.kind))
                .map(drop),
            Ok(Envelope::Single(call)) => self.answer(ctx, call, &mut w),
            Ok(Envelope::Batch(batch)) => self.batch(ctx, batch, &mut w),
        };
        match done {
            Ok(()) => Ok(w.into_written()),
            Err(_) => Err(OutputTooSmall),
        }
    }

    /// Writes the error reply for `failure` at `mark`, in place of anything written
    /// after it, and returns its code. The reply to a failed call that does not fit in
    /// its room (the whole buffer, or what a batch leaves it) becomes `-32603 reply
    /// larger than N bytes` with the same id. When the reply written last does not fit
    /// (that one, a parse error's, a batch overflow's), nothing is left written and
    /// `Err` is returned.
    /// The one place that writes an error reply: fewer calls to set up (flash, on a
    /// Cortex-M).
    #[inline(never)]
    pub(crate) fn fail(
        &self,
        w: &mut ResultWriter<'_>,
        mark: usize,
        id: Id<'_>,
        mut failure: Failure<'_>,
    ) -> Result<i32, WriteError> {
        let room = w.limit().saturating_sub(mark);
        loop {
            w.rollback(mark);
            let (code, message, data) = self.failure_reply(failure, room);
            let written = w.error_reply(id, code, message, data);
            match failure {
                _ if written.is_ok() => return written,
                Failure::Parse | Failure::TooDeep | Failure::TooLarge | Failure::BatchTooLarge => {
                    w.rollback(mark);
                    return written;
                }
                _ => failure = Failure::TooLarge,
            }
        }
    }

    /// The error reply for `failure`: code, message and data. `room` is what the
    /// reply had (see `fail`).
    fn failure_reply<'p>(
        &self,
        failure: Failure<'p>,
        room: usize,
    ) -> (i32, Message<'p>, Option<RawJson<'p>>) {
        let (code, message) = match failure {
            Failure::Handler(e) => return (e.code, Message::plain(e.message), e.data),
            Failure::TooDeep => (
                code::PARSE_ERROR,
                Message::with(
                    "Parse error: nesting deeper than ",
                    self.limits.depth_in_force() as usize,
                    "",
                ),
            ),
            Failure::Parse => (code::PARSE_ERROR, Message::plain("Parse error")),
            Failure::NotFound => (code::METHOD_NOT_FOUND, Message::plain("Method not found")),
            Failure::Incomplete => (
                code::INTERNAL_ERROR,
                Message::plain("Internal error: the handler wrote an incomplete result"),
            ),
            Failure::TooLarge => (
                code::INTERNAL_ERROR,
                Message::with("Internal error: reply larger than ", room, " bytes"),
            ),
            Failure::BatchTooLarge => (
                code::INTERNAL_ERROR,
                Message::with("Internal error: batch reply larger than ", room, " bytes"),
            ),
            Failure::Invalid(reason) => (
                code::INVALID_REQUEST,
                match reason {
                    InvalidRequest::BatchTooLarge => Message::with(
                        "Invalid Request: batch larger than ",
                        self.limits.max_batch,
                        " elements",
                    ),
                    InvalidRequest::IdTooLong => Message::with(
                        "Invalid Request: id longer than ",
                        self.limits.max_id_len,
                        " bytes",
                    ),
                    InvalidRequest::MethodTooLong => Message::with(
                        "Invalid Request: method longer than ",
                        self.limits.max_method_len,
                        " bytes",
                    ),
                    _ => Message::plain("Invalid Request"),
                },
            ),
        };
        (code, message, None)
    }

    /// Writes the reply to one call (nothing for a notification); see `fail` for
    /// what happens when it does not fit.
    fn answer(
        &self,
        ctx: &mut C,
        call: Call<'_>,
        w: &mut ResultWriter<'_>,
    ) -> Result<(), WriteError> {
        if let (Some(hook), Call::Request(req)) = (&self.hook, call) {
            return self.answer_hooked(hook, ctx, req, w);
        }
        let mark = w.mark();
        let (id, failure) = match call {
            Call::Invalid { id, reason } => (id, Failure::Invalid(reason)),
            Call::Request(req) => match (self.target(req.method), req.id) {
                (None, None) => return Ok(()),
                (None, Some(id)) => (id, Failure::NotFound),
                (Some(target), id) => match self.call(ctx, target, req.method, req.params, id, w) {
                    Ok(()) => return Ok(()),
                    // Only a call fails: a notification's outcome is dropped.
                    Err(failure) => (id.unwrap_or(Id::NULL), failure),
                },
            },
        };
        self.fail(w, mark, id, failure).map(drop)
    }

    /// [`answer`](Self::answer) for a request, with the hook told of it. Out of line:
    /// a server without a hook does not carry it.
    #[inline(never)]
    fn answer_hooked(
        &self,
        hook: &CallHook,
        ctx: &mut C,
        req: Request<'_>,
        w: &mut ResultWriter<'_>,
    ) -> Result<(), WriteError> {
        let info = CallInfo {
            method: req.method,
            id: req.id,
        };
        let mark = w.mark();
        let (started, allowed) = hook.start(&info);
        let ended = match (allowed, self.target(req.method)) {
            (Err(refusal), _) => Err(Failure::Handler(refusal)),
            (Ok(()), None) => Err(Failure::NotFound),
            (Ok(()), Some(target)) => self.call(ctx, target, req.method, req.params, req.id, w),
        };
        self.hook_end(hook, &info, started, w, mark, ended)
    }

    /// The end of a hooked call: its error reply when it `ended` in one, then the
    /// hook told how it ended. Shared by the sync and the async dispatch.
    pub(crate) fn hook_end(
        &self,
        hook: &CallHook,
        info: &CallInfo<'_>,
        started: Started,
        w: &mut ResultWriter<'_>,
        mark: usize,
        ended: Result<(), Failure<'_>>,
    ) -> Result<(), WriteError> {
        let (written, outcome) = match (ended, info.id) {
            (_, None) => (Ok(()), Outcome::NoReply),
            // A handler may have written its error itself (`ResultWriter::error`).
            (Ok(()), Some(_)) => match written_error_code(w.written().get(mark..)) {
                Some(code) => (Ok(()), Outcome::Error(code)),
                None => (Ok(()), Outcome::Result),
            },
            (Err(failure), Some(id)) => match self.fail(w, mark, id, failure) {
                Ok(code) => (Ok(()), Outcome::Error(code)),
                // Nothing fits: the message gets no reply at all (`OutputTooSmall`).
                Err(e) => (Err(e), Outcome::Error(code::INTERNAL_ERROR)),
            },
        };
        hook.end(info, started, outcome);
        written
    }

    /// What runs a call of `method`.
    fn target(&self, method: RawStr<'_>) -> Option<Target<C>> {
        match self.table.find(method) {
            Some(handler) => Some(Target::Method(handler)),
            None => self.fallback.map(Target::Fallback),
        }
    }

    /// Runs a handler for a request and, for a call, writes its result and the rest
    /// of the reply, or says why the call gets an error reply instead.
    fn call<'p>(
        &self,
        ctx: &mut C,
        target: Target<C>,
        method: RawStr<'p>,
        params: Option<RawJson<'p>>,
        id: Option<Id<'p>>,
        w: &mut ResultWriter<'_>,
    ) -> Result<(), Failure<'p>> {
        let params = call_start(w, params, id);
        let outcome = match target {
            Target::Method(handler) => handler(ctx, params, w),
            Target::Fallback(fallback) => fallback(ctx, method, params, w),
        };
        call_end(w, id, outcome)
    }

    /// Streams the replies of a batch, in request order, into one array (or nothing).
    // Out of line in the fast build, so that its state is off the stack while a single
    // message is parsed; inlined in the compact one, where that measured smaller in
    // flash and in stack (docs/perf/LOG.md).
    #[cfg_attr(jsonrpc_slice_fast, inline(never))]
    fn batch(
        &self,
        ctx: &mut C,
        batch: Batch<'_>,
        w: &mut ResultWriter<'_>,
    ) -> Result<(), WriteError> {
        let mut state = BatchState::open(w);
        for call in batch {
            if is_notification(&call) {
                // Runs its handler, writes nothing: no entry, no separator.
                let _ = self.answer(ctx, call, w);
                continue;
            }
            let separated = state.separate(w);
            let answered = self.answer(ctx, call, w).is_ok();
            state.answered(answered, separated);
        }
        self.batch_close(w, state)
    }

    /// Ends a batch reply: its `]`, nothing (a batch of notifications), or, when it was
    /// lost, the one error that replaces it. Shared by the sync and the async dispatch.
    #[inline(always)]
    pub(crate) fn batch_close(
        &self,
        w: &mut ResultWriter<'_>,
        state: BatchState,
    ) -> Result<(), WriteError> {
        w.set_allowance(usize::MAX);
        w.set_end(state.old_end);
        if !state.fits {
            return self
                .fail(w, state.start, Id::NULL, Failure::BatchTooLarge)
                .map(drop);
        }
        if !state.any {
            return Ok(());
        }
        w.push_byte(b']')
    }
}

/// The code of the error reply `reply` is, if it is one: a reply this crate wrote
/// starts `{"jsonrpc":"2.0","error":{"code":` and the code's digits.
fn written_error_code(reply: Option<&[u8]>) -> Option<i32> {
    let rest = reply?.strip_prefix(b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":")?;
    let (negative, digits) = match rest.split_first() {
        Some((b'-', digits)) => (true, digits),
        _ => (false, rest),
    };
    let mut code: i64 = 0;
    for &b in digits.iter().take_while(|b| b.is_ascii_digit()).take(10) {
        code = code * 10 + i64::from(b - b'0');
    }
    i32::try_from(if negative { -code } else { code }).ok()
}
