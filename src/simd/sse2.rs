//! The SSE2 bodies: a run's first sixteen bytes, the next thirty-two, then sixty-four at a time. SSE2 is part of x86_64, so no run-time
//! detection is needed (the module is compiled only where `target_feature = "sse2"`).
//! Inputs shorter than 16 bytes go to the [`swar`] bodies.
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_min_epu8,
    _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_xor_si128,
};

use super::swar;

/// The sixteen bytes of `chunk` in a vector.
#[inline(always)]
fn load(chunk: &[u8; 16]) -> __m128i {
    // SAFETY: `_mm_loadu_si128` reads 16 bytes from its pointer, with no alignment
    // needed; the pointer is that of a `&[u8; 16]`, so all 16 bytes are in bounds and
    // initialised. SSE2 is enabled (this module is compiled only with
    // `target_feature = "sse2"`).
    unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) }
}

/// The two vectors of 32 bytes.
#[inline(always)]
fn load2(pair: &[u8; 32]) -> [__m128i; 2] {
    let p = pair.as_ptr();
    // SAFETY: two 16-byte reads (no alignment needed, see `load`) at offsets 0 and 16
    // of a `&[u8; 32]`: the second ends at byte 32, so both are in bounds and
    // initialised. SSE2 is enabled.
    unsafe {
        [
            _mm_loadu_si128(p.cast::<__m128i>()),
            _mm_loadu_si128(p.add(16).cast::<__m128i>()),
        ]
    }
}

/// The four vectors of a 64-byte block.
#[inline(always)]
fn load4(block: &[u8; 64]) -> [__m128i; 4] {
    let p = block.as_ptr();
    // SAFETY: four 16-byte reads (no alignment needed, see `load`) at offsets 0, 16, 32
    // and 48 of a `&[u8; 64]`: the last ends at byte 64, so all are in bounds and
    // initialised. SSE2 is enabled.
    unsafe {
        [
            _mm_loadu_si128(p.cast::<__m128i>()),
            _mm_loadu_si128(p.add(16).cast::<__m128i>()),
            _mm_loadu_si128(p.add(32).cast::<__m128i>()),
            _mm_loadu_si128(p.add(48).cast::<__m128i>()),
        ]
    }
}

/// One bit per byte of a comparison's result (bit k for byte k).
#[inline(always)]
fn bits(v: __m128i) -> u32 {
    // SAFETY: SSE2 arithmetic on a value (no memory is read); SSE2 is enabled.
    unsafe { _mm_movemask_epi8(v) as u32 }
}

/// All four of `v` or-ed together.
#[inline(always)]
fn any4(v: [__m128i; 4]) -> __m128i {
    // SAFETY: as in `bits`.
    unsafe { _mm_or_si128(_mm_or_si128(v[0], v[1]), _mm_or_si128(v[2], v[3])) }
}

/// 0xFF in each byte of `v` that is `"`, `\` or below 0x20, 0 elsewhere.
#[inline(always)]
fn stops_plain(v: __m128i) -> __m128i {
    // SAFETY: plain SSE2 arithmetic on values (no memory is read), and SSE2 is enabled
    // (see `load`).
    unsafe {
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // `"` and the control characters in one compare: `v ^ 0x02` swaps the control
        // characters in pairs among themselves and takes `"` (0x22) to 0x20, so they
        // are exactly the bytes of which it is at most 0x20. Unsigned: SSE2 compares
        // bytes as signed only, but `min(t, 0x20) == t` holds exactly then.
        let t = _mm_xor_si128(v, _mm_set1_epi8(0x02));
        let quote_or_control = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(0x20)), t);
        _mm_or_si128(backslash, quote_or_control)
    }
}

/// 0xFF in each byte of `v` that is `"`, `\`, below 0x20 or non-ASCII, 0 elsewhere.
#[inline(always)]
fn stops_plain_ascii(v: __m128i) -> __m128i {
    // SAFETY: as in `stops_plain`.
    unsafe {
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // `"`, the control characters and 0x80..=0xFF in one compare: `v ^ 0x02` takes
        // `"` (0x22) to 0x20 and keeps the control characters below 0x20 and the
        // non-ASCII bytes negative as signed bytes, and no other byte below 0x21
        // (flipping bit 1 moves a byte by 2 at most: 0x23 goes to 0x21).
        let t = _mm_xor_si128(v, _mm_set1_epi8(0x02));
        let quote_control_or_high = _mm_cmplt_epi8(t, _mm_set1_epi8(0x21));
        _mm_or_si128(backslash, quote_control_or_high)
    }
}

