//! The fast build's copy into the reply buffer: every form of `push` is one write,
//! [`push_parts`](ResultWriter::push_parts), with one room check, its fixed parts by
//! moves and the rest by `memcpy` (or by moves when short, `put`).

use super::{ResultWriter, WriteError};
use crate::raw::RawJson;

impl ResultWriter<'_> {
    /// Appends `bytes`, all of them or none (then the full flag is set). Dropped
    /// while the result is for a notification.
    #[inline]
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.push_parts(&[], bytes, &[])
    }

    /// [`push`](Self::push) for bytes of a length known at compile time: copied with
    /// a few moves instead of a call to `memcpy`.
    #[inline(always)]
    pub(crate) fn push_array<const N: usize>(&mut self, bytes: &[u8; N]) -> Result<(), WriteError> {
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

    /// [`push`](Self::push) of one byte.
    #[inline]
    pub(crate) fn push_byte(&mut self, b: u8) -> Result<(), WriteError> {
        self.push(&[b])
    }

    /// Drops everything written after `mark` and clears the full flag. The bytes
    /// dropped are taken off the allowance, and `end` comes down to it if needed.
    #[inline]
    pub(crate) fn rollback(&mut self, mark: usize) {
        self.drop_after(mark);
    }

    /// Copies a JSON value verbatim, except for its line breaks: a valid value holds
    /// `\n` and `\r` only as whitespace between tokens, and dropping them keeps the
    /// value while no reply ever holds a raw line break (which would break newline
    /// framing).
    pub(crate) fn json(&mut self, value: RawJson<'_>) -> Result<(), WriteError> {
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

    /// The compact build's `push_any` (and `push_one`, and `push_array` through it),
    /// compiled in both builds, against the fast build's `push` and `push_array`: the same
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

    /// `push_between` against the compact build's way, `push_any` of each part with
    /// what they wrote dropped if one fails: the same bytes written (all three parts or
    /// none), the same answer and full flag, in every room left, live or not.
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
                let start = compact.mark();
                let parts = compact
                    .push_any(b",\"id\":")
                    .and_then(|()| compact.push_any(middle))
                    .and_then(|()| compact.push_any(b"}"));
                if parts.is_err() {
                    compact.len = start;
                }
                assert_eq!(got, parts, "{what:?}");
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
    /// compact, compiled in both): the same bytes, answer and full flag.
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
}
