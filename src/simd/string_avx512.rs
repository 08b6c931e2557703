//! The one-pass string loop of `string_avx2.rs` on one 64-byte vector a block, where
//! an x86_64 CPU has AVX-512 (F and BW, asked at run time, once): each class of a block
//! is one compare straight into a mask register (the `u64` the step reads, no mask
//! moves), and `lookup.rs`'s UTF-8 rule runs on one vector instead of two. The AVX2
//! loop is short of its sixteen vector registers; this one has thirty-two, and about
//! half the vector instructions a block.
//!
//! The rule is the same (`lookup.rs` has it, and its tables): only the bytes before
//! each byte change. Their byte shift (`vpalignr`) still works within each 16-byte
//! lane, so each lane's bytes before come from `seam`: the last lane of the block
//! before, then the first three lanes of this one (one `valignq`).
//!
//! Compiled only where the compiler has the AVX-512 intrinsics (Rust 1.89 and up:
//! `build.rs` sets `jsonrpc_slice_avx512`); elsewhere, and where the CPU lacks
//! AVX-512, the AVX2 loop runs (`build_fast.rs` picks). Under Miri [`string_blocks`]
//! says `None`.
//!
//! The unit tests (`simd/tests.rs`, through `string_avx2::agrees`) pin its classes to
//! the scalar body's and its verdict to `core::str::from_utf8` of the bytes before the
//! stop; the `simd` fuzz target does too.
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m512i, _mm512_alignr_epi64, _mm512_alignr_epi8, _mm512_and_si512, _mm512_cmpeq_epi8_mask,
    _mm512_cmple_epu8_mask, _mm512_loadu_si512, _mm512_maskz_mov_epi8, _mm512_movepi8_mask,
    _mm512_or_si512, _mm512_set1_epi8, _mm512_setzero_si512, _mm512_shuffle_epi8,
    _mm512_srli_epi16, _mm512_subs_epu8, _mm512_test_epi8_mask, _mm512_xor_si512,
};

use super::lookup::{BEFORE_HIGH, BEFORE_LOW, HIGH, TWO_CONTS};
use super::string_avx2::Stopped;
use super::StringClasses;

/// [`string_avx2::string_blocks`](super::string_avx2::string_blocks), the same
/// contract, on 64-byte vectors: `None` where the CPU has no AVX-512 F and BW (the
/// caller then tries the AVX2 loop). The scanner takes [`string_blocks_widest`]; the
/// tests and the fuzz target this.
#[cfg_attr(not(any(test, fuzzing)), allow(dead_code))]
#[inline]
pub(crate) fn string_blocks<F>(b: &[u8], i: usize, step: F) -> Option<Stopped>
where
    F: FnMut(&[u8; 64], StringClasses, usize) -> Option<usize>,
{
    if !available() {
        return None;
    }
    // SAFETY: `blocks` only needs AVX-512 F and BW (its `target_feature`), which
    // `available` has found the CPU runs and the system saves; it reads `b` through
    // the safe slice API and loads through `&[u8; 64]` references only.
    Some(unsafe { blocks(b, i, step) })
}

/// The widest one-pass loop the CPU runs, from [`widest`]: none.
const NONE: u8 = 1;
/// AVX2 (`string_avx2.rs`).
const AVX2: u8 = 2;
/// AVX-512 F and BW (this file's).
const AVX512: u8 = 3;

/// The widest one-pass loop over `b` from `i` the CPU runs, this file's or
/// `string_avx2.rs`'s (that one where `avx2_only`, for the tests that pin both); `None`
/// where it runs neither. The CPU asked once for both ([`widest`]), so that the AVX2
/// loop costs what it cost before this one was there: the instruction counts, taken
/// under valgrind, whose CPU has no AVX-512, stay comparable.
// The compact build's tests compile this file for its unit tests, not its scanner.
#[cfg_attr(not(jsonrpc_slice_fast), allow(dead_code))]
#[inline(always)]
pub(crate) fn string_blocks_widest<F>(
    b: &[u8],
    i: usize,
    step: F,
    avx2_only: bool,
) -> Option<Stopped>
where
    F: FnMut(&[u8; 64], StringClasses, usize) -> Option<usize>,
{
    let widest = widest();
    if widest == AVX2 || (widest == AVX512 && avx2_only) {
        // SAFETY: `blocks` of `string_avx2.rs` only needs AVX2, which `widest` has
        // found the CPU runs and the system saves (AVX-512 implies it: `detect`); it
        // reads `b` through the safe slice API and loads through `&[u8; 64]` only.
        return Some(unsafe { super::string_avx2::blocks(b, i, step) });
    }
    if widest == AVX512 {
        // SAFETY: as in `string_blocks`: `widest` found AVX-512 F and BW.
        return Some(unsafe { blocks(b, i, step) });
    }
    None
}

/// Whether the CPU runs AVX-512 F and BW (and the system saves its state).
#[inline(always)]
pub(crate) fn available() -> bool {
    widest() == AVX512
}

/// The widest one-pass loop the CPU runs, under Miri: none (Miri interprets no
/// `cpuid`, and refuses a call into code that needs a feature the build does not
/// enable).
#[cfg(miri)]
#[inline(always)]
fn widest() -> u8 {
    NONE
}

