//! A string's 64-byte blocks in one pass where an x86_64 CPU has AVX2 (asked at run
//! time, as `lookup.rs` asks): the classes the scanner's block loop reads
//! ([`StringClasses`], two vectors of 32 bytes a class) and the UTF-8 check of the
//! same bytes by `lookup.rs`'s nibble lookups, the check's state carried from block to
//! block. The scanner's own step (its escapes, `scan/string_fast.rs`) runs on each
//! block's classes inside this loop, and says where the string's content stops
//! (its closing quote, a control character, an escape it hands to the general rules):
//! the bytes before that stop are the last ones checked as UTF-8. So a string is read
//! once, where checking its UTF-8 apart first needs its end found by another pass.
//!
//! Why here and not in `sse2.rs`: the fast build has no target-cpu flags (SSE2 only at
//! compile time), and the lookups need AVX2's byte shuffles within 32 bytes; with
//! SSE2 alone the scanner keeps its SSE2 loop. Under Miri [`string_blocks`] says
//! `None` (no AVX2), and that loop runs.
//!
//! The unit tests (`simd/tests.rs`) pin the classes to the scalar body's and the
//! verdict to `core::str::from_utf8` of the bytes before the stop; the `simd` fuzz
//! target does too.
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
    _mm256_min_epu8, _mm256_movemask_epi8, _mm256_set1_epi8, _mm256_setr_epi8,
};

use super::lookup::{self, State, Tables};
use super::StringClasses;

/// Where [`string_blocks`] stopped: whether the bytes from the start up to the offset
/// the step named (up to the start of its block, when it is before) are UTF-8, ending
/// where a character ends, and where they are, `at`, that offset (at most `b.len()`).
/// Where they are not, `at` is only where the loop stopped reading (at most
/// `b.len()`): the end of the first block with an error, or the step's offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stopped {
    pub(crate) at: usize,
    pub(crate) utf8: bool,
}

/// The blocks of `b` from `i`, 64 bytes at a time (the last bytes as one block padded
/// with zeros, which are control characters; from `b.len()` when `i` is past it): for
/// each, `step(bytes, classes, offset)` (`classes.other`: the control characters
/// only), which says `Some(at)` to stop at offset `at` of `b` (in its block, or the
/// byte before it: the backslash of an escape whose letter starts the block); then
/// whether the bytes from `i` to that stop are UTF-8. `None` where the CPU has no AVX2
/// (the caller reads the string another way). A step that never stops is stopped at
/// the end of `b`. Where the compiler has AVX-512's intrinsics the scanner enters by
/// `string_avx512::string_blocks_widest` instead, and only the tests call this.
#[cfg_attr(all(jsonrpc_slice_avx512, not(any(test, fuzzing))), allow(dead_code))]
#[inline]
pub(crate) fn string_blocks<F>(b: &[u8], i: usize, step: F) -> Option<Stopped>
where
    F: FnMut(&[u8; 64], StringClasses, usize) -> Option<usize>,
{
    if !lookup::available() {
        return None;
    }
    // SAFETY: `blocks` only needs AVX2 (its `target_feature`), which `available` has
    // found the CPU runs and the system saves; it reads `b` through the safe slice API
    // and loads through `&[u8; 64]` references only.
    Some(unsafe { blocks(b, i, step) })
}

/// The two vectors of a 64-byte block.
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load(block: &[u8; 64]) -> (__m256i, __m256i) {
    let p = block.as_ptr();
    // SAFETY: two 32-byte unaligned reads at offsets 0 and 32 of a `&[u8; 64]`: the
    // second ends at byte 64, so both are in bounds and initialised. AVX2 is enabled
    // (this function's `target_feature`).
    unsafe {
        (
            _mm256_loadu_si256(p.cast::<__m256i>()),
            _mm256_loadu_si256(p.add(32).cast::<__m256i>()),
        )
    }
}

/// One bit per byte of the two comparison results (bit `k` for byte `k` of the block).
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn bits(low: __m256i, high: __m256i) -> u64 {
    let low = _mm256_movemask_epi8(low) as u32;
    let high = _mm256_movemask_epi8(high) as u32;
    u64::from(low) | u64::from(high) << 32
}

/// The offsets of the bytes of a vector, for [`before`].
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn offsets() -> __m256i {
    _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31,
    )
}

/// `low` and `high` with the bytes from `k` on (0 to 64) set to zero: the stop's block
/// as far as the string goes, for the UTF-8 check (zero is ASCII, so a character the
/// stop cuts stays open after it, an error).
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn before(low: __m256i, high: __m256i, k: usize) -> (__m256i, __m256i) {
    let k = k.min(64) as i8;
    let offsets = offsets();
    // Signed compares: the offsets (0 to 31) and `k` (0 to 64) are all below 0x80.
    let keep_low = _mm256_cmpgt_epi8(_mm256_set1_epi8(k), offsets);
    let keep_high = _mm256_cmpgt_epi8(_mm256_set1_epi8(k - 32), offsets);
    (
        _mm256_and_si256(low, keep_low),
        _mm256_and_si256(high, keep_high),
    )
}

/// The classes of the block `low`, `high`: `"` and `\\` by equality, the control
/// characters by the unsigned `x <= 0x1F` (`min(x, 0x1F) == x`), two mask moves each.
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn classes(low: __m256i, high: __m256i) -> StringClasses {
    let quote = _mm256_set1_epi8(b'"' as i8);
    let backslash = _mm256_set1_epi8(b'\\' as i8);
    let control = _mm256_set1_epi8(0x1F);
    StringClasses {
        quote: bits(
            _mm256_cmpeq_epi8(low, quote),
            _mm256_cmpeq_epi8(high, quote),
        ),
        backslash: bits(
            _mm256_cmpeq_epi8(low, backslash),
            _mm256_cmpeq_epi8(high, backslash),
        ),
        other: bits(
            _mm256_cmpeq_epi8(_mm256_min_epu8(low, control), low),
            _mm256_cmpeq_epi8(_mm256_min_epu8(high, control), high),
        ),
    }
}

