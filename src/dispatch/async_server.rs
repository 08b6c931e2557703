//! The async dispatch: [`AsyncServer`] and its table, [`AsyncMethods`] (made by
//! [`async_method_table!`](crate::async_method_table)), the twin of `server.rs` and
//! `table.rs`, the rules both share in `call.rs`.

use core::marker::PhantomData;

use crate::dispatch::{
    call_end, call_start, is_notification, parse_failure, BatchState, CallHook, CallInfo, Failure,
    MethodTable, OutputTooSmall, Server,
};
use crate::envelope::{self, Batch, Call, Envelope, Request};
use crate::error::RpcError;
use crate::id::Id;
use crate::limits::Limits;
use crate::params::Params;
use crate::raw::RawStr;
use crate::scan::ScanError;
use crate::write::{ResultWriter, WriteError};

/// A table of async handlers: what [`async_method_table!`](crate::async_method_table) makes. Implement it by
/// hand for a table that decides at run time (a fallback for every name, a proxy).
///
/// (The futures are not required to be `Send`: the executors of a microcontroller
/// run on one thread. Hence the allowed `async_fn_in_trait` lint.)
#[allow(async_fn_in_trait)]
pub trait AsyncMethods<C> {
    /// Which handler serves `method` (escapes in it decoded), if one does.
    fn find(&self, method: RawStr<'_>) -> Option<usize>;

    /// Runs handler `index` (as [`find`](Self::find) gave it) on a call: the same
    /// contract as a [`Handler`](crate::Handler), awaited.
    async fn run<'p>(
        &self,
        index: usize,
        ctx: &mut C,
        params: Params<'p>,
        out: &mut ResultWriter<'_>,
    ) -> Result<(), RpcError<'p>>;
}

