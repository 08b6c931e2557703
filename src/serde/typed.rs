//! The typed-handler adapter: [`typed`] and the [`typed_handler!`](crate::typed_handler) macro.

use serde::ser::Serialize;
use serde::Deserialize;

use super::DecodeError;
use crate::error::RpcError;
use crate::params::Params;
use crate::write::ResultWriter;

/// The scratch buffer [`typed`] and [`typed_handler!`](crate::typed_handler) decode
/// escaped strings into: 256 bytes on the stack, for the decoding only (it is freed
/// before the handler runs). An escaped string longer than that, decoded, is a
/// `-32602` ([`Reason::ScratchTooSmall`](super::Reason::ScratchTooSmall)); give more
/// with [`typed_sized`], `scratch = N;` in the macro, or [`typed_with_scratch`].
pub const DEFAULT_SCRATCH: usize = 256;

/// Runs a handler written over typed params and a typed result: decodes the params
/// (a `-32602` naming the failing field when they do not fit `P`), calls `f`, and
/// serializes its `Ok` value as the result. Strings with escapes decode into owned
/// string types through a [`DEFAULT_SCRATCH`]-byte buffer on the stack.
///
/// ```
/// use jsonrpc_slice::serde::typed;
/// use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError, Server};
///
/// #[derive(serde::Deserialize)]
/// struct Sub { minuend: i64, subtrahend: i64 }
///
/// fn subtract<'p>(ctx: &mut (), p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     typed(ctx, p, out, |_, s: Sub| Ok(s.minuend - s.subtrahend))
/// }
///
/// static SERVER: Server<()> = Server::new(method_table! { "subtract" => subtract });
/// let mut out = [0u8; 256];
/// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":4}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":19,"id":4}"#);
/// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"42","subtrahend":23},"id":5}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: field `minuend`: expected an integer","data":"minuend"},"id":5}"#);
/// ```
pub fn typed<'p, C, P, R, F>(
    ctx: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
    f: F,
) -> Result<(), RpcError<'p>>
where
    P: Deserialize<'p>,
    R: Serialize,
    F: FnOnce(&mut C, P) -> Result<R, RpcError<'p>>,
{
    typed_sized::<DEFAULT_SCRATCH, C, P, R, F>(ctx, params, out, f)
}

/// [`typed`] with a scratch buffer of `SCRATCH` bytes on the stack, for the decoding
/// only (freed before `f` runs).
///
/// ```
/// use jsonrpc_slice::serde::typed_sized;
/// use jsonrpc_slice::{Params, ResultWriter, RpcError};
///
/// fn open<'p>(_: &mut (), p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     typed_sized::<4096, _, _, _, _>(&mut (), p, out, |_, (text,): (String,)| Ok(text.len()))
/// }
/// ```
pub fn typed_sized<'p, const SCRATCH: usize, C, P, R, F>(
    ctx: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
    f: F,
) -> Result<(), RpcError<'p>>
where
    P: Deserialize<'p>,
    R: Serialize,
    F: FnOnce(&mut C, P) -> Result<R, RpcError<'p>>,
{
    answer(ctx, decode_on_stack::<P, SCRATCH>(params), out, f)
}

/// The rest of every typed adapter, once the params were decoded (or refused): the
/// refusal answered, or `f` run and its value serialized as the result.
fn answer<'p, C, P, R, F>(
    ctx: &mut C,
    decoded: Result<P, DecodeError<'p>>,
    out: &mut ResultWriter<'_>,
    f: F,
) -> Result<(), RpcError<'p>>
where
    R: Serialize,
    F: FnOnce(&mut C, P) -> Result<R, RpcError<'p>>,
{
    let p = decoded.map_err(|e| refuse(out, e))?;
    let result = f(ctx, p)?;
    Ok(out.serialize(&result)?)
}

/// The `-32602` for params that do not decode: its message says where and why
/// (``Invalid params: field `uri`: expected a string``, written into the reply with
/// [`ResultWriter::error`]), its `data` is the key as sent or the index, as
/// [`DecodeError::to_rpc_error`] has them.
#[cold]
fn refuse<'p>(out: &mut ResultWriter<'_>, e: DecodeError<'p>) -> RpcError<'p> {
    let static_error = e.to_rpc_error();
    let Ok(written) = out.error(static_error.code, e) else {
        // No room (the reply becomes -32603), or a notification: nothing is sent.
        return static_error;
    };
    if let Some(data) = static_error.data {
        // As for any value that does not fit: the reply becomes -32603.
        let _ = out.raw(data);
    }
    written
}

/// Decodes `params` with a `SCRATCH`-byte buffer in its own frame.
#[inline(never)]
fn decode_on_stack<'p, P: Deserialize<'p>, const SCRATCH: usize>(
    params: Params<'p>,
) -> Result<P, DecodeError<'p>> {
    params.decode_with_scratch(&mut [0u8; SCRATCH])
}

