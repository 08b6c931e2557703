//! A message validated and read in one pass (the fast build): the envelope's object,
//! or a batch of them, member after member, the envelope's names read a word at a time
//! ([`Visit::known_key`]) and any other key by the walk's own rule
//! (`scan::key_colon`), each value validated by the scanner's own rules (an array by
//! `scan::array`, which reads an array of scalars without the walk's setup), each member
//! reported to a [`Visit`]: the slots of a message (`members::Recorder`), the records
//! of a batch (`batch::ElementRecorder`), or a count of its elements
//! (`batch::Counter`).
//!
//! Most senders open with `{"jsonrpc":"2.0",` ([`OPENING`]) and write the rest of a
//! request in one of two orders (`method`, `params`, `id`, or the id first), without
//! whitespace: [`usual`] reads such a message in a straight line, each key compared
//! whole, and gives up on anything else, which the member loop then reads.
//!
//! It gives up on anything that is not valid JSON (and on an empty batch, or a nesting
//! limit below what it needs), and the message goes to the validator from its start,
//! which names the error: a valid message is validated once. So the rules stay the
//! scanner's: this reader only strings them together for the outermost object (or a
//! batch's objects), without the walk's bookkeeping of open containers. The unit tests
//! and the `validate` fuzz target pin what `parse` makes of it to a reference reader
//! (`fuzzing.rs`).

use super::VERSION_LEXEME;
use crate::scan::{self, byte_at, skip_ws, skip_ws_after_separator, skip_ws_to};

/// What the reader reports of the members of the objects it reads (the outermost
/// object of a message, or each object of a batch), as it passes them. Offsets are
/// into the input.
pub(super) trait Visit {
    /// At the opening quote `i` of a key: the offset of its value (after the colon and
    /// any whitespace), when the bytes from `i` are exactly a key and colon that this
    /// visitor knows (plain ASCII letters, so valid JSON, which the reader then does
    /// not read again) and it has taken that member as begun; otherwise 0, and the
    /// reader reads the key by the walk's rule and calls [`key`](Self::key).
    fn known_key(&mut self, i: usize) -> usize;
    /// A member begins: its key at `key..key_end` (quotes included), its value at
    /// `value` (after the colon and any whitespace).
    fn key(&mut self, key: usize, key_end: usize, value: usize);
    /// The member that began last ends at `end`.
    fn end(&mut self, end: usize);
    /// In a batch: the element that begins is a request as most senders write it,
    /// read whole by [`usual_object`]: the spans (start, end) of the values of
    /// `jsonrpc`, `method`, `params` and `id` (`(0, 0)` for a member not given; no
    /// [`key`](Self::key) or [`end`](Self::end) is reported for it). Its [`element_end`](Self::element_end) follows.
    fn usual(&mut self, spans: [(usize, usize); 4]);
    /// In a batch: an element (an object or any other value) ended, and so did the
    /// `,` or `]` after it; the next element, if any, starts at `next` (after a `]`,
    /// `next` is the offset after the batch).
    #[inline(always)]
    fn element_end(&mut self, _next: usize) {}
    /// In a batch: the element that begins is not an object (its
    /// [`element_end`](Self::element_end) follows).
    #[inline(always)]
    fn not_an_object(&mut self) {}
}

/// Reads the message `input` whose outermost value, an object, starts at `at`, with
/// at most `max_depth` containers open at once, reporting its members to `visit`.
/// `false` when it gave up (not valid JSON, or too deep): then `visit` may have been
/// told of some members.
#[inline(always)]
pub(super) fn object<V: Visit>(input: &[u8], at: usize, max_depth: u16, visit: &mut V) -> bool {
    let Some(inner) = max_depth.min(scan::MAX_DEPTH_LIMIT).checked_sub(1) else {
        return false;
    };
    members(input, at, inner, visit).is_some_and(|end| ends_at(input, end))
}

