//! Property tests (proptest), with serde_json as the oracle.
//!
//! Arbitrary JSON values are generated as a model ([`Json`]: numbers as raw lexemes of
//! any size, strings as the pieces they are printed from, plain characters, short
//! escapes, `\u` escapes in either hex case and surrogate pairs, arrays and objects
//! with duplicate and escaped keys), printed by the printer below with arbitrary
//! whitespace (space, `\t`, `\n`, `\r`) between every two tokens, and wrapped as the
//! `params` of `{"jsonrpc":"2.0","method":"echo","params":…,"id":…}` (positional or
//! named, envelope members in any order, `echo` spelled with or without escapes).
//!
//! | property | test |
//! |---|---|
//! | a generated message is accepted by `envelope::parse` and by serde_json | `generated_messages_are_accepted_and_every_view_is_exact` |
//! | `params`, `id`, each `Params` element / member, and every nested value walked with `RawJson::elements` / `members` are exactly the printed bytes; strings decode to the model; `get` finds the **first** duplicate key | same |
//! | the `echo` reply is the params byte for byte, with the id byte for byte, and serde_json reads it as the model value | `echo_replies_the_params_byte_for_byte` |
//! | a message with 1–3 bytes deleted, inserted or changed is accepted exactly when serde_json accepts it; a refused one is answered with exactly one `-32700`, an accepted one never, and every reply is JSON | `mutated_messages_get_serde_json_verdicts` |
//! | number lexemes and string escapes close to the grammar get serde_json's verdict | `near_json_lexemes_get_serde_json_verdicts` |
//! | the same (echo byte for byte, exact views, verdicts after mutation) with values nested up to 108 levels | `nesting_up_to_100_levels` |
//! | over newline framing, each reply to any stream is one line of JSON | `replies_over_newline_framing_are_one_line_each` |
//! | strings, keys and error messages from a handler are escaped: one line, and they decode to what the handler gave | `handler_strings_and_error_messages_are_escaped` |
//! | raw JSON from a handler cannot break newline framing (`docs/DESIGN.md`: "a writer that could receive one from elsewhere must refuse it") | `raw_results_cannot_break_newline_framing` |
//!
//! The oracle is serde_json reading the whole message as a `&RawValue` (so numbers are
//! never converted), after a strict UTF-8 check (`std::str::from_utf8`: `RawValue`
//! alone skips over string bytes without checking them). Documented differences
//! (`docs/DESIGN.md`, "What the code decided"), decided exactly rather than skipped:
//!
//! - an unpaired `\u` surrogate escape is refused here as `LoneSurrogate` while
//!   serde_json accepts it when it only skips a value: the test finds such escapes with
//!   its own small decoder ([`has_lone_surrogate`]) and then requires that exact kind;
//! - nesting: the generated depth stays below both limits (at most 2 + 6 levels, or
//!   2 + 100 + 6 in `nesting_up_to_100_levels`; 128 for this crate, 127 for
//!   serde_json's `Value`), and a mutation adds one level at most;
//! - numbers out of `f64` range (`1e999`): the crate keeps the lexeme, serde_json's
//!   `Value` refuses it ("number out of range"); such a value is compared as bytes and as
//!   a `RawValue` only, never as a `Value` (see [`to_value`]).
//!
//! Cases per property: `PROPTEST_CASES` (default [`DEFAULT_CASES`], a few seconds in a
//! debug build). Failures are shrunk and printed; no regression file is written.

#[path = "common/served.rs"]
mod served;

use served::served;

use jsonrpc_slice::envelope::{self, Call, Envelope};
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::scan::{self, ScanErrorKind};
use jsonrpc_slice::{
    demo, method_table, Kind, Limits, MethodTable, Params, RawJson, ResultWriter, RpcError, Server,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use std::collections::BTreeMap;

use serde_json::value::RawValue;
use serde_json::Value;

/// Cases per property when `PROPTEST_CASES` is not set.
const DEFAULT_CASES: u32 = 256;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

static SERVER: Server<()> = Server::new(demo::TABLE);

// ---------------------------------------------------------------------------------
// The model.

/// A JSON string as printed (`raw`, between the quotes) and as meant (`decoded`).
#[derive(Clone, Debug)]
struct JStr {
    raw: String,
    decoded: String,
}

/// A JSON value, as the generator builds it.
#[derive(Clone, Debug)]
enum Json {
    Null,
    Bool(bool),
    /// The lexeme, of any size.
    Num(String),
    Str(JStr),
    Arr(Vec<Json>),
    Obj(Vec<(JStr, Json)>),
}

/// The value serde_json must read for the model, or `None` if it holds a number
/// serde_json's `Value` cannot hold (out of `f64` range). Duplicate keys: the last
/// wins, as serde_json decides.
fn to_value(j: &Json) -> Option<Value> {
    Some(match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Num(lexeme) => serde_json::from_str::<Value>(lexeme).ok()?,
        Json::Str(s) => Value::String(s.decoded.clone()),
        Json::Arr(items) => Value::Array(items.iter().map(to_value).collect::<Option<_>>()?),
        Json::Obj(members) => {
            let mut map = serde_json::Map::new();
            for (k, v) in members {
                map.insert(k.decoded.clone(), to_value(v)?);
            }
            Value::Object(map)
        }
    })
}

