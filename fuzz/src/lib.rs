//! Oracles shared by the fuzz targets. They use std and serde_json freely: nothing here
//! is part of the library under test.
//!
//! serde_json is the reference JSON parser. Its verdict is taken from
//! `from_slice::<&RawValue>`, which checks the grammar and strict UTF-8 but, unlike
//! `Value`, has no nesting limit and never converts numbers (`Value` rejects `1e400`
//! and stops at 128 levels where this crate allows 128 and stops at 129). The two
//! documented differences are then decided exactly, by [`nesting`] and
//! [`has_unpaired_surrogate`]: serde_json's `RawValue` accepts both.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

// Shared with `tests/fuzz_regressions.rs`; they live beside it, in the published crate.
#[path = "../../tests/common/chunks.rs"]
mod chunks;
#[path = "../../tests/common/room.rs"]
mod room;
#[path = "../../tests/common/served.rs"]
mod served;
pub use chunks::{chunks, split_input};
pub use room::without_room;
pub use served::{served, Served};

/// The crate's default nesting limit (`scan::DEFAULT_MAX_DEPTH`).
pub const MAX_DEPTH: usize = 128;

/// `true` if serde_json takes `data` as one JSON text (any depth, lone surrogate
/// escapes allowed).
pub fn serde_accepts(data: &[u8]) -> bool {
    serde_json::from_slice::<&RawValue>(data).is_ok()
}

/// The most containers open at once, counting brackets outside strings. Exact for valid
/// JSON; an upper bound of sorts otherwise.
pub fn nesting(data: &[u8]) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for &b in data {
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn hex4(data: &[u8], at: usize) -> Option<u16> {
    let digits = data.get(at..at + 4)?;
    if !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// `true` if a string of the (valid) JSON text `data` holds a `\u` escape of a UTF-16
/// surrogate that is not a high one directly followed by a `\u` low one.
pub fn has_unpaired_surrogate(data: &[u8]) -> bool {
    let (mut i, mut in_str) = (0, false);
    while let Some(&b) = data.get(i) {
        if !in_str {
            in_str = b == b'"';
            i += 1;
            continue;
        }
        match (b, data.get(i + 1)) {
            (b'"', _) => {
                in_str = false;
                i += 1;
            }
            (b'\\', Some(b'u')) => match hex4(data, i + 2) {
                Some(0xD800..=0xDBFF) => {
                    let low = data.get(i + 6..i + 8) == Some(b"\\u")
                        && matches!(hex4(data, i + 8), Some(0xDC00..=0xDFFF));
                    if !low {
                        return true;
                    }
                    i += 12;
                }
                Some(0xDC00..=0xDFFF) => return true,
                _ => i += 6,
            },
            (b'\\', _) => i += 2,
            _ => i += 1,
        }
    }
    false
}

/// The members of one JSON object, in order, duplicates kept: decoded key, raw value.
/// Deserializing anything but an object fails.
pub struct Members<'a>(pub Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'a> Members<'a> {
    /// The raw value of the first member named `key`.
    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.get())
    }

    /// The keys, sorted.
    pub fn sorted_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self.0.iter().map(|(k, _)| k.as_str()).collect();
        keys.sort_unstable();
        keys
    }
}

/// `true` for the raw text of a string, a number or `null`: a possible id.
fn id_like(raw: &str) -> bool {
    raw == "null" || raw.starts_with(|c: char| c == '"' || c == '-' || c.is_ascii_digit())
}

/// One response object of a reply.
#[derive(Debug)]
pub struct Response<'a> {
    /// The `id` member, as written.
    pub id: &'a str,
    /// `error.code`, for an error response.
    pub code: Option<i64>,
}

/// Checks that `reply` is one response object or a non-empty array of them, each with
/// exactly `jsonrpc: "2.0"`, one of `result`/`error` (a well-formed error object) and an
/// id. Panics otherwise. Returns whether it is an array, and the responses.
pub fn responses(reply: &[u8]) -> (bool, Vec<Response<'_>>) {
    let text = std::str::from_utf8(reply)
        .unwrap_or_else(|e| panic!("reply is not UTF-8 ({e}): {reply:?}"));
    if let Err(e) = serde_json::from_str::<&RawValue>(text) {
        panic!("reply is not JSON ({e}): {text}");
    }
    if !text.starts_with('[') {
        return (false, vec![response(text)]);
    }
    let items: Vec<&RawValue> = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("batch reply is not an array ({e}): {text}"));
    assert!(!items.is_empty(), "empty batch reply: {text}");
    (true, items.iter().map(|r| response(r.get())).collect())
}

fn response(text: &str) -> Response<'_> {
    let m: Members = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("response is not an object ({e}): {text}"));
    let keys = m.sorted_keys();
    assert!(
        keys == ["error", "id", "jsonrpc"] || keys == ["id", "jsonrpc", "result"],
        "response members {keys:?}: {text}"
    );
    assert_eq!(m.get("jsonrpc"), Some("\"2.0\""), "{text}");
    let id = m.get("id").unwrap_or_default();
    assert!(id_like(id), "bad response id {id}: {text}");
    let code = m.get("error").map(|error| {
        let e: Members = serde_json::from_str(error)
            .unwrap_or_else(|e| panic!("error is not an object ({e}): {text}"));
        let keys = e.sorted_keys();
        assert!(
            keys == ["code", "message"] || keys == ["code", "data", "message"],
            "error members {keys:?}: {text}"
        );
        assert!(
            e.get("message").unwrap_or_default().starts_with('"'),
            "{text}"
        );
        let code = e.get("code").unwrap_or_default();
        code.parse::<i64>()
            .unwrap_or_else(|_| panic!("error code {code} is not an integer: {text}"))
    });
    Response { id, code }
}

