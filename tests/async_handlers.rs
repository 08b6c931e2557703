//! Async handlers (`AsyncServer`, `async_method_table!`): the twin of the sync
//! dispatch. The same handlers, sync in a `Server` and awaited in an `AsyncServer`
//! (each await pending once first), give the same replies byte for byte on the spec
//! examples, messages shaped like the bench messages, edge cases, random batches and
//! every buffer size; and an async call allocates nothing (the counting allocator of
//! `tests/common/counting.rs`, with an executor that allocates nothing either).

mod common;
#[path = "common/counting.rs"]
mod counting;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use common::req;
use common::vectors::{bench_shapes, spec_examples};
use jsonrpc_slice::{
    async_method_table, method_table, AsyncServer, Limits, Params, ResultWriter, RpcError, Server,
};
use proptest::prelude::*;

#[derive(Default)]
struct Ctx {
    calls: u32,
}

fn subtract<'p>(
    c: &mut Ctx,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    c.calls += 1;
    let (a, b) = match (p.nth(0), p.nth(1)) {
        (Some(a), Some(b)) => (a, b),
        _ => (
            p.get("minuend").ok_or(RpcError::invalid_params())?,
            p.get("subtrahend").ok_or(RpcError::invalid_params())?,
        ),
    };
    let (a, b) = (a.as_i64(), b.as_i64());
    let v = a
        .zip(b)
        .map(|(a, b)| a.wrapping_sub(b))
        .ok_or(RpcError::invalid_params())?;
    Ok(out.i64(v)?)
}

fn echo<'p>(c: &mut Ctx, p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    c.calls += 1;
    match p.raw() {
        Some(raw) => Ok(out.raw(raw)?),
        None => Ok(()),
    }
}

/// `[n]`: a string of `n` x (to overflow replies).
fn big<'p>(c: &mut Ctx, p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    c.calls += 1;
    let n = p
        .nth(0)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())?;
    out.string_start()?;
    for _ in 0..n {
        out.string_push("x")?;
    }
    Ok(out.string_end()?)
}

/// An error made at run time, with data.
fn fail<'p>(c: &mut Ctx, p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    c.calls += 1;
    let e = out.error(-32000, format_args!("failed after {} calls", c.calls))?;
    if let Some(raw) = p.raw() {
        out.raw(raw)?;
    }
    Err(e)
}

/// A future that is pending once, then ready: every await below really suspends.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

macro_rules! awaited {
    ($($name:ident => $sync:ident),*) => {$(
        async fn $name<'p>(c: &mut Ctx, p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
            YieldOnce(false).await;
            $sync(c, p, out)
        }
    )*};
}

awaited!(a_subtract => subtract, a_echo => echo, a_big => big, a_fail => fail);

static SYNC: Server<Ctx> = Server::new(method_table! {
    "subtract" => subtract,
    "echo" => echo,
    "big" => big,
    "fail" => fail,
});

async_method_table! {
    /// The same four, awaited.
    Awaited<Ctx> {
        "subtract" => a_subtract,
        "echo" => a_echo,
        "big" => a_big,
        "fail" => a_fail,
    }
}

static ASYNC: AsyncServer<Ctx, Awaited> = AsyncServer::new(Awaited);

/// Polls to completion with a waker that does nothing (no allocation); returns the
/// output and how many times it was pending.
fn block_on<F: Future>(f: F) -> (F::Output, usize) {
    let mut f = std::pin::pin!(f);
    // The tests run on stable; the minimum Rust version is the library's.
    #[allow(clippy::incompatible_msrv)]
    let mut cx = Context::from_waker(Waker::noop());
    let mut pending = 0;
    loop {
        match f.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return (v, pending),
            Poll::Pending => pending += 1,
        }
    }
}

/// Both servers on one message and buffer size: the same bytes (or both too small),
/// the same calls made.
fn same(input: &[u8], out_len: usize) -> Result<(), String> {
    let (mut sync_ctx, mut async_ctx) = (Ctx::default(), Ctx::default());
    let mut sync_out = vec![0u8; out_len];
    let mut async_out = vec![0u8; out_len];
    let s = SYNC
        .handle(&mut sync_ctx, input, &mut sync_out)
        .map(<[u8]>::to_vec);
    let (a, _) = block_on(ASYNC.handle(&mut async_ctx, input, &mut async_out));
    let a = a.map(<[u8]>::to_vec);
    if s != a || sync_ctx.calls != async_ctx.calls {
        return Err(format!(
            "{}\n  sync:  {:?} ({} calls)\n  async: {:?} ({} calls)",
            String::from_utf8_lossy(input),
            s.map(|b| String::from_utf8_lossy(&b).into_owned()),
            sync_ctx.calls,
            a.map(|b| String::from_utf8_lossy(&b).into_owned()),
            async_ctx.calls
        ));
    }
    Ok(())
}