// ---------------------------------------------------------------------------------
// Strategies.

/// Four hex digits of `unit`, each in upper or lower case as the bits of `case` say.
fn hex4(unit: u32, case: u8) -> String {
    format!("{unit:04x}")
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if case & (1 << i) != 0 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

/// One piece of a string: `(as printed, as meant)`.
fn piece() -> impl Strategy<Value = (String, String)> {
    // Any character but those that must be escaped (which the other arms cover).
    let plain = any::<char>()
        .prop_map(|c| {
            if c < ' ' || c == '"' || c == '\\' {
                '~'
            } else {
                c
            }
        })
        .prop_map(|c| (c.to_string(), c.to_string()));
    let short = select(vec![
        ("\\\"", "\""),
        ("\\\\", "\\"),
        ("\\/", "/"),
        ("\\b", "\u{8}"),
        ("\\f", "\u{c}"),
        ("\\n", "\n"),
        ("\\r", "\r"),
        ("\\t", "\t"),
    ])
    .prop_map(|(raw, decoded)| (raw.to_owned(), decoded.to_owned()));
    let bmp = (0u32..=0xFFFF, any::<u8>())
        .prop_map(|(u, case)| (char::from_u32(u).unwrap_or('\u{fffd}'), case))
        .prop_map(|(c, case)| (format!("\\u{}", hex4(c as u32, case)), c.to_string()));
    let pair = (0x10000u32..=0x10FFFF, any::<u8>()).prop_map(|(u, case)| {
        let v = u - 0x10000;
        let (hi, lo) = (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
        let c = char::from_u32(u).expect("a scalar value");
        (
            format!("\\u{}\\u{}", hex4(hi, case), hex4(lo, case >> 4)),
            c.to_string(),
        )
    });
    prop_oneof![
        6 => plain,
        2 => short,
        1 => bmp,
        1 => pair,
    ]
}

fn jstr() -> impl Strategy<Value = JStr> {
    vec(piece(), 0..8).prop_map(|pieces| {
        let (mut raw, mut decoded) = (String::new(), String::new());
        for (r, d) in pieces {
            raw.push_str(&r);
            decoded.push_str(&d);
        }
        JStr { raw, decoded }
    })
}

/// `name`, each character either plain or a `\u00XX` escape (as the bits of `mask`).
fn spelled(name: &str, mask: u16, case: u8) -> JStr {
    let raw = name
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if mask & (1 << i) != 0 {
                format!("\\u{}", hex4(c as u32, case))
            } else {
                c.to_string()
            }
        })
        .collect();
    JStr {
        raw,
        decoded: name.to_owned(),
    }
}

/// Object keys: mostly from a small set, spelled plainly or escaped, so that duplicates
/// (`"a"` and `"\u0061"`) are common; sometimes any string.
fn key() -> impl Strategy<Value = JStr> {
    prop_oneof![
        3 => (select(vec!["a", "b", "id", "method", "params", "jsonrpc"]), any::<u16>(), any::<u8>())
            .prop_map(|(name, mask, case)| spelled(name, mask & 0x5, case)),
        1 => jstr(),
    ]
}

/// A number lexeme as RFC 8259 spells it: any number of digits, any exponent (up to
/// three digits, so `1e999`, out of `f64` range, comes up).
fn number() -> impl Strategy<Value = String> {
    let int = prop_oneof![Just("0".to_owned()), "[1-9][0-9]{0,30}"];
    let frac = proptest::option::of("[0-9]{1,20}");
    let exp = proptest::option::of(("[eE]", select(vec!["", "+", "-"]), "[0-9]{1,3}"));
    (any::<bool>(), int, frac, exp).prop_map(|(neg, int, frac, exp)| {
        let mut s = String::new();
        if neg {
            s.push('-');
        }
        s.push_str(&int);
        if let Some(f) = frac {
            s.push('.');
            s.push_str(&f);
        }
        if let Some((e, sign, digits)) = exp {
            s.push_str(&e);
            s.push_str(sign);
            s.push_str(&digits);
        }
        s
    })
}

fn json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        number().prop_map(Json::Num),
        jstr().prop_map(Json::Str),
    ];
    // At most 6 levels of containers: with the envelope and the params, 8 in all.
    leaf.prop_recursive(6, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Json::Arr),
            vec((key(), inner), 0..6).prop_map(Json::Obj),
        ]
    })
}