/// `true` if `reply` is exactly one `-32700` response with id `null`.
pub fn is_parse_error(reply: &[u8]) -> bool {
    if reply.is_empty() {
        return false;
    }
    match responses(reply) {
        (false, r) => r[0].code == Some(-32700) && r[0].id == "null",
        _ => false,
    }
}

/// What the server must do with one request value, as far as this oracle can tell.
#[derive(Debug, PartialEq, Eq)]
pub enum Shape<'a> {
    /// A valid request without `id`: never answered.
    Notification,
    /// A valid request with this id: answered once, with this id byte for byte.
    Call(&'a str),
    /// Not a valid Request object: answered with `-32600`.
    Invalid,
    /// Undecided here (duplicate keys): not checked.
    Unknown,
}

/// Classifies one JSON value, which must be valid JSON without unpaired surrogates,
/// against the Request rules of the specification and the default limits (method and
/// id up to 256 bytes as sent).
pub fn shape(value: &str) -> Shape<'_> {
    if !value.starts_with('{') {
        return Shape::Invalid;
    }
    let Ok(m) = serde_json::from_str::<Members>(value) else {
        return Shape::Unknown;
    };
    let mut keys = m.sorted_keys();
    keys.dedup();
    if keys.len() != m.0.len() {
        return Shape::Unknown;
    }
    let id = match m.get("id") {
        Some(id) if !id_like(id) || id.len() > 256 => return Shape::Invalid,
        id => id,
    };
    let version = m.get("jsonrpc").filter(|v| v.starts_with('"'));
    if version.and_then(|v| serde_json::from_str::<String>(v).ok()) != Some("2.0".into()) {
        return Shape::Invalid;
    }
    match m.get("method") {
        Some(method) if method.starts_with('"') && method.len() - 2 <= 256 => {}
        _ => return Shape::Invalid,
    }
    if let Some(params) = m.get("params") {
        if !params.starts_with(['[', '{']) {
            return Shape::Invalid;
        }
    }
    id.map_or(Shape::Notification, Shape::Call)
}

/// The offset of `part` inside `whole` (both must borrow the same bytes).
pub fn offset(whole: &[u8], part: &[u8]) -> usize {
    (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_verdicts_match_the_documented_differences() {
        assert!(serde_accepts(b" [1e400, \"\\ud800\"] "));
        assert!(!serde_accepts(b"\"\xff\""));
        assert!(!serde_accepts(b"[1,]"));
        let deep = [&[b'['; 200][..], &[b']'; 200]].concat();
        assert!(serde_accepts(&deep));
        assert_eq!(nesting(&deep), 200);
        assert_eq!(nesting(br#"{"a":"[[[\"[","b":[{}]}"#), 3);
    }

    #[test]
    fn unpaired_surrogates() {
        for (s, lone) in [
            (&br#""\ud83d\ude00""#[..], false),
            (br#""\ud83d""#, true),
            (br#""\ude00""#, true),
            (br#""\ud83d\u0041""#, true),
            (br#""\\ud83d""#, false),
            (br#"["\u00e9", "x\udbff\udfff"]"#, false),
        ] {
            assert_eq!(
                has_unpaired_surrogate(s),
                lone,
                "{}",
                String::from_utf8_lossy(s)
            );
        }
    }

    #[test]
    fn shapes() {
        let call = r#"{"id":"a","jsonrpc":"2\u002e0","method":"x","params":{}}"#;
        assert_eq!(shape(call), Shape::Call(r#""a""#));
        assert_eq!(
            shape(r#"{"jsonrpc":"2.0","method":"x"}"#),
            Shape::Notification
        );
        assert_eq!(
            shape(r#"{"jsonrpc":"2.0","method":"x","params":1}"#),
            Shape::Invalid
        );
        assert_eq!(
            shape(r#"{"jsonrpc":"2.0","method":"x","id":[]}"#),
            Shape::Invalid
        );
        assert_eq!(
            shape(r#"{"jsonrpc":"2.0","method":"x","m\u0065thod":"y"}"#),
            Shape::Unknown
        );
        assert_eq!(shape("[]"), Shape::Invalid);
    }

    #[test]
    fn responses_are_checked() {
        let ok = br#"[{"jsonrpc":"2.0","result":[1],"id":1e400},{"jsonrpc":"2.0","error":{"code":-32700,"message":"m"},"id":null}]"#;
        let (batch, r) = responses(ok);
        assert!(batch && r.len() == 2 && r[0].id == "1e400" && r[1].code == Some(-32700));
        assert!(is_parse_error(
            br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#
        ));
        for bad in [
            &br#"[]"#[..],
            br#"{"jsonrpc":"2.0","result":1}"#,
            br#"{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":""},"id":1}"#,
            br#"{"jsonrpc":"2.0","result":1,"id":1,"id":2}"#,
            br#"{"jsonrpc":"2.0","error":{"code":1.5,"message":""},"id":1}"#,
        ] {
            assert!(std::panic::catch_unwind(|| responses(bad)).is_err());
        }
    }
}
