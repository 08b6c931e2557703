//! Every example of the JSON-RPC 2.0 specification (section 7), replayed against the
//! demo server: the crate's own copy of the examples (`tests/common/vectors.rs`, pinned
//! to the published text by the conformance tier).

mod common;

use common::spec::{exact_buffer_failures, raw_ids, reply_failures, show};
use common::vectors::spec_examples;
use jsonrpc_slice::{demo, Server};

#[test]
fn there_are_fifteen_examples_in_twelve_sections() {
    let examples = spec_examples();
    assert_eq!(examples.len(), 15);
    let mut sections: Vec<&str> = examples.iter().map(|e| e.section.as_str()).collect();
    sections.dedup();
    assert_eq!(sections.len(), 12);
    let silent = examples.iter().filter(|e| e.response.is_none()).count();
    assert_eq!(
        silent, 3,
        "two notifications (3) and the notification batch (12)"
    );
}

#[test]
fn every_example_gets_the_expected_reply() {
    let failures = reply_failures(&spec_examples());
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn every_reply_fits_a_buffer_of_exactly_its_size() {
    let failures = exact_buffer_failures(&spec_examples());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The replies byte for byte: compact, members in the order the crate writes them.
#[test]
fn replies_are_compact_and_byte_exact() {
    let server = Server::new(demo::TABLE);
    let mut out = [0u8; 1024];
    let replies: Vec<String> = spec_examples()
        .iter()
        .map(|e| show(server.handle(&mut (), &e.request, &mut out).unwrap()))
        .collect();
    let invalid =
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#;
    let parse = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
    let want = [
        r#"{"jsonrpc":"2.0","result":19,"id":1}"#.to_owned(),
        r#"{"jsonrpc":"2.0","result":-19,"id":2}"#.to_owned(),
        r#"{"jsonrpc":"2.0","result":19,"id":3}"#.to_owned(),
        r#"{"jsonrpc":"2.0","result":19,"id":4}"#.to_owned(),
        String::new(),
        String::new(),
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}"#
            .to_owned(),
        parse.to_owned(),
        invalid.to_owned(),
        parse.to_owned(),
        invalid.to_owned(),
        format!("[{invalid}]"),
        format!("[{invalid},{invalid},{invalid}]"),
        format!(
            r#"[{{"jsonrpc":"2.0","result":7,"id":"1"}},{{"jsonrpc":"2.0","result":19,"id":"2"}},{invalid},{{"jsonrpc":"2.0","error":{{"code":-32601,"message":"Method not found"}},"id":"5"}},{{"jsonrpc":"2.0","result":["hello",5],"id":"9"}}]"#
        ),
        String::new(),
    ];
    assert_eq!(replies, want);
}

#[test]
fn raw_ids_are_the_exact_text() {
    // The helper itself: raw text, not a normalised value.
    assert_eq!(
        raw_ids(br#"{"id" :  "a\u0062" , "x":1}"#),
        vec![Some(r#""a\u0062""#.to_owned())]
    );
    assert_eq!(
        raw_ids(br#"[{"id":1.0},{"x":1},{"id":null}]"#),
        vec![Some("1.0".to_owned()), None, Some("null".to_owned())]
    );
}
