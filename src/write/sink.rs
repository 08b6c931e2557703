//! The byte sink: every byte of a reply goes through here, with the room and
//! rollback checks, and every build branch of the copy (the fast build's one write,
//! `push_parts`, which every form of `push` is, with its small-copy and `memcpy`
//! paths; the compact build's one byte loop). Also the copy of raw JSON values, which
//! drops their line breaks.

use super::{ResultWriter, WriteError};
use crate::raw::RawJson;
use crate::scan::FAST_PATHS;

impl ResultWriter<'_> {
    /// Appends `bytes`, all of them or none (then the full flag is set). Dropped
    /// while the result is for a notification.
    #[inline]
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.push_any(bytes);
        }
        self.push_parts(&[], bytes, &[])
    }

    /// [`push`](Self::push) for bytes of a length known at compile time: copied with
    /// a few moves instead of a call to `memcpy`.
    #[inline(always)]
    pub(crate) fn push_array<const N: usize>(&mut self, bytes: &[u8; N]) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.push_any(bytes);
        }
        self.push_parts(bytes, &[], &[])
    }

    /// [`push`](Self::push) of `head`, `middle` and `tail` as one write, with one room
    /// check: all three or none (the end of a success reply: `,"id":`, the id, `}`).
    #[inline(always)]
    pub(crate) fn push_between<const H: usize, const T: usize>(
        &mut self,
        head: &[u8; H],
        middle: &[u8],
        tail: &[u8; T],
    ) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.push_between_any(head, middle, tail);
        }
        self.push_parts(head, middle, tail)
    }

    /// The fast build's one write, every form of [`push`](Self::push) inlined into
    /// it: `head` and `tail` of lengths known at compile time (a few moves each), and
    /// `middle`, all of them or none, with one room check (the one failure path).
    #[inline(always)]
    fn push_parts<const H: usize, const T: usize>(
        &mut self,
        head: &[u8; H],
        middle: &[u8],
        tail: &[u8; T],
    ) -> Result<(), WriteError> {
        if !self.live {
            return Ok(());
        }
        let new_len = self.len + H + middle.len() + T;
        let parts = self
            .buf
            .get_mut(self.len..new_len)
            .filter(|_| new_len <= self.end)
            .and_then(|dst| dst.split_first_chunk_mut::<H>())
            .and_then(|(h, rest)| Some((h, rest.split_last_chunk_mut::<T>()?)));
        match parts {
            Some((h, (m, t))) => {
                *h = *head;
                put(m, middle);
                *t = *tail;
            }
            None => {
                self.full = true;
                return Err(WriteError::BufferFull);
            }
        }
        self.len = new_len;
        Ok(())
    }

    /// [`push_between`](Self::push_between) in the compact build: three calls of
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

    /// [`push`](Self::push) in the compact build: one copy of the code, called from
    /// every site, and a byte loop instead of `memcpy` (0.7 KiB of flash on a
    /// Cortex-M, which the compact build then links no more). Nothing is written
    /// unless all of it fits.
    #[inline(never)]
    fn push_any(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.copy(bytes, false)
    }

    /// The byte loop of the compact build: `bytes`, without their line breaks if
    /// `drop_line_breaks` (what [`json`](Self::json) asks), all or nothing.
    #[inline(never)]
    fn copy(&mut self, bytes: &[u8], drop_line_breaks: bool) -> Result<(), WriteError> {
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

    /// [`push`](Self::push) of one byte.
    #[inline]
    pub(crate) fn push_byte(&mut self, b: u8) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.push_one(b);
        }
        self.push(&[b])
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
    // Out of line in the compact build (the condition of `scan::FAST_PATHS`): flash.
    #[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
    #[cfg_attr(jsonrpc_slice_fast, inline)]
    pub(crate) fn rollback(&mut self, mark: usize) {
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

    /// Copies a JSON value verbatim, except for its line breaks: a valid value holds
    /// `\n` and `\r` only as whitespace between tokens, and dropping them keeps the
    /// value while no reply ever holds a raw line break (which would break newline
    /// framing).
    pub(crate) fn json(&mut self, value: RawJson<'_>) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.copy(value.as_bytes(), true);
        }
        self.json_runs(value.as_bytes())
    }

    /// [`json`](Self::json) in the fast build: each run between line breaks in one
    /// push; all of the value or none of it, as the compact build's `copy`.
    fn json_runs(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        let start = self.len;
        let mut rest = bytes;
        loop {
            let cut = rest.iter().position(|&b| b == b'\n' || b == b'\r');
            let (run, tail) = rest.split_at(cut.unwrap_or(rest.len()));
            if let Err(e) = self.push(run) {
                self.len = start;
                return Err(e);
            }
            match tail.split_first() {
                Some((_, after)) => rest = after,
                None => return Ok(()),
            }
        }
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

/// Copies `src` into `dst`, of the same length: one or two bytes (short ids, digits,
/// separators) by moves, as a call to `memcpy` costs more than they do.
#[inline(always)]
fn put(dst: &mut [u8], src: &[u8]) {
    match dst {
        [d] => *d = src.first().copied().unwrap_or(0),
        [d0, d1] => {
            *d0 = src.first().copied().unwrap_or(0);
            *d1 = src.get(1).copied().unwrap_or(0);
        }
        dst => dst.copy_from_slice(src),
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::*;

    /// Runs `check` on two fresh writers over buffers of every size below `ROOM`, live
    /// and not: the one for the fast build's calls and the one for the compact build's.
    fn in_every_room<const ROOM: usize>(
        mut check: impl FnMut(&mut ResultWriter<'_>, &mut ResultWriter<'_>, (usize, bool)),
    ) {
        for room in 0..ROOM {
            for live in [true, false] {
                let (mut one, mut two) = ([0u8; ROOM], [0u8; ROOM]);
                let mut fast = ResultWriter::new(&mut one[..room]);
                let mut compact = ResultWriter::new(&mut two[..room]);
                fast.set_live(live);
                compact.set_live(live);
                check(&mut fast, &mut compact, (room, live));
            }
        }
    }

    /// The compact build's `push_any` (and `push_one`, and `push_array` through it)
    /// against the fast build's `push` and `push_array`, both compiled here: the same
    /// bytes written, the same answer, the same full flag, in every room left, live or
    /// not. Line breaks included: only `json` drops them, not the byte sink.
    #[test]
    fn push_any_is_push() {
        let inputs: [&[u8]; 7] = [
            b"",
            b"a",
            b"ab",
            b"abc",
            b"a\nb\r\n",
            b"\n",
            b"0123456789abcdef",
        ];
        for bytes in inputs {
            in_every_room::<20>(|fast, compact, at| {
                let what = (bytes, at);
                assert_eq!(fast.push(bytes), compact.push_any(bytes), "{what:?}");
                assert_eq!(fast.written(), compact.written(), "{what:?}");
                assert_eq!(fast.overflowed(), compact.overflowed(), "{what:?}");
                if let Some(&b) = bytes.first() {
                    assert_eq!(fast.push_byte(b), compact.push_one(b), "{what:?}");
                    assert_eq!(fast.written(), compact.written(), "{what:?}");
                }
                if let Ok(array) = <[u8; 3]>::try_from(bytes) {
                    assert_eq!(
                        fast.push_array(&array),
                        compact.push_any(&array),
                        "{what:?}"
                    );
                    assert_eq!(fast.written(), compact.written(), "{what:?}");
                }
                assert_eq!(fast.overflowed(), compact.overflowed(), "{what:?}");
            });
        }
    }

    /// `push_between` in both builds (the compact one is `push_between_any`), both
    /// compiled here: the same bytes written (all three parts or none), the same answer
    /// and full flag, in every room left, live or not.
    #[test]
    fn both_push_betweens_agree() {
        let middles: [&[u8]; 5] = [b"", b"7", b"42", b"\"req-11\"", b"123456789012345678"];
        let mut fitted = 0;
        for middle in middles {
            in_every_room::<32>(|fast, compact, (room, live)| {
                // Something written before, which a failed write keeps.
                let _ = (fast.push(b"{"), compact.push_any(b"{"));
                let before = fast.written().to_vec();
                let what = (middle, room, live);
                let got = fast.push_between(b",\"id\":", middle, b"}");
                assert_eq!(
                    got,
                    compact.push_between_any(b",\"id\":", middle, b"}"),
                    "{what:?}"
                );
                assert_eq!(fast.written(), compact.written(), "{what:?}");
                assert_eq!(fast.overflowed(), compact.overflowed(), "{what:?}");
                let whole = [&before[..], b",\"id\":", middle, b"}"].concat();
                let want = if live && got.is_ok() { &whole } else { &before };
                assert_eq!(fast.written(), want, "{what:?}");
                fitted += usize::from(live && got.is_ok());
            });
        }
        assert!(fitted > 50, "{fitted}");
    }

    /// `json` in both builds (`json_runs`, fast; `copy` dropping line breaks,
    /// compact), both compiled here: the same bytes, answer and full flag.
    #[test]
    fn both_json_copies_agree() {
        let inputs: [&[u8]; 6] = [
            b"",
            b"1",
            b"[1,\n2]",
            b"{\r\n  \"a\": [\n1,\r2\n]\n}",
            b"\n\n",
            b"[\"x\"]",
        ];
        for bytes in inputs {
            in_every_room::<24>(|fast, compact, at| {
                let what = (bytes, at);
                assert_eq!(fast.json_runs(bytes), compact.copy(bytes, true), "{what:?}");
                assert_eq!(fast.written(), compact.written(), "{what:?}");
                assert_eq!(fast.overflowed(), compact.overflowed(), "{what:?}");
                assert!(!fast.written().iter().any(|&b| b == b'\n' || b == b'\r'));
            });
        }
    }

    #[test]
    fn each_push_fits_whole_or_sets_the_flag() {
        let mut buf = [0u8; 4];
        let mut w = ResultWriter::new(&mut buf);
        assert_eq!(w.str("abc"), Err(WriteError::BufferFull));
        assert!(w.overflowed());
        assert_eq!(w.written(), b"\"abc");
    }
}