/// Whitespace to put between tokens, used in a cycle.
fn whitespace() -> impl Strategy<Value = Vec<&'static str>> {
    vec(
        select(vec![
            "", "", "", " ", "\t", "\n", "\r", "\r\n", "  ", " \n\t",
        ]),
        1..16,
    )
}

/// The params: positional or named.
#[derive(Clone, Debug)]
enum ParamsModel {
    Positional(Vec<Json>),
    Named(Vec<(JStr, Json)>),
}

impl ParamsModel {
    fn as_json(&self) -> Json {
        match self {
            ParamsModel::Positional(v) => Json::Arr(v.clone()),
            ParamsModel::Named(m) => Json::Obj(m.clone()),
        }
    }
}

/// One request for `echo`.
#[derive(Clone, Debug)]
struct Message {
    params: ParamsModel,
    /// The id lexeme (a number, a string or `null`).
    id: String,
    /// `echo`, some characters escaped.
    method: JStr,
    /// Members in this order (a permutation of 0..4: jsonrpc, method, params, id).
    order: Vec<usize>,
    ws: Vec<&'static str>,
}

fn message() -> impl Strategy<Value = Message> {
    let params = prop_oneof![
        vec(json(), 0..6).prop_map(ParamsModel::Positional),
        vec((key(), json()), 0..6).prop_map(ParamsModel::Named),
    ];
    let id = prop_oneof![
        number(),
        jstr().prop_map(|s| format!("\"{}\"", s.raw)),
        Just("null".to_owned()),
    ];
    let method = (any::<u16>(), any::<u8>()).prop_map(|(mask, case)| spelled("echo", mask, case));
    let order = Just(vec![0usize, 1, 2, 3]).prop_shuffle();
    (params, id, method, order, whitespace()).prop_map(|(params, id, method, order, ws)| Message {
        params,
        id,
        method,
        order,
        ws,
    })
}

// ---------------------------------------------------------------------------------
// The printer.

struct Printer<'w> {
    out: String,
    ws: &'w [&'static str],
    k: usize,
}

impl<'w> Printer<'w> {
    fn new(ws: &'w [&'static str]) -> Self {
        Self {
            out: String::new(),
            ws,
            k: 0,
        }
    }

    fn ws(&mut self) {
        if !self.ws.is_empty() {
            self.out.push_str(self.ws[self.k % self.ws.len()]);
            self.k += 1;
        }
    }

    fn str(&mut self, s: &JStr) {
        self.out.push('"');
        self.out.push_str(&s.raw);
        self.out.push('"');
    }

    /// The value, with whitespace between its tokens (none around it).
    fn value(&mut self, v: &Json) {
        match v {
            Json::Null => self.out.push_str("null"),
            Json::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) => self.out.push_str(n),
            Json::Str(s) => self.str(s),
            Json::Arr(items) => {
                self.out.push('[');
                self.ws();
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.ws();
                        self.out.push(',');
                        self.ws();
                    }
                    self.value(item);
                }
                self.ws();
                self.out.push(']');
            }
            Json::Obj(members) => {
                self.out.push('{');
                self.ws();
                for (i, (k, item)) in members.iter().enumerate() {
                    if i > 0 {
                        self.ws();
                        self.out.push(',');
                        self.ws();
                    }
                    self.str(k);
                    self.ws();
                    self.out.push(':');
                    self.ws();
                    self.value(item);
                }
                self.ws();
                self.out.push('}');
            }
        }
    }

    /// The value alone, printed with this printer's whitespace (the cycle goes on).
    fn print(&mut self, v: &Json) -> String {
        let outer = std::mem::take(&mut self.out);
        self.value(v);
        std::mem::replace(&mut self.out, outer)
    }
}

/// A printed message, with the exact text of its parts.
struct Printed {
    text: String,
    params: String,
    /// Each element (positional) or each member value (named), as printed.
    items: Vec<String>,
}