/// The first byte at or after `i` that `stops` marks, or `b.len()`.
#[inline(always)]
fn end(
    b: &[u8],
    mut i: usize,
    stops: fn(__m128i) -> __m128i,
    short: fn(&[u8], usize) -> usize,
) -> usize {
    let len = b.len();
    // The first 16 bytes alone (most runs are short), then 32, then 64 bytes at a time
    // while none stops (one mask move and one branch per block); near the end of the
    // slice, 16 bytes at a time below. Whether the 16 are there is asked as
    // `i < len - 15` with `len >= 16`: one compare where the caller knows `len >= 16`
    // (the scanner's word walk), and the compiler then knows the chunk is in bounds.
    let first = if i < len.wrapping_sub(15) && len >= 16 {
        b.get(i..).and_then(|r| r.first_chunk::<16>())
    } else {
        None
    };
    if let Some(chunk) = first {
        let m = bits(stops(load(chunk)));
        if m != 0 {
            return i + m.trailing_zeros() as usize;
        }
        i += 16;
        // Then the next 32 (most of the rest of the runs end there: a hex string of an
        // address or a hash, a log line), then 64 at a time.
        if let Some(pair) = b.get(i..).and_then(|r| r.first_chunk::<32>()) {
            let [low, high] = load2(pair);
            let m = bits(stops(low)) | bits(stops(high)) << 16;
            if m != 0 {
                return i + m.trailing_zeros() as usize;
            }
            i += 32;
        }
        // The same for each block: `i < len - 63` with `len >= 64` (the second and the
        // subtraction the same each time round), one compare a block. The block with a
        // stop has its four masks put together, and the first stop taken from them.
        while i < len.wrapping_sub(63) && len >= 64 {
            let Some(block) = b.get(i..).and_then(|r| r.first_chunk::<64>()) else {
                break;
            };
            let v = load4(block).map(stops);
            if bits(any4(v)) != 0 {
                return i + bits4(v).trailing_zeros() as usize;
            }
            i += 64;
        }
    }
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<16>()) {
        let m = bits(stops(load(chunk)));
        if m != 0 {
            return i + m.trailing_zeros() as usize;
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
            let m = bits(stops(load(chunk))) >> skip;
            if m != 0 {
                i + m.trailing_zeros() as usize
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

/// See [`super::plain_ascii_mask`].
#[inline(always)]
pub(crate) fn plain_ascii_mask(b: &[u8], i: usize) -> Option<u32> {
    let chunk = b.get(i..)?.first_chunk::<16>()?;
    Some(bits(stops_plain_ascii(load(chunk))))
}

/// See [`super::backslash_bits`]: one compare and one mask move for 16.
#[inline(always)]
pub(crate) fn backslash_bits(block: &[u8; 64]) -> u64 {
    // SAFETY: plain SSE2 arithmetic on values (no memory is read), and SSE2 is enabled
    // (see `load`).
    bits4(load4(block).map(|x| unsafe { _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8)) }))
}

/// See [`super::plain_bits`]: [`stops_plain`]'s three compares and one mask move for
/// 16.
#[inline(always)]
pub(crate) fn plain_bits(block: &[u8; 64]) -> u64 {
    bits4(load4(block).map(stops_plain))
}

/// One bit per byte of the four comparison results of a 64-byte block (bit `16 * j + k`
/// for byte `k` of vector `j`).
#[inline(always)]
fn bits4(v: [__m128i; 4]) -> u64 {
    let [a, b, c, d] = v.map(|v| u64::from(bits(v)));
    a | (b << 16) | (c << 32) | (d << 48)
}

/// 0xFF in each byte of `x` that stops a string besides `"` and `\`: a control
/// character, and with `NON_ASCII` a non-ASCII byte too.
#[inline(always)]
fn other_stops<const NON_ASCII: bool>(x: __m128i) -> __m128i {
    // SAFETY: plain SSE2 arithmetic on values (no memory is read), and SSE2 is enabled
    // (see `load`).
    unsafe {
        if NON_ASCII {
            // Signed `x < 0x20`: the control characters, and 0x80..=0xFF, which are
            // negative as signed bytes.
            _mm_cmplt_epi8(x, _mm_set1_epi8(0x20))
        } else {
            // Unsigned `x <= 0x1F` (see `stops_plain`).
            _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1F)), x)
        }
    }
}

