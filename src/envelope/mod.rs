//! Envelope: the members of a Request (or Notification) object, and batches of them.
//!
//! The second room of the flow. [`parse`] validates all of the message as JSON (through
//! [`scan`]'s rules) and picks out `jsonrpc`, `method`, `params` and `id`, in any
//! order, in the same pass: on the fast build `object.rs` reads a request as most
//! senders write it in a straight line, or validates the outermost object member by
//! member and reports each member as it ends (`members.rs` names them); what it gives
//! up on (invalid JSON, an empty batch) the validator reads from
//! the start and names the error of. The compact build validates, then reads the
//! members with the trusted skipper. A batch is validated whole first (nothing of an
//! invalid batch may run); on the fast build the same pass records the request
//! members of its first elements, and the elements are then handed out one by one,
//! from those records or read with the trusted skipper (`batch.rs`), never validated
//! again. The rules of a Request object are in
//! `request.rs`, those of a Response object (the client side, re-exported by
//! [`client`](crate::client)) in `response.rs`. What `parse` hands out borrows from the
//! input.
//!
//! # Contract
//!
//! - Any input, any limits: no panic, constant stack (see [`scan`]).
//! - An input that is not valid JSON *anywhere* is an `Err`: nothing of it is
//!   dispatched, batch elements before the error included.
//! - Every other input is an [`Envelope`]: one [`Call`], or a [`Batch`] of them, each
//!   either a [`Request`] or an invalid one with the id to answer it with.

mod batch;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzzing;
mod members;
mod object;
mod request;
mod response;
#[cfg(test)]
mod tests;

pub use response::{
    parse_response, ErrorObject, InvalidResponse, Outcome, Response, ResponseBatch, ResponseMessage,
};

use batch::{BatchElements, Records};
use members::Slots;
use request::request_of;

use crate::error::InvalidRequest;
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::{Kind, RawJson, RawStr};
use crate::scan::{self, byte_at, skip_ws, ScanError, FAST_PATHS};

/// The version a request or a response must give, `jsonrpc`'s value (escapes decoded).
const VERSION: &str = "2.0";
/// [`VERSION`] as most senders write it: the JSON string, five bytes, no escapes. The
/// readers that find it so take it whole.
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
    elements: BatchElements<'a>,
    /// The first elements, as the validating pass recorded them (the fast build).
    records: Records,
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
        self.elements.len
    }

    /// Always `false`: an empty batch is answered as one invalid request.
    pub fn is_empty(&self) -> bool {
        self.elements.len == 0
    }
}

impl<'a> Iterator for Batch<'a> {
    type Item = Call<'a>;

    // Inline into the caller's loop on the fast build: out of line, each element pays
    // for the call's registers saved and the call returned through memory.
    #[cfg_attr(jsonrpc_slice_fast, inline(always))]
    fn next(&mut self) -> Option<Call<'a>> {
        let limits = self.elements.limits;
        if !FAST_PATHS {
            return Some(request_of(self.elements.next_value()?, limits));
        }
        // From its record (its slots a value of their own, which the compiler keeps out
        // of memory, unlike the slots below), or read.
        if let Some(slots) = self.elements.next_recorded(&mut self.records) {
            return Some(slots.request(limits));
        }
        let mut slots = Slots::default();
        Some(if self.elements.next_into(&mut slots)? {
            slots.request(limits)
        } else {
            Call::Invalid {
                id: Id::NULL,
                reason: InvalidRequest::NotAnObject,
            }
        })
    }
}