/// Builds a type that implements [`AsyncMethods`] from `"name" => handler` rows, each
/// handler an `async fn(&mut C, Params<'p>, &mut ResultWriter<'_>) -> Result<(),
/// RpcError<'p>>` (a name is any constant `&str` expression: a literal, `concat!`…).
/// As with [`method_table!`](crate::method_table), a name given twice or a name that
/// starts with `rpc.` fails the build, whether the type is used or not (checked in
/// expected O(M) for M rows). Its [`find`](AsyncMethods::find) is the lookup of a
/// [`MethodTable`]'s hash index, O(1) expected (in the compact build, a scan of the
/// names); its `run` reaches a row through jump tables.
///
/// A context type with a lifetime (the per-call context of the concurrent service,
/// `service::concurrent::Call`, feature `concurrent`) is named with that lifetime first:
/// `pub Tools<'c, Call<'c, App>> { ... }` implements `AsyncMethods<Call<'c, App>>` for
/// every `'c`.
///
/// ```compile_fail
/// use jsonrpc_slice::{async_method_table, Params, ResultWriter, RpcError};
///
/// async fn a<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     Ok(())
/// }
/// async_method_table! { Twice<()> { "a" => a, "a" => a } }
/// ```
#[macro_export]
macro_rules! async_method_table {
    ($(#[$attr:meta])* $vis:vis $name:ident<$lt:lifetime, $ctx:ty> { $($method:expr => $handler:path),* $(,)? }) => {
        $crate::async_method_table!(@table [$(#[$attr])*] [$vis] $name [$lt] $ctx { $($method => $handler),* });
    };
    ($(#[$attr:meta])* $vis:vis $name:ident<$ctx:ty> { $($method:expr => $handler:path),* $(,)? }) => {
        $crate::async_method_table!(@table [$(#[$attr])*] [$vis] $name [] $ctx { $($method => $handler),* });
    };
    (@table [$($attr:tt)*] [$vis:vis] $name:ident [$($lt:lifetime)?] $ctx:ty { $($method:expr => $handler:path),* }) => {
        $($attr)*
        $vis struct $name;

        impl $name {
            /// The method names and their index: a method table whose rows run
            /// nothing (the handlers are in `run`).
            const TABLE: $crate::MethodTable<()> = $crate::method_table! {
                $($method => Self::NO_HANDLER),*
            };
            /// The handler of every row of `TABLE`.
            const NO_HANDLER: $crate::Handler<()> = |_, _, _| Ok(());
        }

        // Checked at compile time, used or not: no name twice, none reserved.
        const _: () = {
            let _ = $name::TABLE;
        };

        impl<$($lt)?> $crate::AsyncMethods<$ctx> for $name {
            fn find(&self, method: $crate::RawStr<'_>) -> Option<usize> {
                Self::TABLE.position(method)
            }

            async fn run<'p>(
                &self,
                index: usize,
                ctx: &mut $ctx,
                params: $crate::Params<'p>,
                out: &mut $crate::ResultWriter<'_>,
            ) -> Result<(), $crate::RpcError<'p>> {
                let mut row = 0usize;
                $(
                    if index == row {
                        return $handler(ctx, params, out).await;
                    }
                    row += 1;
                )*
                let _ = (row, ctx, params, out);
                Err($crate::RpcError::method_not_found())
            }
        }
    };
}

/// A JSON-RPC 2.0 server whose handlers are async: the twin of [`Server`], with a
/// table of [`AsyncMethods`]. Its [`handle`](Self::handle) is [`Server::handle`],
/// awaited; a [`Service`](crate::service::Service) serves it over an async transport.
///
/// Its handlers `.await` (an I2C read, a channel, a database); its replies are the
/// sync server's for the same calls, byte for byte (`tests/async_handlers.rs` pins
/// the two to each other), the rules both share written once (`dispatch/call.rs`).
///
/// A table of async handlers is a type made by [`async_method_table!`](crate::async_method_table): the macro
/// finds a method's row through the hash index of a [`MethodTable`] of its names (as
/// the sync table does), then writes the code that calls each handler by its row (a
/// chain of comparisons with constants, which the compiler turns into jump tables of
/// 64 rows each), so there is no boxing and no allocation — the future of a call holds
/// the future of the one handler it runs.
///
/// ```
/// use jsonrpc_slice::{async_method_table, AsyncServer, Params, ResultWriter, RpcError};
///
/// struct Sensor { celsius_x100: i64 }
///
/// /// Reads the sensor (here at once; on a board, an I2C transfer to await).
/// async fn read<'p>(s: &mut Sensor, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     let value = async { s.celsius_x100 }.await;
///     Ok(out.decimal(value, 2)?)
/// }
///
/// async_method_table! {
///     /// The board's methods.
///     pub Board<Sensor> { "read" => read }
/// }
///
/// static SERVER: AsyncServer<Sensor, Board> = AsyncServer::new(Board);
///
/// # fn block_on<F: core::future::Future>(f: F) -> F::Output {
/// #     let mut f = core::pin::pin!(f);
/// #     let mut cx = core::task::Context::from_waker(core::task::Waker::noop());
/// #     loop { if let core::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
/// # }
/// let mut sensor = Sensor { celsius_x100: 2150 };
/// let mut out = [0u8; 64];
/// let reply = block_on(SERVER.handle(&mut sensor, br#"{"jsonrpc":"2.0","method":"read","id":1}"#, &mut out))?;
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":21.50,"id":1}"#);
/// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
/// ```
pub struct AsyncServer<C: 'static, T> {
    table: T,
    /// The limits, and the error replies (its own table is empty).
    base: Server<C>,
    context: PhantomData<fn(&mut C)>,
}

impl<C, T: core::fmt::Debug> core::fmt::Debug for AsyncServer<C, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncServer")
            .field("table", &self.table)
            .field("limits", self.base.limits())
            .finish()
    }
}

impl<C, T: AsyncMethods<C>> AsyncServer<C, T> {
    /// A server for `table` with [`Limits::DEFAULT`].
    pub const fn new(table: T) -> Self {
        Self {
            table,
            base: Server::new(MethodTable::new(&[], &[0])),
            context: PhantomData,
        }
    }

    /// The same server with other limits.
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.base = self.base.with_limits(limits);
        self
    }

    /// The same server, telling `hook` of every call (see [`CallHook`]); the duration
    /// it is given includes the handler's awaits.
    pub const fn with_hook(mut self, hook: CallHook) -> Self {
        self.base = self.base.with_hook(hook);
        self
    }

    /// The limits in force.
    pub const fn limits(&self) -> &Limits {
        self.base.limits()
    }

    /// Handles one message as [`Server::handle`] does, awaiting each handler.
    pub async fn handle<'o>(
        &self,
        ctx: &mut C,
        input: &[u8],
        output: &'o mut [u8],
    ) -> Result<&'o [u8], OutputTooSmall> {
        handle(&self.table, &self.base, ctx, input, output).await
    }
}

