//! Typed params, shape by shape (feature `serde`): every serde shape decodes, or is a
//! clean `-32602` that says why and where; never a panic. Then differential
//! properties: the same generated inputs decoded by this crate and by serde_json (and
//! by serde-json-core, for the shapes it supports) give the same answers.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use jsonrpc_slice::serde::{At, DecodeError, Reason, MAX_DEPTH};
use jsonrpc_slice::{method_table, typed_handler, Limits, RawJson, ResultWriter, RpcError, Server};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Decodes `json` into `T` with a 64-byte scratch.
fn de<'a, T: Deserialize<'a>>(json: &'a str) -> Result<T, DecodeError<'a>> {
    let raw = RawJson::new(json.as_bytes()).expect("valid JSON");
    raw.decode_with_scratch(&mut [0u8; 64])
}

/// The reason and the place (as text) of a refusal.
fn refused<'a, T: Deserialize<'a> + std::fmt::Debug>(json: &'a str) -> (Reason, String) {
    match de::<T>(json) {
        Ok(v) => panic!("{json}: decoded as {v:?}"),
        Err(e) => (e.reason(), e.at().to_string()),
    }
}

fn key(k: &str) -> At<'_> {
    At::Member(RawJson::new(k.as_bytes()).unwrap())
}

#[derive(Deserialize, Debug, PartialEq)]
struct Borrowed<'a> {
    name: &'a str,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Owned {
    name: String,
    short: heapless::String<8>,
    cow: Option<Cow<'static, str>>,
}

