//! Responses (the client side): the rules of a Response object and of its `error`, and
//! [`parse_response`], which [`client`](crate::client) re-exports.

use super::members::{Member, Slots, RESPONSE_MEMBERS};
use super::read::{self, Elements};
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::{Kind, RawJson, RawStr};
use crate::scan::ScanError;

/// A valid Response object.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Response<'a> {
    /// The id, exactly as received (`null` when the server could not read the
    /// request's id).
    pub id: Id<'a>,
    /// The result, or the error.
    pub outcome: Outcome<'a>,
}

/// What a response carries: a result or an error, never both.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// `result`, as raw JSON.
    Result(RawJson<'a>),
    /// `error`.
    Error(ErrorObject<'a>),
}

/// The `error` member of a response.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ErrorObject<'a> {
    /// `code`: an integer.
    pub code: i64,
    /// `message`, escapes as sent.
    pub message: RawStr<'a>,
    /// `data`, if present.
    pub data: Option<RawJson<'a>>,
}

/// Why a message is not a valid Response object.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidResponse {
    /// Valid JSON, but not an object (or, at the top level, not an object or array).
    NotAnObject,
    /// The batch `[]`.
    EmptyBatch,
    /// A batch with more elements than [`Limits::max_batch`].
    BatchTooLarge,
    /// `jsonrpc` missing or not exactly `"2.0"`.
    BadVersion,
    /// Both `result` and `error`.
    BothResultAndError,
    /// Neither `result` nor `error`.
    NeitherResultNorError,
    /// `error` not an object with an integer `code` and a string `message`.
    BadError,
    /// `id` missing.
    MissingId,
    /// `id` not a string, number or null.
    BadId,
    /// A member of the envelope (or of `error`) given twice.
    DuplicateMember,
}

impl InvalidResponse {
    /// A short description, for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NotAnObject => "not an object",
            Self::EmptyBatch => "empty batch",
            Self::BatchTooLarge => "batch too large",
            Self::BadVersion => "jsonrpc is not \"2.0\"",
            Self::BothResultAndError => "both result and error",
            Self::NeitherResultNorError => "neither result nor error",
            Self::BadError => "error is not an object with an integer code and a string message",
            Self::MissingId => "id missing",
            Self::BadId => "id is not a string, number or null",
            Self::DuplicateMember => "member given twice",
        }
    }
}

impl core::fmt::Display for InvalidResponse {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A whole response message: one response, or a batch of them.
// Nothing is boxed (no allocation): on the fast build a batch carries the records of
// its first elements.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum ResponseMessage<'a> {
    /// A single object (or a top-level value that is not a response at all).
    Single(Result<Response<'a>, InvalidResponse>),
    /// A non-empty batch.
    Batch(ResponseBatch<'a>),
}

/// The elements of a batch of responses, in the order received.
#[derive(Clone, Debug)]
pub struct ResponseBatch<'a> {
    pub(super) elements: Elements<'a>,
}

impl ResponseBatch<'_> {
    /// The number of elements in the batch.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Always `false`: an empty batch is not a batch of responses.
    pub fn is_empty(&self) -> bool {
        self.elements.len() == 0
    }
}

/// Parses a response message (what a client receives): validates all of it and
/// recognises each Response object.
///
/// ```
/// use jsonrpc_slice::envelope::{parse_response, Outcome, ResponseMessage};
/// use jsonrpc_slice::Limits;
///
/// let msg = br#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}"#;
/// let Ok(ResponseMessage::Single(Ok(r))) = parse_response(msg, &Limits::DEFAULT) else {
///     panic!("not a response")
/// };
/// assert_eq!(r.id.as_bytes(), br#""1""#);
/// let Outcome::Error(e) = r.outcome else { panic!() };
/// assert_eq!(e.code, -32601);
/// assert!(e.message.eq_str("Method not found"));
/// ```
pub fn parse_response<'a>(
    input: &'a [u8],
    limits: &'a Limits,
) -> Result<ResponseMessage<'a>, ScanError> {
    read::parse_response(input, limits)
}

impl<'a> Slots<'a> {
    /// Applies the rules of a Response object.
    pub(super) fn response(&self) -> Result<Response<'a>, InvalidResponse> {
        if self.any_duplicated(RESPONSE_MEMBERS) {
            return Err(InvalidResponse::DuplicateMember);
        }
        if !self.version_ok() {
            return Err(InvalidResponse::BadVersion);
        }
        let id = match self.get(Member::Id) {
            None => return Err(InvalidResponse::MissingId),
            Some(raw) => Id::from_raw(raw).ok_or(InvalidResponse::BadId)?,
        };
        let outcome = match (self.get(Member::Result), self.get(Member::Error)) {
            (Some(_), Some(_)) => return Err(InvalidResponse::BothResultAndError),
            (None, None) => return Err(InvalidResponse::NeitherResultNorError),
            (Some(result), None) => Outcome::Result(result),
            (None, Some(error)) => Outcome::Error(error_object(error)?),
        };
        Ok(Response { id, outcome })
    }
}

/// Reads the `error` member of a response.
fn error_object(error: RawJson<'_>) -> Result<ErrorObject<'_>, InvalidResponse> {
    if error.kind() != Kind::Object {
        return Err(InvalidResponse::BadError);
    }
    let (mut code, mut message, mut data) = (None, None, None);
    for (key, value) in error.members() {
        let slot = if key.eq_str("code") {
            &mut code
        } else if key.eq_str("message") {
            &mut message
        } else if key.eq_str("data") {
            &mut data
        } else {
            continue;
        };
        if slot.replace(value).is_some() {
            return Err(InvalidResponse::DuplicateMember);
        }
    }
    let code = code
        .and_then(|c| c.as_i64())
        .ok_or(InvalidResponse::BadError)?;
    let message = message
        .and_then(|m| m.as_str())
        .ok_or(InvalidResponse::BadError)?;
    Ok(ErrorObject {
        code,
        message,
        data,
    })
}
