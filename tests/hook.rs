//! The hook around every call (`Server::with_hook`, `AsyncServer::with_hook`,
//! `ConcurrentServer::with_hook`): what it is told of each call, a refusal before the
//! handler runs, the outcome as the reply says it (result, error code, no reply), the
//! duration under `std`, and the same for the async dispatch and the concurrent
//! service; no allocation.

mod common;
#[path = "common/counting.rs"]
mod counting;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::task::{Context, Poll};
use std::time::Duration;

use common::req;
use counting::counting;
use jsonrpc_slice::dispatch::{CallHook, CallInfo, Outcome};
use jsonrpc_slice::{
    async_method_table, method_table, AsyncServer, Params, ResultWriter, RpcError, Server,
};

/// What the hook saw, on this thread (the tests run on several): a fixed log, so
/// that recording allocates nothing.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Seen {
    /// The method's first byte and its length: enough to tell the test's apart.
    method: (u8, usize),
    id: Option<i64>,
    outcome: Option<Outcome>,
}

thread_local! {
    static LOG: RefCell<[Option<Seen>; 16]> = const { RefCell::new([None; 16]) };
    static LEN: Cell<usize> = const { Cell::new(0) };
    static LAST_ELAPSED: Cell<Option<Duration>> = const { Cell::new(None) };
    /// How many handlers ran.
    static RAN: Cell<usize> = const { Cell::new(0) };
}

fn seen(call: &CallInfo<'_>, outcome: Option<Outcome>) -> Seen {
    let raw = call.method.as_raw();
    Seen {
        method: (raw.first().copied().unwrap_or(0), raw.len()),
        id: call.id.and_then(|id| id.as_raw().as_i64()),
        outcome,
    }
}

/// Refuses `secret`; logs every call before and after.
fn before(call: &CallInfo<'_>) -> Result<(), RpcError<'static>> {
    LOG.with(|log| log.borrow_mut()[LEN.get() % 16] = Some(seen(call, None)));
    LEN.set(LEN.get() + 1);
    match call.method.eq_str("secret") {
        true => Err(RpcError::new(-32001, "Forbidden")),
        false => Ok(()),
    }
}

fn after(call: &CallInfo<'_>, outcome: Outcome, elapsed: Option<Duration>) {
    LOG.with(|log| log.borrow_mut()[LEN.get() % 16] = Some(seen(call, Some(outcome))));
    LEN.set(LEN.get() + 1);
    LAST_ELAPSED.set(elapsed);
}

const HOOK: CallHook = CallHook { before, after };

/// The events logged since the last call, and the log emptied.
fn take() -> Vec<Seen> {
    let n = LEN.replace(0);
    LOG.with(|log| log.borrow().iter().take(n).flatten().copied().collect())
}

fn ok<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    RAN.set(RAN.get() + 1);
    Ok(out.str("ok")?)
}

fn fails<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    RAN.set(RAN.get() + 1);
    Err(RpcError::new(-32042, "no"))
}

/// A result of 200 bytes: too large for the small buffer below.
fn big<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    RAN.set(RAN.get() + 1);
    Ok(out.str(&"x".repeat(200))?)
}

fn secret<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    RAN.set(RAN.get() + 1);
    Ok(out.str("the secret")?)
}

/// An error written into the reply (`ResultWriter::error`), with data; returns `Ok`,
/// which the reply ignores.
fn wrote<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    RAN.set(RAN.get() + 1);
    let _ = out.error(-32077, "written")?;
    out.u64(1)?;
    Ok(())
}

static SERVER: Server<()> = Server::new(method_table! {
    "ok" => ok, "fails" => fails, "big" => big, "secret" => secret, "wrote" => wrote,
})
.with_hook(HOOK);

/// The two events of one call: told before, then how it ended.
fn events(method: &str, id: Option<i64>, outcome: Outcome) -> [Seen; 2] {
    let before = Seen {
        method: (method.as_bytes()[0], method.len()),
        id,
        outcome: None,
    };
    let after = Seen {
        outcome: Some(outcome),
        ..before
    };
    [before, after]
}

