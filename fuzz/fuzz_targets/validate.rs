//! `scan::validate(data, 128)` against serde_json, then the element and member spans of
//! `RawJson` against serde_json's `RawValue`s.
//!
//! Same verdict as serde_json's `from_slice::<&RawValue>` (grammar and strict UTF-8,
//! numbers as lexemes: `1e400` is fine for both), except for the two documented
//! differences, decided exactly rather than skipped: more than 128 nested containers
//! (`TooDeep` here; `RawValue` has no limit, and `Value`'s limit is one lower than
//! ours) and unpaired `\u` surrogate escapes (`LoneSurrogate` here). First of all, the
//! exact answer (the end, or the error's kind and offset) of the naive byte-at-a-time
//! oracle of `tests/common/naive_scan.rs`. Also `envelope::parse` and `parse_response`
//! (which read through the envelope's quick reader) against a reference reader
//! (`envelope::fuzzing::quick_reader_agrees`, the unit tests' check), at three nesting
//! limits. And every other walk of the build against the general one (on the fast
//! build the word walk inline and out of line). And `RawJson::at` against the chain of
//! `get` and `nth` calls on paths of one and two steps.
#![no_main]

use jsonrpc_slice::raw::Step;
use jsonrpc_slice::scan::{validate, value_end, ScanError, ScanErrorKind};
use jsonrpc_slice::{Kind, RawJson};
use jsonrpc_slice_fuzz::{self as oracle, offset, Members};
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;

/// The scanner's oracle (it takes `ScanError` and `ScanErrorKind` from here).
#[path = "../../tests/common/naive_scan.rs"]
mod naive;

fuzz_target!(|data: &[u8]| {
    for depth in [1, 2, 128] {
        jsonrpc_slice::envelope::fuzzing::quick_reader_agrees(data, depth);
        jsonrpc_slice::scan::fuzzing::walks_agree(data, depth);
    }
    let ours = validate(data, 128);
    assert_eq!(
        ours,
        naive::validate(data, 128).map(|_| ()),
        "the naive oracle's verdict"
    );
    // (JSON whitespace: space, tab, line feed, carriage return; not form feed.)
    if let Some(i) = data.iter().position(|c| !b" \t\n\r".contains(c)) {
        assert_eq!(value_end(data, 0, 128), naive::value_end(data, i, 128));
    }
    if !oracle::serde_accepts(data) {
        assert!(ours.is_err(), "accepted, serde_json rejects");
        return;
    }
    let too_deep = oracle::nesting(data) > oracle::MAX_DEPTH;
    let lone = oracle::has_unpaired_surrogate(data);
    if let Err(e) = ours {
        let excused = (too_deep && e.kind == ScanErrorKind::TooDeep)
            || (lone && e.kind == ScanErrorKind::LoneSurrogate);
        assert!(excused, "rejected ({e}), serde_json accepts");
        return;
    }
    assert!(
        !too_deep && !lone,
        "accepted too deep a nesting or a lone surrogate"
    );

    let v = RawJson::new(data).expect("validated");
    let trimmed = (offset(data, v.as_bytes()), v.as_bytes().len());
    let (start, len) = trimmed;
    assert_eq!(value_end(data, 0, 128), Ok(start + len));
    assert!(data[..start]
        .iter()
        .chain(&data[start + len..])
        .all(u8::is_ascii_whitespace));
    let span = |raw: &RawValue| (offset(data, raw.get().as_bytes()), raw.get().len());
    match v.kind() {
        Kind::Array => {
            let theirs: Vec<&RawValue> = serde_json::from_slice(data).expect("an array");
            let theirs: Vec<_> = theirs.into_iter().map(span).collect();
            let ours: Vec<_> = v
                .elements()
                .map(|e| (offset(data, e.as_bytes()), e.as_bytes().len()))
                .collect();
            assert_eq!(ours, theirs, "element spans");
            // The fused integer read: each element's i64, as `str::parse` reads the
            // element's text (for a JSON value, an integer lexeme that fits, `-0`
            // included; `1.0` and `1e2` are not integers).
            let mut elements = v.elements();
            for &(start, len) in &theirs {
                let text = &data[start..start + len];
                let want = std::str::from_utf8(text).ok().and_then(|t| t.parse::<i64>().ok());
                let got = elements.next_i64().expect("an element");
                assert_eq!(got.ok(), want, "next_i64 of {text:?}");
                if let Err(raw) = got {
                    assert_eq!(offset(data, raw.as_bytes()), start, "next_i64's element");
                }
            }
            assert_eq!(elements.next_i64(), None, "next_i64 past the end");
        }
        Kind::Object => {
            let Members(theirs) = serde_json::from_slice(data).expect("an object");
            let ours: Vec<_> = v.members().collect();
            assert_eq!(ours.len(), theirs.len(), "member count");
            for ((key, value), (their_key, their_value)) in ours.iter().zip(&theirs) {
                assert!(key.eq_str(their_key), "key {key:?} vs {their_key:?}");
                let span_ours = (offset(data, value.as_bytes()), value.as_bytes().len());
                assert_eq!(span_ours, span(their_value), "member value span");
            }
        }
        _ => {}
    }
    paths_agree(v);
});

/// A step of a path, its key owned (decoded from the input).
enum Owned {
    Key(String),
    Index(usize),
}

impl Owned {
    fn step(&self) -> Step<'_> {
        match self {
            Owned::Key(k) => Step::Key(k),
            Owned::Index(i) => Step::Index(*i),
        }
    }
}

/// The steps into `v` worth trying: the keys of its first 8 members (decoded) or the
/// indices of its first 8 elements, one past the last, and a key no member has.
fn steps(v: RawJson<'_>) -> Vec<Owned> {
    let mut steps: Vec<Owned> = v
        .members()
        .take(8)
        .map(|(k, _)| Owned::Key(k.to_string()))
        .collect();
    steps.extend((0..=v.elements().take(8).count()).map(Owned::Index));
    steps.push(Owned::Key("\u{0}absent".to_string()));
    steps
}

/// `at` answers what the chain of `get` and `nth` calls answers (the same value, at the
/// same place in the input), on paths of one and two steps from `v`.
fn paths_agree(v: RawJson<'_>) {
    let chain = |path: &[Step<'_>]| {
        path.iter().try_fold(v, |v, step| match *step {
            Step::Key(k) => v.get(k),
            Step::Index(i) => v.nth(i),
        })
    };
    let same = |a: Option<RawJson<'_>>, b: Option<RawJson<'_>>| match (a, b) {
        (Some(a), Some(b)) => a.as_bytes().as_ptr() == b.as_bytes().as_ptr() && a == b,
        (a, b) => a.is_none() && b.is_none(),
    };
    assert!(same(v.at(&[]), Some(v)), "the empty path");
    for first in steps(v) {
        let one = [first.step()];
        assert!(same(v.at(&one), chain(&one)), "at one step");
        let Some(inner) = chain(&one) else { continue };
        for second in steps(inner) {
            let two = [first.step(), second.step()];
            assert!(same(v.at(&two), chain(&two)), "at two steps");
        }
    }
}
