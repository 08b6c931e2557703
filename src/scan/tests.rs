//! The scanner against its naive oracle (`tests/common/naive_scan.rs`), and the trusted
//! skipper against the scanner.

extern crate std;
use std::vec::Vec;

use super::*;

/// The oracle (it takes the crate's error types from this module).
#[path = "../../tests/common/naive_scan.rs"]
mod naive;

fn ok(s: &[u8]) -> bool {
    validate(s, DEFAULT_MAX_DEPTH).is_ok()
}

#[test]
fn accepts_the_grammar() {
    for s in [
        &b"0"[..],
        b"-0",
        b"-0.5e-10",
        b"1E+2",
        b"123456789012345678901234567890",
        b"\"\\u00e9\\ud83d\\ude00\\/\"",
        b" [ ] ",
        b"{}",
        b"{\"a\":{\"b\":[true,false,null]}}",
        "\"é😀\"".as_bytes(),
    ] {
        assert!(ok(s), "{:?}", core::str::from_utf8(s));
    }
}

#[test]
fn rejects_with_kind_and_offset() {
    let cases: &[(&[u8], ScanErrorKind, usize)] = &[
        (b"", ScanErrorKind::UnexpectedEnd, 0),
        (b"[1,]", ScanErrorKind::UnexpectedByte, 3),
        (b"01", ScanErrorKind::TrailingCharacters, 1),
        (b"1.", ScanErrorKind::UnexpectedEnd, 2),
        (b"1.x", ScanErrorKind::InvalidNumber, 2),
        (b"\"\\x\"", ScanErrorKind::InvalidEscape, 2),
        (b"\"\\ud800\"", ScanErrorKind::LoneSurrogate, 1),
        (b"\"\\udc00\"", ScanErrorKind::LoneSurrogate, 1),
        (b"\"\x01\"", ScanErrorKind::ControlCharacter, 1),
        (b"\"\xc0\x80\"", ScanErrorKind::InvalidUtf8, 1),
        (b"\"\xed\xa0\x80\"", ScanErrorKind::InvalidUtf8, 2),
        (b"\"\xf4\x90\x80\x80\"", ScanErrorKind::InvalidUtf8, 2),
        (b"{\"a\" 1}", ScanErrorKind::UnexpectedByte, 5),
        (b"{\"a\":1,}", ScanErrorKind::UnexpectedByte, 7),
        (b"[1 2]", ScanErrorKind::UnexpectedByte, 3),
        (b"tru", ScanErrorKind::UnexpectedEnd, 3),
        (b"[}", ScanErrorKind::UnexpectedByte, 1),
    ];
    for &(input, kind, offset) in cases {
        let e = validate(input, DEFAULT_MAX_DEPTH).unwrap_err();
        assert_eq!((e.kind, e.offset), (kind, offset), "{input:?}");
    }
}

/// Inputs for the differential tests: the JSONTestSuite files, the bench messages,
/// each cut at every length, and each with single bytes changed.
/// Each of [`inputs`], then the same with whitespace after every `:` and `,`.
pub(super) fn compact_and_spaced() -> impl Iterator<Item = Vec<u8>> {
    inputs().into_iter().flat_map(|compact| {
        let mut spaced = Vec::new();
        for &c in &compact {
            spaced.push(c);
            if c == b':' || c == b',' {
                spaced.extend_from_slice(b" \n");
            }
        }
        [compact, spaced]
    })
}

