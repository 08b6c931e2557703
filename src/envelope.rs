//! Envelope: the members of a Request (or Notification) object, and batches of them.
//!
//! The second room of the flow. [`parse`] validates all of the message as JSON (through
//! [`scan`](crate::scan)) and picks out `jsonrpc`, `method`, `params` and `id`, in any
//! order. On the fast path (64-bit targets) that is one walk. When the exact scanner
//! decides (an error, deep nesting, and always in the compact build), it validates
//! first and the members are then read as [`RawJson::members`] reads any object. What
//! `parse` hands out borrows from the input.
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
use crate::raw::{skip_trusted, Cursor, Kind, RawJson, RawStr};
use crate::scan::{
    byte_at, skip_string_trusted, skip_ws_fast, string_fast, value_fast, ScanError, Scanner,
    FAST_PATHS,
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
#[derive(Clone, Debug)]
pub struct Batch<'a> {
    elements: BatchElements<'a>,
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

    fn next(&mut self) -> Option<Call<'a>> {
        let limits = self.elements.limits;
        if !FAST_PATHS {
            return Some(request_of(self.elements.next_value()?, limits));
        }
        Some(match self.elements.next()? {
            Some(slots) => slots.request(limits),
            None => Call::Invalid {
                id: Id::NULL,
                reason: InvalidRequest::NotAnObject,
            },
        })
    }
}

/// The elements of a validated batch, as found: an object's envelope members, or
/// `None` for an element that is not an object.
#[derive(Clone, Debug)]
struct BatchElements<'a> {
    input: &'a [u8],
    /// Offset of the next element, or `input.len()` when done.
    pos: usize,
    len: usize,
    limits: &'a Limits,
}

impl<'a> BatchElements<'a> {
    /// The next element as a value: the compact build walks a batch as
    /// `RawJson::elements` walks any array.
    fn next_value(&mut self) -> Option<RawJson<'a>> {
        let mut cursor = Cursor::at(self.input, self.pos);
        let element = cursor.take_value()?;
        self.pos = cursor.position();
        Some(element)
    }
}

/// The call that a batch element (or a whole message) is: its envelope members are
/// read as [`RawJson::members`] reads any object. Out of line, so that its `Slots`
/// are off the stack while the call is answered.
#[inline(never)]
fn request_of<'a>(element: RawJson<'a>, limits: &Limits) -> Call<'a> {
    match element.kind() {
        Kind::Object => Slots::of(element).request(limits),
        _ => Call::Invalid {
            id: Id::NULL,
            reason: InvalidRequest::NotAnObject,
        },
    }
}

impl<'a> Iterator for BatchElements<'a> {
    type Item = Option<Slots<'a>>;

    fn next(&mut self) -> Option<Option<Slots<'a>>> {
        if self.pos >= self.input.len() {
            return None;
        }
        let input = self.input;
        let start = self.pos;
        if !FAST_PATHS {
            let element = self.next_value()?;
            return Some((element.kind() == Kind::Object).then(|| Slots::of(element)));
        }
        // The batch is valid JSON (the first pass said so): find the members only.
        let (slots, end) = if byte_at(input, start) == b'{' {
            let mut slots = Slots::default();
            let end = object_trusted(&mut slots, input, start);
            (Some(slots), end)
        } else {
            (None, skip_trusted(input, start))
        };
        let next = skip_ws_fast(input, end);
        self.pos = if byte_at(input, next) == b',' {
            skip_ws_fast(input, next + 1)
        } else {
            input.len()
        };
        Some(slots)
    }
}

/// A whole message, validated, before the rules of a request or a response apply.
enum Top<'a> {
    Object(Slots<'a>),
    /// Valid JSON that is neither an object nor a non-empty batch small enough.
    Other(InvalidRequest),
    Batch(BatchElements<'a>),
}

/// Validates all of `input` and finds the envelope members of its object or of each
/// element of its batch.
#[inline]
fn top<'a>(input: &'a [u8], limits: &'a Limits) -> Result<Top<'a>, ScanError> {
    match top_fast(input, limits) {
        Some(top) => Ok(top),
        None => top_exact(input, limits),
    }
}

/// `true` if `input` is one object, valid, read on the fast path into `slots`.
#[inline(always)]
fn single_fast<'a>(slots: &mut Slots<'a>, input: &'a [u8], limits: &Limits) -> bool {
    if !FAST_PATHS {
        return false;
    }
    let start = skip_ws_fast(input, 0);
    if byte_at(input, start) != b'{' {
        return false;
    }
    let max_depth = limits.depth_in_force() as usize;
    match object_fast(slots, input, start, 0, max_depth) {
        Some(end) => skip_ws_fast(input, end) == input.len(),
        None => false,
    }
}

