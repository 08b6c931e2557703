//! The inner byte-class loops of the scanner and the writer, per target.
//!
//! Everything else in the crate reads bytes one grammar step at a time; the loops here
//! run over whole classes of bytes and are the only code that differs by target. Each
//! routine has a scalar body in [`scalar`] (the compact build's, and the oracle every
//! other body is tested against) and, where the target has one, a SIMD body.
//!
//! # Contract
//!
//! - Every routine takes any slice and any offset and never panics; an offset at or
//!   past the end returns the length of the slice.
//! - Every body of a routine returns exactly what its scalar twin returns, on every
//!   input: `cargo test` pins them to each other, and the `simd` fuzz target does too.
//!
//! # Routines
//!
//! - [`plain_end`]: the end of a run of string content that needs no attention when
//!   writing: the first `"`, `\` or control character (below 0x20).
//! - [`plain_ascii_end`]: the same, also stopping at a non-ASCII byte (the start of a
//!   UTF-8 sequence the scanner must check).

mod scalar;

/// The offset of the first byte at or after `i` that is `"`, `\` or below 0x20, or
/// `b.len()` if there is none.
#[inline]
pub(crate) fn plain_end(b: &[u8], i: usize) -> usize {
    scalar::plain_end(b, i)
}

/// The offset of the first byte at or after `i` that is `"`, `\`, below 0x20 or
/// non-ASCII (0x80 and above), or `b.len()` if there is none.
#[inline]
pub(crate) fn plain_ascii_end(b: &[u8], i: usize) -> usize {
    scalar::plain_ascii_end(b, i)
}