/// A whole message, validated, before the rules of a request or a response apply.
enum Top<'a> {
    /// One object, its envelope members in the slots given to [`top`].
    Object,
    /// One value, its members not read yet (the compact build).
    Value(RawJson<'a>),
    /// Valid JSON that is neither an object nor a non-empty batch small enough.
    Other(InvalidRequest),
    /// A batch, its elements still to be read.
    Batch(BatchElements<'a>),
}

/// Validates all of `input`: one object, its envelope members found as it went (into
/// `slots`), the elements of its batch, or why it is answered as one invalid message.
#[inline(always)]
fn top<'a>(
    input: &'a [u8],
    at: usize,
    limits: &'a Limits,
    slots: &mut Slots<'a>,
) -> Result<Top<'a>, ScanError> {
    let max_depth = limits.depth_in_force();
    if !FAST_PATHS {
        // The compact build: validate, then read the members (or count the elements)
        // as any object's (or array's) are read, with the trusted skipper; `object.rs`
        // is not linked (flash). The unit tests pin this reader to the one-pass one.
        let (start, end) = scan::text(input, max_depth)?;
        let message = RawJson::trusted(input.get(start..end).unwrap_or(&[]));
        return Ok(match message.kind() {
            Kind::Array => batch::top(message.as_bytes(), 0, message.elements().count(), limits),
            _ => Top::Value(message),
        });
    }
    Ok(match byte_at(input, at) {
        b'{' => {
            if !object::object(
                input,
                at,
                max_depth,
                &mut members::Recorder::new(input, slots),
            ) {
                // Not valid JSON, which the validator names (were it valid, the members
                // would be read again with the trusted skipper).
                let (start, _) = scan::text(input, max_depth)?;
                *slots = Slots::default();
                slots.read(input, start);
            }
            Top::Object
        }
        b'[' => {
            let mut counter = batch::Counter::default();
            let (start, end, len) = match object::batch(input, at, max_depth, &mut counter) {
                Some(end) => (at, end, counter.len),
                None => {
                    let (start, end) = scan::text(input, max_depth)?;
                    (start, end, batch::count(input, start, end))
                }
            };
            batch::top(input.get(..end).unwrap_or(&[]), start, len, limits)
        }
        _ => {
            scan::text(input, max_depth)?;
            Top::Other(InvalidRequest::NotAnObject)
        }
    })
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
// build its test for a batch, so that a batch is handed on with no registers saved (the
// single message's reader is out of line, `parse_at`).
#[inline(always)]
pub fn parse<'a>(input: &'a [u8], limits: &'a Limits) -> Result<Envelope<'a>, ScanError> {
    // Where the message starts (the compact build's `top` does not look).
    let at = if FAST_PATHS { skip_ws(input, 0) } else { 0 };
    #[cfg(jsonrpc_slice_fast)]
    if byte_at(input, at) == b'[' && input.len() <= batch::RECORDED_BYTES {
        // A batch of requests: its first elements' members recorded as it is validated.
        return batch::parse_recorded(input, limits);
    }
    parse_at(input, at, limits)
}

/// [`parse`] of the message that starts at `at` (after any whitespace), but for a batch
/// the fast build records. Out of line on the fast build (see `parse`).
#[cfg_attr(jsonrpc_slice_fast, inline(never))]
#[cfg_attr(not(jsonrpc_slice_fast), inline(always))]
fn parse_at<'a>(input: &'a [u8], at: usize, limits: &'a Limits) -> Result<Envelope<'a>, ScanError> {
    let mut slots = Slots::default();
    if !FAST_PATHS {
        // The compact build: the envelope made in the match (less flash than the call
        // first).
        return Ok(match top(input, at, limits, &mut slots)? {
            Top::Object => Envelope::Single(slots.request(limits)),
            Top::Value(message) => Envelope::Single(request_of(message, limits)),
            Top::Other(reason) => Envelope::Single(Call::Invalid {
                id: Id::NULL,
                reason,
            }),
            Top::Batch(elements) => Envelope::Batch(Batch::unrecorded(elements)),
        });
    }
    // A request as most senders write it, read in a straight line (its slots a local
    // value, which the compiler keeps out of memory).
    if let Some(spans) = object::usual(input, at, limits.depth_in_force()) {
        return Ok(Envelope::Single(
            Slots::of_usual(input, spans).request(limits),
        ));
    }
    // The one call made first, then the envelope (not a whole envelope, records and
    // all, moved into place on every single message).
    let call = match top(input, at, limits, &mut slots)? {
        Top::Object => slots.request(limits),
        Top::Value(message) => request_of(message, limits),
        Top::Other(reason) => Call::Invalid {
            id: Id::NULL,
            reason,
        },
        Top::Batch(elements) => return Ok(Envelope::Batch(Batch::unrecorded(elements))),
    };
    Ok(Envelope::Single(call))
}