/// The other stops of `block`, as a mask: [`string_classes`]' rare case, out of line so
/// that the common one keeps no vector for it.
#[cold]
#[inline(never)]
fn other_stops_bits<const NON_ASCII: bool>(block: &[u8; 64]) -> u64 {
    bits4(load4(block).map(other_stops::<NON_ASCII>))
}

/// See [`super::non_ascii_bits`]: the top bit of each byte, one mask move for 16.
#[inline(always)]
pub(crate) fn non_ascii_bits(block: &[u8; 64]) -> u64 {
    bits4(load4(block))
}

/// See [`super::string_classes`].
#[inline(always)]
pub(crate) fn string_classes<const NON_ASCII: bool>(block: &[u8; 64]) -> super::StringClasses {
    let v = load4(block);
    // SAFETY: as in `other_stops`.
    let (quote, backslash) = unsafe { (_mm_set1_epi8(b'"' as i8), _mm_set1_epi8(b'\\' as i8)) };
    // SAFETY: as above.
    let eq = |x: __m128i, y: __m128i| unsafe { _mm_cmpeq_epi8(x, y) };
    super::StringClasses {
        quote: bits4(v.map(|x| eq(x, quote))),
        backslash: bits4(v.map(|x| eq(x, backslash))),
        // Most blocks of a string with escapes have none: one mask move says so.
        other: if bits(any4(v.map(other_stops::<NON_ASCII>))) == 0 {
            0
        } else {
            other_stops_bits::<NON_ASCII>(block)
        },
    }
}

/// See `utf8::Utf8Classes`: each class of 16 bytes by one signed compare (the non-ASCII
/// bytes are the negative ones), the leads' masks then kept to the non-ASCII bytes; the
/// special leads only in a block with leads of 3 bytes.
#[inline(always)]
pub(crate) fn utf8_classes(block: &[u8; 64]) -> super::utf8::Utf8Classes {
    let v = load4(block);
    // SAFETY: plain SSE2 arithmetic on values (no memory is read), and SSE2 is enabled
    // (see `load`).
    let below = |x: __m128i, c: u8| unsafe { _mm_cmplt_epi8(x, _mm_set1_epi8(c as i8)) };
    // SAFETY: as above.
    let above = |x: __m128i, c: u8| unsafe { _mm_cmpgt_epi8(x, _mm_set1_epi8(c as i8)) };
    // SAFETY: as above.
    let is = |x: __m128i, c: u8| unsafe { _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8)) };
    // SAFETY: as above.
    let or = |x: __m128i, y: __m128i| unsafe { _mm_or_si128(x, y) };
    let non_ascii = bits4(v);
    let lead3 = bits4(v.map(|x| above(x, 0xDF))) & non_ascii;
    super::utf8::Utf8Classes {
        non_ascii,
        // Signed, 0x80..=0xBF are the bytes below 0xC0.
        cont: bits4(v.map(|x| below(x, 0xC0))),
        lead2: bits4(v.map(|x| above(x, 0xC1))) & non_ascii,
        lead3,
        special: if lead3 == 0 {
            0
        } else {
            bits4(v.map(|x| or(or(is(x, 0xE0), is(x, 0xED)), above(x, 0xEF)))) & non_ascii
        },
    }
}

/// Whether every byte of `block` is ASCII: one mask move of the four vectors or-ed.
// The compact build's tests compile this body for its unit tests, not its UTF-8 check.
#[cfg_attr(not(jsonrpc_slice_fast), allow(dead_code))]
#[inline(always)]
pub(crate) fn is_ascii_block(block: &[u8; 64]) -> bool {
    bits(any4(load4(block))) == 0
}
