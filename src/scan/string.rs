//! Strings: plain runs, escapes and strict UTF-8.
//!
//! The runs of plain ASCII bytes are the per-target loops of `simd` (`plain_ascii_end`);
//! what stops them is decided here, once for every reader of strings: the closing
//! quote, an escape ([`escape_at`], also the decoder of [`RawStr`](crate::RawStr)), a
//! UTF-8 sequence, or a control character. Where a string starts, how a non-ASCII run
//! and a `\u` escape's digits are read is the build's (`build_fast.rs`, whose
//! `string_fast.rs` reads strings 64 bytes at a time; `build_compact.rs`): each calls
//! the rules here.

use super::build::{hex4, non_ascii};
use super::{byte_at, fail, ScanError, ScanErrorKind};
use crate::simd;

/// The rest of a string from `i`, inside it: the general loop (the compact build's
/// whole string scan, the fast build's last bytes of a string). The build says how
/// plain bytes are read: a run at a time (`simd::plain_ascii_end`), or with
/// `ONE_AT_A_TIME` each by a test the compiler merges with the match's (the compact
/// build's: the smallest loop; the run's own loop took 34 to 40 bytes more of the
/// firmware's flash).
#[inline(always)]
pub(super) fn string_rest<const ONE_AT_A_TIME: bool>(
    b: &[u8],
    mut i: usize,
) -> Result<usize, ScanError> {
    loop {
        if ONE_AT_A_TIME {
            let c = byte_at(b, i);
            if c.wrapping_sub(0x20) < 0x60 && c != b'"' && c != b'\\' {
                i += 1;
                continue;
            }
        } else {
            i = simd::plain_ascii_end(b, i);
        }
        match byte_at(b, i) {
            b'"' => return Ok(i + 1),
            b'\\' => i = escape(b, i)?,
            0x80..=0xFF => i = non_ascii(b, i)?,
            0x20..=0x7F => i += 1,
            _ => return Err(fail(ScanErrorKind::ControlCharacter, i)),
        }
    }
}

/// Checks the escape whose backslash is at `i`; returns the offset after it.
#[inline]
pub(super) fn escape(b: &[u8], i: usize) -> Result<usize, ScanError> {
    match escape_at(b, i) {
        Ok((_, end)) => Ok(end),
        Err((kind, at)) => Err(fail(kind, at)),
    }
}

/// Checks the UTF-8 sequence whose lead byte is at `i` (strict: no overlong forms, no
/// surrogates, nothing above U+10FFFF): the offset after it, or the offset of the
/// first byte that breaks it.
pub(super) fn utf8_sequence(b: &[u8], i: usize) -> Result<usize, usize> {
    // The length by the lead byte's range; the second byte's range is 0x80..=0xBF but
    // for the four leads that start an overlong form, a surrogate or a code point above
    // U+10FFFF (each the first or the last of its range).
    let lead = byte_at(b, i);
    let (len, lo, hi) = match lead {
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0..=0xEF => (
            3,
            if lead == 0xE0 { 0xA0 } else { 0x80 },
            if lead == 0xED { 0x9F } else { 0xBF },
        ),
        0xF0..=0xF4 => (
            4,
            if lead == 0xF0 { 0x90 } else { 0x80 },
            if lead == 0xF4 { 0x8F } else { 0xBF },
        ),
        _ => return Err(i),
    };
    let second = byte_at(b, i + 1);
    if second < lo || second > hi {
        return Err(i + 1);
    }
    for k in 2..len {
        if byte_at(b, i + k) & 0xC0 != 0x80 {
            return Err(i + k);
        }
    }
    Ok(i + len)
}

/// The escape whose backslash is at `i`: the code point it stands for (a surrogate
/// pair as one) and the offset after it; or why it is not a valid escape, and the
/// offset of the byte that says so. The one escape decoder: the scanner checks with it,
/// [`RawStr`](crate::RawStr) decodes with it.
pub(crate) fn escape_at(b: &[u8], i: usize) -> Result<(u32, usize), (ScanErrorKind, usize)> {
    let c = byte_at(b, i + 1);
    if c != b'u' {
        return match one_letter(c) {
            Some(means) => Ok((u32::from(means), i + 2)),
            None => Err((ScanErrorKind::InvalidEscape, i + 1)),
        };
    }
    // `\u`: a code unit, or a high surrogate, then `\u` and a low one.
    let mut high = 0;
    let mut at = i + 2;
    loop {
        let unit = hex4(b, at)?;
        match (high, unit) {
            (0, 0xD800..=0xDBFF) => {
                if byte_at(b, at + 4) != b'\\' || byte_at(b, at + 5) != b'u' {
                    return Err((ScanErrorKind::LoneSurrogate, i));
                }
                high = unit;
                at += 6;
            }
            (0, 0xDC00..=0xDFFF) => return Err((ScanErrorKind::LoneSurrogate, i)),
            (0, _) => return Ok((unit, at + 4)),
            (_, 0xDC00..=0xDFFF) => {
                return Ok((0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), at + 4))
            }
            _ => return Err((ScanErrorKind::LoneSurrogate, i)),
        }
    }
}

/// The letters of the one-letter escapes (`\c`).
pub(super) const LETTERS: &[u8; 8] = b"\"\\/bfnrt";
/// What each of [`LETTERS`] stands for.
const MEANS: &[u8; 8] = b"\"\\/\x08\x0c\n\r\t";

/// What each one-letter escape `\c` stands for, at `c` ([`LETTERS`], [`MEANS`] as a
/// table; 0 where `c` makes none: no letter stands for 0). For the fast build's decoder
/// of strings, a load an escape.
#[cfg_attr(not(jsonrpc_slice_fast), allow(dead_code))]
pub(crate) const MEANING: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut k = 0;
    while k < LETTERS.len() {
        table[LETTERS[k] as usize] = MEANS[k];
        k += 1;
    }
    table
};

/// What the one-letter escape `\c` stands for, if `c` makes one.
#[inline(always)]
pub(super) fn one_letter(c: u8) -> Option<u8> {
    LETTERS.iter().position(|&l| l == c).map(|k| MEANS[k])
}

/// Four hex digits at `i`, one at a time, as a UTF-16 code unit; or the first byte that
/// is not a hex digit.
#[inline(always)]
pub(super) fn hex4_digits(b: &[u8], i: usize) -> Result<u32, (ScanErrorKind, usize)> {
    let mut v = 0;
    for k in 0..4 {
        match hex_digit(byte_at(b, i + k)) {
            Some(d) => v = (v << 4) | u32::from(d),
            None => return Err((ScanErrorKind::InvalidEscape, i + k)),
        }
    }
    Ok(v)
}

/// The value of one hex digit.
#[inline]
pub(crate) const fn hex_digit(c: u8) -> Option<u8> {
    // `c | 0x20` is in `a..=f` exactly when `c` is in `A..=F` or `a..=f`: one test for
    // the letters (flash).
    let letter = (c | 0x20).wrapping_sub(b'a');
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        _ if letter < 6 => Some(letter + 10),
        _ => None,
    }
}
