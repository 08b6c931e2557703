//! Strict UTF-8, 64 bytes at a time, by masks: the fast build's check without `std`
//! (where simdutf8 is not linked), `core` alone. The build's body classifies the bytes
//! of a block ([`Utf8Classes`], SSE2's compares or the scalar loop); the rule is here,
//! once, as bit operations on the masks (bit `k` for byte `k`):
//!
//! - every byte a 2-, 3- or 4-byte lead expects after it (one, two, three places on) is
//!   a continuation byte (0x80..=0xBF), and no other is: `expected == cont`, the leads
//!   of the last bytes of a block carried into the next one;
//! - no byte is 0xC0 or 0xC1 (the leads of overlong 2-byte forms);
//! - a block that holds one of the leads whose second byte has a narrower range
//!   (0xE0: overlong; 0xED: surrogates; 0xF0..=0xFF: four bytes, or no character at
//!   all) is read one character at a time instead ([`characters`]), from the lead of
//!   the one the block before left open. Text in the scripts of the Basic Multilingual
//!   Plane but Korean and Devanagari has none; an emoji is one. (Read so, a block of
//!   code with a few accented letters cost no less than by the masks: tried.)
//!
//! The unit tests pin [`is_utf8`] to `core::str::from_utf8` (every character width at
//! every offset of the blocks, every byte broken, every length cut) and the bodies'
//! classes to the scalar one; the `simd` fuzz target does both.

/// The classes of a 64-byte block that the UTF-8 rule reads, one mask each (bit `k` for
/// byte `k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Utf8Classes {
    /// The bytes 0x80 and above.
    pub(crate) non_ascii: u64,
    /// The continuation bytes, 0x80..=0xBF.
    pub(crate) cont: u64,
    /// The leads of 2 bytes or more that may start a character, 0xC2..=0xFF.
    pub(crate) lead2: u64,
    /// The leads of 3 bytes or more, 0xE0..=0xFF.
    pub(crate) lead3: u64,
    /// The leads read one sequence at a time: 0xE0, 0xED, 0xF0..=0xFF.
    pub(crate) special: u64,
}

/// Whether `b` is UTF-8 (strict, as `core::str::from_utf8` has it): by nibble lookups
/// where the CPU has AVX2 (`lookup.rs`), else by the masks ([`by_masks`]).
#[cfg_attr(all(feature = "std", not(test), not(fuzzing)), allow(dead_code))]
#[inline]
pub(crate) fn is_utf8(b: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(yes) = super::lookup::is_utf8(b) {
        return yes;
    }
    by_masks(b)
}

/// [`is_utf8`] by the masks of [`Utf8Classes`], 64 bytes at a time.
#[cfg_attr(all(feature = "std", not(test), not(fuzzing)), allow(dead_code))]
pub(crate) fn by_masks(b: &[u8]) -> bool {
    // The continuation bytes the block before expects at the start of this one.
    let mut open = 0u64;
    let mut blocks = b.chunks_exact(64);
    let mut at = 0;
    for block in &mut blocks {
        let Ok(block) = <&[u8; 64]>::try_from(block) else {
            return false;
        };
        match block_rule(b, at, block, open) {
            Some(next) => open = next,
            None => return false,
        }
        at += 64;
    }
    // The last bytes, padded with zeros (ASCII: a sequence they cut is broken).
    let rest = blocks.remainder();
    if rest.is_empty() {
        return open == 0;
    }
    block_rule(b, at, &super::padded(rest), open) == Some(0)
}

/// The rule on the block at `at` of `b` (`block`: its bytes, padded after the end of
/// `b`), `open` the continuation bytes the block before expects in it: those this
/// block expects in the next, or `None` when it breaks UTF-8.
#[inline(always)]
fn block_rule(b: &[u8], at: usize, block: &[u8; 64], open: u64) -> Option<u64> {
    if open == 0 && super::body::is_ascii_block(block) {
        return Some(0);
    }
    let c = super::body::utf8_classes(block);
    if c.special != 0 {
        return characters(b, at, c.non_ascii, open);
    }
    // Without special leads, no lead is of four bytes.
    let expected = (c.lead2 << 1) | (c.lead3 << 2) | open;
    let overlong = c.non_ascii & !c.cont & !c.lead2;
    if (expected ^ c.cont) | overlong != 0 {
        return None;
    }
    Some((c.lead2 >> 63) | (c.lead3 >> 62))
}

