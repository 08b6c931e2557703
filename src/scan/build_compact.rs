//! The compact build's scanner (32-bit targets, the firmware), built for flash: the
//! general walk of `value.rs` alone, strings one byte at a time (`string.rs`), and the
//! validator's own rules for the trusted skip, each loop in one out-of-line copy. The
//! fast build's choices are `build_fast.rs`.

use super::string::{hex4_digits, string_rest, utf8_sequence};
use super::value::value_general;
use super::MAX_DEPTH_LIMIT;
use super::{
    byte_at, fail, fraction_or_exponent_at, number, skip_ws_run, ScanError, ScanErrorKind,
};

/// Scans the string whose opening quote is at `i`. Returns the offset after the closing
/// quote.
// One out-of-line copy, the general loop inlined into it (flash).
#[inline(never)]
pub(crate) fn string(b: &[u8], i: usize) -> Result<usize, ScanError> {
    string_rest(b, i + 1)
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

/// The offset just past the value that starts at `i` in already-scanned JSON, by the
/// validator's own rules, so that no trusted skipper (about 0.4 KiB of flash on a
/// Cortex-M) is linked. A string is read by the string rule, an integer by its run of
/// digits, and anything else (a container, a literal, a number with a fraction or an
/// exponent) by the validator, with no limit on depth but its own: only containers
/// fill its bit stack (128 bytes, cleared at each start), and most skips are of keys
/// and short values. On valid JSON it ends where the validator ends (a unit test pins
/// the two); on anything else, at or before the end of `b`.
pub(crate) fn skip_trusted(b: &[u8], i: usize) -> usize {
    match byte_at(b, i) {
        b'"' => return string(b, i).unwrap_or(b.len()),
        // An integer: its digits; a fraction or an exponent goes to the validator.
        b'-' | b'0'..=b'9' => {
            let end = digits(b, i + 1);
            if !fraction_or_exponent_at(b, end) {
                return end;
            }
        }
        _ => {}
    }
    value(b, i, MAX_DEPTH_LIMIT).unwrap_or(b.len())
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