/// [`top`] on the fast path of [`scan`](crate::scan): `None` when the input is not
/// valid JSON or nests deeper than the fast path goes; [`top_exact`] then decides, and
/// names the error.
#[inline(always)]
fn top_fast<'a>(input: &'a [u8], limits: &'a Limits) -> Option<Top<'a>> {
    if !FAST_PATHS {
        return None;
    }
    let max_depth = limits.depth_in_force() as usize;
    let start = skip_ws_fast(input, 0);
    let (top, end) = match byte_at(input, start) {
        b'{' => {
            let mut slots = Slots::default();
            let end = object_fast(&mut slots, input, start, 0, max_depth)?;
            (Top::Object(slots), end)
        }
        b'[' => return batch_fast(input, start, limits, max_depth),
        _ => (
            Top::Other(InvalidRequest::NotAnObject),
            value_fast(input, start, 0, max_depth)?,
        ),
    };
    if skip_ws_fast(input, end) != input.len() {
        return None;
    }
    Some(top)
}

/// [`batch`] on the fast path: see [`top_fast`].
#[inline(never)]
fn batch_fast<'a>(
    input: &'a [u8],
    start: usize,
    limits: &'a Limits,
    max_depth: usize,
) -> Option<Top<'a>> {
    if max_depth == 0 {
        return None;
    }
    let first = skip_ws_fast(input, start + 1);
    let mut i = first;
    let mut len = 0usize;
    if byte_at(input, i) == b']' {
        i += 1;
    } else {
        // Elements are validated here and read in a second pass (see `BatchElements`);
        // objects go the object way, which knows the envelope keys.
        let mut scratch = Slots::default();
        loop {
            let end = if byte_at(input, i) == b'{' {
                object_fast(&mut scratch, input, i, 1, max_depth)?
            } else {
                value_fast(input, i, 1, max_depth)?
            };
            i = skip_ws_fast(input, end);
            len += 1;
            match byte_at(input, i) {
                b',' => i = skip_ws_fast(input, i + 1),
                b']' => break i += 1,
                _ => return None,
            }
        }
    }
    if skip_ws_fast(input, i) != input.len() {
        return None;
    }
    Some(if len == 0 {
        Top::Other(InvalidRequest::EmptyBatch)
    } else if len > limits.max_batch {
        Top::Other(InvalidRequest::BatchTooLarge)
    } else {
        Top::Batch(BatchElements {
            input,
            pos: first,
            len,
            limits,
        })
    })
}

/// [`top`] with the [`Scanner`]: exact errors, any depth. The message is validated
/// whole first, then its members are read as [`RawJson::members`] reads any object.
#[cold]
#[inline(never)]
fn top_exact<'a>(input: &'a [u8], limits: &'a Limits) -> Result<Top<'a>, ScanError> {
    let message = validated(input, limits)?;
    Ok(match batch_of(message, limits) {
        Some(Ok(elements)) => Top::Batch(elements),
        Some(Err(reason)) => Top::Other(reason),
        None if message.kind() == Kind::Object => Top::Object(Slots::of(message)),
        None => Top::Other(InvalidRequest::NotAnObject),
    })
}

/// The message as one value, validated whole by the [`Scanner`] (exact errors, any
/// depth).
fn validated<'a>(input: &'a [u8], limits: &Limits) -> Result<RawJson<'a>, ScanError> {
    let s = Scanner::new(input, limits.max_depth);
    let start = s.skip_ws(0);
    let end = s.value(start, 0)?;
    s.end(end)?;
    Ok(RawJson::trusted(s.slice(start, end)))
}

