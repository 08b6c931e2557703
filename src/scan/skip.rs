//! The fast build's trusted skipper: where a value ends, in input the validator has
//! accepted (the compact build's is the validator's own rules, `build_compact.rs`).
//!
//! It only finds ends: strings over `simd::plain_end`, brackets counted outside
//! strings a word at a time. On input that is not valid JSON it still ends, at or
//! before the end of the input, without panicking. Its callers are `raw::skip_trusted`
//! (and through it `raw::Cursor` and the typed decoder) and the envelope's reader of
//! the batch elements past its records; the unit tests pin it to the validator.

use crate::scan::byte_at;
use crate::simd;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The eight bytes at `i` as a little-endian word, if there are eight.
#[inline(always)]
fn word(b: &[u8], i: usize) -> Option<u64> {
    b.get(i..)
        .and_then(|rest| rest.first_chunk::<8>())
        .map(|w| u64::from_le_bytes(*w))
}

/// The high bit of each byte of `x` equal to `byte`; exact for the lowest one (the
/// ones above may be false after a match, so callers check the byte).
#[inline(always)]
const fn bytes_eq(x: u64, byte: u8) -> u64 {
    let v = x ^ (ONES * byte as u64);
    v.wrapping_sub(ONES) & !v & HIGH
}

/// The offset after the string whose opening quote is at `i`, in validated JSON.
#[inline]
pub(super) fn skip_string_trusted(b: &[u8], i: usize) -> usize {
    let mut i = i + 1;
    loop {
        // The plain run ends at `"`, `\` or a control byte (which validated JSON has
        // none of in a string; on other input it is passed over).
        i = simd::plain_end(b, i);
        match b.get(i) {
            None => return b.len(),
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
        }
    }
}

/// The offset after the value that starts at `i`, in validated JSON. Out of line,
/// and the string's skip out of line from it, so that a number or a literal is
/// skipped by a leaf that saves no registers (what the reply row's two numbers take).
#[inline(never)]
pub(super) fn skip_value_trusted(b: &[u8], i: usize) -> usize {
    value_end(b, i)
}

/// [`skip_value_trusted`]'s body.
#[inline(always)]
fn value_end(b: &[u8], i: usize) -> usize {
    match byte_at(b, i) {
        b'"' => string_end(b, i),
        b'{' | b'[' => skip_container_trusted(b, i),
        _ => scalar_end(b, i),
    }
}

/// The offset after the number or literal that starts at `i` (see [`scalar_byte`]).
#[inline(always)]
fn scalar_end(b: &[u8], mut i: usize) -> usize {
    while scalar_byte(byte_at(b, i)) {
        i += 1;
    }
    i.min(b.len())
}

/// The offset after the string whose opening quote is at `i` ([`skip_string_trusted`]):
/// one copy for [`skip_value_trusted`], out of line so that a scalar's skip saves no
/// registers.
#[inline(never)]
fn string_end(b: &[u8], i: usize) -> usize {
    skip_string_trusted(b, i)
}

/// Whether `c` can be part of a number or a literal: `+`, `-`, `.`, digits and
/// letters, all of them above `,` but `+`, and none of them `]` or `}`. What ends a
/// scalar in valid JSON (whitespace, `,`, `]`, `}`, the end) is not; on other input
/// the skip still ends, at the first such byte or the end.
#[inline(always)]
fn scalar_byte(c: u8) -> bool {
    (c > b',' && c != b']' && c != b'}') || c == b'+'
}

/// The offset after the container whose opener is at `i`, in validated JSON: brackets
/// counted outside strings, a word at a time.
#[inline(never)]
fn skip_container_trusted(b: &[u8], mut i: usize) -> usize {
    let mut depth: usize = 0;
    loop {
        let Some(x) = word(b, i) else {
            return skip_container_tail(b, i, depth);
        };
        // `{` `}` `[` `]` (and a few other bytes, passed over) and `"`.
        let mut m = bytes_eq(x & (ONES * 0xD9), 0x59) | bytes_eq(x, b'"');
        if m == 0 {
            i += 8;
            continue;
        }
        loop {
            let k = (m.trailing_zeros() / 8) as usize;
            match (x >> (8 * k)) as u8 {
                b'"' => {
                    i = skip_string_trusted(b, i + k);
                    break;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + k + 1;
                    }
                }
                _ => {}
            }
            m &= m - 1;
            if m == 0 {
                i += 8;
                break;
            }
        }
    }
}

#[cold]
fn skip_container_tail(b: &[u8], mut i: usize, mut depth: usize) -> usize {
    loop {
        match b.get(i) {
            None => return b.len(),
            Some(b'"') => i = skip_string_trusted(b, i),
            Some(b'{' | b'[') => {
                depth += 1;
                i += 1;
            }
            Some(b'}' | b']') => {
                depth = depth.saturating_sub(1);
                i += 1;
                if depth == 0 {
                    return i;
                }
            }
            Some(_) => i += 1,
        }
    }
}
