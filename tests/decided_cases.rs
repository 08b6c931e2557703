//! The "Behaviour — decided cases" table of DESIGN.md, one or more rows per case,
//! driven through `Server::handle` with the demo method table.
//!
//! Each row is input bytes → the expected reply (or no reply, or `OutputTooSmall`).
//! Replies are compared as JSON values (member order irrelevant), error messages either
//! exactly (when the expected one has a `:`) or as the standard message optionally
//! followed by `": detail"`, and every `id` of the reply must be the exact text of the
//! `id` of the expected reply, found verbatim in the raw reply bytes.

mod common;

use common::{nested_arrays, nested_objects, req};

use std::collections::BTreeMap;

use jsonrpc_slice::{
    demo, method_table, Limits, MethodTable, OutputTooSmall, Params, ResultWriter, RpcError, Server,
};
use serde_json::value::RawValue;
use serde_json::Value;

const PARSE: i32 = -32700;
const INVALID: i32 = -32600;
const NOT_FOUND: i32 = -32601;
const BAD_PARAMS: i32 = -32602;
const INTERNAL: i32 = -32603;

fn standard(code: i32) -> &'static str {
    match code {
        PARSE => "Parse error",
        INVALID => "Invalid Request",
        NOT_FOUND => "Method not found",
        BAD_PARAMS => "Invalid params",
        INTERNAL => "Internal error",
        -32000 => "Server error",
        _ => panic!("no standard message for {code}"),
    }
}

// ---------------------------------------------------------------------------------
// Expected replies, written as JSON text (so that the ids keep their exact spelling).

/// `{"jsonrpc":"2.0","result":<result>,"id":<id>}`
fn ok(result: &str, id: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","result":{result},"id":{id}}}"#)
}

/// An error reply with the standard message of `code`.
fn err(code: i32, id: &str) -> String {
    err_msg(code, standard(code), id)
}