/// The elements of `message` if it is a batch (an array), or why that batch is
/// answered as one invalid request; `None` if it is not an array.
fn batch_of<'a>(
    message: RawJson<'a>,
    limits: &'a Limits,
) -> Option<Result<BatchElements<'a>, InvalidRequest>> {
    if message.kind() != Kind::Array {
        return None;
    }
    Some(match message.elements().count() {
        0 => Err(InvalidRequest::EmptyBatch),
        len if len > limits.max_batch => Err(InvalidRequest::BatchTooLarge),
        len => {
            let input = message.as_bytes();
            Ok(BatchElements {
                input,
                pos: skip_ws_fast(input, 1),
                len,
                limits,
            })
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
// Inlined into its caller in the compact build (the condition of `FAST_PATHS`):
// flash, on a Cortex-M.
#[cfg_attr(not(jsonrpc_slice_fast), inline(always))]
pub fn parse<'a>(input: &'a [u8], limits: &'a Limits) -> Result<Envelope<'a>, ScanError> {
    if !FAST_PATHS {
        // The compact build: validate, then read the one call or the batch.
        let message = validated(input, limits)?;
        return Ok(match batch_of(message, limits) {
            Some(Ok(elements)) => Envelope::Batch(Batch { elements }),
            Some(Err(reason)) => Envelope::Single(Call::Invalid {
                id: Id::NULL,
                reason,
            }),
            None => Envelope::Single(request_of(message, limits)),
        });
    }
    // The common case first: one object, valid, on the fast path.
    let mut slots = Slots::default();
    if single_fast(&mut slots, input, limits) {
        return Ok(Envelope::Single(slots.request(limits)));
    }
    Ok(match top(input, limits)? {
        Top::Object(slots) => Envelope::Single(slots.request(limits)),
        Top::Other(reason) => Envelope::Single(Call::Invalid {
            id: Id::NULL,
            reason,
        }),
        Top::Batch(elements) => Envelope::Batch(Batch { elements }),
    })
}

// ---- responses (the client side) --------------------------------------------------

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
    elements: BatchElements<'a>,
}

impl ResponseBatch<'_> {
    /// The number of elements in the batch.
    pub fn len(&self) -> usize {
        self.elements.len
    }

    /// Always `false`: an empty batch is not a batch of responses.
    pub fn is_empty(&self) -> bool {
        self.elements.len == 0
    }
}

impl<'a> Iterator for ResponseBatch<'a> {
    type Item = Result<Response<'a>, InvalidResponse>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(match self.elements.next()? {
            Some(slots) => slots.response(),
            None => Err(InvalidResponse::NotAnObject),
        })
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
    let mut slots = Slots::default();
    if single_fast(&mut slots, input, limits) {
        return Ok(ResponseMessage::Single(slots.response()));
    }
    Ok(match top(input, limits)? {
        Top::Object(slots) => ResponseMessage::Single(slots.response()),
        Top::Other(reason) => ResponseMessage::Single(Err(match reason {
            InvalidRequest::EmptyBatch => InvalidResponse::EmptyBatch,
            InvalidRequest::BatchTooLarge => InvalidResponse::BatchTooLarge,
            _ => InvalidResponse::NotAnObject,
        })),
        Top::Batch(elements) => ResponseMessage::Batch(ResponseBatch { elements }),
    })
}

/// The envelope members of one object, as found.
#[derive(Default)]
struct Slots<'a> {
    /// The value of each [`Member`] but `Other`, indexed by `Member as usize`.
    values: [Option<RawJson<'a>>; 6],
    /// Bit `Member as usize` is set when that member was given twice.
    duplicates: u8,
}

/// The envelope member a key names.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Member {
    Jsonrpc = 0,
    Method = 1,
    Params = 2,
    Id = 3,
    Result = 4,
    Error = 5,
    Other = 6,
}

const MEMBERS: [(&str, Member); 6] = [
    ("jsonrpc", Member::Jsonrpc),
    ("method", Member::Method),
    ("params", Member::Params),
    ("id", Member::Id),
    ("result", Member::Result),
    ("error", Member::Error),
];

/// The members of a Request object, and of a Response object, as duplicate masks.
const REQUEST_MEMBERS: u8 = 1 << Member::Jsonrpc as u8
    | 1 << Member::Method as u8
    | 1 << Member::Params as u8
    | 1 << Member::Id as u8;
const RESPONSE_MEMBERS: u8 = 1 << Member::Jsonrpc as u8
    | 1 << Member::Result as u8
    | 1 << Member::Error as u8
    | 1 << Member::Id as u8;

