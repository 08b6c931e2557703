//! The scalar bodies: one byte at a time. The compact build's, and the oracle of every
//! other body.

/// `true` for a byte [`plain_end`] stops at: `"`, `\` or a control character.
#[inline(always)]
pub(crate) const fn stops_plain(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// `true` for a byte [`plain_ascii_end`] stops at: [`stops_plain`], or non-ASCII.
#[inline(always)]
pub(crate) const fn stops_plain_ascii(c: u8) -> bool {
    stops_plain(c) || c >= 0x80
}

/// See [`super::plain_end`].
#[inline]
pub(crate) fn plain_end(b: &[u8], i: usize) -> usize {
    let rest = b.get(i..).unwrap_or(&[]);
    match rest.iter().position(|&c| stops_plain(c)) {
        Some(k) => i + k,
        None => b.len(),
    }
}

/// See [`super::plain_ascii_end`].
#[inline]
pub(crate) fn plain_ascii_end(b: &[u8], i: usize) -> usize {
    let rest = b.get(i..).unwrap_or(&[]);
    match rest.iter().position(|&c| stops_plain_ascii(c)) {
        Some(k) => i + k,
        None => b.len(),
    }
}
