//! Scan: the JSON grammar of RFC 8259, validated in one forward pass.
//!
//! This is the first room of the flow (scan → envelope → dispatch → write). It knows
//! JSON and nothing of JSON-RPC: it checks bytes and reports where values end, so the
//! envelope can hand out borrowed spans.
//!
//! One validator, in one file each by job: the walk over containers and separators
//! (`value.rs`; its key rule, `key_colon`, also serves the envelope's reader, which
//! validates a message's outermost object member by member with these rules), strings
//! with their escapes and UTF-8 (`string.rs`), numbers (`number.rs`). The runs of plain string bytes are read
//! by the per-target loops of the crate's `simd` module. Input already validated is passed
//! over by the same rules (`skip_trusted`), which only find where values end.
//!
//! # Contract
//!
//! - Every function here takes any byte slice and any offset and never panics: a read
//!   past the end sees the byte `0x00`, which no rule of the grammar accepts outside a
//!   string, and which inside a string is a control character, so the end of input
//!   always surfaces as [`ScanErrorKind::UnexpectedEnd`].
//! - Nothing recurses. Nesting is tracked in a fixed bit stack of
//!   [`MAX_DEPTH_LIMIT`] bits (one bit per open container: object or array), so the
//!   stack used is the same for `1` and for 100 000 nested `[`.
//! - The grammar is the complete one: strict UTF-8 (no overlong forms, no encoded
//!   surrogates, nothing above U+10FFFF), escapes including `\u` with surrogate pairs
//!   that must pair up, numbers as RFC 8259 spells them (any length: the lexeme is kept,
//!   never converted), the three literals, no trailing commas, and nothing but
//!   whitespace after the value.
//! - An error names the first byte, in input order, at which the input stops being a
//!   prefix of some JSON text, and why.

mod error;
mod number;
mod string;
mod value;
// What each build reads with, in one file each: the build switch named here alone. The
// fast build's word walk and string blocks are declared there.
#[cfg_attr(jsonrpc_slice_fast, path = "build_fast.rs")]
#[cfg_attr(not(jsonrpc_slice_fast), path = "build_compact.rs")]
pub(crate) mod build;

pub(crate) use build::{digits, skip_ws, string, trusted_string_end};
pub use error::{ScanError, ScanErrorKind};
pub(crate) use number::{fraction_or_exponent_at, number};
pub(crate) use string::escape_at;
#[cfg(feature = "serde")]
pub(crate) use string::hex_digit;
#[cfg(jsonrpc_slice_fast)]
pub(crate) use string::MEANING;
pub(crate) use value::value;

/// The default nesting limit: an input may open this many containers (objects and
/// arrays) inside each other; one more is a parse error. The same number as
/// serde_json's recursion limit.
pub const DEFAULT_MAX_DEPTH: u16 = 128;

/// The largest nesting limit that can be configured: the size of the bit stack, in
/// bits (it costs `MAX_DEPTH_LIMIT / 8` bytes of stack while a value is scanned).
pub const MAX_DEPTH_LIMIT: u16 = 1024;

