//! A string's decoded text into the caller's buffer, a block at a time (the fast
//! build's [`RawStr::unescape_into`](super::RawStr::unescape_into), also the typed
//! path's scratch), and the text checked as UTF-8 once at the end
//! ([`simd::utf8_str`]). The content of a validated string holds no `"` and no control
//! character, so a backslash is all that stops a run.
//!
//! The decoder reads a window of the string and one of the buffer at a time, each
//! [`WINDOW`] bytes, both asked for once ([`windows`]): the backslashes of the window's
//! first 64 bytes are found at once ([`simd::backslash_bits`]), a block without one is
//! copied whole, and in a block with some, each run before a backslash is copied 16
//! bytes at a time, the last 16 whole even where the run is shorter (the bytes past it
//! are written over by the escape and what follows, or are past the text), then the
//! escape is decoded: a one-letter one by one load ([`scan::MEANING`]), any other by
//! the scanner's rule ([`scan::escape_at`]). The window past the block holds the
//! longest escape that can start in it and the last 16-byte copy, so that nothing in a
//! window is asked for twice. The next window starts after the block's last escape,
//! whose run to the block's end it reads again: no run is cut at a block's end.
//!
//! The last bytes, fewer than a window (or where the buffer has fewer left), go run by
//! run ([`simd::plain_end`]), each copy's room asked for. The unit tests pin it all to
//! the byte-at-a-time decoder ([`RawStr::bytes`](super::RawStr::bytes)), which the
//! compact build keeps (flash).

use super::{utf8_byte, utf8_len};
use crate::scan;
use crate::simd;

/// The bytes of a window, in the string and in the buffer: a block of 64, then the rest
/// of an escape that starts at its last byte (12 bytes in all: `\uD83D\uDE00`) and the
/// 16-byte copies of the runs, which start before the block's end and may end 15 bytes
/// past it. A run's decoded text is never longer than the run, so the buffer's window
/// has room for the block's text too.
const WINDOW: usize = 80;

/// The content `raw` of a validated string, decoded into `buf`: the text, or `None`
/// when `buf` is too small. Bytes of `buf` past the text may be written.
pub(super) fn unescape_into<'b>(raw: &[u8], buf: &'b mut [u8]) -> Option<&'b str> {
    let (mut i, mut n) = (0, 0);
    while let Some((block, _, dst)) = windows(raw, i, buf, n) {
        let backslashes = simd::backslash_bits(block);
        if backslashes == 0 {
            if let Some(room) = dst.first_chunk_mut::<64>() {
                *room = *block;
            }
            (i, n) = (i + 64, n + 64);
            continue;
        }
        match escapes(raw, i, buf, n, backslashes) {
            Ok(after) => (i, n) = after,
            // A broken escape ends the text.
            Err(end) => return simd::utf8_str(buf.get(..end)?),
        }
    }
    // The last bytes: runs to each backslash.
    while i < raw.len() {
        let to = simd::plain_end(raw, i);
        n = copy(raw, i, to, buf, n)?;
        i = to;
        if i < raw.len() {
            (i, n) = escape(raw, i, buf, n)?;
        }
    }
    simd::utf8_str(buf.get(..n)?)
}

/// The window of `raw` at `i` (and its first 64 bytes, the block) and the one of `buf`
/// at `n`, if both sides have one.
#[inline(always)]
fn windows<'r, 'b>(
    raw: &'r [u8],
    i: usize,
    buf: &'b mut [u8],
    n: usize,
) -> Option<(&'r [u8; 64], &'r [u8; WINDOW], &'b mut [u8; WINDOW])> {
    let src = raw.get(i..)?;
    Some((
        src.first_chunk::<64>()?,
        src.first_chunk::<WINDOW>()?,
        buf.get_mut(n..)?.first_chunk_mut::<WINDOW>()?,
    ))
}