/// The rule on the block at `at` a character at a time: the one the block before left
/// open from its lead (`open` says how many of its continuation bytes are here; the
/// rest of it, before `at`, was checked already), then each character that starts at
/// a non-ASCII byte of the block (`non_ascii`, bit `k` for the byte at `at + k`),
/// whole, the last one possibly into the next block. Returns the continuation bytes of
/// the next block read already, as `open` (the masks then find them where they expect
/// them).
#[cold]
#[inline(never)]
fn characters(b: &[u8], at: usize, mut non_ascii: u64, open: u64) -> Option<u64> {
    let mut i = at;
    if open != 0 {
        // Back to the open character's lead: over the continuation bytes before `at`.
        while i > 0 && matches!(b.get(i - 1), Some(0x80..=0xBF)) {
            i -= 1;
        }
        i = i.checked_sub(1)?;
        i += sequence_len(b, i)?;
    }
    while let Some(from) = i.checked_sub(at).filter(|&k| k < 64) {
        non_ascii &= !0u64 << from;
        if non_ascii == 0 {
            break;
        }
        let lead = at + non_ascii.trailing_zeros() as usize;
        i = lead + sequence_len(b, lead)?;
    }
    // The bytes of the next block already read (at most three): the masks' `open`.
    let over = i.saturating_sub(at + 64);
    Some((1u64 << over) - 1)
}

/// For each lead byte: the length of its character, and the range of its second byte
/// (`len | lo << 8 | hi << 16`); 0 for a byte no character starts with (ASCII is read
/// before the table).
const LEADS: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut lead = 0xC2;
    while lead <= 0xF4 {
        let (len, lo, hi) = match lead {
            0xC2..=0xDF => (2, 0x80, 0xBF),
            0xE0 => (3, 0xA0, 0xBF),
            0xED => (3, 0x80, 0x9F),
            0xE1..=0xEF => (3, 0x80, 0xBF),
            0xF0 => (4, 0x90, 0xBF),
            0xF4 => (4, 0x80, 0x8F),
            _ => (4, 0x80, 0xBF),
        };
        table[lead] = len | lo << 8 | hi << 16;
        lead += 1;
    }
    table
};