/// An error reply with a given message.
fn err_msg(code: i32, message: &str, id: &str) -> String {
    let message = serde_json::to_string(message).unwrap();
    format!(r#"{{"jsonrpc":"2.0","error":{{"code":{code},"message":{message}}},"id":{id}}}"#)
}

/// An error reply with `data`.
fn err_data(code: i32, data: &str, id: &str) -> String {
    let message = serde_json::to_string(standard(code)).unwrap();
    format!(
        r#"{{"jsonrpc":"2.0","error":{{"code":{code},"message":{message},"data":{data}}},"id":{id}}}"#
    )
}

fn batch<S: AsRef<str>>(entries: &[S]) -> String {
    let entries: Vec<&str> = entries.iter().map(AsRef::as_ref).collect();
    format!("[{}]", entries.join(","))
}

// ---------------------------------------------------------------------------------
// Rows.

#[derive(Debug)]
enum Expect {
    /// No reply at all: `Ok` and empty.
    Nothing,
    /// This reply (JSON text).
    Reply(String),
    /// `Err(OutputTooSmall)`.
    TooSmall,
}

#[derive(Debug)]
struct Row {
    name: String,
    limits: Limits,
    out_len: usize,
    input: Vec<u8>,
    expect: Expect,
    /// Byte strings the raw reply must contain (data and params echoed verbatim...).
    contains: Vec<Vec<u8>>,
}

impl Row {
    fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    fn out(mut self, out_len: usize) -> Self {
        self.out_len = out_len;
        self
    }

    fn contains(mut self, raw: impl Into<Vec<u8>>) -> Self {
        self.contains.push(raw.into());
        self
    }
}

const DEFAULT_OUT: usize = 4096;

fn row(name: impl Into<String>, input: impl Into<Vec<u8>>, expect: Expect) -> Row {
    Row {
        name: name.into(),
        limits: Limits::DEFAULT,
        out_len: DEFAULT_OUT,
        input: input.into(),
        expect,
        contains: Vec::new(),
    }
}

fn reply(s: impl Into<String>) -> Expect {
    Expect::Reply(s.into())
}

use Expect::{Nothing, TooSmall};

fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let mut add = |r: Row| rows.push(r);

    // --- not valid JSON anywhere in the input (params included): one -32700, id null.
    let parse_null = || reply(err(PARSE, "null"));
    add(row("invalid: empty input", "", parse_null()));
    add(row("invalid: blank input", " \n\t ", parse_null()));
    add(row(
        "invalid: spec example 5",
        r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
        parse_null(),
    ));
    add(row(
        "invalid: trailing comma in params",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1,2,],"id":1}"#,
        parse_null(),
    ));
    add(row(
        "invalid: leading zero in params",
        r#"{"jsonrpc":"2.0","method":"sum","params":[01],"id":1}"#,
        parse_null(),
    ));
    add(row(
        "invalid: bad escape in params",
        r#"{"jsonrpc":"2.0","method":"echo","params":["\x"],"id":1}"#,
        parse_null(),
    ));
    add(row(
        "invalid: lone surrogate in params",
        r#"{"jsonrpc":"2.0","method":"echo","params":["\ud800"],"id":1}"#,
        parse_null(),
    ));
    add(row(
        "invalid: invalid UTF-8 in params",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[\"\xff\"],\"id\":1}".to_vec(),
        parse_null(),
    ));
    add(row(
        "invalid: overlong UTF-8 in params",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[\"\xc0\xaf\"],\"id\":1}".to_vec(),
        parse_null(),
    ));
    add(row(
        "invalid: raw control character in a string",
        "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[\"a\tb\"],\"id\":1}",
        parse_null(),
    ));
    add(row(
        "invalid: trailing garbage after the object",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1} x"#,
        parse_null(),
    ));
    add(row(
        "invalid: a second object after the first",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}{"jsonrpc":"2.0","method":"sum","params":[1],"id":2}"#,
        parse_null(),
    ));
    add(row(
        "invalid: truncated object",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1"#,
        parse_null(),
    ));
    add(row(
        "invalid: invalid JSON in an unknown member",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1,"x":[1,}"#,
        parse_null(),
    ));
    add(row(
        "invalid: single quotes",
        r#"{'jsonrpc':'2.0','method':'sum','id':1}"#,
        parse_null(),
    ));
    add(row(
        "invalid: bad literal",
        r#"{"jsonrpc":"2.0","method":"sum","params":[tru],"id":1}"#,
        parse_null(),
    ));
    add(row(
        "invalid: spec example 7 (batch, invalid JSON)",
        "[\n  {\"jsonrpc\": \"2.0\", \"method\": \"sum\", \"params\": [1,2,4], \"id\": \"1\"},\n  {\"jsonrpc\": \"2.0\", \"method\"\n]",
        parse_null(),
    ));
    add(row(
        "invalid: batch whose last element is cut",
        format!("[{},{{", req("sum", Some("[1]"), Some("1"))),
        parse_null(),
    ));
    add(row(
        "invalid: batch with a trailing comma",
        format!("[{},]", req("sum", Some("[1]"), Some("1"))),
        parse_null(),
    ));
    add(row(
        "invalid: a notification with invalid JSON still gets -32700",
        r#"{"jsonrpc":"2.0","method":"update","params":[1,]}"#,
        parse_null(),
    ));

    // --- valid JSON but not an object or array: -32600, id null.
    for scalar in ["1", "\"x\"", "null", "true", " -1.5e3 ", "\"{}\""] {
        add(row(
            format!("scalar top level: {scalar}"),
            scalar,
            reply(err(INVALID, "null")),
        ));
    }

    // --- [] : one -32600 object (not an array), id null.
    add(row("empty batch: []", "[]", reply(err(INVALID, "null"))));
    add(row(
        "empty batch: [ ] with whitespace",
        " [ \n ] ",
        reply(err(INVALID, "null")),
    ));

    // --- batch elements that are not valid Requests: a -32600 entry each.
    add(row(
        "batch: [1,2]",
        "[1,2]",
        reply(batch(&[err(INVALID, "null"), err(INVALID, "null")])),
    ));
    add(row(
        "batch: spec example 9, [1]",
        "[1]",
        reply(batch(&[err(INVALID, "null")])),
    ));
    add(row(
        "batch: [{}]",
        "[{}]",
        reply(batch(&[err(INVALID, "null")])),
    ));
    add(row(
        "batch: an empty batch inside a batch, [[]]",
        "[[]]",
        reply(batch(&[err(INVALID, "null")])),
    ));
    add(row(
        "batch: a batch inside a batch is not a request",
        format!("[[{}]]", req("sum", Some("[1]"), Some("1"))),
        reply(batch(&[err(INVALID, "null")])),
    ));
    add(row(
        "batch: invalid elements keep their valid ids",
        format!(
            r#"[{{"method":"sum","id":1}},"x",{}]"#,
            r#"{"jsonrpc":"2.0","method":"sum","params":3,"id":"p"}"#
        ),
        reply(batch(&[
            err(INVALID, "1"),
            err(INVALID, "null"),
            err(INVALID, r#""p""#),
        ])),
    ));

    // --- jsonrpc missing or not exactly the string "2.0": -32600 (with the id).
    for (what, version) in [
        ("missing", None),
        ("\"1.0\"", Some(r#""1.0""#)),
        ("the number 2.0", Some("2.0")),
        ("the number 2", Some("2")),
        ("null", Some("null")),
        ("\"2\"", Some(r#""2""#)),
        ("\"2.00\"", Some(r#""2.00""#)),
        ("\" 2.0\"", Some(r#"" 2.0""#)),
        ("\"2.0 \"", Some(r#""2.0 ""#)),
        ("[\"2.0\"]", Some(r#"["2.0"]"#)),
    ] {
        let input = match version {
            None => r#"{"method":"sum","params":[1],"id":1}"#.to_owned(),
            Some(v) => format!(r#"{{"jsonrpc":{v},"method":"sum","params":[1],"id":1}}"#),
        };
        add(row(
            format!("jsonrpc {what}"),
            input,
            reply(err(INVALID, "1")),
        ));
    }
    add(row(
        "jsonrpc missing, no id: still answered, id null",
        r#"{"method":"sum","params":[1]}"#,
        reply(err(INVALID, "null")),
    ));
    add(row(
        "jsonrpc \"2\\u002e0\" is the string 2.0",
        r#"{"jsonrpc":"2\u002e0","method":"sum","params":[1],"id":1}"#,
        reply(ok("1", "1")),
    ));

    // --- method missing or not a string: -32600.
    for (what, method) in [
        ("missing", None),
        ("a number", Some("1")),
        ("null", Some("null")),
        ("an array", Some(r#"["sum"]"#)),
        ("an object", Some(r#"{"name":"sum"}"#)),
        ("true", Some("true")),
    ] {
        let input = match method {
            None => r#"{"jsonrpc":"2.0","params":[1],"id":"m"}"#.to_owned(),
            Some(m) => format!(r#"{{"jsonrpc":"2.0","method":{m},"params":[1],"id":"m"}}"#),
        };
        add(row(
            format!("method {what}"),
            input,
            reply(err(INVALID, r#""m""#)),
        ));
    }
    add(row(
        "spec example 6: method a number, params a string, no id",
        r#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
        reply(err(INVALID, "null")),
    ));

    // --- params present but not an array or object (null included): -32600.
    for params in ["null", r#""x""#, "1", "true", "false", "-0.5"] {
        add(row(
            format!("params {params}"),
            req("echo", Some(params), Some("9")),
            reply(err(INVALID, "9")),
        ));
    }
    add(row(
        "params null in a notification: still answered, id null",
        req("update", Some("null"), None),
        reply(err(INVALID, "null")),
    ));
    add(row(
        "params [] accepted",
        req("sum", Some("[]"), Some("1")),
        reply(ok("0", "1")),
    ));
    add(row(
        "params {} accepted",
        req("echo", Some("{}"), Some("1")),
        reply(ok("{}", "1")),
    ));
    add(row(
        "params absent accepted",
        req("echo", None, Some("1")),
        reply(ok("null", "1")),
    ));

    // --- any -32600 carries the request's id when that id is valid.
    for id in [r#""abc""#, "1.5", "-7", "null", r#""""#, "0"] {
        add(row(
            format!("-32600 carries id {id}"),
            format!(r#"{{"jsonrpc":"1.0","method":"sum","id":{id}}}"#),
            reply(err(INVALID, id)),
        ));
    }

    // --- id an object, array, true/false: -32600, id null.
    for id in ["{}", r#"{"a":1}"#, "[]", "[1]", "true", "false"] {
        add(row(
            format!("id {id}"),
            req("sum", Some("[1,2]"), Some(id)),
            reply(err(INVALID, "null")),
        ));
    }
    add(row(
        "id true and an unknown method: -32600, not -32601",
        req("nope", None, Some("true")),
        reply(err(INVALID, "null")),
    ));

    // --- id present and null: a request, answered with id null.
    add(row(
        "id null: answered",
        req("sum", Some("[1,2]"), Some("null")),
        reply(ok("3", "null")),
    ));
    add(row(
        "id null: method not found is answered",
        req("nope", None, Some("null")),
        reply(err(NOT_FOUND, "null")),
    ));
    add(row(
        "id null: a handler error is answered",
        req("fail", Some("[1]"), Some("null")),
        reply(err_data(-32000, "[1]", "null")),
    ));

    // --- id absent: a notification, never answered, not even with an error.
    add(row(
        "notification: known method",
        req("sum", Some("[1,2]"), None),
        Nothing,
    ));
    add(row(
        "notification: spec example 3a",
        r#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#,
        Nothing,
    ));
    add(row(
        "notification: unknown method",
        req("foobar", None, None),
        Nothing,
    ));
    add(row(
        "notification: rpc. method",
        req("rpc.foo", None, None),
        Nothing,
    ));
    add(row(
        "notification: handler error (fail)",
        req("fail", Some(r#"{"x":1}"#), None),
        Nothing,
    ));
    add(row(
        "notification: invalid params",
        req("subtract", Some("[1]"), None),
        Nothing,
    ));
    add(row(
        "notification: a result larger than the output buffer",
        req("big", Some("[100000]"), None),
        Nothing,
    )
    .out(64));
    add(row(
        "notification: no output buffer at all",
        req("get_data", None, None),
        Nothing,
    )
    .out(0));
    add(row(
        "notification: unknown member and members in another order",
        r#"{"params":[1],"x":{"y":[]},"method":"sum","jsonrpc":"2.0"}"#,
        Nothing,
    ));

    // --- id a number or string: echoed as the exact bytes received.
    for id in [
        "1",
        "1.0",
        "1e3",
        "1E+3",
        "-0",
        "0.000",
        "-1.5e-3",
        "12345678901234567890123456789",
        r#""1""#,
        r#""a\u0062""#,
        r#""""#,
        r#""\"quoted\"""#,
        r#""\ud83d\ude00""#,
        "\"w\u{f6}rld\"",
        r#""a\/b""#,
    ] {
        add(row(
            format!("id echoed exactly: {id}"),
            req("sum", Some("[1,2]"), Some(id)),
            reply(ok("3", id)),
        ));
        add(row(
            format!("id echoed exactly in an error: {id}"),
            req("nope", None, Some(id)),
            reply(err(NOT_FOUND, id)),
        ));
    }
    add(row(
        "id with whitespace around it: the value only",
        "{\"jsonrpc\":\"2.0\",\"method\":\"sum\",\"params\":[1],\"id\" : \t1.10\n }",
        reply(ok("1", "1.10")),
    ));

    // --- a member of the envelope given twice: -32600.
    add(row(
        "duplicate id",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1,"id":2}"#,
        reply(err(INVALID, "null")),
    ));
    add(row(
        "duplicate id, same value",
        r#"{"jsonrpc":"2.0","id":1,"method":"sum","params":[1],"id":1}"#,
        reply(err(INVALID, "null")),
    ));
    add(row(
        "duplicate id, one spelled with an escape",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1,"\u0069d":2}"#,
        reply(err(INVALID, "null")),
    ));
    add(row(
        "duplicate method",
        r#"{"jsonrpc":"2.0","method":"sum","method":"subtract","params":[1,2],"id":1}"#,
        reply(err(INVALID, "1")),
    ));
    add(row(
        "duplicate method, same value",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"method":"sum","id":1}"#,
        reply(err(INVALID, "1")),
    ));
    add(row(
        "duplicate method, one spelled with an escape",
        r#"{"jsonrpc":"2.0","method":"sum","\u006dethod":"echo","params":[1,2],"id":1}"#,
        reply(err(INVALID, "1")),
    ));
    add(row(
        "duplicate jsonrpc",
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#,
        reply(err(INVALID, "1")),
    ));
    add(row(
        "duplicate jsonrpc, first one wrong",
        r#"{"jsonrpc":"1.0","method":"sum","params":[1],"id":1,"jsonrpc":"2.0"}"#,
        reply(err(INVALID, "1")),
    ));
    add(row(
        "duplicate params",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"params":[2],"id":1}"#,
        reply(err(INVALID, "1")),
    ));
    add(row(
        "duplicate params in a notification: answered, id null",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"params":[2]}"#,
        reply(err(INVALID, "null")),
    ));
    add(row(
        "duplicate unknown member: ignored",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1],"x":1,"x":2,"id":1}"#,
        reply(ok("1", "1")),
    ));

    // --- unknown extra members: ignored (still validated as JSON).
    add(row(
        "unknown members ignored",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1,"meta":{"a":[1,{"b":null}]},"x":"y"}"#,
        reply(ok("3", "1")),
    ));
    add(row(
        "member names are case-sensitive: Id and METHOD are unknown members",
        r#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1,"Id":5,"METHOD":"x"}"#,
        reply(ok("3", "1")),
    ));

    // --- members in any order.
    add(row(
        "order: id first, params before method, jsonrpc last",
        r#"{"id":7,"params":[42,23],"method":"subtract","jsonrpc":"2.0"}"#,
        reply(ok("19", "7")),
    ));
    add(row(
        "order: params first",
        r#"{"params":{"subtrahend":23,"minuend":42},"jsonrpc":"2.0","id":"o","method":"subtract"}"#,
        reply(ok("19", r#""o""#)),
    ));
    add(row(
        "order: escaped member names",
        r#"{"\u0069d":1,"p\u0061rams":[1,2],"\u006dethod":"sum","json\u0072pc":"2.0"}"#,
        reply(ok("3", "1")),
    ));

    // --- method not in the table: -32601; rpc. names are reserved.
    for method in [
        "foobar",
        "Sum",
        "sum ",
        "",
        "foo.get",
        "rpc.foo",
        "rpc.discover",
        r#"rpc\u002efoo"#,
        r#"sum\u0000"#,
        r#"\ud83d\ude00"#,
    ] {
        add(row(
            format!("method not found: {method:?}"),
            req(method, Some("[1]"), Some("1")),
            reply(err(NOT_FOUND, "1")),
        ));
    }

    // --- method names with escapes dispatch by their decoded value.
    for method in [r#"su\u006d"#, r#"su\u006D"#, r#"\u0073\u0075\u006d"#] {
        add(row(
            format!("escaped method name {method}"),
            req(method, Some("[1,2,4]"), Some("1")),
            reply(ok("7", "1")),
        ));
    }
    add(row(
        "escaped method name subtract",
        req(r#"sub\u0074ract"#, Some("[5,3]"), Some("1")),
        reply(ok("2", "1")),
    ));

    // --- handler rejects its params: -32602.
    for (method, params) in [
        ("subtract", "[1]"),
        ("subtract", "[1,2,3]"),
        ("subtract", r#"["a","b"]"#),
        ("subtract", "[1.5,1]"),
        ("subtract", r#"{"minuend":1}"#),
        ("subtract", r#"{"minuend":1,"subtrahend":2,"x":3}"#),
        ("subtract", "[-9223372036854775808,1]"),
        ("sum", r#"{"a":1}"#),
        ("sum", "[1.5]"),
        ("sum", "[1e3]"),
        ("sum", r#"["1"]"#),
        ("sum", "[9223372036854775807,1]"),
        ("big", r#"["x"]"#),
        ("big", "[-1]"),
        ("big", "[1,2]"),
        ("big", "[]"),
    ] {
        add(row(
            format!("invalid params: {method} {params}"),
            req(method, Some(params), Some(r#""p""#)),
            reply(err(BAD_PARAMS, r#""p""#)),
        ));
    }
    add(row(
        "invalid params: subtract with no params",
        req("subtract", None, Some("1")),
        reply(err(BAD_PARAMS, "1")),
    ));

    // --- handler fails with its own code and data.
    add(row(
        "fail: -32000 with data = params, verbatim",
        req("fail", Some(r#"{"why": [1, "two", 3.50]}"#), Some("7")),
        reply(err_data(-32000, r#"{"why":[1,"two",3.50]}"#, "7")),
    )
    .contains(r#"{"why": [1, "two", 3.50]}"#));
    add(row(
        "fail: positional data",
        req("fail", Some("[]"), Some(r#""f""#)),
        reply(err_data(-32000, "[]", r#""f""#)),
    ));
    add(row(
        "fail: no params, no data",
        req("fail", None, Some("1")),
        reply(err(-32000, "1")),
    ));

    // --- the demo methods themselves.
    add(row(
        "get_data",
        req("get_data", None, Some("1")),
        reply(ok(r#"["hello",5]"#, "1")),
    ));
    add(row(
        "update with an id: null",
        req("update", Some("[1]"), Some("1")),
        reply(ok("null", "1")),
    ));
    add(row(
        "echo: params verbatim",
        req(
            "echo",
            Some(r#"{"b":1,  "a":[1.10,"\u00e9",-0]}"#),
            Some("1"),
        ),
        reply(ok(r#"{"b":1,"a":[1.10,"é",-0]}"#, "1")),
    )
    .contains(r#"{"b":1,  "a":[1.10,"\u00e9",-0]}"#));
    add(row(
        "big 0",
        req("big", Some("[0]"), Some("1")),
        reply(ok(r#""""#, "1")),
    ));
    add(row(
        "big 100",
        req("big", Some("[100]"), Some("1")),
        reply(ok(&format!("\"{}\"", "x".repeat(100)), "1")),
    ));

    // --- nesting deeper than the limit: -32700 naming the limit.
    let too_deep = |n: usize| {
        reply(err_msg(
            PARSE,
            &format!("Parse error: nesting deeper than {n}"),
            "null",
        ))
    };
    add(row(
        "depth 128 (envelope + 127 arrays in params): accepted",
        req("update", Some(&nested_arrays(127)), Some("1")),
        reply(ok("null", "1")),
    ));
    add(row(
        "depth 129 (envelope + 128 arrays in params): -32700",
        req("update", Some(&nested_arrays(128)), Some("1")),
        too_deep(128),
    ));
    add(row(
        "depth 129 in a notification: still -32700",
        req("update", Some(&nested_arrays(128)), None),
        too_deep(128),
    ));
    add(row(
        "depth 128 of objects in params: accepted",
        req("update", Some(&nested_objects(127)), Some("1")),
        reply(ok("null", "1")),
    ));
    add(row(
        "depth 129 of objects in params: -32700",
        req("update", Some(&nested_objects(128)), Some("1")),
        too_deep(128),
    ));
    add(row(
        "depth 129 in an unknown member: -32700",
        format!(
            r#"{{"jsonrpc":"2.0","method":"update","x":{},"id":1}}"#,
            nested_arrays(128)
        ),
        too_deep(128),
    ));
    add(row(
        "depth 128 at the top: a batch of one non-object",
        nested_arrays(128),
        reply(batch(&[err(INVALID, "null")])),
    ));
    add(row(
        "depth 129 at the top: -32700",
        nested_arrays(129),
        too_deep(128),
    ));
    add(row(
        "depth 129 inside a batch element: -32700",
        format!("[{}]", req("update", Some(&nested_arrays(127)), Some("1"))),
        too_deep(128),
    ));
    add(row(
        "depth 128 inside a batch element: accepted",
        format!("[{}]", req("update", Some(&nested_arrays(126)), Some("1"))),
        reply(batch(&[ok("null", "1")])),
    ));
    add(row(
        "deep, unclosed: -32700 depth",
        "[".repeat(1000),
        too_deep(128),
    ));
    for (depth, ok_expected) in [(3usize, true), (4, true), (5, false)] {
        // max_depth 4: the envelope is one level, so params may hold 3 nested arrays.
        let expect = if ok_expected {
            reply(ok("null", "1"))
        } else {
            too_deep(4)
        };
        add(row(
            format!("max_depth 4: envelope + {} arrays", depth - 1),
            req("update", Some(&nested_arrays(depth - 1)), Some("1")),
            expect,
        )
        .limits(Limits::DEFAULT.max_depth(4)));
    }
    add(row(
        "max_depth 1: a flat request is fine",
        req("get_data", None, Some("1")),
        reply(ok(r#"["hello",5]"#, "1")),
    )
    .limits(Limits::DEFAULT.max_depth(1)));
    add(row(
        "max_depth 1: a batch of one request is too deep",
        format!("[{}]", req("get_data", None, Some("1"))),
        too_deep(1),
    )
    .limits(Limits::DEFAULT.max_depth(1)));
    add(row(
        "max_depth 0: the envelope itself is too deep",
        req("get_data", None, Some("1")),
        too_deep(0),
    )
    .limits(Limits::DEFAULT.max_depth(0)));

    // --- result too large for the output buffer: -32603 with the same id.
    add(row(
        "overflow: big 1000 into 256 bytes",
        req("big", Some("[1000]"), Some("1e3")),
        reply(err(INTERNAL, "1e3")),
    )
    .out(256));
    add(row(
        "overflow: big 1000 into 256 bytes, string id",
        req("big", Some("[1000]"), Some(r#""a\u0062""#)),
        reply(err(INTERNAL, r#""a\u0062""#)),
    )
    .out(256));
    add(row(
        "overflow: echo of large params",
        req(
            "echo",
            Some(&format!("[\"{}\"]", "y".repeat(500))),
            Some("2"),
        ),
        reply(err(INTERNAL, "2")),
    )
    .out(200));
    add(row(
        "overflow: an error whose data does not fit",
        req(
            "fail",
            Some(&format!("[\"{}\"]", "y".repeat(500))),
            Some("3"),
        ),
        reply(err(INTERNAL, "3")),
    )
    .out(200));
    add(row(
        "overflow: big 2^64-1 (never ends writing without a limit)",
        req("big", Some("[18446744073709551615]"), Some("4")),
        reply(err(INTERNAL, "4")),
    )
    .out(128));

    // --- output buffer too small even for the error: Err(OutputTooSmall).
    add(row(
        "too small: big into 16 bytes",
        req("big", Some("[1000]"), Some("1")),
        TooSmall,
    )
    .out(16));
    add(row("too small: parse error into 10 bytes", "{", TooSmall).out(10));
    add(row("too small: [] into 0 bytes", "[]", TooSmall).out(0));
    add(row(
        "too small: a plain result into 0 bytes",
        req("sum", Some("[1]"), Some("1")),
        TooSmall,
    )
    .out(0));

    // --- batches.
    add(row(
        "batch: all notifications, no output at all",
        format!(
            "[{},{},{},{}]",
            req("update", Some("[1]"), None),
            req("foobar", None, None),
            req("fail", Some("[1]"), None),
            req("subtract", Some("[1]"), None),
        ),
        Nothing,
    ));
    add(row(
        "batch: spec example 12",
        "[\n        {\"jsonrpc\": \"2.0\", \"method\": \"notify_sum\", \"params\": [1,2,4]},\n        {\"jsonrpc\": \"2.0\", \"method\": \"notify_hello\", \"params\": [7]}\n    ]",
        Nothing,
    ));
    for out in [0usize, 1, 2] {
        add(row(
            format!("batch: all notifications into {out} bytes: still no output"),
            format!(
                "[{},{}]",
                req("notify_sum", Some("[1,2,4]"), None),
                req("notify_hello", Some("[7]"), None),
            ),
            Nothing,
        )
        .out(out));
    }
    add(row(
        "batch: one request is still an array of one",
        format!("[{}]", req("sum", Some("[1]"), Some("1"))),
        reply(batch(&[ok("1", "1")])),
    ));
    add(row(
        "batch: replies in request order, none for notifications",
        format!(
            "[{},{},{},1,{},{}]",
            req("subtract", Some("[5,3]"), Some("3")),
            req("update", Some("[1]"), None),
            req("nope", None, Some(r#""x""#)),
            req("sum", Some("[1,2]"), Some("1")),
            req("get_data", None, Some("2")),
        ),
        reply(batch(&[
            ok("2", "3"),
            err(NOT_FOUND, r#""x""#),
            err(INVALID, "null"),
            ok("3", "1"),
            ok(r#"["hello",5]"#, "2"),
        ])),
    ));
    add(row(
        "batch: notifications first and last",
        format!(
            " [ {} ,\n {} , {} ] ",
            req("update", None, None),
            req("sum", Some("[2,2]"), Some("1.0")),
            req("update", None, None),
        ),
        reply(batch(&[ok("4", "1.0")])),
    ));
    add(row(
        "batch: the same id twice, both answered",
        format!(
            "[{},{}]",
            req("sum", Some("[1]"), Some("1")),
            req("sum", Some("[2]"), Some("1")),
        ),
        reply(batch(&[ok("1", "1"), ok("2", "1")])),
    ));
    add(row(
        "batch: an element whose reply overflows becomes -32603, the others stay",
        format!(
            "[{},{},{},{}]",
            req("big", Some("[1000]"), Some("1")),
            req("sum", Some("[1,2]"), Some("2")),
            req("update", None, None),
            req("get_data", None, Some(r#""3""#)),
        ),
        reply(batch(&[
            err(INTERNAL, "1"),
            ok("3", "2"),
            ok(r#"["hello",5]"#, r#""3""#),
        ])),
    )
    .out(400));
    add(row(
        "batch: a middle element overflows",
        format!(
            "[{},{},{}]",
            req("sum", Some("[1,2]"), Some("1")),
            req("big", Some("[1000]"), Some("2")),
            req("sum", Some("[3]"), Some("3")),
        ),
        reply(batch(&[ok("3", "1"), err(INTERNAL, "2"), ok("3", "3")])),
    )
    .out(400));
    let twenty: Vec<String> = (0..20)
        .map(|i| req("sum", Some("[1]"), Some(&i.to_string())))
        .collect();
    add(row(
        "batch: the whole batch reply does not fit: one -32603, id null",
        format!("[{}]", twenty.join(",")),
        reply(err(INTERNAL, "null")),
    )
    .out(200));

    // --- limits: batch size.
    let sums = |n: usize| -> (String, String) {
        let input: Vec<String> = (0..n)
            .map(|i| req("sum", Some(&format!("[{i}]")), Some(&i.to_string())))
            .collect();
        let output: Vec<String> = (0..n).map(|i| ok(&i.to_string(), &i.to_string())).collect();
        (format!("[{}]", input.join(",")), batch(&output))
    };
    for n in [1023usize, 1024] {
        let (input, output) = sums(n);
        add(row(
            format!("max_batch default: {n} elements answered"),
            input,
            reply(output),
        )
        .out(64 * 1024));
    }
    add(row(
        "max_batch default: 1025 elements, one -32600",
        sums(1025).0,
        reply(err(INVALID, "null")),
    )
    .out(64 * 1024));
    let notes = |n: usize| -> String {
        let v: Vec<String> = (0..n).map(|_| req("update", None, None)).collect();
        format!("[{}]", v.join(","))
    };
    add(row(
        "max_batch default: 1025 notifications, one -32600",
        notes(1025),
        reply(err(INVALID, "null")),
    ));
    let three = Limits::DEFAULT.max_batch(3);
    for n in [2usize, 3] {
        let (input, output) = sums(n);
        add(row(
            format!("max_batch 3: {n} elements answered"),
            input,
            reply(output),
        )
        .limits(three));
    }
    add(row(
        "max_batch 3: 4 elements, one -32600",
        sums(4).0,
        reply(err(INVALID, "null")),
    )
    .limits(three));
    add(row("max_batch 3: 3 notifications, no output", notes(3), Nothing).limits(three));
    add(row(
        "max_batch 3: 4 notifications, one -32600",
        notes(4),
        reply(err(INVALID, "null")),
    )
    .limits(three));

    // --- limits: id length (bytes as received, quotes included); longer is id null.
    let long_id = |bytes: usize| format!("\"{}\"", "i".repeat(bytes - 2));
    add(row(
        "max_id_len default: 256 bytes echoed",
        req("sum", Some("[1]"), Some(&long_id(256))),
        reply(ok("1", &long_id(256))),
    ));
    add(row(
        "max_id_len default: 257 bytes, -32600 id null",
        req("sum", Some("[1]"), Some(&long_id(257))),
        reply(err(INVALID, "null")),
    ));
    add(row(
        "max_id_len default: 257 digits, -32600 id null",
        req("sum", Some("[1]"), Some(&"9".repeat(257))),
        reply(err(INVALID, "null")),
    ));
    add(row(
        "max_id_len default: 256 digits echoed",
        req("sum", Some("[1]"), Some(&"9".repeat(256))),
        reply(ok("1", &"9".repeat(256))),
    ));
    let id3 = Limits::DEFAULT.max_id_len(3);
    for (id, fits) in [
        ("12", true),
        ("123", true),
        ("1234", false),
        (r#""a""#, true),
        (r#""ab""#, false),
        ("1e3", true),
        ("1e10", false),
        ("null", false),
    ] {
        let expect = if fits {
            reply(ok("1", id))
        } else {
            reply(err(INVALID, "null"))
        };
        add(row(
            format!("max_id_len 3: id {id}"),
            req("sum", Some("[1]"), Some(id)),
            expect,
        )
        .limits(id3));
    }
    add(row(
        "max_id_len 3: an over-long id and an unknown method: -32600",
        req("nope", None, Some("1234")),
        reply(err(INVALID, "null")),
    )
    .limits(id3));

    // --- limits: method length (bytes as received, escapes as sent, quotes excluded).
    add(row(
        "max_method_len default: 256 bytes, looked up",
        req(&"m".repeat(256), None, Some("1")),
        reply(err(NOT_FOUND, "1")),
    ));
    add(row(
        "max_method_len default: 257 bytes, -32600 with the id",
        req(&"m".repeat(257), None, Some("1")),
        reply(err(INVALID, "1")),
    ));
    let m3 = Limits::DEFAULT.max_method_len(3);
    for (method, expect) in [
        ("su", reply(err(NOT_FOUND, "1"))),
        ("sum", reply(ok("1", "1"))),
        ("sums", reply(err(INVALID, "1"))),
        (r#"su\u006d"#, reply(err(INVALID, "1"))),
        ("echo", reply(err(INVALID, "1"))),
    ] {
        add(row(
            format!("max_method_len 3: method {method}"),
            req(method, Some("[1]"), Some("1")),
            expect,
        )
        .limits(m3));
    }
    add(row(
        "max_method_len 3: an over-long method in a notification: -32600 id null",
        req("echo", Some("[1]"), None),
        reply(err(INVALID, "null")),
    )
    .limits(m3));

    rows
}

// ---------------------------------------------------------------------------------
// Checking.

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The exact text of the `id` member of each response object of a reply, in order.
fn raw_ids(reply: &[u8]) -> Result<Vec<Option<String>>, String> {
    type Obj = BTreeMap<String, Box<RawValue>>;
    let objects: Vec<Obj> = match serde_json::from_slice::<Value>(reply) {
        Ok(Value::Array(_)) => serde_json::from_slice(reply).map_err(|e| e.to_string())?,
        Ok(Value::Object(_)) => vec![serde_json::from_slice(reply).map_err(|e| e.to_string())?],
        Ok(other) => return Err(format!("not an object or array: {other}")),
        Err(e) => return Err(e.to_string()),
    };
    Ok(objects
        .into_iter()
        .map(|o| o.get("id").map(|id| id.get().to_owned()))
        .collect())
}

/// Compares one response object with the expected one.
fn compare_response(want: &Value, got: &Value) -> Result<(), String> {
    let (Some(w), Some(g)) = (want.as_object(), got.as_object()) else {
        return if want == got {
            Ok(())
        } else {
            Err(format!("expected {want}, got {got}"))
        };
    };
    let wk: Vec<&String> = w.keys().collect();
    let gk: Vec<&String> = g.keys().collect();
    if wk != gk {
        return Err(format!("members {gk:?}, expected {wk:?}"));
    }
    for (k, wv) in w {
        let gv = &g[k];
        if k != "error" {
            if wv != gv {
                return Err(format!("{k}: expected {wv}, got {gv}"));
            }
            continue;
        }
        let (Some(we), Some(ge)) = (wv.as_object(), gv.as_object()) else {
            return Err(format!("error: expected {wv}, got {gv}"));
        };
        let wk: Vec<&String> = we.keys().collect();
        let gk: Vec<&String> = ge.keys().collect();
        if wk != gk {
            return Err(format!("error members {gk:?}, expected {wk:?}"));
        }
        for (ek, ewv) in we {
            let egv = &ge[ek];
            if ek == "message" {
                let (Some(wm), Some(gm)) = (ewv.as_str(), egv.as_str()) else {
                    return Err(format!("message: expected {ewv}, got {egv}"));
                };
                let fine = if wm.contains(':') {
                    gm == wm
                } else {
                    gm == wm || gm.starts_with(&format!("{wm}: "))
                };
                if !fine {
                    return Err(format!("message: expected {wm:?}, got {gm:?}"));
                }
            } else if ewv != egv {
                return Err(format!("error.{ek}: expected {ewv}, got {egv}"));
            }
        }
    }
    Ok(())
}

fn compare(want_text: &str, got: &[u8]) -> Result<(), String> {
    let want: Value = serde_json::from_str(want_text)
        .unwrap_or_else(|e| panic!("bad expected reply in the table ({e}): {want_text}"));
    let got_value: Value =
        serde_json::from_slice(got).map_err(|e| format!("reply is not JSON: {e}"))?;
    match (&want, &got_value) {
        (Value::Array(w), Value::Array(g)) => {
            if w.len() != g.len() {
                return Err(format!("{} entries, expected {}", g.len(), w.len()));
            }
            for (i, (w, g)) in w.iter().zip(g).enumerate() {
                compare_response(w, g).map_err(|e| format!("entry {i}: {e}"))?;
            }
        }
        (Value::Object(_), Value::Object(_)) => compare_response(&want, &got_value)?,
        _ => return Err(format!("expected {want}, got {got_value}")),
    }
    let want_ids = raw_ids(want_text.as_bytes()).expect("expected ids");
    let got_ids = raw_ids(got)?;
    if want_ids != got_ids {
        return Err(format!(
            "ids not byte-exact: expected {want_ids:?}, got {got_ids:?}"
        ));
    }
    for id in got_ids.iter().flatten() {
        let needle = format!("\"id\":{id}");
        if !contains(got, needle.as_bytes()) {
            return Err(format!("raw reply lacks {needle}"));
        }
    }
    Ok(())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

fn run(row: &Row) -> Result<(), String> {
    let server = Server::new(demo::TABLE).with_limits(row.limits);
    // Poison the buffer, so that a reply cannot pass by reusing stale bytes.
    let mut out = vec![b'#'; row.out_len];
    let result = server.handle(&mut (), &row.input, &mut out);
    match (&row.expect, result) {
        (Expect::TooSmall, Err(OutputTooSmall)) => Ok(()),
        (Expect::TooSmall, Ok(r)) => Err(format!("expected OutputTooSmall, got Ok({:?})", show(r))),
        (_, Err(e)) => Err(format!("expected a reply, got Err({e:?})")),
        (Expect::Nothing, Ok(r)) => {
            if r.is_empty() {
                Ok(())
            } else {
                Err(format!("expected no reply, got {:?}", show(r)))
            }
        }
        (Expect::Reply(want), Ok(r)) => {
            if r.len() > row.out_len {
                return Err("reply longer than the buffer".into());
            }
            compare(want, r).map_err(|e| format!("{e}\n    reply: {}", show(r)))?;
            for raw in &row.contains {
                if !contains(r, raw) {
                    return Err(format!(
                        "reply lacks the exact bytes {:?}\n    reply: {}",
                        show(raw),
                        show(r)
                    ));
                }
            }
            Ok(())
        }
    }
}

fn short(input: &[u8]) -> String {
    let s = show(input);
    if s.len() > 160 {
        let cut = (0..=120)
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        format!("{}... ({} bytes)", &s[..cut], input.len())
    } else {
        s
    }
}

/// The number of rows `rows()` builds: a guard against rows silently disappearing.
const ROWS: usize = 242;

#[test]
fn decided_cases() {
    let rows = rows();
    assert_eq!(rows.len(), ROWS, "rows in the table");
    let mut names = std::collections::HashSet::new();
    for r in &rows {
        assert!(names.insert(r.name.clone()), "row name twice: {}", r.name);
    }
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            run(r)
                .err()
                .map(|e| format!("row {:?}\n    input: {}\n    {e}", r.name, short(&r.input)))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// The checker itself: each kind of mismatch is caught (no row can pass vacuously).
#[test]
fn the_checker_catches_mismatches() {
    let base = ok("3", "1");
    assert!(compare(&base, base.as_bytes()).is_ok());
    // Another result, another id value, another id spelling, another id type.
    for wrong in [
        ok("4", "1"),
        ok("3", "2"),
        ok("3", "1.0"),
        ok("3", r#""1""#),
        err(INVALID, "1"),
        batch(&[ok("3", "1")]),
        r#"{"jsonrpc":"2.0","result":3}"#.to_owned(),
        r#"{"jsonrpc":"2.0","result":3,"id":1,"error":null}"#.to_owned(),
        r#"{"jsonrpc":"1.0","result":3,"id":1}"#.to_owned(),
    ] {
        assert!(
            compare(&base, wrong.as_bytes()).is_err(),
            "not caught: {wrong}"
        );
    }
    let e = err(INVALID, r#""a\u0062""#);
    assert!(compare(&e, e.as_bytes()).is_ok());
    assert!(compare(&e, err(INVALID, r#""ab""#).as_bytes()).is_err());
    assert!(compare(
        &e,
        err_msg(INVALID, "Invalid Request: why", r#""a\u0062""#).as_bytes()
    )
    .is_ok());
    assert!(compare(
        &e,
        err_msg(INVALID, "Invalid Requests", r#""a\u0062""#).as_bytes()
    )
    .is_err());
    assert!(compare(&e, err(PARSE, r#""a\u0062""#).as_bytes()).is_err());
    let exact = err_msg(PARSE, "Parse error: nesting deeper than 128", "null");
    assert!(compare(&exact, err(PARSE, "null").as_bytes()).is_err());
    assert!(compare(
        &exact,
        err_msg(PARSE, "Parse error: nesting deeper than 12", "null").as_bytes()
    )
    .is_err());
    let d = err_data(-32000, "[1]", "1");
    assert!(compare(&d, err(-32000, "1").as_bytes()).is_err());
    assert!(compare(&d, err_data(-32000, "[2]", "1").as_bytes()).is_err());
    let b = batch(&[ok("1", "1"), ok("2", "2")]);
    assert!(compare(&b, batch(&[ok("2", "2"), ok("1", "1")]).as_bytes()).is_err());
    assert!(compare(&b, batch(&[ok("1", "1")]).as_bytes()).is_err());
    assert!(compare(&b, b"[{\"jsonrpc\":\"2.0\",\"result\":1,\"id\":1},").is_err());
}

// ---------------------------------------------------------------------------------
// Cases that need more than one call, or a thread.

/// 100 000 nested `[` is a `-32700` in a thread with a 64 KiB stack: nothing grows
/// with the input.
#[test]
fn deep_nesting_in_a_small_stack() {
    let handle = std::thread::Builder::new()
        .name("small-stack".into())
        .stack_size(64 * 1024)
        .spawn(|| {
            let server = Server::new(demo::TABLE);
            let mut out = [0u8; 256];
            let mut replies = Vec::new();
            let inputs = [
                "[".repeat(100_000),
                nested_arrays(100_000),
                r#"{"a":"#.repeat(100_000),
                req("update", Some(&"[".repeat(100_000)), Some("1")),
            ];
            for input in &inputs {
                let r = server
                    .handle(&mut (), input.as_bytes(), &mut out)
                    .expect("room for the error");
                replies.push(r.to_vec());
            }
            // The largest configurable limit, at and past it.
            let max = jsonrpc_slice::scan::MAX_DEPTH_LIMIT;
            let deep = Server::new(demo::TABLE).with_limits(Limits::DEFAULT.max_depth(max));
            let at = deep
                .handle(
                    &mut (),
                    req("update", Some(&nested_arrays(max as usize - 1)), Some("1")).as_bytes(),
                    &mut out,
                )
                .expect("fits")
                .to_vec();
            let past = deep
                .handle(
                    &mut (),
                    req("update", Some(&nested_arrays(max as usize)), Some("1")).as_bytes(),
                    &mut out,
                )
                .expect("fits")
                .to_vec();
            (replies, at, past)
        })
        .expect("spawn");
    let (replies, at, past) = handle.join().expect("the small-stack thread panicked");
    for r in &replies {
        compare(
            &err_msg(PARSE, "Parse error: nesting deeper than 128", "null"),
            r,
        )
        .unwrap_or_else(|e| panic!("{e}: {}", show(r)));
    }
    compare(&ok("null", "1"), &at).unwrap_or_else(|e| panic!("{e}: {}", show(&at)));
    let max = jsonrpc_slice::scan::MAX_DEPTH_LIMIT;
    compare(
        &err_msg(
            PARSE,
            &format!("Parse error: nesting deeper than {max}"),
            "null",
        ),
        &past,
    )
    .unwrap_or_else(|e| panic!("{e}: {}", show(&past)));
}

/// Depth 128 is accepted, and `echo` gives the params back byte for byte (serde_json
/// cannot parse a reply that deep, so this one is compared as bytes).
#[test]
fn depth_128_is_echoed() {
    let params = nested_arrays(127);
    let input = req("echo", Some(&params), Some("1"));
    let mut out = vec![0u8; 4096];
    let r = Server::new(demo::TABLE)
        .handle(&mut (), input.as_bytes(), &mut out)
        .unwrap();
    assert_eq!(
        show(r),
        format!(r#"{{"jsonrpc":"2.0","result":{params},"id":1}}"#)
    );
}

/// The limit given to `max_depth` is the limit applied and the one named.
#[test]
fn depth_limit_named_is_the_limit_applied() {
    for limit in [2u16, 16, 128, 200] {
        let server = Server::new(demo::TABLE).with_limits(Limits::DEFAULT.max_depth(limit));
        let mut out = vec![0u8; 64 * 1024];
        let at = req(
            "update",
            Some(&nested_arrays(limit as usize - 1)),
            Some("1"),
        );
        let r = server.handle(&mut (), at.as_bytes(), &mut out).unwrap();
        compare(&ok("null", "1"), r).unwrap_or_else(|e| panic!("limit {limit}: {e}"));
        let past = req("update", Some(&nested_arrays(limit as usize)), Some("1"));
        let r = server.handle(&mut (), past.as_bytes(), &mut out).unwrap();
        compare(
            &err_msg(
                PARSE,
                &format!("Parse error: nesting deeper than {limit}"),
                "null",
            ),
            r,
        )
        .unwrap_or_else(|e| panic!("limit {limit}: {e}"));
    }
}

/// A `max_depth` above [`MAX_DEPTH_LIMIT`](jsonrpc_slice::scan::MAX_DEPTH_LIMIT): an
/// input is either accepted or refused with a message naming a limit it really
/// exceeds.
#[test]
fn depth_limit_above_the_maximum_is_named_truthfully() {
    let max = jsonrpc_slice::scan::MAX_DEPTH_LIMIT as usize;
    let server = Server::new(demo::TABLE).with_limits(Limits::DEFAULT.max_depth(2000));
    let mut out = vec![0u8; 64 * 1024];
    for depth in [max, max + 1, 1500, 1999, 2000] {
        // The envelope is one level: params hold depth - 1 arrays.
        let input = req("update", Some(&nested_arrays(depth - 1)), Some("1"));
        let r = server.handle(&mut (), input.as_bytes(), &mut out).unwrap();
        let v: Value = serde_json::from_slice(r).unwrap();
        if v.get("result").is_some() {
            compare(&ok("null", "1"), r).unwrap();
            continue;
        }
        let message = v["error"]["message"].as_str().unwrap_or_default();
        let named: usize = message
            .strip_prefix("Parse error: nesting deeper than ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("depth {depth}: unexpected reply {}", show(r)));
        assert!(
            named < depth,
            "an input {depth} deep refused as \"{message}\": it is not deeper than {named}"
        );
    }
}

/// `big` with n bytes of result: the reply fits a buffer of exactly its size, and one
/// byte less turns it into -32603 with the same id, complete and valid.
#[test]
fn reply_size_boundary() {
    let server = Server::new(demo::TABLE);
    for id in ["1", r#""a\u0062""#, "1e3"] {
        let input = req("big", Some("[100]"), Some(id));
        let mut roomy = vec![0u8; 4096];
        let full = server
            .handle(&mut (), input.as_bytes(), &mut roomy)
            .unwrap()
            .to_vec();
        compare(&ok(&format!("\"{}\"", "x".repeat(100)), id), &full).unwrap();

        let mut exact = vec![b'#'; full.len()];
        let r = server
            .handle(&mut (), input.as_bytes(), &mut exact)
            .unwrap();
        assert_eq!(show(r), show(&full), "in a buffer of exactly its size");

        let mut short = vec![b'#'; full.len() - 1];
        let r = server
            .handle(&mut (), input.as_bytes(), &mut short)
            .unwrap();
        compare(&err(INTERNAL, id), r).unwrap_or_else(|e| panic!("{e}: {}", show(r)));
    }
}

/// The smallest buffer that can hold the -32603 replacement: below it, OutputTooSmall;
/// at and above it, a complete -32603 with the same id. Never a truncated reply.
#[test]
fn too_small_boundary() {
    let server = Server::new(demo::TABLE);
    let input = req("big", Some("[1000]"), Some("42"));
    let mut threshold = None;
    for len in 0..300usize {
        let mut out = vec![b'#'; len];
        match server.handle(&mut (), input.as_bytes(), &mut out) {
            Err(OutputTooSmall) => assert!(
                threshold.is_none(),
                "OutputTooSmall at {len} bytes after a reply fitted at {threshold:?}"
            ),
            Ok(r) => {
                threshold.get_or_insert(len);
                assert!(r.len() <= len);
                compare(&err(INTERNAL, "42"), r)
                    .unwrap_or_else(|e| panic!("at {len} bytes: {e}: {}", show(r)));
            }
        }
    }
    let t = threshold.expect("a -32603 fits in 300 bytes");
    assert!(t > 20, "a -32603 reply cannot fit in {t} bytes");

    // The same for a parse error.
    let mut threshold = None;
    for len in 0..100usize {
        let mut out = vec![0u8; len];
        match server.handle(&mut (), b"{", &mut out) {
            Err(OutputTooSmall) => assert!(threshold.is_none()),
            Ok(r) => {
                threshold.get_or_insert(len);
                compare(&err(PARSE, "null"), r).unwrap();
            }
        }
    }
    // At the latest where the compact reply fits.
    let compact = err(PARSE, "null").len();
    let t = threshold.expect("a parse error fits in 100 bytes");
    assert!(
        t <= compact,
        "a parse error needs {t} bytes, compact is {compact}"
    );
}

/// A batch into every buffer size up to one that holds it all: the reply is either
/// OutputTooSmall, one -32603 id null for the whole batch, or complete JSON whose
/// entries are, in request order, each either the full reply or -32603 with the same
/// id. Both the full batch and one with an element replaced must show up.
#[test]
fn batch_under_every_buffer_size() {
    let server = Server::new(demo::TABLE);
    // The large element last: an overflow replaced by a smaller -32603 leaves room.
    let input = format!(
        "[{},{},{},{},{}]",
        req("sum", Some("[1,2]"), Some("1")),
        req("update", None, None),
        req("get_data", None, Some("1e3")),
        req("fail", Some(r#"{"k":[1,2,3]}"#), Some("-0")),
        req("big", Some("[300]"), Some(r#""b""#)),
    );
    let full_entries = [
        ok("3", "1"),
        ok(r#"["hello",5]"#, "1e3"),
        err_data(-32000, r#"{"k":[1,2,3]}"#, "-0"),
        ok(&format!("\"{}\"", "x".repeat(300)), r#""b""#),
    ];
    let overflow_entries = [
        err(INTERNAL, "1"),
        err(INTERNAL, "1e3"),
        err(INTERNAL, "-0"),
        err(INTERNAL, r#""b""#),
    ];
    let (mut too_small, mut whole, mut partial, mut full) = (0, 0, 0, 0);
    for len in 0..800usize {
        let mut out = vec![b'#'; len];
        let r = match server.handle(&mut (), input.as_bytes(), &mut out) {
            Err(OutputTooSmall) => {
                too_small += 1;
                continue;
            }
            Ok(r) => r,
        };
        let v: Value = serde_json::from_slice(r)
            .unwrap_or_else(|e| panic!("at {len} bytes, not JSON ({e}): {}", show(r)));
        if v.is_object() {
            compare(&err(INTERNAL, "null"), r).unwrap_or_else(|e| panic!("at {len}: {e}"));
            whole += 1;
            continue;
        }
        let entries = v.as_array().unwrap();
        assert_eq!(entries.len(), 4, "at {len}: {}", show(r));
        let mut all_full = true;
        for (i, got) in entries.iter().enumerate() {
            let want: Value = serde_json::from_str(&full_entries[i]).unwrap();
            if compare_response(&want, got).is_ok() {
                continue;
            }
            all_full = false;
            let over: Value = serde_json::from_str(&overflow_entries[i]).unwrap();
            compare_response(&over, got)
                .unwrap_or_else(|e| panic!("at {len}, entry {i}: {e}: {got}"));
        }
        let ids = raw_ids(r).unwrap();
        assert_eq!(
            ids,
            ["1", "1e3", "-0", r#""b""#]
                .map(|s| Some(s.to_owned()))
                .to_vec(),
            "at {len}"
        );
        if all_full {
            full += 1;
        } else {
            partial += 1;
        }
    }
    assert!(
        too_small > 0 && whole > 0 && partial > 0 && full > 0,
        "too small {too_small}, whole batch -32603 {whole}, partial {partial}, full {full}"
    );
}

// ---------------------------------------------------------------------------------
// Which handlers run: a table that counts its calls.

#[derive(Default)]
struct Calls {
    count: u32,
}

fn count<'p>(c: &mut Calls, _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    c.count += 1;
    Ok(())
}

static COUNTING: MethodTable<Calls> = method_table! { "count" => count };

fn calls(input: &str, out_len: usize) -> (u32, Result<Vec<u8>, OutputTooSmall>) {
    let server = Server::new(COUNTING);
    let mut ctx = Calls::default();
    let mut out = vec![0u8; out_len];
    let r = server
        .handle(&mut ctx, input.as_bytes(), &mut out)
        .map(<[u8]>::to_vec);
    (ctx.count, r)
}

#[test]
fn notifications_run_their_handler() {
    let (n, r) = calls(&req("count", None, None), 256);
    assert_eq!((n, r.unwrap()), (1, vec![]));
    let (n, r) = calls(&req("count", Some("[]"), Some("1")), 256);
    assert_eq!(n, 1);
    compare(&ok("null", "1"), &r.unwrap()).unwrap();
}

#[test]
fn invalid_json_runs_nothing() {
    let input = format!(
        "[{},{},{{",
        req("count", None, Some("1")),
        req("count", None, None)
    );
    let (n, r) = calls(&input, 256);
    assert_eq!(n, 0, "a handler ran for a message that is not JSON");
    compare(&err(PARSE, "null"), &r.unwrap()).unwrap();
}

#[test]
fn invalid_requests_run_nothing() {
    for (input, id) in [
        (
            r#"{"jsonrpc":"2.0","method":"count","params":null,"id":1}"#,
            "1",
        ),
        (
            r#"{"jsonrpc":"2.0","method":"count","id":1,"id":2}"#,
            "null",
        ),
        (r#"{"jsonrpc":"1.0","method":"count"}"#, "null"),
        (r#"{"jsonrpc":"2.0","method":"count","id":true}"#, "null"),
    ] {
        let (n, r) = calls(input, 256);
        assert_eq!(n, 0, "{input}");
        compare(&err(INVALID, id), &r.unwrap()).unwrap_or_else(|e| panic!("{input}: {e}"));
    }
}

#[test]
fn batch_notifications_all_run() {
    let input = format!(
        "[{},{},{}]",
        req("count", None, None),
        req("count", Some("[1]"), None),
        req("count", Some("{}"), None)
    );
    let (n, r) = calls(&input, 256);
    assert_eq!((n, r.unwrap()), (3, vec![]));
}

/// An all-notification batch needs no output, so it must not need an output buffer:
/// its handlers run and nothing is written, whatever the buffer size.
#[test]
fn batch_notifications_need_no_output_buffer() {
    let input = format!(
        "[{},{}]",
        req("count", None, None),
        req("count", Some("[1]"), None)
    );
    for out_len in [0usize, 1, 2, 3] {
        let (n, r) = calls(&input, out_len);
        assert_eq!(
            (n, r),
            (2, Ok(vec![])),
            "all-notification batch into {out_len} bytes"
        );
    }
}