fn handle(msg: &str) -> String {
    let mut out = [0u8; 512];
    String::from_utf8(
        SERVER
            .handle(&mut (), msg.as_bytes(), &mut out)
            .unwrap()
            .to_vec(),
    )
    .unwrap()
}

#[test]
fn a_result_an_error_and_a_method_not_found_are_told_as_their_replies_say() {
    take();
    handle(&req("ok", None, Some("1")));
    assert_eq!(take(), events("ok", Some(1), Outcome::Result));
    handle(&req("fails", None, Some("2")));
    assert_eq!(take(), events("fails", Some(2), Outcome::Error(-32042)));
    assert_eq!(
        handle(&req("nope", None, Some("3"))),
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":3}"#
    );
    assert_eq!(take(), events("nope", Some(3), Outcome::Error(-32601)));
}

#[test]
fn an_error_the_handler_wrote_itself_is_told_with_its_code() {
    take();
    assert_eq!(
        handle(&req("wrote", None, Some("6"))),
        r#"{"jsonrpc":"2.0","error":{"code":-32077,"message":"written","data":1},"id":6}"#
    );
    assert_eq!(take(), events("wrote", Some(6), Outcome::Error(-32077)));
}

#[test]
fn a_notification_is_told_with_no_reply_whatever_its_handler_returned() {
    take();
    assert_eq!(handle(&req("fails", None, None)), "");
    assert_eq!(take(), events("fails", None, Outcome::NoReply));
    assert_eq!(handle(&req("nope", None, None)), "");
    assert_eq!(take(), events("nope", None, Outcome::NoReply));
}

#[test]
fn a_refused_call_gets_the_hooks_error_and_its_handler_does_not_run() {
    take();
    RAN.set(0);
    assert_eq!(
        handle(&req("secret", None, Some("4"))),
        r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Forbidden"},"id":4}"#
    );
    assert_eq!(take(), events("secret", Some(4), Outcome::Error(-32001)));
    // A refused notification: no reply, no handler.
    assert_eq!(handle(&req("secret", None, None)), "");
    assert_eq!(take(), events("secret", None, Outcome::NoReply));
    assert_eq!(RAN.get(), 0);
}

#[test]
fn a_reply_too_large_is_told_as_the_internal_error_that_replaced_it() {
    take();
    let mut out = [0u8; 128];
    let reply = SERVER
        .handle(&mut (), req("big", None, Some("5")).as_bytes(), &mut out)
        .unwrap();
    assert!(reply.starts_with(br#"{"jsonrpc":"2.0","error":{"code":-32603"#));
    assert_eq!(take(), events("big", Some(5), Outcome::Error(-32603)));
}

#[test]
fn each_call_of_a_batch_is_told_and_an_invalid_element_is_not_a_call() {
    take();
    let batch = format!(
        "[{},{},1,{}]",
        req("ok", None, Some("6")),
        req("secret", None, Some("7")),
        req("ok", None, None)
    );
    assert_eq!(
        handle(&batch),
        concat!(
            r#"[{"jsonrpc":"2.0","result":"ok","id":6},"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Forbidden"},"id":7},"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]"#
        )
    );
    let mut want = Vec::new();
    want.extend(events("ok", Some(6), Outcome::Result));
    want.extend(events("secret", Some(7), Outcome::Error(-32001)));
    want.extend(events("ok", None, Outcome::NoReply));
    assert_eq!(take(), want);
}

#[test]
fn the_duration_is_given_under_std() {
    LAST_ELAPSED.set(None);
    handle(&req("ok", None, Some("8")));
    assert!(LAST_ELAPSED.get().is_some());
}

#[test]
fn a_hooked_call_allocates_nothing() {
    let msgs: Vec<Vec<u8>> = ["ok", "fails", "nope", "secret"]
        .iter()
        .flat_map(|m| [req(m, None, Some("9")), req(m, None, None)])
        .map(String::into_bytes)
        .collect();
    let mut out = [0u8; 256];
    let ((), allocations) = counting(|| {
        for msg in &msgs {
            let _ = SERVER.handle(&mut (), msg, &mut out);
        }
    });
    assert_eq!(allocations, 0);
}

// --- the async dispatch: the same hook, the same replies ------------------------------

async fn ok_async<'p>(
    c: &mut (),
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Yield(false).await;
    ok(c, p, out)
}

async fn fails_async<'p>(
    c: &mut (),
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    fails(c, p, out)
}