fn member(key: RawStr<'_>) -> Member {
    if !FAST_PATHS {
        // The compact build: one comparison, escapes decoded when there are any.
        return MEMBERS
            .iter()
            .find(|(name, _)| key.eq_str(name))
            .map_or(Member::Other, |&(_, m)| m);
    }
    match key.as_raw() {
        b"jsonrpc" => Member::Jsonrpc,
        b"method" => Member::Method,
        b"params" => Member::Params,
        b"id" => Member::Id,
        b"result" => Member::Result,
        b"error" => Member::Error,
        _ if key.has_escapes() => MEMBERS
            .iter()
            .find(|(name, _)| key.eq_str(name))
            .map_or(Member::Other, |&(_, m)| m),
        _ => Member::Other,
    }
}

/// The member a key names, for a key without escapes: the names are read as one
/// little-endian word (they are all shorter than eight bytes).
#[inline(always)]
fn member_plain(input: &[u8], key_start: usize, key_len: usize) -> Member {
    const ID: u64 = le(b"id");
    const ERROR: u64 = le(b"error");
    const METHOD: u64 = le(b"method");
    const PARAMS: u64 = le(b"params");
    const RESULT: u64 = le(b"result");
    const JSONRPC: u64 = le(b"jsonrpc");
    if !(2..=7).contains(&key_len) {
        return Member::Other;
    }
    // The key is followed by its closing quote, so a short input still has the bytes;
    // near the very end of the input, read them one by one.
    let w = match input.get(key_start..).and_then(|r| r.first_chunk::<8>()) {
        Some(w) => u64::from_le_bytes(*w),
        None => {
            let mut w = 0u64;
            for k in 0..key_len {
                w |= (byte_at(input, key_start + k) as u64) << (8 * k);
            }
            w
        }
    };
    let w = w & ((1u64 << (8 * key_len)) - 1);
    match (key_len, w) {
        (2, ID) => Member::Id,
        (5, ERROR) => Member::Error,
        (6, METHOD) => Member::Method,
        (6, PARAMS) => Member::Params,
        (6, RESULT) => Member::Result,
        (7, JSONRPC) => Member::Jsonrpc,
        _ => Member::Other,
    }
}

/// A little-endian word of up to eight bytes.
const fn le(s: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut k = 0;
    while k < s.len() {
        w |= (s[k] as u64) << (8 * k);
        k += 1;
    }
    w
}

/// The envelope keys as most senders write them: the name, its closing quote and the
/// colon, read in one word. At the opening quote `i` of a key: the member and the
/// offset just after the colon, when the key is one of them (anything else, escapes or
/// whitespace included, goes the general way).
#[inline(always)]
fn known_key(input: &[u8], i: usize) -> Option<(Member, usize)> {
    let w = match input.get(i + 1..).and_then(|r| r.first_chunk::<8>()) {
        Some(w) => u64::from_le_bytes(*w),
        // Near the end of the input: the last member is often a short id.
        None => {
            return match input.get(i + 1..i + 5) {
                Some(b"id\":") => Some((Member::Id, i + 5)),
                _ => None,
            }
        }
    };
    const METHOD: u64 = le(b"method\":");
    const PARAMS: u64 = le(b"params\":");
    const RESULT: u64 = le(b"result\":");
    const JSONRPC: u64 = le(b"jsonrpc\"");
    const ID: u64 = le(b"id\":");
    const ERROR: u64 = le(b"error\":");
    match w {
        METHOD => return Some((Member::Method, i + 9)),
        PARAMS => return Some((Member::Params, i + 9)),
        RESULT => return Some((Member::Result, i + 9)),
        JSONRPC if byte_at(input, i + 9) == b':' => return Some((Member::Jsonrpc, i + 10)),
        _ => {}
    }
    if w & 0xFFFF_FFFF == ID {
        return Some((Member::Id, i + 5));
    }
    if w & 0x00FF_FFFF_FFFF_FFFF == ERROR {
        return Some((Member::Error, i + 8));
    }
    None
}

/// The value `"2.0"` at `i`, as most senders write it: the offset after it.
#[inline(always)]
fn plain_version(input: &[u8], i: usize) -> Option<usize> {
    match input.get(i..i + 5) {
        Some(b"\"2.0\"") => Some(i + 5),
        _ => None,
    }
}

