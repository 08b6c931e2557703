//! The fast build's reader of a message: one pass validates it and fills the slots of
//! its envelope members, for a request, a response or each element of a batch.
//!
//! [`object`], the member loop, is the one reader of an object. Its first guess is
//! the order most senders write a request in ([`usual`]: `{"jsonrpc":"2.0",`, then
//! `"method":`, `,"params":` and `,"id":`, or the id first, or `jsonrpc` last; no
//! whitespace, or one space after each `:` and `,` throughout), each key
//! compared whole and each value read by the rule its member expects; where the
//! message stops being so, the loop reads on from there, any key in any order (the
//! envelope's names a word at a time, [`known_key`], others by the walk's own rule,
//! `scan::key_colon`), each value by the scanner's rules. Every member goes into its
//! one visitor, the [`Spans`] (each value's start and length), as its value ends; one
//! function, [`Spans::slots`], turns them into the [`Slots`] the rules of a request
//! and of a response read.
//!
//! A batch is validated whole by the same loop over its elements ([`validate_batch`]),
//! and the spans of its first [`RECORDED`] elements are kept (16-bit offsets, when the
//! message is shorter than 64 KiB); once the whole batch is valid they are handed out
//! from there, and the elements after them are read by the same loop again, one at a
//! time, over validated input.
//!
//! The loop gives up at anything that is not valid JSON (and on an empty batch): the
//! validator then reads the message from its start and names the error. The unit tests
//! and the `validate` fuzz target pin what it makes of any input to a reference reader
//! (`fuzzing.rs`).

use super::members::{member_decoded, Member, Slots, NAMES};
use super::response::{InvalidResponse, Response, ResponseBatch};
use super::{Batch, Call, Envelope, ResponseMessage, VERSION_LEXEME};
use crate::error::InvalidRequest;
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::{skip_trusted, RawJson, RawStr};
use crate::scan::build::{array, key_colon, skip_ws_to};
use crate::scan::{self, byte_at, skip_ws, ScanError, MAX_DEPTH_LIMIT};

/// [`super::parse`]: a batch, or one message. Inlined into its caller, so that a batch
/// is handed on with no registers saved; each reader out of line.
#[inline(always)]
pub(super) fn parse<'a>(input: &'a [u8], limits: &'a Limits) -> Result<Envelope<'a>, ScanError> {
    let at = skip_ws(input, 0);
    if byte_at(input, at) == b'[' {
        return parse_batch(input, at, limits);
    }
    // The one call made first, then the envelope (not a whole envelope, records and all,
    // moved into place on every single message).
    Ok(Envelope::Single(single(input, at, limits)?))
}

/// [`parse`] of a message that is not a batch, whose first byte is at `at`.
#[inline(never)]
fn single<'a>(input: &'a [u8], at: usize, limits: &Limits) -> Result<Call<'a>, ScanError> {
    let max_depth = limits.depth_in_force();
    if byte_at(input, at) != b'{' {
        scan::text(input, max_depth)?;
        return Ok(Call::Invalid {
            id: Id::NULL,
            reason: InvalidRequest::NotAnObject,
        });
    }
    Ok(members(input, at, max_depth)?.request(limits))
}

/// [`parse`] of a batch, its `[` at `at`.
#[inline(never)]
fn parse_batch<'a>(
    input: &'a [u8],
    at: usize,
    limits: &'a Limits,
) -> Result<Envelope<'a>, ScanError> {
    let mut batch = Batch {
        elements: Elements::new(input, limits),
    };
    Ok(match batch.elements.validate(at)? {
        Ok(()) => Envelope::Batch(batch),
        Err(reason) => Envelope::Single(Call::Invalid {
            id: Id::NULL,
            reason,
        }),
    })
}

/// [`super::parse_response`].
pub(super) fn parse_response<'a>(
    input: &'a [u8],
    limits: &'a Limits,
) -> Result<ResponseMessage<'a>, ScanError> {
    let at = skip_ws(input, 0);
    Ok(match byte_at(input, at) {
        b'{' => ResponseMessage::Single(members(input, at, limits.depth_in_force())?.response()),
        b'[' => {
            let mut elements = Elements::new(input, limits);
            match elements.validate(at)? {
                Ok(()) => ResponseMessage::Batch(ResponseBatch { elements }),
                Err(InvalidRequest::EmptyBatch) => {
                    ResponseMessage::Single(Err(InvalidResponse::EmptyBatch))
                }
                Err(_) => ResponseMessage::Single(Err(InvalidResponse::BatchTooLarge)),
            }
        }
        _ => {
            scan::text(input, limits.depth_in_force())?;
            ResponseMessage::Single(Err(InvalidResponse::NotAnObject))
        }
    })
}

/// Reads the message `input`, one object whose `{` is at `at`, with at most
/// `max_depth` containers open at once: its members, or the error the validator names.
#[inline(always)]
fn members(input: &[u8], at: usize, max_depth: u16) -> Result<Slots<'_>, ScanError> {
    // Offsets of 32 bits reach any message under 4 GiB (every message on a 32-bit target).
    if input.len() < u32::MAX as usize {
        message::<u32>(input, at, max_depth)
    } else {
        long_message(input, at, max_depth)
    }
}

