//! Every body the host can run, pinned to the scalar oracle. Under Miri the inputs
//! shrink (the same shapes, fewer of them) so that the run takes a minute or two.

extern crate std;

use std::vec::Vec;

use super::scalar;

/// A routine: `(slice, offset) -> offset`.
type Routine = fn(&[u8], usize) -> usize;

/// A body: its name, then its `plain_end` and `plain_ascii_end`.
type Body = (&'static str, Routine, Routine);

/// Every body compiled on this host but the scalar one. (The one this build uses,
/// through `super`, is one of them or the scalar one: `the_build_uses_a_body`.)
fn bodies() -> Vec<Body> {
    let mut all: Vec<Body> =
        std::vec![("swar", super::swar::plain_end, super::swar::plain_ascii_end)];
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    all.push(("sse2", super::sse2::plain_end, super::sse2::plain_ascii_end));
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    all.push(("neon", super::neon::plain_end, super::neon::plain_ascii_end));
    all
}

/// Every body's answer to `(b, i)` is the scalar one's, for both routines.
fn agree(b: &[u8], i: usize) {
    let want_plain = scalar::plain_end(b, i);
    let want_ascii = scalar::plain_ascii_end(b, i);
    for (name, plain, ascii) in bodies() {
        assert_eq!(
            plain(b, i),
            want_plain,
            "{name} plain_end of {b:02x?} at {i}"
        );
        assert_eq!(
            ascii(b, i),
            want_ascii,
            "{name} plain_ascii_end of {b:02x?} at {i}"
        );
    }
}

/// The longest buffer and the last stop position of the exhaustive tests (past 112:
/// the first 16 bytes, the next 32, then a 64-byte block).
const SHAPE: (usize, usize) = (120, 104);

/// Under Miri (about 10 ms a call to `agree`), the lengths tried: each side of the 8-
/// and 16-byte loads and of the 32 after the first 16 (the 64-byte blocks are reached
/// by the random buffers).
const MIRI_LENGTHS: &[usize] = &[0, 7, 8, 9, 16, 17, 33, 48, 49];

/// Whether Miri tries length `len` (every length, when not under Miri).
fn tried(len: usize) -> bool {
    !cfg!(miri) || MIRI_LENGTHS.contains(&len)
}

/// The bytes either side of each class boundary, and some plain ones.
#[cfg(not(miri))]
const EDGES: &[u8] = &[
    0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, b'"', 0x23, 0x5B, b'\\', 0x5D, 0x7E, 0x7F,
    0x80, 0x81, 0xA0, 0xC3, 0xDF, 0xE0, 0xFF,
];
#[cfg(miri)]
const EDGES: &[u8] = &[0x00, b'"', 0x80];

#[test]
fn the_oracle_stops_where_the_contract_says() {
    let b = b"ab\"c\\d\x1fe\x7f\x80";
    assert_eq!(scalar::plain_end(b, 0), 2);
    assert_eq!(scalar::plain_end(b, 3), 4);
    assert_eq!(scalar::plain_end(b, 5), 6);
    assert_eq!(scalar::plain_end(b, 7), b.len(), "0x7f and 0x80 are plain");
    assert_eq!(scalar::plain_ascii_end(b, 7), 9, "0x80 is not ASCII");
    assert_eq!(scalar::plain_end(b, b.len() + 5), b.len());
    assert_eq!(scalar::plain_ascii_end(b, usize::MAX), b.len());
}

/// Each edge byte at each position of plain buffers of every length, from every start
/// offset up to past the end (and the buffers without a stop, from every offset).
#[test]
fn one_stop_anywhere_from_every_offset() {
    let (longest, last_stop) = SHAPE;
    let fills: &[u8] = if cfg!(miri) { b"a" } else { &[b'a', 0xC3] };
    for &fill in fills {
        for len in (0..longest).filter(|&len| tried(len)) {
            let mut b = std::vec![fill; len];
            // No stop at all, then one.
            for i in (0..len + 3).chain([usize::MAX]) {
                agree(&b, i);
            }
            for p in 0..len.min(last_stop) {
                for &c in EDGES {
                    b[p] = c;
                    // (From offsets past `p + 1`, the buffer is the one without the
                    // stop, tested just above.)
                    if cfg!(miri) {
                        agree(&b, 0);
                        agree(&b, p);
                        continue;
                    }
                    for i in (0..=p + 1).chain([len, len + 1, usize::MAX]) {
                        agree(&b, i);
                    }
                }
                b[p] = fill;
            }
        }
    }
}

/// Every byte value at each position (the edges above have every offset; these, the
/// offsets around the byte).
#[test]
fn every_byte_value_anywhere() {
    let (longest, last_stop) = SHAPE;
    // Under Miri, one length and every 15th value.
    let step = if cfg!(miri) { 15 } else { 1 };
    for len in 0..longest {
        if cfg!(miri) && len != 17 {
            continue;
        }
        let mut b = std::vec![b'a'; len];
        for p in 0..len.min(last_stop) {
            for c in (0..=255u8).step_by(step) {
                b[p] = c;
                for i in [0, p.saturating_sub(1), p, p + 1, len] {
                    agree(&b, i);
                }
            }
            b[p] = b'a';
        }
    }
}

/// Two stops, the first before the start offset: a word-at-a-time body must not let
/// the first one's borrow flag a plain byte after the offset.
#[test]
fn a_stop_before_the_offset_does_not_leak_past_it() {
    let (longest, stops, nexts): (usize, &[u8], &[u8]) = if cfg!(miri) {
        (12, b"\"", &[0x23])
    } else {
        (
            40,
            &[b'"', b'\\', 0x00, 0x1F],
            &[0x01, 0x20, 0x21, 0x23, 0x5D, 0x80],
        )
    };
    for len in 0..longest {
        for before in 0..len {
            for &c in stops {
                for &next in nexts {
                    let mut b = std::vec![b'a'; len];
                    b[before] = c;
                    if let Some(n) = b.get_mut(before + 1) {
                        *n = next;
                    }
                    for i in before..=len {
                        agree(&b, i);
                    }
                }
            }
        }
    }
}

/// Random buffers over a small alphabet of edge bytes (so stops come close together),
/// every length up to 160 (past the 64-byte blocks), from every offset.
#[test]
fn random_buffers_from_every_offset() {
    // Under Miri, fewer and longer buffers, from every 9th offset.
    let (buffers, step) = if cfg!(miri) { (6, 9) } else { (20_000, 1) };
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32
    };
    for _ in 0..buffers {
        // (Under Miri, all past the first 16 bytes and the next 32, most past a 64-byte
        // block too.)
        let len = if cfg!(miri) {
            80 + next() % 80
        } else {
            next() % 160
        } as usize;
        // One time in four, any byte; else mostly plain with the edges mixed in.
        let wild = next() % 4 == 0;
        let b: Vec<u8> = (0..len)
            .map(|_| {
                let r = next();
                if wild {
                    r as u8
                } else if r % 8 == 0 {
                    EDGES[(r >> 8) as usize % EDGES.len()]
                } else {
                    b'a' + (r >> 8) as u8 % 26
                }
            })
            .collect();
        for i in (0..=len + 1).step_by(step) {
            agree(&b, i);
        }
    }
}

