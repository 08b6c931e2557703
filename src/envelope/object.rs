//! A message validated and read in one pass (the fast build): the envelope's object,
//! or a batch of them, member after member, the envelope's names read a word at a time
//! ([`Visit::known_key`]) and any other key by the walk's own rule
//! (`scan::key_colon`), each value validated by the scanner's own rules (an array by
//! `scan::array`, which reads an array of scalars without the walk's setup), each member
//! reported to a [`Visit`]: the slots of a message (`members::Recorder`), the records
//! of a batch (`batch::ElementRecorder`), or a count of its elements
//! (`batch::Counter`).
//!
//! Most senders open with `{"jsonrpc":"2.0",` ([`OPENING`]): that first member is
//! compared whole and reported through [`Visit::version`].
//!
//! It gives up on anything that is not valid JSON (and on an empty batch, or a nesting
//! limit below what it needs), and the message goes to the validator from its start,
//! which names the error: a valid message is validated once. So the rules stay the
//! scanner's: this reader only strings them together for the outermost object (or a
//! batch's objects), without the walk's bookkeeping of open containers. The unit tests
//! and the `validate` fuzz target pin what `parse` makes of it to a reference reader
//! (`fuzzing.rs`).

use super::members::VERSION_LEXEME;
use crate::scan::{self, byte_at, skip_ws, skip_ws_to};

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
    /// The object began with [`OPENING`]: its first member is `jsonrpc`, its value
    /// the string `"2.0"` at `value..value + 5`, read whole (no [`key`](Self::key) or
    /// [`end`](Self::end) is reported for it).
    fn version(&mut self, value: usize);
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
            b'{' => members(input, i, inner, visit)?,
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
    let mut i = if input
        .get(at..at + OPENING.len())
        .and_then(|r| r.first_chunk())
        == Some(OPENING)
    {
        // Its first member and the comma after it, in two words and a byte.
        visit.version(at + OPENING.len() - VERSION_LEXEME.len() - 1);
        skip_ws(input, at + OPENING.len())
    } else {
        let i = skip_ws(input, at + 1);
        if byte_at(input, i) == b'}' {
            return Some(i + 1);
        }
        i
    };
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
        // A string and a number are asked for before the rest (06 6,638 → 6,548: a
        // `match` put a range check first).
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
        match skip_ws_to(input, i) {
            (key, b'"') => i = key,
            _ => return None,
        }
    }
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