/// The widest one-pass loop the CPU runs, asked once and kept as `lookup::available`
/// keeps its answer (0 while unknown): `cpuid` is slow, and exits a virtual machine.
#[cfg(not(miri))]
#[inline(always)]
fn widest() -> u8 {
    use core::sync::atomic::{AtomicU8, Ordering::Relaxed};
    static KNOWN: AtomicU8 = AtomicU8::new(0);
    match KNOWN.load(Relaxed) {
        0 => {
            let widest = if detect() {
                AVX512
            } else if super::lookup::available() {
                AVX2
            } else {
                NONE
            };
            KNOWN.store(widest, Relaxed);
            widest
        }
        known => known,
    }
}

/// AVX-512 F and BW are bits 16 and 30 of `ebx` in `cpuid` leaf 7 (AVX2 bit 5), usable only where
/// the system saves the 512-bit state on a switch: leaf 1 says it manages it
/// (`OSXSAVE`, bit 27 of `ecx`) and `xgetbv` that it saves the SSE and AVX state and
/// the three AVX-512 parts, the mask registers, the upper halves of the first sixteen
/// vectors and the other sixteen (bits 1, 2, 5, 6 and 7 of XCR0).
#[cfg(not(miri))]
#[cold]
fn detect() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // `__cpuid` is an `unsafe fn` on older compilers and safe on newer ones.
    // SAFETY: every x86_64 CPU has `cpuid` with leaves 0 and 1; leaf 7 is asked only
    // where leaf 0 says it exists. The instruction only writes the four registers the
    // intrinsics return.
    #[allow(unused_unsafe)]
    let (leaf1, leaf7) = unsafe {
        let top = __cpuid(0).eax;
        let leaf7 = if top >= 7 { __cpuid_count(7, 0).ebx } else { 0 };
        (__cpuid(1).ecx, leaf7)
    };
    let osxsave = leaf1 & (1 << 27) != 0;
    const STATE: u64 = 0b1110_0110;
    // SAFETY: `xgetbv` faults unless the system set CR4.OSXSAVE, which leaf 1's bit 27
    // reports: it runs only where that bit is set. `xcr0` needs the XSAVE extension,
    // which OSXSAVE implies.
    let saves_zmm = osxsave && unsafe { xcr0() } & STATE == STATE;
    // AVX2 (bit 5) too: every CPU with AVX-512 has it, and `string_blocks_widest`
    // relies on it for the tests' AVX2 loop.
    const FEATURES: u32 = 1 << 5 | 1 << 16 | 1 << 30;
    leaf7 & FEATURES == FEATURES && saves_zmm
}

/// The XCR0 register: the state components the system saves.
///
/// # Safety
///
/// The system must have set CR4.OSXSAVE (`cpuid` leaf 1, bit 27 of `ecx`).
#[cfg(not(miri))]
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    core::arch::x86_64::_xgetbv(0)
}

/// 64 bytes as a vector.
///
/// # Safety
///
/// The CPU must run AVX-512 F and BW (as for every function of this file with its
/// `target_feature`: only [`string_blocks`] calls in, after [`available`]).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn load(block: &[u8; 64]) -> __m512i {
    // SAFETY: one 64-byte unaligned read of a `&[u8; 64]`: in bounds and initialised.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast()) }
}

/// A 16-entry table in each 16-byte lane, for `vpshufb` (which looks up within each).
///
/// # Safety
///
/// The CPU must run AVX-512 F and BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn table(t: [u8; 16]) -> __m512i {
    let mut four = [0u8; 64];
    for (k, x) in four.iter_mut().enumerate() {
        *x = t[k % 16];
    }
    load(&four)
}

/// The constants of the rule (`lookup.rs`'s `Tables`, 64 bytes wide), made once per
/// call and kept in registers by the loop.
#[derive(Clone, Copy)]
struct Tables {
    before_high: __m512i,
    before_low: __m512i,
    high: __m512i,
    nibble: __m512i,
    /// Subtracted with saturation from the byte two before: 0x80 or more exactly where
    /// it is a lead of three bytes or more.
    third: __m512i,
    /// The same from the byte three before: a lead of four.
    fourth: __m512i,
    /// Subtracted with saturation from the last block: not zero where a lead among its
    /// last three bytes still expects bytes after it.
    open: __m512i,
}

impl Tables {
    /// The tables and constants.
    ///
    /// # Safety
    ///
    /// The CPU must run AVX-512 F and BW.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn new() -> Tables {
        let mut max = [0xFFu8; 64];
        max[61] = 0xF0 - 1;
        max[62] = 0xE0 - 1;
        max[63] = 0xC0 - 1;
        Tables {
            before_high: table(BEFORE_HIGH),
            before_low: table(BEFORE_LOW),
            high: table(HIGH),
            nibble: _mm512_set1_epi8(0x0F),
            third: _mm512_set1_epi8((0xE0u8 - 0x80) as i8),
            fourth: _mm512_set1_epi8((0xF0u8 - 0x80) as i8),
            open: load(&max),
        }
    }
}