/// Decodes the windows at `i` of `raw` and at `n` of `buf` while their blocks hold
/// escapes, `backslashes` those of the first block, each block to its last escape: the
/// offsets in both after the last block decoded; or, at a broken escape (not possible
/// in a validated string), the offset in `buf` where the text ends. Out of line: the
/// loop over blocks without escapes keeps its offsets in registers.
#[inline(never)]
fn escapes(
    raw: &[u8],
    mut i: usize,
    buf: &mut [u8],
    mut n: usize,
    mut backslashes: u64,
) -> Result<(usize, usize), usize> {
    let Some((_, mut src, mut dst)) = windows(raw, i, buf, n) else {
        return Ok((i, n));
    };
    loop {
        // Offsets in the window: `from` in `src` (the run's start), `to` in `dst`. Both
        // stay below 64 while a backslash of the block is left (`to <= from`: no escape
        // is shorter than its text), so `& 63` changes neither, and says so to the
        // compiler, which then asks no bounds of the 16-byte copy.
        let (mut from, mut to) = (0usize, 0usize);
        while backslashes != 0 {
            let at = backslashes.trailing_zeros() as usize;
            let run = at - from;
            simd::copy16(src, from & 63, dst, to & 63);
            if run > 16 {
                simd::copy_long::<WINDOW, WINDOW, 63>(src, from, at, dst, to);
            }
            to += run;
            let letter = scan::MEANING[usize::from(src.get(at + 1).copied().unwrap_or(0))];
            if letter != 0 {
                if let Some(byte) = dst.get_mut(to & 63) {
                    *byte = letter;
                }
                (from, to) = (at + 2, to + 1);
            } else {
                (from, to) = code_point(src, at, dst, to).map_err(|to| n + to)?;
            }
            // The backslashes past the escape (`\\`'s second and a surrogate pair's
            // among those before it); none when it ends past the block.
            backslashes = if from < 64 {
                backslashes & (!0u64 << from)
            } else {
                0
            };
        }
        // The next window starts after the block's last escape.
        (i, n) = (i + from, n + to);
        let Some((block, next_src, next_dst)) = windows(raw, i, buf, n) else {
            break;
        };
        backslashes = simd::backslash_bits(block);
        if backslashes == 0 {
            break;
        }
        (src, dst) = (next_src, next_dst);
    }
    Ok((i, n))
}

/// The escape at `at` of `src` that is not one letter (`\uXXXX`, a surrogate pair as
/// one), decoded into `dst` at `to`: the offsets after it in both; or, for a broken one
/// (not possible in a validated string), `to`.
#[cold]
#[inline(never)]
fn code_point(
    src: &[u8; WINDOW],
    at: usize,
    dst: &mut [u8; WINDOW],
    to: usize,
) -> Result<(usize, usize), usize> {
    let Ok((code, end)) = scan::escape_at(src, at) else {
        return Err(to);
    };
    let len = utf8_len(code);
    for (k, byte) in dst.iter_mut().skip(to).take(len).enumerate() {
        *byte = utf8_byte(code, len, k);
    }
    Ok((end, to + len))
}

/// Copies `raw[from..to]` to `buf` at `n`, 16 bytes at a time while both sides have
/// them (the last 16 may run past `to` in both: those bytes of `buf` are written again
/// or are past the text); the offset in `buf` after the copy.
#[inline(always)]
fn copy(raw: &[u8], from: usize, to: usize, buf: &mut [u8], n: usize) -> Option<usize> {
    let len = to.checked_sub(from)?;
    let mut k = 0;
    while k < len {
        let chunk = raw.get(from + k..).and_then(|r| r.first_chunk::<16>());
        let room = buf.get_mut(n + k..).and_then(|w| w.first_chunk_mut::<16>());
        match (chunk, room) {
            (Some(chunk), Some(room)) => *room = *chunk,
            _ => {
                let rest = raw.get(from + k..to)?;
                buf.get_mut(n + k..n + len)?.copy_from_slice(rest);
                break;
            }
        }
        k += 16;
    }
    Some(n + len)
}

