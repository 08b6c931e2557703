//! Dispatch: a static method table, and the [`Server`] that runs a message through
//! scan → envelope → dispatch → write.
//!
//! # Contract
//!
//! [`Server::handle`] takes any input bytes and any output buffer. It never panics
//! (handlers aside: a handler that panics is the caller's bug), never allocates, and
//! its output is always either nothing (a notification, a batch of them) or one
//! complete JSON-RPC reply: a response object, or a batch array of them. A reply that
//! does not fit is rolled back and replaced by `-32603` with the same id; if even that
//! does not fit, nothing is written and [`OutputTooSmall`] is returned.

use core::fmt;

use crate::envelope::{self, Batch, Call, Envelope};
use crate::error::{code, InvalidRequest, RpcError};
use crate::id::Id;
use crate::limits::{Limits, BATCH_WORK_FACTOR};
use crate::params::Params;
use crate::raw::{RawJson, RawStr};
use crate::scan::{ScanErrorKind, FAST_PATHS};
use crate::write::{Message, ResultWriter, WriteError};

/// A method handler: gets the context, the params, and a writer for its result.
///
/// It writes one JSON value as its result (or nothing, for `null`) and returns `Ok`,
/// or returns an [`RpcError`], whose `data` and `message` may borrow from the params.
/// For a notification the same handler runs with a writer that drops its result.
pub type Handler<C> =
    for<'p> fn(&mut C, Params<'p>, &mut ResultWriter<'_>) -> Result<(), RpcError<'p>>;

/// The handler for method names a table lacks (see [`Server::with_fallback`]): a
/// [`Handler`] that is given the name it was called with, escapes as sent.
pub type Fallback<C> =
    for<'p> fn(&mut C, RawStr<'p>, Params<'p>, &mut ResultWriter<'_>) -> Result<(), RpcError<'p>>;

/// What runs a call: a method's handler, or the fallback.
enum Target<C: 'static> {
    Method(Handler<C>),
    Fallback(Fallback<C>),
}

/// One row of a method table: a name and its handler.
pub struct Method<C: 'static> {
    name: &'static str,
    handler: Handler<C>,
}

impl<C> Method<C> {
    /// A row of a method table.
    pub const fn new(name: &'static str, handler: Handler<C>) -> Self {
        Self { name, handler }
    }

    /// The method's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<C> Clone for Method<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Method<C> {}

impl<C> fmt::Debug for Method<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Method").field(&self.name).finish()
    }
}

/// A method table fixed at compile time.
///
/// Build it in a `const` or `static` (the [`method_table!`](crate::method_table) macro
/// does): a name given twice, or a name that starts with `rpc.` (reserved by the
/// specification), then fails the build.
///
/// ```compile_fail
/// use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError};
///
/// fn a<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     Ok(())
/// }
/// static TABLE: MethodTable<()> = method_table! { "a" => a, "a" => a };
/// ```
pub struct MethodTable<C: 'static> {
    methods: &'static [Method<C>],
    /// Some name holds a backslash (then a name sent without escapes is compared byte
    /// for byte only, as before; without one, a byte-equal name is always the match).
    backslash: bool,
}

impl<C> Clone for MethodTable<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for MethodTable<C> {}

impl<C> fmt::Debug for MethodTable<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.methods).finish()
    }
}

const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn reserved(name: &[u8]) -> bool {
    name.len() >= 4 && name[0] == b'r' && name[1] == b'p' && name[2] == b'c' && name[3] == b'.'
}

/// Fails the build (in a `const`) when `names` has a name twice or a name that starts
/// with `rpc.`: the check of [`MethodTable::new`], for tables made of names alone
/// ([`async_method_table!`](crate::async_method_table)).
pub const fn check_names(names: &[&str]) {
    let mut i = 0;
    while i < names.len() {
        let name = names[i].as_bytes();
        if reserved(name) {
            panic!("method names that start with `rpc.` are reserved by JSON-RPC 2.0");
        }
        let mut j = i + 1;
        while j < names.len() {
            if same_bytes(name, names[j].as_bytes()) {
                panic!("a method name appears twice in the method table");
            }
            j += 1;
        }
        i += 1;
    }
}

impl<C> MethodTable<C> {
    /// A table of `methods`.
    ///
    /// # Panics
    ///
    /// If two methods share a name, or a name starts with `rpc.`. In a `const` or
    /// `static` initializer that panic is a compile error, which is where tables belong.
    pub const fn new(methods: &'static [Method<C>]) -> Self {
        let mut backslash = false;
        let mut i = 0;
        while i < methods.len() {
            let name = methods[i].name.as_bytes();
            let mut k = 0;
            while k < name.len() {
                backslash |= name[k] == b'\\';
                k += 1;
            }
            if reserved(name) {
                panic!("method names that start with `rpc.` are reserved by JSON-RPC 2.0");
            }
            let mut j = i + 1;
            while j < methods.len() {
                if same_bytes(name, methods[j].name.as_bytes()) {
                    panic!("a method name appears twice in the method table");
                }
                j += 1;
            }
            i += 1;
        }
        Self { methods, backslash }
    }

