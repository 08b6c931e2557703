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
pub(crate) fn plain_end(b: &[u8], mut i: usize) -> usize {
    // (An index loop rather than `position` on `b.get(i..)`: the smaller code on a
    // Cortex-M, where this is the writer's string loop.)
    while let Some(&c) = b.get(i) {
        if stops_plain(c) {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// See [`super::plain_ascii_end`].
#[inline]
pub(crate) fn plain_ascii_end(b: &[u8], mut i: usize) -> usize {
    // An index loop, as in `plain_end`: the scanner's string loop on a Cortex-M.
    while let Some(&c) = b.get(i) {
        if stops_plain_ascii(c) {
            return i;
        }
        i += 1;
    }
    b.len()
}

/// See `plain_ascii_mask` (`build_fast.rs`).
// The oracle of the tests and the fuzz target; where the build has a wider body (SSE2)
// or its scanner reads no blocks (the compact build), only they call it.
#[cfg_attr(not(any(test, fuzzing)), allow(dead_code))]
#[inline]
pub(crate) fn plain_ascii_mask(b: &[u8], i: usize) -> Option<u32> {
    let chunk = b.get(i..)?.first_chunk::<16>()?;
    let mut mask = 0;
    for (k, &c) in chunk.iter().enumerate() {
        if stops_plain_ascii(c) {
            mask |= 1 << k;
        }
    }
    Some(mask)
}

/// See `string_classes` (`build_fast.rs`).
// The oracle of the tests and the fuzz target; where the build has a wider body (SSE2)
// or its scanner reads no blocks (the compact build), only they call it.
#[cfg_attr(not(any(test, fuzzing)), allow(dead_code))]
#[inline]
pub(crate) fn string_classes(block: &[u8; 64]) -> super::StringClasses {
    let mut classes = super::StringClasses {
        quote: 0,
        backslash: 0,
        control_or_non_ascii: 0,
    };
    for (k, &c) in block.iter().enumerate() {
        let bit = 1u64 << k;
        if c == b'"' {
            classes.quote |= bit;
        } else if c == b'\\' {
            classes.backslash |= bit;
        } else if stops_plain_ascii(c) {
            // The other stops: control characters and non-ASCII.
            classes.control_or_non_ascii |= bit;
        }
    }
    classes
}
