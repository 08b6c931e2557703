//! What a handler can see and say beyond its params and result: the call's id, a
//! fallback for names the table lacks (given the name), and errors whose message and
//! `data` are made at run time. All of it allocation-free (checked under the counting
//! allocator of `tests/common/counting.rs`).

#[path = "common/counting.rs"]
mod counting;

use jsonrpc_slice::{method_table, Params, RawStr, ResultWriter, RpcError, Server};

#[derive(Default)]
struct Log {
    seen: Vec<(String, Option<String>)>,
}

/// Records the id it was called with; answers the id.
fn whoami<'p>(
    log: &mut Log,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    log.seen.push((
        "whoami".to_owned(),
        p.id()
            .map(|id| String::from_utf8_lossy(id.as_bytes()).into_owned()),
    ));
    match p.id() {
        Some(id) => Ok(out.raw(id.as_raw())?),
        None => Ok(()),
    }
}

/// `["path", n]` → an error `-32001 cannot open <path> at <n>` with data `{"n":n}`.
fn open<'p>(_: &mut Log, p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    let path = p
        .nth(0)
        .and_then(|v| v.as_str())
        .ok_or(RpcError::invalid_params())?;
    let n = p
        .nth(1)
        .and_then(|v| v.as_i64())
        .ok_or(RpcError::invalid_params())?;
    // A result started, then dropped by the error.
    out.begin_array()?;
    out.str("partial")?;
    let e = out.error(-32001, format_args!("cannot open {path} at {n}"))?;
    out.begin_object()?;
    out.key("n")?;
    out.i64(n)?;
    out.end()?;
    Err(e)
}

/// An error without data, returned as `Ok`: the reply is still the error.
fn quiet<'p>(_: &mut Log, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    out.error(-32002, 12345)?;
    Ok(())
}

/// An error whose data is left unfinished.
fn broken<'p>(_: &mut Log, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    let e = out.error(-32003, "broken")?;
    out.begin_array()?;
    Err(e)
}

/// Serves `$/...` names (recording the name, decoded, and the id; answering the id);
/// refuses the others as not found.
fn dollar<'p>(
    log: &mut Log,
    method: RawStr<'p>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    if !method.as_raw().starts_with(b"$/") {
        return Err(RpcError::method_not_found());
    }
    whoami(log, p, out)?;
    if let Some(last) = log.seen.last_mut() {
        last.0 = method.to_string();
    }
    Ok(())
}

static SERVER: Server<Log> = Server::new(method_table! {
    "whoami" => whoami,
    "open" => open,
    "quiet" => quiet,
    "broken" => broken,
})
.with_fallback(dollar);

fn handle(input: &str, out_len: usize) -> (String, Log) {
    let mut log = Log::default();
    let mut out = vec![0u8; out_len];
    let reply = SERVER
        .handle(&mut log, input.as_bytes(), &mut out)
        .expect("room for an error reply");
    (String::from_utf8(reply.to_vec()).unwrap(), log)
}