/// [`members`] of a message longer than 4 GiB: offsets as wide as the target's.
#[cold]
#[inline(never)]
fn long_message(input: &[u8], at: usize, max_depth: u16) -> Result<Slots<'_>, ScanError> {
    message::<usize>(input, at, max_depth)
}

/// [`members`], the offsets `O` wide (wide enough for `input`).
#[inline(always)]
fn message<O: Offset>(input: &[u8], at: usize, max_depth: u16) -> Result<Slots<'_>, ScanError> {
    let mut spans = Spans::<O>::EMPTY;
    let read = max_depth
        .min(MAX_DEPTH_LIMIT)
        .checked_sub(1)
        .and_then(|inner| object(input, at, inner, &mut spans))
        .is_some_and(|end| ends_at(input, end));
    if !read {
        return Err(gave_up(input, max_depth));
    }
    Ok(spans.slots(input))
}

/// The validator's verdict on what the member loop gave up on: the error. (The loop
/// gives up on invalid JSON only, so the validator always finds one; were it to find
/// none, the answer would still be an error, never a guess.)
#[cold]
#[inline(never)]
fn gave_up(input: &[u8], max_depth: u16) -> ScanError {
    match scan::text(input, max_depth) {
        Err(e) => e,
        Ok((start, _)) => ScanError {
            kind: scan::ScanErrorKind::UnexpectedByte,
            offset: start,
        },
    }
}

/// The members of the object whose `{` is at `at`, each value with at most `inner`
/// containers open inside it, into `slots`: the offset after its `}`, or `None` at
/// anything that is not valid JSON. The member loop: its first guess is [`usual`],
/// then each member in any order.
#[inline(always)]
fn object<O: Offset>(input: &[u8], at: usize, inner: u16, spans: &mut Spans<O>) -> Option<usize> {
    let mut i = match usual(input, at, inner, spans)? {
        Next::Key(i) => i,
        Next::End(end) => return Some(end),
    };
    loop {
        // Here a key's opening quote is expected at `i`.
        if byte_at(input, i) != b'"' {
            return None;
        }
        let (member, start) = match known_key(input, i) {
            Some((member, after)) => (member, skip_ws_after_separator(input, after)),
            None => other_key(input, i)?,
        };
        // A string and a number are asked for before the rest (a `match` put a range
        // check first).
        let c = byte_at(input, start);
        let end = if c == b'"' {
            scan::string(input, start).ok()?
        } else if c == b'-' || c.is_ascii_digit() {
            scan::number(input, start).ok()?
        } else if c == b'[' {
            array(input, start, inner)?
        } else {
            scan::value(input, start, inner).ok()?
        };
        spans.fill(member, start, end);
        i = match after_value(input, end)? {
            Next::Key(i) => i,
            Next::End(end) => return Some(end),
        };
    }
}

/// The member loop's one visitor: the envelope members of one object, as it finds
/// them, each value's start and length in the message, `O` wide. A message's (`u32`,
/// or `usize` past 4 GiB) and the batch's records (`u16`) are the same slots; each
/// becomes the [`Slots`] the rules read by [`Spans::slots`].
#[derive(Copy, Clone)]
struct Spans<O> {
    /// The value of each [`Member`] but `Other`, indexed by `Member as usize`: start and
    /// length; `[O::ABSENT, 0]` when absent (no value is empty, and `O::ABSENT` is past
    /// the end of any message so read, so that one bounds check finds both).
    spans: [[O; 2]; 6],
    /// Bit `Member as u8` set for each member given twice.
    duplicates: u8,
}

/// The width of [`Spans`]' offsets: one the message's length is below the largest of.
trait Offset: Copy {
    const ZERO: Self;
    /// The largest: past the end of any message read with this width.
    const ABSENT: Self;
    /// `i`, an offset into the message (shorter than `ABSENT`: it fits).
    fn of(i: usize) -> Self;
    /// The offset, as an index into the message.
    fn get(self) -> usize;
}

macro_rules! offset {
    ($($t:ty),*) => {$(
        impl Offset for $t {
            const ZERO: Self = 0;
            const ABSENT: Self = <$t>::MAX;
            #[inline(always)]
            fn of(i: usize) -> Self {
                i as $t
            }
            #[inline(always)]
            fn get(self) -> usize {
                self as usize
            }
        }
    )*};
}
offset!(u16, u32, usize);

impl<O: Offset> Spans<O> {
    /// No member found yet.
    const EMPTY: Self = Self {
        spans: [[O::ABSENT, O::ZERO]; 6],
        duplicates: 0,
    };

    /// The member `m`'s value is at `start..end` of the message (validated); a second
    /// one marks it given twice.
    #[inline(always)]
    fn fill(&mut self, m: Member, start: usize, end: usize) {
        if let Some(span) = self.spans.get_mut(m as usize) {
            if span[1].get() != 0 {
                self.duplicates |= 1 << m as u8;
            }
            *span = [O::of(start), O::of(end.wrapping_sub(start))];
        }
    }

    /// The members' values in `input`, the message they were found in: the slots the
    /// rules of a request and of a response read.
    #[inline(always)]
    fn slots<'a>(&self, input: &'a [u8]) -> Slots<'a> {
        let value = |[start, len]: [O; 2]| {
            let start = start.get();
            input
                .get(start..start.wrapping_add(len.get()))
                .map(RawJson::trusted)
        };
        Slots {
            values: self.spans.map(value),
            duplicates: self.duplicates,
        }
    }
}

