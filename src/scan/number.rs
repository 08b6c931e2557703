//! Numbers, as RFC 8259 spells them: `-`, an integer part without leading zeros, an
//! optional fraction and exponent. The lexeme is checked, never converted.

use super::{byte_at, fail, ScanError, ScanErrorKind};

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
        if !byte_at(b, i + 1).is_ascii_digit() {
            return Err(fail(ScanErrorKind::InvalidNumber, i + 1));
        }
        i = digits(b, i + 1);
    }
    if byte_at(b, i) | 0x20 == b'e' {
        i += 1;
        if matches!(byte_at(b, i), b'+' | b'-') {
            i += 1;
        }
        if !byte_at(b, i).is_ascii_digit() {
            return Err(fail(ScanErrorKind::InvalidNumber, i));
        }
        i = digits(b, i);
    }
    Ok(i)
}

/// Digits from `i`; the offset after them. The one digit loop of the three runs of a
/// number.
// Out of line on the compact build: one copy for the three runs (flash).
#[cfg_attr(jsonrpc_slice_fast, inline)]
#[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
fn digits(b: &[u8], mut i: usize) -> usize {
    while byte_at(b, i).wrapping_sub(b'0') < 10 {
        i += 1;
    }
    i
}
