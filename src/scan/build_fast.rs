//! The fast build's scanner (64-bit targets): the walk a word at a time (`words.rs`),
//! strings 64 bytes at a time (`string_fast.rs`), whitespace asked for inline. Each
//! calls the general rules of the scanner's other files for anything but the common
//! shapes, and the unit tests pin each to them. The compact build's choices are `build_compact.rs`.

#[path = "string_fast.rs"]
mod string_fast;
#[path = "words.rs"]
mod words;

use super::{byte_at, number, skip_ws_run};

pub(crate) use super::value::key_colon;
pub(crate) use string_fast::{hex4, non_ascii, string, trusted_string_end};
#[cfg(any(test, fuzzing))]
pub(crate) use words::other_walks;
pub(crate) use words::{array, value};

/// Skips whitespace from `i`. Compact JSON has none: one compare, and the loop out of
/// line.
#[inline(always)]
pub(crate) fn skip_ws(b: &[u8], i: usize) -> usize {
    if byte_at(b, i) > b' ' {
        return i;
    }
    skip_ws_run(b, i)
}

/// [`skip_ws`] from `i`, and the byte there as [`byte_at`] reads it: where there is no
/// whitespace (compact JSON), one read for both (the envelope's reader, `array`).
#[inline(always)]
pub(crate) fn skip_ws_to(b: &[u8], i: usize) -> (usize, u8) {
    let c = byte_at(b, i);
    if c > b' ' {
        return (i, c);
    }
    let i = skip_ws_run(b, i);
    (i, byte_at(b, i))
}

/// [`skip_ws`] after a text's value, which ends at `end`: most messages end with
/// their value, which one compare says.
#[inline(always)]
pub(super) fn skip_ws_after_text(b: &[u8], end: usize) -> usize {
    if end == b.len() {
        return end;
    }
    skip_ws(b, end)
}

/// Digits from `i`; the offset after them ([`number::digit_loop`], inlined).
#[inline]
pub(crate) fn digits(b: &[u8], i: usize) -> usize {
    number::digit_loop(b, i)
}
