//! Numbers, as RFC 8259 spells them: `-`, an integer part without leading zeros, an
//! optional fraction and exponent. The lexeme is checked, never converted.

use super::{byte_at, fail, word_at, ScanError, ScanErrorKind};

/// Scans the number that starts at `i`; returns the offset after it.
#[inline(always)]
pub(crate) fn number(b: &[u8], mut i: usize) -> Result<usize, ScanError> {
    if byte_at(b, i) == b'-' {
        i += 1;
    }
    match byte_at(b, i) {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(b, i + 1),
        _ => return Err(fail(ScanErrorKind::InvalidNumber, i)),
    }
    if byte_at(b, i) == b'.' {
        i = some_digits(b, i + 1)?;
    }
    if byte_at(b, i) | 0x20 == b'e' {
        i += 1;
        if matches!(byte_at(b, i), b'+' | b'-') {
            i += 1;
        }
        i = some_digits(b, i)?;
    }
    Ok(i)
}

/// The run of digits from `i`, at least one: the offset after it. (Where the run ends
/// against where it starts: no second read of its first byte, flash.)
#[inline(always)]
fn some_digits(b: &[u8], i: usize) -> Result<usize, ScanError> {
    match digits(b, i) {
        end if end == i => Err(fail(ScanErrorKind::InvalidNumber, i)),
        end => Ok(end),
    }
}

/// [`number`] a word at a time (the fast build's walk): the number at `i`, whose bytes
/// from `i` are `w`, the first six as [`word_at`] reads them. An integer and a fraction
/// are runs of digits found eight at a time ([`digit_run`]); anything else (an
/// exponent, an error) goes to [`number`] from the start, so the errors are its own.
/// Returns the offset after the number and the bytes from there, the first two as
/// `word_at` reads them (the separator after a short number is in `w` already). The
/// unit tests pin it to `number`.
#[inline(always)]
pub(crate) fn number_words(b: &[u8], i: usize, w: u64) -> Result<(usize, u64), ScanError> {
    // Anything but the common shapes: the general rule from the start.
    let general = || number(b, i).map(|end| (end, word_at(b, end)));
    if (w as u8).wrapping_sub(b'1') < 9 {
        // Most numbers: all of it, and two bytes after it, in one word.
        let x = word_at(b, i);
        if let Some(len) = short_number(x) {
            return Ok((i + len, x >> (8 * len)));
        }
    }
    // `x`: the bytes from `at`, the first `known` of them read.
    let (mut at, mut x, mut known) = match w as u8 {
        b'1'..=b'9' => digit_run(b, i, w, 6),
        b'0' => (i + 1, w >> 8, 5),
        b'-' => match (w >> 8) as u8 {
            b'1'..=b'9' => digit_run(b, i + 1, w >> 8, 5),
            b'0' => (i + 2, w >> 16, 4),
            _ => return general(),
        },
        _ => return general(),
    };
    if x as u8 == b'.' {
        (at, x, known) = (at + 1, x >> 8, known - 1);
        if known == 0 {
            (x, known) = (word_at(b, at), 8);
        }
        if !(x as u8).is_ascii_digit() {
            return general();
        }
        (at, x, known) = digit_run(b, at, x, known);
    }
    if x as u8 | 0x20 == b'e' {
        return general();
    }
    if known < 2 {
        x = word_at(b, at);
    }
    Ok((at, x))
}

/// The top bit of each byte of `w` that is not a digit. A byte `c` is a digit when
/// `t = c ^ '0'` is below 10, and `t + 0x76` (or `t` itself) reaches 0x80 exactly for
/// the others. A carry leaves only a byte already flagged (`t >= 0x8A`, not a digit nor
/// `.`) and goes up, so every flag up to the first such byte is right.
#[inline(always)]
const fn non_digits(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let t = w ^ (ONES * b'0' as u64);
    (t.wrapping_add(ONES * 0x76) | t) & (ONES * 0x80)
}

/// The length of the number at the start of `x` (eight bytes as [`word_at`] reads
/// them, the first a digit `1` to `9`), when it is an integer or a fraction without
/// exponent that ends within the first six bytes (so that the two bytes after it are
/// in `x` too); otherwise `None`.
#[inline(always)]
fn short_number(x: u64) -> Option<usize> {
    let flags = non_digits(x);
    // The first byte that is not a digit: 1 to 8 (8: none).
    let int = (flags.trailing_zeros() / 8) as usize;
    if int > 6 {
        return None;
    }
    let mut end = int;
    if (x >> (8 * int)) as u8 == b'.' {
        // The flags above the `.` are right (it carries nothing): the next one ends
        // the fraction, which needs a digit.
        let frac = ((flags >> (8 * int) >> 8).trailing_zeros() / 8) as usize;
        if frac == 0 || int + 1 + frac > 6 {
            return None;
        }
        end = int + 1 + frac;
    }
    if (x >> (8 * end)) as u8 | 0x20 == b'e' {
        return None;
    }
    Some(end)
}

/// The run of digits from `i`, whose bytes from `i` are `w`, the first `known` (1 to 8)
/// as [`word_at`] reads them: the offset after the run, and the bytes from there, the
/// first of them (the byte that ends the run, `0` past the end) and how many more read.
#[inline(always)]
fn digit_run(b: &[u8], mut i: usize, mut w: u64, mut known: usize) -> (usize, u64, usize) {
    loop {
        // 8 when there is none (the lowest flag is right).
        let k = (non_digits(w).trailing_zeros() / 8) as usize;
        if k < known {
            return (i + k, w >> (8 * k), known - k);
        }
        i += known;
        (w, known) = (word_at(b, i), 8);
    }
}

/// Digits from `i`; the offset after them. The one digit loop of the three runs of a
/// number.
// Out of line on the compact build: one copy for the three runs (flash).
#[cfg_attr(jsonrpc_slice_fast, inline)]
#[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
pub(crate) fn digits(b: &[u8], mut i: usize) -> usize {
    while byte_at(b, i).wrapping_sub(b'0') < 10 {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// [`number_words`] gives [`number`]'s answer, end or error, and the two bytes after
    /// the number, on numbers of every shape, cut at every length, followed by each
    /// kind of byte, from every start, given only the six bytes it is promised.
    #[test]
    fn words_agree_with_the_general_rule() {
        let numbers: [&[u8]; 21] = [
            b"1.5",
            b"12.34",
            b"9.",
            b"1.x",
            b"123456",
            b"1234.5",
            b"12.3e5",
            b"0",
            b"-0",
            b"7",
            b"123456789012345678901234567890",
            b"-12345678",
            b"465.78",
            b"0.000000001234567",
            b"1e5",
            b"-2.5E+10",
            b"3e-7",
            b"01",
            b"-x",
            b"1.e3",
            b"12345678.12345678e12345678",
        ];
        let mut checked = 0;
        for number_ in numbers {
            for tail in [
                &b""[..],
                b",",
                b"]",
                b"}",
                b" ",
                b".",
                b"e",
                b"E",
                b"9",
                b"-",
                b"\0",
            ] {
                let mut all: Vec<u8> = number_.to_vec();
                all.extend_from_slice(tail);
                for cut in 0..=all.len() {
                    let b = &all[..cut];
                    for i in 0..=b.len() {
                        let want = number(b, i).map(|end| (end, word_at(b, end) & 0xFFFF));
                        let got = number_words(b, i, word_at(b, i) & 0xFFFF_FFFF_FFFF)
                            .map(|(end, after)| (end, after & 0xFFFF));
                        assert_eq!(got, want, "{b:?} at {i}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 5000, "{checked}");
    }
}