fn print(m: &Message) -> Printed {
    let mut p = Printer::new(&m.ws);
    // The params first, item by item, so that the exact text of each is known.
    let (open, close, n) = match &m.params {
        ParamsModel::Positional(v) => ('[', ']', v.len()),
        ParamsModel::Named(v) => ('{', '}', v.len()),
    };
    let mut items = Vec::new();
    p.out.push(open);
    p.ws();
    for i in 0..n {
        if i > 0 {
            p.ws();
            p.out.push(',');
            p.ws();
        }
        let value = match &m.params {
            ParamsModel::Positional(v) => &v[i],
            ParamsModel::Named(v) => {
                let (k, value) = &v[i];
                p.str(k);
                p.ws();
                p.out.push(':');
                p.ws();
                value
            }
        };
        let item = p.print(value);
        p.out.push_str(&item);
        items.push(item);
    }
    p.ws();
    p.out.push(close);
    let params = std::mem::take(&mut p.out);
    let mut method = String::new();
    method.push('"');
    method.push_str(&m.method.raw);
    method.push('"');
    let members: [(&str, &str); 4] = [
        ("jsonrpc", "\"2.0\""),
        ("method", &method),
        ("params", &params),
        ("id", &m.id),
    ];
    p.ws();
    p.out.push('{');
    for (n, &i) in m.order.iter().enumerate() {
        p.ws();
        if n > 0 {
            p.out.push(',');
            p.ws();
        }
        let (name, value) = members[i];
        p.out.push('"');
        p.out.push_str(name);
        p.out.push('"');
        p.ws();
        p.out.push(':');
        p.ws();
        p.out.push_str(value);
    }
    p.ws();
    p.out.push('}');
    p.ws();
    Printed {
        text: p.out,
        params,
        items,
    }
}

// ---------------------------------------------------------------------------------
// Oracles and checks.

/// serde_json's verdict on a whole message: strict UTF-8, then the grammar, numbers
/// never converted.
fn serde_accepts(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok_and(|s| serde_json::from_str::<&RawValue>(s).is_ok())
}

/// `true` if some string of `bytes` (JSON that serde_json accepted) holds a `\u`
/// escape of a UTF-16 surrogate that does not pair up: a high one not followed at once
/// by `\u` and a low one, or a low one alone.
fn has_lone_surrogate(bytes: &[u8]) -> bool {
    let unit = |at: usize| -> Option<u32> {
        let hex = bytes.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        match (in_string, bytes[i]) {
            (false, b'"') => in_string = true,
            (true, b'"') => in_string = false,
            (true, b'\\') if bytes.get(i + 1) == Some(&b'u') => {
                let Some(u) = unit(i + 2) else {
                    return false;
                };
                match u {
                    0xD800..=0xDBFF => {
                        let paired = bytes.get(i + 6..i + 8) == Some(b"\\u")
                            && unit(i + 8).is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo));
                        if !paired {
                            return true;
                        }
                        i += 12;
                        continue;
                    }
                    0xDC00..=0xDFFF => return true,
                    _ => {
                        i += 6;
                        continue;
                    }
                }
            }
            (true, b'\\') => i += 1,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The reply `Server::handle` gives to a message that is not JSON.
const PARSE_ERROR: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Checks a value read through the raw views against its model, all the way down.
fn check_value(raw: RawJson<'_>, model: &Json) -> Result<(), TestCaseError> {
    let bytes = raw.as_bytes();
    // Every nested value is one whole JSON value with no whitespace around it.
    prop_assert_eq!(RawJson::new(bytes).map(|v| v.as_bytes()), Ok(bytes));
    match model {
        Json::Null => {
            prop_assert_eq!(bytes, b"null");
            prop_assert!(raw.is_null());
        }
        Json::Bool(b) => prop_assert_eq!(raw.as_bool(), Some(*b)),
        Json::Num(lexeme) => {
            prop_assert_eq!(text(bytes), lexeme.clone());
            prop_assert_eq!(raw.kind(), Kind::Number);
            prop_assert_eq!(raw.as_i64(), lexeme.parse::<i64>().ok());
            prop_assert_eq!(raw.as_u64(), lexeme.parse::<u64>().ok());
            let want = lexeme.parse::<f64>().ok();
            prop_assert_eq!(raw.as_f64().map(f64::to_bits), want.map(f64::to_bits));
        }
        Json::Str(s) => {
            let got = raw.as_str().expect("a string");
            prop_assert_eq!(text(got.as_raw()), s.raw.clone());
            prop_assert!(got.eq_str(&s.decoded), "eq_str({:?})", s.decoded);
            let mut buf = vec![0u8; s.decoded.len()];
            prop_assert_eq!(got.unescape_into(&mut buf), Some(s.decoded.as_str()));
            if !s.decoded.is_empty() {
                let mut short = vec![0u8; s.decoded.len() - 1];
                prop_assert_eq!(got.unescape_into(&mut short), None);
            }
            prop_assert_eq!(got.as_plain_str().is_some(), !s.raw.contains('\\'));
        }
        Json::Arr(items) => {
            prop_assert_eq!(raw.kind(), Kind::Array);
            prop_assert_eq!(raw.elements().count(), items.len());
            prop_assert_eq!(raw.members().count(), 0);
            for (got, want) in raw.elements().zip(items) {
                check_value(got, want)?;
            }
            prop_assert!(raw.nth(items.len()).is_none());
        }
        Json::Obj(members) => {
            prop_assert_eq!(raw.kind(), Kind::Object);
            // Duplicates are all yielded, in order.
            prop_assert_eq!(raw.members().count(), members.len());
            prop_assert_eq!(raw.elements().count(), 0);
            for ((k, got), (want_k, want)) in raw.members().zip(members) {
                prop_assert_eq!(text(k.as_raw()), want_k.raw.clone());
                prop_assert!(k.eq_str(&want_k.decoded));
                check_value(got, want)?;
            }
            // `get` returns the FIRST member with that (decoded) key. (Compared as
            // bytes: each member was checked all the way down just above; checking it
            // again through `get` would double the work at every level of nesting.)
            for (want_k, _) in members {
                let first = members
                    .iter()
                    .position(|(k, _)| k.decoded == want_k.decoded)
                    .expect("itself");
                let want = raw.members().nth(first).map(|(_, v)| v.as_bytes());
                let got = raw.get(&want_k.decoded).map(|v| v.as_bytes());
                prop_assert_eq!(got, want, "get({:?})", want_k.decoded);
            }
        }
    }
    Ok(())
}

/// Parses a generated message, which must be one request for `echo`.
fn request(bytes: &[u8]) -> Result<envelope::Request<'_>, TestCaseError> {
    match envelope::parse(bytes, &Limits::DEFAULT) {
        Ok(Envelope::Single(Call::Request(r))) => Ok(r),
        other => Err(TestCaseError::fail(format!(
            "not a request: {other:?}\n{}",
            text(bytes)
        ))),
    }
}