/// Handles one message with `table` (each handler awaited with `ctx`), the limits and
/// error replies of `base`: what [`AsyncServer::handle`] and the concurrent service
/// (whose handlers get a per-call context) both run.
pub(crate) async fn handle<'o, X, B, T: AsyncMethods<X>>(
    table: &T,
    base: &Server<B>,
    ctx: &mut X,
    input: &[u8],
    output: &'o mut [u8],
) -> Result<&'o [u8], OutputTooSmall> {
    handle_parsed(
        table,
        base,
        ctx,
        &envelope::parse(input, base.limits()),
        output,
    )
    .await
}

/// [`handle`] of a message already parsed (the concurrent service reads a message once,
/// to know what it is, then answers it).
pub(crate) async fn handle_parsed<'o, X, B, T: AsyncMethods<X>>(
    table: &T,
    base: &Server<B>,
    ctx: &mut X,
    parsed: &Result<Envelope<'_>, ScanError>,
    output: &'o mut [u8],
) -> Result<&'o [u8], OutputTooSmall> {
    let mut w = ResultWriter::new(output);
    let done = match parsed {
        Err(e) => base
            .fail(&mut w, 0, Id::NULL, parse_failure(e.kind))
            .map(drop),
        Ok(Envelope::Single(call)) => answer(table, base, ctx, call, &mut w).await,
        Ok(Envelope::Batch(batch)) => batch_of(table, base, ctx, batch.clone(), &mut w).await,
    };
    match done {
        Ok(()) => Ok(w.into_written()),
        Err(_) => Err(OutputTooSmall),
    }
}

/// The twin of `Server::answer` (the concurrent service's workers answer a single
/// call with it directly, a future fewer than through `handle_parsed`).
pub(crate) async fn answer<X, B, T: AsyncMethods<X>>(
    table: &T,
    base: &Server<B>,
    ctx: &mut X,
    // By reference: the future holds a pointer, not a copy of the call.
    call: &Call<'_>,
    w: &mut ResultWriter<'_>,
) -> Result<(), WriteError> {
    let call = *call;
    if let (Some(hook), Call::Request(req)) = (base.hook(), call) {
        return answer_hooked(table, base, hook, ctx, req, w).await;
    }
    let mark = w.mark();
    let (id, failure) = match call {
        Call::Invalid { id, reason } => (id, Failure::Invalid(reason)),
        Call::Request(req) => match (table.find(req.method), req.id) {
            (None, None) => return Ok(()),
            (None, Some(id)) => (id, Failure::NotFound),
            (Some(index), id) => {
                let params = call_start(w, req.params, id);
                let outcome = table.run(index, ctx, params, w).await;
                match call_end(w, id, outcome) {
                    Ok(()) => return Ok(()),
                    // Only a call fails: a notification's outcome is dropped.
                    Err(failure) => (id.unwrap_or(Id::NULL), failure),
                }
            }
        },
    };
    base.fail(w, mark, id, failure).map(drop)
}

/// The twin of `Server::answer_hooked`.
async fn answer_hooked<X, B, T: AsyncMethods<X>>(
    table: &T,
    base: &Server<B>,
    hook: &CallHook,
    ctx: &mut X,
    req: Request<'_>,
    w: &mut ResultWriter<'_>,
) -> Result<(), WriteError> {
    let info = CallInfo {
        method: req.method,
        id: req.id,
    };
    let mark = w.mark();
    let (started, allowed) = hook.start(&info);
    let ended = match (allowed, table.find(req.method)) {
        (Err(refusal), _) => Err(Failure::Handler(refusal)),
        (Ok(()), None) => Err(Failure::NotFound),
        (Ok(()), Some(index)) => {
            let params = call_start(w, req.params, req.id);
            let outcome = table.run(index, ctx, params, w).await;
            call_end(w, req.id, outcome)
        }
    };
    base.hook_end(hook, &info, started, w, mark, ended)
}

/// The twin of `Server::batch`.
async fn batch_of<X, B, T: AsyncMethods<X>>(
    table: &T,
    base: &Server<B>,
    ctx: &mut X,
    batch: Batch<'_>,
    w: &mut ResultWriter<'_>,
) -> Result<(), WriteError> {
    let mut state = BatchState::open(w);
    for call in batch {
        if is_notification(&call) {
            let _ = answer(table, base, ctx, &call, w).await;
            continue;
        }
        let separated = state.separate(w);
        let answered = answer(table, base, ctx, &call, w).await.is_ok();
        state.answered(answered, separated);
    }
    base.batch_close(w, state)
}
