//! The fast build's choices among the bodies: the widest body the target has for the
//! runs and masks, simdutf8 for UTF-8 with `std`, and the 16-byte copies of the block
//! loops that decode and escape strings.

/// The body this build uses: SSE2 on x86_64, NEON on aarch64 with NEON, SWAR
/// elsewhere.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) use super::sse2 as body;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
pub(super) use super::neon as body;

#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "aarch64", target_feature = "neon")
)))]
pub(super) use super::swar as body;

/// Whether `b` is UTF-8 (strict, as `core::str::from_utf8` has it). With the `std`
/// feature, simdutf8's SIMD check, the widest the CPU has (detected at run time);
/// otherwise the crate's own (`utf8.rs`): on x86_64 with AVX2 (detected at run time)
/// by nibble lookups (`lookup.rs`), else 64 bytes at a time by masks. Only the
/// verdict: where an error is, `core` says (the scanner asks it on the cold path).
#[inline]
pub(crate) fn is_utf8(b: &[u8]) -> bool {
    #[cfg(feature = "std")]
    return simdutf8::basic::from_utf8(b).is_ok();
    #[cfg(not(feature = "std"))]
    return super::utf8::is_utf8(b);
}

/// `b` as a `&str` if it is UTF-8, by [`is_utf8`]: simdutf8's check with `std`, the
/// crate's own otherwise (`utf8.rs`, 64 bytes at a time, where `core::str::from_utf8`
/// reads non-ASCII text a character at a time). For the decoder of strings
/// (`raw/unescape.rs`), whose output is checked once.
#[inline]
pub(crate) fn utf8_str(b: &[u8]) -> Option<&str> {
    #[cfg(feature = "std")]
    return simdutf8::basic::from_utf8(b).ok();
    #[cfg(not(feature = "std"))]
    {
        if !super::utf8::is_utf8(b) {
            return None;
        }
        // SAFETY: `is_utf8` said `b` is UTF-8, strict as `core::str::from_utf8` has it
        // (its unit tests pin it to `core`'s verdict on every width at every offset,
        // every byte broken and every length cut, and the `simd` fuzz target does too),
        // which is all `from_utf8_unchecked` asks.
        #[allow(unsafe_code)]
        Some(unsafe { core::str::from_utf8_unchecked(b) })
    }
}

/// The backslashes of `block`, as a mask (bit `k` for byte `k`): for the decoder of
/// strings, whose content (validated) no other byte stops. SSE2 has 16 in one compare
/// and one mask move; the NEON and SWAR builds use the scalar body.
#[inline]
pub(crate) fn backslash_bits(block: &[u8; 64]) -> u64 {
    body::backslash_bits(block)
}

/// The bytes of `block` that [`plain_end`](super::plain_end) stops at (`"`, `\`, control
/// characters), as a mask (bit `k` for byte `k`): for the writer's strings, which it
/// escapes a block at a time. SSE2 has 16 in three compares and one mask move; the
/// NEON and SWAR builds use the scalar body.
#[inline]
pub(crate) fn plain_bits(block: &[u8; 64]) -> u64 {
    body::plain_bits(block)
}

/// The bytes among the 16 at `i` that [`plain_ascii_end`] stops at, as a mask (bit
/// `k` for the byte at `i + k`); `None` when fewer than 16 bytes are left. For loops
/// that take each stop of a chunk in turn (the scanner's strings with escapes). SSE2
/// has it in one instruction; the NEON and SWAR builds use the scalar body.
#[inline]
pub(crate) fn plain_ascii_mask(b: &[u8], i: usize) -> Option<u32> {
    body::plain_ascii_mask(b, i)
}

/// The classes of the bytes of `block` ([`StringClasses`]); the non-ASCII bytes among
/// the other stops with `NON_ASCII`. For the scanner's strings with escapes, which
/// resolve the escapes of a block with bit operations (the caller takes the block from
/// the slice, and keeps it to read the bytes the masks point at); `NON_ASCII` false
/// where the string's UTF-8 is checked already. SSE2 has each class of 16 bytes in one
/// compare and one mask move; the NEON and SWAR builds use the scalar body.
#[inline]
pub(crate) fn string_classes<const NON_ASCII: bool>(block: &[u8; 64]) -> super::StringClasses {
    body::string_classes::<NON_ASCII>(block)
}

/// Where [`string_blocks_utf8`] stopped: the offset of the byte the step named, and
/// whether the bytes before it are UTF-8.
#[cfg(target_arch = "x86_64")]
pub(crate) use super::string_avx2::Stopped;

/// Where [`string_blocks_utf8`] stopped (see `string_avx2.rs`'s).
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stopped {
    pub(crate) at: usize,
    pub(crate) utf8: bool,
}

/// The blocks of `b` from `i`, 64 bytes at a time (the last bytes as one block padded
/// with zeros), each block's [`StringClasses`] (`other`: control characters only) handed
/// to `step(bytes, classes, offset)`, which says `Some(at)` to stop at offset `at` (in
/// the block, or the byte before it); and in the same pass the UTF-8 check of the bytes
/// from `i` to that stop. For
/// the scanner's long strings, whose UTF-8 is then not checked apart (no pass to find
/// their end first). On x86_64 where the CPU has AVX-512 F and BW (asked at run time,
/// `string_avx512.rs`, where the compiler has its intrinsics) or else AVX2
/// (`string_avx2.rs`); `None` elsewhere, where the scanner reads the string by
/// [`string_classes`] and [`is_utf8`].
#[inline(always)]
pub(crate) fn string_blocks_utf8<F>(b: &[u8], i: usize, step: F) -> Option<Stopped>
where
    F: FnMut(&[u8; 64], super::StringClasses, usize) -> Option<usize>,
{
    #[cfg(all(target_arch = "x86_64", jsonrpc_slice_avx512))]
    return super::string_avx512::string_blocks_widest(b, i, step, loop_choice::avx2_only());
    #[cfg(all(target_arch = "x86_64", not(jsonrpc_slice_avx512)))]
    return super::string_avx2::string_blocks(b, i, step);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (b, i, step);
        None
    }
}

