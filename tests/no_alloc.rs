//! No heap allocation on any path: a counting global allocator
//! (`tests/common/counting.rs`) watches `Server::handle` run the crate's own vectors:
//! messages shaped like every benchmark message, every example of the specification,
//! and a list of edge cases (invalid JSON, deep nesting, overflowing replies, batches,
//! notifications, escaped method names, every demo method, every limit), and reads
//! every value inside them with each accessor of the raw views. The conformance tier
//! runs the corpus (JSONTestSuite, captured traffic) through `Server::handle` the same way.

mod common;
#[path = "common/counting.rs"]
mod counting;

use common::vectors::{bench_shapes, spec_examples};
use common::{nested_arrays, req};
use counting::{case, no_allocation_in, the_counter_works, Case, Want};

fn edge_cases() -> Vec<Case> {
    use Want::*;
    let mut v = vec![
        // Every demo method, as a call and as a notification.
        case(
            "subtract positional",
            req("subtract", Some("[42,23]"), Some("1")),
            Result,
        ),
        case(
            "subtract named",
            req(
                "subtract",
                Some(r#"{"subtrahend":23,"minuend":42}"#),
                Some("1"),
            ),
            Result,
        ),
        case("sum", req("sum", Some("[1,2,4]"), Some(r#""1""#)), Result),
        case("get_data", req("get_data", None, Some("9")), Result),
        case(
            "echo",
            req(
                "echo",
                Some(r#"{"a":[1,2.5e3,"\u00e9\n"],"b":null}"#),
                Some("1"),
            ),
            Result,
        ),
        case("echo without params", req("echo", None, Some("1")), Result),
        case(
            "fail with data",
            req("fail", Some(r#"{"why":[1]}"#), Some("1")),
            Error(-32000),
        ),
        case(
            "fail without data",
            req("fail", None, Some("1")),
            Error(-32000),
        ),
        case("big", req("big", Some("[1000]"), Some("1")), Result),
        case("update", req("update", Some("[1]"), Some("1")), Result),
        case(
            "notify_hello",
            req("notify_hello", Some("[7]"), Some("1")),
            Result,
        ),
        case(
            "notify_sum",
            req("notify_sum", Some("[1,2,4]"), Some("1")),
            Result,
        ),
        case("notification sum", req("sum", Some("[1,2]"), None), Nothing),
        case("notification fail", req("fail", Some("[1]"), None), Nothing),
        case(
            "notification big",
            req("big", Some("[100000]"), None),
            Nothing,
        )
        .out(64),
        case("notification unknown", req("nope", None, None), Nothing),
        case(
            "notification bad params",
            req("subtract", Some("[1]"), None),
            Nothing,
        ),
        // Errors of every kind.
        case(
            "method not found",
            req("nope", None, Some("1")),
            Error(-32601),
        ),
        case("rpc.", req("rpc.foo", None, Some("1")), Error(-32601)),
        case(
            "invalid params",
            req("subtract", Some(r#"["a"]"#), Some("1")),
            Error(-32602),
        ),
        case(
            "sum overflow",
            req("sum", Some("[9223372036854775807,1]"), Some("1")),
            Error(-32602),
        ),
        case(
            "params null",
            req("sum", Some("null"), Some("1")),
            Error(-32600),
        ),
        case(
            "id true",
            req("sum", Some("[1]"), Some("true")),
            Error(-32600),
        ),
        case(
            "id object",
            req("sum", Some("[1]"), Some(r#"{"a":1}"#)),
            Error(-32600),
        ),
        case("id null", req("sum", Some("[1]"), Some("null")), Result),
        case("id 1e3", req("sum", Some("[1]"), Some("1e3")), Result),
        case(
            "id escaped",
            req("sum", Some("[1]"), Some(r#""a\u0062""#)),
            Result,
        ),
        case(
            "duplicate id",
            r#"{"jsonrpc":"2.0","method":"sum","id":1,"id":2}"#,
            Error(-32600),
        ),
        case(
            "duplicate method",
            r#"{"jsonrpc":"2.0","method":"sum","method":"sum","id":1}"#,
            Error(-32600),
        ),
        case(
            "duplicate escaped key",
            r#"{"jsonrpc":"2.0","method":"sum","\u006dethod":"sum","id":1}"#,
            Error(-32600),
        ),
        case(
            "jsonrpc 1.0",
            r#"{"jsonrpc":"1.0","method":"sum","id":1}"#,
            Error(-32600),
        ),
        case(
            "jsonrpc missing",
            r#"{"method":"sum","id":1}"#,
            Error(-32600),
        ),
        case(
            "method missing",
            r#"{"jsonrpc":"2.0","id":1}"#,
            Error(-32600),
        ),
        case(
            "method number",
            r#"{"jsonrpc":"2.0","method":1,"id":1}"#,
            Error(-32600),
        ),
        case(
            "members in any order, escaped keys",
            r#"{"\u0069d":1,"params":[1,2],"\u006dethod":"su\u006d","jsonrpc":"2\u002e0","x":{"y":[]}}"#,
            Result,
        ),
        case(
            "escaped method",
            req(r#"su\u006d"#, Some("[1,2]"), Some("1")),
            Result,
        ),
        case(
            "escaped method, surrogate pair",
            req(r#"\ud83d\ude00"#, None, Some("1")),
            Error(-32601),
        ),
        // Not JSON, or not a request.
        case("empty", "", Error(-32700)),
        case("blank", " \r\n\t", Error(-32700)),
        case("cut", r#"{"jsonrpc":"2.0","method""#, Error(-32700)),
        case(
            "trailing comma",
            req("sum", Some("[1,]"), Some("1")),
            Error(-32700),
        ),
        case(
            "bad escape",
            req("echo", Some(r#"["\q"]"#), Some("1")),
            Error(-32700),
        ),
        case(
            "lone surrogate",
            req("echo", Some(r#"["\udc00"]"#), Some("1")),
            Error(-32700),
        ),
        case(
            "bad UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[\"\xed\xa0\x80\"],\"id\":1}"
                .to_vec(),
            Error(-32700),
        ),
        case(
            "trailing garbage",
            format!("{} x", req("sum", None, Some("1"))),
            Error(-32700),
        ),
        case("scalar", "42", Error(-32600)),
        case("string", r#""x""#, Error(-32600)),
        case("null", "null", Error(-32600)),
        case("empty batch", "[]", Error(-32600)),
        case("batch of scalars", "[1,2,3]", Batch(3)),
        // Deep nesting.
        case(
            "depth 128",
            req("update", Some(&nested_arrays(127)), Some("1")),
            Result,
        ),
        case(
            "depth 129",
            req("update", Some(&nested_arrays(128)), Some("1")),
            Error(-32700),
        ),
        case("100 000 [", "[".repeat(100_000), Error(-32700)),
        case("100 000 [ closed", nested_arrays(100_000), Error(-32700)),
        case("100 000 objects", r#"{"a":"#.repeat(100_000), Error(-32700)),
        // Overflowing replies.
        case(
            "overflow",
            req("big", Some("[1000]"), Some("1")),
            Error(-32603),
        )
        .out(256),
        case(
            "overflow of an error's data",
            req(
                "fail",
                Some(&format!("[\"{}\"]", "y".repeat(500))),
                Some("1"),
            ),
            Error(-32603),
        )
        .out(200),
        case("too small", req("big", Some("[1000]"), Some("1")), TooSmall).out(16),
        case("too small for a parse error", "{", TooSmall).out(8),
        case(
            "no buffer, notification",
            req("update", None, None),
            Nothing,
        )
        .out(0),
        // Batches.
        case(
            "batch mixed",
            format!(
                "[{},{},{},1,{}]",
                req("sum", Some("[1,2]"), Some("1")),
                req("update", None, None),
                req("nope", None, Some(r#""x""#)),
                req("get_data", None, Some("2")),
            ),
            Batch(4),
        ),
        case(
            "batch of notifications",
            format!(
                "[{},{}]",
                req("update", None, None),
                req("fail", None, None)
            ),
            Nothing,
        ),
        case(
            "batch of notifications, no buffer",
            format!(
                "[{},{}]",
                req("update", None, None),
                req("fail", None, None)
            ),
            Nothing,
        )
        .out(0),
        case(
            "batch with an overflowing element",
            format!(
                "[{},{}]",
                req("big", Some("[1000]"), Some("1")),
                req("sum", Some("[1]"), Some("2")),
            ),
            Batch(2),
        )
        .out(400),
        case(
            "batch reply too large",
            format!(
                "[{}]",
                (0..20)
                    .map(|i| req("sum", Some("[1]"), Some(&i.to_string())))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Error(-32603),
        )
        .out(200),
        case(
            "batch cut",
            format!("[{},{{", req("sum", None, Some("1"))),
            Error(-32700),
        ),
    ];
    let sums = |n: usize| {
        let items: Vec<String> = (0..n)
            .map(|i| req("sum", Some(&format!("[{i}]")), Some(&i.to_string())))
            .collect();
        format!("[{}]", items.join(","))
    };
    v.push(case("batch of 1024", sums(1024), Batch(1024)));
    v.push(case("batch of 1025", sums(1025), Error(-32600)));
    // Limits: max_batch 3, max_id_len 3, max_method_len 3, max_depth 4.
    v.extend([
        case("small: batch of 3", sums(3), Batch(3)).small(),
        case("small: batch of 4", sums(4), Error(-32600)).small(),
        case(
            "small: id 123",
            req("sum", Some("[1]"), Some("123")),
            Result,
        )
        .small(),
        case(
            "small: id 1234",
            req("sum", Some("[1]"), Some("1234")),
            Error(-32600),
        )
        .small(),
        case(
            "small: method sum",
            req("sum", Some("[1]"), Some("1")),
            Result,
        )
        .small(),
        case(
            "small: method sums",
            req("sums", None, Some("1")),
            Error(-32600),
        )
        .small(),
        case(
            "small: escaped method",
            req(r#"su\u006d"#, None, Some("1")),
            Error(-32600),
        )
        .small(),
        case(
            "small: depth 4 (parsed, then refused by sum)",
            req("sum", Some(&nested_arrays(3)), Some("1")),
            Error(-32602),
        )
        .small(),
        case(
            "small: depth 5",
            req("sum", Some(&nested_arrays(4)), Some("1")),
            Error(-32700),
        )
        .small(),
    ]);
    v
}

fn own_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (name, input) in bench_shapes() {
        cases.push(case(format!("bench shape {name}"), input, Want::Any));
    }
    for e in spec_examples() {
        let want = if e.response.is_none() {
            Want::Nothing
        } else {
            Want::Any
        };
        cases.push(case(format!("spec {}", e.section), e.request, want));
    }
    cases.extend(edge_cases());
    cases
}

#[test]
fn no_allocation_on_any_path() {
    the_counter_works();
    let n = no_allocation_in(&own_cases());
    assert!(n >= 100, "only {n} cases");
}

/// The raw views' accessors allocate nothing either: every value inside every case
/// that is JSON, read with each of them (`Elements::next_i64` beside `next`).
#[test]
fn no_allocation_in_the_raw_accessors() {
    use jsonrpc_slice::RawJson;
    use std::hint::black_box;

    the_counter_works();
    let cases = own_cases();
    let inputs: Vec<&[u8]> = cases
        .iter()
        .map(|c| &c.input[..])
        .filter(|i| RawJson::new(i).is_ok())
        .collect();
    let ((values, integers), n) = counting::counting(|| {
        let (mut values, mut integers) = (0usize, 0usize);
        // The values still to read: a stack of fixed size (deeper ones are left).
        let mut stack = [RawJson::NULL; 256];
        let mut scratch = [0u8; 256];
        for input in &inputs {
            let Ok(top) = RawJson::new(input) else {
                continue;
            };
            stack[0] = top;
            let mut depth = 1;
            while depth > 0 {
                depth -= 1;
                let v = stack[depth];
                values += 1;
                black_box((v.kind(), v.is_null(), v.as_bool(), v.as_i64(), v.as_u64()));
                black_box(v.as_f64());
                if let Some(s) = v.as_str() {
                    black_box(s.unescape_into(&mut scratch));
                    black_box((s.eq_str("method"), s.bytes().count(), s.as_plain_str()));
                }
                let mut fused = v.elements();
                for element in v.elements() {
                    integers += usize::from(matches!(fused.next_i64(), Some(Ok(_))));
                    if depth < stack.len() {
                        stack[depth] = element;
                        depth += 1;
                    }
                }
                black_box(fused.next_i64());
                for (key, member) in v.members() {
                    black_box(key.unescape_into(&mut scratch));
                    if depth < stack.len() {
                        stack[depth] = member;
                        depth += 1;
                    }
                }
                black_box((v.get("params"), v.nth(1)));
            }
        }
        (values, integers)
    });
    assert_eq!(n, 0, "{n} allocator calls reading {values} values");
    assert!(
        inputs.len() > 50 && values > 1000 && integers > 50,
        "only {} inputs, {values} values, {integers} integers read",
        inputs.len()
    );
}

/// The subscription pattern allocates nothing: ids minted until the registry is full,
/// a notification written for each, each id parsed back, unsubscribed, cleared.
#[test]
fn no_allocation_in_subscriptions() {
    use jsonrpc_slice::subscription::{write_notification, Registry, SubscriptionId};
    use jsonrpc_slice::RawJson;

    the_counter_works();
    let mut registry = Registry::<u8, 16>::new(42);
    let mut buf = [0u8; 256];
    let (found, n) = counting::counting(|| {
        let mut found = 0;
        for round in 0..100u64 {
            while registry.subscribe((round % 3) as u8).is_ok() {}
            let ids: [Option<SubscriptionId>; 16] = {
                let mut ids = [None; 16];
                for (slot, (id, _)) in ids.iter_mut().zip(registry.iter()) {
                    *slot = Some(id);
                }
                ids
            };
            for id in ids.into_iter().flatten() {
                let written =
                    write_notification(&mut buf, "eth_subscription", id, |w| w.u64(round))
                        .expect("fits");
                let start = written
                    .windows(3)
                    .position(|w| w == b"\"0x")
                    .expect("an id");
                let end = start
                    + 1
                    + written[start + 1..]
                        .iter()
                        .position(|&b| b == b'"')
                        .unwrap();
                let value = RawJson::new(&written[start..=end]).expect("a string");
                if SubscriptionId::parse(value) == Some(id) && registry.unsubscribe(id) {
                    found += 1;
                }
            }
            registry.clear();
        }
        found
    });
    assert_eq!(
        found, 1600,
        "every id written, parsed back and unsubscribed"
    );
    assert_eq!(n, 0, "the subscription pattern allocated");
}
