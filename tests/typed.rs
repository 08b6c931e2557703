//! Typed params and results (feature `serde`): decoding positional and named params,
//! borrowed and escaped strings, shape mismatches as -32602, results serialized into
//! the reply with rollback on overflow, and the number-or-string raw view.
//! (Every serde shape, one by one: `tests/typed_shapes.rs`.)

use jsonrpc_slice::serde::{typed, typed_with_scratch, NumberOrString, DEFAULT_SCRATCH};
use jsonrpc_slice::{method_table, typed_handler, Params, ResultWriter, RpcError, Server};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Deserialize)]
struct Subtract {
    minuend: i64,
    subtrahend: i64,
}

#[derive(Deserialize)]
struct Greet<'a> {
    name: &'a str,
    #[serde(default)]
    times: u8,
}

#[derive(Serialize)]
struct Greeting<'a> {
    text: &'a str,
    times: u8,
    tags: [&'a str; 2],
    ratio: f64,
}

#[derive(Default)]
struct Ctx {
    calls: u32,
}

typed_handler! {
    /// Positional: a tuple.
    fn add(ctx: &mut Ctx, (a, b): (i64, i64)) -> Result<i64, RpcError<'static>> {
        ctx.calls += 1;
        a.checked_add(b).ok_or(RpcError::invalid_params())
    }
}

typed_handler! {
    /// Named: a struct.
    fn subtract(ctx: &mut Ctx, p: Subtract) -> Result<i64, RpcError<'static>> {
        ctx.calls += 1;
        Ok(p.minuend - p.subtrahend)
    }
}

/// Borrowed strings, and a struct result.
fn greet<'p>(
    ctx: &mut Ctx,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    typed(ctx, params, out, |_, g: Greet<'p>| {
        Ok(Greeting {
            text: g.name,
            times: g.times,
            tags: ["a\"b", "\n"],
            ratio: 0.25,
        })
    })
}

/// Escaped strings, decoded into a scratch buffer and an owned heapless string.
fn shout<'p>(
    _: &mut Ctx,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let mut scratch = [0u8; 64];
    let (s,): (heapless::String<64>,) = params.decode_with_scratch(&mut scratch)?;
    let mut upper = heapless::String::<64>::new();
    for c in s.chars() {
        upper
            .push(c.to_ascii_uppercase())
            .map_err(|_| RpcError::invalid_params())?;
    }
    Ok(out.serialize(upper.as_str())?)
}

/// A value that is a number or a hex string: read as a raw view.
fn balance<'p>(
    _: &mut Ctx,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let block = params
        .nth(0)
        .and_then(NumberOrString::from_raw)
        .ok_or(RpcError::invalid_params())?;
    let n = block.as_u64().ok_or(RpcError::invalid_params())?;
    Ok(out.serialize(&(n, n * 2))?)
}

/// A result much larger than the reply buffer: rolled back, -32603.
fn huge<'p>(_: &mut Ctx, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(out.serialize(&vec![[0u64; 32]; 64])?)
}

/// An LSP-like notification: owned strings with escapes, out of the box.
#[derive(Deserialize)]
struct DidChange {
    uri: String,
    text: String,
}

typed_handler! {
    /// The default scratch: escaped strings up to DEFAULT_SCRATCH bytes, decoded.
    fn did_change(ctx: &mut Ctx, p: DidChange) -> Result<(usize, usize), RpcError<'static>> {
        ctx.calls += 1;
        Ok((p.uri.len(), p.text.lines().count()))
    }
}

/// The same with a scratch of the caller's, for whole documents.
fn did_change_big<'p>(
    ctx: &mut Ctx,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let mut scratch = vec![0u8; 64 * 1024];
    typed_with_scratch(ctx, params, out, &mut scratch, |_, p: DidChange| {
        Ok((p.uri.len(), p.text.lines().count()))
    })
}

static SERVER: Server<Ctx> = Server::new(method_table! {
    "did_change" => did_change,
    "did_change_big" => did_change_big,
    "add" => add,
    "subtract" => subtract,
    "greet" => greet,
    "shout" => shout,
    "balance" => balance,
    "huge" => huge,
});

fn call(ctx: &mut Ctx, request: Value) -> Value {
    let mut out = [0u8; 1024];
    let input = request.to_string();
    let reply = SERVER.handle(ctx, input.as_bytes(), &mut out).unwrap();
    if reply.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(reply)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(reply)))
}

fn result(method: &str, params: Value) -> Value {
    let reply = call(
        &mut Ctx::default(),
        json!({"jsonrpc":"2.0","method":method,"params":params,"id":1}),
    );
    assert_eq!(reply["id"], 1);
    reply
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}: {reply}"))
}

