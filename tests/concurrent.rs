//! The concurrent service (`service::concurrent`): requests in flight at once,
//! cancellation, requests to the peer, events pushed with no input, and backpressure.
//!
//! Every test is deterministic: the loop runs on a step executor that polls it until
//! it stalls (pending, and nothing woke it), and the test then looks at what was
//! written, feeds more input or releases a handler that waits for its signal. No
//! sleep, no timing. Every run is under the counting allocator: zero allocations.

#[path = "common/counting.rs"]
mod counting;

use std::cell::{Cell, RefCell};
use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use counting::counting;
use jsonrpc_slice::envelope::Outcome;
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::Framer;
use jsonrpc_slice::outbox::{LentOutbox, SharedOutbox};
use jsonrpc_slice::service::concurrent::{
    Call, CancelReply, Cancellation, ConcurrentServer, LentSlots, PeerError, Read, Slots, Write,
};
use jsonrpc_slice::{
    async_method_table, method_table, Params, RawJson, ResultWriter, RpcError, Server,
};
use proptest::prelude::*;

// --- The application: handlers that wait for the test's signals. -----------------

struct App {
    /// `released[k]`: the test let the handlers waiting on token `k` go on.
    released: [Cell<bool>; 32],
    /// Handlers started (a request cancelled before it started never counts).
    started: Cell<u32>,
    /// The deadline of `ask` has passed.
    late: Cell<bool>,
}

impl App {
    fn new() -> Self {
        Self {
            released: std::array::from_fn(|_| Cell::new(false)),
            started: Cell::new(0),
            late: Cell::new(false),
        }
    }

    fn release(&self, token: u64) {
        self.released[token as usize].set(true);
    }

    async fn wait(&self, token: u64) {
        poll_fn(|_| match self.released.get(token as usize) {
            Some(r) if !r.get() => Poll::Pending,
            _ => Poll::Ready(()),
        })
        .await;
    }
}

type Ctx<'c> = Call<'c, App>;

async fn ping<'p>(
    _: &mut Ctx<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Ok(out.raw(RawJson::NULL)?)
}

/// `[token]`: waits for the token, then `"done"`.
async fn long<'p>(
    c: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let token = p
        .nth(0)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())?;
    c.state().started.set(c.state().started.get() + 1);
    c.state().wait(token).await;
    Ok(out.str("done")?)
}

/// `[token, value]`: waits for the token, notifies `n` with `[value]`, then returns
/// `2 * value`.
async fn work<'p>(
    c: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let token = p
        .nth(0)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())?;
    let value = p
        .nth(1)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())?;
    c.state().wait(token).await;
    c.notify("n", |w| {
        w.begin_array()?;
        w.u64(value)?;
        w.end()
    })
    .await?;
    Ok(out.u64(2 * value)?)
}

/// `[n, token]`: `n` progress notifications, each as its step ends, then waits for
/// the token, then `"counted"`.
async fn count<'p>(
    c: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let n = p
        .nth(0)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())?;
    let token = p
        .nth(1)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())?;
    for i in 1..=n {
        c.notify("progress", |w| {
            w.begin_array()?;
            w.u64(i)?;
            w.end()
        })
        .await?;
    }
    c.state().wait(token).await;
    Ok(out.str("counted")?)
}

/// Asks the peer (`peer/ask` with `[7]`) and answers with what it said: its result,
/// or minus its error code; `-32000` with the reason when there is no response.
async fn ask<'p>(
    c: &mut Ctx<'_>,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let app = c.state();
    let deadline = poll_fn(|_| {
        if app.late.get() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    });
    let params = |w: &mut ResultWriter<'_>| {
        w.begin_array()?;
        w.u64(7)?;
        w.end()
    };
    let answer = c
        .request("peer/ask", params, deadline, |outcome| match outcome {
            Outcome::Result(raw) => raw.as_i64(),
            Outcome::Error(e) => Some(-e.code),
        })
        .await;
    match answer {
        Ok(Some(v)) => Ok(out.i64(v)?),
        Ok(None) => Err(RpcError::internal()),
        Err(PeerError::TimedOut) => Err(RpcError::new(-32000, "timed out")),
        Err(PeerError::Lost) => Err(RpcError::new(-32000, "lost")),
        Err(_) => Err(RpcError::internal()),
    }
}

/// `[token]`: waits for the token or its cancellation, whichever comes first, and
/// says which (a handler that sees its cancellation).
async fn watch<'p>(
    c: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let token = p
        .nth(0)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())?;
    let app = c.state();
    let mut cancelled = pin!(c.cancelled());
    let mut released = pin!(app.wait(token));
    let first = poll_fn(|cx| {
        if let Poll::Ready(()) = released.as_mut().poll(cx) {
            return Poll::Ready("released");
        }
        cancelled.as_mut().poll(cx).map(|()| "cancelled")
    })
    .await;
    assert!(first == "released" || c.is_cancelled());
    Ok(out.str(first)?)
}

async_method_table! {
    Methods<'c, Call<'c, App>> {
        "ping" => ping,
        "long" => long,
        "work" => work,
        "count" => count,
        "ask" => ask,
        "watch" => watch,
    }
}

static PLAIN: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);
static MCP: ConcurrentServer<Methods> =
    ConcurrentServer::new(Methods).with_cancellation(Cancellation::MCP);
static LSP: ConcurrentServer<Methods> =
    ConcurrentServer::new(Methods).with_cancellation(Cancellation::LSP);

// --- The transport: a pipe the test fills, a sink it reads. ------------------------

struct Pipe {
    bytes: RefCell<Vec<u8>>,
    read: Cell<usize>,
    closed: Cell<bool>,
    /// The server's last read found nothing: it waits for input (a real transport
    /// would wake it when input comes).
    awaited: Cell<bool>,
}

impl Pipe {
    fn new() -> Self {
        Self {
            bytes: RefCell::new(Vec::with_capacity(1 << 16)),
            read: Cell::new(0),
            closed: Cell::new(false),
            awaited: Cell::new(false),
        }
    }

    fn send(&self, message: &[u8]) {
        let mut bytes = self.bytes.borrow_mut();
        assert!(
            bytes.len() + message.len() < bytes.capacity(),
            "no allocation in the run"
        );
        bytes.extend_from_slice(message);
        bytes.push(b'\n');
    }

    /// Bytes sent and not read by the server yet.
    fn unread(&self) -> usize {
        self.bytes.borrow().len() - self.read.get()
    }
}

impl Read for &Pipe {
    type Error = ();
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
        poll_fn(|_| {
            let bytes = self.bytes.borrow();
            let at = self.read.get();
            let n = (bytes.len() - at).min(buf.len());
            if n > 0 {
                self.awaited.set(false);
                buf[..n].copy_from_slice(&bytes[at..at + n]);
                self.read.set(at + n);
                return Poll::Ready(Ok(n));
            }
            if self.closed.get() {
                return Poll::Ready(Ok(0));
            }
            self.awaited.set(true);
            Poll::Pending
        })
        .await
    }
}

/// What the server wrote: only what it flushed counts as sent (`bytes`).
struct Sink {
    bytes: RefCell<Vec<u8>>,
    /// Written and not flushed yet.
    unflushed: RefCell<Vec<u8>>,
    flushes: Cell<usize>,
    writes: Cell<usize>,
}

