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
//! by the per-target loops of the crate's `simd` module. Input already validated is walked
//! by the one trusted skipper (`skip.rs`), which only finds where values end.
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
mod skip;
mod string;
mod value;

pub use error::{ScanError, ScanErrorKind};
pub(crate) use number::digits;
pub(crate) use skip::{after_separator, next_item, skip_value_trusted};
pub(crate) use string::escape_at;
#[cfg(feature = "serde")]
pub(crate) use string::hex_digit;
pub(crate) use string::string;
pub(crate) use value::value;
// What the fast build's envelope reader (`envelope/read_fast.rs`) reads members by.
#[cfg(jsonrpc_slice_fast)]
pub(crate) use {
    number::number,
    value::{array, key_colon},
};

/// The default nesting limit: an input may open this many containers (objects and
/// arrays) inside each other; one more is a parse error. The same number as
/// serde_json's recursion limit.
pub const DEFAULT_MAX_DEPTH: u16 = 128;

/// The largest nesting limit that can be configured: the size of the bit stack, in
/// bits (it costs `MAX_DEPTH_LIMIT / 8` bytes of stack while a value is scanned).
pub const MAX_DEPTH_LIMIT: u16 = 1024;

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
    // Most messages end with their value (the fast build says so in one compare).
    if FAST_PATHS && end == input.len() {
        return Ok((start, end));
    }
    let after = skip_ws(input, end);
    if after < input.len() {
        return Err(ScanError {
            kind: ScanErrorKind::TrailingCharacters,
            offset: after,
        });
    }
    Ok((start, end))
}

/// Whether this is the fast build (64-bit targets, where an 8-byte word is one
/// register, unless `build.rs` is asked for the compact one) rather than the compact
/// one, built for size (a Cortex-M). The scanner is one walk in both; what differs (its string
/// loops, whitespace, the envelope's readers, the writer's sink, the framer) branches
/// on this, and each pair is pinned by a unit test (`docs/DESIGN.md`, "The compact
/// build" and "The walkers").
pub(crate) const FAST_PATHS: bool = cfg!(jsonrpc_slice_fast);

/// The byte at `i`, or `0` past the end.
#[inline(always)]
pub(crate) fn byte_at(b: &[u8], i: usize) -> u8 {
    match b.get(i) {
        Some(&c) => c,
        None => 0,
    }
}

/// The eight bytes from `i` as a little-endian word (the byte at `i` lowest), each
/// byte past the end `0`, as [`byte_at`] reads it: one bounds check for eight bytes.
/// The fast build's walk reads a separator and what follows it, a literal or a run of
/// digits with it.
#[inline(always)]
pub(crate) fn word_at(b: &[u8], i: usize) -> u64 {
    // `i < len - 7` with `len >= 8`: one compare in a loop (the other and the
    // subtraction are the same each time), and the compiler sees the eight in bounds.
    if i < b.len().wrapping_sub(7) && b.len() >= 8 {
        if let Some(w) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
            return u64::from_le_bytes(*w);
        }
    }
    word_at_end(b, i)
}

/// [`word_at`] within the last eight bytes of `b` (or past them): the last word shifted
/// down, zeros shifted in.
#[inline]
fn word_at_end(b: &[u8], i: usize) -> u64 {
    let len = b.len();
    if i >= len {
        return 0;
    }
    match b.last_chunk::<8>() {
        // `len - 8 < i < len`: the shift is 8 to 56 bits.
        Some(w) => u64::from_le_bytes(*w) >> (8 * (i - (len - 8))),
        None => (0..8).fold(0, |w, k| w | u64::from(byte_at(b, i + k)) << (8 * k)),
    }
}

/// Skips whitespace from `i`: the one whitespace loop.
#[inline(always)]
pub(crate) fn skip_ws(b: &[u8], i: usize) -> usize {
    // Compact JSON has none: one compare, and the loop out of line. The compact build
    // calls the loop at once: one copy of it (flash).
    if FAST_PATHS && byte_at(b, i) > b' ' {
        return i;
    }
    skip_ws_run(b, i)
}

/// [`skip_ws`] from `i`, and the byte there as [`byte_at`] reads it: where there is no
/// whitespace (compact JSON), one read for both (the fast build's readers).
#[cfg(jsonrpc_slice_fast)]
#[inline(always)]
pub(crate) fn skip_ws_to(b: &[u8], i: usize) -> (usize, u8) {
    let c = byte_at(b, i);
    if c > b' ' {
        return (i, c);
    }
    let i = skip_ws_run(b, i);
    (i, byte_at(b, i))
}

// A byte above the space ends it in one compare (the compact build calls it for every
// gap, most of them empty), then the four bytes without a lookup mask (no registers
// to save for it on a Cortex-M).
#[inline(never)]
fn skip_ws_run(b: &[u8], mut i: usize) -> usize {
    loop {
        let c = byte_at(b, i);
        if c > b' ' || !((c == b' ') | (c.wrapping_sub(b'\t') < 2) | (c == b'\r')) {
            return i;
        }
        i += 1;
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
    /// Asserts that every copy of the walk gives the general walk's answer on the value
    /// at the start of `b` (whitespace skipped), at `max_depth`: the word walk inline,
    /// its copy for the build's target, and the one `simd::widest` runs on this CPU
    /// (with `std` on x86_64, the AVX2 copy where the CPU has it).
    pub fn walks_agree(b: &[u8], max_depth: u16) {
        let i = super::skip_ws(b, 0);
        let [want, words, built, widest] = super::value::every_reader(b, i, max_depth);
        assert_eq!(words, want, "the word walk inline");
        assert_eq!(built, want, "the build's copy");
        assert_eq!(widest, want, "the widest copy");
    }
}

#[cfg(test)]
mod tests;