fn inputs() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    // The conformance corpus, when it is there (see `tests/common/corpus.rs`).
    if let Some(root) = crate::test_corpus::corpus() {
        for dir in ["jsontestsuite/test_parsing", "bench"] {
            for e in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
                if e.path().extension().is_some_and(|x| x == "json") {
                    seeds.push(std::fs::read(e.path()).unwrap());
                }
            }
        }
    }
    // The crate's own: every rule of the grammar at least once.
    for s in [
        &br#"{"a":"\u00e9\ud83d\ude00\\\"x\/\b\f\n\r\t","b":[1,-0.5e+7,true,false,null,{}]}"#[..],
        "\"é😀 plain text long enough to need two words\"".as_bytes(),
        br#"["a\\\\]b", "\\\"]", "x\u005d\\]"]"#,
        br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
        br#" [ 0 , -0 , 0.0 , 1E2 , 1e-2 , -12.5E+3 , 123456789012345678901234567890 ] "#,
        b"\t\r\n {\"\" : \"\" , \"k\":[[[[[]]]],{},[{}]]}\n",
        br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"foo":"boo"},1]"#,
        "{\"text\":\"    let s = \\\"caf\\u00e9\\\";\\n\\t// naïve résumé ✓ 𝄞\\n\",\"version\":17}".as_bytes(),
        br#"{"jsonrpc":"2.0","id":7,"result":{"user":{"id":1042,"roles":["admin","dev"]},"items":[{"price":9.99,"qty":1,"tags":["red"]}]}}"#,
        b"\"\\u0000\\u001f \\uFFFF\\uDBFF\\uDFFF\\u0041\"",
        b"true",
        b"null",
        b"-1",
    ] {
        seeds.push(s.to_vec());
    }
    // Nesting past 64, objects and arrays mixed (the word walk keeps 64 levels in a
    // register), closed, and closed wrong deep down.
    let mut deep = Vec::new();
    for level in 0..100 {
        deep.extend_from_slice(if level % 3 == 1 { b"[1," } else { b"{\"k\":" });
    }
    deep.extend_from_slice(b"null");
    for level in (0..100).rev() {
        deep.push(if level % 3 == 1 { b']' } else { b'}' });
    }
    // Closed wrong where the kind is held in the register, and where it was spilled.
    for from_end in [70, 10] {
        let mut wrong = deep.clone();
        let at = wrong.len() - from_end;
        wrong[at] ^= b'}' ^ b']';
        seeds.push(wrong);
    }
    seeds.push(deep);
    // The same with empty containers at every level (opened and closed at once, where
    // the register is full too).
    let mut empties = Vec::new();
    for level in 0..100 {
        empties.extend_from_slice(if level % 3 == 1 {
            b"[{},[],"
        } else {
            b"{\"e\":[],\"k\":"
        });
    }
    empties.extend_from_slice(b"{}");
    for level in (0..100).rev() {
        empties.extend_from_slice(if level % 3 == 1 {
            b",{}]"
        } else {
            b",\"f\":{}}"
        });
    }
    seeds.push(empties);
    let mut all = Vec::new();
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    let specials = *b"\"\\]}[{,:u0 \x01\x7f\x80\xc3\xed\xf4";
    for seed in seeds {
        if seed.len() <= 2048 {
            for cut in 0..seed.len() {
                all.push(seed[..cut].to_vec());
            }
        }
        for _ in 0..64 {
            if seed.is_empty() {
                break;
            }
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (rng >> 33) as usize % seed.len();
            let with = specials[(rng >> 20) as usize % specials.len()];
            let mut m = seed.clone();
            m[at] = with;
            all.push(m);
        }
        all.push(seed);
    }
    all
}

/// The scanner gives the oracle's answer on every input: the same end, or the same
/// error (kind and offset); `value_end` likewise from every start.
#[test]
fn scanner_agrees_with_the_naive_oracle() {
    let mut accepted = 0;
    for input in inputs() {
        for depth in [DEFAULT_MAX_DEPTH, 3, 0] {
            let want = naive::validate(&input, depth as usize);
            let got = text(&input, depth).map(|(_, end)| end);
            assert_eq!(
                got,
                want,
                "{:?}",
                std::string::String::from_utf8_lossy(&input)
            );
            accepted += want.is_ok() as usize;
        }
        if input.len() <= 300 {
            for i in 0..input.len() {
                assert_eq!(
                    value_end(&input, i, DEFAULT_MAX_DEPTH),
                    naive::value_end(&input, skip_ws(&input, i), DEFAULT_MAX_DEPTH as usize),
                    "{input:?} from {i}"
                );
            }
        }
    }
    // At least every own seed (all valid); with the corpus, a thousand and more.
    let least = if crate::test_corpus::corpus().is_some() {
        1000
    } else {
        13
    };
    assert!(accepted >= least, "{accepted} accepted, fewer than {least}");
}