    /// The rows of the table.
    pub const fn methods(&self) -> &'static [Method<C>] {
        self.methods
    }

    /// The handler for `name` (escapes in it decoded), if the table has one.
    pub fn find(&self, name: RawStr<'_>) -> Option<Handler<C>> {
        if !FAST_PATHS {
            // The compact build: one comparison, escapes decoded when there are any.
            return self
                .methods
                .iter()
                .find(|m| name.eq_str(m.name))
                .map(|m| m.handler);
        }
        let raw = name.as_raw();
        // Names as sent, byte for byte: the usual case. A name with an escape cannot
        // match that way (table names have no backslash... or if one does, the decoded
        // comparison below still decides).
        if !self.backslash {
            if let Some(m) = self.methods.iter().find(|m| m.name.as_bytes() == raw) {
                return Some(m.handler);
            }
            if !name.has_escapes() {
                return None;
            }
        } else if !name.has_escapes() {
            return self
                .methods
                .iter()
                .find(|m| m.name.as_bytes() == raw)
                .map(|m| m.handler);
        }
        self.methods
            .iter()
            .find(|m| name.eq_str(m.name))
            .map(|m| m.handler)
    }
}

/// Builds a [`MethodTable`] from `"name" => handler` rows, checked at compile time when
/// used in a `const` or `static`.
///
/// ```
/// use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError};
///
/// struct Counter(u64);
///
/// fn bump<'p>(c: &mut Counter, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     c.0 += 1;
///     Ok(out.u64(c.0)?)
/// }
///
/// static TABLE: MethodTable<Counter> = method_table! { "bump" => bump };
/// assert_eq!(TABLE.methods().len(), 1);
/// ```
#[macro_export]
macro_rules! method_table {
    ($($name:expr => $handler:expr),* $(,)?) => {
        $crate::MethodTable::new(&[$($crate::Method::new($name, $handler)),*])
    };
}

/// Why a message, or a call in it, gets an error reply instead of its result.
#[derive(Copy, Clone)]
pub(crate) enum Failure<'p> {
    /// Not valid JSON (`-32700`).
    Parse,
    /// Valid JSON so far, nested deeper than the limit (`-32700`).
    TooDeep,
    /// Not a valid Request object.
    Invalid(InvalidRequest),
    /// No such method in the table.
    NotFound,
    /// The handler's own error.
    Handler(RpcError<'p>),
    /// The handler returned `Ok` with its result unfinished or misused.
    Incomplete,
    /// The reply did not fit in the room it had.
    TooLarge,
    /// The replies of a batch did not fit in the buffer.
    BatchTooLarge,
}

/// The failure of a message that is not JSON (or nests too deep).
#[inline(always)]
pub(crate) fn parse_failure<'p>(kind: ScanErrorKind) -> Failure<'p> {
    match kind {
        ScanErrorKind::TooDeep => Failure::TooDeep,
        _ => Failure::Parse,
    }
}

/// Before a call's handler runs: the start of its reply, and the writer readied for
/// its result. A notification's handler runs all the same, its writes dropped; so does
/// a call's when not even the start of its reply fits (a batch reply lost). Shared by
/// the sync and the async dispatch (`dispatch_async`).
#[inline(always)]
pub(crate) fn call_start<'p>(
    w: &mut ResultWriter<'_>,
    params: Option<RawJson<'p>>,
    id: Option<Id<'p>>,
) -> Params<'p> {
    let live = id.is_some() && w.result_prefix().is_ok();
    w.set_live(live);
    w.begin_value();
    Params::of_call(params, id)
}

/// After a call's handler ran with `outcome`: the rest of its reply (for a call), or
/// why it gets an error reply instead. Shared as [`call_start`] is.
#[inline(always)]
pub(crate) fn call_end<'p>(
    w: &mut ResultWriter<'_>,
    id: Option<Id<'_>>,
    outcome: Result<(), RpcError<'p>>,
) -> Result<(), Failure<'p>> {
    w.set_live(true);
    // An error the handler wrote itself (`ResultWriter::error`): its reply is that
    // error, whatever it returned.
    let wrote_error = w.take_error();
    let Some(id) = id else {
        return Ok(());
    };
    // A start that did not fit set the flag too.
    if w.overflowed() {
        return Err(Failure::TooLarge);
    }
    if wrote_error.is_none() {
        outcome.map_err(Failure::Handler)?;
    }
    let written = match (w.finish_value(), wrote_error) {
        (Ok(true), None) => Ok(()),
        (Ok(false), None) => w.push(b"null"),
        // The error's data, or none: then no `,"data":` either.
        (Ok(done), Some(data_at)) => {
            if !done {
                w.rollback(data_at);
            }
            w.push_byte(b'}')
        }
        (Err(_), _) => return Err(Failure::Incomplete),
    };
    written
        .and_then(|()| w.result_suffix(id))
        .map_err(|_| Failure::TooLarge)
}