/// Decodes a handler's params into `P`, for a handler that does the rest itself: an
/// async one (which awaits between decoding and answering), or one whose result
/// borrows its own locals (it writes it with [`ResultWriter::serialize`] before it
/// returns). When the params do not fit `P`, the `-32602` naming the failing field is
/// written, as [`typed`] writes it, and returned for the handler to return. Strings
/// with escapes decode through a [`DEFAULT_SCRATCH`]-byte buffer on the stack, freed
/// before this returns ([`typed_params_sized`] for another size).
///
/// ```
/// use jsonrpc_slice::serde::typed_params;
/// use jsonrpc_slice::{async_method_table, AsyncServer, Params, ResultWriter, RpcError};
///
/// #[derive(serde::Deserialize)]
/// struct Find { text: String, word: String }
///
/// async fn find<'p>(_: &mut (), p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     let args: Find = typed_params(p, out)?;
///     let at = async { args.text.find(&args.word) }.await;
///     // The result borrows a local: written before the handler returns.
///     let found: Option<&str> = at.map(|i| &args.text[i..]);
///     Ok(out.serialize(&found)?)
/// }
///
/// async_method_table! { Methods<()> { "find" => find } }
/// static SERVER: AsyncServer<(), Methods> = AsyncServer::new(Methods);
/// # fn block_on<F: core::future::Future>(f: F) -> F::Output {
/// #     let mut f = core::pin::pin!(f);
/// #     let mut cx = core::task::Context::from_waker(core::task::Waker::noop());
/// #     loop { if let core::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
/// # }
/// let mut out = [0u8; 256];
/// let msg = br#"{"jsonrpc":"2.0","method":"find","params":{"text":"a \"b\" c","word":"c"},"id":1}"#;
/// let reply = block_on(SERVER.handle(&mut (), msg, &mut out))?;
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":"c","id":1}"#);
/// let msg = br#"{"jsonrpc":"2.0","method":"find","params":{"text":7,"word":"c"},"id":2}"#;
/// let reply = block_on(SERVER.handle(&mut (), msg, &mut out))?;
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: field `text`: expected a string","data":"text"},"id":2}"#);
/// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
/// ```
pub fn typed_params<'p, P: Deserialize<'p>>(
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<P, RpcError<'p>> {
    typed_params_sized::<DEFAULT_SCRATCH, P>(params, out)
}

/// [`typed_params`] with a scratch buffer of `SCRATCH` bytes on the stack.
pub fn typed_params_sized<'p, const SCRATCH: usize, P: Deserialize<'p>>(
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<P, RpcError<'p>> {
    decode_on_stack::<P, SCRATCH>(params).map_err(|e| refuse(out, e))
}

/// [`typed`] with a scratch buffer of the caller's (a static one on a firmware, a
/// large one on a host that takes whole documents).
pub fn typed_with_scratch<'p, C, P, R, F>(
    ctx: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
    scratch: &mut [u8],
    f: F,
) -> Result<(), RpcError<'p>>
where
    P: Deserialize<'p>,
    R: Serialize,
    F: FnOnce(&mut C, P) -> Result<R, RpcError<'p>>,
{
    answer(ctx, params.decode_with_scratch::<P>(scratch), out, f)
}

/// Declares a typed handler: a function over a context, typed params and a typed
/// result, made into a [`Handler`](crate::Handler) with [`typed`]. Strings with
/// escapes decode into owned string types through a scratch buffer on the stack:
/// [`DEFAULT_SCRATCH`] bytes, or `N` with a leading `scratch = N;`.
///
/// ```
/// use jsonrpc_slice::{method_table, typed_handler, MethodTable, RpcError, Server};
///
/// struct Ctx { total: i64 }
///
/// typed_handler! {
///     /// Adds its params to a running total and returns it.
///     pub fn add(ctx: &mut Ctx, (a, b): (i64, i64)) -> Result<i64, RpcError<'static>> {
///         ctx.total += a + b;
///         Ok(ctx.total)
///     }
/// }
///
/// typed_handler! {
///     scratch = 1024;
///     /// The length of a text, escapes decoded.
///     pub fn length(ctx: &mut Ctx, (text,): (heapless::String<1024>,)) -> Result<usize, RpcError<'static>> {
///         Ok(text.len())
///     }
/// }
///
/// static SERVER: Server<Ctx> = Server::new(method_table! { "add" => add, "length" => length });
/// let mut ctx = Ctx { total: 0 };
/// let mut out = [0u8; 128];
/// let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"add","params":[2,3],"id":1}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":5,"id":1}"#);
/// let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"add","params":["2",3],"id":2}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: index 0: expected an integer","data":0},"id":2}"#);
/// let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"length","params":["a\nb"],"id":3}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":3,"id":3}"#);
/// ```
#[macro_export]
macro_rules! typed_handler {
    (
        scratch = $scratch:expr;
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($ctx:ident : &mut $ctx_ty:ty, $params:tt : $params_ty:ty) -> $ret:ty $body:block
    ) => {
        $(#[$attr])*
        $vis fn $name<'p>(
            ctx: &mut $ctx_ty,
            params: $crate::Params<'p>,
            out: &mut $crate::ResultWriter<'_>,
        ) -> ::core::result::Result<(), $crate::RpcError<'p>> {
            #[allow(unused_variables)]
            fn inner($ctx: &mut $ctx_ty, $params: $params_ty) -> $ret $body
            $crate::serde::typed_sized::<{ $scratch }, _, _, _, _>(ctx, params, out, |c, p: $params_ty| inner(c, p))
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($ctx:ident : &mut $ctx_ty:ty, $params:tt : $params_ty:ty) -> $ret:ty $body:block
    ) => {
        $crate::typed_handler! {
            scratch = $crate::serde::DEFAULT_SCRATCH;
            $(#[$attr])*
            $vis fn $name($ctx: &mut $ctx_ty, $params: $params_ty) -> $ret $body
        }
    };
}
