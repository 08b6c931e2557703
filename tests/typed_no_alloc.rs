//! No heap allocation on the typed path (feature `serde`): a counting global
//! allocator watches typed params with escaped strings decode into fixed-capacity
//! types, typed handlers run through `Server::handle`, and refusals become `-32602`s
//! and messages. (Owned `String`s allocate by nature; the decoder itself never does.)
//!
//! The allocator is `tests/common/counting.rs`'s: it counts only on a thread that has
//! armed it.

#[path = "common/counting.rs"]
mod counting;

use std::fmt::Write as _;
use std::hint::black_box;

use counting::counting;
use jsonrpc_slice::serde::Reason;
use jsonrpc_slice::{method_table, typed_handler, RawJson, RpcError, Server};
use serde::{Deserialize, Serialize};

#[derive(Deserialize, Debug, PartialEq)]
enum Kind {
    Plain,
    Edit {
        line: u32,
        text: heapless::String<32>,
    },
}

#[derive(Deserialize, Debug)]
struct Open<'a> {
    uri: heapless::String<64>,
    lang: &'a str,
    version: Option<i64>,
    tags: heapless::Vec<heapless::String<8>, 4>,
    counts: heapless::LinearMap<heapless::String<8>, u32, 4>,
    ids: heapless::LinearMap<u16, bool, 2>,
    kind: Kind,
    #[serde(borrow)]
    extra: RawJson<'a>,
    big: u128,
}

/// Nested values read as they are decoded, one ignored (`benches/typed_nested.sh`).
#[derive(Deserialize, Debug, PartialEq)]
struct Nested {
    keep: [[[[[u8; 1]; 1]; 1]; 1]; 1],
}

const NESTED: &str = r#"{"skip": [[[[[[1, {"a": [2]}]]]]]], "keep": [[[[[7]]]]]}"#;

#[derive(Serialize)]
struct Summary<'a> {
    uri: &'a str,
    lines: usize,
    #[serde(borrow)]
    extra: RawJson<'a>,
}

/// The owned part of `Open` (the macro's params type cannot borrow).
#[derive(Deserialize)]
struct OpenOwned {
    uri: heapless::String<64>,
    tags: heapless::Vec<heapless::String<8>, 4>,
    kind: Kind,
}

typed_handler! {
    fn open(ctx: &mut (), p: OpenOwned) -> Result<usize, RpcError<'static>> {
        Ok(p.uri.len() + p.tags.len() + usize::from(p.kind == Kind::Plain))
    }
}

fn summary<'p>(
    ctx: &mut (),
    params: jsonrpc_slice::Params<'p>,
    out: &mut jsonrpc_slice::ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    jsonrpc_slice::serde::typed(ctx, params, out, |_, p: Open<'p>| {
        Ok(Summary {
            uri: "file",
            lines: p.tags.len(),
            extra: p.extra,
        })
    })
}

static SERVER: Server<()> = Server::new(method_table! { "open" => open, "summary" => summary });

const PARAMS: &str = r#"{"uri":"file:///C:\\src\\main.rs","lang":"rust","version":null,
    "tags":["a\tb","\u00e9"],"counts":{"x\ny":1,"z":2},"ids":{"7":true,"65535":false},
    "kind":{"Edit":{"line":3,"text":"fn main() {\n}"}},"extra":{"k":[1,"\u0041"]},
    "big":340282366920938463463374607431768211455}"#;

#[test]
fn typed_decoding_never_allocates() {
    counting::the_counter_works();
    let raw = RawJson::new(PARAMS.as_bytes()).unwrap();
    let requests: Vec<String> = ["open", "summary"]
        .iter()
        .map(|m| format!(r#"{{"jsonrpc":"2.0","method":"{m}","params":{PARAMS},"id":1}}"#))
        .chain([
            r#"{"jsonrpc":"2.0","method":"open","params":{"uri":7},"id":2}"#.to_string(),
            r#"{"jsonrpc":"2.0","method":"open","params":[[[[["deep"]]]]],"id":3}"#.to_string(),
        ])
        .collect();
    let mut out = vec![0u8; 4096];
    let mut scratch = [0u8; 64];
    let mut message = heapless::String::<128>::new();

    let (replies, events) = counting(|| {
        let p: Open = raw.decode_with_scratch(&mut scratch).unwrap();
        assert_eq!(p.uri, "file:///C:\\src\\main.rs");
        assert_eq!(p.tags[1], "é");
        assert_eq!(
            p.kind,
            Kind::Edit {
                line: 3,
                text: "fn main() {\n}".try_into().unwrap()
            }
        );
        assert_eq!(p.big, u128::MAX);
        assert_eq!((p.lang, p.version), ("rust", None));
        assert_eq!(p.counts.get("x\ny"), Some(&1));
        assert_eq!(p.ids.get(&65535), Some(&false));
        black_box(&p);

        let nested: Nested = RawJson::new(NESTED.as_bytes()).unwrap().decode().unwrap();
        assert_eq!(nested, Nested { keep: [[[[[7]]]]] });

        let e = raw.decode::<Open>().unwrap_err();
        assert_eq!(e.reason(), Reason::NoScratch);
        write!(message, "{e}").unwrap();
        let rpc: RpcError = e.into();
        black_box(rpc);

        let mut lengths = [0usize; 4];
        for (request, length) in requests.iter().zip(&mut lengths) {
            *length = SERVER
                .handle(&mut (), request.as_bytes(), &mut out)
                .unwrap()
                .len();
        }
        lengths
    });
    assert_eq!(events, 0, "allocator calls on the typed path");
    assert!(replies.iter().all(|&n| n > 0));
    assert_eq!(
        message,
        "Invalid params: field `uri`: a string with escapes needs a scratch buffer"
    );
}
