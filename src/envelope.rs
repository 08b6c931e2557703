//! Envelope: the members of a Request (or Notification) object, and batches of them.
//!
//! The second room of the flow. [`parse`] walks the message once, validating all of it
//! as JSON (through [`scan`](crate::scan)) while it picks out `jsonrpc`, `method`,
//! `params` and `id`, in any order. What it hands out borrows from the input.
//!
//! # Contract
//!
//! - Any input, any limits: no panic, constant stack (see [`scan`](crate::scan)).
//! - An input that is not valid JSON *anywhere* is an `Err`: nothing of it is
//!   dispatched, batch elements before the error included.
//! - Every other input is an [`Envelope`]: one [`Call`], or a [`Batch`] of them, each
//!   either a [`Request`] or an invalid one with the id to answer it with.

use crate::error::InvalidRequest;
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::{skip_trusted, Kind, RawJson, RawStr};
use crate::scan::{ScanError, ScanErrorKind, Scanner};

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
#[derive(Clone, Debug)]
pub struct Batch<'a> {
    input: &'a [u8],
    /// Offset of the next element, or `input.len()` when done.
    pos: usize,
    len: usize,
    limits: Limits,
}

impl Batch<'_> {
    /// The number of elements in the batch.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always `false`: an empty batch is answered as one invalid request.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<'a> Iterator for Batch<'a> {
    type Item = Call<'a>;

    fn next(&mut self) -> Option<Call<'a>> {
        if self.pos >= self.input.len() {
            return None;
        }
        let s = Scanner::new(self.input, self.limits.max_depth);
        let start = self.pos;
        let (call, end) = if s.at(start) == b'{' {
            match object(&s, start, 1) {
                Ok((slots, end)) => (slots.request(&self.limits), end),
                // Unreachable after the validating pass; end the batch rather than guess.
                Err(_) => {
                    self.pos = self.input.len();
                    return None;
                }
            }
        } else {
            let call = Call::Invalid {
                id: Id::NULL,
                reason: InvalidRequest::NotAnObject,
            };
            (call, skip_trusted(self.input, start))
        };
        let next = s.skip_ws(end);
        self.pos = if s.at(next) == b',' {
            s.skip_ws(next + 1)
        } else {
            self.input.len()
        };
        Some(call)
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
pub fn parse<'a>(input: &'a [u8], limits: &Limits) -> Result<Envelope<'a>, ScanError> {
    let s = Scanner::new(input, limits.max_depth);
    let start = s.skip_ws(0);
    match s.at(start) {
        b'{' => {
            let (slots, end) = object(&s, start, 0)?;
            s.end(end)?;
            Ok(Envelope::Single(slots.request(limits)))
        }
        b'[' => batch(&s, start, limits),
        _ => {
            let end = s.value(start, 0)?;
            s.end(end)?;
            Ok(Envelope::Single(Call::Invalid {
                id: Id::NULL,
                reason: InvalidRequest::NotAnObject,
            }))
        }
    }
}

/// Validates the batch whose `[` is at `start` and counts its elements.
fn batch<'a>(s: &Scanner<'a>, start: usize, limits: &Limits) -> Result<Envelope<'a>, ScanError> {
    let invalid = |reason| {
        Envelope::Single(Call::Invalid {
            id: Id::NULL,
            reason,
        })
    };
    if limits.max_depth == 0 {
        return Err(too_deep(start));
    }
    let first = s.skip_ws(start + 1);
    if s.at(first) == b']' {
        s.end(first + 1)?;
        return Ok(invalid(InvalidRequest::EmptyBatch));
    }
    let mut i = first;
    let mut len = 0usize;
    loop {
        i = s.value(i, 1)?;
        len += 1;
        i = s.skip_ws(i);
        match s.at(i) {
            b',' => i = s.skip_ws(i + 1),
            b']' => break,
            _ => return Err(s.err(ScanErrorKind::UnexpectedByte, i)),
        }
    }
    s.end(i + 1)?;
    if len > limits.max_batch {
        return Ok(invalid(InvalidRequest::BatchTooLarge));
    }
    Ok(Envelope::Batch(Batch {
        input: s.bytes(),
        pos: first,
        len,
        limits: *limits,
    }))
}

fn too_deep(offset: usize) -> ScanError {
    ScanError {
        kind: ScanErrorKind::TooDeep,
        offset,
    }
}