/// Reads an object's envelope members on the fast path: `None` when it is not valid or
/// nests deeper than the fast path goes (then [`top_exact`] decides).
#[inline(always)]
fn object_fast<'a>(
    slots: &mut Slots<'a>,
    input: &'a [u8],
    start: usize,
    depth: usize,
    max_depth: usize,
) -> Option<usize> {
    if depth >= max_depth {
        return None;
    }
    let mut i = skip_ws_fast(input, start + 1);
    if byte_at(input, i) == b'}' {
        return Some(i + 1);
    }
    loop {
        if byte_at(input, i) != b'"' {
            return None;
        }
        let (m, after_colon) = match known_key(input, i) {
            Some(known) => known,
            None => {
                let (key_end, escaped) = string_fast(input, i)?;
                let m = if escaped {
                    member(RawStr::trusted(input.get(i + 1..key_end - 1)?))
                } else {
                    member_plain(input, i + 1, key_end - i - 2)
                };
                i = skip_ws_fast(input, key_end);
                if byte_at(input, i) != b':' {
                    return None;
                }
                (m, i + 1)
            }
        };
        let value_start = skip_ws_fast(input, after_colon);
        let value_end = match plain_version(input, value_start) {
            Some(end) if m == Member::Jsonrpc => end,
            _ => value_fast(input, value_start, depth + 1, max_depth)?,
        };
        slots.record(m, RawJson::trusted(input.get(value_start..value_end)?));
        i = skip_ws_fast(input, value_end);
        match byte_at(input, i) {
            b',' => i = skip_ws_fast(input, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Records the envelope members of the object whose `{` is at `start`, in input
/// validated already; returns the offset after its `}`. On input that is not valid JSON
/// it ends without panicking, at or before the end of the input.
#[inline(always)]
fn object_trusted<'a>(slots: &mut Slots<'a>, input: &'a [u8], start: usize) -> usize {
    let mut i = skip_ws_fast(input, start + 1);
    while byte_at(input, i) == b'"' {
        let (m, after_colon) = match known_key(input, i) {
            Some(known) => known,
            None => {
                let key_end = skip_string_trusted(input, i);
                let key_len = key_end.saturating_sub(i + 2);
                let mut m = member_plain(input, i + 1, key_len);
                if m == Member::Other {
                    let key = input.get(i + 1..i + 1 + key_len).unwrap_or(&[]);
                    if key.contains(&b'\\') {
                        m = member(RawStr::trusted(key));
                    }
                }
                // Past the colon.
                (m, skip_ws_fast(input, key_end) + 1)
            }
        };
        let value_start = skip_ws_fast(input, after_colon);
        let value_end = match byte_at(input, value_start) {
            b'"' => match plain_version(input, value_start) {
                Some(end) if m == Member::Jsonrpc => end,
                _ => skip_string_trusted(input, value_start),
            },
            _ => skip_trusted(input, value_start),
        };
        if let Some(value) = input.get(value_start..value_end) {
            slots.record(m, RawJson::trusted(value));
        }
        i = skip_ws_fast(input, value_end);
        if byte_at(input, i) != b',' {
            break;
        }
        i = skip_ws_fast(input, i + 1);
    }
    // The closing brace.
    (i + 1).min(input.len())
}

impl<'a> Slots<'a> {
    /// The envelope members of `object`, a validated object.
    #[inline(always)]
    fn of(object: RawJson<'a>) -> Self {
        let mut slots = Slots::default();
        for (key, value) in object.members() {
            slots.record(member(key), value);
        }
        slots
    }

    /// Records the value of a member; a second one marks it duplicated.
    #[inline]
    fn record(&mut self, m: Member, value: RawJson<'a>) {
        if let Some(slot) = self.values.get_mut(m as usize) {
            if slot.is_some() {
                self.duplicates |= 1 << m as u8;
            }
            *slot = Some(value);
        }
    }

    /// Applies the rules of a Request object (and the decided cases of DESIGN.md).
    fn request(&self, limits: &Limits) -> Call<'a> {
        // The id to answer with, and whether the id itself is fine.
        let (id, id_problem) = match self.get(Member::Id) {
            None => (None, None),
            Some(_) if self.duplicated(Member::Id) => (None, Some(InvalidRequest::DuplicateMember)),
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
        if self.duplicates & REQUEST_MEMBERS != 0 {
            return invalid(InvalidRequest::DuplicateMember);
        }
        if !self.version_ok() {
            return invalid(InvalidRequest::BadVersion);
        }
        let method = match self.get(Member::Method) {
            None => return invalid(InvalidRequest::MissingMethod),
            Some(m) => match m.as_str() {
                None => return invalid(InvalidRequest::MethodNotString),
                Some(m) if m.as_raw().len() > limits.max_method_len => {
                    return invalid(InvalidRequest::MethodTooLong)
                }
                Some(m) => m,
            },
        };
        let params = self.get(Member::Params);
        if let Some(p) = params {
            if !matches!(p.kind(), Kind::Array | Kind::Object) {
                return invalid(InvalidRequest::ParamsNotStructured);
            }
        }
        Call::Request(Request { method, params, id })
    }

    fn get(&self, m: Member) -> Option<RawJson<'a>> {
        self.values.get(m as usize).copied().flatten()
    }

    fn duplicated(&self, m: Member) -> bool {
        self.duplicates & (1 << m as u8) != 0
    }

    /// Applies the rules of a Response object.
    fn response(&self) -> Result<Response<'a>, InvalidResponse> {
        if self.duplicates & RESPONSE_MEMBERS != 0 {
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

    /// `jsonrpc` is present and exactly the string `"2.0"` (escapes decoded).
    fn version_ok(&self) -> bool {
        match self.get(Member::Jsonrpc) {
            Some(v) if FAST_PATHS && v.as_bytes() == b"\"2.0\"" => true,
            Some(v) => v.as_str().is_some_and(|v| v.eq_str("2.0")),
            None => false,
        }
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

    /// `parse` with the exact scanner only, for the differential test.
    fn parse_exact(input: &[u8]) -> Result<Vec<Call<'_>>, ScanError> {
        let limits = &Limits::DEFAULT;
        Ok(match top_exact(input, limits)? {
            Top::Object(slots) => std::vec![slots.request(limits)],
            Top::Other(reason) => std::vec![Call::Invalid {
                id: Id::NULL,
                reason
            }],
            Top::Batch(elements) => Batch { elements }.collect(),
        })
    }

    fn parse_calls(input: &[u8]) -> Result<Vec<Call<'_>>, ScanError> {
        Ok(match parse(input, &Limits::DEFAULT)? {
            Envelope::Single(call) => std::vec![call],
            Envelope::Batch(batch) => batch.collect(),
        })
    }

    fn response_list_exact(
        input: &[u8],
    ) -> Result<Vec<Result<Response<'_>, InvalidResponse>>, ScanError> {
        Ok(match top_exact(input, &Limits::DEFAULT)? {
            Top::Object(slots) => std::vec![slots.response()],
            Top::Other(reason) => std::vec![Err(match reason {
                InvalidRequest::EmptyBatch => InvalidResponse::EmptyBatch,
                InvalidRequest::BatchTooLarge => InvalidResponse::BatchTooLarge,
                _ => InvalidResponse::NotAnObject,
            })],
            Top::Batch(elements) => ResponseBatch { elements }.collect(),
        })
    }

    fn response_list(
        input: &[u8],
    ) -> Result<Vec<Result<Response<'_>, InvalidResponse>>, ScanError> {
        Ok(match parse_response(input, &Limits::DEFAULT)? {
            ResponseMessage::Single(r) => std::vec![r],
            ResponseMessage::Batch(b) => b.collect(),
        })
    }

    /// The fast path (speculative keys, word-at-a-time strings, trusted second pass over
    /// batches) gives what the exact scanner gives, error offsets included, on the
    /// bench messages, each cut at every length and with bytes changed.
    #[test]
    fn fast_path_agrees_with_the_exact_path() {
        let mut seeds: Vec<Vec<u8>> = std::vec![
            br#"{"id":1,"jsonrpc":"2.0","method":"m"}"#.to_vec(),
            br#" { "jsonrpc" : "2.0" , "method" : "m" , "id" : "x" } "#.to_vec(),
            br#"[{"jsonrpc":"2.0","method":"a","params":{"k":[1,{"x":"]"}]},"id":1},2,{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":null}]"#.to_vec(),
            br#"{"jsonrpc":"2.0","result":[],"error":null,"id":7,"id":8}"#.to_vec(),
            br#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.rs","version":2},"contentChanges":[{"text":"caf\u00e9 \"q\" \\ \n\t na\u00efve"}]}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"name":"search","arguments":{"q":"fn","opts":{"max":5,"re":false}},"_meta":{"progressToken":"t"}}}"#.to_vec(),
            br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"log","params":{"m":"x"}},{"jsonrpc":"2.0","id":3,"result":{"a":[1.5,-2e3]}},{"jsonrpc":"2.0","method":"get_data","id":9}]"#.to_vec(),
        ];
        // The bench messages of the conformance corpus, when it is there.
        if let Some(root) = crate::test_corpus::corpus() {
            for e in std::fs::read_dir(root.join("bench")).unwrap().flatten() {
                if e.path().extension().is_some_and(|x| x == "json") {
                    seeds.push(std::fs::read(e.path()).unwrap());
                }
            }
        }
        let mut rng: u64 = 0x2545_F491_4F6C_DD1D;
        let mut checked = 0;
        for seed in seeds {
            let mut inputs = std::vec![seed.clone()];
            let step = seed.len() / 300 + 1;
            for cut in (0..seed.len()).step_by(step) {
                inputs.push(seed[..cut].to_vec());
            }
            for _ in 0..200 {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let at = (rng >> 33) as usize % seed.len();
                let mut m = seed.clone();
                m[at] = b"\"\\]}[{,: 1a\x00\xff"[(rng >> 12) as usize % 13];
                inputs.push(m);
            }
            for input in &inputs {
                assert_eq!(parse_calls(input), parse_exact(input), "{input:?}");
                assert_eq!(
                    response_list(input),
                    response_list_exact(input),
                    "{input:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 1000);
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

    #[test]
    fn responses() {
        let one = |input: &'static [u8]| match parse_response(input, &Limits::DEFAULT) {
            Ok(ResponseMessage::Single(r)) => r,
            other => panic!("{other:?}"),
        };
        let r = one(br#"{"id":1.0,"result":{"a":[1]},"jsonrpc":"2.0"}"#).unwrap();
        assert_eq!(r.id.as_bytes(), b"1.0");
        assert_eq!(
            r.outcome,
            Outcome::Result(RawJson::trusted(br#"{"a":[1]}"#))
        );
        let r =
            one(br#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"x","data":[1]},"id":null}"#)
                .unwrap();
        let Outcome::Error(e) = r.outcome else {
            panic!()
        };
        assert_eq!((e.code, e.data.unwrap().as_bytes()), (-32000, &b"[1]"[..]));
        let cases: &[(&[u8], InvalidResponse)] = &[
            (
                br#"{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":""},"id":1}"#,
                InvalidResponse::BothResultAndError,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1}"#,
                InvalidResponse::NeitherResultNorError,
            ),
            (
                br#"{"jsonrpc":"2.0","result":1}"#,
                InvalidResponse::MissingId,
            ),
            (
                br#"{"jsonrpc":"2.0","result":1,"id":{}}"#,
                InvalidResponse::BadId,
            ),
            (
                br#"{"jsonrpc":"2.0","result":1,"result":2,"id":1}"#,
                InvalidResponse::DuplicateMember,
            ),
            (
                br#"{"jsonrpc":"2.0","error":{"code":"1","message":""},"id":1}"#,
                InvalidResponse::BadError,
            ),
            (
                br#"{"jsonrpc":"2.0","error":{"code":1,"message":2},"id":1}"#,
                InvalidResponse::BadError,
            ),
            (
                br#"{"jsonrpc":"2.0","error":{"code":1.5,"message":""},"id":1}"#,
                InvalidResponse::BadError,
            ),
            (
                br#"{"jsonrpc":"2.0","error":[],"id":1}"#,
                InvalidResponse::BadError,
            ),
            (br#"{"result":1,"id":1}"#, InvalidResponse::BadVersion),
            (b"[]", InvalidResponse::EmptyBatch),
            (b"3", InvalidResponse::NotAnObject),
        ];
        for &(input, want) in cases {
            assert_eq!(
                one(input),
                Err(want),
                "{}",
                std::str::from_utf8(input).unwrap()
            );
        }
        let Ok(ResponseMessage::Batch(b)) = parse_response(
            br#"[{"jsonrpc":"2.0","result":7,"id":"1"}, 5]"#,
            &Limits::DEFAULT,
        ) else {
            panic!()
        };
        let got: Vec<_> = b.collect();
        assert_eq!(got.len(), 2);
        assert!(got[0].is_ok());
        assert_eq!(got[1], Err(InvalidResponse::NotAnObject));
    }
}
