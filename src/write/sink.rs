//! The byte sink: every byte of a reply goes through here, with the room and
//! rollback checks. Each build has its copy, in one file (`copy_fast.rs`: one write,
//! `push_parts`, which every form of `push` is, with its small-copy and `memcpy` paths;
//! `copy_compact.rs`: one byte loop, `copy`, here). Also the copy of raw JSON values,
//! which drops their line breaks.

use super::{ResultWriter, WriteError};

impl ResultWriter<'_> {
    /// [`push`](Self::push) in the compact build: one copy of the code, called from
    /// every site, and a byte loop instead of `memcpy` (0.7 KiB of flash on a
    /// Cortex-M, which the compact build then links no more). Nothing is written
    /// unless all of it fits.
    #[inline(never)]
    pub(super) fn push_any(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.copy(bytes, false)
    }

    /// The byte loop of the compact build: `bytes`, without their line breaks if
    /// `drop_line_breaks` (what [`json`](Self::json) asks), all or nothing.
    #[inline(never)]
    pub(super) fn copy(&mut self, bytes: &[u8], drop_line_breaks: bool) -> Result<(), WriteError> {
        if !self.live {
            return Ok(());
        }
        let start = self.len;
        for &b in bytes {
            if drop_line_breaks && (b == b'\n' || b == b'\r') {
                continue;
            }
            match self.buf.get_mut(self.len) {
                Some(d) if self.len < self.end => {
                    *d = b;
                    self.len += 1;
                }
                _ => {
                    self.len = start;
                    self.full = true;
                    return Err(WriteError::BufferFull);
                }
            }
        }
        Ok(())
    }

    /// [`push_byte`](Self::push_byte) in the compact build: the byte goes in a
    /// register, and the one copy of this function makes it the slice `push_any`
    /// takes.
    #[inline(never)]
    pub(super) fn push_one(&mut self, b: u8) -> Result<(), WriteError> {
        self.push_any(&[b])
    }

    /// A checkpoint: the current length.
    #[inline]
    pub(crate) fn mark(&self) -> usize {
        self.len
    }

    /// Drops everything written after `mark` and clears the full flag. The bytes
    /// dropped are taken off the allowance, and `end` comes down to it if needed.
    /// (The build's `rollback`.)
    #[inline(always)]
    pub(super) fn drop_after(&mut self, mark: usize) {
        let keep = mark.min(self.len);
        self.allowance = self.allowance.saturating_sub(self.len - keep);
        self.end = self.end.min(self.allowance);
        self.len = keep;
        self.full = false;
    }

    /// Sets the work budget: from now on, the bytes kept plus the bytes rolled back
    /// reach at most `bytes` (counted from the start of the buffer), because each
    /// rollback lowers `end` by what it drops. `usize::MAX` lifts it. The caller sets
    /// `end` no higher than `bytes` (see `Server::batch`).
    pub(crate) fn set_allowance(&mut self, bytes: usize) {
        self.allowance = bytes;
    }

    /// Sets how far writes may go (clamped to the buffer), returning the old limit.
    pub(crate) fn set_end(&mut self, end: usize) -> usize {
        let old = self.end;
        self.end = end.min(self.buf.len());
        old
    }

    /// The size of the whole buffer.
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// How far writes may go (see `set_end`).
    pub(crate) fn limit(&self) -> usize {
        self.end
    }

    /// `false` while a notification's handler runs: writes are then accepted and
    /// dropped.
    pub(crate) fn set_live(&mut self, live: bool) {
        self.live = live;
    }

    /// `true` if a write did not fit since the last rollback.
    pub(crate) fn overflowed(&self) -> bool {
        self.full
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    #[test]
    fn each_push_fits_whole_or_sets_the_flag() {
        let mut buf = [0u8; 4];
        let mut w = ResultWriter::new(&mut buf);
        assert_eq!(w.str("abc"), Err(WriteError::BufferFull));
        assert!(w.overflowed());
        assert_eq!(w.written(), b"\"abc");
    }
}
