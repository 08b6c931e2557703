//! The compact build's scanner (32-bit targets, the firmware), built for flash: the
//! general walk of `value.rs` alone, strings one byte at a time (`string.rs`), and the
//! each loop in one out-of-line copy. The
//! fast build's choices are `build_fast.rs`.

use super::string::{hex4_digits, string_rest, utf8_sequence};
use super::value::value_general;
use super::{fail, number, skip_ws_run, ScanError, ScanErrorKind};

/// Scans the string whose opening quote is at `i`. Returns the offset after the closing
/// quote.
// One out-of-line copy, the general loop inlined into it, plain bytes read one at a
// time (flash).
#[inline(never)]
pub(crate) fn string(b: &[u8], i: usize) -> Result<usize, ScanError> {
    string_rest::<true>(b, i + 1)
}

/// The offset after the closing quote of the string whose opening quote is at `i`, in
/// JSON validated already (`skip_trusted`): the validator's rule ([`string`]), no
/// second copy in flash; at or before the end of `b` on any input.
#[inline(always)]
pub(crate) fn trusted_string_end(b: &[u8], i: usize) -> usize {
    string(b, i).unwrap_or(b.len())
}

/// Checks string content from `i`, a non-ASCII byte, as strict UTF-8: the one
/// sequence at `i` ([`utf8_sequence`], which names the byte that breaks it). Inlined
/// into its one caller.
#[inline(always)]
pub(crate) fn non_ascii(b: &[u8], i: usize) -> Result<usize, ScanError> {
    utf8_sequence(b, i).map_err(|at| fail(ScanErrorKind::InvalidUtf8, at))
}

/// Four hex digits at `i`, one at a time, as a UTF-16 code unit.
#[inline(always)]
pub(crate) fn hex4(b: &[u8], i: usize) -> Result<u32, (ScanErrorKind, usize)> {
    hex4_digits(b, i)
}

/// [`value`](super::value): the general walk, out of line.
#[inline(always)]
pub(crate) fn value(b: &[u8], i: usize, max_depth: u16) -> Result<usize, ScanError> {
    value_general(b, i, max_depth)
}

/// Skips whitespace from `i`: the loop at once, one copy of it (flash).
#[inline(always)]
pub(crate) fn skip_ws(b: &[u8], i: usize) -> usize {
    skip_ws_run(b, i)
}

/// [`skip_ws`] after a text's value, which ends at `end`.
#[inline(always)]
pub(super) fn skip_ws_after_text(b: &[u8], end: usize) -> usize {
    skip_ws(b, end)
}

/// Digits from `i`; the offset after them ([`number::digit_loop`]). Out of line: one
/// copy for the three runs of a number (flash).
#[inline(never)]
pub(crate) fn digits(b: &[u8], i: usize) -> usize {
    number::digit_loop(b, i)
}

/// The build's walks other than the general one: its out-of-line copy, for the unit
/// tests and the `validate` fuzz target, which pin it to the general walk inline.
#[cfg(any(test, fuzzing))]
pub(crate) fn other_walks(
    b: &[u8],
    i: usize,
    max_depth: u16,
) -> [(&'static str, Result<usize, ScanError>); 1] {
    [("out of line", value_general(b, i, max_depth))]
}
