//! The client half: calls written into your buffer and registered in one step, each
//! answered through a typed [`Handle`]; replies parsed borrowed; deadlines from a
//! clock you supply; no allocation and no I/O of its own.
//!
//! - [`Client`] is the one entry point: [`Client::request`] writes a request and
//!   registers it (the id minted or given, a deadline, a tag) and hands back a
//!   [`Handle`]; [`Client::batch`] does the same call by call and refuses an empty
//!   batch; [`Client::receive`] feeds what the server sent (replies, batches of them,
//!   its notifications, handed to you as [`Incoming`]); a handle then resolves to its
//!   result (typed with `take`, feature `serde`, or raw with [`Client::take_raw`]) or
//!   to a [`CallError`] that says why: the server's error (code, message, data),
//!   a result that does not decode (naming the field), timed out, cancelled, the
//!   connection lost. Late, duplicate and unknown replies, and ids that come back as
//!   another type, are told apart. [`Notifications`] queues the server's
//!   notifications (bounded) for a client that reads them later.
//! - [`Connection`] runs a `Client` over a framed stream (`std::io`, `embedded-io`
//!   0.6 and 0.7, blocking or async, with any [`frame`](crate::frame) framer): send,
//!   then read until the handle resolves.
//! - Underneath, for callers that send and match by hand: [`write_request`],
//!   [`write_notification`] and [`BatchWriter`] write messages with the checked
//!   writer the server replies with; [`Pending`] matches replies to ids.

mod call;
mod calls;
mod deadline;
mod error;
mod handle;
mod id;
mod incoming;
mod pending;
mod queue;
mod retired;
mod stream;
mod write;

pub use call::{params, Call, ToParams};
pub use calls::{Batch, Client, Status, RETIRED};
pub use deadline::{Cancel, Clock};
pub use error::{CallError, SendError};
pub use handle::Handle;
#[cfg(feature = "concurrent")]
pub(crate) use id::same_id;
pub use id::{IdCounter, RequestId, MAX_PENDING_ID};
pub use incoming::Incoming;
pub use pending::{InsertError, Pending, Resolution};
pub use queue::{Notification, Notifications};
pub use stream::{Connection, ConnectionError};
pub use write::{write_notification, write_request, BatchWriter};
