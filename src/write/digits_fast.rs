//! The fast build's integer digits: the small numbers and the reserved error codes
//! without the loop, the rest made in an array and pushed once.

use super::super::{ResultWriter, WriteError};

impl ResultWriter<'_> {
    /// An unsigned integer's digits, all or nothing (no value structure: see
    /// [`u64`](Self::u64) for that).
    #[inline]
    pub(crate) fn u64_digits(&mut self, v: u64) -> Result<(), WriteError> {
        self.digits(false, v)
    }

    /// A signed integer's digits, all or nothing.
    #[inline]
    pub(crate) fn i64_digits(&mut self, v: i64) -> Result<(), WriteError> {
        self.digits(v < 0, v.unsigned_abs())
    }

    /// An error code's digits, all or nothing: the reserved codes (-32768..-32000)
    /// and their like without the loop.
    #[inline]
    pub(in crate::write) fn code_digits(&mut self, code: i32) -> Result<(), WriteError> {
        if (-99_999..=-10_000).contains(&code) {
            return self.five_digit_code(code);
        }
        self.i64_digits(i64::from(code))
    }
}
