//! [`Incoming`]: what a received message held besides the replies to calls in
//! flight, as [`Client::receive`](super::Client::receive) hands it on.

use crate::envelope::{InvalidResponse, Outcome, Request};
use crate::id::Id;
use crate::scan::ScanError;

/// A message, or part of a batch, that answered no call in flight.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Incoming<'a> {
    /// A notification from the server (a subscription's event, a progress report, a
    /// log line): a request without an id.
    Notification(Request<'a>),
    /// A request from the server, with an id: the server waits for an answer this
    /// client does not give (serve it with the [`service`](crate::service) instead).
    Request(Request<'a>),
    /// A reply to a call given up (timed out, cancelled, its connection lost).
    Late(Id<'a>),
    /// A second reply to a call answered already.
    Duplicate(Id<'a>),
    /// A reply with an id this client never sent (or no longer remembers: it keeps
    /// the last [`RETIRED`](super::RETIRED) that left it).
    Unknown(Id<'a>),
    /// A reply with `"id":null`: the server could not read a request's id (a parse
    /// error, an invalid request), so no call can be matched.
    NullId(Outcome<'a>),
    /// A message that is not JSON.
    NotJson(ScanError),
    /// JSON that is neither a response nor a request.
    Invalid(InvalidResponse),
    /// A frame longer than the framer's buffer, skipped (the stream loops).
    Oversized,
    /// Bytes that are not a frame (a malformed header), skipped (the stream loops).
    Malformed,
}
