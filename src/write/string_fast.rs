//! The fast build's escaping of strings, a block at a time (see
//! [`escaped_blocks`](ResultWriter::escaped_blocks)); `string.rs` writes what is left
//! run by run, as the compact build (`string_compact.rs`) writes all of it.

use super::string::escape_text;
use super::ResultWriter;

/// [`escape_text`] of each byte below 0x80 (every byte that needs an escape is one), as
/// one little-endian word: the fast build's escapes, one load each.
const ESCAPES: [u64; 128] = {
    let mut table = [0u64; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = u64::from_le_bytes(escape_text(b as u8));
        b += 1;
    }
    table
};

/// The bytes of the buffer's window of a block ([`ResultWriter::escaped_blocks`]): room
/// for 64 bytes that each take six (`\u00XY`), and for the copies and escapes written
/// whole past the text (16 and 8 bytes), at offsets masked to 511.
const ROOM: usize = 512 + 16;

impl ResultWriter<'_> {
    /// The fast build's [`escaped`](Self::escaped) of `b` while it has a block and the
    /// buffer a window of [`ROOM`] bytes: how many bytes of `b` it wrote, and where the
    /// run it stopped in starts in the buffer. Each block's stops are found at once
    /// ([`simd::plain_bits`](crate::simd::plain_bits)); a block without one is copied
    /// whole; in one with some, the run before each stop is copied 16 bytes at a time,
    /// the last 16 whole (what is past the run is written over next, or is past the
    /// text), then the stop's escape, 8 bytes whole from [`ESCAPES`]. The next block
    /// starts after the last stop.
    pub(super) fn escaped_blocks(&mut self, b: &[u8]) -> (usize, usize) {
        // A writer that is not live writes nothing: the run loop's pushes say so.
        if !self.live {
            return (0, self.len);
        }
        let (mut i, mut n) = (0, self.len);
        let mut run_start = n;
        while let (Some(block), Some(src), Some(dst)) = (
            b.get(i..).and_then(|r| r.first_chunk::<64>()),
            b.get(i..).and_then(|r| r.first_chunk::<80>()),
            self.buf
                .get_mut(n..self.end)
                .and_then(|w| w.first_chunk_mut::<ROOM>()),
        ) {
            let mut stops = crate::simd::plain_bits(block);
            if stops == 0 {
                if let Some(room) = dst.first_chunk_mut::<64>() {
                    *room = *block;
                }
                (i, n) = (i + 64, n + 64);
                continue;
            }
            // `from` below 64 while a stop is left, and `to` at most six times `from`,
            // so `& 63` and `& 511` change neither, and say so to the compiler, which then
            // asks no bounds of the copies.
            let (mut from, mut to) = (0usize, 0usize);
            while stops != 0 {
                let at = stops.trailing_zeros() as usize;
                let run = at - from;
                crate::simd::copy16(src, from & 63, dst, to & 511);
                if run > 16 {
                    crate::simd::copy_long::<80, ROOM, 511>(src, from, at, dst, to);
                }
                to += run;
                let text = ESCAPES[usize::from(src.get(at).copied().unwrap_or(0) & 0x7F)];
                if let Some(room) = dst
                    .get_mut(to & 511..)
                    .and_then(|w| w.first_chunk_mut::<8>())
                {
                    *room = text.to_le_bytes();
                }
                (from, to) = (at + 1, to + (text >> 56) as usize);
                stops &= stops - 1;
            }
            (i, n) = (i + from, n + to);
            run_start = n;
        }
        self.len = n;
        (i, run_start)
    }
}

impl ResultWriter<'_> {
    /// Drops the start of the run that [`escaped_blocks`](Self::escaped_blocks) wrote
    /// from `run_start` on, when the run loop could not write the rest of it: a run
    /// that does not fit is not written at all, as the compact build leaves it.
    #[inline(always)]
    pub(super) fn drop_blocks_run(&mut self, run_start: usize) {
        self.len = run_start;
    }
}