/// The routines this build calls, on the same random shapes as above, fewer.
#[test]
fn the_build_uses_a_body() {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let (rounds, step) = if cfg!(miri) { (6, 9) } else { (2_000, 1) };
    for _ in 0..rounds {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = (state % 150) as usize;
        let b: Vec<u8> = (0..len)
            .map(|k| match (state >> (k % 60)) % 16 {
                0 => EDGES[k % EDGES.len()],
                _ => b'a',
            })
            .collect();
        for i in (0..=len + 1).step_by(step) {
            assert_eq!(super::plain_end(&b, i), scalar::plain_end(&b, i));
            assert_eq!(
                super::plain_ascii_end(&b, i),
                scalar::plain_ascii_end(&b, i)
            );
        }
    }
}

/// `plain_ascii_mask`, the build's and the SSE2 one, against the scalar one, and the
/// scalar mask against `plain_ascii_end`: its lowest bit is where the run ends.
#[test]
fn masks_agree() {
    let mut b: Vec<u8> = (0..=255u8).collect();
    b.extend_from_slice(b"plain text with a \" and a \\ and \x01 and caf\xc3\xa9 inside");
    let step = if cfg!(miri) { 7 } else { 1 };
    for i in (0..b.len() + 2).step_by(step) {
        let want = scalar::plain_ascii_mask(&b, i);
        assert_eq!(super::body::plain_ascii_mask(&b, i), want, "at {i}");
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        assert_eq!(super::sse2::plain_ascii_mask(&b, i), want, "sse2 at {i}");
        if let Some(m) = want {
            let end = scalar::plain_ascii_end(&b, i);
            if m == 0 {
                assert!(end >= i + 16);
            } else {
                assert_eq!(end, i + m.trailing_zeros() as usize);
            }
        } else {
            assert!(i + 16 > b.len());
        }
    }
}