/// The length of the character at `i` (ASCII or a strict UTF-8 sequence), or `None`
/// when it is not one: the lead by [`LEADS`], the bytes after it read as one word where
/// there are four.
#[inline(always)]
fn sequence_len(b: &[u8], i: usize) -> Option<usize> {
    let rest = b.get(i..)?;
    let word = match rest.first_chunk::<4>() {
        Some(&w) => u32::from_le_bytes(w),
        None => {
            let mut w = [0u8; 4];
            w.get_mut(..rest.len())?.copy_from_slice(rest);
            u32::from_le_bytes(w)
        }
    };
    let lead = word & 0xFF;
    if lead < 0x80 {
        return rest.first().map(|_| 1);
    }
    let entry = LEADS[lead as usize];
    let len = entry & 0xFF;
    let (lo, hi) = (entry >> 8 & 0xFF, entry >> 16);
    let second = word >> 8 & 0xFF;
    // The bytes after the second must be continuation bytes: their top two bits 10.
    let (mask, want) = match len {
        2 => (0, 0),
        3 => (0x00C0_0000, 0x0080_0000),
        4 => (0xC0C0_0000, 0x8080_0000),
        _ => return None,
    };
    if second.wrapping_sub(lo) > hi - lo || word & mask != want {
        return None;
    }
    Some(len as usize)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Under Miri, which interprets every load, the loops below keep the offsets and
    /// lengths around block edges and the bytes at class edges (every one otherwise).
    fn tried(n: usize) -> bool {
        !cfg!(miri) || [0, 63, 64, 65].contains(&n)
    }

    fn edges_or_all(edges: &[u8]) -> Vec<u8> {
        if cfg!(miri) {
            edges.to_vec()
        } else {
            (0..=0xFF).collect()
        }
    }

    /// A xorshift64* generator: the same numbers on every run.
    fn numbers(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    /// Every way of the check says what `core` says: the masks, the nibble lookups
    /// where the CPU has SSSE3, and the one the build picks.
    fn agree(b: &[u8]) {
        let want = core::str::from_utf8(b).is_ok();
        assert_eq!(by_masks(b), want, "masks: {b:02x?} ({} bytes)", b.len());
        #[cfg(target_arch = "x86_64")]
        if let Some(yes) = super::super::lookup::is_utf8(b) {
            assert_eq!(yes, want, "lookups: {b:02x?} ({} bytes)", b.len());
        }
        assert_eq!(is_utf8(b), want, "{b:02x?} ({} bytes)", b.len());
    }

    /// Characters of every width and every special lead, at every offset of the first
    /// three blocks, in ASCII and in non-ASCII text, whole and cut at every length
    /// around the block edges; every byte of such text replaced by each byte that
    /// breaks or changes it.
    #[test]
    fn is_utf8_is_core_on_every_width_at_every_offset() {
        let chars = [
            "é",
            "ß",
            "\u{7ff}",
            "\u{800}",
            "€",
            "東",
            "\u{d7ff}",
            "\u{e000}",
            "\u{ffff}",
            "\u{10000}",
            "😀",
            "\u{10ffff}",
            "\u{fffd}",
            "ह",
            "한",
        ];
        let mut checked = 0;
        for fill in ["a", "é", "東"] {
            for c in chars {
                for at in (0..140).filter(|&at| tried(at)) {
                    let mut s = fill.repeat(at / fill.len());
                    s.push_str(&"x".repeat(at % fill.len()));
                    s.push_str(c);
                    s.push_str(&fill.repeat(4));
                    let b = s.as_bytes();
                    agree(b);
                    for cut in [at, at + 1, at + c.len() - 1, at + c.len()] {
                        agree(&b[..cut.min(b.len())]);
                    }
                    checked += 5;
                }
            }
        }
        let text = "plain, é, €, 😀, 東京, 한국어, हिन्दी, \u{10ffff} and more plain text".repeat(3);
        let text = text.as_bytes();
        for len in (0..text.len()).filter(|&len| tried(len)) {
            agree(&text[..len]);
            checked += 1;
        }
        for at in (0..text.len()).filter(|&at| tried(at)) {
            for with in [
                0x00, b'a', 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED,
                0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFF,
            ] {
                let mut b = text.to_vec();
                b[at] = with;
                agree(&b);
                checked += 1;
            }
        }
        assert!(checked > if cfg!(miri) { 200 } else { 10_000 }, "{checked}");
    }

    /// Every lead followed by every second byte, then continuation bytes, at each
    /// offset around a block edge; and random bytes over an alphabet of class edges.
    #[test]
    fn is_utf8_is_core_on_every_pair_and_on_random_text() {
        let mut checked = 0;
        // After ASCII (a block read a character at a time) and after CJK text (by the
        // masks).
        for fill in ["a", "東"] {
            for lead in edges_or_all(&[0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5])
                .into_iter()
                .filter(|&lead| lead >= 0x80)
            {
                for second in edges_or_all(&[0x00, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0]) {
                    for at in [0, 1, 61, 62, 63, 64, 126, 127]
                        .into_iter()
                        .filter(|&at| tried(at))
                    {
                        let mut b: Vec<u8> = fill.repeat(at / fill.len()).into_bytes();
                        b.resize(at, b'a');
                        b.extend_from_slice(&[lead, second, 0x80, 0x80, b'z']);
                        b.extend_from_slice(fill.repeat(30).as_bytes());
                        agree(&b);
                        agree(&b[..at + 3]);
                        checked += 2;
                    }
                }
            }
        }
        let alphabet = [
            b'a', b'a', b'a', 0x80, 0x9F, 0xA0, 0xBF, 0xC1, 0xC2, 0xC3, 0xE0, 0xE3, 0xED, 0xEF,
            0xF0, 0xF4, 0xF5,
        ];
        let pieces: [&str; 6] = ["é", "€", "東", "😀", "한", "abc"];
        let mut next = numbers(0x9E37_79B9_7F4A_7C15);
        for _ in 0..if cfg!(miri) { 100 } else { 20_000 } {
            let len = (next() % 400) as usize;
            let mut b = Vec::with_capacity(len + 8);
            while b.len() < len {
                if next() % 16 == 0 {
                    b.push(alphabet[next() as usize % alphabet.len()]);
                } else {
                    b.extend_from_slice(pieces[next() as usize % pieces.len()].as_bytes());
                }
            }
            agree(&b);
            checked += 1;
        }
        assert!(
            checked > if cfg!(miri) { 500 } else { 100_000 },
            "{checked}"
        );
    }

    /// Sequences at the edges of what UTF-8 allows (overlongs, surrogates, past
    /// U+10FFFF, lone continuation bytes and leads, and the valid ones beside each), at
    /// every offset of the first three blocks, after ASCII, two- and three-byte text,
    /// whole and cut after each of their bytes, then the end of the input, more text,
    /// two blocks of ASCII and then non-ASCII text, or a block of ASCII and then the
    /// rest of the sequence.
    #[test]
    fn is_utf8_is_core_on_edge_sequences_cut_anywhere() {
        let sequences: [&[u8]; 24] = [
            &[0xC0, 0x80],
            &[0xC1, 0xBF],
            &[0xC2, 0x80],
            &[0xDF, 0xBF],
            &[0xE0, 0x80, 0x80],
            &[0xE0, 0x9F, 0xBF],
            &[0xE0, 0xA0, 0x80],
            &[0xED, 0x9F, 0xBF],
            &[0xED, 0xA0, 0x80],
            &[0xED, 0xBF, 0xBF],
            &[0xEF, 0xBF, 0xBF],
            &[0xF0, 0x80, 0x80, 0x80],
            &[0xF0, 0x8F, 0xBF, 0xBF],
            &[0xF0, 0x90, 0x80, 0x80],
            &[0xF4, 0x8F, 0xBF, 0xBF],
            &[0xF4, 0x90, 0x80, 0x80],
            &[0xF5, 0x80, 0x80, 0x80],
            &[0xF8, 0x88, 0x80, 0x80, 0x80],
            &[0xFF],
            &[0x80],
            &[0xBF, 0xBF],
            &[0xE1, 0x80, 0x80, 0x80],
            &[0xC3, 0xA9, 0xA9],
            &[0xF1, 0x80, 0x80, 0xC0],
        ];
        let mut checked = 0;
        // Under Miri (which runs the masks only), after CJK text, every sixth sequence.
        let fills: &[&str] = if cfg!(miri) {
            &["東"]
        } else {
            &["a", "é", "東"]
        };
        for &fill in fills {
            for (k, seq) in sequences.into_iter().enumerate() {
                if cfg!(miri) && k % 6 != 0 {
                    continue;
                }
                for at in (0..200).filter(|&at| tried(at)) {
                    let mut head: Vec<u8> = fill.repeat(at / fill.len()).into_bytes();
                    head.resize(at, b'a');
                    for cut in 1..=seq.len() {
                        let mut b = head.clone();
                        b.extend_from_slice(&seq[..cut]);
                        agree(&b);
                        let mut more = b.clone();
                        more.extend_from_slice(fill.repeat(40).as_bytes());
                        agree(&more);
                        // A whole block of ASCII after the cut, then more non-ASCII
                        // text: the open character is found in between.
                        b.extend_from_slice(&[b'a'; 130]);
                        b.extend_from_slice("é東".repeat(20).as_bytes());
                        agree(&b);
                        // The rest of the sequence after a block of ASCII, at the start
                        // of the next block: no sequence spans the ASCII between.
                        let mut resumed = head.clone();
                        resumed.extend_from_slice(&seq[..cut]);
                        resumed.resize(resumed.len().next_multiple_of(64) + 64, b'a');
                        resumed.extend_from_slice(&seq[cut..]);
                        resumed.extend_from_slice("é東".repeat(20).as_bytes());
                        agree(&resumed);
                        checked += 4;
                    }
                }
            }
        }
        assert!(checked > if cfg!(miri) { 100 } else { 10_000 }, "{checked}");
    }

    /// The lookups run wherever the CPU has AVX2, so that the tests above pin them (and
    /// not only the masks) on such a host.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn the_lookups_run_where_the_cpu_has_them() {
        assert_eq!(
            super::super::lookup::available(),
            std::is_x86_feature_detected!("avx2")
        );
    }

    /// Every body's classes are the scalar body's, and the scalar body's are their
    /// definitions, on blocks of every byte value at each position.
    #[test]
    fn classes_are_their_definitions() {
        let mut next = numbers(0x0123_4567_89AB_CDEF);
        for round in 0..if cfg!(miri) { 260 } else { 3_000 } {
            let mut block = [0u8; 64];
            for (k, c) in block.iter_mut().enumerate() {
                *c = if round < 256 {
                    (round as u8).wrapping_add(k as u8)
                } else {
                    next() as u8
                };
            }
            let want = super::super::scalar::utf8_classes(&block);
            assert_eq!(
                super::super::body::utf8_classes(&block),
                want,
                "{block:02x?}"
            );
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            assert_eq!(
                super::super::sse2::utf8_classes(&block),
                want,
                "{block:02x?}"
            );
            let ascii = block.iter().all(u8::is_ascii);
            assert_eq!(super::super::scalar::is_ascii_block(&block), ascii);
            assert_eq!(super::super::body::is_ascii_block(&block), ascii);
            for (k, &c) in block.iter().enumerate() {
                let bit = |mask: u64| mask >> k & 1 == 1;
                assert_eq!(bit(want.non_ascii), c >= 0x80);
                assert_eq!(bit(want.cont), (0x80..=0xBF).contains(&c));
                assert_eq!(bit(want.lead2), c >= 0xC2);
                assert_eq!(bit(want.lead3), c >= 0xE0);
                assert_eq!(bit(want.special), c == 0xE0 || c == 0xED || c >= 0xF0);
            }
        }
    }
}