/// Where the member loop goes on: a key expected at this offset, or the object ended
/// just before it.
enum Next {
    Key(usize),
    End(usize),
}

/// After a member's value, which ends at `end`: the next key after the `,`, or the end
/// after the `}`; `None` at anything else.
#[inline(always)]
fn after_value(input: &[u8], end: usize) -> Option<Next> {
    match skip_ws_to(input, end) {
        (comma, b',') => Some(Next::Key(skip_ws_after_separator(input, comma + 1))),
        (close, b'}') => Some(Next::End(close + 1)),
        _ => None,
    }
}

/// The member loop's first guess, the object whose `{` is at `at` as most senders
/// write a request: [`OPENING`], then `"method":` and a string, `,"params":` and an
/// array or an object, and `,"id":` and a number or a string, in this order or with the
/// id right after the opening, or the opening left out and [`CLOSING`] after the id;
/// no whitespace, or one space after each `:` and `,` as Python's `json.dumps` writes
/// them ([`OPENING_SPACED`]: the opening says which, and the rest is read so
/// spelled). Reads the members so written into `slots`, each value by the scanner's
/// rules (at most `inner` containers open inside it), and says where the loop goes on:
/// at the first key that is not so (the loop reads it), or after the object. `None` at
/// anything that is not valid JSON.
#[inline(always)]
fn usual<O: Offset>(input: &[u8], at: usize, inner: u16, spans: &mut Spans<O>) -> Option<Next> {
    if at_bytes(input, at) == Some(OPENING) {
        return usual_after::<false, false, O>(input, at + OPENING.len(), inner, spans);
    }
    // The method first, `jsonrpc` last (as ethers.js writes a request).
    if at_bytes(input, at + 1) == Some(METHOD) {
        return usual_after::<false, true, O>(input, at + 1, inner, spans);
    }
    // Asked after the byte where the two openings differ first (the space after the
    // `:`): a message that begins otherwise pays one compare for it.
    if byte_at(input, at + SPACE_AT) == b' ' && at_bytes(input, at) == Some(OPENING_SPACED) {
        return usual_after::<true, false, O>(input, at + OPENING_SPACED.len(), inner, spans);
    }
    let i = skip_ws(input, at + 1);
    Some(if byte_at(input, i) == b'}' {
        Next::End(i + 1)
    } else {
        Next::Key(i)
    })
}

/// [`usual`] after its opening, which ends at `key` (the `"2.0"` and the separator
/// just before it), `SPACED` when the opening had a space after its `:` and `,`: the
/// rest of the members so spelled. With `JSONRPC_LAST`, there was no opening (`key`
/// is the method's, just after the `{`), and [`CLOSING`] is asked for after the id.
#[inline(always)]
fn usual_after<const SPACED: bool, const JSONRPC_LAST: bool, O: Offset>(
    input: &[u8],
    mut key: usize,
    inner: u16,
    spans: &mut Spans<O>,
) -> Option<Next> {
    // The separator after a value: `,`, or `, `.
    let sep = 1 + SPACED as usize;
    if !JSONRPC_LAST {
        let version = key - sep - VERSION_LEXEME.len();
        spans.fill(Member::Jsonrpc, version, version + VERSION_LEXEME.len());
    }
    // The id first (asked only when the method is not: the usual order, method first,
    // pays nothing for it).
    if spelled::<SPACED, 9, 10>(input, key, METHOD, METHOD_SPACED).is_none() {
        let Some(start) = spelled::<SPACED, 5, 6>(input, key, ID_FIRST, ID_FIRST_SPACED) else {
            return Some(Next::Key(skip_ws_after_separator(input, key)));
        };
        let Some(end) = id(input, start)? else {
            return Some(Next::Key(key));
        };
        spans.fill(Member::Id, start, end);
        let method_next = byte_at(input, end) == b','
            && (!SPACED || byte_at(input, end + 1) == b' ')
            && spelled::<SPACED, 9, 10>(input, end + sep, METHOD, METHOD_SPACED).is_some();
        if !method_next {
            return after_value(input, end);
        }
        key = end + sep;
    }
    let start = key
        + if SPACED {
            METHOD_SPACED.len()
        } else {
            METHOD.len()
        };
    if byte_at(input, start) != b'"' {
        return Some(Next::Key(key));
    }
    let mut end = scan::string(input, start).ok()?;
    spans.fill(Member::Method, start, end);
    if let Some(start) = spelled::<SPACED, 10, 12>(input, end, PARAMS, PARAMS_SPACED) {
        let close = match byte_at(input, start) {
            b'[' => array(input, start, inner)?,
            b'{' => scan::value(input, start, inner).ok()?,
            _ => return Some(Next::Key(end + sep)),
        };
        spans.fill(Member::Params, start, close);
        end = close;
    }
    if let Some(start) = spelled::<SPACED, 6, 8>(input, end, ID, ID_SPACED) {
        let Some(close) = id(input, start)? else {
            return Some(Next::Key(end + sep));
        };
        spans.fill(Member::Id, start, close);
        end = close;
    }
    if JSONRPC_LAST && at_bytes(input, end) == Some(CLOSING) {
        let version = end + CLOSING.len() - VERSION_LEXEME.len();
        spans.fill(Member::Jsonrpc, version, version + VERSION_LEXEME.len());
        end += CLOSING.len();
    }
    after_value(input, end)
}

