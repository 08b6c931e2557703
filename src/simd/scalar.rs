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

/// See `non_ascii_bits` (`build_fast.rs`).
// The oracle of the tests; where the build has a wider body (SSE2) or its scanner
// reads no blocks (the compact build), only they call it.
#[cfg_attr(not(test), allow(dead_code))]
#[inline]
pub(crate) fn non_ascii_bits(block: &[u8; 64]) -> u64 {
    let mut mask = 0;
    for (k, &c) in block.iter().enumerate() {
        mask |= u64::from(c >= 0x80) << k;
    }
    mask
}

/// See `string_classes` (`build_fast.rs`).
// The oracle of the tests and the fuzz target; where the build has a wider body (SSE2)
// or its scanner reads no blocks (the compact build), only they call it.
#[cfg_attr(not(any(test, fuzzing)), allow(dead_code))]
#[inline]
pub(crate) fn string_classes<const NON_ASCII: bool>(block: &[u8; 64]) -> super::StringClasses {
    let mut classes = super::StringClasses {
        quote: 0,
        backslash: 0,
        other: 0,
    };
    for (k, &c) in block.iter().enumerate() {
        let bit = 1u64 << k;
        if c == b'"' {
            classes.quote |= bit;
        } else if c == b'\\' {
            classes.backslash |= bit;
        } else if c < 0x20 || (NON_ASCII && c >= 0x80) {
            // The other stops: control characters, and non-ASCII when asked.
            classes.other |= bit;
        }
    }
    classes
}

/// See `utf8::Utf8Classes`: the oracle of the other bodies, and the body of the
/// builds without a wider one. (The compact build checks UTF-8 a sequence at a time.)
#[cfg(any(jsonrpc_slice_fast, test, fuzzing))]
#[cfg_attr(not(any(test, fuzzing)), allow(dead_code))]
#[inline]
pub(crate) fn utf8_classes(block: &[u8; 64]) -> super::utf8::Utf8Classes {
    let mut c = super::utf8::Utf8Classes {
        non_ascii: 0,
        cont: 0,
        lead2: 0,
        lead3: 0,
        special: 0,
    };
    for (k, &byte) in block.iter().enumerate() {
        let bit = |yes: bool| u64::from(yes) << k;
        c.non_ascii |= bit(byte >= 0x80);
        c.cont |= bit((0x80..=0xBF).contains(&byte));
        c.lead2 |= bit(byte >= 0xC2);
        c.lead3 |= bit(byte >= 0xE0);
        c.special |= bit(byte == 0xE0 || byte == 0xED || byte >= 0xF0);
    }
    c
}

/// Whether every byte of `block` is ASCII: the oracle of the other bodies, and the
/// body of the builds without a wider one.
#[cfg(any(jsonrpc_slice_fast, test, fuzzing))]
#[cfg_attr(not(test), allow(dead_code))]
#[inline]
pub(crate) fn is_ascii_block(block: &[u8; 64]) -> bool {
    block.iter().all(u8::is_ascii)
}

/// See `plain_bits` (`build_fast.rs`).
#[cfg_attr(not(test), allow(dead_code))]
#[inline]
pub(crate) fn plain_bits(block: &[u8; 64]) -> u64 {
    let mut mask = 0;
    for (k, &c) in block.iter().enumerate() {
        mask |= u64::from(stops_plain(c)) << k;
    }
    mask
}

/// See `backslash_bits` (`build_fast.rs`).
#[cfg_attr(not(test), allow(dead_code))]
#[inline]
pub(crate) fn backslash_bits(block: &[u8; 64]) -> u64 {
    let mut mask = 0;
    for (k, &c) in block.iter().enumerate() {
        mask |= u64::from(c == b'\\') << k;
    }
    mask
}