/// The envelope members of one object, as found.
#[derive(Default)]
struct Slots<'a> {
    jsonrpc: Option<RawJson<'a>>,
    method: Option<RawJson<'a>>,
    params: Option<RawJson<'a>>,
    id: Option<RawJson<'a>>,
    /// A member other than `id` was given twice.
    duplicate: bool,
    /// `id` was given twice.
    duplicate_id: bool,
}

/// The envelope member a key names.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Member {
    Jsonrpc,
    Method,
    Params,
    Id,
    Other,
}

const MEMBERS: [(&str, Member); 4] = [
    ("jsonrpc", Member::Jsonrpc),
    ("method", Member::Method),
    ("params", Member::Params),
    ("id", Member::Id),
];

fn member(key: RawStr<'_>) -> Member {
    match key.as_raw() {
        b"jsonrpc" => Member::Jsonrpc,
        b"method" => Member::Method,
        b"params" => Member::Params,
        b"id" => Member::Id,
        raw if raw.contains(&b'\\') => MEMBERS
            .iter()
            .find(|(name, _)| key.eq_str(name))
            .map_or(Member::Other, |&(_, m)| m),
        _ => Member::Other,
    }
}

/// Scans the object whose `{` is at `start`, inside `depth` containers, recording its
/// envelope members. Returns them and the offset after the `}`.
fn object<'a>(
    s: &Scanner<'a>,
    start: usize,
    depth: usize,
) -> Result<(Slots<'a>, usize), ScanError> {
    if depth >= s.max_depth() {
        return Err(too_deep(start));
    }
    let mut slots = Slots::default();
    let mut i = s.skip_ws(start + 1);
    if s.at(i) == b'}' {
        return Ok((slots, i + 1));
    }
    loop {
        if s.at(i) != b'"' {
            return Err(s.err(ScanErrorKind::UnexpectedByte, i));
        }
        let (key_end, _) = s.string(i)?;
        let key = RawStr::trusted(s.slice(i + 1, key_end - 1));
        let value_start = s.skip_ws(s.expect(key_end, b':')?);
        let value_end = s.value(value_start, depth + 1)?;
        let value = RawJson::trusted(s.slice(value_start, value_end));
        let slot = match member(key) {
            Member::Jsonrpc => &mut slots.jsonrpc,
            Member::Method => &mut slots.method,
            Member::Params => &mut slots.params,
            Member::Id => {
                slots.duplicate_id |= slots.id.is_some();
                &mut slots.id
            }
            Member::Other => &mut None,
        };
        slots.duplicate |= slot.is_some();
        *slot = Some(value);
        i = s.skip_ws(value_end);
        match s.at(i) {
            b',' => i = s.skip_ws(i + 1),
            b'}' => return Ok((slots, i + 1)),
            _ => return Err(s.err(ScanErrorKind::UnexpectedByte, i)),
        }
    }
}