/// `string_classes`, the build's and the SSE2 one, against the scalar one, and the
/// scalar one against its definition: every byte value at every position of a plain
/// block, every pair of edge bytes at two positions, and random blocks over the edges.
#[test]
fn classes_agree() {
    let check = |block: &[u8; 64]| {
        let want = scalar::string_classes::<true>(block);
        let checked = scalar::string_classes::<false>(block);
        assert_eq!(
            super::body::string_classes::<true>(block),
            want,
            "{block:02x?}"
        );
        assert_eq!(
            super::body::string_classes::<false>(block),
            checked,
            "{block:02x?}"
        );
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            assert_eq!(
                super::sse2::string_classes::<true>(block),
                want,
                "sse2 {block:02x?}"
            );
            assert_eq!(
                super::sse2::string_classes::<false>(block),
                checked,
                "sse2 {block:02x?}"
            );
        }
        let backslashes = scalar::backslash_bits(block);
        assert_eq!(super::body::backslash_bits(block), backslashes);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        assert_eq!(super::sse2::backslash_bits(block), backslashes);
        assert_eq!(backslashes, want.backslash);
        let plain = scalar::plain_bits(block);
        assert_eq!(super::body::plain_bits(block), plain, "{block:02x?}");
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        assert_eq!(super::sse2::plain_bits(block), plain, "sse2 {block:02x?}");
        assert_eq!(plain, checked.quote | checked.backslash | checked.other);
        let high = scalar::non_ascii_bits(block);
        assert_eq!(super::body::non_ascii_bits(block), high, "{block:02x?}");
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        assert_eq!(
            super::sse2::non_ascii_bits(block),
            high,
            "sse2 {block:02x?}"
        );
        for (k, &c) in block.iter().enumerate() {
            let bit = |mask: u64| mask >> k & 1 == 1;
            assert_eq!(bit(high), c >= 0x80);
            assert_eq!(bit(want.quote), c == b'"');
            assert_eq!(bit(want.backslash), c == b'\\');
            assert_eq!(bit(want.other), !(0x20..0x80).contains(&c));
            assert_eq!(
                (checked.quote, checked.backslash),
                (want.quote, want.backslash)
            );
            assert_eq!(bit(checked.other), c < 0x20);
        }
    };
    let step = if cfg!(miri) { 31 } else { 1 };
    let mut block = [b'a'; 64];
    for p in (0..64).step_by(step) {
        for c in (0..=255u8).step_by(step) {
            block[p] = c;
            check(&block);
        }
        block[p] = b'a';
    }
    let pairs: &[usize] = if cfg!(miri) {
        &[0, 63]
    } else {
        &[0, 1, 15, 16, 31, 32, 47, 48, 62, 63]
    };
    for &p in pairs {
        for &q in pairs {
            for &c in EDGES {
                for &d in EDGES {
                    block[p] = c;
                    block[q] = d;
                    check(&block);
                    block = [b'a'; 64];
                }
            }
        }
    }
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let rounds = if cfg!(miri) { 4 } else { 5_000 };
    for _ in 0..rounds {
        for c in &mut block {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let r = state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32;
            *c = if r % 3 == 0 {
                EDGES[(r >> 8) as usize % EDGES.len()]
            } else {
                b'a'
            };
        }
        check(&block);
    }
}

#[test]
fn find_byte_finds_the_first() {
    // Every length to three words and a tail, the byte at every place (or none),
    // among bytes one off it and its high-bit twin (the borrow cases of the trick).
    for byte in [b'\n', 0xFF, 0, 0x80] {
        for len in 0..30 {
            for at in 0..=len {
                let mut b: Vec<u8> = (0..len)
                    .map(|i| match i % 3 {
                        0 => byte.wrapping_add(1),
                        1 => byte.wrapping_sub(1),
                        _ => byte ^ 0x80,
                    })
                    .collect();
                if at < len {
                    b[at] = byte;
                    // A second one after it: the first is the answer.
                    if at + 3 < len {
                        b[at + 3] = byte;
                    }
                }
                let want = b.iter().position(|&c| c == byte);
                assert_eq!(super::find_byte(&b, byte), want, "{byte:#x} {len} {at}");
            }
        }
    }
}