impl Sink {
    fn new() -> Self {
        Self {
            bytes: RefCell::new(Vec::with_capacity(1 << 16)),
            unflushed: RefCell::new(Vec::with_capacity(1 << 16)),
            flushes: Cell::new(0),
            writes: Cell::new(0),
        }
    }

    /// `true` if a line of the output is `line`.
    fn has(&self, line: &[u8]) -> bool {
        self.bytes
            .borrow()
            .split(|&b| b == b'\n')
            .any(|l| l == line)
    }

    /// Where line `line` is in the output (its index among the lines).
    fn position(&self, line: &[u8]) -> Option<usize> {
        self.bytes
            .borrow()
            .split(|&b| b == b'\n')
            .position(|l| l == line)
    }

    fn lines(&self) -> usize {
        self.bytes.borrow().iter().filter(|&&b| b == b'\n').count()
    }
}

impl Write for &Sink {
    type Error = ();
    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let mut out = self.unflushed.borrow_mut();
        assert!(
            out.len() + bytes.len() <= out.capacity(),
            "no allocation in the run"
        );
        out.extend_from_slice(bytes);
        self.writes.set(self.writes.get() + 1);
        Ok(())
    }
    async fn flush(&mut self) -> Result<(), ()> {
        let mut out = self.bytes.borrow_mut();
        let mut unflushed = self.unflushed.borrow_mut();
        assert!(
            out.len() + unflushed.len() <= out.capacity(),
            "no allocation in the run"
        );
        out.extend_from_slice(&unflushed);
        unflushed.clear();
        self.flushes.set(self.flushes.get() + 1);
        Ok(())
    }
}

/// A sink whose every flush waits once (pending, its task woken at once), as a
/// transport that finishes a write on another thread does (tokio's stdout).
struct SlowFlush<'a>(&'a Sink);

impl Write for SlowFlush<'_> {
    type Error = ();
    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), ()> {
        (&mut &*self.0).write_all(bytes).await
    }
    async fn flush(&mut self) -> Result<(), ()> {
        let mut waited = false;
        poll_fn(|cx| {
            if waited {
                return Poll::Ready(());
            }
            waited = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        })
        .await;
        (&mut &*self.0).flush().await
    }
}

// --- The step executor. ------------------------------------------------------------

struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

struct Executor {
    flag: Arc<Flag>,
    waker: Waker,
}

impl Executor {
    fn new() -> Self {
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let waker = Waker::from(flag.clone());
        Self { flag, waker }
    }

    /// Polls `fut` until it is done, or pending with nothing that woke it.
    fn stall<F: Future>(&self, mut fut: Pin<&mut F>) -> Option<F::Output> {
        let mut cx = Context::from_waker(&self.waker);
        for _ in 0..100_000 {
            self.flag.0.store(false, Ordering::SeqCst);
            if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                return Some(v);
            }
            if !self.flag.0.load(Ordering::SeqCst) {
                return None;
            }
        }
        panic!("the loop keeps waking itself");
    }
}

/// One serve loop over a pipe and a sink, with `N` slots.
macro_rules! rig {
    ($server:expr, $n:literal, |$app:ident, $input:ident, $output:ident, $run:ident| $body:block) => {{
        let $app = App::new();
        let $input = Pipe::new();
        let $output = Sink::new();
        let slots = Slots::<$n, 512, 512>::new();
        let outbox = SharedOutbox::<1024>::new();
        let mut framer = LineAccumulator::<512>::new();
        let mut chunk = [0u8; 256];
        let exec = Executor::new();
        let ((), allocations) = counting(|| {
            let (mut r, mut w) = (&$input, &$output);
            let serve = $server.serve(
                &$app,
                &mut framer,
                &slots,
                &outbox,
                &mut chunk,
                &mut r,
                &mut w,
            );
            let mut serve = pin!(serve);
            let mut $run = || exec.stall(serve.as_mut());
            $body
        });
        assert_eq!(allocations, 0, "the loop allocated");
    }};
}

// --- The tests. --------------------------------------------------------------------

fn ping_during_a_long_handler<const N: usize>(server: &ConcurrentServer<Methods>) {
    let app = App::new();
    let input = Pipe::new();
    let output = Sink::new();
    let slots = Slots::<N, 512, 512>::new();
    let outbox = SharedOutbox::<1024>::new();
    let mut framer = LineAccumulator::<512>::new();
    let mut chunk = [0u8; 256];
    let exec = Executor::new();
    let ((), allocations) = counting(|| {
        let (mut r, mut w) = (&input, &output);
        let serve = server.serve(
            &app,
            &mut framer,
            &slots,
            &outbox,
            &mut chunk,
            &mut r,
            &mut w,
        );
        long_then_ping(&exec, &app, &input, &output, serve);
    });
    assert_eq!(allocations, 0);
}