/// Every other walk of the build gives the general walk's answer on every input (the
/// inputs above, and each again with whitespace after every `:` and `,`), at three
/// depth limits and from every start: the same end or the same error. On the fast
/// build the word walk, inline and out of line; on the compact build the general
/// walk's out-of-line copy.
#[test]
fn other_walks_agree_with_the_general_walk() {
    let mut checked = 0;
    for input in compact_and_spaced() {
        let starts = if input.len() <= 300 { input.len() } else { 1 };
        for i in 0..starts.max(1) {
            for depth in [DEFAULT_MAX_DEPTH, 3, 0] {
                let want = value::general(&input, i, depth);
                for (copy, got) in build::other_walks(&input, i, depth) {
                    assert_eq!(got, want, "{copy}: {input:?} from {i}, depth {depth}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// The trusted skipper finds the same ends as the scanner, and on any input ends within
/// it without panicking.
#[test]
fn trusted_skips_agree_and_never_run_past_the_end() {
    for input in inputs() {
        let start = skip_ws(&input, 0);
        if let Ok((_, end)) = text(&input, DEFAULT_MAX_DEPTH) {
            assert_eq!(skip_trusted(&input, start), end, "{input:?}");
        }
        if input.len() > 512 {
            continue;
        }
        for i in 0..input.len() {
            assert!(skip_trusted(&input, i) <= input.len());
        }
    }
}

/// `next_item` (the separator after an item, its whitespace out of line) is
/// `after_separator`, from every offset of every input, valid or not, for both
/// separators, and the separator after a skipped value is within the input.
#[test]
fn next_item_is_after_separator() {
    let own: [&[u8]; 6] = [
        br#"[1,2 , 3 ,4 ]"#,
        br#"{"a":1,"b" : true ,"c":null}"#,
        b"[1,\n2,\t\"x\",[3] ,{\"k\":4},5",
        b"[1,",
        b"[-0.5e+3]",
        b"tru",
    ];
    let mut checked = 0;
    for input in inputs().into_iter().chain(own.iter().map(|b| b.to_vec())) {
        if input.len() > 512 {
            continue;
        }
        for i in 0..=input.len() {
            for sep in [b',', b':'] {
                let end = skip_trusted(&input, i);
                assert!(after_separator(&input, end, sep) <= input.len());
                // The separator alone, after a value that ends at `i`.
                let after = after_separator(&input, i, sep);
                assert_eq!(next_item(&input, i, sep), after, "{input:?} at {i}");
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// Nesting far past anything recursion could take costs no stack: the bit stack.
#[test]
fn deep_nesting_is_refused_or_walked_without_recursion() {
    let deep: Vec<u8> = core::iter::repeat(b'[')
        .take(100_000)
        .chain(core::iter::repeat(b']').take(100_000))
        .collect();
    let e = validate(&deep, MAX_DEPTH_LIMIT).unwrap_err();
    assert_eq!(
        (e.kind, e.offset),
        (ScanErrorKind::TooDeep, MAX_DEPTH_LIMIT as usize)
    );
    let ok: Vec<u8> = core::iter::repeat(b'[')
        .take(1024)
        .chain(core::iter::repeat(b']').take(1024))
        .collect();
    assert!(validate(&ok, MAX_DEPTH_LIMIT).is_ok());
}

#[test]
fn depth_limit_is_exact() {
    let mut buf = [0u8; 300];
    for depth in [1usize, 127, 128, 129, 150] {
        buf[..depth].fill(b'[');
        buf[depth..2 * depth].fill(b']');
        let r = validate(&buf[..2 * depth], 128);
        assert_eq!(r.is_ok(), depth <= 128, "depth {depth}");
    }
    assert!(validate(b"[[1]]", 2).is_ok());
    assert_eq!(
        validate(b"[[1]]", 1).unwrap_err().kind,
        ScanErrorKind::TooDeep
    );
}

/// A nesting limit above [`MAX_DEPTH_LIMIT`] is clamped where it comes in (the walks
/// take it as given): `validate` and `value_end` accept 1,024 nested arrays and refuse
/// 1,025 as too deep, at `u16::MAX` as at the limit itself, on both sides of the word
/// walk's 16 bytes.
#[test]
fn a_limit_above_the_largest_is_clamped() {
    let nested = |n: usize| {
        let mut b = std::vec![b'['; n];
        b.extend(std::iter::repeat(b']').take(n));
        b
    };
    let deepest = MAX_DEPTH_LIMIT as usize;
    for limit in [MAX_DEPTH_LIMIT, MAX_DEPTH_LIMIT + 1, u16::MAX] {
        assert_eq!(validate(&nested(deepest), limit), Ok(()), "{limit}");
        assert_eq!(
            value_end(&nested(deepest), 0, limit),
            Ok(2 * deepest),
            "{limit}"
        );
        let err = validate(&nested(deepest + 1), limit).unwrap_err();
        assert_eq!(
            (err.kind, err.offset),
            (ScanErrorKind::TooDeep, deepest),
            "{limit}"
        );
        let err = value_end(&nested(deepest + 1), 0, limit).unwrap_err();
        assert_eq!(err.kind, ScanErrorKind::TooDeep, "{limit}");
        // Short inputs take the general walk.
        assert_eq!(validate(&nested(3), limit), Ok(()), "{limit}");
    }
}

/// The build is the one asked for: the fast one where `JSONRPC_SLICE_FAST=1` or
/// `--cfg jsonrpc_slice_fast` asked for it (what CI's run of the suite on a 32-bit
/// target relies on), the compact one where `--cfg jsonrpc_slice_compact` or
/// `JSONRPC_SLICE_COMPACT=1` did (CI's run of the suite on the compact build), else
/// the pointer width's: fast on 64-bit targets, compact on the others.
#[test]
fn the_build_is_the_one_asked_for() {
    let asked = env!("JSONRPC_SLICE_ASKED");
    let fast = option_env!("JSONRPC_SLICE_FAST") == Some("1") || asked == "fast";
    let compact = cfg!(jsonrpc_slice_compact)
        || option_env!("JSONRPC_SLICE_COMPACT") == Some("1")
        || asked == "compact";
    assert!(!(fast && compact), "build.rs refuses both");
    let want_fast = fast || (!compact && cfg!(target_pointer_width = "64"));
    assert_eq!(cfg!(jsonrpc_slice_fast), want_fast, "asked: {asked:?}");
}

/// Strings and keys of every length to 40, each ended by each kind of stop of a plain
/// run (the quote, an escape, a control byte, non-ASCII), at every offset of the
/// input, cut at every length: the word walk reads a run that ends within 16 bytes of
/// its start from one window of 24 bytes, and the rest past its end; its copies give
/// the general walk's answer on each.
/// Every walk gives the general walk's verdict on `input`, from its start (depth 8).
fn walks_agree_from_the_start(input: &[u8]) {
    let want = value::general(input, 0, 8);
    for (_, got) in build::other_walks(input, 0, 8) {
        assert_eq!(
            got,
            want,
            "{:?}",
            std::string::String::from_utf8_lossy(input)
        );
    }
}

/// A key and its string value, read at once by the word walk's `nested_key` where they
/// fit its masks: every key length around the first mask's 16 bytes, every value
/// length around both masks' 32, a value that stops (an escape, non-ASCII, a control
/// byte, a quote too early) at its end, first members and later ones, and every cut
/// of some of them: all four walks agree.
#[test]
fn keys_with_string_values_agree() {
    let mut checked = 0;
    for key_len in 0..=20 {
        let key = "k".repeat(key_len);
        for value_len in 0..=36 {
            let value = "v".repeat(value_len);
            for stop in ["", "\\n", "é", "\u{1}", "\"", " "] {
                for tail in ["", "                                        "] {
                    for doc in [
                        std::format!("{{\"{key}\":\"{value}{stop}\"}}{tail}"),
                        std::format!("{{\"a\":1,\"{key}\":\"{value}{stop}\",\"x\":[1]}}{tail}"),
                        std::format!("[{{\"a\":1,\"{key}\": \"{value}{stop}\" }}]{tail}"),
                    ] {
                        let doc = doc.as_bytes();
                        let cuts = if matches!(key_len, 0 | 13 | 16) && tail.is_empty() {
                            0..=doc.len()
                        } else {
                            doc.len()..=doc.len()
                        };
                        for cut in cuts {
                            walks_agree_from_the_start(&doc[..cut]);
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 50_000, "{checked}");
}

/// A key and a number after it: the word walk reads the number from the word its key's
/// window holds (`nested_key`), with no second read: every key length around the
/// window's mask, numbers of every shape and length around the eight bytes of a word
/// (short ones, long ones, fractions, exponents, signs, zeros, and broken ones), first
/// members and later ones, and every cut of them: all walks agree with the general one.
#[test]
fn keys_with_number_values_agree() {
    let numbers = [
        "0",
        "7",
        "42",
        "465.78",
        "6.532",
        "123456",
        "1234567",
        "12345678",
        "123456789",
        "-0",
        "-5",
        "-12.5",
        "0.25",
        "1e5",
        "2.5E+10",
        "12345.5e-3",
        "01",
        "1.",
        "1.e3",
        "-",
        "-x",
        "1234567.125",
        "9.99",
    ];
    let mut checked = 0;
    for key_len in 0..=18 {
        let key = "k".repeat(key_len);
        for number in numbers {
            // Without the tail, the key's window (40 bytes) is past the end.
            let tail = " ".repeat(40);
            for doc in [
                std::format!("{{\"{key}\":{number}}}"),
                std::format!("{{\"a\":\"b\",\"{key}\":{number},\"x\":[1]}}{tail}"),
                std::format!("[{{\"a\":1,\"{key}\":{number} }},2]{tail}"),
                std::format!("{{\"a\":null,\"{key}\":{number}]{tail}"),
            ] {
                let doc = doc.as_bytes();
                for cut in 0..=doc.len() {
                    walks_agree_from_the_start(&doc[..cut]);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn plain_runs_of_every_length_agree() {
    let mut checked = 0;
    for len in 0..=40 {
        let run = "k".repeat(len);
        for stop in ["", "\\n", "\u{1}", "é", "\\u00e9"] {
            for pad in 0..3 {
                let pad = " ".repeat(pad * 5);
                for doc in [
                    std::format!("[{pad}\"{run}{stop}\",1]"),
                    std::format!("{{{pad}\"{run}{stop}\":[\"{run}\"],\"x\":{pad}\"{stop}{run}\"}}"),
                ] {
                    let doc = doc.as_bytes();
                    for cut in 0..=doc.len() {
                        walks_agree_from_the_start(&doc[..cut]);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 20_000, "{checked}");
}