/// `true` for a notification: in a batch it runs, and gets no entry.
#[inline(always)]
pub(crate) fn is_notification(call: &Call<'_>) -> bool {
    matches!(call, Call::Request(r) if r.is_notification())
}

/// Where a batch reply is: where it starts, the writer's limit before it, whether it
/// has an entry and whether it still fits. Shared by the sync and the async dispatch.
pub(crate) struct BatchState {
    start: usize,
    old_end: usize,
    any: bool,
    fits: bool,
}

impl BatchState {
    /// Starts a batch reply: room kept for the closing `]`, and the work budget set.
    #[inline(always)]
    pub(crate) fn open(w: &mut ResultWriter<'_>) -> Self {
        let start = w.mark();
        let old_end = w.set_end(w.capacity().saturating_sub(1));
        // The work budget: each rollback takes what it drops off the room left. (A
        // slice holds at most `isize::MAX` bytes: twice that is a `usize`.)
        w.set_allowance(w.capacity() * BATCH_WORK_FACTOR);
        Self {
            start,
            old_end,
            any: false,
            fits: true,
        }
    }

    /// Writes the `[` or `,` before the next entry while the reply still fits. Once
    /// the batch reply is lost (the buffer or the work budget spent), the remaining
    /// requests still run: what they write is refused for want of room, or rolled
    /// back with the batch, within the budget.
    #[inline(always)]
    pub(crate) fn separate(&self, w: &mut ResultWriter<'_>) -> bool {
        self.fits && w.push_byte(if self.any { b',' } else { b'[' }).is_ok()
    }

    /// An entry was answered (`answered`: its reply fits), after its separator.
    #[inline(always)]
    pub(crate) fn answered(&mut self, answered: bool, separated: bool) {
        self.fits = answered && separated;
        self.any = true;
    }
}

/// The output buffer cannot hold even the error reply that replaces a reply too large
/// for it. Nothing was written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OutputTooSmall;

impl fmt::Display for OutputTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("output buffer too small for an error reply")
    }
}

impl core::error::Error for OutputTooSmall {}

/// A JSON-RPC 2.0 server: a method table and the limits it applies.
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
        }
    }

    /// The same server with a handler for every method name the table lacks (`$/…`
    /// notifications, a proxy, names matched by a pattern): it is given the name, and
    /// answers `-32601` itself with [`RpcError::method_not_found`] for names it does
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
            Err(e) => self.fail(&mut w, 0, Id::NULL, parse_failure(e.kind)),
            Ok(Envelope::Single(call)) => self.answer(ctx, call, &mut w),
            Ok(Envelope::Batch(batch)) => self.batch(ctx, batch, &mut w),
        };
        match done {
            Ok(()) => Ok(w.into_written()),
            Err(_) => Err(OutputTooSmall),
        }
    }

    /// Writes the error reply for `failure` at `mark`, in place of anything written
    /// after it. The reply to a failed call that does not fit in its room (the whole
    /// buffer, or what a batch leaves it) becomes `-32603 reply larger than N bytes`
    /// with the same id. When the reply written last does not fit (that one, a parse
    /// error's, a batch overflow's), nothing is left written and `Err` is returned.
    /// The one place that writes an error reply: fewer calls to set up (flash, on a
    /// Cortex-M).
    #[inline(never)]
    pub(crate) fn fail(
        &self,
        w: &mut ResultWriter<'_>,
        mark: usize,
        id: Id<'_>,
        mut failure: Failure<'_>,
    ) -> Result<(), WriteError> {
        let room = w.limit().saturating_sub(mark);
        loop {
            w.rollback(mark);
            let (code, message, data) = self.failure_reply(failure, room);
            let written = w.error_reply(id, code, message, data);
            match failure {
                _ if written.is_ok() => return Ok(()),
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
        self.fail(w, mark, id, failure)
    }

    /// Runs a handler for a request and, for a call, writes its result and the rest
    /// of the reply, or says why the call gets an error reply instead.
    /// What runs a call of `method`.
    fn target(&self, method: RawStr<'_>) -> Option<Target<C>> {
        match self.table.find(method) {
            Some(handler) => Some(Target::Method(handler)),
            None => self.fallback.map(Target::Fallback),
        }
    }

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
    // flash and in stack (the firmware's peak went from 700 to 672 bytes).
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
            return self.fail(w, state.start, Id::NULL, Failure::BatchTooLarge);
        }
        if !state.any {
            return Ok(());
        }
        w.push_byte(b']')
    }
}