/// Reads the batch `input` whose `[` is at `at`, as [`object`] reads an object, its
/// objects' members reported to `visit`, and where each element ends
/// ([`Visit::element_end`]). The offset after the `]`, or `None` when it gave up (not
/// valid JSON, too deep, or empty).
#[inline(always)]
pub(super) fn batch<V: Visit>(
    input: &[u8],
    at: usize,
    max_depth: u16,
    visit: &mut V,
) -> Option<usize> {
    let max_depth = max_depth.min(scan::MAX_DEPTH_LIMIT);
    // The batch is one level and an element another.
    let (element, inner) = (max_depth.checked_sub(1)?, max_depth.checked_sub(2)?);
    let mut i = skip_ws(input, at + 1);
    let close = loop {
        let end = match byte_at(input, i) {
            b'{' => match usual_object(input, i, inner) {
                Some((spans, end)) => {
                    visit.usual(spans);
                    end
                }
                None => members(input, i, inner, visit)?,
            },
            b']' => return None,
            _ => {
                visit.not_an_object();
                scan::value(input, i, element).ok()?
            }
        };
        match skip_ws_to(input, end) {
            (comma, b',') => {
                i = skip_ws(input, comma + 1);
                visit.element_end(i);
            }
            (close, b']') => {
                visit.element_end(close + 1);
                break close;
            }
            _ => return None,
        }
    };
    let end = close + 1;
    ends_at(input, end).then_some(end)
}

/// The members of the object whose `{` is at `at`, each value with at most `inner`
/// containers open inside it, reported to `visit` (a key it knows through
/// [`Visit::known_key`], any other through [`Visit::key`]): the offset after the `}`,
/// or `None` at anything that is not valid JSON.
#[inline(always)]
fn members<V: Visit>(input: &[u8], at: usize, inner: u16, visit: &mut V) -> Option<usize> {
    let mut i = skip_ws(input, at + 1);
    if byte_at(input, i) == b'}' {
        return Some(i + 1);
    }
    if byte_at(input, i) != b'"' {
        return None;
    }
    loop {
        // Here a key's opening quote is at `i`.
        let known = visit.known_key(i);
        let start = if known != 0 {
            known
        } else {
            let (key, key_end, value) = other_key(input, i)?;
            visit.key(key, key_end, value);
            value
        };
        // A string and a number are asked for before the rest (a `match` put a range
        // check first).
        let c = byte_at(input, start);
        let end = if c == b'"' {
            scan::string(input, start).ok()?
        } else if c == b'-' || c.is_ascii_digit() {
            scan::number(input, start).ok()?
        } else if c == b'[' {
            scan::array(input, start, inner)?
        } else {
            scan::value(input, start, inner).ok()?
        };
        visit.end(end);
        match skip_ws_to(input, end) {
            (comma, b',') => i = comma + 1,
            (close, b'}') => return Some(close + 1),
            _ => return None,
        }
        i = skip_ws_after_separator(input, i);
        if byte_at(input, i) != b'"' {
            return None;
        }
    }
}

/// A request as most senders write it: [`OPENING`], then `"method":` and a string,
/// `"params":` and an array or an object, and `"id":` and a number or a string, in this
/// order or with `id` first, and no whitespace but after the object; `params` or `id`
/// (or both) may be left out. Reads the message `input` whose object's `{` is at `at`,
/// with at most `max_depth` containers open at once, validating it by the scanner's
/// rules as [`object`] does: the spans (start, end) of the values of `jsonrpc`,
/// `method`, `params` and `id`, in this order (`(0, 0)` when left out), or `None` at
/// the first byte that is not so, valid JSON or not (the message then goes to
/// [`object`]). No member is given twice in what it reads.
#[inline(always)]
pub(super) fn usual(input: &[u8], at: usize, max_depth: u16) -> Option<[(usize, usize); 4]> {
    let inner = max_depth.min(scan::MAX_DEPTH_LIMIT).checked_sub(1)?;
    let (spans, end) = usual_object(input, at, inner)?;
    ends_at(input, end).then_some(spans)
}