async fn secret_async<'p>(
    c: &mut (),
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    secret(c, p, out)
}

async_method_table! { Methods<()> { "ok" => ok_async, "fails" => fails_async, "secret" => secret_async } }
static ASYNC: AsyncServer<(), Methods> = AsyncServer::new(Methods).with_hook(HOOK);

/// Pending once, then ready: each handler really awaits.
struct Yield(bool);
impl Future for Yield {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[test]
fn the_async_dispatch_tells_the_hook_as_the_sync_one_does() {
    let batch = format!(
        "[{},{},{},{}]",
        req("ok", None, Some("1")),
        req("fails", None, Some("2")),
        req("secret", None, Some("3")),
        req("nope", None, None)
    );
    for msg in [
        req("ok", None, Some("1")),
        req("fails", None, Some("2")),
        req("secret", None, Some("3")),
        req("secret", None, None),
        req("nope", None, Some("4")),
        batch,
    ] {
        take();
        let sync = handle(&msg);
        let sync_seen = take();
        let mut out = [0u8; 512];
        let reply =
            embassy_futures::block_on(ASYNC.handle(&mut (), msg.as_bytes(), &mut out)).unwrap();
        assert_eq!(std::str::from_utf8(reply).unwrap(), sync, "{msg}");
        assert_eq!(take(), sync_seen, "{msg}");
    }
}

// --- the concurrent service: its workers run the async dispatch ------------------------

#[test]
fn the_concurrent_service_tells_the_hook_of_each_call() {
    use jsonrpc_slice::frame::newline::LineAccumulator;
    use jsonrpc_slice::io::embedded_io::Half;
    use jsonrpc_slice::outbox::SharedOutbox;
    use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Slots};

    async fn ok<'p>(
        _: &mut Call<'_, ()>,
        _: Params<'p>,
        out: &mut ResultWriter<'_>,
    ) -> Result<(), RpcError<'p>> {
        Ok(out.str("ok")?)
    }
    async_method_table! { Concurrent<'c, Call<'c, ()>> { "ok" => ok, "secret" => ok } }
    static CONCURRENT: ConcurrentServer<Concurrent> =
        ConcurrentServer::new(Concurrent).with_hook(HOOK);

    take();
    let input = format!(
        "{}\n{}\n",
        req("ok", None, Some("1")),
        req("secret", None, Some("2"))
    );
    let slots = Slots::<2, 256, 256>::new();
    let outbox = SharedOutbox::<256>::new();
    let (mut framer, mut chunk, mut wire) = (LineAccumulator::<256>::new(), [0u8; 64], [0u8; 512]);
    let (mut reader, mut writer) = (Half(input.as_bytes()), Half(&mut wire[..]));
    let serve = CONCURRENT.serve(
        &(),
        &mut framer,
        &slots,
        &outbox,
        &mut chunk,
        &mut reader,
        &mut writer,
    );
    embassy_futures::block_on(serve).unwrap();
    let written = 512 - writer.0.len();
    let text = std::str::from_utf8(&wire[..written]).unwrap();
    assert!(
        text.contains(r#"{"jsonrpc":"2.0","result":"ok","id":1}"#),
        "{text}"
    );
    assert!(
        text.contains(r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Forbidden"},"id":2}"#),
        "{text}"
    );
    let mut seen = take();
    seen.sort_by_key(|s| (s.id, s.outcome.is_some()));
    let mut want = Vec::new();
    want.extend(events("ok", Some(1), Outcome::Result));
    want.extend(events("secret", Some(2), Outcome::Error(-32001)));
    assert_eq!(seen, want);
}