#[test]
fn borrowed_strings() {
    assert_eq!(
        de::<Borrowed>(r#"{"name":"ada"}"#),
        Ok(Borrowed { name: "ada" })
    );
    let e = de::<Borrowed>(r#"{"name":"a\nb"}"#).unwrap_err();
    assert_eq!(e.reason(), Reason::EscapedBorrowed);
    assert_eq!(e.at(), key(r#""name""#));
    assert_eq!(
        e.to_string(),
        "Invalid params: field `name`: a string with escapes cannot be borrowed: use an owned string type"
    );
    // A borrowed `&str` at the top, and `&[u8]`.
    assert_eq!(de::<&str>(r#""plain""#), Ok("plain"));
    assert_eq!(de::<&[u8]>(r#""ab""#), Ok(&b"ab"[..]));
    assert_eq!(refused::<&str>(r#""t\u0061b""#).0, Reason::EscapedBorrowed);
}

#[test]
fn owned_strings_with_and_without_escapes() {
    let o: Owned = de(r#"{"name":"C:\\temp\\x","short":"a\tb","cow":"\u00e9"}"#).unwrap();
    assert_eq!(o.name, "C:\\temp\\x");
    assert_eq!(o.short, "a\tb");
    assert_eq!(o.cow.as_deref(), Some("é"));
    let o: Owned = de(r#"{"name":"plain","short":"s"}"#).unwrap();
    assert_eq!(
        (o.name.as_str(), o.short.as_str(), o.cow),
        ("plain", "s", None)
    );
    // Capacity exceeded, escaped or not.
    for json in [
        r#"{"name":"","short":"123456789"}"#,
        r#"{"name":"","short":"12345678\n"}"#,
    ] {
        assert_eq!(
            refused::<Owned>(json),
            (Reason::StringTooLong, "field `short`".into())
        );
    }
    // No scratch, or too small a one.
    let raw = RawJson::new(br#"["a\nb"]"#).unwrap();
    let e = raw.decode::<(String,)>().unwrap_err();
    assert_eq!((e.reason(), e.at()), (Reason::NoScratch, At::Element(0)));
    let e = raw
        .decode_with_scratch::<(String,)>(&mut [0; 2])
        .unwrap_err();
    assert_eq!(e.reason(), Reason::ScratchTooSmall);
    assert_eq!(
        raw.decode_with_scratch::<(String,)>(&mut [0; 3]),
        Ok(("a\nb".into(),))
    );
    // Every escape, as serde_json decodes it.
    let s = r#""\"\\\/\b\f\n\r\t\u0000\u00e9\u20ac\ud83d\ude00""#;
    assert_eq!(
        de::<String>(s).unwrap(),
        serde_json::from_str::<String>(s).unwrap()
    );
    // char
    assert_eq!(de::<char>(r#""\u00e9""#), Ok('é'));
    assert_eq!(refused::<char>(r#""ab""#).0, Reason::InvalidValue);
}

#[derive(Deserialize, Debug, PartialEq)]
struct Opt {
    a: Option<u8>,
    b: Option<Option<bool>>,
    #[serde(default)]
    c: u8,
}

#[test]
fn options() {
    assert_eq!(
        de::<Opt>(r#"{}"#),
        Ok(Opt {
            a: None,
            b: None,
            c: 0
        })
    );
    assert_eq!(
        de::<Opt>(r#"{"a":null,"b":true,"c":3}"#),
        Ok(Opt {
            a: None,
            b: Some(Some(true)),
            c: 3
        })
    );
    assert_eq!(de::<Option<u8>>("null"), Ok(None));
    assert_eq!(de::<Option<u8>>("7"), Ok(Some(7)));
    assert_eq!(
        refused::<Opt>(r#"{"a":"1"}"#),
        (Reason::ExpectedInteger, "field `a`".into())
    );
}

#[derive(Deserialize, Debug, PartialEq)]
struct Position {
    line: u32,
    character: u32,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Range {
    start: Position,
    end: Position,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Change {
    range: Range,
    text: String,
}

#[test]
fn nested_structs_name_the_innermost_field() {
    let c: Change = de(
        r#"{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}},"text":"fn main() {\n}"}"#,
    )
    .unwrap();
    assert_eq!(c.range.end.character, 4);
    assert_eq!(c.text, "fn main() {\n}");
    let e = de::<Change>(r#"{"range":{"start":{"line":1,"character":-2},"end":{}},"text":""}"#)
        .unwrap_err();
    assert_eq!(e.reason(), Reason::IntegerOutOfRange);
    assert_eq!(
        e.to_string(),
        "Invalid params: field `character`: integer out of range for its type"
    );
    let e =
        de::<Change>(r#"{"range":{"start":{"line":1,"character":2},"end":{"line":1}},"text":""}"#)
            .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Invalid params: field `character`: required field missing"
    );
    assert_eq!(e.at(), At::Field("character"));
    // A struct from an array, as serde_json.
    assert_eq!(
        de::<Position>("[3, 4]"),
        Ok(Position {
            line: 3,
            character: 4
        })
    );
    assert_eq!(refused::<Position>("3").0, Reason::ExpectedObject);
}

#[test]
fn tuples_and_sequences() {
    assert_eq!(
        de::<(u8, String, bool)>(r#"[1,"a",true]"#),
        Ok((1, "a".into(), true))
    );
    assert_eq!(
        refused::<(u8, u8, u8)>("[1,2]"),
        (Reason::TooFewElements, "index 2".into())
    );
    assert_eq!(
        refused::<(u8, u8)>("[1,2,3]"),
        (Reason::TooManyElements, "index 2".into())
    );
    assert_eq!(
        refused::<(u8, u8)>(r#"[1,"2"]"#),
        (Reason::ExpectedInteger, "index 1".into())
    );
    assert_eq!(de::<[i8; 3]>("[-1,0,1]"), Ok([-1, 0, 1]));
    assert_eq!(
        de::<Vec<Vec<u8>>>("[[],[1],[2,3]]"),
        Ok(vec![vec![], vec![1], vec![2, 3]])
    );
    assert_eq!(de::<heapless::Vec<u8, 3>>("[1,2,3]").unwrap(), [1, 2, 3]);
    assert_eq!(
        refused::<heapless::Vec<u8, 3>>("[1,2,3,4]"),
        (Reason::TooManyElements, "index 3".into())
    );
    assert_eq!(refused::<Vec<u8>>("{}").0, Reason::ExpectedArray);
    // Unit and unit structs.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Nothing;
    assert_eq!(de::<()>("null"), Ok(()));
    assert_eq!(de::<Nothing>("null"), Ok(Nothing));
    assert_eq!(refused::<()>("[]").0, Reason::ExpectedNull);
    // Newtypes.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Meters(f64);
    assert_eq!(de::<Meters>("2.5"), Ok(Meters(2.5)));
}

#[derive(Deserialize, Debug, PartialEq)]
enum External {
    Unit,
    New(u8),
    Tuple(u8, String),
    Struct { x: i32 },
}

#[test]
fn externally_tagged_enums() {
    assert_eq!(de::<External>(r#""Unit""#), Ok(External::Unit));
    assert_eq!(de::<External>(r#"{"Unit":null}"#), Ok(External::Unit));
    assert_eq!(de::<External>(r#"{"New":7}"#), Ok(External::New(7)));
    assert_eq!(
        de::<External>(r#"{"Tuple":[1,"a\"b"]}"#),
        Ok(External::Tuple(1, "a\"b".into()))
    );
    assert_eq!(
        de::<External>(r#"{"Struct":{"x":-1}}"#),
        Ok(External::Struct { x: -1 })
    );
    assert_eq!(de::<External>(r#""\u0055nit""#), Ok(External::Unit));
    assert_eq!(refused::<External>(r#""New""#).0, Reason::VariantNeedsData);
    assert_eq!(
        refused::<External>(r#""Nope""#),
        (Reason::UnknownVariant, String::new())
    );
    assert_eq!(
        refused::<External>(r#"{"Nope":1}"#),
        (Reason::UnknownVariant, "field `Nope`".into())
    );
    assert_eq!(
        refused::<External>(r#"{"New":1,"Unit":null}"#).0,
        Reason::ExpectedEnum
    );
    assert_eq!(refused::<External>(r#"{}"#).0, Reason::ExpectedEnum);
    assert_eq!(refused::<External>("1").0, Reason::ExpectedEnum);
    assert_eq!(
        refused::<External>(r#"{"New":300}"#),
        (Reason::IntegerOutOfRange, "field `New`".into())
    );
    assert_eq!(refused::<External>(r#"{"Unit":1}"#).0, Reason::ExpectedNull);
}

#[test]
fn maps_with_string_and_parsed_keys() {
    let m: BTreeMap<String, u32> = de(r#"{"a":1,"b\n":2}"#).unwrap();
    assert_eq!(m, BTreeMap::from([("a".into(), 1), ("b\n".into(), 2)]));
    let m: HashMap<String, Value> = de(r#"{"x":[1,{"y":null}]}"#).unwrap();
    assert_eq!(m["x"], json!([1, {"y": null}]));
    let m: BTreeMap<&str, u8> = de(r#"{"k":1}"#).unwrap();
    assert_eq!(m, BTreeMap::from([("k", 1)]));
    let m: BTreeMap<u64, bool> = de(r#"{"1":true,"18446744073709551615":false}"#).unwrap();
    assert_eq!(m, BTreeMap::from([(1, true), (u64::MAX, false)]));
    // An integer key with escapes is decoded first (serde_json refuses it).
    let m: BTreeMap<u64, bool> = de(r#"{"\u0031":true}"#).unwrap();
    assert_eq!(m, BTreeMap::from([(1, true)]));
    assert!(serde_json::from_str::<BTreeMap<u64, bool>>(r#"{"\u0031":true}"#).is_err());
    let m: BTreeMap<i8, ()> = de(r#"{"-128":null}"#).unwrap();
    assert_eq!(m.keys().copied().collect::<Vec<_>>(), [-128]);
    let m: BTreeMap<bool, u8> = de(r#"{"true":1}"#).unwrap();
    assert_eq!(m[&true], 1);
    #[derive(Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
    enum Color {
        Red,
    }
    let m: BTreeMap<Color, u8> = de(r#"{"Red":1}"#).unwrap();
    assert_eq!(m[&Color::Red], 1);
    let m: heapless::LinearMap<heapless::String<4>, u8, 2> = de(r#"{"a":1,"b":2}"#).unwrap();
    assert_eq!(m.len(), 2);
    assert_eq!(
        refused::<BTreeMap<i8, ()>>(r#"{"128":null}"#),
        (Reason::IntegerOutOfRange, "field `128`".into())
    );
    assert_eq!(
        refused::<BTreeMap<u8, ()>>(r#"{"x":null}"#),
        (Reason::ExpectedInteger, "field `x`".into())
    );
    assert_eq!(
        refused::<BTreeMap<u8, ()>>(r#"{" 1":null}"#).0,
        Reason::ExpectedInteger
    );
    assert_eq!(
        refused::<BTreeMap<u8, ()>>(r#"{"01":null}"#).0,
        Reason::ExpectedInteger
    );
    assert_eq!(
        refused::<BTreeMap<(u8, u8), ()>>(r#"{"1":null}"#),
        (Reason::BadMapKey, "field `1`".into())
    );
    assert_eq!(
        refused::<heapless::LinearMap<u8, u8, 1>>(r#"{"1":1,"2":2}"#),
        (Reason::TooManyMembers, "field `2`".into())
    );
    assert_eq!(
        refused::<BTreeMap<String, u8>>("[]").0,
        Reason::ExpectedObject
    );
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Strict {
    a: u8,
}

#[test]
fn deny_unknown_fields() {
    assert_eq!(de::<Strict>(r#"{"a":1}"#), Ok(Strict { a: 1 }));
    assert_eq!(
        refused::<Strict>(r#"{"a":1,"b":2}"#),
        (Reason::UnknownField, "field `b`".into())
    );
    assert_eq!(
        refused::<Strict>(r#"{"a":1,"a":2}"#),
        (Reason::DuplicateField, "field `a`".into())
    );
}

#[derive(Deserialize, Debug, PartialEq)]
struct Flattened {
    id: u32,
    #[serde(flatten)]
    position: Position,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
enum Internal {
    Point { x: i32, y: i32 },
    Label { text: String },
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Num(u64),
    Pair(u8, u8),
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Untagged {
    Number(i64),
    Text(String),
    List(Vec<Untagged>),
    Object { key: bool },
}

#[test]
fn flatten_and_deserialize_any_enums() {
    let f: Flattened =
        de(r#"{"id":1,"line":2,"character":3,"extra":[true],"e\n":"x\ty"}"#).unwrap();
    assert_eq!(f.id, 1);
    assert_eq!(
        f.position,
        Position {
            line: 2,
            character: 3
        }
    );
    assert_eq!(f.rest["extra"], json!([true]));
    assert_eq!(f.rest["e\n"], json!("x\ty"));
    assert_eq!(
        refused::<Flattened>(r#"{"id":1,"line":2}"#).0,
        Reason::MissingField
    );

    assert_eq!(
        de::<Internal>(r#"{"y":2,"type":"Point","x":1}"#),
        Ok(Internal::Point { x: 1, y: 2 })
    );
    assert_eq!(
        de::<Internal>(r#"{"type":"Label","text":"a\nb"}"#),
        Ok(Internal::Label {
            text: "a\nb".into()
        })
    );
    assert_eq!(refused::<Internal>(r#"{"x":1}"#).0, Reason::MissingField);
    assert_eq!(
        refused::<Internal>(r#"{"type":"Nope"}"#).0,
        Reason::UnknownVariant
    );

    assert_eq!(de::<Adjacent>(r#"{"t":"Num","c":5}"#), Ok(Adjacent::Num(5)));
    assert_eq!(
        de::<Adjacent>(r#"{"c":[1,2],"t":"Pair"}"#),
        Ok(Adjacent::Pair(1, 2))
    );

    assert_eq!(de::<Untagged>("-5"), Ok(Untagged::Number(-5)));
    assert_eq!(
        de::<Untagged>(r#""a\u0062""#),
        Ok(Untagged::Text("ab".into()))
    );
    assert_eq!(
        de::<Untagged>(r#"[1,["x"],{"key":true}]"#),
        Ok(Untagged::List(vec![
            Untagged::Number(1),
            Untagged::List(vec![Untagged::Text("x".into())]),
            Untagged::Object { key: true },
        ]))
    );
    // No variant matches: serde's message needs an allocation; the reason is Custom.
    let e = de::<Untagged>("1.5").unwrap_err();
    assert_eq!(e.reason(), Reason::Custom);
    assert_eq!(
        e.to_string(),
        "Invalid params: the value does not fit the type"
    );
    // serde_json::Value, through deserialize_any.
    let text = r#"{"a":[1,-2,3.5,18446744073709551615,-9223372036854775808,1e300],"b":{"c":null,"d":"\u00e9"},"e":false}"#;
    assert_eq!(
        de::<Value>(text).unwrap(),
        serde_json::from_str::<Value>(text).unwrap()
    );
}

#[test]
fn numbers() {
    assert_eq!(
        de::<u128>("340282366920938463463374607431768211455"),
        Ok(u128::MAX)
    );
    assert_eq!(
        de::<i128>("-170141183460469231731687303715884105728"),
        Ok(i128::MIN)
    );
    assert_eq!(
        de::<i128>("170141183460469231731687303715884105727"),
        Ok(i128::MAX)
    );
    assert_eq!(
        refused::<u128>("340282366920938463463374607431768211456").0,
        Reason::IntegerOutOfRange
    );
    assert_eq!(
        refused::<i128>("-170141183460469231731687303715884105729").0,
        Reason::IntegerOutOfRange
    );
    assert_eq!(de::<i64>("-9223372036854775808"), Ok(i64::MIN));
    assert_eq!(
        refused::<i64>("9223372036854775808").0,
        Reason::IntegerOutOfRange
    );
    assert_eq!(refused::<u8>("256").0, Reason::IntegerOutOfRange);
    assert_eq!(refused::<u8>("-1").0, Reason::IntegerOutOfRange);
    assert_eq!(refused::<i8>("-129").0, Reason::IntegerOutOfRange);
    assert_eq!(de::<i8>("-128"), Ok(-128));
    assert_eq!(refused::<u8>("1.0").0, Reason::ExpectedInteger);
    assert_eq!(refused::<u8>("1e2").0, Reason::ExpectedInteger);
    assert_eq!(refused::<u8>("true").0, Reason::ExpectedInteger);
    assert_eq!(de::<f64>("1e308"), Ok(1e308));
    assert_eq!(de::<f64>("12"), Ok(12.0));
    assert_eq!(de::<f64>("1e-400"), Ok(0.0));
    assert_eq!(de::<f32>("0.5"), Ok(0.5));
    assert_eq!(refused::<f64>("1e400").0, Reason::NumberOutOfRange);
    assert_eq!(refused::<f64>("-1e400").0, Reason::NumberOutOfRange);
    assert_eq!(refused::<f64>(r#""1""#).0, Reason::ExpectedNumber);
    // serde_json agrees on each.
    assert!(serde_json::from_str::<f64>("1e400").is_err());
    assert!(serde_json::from_str::<u8>("1.0").is_err());
    assert!(serde_json::from_str::<u8>("-0").is_err());
    assert_eq!(refused::<u8>("-0").0, Reason::ExpectedInteger);
    assert_eq!(de::<f64>("-0").map(f64::is_sign_negative), Ok(true));
    assert_eq!(de::<bool>("false"), Ok(false));
    assert_eq!(refused::<bool>("0").0, Reason::ExpectedBool);
}

/// An MCP `tools/call`: the arguments pass through untouched.
#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct ToolCall<'a> {
    name: &'a str,
    #[serde(borrow)]
    arguments: RawJson<'a>,
}

#[test]
fn raw_json_passes_through() {
    let text = r#"{"name":"search","arguments":{ "q": "a\nb", "n": [1, 2.5e3] }}"#;
    let call: ToolCall = de(text).unwrap();
    assert_eq!(call.name, "search");
    assert_eq!(
        call.arguments.as_bytes(),
        br#"{ "q": "a\nb", "n": [1, 2.5e3] }"#
    );
    let mut buf = [0u8; 128];
    let mut w = ResultWriter::new(&mut buf);
    w.serialize(&call).unwrap();
    assert_eq!(
        w.written(),
        br#"{"name":"search","arguments":{ "q": "a\nb", "n": [1, 2.5e3] }}"#
    );
    // Another serializer sees a newtype holding the JSON text, as documented.
    let raw = RawJson::new(b"[1]").unwrap();
    assert_eq!(serde_json::to_string(&raw).unwrap(), r#""[1]""#);
    // Any value, and in a sequence.
    let all: Vec<RawJson> = de(r#"[null, "x", {"a":[]}, -1e9]"#).unwrap();
    let all: Vec<&[u8]> = all.iter().map(|r| r.as_bytes()).collect();
    assert_eq!(all, [&b"null"[..], br#""x""#, br#"{"a":[]}"#, b"-1e9"]);
    // serde buffers untagged values: no RawJson can come out of them.
    #[derive(Deserialize, Debug)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Buffered<'a> {
        Raw(#[serde(borrow)] RawJson<'a>),
    }
    assert_eq!(refused::<Buffered>("1").0, Reason::Custom);
}

/// Recursive types on deep input: a clean refusal at the depth bound.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Tree {
    Leaf(u8),
    Node(Vec<Tree>),
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Loop(Option<Box<Loop>>);

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
#[serde(untagged)]
enum AnyTree {
    Leaf(u8),
    Node(Vec<AnyTree>),
}

typed_handler! {
    fn tree(ctx: &mut (), t: (Tree,)) -> Result<(), RpcError<'static>> {
        let _ = t;
        Ok(())
    }
}

typed_handler! {
    fn any_value(ctx: &mut (), v: Value) -> Result<(), RpcError<'static>> {
        let _ = v;
        Ok(())
    }
}

static DEEP: Server<()> = Server::new(method_table! { "tree" => tree, "value" => any_value })
    .with_limits(Limits::DEFAULT.max_depth(1000));

/// Calls the server whose depth limit lets 1000 levels through.
fn call_deep(request: &str) -> String {
    let mut out = [0u8; 256];
    let reply = DEEP.handle(&mut (), request.as_bytes(), &mut out).unwrap();
    String::from_utf8(reply.to_vec()).unwrap()
}

#[test]
fn nesting_is_bounded() {
    // Within the bound.
    let ok = format!(
        "{}{}{}",
        r#"{"Node":["#.repeat(40),
        r#"{"Leaf":1}"#,
        "]}".repeat(40)
    );
    assert!(de::<Tree>(&ok).is_ok());
    let ok = format!("{}1{}", "[".repeat(127), "]".repeat(127));
    assert!(de::<AnyTree>(&ok).is_ok());
    assert!(de::<Value>(&ok).is_ok());
    // Deeper: TooDeep, through a server whose scanner lets 1000 levels through.
    let deep = format!(
        "{}{}{}",
        r#"{"Node":["#.repeat(400),
        r#"{"Leaf":1}"#,
        "]}".repeat(400)
    );
    let reply = call_deep(&format!(
        r#"{{"jsonrpc":"2.0","method":"tree","params":[{deep}],"id":1}}"#
    ));
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: field `Node`: nested too deeply","data":"Node"},"id":1}"#
    );
    let reply = call_deep(&format!(
        r#"{{"jsonrpc":"2.0","method":"value","params":{}1{},"id":1}}"#,
        "[".repeat(900),
        "]".repeat(900)
    ));
    assert!(reply.contains(": nested too deeply"), "{reply}");
    // A type that recurses without consuming input.
    assert_eq!(refused::<Loop>("1").0, Reason::TooDeep);
    assert!(de::<Loop>("null").is_ok());
    assert_eq!(MAX_DEPTH, 128);
}

#[test]
fn errors_become_invalid_params_naming_the_place() {
    let e: RpcError = de::<Strict>(r#"{"a":"x"}"#).unwrap_err().into();
    assert_eq!(
        (e.code, e.message),
        (-32602, "Invalid params: expected an integer")
    );
    assert_eq!(e.data.unwrap().as_bytes(), br#""a""#);
    let e: RpcError = de::<Vec<u8>>("[1,2,3,4,5,6,7,8,9,10,11,true]")
        .unwrap_err()
        .into();
    assert_eq!(e.data.unwrap().as_bytes(), b"11");
    let e: RpcError = de::<u8>("true").unwrap_err().into();
    assert_eq!(e.data, None);
    let e = de::<Strict>(r#"{"a\n":1}"#).unwrap_err();
    assert_eq!(e.to_string(), r"Invalid params: field `a\n`: unknown field");
}

// ---------------------------------------------------------------------------------
// Differential: this crate against serde_json (and serde-json-core) on generated input.

#[derive(Deserialize, Debug, PartialEq)]
struct Mixed {
    a: i64,
    b: Option<u8>,
    s: String,
    v: Vec<i32>,
    m: BTreeMap<String, u32>,
    k: BTreeMap<u16, bool>,
    e: External,
    t: (bool, i8),
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum Tagged {
    A { x: i32 },
    B { s: String },
}

/// Keys the types above look for, and some they do not.
const KEYS: &[&str] = &[
    "a", "b", "s", "v", "m", "k", "e", "t", "x", "Unit", "New", "Tuple", "Struct", "A", "B", "1",
    "70000", "-1", "key", "a\n",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop_oneof![
            Just(0i64),
            Just(-1),
            Just(127),
            Just(128),
            Just(255),
            Just(256),
            Just(65535),
            Just(70000),
            Just(i64::MIN),
            Just(i64::MAX),
            any::<i64>(),
        ]
        .prop_map(|n| json!(n)),
        Just(json!(u64::MAX)),
        Just(json!(0.5)),
        prop_oneof![
            Just("".to_string()),
            Just("Unit".to_string()),
            Just("New".to_string()),
            Just("A".to_string()),
            "[a-c\\n\"\\\\é]{0,6}",
        ]
        .prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                )
            }),
        ]
    })
}

/// Values shaped like `Mixed`, with one field sometimes replaced by anything.
fn mixed() -> impl Strategy<Value = Value> {
    (
        value(),
        prop::sample::select(&KEYS[..8]),
        any::<bool>(),
        "[a\\n\"é]{0,4}",
        any::<i64>(),
    )
        .prop_map(|(noise, field, replace, s, a)| {
            let mut m = json!({
                "a": a, "b": null, "s": s, "v": [1, -2], "m": {"x": 1, &s: 2},
                "k": {"1": true, "65535": false}, "e": {"Tuple": [3, s]}, "t": [true, -1]
            });
            if replace {
                m[field] = noise;
            }
            m
        })
}

/// Our answer and serde_json's for `T` on `text`: equal values, or both refused.
fn same<T>(text: &str) -> Result<(), TestCaseError>
where
    T: for<'a> Deserialize<'a> + PartialEq + std::fmt::Debug,
{
    let ours = de::<T>(text);
    let theirs = serde_json::from_str::<T>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}", text),
        (Err(_), Err(_)) => {}
        _ => prop_assert!(
            false,
            "{} into {}: ours {:?}, serde_json {:?}",
            text,
            std::any::type_name::<T>(),
            ours,
            theirs
        ),
    }
    Ok(())
}

/// serde-json-core's answer, where it has one: what it decodes, we decode the same.
fn like_serde_json_core<T>(text: &str) -> Result<(), TestCaseError>
where
    T: for<'a> Deserialize<'a> + PartialEq + std::fmt::Debug,
{
    let mut scratch = [0u8; 64];
    if let Ok((theirs, _)) = serde_json_core::from_slice_escaped::<T>(text.as_bytes(), &mut scratch)
    {
        let ours = de::<T>(text);
        prop_assert_eq!(ours, Ok(theirs), "{}", text);
    }
    Ok(())
}

#[derive(Deserialize, Debug, PartialEq)]
struct Small {
    a: i64,
    b: Option<u8>,
    s: heapless::String<16>,
    v: heapless::Vec<i32, 4>,
    e: External,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn decodes_as_serde_json_does(v in prop_oneof![value(), mixed()]) {
        let text = v.to_string();
        same::<Mixed>(&text)?;
        same::<Value>(&text)?;
        same::<i64>(&text)?;
        same::<u8>(&text)?;
        same::<Option<u16>>(&text)?;
        same::<String>(&text)?;
        same::<Vec<i32>>(&text)?;
        same::<(bool, i8)>(&text)?;
        same::<BTreeMap<String, u32>>(&text)?;
        same::<BTreeMap<u16, bool>>(&text)?;
        same::<HashMap<i64, Value>>(&text)?;
        same::<External>(&text)?;
        same::<Untagged>(&text)?;
        same::<Tagged>(&text)?;
        same::<Strict>(&text)?;
        same::<Flattened>(&text)?;
        same::<Small>(&text)?;
    }

    #[test]
    fn decodes_what_serde_json_core_decodes(v in prop_oneof![value(), mixed()]) {
        let text = v.to_string();
        like_serde_json_core::<Small>(&text)?;
        like_serde_json_core::<i64>(&text)?;
        like_serde_json_core::<Option<u8>>(&text)?;
        like_serde_json_core::<heapless::String<16>>(&text)?;
        like_serde_json_core::<heapless::Vec<u16, 4>>(&text)?;
        like_serde_json_core::<(bool, i8)>(&text)?;
        like_serde_json_core::<External>(&text)?;
        like_serde_json_core::<Strict>(&text)?;
    }
}