/// The loop of [`string_blocks`] (and of `string_avx512::string_blocks_widest`, which
/// asks the CPU itself).
///
/// # Safety
///
/// The CPU must run AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn blocks<F>(b: &[u8], i: usize, mut step: F) -> Stopped
where
    F: FnMut(&[u8; 64], StringClasses, usize) -> Option<usize>,
{
    let t = Tables::new();
    let mut state = State::new();
    // (An offset past the end reads no block but the empty last one.)
    let start = i.min(b.len());
    let mut blocks = b.get(start..).unwrap_or(&[]).chunks_exact(64);
    let mut at = start;
    for block in &mut blocks {
        let Ok(block) = <&[u8; 64]>::try_from(block) else {
            break;
        };
        let (low, high) = load(block);
        if let Some(stop) = step(block, classes(low, high), at) {
            let (low, high) = before(low, high, stop.saturating_sub(at));
            lookup::vectors_rule(&t, low, high, &mut state);
            return Stopped {
                at: stop.min(b.len()),
                utf8: state.is_utf8(&t),
            };
        }
        // A block with an error ends the loop: the verdict is no (the caller then
        // reads the string from `i` again to name the error), whatever the step would
        // say of the blocks after it. Asked here rather than or-ed into a vector kept
        // across the loop, which has no vector register to spare.
        if !lookup::none(lookup::block_errors(&t, low, high, &mut state)) {
            return Stopped {
                at: at + 64,
                utf8: false,
            };
        }
        at += 64;
    }
    // The last bytes (fewer than 64), padded with zeros.
    let rest = blocks.remainder();
    let last = super::padded(rest);
    let (low, high) = load(&last);
    let stop = step(&last, classes(low, high), at).unwrap_or(b.len());
    let (low, high) = before(low, high, stop.saturating_sub(at));
    lookup::vectors_rule(&t, low, high, &mut state);
    Stopped {
        at: stop.min(b.len()),
        utf8: state.is_utf8(&t),
    }
}

/// A one-pass loop (this file's [`string_blocks`] or `string_avx512.rs`'s), its step
/// a trait object so that one check takes either.
#[cfg(any(test, fuzzing))]
type Loop = fn(
    &[u8],
    usize,
    &mut dyn FnMut(&[u8; 64], StringClasses, usize) -> Option<usize>,
) -> Option<Stopped>;

/// The one-pass loops with a step that stops at byte `stop` of the input
/// (in the first block when `stop` is before `i`; never, when it is past the last
/// block): every block the step is given is the input's from its offset (padded with
/// zeros after the end), its classes the scalar body's (`string_classes::<false>`:
/// control characters only among the other stops), and the loop stops there with the
/// verdict of `core::str::from_utf8` on the bytes from `i` to the stop (or, where that
/// is no, may stop at the first block with an error). Each loop the CPU runs: this
/// file's where it has AVX2, `string_avx512.rs`'s where it has AVX-512 (and the
/// compiler its intrinsics). For the unit tests (`simd/tests.rs`) and the `simd`
/// fuzz target.
#[cfg(any(test, fuzzing))]
#[cfg_attr(miri, allow(dead_code))]
pub(crate) fn agrees(b: &[u8], i: usize, stop: usize) {
    agrees_by("avx2", |b, i, step| string_blocks(b, i, step), b, i, stop);
    #[cfg(jsonrpc_slice_avx512)]
    agrees_by(
        "avx512",
        |b, i, step| super::string_avx512::string_blocks(b, i, step),
        b,
        i,
        stop,
    );
}

/// [`agrees`] for one loop, `run`, named `name` in the messages.
#[cfg(any(test, fuzzing))]
#[cfg_attr(miri, allow(dead_code))]
fn agrees_by(name: &str, run: Loop, b: &[u8], i: usize, stop: usize) {
    let mut blocks = 0;
    let got = run(b, i, &mut |bytes, classes, at| {
        assert_eq!(
            at,
            i.min(b.len()) + 64 * blocks,
            "{name}: offset of block {blocks}"
        );
        blocks += 1;
        let mut want = [0u8; 64];
        let from = b.get(at..).unwrap_or(&[]);
        let n = from.len().min(64);
        want[..n].copy_from_slice(&from[..n]);
        assert_eq!(bytes, &want, "{name}: the bytes of the block at {at}");
        assert_eq!(
            classes,
            super::scalar::string_classes::<false>(bytes),
            "{name}: the classes of {bytes:02x?}"
        );
        (stop < at + 64).then_some(stop)
    });
    // (`at + 64` above: `at` is at most the length of a slice, 64 more is no overflow.)
    let Some(got) = got else {
        return;
    };
    let len = b.len();
    // Where the verdict is no, the loop may stop at the first block with an error,
    // before the step's stop.
    if got.utf8 {
        assert_eq!(
            got.at,
            stop.min(len),
            "{name}: the stop of {b:02x?} from {i} at {stop}"
        );
    }
    assert!(
        got.at <= len,
        "{name}: past the end: {b:02x?} from {i} at {stop}"
    );
    let start = i.min(len);
    assert_eq!(
        got.utf8,
        core::str::from_utf8(&b[start..stop.max(start).min(len)]).is_ok(),
        "{name}: the verdict on {b:02x?} from {i} to {stop}"
    );
}
