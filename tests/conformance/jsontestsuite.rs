//! JSONTestSuite conformance (`nst/JSONTestSuite`, `test_parsing/`).
//!
//! - every `y_` file is accepted and every `n_` file rejected by `scan::validate`, by
//!   `RawJson::new` and by `envelope::parse`;
//! - every `i_` file gets the verdict written down in [`I_VERDICTS`] (and that table
//!   lists exactly the `i_` files on disk);
//! - through `Server::handle`, an `n_` file is answered by exactly one `-32700` with
//!   `"id":null`, and a `y_` file never is;
//! - the lazy views of `RawJson` (`kind`, `elements`, `nth`, `members`, `get`, string
//!   decoding, `as_i64`/`as_f64`) read every `y_` file as serde_json reads it;
//! - serde_json agrees on every `y_` and `n_` file; where it decides an `i_` file the
//!   other way, [`SERDE_JSON_I_DIFFERENCES`] records it (printed, not a failure).
//!
//! The corpus lives outside the crate, in `jsontestsuite/test_parsing/` of the
//! conformance corpus (see `tests/common/corpus.rs` for where it is looked for).

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use jsonrpc_slice::envelope;
use jsonrpc_slice::scan::{self, ScanErrorKind, DEFAULT_MAX_DEPTH};
use jsonrpc_slice::{demo, Kind, Limits, RawJson, RawStr, Server};
use serde_json::{json, Value};

/// The counts of the stored corpus (commit `1ef36fa0` of JSONTestSuite).
const TOTAL_FILES: usize = 318;
const Y_FILES: usize = 95;
const N_FILES: usize = 188;
const I_FILES: usize = 35;

static SERVER: Server<()> = Server::new(demo::TABLE);

/// What this crate decides for an implementation-defined (`i_`) file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Accept,
    Reject(ScanErrorKind),
}

use ScanErrorKind::{InvalidUtf8, LoneSurrogate, TooDeep, UnexpectedByte};
use Verdict::{Accept, Reject};