/// The offset just past the value that starts at `i` in JSON validated already: the
/// cursors' step (`raw::Cursor`, the typed decoder) and the envelope reader's for the
/// batch elements past its records. No second walker: the validator's own rules, a
/// string by the build's `trusted_string_end` (the first quote no escape covers, found
/// 64 bytes at a time on the fast build; the string rule on the compact one), an integer by its
/// run of digits, anything else (a container, a literal, a number with a fraction or an
/// exponent) by the build's walk, with no limit on depth but the bit stack's: only
/// containers fill it (128 bytes, cleared at each start), and most skips are of keys and
/// short values. On valid JSON it ends where the validator ends (unit tests pin the two);
/// on anything else, at or before the end of `b`, without panicking.
pub(crate) fn skip_trusted(b: &[u8], i: usize) -> usize {
    match byte_at(b, i) {
        b'"' => return trusted_string_end(b, i),
        // An integer: its digits; a fraction or an exponent goes to the walk.
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

/// Checks that `input` is exactly one JSON text (a value with optional whitespace
/// around it), with at most `max_depth` containers open at once (clamped to
/// [`MAX_DEPTH_LIMIT`]).
///
/// ```
/// use jsonrpc_slice::scan::{validate, ScanErrorKind, DEFAULT_MAX_DEPTH};
///
/// assert!(validate(br#" {"a": [1, 2.5e3, "\u00e9"]} "#, DEFAULT_MAX_DEPTH).is_ok());
/// let err = validate(b"[1, 2,]", DEFAULT_MAX_DEPTH).unwrap_err();
/// assert_eq!(err.kind, ScanErrorKind::UnexpectedByte);
/// assert_eq!(err.offset, 6);
/// ```
pub fn validate(input: &[u8], max_depth: u16) -> Result<(), ScanError> {
    text(input, max_depth.min(MAX_DEPTH_LIMIT)).map(|_| ())
}

/// Returns the offset just past the one JSON value that starts at `start` (leading
/// whitespace is skipped), checking it fully. Bytes after the value are not looked at.
///
/// ```
/// use jsonrpc_slice::scan::{value_end, DEFAULT_MAX_DEPTH};
///
/// assert_eq!(value_end(b"[1,{\"a\":2}] tail", 0, DEFAULT_MAX_DEPTH), Ok(11));
/// ```
pub fn value_end(input: &[u8], start: usize, max_depth: u16) -> Result<usize, ScanError> {
    value(input, skip_ws(input, start), max_depth.min(MAX_DEPTH_LIMIT))
}

/// Checks that `input` is exactly one JSON text: the span of the value, whitespace
/// trimmed. `max_depth` is at most [`MAX_DEPTH_LIMIT`] (see `value`).
pub(crate) fn text(input: &[u8], max_depth: u16) -> Result<(usize, usize), ScanError> {
    let start = skip_ws(input, 0);
    let end = value(input, start, max_depth)?;
    let after = build::skip_ws_after_text(input, end);
    if after < input.len() {
        return Err(ScanError {
            kind: ScanErrorKind::TrailingCharacters,
            offset: after,
        });
    }
    Ok((start, end))
}

/// The byte at `i`, or `0` past the end.
#[inline(always)]
pub(crate) fn byte_at(b: &[u8], i: usize) -> u8 {
    match b.get(i) {
        Some(&c) => c,
        None => 0,
    }
}

/// Skips whitespace from `i`: the one whitespace loop (each build's `skip_ws` calls
/// it, the fast build after one compare inline).
// A byte above the space ends it in one compare (the compact build calls it for every
// gap, most of them empty), then the four bytes without a lookup mask (no registers
// to save for it on a Cortex-M).
#[inline(never)]
pub(super) fn skip_ws_run(b: &[u8], mut i: usize) -> usize {
    loop {
        let c = byte_at(b, i);
        if c > b' ' || !((c == b' ') | (c.wrapping_sub(b'\t') < 2) | (c == b'\r')) {
            return i;
        }
        i += 1;
    }
}

/// [`after_separator`] when no whitespace is around the separator (`byte_at` is 0
/// past the end); `None` when there is.
#[inline(always)]
fn separator_without_whitespace(b: &[u8], end: usize, sep: u8) -> Option<usize> {
    match byte_at(b, end) {
        c if c == sep && byte_at(b, end + 1) > b' ' => Some(end + 1),
        c if c > b' ' && c != sep => Some(b.len()),
        _ => None,
    }
}

/// [`after_separator`], its whitespace out of line: for a walk that reads an item
/// itself and needs only where the next one starts (`raw::Cursor`'s integers).
#[inline(always)]
pub(crate) fn next_item(b: &[u8], end: usize, sep: u8) -> usize {
    match separator_without_whitespace(b, end, sep) {
        Some(next) => next,
        None => after_spaced_separator(b, end, sep),
    }
}

/// [`after_separator`] with whitespace around the separator: [`next_item`]'s copy,
/// out of line so that the common case, no whitespace, saves no registers.
#[inline(never)]
fn after_spaced_separator(b: &[u8], end: usize, sep: u8) -> usize {
    after_separator(b, end, sep)
}

/// Where the next item starts after a value that ends at `end`: past whitespace, `sep`
/// and whitespace, or `b.len()` when `sep` does not follow.
#[inline(always)]
pub(crate) fn after_separator(b: &[u8], end: usize, sep: u8) -> usize {
    let next = skip_ws(b, end);
    if byte_at(b, next) == sep {
        skip_ws(b, next + 1)
    } else {
        b.len()
    }
}

/// An error of `kind` at `i`. The walk turns it into `UnexpectedEnd` when `i` is the
/// end of the input (see `value`), in one place for every rule.
#[cold]
#[inline(never)]
fn fail(kind: ScanErrorKind, i: usize) -> ScanError {
    ScanError { kind, offset: i }
}

/// For the `validate` fuzz target (`--cfg fuzzing`): not part of the API.
#[cfg(fuzzing)]
pub mod fuzzing {
    /// Asserts that every other walk of the build gives the general walk's answer on the
    /// value at the start of `b` (whitespace skipped), at `max_depth`: on the fast build
    /// the word walk inline and out of line; on the compact build the general walk's
    /// out-of-line copy.
    pub fn walks_agree(b: &[u8], max_depth: u16) {
        let i = super::skip_ws(b, 0);
        let want = super::value::general(b, i, max_depth);
        for (copy, got) in super::build::other_walks(b, i, max_depth) {
            assert_eq!(got, want, "{copy}");
        }
    }
}

#[cfg(test)]
mod tests;
