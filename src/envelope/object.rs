//! A message as senders write it, read in a pass of its own (the fast build): the
//! envelope's object, or a batch of them, member after member, each key one of the
//! envelope's names read a word at a time ([`Visit::known_key`]), each value validated
//! by the scanner's own rules, each member reported to the same visitor the general
//! walk reports it to.
//!
//! It takes only what it knows: any other key (or a key with escapes, an empty object
//! or batch, anything that is not valid JSON) makes it give up, and the message goes to
//! the general walk from its start, which names every error. So the rules stay the
//! scanner's: this reader only strings them together for the shape that nearly every
//! message has, without the walk's bookkeeping of open containers (message 01: 1,005
//! instructions through the general walk, 814 this way; DESIGN.md's walkers table has
//! the other rows). The unit tests pin it to the general walk.

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

/// The members of the object whose `{` is at `at`, each key one that `visit` knows,
/// each value with at most `inner` containers open inside it, reported to `visit`: the
/// offset after the `}`, or `None` at anything else.
#[inline(always)]
fn members<V: Visit>(input: &[u8], at: usize, inner: u16, visit: &mut V) -> Option<usize> {
    let mut i = skip_ws(input, at + 1);
    loop {
        if byte_at(input, i) != b'"' {
            return None;
        }
        let after = visit.known_key(i);
        if after == 0 {
            return None;
        }
        let start = skip_ws(input, after);
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

/// Whether nothing but whitespace follows `end` in `input`.
#[inline(always)]
fn ends_at(input: &[u8], end: usize) -> bool {
    end == input.len() || skip_ws(input, end) == input.len()
}