/// How most senders begin a message (and each element of a batch): the object's
/// `{`, `jsonrpc` as its first member with the value `"2.0"`, and the comma after it.
/// Valid JSON as it stands, so [`usual`] compares it whole and reads on after it.
const OPENING: &[u8; 17] = b"{\"jsonrpc\":\"2.0\",";
/// [`OPENING`] with a space after the `:` and the `,`, as Python's `json.dumps` (web3.py)
/// writes it.
const OPENING_SPACED: &[u8; 19] = b"{\"jsonrpc\": \"2.0\", ";
/// Where [`OPENING_SPACED`] has its first space, and [`OPENING`] not.
const SPACE_AT: usize = 11;
/// The last member of a request as ethers.js writes it, `jsonrpc` after the id.
const CLOSING: &[u8; 16] = b",\"jsonrpc\":\"2.0\"";
// Each opening's version is `VERSION_LEXEME`, just before its separator, the closing's
// at its end; the openings are the same up to the space.
const _: () = {
    let (at, spaced_at, closing_at) = (
        OPENING.len() - VERSION_LEXEME.len() - 1,
        OPENING_SPACED.len() - VERSION_LEXEME.len() - 2,
        CLOSING.len() - VERSION_LEXEME.len(),
    );
    let mut k = 0;
    while k < VERSION_LEXEME.len() {
        assert!(OPENING[at + k] == VERSION_LEXEME[k]);
        assert!(OPENING_SPACED[spaced_at + k] == VERSION_LEXEME[k]);
        assert!(CLOSING[closing_at + k] == VERSION_LEXEME[k]);
        k += 1;
    }
    let mut k = 0;
    while k < SPACE_AT {
        assert!(OPENING[k] == OPENING_SPACED[k]);
        k += 1;
    }
    assert!(OPENING[SPACE_AT] != b' ' && OPENING_SPACED[SPACE_AT] == b' ');
};

/// The other keys of [`usual`], with the bytes around them, compact and spaced.
const METHOD: &[u8; 9] = b"\"method\":";
const PARAMS: &[u8; 10] = b",\"params\":";
const ID: &[u8; 6] = b",\"id\":";
const ID_FIRST: &[u8; 5] = b"\"id\":";
const METHOD_SPACED: &[u8; 10] = b"\"method\": ";
const PARAMS_SPACED: &[u8; 12] = b", \"params\": ";
const ID_SPACED: &[u8; 8] = b", \"id\": ";
const ID_FIRST_SPACED: &[u8; 6] = b"\"id\": ";

/// Whether the bytes at `i` are `compact` (or `spaced`, when `SPACED`): the offset
/// after them.
#[inline(always)]
fn spelled<const SPACED: bool, const N: usize, const M: usize>(
    input: &[u8],
    i: usize,
    compact: &[u8; N],
    spaced: &[u8; M],
) -> Option<usize> {
    if SPACED {
        (at_bytes(input, i) == Some(spaced)).then_some(i + M)
    } else {
        (at_bytes(input, i) == Some(compact)).then_some(i + N)
    }
}

/// The `N` bytes at `i`, if there are so many.
#[inline(always)]
fn at_bytes<const N: usize>(input: &[u8], i: usize) -> Option<&[u8; N]> {
    input.get(i..i + N)?.first_chunk()
}

