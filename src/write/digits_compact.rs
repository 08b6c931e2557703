//! The compact build's integer digits: one loop for every number, written in place
//! (no scratch array, one copy of the code for both signs).

use super::super::{ResultWriter, WriteError};

impl ResultWriter<'_> {
    /// An unsigned integer's digits, all or nothing (no value structure: see
    /// [`u64`](Self::u64) for that).
    #[inline]
    pub(crate) fn u64_digits(&mut self, v: u64) -> Result<(), WriteError> {
        self.digits_in_place(false, v)
    }

    /// A signed integer's digits, all or nothing.
    #[inline]
    pub(crate) fn i64_digits(&mut self, v: i64) -> Result<(), WriteError> {
        self.digits_in_place(v < 0, v.unsigned_abs())
    }

    /// An error code's digits, all or nothing.
    #[inline]
    pub(in crate::write) fn code_digits(&mut self, code: i32) -> Result<(), WriteError> {
        self.i64_digits(i64::from(code))
    }
}