/// The errors of the rule on the block `x`, `before` the last block that was not ASCII
/// (or zeros): a byte each, zero where there are none (`lookup.rs`'s `vector_errors`).
///
/// # Safety
///
/// The CPU must run AVX-512 F and BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn errors(t: &Tables, x: __m512i, before: __m512i) -> __m512i {
    // Each lane's lane before: the last of `before`, then the first three of `x`.
    let seam = _mm512_alignr_epi64::<6>(x, before);
    let must = _mm512_or_si512(
        _mm512_subs_epu8(_mm512_alignr_epi8::<14>(x, seam), t.third),
        _mm512_subs_epu8(_mm512_alignr_epi8::<13>(x, seam), t.fourth),
    );
    let must = _mm512_and_si512(must, _mm512_set1_epi8(TWO_CONTS as i8));
    let prev1 = _mm512_alignr_epi8::<15>(x, seam);
    let high_before = _mm512_and_si512(_mm512_srli_epi16::<4>(prev1), t.nibble);
    let low_before = _mm512_and_si512(prev1, t.nibble);
    let high = _mm512_and_si512(_mm512_srli_epi16::<4>(x), t.nibble);
    let kinds = _mm512_and_si512(
        _mm512_and_si512(
            _mm512_shuffle_epi8(t.before_high, high_before),
            _mm512_shuffle_epi8(t.before_low, low_before),
        ),
        _mm512_shuffle_epi8(t.high, high),
    );
    _mm512_xor_si512(kinds, must)
}

/// The errors of the block `x` (an ASCII block: only a character the last non-ASCII
/// block left open, as in `lookup.rs`'s `block_errors`), `before` moved on to `x`
/// where it is not ASCII.
///
/// # Safety
///
/// The CPU must run AVX-512 F and BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn block_errors(t: &Tables, x: __m512i, before: &mut __m512i) -> __m512i {
    if _mm512_movepi8_mask(x) == 0 {
        return _mm512_subs_epu8(*before, t.open);
    }
    let e = errors(t, x, *before);
    *before = x;
    e
}

/// The classes of the block `x`: `"` and `\\` by equality, the control characters by
/// the unsigned `x <= 0x1F`, each one compare into a mask.
///
/// # Safety
///
/// The CPU must run AVX-512 F and BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn classes(x: __m512i) -> StringClasses {
    StringClasses {
        quote: _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(b'"' as i8)),
        backslash: _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(b'\\' as i8)),
        other: _mm512_cmple_epu8_mask(x, _mm512_set1_epi8(0x1F)),
    }
}

/// Whether the bytes checked are UTF-8, given the errors found before the last block,
/// that block's, and the last non-ASCII block (a character it leaves open is an error).
///
/// # Safety
///
/// The CPU must run AVX-512 F and BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn verdict(t: &Tables, errors: __m512i, before: __m512i) -> bool {
    let all = _mm512_or_si512(errors, _mm512_subs_epu8(before, t.open));
    _mm512_test_epi8_mask(all, all) == 0
}

/// The stop's block, `x`, checked up to byte `k` of it (0 to 64 and more: the bytes
/// from `k` on zeros, ASCII, so a character the stop cuts stays open, an error); the
/// verdict on all bytes read.
///
/// # Safety
///
/// The CPU must run AVX-512 F and BW.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn last(t: &Tables, x: __m512i, k: usize, mut before: __m512i) -> bool {
    let keep = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    let x = _mm512_maskz_mov_epi8(keep, x);
    let e = block_errors(t, x, &mut before);
    verdict(t, e, before)
}

/// The loop of [`string_blocks`] (`string_avx2.rs`'s, on one vector a block).
///
/// # Safety
///
/// The CPU must run AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn blocks<F>(b: &[u8], i: usize, mut step: F) -> Stopped
where
    F: FnMut(&[u8; 64], StringClasses, usize) -> Option<usize>,
{
    let t = Tables::new();
    let mut before = _mm512_setzero_si512();
    let start = i.min(b.len());
    let mut blocks = b.get(start..).unwrap_or(&[]).chunks_exact(64);
    let mut at = start;
    for block in &mut blocks {
        let Ok(block) = <&[u8; 64]>::try_from(block) else {
            break;
        };
        let x = load(block);
        if let Some(stop) = step(block, classes(x), at) {
            return Stopped {
                at: stop.min(b.len()),
                utf8: last(&t, x, stop.saturating_sub(at), before),
            };
        }
        // A block with an error ends the loop with the verdict no, as in the AVX2
        // loop: no vector of errors is kept across blocks.
        let e = block_errors(&t, x, &mut before);
        if _mm512_test_epi8_mask(e, e) != 0 {
            return Stopped {
                at: at + 64,
                utf8: false,
            };
        }
        at += 64;
    }
    // The last bytes (fewer than 64), padded with zeros.
    let rest = blocks.remainder();
    let tail = super::padded(rest);
    let x = load(&tail);
    let stop = step(&tail, classes(x), at).unwrap_or(b.len());
    Stopped {
        at: stop.min(b.len()),
        utf8: last(&t, x, stop.saturating_sub(at), before),
    }
}