/// [`usual`]'s id at `start`: `Some(None)` when it is not a number or a string (the
/// loop reads it), `None` when it is not valid JSON.
#[inline(always)]
fn id(input: &[u8], start: usize) -> Option<Option<usize>> {
    let c = byte_at(input, start);
    Some(Some(if c == b'"' {
        scan::string(input, start).ok()?
    } else if c == b'-' || c.is_ascii_digit() {
        scan::number(input, start).ok()?
    } else {
        return Some(None);
    }))
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
/// offset just after the colon, when the key is one of them (plain ASCII letters, so
/// valid JSON as they stand); anything else, escapes or whitespace included, goes the
/// general way ([`other_key`]).
#[inline(always)]
fn known_key(input: &[u8], i: usize) -> Option<(Member, usize)> {
    let w = match input.get(i + 1..i + 9).and_then(|r| r.first_chunk::<8>()) {
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

/// Any other key than [`known_key`]'s (another name, escapes, whitespace before the
/// colon), its quote at `i`, by the walk's own rule: the member it names (escapes
/// decoded) and where its value starts. Out of line, and the slots not lent to it: the
/// known keys' loop keeps them in registers.
#[cold]
#[inline(never)]
fn other_key(input: &[u8], i: usize) -> Option<(Member, usize)> {
    let (key, key_end, value) = key_colon(input, i).ok()?;
    let raw = RawStr::trusted(input.get(key + 1..key_end.saturating_sub(1)).unwrap_or(&[]));
    let member = match raw.as_raw() {
        b"jsonrpc" => Member::Jsonrpc,
        b"method" => Member::Method,
        b"params" => Member::Params,
        b"id" => Member::Id,
        b"result" => Member::Result,
        b"error" => Member::Error,
        _ if raw.has_escapes() => member_decoded(raw, &NAMES),
        _ => Member::Other,
    };
    Some((member, value))
}

/// [`skip_ws`] after a member's `:` or `,`, where one space is common (as Python's
/// `json.dumps` writes them): that space is read inline too.
#[inline(always)]
fn skip_ws_after_separator(b: &[u8], i: usize) -> usize {
    let c = byte_at(b, i);
    if c > b' ' {
        return i;
    }
    if c == b' ' && byte_at(b, i + 1) > b' ' {
        return i + 1;
    }
    skip_ws(b, i)
}

/// Whether nothing but whitespace follows `end` in `input`.
#[inline(always)]
fn ends_at(input: &[u8], end: usize) -> bool {
    end == input.len() || skip_ws(input, end) == input.len()
}

/// How many elements of a batch keep their members from the validating pass. Each
/// costs a `Spans<u16>` (26 bytes) in [`Envelope`].
pub(super) const RECORDED: usize = 10;
// [`Elements::others`] has a bit for each.
const _: () = assert!(RECORDED <= u16::BITS as usize);

/// The elements of a validated batch, handed out one at a time: from the records of
/// the validating pass where there are some, else read again by the member loop.
#[derive(Clone)]
pub(super) struct Elements<'a> {
    /// The message up to the batch's `]`: the offsets are into this.
    input: &'a [u8],
    /// How many elements the batch has.
    len: usize,
    /// How many have been handed out.
    taken: usize,
    /// How many of the first elements are recorded: up to [`RECORDED`], none when the
    /// message is longer than the records' offsets reach.
    recorded: usize,
    /// The members of the first elements, as the member loop found them in the
    /// validating pass.
    records: [Spans<u16>; RECORDED],
    /// Bit `k` set when the `k`th element is not an object (its record is empty).
    others: u16,
    /// Where the first element not recorded starts, then the next one.
    pos: usize,
    limits: &'a Limits,
}

impl core::fmt::Debug for Elements<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Elements").field("len", &self.len).finish()
    }
}

impl<'a> Elements<'a> {
    /// The batch of the message `input`, not yet validated.
    #[inline(always)]
    fn new(input: &'a [u8], limits: &'a Limits) -> Self {
        Elements {
            input,
            len: 0,
            taken: 0,
            recorded: 0,
            records: [Spans::EMPTY; RECORDED],
            others: 0,
            pos: 0,
            limits,
        }
    }

    /// Validates the batch, its `[` at `at`, by the member loop, its records filled in
    /// place (not moved again: the caller moves the batch once); or why it is answered
    /// as one invalid message.
    #[inline(always)]
    fn validate(&mut self, at: usize) -> Result<Result<(), InvalidRequest>, ScanError> {
        let (input, limits) = (self.input, self.limits);
        let max_depth = limits.depth_in_force();
        let Some((end, len, others, after)) =
            validate_batch(input, at, max_depth, &mut self.records)
        else {
            // What it gives up on, the validator names the error of; or it is empty.
            scan::text(input, max_depth)?;
            return Ok(Err(InvalidRequest::EmptyBatch));
        };
        if len > limits.max_batch {
            return Ok(Err(InvalidRequest::BatchTooLarge));
        }
        self.input = input.get(..end).unwrap_or(&[]);
        self.len = len;
        self.others = others;
        // The offsets of a longer message do not fit the records: none is used.
        (self.recorded, self.pos) = if end < u16::MAX as usize {
            (len.min(RECORDED), after)
        } else {
            (0, skip_ws(input, at + 1))
        };
        Ok(Ok(()))
    }
}

/// The batch whose `[` is at `at`, validated by the member loop, with at most
/// `max_depth` containers open at once, the members of its first elements recorded:
/// the offset after its `]`, its number of elements, which of the recorded ones are
/// not objects, and where the first element not recorded starts; `None` when it gave up
/// (not valid JSON, or empty).
#[inline(always)]
fn validate_batch(
    input: &[u8],
    at: usize,
    max_depth: u16,
    records: &mut [Spans<u16>; RECORDED],
) -> Option<(usize, usize, u16, usize)> {
    // The batch is one level and an element another.
    let element = max_depth.min(MAX_DEPTH_LIMIT).checked_sub(1)?;
    let mut i = skip_ws(input, at + 1);
    let (mut len, mut others) = (0, 0u16);
    // Two loops, so that the spans the member loop fills are found once an element.
    for record in records.iter_mut() {
        let (end, object) = batch_element(input, i, element, record)?;
        if !object {
            others |= 1 << len;
        }
        len += 1;
        match after_element(input, end)? {
            Next::Key(next) => i = next,
            Next::End(end) => return Some((end, len, others, i)),
        }
    }
    let after = i;
    // The members of the elements past the records, each over the last.
    let mut past = Spans::<u16>::EMPTY;
    loop {
        let (end, _) = batch_element(input, i, element, &mut past)?;
        len += 1;
        match after_element(input, end)? {
            Next::Key(next) => i = next,
            Next::End(end) => return Some((end, len, others, after)),
        }
    }
}