#[test]
fn handlers_see_the_id() {
    let (reply, log) = handle(
        r#"{"jsonrpc":"2.0","method":"who\u0061mi","id":"x\u0031"}"#,
        256,
    );
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","result":"x\u0031","id":"x\u0031"}"#
    );
    assert_eq!(
        log.seen,
        [("whoami".to_owned(), Some(r#""x\u0031""#.to_owned()))]
    );
    let (reply, log) = handle(r#"{"jsonrpc":"2.0","method":"whoami"}"#, 256);
    assert_eq!(reply, "");
    assert_eq!(log.seen, [("whoami".to_owned(), None)]);
}

#[test]
fn the_fallback_serves_names_the_table_lacks() {
    let (reply, log) = handle(r#"{"jsonrpc":"2.0","method":"$/c\u0061ncel","id":7}"#, 256);
    assert_eq!(reply, r#"{"jsonrpc":"2.0","result":7,"id":7}"#);
    assert_eq!(log.seen, [("$/cancel".to_owned(), Some("7".to_owned()))]);
    // A notification to an unknown name reaches it too, and is never answered.
    let (reply, log) = handle(r#"{"jsonrpc":"2.0","method":"$/setTrace"}"#, 256);
    assert_eq!((reply.as_str(), log.seen.len()), ("", 1));
    let (reply, _) = handle(r#"{"jsonrpc":"2.0","method":"nope","id":1}"#, 256);
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}"#
    );
}

#[test]
fn errors_made_at_run_time() {
    let (reply, _) = handle(
        r#"{"jsonrpc":"2.0","method":"open","params":["a\"b\\c\u00e9",3],"id":1}"#,
        256,
    );
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"cannot open a\"b\\cé at 3","data":{"n":3}},"id":1}"#
    );
    let (reply, _) = handle(r#"{"jsonrpc":"2.0","method":"quiet","id":2}"#, 256);
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","error":{"code":-32002,"message":"12345"},"id":2}"#
    );
    let (reply, _) = handle(r#"{"jsonrpc":"2.0","method":"broken","id":3}"#, 256);
    assert!(reply.contains(r#""code":-32603"#), "{reply}");
    assert!(reply.ends_with(r#""id":3}"#), "{reply}");
    // As notifications, nothing.
    for m in ["open", "quiet", "broken"] {
        let (reply, _) = handle(
            &format!(r#"{{"jsonrpc":"2.0","method":"{m}","params":["p",1]}}"#),
            256,
        );
        assert_eq!(reply, "", "{m}");
    }
}

#[test]
fn run_time_errors_that_do_not_fit_become_internal_errors_with_the_same_id() {
    let long = "x".repeat(300);
    let input = format!(r#"{{"jsonrpc":"2.0","method":"open","params":["{long}",1],"id":"k"}}"#);
    let (reply, _) = handle(&input, 200);
    assert!(reply.contains(r#""code":-32603"#), "{reply}");
    assert!(reply.ends_with(r#""id":"k"}"#), "{reply}");
    // Every buffer size: a whole reply (the error, or -32603), never a cut one.
    let input = r#"{"jsonrpc":"2.0","method":"open","params":["abc",1],"id":1}"#;
    let full = handle(input, 256).0;
    let mut answered = false;
    for size in 0..=full.len() {
        let mut out = vec![0u8; size];
        match SERVER.handle(&mut Log::default(), input.as_bytes(), &mut out) {
            Ok(reply) => {
                let v: serde_json::Value = serde_json::from_slice(reply).unwrap();
                let code = v["error"]["code"].as_i64();
                assert!(code == Some(-32001) || code == Some(-32603), "{v}");
                assert_eq!(v["id"], 1);
                assert_eq!(code == Some(-32001), size == full.len(), "{size}");
                answered = true;
            }
            // Too small even for the -32603: only below the first size that fits it.
            Err(_) => assert!(!answered, "{size}"),
        }
    }
    assert!(answered);
}

#[test]
fn a_batch_keeps_each_calls_error() {
    let (reply, _) = handle(
        r#"[{"jsonrpc":"2.0","method":"open","params":["f",1],"id":1},{"jsonrpc":"2.0","method":"whoami","id":2},{"jsonrpc":"2.0","method":"quiet"}]"#,
        512,
    );
    assert_eq!(
        reply,
        r#"[{"jsonrpc":"2.0","error":{"code":-32001,"message":"cannot open f at 1","data":{"n":1}},"id":1},{"jsonrpc":"2.0","result":2,"id":2}]"#
    );
}

#[test]
fn no_allocation_for_run_time_errors_context_and_fallback() {
    counting::the_counter_works();
    let inputs: Vec<&[u8]> = vec![
        br#"{"jsonrpc":"2.0","method":"open","params":["a\"b",3],"id":1}"#,
        br#"{"jsonrpc":"2.0","method":"quiet","id":2}"#,
        br#"{"jsonrpc":"2.0","method":"broken","id":3}"#,
        br#"[{"jsonrpc":"2.0","method":"open","params":["f",1],"id":1},{"jsonrpc":"2.0","method":"quiet"}]"#,
    ];
    // A context that does not allocate: the table's `whoami` logs into a Vec, so the
    // fallback and context are checked through handlers that do not.
    let mut log = Log::default();
    let mut out = [0u8; 512];
    let mut lens = Vec::with_capacity(inputs.len());
    let ((), n) = counting::counting(|| {
        for input in &inputs {
            lens.push(SERVER.handle(&mut log, input, &mut out).map(<[u8]>::len));
        }
    });
    assert_eq!(n, 0, "{n} allocator calls");
    assert!(
        lens.iter().all(|l| matches!(l, Ok(n) if *n > 0)),
        "{lens:?}"
    );
}
