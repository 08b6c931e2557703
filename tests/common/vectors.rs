//! The crate's own test vectors: the specification's examples, and messages shaped like
//! each benchmark message. They need nothing beside the crate; the conformance tier
//! checks the first against the published text (`tests/conformance/spec_examples.rs`).

use super::spec::Example;

/// `(section, request, response)`: the examples of section 7 of the JSON-RPC 2.0
/// specification, byte for byte as published (spaces, line breaks and the trailing
/// space of example 11 included).
#[rustfmt::skip]
const SPEC: &[(&str, &str, Option<&str>)] = &[
    ("1. rpc call with positional parameters",
     r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
     Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 1}"#)),
    ("1. rpc call with positional parameters",
     r#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#,
     Some(r#"{"jsonrpc": "2.0", "result": -19, "id": 2}"#)),
    ("2. rpc call with named parameters",
     r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
     Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 3}"#)),
    ("2. rpc call with named parameters",
     r#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
     Some(r#"{"jsonrpc": "2.0", "result": 19, "id": 4}"#)),
    ("3. a Notification",
     r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
     None),
    ("3. a Notification",
     r#"{"jsonrpc": "2.0", "method": "foobar"}"#,
     None),
    ("4. rpc call of non-existent method",
     r#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
     Some(r#"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#)),
    ("5. rpc call with invalid JSON",
     r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
     Some(r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)),
    ("6. rpc call with invalid Request object",
     r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
     Some(r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#)),
    ("7. rpc call Batch, invalid JSON",
     "[\n  {\"jsonrpc\": \"2.0\", \"method\": \"sum\", \"params\": [1,2,4], \"id\": \"1\"},\n  {\"jsonrpc\": \"2.0\", \"method\"\n]",
     Some(r#"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)),
    ("8. rpc call with an empty Array",
     "[]",
     Some(r#"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#)),
    ("9. rpc call with an invalid Batch (but not empty)",
     "[1]",
     Some("[\n  {\"jsonrpc\": \"2.0\", \"error\": {\"code\": -32600, \"message\": \"Invalid Request\"}, \"id\": null}\n]")),
    ("10. rpc call with invalid Batch",
     "[1,2,3]",
     Some("[\n  {\"jsonrpc\": \"2.0\", \"error\": {\"code\": -32600, \"message\": \"Invalid Request\"}, \"id\": null},\n  {\"jsonrpc\": \"2.0\", \"error\": {\"code\": -32600, \"message\": \"Invalid Request\"}, \"id\": null},\n  {\"jsonrpc\": \"2.0\", \"error\": {\"code\": -32600, \"message\": \"Invalid Request\"}, \"id\": null}\n]")),
    ("11. rpc call Batch",
     "[\n        {\"jsonrpc\": \"2.0\", \"method\": \"sum\", \"params\": [1,2,4], \"id\": \"1\"},\n        {\"jsonrpc\": \"2.0\", \"method\": \"notify_hello\", \"params\": [7]},\n        {\"jsonrpc\": \"2.0\", \"method\": \"subtract\", \"params\": [42,23], \"id\": \"2\"},\n        {\"foo\": \"boo\"},\n        {\"jsonrpc\": \"2.0\", \"method\": \"foo.get\", \"params\": {\"name\": \"myself\"}, \"id\": \"5\"},\n        {\"jsonrpc\": \"2.0\", \"method\": \"get_data\", \"id\": \"9\"} \n    ]",
     Some("[\n        {\"jsonrpc\": \"2.0\", \"result\": 7, \"id\": \"1\"},\n        {\"jsonrpc\": \"2.0\", \"result\": 19, \"id\": \"2\"},\n        {\"jsonrpc\": \"2.0\", \"error\": {\"code\": -32600, \"message\": \"Invalid Request\"}, \"id\": null},\n        {\"jsonrpc\": \"2.0\", \"error\": {\"code\": -32601, \"message\": \"Method not found\"}, \"id\": \"5\"},\n        {\"jsonrpc\": \"2.0\", \"result\": [\"hello\", 5], \"id\": \"9\"}\n    ]")),
    ("12. rpc call Batch (all notifications)",
     "[\n        {\"jsonrpc\": \"2.0\", \"method\": \"notify_sum\", \"params\": [1,2,4]},\n        {\"jsonrpc\": \"2.0\", \"method\": \"notify_hello\", \"params\": [7]}\n    ]",
     None),
];

/// The specification's examples (section 7), 15 request/response pairs in 12 sections.
pub fn spec_examples() -> Vec<Example> {
    SPEC.iter()
        .map(|&(section, request, response)| Example {
            section: section.to_owned(),
            request: request.as_bytes().to_vec(),
            response: response.map(|r| r.as_bytes().to_vec()),
        })
        .collect()
}

/// One message of each benchmark message's shape (not the benchmark messages
/// themselves): `(name, message)`. All are requests or notifications of the shapes of
/// bench messages 01-06 and 08-10 but `07`, a response of 07's shape; 09 and 10 are
/// requests as web3.py and ethers.js write them.
pub fn bench_shapes() -> Vec<(&'static str, Vec<u8>)> {
    let mut v: Vec<(&'static str, Vec<u8>)> = vec![
        ("01 small positional", br#"{"jsonrpc":"2.0","method":"subtract","params":[7,3],"id":11}"#.to_vec()),
        ("02 notification log", br#"{"jsonrpc":"2.0","method":"log","params":{"level":"warn","ts":"2025-02-03T04:05:06.007Z","target":"node::rpc","message":"slow call: eth_getLogs took 812.5ms (limit 500ms)","fields":{"peer":"10.0.0.7:5121","req_id":"a1b2","bytes":90210}}}"#.to_vec()),
        ("03 eth_call", br#"{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"from":"0x00000000000000000000000000000000000000aa","to":"0x00000000000000000000000000000000000000bb","gas":"0x5208","gasPrice":"0x3b9aca00","value":"0x1","data":"0x70a08231000000000000000000000000000000000000000000000000000000000000aa"},"0x10"]}"#.to_vec()),
        ("04 mcp tools/call", br#"{"jsonrpc":"2.0","id":"call-3","method":"tools/call","params":{"name":"grep","arguments":{"pattern":"TODO","paths":["src/","docs/"],"options":{"ignoreCase":true,"max":20,"globs":["*.rs","*.md"]},"nested":[{"a":[1,2,{"b":null}]},{"c":false}]},"_meta":{"progressToken":42}}}"#.to_vec()),
    ];
    // 05: an LSP didChange whose text is full of escapes and non-ASCII text.
    let line = r#"    let s = \"caf\u00e9 \\\\ \\t\";\t// na\u00efve r\u00e9sum\u00e9 \ud83d\ude00 C:\\\\tmp\n"#;
    let text = line.repeat(40);
    v.push((
        "05 lsp didChange",
        format!(
            r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"file:///w/src/lib.rs","version":3}},"contentChanges":[{{"text":"{text}"}}]}}}}"#
        )
        .into_bytes(),
    ));
    v.push(("06 batch", br#"[{"jsonrpc":"2.0","method":"sum","params":[3,4],"id":"a"},{"jsonrpc":"2.0","method":"notify_hello","params":[1]},{"jsonrpc":"2.0","method":"subtract","params":{"minuend":5,"subtrahend":2},"id":2},{"jsonrpc":"2.0","method":"eth_chainId","params":[],"id":3},{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"end"}}},{"jsonrpc":"2.0","method":"get_data","id":null},{"jsonrpc":"2.0","method":"update","params":[1,2]},{"jsonrpc":"2.0","method":"echo","params":{"x":[1.5e3,-0,"\u0041"]},"id":1e2}]"#.to_vec()));
    // 07: a response of about 1 KiB.
    let items: Vec<String> = (0..8)
        .map(|i| format!(r#"{{"sku":"K-{i:03}","name":"Part {i}","price":{i}.25,"qty":{i},"tags":["x","y"]}}"#))
        .collect();
    v.push((
        "07 response",
        format!(
            r#"{{"jsonrpc":"2.0","id":99,"result":{{"user":{{"id":5,"name":"Grace Hopper","roles":["admin"]}},"items":[{}],"total":1234.5}}}}"#,
            items.join(",")
        )
        .into_bytes(),
    ));
    // 08: about 64 KiB of params, an array of small records.
    let records: Vec<String> = (0..420)
        .map(|i| {
            format!(
                r#"{{"id":{i},"sku":"S-{i:06}","name":"Record {i}","price":{}.{:02},"active":{},"tags":["t{}"],"dims":{{"w":1.5,"h":{i}e-2}},"note":null}}"#,
                i * 7 % 1000,
                i % 100,
                i % 2 == 0,
                i % 5
            )
        })
        .collect();
    v.push((
        "08 params 64k",
        format!(
            r#"{{"jsonrpc":"2.0","method":"ingest","params":[{}],"id":8}}"#,
            records.join(",")
        )
        .into_bytes(),
    ));
    // 09: a request as web3.py writes it (a space after each `:` and `,`).
    v.push((
        "09 web3.py request",
        br#"{"jsonrpc": "2.0", "method": "eth_getBalance", "params": ["0x00000000000000000000000000000000000000aa", "pending"], "id": 5}"#.to_vec(),
    ));
    // 10: a request as ethers.js writes it (`method` first, `jsonrpc` last).
    v.push((
        "10 ethers.js request",
        br#"{"method":"eth_getBalance","params":["0x00000000000000000000000000000000000000bb","latest"],"id":6,"jsonrpc":"2.0"}"#.to_vec(),
    ));
    v
}
