//! The compact build's copy into the reply buffer (for flash): every form of `push`
//! goes through one copy of the byte loop, `push_any` (`sink.rs`), called from every
//! site, instead of `memcpy` (0.7 KiB of flash on a Cortex-M, which the compact build
//! then links no more).

use super::{ResultWriter, WriteError};
use crate::raw::RawJson;

impl ResultWriter<'_> {
    /// Appends `bytes`, all of them or none (then the full flag is set). Dropped
    /// while the result is for a notification.
    #[inline]
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.push_any(bytes)
    }

    /// [`push`](Self::push) for bytes of a length known at compile time.
    #[inline(always)]
    pub(crate) fn push_array<const N: usize>(&mut self, bytes: &[u8; N]) -> Result<(), WriteError> {
        self.push_any(bytes)
    }

    /// [`push`](Self::push) of `head`, `middle` and `tail`: all three or none (the end of
    /// a success reply: `,"id":`, the id, `}`).
    #[inline(always)]
    pub(crate) fn push_between<const H: usize, const T: usize>(
        &mut self,
        head: &[u8; H],
        middle: &[u8],
        tail: &[u8; T],
    ) -> Result<(), WriteError> {
        self.push_between_any(head, middle, tail)
    }

    /// [`push_between`](Self::push_between): three calls of
    /// [`push_any`](Self::push_any), and what they wrote dropped if one fails.
    #[inline(always)]
    fn push_between_any(
        &mut self,
        head: &[u8],
        middle: &[u8],
        tail: &[u8],
    ) -> Result<(), WriteError> {
        let start = self.len;
        let written = self
            .push_any(head)
            .and_then(|()| self.push_any(middle))
            .and_then(|()| self.push_any(tail));
        if written.is_err() {
            self.len = start;
        }
        written
    }

    /// [`push`](Self::push) of one byte.
    #[inline]
    pub(crate) fn push_byte(&mut self, b: u8) -> Result<(), WriteError> {
        self.push_one(b)
    }

    /// Drops everything written after `mark` and clears the full flag. The bytes
    /// dropped are taken off the allowance, and `end` comes down to it if needed.
    // Out of line: flash.
    #[inline(never)]
    pub(crate) fn rollback(&mut self, mark: usize) {
        self.drop_after(mark);
    }

    /// Copies a JSON value verbatim, except for its line breaks: a valid value holds
    /// `\n` and `\r` only as whitespace between tokens, and dropping them keeps the
    /// value while no reply ever holds a raw line break (which would break newline
    /// framing).
    pub(crate) fn json(&mut self, value: RawJson<'_>) -> Result<(), WriteError> {
        self.copy(value.as_bytes(), true)
    }
}
