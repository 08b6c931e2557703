//! Run-time dispatch to AVX2 (x86_64, with `std`): a [`Job`] compiled twice, for the
//! build's target (SSE2) and for AVX2 with BMI1 and BMI2, and run in the second copy
//! when the CPU has them. The source is the same: the SSE2 intrinsics of `sse2.rs` are
//! encoded with VEX there (three operands: no register copies before each compare),
//! and the scalar code gets BMI's shifts and bit scans. Detection needs `std`, so the
//! `no_std` builds (the firmware among them) run the one copy they are built for.
#![allow(unsafe_code)]

use core::sync::atomic::{AtomicU8, Ordering};

use crate::simd::Job;

/// What the CPU was found to have: 0 before the first job, then [`NARROW`] or [`WIDE`].
static FOUND: AtomicU8 = AtomicU8::new(0);
const NARROW: u8 = 1;
const WIDE: u8 = 2;

/// Runs the job `J` in its AVX2 copy when the CPU has AVX2, BMI1 and BMI2, otherwise in
/// its copy for the build's target. The CPU is asked once; after that a job costs one
/// load and one compare more than a call.
#[inline(always)]
pub(crate) fn run<J: Job>(b: &[u8], i: usize, max_depth: u16, level: usize) -> J::Out {
    if is_wide() {
        // SAFETY: `avx2` is compiled for AVX2, BMI1 and BMI2, and `detect` found all
        // three on this CPU (`FOUND` is `WIDE` only then).
        unsafe { avx2::<J>(b, i, max_depth, level) }
    } else {
        crate::simd::built::<J>(b, i, max_depth, level)
    }
}

/// Whether this CPU has AVX2, BMI1 and BMI2: the common case first, one load and one
/// compare once [`detect`] has asked.
#[inline(always)]
pub(crate) fn is_wide() -> bool {
    FOUND.load(Ordering::Relaxed) == WIDE
        || (FOUND.load(Ordering::Relaxed) == 0 && detect() == WIDE)
}

/// Asks the CPU, and keeps the answer in [`FOUND`].
#[cold]
#[inline(never)]
fn detect() -> u8 {
    let found = if std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
    {
        WIDE
    } else {
        NARROW
    };
    FOUND.store(found, Ordering::Relaxed);
    found
}

/// The job `J`'s copy for AVX2: [`Job::run`] is `#[inline(always)]`, so its code and
/// what it inlines are compiled here, with these features.
#[target_feature(enable = "avx2,bmi1,bmi2")]
#[inline(never)]
unsafe fn avx2<J: Job>(b: &[u8], i: usize, max_depth: u16, level: usize) -> J::Out {
    J::run(b, i, max_depth, level)
}