// ---------------------------------------------------------------------------------
// Properties.

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generated_messages_are_accepted_and_every_view_is_exact(m in message()) {
        let printed = print(&m);
        let bytes = printed.text.as_bytes();
        prop_assert!(serde_accepts(bytes), "the generator made invalid JSON: {}", printed.text);
        prop_assert!(!has_lone_surrogate(bytes));
        prop_assert!(scan::validate(bytes, scan::DEFAULT_MAX_DEPTH).is_ok());
        let req = request(bytes)?;
        prop_assert!(req.method.eq_str("echo"));
        prop_assert_eq!(text(req.method.as_raw()), m.method.raw.clone());
        prop_assert_eq!(req.id.map(|id| text(id.as_bytes())), Some(m.id.clone()));
        let raw = req.params.expect("params");
        prop_assert_eq!(text(raw.as_bytes()), printed.params.clone());

        let params = Params::new(req.params);
        match &m.params {
            ParamsModel::Positional(values) => {
                prop_assert!(params.is_positional() && !params.is_named());
                let got: Vec<String> = params.positional().map(|v| text(v.as_bytes())).collect();
                prop_assert_eq!(&got, &printed.items);
                for (i, want) in printed.items.iter().enumerate() {
                    prop_assert_eq!(params.nth(i).map(|v| text(v.as_bytes())), Some(want.clone()));
                }
                prop_assert!(params.nth(values.len()).is_none());
                prop_assert_eq!(params.named().count(), 0);
            }
            ParamsModel::Named(members) => {
                prop_assert!(params.is_named() && !params.is_positional());
                let got: Vec<(String, String)> = params
                    .named()
                    .map(|(k, v)| (text(k.as_raw()), text(v.as_bytes())))
                    .collect();
                let want: Vec<(String, String)> = members
                    .iter()
                    .zip(&printed.items)
                    .map(|((k, _), item)| (k.raw.clone(), item.clone()))
                    .collect();
                prop_assert_eq!(got, want);
                for (k, _) in members {
                    let first = members
                        .iter()
                        .position(|(k2, _)| k2.decoded == k.decoded)
                        .expect("itself");
                    prop_assert_eq!(
                        params.get(&k.decoded).map(|v| text(v.as_bytes())),
                        Some(printed.items[first].clone()),
                        "get({:?}) must be the first of its duplicates", k.decoded
                    );
                }
                prop_assert_eq!(params.positional().count(), 0);
            }
        }
        check_value(raw, &m.params.as_json())?;
    }

    #[test]
    fn echo_replies_the_params_byte_for_byte(m in message()) {
        let printed = print(&m);
        let mut out = vec![0u8; 64 * 1024];
        let reply = SERVER
            .handle(&mut (), printed.text.as_bytes(), &mut out)
            .expect("64 KiB holds any reply");
        // Byte for byte but for raw line breaks (whitespace), which no reply holds.
        let params = without_line_breaks(&printed.params);
        let want = format!(r#"{{"jsonrpc":"2.0","result":{},"id":{}}}"#, params, m.id);
        prop_assert_eq!(text(reply), want);
        // serde_json finds the same three members, `result` and `id` byte for byte...
        let members: BTreeMap<String, &RawValue> =
            serde_json::from_slice(reply).expect("a JSON object");
        let got: Vec<(&str, &str)> = members.iter().map(|(k, v)| (k.as_str(), v.get())).collect();
        prop_assert_eq!(
            got,
            [("id", m.id.as_str()), ("jsonrpc", "\"2.0\""), ("result", params.as_str())]
        );
        // ... and reads `result` as the model value, when its `Value` can hold every
        // number of it (`1e999` cannot be: then the bytes above are the comparison).
        if let Some(want) = to_value(&m.params.as_json()) {
            let got: Value = serde_json::from_str(members["result"].get()).expect("a Value");
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn mutated_messages_get_serde_json_verdicts(
        m in message(),
        mutations in vec(mutation(), 1..4),
    ) {
        let mut bytes = print(&m).text.into_bytes();
        mutate(&mut bytes, &mutations);
        check_verdict(&bytes)?;
    }

    #[test]
    fn near_json_lexemes_get_serde_json_verdicts(
        number in "[-+0-9.eE]{1,8}",
        string in vec(near_string_piece(), 0..6),
        wrap in any::<bool>(),
    ) {
        let string = format!("\"{}\"", string.concat());
        for lexeme in [number.as_str(), string.as_str()] {
            check_verdict(lexeme.as_bytes())?;
            let msg = if wrap {
                format!(r#"{{"jsonrpc":"2.0","method":"echo","params":[{lexeme}],"id":1}}"#)
            } else {
                format!(r#"{{"jsonrpc":"2.0","method":"echo","params":{{"k":{lexeme}}},"id":{lexeme}}}"#)
            };
            check_verdict(msg.as_bytes())?;
        }
    }

    #[test]
    fn nesting_up_to_100_levels(
        v in json(),
        wrappers in vec((any::<bool>(), key()), 0..100),
        mutations in vec(mutation(), 0..2),
        ws in whitespace(),
    ) {
        // `v` inside up to 100 arrays and objects: with the envelope, the params and
        // `v`'s own 6 levels at most, 108 in all, below both parsers' limits.
        let mut value = v;
        for (array, k) in wrappers {
            value = if array { Json::Arr(vec![value]) } else { Json::Obj(vec![(k, value)]) };
        }
        let m = Message {
            params: ParamsModel::Positional(vec![value]),
            id: "1".into(),
            method: spelled("echo", 0, 0),
            order: vec![0, 1, 2, 3],
            ws,
        };
        let printed = print(&m);
        let mut out = vec![0u8; 64 * 1024];
        let reply = SERVER
            .handle(&mut (), printed.text.as_bytes(), &mut out)
            .expect("64 KiB holds any reply");
        prop_assert_eq!(
            text(reply),
            format!(
                r#"{{"jsonrpc":"2.0","result":{},"id":1}}"#,
                without_line_breaks(&printed.params)
            )
        );
        check_value(request(printed.text.as_bytes())?.params.expect("params"), &m.params.as_json())?;
        let mut bytes = printed.text.into_bytes();
        mutate(&mut bytes, &mutations);
        check_verdict(&bytes)?;
    }

    #[test]
    fn replies_over_newline_framing_are_one_line_each(
        messages in vec((message(), vec(mutation(), 0..2)), 1..4),
        chunk in 1usize..64,
    ) {
        let mut stream = Vec::new();
        for (m, mutations) in &messages {
            let mut bytes = print(m).text.into_bytes();
            mutate(&mut bytes, mutations);
            stream.extend_from_slice(&bytes);
            stream.push(b'\n');
        }
        let mut framer = Box::new(LineAccumulator::<{ 64 * 1024 }>::new());
        let mut out = vec![0u8; 64 * 1024];
        let sent = served(&SERVER, &mut (), &mut *framer, &mut out, stream.chunks(chunk)).replies;
        let (replies, wire) = (sent.len(), sent.concat());
        // Exactly one `\n` per reply, at its end; each line is JSON.
        prop_assert_eq!(wire.iter().filter(|&&b| b == b'\n').count(), replies);
        prop_assert!(wire.is_empty() || wire.last() == Some(&b'\n'));
        for line in wire.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            prop_assert!(serde_accepts(line), "not JSON: {}", text(line));
            prop_assert!(matches!(line.first(), Some(b'{' | b'[')), "{}", text(line));
        }
        // The same replies as each line given to `Server::handle` on its own.
        let mut want = Vec::new();
        for line in stream.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                continue;
            }
            let r = SERVER.handle(&mut (), line, &mut out).expect("fits");
            if !r.is_empty() {
                want.extend_from_slice(r);
                want.push(b'\n');
            }
        }
        prop_assert_eq!(text(&wire), text(&want));
    }

    #[test]
    fn handler_strings_and_error_messages_are_escaped(s in any::<String>()) {
        let ctx = Text(Box::leak(s.clone().into_boxed_str()));
        for (method, check) in [("text", "result"), ("text_error", "error")] {
            let wire = one_reply_over_newline_framing(
                &TEXT_SERVER,
                ctx,
                format!(r#"{{"jsonrpc":"2.0","method":"{method}","id":1}}"#).as_bytes(),
            );
            prop_assert_eq!(wire.iter().filter(|&&b| b == b'\n').count(), 1, "{}", text(&wire));
            prop_assert!(!wire[..wire.len() - 1].iter().any(|&b| b < 0x20), "raw control: {:?}", text(&wire));
            let v: Value = serde_json::from_slice(&wire).expect("JSON");
            if check == "result" {
                let mut want = serde_json::Map::new();
                want.insert(s.clone(), Value::String(s.clone()));
                prop_assert_eq!(&v["result"], &Value::Object(want));
            } else {
                prop_assert_eq!(&v["error"]["message"], &Value::String(s.clone()));
                prop_assert_eq!(&v["error"]["code"], &Value::from(-32001));
            }
            prop_assert_eq!(&v["id"], &Value::from(1));
        }
    }

    /// A handler may write any [`RawJson`] with `ResultWriter::raw`, and a `RawJson`
    /// made with `RawJson::new` keeps the whitespace inside the value, raw newlines
    /// included. `docs/DESIGN.md` says a writer that could receive a raw newline from
    /// elsewhere "must refuse it rather than break the framing": the writer drops raw
    /// line breaks (JSON whitespace) as it copies, so the reply stays one line. (Over
    /// newline framing the *params* cannot hold one: the framer cuts at every `\n`.)
    /// The same holds for `RpcError::with_data`. Smallest case that once broke it: the
    /// value `[\n]`.
    #[test]
    fn raw_results_cannot_break_newline_framing(v in json(), ws in whitespace()) {
        let bytes = Printer::new(&ws).print(&v).into_bytes();
        let ctx = Text(Box::leak(String::from_utf8(bytes).expect("UTF-8").into_boxed_str()));
        let wire = one_reply_over_newline_framing(
            &TEXT_SERVER,
            ctx,
            br#"{"jsonrpc":"2.0","method":"raw","id":1}"#,
        );
        prop_assert_eq!(
            wire.iter().filter(|&&b| b == b'\n').count(),
            1,
            "a reply over newline framing holds a raw newline: {:?}",
            text(&wire)
        );
    }
}

/// One edit of a message: kind (0 delete, 1 overwrite, 2 flip a bit, 3 insert), where,
/// which byte (overwrite, insert), which bit (flip).
type Mutation = (u8, Index, u8, u8);

fn mutation() -> impl Strategy<Value = Mutation> {
    (0u8..4, any::<Index>(), mutation_byte(), 0u8..8)
}

fn mutate(bytes: &mut Vec<u8>, mutations: &[Mutation]) {
    for &(kind, at, byte, bit) in mutations {
        let i = at.index(bytes.len() + 1);
        match kind {
            0 if i < bytes.len() => {
                bytes.remove(i);
            }
            1 if i < bytes.len() => bytes[i] = byte,
            2 if i < bytes.len() => bytes[i] ^= 1 << bit,
            _ => bytes.insert(i, byte),
        }
    }
}

/// A byte to insert or write: mostly ones that mean something to JSON.
fn mutation_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => select(b"{}[],:\"\\ \t\n\r0123456789-+.eEtrufalsnu/bDdcC".to_vec()),
        1 => any::<u8>(),
    ]
}