fn inputs() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = spec_examples().into_iter().map(|e| e.request).collect();
    v.extend(bench_shapes().into_iter().map(|(_, b)| b));
    for s in [
        req("big", Some("[300]"), Some("1")),
        req("fail", Some(r#"{"why":[1,"a\"b"]}"#), Some(r#""f""#)),
        req("fail", None, None),
        req("echo", Some(r#"["\u00e9\n",1.5e3]"#), Some("1.0")),
        req("nope", None, Some("7")),
        req("subtract", Some(r#"["a"]"#), Some("2")),
        format!(
            "[{},{},{},1,{}]",
            req("big", Some("[500]"), Some("1")),
            req("fail", None, None),
            req("subtract", Some("[9,4]"), Some("2")),
            req("echo", Some("{}"), Some("3"))
        ),
        "[".repeat(200),
        "{".to_owned(),
    ] {
        v.push(s.into_bytes());
    }
    v
}

#[test]
fn the_same_replies_as_the_sync_server_at_every_buffer_size() {
    let mut checked = 0;
    for input in inputs() {
        for out_len in (0..700).step_by(7).chain([4096]) {
            same(&input, out_len).unwrap();
            checked += 1;
        }
    }
    assert!(checked > 2000, "{checked}");
}

#[test]
fn a_handler_really_suspends() {
    let mut ctx = Ctx::default();
    let mut out = [0u8; 256];
    let input = req("subtract", Some("[42,23]"), Some("1"));
    let (reply, pending) = block_on(ASYNC.handle(&mut ctx, input.as_bytes(), &mut out));
    assert_eq!(reply.unwrap(), br#"{"jsonrpc":"2.0","result":19,"id":1}"#);
    assert_eq!(pending, 1);
}

#[test]
fn limits_apply_as_for_the_sync_server() {
    static SMALL: AsyncServer<Ctx, Awaited> =
        AsyncServer::new(Awaited).with_limits(Limits::DEFAULT.max_batch(2));
    let batch = format!(
        "[{},{},{}]",
        req("subtract", Some("[1,1]"), Some("1")),
        req("subtract", Some("[1,1]"), Some("2")),
        req("subtract", Some("[1,1]"), Some("3"))
    );
    let mut out = [0u8; 256];
    let (reply, _) = block_on(SMALL.handle(&mut Ctx::default(), batch.as_bytes(), &mut out));
    let reply = String::from_utf8(reply.unwrap().to_vec()).unwrap();
    assert!(reply.contains("-32600"), "{reply}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Random batches of the four methods, notifications, unknown names and junk, in
    /// random buffer sizes.
    #[test]
    fn random_batches_agree(
        elements in prop::collection::vec((0usize..7, 0u64..400, prop::bool::ANY), 1..12),
        out_len in 0usize..3000,
    ) {
        let items: Vec<String> = elements
            .iter()
            .enumerate()
            .map(|(i, &(kind, n, call))| {
                let id = call.then(|| i.to_string());
                let id = id.as_deref();
                match kind {
                    0 => req("subtract", Some(&format!("[{n},3]")), id),
                    1 => req("echo", Some(&format!("[{n},\"s\"]")), id),
                    2 => req("big", Some(&format!("[{n}]")), id),
                    3 => req("fail", Some(&format!("[{n}]")), id),
                    4 => req("nope", None, id),
                    5 => n.to_string(),
                    _ => r#"{"jsonrpc":"2.0"}"#.to_owned(),
                }
            })
            .collect();
        let input = format!("[{}]", items.join(","));
        prop_assert!(same(input.as_bytes(), out_len).is_ok(), "{}", same(input.as_bytes(), out_len).unwrap_err());
    }
}

#[test]
fn an_async_call_allocates_nothing() {
    counting::the_counter_works();
    let inputs = inputs();
    let mut ctx = Ctx::default();
    let mut out = [0u8; 4096];
    let mut lens = Vec::with_capacity(inputs.len());
    let ((), n) = counting::counting(|| {
        for input in &inputs {
            let (reply, _) = block_on(ASYNC.handle(&mut ctx, input, &mut out));
            lens.push(reply.map(<[u8]>::len));
        }
    });
    assert_eq!(n, 0, "{n} allocator calls");
    assert!(lens.iter().filter(|l| matches!(l, Ok(n) if *n > 0)).count() > 20);
}
