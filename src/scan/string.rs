//! Strings: plain runs, escapes and strict UTF-8.
//!
//! The runs of plain ASCII bytes are the per-target loops of `simd` (`plain_ascii_end`,
//! and `plain_ascii_mask` for strings with escapes); what stops them is decided here,
//! once for every reader of strings: the closing quote, an escape ([`escape_at`], also the
//! decoder of [`RawStr`](crate::RawStr)), a UTF-8 sequence, or a control character.

use super::{byte_at, fail, ScanError, ScanErrorKind};
use crate::simd;

/// Scans the string whose opening quote is at `i`. Returns the offset after the closing
/// quote.
// Inlined into the walk on the fast build; one out-of-line copy on the compact one.
#[cfg_attr(jsonrpc_slice_fast, inline(always))]
#[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
pub(crate) fn string(b: &[u8], i: usize) -> Result<usize, ScanError> {
    if !super::FAST_PATHS {
        // The compact build: one loop, here (flash).
        return string_rest(b, i + 1);
    }
    // Most strings (keys, short values) are one plain run.
    let end = simd::plain_ascii_end(b, i + 1);
    if byte_at(b, end) == b'"' {
        return Ok(end + 1);
    }
    string_chunks(b, end)
}

/// The rest of a string on the fast build, from `i` inside it: sixteen bytes at a
/// time, the stops of each chunk ([`simd::plain_ascii_mask`]) taken in order, so that a
/// one-letter escape costs a few bit operations and the chunk is not read again. The
/// last bytes before the end of the input go to [`string_rest`], which the unit tests
/// pin it to.
#[inline(never)]
fn string_chunks(b: &[u8], mut i: usize) -> Result<usize, ScanError> {
    'chunks: while let Some(mut stops) = simd::plain_ascii_mask(b, i) {
        while stops != 0 {
            let k = stops.trailing_zeros() as usize;
            let at = i + k;
            match byte_at(b, at) {
                b'"' => return Ok(at + 1),
                b'\\' if one_letter(byte_at(b, at + 1)).is_some() => {
                    if k == 15 {
                        // The escaped byte is in the next chunk.
                        i = at + 2;
                        continue 'chunks;
                    }
                    // Past the escaped byte, which may be a stop itself.
                    stops &= !0u32 << (k + 2);
                }
                b'\\' => {
                    i = escape(b, at)?;
                    continue 'chunks;
                }
                0x80..=0xFF => {
                    i = non_ascii(b, at)?;
                    continue 'chunks;
                }
                _ => return Err(fail(ScanErrorKind::ControlCharacter, at)),
            }
        }
        i += 16;
    }
    string_rest(b, i)
}