/// Pieces of strings close to the escape grammar: lone and paired surrogates, short and
/// cut escapes, control characters, quotes.
fn near_string_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(vec![
            "\\", "u", "\\u", "\\u00", "\\u0041", "\\ud83d", "\\ude00", "\\uD800", "\\uDFFF",
            "\\uDBFF\\uDC00", "\\ud83d\\ude00", "\\x", "\\/", "\\\"", "\"", "0", "a", "F", "g",
            "\u{1}", "\u{1f}", "\u{7f}", "\t", "\n", "é", "\u{2028}", "😀",
        ])
        .prop_map(str::to_owned),
        1 => "[0-9a-fA-F]{1,4}",
    ]
}

/// One message: the crate's verdict must be serde_json's, except for an unpaired
/// surrogate escape, refused here as exactly `LoneSurrogate`; and `Server::handle`
/// answers exactly one `-32700` when, and only when, the message is refused.
fn check_verdict(bytes: &[u8]) -> Result<(), TestCaseError> {
    let theirs = serde_accepts(bytes);
    let ours = envelope::parse(bytes, &Limits::DEFAULT).map(|_| ());
    let scanned = scan::validate(bytes, scan::DEFAULT_MAX_DEPTH);
    prop_assert_eq!(
        ours.is_ok(),
        scanned.is_ok(),
        "envelope and scan disagree: {:?}",
        text(bytes)
    );
    if theirs && has_lone_surrogate(bytes) {
        prop_assert_eq!(
            ours.map_err(|e| e.kind),
            Err(ScanErrorKind::LoneSurrogate),
            "{:?}",
            text(bytes)
        );
    } else {
        prop_assert_eq!(
            ours.is_ok(),
            theirs,
            "ours {:?}, serde_json accepts: {}; input {:?}",
            ours,
            theirs,
            text(bytes)
        );
    }
    let mut out = vec![0u8; 64 * 1024];
    let reply = SERVER
        .handle(&mut (), bytes, &mut out)
        .expect("64 KiB holds any reply");
    if ours.is_err() {
        prop_assert_eq!(text(reply), PARSE_ERROR);
    } else {
        prop_assert!(!text(reply).contains("-32700"), "{}", text(reply));
        if !reply.is_empty() {
            prop_assert!(serde_accepts(reply), "reply not JSON: {:?}", text(reply));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// Handlers that write what the test gives them.

/// The text a handler writes (leaked: a `RpcError` message must outlive the params).
#[derive(Copy, Clone)]
struct Text(&'static str);

/// `text` → `{s: s}` through `key` and `str`; `text_error` → error `-32001` with
/// message `s`; `raw` → `s` as raw JSON.
static TEXT_SERVER: Server<Text> = Server::new(method_table! {
    "text" => text_result,
    "text_error" => text_error,
    "raw" => raw_result,
});

fn text_result<'p>(
    t: &mut Text,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    out.begin_object()?;
    out.key(t.0)?;
    out.str(t.0)?;
    Ok(out.end()?)
}

fn text_error<'p>(
    t: &mut Text,
    _: Params<'p>,
    _: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Err(RpcError::new(-32001, t.0))
}

fn raw_result<'p>(
    t: &mut Text,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let v = RawJson::new(t.0.as_bytes()).map_err(|_| RpcError::internal())?;
    Ok(out.raw(v)?)
}

/// The wire bytes of the reply to one newline-framed request.
fn one_reply_over_newline_framing(server: &Server<Text>, mut ctx: Text, request: &[u8]) -> Vec<u8> {
    let mut framer = LineAccumulator::<1024>::new();
    let mut out = vec![0u8; 64 * 1024];
    let mut wire = Vec::new();
    let mut stream = request.to_vec();
    stream.push(b'\n');
    wire.extend(
        served(server, &mut ctx, &mut framer, &mut out, [&stream[..]])
            .replies
            .concat(),
    );
    wire
}

/// The table is a `MethodTable` like any other.
#[test]
fn text_server_table_has_its_three_methods() {
    let table: &MethodTable<Text> = TEXT_SERVER.table();
    let names: Vec<&str> = table.methods().iter().map(|m| m.name()).collect();
    assert_eq!(names, ["text", "text_error", "raw"]);
}

/// The oracles themselves.
#[test]
fn oracles() {
    assert!(has_lone_surrogate(br#""\ud800""#));
    assert!(has_lone_surrogate(br#"["\udc00"]"#));
    assert!(has_lone_surrogate(br#""\ud83d\u0041""#));
    assert!(has_lone_surrogate(br#""\ud83d\"""#));
    assert!(!has_lone_surrogate(br#""\ud83d\ude00""#));
    assert!(!has_lone_surrogate(br#""\\ud800""#));
    assert!(!has_lone_surrogate(br#""\u0041\uDBFF\uDFFF""#));
    assert!(serde_accepts(b"1e999"));
    assert!(!serde_accepts(b"\"\xff\""));
    assert!(!serde_accepts(b"[1,]"));
    assert!(to_value(&Json::Num("1e999".into())).is_none());
    // The printer: whitespace between tokens, none around the value.
    let v = Json::Obj(vec![(
        spelled("a", 1, 0),
        Json::Arr(vec![Json::Null, Json::Num("-1.5E+3".into())]),
    )]);
    assert_eq!(
        Printer::new(&["\n"]).print(&v),
        "{\n\"\\u0061\"\n:\n[\nnull\n,\n-1.5E+3\n]\n}"
    );
    let printed = print(&Message {
        params: ParamsModel::Positional(vec![Json::Bool(true), Json::Arr(vec![])]),
        id: "7".into(),
        method: spelled("echo", 0, 0),
        order: vec![0, 1, 2, 3],
        ws: vec![""],
    });
    assert_eq!(
        printed.text,
        r#"{"jsonrpc":"2.0","method":"echo","params":[true,[]],"id":7}"#
    );
    assert_eq!(printed.items, ["true", "[]"]);
}

/// What the writer makes of a raw value: the same bytes without `\n` and `\r`
/// (whitespace in valid JSON), so a reply is always one line.
fn without_line_breaks(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '\n' | '\r')).collect()
}
