//! The scalar bodies: one byte at a time. The compact build's, and the oracle of every
//! other body.

/// See [`super::plain_end`].
#[inline]
pub(crate) fn plain_end(b: &[u8], i: usize) -> usize {
    let rest = b.get(i..).unwrap_or(&[]);
    match rest
        .iter()
        .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
    {
        Some(k) => i + k,
        None => b.len(),
    }
}

/// See [`super::plain_ascii_end`].
#[inline]
pub(crate) fn plain_ascii_end(b: &[u8], i: usize) -> usize {
    let rest = b.get(i..).unwrap_or(&[]);
    match rest
        .iter()
        .position(|&c| c < 0x20 || c == b'"' || c == b'\\' || c >= 0x80)
    {
        Some(k) => i + k,
        None => b.len(),
    }
}