fn error(method: &str, params: Value) -> (i64, String) {
    let request = json!({"jsonrpc":"2.0","method":method,"params":params.clone(),"id":1});
    let reply = call(&mut Ctx::default(), request);
    let e = &reply["error"];
    assert!(e.is_object(), "{method} {params}: {reply}");
    let code = e["code"].as_i64().unwrap();
    (code, e["message"].as_str().unwrap().to_owned())
}

#[test]
fn positional_and_named() {
    assert_eq!(result("add", json!([2, 3])), json!(5));
    assert_eq!(
        result("subtract", json!({"subtrahend": 23, "minuend": 42})),
        json!(19)
    );
    let mut ctx = Ctx::default();
    call(
        &mut ctx,
        json!({"jsonrpc":"2.0","method":"add","params":[1,1],"id":1}),
    );
    call(
        &mut ctx,
        json!({"jsonrpc":"2.0","method":"add","params":[1,1]}),
    );
    assert_eq!(ctx.calls, 2, "a notification runs its typed handler too");
}

#[test]
fn shape_mismatches_are_invalid_params_with_a_reason() {
    // (method, params, message prefix (naming where it failed), data: where it failed)
    let cases = [
        (
            "add",
            json!([1]),
            "Invalid params: index 1: too few elements",
            json!(1),
        ),
        (
            "add",
            json!([1, 2, 3]),
            "Invalid params: index 2: too many elements",
            json!(2),
        ),
        (
            "add",
            json!(["1", 2]),
            "Invalid params: index 0: expected an integer",
            json!(0),
        ),
        (
            "add",
            json!({"a": 1}),
            "Invalid params: expected an array",
            Value::Null,
        ),
        (
            "add",
            json!([9223372036854775807_i64, 1]),
            "Invalid params",
            Value::Null,
        ),
        (
            "subtract",
            json!({"minuend": 1}),
            "Invalid params: field `subtrahend`: required field missing",
            Value::Null,
        ),
        (
            "subtract",
            json!({"minuend": 1, "subtrahend": true}),
            "Invalid params: field `subtrahend`: expected an integer",
            json!("subtrahend"),
        ),
        (
            "greet",
            json!({"name": "caf\u{e9}\n"}),
            "Invalid params: field `name`: a string with escapes cannot be borrowed: use an owned string type",
            json!("name"),
        ),
    ];
    for (method, params, message, data) in cases {
        let request = json!({"jsonrpc":"2.0","method":method,"params":params.clone(),"id":1});
        let reply = call(&mut Ctx::default(), request);
        let e = &reply["error"];
        assert_eq!(e["code"], -32602, "{method} {params}: {reply}");
        let got = e["message"].as_str().unwrap();
        assert!(got.starts_with(message), "{method} {params}: {got}");
        assert_eq!(
            e.get("data").cloned().unwrap_or(Value::Null),
            data,
            "{method} {params}: {reply}"
        );
    }
}

#[test]
fn borrowed_and_escaped_strings() {
    assert_eq!(
        result("greet", json!({"name": "ada", "times": 2})),
        json!({"text": "ada", "times": 2, "tags": ["a\"b", "\n"], "ratio": 0.25})
    );
    // An escaped string cannot be borrowed; the owned route decodes it.
    assert_eq!(
        result("shout", json!(["h\u{e9}llo\t\"x\""])),
        json!("HéLLO\t\"X\"")
    );
}

#[test]
fn number_or_string() {
    assert_eq!(result("balance", json!([17])), json!([17, 34]));
    assert_eq!(result("balance", json!(["0x11"])), json!([17, 34]));
    assert_eq!(error("balance", json!([true])).0, -32602);
}

#[test]
fn serialized_results_roll_back_on_overflow() {
    let (code, message) = error("huge", json!([]));
    assert_eq!(code, -32603);
    assert_eq!(message, "Internal error: reply larger than 1024 bytes");
}

#[test]
fn escaped_strings_into_owned_types_out_of_the_box() {
    let params = json!({"uri": "file:///C:\\src\\a.rs", "text": "fn main() {\n    \"hi\"\n}\n"});
    assert_eq!(result("did_change", params.clone()), json!([19, 3]));
    assert_eq!(result("did_change_big", params), json!([19, 3]));
    // Longer than the default scratch, decoded: refused by the default, fine with a
    // scratch of the caller's.
    let long = "line\n".repeat(DEFAULT_SCRATCH);
    let params = json!({"uri": "u", "text": long});
    let (code, message) = error("did_change", params.clone());
    assert_eq!(
        (code, message.as_str()),
        (
            -32602,
            "Invalid params: field `text`: an escaped string is longer than the scratch buffer"
        )
    );
    assert_eq!(
        result("did_change_big", params),
        json!([1, DEFAULT_SCRATCH])
    );
}