/// The element of a batch at `i`, with at most `element` containers open in it, its
/// members (if an object) into `spans`: the offset after it and whether it is an
/// object; `None` at anything that is not valid JSON.
#[inline(always)]
fn batch_element<O: Offset>(
    input: &[u8],
    i: usize,
    element: u16,
    spans: &mut Spans<O>,
) -> Option<(usize, bool)> {
    Some(if byte_at(input, i) == b'{' {
        (object(input, i, element.checked_sub(1)?, spans)?, true)
    } else {
        (scan::value(input, i, element).ok()?, false)
    })
}

/// After a batch's element, which ends at `end`: where the next one starts after the
/// `,`, or the end after the `]` when nothing but whitespace follows; `None` at
/// anything else.
#[inline(always)]
fn after_element(input: &[u8], end: usize) -> Option<Next> {
    match skip_ws_to(input, end) {
        (comma, b',') => Some(Next::Key(skip_ws(input, comma + 1))),
        (close, b']') => ends_at(input, close + 1).then_some(Next::End(close + 1)),
        _ => None,
    }
}

impl<'a> Elements<'a> {
    /// The number of elements.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The members of the next element (`None` when it is not an object), from its
    /// record or read again; `None` past the last.
    #[inline(always)]
    fn next_slots(&mut self) -> Option<Option<Slots<'a>>> {
        let k = self.taken;
        if k >= self.len {
            return None;
        }
        self.taken = k + 1;
        if k < self.recorded {
            if let Some(record) = self.records.get(k) {
                let object = self.others >> k & 1 == 0;
                return Some(object.then(|| record.slots(self.input)));
            }
        }
        Some(self.read_next())
    }

    /// Reads the element at `pos` (validated) by the member loop: its members, `None`
    /// when it is not an object; then steps past it and its comma.
    #[inline(always)]
    fn read_next(&mut self) -> Option<Slots<'a>> {
        let (input, start) = (self.input, self.pos);
        let mut spans = Spans::<usize>::EMPTY;
        let object = byte_at(input, start) == b'{';
        let end = if object {
            // Validated at the limits in force: the widest limit only reads it again.
            object_or_end(input, start, &mut spans)
        } else {
            skip_trusted(input, start)
        };
        let next = skip_ws(input, end);
        self.pos = if byte_at(input, next) == b',' {
            skip_ws(input, next + 1)
        } else {
            input.len()
        };
        object.then(|| spans.slots(input))
    }
}

/// [`object`] of a validated object at `start`: the offset after it (the end of
/// `input` were it not valid, which ends the batch).
#[inline(never)]
fn object_or_end(input: &[u8], start: usize, spans: &mut Spans<usize>) -> usize {
    object(input, start, MAX_DEPTH_LIMIT, spans).unwrap_or(input.len())
}

impl<'a> Iterator for Batch<'a> {
    type Item = Call<'a>;

    // Inline into the caller's loop: out of line, each element pays for the call's
    // registers saved and the call returned through memory.
    #[inline(always)]
    fn next(&mut self) -> Option<Call<'a>> {
        Some(match self.elements.next_slots()? {
            Some(slots) => slots.request(self.elements.limits),
            None => Call::Invalid {
                id: Id::NULL,
                reason: InvalidRequest::NotAnObject,
            },
        })
    }
}

impl<'a> Iterator for ResponseBatch<'a> {
    type Item = Result<Response<'a>, InvalidResponse>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(match self.elements.next_slots()? {
            Some(slots) => slots.response(),
            None => Err(InvalidResponse::NotAnObject),
        })
    }
}

/// For the tests and the fuzz target: how far [`usual`], the loop's first guess, read
/// the object whose `{` is at `at` (validated): all of it, or not.
#[cfg(any(test, fuzzing))]
pub(super) fn usual_reads_all(input: &[u8], at: usize) -> bool {
    let mut spans = Spans::<usize>::EMPTY;
    matches!(
        usual(input, at, MAX_DEPTH_LIMIT - 1, &mut spans),
        Some(Next::End(_))
    )
}