impl<'a> Slots<'a> {
    /// Applies the rules of a Request object (and the decided cases of DESIGN.md).
    fn request(&self, limits: &Limits) -> Call<'a> {
        // The id to answer with, and whether the id itself is fine.
        let (id, id_problem) = match self.id {
            None => (None, None),
            Some(_) if self.duplicate_id => (None, Some(InvalidRequest::DuplicateMember)),
            Some(raw) => match Id::from_raw(raw) {
                None => (None, Some(InvalidRequest::BadId)),
                Some(_) if raw.as_bytes().len() > limits.max_id_len => {
                    (None, Some(InvalidRequest::IdTooLong))
                }
                Some(id) => (Some(id), None),
            },
        };
        let invalid = |reason| Call::Invalid {
            id: id.unwrap_or(Id::NULL),
            reason,
        };
        if let Some(reason) = id_problem {
            return invalid(reason);
        }
        if self.duplicate {
            return invalid(InvalidRequest::DuplicateMember);
        }
        let version_ok = self
            .jsonrpc
            .and_then(|v| v.as_str())
            .is_some_and(|v| v.eq_str("2.0"));
        if !version_ok {
            return invalid(InvalidRequest::BadVersion);
        }
        let method = match self.method {
            None => return invalid(InvalidRequest::MissingMethod),
            Some(m) => match m.as_str() {
                None => return invalid(InvalidRequest::MethodNotString),
                Some(m) if m.as_raw().len() > limits.max_method_len => {
                    return invalid(InvalidRequest::MethodTooLong)
                }
                Some(m) => m,
            },
        };
        if let Some(p) = self.params {
            if !matches!(p.kind(), Kind::Array | Kind::Object) {
                return invalid(InvalidRequest::ParamsNotStructured);
            }
        }
        Call::Request(Request {
            method,
            params: self.params,
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(input: &[u8]) -> Call<'_> {
        match parse(input, &Limits::DEFAULT) {
            Ok(Envelope::Single(call)) => call,
            other => panic!("{other:?}"),
        }
    }

    fn invalid_reason(input: &[u8]) -> (Vec<u8>, InvalidRequest) {
        match single(input) {
            Call::Invalid { id, reason } => (id.as_bytes().to_vec(), reason),
            other => panic!("{other:?}"),
        }
    }

    extern crate std;
    use std::vec::Vec;

    #[test]
    fn members_in_any_order_and_escaped_keys() {
        let Call::Request(r) =
            single(br#"{"\u0069d":"x","params":{},"method":"su\u006d","jsonrpc":"2\u002e0"}"#)
        else {
            panic!()
        };
        assert!(r.method.eq_str("sum"));
        assert_eq!(r.id.unwrap().as_bytes(), br#""x""#);
        assert_eq!(r.params.unwrap().as_bytes(), b"{}");
    }

    #[test]
    fn decided_invalid_cases() {
        let cases: &[(&[u8], &[u8], InvalidRequest)] = &[
            (
                br#"{"jsonrpc":"2.0","method":1,"id":3}"#,
                b"3",
                InvalidRequest::MethodNotString,
            ),
            (
                br#"{"jsonrpc":"2.0","id":3}"#,
                b"3",
                InvalidRequest::MissingMethod,
            ),
            (
                br#"{"jsonrpc":"1.0","method":"a","id":3}"#,
                b"3",
                InvalidRequest::BadVersion,
            ),
            (
                br#"{"jsonrpc":2.0,"method":"a","id":3}"#,
                b"3",
                InvalidRequest::BadVersion,
            ),
            (
                br#"{"method":"a","id":3}"#,
                b"3",
                InvalidRequest::BadVersion,
            ),
            (
                br#"{"jsonrpc":"2.0","method":"a","params":null,"id":3}"#,
                b"3",
                InvalidRequest::ParamsNotStructured,
            ),
            (
                br#"{"jsonrpc":"2.0","method":"a","id":true}"#,
                b"null",
                InvalidRequest::BadId,
            ),
            (
                br#"{"jsonrpc":"2.0","method":"a","id":[1]}"#,
                b"null",
                InvalidRequest::BadId,
            ),
            (
                br#"{"jsonrpc":"2.0","method":"a","method":"b","id":3}"#,
                b"3",
                InvalidRequest::DuplicateMember,
            ),
            (
                br#"{"jsonrpc":"2.0","method":"a","id":3,"id":4}"#,
                b"null",
                InvalidRequest::DuplicateMember,
            ),
            (b"1", b"null", InvalidRequest::NotAnObject),
            (b" [ ] ", b"null", InvalidRequest::EmptyBatch),
        ];
        for &(input, id, reason) in cases {
            assert_eq!(
                invalid_reason(input),
                (id.to_vec(), reason),
                "{}",
                std::str::from_utf8(input).unwrap()
            );
        }
    }

    #[test]
    fn batch_elements_in_order() {
        let Ok(Envelope::Batch(b)) = parse(
            br#"[1, {"jsonrpc":"2.0","method":"m"} ,[2]]"#,
            &Limits::DEFAULT,
        ) else {
            panic!()
        };
        assert_eq!(b.len(), 3);
        let calls: Vec<_> = b.collect();
        assert!(matches!(
            calls[0],
            Call::Invalid {
                reason: InvalidRequest::NotAnObject,
                ..
            }
        ));
        assert!(matches!(calls[1], Call::Request(r) if r.is_notification()));
        assert!(matches!(
            calls[2],
            Call::Invalid {
                reason: InvalidRequest::NotAnObject,
                ..
            }
        ));
    }

    #[test]
    fn invalid_json_anywhere_is_an_error() {
        for input in [
            &br#"[{"jsonrpc":"2.0","method":"m","id":1}, {"#[..],
            br#"{"jsonrpc":"2.0","method":"m","params":[1,],"id":1}"#,
            br#"{"jsonrpc":"2.0","method":"m","id":1} x"#,
        ] {
            assert!(parse(input, &Limits::DEFAULT).is_err());
        }
    }
}