/// The verdict for every `i_` file: (file name, verdict, why).
///
/// Decisions: a number is kept as its lexeme and never converted, so any size or
/// exponent is accepted; strings must be strict UTF-8 and `\u` surrogate escapes must
/// pair up; the input is UTF-8 without a BOM; nesting is limited to
/// `DEFAULT_MAX_DEPTH` (128) containers.
#[rustfmt::skip]
const I_VERDICTS: &[(&str, Verdict, &str)] = &[
    ("i_number_double_huge_neg_exp.json", Accept, "123.456e-789: the lexeme is kept, never converted"),
    ("i_number_huge_exp.json", Accept, "0.4e00669999...: any exponent length, lexeme kept"),
    ("i_number_neg_int_huge_exp.json", Accept, "-1e+9999: beyond f64 range, lexeme kept"),
    ("i_number_pos_double_huge_exp.json", Accept, "1.5e+9999: beyond f64 range, lexeme kept"),
    ("i_number_real_neg_overflow.json", Accept, "-123123e100000: beyond f64 range, lexeme kept"),
    ("i_number_real_pos_overflow.json", Accept, "123123e100000: beyond f64 range, lexeme kept"),
    ("i_number_real_underflow.json", Accept, "123e-10000000: underflows f64, lexeme kept"),
    ("i_number_too_big_neg_int.json", Accept, "-123123123123123123123123123123: beyond i64, lexeme kept"),
    ("i_number_too_big_pos_int.json", Accept, "100000000000000000000: beyond u64, lexeme kept"),
    ("i_number_very_big_negative_int.json", Accept, "a 60-digit negative integer: lexeme kept"),
    ("i_object_key_lone_2nd_surrogate.json", Reject(LoneSurrogate), "key \\uDFAA: a low surrogate escape with no high one"),
    ("i_string_1st_surrogate_but_2nd_missing.json", Reject(LoneSurrogate), "\\uDADA then the closing quote: high surrogate alone"),
    ("i_string_1st_valid_surrogate_2nd_invalid.json", Reject(LoneSurrogate), "\\uD888\\u1234: high surrogate followed by a non-surrogate"),
    ("i_string_UTF-16LE_with_BOM.json", Reject(UnexpectedByte), "UTF-16LE with BOM: input must be UTF-8, 0xFF cannot start a value"),
    ("i_string_UTF-8_invalid_sequence.json", Reject(InvalidUtf8), "0xFA is not a UTF-8 lead byte"),
    ("i_string_UTF8_surrogate_U+D800.json", Reject(InvalidUtf8), "ED A0 80: a surrogate encoded in UTF-8"),
    ("i_string_incomplete_surrogate_and_escape_valid.json", Reject(LoneSurrogate), "\\uD800\\n: high surrogate followed by another escape"),
    ("i_string_incomplete_surrogate_pair.json", Reject(LoneSurrogate), "\\uDd1ea: a low surrogate escape alone"),
    ("i_string_incomplete_surrogates_escape_valid.json", Reject(LoneSurrogate), "\\uD800\\uD800\\n: two high surrogates"),
    ("i_string_invalid_lonely_surrogate.json", Reject(LoneSurrogate), "\\ud800 alone"),
    ("i_string_invalid_surrogate.json", Reject(LoneSurrogate), "\\ud800abc: high surrogate followed by plain text"),
    ("i_string_invalid_utf-8.json", Reject(InvalidUtf8), "0xFF never occurs in UTF-8"),
    ("i_string_inverted_surrogates_U+1D11E.json", Reject(LoneSurrogate), "\\uDd1e\\uD834: low before high"),
    ("i_string_iso_latin_1.json", Reject(InvalidUtf8), "0xE9 (latin-1 e-acute) is a cut UTF-8 sequence"),
    ("i_string_lone_second_surrogate.json", Reject(LoneSurrogate), "\\uDFAA: a low surrogate escape alone"),
    ("i_string_lone_utf8_continuation_byte.json", Reject(InvalidUtf8), "0x81: a continuation byte without a lead"),
    ("i_string_not_in_unicode_range.json", Reject(InvalidUtf8), "F4 BF BF BF: above U+10FFFF"),
    ("i_string_overlong_sequence_2_bytes.json", Reject(InvalidUtf8), "C0 AF: overlong form of '/'"),
    ("i_string_overlong_sequence_6_bytes.json", Reject(InvalidUtf8), "FC ...: 6-byte forms are not UTF-8"),
    ("i_string_overlong_sequence_6_bytes_null.json", Reject(InvalidUtf8), "FC 80 80 80 80 80: overlong 6-byte NUL"),
    ("i_string_truncated-utf-8.json", Reject(InvalidUtf8), "E0 FF: a cut 3-byte sequence"),
    ("i_string_utf16BE_no_BOM.json", Reject(UnexpectedByte), "UTF-16BE: input must be UTF-8, 0x00 cannot start a value"),
    ("i_string_utf16LE_no_BOM.json", Reject(UnexpectedByte), "UTF-16LE: input must be UTF-8, 0x00 after '[' is not a value"),
    ("i_structure_500_nested_arrays.json", Reject(TooDeep), "500 nested arrays exceed DEFAULT_MAX_DEPTH (128)"),
    ("i_structure_UTF-8_BOM_empty_object.json", Reject(UnexpectedByte), "EF BB BF {}: a UTF-8 BOM is not JSON whitespace"),
];

/// Where serde_json 1.x (`from_slice::<Value>`, default recursion limit 128) decides an
/// `i_` file differently from [`I_VERDICTS`]: (file name, serde_json accepts, why).
/// A record, not a requirement: the test prints any change instead of failing.
#[rustfmt::skip]
const SERDE_JSON_I_DIFFERENCES: &[(&str, bool, &str)] = &[
    ("i_number_huge_exp.json", false, "serde_json converts numbers to f64: 0.4e00669999... overflows (\"number out of range\")"),
    ("i_number_neg_int_huge_exp.json", false, "-1e+9999 overflows f64: \"number out of range\""),
    ("i_number_pos_double_huge_exp.json", false, "1.5e+9999 overflows f64: \"number out of range\""),
    ("i_number_real_neg_overflow.json", false, "-123123e100000 overflows f64: \"number out of range\""),
    ("i_number_real_pos_overflow.json", false, "123123e100000 overflows f64: \"number out of range\""),
];

