//! A string's decoded text into the caller's buffer, a block at a time (the fast
//! build's [`RawStr::unescape_into`](super::RawStr::unescape_into), also the typed
//! path's scratch): the backslashes of 64 bytes found at once ([`simd::backslash_bits`]),
//! the plain bytes between them copied 16 at a time ([`copy`]), a one-letter escape by
//! one load ([`scan::MEANING`]), any other by the scanner's rule ([`scan::escape_at`]),
//! and the text checked as UTF-8 once at the end ([`simd::utf8_str`]). The content of a
//! validated string holds no `"` and no control character, so a backslash is all that
//! stops a run. The unit tests pin it to the byte-at-a-time decoder
//! ([`RawStr::bytes`](super::RawStr::bytes)), which the compact build keeps (flash).

use super::{utf8_byte, utf8_len};
use crate::scan;
use crate::simd;

/// The content `raw` of a validated string, decoded into `buf`: the text, or `None`
/// when `buf` is too small. Bytes of `buf` past the text may be written (the last 16
/// copied at once).
pub(super) fn unescape_into<'b>(raw: &[u8], buf: &'b mut [u8]) -> Option<&'b str> {
    let (mut i, mut n) = (0, 0);
    while let Some(block) = raw.get(i..).and_then(|r| r.first_chunk::<64>()) {
        let base = i;
        let mut backslashes = simd::backslash_bits(block);
        if backslashes == 0 {
            if let Some(room) = buf.get_mut(n..).and_then(|w| w.first_chunk_mut::<64>()) {
                // No escape: the block at once.
                *room = *block;
                (i, n) = (i + 64, n + 64);
                continue;
            }
        }
        loop {
            // The plain bytes up to the next backslash of the block, or to its end.
            let to = base + backslashes.trailing_zeros() as usize;
            n = copy(raw, i, to.min(base + 64), buf, n)?;
            i = to;
            if backslashes == 0 {
                i = base + 64;
                break;
            }
            (i, n) = escape(raw, i, buf, n)?;
            // The backslashes past the escape (`\\`'s second among those before it).
            match i - base {
                past @ 0..=63 => backslashes &= !0u64 << past,
                _ => break,
            }
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
}
