//! The word-at-a-time bodies: eight bytes in a `u64`, for 64-bit targets without a
//! SIMD body here (and the short inputs of the SIMD bodies). No `unsafe`.
//!
//! The classifiers flag each byte's top bit. A flag can be wrong only above (after) a
//! byte that is rightly flagged, where the borrow of a subtraction reaches, never below
//! it: so the lowest flag of a word (the first byte, read little-endian) is always
//! right, which is all a routine reads.

use super::scalar;
// The SWAR build reads a string with escapes a byte at a time: the scalar body's
// masks (used where this is the build's body).
#[allow(unused_imports)]
pub(crate) use super::scalar::{
    backslash_bits, is_ascii_block, non_ascii_bits, plain_ascii_mask, plain_bits, string_classes,
    utf8_classes,
};

use super::{zero_bytes, HIGH, ONES};

/// The top bit of each byte that is `"`, `\` or below 0x20.
#[inline(always)]
const fn stops_plain(x: u64) -> u64 {
    let quote = zero_bytes(x ^ (ONES * b'"' as u64));
    let backslash = zero_bytes(x ^ (ONES * b'\\' as u64));
    let control = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
    quote | backslash | control
}

/// [`stops_plain`], and the top bit of each non-ASCII byte.
#[inline(always)]
const fn stops_plain_ascii(x: u64) -> u64 {
    stops_plain(x) | (x & HIGH)
}

/// The first byte at or after `i` whose flag `stops` sets, or `b.len()`.
#[inline(always)]
fn end(b: &[u8], mut i: usize, stops: fn(u64) -> u64, tail: fn(&[u8], usize) -> usize) -> usize {
    let len = b.len();
    while let Some(w) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
        let m = stops(u64::from_le_bytes(*w));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    if i >= len {
        return len;
    }
    // Fewer than 8 bytes left, after at least 8: the last 8 bytes, shifted so that
    // the word starts at `i` (the bytes before `i` must not be read: a stop there
    // could borrow into the bytes after it). The shift brings in zero bytes, which
    // stop, past the end: the answer is then `len`.
    match b.last_chunk::<8>() {
        Some(w) => {
            let skip = i - (len - 8);
            let m = stops(u64::from_le_bytes(*w) >> (8 * skip));
            (i + (m.trailing_zeros() / 8) as usize).min(len)
        }
        None => tail(b, i),
    }
}

/// See [`super::plain_end`].
#[inline]
pub(crate) fn plain_end(b: &[u8], i: usize) -> usize {
    end(b, i, stops_plain, scalar::plain_end)
}

/// See [`super::plain_ascii_end`].
#[inline]
pub(crate) fn plain_ascii_end(b: &[u8], i: usize) -> usize {
    end(b, i, stops_plain_ascii, scalar::plain_ascii_end)
}
