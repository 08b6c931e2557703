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
//!
//! The room, by job: `table.rs`, the [`MethodTable`] and its lookup (with
//! [`method_table!`](crate::method_table)); `index.rs`, the name hash and the hash
//! index built at compile time; `server.rs`, the [`Server`] that answers a message;
//! `call.rs`, what each call's reply and a batch's go through, which the async
//! dispatch (`async_server.rs`) shares; `hook.rs`, the [`CallHook`] told of every call.

mod async_server;
mod call;
mod hook;
mod index;
mod server;
mod table;

pub(crate) use call::{call_end, call_start, is_notification, parse_failure, BatchState, Failure};
// What `method_table!` and `async_method_table!` expand to: not called by users.
#[cfg(feature = "concurrent")]
pub(crate) use async_server::{answer, handle_parsed};
pub use async_server::{AsyncMethods, AsyncServer};
pub use hook::{CallHook, CallInfo, Outcome};
#[doc(hidden)]
pub use index::{index, index_len};
pub use server::{OutputTooSmall, Server};
pub use table::{Fallback, Handler, Method, MethodTable};
