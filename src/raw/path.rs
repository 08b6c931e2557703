//! The path accessor: [`RawJson::at`] reaches a nested value in one walk.
//!
//! `v.get("a")?.get("b")` finds `a`'s value by skipping it whole (its end is where the
//! view ends), then walks it again to find `b`: the bytes of `a` before `b` are passed
//! once per level. [`RawJson::at`] walks each container only up to the member or
//! element the next step names and goes on from that value's first byte: only the
//! siblings before it are skipped, and only the last value of the path is passed over
//! whole (its end makes the view). Each byte is passed at most once.

use super::{skip_trusted, Cursor, RawJson};
use crate::scan;

/// One step of a path into nested JSON: a member of an object by its key, or an element
/// of an array by its index. See [`RawJson::at`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step<'k> {
    /// The value of the first member whose key equals this one (escapes in the JSON
    /// key decoded, as [`RawJson::get`] compares them).
    Key(&'k str),
    /// The element at this index (from 0), as [`RawJson::nth`] counts.
    Index(usize),
}

impl<'a> RawJson<'a> {
    /// The value reached by following `path` from this one, in one walk; `None` as soon
    /// as a step is missing (no such key, an index past the end) or meets a value of
    /// the wrong kind (a key into anything but an object, an index into anything but an
    /// array). The empty path gives this value.
    ///
    /// The answer is the chain of [`get`](Self::get) and [`nth`](Self::nth) calls it
    /// spells (the first of duplicate keys wins, as with `get`), but each container is
    /// walked only up to the step's member or element, whose value is entered where it
    /// starts rather than skipped to its end first: no byte is passed twice, where the
    /// chain passes the bytes of the inner levels once per level.
    ///
    /// ```
    /// use jsonrpc_slice::raw::Step::{Index, Key};
    /// use jsonrpc_slice::RawJson;
    ///
    /// let params = RawJson::new(br#"{"textDocument": {"uri": "file:///a.rs", "version": 2},
    ///     "contentChanges": [{"text": "fn main() {}\n"}]}"#)?;
    /// let uri = params.at(&[Key("textDocument"), Key("uri")]);
    /// assert_eq!(uri.and_then(|u| u.as_str()).map(|s| s.as_raw()), Some(&b"file:///a.rs"[..]));
    /// let text = params.at(&[Key("contentChanges"), Index(0), Key("text")]);
    /// assert_eq!(text, params.get("contentChanges").and_then(|c| c.nth(0)).and_then(|c| c.get("text")));
    /// assert_eq!(params.at(&[Key("contentChanges"), Index(1)]), None);
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn at(&self, path: &[Step<'_>]) -> Option<RawJson<'a>> {
        if path.is_empty() {
            return Some(*self);
        }
        // Offsets into the outermost value's bytes: a cursor over all of them stops at
        // the closer of the container it walks (no separator follows the last item).
        let b = self.bytes;
        let mut start = 0;
        for step in path {
            start = match *step {
                Step::Key(key) => member_value(b, start, key)?,
                Step::Index(index) => element(b, start, index)?,
            };
        }
        let value = b.get(start..skip_trusted(b, start))?;
        (!value.is_empty()).then_some(RawJson::trusted(value))
    }
}

/// Where the value of the first member keyed `key` starts, in the object at `start`.
fn member_value(b: &[u8], start: usize, key: &str) -> Option<usize> {
    let mut cursor = inside(b, start, b'{')?;
    loop {
        if cursor.take_key()?.eq_str(key) {
            return Some(cursor.i);
        }
        cursor.take_value()?;
    }
}

/// Where the element at `index` starts, in the array at `start`.
fn element(b: &[u8], start: usize, index: usize) -> Option<usize> {
    let mut cursor = inside(b, start, b'[')?;
    for _ in 0..index {
        cursor.take_value()?;
    }
    // At the end the cursor stands at `b.len()`.
    (cursor.i < b.len()).then_some(cursor.i)
}

/// A cursor on the first item of the container at `start`, if it opens with `opener`
/// and is not empty.
fn inside(b: &[u8], start: usize, opener: u8) -> Option<Cursor<'_>> {
    if scan::byte_at(b, start) != opener {
        return None;
    }
    let first = scan::skip_ws(b, start + 1);
    match scan::byte_at(b, first) {
        b']' | b'}' | 0 => None,
        _ => Some(Cursor::at(b, first)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::SKIPPED;
    use super::Step::{self, Index, Key};
    use super::*;

    /// The chain of `get` and `nth` calls a path spells: the reference.
    fn chained<'a>(v: RawJson<'a>, path: &[Step<'_>]) -> Option<RawJson<'a>> {
        path.iter().try_fold(v, |v, step| match *step {
            Key(key) => v.get(key),
            Index(index) => v.nth(index),
        })
    }

    /// The bytes the trusted skip passes over while `f` runs.
    fn skipped<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let before = SKIPPED.with(|n| n.get());
        let out = f();
        (out, SKIPPED.with(|n| n.get()) - before)
    }

    const INPUTS: [&str; 14] = [
        r#"{"a": {"b": [1, {"a": "x"}], "a": 2}, "b\"": [[], {}, [3]], "é": null}"#,
        // Keys with escapes: `a`, `b"`, `é` and the empty key, each written escaped.
        r#" { "\u0061" : { "\u0062" : 7 } , "b\u0022" : [ 0 , [ 1 , 2 ] ] , "\u00e9":{"":5}, "":[{}] } "#,
        // Duplicates: the first wins, even when it lacks the next step.
        r#"{"a": {"x": 1}, "a": {"b": 2}, "b\"": [9], "b\"": [8, 7]}"#,
        r#"{"a": [], "b\"": {}, "x": [[[]]], "é": {"a": {}}}"#,
        // Strings holding what looks like structure.
        r#"{"x": "]}\",{\"a\":", "a": ["[", {"b": "}"}, "\\"], "b": {"a": "\"a\":1"}}"#,
        r#"[{"a": 1}, [2, [3, {"b": [4]}]], "a", {"": {"x": 0}}]"#,
        r#"[[[[1]]], [], [[]], {"a": [[0, 1, 2]]}]"#,
        "[ 1 ,\t-2.5e3 \n, true , null,\"\" ]",
        "[]",
        "{}",
        r#""a""#,
        "42",
        "null",
        r#"{"a":{"a":{"a":{"a":[0,[1,[2,{"b":"deep"}]]]}}},"b":1}"#,
    ];

    /// `at` answers what the chain of `get` and `nth` calls answers, on every path of
    /// up to 4 steps from an alphabet of keys (present, missing, escaped in the input,
    /// duplicated) and indices, on every input; and it never passes more bytes than the
    /// input holds.
    #[test]
    fn at_is_the_chain_of_get_and_nth() {
        let alphabet = [
            Key("a"),
            Key("b"),
            Key("b\""),
            Key("é"),
            Key(""),
            Key("x"),
            Key("missing"),
            Index(0),
            Index(1),
            Index(2),
            Index(3),
        ];
        let n = alphabet.len();
        let (mut checked, mut found, mut deepest) = (0, 0, 0);
        for text in INPUTS {
            let v = RawJson::new(text.as_bytes()).unwrap();
            for len in 0..=4u32 {
                for mut code in 0..n.pow(len) {
                    let mut path = std::vec::Vec::new();
                    for _ in 0..len {
                        path.push(alphabet[code % n]);
                        code /= n;
                    }
                    let (got, passed) = skipped(|| v.at(&path));
                    assert_eq!(got, chained(v, &path), "{text} at {path:?}");
                    assert!(passed <= v.as_bytes().len(), "{text} at {path:?}: {passed}");
                    checked += 1;
                    if got.is_some() {
                        found += 1;
                        deepest = deepest.max(len);
                    }
                }
            }
        }
        assert_eq!(
            checked,
            INPUTS.len() * (1 + n + n.pow(2) + n.pow(3) + n.pow(4))
        );
        // Not a test of `None` against `None` only.
        assert!(found >= 80, "{found}");
        assert_eq!(deepest, 4);
    }

    #[test]
    fn cases() {
        let v = |t: &'static str| RawJson::new(t.as_bytes()).unwrap();
        let at = |t: &'static str, path: &[Step<'_>]| v(t).at(path).map(|r| r.as_bytes());
        // The first of duplicate keys wins, as with `get`, even when it lacks the next step.
        let dup = r#"{"a": {"x": 1}, "a": {"b": 2}}"#;
        assert_eq!(at(dup, &[Key("a")]), Some(&br#"{"x": 1}"#[..]));
        assert_eq!(at(dup, &[Key("a"), Key("b")]), None);
        assert_eq!(at(dup, &[Key("a"), Key("x")]), Some(&b"1"[..]));
        // Escaped keys compare decoded.
        let esc = r#"{"\u0074ext\"Doc": {"u\u0072i": "f"}}"#;
        assert_eq!(
            at(esc, &[Key("text\"Doc"), Key("uri")]),
            Some(&br#""f""#[..])
        );
        assert_eq!(at(esc, &[Key(r"\u0074ext"), Key("uri")]), None);
        // Wrong kinds, missing steps, empty containers.
        let lsp = r#"{"contentChanges": [{"text": "t"}], "n": 1}"#;
        assert_eq!(
            at(lsp, &[Key("contentChanges"), Index(0), Key("text")]),
            Some(&br#""t""#[..])
        );
        assert_eq!(at(lsp, &[Key("contentChanges"), Key("text")]), None);
        assert_eq!(at(lsp, &[Index(0)]), None);
        assert_eq!(at(lsp, &[Key("n"), Key("n")]), None);
        assert_eq!(at(lsp, &[Key("n"), Index(0)]), None);
        assert_eq!(at(lsp, &[Key("contentChanges"), Index(1)]), None);
        assert_eq!(at(lsp, &[Key("contentChanges"), Index(usize::MAX)]), None);
        assert_eq!(at("[]", &[Index(0)]), None);
        assert_eq!(at("{}", &[Key("")]), None);
        assert_eq!(at("[ ]", &[Index(0)]), None);
        assert_eq!(at("{ }", &[Key("a")]), None);
        assert_eq!(at(r#""a""#, &[Key("a")]), None);
        assert_eq!(at("7", &[Index(0)]), None);
        // The empty path is the value itself; values come back without whitespace.
        assert_eq!(at(" [1] ", &[]), Some(&b"[1]"[..]));
        assert_eq!(at("[ 1 , [ 2 ] ]", &[Index(1)]), Some(&b"[ 2 ]"[..]));
        assert_eq!(at("[ 1 , [ 2 ] ]", &[Index(1), Index(0)]), Some(&b"2"[..]));
    }

    /// Bytes that are not valid JSON (which a `RawJson` never holds, but the accessors
    /// must survive): no panic, and an answer inside the bytes or none.
    #[test]
    fn survives_bytes_that_are_not_json() {
        let inputs: [&[u8]; 12] = [
            b"{",
            b"[",
            b"{\"a\"",
            b"{\"a\":",
            b"{\"a\" 1}",
            b"[1,",
            b"[1 2]",
            b"{1:2}",
            b"{\"a\":[",
            b"[\"",
            b"{\"a\":{\"b\"",
            b"",
        ];
        let paths: [&[Step<'_>]; 5] = [
            &[Key("a")],
            &[Index(0)],
            &[Index(1)],
            &[Key("a"), Key("b")],
            &[Key("a"), Index(0)],
        ];
        for b in inputs {
            let v = RawJson::trusted(b);
            for path in paths {
                if let Some(r) = v.at(path) {
                    assert!(!r.as_bytes().is_empty());
                }
            }
        }
    }

    /// The one walk passes each byte at most once; the chain of `get` calls passes the
    /// inner levels' bytes once per level. Counted on the trusted skip, with the path an
    /// LSP handler follows.
    #[test]
    fn one_walk_passes_each_byte_once() {
        let text = "x\\n\\\"y\\u00e9 ".repeat(200);
        let doc = std::format!(
            r#"{{"pad": "{text}", "params": {{"before": "{text}", "textDocument": {{"version": [1, "{text}"], "uri": "file:///a.rs"}}, "after": "{text}"}}}}"#
        );
        let v = RawJson::new(doc.as_bytes()).unwrap();
        let path = [Key("params"), Key("textDocument"), Key("uri")];
        let (got, one) = skipped(|| v.at(&path));
        let (want, chain) = skipped(|| chained(v, &path));
        assert_eq!(got, want);
        let uri = got.unwrap();
        assert_eq!(uri.as_bytes(), br#""file:///a.rs""#);
        // `at` skips disjoint pieces, all before the uri's end: the pad, the keys, the
        // members before `textDocument` and `uri`, and the uri. The text after the uri
        // (`after`) is never passed.
        let uri_end = doc.find("file:///a.rs").unwrap() + "file:///a.rs\"".len();
        assert!(one <= uri_end, "{one} > {uri_end}");
        // It passes the three copies of the text before the uri once each: 3 copies
        // of it, no more.
        assert!(one >= 3 * text.len() && one < 4 * text.len(), "{one}");
        // The chain skips `params` whole (three copies: before, version, after), then
        // `textDocument` whole again (version), and `before` and `version` once more
        // on the way: 7 copies of the text.
        let params = v.get("params").unwrap().as_bytes().len();
        let document = v.at(&path[..2]).unwrap().as_bytes().len();
        assert!(chain >= params + document, "{chain}");
        assert!(chain >= 7 * text.len() && chain < 8 * text.len(), "{chain}");
    }
}