/// The rest of a string from `i`, inside it.
// Out of line on the fast build; the body of `string` on the compact one.
#[cfg_attr(jsonrpc_slice_fast, inline(never))]
#[cfg_attr(not(jsonrpc_slice_fast), inline(always))]
fn string_rest(b: &[u8], mut i: usize) -> Result<usize, ScanError> {
    loop {
        // The compact build reads plain bytes one at a time in the match below (the
        // smallest loop).
        if super::FAST_PATHS {
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
fn escape(b: &[u8], i: usize) -> Result<usize, ScanError> {
    match escape_at(b, i) {
        Ok((_, end)) => Ok(end),
        Err((kind, at)) => Err(fail(kind, at)),
    }
}

/// Checks string content from `i`, a non-ASCII byte, as strict UTF-8; returns the
/// offset where the string loop goes on. The fast build checks the whole run up to the
/// next `"`, `\` or control character at once ([`simd::is_utf8`]); the compact one
/// checks the one sequence at `i` with [`utf8_sequence`], which is also what names the
/// byte of an error. The unit tests pin the two to each other.
// Out of line on the fast build; inlined into its one caller on the compact one.
#[cfg_attr(jsonrpc_slice_fast, inline(never))]
#[cfg_attr(not(jsonrpc_slice_fast), inline(always))]
fn non_ascii(b: &[u8], i: usize) -> Result<usize, ScanError> {
    if super::FAST_PATHS {
        non_ascii_run(b, i)
    } else {
        non_ascii_sequence(b, i)
    }
}

/// [`non_ascii`] on the fast build.
fn non_ascii_run(b: &[u8], i: usize) -> Result<usize, ScanError> {
    let end = simd::plain_end(b, i);
    let run = b.get(i..end).unwrap_or(&[]);
    if simd::is_utf8(run) {
        return Ok(end);
    }
    match core::str::from_utf8(run) {
        Ok(_) => Ok(end),
        // The first sequence that is not UTF-8 starts at `valid_up_to`; the error names
        // the byte that breaks it (which may be the stop after a cut sequence).
        Err(e) => {
            let at = i + e.valid_up_to();
            let breaks = utf8_sequence(b, at).err().unwrap_or(at);
            Err(fail(ScanErrorKind::InvalidUtf8, breaks))
        }
    }
}

/// [`non_ascii`] on the compact build.
#[inline(always)]
fn non_ascii_sequence(b: &[u8], i: usize) -> Result<usize, ScanError> {
    utf8_sequence(b, i).map_err(|at| fail(ScanErrorKind::InvalidUtf8, at))
}

/// Checks the UTF-8 sequence whose lead byte is at `i` (strict: no overlong forms, no
/// surrogates, nothing above U+10FFFF): the offset after it, or the offset of the
/// first byte that breaks it.
fn utf8_sequence(b: &[u8], i: usize) -> Result<usize, usize> {
    let (len, lo, hi) = match byte_at(b, i) {
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
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

/// What the one-letter escape `\c` stands for, if `c` makes one.
#[inline(always)]
fn one_letter(c: u8) -> Option<u8> {
    const LETTERS: &[u8; 8] = b"\"\\/bfnrt";
    const MEANS: &[u8; 8] = b"\"\\/\x08\x0c\n\r\t";
    LETTERS.iter().position(|&l| l == c).map(|k| MEANS[k])
}

/// Four hex digits at `i`, as a UTF-16 code unit.
#[inline(always)]
fn hex4(b: &[u8], i: usize) -> Result<u32, (ScanErrorKind, usize)> {
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
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The compact build's way over non-ASCII content: a sequence, then plain ASCII, as
    /// the string loop goes, until a `"`, `\` or control character.
    fn by_sequences(b: &[u8], mut i: usize) -> Result<usize, ScanError> {
        loop {
            i = non_ascii_sequence(b, i)?;
            i = simd::plain_ascii_end(b, i);
            if byte_at(b, i) < 0x80 {
                return Ok(i);
            }
        }
    }

    /// The fast build's chunked string loop gives what the general one gives, ends and
    /// errors, on strings dense with escapes, stops at every position of a chunk, and
    /// cut at every length.
    #[test]
    fn chunks_agree_with_the_general_loop() {
        let seeds: [&[u8]; 6] = [
            br#"a\"b\\c\/d\be\ff\ng\rh\ti\u00e9j\ud83d\ude00k""#,
            br#"\\\\\\\\\\\\\\\\\"\"\"\"\"\"\"\"""#,
            "naïve \\ café \\n \\t 東京 \\\" done\"".as_bytes(),
            b"0123456789abcd\\n0123456789abc\\\"0123456789ab\\u00410123\"",
            b"bad \\x escape\"",
            b"ctrl \x01 inside\"",
        ];
        let mut checked = 0;
        for seed in seeds {
            for pad in 0..17 {
                let mut s: Vec<u8> = std::vec![b'p'; pad];
                s.extend_from_slice(seed);
                for cut in 0..=s.len() {
                    let b = &s[..cut];
                    for i in 0..b.len() {
                        assert_eq!(string_chunks(b, i), string_rest(b, i), "{b:?} from {i}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The two ways over non-ASCII content agree, errors included, on every valid and
    /// broken sequence at every position.
    #[test]
    fn run_and_sequences_agree() {
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for s in ["é", "€", "😀", "naïve café", "東京 ok", "a\u{e9}b"] {
            texts.push(s.as_bytes().to_vec());
        }
        let broken: [&[u8]; 10] = [
            b"\xc0\x80",
            b"\xc3",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe2\x82",
            b"\xff",
            b"\x80",
            b"\xf0\x9f\x98",
            b"\xe0\x80\x80",
            b"\xc3\x28",
        ];
        let mut checked = 0;
        for tail in [&b""[..], b"\"", b"x\"", b"\\n", b"\x01"] {
            for head in &texts {
                for bad in broken.iter().map(|b| b.to_vec()).chain([Vec::new()]) {
                    let mut b = head.clone();
                    b.extend_from_slice(&bad);
                    b.extend_from_slice(head);
                    b.extend_from_slice(tail);
                    for i in 0..b.len() {
                        if b[i] >= 0x80 {
                            assert_eq!(non_ascii_run(&b, i), by_sequences(&b, i), "{b:?} at {i}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
