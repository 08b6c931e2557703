//! The compact build's escaping of strings: no blocks (the smaller code, for flash);
//! `string.rs` writes all of it run by run.

use super::ResultWriter;

impl ResultWriter<'_> {
    /// What the fast build's blocks write of `b` (`string_fast.rs`): nothing. How many
    /// bytes of `b` were written, and where the run being written starts.
    #[inline(always)]
    pub(super) fn escaped_blocks(&mut self, _b: &[u8]) -> (usize, usize) {
        (0, self.len)
    }

    /// What the fast build drops of a run its blocks began and the run loop could not
    /// finish: here, no block wrote any of it.
    #[inline(always)]
    pub(super) fn drop_blocks_run(&mut self, _run_start: usize) {}
}