/// Where the CPU has AVX2, the scanner's one-pass loop runs (so that the tests below
/// and the scanner's pin it, not only the SSE2 loop).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[test]
fn the_one_pass_string_loop_runs_where_the_cpu_has_avx2() {
    let ran = super::string_avx2::string_blocks(b"\"", 0, |_, _, _| Some(0)).is_some();
    assert_eq!(ran, std::is_x86_feature_detected!("avx2"));
}

/// Where the CPU has AVX-512 F and BW (and the compiler its intrinsics), the AVX-512
/// one-pass loop runs, and the scanner takes it (so that the tests below and the
/// scanner's pin it, not only the AVX2 loop).
#[cfg(all(target_arch = "x86_64", jsonrpc_slice_avx512, not(miri)))]
#[test]
fn the_one_pass_string_loop_runs_where_the_cpu_has_avx512() {
    let has = std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw");
    let ran = super::string_avx512::string_blocks(b"\"", 0, |_, _, _| Some(0)).is_some();
    assert_eq!(ran, has);
    assert_eq!(super::string_avx512::available(), has);
}

/// The one-pass loop's classes are the scalar body's (`string_avx2::agrees`) for every
/// byte value, at each edge of the two vectors of a block, in a block with and without
/// a backslash (before it, after it, apart: a quote or control character escaped or
/// not).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[test]
fn the_one_pass_classes_are_the_scalar_ones_for_every_byte() {
    for c in 0..=255u8 {
        for at in [0usize, 1, 30, 31, 32, 33, 62, 63] {
            for with in [None, Some(at ^ 1), Some(at.saturating_sub(1)), Some(40)] {
                let mut s = [b'a'; 130];
                if let Some(k) = with {
                    s[k] = b'\\';
                }
                s[at] = c;
                super::string_avx2::agrees(&s, 0, usize::MAX);
                super::string_avx2::agrees(&s, 1, usize::MAX);
            }
        }
    }
}

/// The one-pass loop's classes and UTF-8 verdict: characters of every width at every
/// offset of the first three blocks, the stop at every byte around them (a character
/// cut by the stop, or by a block edge with the check's state carried over); every
/// byte of such text replaced by one that breaks it, the stop before, at and after it;
/// from several offsets, and cut at every length near the end.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[test]
fn the_one_pass_loop_is_the_scalar_classes_and_core() {
    let mut checked = 0;
    for fill in ["a", "é", "東", "a\"\\\x01"] {
        for c in ["é", "€", "東", "😀", "\u{10ffff}", "\u{800}", "\u{ffff}"] {
            for at in 0..140 {
                let mut s = fill.repeat(at / fill.len()).into_bytes();
                s.resize(at, b'x');
                s.extend_from_slice(c.as_bytes());
                s.extend_from_slice(fill.repeat(70 / fill.len()).as_bytes());
                for stop in at.saturating_sub(2)..at + c.len() + 2 {
                    super::string_avx2::agrees(&s, 0, stop);
                    super::string_avx2::agrees(&s, 0, stop + 64);
                    checked += 2;
                }
                for len in [at, at + 1, at + c.len() - 1, at + c.len()] {
                    super::string_avx2::agrees(&s[..len], 0, usize::MAX);
                    super::string_avx2::agrees(&s[..len], 0, len);
                    checked += 2;
                }
            }
        }
    }
    let text = "plain, é, €, 😀, 東京, 한국어, \"quoted\" \\ and \x1f more".repeat(4);
    let text = text.as_bytes();
    for at in 0..text.len() {
        for with in [
            0x80u8, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF, b'a',
        ] {
            let mut b = text.to_vec();
            b[at] = with;
            for i in [0, 1, 63, 64] {
                for stop in [at, at + 1, at + 3, at + 64, usize::MAX] {
                    super::string_avx2::agrees(&b, i, stop);
                    checked += 1;
                }
            }
        }
    }
    for i in [
        0,
        5,
        64,
        text.len() - 3,
        text.len(),
        text.len() + 1,
        usize::MAX,
    ] {
        for stop in [0, 3, 200, usize::MAX] {
            super::string_avx2::agrees(text, i, stop);
        }
    }
    assert!(checked > 100_000, "{checked}");
}
