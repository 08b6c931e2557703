//! Typed params: arbitrary input, validated, then decoded by the crate's serde
//! deserializer into a few types that cover its shapes (a struct of strings, options,
//! maps with string and integer keys, a nested enum, a wide integer, a float and a
//! raw pass-through; an untagged enum; an internally tagged enum; `flatten`;
//! recursive types, one of which recurses without consuming input), with a small
//! scratch and with none. It must never panic, whatever the input or the type; a
//! refusal must be a `-32602`. For the types without floats, the answer is
//! serde_json's (the same value, or both refused). The same input as the params of a request goes
//! through a server whose scanner allows 1000 levels of nesting, to a typed handler.
#![no_main]

use std::collections::BTreeMap;

use jsonrpc_slice::serde::{DecodeError, Reason};
use jsonrpc_slice::{method_table, typed_handler, Limits, RawJson, RpcError, Server};
use libfuzzer_sys::fuzz_target;
use serde::Deserialize;

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Doc<'a> {
    name: String,
    tag: Option<&'a str>,
    count: Option<u32>,
    #[serde(default)]
    map: BTreeMap<String, i64>,
    #[serde(default)]
    keys: BTreeMap<u16, bool>,
    kind: Option<Kind>,
    big: Option<u128>,
    ratio: Option<f64>,
    #[serde(borrow)]
    raw: Option<RawJson<'a>>,
    pair: Option<(i8, char)>,
}

#[derive(Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
enum Kind {
    A,
    B(u8),
    C(String, Option<i8>),
    D { x: Vec<Kind> },
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
#[serde(untagged)]
enum Loose {
    Int(i64),
    Num(f64),
    Text(String),
    List(Vec<Loose>),
    Map(BTreeMap<String, Loose>),
    Null(()),
}

#[derive(Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
#[serde(tag = "type")]
enum Tagged {
    P { x: i32 },
    Q(BTreeMap<String, u8>),
}

#[derive(Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
#[serde(deny_unknown_fields)]
struct Strict {
    a: Option<Box<Strict>>,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Flat {
    id: Option<u32>,
    #[serde(flatten)]
    rest: BTreeMap<String, Loose>,
}

#[derive(Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
enum Tree {
    Leaf(Option<String>),
    Node(Vec<Tree>),
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Loop(Option<Box<Loop>>);

/// Decodes `v` into `T` with `scratch`; a refusal must make a `-32602`.
fn decode<'a, T: Deserialize<'a>>(v: RawJson<'a>, scratch: &mut [u8]) {
    let r: Result<T, DecodeError<'a>> = v.decode_with_scratch(scratch);
    if let Err(e) = r {
        let rpc: RpcError = e.into();
        assert_eq!(rpc.code, -32602);
        assert!(rpc.message.starts_with("Invalid params"));
        let _ = e.to_string();
    }
}

/// Our answer against serde_json's, for a type both decode (no floats, whose last
/// digit serde_json's default parser may round otherwise): the same value, or both
/// refused. Excused: our depth bound (we count `Some` and newtypes too),
/// serde_json's recursion limit (it stops one level before our scanner), and integer
/// map keys with escapes (decoded first here; serde_json refuses them).
fn same_as_serde_json<'a, T>(v: RawJson<'a>, data: &'a [u8], scratch: &mut [u8])
where
    T: Deserialize<'a> + PartialEq + std::fmt::Debug,
{
    let ours: Result<T, DecodeError<'a>> = v.decode_with_scratch(scratch);
    let theirs = serde_json::from_slice::<T>(data);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(_), Err(_)) => {}
        (Err(e), Ok(_)) if e.reason() == Reason::TooDeep => {}
        (Ok(_), Err(e)) if e.to_string().contains("recursion limit") => {}
        // A map key with escapes: decoded first here, refused by serde_json.
        (Ok(_), Err(e))
            if e.to_string()
                .contains("expected key to be a number in quotes") => {}
        _ => panic!(
            "{}: ours {ours:?}, serde_json {theirs:?}",
            std::any::type_name::<T>()
        ),
    }
}

typed_handler! {
    scratch = 16;
    fn tree(ctx: &mut (), t: (Tree,)) -> Result<(), RpcError<'static>> {
        let _ = t;
        Ok(())
    }
}

typed_handler! {
    fn loose(ctx: &mut (), l: Vec<Loose>) -> Result<u8, RpcError<'static>> {
        let _ = l;
        Ok(1)
    }
}

static SERVER: Server<()> = Server::new(method_table! { "tree" => tree, "loose" => loose })
    .with_limits(Limits::DEFAULT.max_depth(1000));

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = RawJson::new(data) {
        for scratch in [&mut [0u8; 16][..], &mut []] {
            decode::<Doc>(v, scratch);
            decode::<Kind>(v, scratch);
            decode::<Loose>(v, scratch);
            decode::<Tagged>(v, scratch);
            decode::<Strict>(v, scratch);
            decode::<Flat>(v, scratch);
            decode::<Tree>(v, scratch);
            decode::<Loop>(v, scratch);
            decode::<serde_json::Value>(v, scratch);
        }
        let mut scratch = vec![0u8; data.len()];
        same_as_serde_json::<Kind>(v, data, &mut scratch);
        same_as_serde_json::<Tagged>(v, data, &mut scratch);
        same_as_serde_json::<Strict>(v, data, &mut scratch);
        same_as_serde_json::<Tree>(v, data, &mut scratch);
        same_as_serde_json::<(u8, i64, Option<u128>, String)>(v, data, &mut scratch);
        same_as_serde_json::<BTreeMap<i32, Option<bool>>>(v, data, &mut scratch);
    }
    for method in ["tree", "loose"] {
        let mut request = Vec::with_capacity(data.len() + 64);
        request.extend_from_slice(br#"{"jsonrpc":"2.0","method":""#);
        request.extend_from_slice(method.as_bytes());
        request.extend_from_slice(br#"","params":["#);
        request.extend_from_slice(data);
        request.extend_from_slice(br#"],"id":1}"#);
        let mut out = [0u8; 512];
        let _ = SERVER.handle(&mut (), &request, &mut out);
    }
});
