//! A table of blocking handlers served by the concurrent service: a
//! [`MethodTable`] is also a table of [`AsyncMethods`] for its [`Call`]s, so one set of
//! handlers serves a [`Server`](crate::Server) (HTTP, a blocking loop) and a
//! [`ConcurrentServer`](super::ConcurrentServer) (a socket with several calls in
//! flight) alike.

use crate::dispatch::AsyncMethods;
use crate::dispatch::MethodTable;
use crate::error::RpcError;
use crate::params::Params;
use crate::raw::RawStr;
use crate::write::ResultWriter;

use super::Call;

/// Each call's handler is given its own copy of the state ([`Call::state`], cloned):
/// what the handlers share lives behind the references the state holds (atomics, a
/// lock), as for a [`Server`](crate::Server) whose context is made for each request.
/// A handler runs to its end once started (it does not await), so it is never
/// cancelled half-way; it should not block the task for long, since the calls in
/// flight beside it wait meanwhile.
///
/// ```
/// use jsonrpc_slice::service::concurrent::ConcurrentServer;
/// use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError, Server};
///
/// #[derive(Clone)]
/// struct Node;
///
/// fn chain_id<'p>(_: &mut Node, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     Ok(out.str("0x539")?)
/// }
///
/// const METHODS: MethodTable<Node> = method_table! { "eth_chainId" => chain_id };
/// static HTTP: Server<Node> = Server::new(METHODS);
/// static SOCKET: ConcurrentServer<MethodTable<Node>> = ConcurrentServer::new(METHODS);
/// ```
impl<'c, C: Clone + 'static> AsyncMethods<Call<'c, C>> for MethodTable<C> {
    fn find(&self, method: RawStr<'_>) -> Option<usize> {
        self.position(method)
    }

    async fn run<'p>(
        &self,
        index: usize,
        call: &mut Call<'c, C>,
        params: Params<'p>,
        out: &mut ResultWriter<'_>,
    ) -> Result<(), RpcError<'p>> {
        match self.methods().get(index) {
            Some(method) => (method.handler())(&mut call.state().clone(), params, out),
            None => Err(RpcError::method_not_found()),
        }
    }
}