/// The non-ASCII bytes of `block` (0x80 and above), as a mask (bit `k` for byte `k`):
/// for the scanner's blocks whose UTF-8 is checked already, where only control
/// characters still stop a string. SSE2 has 16 in one mask move; the NEON and SWAR
/// builds use the scalar body.
#[inline]
pub(crate) fn non_ascii_bits(block: &[u8; 64]) -> u64 {
    body::non_ascii_bits(block)
}

/// Copies the 16 bytes of `src` at `from` to `dst` at `to`; nothing where either has
/// fewer than 16 bytes there. The block loops of the decoder (`raw/unescape.rs`) and
/// the writer's escaping (`write/string_fast.rs`) copy each run this way within their
/// windows, their offsets masked into them so that no bounds are asked.
#[inline(always)]
pub(crate) fn copy16<const S: usize, const D: usize>(
    src: &[u8; S],
    from: usize,
    dst: &mut [u8; D],
    to: usize,
) {
    let chunk = src.get(from..).and_then(|r| r.first_chunk::<16>());
    let room = dst.get_mut(to..).and_then(|w| w.first_chunk_mut::<16>());
    if let (Some(chunk), Some(room)) = (chunk, room) {
        *room = *chunk;
    }
}

/// The bytes of a run of more than 16, `src[from..at]`, past its first 16 (which
/// [`copy16`] wrote), to `dst` at `to + 16`, 16 at a time: offsets in `src` masked to a
/// 64-byte block, in `dst` to `TO_MASK` (the caller's window).
#[cold]
#[inline(never)]
pub(crate) fn copy_long<const S: usize, const D: usize, const TO_MASK: usize>(
    src: &[u8; S],
    from: usize,
    at: usize,
    dst: &mut [u8; D],
    to: usize,
) {
    let mut k = 16;
    while k < at - from {
        copy16(src, (from + k) & 63, dst, (to + k) & TO_MASK);
        k += 16;
    }
}

/// Which one-pass loop the dispatch takes where the CPU has AVX-512: the widest there
/// is, always, outside the tests.
#[cfg(all(not(test), target_arch = "x86_64", jsonrpc_slice_avx512))]
mod loop_choice {
    /// Never: the tests alone ask for the AVX2 loop where AVX-512 is there.
    #[inline(always)]
    pub(super) fn avx2_only() -> bool {
        false
    }
}

/// Which one-pass loop the dispatch takes where the CPU has AVX-512: the widest there
/// is, unless a test asked this thread for the AVX2 one ([`with_avx2_only`]), so that
/// the tests pin both loops on such a CPU.
#[cfg(test)]
pub(crate) mod loop_choice {
    extern crate std;

    std::thread_local! {
        /// Whether this thread's scanner is to take the AVX2 one-pass loop where the
        /// CPU has AVX-512 too.
        static AVX2_ONLY: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
    }

    /// Whether this thread asked for the AVX2 one-pass loop ([`with_avx2_only`]).
    #[cfg_attr(
        not(all(target_arch = "x86_64", jsonrpc_slice_avx512)),
        allow(dead_code)
    )]
    pub(crate) fn avx2_only() -> bool {
        AVX2_ONLY.with(core::cell::Cell::get)
    }

    /// `f` run with the scanner's one-pass loop the AVX2 one (on this thread), where
    /// the CPU has AVX-512 and the dispatch would take that one.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_avx2_only<R>(f: impl FnOnce() -> R) -> R {
        AVX2_ONLY.with(|c| c.set(true));
        let r = f();
        AVX2_ONLY.with(|c| c.set(false));
        r
    }
}

#[cfg(test)]
mod tests {
    /// `is_utf8` (simdutf8 with `std` on the fast build) says what `core::str::from_utf8`
    /// says, and `utf8_str` gives its `&str`: on valid text of every width, at every length, and with each byte of it
    /// replaced by a byte that breaks or changes it.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "simdutf8's SIMD under Miri: slow, and not this crate's code"
    )]
    fn is_utf8_agrees_with_core() {
        let text =
            "plain, é, €, 😀, 東京, and more plain text: long enough for the wide checks".repeat(3);
        let text = text.as_bytes();
        let mut checked = 0;
        for len in 0..text.len() {
            let cut = &text[..len];
            assert_eq!(
                super::is_utf8(cut),
                core::str::from_utf8(cut).is_ok(),
                "{cut:02x?}"
            );
            assert_eq!(super::utf8_str(cut), core::str::from_utf8(cut).ok());
            checked += 1;
        }
        for at in 0..text.len() {
            for with in [0x80u8, 0xC0, 0xED, 0xF4, 0xFF, b'a', 0xBF] {
                let mut b = text.to_vec();
                b[at] = with;
                assert_eq!(
                    super::is_utf8(&b),
                    core::str::from_utf8(&b).is_ok(),
                    "{at} {with:02x}"
                );
                assert_eq!(super::utf8_str(&b), core::str::from_utf8(&b).ok());
                checked += 1;
            }
        }
        assert!(checked > 1000);
    }
}
