//! The typed-handler adapter: [`typed`] and the [`typed_handler!`](crate::typed_handler) macro.

use serde::ser::Serialize;
use serde::Deserialize;

use crate::error::RpcError;
use crate::params::Params;
use crate::write::ResultWriter;

/// Runs a handler written over typed params and a typed result: decodes the params
/// (`-32602` when they do not fit `P`), calls `f`, and serializes its `Ok` value as
/// the result.
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
/// let mut out = [0u8; 128];
/// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":4}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":19,"id":4}"#);
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
    let p = params.decode::<P>()?;
    let result = f(ctx, p)?;
    Ok(out.serialize(&result)?)
}

/// Declares a typed handler: a function over a context, typed params and a typed
/// result, made into a [`Handler`](crate::Handler) with [`typed`].
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
/// static SERVER: Server<Ctx> = Server::new(method_table! { "add" => add });
/// let mut ctx = Ctx { total: 0 };
/// let mut out = [0u8; 128];
/// let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"add","params":[2,3],"id":1}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":5,"id":1}"#);
/// let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"add","params":["2",3],"id":2}"#, &mut out).unwrap();
/// assert!(reply.starts_with(br#"{"jsonrpc":"2.0","error":{"code":-32602,"#));
/// ```
#[macro_export]
macro_rules! typed_handler {
    (
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
            $crate::serde::typed(ctx, params, out, |c, p: $params_ty| inner(c, p))
        }
    };
}
