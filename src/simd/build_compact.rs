//! The compact build's choices among the bodies: the scalar ones (one byte at a time,
//! the smallest code), `core`'s UTF-8 check, and one copy of every job.

use super::Job;

/// The body this build uses.
pub(super) use super::scalar as body;

/// Whether `b` is UTF-8 (strict), by `core::str::from_utf8`. Only the verdict.
#[inline]
pub(crate) fn is_utf8(b: &[u8]) -> bool {
    core::str::from_utf8(b).is_ok()
}

/// Runs the job `J` out of line, in the one copy for the build's target.
#[inline(always)]
pub(crate) fn widest<J: Job>(b: &[u8], i: usize, max_depth: u16, level: usize) -> J::Out {
    super::built::<J>(b, i, max_depth, level)
}

/// Whether [`widest`] runs AVX2 copies: never on this build.
#[cfg(test)]
pub(crate) fn is_wide() -> bool {
    false
}
