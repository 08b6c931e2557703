//! A message read in a pass of its own (the fast build): the envelope's object, or a
//! batch of them, member after member, the envelope's names read a word at a time
//! ([`Visit::known_key`]) and any other key by the walk's own rule, each value
//! validated by the scanner's own rules, each member reported to the same visitor the
//! general walk reports it to.
//!
//! It gives up on anything that is not valid JSON (and on an empty batch, or a nesting
//! limit below what it needs), and the message goes to the general walk from its
//! start, which names the error: a valid message is validated once. So the rules stay
//! the scanner's: this reader only strings them together for the outermost object (or
//! a batch's objects), without the walk's bookkeeping of open containers (message 01:
//! 1,005 instructions through the general walk, 824 this way; DESIGN.md's walkers
//! table has the other rows). The unit tests and the `validate` fuzz target pin it to
//! the general walk (`fuzzing.rs`).

use crate::scan::{self, byte_at, skip_ws, Visit};

/// Reads the message `input` whose outermost value, an object, starts at `at`, with
/// at most `max_depth` containers open at once, reporting its members to `visit` as
/// [`scan::text`] would (`visit` at [`Visit::DEPTH`] 1). `false` when it gave up: then
/// `visit` may have been told of some members, and the general walk must read the
/// message again from the start with a fresh visitor.
#[inline(always)]
pub(super) fn object<V: Visit>(input: &[u8], at: usize, max_depth: u16, visit: &mut V) -> bool {
    let Some(inner) = max_depth.min(scan::MAX_DEPTH_LIMIT).checked_sub(1) else {
        return false;
    };
    members(input, at, inner, visit).is_some_and(|end| ends_at(input, end))
}

/// Reads the batch `input` whose `[` is at `at`, as [`object`] reads an object, its
/// elements' members reported to `visit` (at [`Visit::DEPTH`] 2) as `scan::text` would,
/// the end of each element too ([`Visit::outer_end`]). The offset after the `]`, or
/// `None` when it gave up.
#[cfg(jsonrpc_slice_fast)]
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
    loop {
        let end = match byte_at(input, i) {
            b'{' => members(input, i, inner, visit)?,
            b']' => return None,
            _ => scan::value(input, i, element, &mut scan::Ignore).ok()?,
        };
        visit.outer_end(end);
        i = skip_ws(input, end);
        match byte_at(input, i) {
            b',' => i = skip_ws(input, i + 1),
            b']' => break,
            _ => return None,
        }
    }
    let end = i + 1;
    ends_at(input, end).then_some(end)
}

/// The members of the object whose `{` is at `at`, each value with at most `inner`
/// containers open inside it, reported to `visit` as the walk reports them (a key it
/// knows through [`Visit::known_key`], any other through [`Visit::key`]): the offset
/// after the `}`, or `None` at anything that is not valid JSON.
#[inline(always)]
fn members<V: Visit>(input: &[u8], at: usize, inner: u16, visit: &mut V) -> Option<usize> {
    let mut i = skip_ws(input, at + 1);
    if byte_at(input, i) == b'}' {
        return Some(i + 1);
    }
    loop {
        if byte_at(input, i) != b'"' {
            return None;
        }
        let after = visit.known_key(i);
        let start = if after != 0 {
            skip_ws(input, after)
        } else {
            let (key, key_end, value) = other_key(input, i)?;
            visit.key(key, key_end, value);
            value
        };
        let end = match byte_at(input, start) {
            b'"' => scan::string(input, start).ok()?,
            b'-' | b'0'..=b'9' => scan::number(input, start).ok()?,
            _ => scan::value(input, start, inner, &mut scan::Ignore).ok()?,
        };
        visit.end(end);
        i = skip_ws(input, end);
        match byte_at(input, i) {
            b',' => i = skip_ws(input, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

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