/// Decodes the escape whose backslash is at `i` into `buf` at `n`; the offsets after
/// it in `raw` and `buf`. A validated string's escapes are whole: a broken one (not
/// possible) ends the text, as it ends `RawStr::bytes`.
#[inline(always)]
fn escape(raw: &[u8], i: usize, buf: &mut [u8], n: usize) -> Option<(usize, usize)> {
    let letter = raw.get(i + 1).map_or(0, |&c| scan::MEANING[usize::from(c)]);
    if letter != 0 {
        *buf.get_mut(n)? = letter;
        return Some((i + 2, n + 1));
    }
    let Ok((code, end)) = scan::escape_at(raw, i) else {
        return Some((raw.len(), n));
    };
    let len = utf8_len(code);
    for (k, byte) in buf.get_mut(n..n + len)?.iter_mut().enumerate() {
        *byte = utf8_byte(code, len, k);
    }
    Some((end, n + len))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use crate::RawJson;

    /// What the block decoder is tried on: escapes of every kind, UTF-8 of every width,
    /// plain runs.
    const PIECES: &[&str] = &[
        "a",
        "plain text ",
        "é",
        "東京",
        "😀",
        r"\n",
        r#"\""#,
        r"\\",
        r"\/\b\f\r\t",
        r"\u00e9",
        r"\u0000",
        r"\u20AC",
        r"\ud83d\ude00",
        r"\uDBFF\uDFFF",
    ];

    /// The block decoder gives what the byte loop gives, text and `None` alike: each
    /// piece at every offset of the first 40 bytes, between plain runs, into buffers of
    /// every size around the decoded length; and random strings of pieces.
    #[test]
    fn blocks_agree_with_the_byte_loop() {
        let agree = |content: &str| {
            let json = std::format!("\"{content}\"");
            let raw = RawJson::new(json.as_bytes()).expect("valid");
            let s = raw.as_str().expect("a string");
            let mut want = std::vec![0u8; content.len() + 20];
            let len = s.unescape_bytes_into(&mut want).expect("room").len();
            for size in (len.saturating_sub(3)..len + 20).chain([0, 1, len / 2]) {
                let mut got = std::vec![0xAAu8; size];
                let mut by_bytes = std::vec![0xAAu8; size];
                assert_eq!(
                    super::unescape_into(s.as_raw(), &mut got),
                    s.unescape_bytes_into(&mut by_bytes),
                    "{content:?} into {size}"
                );
            }
        };
        let mut checked = 0;
        for piece in PIECES {
            for pad in 0..40 {
                let mut content = "x".repeat(pad);
                content.push_str(piece);
                content.push_str("yz");
                agree(&content);
                content.push_str(&"w".repeat(33));
                content.push_str(piece);
                agree(&content);
                checked += 2;
            }
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        for _ in 0..2_000 {
            let mut content = std::string::String::new();
            let len = next() % 200;
            while (content.len() as u64) < len {
                content.push_str(PIECES[next() as usize % PIECES.len()]);
            }
            agree(&content);
            checked += 1;
        }
        assert!(checked > 2_000, "{checked}");
    }

    /// The byte loop's text (`RawStr::bytes`) of any content, escapes broken or not,
    /// then checked as UTF-8, as `unescape_into` has it: the naive decoder.
    fn by_bytes<'b>(raw: &[u8], buf: &'b mut [u8]) -> Option<&'b str> {
        let mut n = 0;
        for byte in super::super::RawStr::trusted(raw).bytes() {
            *buf.get_mut(n)? = byte;
            n += 1;
        }
        core::str::from_utf8(buf.get(..n)?).ok()
    }

    /// `unescape_into` against the byte loop on `raw`, into buffers of the sizes around
    /// its text's length (where the windows stop one by one) and a large one.
    fn agree_on(raw: &[u8]) {
        let mut room = std::vec![0u8; raw.len() + 100];
        let len = by_bytes(raw, &mut room).map_or(raw.len(), str::len);
        for size in (len.saturating_sub(2)..len + 84).chain([raw.len() + 100]) {
            let mut got = std::vec![0xAAu8; size];
            let mut want = std::vec![0xAAu8; size];
            assert_eq!(
                super::unescape_into(raw, &mut got),
                by_bytes(raw, &mut want),
                "{:?} into {size}",
                std::string::String::from_utf8_lossy(raw)
            );
        }
    }

    /// Long strings, where the decoder reads whole windows: each escape (the one-letter
    /// ones, `\uXXXX` of every UTF-8 width, surrogate pairs, the broken ones a
    /// validated string cannot hold) at every offset of the first three blocks, among
    /// plain runs, raw UTF-8 and other escapes; an escape straddles each block edge at
    /// some offset. Then random strings of pieces, long runs and escape-dense ones.
    #[test]
    fn windows_agree_with_the_byte_loop() {
        let escapes: &[&str] = &[
            r"\n",
            r#"\""#,
            r"\\",
            r"\/",
            r"\b",
            r"\f",
            r"\r",
            r"\t",
            r"\u0041",
            r"\u00e9",
            r"\u0000",
            r"\u20AC",
            r"\uffff",
            r"\ud83d\ude00",
            r"\uDBFF\uDFFF",
            // Broken: a lone surrogate, bad hex, a bad letter, a cut pair.
            r"\ud83d",
            r"\ude00x",
            r"\u12G4",
            r"\x",
            r"\ud83d\u0041",
        ];
        let mut checked = 0;
        for escape in escapes {
            for at in 0..200 {
                for filler in ["x", "é", r"\\"] {
                    let mut content = filler.repeat(at / filler.len());
                    content.push_str(&"y".repeat(at % filler.len()));
                    content.push_str(escape);
                    content.push_str(&"z".repeat(130));
                    agree_on(content.as_bytes());
                    checked += 1;
                }
            }
        }
        let pieces: &[&str] = &[
            "a",
            "plain text, a longer run of it to pass 16 bytes",
            "é",
            "東京",
            "😀",
            r"\n",
            r"\\",
            r#"\""#,
            r"\u00e9",
            r"\ud83d\ude00",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        };
        for _ in 0..400 {
            let mut content = std::string::String::new();
            let len = 64 + next() % 400;
            // Some strings of short pieces only: escape-dense.
            let kinds = if next() % 2 == 0 { 5 } else { pieces.len() };
            while (content.len() as u64) < len {
                let k = next() as usize % kinds;
                content.push_str(pieces[if kinds == 5 { k + 5 } else { k }]);
            }
            agree_on(content.as_bytes());
            checked += 1;
        }
        assert!(checked > 12_000, "{checked}");
    }
}
