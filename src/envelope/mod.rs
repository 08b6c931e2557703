//! Envelope: the members of a Request (or Notification) object, and batches of them.
//!
//! The second room of the flow. [`parse`] validates all of the message as JSON (through
//! [`scan`](crate::scan)'s rules) and picks out `jsonrpc`, `method`, `params` and `id`, in any
//! order, into the slots of `members.rs`. Each build has its reader, in one file: the
//! fast build's (`read_fast.rs`) validates and fills the slots in one pass, by one
//! member loop whose first guess is the order most senders write; the compact build's
//! (`read_compact.rs`) validates, then reads the members as any object's. A batch is
//! validated whole first (nothing of an invalid batch may run), then its elements are
//! handed out one by one, never validated again. The rules of a Request object are in
//! `request.rs`, those of a Response object (the client side, re-exported by
//! [`client`](crate::client)) in `response.rs`. What `parse` hands out borrows from the
//! input.
//!
//! # Contract
//!
//! - Any input, any limits: no panic, constant stack (see [`scan`](crate::scan)).
//! - An input that is not valid JSON *anywhere* is an `Err`: nothing of it is
//!   dispatched, batch elements before the error included.
//! - Every other input is an [`Envelope`]: one [`Call`], or a [`Batch`] of them, each
//!   either a [`Request`] or an invalid one with the id to answer it with.

#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzzing;
mod members;
// The build's reader: one file each, the build switch named here alone.
#[cfg_attr(jsonrpc_slice_fast, path = "read_fast.rs")]
#[cfg_attr(not(jsonrpc_slice_fast), path = "read_compact.rs")]
mod read;
mod request;
mod response;
#[cfg(test)]
mod tests;

pub use response::{
    parse_response, ErrorObject, InvalidResponse, Outcome, Response, ResponseBatch, ResponseMessage,
};

use crate::error::InvalidRequest;
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::{RawJson, RawStr};
use crate::scan::ScanError;

/// The version a request or a response must give, `jsonrpc`'s value (escapes decoded).
const VERSION: &str = "2.0";
/// [`VERSION`] as most senders write it: the JSON string, five bytes, no escapes. The
/// fast build takes it so whole.
const VERSION_LEXEME: &[u8; 5] = b"\"2.0\"";
const _: () = {
    let (text, lexeme) = (VERSION.as_bytes(), VERSION_LEXEME);
    assert!(lexeme[0] == b'"' && lexeme[4] == b'"' && text.len() == 3);
    assert!(text[0] == lexeme[1] && text[1] == lexeme[2] && text[2] == lexeme[3]);
};

/// A valid Request object: a call (it has an `id`) or a notification (it has none).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    /// The method name, escapes as sent.
    pub method: RawStr<'a>,
    /// The params, an array or an object, if present.
    pub params: Option<RawJson<'a>>,
    /// The id, or `None` for a notification.
    pub id: Option<Id<'a>>,
}

impl Request<'_> {
    /// `true` if this request has no `id`: it must never be answered.
    pub fn is_notification(&self) -> bool {
        self.id.is_none()
    }
}

/// One element of a message: a valid request, or an invalid one.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Call<'a> {
    /// A valid Request object.
    Request(Request<'a>),
    /// Not a valid Request object: answered with `-32600` and this `id` (the request's
    /// own when that is valid, `null` otherwise), even when it had no `id`.
    Invalid {
        /// The id to answer with.
        id: Id<'a>,
        /// Why it is invalid.
        reason: InvalidRequest,
    },
}

/// A whole message, valid JSON, split into what must be answered.
// Nothing is boxed (no allocation): on the fast build a batch carries the records of
// its first elements.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Envelope<'a> {
    /// A single object, or a top-level value that gets one answer (`[]`, `1`, ...).
    Single(Call<'a>),
    /// A non-empty batch.
    Batch(Batch<'a>),
}

/// The elements of a batch, in request order. Made by [`parse`], which has validated
/// the whole batch and counted its elements.
#[derive(Clone)]
pub struct Batch<'a> {
    elements: read::Elements<'a>,
}

impl core::fmt::Debug for Batch<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Batch")
            .field("elements", &self.elements)
            .finish()
    }
}

impl Batch<'_> {
    /// The number of elements in the batch.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Always `false`: an empty batch is answered as one invalid request.
    pub fn is_empty(&self) -> bool {
        self.elements.len() == 0
    }
}

/// Parses one message: validates all of it and recognises its envelope.
///
/// ```
/// use jsonrpc_slice::envelope::{parse, Call, Envelope};
/// use jsonrpc_slice::Limits;
///
/// let msg = br#"{"id": 7, "params": [42, 23], "method": "subtract", "jsonrpc": "2.0"}"#;
/// let Ok(Envelope::Single(Call::Request(req))) = parse(msg, &Limits::DEFAULT) else {
///     panic!("not a request")
/// };
/// assert!(req.method.eq_str("subtract"));
/// assert_eq!(req.params.unwrap().as_bytes(), b"[42, 23]");
/// assert_eq!(req.id.unwrap().as_bytes(), b"7");
/// ```
// Inlined into its caller: in the compact build for flash, on a Cortex-M; in the fast
// build its test for a batch, so that a batch is handed on with no registers saved.
#[inline(always)]
pub fn parse<'a>(input: &'a [u8], limits: &'a Limits) -> Result<Envelope<'a>, ScanError> {
    read::parse(input, limits)
}