/// A long request then a ping: the ping is answered first, the long one once the
/// test lets it go, and the loop ends with the input.
fn long_then_ping<E: std::fmt::Debug + PartialEq>(
    exec: &Executor,
    app: &App,
    input: &Pipe,
    output: &Sink,
    serve: impl Future<Output = Result<(), E>>,
) {
    let mut serve = pin!(serve);
    input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":1}"#);
    input.send(br#"{"jsonrpc":"2.0","method":"ping","id":2}"#);
    assert!(exec.stall(serve.as_mut()).is_none());
    // The ping is answered while the long handler still waits.
    assert!(output.has(br#"{"jsonrpc":"2.0","result":null,"id":2}"#));
    assert_eq!(output.lines(), 1);
    // Only now is the long handler let go.
    app.release(1);
    assert!(exec.stall(serve.as_mut()).is_none());
    assert_eq!(
        output.position(br#"{"jsonrpc":"2.0","result":"done","id":1}"#),
        Some(1)
    );
    input.closed.set(true);
    assert_eq!(exec.stall(serve.as_mut()), Some(Ok(())));
}

#[test]
fn a_flush_that_waits_loses_no_wake() {
    // The parts that found the transport busy while a flush waited are woken when it
    // is free again: each reply is sent and flushed, with no further input.
    for n in [1, 2, 8] {
        let app = App::new();
        let (input, output) = (Pipe::new(), Sink::new());
        let slots2 = Slots::<2, 512, 512>::new();
        let outbox = SharedOutbox::<1024>::new();
        let mut framer = LineAccumulator::<512>::new();
        let mut chunk = [0u8; 256];
        let exec = Executor::new();
        {
            let (mut r, mut w) = (&input, SlowFlush(&output));
            let serve = PLAIN.serve(
                &app,
                &mut framer,
                &slots2,
                &outbox,
                &mut chunk,
                &mut r,
                &mut w,
            );
            let mut serve = pin!(serve);
            for id in 0..n {
                let ping = format!(r#"{{"jsonrpc":"2.0","method":"ping","id":{id}}}"#);
                input.send(ping.as_bytes());
                assert!(exec.stall(serve.as_mut()).is_none());
                let reply = format!(r#"{{"jsonrpc":"2.0","result":null,"id":{id}}}"#);
                assert!(
                    output.has(reply.as_bytes()),
                    "ping {id} of {n} not answered"
                );
                // Stalled in a read: the next input wakes it (not stuck behind a
                // flush nobody wakes it from).
                assert!(input.awaited.get(), "after ping {id} of {n}: not reading");
            }
            input.closed.set(true);
            assert_eq!(exec.stall(serve.as_mut()), Some(Ok(())));
        }
        let slots8 = Slots::<8, 512, 512>::new();
        let (input, output) = (Pipe::new(), Sink::new());
        let (mut r, mut w) = (&input, SlowFlush(&output));
        let serve = PLAIN.serve(
            &app,
            &mut framer,
            &slots8,
            &outbox,
            &mut chunk,
            &mut r,
            &mut w,
        );
        long_then_ping(&exec, &app, &input, &output, serve);
    }
}

#[test]
fn the_loop_runs_the_same_over_lent_memory() {
    // The slots and the outbox over memory lent once (here a `Vec`, made before the
    // count), as a server with buffers too large to build as one value does.
    let mut memory = vec![0u8; LentSlots::<2>::bytes(512, 512)];
    let mut queue = vec![0u8; 1024];
    assert!(LentSlots::<2>::new(&mut memory[1..], 512, 512).is_none());
    let slots = LentSlots::<2>::new(&mut memory, 512, 512).unwrap();
    let outbox = LentOutbox::new(&mut queue);
    let app = App::new();
    let (input, output) = (Pipe::new(), Sink::new());
    let mut framer = LineAccumulator::<512>::new();
    let mut chunk = [0u8; 256];
    let exec = Executor::new();
    let ((), allocations) = counting(|| {
        let (mut r, mut w) = (&input, &output);
        let serve = PLAIN.serve(
            &app,
            &mut framer,
            &slots,
            &outbox,
            &mut chunk,
            &mut r,
            &mut w,
        );
        long_then_ping(&exec, &app, &input, &output, serve);
    });
    assert_eq!(allocations, 0);
    // A frame longer than a lent frame buffer gets the same -32600 as one longer than
    // an inline buffer would.
    let (input, output) = (Pipe::new(), Sink::new());
    let slots = LentSlots::<1>::new(&mut memory, 64, 512).unwrap();
    let (mut r, mut w) = (&input, &output);
    let serve = PLAIN.serve(
        &app,
        &mut framer,
        &slots,
        &outbox,
        &mut chunk,
        &mut r,
        &mut w,
    );
    let mut serve = pin!(serve);
    let long = format!(
        r#"{{"jsonrpc":"2.0","method":"ping","params":["{}"],"id":7}}"#,
        "x".repeat(64)
    );
    input.send(long.as_bytes());
    input.send(br#"{"jsonrpc":"2.0","method":"ping","id":8}"#);
    input.closed.set(true);
    assert_eq!(exec.stall(serve.as_mut()), Some(Ok(())));
    assert_eq!(output.lines(), 2);
    assert!(output.has(br#"{"jsonrpc":"2.0","result":null,"id":8}"#));
    let text = String::from_utf8(output.bytes.borrow().clone()).unwrap();
    assert!(text.contains(r#""code":-32600"#), "{text}");
}

#[test]
fn a_ping_is_answered_while_a_long_handler_runs() {
    ping_during_a_long_handler::<2>(&PLAIN);
    ping_during_a_long_handler::<8>(&PLAIN);
}

#[test]
fn replies_go_out_as_handlers_complete_and_the_loop_ends_with_the_input() {
    rig!(PLAIN, 4, |app, input, output, run| {
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":1}"#);
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[2],"id":2}"#);
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[3],"id":3}"#);
        assert!(run().is_none());
        assert_eq!(app.started.get(), 3);
        for token in [3, 1, 2] {
            app.release(token);
            assert!(run().is_none());
        }
        assert_eq!(
            output.position(br#"{"jsonrpc":"2.0","result":"done","id":3}"#),
            Some(0)
        );
        assert_eq!(
            output.position(br#"{"jsonrpc":"2.0","result":"done","id":1}"#),
            Some(1)
        );
        assert_eq!(
            output.position(br#"{"jsonrpc":"2.0","result":"done","id":2}"#),
            Some(2)
        );
        // A handler still waits: the end of the input does not end the loop.
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[4],"id":4}"#);
        input.closed.set(true);
        assert!(run().is_none());
        app.release(4);
        assert_eq!(run(), Some(Ok(())));
        assert_eq!(output.lines(), 4);
    });
}

#[test]
fn progress_goes_out_as_each_step_ends_and_before_the_reply() {
    rig!(PLAIN, 2, |app, input, output, run| {
        input.send(br#"{"jsonrpc":"2.0","method":"count","params":[2,1],"id":"c"}"#);
        assert!(run().is_none());
        // Both notifications are out while the handler still waits.
        assert_eq!(
            output.position(br#"{"jsonrpc":"2.0","method":"progress","params":[1]}"#),
            Some(0)
        );
        assert_eq!(
            output.position(br#"{"jsonrpc":"2.0","method":"progress","params":[2]}"#),
            Some(1)
        );
        assert_eq!(output.lines(), 2);
        app.release(1);
        input.closed.set(true);
        assert_eq!(run(), Some(Ok(())));
        assert_eq!(
            output.position(br#"{"jsonrpc":"2.0","result":"counted","id":"c"}"#),
            Some(2)
        );
    });
}

#[test]
fn mcp_cancellation_stops_a_running_handler_and_sends_no_reply() {
    rig!(MCP, 2, |app, input, output, run| {
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":1}"#);
        assert!(run().is_none());
        assert_eq!(app.started.get(), 1);
        input.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}"#);
        input.send(br#"{"jsonrpc":"2.0","method":"ping","id":2}"#);
        assert!(run().is_none());
        assert_eq!(output.lines(), 1);
        assert!(output.has(br#"{"jsonrpc":"2.0","result":null,"id":2}"#));
        // The dropped handler never answers, even once its signal comes.
        app.release(1);
        input.closed.set(true);
        assert_eq!(run(), Some(Ok(())));
        assert_eq!(output.lines(), 1);
    });
}

#[test]
fn lsp_cancellation_answers_32800_and_a_handler_sees_it() {
    rig!(LSP, 2, |app, input, output, run| {
        input.send(br#"{"jsonrpc":"2.0","method":"watch","params":[1],"id":"w"}"#);
        assert!(run().is_none());
        input.send(br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"w"}}"#);
        assert!(run().is_none());
        assert!(output.has(
            br#"{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":"w"}"#
        ));
        assert_eq!(output.lines(), 1);
        let _ = &app;
        input.closed.set(true);
        assert_eq!(run(), Some(Ok(())));
    });
}

#[test]
fn a_request_cancelled_before_it_started_is_not_run() {
    for (server, reply) in [
        (&MCP, None),
        (&LSP, Some(&br#"{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":2}"#[..])),
    ] {
        let cancel: &[u8] = if std::ptr::eq(server, &MCP) {
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#
        } else {
            br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}"#
        };
        rig!(server, 1, |app, input, output, run| {
            // One slot: 1 runs, 2 waits for the slot, then 2 is cancelled.
            input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":1}"#);
            input.send(br#"{"jsonrpc":"2.0","method":"long","params":[2],"id":2}"#);
            input.send(cancel);
            assert!(run().is_none());
            assert_eq!(app.started.get(), 1);
            app.release(1);
            app.release(2);
            input.closed.set(true);
            assert_eq!(run(), Some(Ok(())));
            assert_eq!(app.started.get(), 1, "the cancelled request never ran");
            assert!(output.has(br#"{"jsonrpc":"2.0","result":"done","id":1}"#));
            match reply {
                Some(reply) => {
                    assert!(output.has(reply));
                    assert_eq!(output.lines(), 2);
                }
                None => assert_eq!(output.lines(), 1),
            }
        });
    }
}

#[test]
fn unknown_late_and_repeated_cancellations_are_ignored() {
    // Both policies: MCP answers a cancelled call with nothing, LSP with -32800.
    for server in [&MCP, &LSP] {
        let mcp = std::ptr::eq(server, &MCP);
        let cancel = |id: &str| match mcp {
            true => format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
            ),
            false => {
                format!(r#"{{"jsonrpc":"2.0","method":"$/cancelRequest","params":{{"id":{id}}}}}"#)
            }
        };
        let (unknown, finished, other_type, running) =
            (cancel("99"), cancel("2"), cancel(r#""1""#), cancel("3"));
        rig!(server, 2, |app, input, output, run| {
            input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":1}"#);
            input.send(br#"{"jsonrpc":"2.0","method":"ping","id":2}"#);
            assert!(run().is_none());
            // Unknown id; the id of a call answered already; an id of another type.
            input.send(unknown.as_bytes());
            input.send(finished.as_bytes());
            input.send(other_type.as_bytes());
            input.send(br#"{"jsonrpc":"2.0","method":"long","params":[3],"id":3}"#);
            assert!(run().is_none());
            assert_eq!(output.lines(), 1);
            // Call 1 was not cancelled: it answers once let go.
            app.release(1);
            assert!(run().is_none());
            assert!(output.has(br#"{"jsonrpc":"2.0","result":"done","id":1}"#));
            // Twice for the running call 3: it is dropped once, answered at most once.
            input.send(running.as_bytes());
            input.send(running.as_bytes());
            assert!(run().is_none());
            app.release(3);
            input.closed.set(true);
            assert_eq!(run(), Some(Ok(())));
            assert!(!output.has(br#"{"jsonrpc":"2.0","result":"done","id":3}"#));
            let cancelled =
                br#"{"jsonrpc":"2.0","error":{"code":-32800,"message":"Request cancelled"},"id":3}"#;
            assert_eq!(output.has(cancelled), !mcp);
            assert_eq!(output.lines(), if mcp { 2 } else { 3 });
        });
    }
}

#[test]
fn backpressure_holds_one_waiting_request_and_still_reads_a_cancellation() {
    rig!(MCP, 1, |app, input, output, run| {
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":1}"#);
        assert!(run().is_none());
        // 2 waits for the slot; the cancellation behind it is still read and applied.
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[2],"id":2}"#);
        input.send(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        );
        assert!(run().is_none());
        assert_eq!(input.unread(), 0);
        // 1 was dropped; 2 took its slot.
        assert_eq!(app.started.get(), 2);
        // 3 waits, 4 is held: reading stops, so the cancellation of 2 behind them is
        // not read while 2 runs (and comes too late once it is read).
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[3],"id":3}"#);
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[4],"id":4}"#);
        input.send(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        );
        input.send(br#"{"jsonrpc":"2.0","method":"ping","id":5}"#);
        assert!(run().is_none());
        assert_eq!(output.lines(), 0);
        for token in 2..=4 {
            app.release(token);
            assert!(run().is_none());
        }
        assert_eq!(app.started.get(), 4);
        input.closed.set(true);
        assert_eq!(run(), Some(Ok(())));
        assert!(output.has(br#"{"jsonrpc":"2.0","result":"done","id":2}"#));
        assert!(output.has(br#"{"jsonrpc":"2.0","result":"done","id":3}"#));
        assert!(output.has(br#"{"jsonrpc":"2.0","result":"done","id":4}"#));
        assert!(output.has(br#"{"jsonrpc":"2.0","result":null,"id":5}"#));
        assert_eq!(output.lines(), 4);
    });
}

/// Backpressure with `N` slots (MCP cancellation): `N` long calls fill the slots, one
/// more waits and a cancellation behind it is still applied; then one waits, one is
/// held, and reading stops until a slot frees: nothing is dropped.
fn backpressure_at<const N: usize>() {
    let app = App::new();
    let input = Pipe::new();
    let output = Sink::new();
    let slots = Slots::<N, 512, 512>::new();
    let outbox = SharedOutbox::<1024>::new();
    let mut framer = LineAccumulator::<512>::new();
    let mut chunk = [0u8; 256];
    let exec = Executor::new();
    let long =
        |id: usize| format!(r#"{{"jsonrpc":"2.0","method":"long","params":[{id}],"id":{id}}}"#);
    let cancel = |id: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        )
    };
    let script: Vec<Vec<String>> = vec![
        (1..=N).map(long).collect(),
        vec![long(N + 1), cancel(1)],
        vec![long(N + 2), long(N + 3), cancel(N + 1)],
    ];
    let done = |id: usize| format!(r#"{{"jsonrpc":"2.0","result":"done","id":{id}}}"#);
    let late = done(N + 1);
    let ((), allocations) = counting(|| {
        let (mut r, mut w) = (&input, &output);
        let mut serve = pin!(MCP.serve(
            &app,
            &mut framer,
            &slots,
            &outbox,
            &mut chunk,
            &mut r,
            &mut w
        ));
        let mut run = || exec.stall(serve.as_mut());
        for m in &script[0] {
            input.send(m.as_bytes());
        }
        assert!(run().is_none());
        assert_eq!(app.started.get() as usize, N, "every slot runs a call");
        // N + 1 waits for a slot; the cancellation behind it is read and applied.
        for m in &script[1] {
            input.send(m.as_bytes());
        }
        assert!(run().is_none());
        assert_eq!(input.unread(), 0);
        assert_eq!(
            app.started.get() as usize,
            N + 1,
            "1 dropped, N + 1 in its slot"
        );
        // N + 2 waits, N + 3 is held: reading stops, so the cancellation of N + 1
        // behind them is not read while N + 1 runs.
        for m in &script[2] {
            input.send(m.as_bytes());
        }
        input.send(br#"{"jsonrpc":"2.0","method":"ping","id":"p"}"#);
        assert!(run().is_none());
        assert_eq!(
            app.started.get() as usize,
            N + 1,
            "the waiting and the held do not run"
        );
        assert_eq!(output.lines(), 0);
        // N + 1 ends first, so the cancellation comes too late once it is read.
        app.release(N as u64 + 1);
        assert!(run().is_none());
        assert!(output.has(late.as_bytes()), "N + 1 was not cancelled");
        for token in (2..=N + 3).filter(|&t| t != N + 1) {
            app.release(token as u64);
            assert!(run().is_none());
        }
        input.closed.set(true);
        assert_eq!(run(), Some(Ok(())));
    });
    assert_eq!(allocations, 0);
    // Every call but the cancelled one answered, the ping too: nothing dropped.
    for id in 2..=N + 3 {
        assert!(output.has(done(id).as_bytes()), "{id} answered");
    }
    assert!(output.has(br#"{"jsonrpc":"2.0","result":null,"id":"p"}"#));
    assert!(!output.has(done(1).as_bytes()));
    assert_eq!(output.lines(), N + 3);
}

#[test]
fn backpressure_holds_one_waiting_request_at_any_n() {
    backpressure_at::<2>();
    backpressure_at::<4>();
}

#[test]
fn a_handler_awaits_the_peer_while_other_calls_are_answered() {
    rig!(PLAIN, 2, |app, input, output, run| {
        input.send(br#"{"jsonrpc":"2.0","method":"ask","id":1}"#);
        assert!(run().is_none());
        assert!(output.has(br#"{"jsonrpc":"2.0","method":"peer/ask","params":[7],"id":1}"#));
        input.send(br#"{"jsonrpc":"2.0","method":"ping","id":2}"#);
        assert!(run().is_none());
        assert!(output.has(br#"{"jsonrpc":"2.0","result":null,"id":2}"#));
        // The peer answers the server's request 1: the handler answers the client's.
        input.send(br#"{"jsonrpc":"2.0","result":42,"id":1}"#);
        assert!(run().is_none());
        assert!(output.has(br#"{"jsonrpc":"2.0","result":42,"id":1}"#));
        // An error response; then one that never comes before the deadline, and is
        // dropped when it comes late; then the peer leaves.
        input.send(br#"{"jsonrpc":"2.0","method":"ask","id":3}"#);
        assert!(run().is_none());
        input.send(br#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"no"},"id":2}"#);
        assert!(run().is_none());
        assert!(output.has(br#"{"jsonrpc":"2.0","result":32601,"id":3}"#));
        input.send(br#"{"jsonrpc":"2.0","method":"ask","id":4}"#);
        assert!(run().is_none());
        app.late.set(true);
        assert!(run().is_none());
        assert!(output
            .has(br#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"timed out"},"id":4}"#));
        app.late.set(false);
        input.send(br#"{"jsonrpc":"2.0","result":5,"id":3}"#);
        input.send(br#"{"jsonrpc":"2.0","method":"ask","id":5}"#);
        input.closed.set(true);
        assert_eq!(run(), Some(Ok(())));
        assert!(output.has(br#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"lost"},"id":5}"#));
        // The late response was answered by nothing.
        let lines = output.lines();
        assert_eq!(lines, 4 + 5, "4 requests to the peer, 5 replies");
    });
}

/// `serve_from`: the requests to the peer numbered from where it says, a response
/// routed by that id; with `None`, a handler's request fails at once and the peer is
/// sent nothing.
#[test]
fn serve_from_numbers_the_requests_to_the_peer_or_sends_none() {
    for first in [Some(5 << 20), None] {
        let app = App::new();
        let input = Pipe::new();
        let output = Sink::new();
        let slots = Slots::<2, 512, 512>::new();
        let outbox = SharedOutbox::<1024>::new();
        let mut framer = LineAccumulator::<512>::new();
        let mut chunk = [0u8; 256];
        let exec = Executor::new();
        let ((), allocations) = counting(|| {
            let (mut r, mut w) = (&input, &output);
            let serve = PLAIN.serve_from(
                first,
                &app,
                &mut framer,
                &slots,
                &outbox,
                &mut chunk,
                &mut r,
                &mut w,
            );
            let mut serve = pin!(serve);
            let mut run = || exec.stall(serve.as_mut());
            input.send(br#"{"jsonrpc":"2.0","method":"ask","id":1}"#);
            assert!(run().is_none());
            match first {
                Some(_) => {
                    let asked =
                        br#"{"jsonrpc":"2.0","method":"peer/ask","params":[7],"id":5242880}"#;
                    assert!(output.has(asked));
                    // A response to the id of the default numbering is no one's.
                    input.send(br#"{"jsonrpc":"2.0","result":1,"id":1}"#);
                    input.send(br#"{"jsonrpc":"2.0","result":42,"id":5242880}"#);
                    assert!(run().is_none());
                    assert!(output.has(br#"{"jsonrpc":"2.0","result":42,"id":1}"#));
                    assert_eq!(output.lines(), 2);
                }
                None => {
                    assert!(output.has(
                        br#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"lost"},"id":1}"#
                    ));
                    assert_eq!(output.lines(), 1, "nothing sent to the peer");
                }
            }
            input.closed.set(true);
            assert_eq!(run(), Some(Ok(())));
        });
        assert_eq!(allocations, 0, "the loop allocated");
    }
}

#[test]
fn an_event_is_pushed_with_no_input() {
    let app = App::new();
    let input = Pipe::new();
    let output = Sink::new();
    let slots = Slots::<2, 512, 512>::new();
    let outbox = SharedOutbox::<1024>::new();
    let mut framer = LineAccumulator::<512>::new();
    let mut chunk = [0u8; 256];
    let exec = Executor::new();
    let button = Cell::new(false);
    let ((), allocations) = counting(|| {
        let (mut r, mut w) = (&input, &output);
        let serve = PLAIN.serve(
            &app,
            &mut framer,
            &slots,
            &outbox,
            &mut chunk,
            &mut r,
            &mut w,
        );
        // The application: whenever the button is pressed, an event.
        let events = async {
            loop {
                poll_fn(|_| {
                    if button.replace(false) {
                        Poll::Ready(())
                    } else {
                        Poll::Pending
                    }
                })
                .await;
                outbox
                    .notify("button", |w| {
                        w.begin_array()?;
                        w.str("pressed")?;
                        w.end()
                    })
                    .await
                    .unwrap();
            }
        };
        let mut both = pin!(embassy_join(serve, events));
        assert!(exec.stall(both.as_mut()).is_none());
        assert_eq!(output.lines(), 0);
        button.set(true);
        assert!(exec.stall(both.as_mut()).is_none());
        assert!(output.has(br#"{"jsonrpc":"2.0","method":"button","params":["pressed"]}"#));
        button.set(true);
        assert!(exec.stall(both.as_mut()).is_none());
        assert_eq!(output.lines(), 2);
        assert_eq!(input.unread(), 0);
    });
    assert_eq!(allocations, 0);
}

/// Polls both futures until the first one ends.
async fn embassy_join<A: Future, B: Future>(a: A, b: B) -> A::Output {
    let mut a = pin!(a);
    let mut b = pin!(b);
    poll_fn(|cx| {
        let _ = b.as_mut().poll(cx);
        a.as_mut().poll(cx)
    })
    .await
}

// --- Random completion orders against a sequential oracle. -------------------------

fn w_sync<'p>(_: &mut (), p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    let value = p
        .nth(1)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())?;
    Ok(out.u64(2 * value)?)
}

static ORACLE: Server<()> = Server::new(method_table! { "work" => w_sync });

/// A message of the script: a call of `work` with (token, value, id), or a batch of
/// them, or a notification of `work`.
#[derive(Clone, Debug)]
enum Item {
    Call(u64),
    Notification(u64),
    Batch(Vec<(u64, bool)>),
}

fn items() -> impl Strategy<Value = Vec<Item>> {
    let item = prop_oneof![
        4 => (0u64..1000).prop_map(Item::Call),
        1 => (0u64..1000).prop_map(Item::Notification),
        1 => prop::collection::vec((0u64..1000, any::<bool>()), 1..4).prop_map(Item::Batch),
    ];
    prop::collection::vec(item, 1..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_completion_orders_give_the_sequential_replies(items in items(), order in any::<u64>(), n in 1usize..4) {
        check_random_order(&items, order, n);
    }
}

fn check_random_order(items: &[Item], seed: u64, n: usize) {
    // Messages: each call waits on its own token (its index + 1).
    let mut messages = Vec::new();
    let mut expect: Vec<(Vec<u8>, Option<String>)> = Vec::new();
    let mut next_id = 1;
    for (i, item) in items.iter().enumerate() {
        let token = i as u64 + 1;
        // Values unique to the message: its notifications and reply name it alone.
        let item = &match item {
            Item::Call(v) => Item::Call(token * 1000 + v),
            Item::Notification(v) => Item::Notification(token * 1000 + v),
            Item::Batch(calls) => {
                Item::Batch(calls.iter().map(|&(v, n)| (token * 1000 + v, n)).collect())
            }
        };
        let msg = match item {
            Item::Call(v) => {
                next_id += 1;
                format!(
                    r#"{{"jsonrpc":"2.0","method":"work","params":[{token},{v}],"id":{next_id}}}"#
                )
            }
            Item::Notification(v) => {
                format!(r#"{{"jsonrpc":"2.0","method":"work","params":[{token},{v}]}}"#)
            }
            Item::Batch(calls) => {
                let parts: Vec<String> = calls
                    .iter()
                    .map(|(v, notify)| match notify {
                        true => format!(r#"{{"jsonrpc":"2.0","method":"work","params":[{token},{v}]}}"#),
                        false => {
                            next_id += 1;
                            format!(r#"{{"jsonrpc":"2.0","method":"work","params":[{token},{v}],"id":{next_id}}}"#)
                        }
                    })
                    .collect();
                format!("[{}]", parts.join(","))
            }
        };
        let mut out = [0u8; 512];
        let reply = ORACLE
            .handle(&mut (), msg.as_bytes(), &mut out)
            .unwrap()
            .to_vec();
        let note = match item {
            Item::Call(v) => Some(format!(
                r#"{{"jsonrpc":"2.0","method":"n","params":[{v}]}}"#
            )),
            _ => None,
        };
        expect.push((reply, note));
        messages.push(msg);
    }
    // Release the tokens in an order the seed picks.
    let mut order: Vec<u64> = (1..=items.len() as u64).collect();
    let mut s = seed | 1;
    for i in (1..order.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        order.swap(i, (s % (i as u64 + 1)) as usize);
    }

    let app = App::new();
    let input = Pipe::new();
    let output = Sink::new();
    let outbox = SharedOutbox::<4096>::new();
    let mut framer = LineAccumulator::<512>::new();
    let mut chunk = [0u8; 64];
    let exec = Executor::new();
    macro_rules! run_with {
        ($n:literal) => {{
            let slots = Slots::<$n, 512, 512>::new();
            let ((), allocations) = counting(|| {
                let (mut r, mut w) = (&input, &output);
                let mut serve = pin!(PLAIN.serve(
                    &app,
                    &mut framer,
                    &slots,
                    &outbox,
                    &mut chunk,
                    &mut r,
                    &mut w
                ));
                for m in &messages {
                    input.send(m.as_bytes());
                }
                input.closed.set(true);
                assert!(exec.stall(serve.as_mut()).is_none());
                let mut done = None;
                for &token in &order {
                    app.release(token);
                    done = exec.stall(serve.as_mut());
                }
                assert_eq!(done, Some(Ok(())), "the loop ends once all is answered");
            });
            assert_eq!(allocations, 0);
        }};
    }
    match n {
        1 => run_with!(1),
        2 => run_with!(2),
        _ => run_with!(3),
    }

    // Every expected reply exactly once; every notification before its call's reply.
    let out = output.bytes.borrow();
    let lines: Vec<&[u8]> = out
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut replies = 0;
    for (reply, _) in &expect {
        if reply.is_empty() {
            continue;
        }
        replies += 1;
        let at: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| **l == &reply[..])
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            at.len(),
            1,
            "reply {} once in {:?}",
            String::from_utf8_lossy(reply),
            String::from_utf8_lossy(&out)
        );
    }
    let notifications = lines
        .iter()
        .filter(|l| l.starts_with(br#"{"jsonrpc":"2.0","method":"n""#))
        .count();
    let calls: usize = items
        .iter()
        .map(|i| match i {
            Item::Batch(c) => c.len(),
            _ => 1,
        })
        .sum();
    assert_eq!(notifications, calls, "one notification per call run");
    assert_eq!(
        lines.len(),
        replies + notifications,
        "nothing else, nothing twice"
    );
    // A single call's notification precedes its reply.
    for (reply, note) in &expect {
        if let Some(note) = note {
            let note_at = lines.iter().position(|l| *l == note.as_bytes());
            let reply_at = lines.iter().position(|l| *l == &reply[..]);
            assert!(
                note_at.unwrap() < reply_at.unwrap(),
                "notification before reply"
            );
        }
    }
}

#[test]
fn pipelined_replies_share_a_flush_made_once_nothing_more_is_ready() {
    let app = App::new();
    let input = Pipe::new();
    let output = Sink::new();
    let slots = Slots::<2, 512, 512>::new();
    let outbox = SharedOutbox::<1024>::new();
    let mut framer = LineAccumulator::<512>::new();
    // All ten calls come in one read.
    let mut chunk = [0u8; 1024];
    let exec = Executor::new();
    let ((), allocations) = counting(|| {
        let (mut r, mut w) = (&input, &output);
        let mut serve = pin!(PLAIN.serve(
            &app,
            &mut framer,
            &slots,
            &outbox,
            &mut chunk,
            &mut r,
            &mut w
        ));
        for id in b'0'..=b'9' {
            let mut call = *br#"{"jsonrpc":"2.0","method":"ping","id":0}"#;
            call[call.len() - 2] = id;
            input.send(&call);
        }
        assert!(exec.stall(serve.as_mut()).is_none());
        assert_eq!(output.lines(), 10);
        assert_eq!(output.flushes.get(), 1, "one flush for the ten replies");
        // A reply made while the read waits is flushed at once.
        input.send(br#"{"jsonrpc":"2.0","method":"ping","id":10}"#);
        assert!(exec.stall(serve.as_mut()).is_none());
        assert_eq!((output.lines(), output.flushes.get()), (11, 2));
        input.closed.set(true);
        assert_eq!(exec.stall(serve.as_mut()), Some(Ok(())));
        assert_eq!(output.flushes.get(), 2, "nothing left to flush at the end");
    });
    assert_eq!(allocations, 0);
}

/// Serves `input` (as it is, no line break added) at N = 1 with reply buffers of
/// `REPLY` bytes, cut by `framer`: what was written, and in how many writes.
fn serve_raw<const REPLY: usize, F: Framer>(mut framer: F, input: &[u8]) -> (Vec<u8>, usize) {
    let app = App::new();
    let pipe = Pipe::new();
    pipe.bytes.borrow_mut().extend_from_slice(input);
    pipe.closed.set(true);
    let output = Sink::new();
    let slots = Slots::<1, 512, REPLY>::new();
    let outbox = SharedOutbox::<1024>::new();
    let mut chunk = [0u8; 256];
    let exec = Executor::new();
    let ((), allocations) = counting(|| {
        let (mut r, mut w) = (&pipe, &output);
        let serve = pin!(PLAIN.serve(
            &app,
            &mut framer,
            &slots,
            &outbox,
            &mut chunk,
            &mut r,
            &mut w
        ));
        assert_eq!(exec.stall(serve), Some(Ok(())));
    });
    assert_eq!(allocations, 0);
    let written = output.bytes.borrow().clone();
    (written, output.writes.get())
}

#[test]
fn a_reply_goes_out_the_same_in_one_write_or_in_pieces() {
    // A reply with room for its line break after it in the reply buffer goes out in
    // one write; without, as every other framing's: the reply, then the trailer.
    let reply = br#"{"jsonrpc":"2.0","result":null,"id":2}"#;
    assert_eq!(reply.len(), 38);
    let call = br#"{"jsonrpc":"2.0","method":"ping","id":2}"#;
    let mut lines = Vec::new();
    let mut want = Vec::new();
    for _ in 0..3 {
        lines.extend_from_slice(call);
        lines.push(b'\n');
        want.extend_from_slice(reply);
        want.push(b'\n');
    }
    let newline = || LineAccumulator::<512>::new();
    assert_eq!(serve_raw::<38, _>(newline(), &lines), (want.clone(), 6));
    assert_eq!(serve_raw::<39, _>(newline(), &lines), (want.clone(), 3));
    assert_eq!(serve_raw::<512, _>(newline(), &lines), (want, 3));
    // A framing with a header: header, reply, each a write, whatever the room.
    let mut framed = format!("Content-Length: {}\r\n\r\n", call.len()).into_bytes();
    framed.extend_from_slice(call);
    let mut want = b"Content-Length: 38\r\n\r\n".to_vec();
    want.extend_from_slice(reply);
    let content_length = ContentLengthAccumulator::<512>::new();
    assert_eq!(serve_raw::<512, _>(content_length, &framed), (want, 2));
}

/// A writer that lets through `writes` more writes, then waits (a peer that stopped
/// reading), over a sink.
struct Gate {
    writes: Cell<usize>,
    sink: Sink,
}

impl Write for &Gate {
    type Error = ();
    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), ()> {
        poll_fn(|_| match self.writes.get() {
            0 => Poll::Pending,
            n => {
                self.writes.set(n - 1);
                Poll::Ready(())
            }
        })
        .await;
        (&self.sink).write_all(bytes).await
    }
    async fn flush(&mut self) -> Result<(), ()> {
        (&self.sink).flush().await
    }
}

#[test]
fn reading_goes_on_while_a_write_waits_for_the_peer() {
    let app = App::new();
    let input = Pipe::new();
    let gate = Gate {
        writes: Cell::new(2),
        sink: Sink::new(),
    };
    let slots = Slots::<2, 512, 512>::new();
    let outbox = SharedOutbox::<1024>::new();
    let mut framer = LineAccumulator::<512>::new();
    let mut chunk = [0u8; 256];
    let exec = Executor::new();
    let ((), allocations) = counting(|| {
        let (mut r, mut w) = (&input, &gate);
        let mut serve = pin!(PLAIN.serve(
            &app,
            &mut framer,
            &slots,
            &outbox,
            &mut chunk,
            &mut r,
            &mut w
        ));
        // The first reply is written (two writes: it, its newline), not flushed; the
        // second one's write waits.
        input.send(br#"{"jsonrpc":"2.0","method":"ping","id":1}"#);
        input.send(br#"{"jsonrpc":"2.0","method":"ping","id":2}"#);
        assert!(exec.stall(serve.as_mut()).is_none());
        // Reading goes on meanwhile: a call sent now is read and started.
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":3}"#);
        assert!(exec.stall(serve.as_mut()).is_none());
        assert_eq!(input.unread(), 0);
        assert_eq!(app.started.get(), 1);
        // The peer reads again: everything goes out.
        gate.writes.set(usize::MAX);
        app.release(1);
        input.closed.set(true);
        assert_eq!(exec.stall(serve.as_mut()), Some(Ok(())));
        assert_eq!(gate.sink.lines(), 3);
        assert!(gate
            .sink
            .has(br#"{"jsonrpc":"2.0","result":"done","id":3}"#));
    });
    assert_eq!(allocations, 0);
}

/// Cancels a running `long` call with `cancellation` (a free worker reads it at
/// `N` = 2, the reader at `N` = 1, its slot busy): the call is dropped, unanswered.
macro_rules! cancelled_by {
    ($n:literal, $cancellation:expr) => {
        rig!(MCP, $n, |app, input, output, run| {
            input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":1}"#);
            assert!(run().is_none());
            input.send($cancellation);
            input.send(br#"{"jsonrpc":"2.0","method":"ping","id":2}"#);
            assert!(run().is_none());
            app.release(1);
            input.closed.set(true);
            assert_eq!(run(), Some(Ok(())));
            assert_eq!(app.started.get(), 1);
            assert_eq!(output.lines(), 1, "only the ping is answered");
            assert!(output.has(br#"{"jsonrpc":"2.0","result":null,"id":2}"#));
        })
    };
}

#[test]
fn a_cancellation_is_seen_however_it_is_written() {
    let forms: [&[u8]; 4] = [
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        br#"{"jsonrpc":"2.0","method":"notifications\/cancelled","params":{"requestId":1}}"#,
        br#"{"method":"notifications/cancelled","params":{"reason":"x","requestId":1},"jsonrpc":"2.0"}"#,
        br#"{ "jsonrpc" : "2.0" , "method" : "notifications/cancelled" , "params" : { "requestId" : 1 } }"#,
    ];
    for form in forms {
        cancelled_by!(1, form);
        cancelled_by!(2, form);
    }
}

#[test]
fn a_custom_cancellation_and_no_cancellation() {
    static OWN: ConcurrentServer<Methods> =
        ConcurrentServer::new(Methods).with_cancellation(Cancellation::new(
            "stop",
            "call",
            CancelReply::Error {
                code: -1,
                message: "stopped",
            },
        ));
    rig!(OWN, 2, |app, input, output, run| {
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":[1]}"#);
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[2],"id":"x"}"#);
        input.send(br#"{"jsonrpc":"2.0","method":"stop","params":{"call":"x"}}"#);
        assert!(run().is_none());
        // The invalid id is answered -32600 with a null id; "x" is stopped.
        assert_eq!(output.lines(), 2);
        let out = output.bytes.borrow();
        let first = out.split(|&b| b == b'\n').next().unwrap();
        assert!(first.starts_with(br#"{"jsonrpc":"2.0","error":{"code":-32600,"#));
        assert!(first.ends_with(br#""id":null}"#));
        drop(out);
        assert!(
            output.has(br#"{"jsonrpc":"2.0","error":{"code":-1,"message":"stopped"},"id":"x"}"#)
        );
        let _ = &app;
        input.closed.set(true);
        assert_eq!(run(), Some(Ok(())));
    });
    // Without a cancellation, the notification goes to the table like any other
    // (here: a method it lacks, so nothing).
    rig!(PLAIN, 2, |app, input, output, run| {
        input.send(br#"{"jsonrpc":"2.0","method":"long","params":[1],"id":1}"#);
        input.send(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        );
        assert!(run().is_none());
        app.release(1);
        input.closed.set(true);
        assert_eq!(run(), Some(Ok(())));
        assert!(output.has(br#"{"jsonrpc":"2.0","result":"done","id":1}"#));
        assert_eq!(output.lines(), 1);
    });
}

#[cfg(feature = "embedded-io-async")]
#[test]
fn over_embedded_io_async_halves() {
    use jsonrpc_slice::io::embedded_io::Half;
    let app = App::new();
    let slots = Slots::<2, 512, 512>::new();
    let outbox = SharedOutbox::<256>::new();
    let mut framer = LineAccumulator::<512>::new();
    let mut chunk = [0u8; 64];
    let input = b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":2}";
    let mut wire = [0u8; 128];
    let (mut r, mut w) = (Half(&input[..]), Half(&mut wire[..]));
    let serve = PLAIN.serve(
        &app,
        &mut framer,
        &slots,
        &outbox,
        &mut chunk,
        &mut r,
        &mut w,
    );
    let exec = Executor::new();
    assert_eq!(exec.stall(pin!(serve)), Some(Ok(())));
    let left = w.0.len();
    assert_eq!(
        &wire[..128 - left],
        b"{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":1}\n{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":2}\n"
    );
}

#[cfg(feature = "tokio")]
#[test]
fn over_tokio_streams() {
    use jsonrpc_slice::io::tokio::Io;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // (the loop ends at the end of its input; the halves stay open until dropped)
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, server) = tokio::io::duplex(1024);
        let (server_r, server_w) = tokio::io::split(server);
        let (mut client_r, mut client_w) = tokio::io::split(client);
        let app = App::new();
        let slots = Slots::<2, 512, 512>::new();
        let outbox = SharedOutbox::<256>::new();
        let mut framer = LineAccumulator::<512>::new();
        let mut chunk = [0u8; 256];
        let (mut r, mut w) = (Io(server_r), Io(server_w));
        let serve = PLAIN.serve(&app, &mut framer, &slots, &outbox, &mut chunk, &mut r, &mut w);
        let client = async {
            client_w
                .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"long\",\"params\":[1],\"id\":1}\n{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":2}\n")
                .await
                .unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 256];
            while !got.ends_with(b"\n") {
                let n = client_r.read(&mut buf).await.unwrap();
                got.extend_from_slice(&buf[..n]);
            }
            assert_eq!(got, b"{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":2}\n");
            app.release(1);
            // The handler is let go; tokio wakes the loop when input comes, so send
            // a second ping to be polled again, then close.
            client_w.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":3}\n").await.unwrap();
            client_w.shutdown().await.unwrap();
            // The server's write half lives on past the loop: read the two replies.
            while got.iter().filter(|&&b| b == b'\n').count() < 3 {
                let n = client_r.read(&mut buf).await.unwrap();
                assert!(n > 0);
                got.extend_from_slice(&buf[..n]);
            }
            got
        };
        let (served, got) = tokio::join!(serve, client);
        assert!(served.is_ok());
        let text = String::from_utf8(got).unwrap();
        assert!(text.contains("{\"jsonrpc\":\"2.0\",\"result\":\"done\",\"id\":1}\n"), "{text}");
        assert!(text.contains("{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":3}\n"), "{text}");
    });
}

#[test]
fn memory_is_the_slots_buffers_and_a_little() {
    use std::mem::size_of;
    // A slot is its frame buffer, its reply buffer, and a few words of state.
    let one = size_of::<Slots<1, 512, 512>>();
    let eight = size_of::<Slots<8, 512, 512>>();
    let per_slot = (eight - one) / 7;
    assert_eq!((eight - one) % 7, 0);
    assert!(
        (1024..=1024 + 96).contains(&per_slot),
        "{per_slot} bytes a slot"
    );
    // Beside the slots: the waiting and the held frame buffers.
    assert!(one - per_slot >= 2 * 512 && one - per_slot <= 2 * 512 + 32);
    // The loop's future holds N workers, each with its handler's future in place.
    let app = App::new();
    let outbox = SharedOutbox::<256>::new();
    let mut framer = LineAccumulator::<512>::new();
    let mut chunk = [0u8; 64];
    let (input, output) = (Pipe::new(), Sink::new());
    let (mut r, mut w) = (&input, &output);
    let s1 = Slots::<1, 512, 512>::new();
    let f1 = std::mem::size_of_val(&PLAIN.serve(
        &app,
        &mut framer,
        &s1,
        &outbox,
        &mut chunk,
        &mut r,
        &mut w,
    ));
    let s8 = Slots::<8, 512, 512>::new();
    let f8 = std::mem::size_of_val(&PLAIN.serve(
        &app,
        &mut framer,
        &s8,
        &outbox,
        &mut chunk,
        &mut r,
        &mut w,
    ));
    println!("Slots: {per_slot} bytes a slot (512 + 512 buffers), {} fixed; future: {f1} bytes at N = 1, {f8} at N = 8 ({} a worker)", one - per_slot, (f8 - f1) / 7);
    assert!(f8 > f1);
    // Lent: a slot is two borrowed slices beside its buffers.
    let lent_one = size_of::<LentSlots<'static, 1>>();
    let lent_per_slot = (size_of::<LentSlots<'static, 8>>() - lent_one) / 7;
    assert!(lent_per_slot <= 2 * 32, "{lent_per_slot} bytes a lent slot");
    println!(
        "LentSlots: {lent_per_slot} bytes a slot beside its buffers, {} fixed",
        lent_one - lent_per_slot
    );
}

#[cfg(feature = "serde")]
mod typed_async {
    //! The typed adapter in an async handler of the concurrent service: decoded, an
    //! await, then a result that borrows a local buffer; a mismatch is the -32602 that
    //! names the field. No allocation.
    use super::*;
    use jsonrpc_slice::serde::typed_params;

    #[derive(serde::Deserialize)]
    struct Greet<'a> {
        name: &'a str,
        times: u8,
    }

    async fn greet<'p>(
        c: &mut Call<'_, ()>,
        p: Params<'p>,
        out: &mut ResultWriter<'_>,
    ) -> Result<(), RpcError<'p>> {
        let args: Greet<'_> = typed_params(p, out)?;
        c.notify("greeting", |w| w.begin_array().and_then(|()| w.end()))
            .await?;
        // A result that borrows the handler's own buffer.
        let mut buf = [0u8; 64];
        let mut len = 0;
        for _ in 0..args.times {
            for &b in args.name.as_bytes() {
                if let Some(slot) = buf.get_mut(len) {
                    *slot = b;
                    len += 1;
                }
            }
        }
        let text: &str = std::str::from_utf8(&buf[..len]).map_err(|_| RpcError::internal())?;
        Ok(out.serialize(&text)?)
    }

    async_method_table! { Typed<'c, Call<'c, ()>> { "greet" => greet } }
    static TYPED: ConcurrentServer<Typed> = ConcurrentServer::new(Typed);

    #[test]
    fn typed_params_in_an_async_handler() {
        let input = Pipe::new();
        let output = Sink::new();
        let slots = Slots::<2, 512, 512>::new();
        let outbox = SharedOutbox::<256>::new();
        let mut framer = LineAccumulator::<512>::new();
        let mut chunk = [0u8; 256];
        let exec = Executor::new();
        let ((), allocations) = counting(|| {
            let (mut r, mut w) = (&input, &output);
            let mut serve = pin!(TYPED.serve(
                &(),
                &mut framer,
                &slots,
                &outbox,
                &mut chunk,
                &mut r,
                &mut w
            ));
            input.send(
                br#"{"jsonrpc":"2.0","method":"greet","params":{"name":"ab","times":3},"id":1}"#,
            );
            input.send(
                br#"{"jsonrpc":"2.0","method":"greet","params":{"name":"ab","times":"3"},"id":2}"#,
            );
            input.closed.set(true);
            assert_eq!(exec.stall(serve.as_mut()), Some(Ok(())));
        });
        assert_eq!(allocations, 0);
        assert!(output.has(br#"{"jsonrpc":"2.0","method":"greeting","params":[]}"#));
        assert!(output.has(br#"{"jsonrpc":"2.0","result":"ababab","id":1}"#));
        assert!(output.has(
            br#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: field `times`: expected an integer","data":"times"},"id":2}"#
        ));
        assert_eq!(output.lines(), 3);
    }
}
