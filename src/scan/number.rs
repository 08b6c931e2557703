//! Numbers, as RFC 8259 spells them: `-`, an integer part without leading zeros, an
//! optional fraction and exponent. The lexeme is checked, never converted.

use super::{byte_at, digits, fail, ScanError, ScanErrorKind};

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

/// Digits from `i`; the offset after them. The one digit loop of the three runs of a
/// number (each build says where it is inlined: `build_*.rs`'s `digits`).
#[inline(always)]
pub(super) fn digit_loop(b: &[u8], mut i: usize) -> usize {
    while byte_at(b, i).wrapping_sub(b'0') < 10 {
        i += 1;
    }
    i
}

/// Whether a fraction or an exponent goes on from `i`, where a number's digits end in
/// validated JSON (the byte there tells: `.`, `e` or `E`), so that the number is not
/// an integer lexeme (`raw`'s integer reads, the compact build's trusted skip).
#[inline(always)]
pub(crate) fn fraction_or_exponent_at(b: &[u8], i: usize) -> bool {
    matches!(byte_at(b, i), b'.' | b'e' | b'E')
}