/// The `test_parsing` folder, resolved from the crate root.
fn suite_dir() -> PathBuf {
    crate::corpus()
        .expect("the tests check for the corpus first")
        .join("jsontestsuite/test_parsing")
}

/// Every file of the suite as (name, bytes), sorted by name. Panics if the corpus is
/// missing or unreadable.
fn suite() -> &'static [(String, Vec<u8>)] {
    static SUITE: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    SUITE.get_or_init(|| {
        let dir = suite_dir();
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| {
            panic!(
                "JSONTestSuite corpus missing at {}: {e} (it must sit beside the repository, \
                 see ../shared/corpus/README.md)",
                dir.display()
            )
        });
        let mut files: Vec<(String, Vec<u8>)> = entries
            .map(|entry| {
                let entry = entry.expect("read_dir entry");
                let name = entry.file_name().into_string().expect("UTF-8 file name");
                let bytes = fs::read(entry.path())
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", entry.path().display()));
                (name, bytes)
            })
            .collect();
        files.sort();
        files
    })
}

fn with_prefix(prefix: &'static str) -> impl Iterator<Item = &'static (String, Vec<u8>)> {
    suite()
        .iter()
        .filter(move |(name, _)| name.starts_with(prefix))
}

fn verdict_of(bytes: &[u8]) -> Verdict {
    match scan::validate(bytes, DEFAULT_MAX_DEPTH) {
        Ok(()) => Accept,
        Err(e) => Reject(e.kind),
    }
}

/// Panics with every failure listed, rather than with the first one.
fn assert_no_failures(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{what}: {} failure(s):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

fn show(bytes: &[u8]) -> String {
    let shown: String = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).into_owned();
    if bytes.len() > 80 {
        format!("{shown:?}... ({} bytes)", bytes.len())
    } else {
        format!("{shown:?}")
    }
}

#[test]
fn corpus_has_the_expected_files() {
    let Some(_) = crate::corpus() else { return };
    let files = suite();
    let count = |p| with_prefix(p).count();
    assert_eq!(
        (files.len(), count("y_"), count("n_"), count("i_")),
        (TOTAL_FILES, Y_FILES, N_FILES, I_FILES),
        "(total, y_, n_, i_) in {}",
        suite_dir().display()
    );
    for (name, _) in files {
        assert!(name.ends_with(".json"), "unexpected file {name}");
    }
}

#[test]
fn every_y_file_is_accepted() {
    let Some(_) = crate::corpus() else { return };
    let failures: Vec<String> = with_prefix("y_")
        .filter_map(|(name, bytes)| {
            scan::validate(bytes, DEFAULT_MAX_DEPTH)
                .err()
                .map(|e| format!("{name}: rejected ({e}) {}", show(bytes)))
        })
        .collect();
    assert_no_failures("y_ files rejected by scan::validate", &failures);
    assert_eq!(with_prefix("y_").count(), Y_FILES);
}

#[test]
fn every_n_file_is_rejected() {
    let Some(_) = crate::corpus() else { return };
    let failures: Vec<String> = with_prefix("n_")
        .filter(|(_, bytes)| scan::validate(bytes, DEFAULT_MAX_DEPTH).is_ok())
        .map(|(name, bytes)| format!("{name}: accepted {}", show(bytes)))
        .collect();
    assert_no_failures("n_ files accepted by scan::validate", &failures);
    assert_eq!(with_prefix("n_").count(), N_FILES);
}

#[test]
fn verdict_table_lists_exactly_the_i_files() {
    let Some(_) = crate::corpus() else { return };
    let on_disk: BTreeSet<&str> = with_prefix("i_").map(|(name, _)| name.as_str()).collect();
    let in_table: BTreeSet<&str> = I_VERDICTS.iter().map(|&(name, _, _)| name).collect();
    assert_eq!(in_table.len(), I_VERDICTS.len(), "a name is listed twice");
    let missing_from_table: Vec<_> = on_disk.difference(&in_table).collect();
    let missing_on_disk: Vec<_> = in_table.difference(&on_disk).collect();
    assert!(
        missing_from_table.is_empty(),
        "i_ files with no verdict: {missing_from_table:?}"
    );
    assert!(
        missing_on_disk.is_empty(),
        "verdicts for files not on disk: {missing_on_disk:?}"
    );
    assert_eq!(I_VERDICTS.len(), I_FILES);
}

#[test]
fn every_i_file_gets_its_documented_verdict() {
    let Some(_) = crate::corpus() else { return };
    let failures: Vec<String> = I_VERDICTS
        .iter()
        .filter_map(|&(name, want, why)| {
            let (_, bytes) = with_prefix("i_").find(|(n, _)| n == name)?;
            let got = verdict_of(bytes);
            (got != want).then(|| format!("{name}: want {want:?} ({why}), got {got:?}"))
        })
        .collect();
    assert_no_failures("i_ verdicts", &failures);
}

/// The other entry points run the same grammar: `RawJson::new` and `envelope::parse`
/// accept exactly what `scan::validate` accepts, for all 318 files.
#[test]
fn raw_json_and_envelope_agree_with_scan() {
    let Some(_) = crate::corpus() else { return };
    let mut failures = Vec::new();
    for (name, bytes) in suite() {
        let scan = scan::validate(bytes, DEFAULT_MAX_DEPTH).map_err(|e| e.kind);
        let raw = RawJson::new(bytes).map(|_| ()).map_err(|e| e.kind);
        let env = envelope::parse(bytes, &Limits::DEFAULT)
            .map(|_| ())
            .map_err(|e| e.kind);
        if raw != scan {
            failures.push(format!("{name}: scan {scan:?}, RawJson::new {raw:?}"));
        }
        if env.is_ok() != scan.is_ok() {
            failures.push(format!("{name}: scan {scan:?}, envelope::parse {env:?}"));
        }
    }
    assert_no_failures("entry points disagree", &failures);
}

/// A decoded string view, as a Rust string (escapes resolved by `RawStr::bytes`).
fn decoded(s: RawStr<'_>) -> Result<String, String> {
    String::from_utf8(s.bytes().collect()).map_err(|e| format!("decoded {s:?}: {e}"))
}

/// Compares a `RawJson` view with serde_json's reading of the same value, walking
/// down through `elements`/`nth` and `members`/`get`.
fn same_value(path: &str, raw: RawJson<'_>, want: &Value) -> Result<(), String> {
    let differ = |what: String| Err(format!("{path}: {what} (raw {raw}, serde_json {want})"));
    match want {
        Value::Null => {
            if !raw.is_null() {
                return differ("not null".into());
            }
        }
        Value::Bool(b) => {
            if raw.kind() != Kind::Bool || raw.as_bool() != Some(*b) {
                return differ("bool differs".into());
            }
        }
        Value::Number(n) => {
            if raw.kind() != Kind::Number {
                return differ("not a number".into());
            }
            if let Some(i) = n.as_i64() {
                if raw.as_i64() != Some(i) {
                    return differ(format!("as_i64 {:?}", raw.as_i64()));
                }
            }
            if n.as_u64().is_some() && raw.as_u64() != n.as_u64() {
                return differ(format!("as_u64 {:?}", raw.as_u64()));
            }
            if raw.as_f64() != n.as_f64() {
                return differ(format!("as_f64 {:?}", raw.as_f64()));
            }
        }
        Value::String(s) => {
            let Some(got) = raw.as_str() else {
                return differ("not a string".into());
            };
            if decoded(got)? != *s || !got.eq_str(s) {
                return differ("decoded string differs".into());
            }
            let mut buf = vec![0u8; s.len()];
            if got.unescape_into(&mut buf) != Some(s.as_str()) {
                return differ("unescape_into differs".into());
            }
        }
        Value::Array(items) => {
            if raw.kind() != Kind::Array {
                return differ("not an array".into());
            }
            let elements: Vec<RawJson<'_>> = raw.elements().collect();
            if elements.len() != items.len() || raw.nth(items.len()).is_some() {
                return differ(format!("{} elements", elements.len()));
            }
            for (i, (element, item)) in elements.iter().zip(items).enumerate() {
                if raw.nth(i) != Some(*element) {
                    return differ(format!("nth({i}) is not the element"));
                }
                same_value(&format!("{path}[{i}]"), *element, item)?;
            }
        }
        Value::Object(map) => {
            if raw.kind() != Kind::Object {
                return differ("not an object".into());
            }
            // serde_json keeps the last of duplicate keys; `get` answers the first.
            let mut last: Vec<(String, RawJson<'_>)> = Vec::new();
            let mut first: Vec<(String, RawJson<'_>)> = Vec::new();
            for (key, value) in raw.members() {
                let key = decoded(key)?;
                if !first.iter().any(|(k, _)| *k == key) {
                    first.push((key.clone(), value));
                }
                last.retain(|(k, _)| *k != key);
                last.push((key, value));
            }
            if last.len() != map.len() {
                return differ(format!("{} distinct keys", last.len()));
            }
            for (key, value) in &last {
                let Some(item) = map.get(key) else {
                    return differ(format!("key {key:?} not in serde_json's map"));
                };
                same_value(&format!("{path}.{key:?}"), *value, item)?;
            }
            for (key, value) in &first {
                if raw.get(key) != Some(*value) {
                    return differ(format!("get({key:?}) is not the first member"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn raw_views_read_every_y_file_as_serde_json_does() {
    let Some(_) = crate::corpus() else { return };
    let mut failures = Vec::new();
    for (name, bytes) in with_prefix("y_") {
        let raw = match RawJson::new(bytes) {
            Ok(raw) => raw,
            Err(e) => {
                failures.push(format!("{name}: RawJson::new: {e}"));
                continue;
            }
        };
        let want: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: serde_json: {e}"));
                continue;
            }
        };
        if let Err(e) = same_value(name, raw, &want) {
            failures.push(e);
        }
    }
    assert_no_failures("RawJson views differ from serde_json", &failures);
}

/// Runs one file through the demo server. The reply must be JSON (serde_json parses it).
fn serve(name: &str, bytes: &[u8]) -> Result<Value, String> {
    let mut out = vec![0u8; 64 * 1024];
    let reply = SERVER
        .handle(&mut (), bytes, &mut out)
        .map_err(|e| format!("{name}: handle failed: {e}"))?;
    if reply.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(reply).map_err(|e| {
        format!(
            "{name}: reply is not JSON ({e}): {}",
            String::from_utf8_lossy(reply)
        )
    })
}

/// Checks that `reply` is exactly one `-32700` response with `"id":null`.
fn check_parse_error(name: &str, reply: &Value) -> Result<(), String> {
    let Some(obj) = reply.as_object() else {
        return Err(format!("{name}: not one response object: {reply}"));
    };
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    let expected = json!({
        "jsonrpc": "2.0",
        "error": {"code": -32700, "message": message},
        "id": null,
    });
    if obj.len() != 3 || *reply != expected || !message.starts_with("Parse error") {
        return Err(format!("{name}: want one -32700 with id null, got {reply}"));
    }
    Ok(())
}

/// The error codes of every response in a reply (one object, or a batch array).
fn error_codes(reply: &Value) -> Vec<Option<i64>> {
    let responses: Vec<&Value> = match reply {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        one => vec![one],
    };
    responses
        .into_iter()
        .map(|r| r["error"]["code"].as_i64())
        .collect()
}

#[test]
fn server_answers_every_n_file_with_one_parse_error() {
    let Some(_) = crate::corpus() else { return };
    let failures: Vec<String> = with_prefix("n_")
        .filter_map(|(name, bytes)| {
            serve(name, bytes)
                .and_then(|reply| check_parse_error(name, &reply))
                .err()
        })
        .collect();
    assert_no_failures("n_ files through Server::handle", &failures);
}

#[test]
fn server_never_answers_a_y_file_with_a_parse_error() {
    let Some(_) = crate::corpus() else { return };
    let mut failures = Vec::new();
    for (name, bytes) in with_prefix("y_") {
        match serve(name, bytes) {
            Err(e) => failures.push(e),
            Ok(reply) => {
                let codes = error_codes(&reply);
                // No y_ file is a Request object: each gets -32600 (a batch of them
                // gets one per element).
                if codes.is_empty() || codes.iter().any(|&c| c != Some(-32600)) {
                    failures.push(format!("{name}: want only -32600 replies, got {reply}"));
                }
            }
        }
    }
    assert_no_failures("y_ files through Server::handle", &failures);
}

#[test]
fn server_answers_i_files_as_their_verdict_says() {
    let Some(_) = crate::corpus() else { return };
    let mut failures = Vec::new();
    for &(name, want, _) in I_VERDICTS {
        let Some((_, bytes)) = with_prefix("i_").find(|(n, _)| n == name) else {
            continue;
        };
        match (serve(name, bytes), want) {
            (Err(e), _) => failures.push(e),
            (Ok(reply), Reject(_)) => {
                if let Err(e) = check_parse_error(name, &reply) {
                    failures.push(e);
                }
            }
            (Ok(reply), Accept) => {
                if error_codes(&reply).contains(&Some(-32700)) {
                    failures.push(format!("{name}: accepted, but answered {reply}"));
                }
            }
        }
    }
    assert_no_failures("i_ files through Server::handle", &failures);
}

#[test]
fn serde_json_agrees_on_every_y_and_n_file() {
    let Some(_) = crate::corpus() else { return };
    let mut failures = Vec::new();
    for (name, bytes) in with_prefix("y_").chain(with_prefix("n_")) {
        let ours = scan::validate(bytes, DEFAULT_MAX_DEPTH).is_ok();
        let serde = serde_json::from_slice::<Value>(bytes).is_ok();
        if ours != serde {
            failures.push(format!("{name}: jsonrpc-slice {ours}, serde_json {serde}"));
        }
    }
    assert_no_failures("serde_json disagrees", &failures);
}

/// Not a conformance requirement: records where serde_json decides an `i_` file the
/// other way, and prints a note if that record is out of date.
#[test]
fn serde_json_on_i_files_is_recorded() {
    let Some(_) = crate::corpus() else { return };
    let mut observed = Vec::new();
    for &(name, want, _) in I_VERDICTS {
        let Some((_, bytes)) = with_prefix("i_").find(|(n, _)| n == name) else {
            continue;
        };
        let serde = serde_json::from_slice::<Value>(bytes).is_ok();
        if serde != (want == Accept) {
            observed.push((name, serde));
        }
    }
    println!("i_ files where serde_json differs from jsonrpc-slice:");
    for &(name, serde_accepts) in &observed {
        let why = SERDE_JSON_I_DIFFERENCES
            .iter()
            .find(|&&(n, _, _)| n == name)
            .map_or("(not in SERDE_JSON_I_DIFFERENCES)", |&(_, _, why)| why);
        let verdict = if serde_accepts { "accepts" } else { "rejects" };
        println!("  {name}: serde_json {verdict}; {why}");
    }
    let recorded: Vec<(&str, bool)> = SERDE_JSON_I_DIFFERENCES
        .iter()
        .map(|&(name, accepts, _)| (name, accepts))
        .collect();
    if recorded != observed {
        println!(
            "note: SERDE_JSON_I_DIFFERENCES is out of date; observed {observed:?}, \
             recorded {recorded:?}"
        );
    }
}
