//! The NEON bodies: sixty-four, then sixteen bytes at a time. NEON is part of every aarch64 target but
//! the `softfloat` ones (the module is compiled only where `target_feature = "neon"`),
//! so no run-time detection is needed. Inputs shorter than 16 bytes go to the
//! [`swar`](super::swar) bodies.
#![allow(unsafe_code)]

use core::arch::aarch64::{
    uint8x16_t, vceqq_u8, vcgeq_u8, vcltq_u8, vdupq_n_u8, vget_lane_u64, vld1q_u8, vmaxvq_u8,
    vorrq_u8, vreinterpret_u64_u8, vreinterpretq_u16_u8, vshrn_n_u16,
};

use super::swar;
// The NEON build reads a string with escapes a byte at a time: the scalar body's
// masks (used where this is the build's body).
#[allow(unused_imports)]
pub(crate) use super::scalar::{
    backslash_bits, is_ascii_block, non_ascii_bits, plain_ascii_mask, plain_bits, string_classes,
    utf8_classes,
};

/// The sixteen bytes of `chunk` in a vector.
#[inline(always)]
fn load(chunk: &[u8; 16]) -> uint8x16_t {
    // SAFETY: `vld1q_u8` reads 16 bytes from its pointer, with no alignment needed;
    // the pointer is that of a `&[u8; 16]`, so all 16 bytes are in bounds and
    // initialised. NEON is enabled (this module is compiled only with
    // `target_feature = "neon"`).
    unsafe { vld1q_u8(chunk.as_ptr()) }
}

/// The four vectors of a 64-byte block.
#[inline(always)]
fn load4(block: &[u8; 64]) -> [uint8x16_t; 4] {
    let p = block.as_ptr();
    // SAFETY: four 16-byte reads (no alignment needed, see `load`) at offsets 0, 16, 32
    // and 48 of a `&[u8; 64]`: the last ends at byte 64, so all are in bounds and
    // initialised. NEON is enabled.
    unsafe {
        [
            vld1q_u8(p),
            vld1q_u8(p.add(16)),
            vld1q_u8(p.add(32)),
            vld1q_u8(p.add(48)),
        ]
    }
}

/// `true` if any byte of the four is non-zero.
#[inline(always)]
fn any4(v: [uint8x16_t; 4]) -> bool {
    // SAFETY: plain NEON arithmetic on values (no memory is read); NEON is enabled.
    unsafe { vmaxvq_u8(vorrq_u8(vorrq_u8(v[0], v[1]), vorrq_u8(v[2], v[3]))) != 0 }
}

/// Four bits per byte of a comparison's result (bits 4k..4k+4 for byte k), all set
/// where the byte compared true: NEON has no byte mask move, and this narrowing shift
/// is the usual stand-in.
#[inline(always)]
fn nibbles(stops: uint8x16_t) -> u64 {
    // SAFETY: plain NEON arithmetic on values (no memory is read), and NEON is enabled
    // (see `load`).
    unsafe {
        let narrowed = vshrn_n_u16::<4>(vreinterpretq_u16_u8(stops));
        vget_lane_u64::<0>(vreinterpret_u64_u8(narrowed))
    }
}

/// 0xFF in each byte of `v` that is `"`, `\` or below 0x20, 0 elsewhere.
#[inline(always)]
fn stops_plain(v: uint8x16_t) -> uint8x16_t {
    // SAFETY: as in `nibbles`.
    unsafe {
        let quote = vceqq_u8(v, vdupq_n_u8(b'"'));
        let backslash = vceqq_u8(v, vdupq_n_u8(b'\\'));
        let control = vcltq_u8(v, vdupq_n_u8(0x20));
        vorrq_u8(vorrq_u8(quote, backslash), control)
    }
}

/// 0xFF in each byte of `v` that is `"`, `\`, below 0x20 or non-ASCII, 0 elsewhere.
#[inline(always)]
fn stops_plain_ascii(v: uint8x16_t) -> uint8x16_t {
    // SAFETY: as in `nibbles`.
    unsafe {
        let quote = vceqq_u8(v, vdupq_n_u8(b'"'));
        let backslash = vceqq_u8(v, vdupq_n_u8(b'\\'));
        let control = vcltq_u8(v, vdupq_n_u8(0x20));
        let high = vcgeq_u8(v, vdupq_n_u8(0x80));
        vorrq_u8(vorrq_u8(quote, backslash), vorrq_u8(control, high))
    }
}

/// The first byte at or after `i` that `stops` marks, or `b.len()`.
#[inline(always)]
fn end(
    b: &[u8],
    mut i: usize,
    stops: fn(uint8x16_t) -> uint8x16_t,
    short: fn(&[u8], usize) -> usize,
) -> usize {
    let len = b.len();
    // The first 16 bytes alone (most runs are short), then 64 bytes at a time while
    // none stops; the block with a stop is searched again 16 bytes at a time below.
    if let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<16>()) {
        let m = nibbles(stops(load(chunk)));
        if m != 0 {
            return i + (m.trailing_zeros() / 4) as usize;
        }
        i += 16;
        while let Some(block) = b.get(i..).and_then(|r| r.first_chunk::<64>()) {
            let [v0, v1, v2, v3] = load4(block);
            if any4([stops(v0), stops(v1), stops(v2), stops(v3)]) {
                break;
            }
            i += 64;
        }
    }
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<16>()) {
        let m = nibbles(stops(load(chunk)));
        if m != 0 {
            return i + (m.trailing_zeros() / 4) as usize;
        }
        i += 16;
    }
    if i >= len {
        return len;
    }
    // Fewer than 16 bytes left: the last 16 bytes of the slice, the bits of those
    // before `i` dropped (`skip` is 1..=15: `i < len < i + 16`).
    match b.last_chunk::<16>() {
        Some(chunk) => {
            let skip = i - (len - 16);
            let m = nibbles(stops(load(chunk))) >> (4 * skip);
            if m != 0 {
                i + (m.trailing_zeros() / 4) as usize
            } else {
                len
            }
        }
        None => short(b, i),
    }
}

/// See [`super::plain_end`].
#[inline]
pub(crate) fn plain_end(b: &[u8], i: usize) -> usize {
    end(b, i, stops_plain, swar::plain_end)
}

/// See [`super::plain_ascii_end`].
#[inline]
pub(crate) fn plain_ascii_end(b: &[u8], i: usize) -> usize {
    end(b, i, stops_plain_ascii, swar::plain_ascii_end)
}