/// The fast build's reader (`read_fast.rs`) against the reference reader: its first
/// guess reads the requests written in the usual order, the member loop the others
/// (`envelope/tests.rs` has the tests both builds' readers pass).
#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::RECORDED;
    use crate::envelope::fuzzing;
    use crate::envelope::tests::{ELEMENTS, RECORDED as TESTED};
    use crate::scan;

    // The batches of `envelope/tests.rs` go past the records.
    const _: () = assert!(RECORDED == TESTED);

    /// `parse` and `parse_response`, which read through the member loop, give
    /// what the reference reader gives (`fuzzing::quick_reader_agrees`): on messages as
    /// senders write them and on others, compact and spaced, cut at every length and with
    /// bytes changed, at depth limits from 0 up; and the quick reader gives up on no valid
    /// object or non-empty batch.
    #[test]
    fn the_quick_reader_agrees_with_the_reference_reader() {
        use std::string::{String, ToString};
        let objects: Vec<String> = ELEMENTS
            .iter()
            .chain(USUAL)
            .chain(NEARLY_USUAL)
            .map(|e| e.to_string())
            .chain([
                // The opening compared whole, and what follows it.
                r#"{"jsonrpc":"2.0",}"#.into(),
                r#"{"jsonrpc":"2.0"}"#.into(),
                r#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m","id":1}"#.into(),
                r#"{"jsonrpc":"2.0","jsonrpc":"1.0","method":"m"}"#.into(),
                r#"{"jsonrpc":"2.0", "method":"m","params":["a",{"b":[1]},true,[ ]],"id":2}"#.into(),
                // Arrays of scalars, and arrays with containers in them.
                r#"{"jsonrpc":"2.0","method":"m","params":[ ],"id":1}"#.into(),
                r#"{"jsonrpc":"2.0","method":"m","params":[1,[2,[3]],"x",{"y":[]}],"id":1}"#.into(),
                r#"{"jsonrpc":"2.0","method":"m","params":["a\n",-1.5e3,null,false],"id":1}"#.into(),
                r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#.into(),
                r#" {"jsonrpc": "2.0", "id": "a", "method": "m", "params": {"x": [1, {"y": null}]}} "#
                    .into(),
                r#"{"jsonrpc":"2.0","id":7,"result":{"a":[true,false,"\u00e9\n"]}}"#.into(),
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}"#.into(),
                r#"{"jsonrpc":"2.0","method":"deep","params":[[[[[[1]]]]]],"id":-0.5e+2}"#.into(),
            ])
            .collect();
        // Batches of any of them, and of the requests and responses as senders write them
        // (the last five, and `7`).
        let common = |k: usize| match k % 6 {
            5 => "7",
            k => objects[objects.len() - 5 + k].as_str(),
        };
        let batches: Vec<String> = (1..=12)
            .flat_map(|n| {
                let any: Vec<&str> = (0..n)
                    .map(|k| objects[(k * 5) % objects.len()].as_str())
                    .collect();
                let common: Vec<&str> = (0..n).map(common).collect();
                [
                    std::format!("[{}]", any.join(",")),
                    std::format!("[{}]", common.join(" , ")),
                ]
            })
            .collect();
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
        for seed in objects.iter().chain(&batches) {
            let seed = seed.as_bytes();
            inputs.push(seed.to_vec());
            for cut in 0..seed.len() {
                inputs.push(seed[..cut].to_vec());
            }
            for _ in 0..100 {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let mut m = seed.to_vec();
                m[(rng >> 33) as usize % seed.len()] =
                    b"\"\\]}[{,: 1a\x00\xffe.-"[(rng >> 12) as usize % 16];
                inputs.push(m);
            }
        }
        let (mut usual, mut quick_objects, mut quick_batches) = (0, 0, 0);
        for input in &inputs {
            for depth in [0, 1, 2, 3, 4, 8, scan::DEFAULT_MAX_DEPTH] {
                match fuzzing::quick_reader_agrees(input, depth) {
                    fuzzing::Taken::Usual => usual += 1,
                    fuzzing::Taken::Object => quick_objects += 1,
                    fuzzing::Taken::Batch => quick_batches += 1,
                    fuzzing::Taken::GivenUp => {}
                }
            }
        }
        // Every valid seed that is an object or a non-empty batch goes the quick way, at
        // the default depth: it gives up on invalid JSON and on an empty batch only.
        let mut taken = 0;
        for seed in objects.iter().chain(&batches) {
            let whole = seed.trim();
            let valid = scan::validate(seed.as_bytes(), scan::DEFAULT_MAX_DEPTH).is_ok();
            if valid && (whole.starts_with('{') || whole.starts_with('[')) && whole != "[]" {
                assert_ne!(
                    fuzzing::quick_reader_agrees(seed.as_bytes(), scan::DEFAULT_MAX_DEPTH),
                    fuzzing::Taken::GivenUp,
                    "{seed}"
                );
                taken += 1;
            }
        }
        assert!(taken > 30, "{taken}");
        assert!(
            usual > 500 && quick_objects > 500 && quick_batches > 500,
            "{usual} {quick_objects} {quick_batches}"
        );
        // The straight line reads the requests it names, and gives up on the others.
        for seed in USUAL {
            let taken = fuzzing::quick_reader_agrees(seed.as_bytes(), scan::DEFAULT_MAX_DEPTH);
            assert_eq!(taken, fuzzing::Taken::Usual, "{seed}");
        }
        for seed in NEARLY_USUAL {
            let taken = fuzzing::quick_reader_agrees(seed.as_bytes(), scan::DEFAULT_MAX_DEPTH);
            assert_ne!(taken, fuzzing::Taken::Usual, "{seed}");
        }
    }

    /// The member loop's slots read the same whatever the width of their offsets: a
    /// message under 4 GiB (`u32`), a longer one (`usize`, which no test can allocate),
    /// and the batch records (`u16`) give the same members, as requests and as
    /// responses, on every seed, cut at every length and at every depth limit.
    #[test]
    fn the_offset_widths_agree() {
        use super::{message, Offset};
        use crate::limits::Limits;
        use crate::scan::{skip_ws, ScanError};
        type Read = Result<(crate::envelope::Call<'static>, bool), ScanError>;
        fn read<O: Offset>(input: &'static [u8], depth: u16) -> Read {
            let at = skip_ws(input, 0);
            message::<O>(input, at, depth)
                .map(|slots| (slots.request(&Limits::DEFAULT), slots.response().is_ok()))
        }
        let mut checked = 0;
        for seed in ELEMENTS.iter().chain(USUAL).chain(NEARLY_USUAL) {
            let seed = seed.as_bytes();
            if seed.first() != Some(&b'{') {
                continue;
            }
            for cut in 1..=seed.len() {
                let input = &seed[..cut];
                for depth in [1, 2, 3, scan::DEFAULT_MAX_DEPTH] {
                    let wide = read::<usize>(input, depth);
                    assert_eq!(read::<u32>(input, depth), wide, "{input:?}");
                    assert_eq!(read::<u16>(input, depth), wide, "{input:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1_000, "{checked}");
    }

    /// Requests as most senders write them, which the member loop's first guess reads
    /// whole: the members in its order or with the id first, some left out.
    const USUAL: &[&str] = &[
        r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":{"a":[1,{"b":null}]},"id":"x\"y"}"#,
        r#"{"jsonrpc":"2.0","id":-7,"method":"tools/call","params":{"name":"s"}}"#,
        r#"{"jsonrpc":"2.0","id":"r","method":"m\u0041","params":[]} "#,
        r#"{"jsonrpc":"2.0","method":"notify","params":["a",2.5e-3,true]}"#,
        r#"{"jsonrpc":"2.0","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"ping","id":0}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        // The id first and last: read whole, the id marked as given twice.
        r#"{"jsonrpc":"2.0","id":1,"method":"m","id":2}"#,
        // One space after each `:` and `,` (Python's `json.dumps`).
        r#"{"jsonrpc": "2.0", "method": "eth_getBalance", "params": ["0x6c", "latest"], "id": 1}"#,
        r#"{"jsonrpc": "2.0", "id": "r", "method": "m", "params": {"a": [1, {"b": null}]}}"#,
        r#"{"jsonrpc": "2.0", "method": "ping", "id": -0.5}"#,
        r#"{"jsonrpc": "2.0", "method": "ping"}"#,
        r#"{"jsonrpc": "2.0", "id": 1, "method": "m", "id": 2}"#,
        // The method first and `jsonrpc` last (ethers.js).
        r#"{"method":"eth_getBalance","params":["0x6c","latest"],"id":1,"jsonrpc":"2.0"}"#,
        r#"{"method":"m","params":{"a":[1]},"id":"x","jsonrpc":"2.0"}"#,
        r#"{"method":"ping","jsonrpc":"2.0"}"#,
        r#"{"method":"ping","id":7,"jsonrpc":"2.0"} "#,
        r#"{"method":"m","id":1}"#,
    ];

    /// Requests almost so, which it gives up on (and the quick reader reads): another
    /// order, a member twice or unknown, whitespace, a value of another kind, or an id
    /// that is not a number or a string.
    const NEARLY_USUAL: &[&str] = &[
        r#"{"jsonrpc":"2.0","method":"m","id":1,"id":2}"#,
        r#"{"jsonrpc":"2.0","method":"m","method":"n"}"#,
        r#"{"jsonrpc":"2.0","params":[1],"method":"m","id":1}"#,
        r#"{"jsonrpc":"2.0","method":"m","id":1,"params":[1]}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":[1],"id":1,"x":2}"#,
        r#"{"jsonrpc":"2.0","method": "m","id":1}"#,
        r#"{"jsonrpc":"2.0","method":"m" ,"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"m","params":"p","id":1}"#,
        r#"{"jsonrpc":"2.0","method":7,"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"m","id":null}"#,
        r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1 ,"method":"m"}"#,
        r#"{"jsonrpc":"1.0","method":"m","id":1}"#,
        // Spaced, but not all of it so, or compact after a spaced opening.
        r#"{"jsonrpc": "2.0","method":"m","id":1}"#,
        r#"{"jsonrpc": "2.0", "method":"m", "id": 1}"#,
        r#"{"jsonrpc": "2.0", "method": "m","params":[1], "id": 1}"#,
        r#"{"jsonrpc": "2.0", "method": "m", "params": [1],"id": 1}"#,
        r#"{"jsonrpc": "2.0", "method": "m", "params": [1], "id":  1}"#,
        r#"{"jsonrpc": "2.0", "method": "m", "params": "p", "id": 1}"#,
        r#"{"jsonrpc": "2.0", "id": 1,"method": "m"}"#,
        r#"{"jsonrpc": "2.0", "id": 1 , "method": "m"}"#,
        r#"{"jsonrpc": "2.0",  "method": "m"}"#,
        r#"{"jsonrpc" : "2.0", "method": "m"}"#,
        // `jsonrpc` last, but not so written.
        r#"{"method":"m","id":1,"jsonrpc":"2.0","x":1}"#,
        r#"{"method":"m","id":1,"jsonrpc": "2.0"}"#,
        r#"{"method":"m","id":1,"jsonrpc":"1.0"}"#,
        r#"{"method":"m","id":1,"jsonrpc":"2.0","jsonrpc":"2.0"}"#,
        r#"{"method":"m","jsonrpc":"2.0","id":1}"#,
        r#"{"method": "m","id":1,"jsonrpc":"2.0"}"#,
    ];
}