/// [`usual`] of the object whose `{` is at `at`, whatever follows it, each value with
/// at most `inner` containers open inside it (a message, or a batch element): its
/// spans, and the offset after its `}`.
#[inline(always)]
fn usual_object(input: &[u8], at: usize, inner: u16) -> Option<([(usize, usize); 4], usize)> {
    let mut key = at + OPENING.len();
    if at_bytes(input, at) != Some(OPENING) {
        return None;
    }
    let mut id = (0, 0);
    // The id first (asked only when the method is not: the usual order, method first,
    // pays nothing for it).
    if at_bytes(input, key) != Some(METHOD) {
        if at_bytes(input, key) != Some(ID_FIRST) {
            return None;
        }
        id = id_span(input, key + ID_FIRST.len())?;
        if byte_at(input, id.1) != b',' {
            return None;
        }
        key = id.1 + 1;
        if at_bytes(input, key) != Some(METHOD) {
            return None;
        }
    }
    let method = key + METHOD.len();
    let mut end = if byte_at(input, method) == b'"' {
        scan::string(input, method).ok()?
    } else {
        return None;
    };
    let method = (method, end);
    let mut params = (0, 0);
    if at_bytes(input, end) == Some(PARAMS) {
        let start = end + PARAMS.len();
        end = match byte_at(input, start) {
            b'[' => scan::array(input, start, inner)?,
            b'{' => scan::value(input, start, inner).ok()?,
            _ => return None,
        };
        params = (start, end);
    }
    // An id after the others (a second one is for `object` to find).
    if id.1 == 0 && at_bytes(input, end) == Some(ID) {
        id = id_span(input, end + ID.len())?;
        end = id.1;
    }
    let version = at + OPENING.len() - VERSION_LEXEME.len() - 1;
    let version = (version, version + VERSION_LEXEME.len());
    (byte_at(input, end) == b'}').then_some(([version, method, params, id], end + 1))
}

/// The keys of [`usual`], with the bytes around them.
const METHOD: &[u8; 9] = b"\"method\":";
const PARAMS: &[u8; 10] = b",\"params\":";
const ID: &[u8; 6] = b",\"id\":";
const ID_FIRST: &[u8; 5] = b"\"id\":";

/// The `N` bytes at `i`, if there are so many.
#[inline(always)]
fn at_bytes<const N: usize>(input: &[u8], i: usize) -> Option<&[u8; N]> {
    input.get(i..i + N)?.first_chunk()
}

/// The id of [`usual`], a number or a string at `start`: its span.
#[inline(always)]
fn id_span(input: &[u8], start: usize) -> Option<(usize, usize)> {
    let c = byte_at(input, start);
    let end = if c == b'"' {
        scan::string(input, start).ok()?
    } else if c == b'-' || c.is_ascii_digit() {
        scan::number(input, start).ok()?
    } else {
        return None;
    };
    Some((start, end))
}

/// How most senders begin a message (and each element of a batch): the object's
/// `{`, `jsonrpc` as its first member with the value `"2.0"`, and the comma after it.
/// Valid JSON as it stands, so the reader compares it whole and reads on after it.
pub(super) const OPENING: &[u8; 17] = b"{\"jsonrpc\":\"2.0\",";
// OPENING's version is `VERSION_LEXEME`, just before its comma.
const _: () = {
    let at = OPENING.len() - VERSION_LEXEME.len() - 1;
    let mut k = 0;
    while k < VERSION_LEXEME.len() {
        assert!(OPENING[at + k] == VERSION_LEXEME[k]);
        k += 1;
    }
};

/// Any other key than those the visitor knows (another name, escapes, whitespace before
/// the colon), its quote at `i`, by the walk's own rule: where it starts and ends, and
/// where its value starts. Out of line, and the visitor not lent to it: the known keys'
/// loop keeps the visitor in registers.
#[cold]
#[inline(never)]
fn other_key(input: &[u8], i: usize) -> Option<(usize, usize, usize)> {
    scan::key_colon(input, i).ok()
}

/// Whether nothing but whitespace follows `end` in `input`.
#[inline(always)]
fn ends_at(input: &[u8], end: usize) -> bool {
    end == input.len() || skip_ws(input, end) == input.len()
}
