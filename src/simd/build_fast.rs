//! The fast build's choices among the bodies: the widest body the target has for the
//! runs and masks, simdutf8 for UTF-8 with `std`, and on x86_64 with `std` the word
//! walk's second copy for AVX2, picked at run time (`wide.rs`).

use super::Job;

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

/// With `std` on x86_64: the AVX2 copy and the run-time check that picks it (detection
/// needs `std`).
#[cfg(all(feature = "std", target_arch = "x86_64", target_feature = "sse2"))]
#[path = "wide.rs"]
mod wide;

/// Whether `b` is UTF-8 (strict, as `core::str::from_utf8` has it). With the `std`
/// feature, simdutf8's SIMD check, the widest the CPU has (detected at run time);
/// otherwise `core::str::from_utf8`, a word at a time over ASCII. Only the verdict:
/// where an error is, `core` says (the scanner asks it on the cold path).
#[inline]
pub(crate) fn is_utf8(b: &[u8]) -> bool {
    #[cfg(feature = "std")]
    return simdutf8::basic::from_utf8(b).is_ok();
    #[cfg(not(feature = "std"))]
    return core::str::from_utf8(b).is_ok();
}

/// Runs the job `J` out of line, in the widest copy this CPU can run: on x86_64 with
/// `std`, a copy compiled for AVX2 (with BMI1 and BMI2) when the CPU has them, asked
/// once at run time (`wide.rs`); elsewhere the one copy for the build's target.
#[inline(always)]
pub(crate) fn widest<J: Job>(b: &[u8], i: usize, max_depth: u16, level: usize) -> J::Out {
    #[cfg(all(feature = "std", target_arch = "x86_64", target_feature = "sse2"))]
    return wide::run::<J>(b, i, max_depth, level);
    #[cfg(not(all(feature = "std", target_arch = "x86_64", target_feature = "sse2")))]
    return super::built::<J>(b, i, max_depth, level);
}

/// Whether [`widest`] runs AVX2 copies on this CPU.
#[cfg(test)]
pub(crate) fn is_wide() -> bool {
    #[cfg(all(feature = "std", target_arch = "x86_64", target_feature = "sse2"))]
    return wide::is_wide();
    #[cfg(not(all(feature = "std", target_arch = "x86_64", target_feature = "sse2")))]
    return false;
}
