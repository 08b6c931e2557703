//! The serve loop (`service::Service`) and its transports: messages the server sends
//! on its own (queued by handlers and by the application), responses from the peer,
//! the stop condition, the end of input; over `std::io` and both `embedded-io`
//! versions, one object or a reader and a writer, blocking and async. The counting
//! allocator (`tests/common/counting.rs`) checks the loop allocates nothing.

#[path = "common/counting.rs"]
mod counting;

use std::cell::RefCell;
use std::io::{Cursor, Read, Write};
use std::rc::Rc;

use jsonrpc_slice::client::{Pending, RequestId, Resolution};
use jsonrpc_slice::envelope::Response;
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::io::std as std_io;
use jsonrpc_slice::io::Split;
use jsonrpc_slice::outbox::Outbox;
use jsonrpc_slice::service::{Answers, Service};
use jsonrpc_slice::{method_table, Params, ResultWriter, RpcError, Server};

struct Ctx {
    outbox: Outbox<1024>,
    pending: Pending<&'static str, 4>,
    answered: Vec<(&'static str, String)>,
    exit: bool,
}

impl Ctx {
    fn new() -> Self {
        Self {
            outbox: Outbox::new(),
            pending: Pending::new(),
            answered: Vec::new(),
            exit: false,
        }
    }
}

/// The `n` of `[n]`, the params of the countdowns and of `steps`.
fn count_of(p: Params<'_>) -> Result<u64, RpcError<'static>> {
    p.nth(0)
        .and_then(|v| v.as_u64())
        .ok_or(RpcError::invalid_params())
}

/// `[n]`: `n` progress notifications, then the result `"done"`.
fn countdown<'p>(
    ctx: &mut Ctx,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let n = count_of(p)?;
    for i in 1..=n {
        ctx.outbox.notify("$/progress", |w| {
            w.begin_object()?;
            w.key("progress")?;
            w.u64(i)?;
            w.end()
        })?;
    }
    Ok(out.str("done")?)
}

/// A notification that makes the server ask the client something.
fn opened<'p>(ctx: &mut Ctx, _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ctx.pending
        .insert(RequestId::Number(100), "config")
        .map_err(|_| RpcError::internal())?;
    ctx.outbox.request(
        RequestId::Number(100),
        "workspace/configuration",
        |_| Ok(()),
    )?;
    Ok(())
}

fn exit<'p>(ctx: &mut Ctx, _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ctx.exit = true;
    Ok(())
}

fn responses(ctx: &mut Ctx, r: Response<'_>) {
    if let Resolution::Matched(tag) = ctx.pending.resolve(r.id) {
        ctx.answered.push((tag, format!("{:?}", r.outcome)));
    }
}

static SERVER: Server<Ctx> = Server::new(method_table! {
    "countdown" => countdown,
    "opened" => opened,
    "exit" => exit,
});

/// Runs the std loop over `input` (one object: a cursor that reads the input and
/// writes after it), newline framing.
fn run_lines(ctx: &mut Ctx, input: &str) -> Vec<String> {
    let mut framer = LineAccumulator::<1024>::new();
    let (mut chunk, mut out) = ([0u8; 16], [0u8; 1024]);
    let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut out)
        .with_outbox(|c: &mut Ctx| &mut c.outbox)
        .with_responses(responses)
        .until(|c: &Ctx| c.exit);
    let mut wire = Vec::new();
    std_io::serve(&mut service, ctx, &mut Split(input.as_bytes(), &mut wire)).unwrap();
    String::from_utf8(wire)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_handlers_messages_come_before_its_reply() {
    let lines = run_lines(
        &mut Ctx::new(),
        "{\"jsonrpc\":\"2.0\",\"method\":\"countdown\",\"params\":[2],\"id\":1}\n\
         {\"jsonrpc\":\"2.0\",\"method\":\"countdown\",\"params\":[0],\"id\":2}\n",
    );
    assert_eq!(
        lines,
        [
            r#"{"jsonrpc":"2.0","method":"$/progress","params":{"progress":1}}"#,
            r#"{"jsonrpc":"2.0","method":"$/progress","params":{"progress":2}}"#,
            r#"{"jsonrpc":"2.0","result":"done","id":1}"#,
            r#"{"jsonrpc":"2.0","result":"done","id":2}"#,
        ]
    );
}

#[test]
fn a_notifications_messages_are_sent_and_responses_reach_the_hook() {
    let mut ctx = Ctx::new();
    let lines = run_lines(
        &mut ctx,
        "{\"jsonrpc\":\"2.0\",\"method\":\"opened\"}\n\
         {\"jsonrpc\":\"2.0\",\"result\":[{\"tabSize\":4}],\"id\":100}\n\
         {\"jsonrpc\":\"2.0\",\"result\":1,\"id\":55}\n",
    );
    // The request went out; the responses were not answered (not even the unknown one).
    assert_eq!(
        lines,
        [r#"{"jsonrpc":"2.0","method":"workspace/configuration","id":100}"#]
    );
    assert_eq!(ctx.answered.len(), 1);
    assert_eq!(ctx.answered[0].0, "config");
    assert!(ctx.answered[0].1.contains("tabSize"), "{:?}", ctx.answered);
}

#[test]
fn the_loop_stops_when_told_and_serves_a_last_line_without_newline() {
    let mut ctx = Ctx::new();
    let lines = run_lines(
        &mut ctx,
        "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"countdown\",\"params\":[1],\"id\":1}\n",
    );
    assert!(ctx.exit);
    assert!(lines.is_empty(), "{lines:?}");
    let lines = run_lines(
        &mut Ctx::new(),
        "{\"jsonrpc\":\"2.0\",\"method\":\"countdown\",\"params\":[0],\"id\":9}",
    );
    assert_eq!(lines, [r#"{"jsonrpc":"2.0","result":"done","id":9}"#]);
}

#[test]
fn the_application_sends_between_requests() {
    let mut framer = ContentLengthAccumulator::<1024>::new();
    let (mut chunk, mut out) = ([0u8; 64], [0u8; 1024]);
    let mut ctx = Ctx::new();
    let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut out)
        .with_outbox(|c: &mut Ctx| &mut c.outbox);
    // Nothing read yet: the application queues an event, the loop sends it.
    ctx.outbox.notify("button", |_| Ok(())).unwrap();
    let mut wire = Vec::new();
    while let Some(m) = service.next(&mut ctx) {
        m.pieces().for_each(|p| wire.extend_from_slice(p));
    }
    let body = br#"{"jsonrpc":"2.0","method":"button"}"#;
    let mut want = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    want.extend_from_slice(body);
    assert_eq!(wire, want);
    assert!(ctx.outbox.is_empty());
    assert!(service.next(&mut ctx).is_none());
    assert!(!service.is_done());
}

/// A `std::io` object that reads its input and keeps what is written.
struct Duplex {
    input: Cursor<Vec<u8>>,
    output: Vec<u8>,
}

impl Read for Duplex {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.input.read(buf)
    }
}

impl Write for Duplex {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.output.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const CALL: &str = "{\"jsonrpc\":\"2.0\",\"method\":\"countdown\",\"params\":[1],\"id\":1}\n";
const WANT: &str = "{\"jsonrpc\":\"2.0\",\"method\":\"$/progress\",\"params\":{\"progress\":1}}\n{\"jsonrpc\":\"2.0\",\"result\":\"done\",\"id\":1}\n";

macro_rules! service {
    ($framer:ident, $chunk:ident, $out:ident) => {
        Service::new(&SERVER, &mut $framer, &mut $chunk, &mut $out)
            .with_outbox(|c: &mut Ctx| &mut c.outbox)
    };
}

#[test]
fn std_io_one_object() {
    let (mut framer, mut chunk, mut out) = (LineAccumulator::<256>::new(), [0u8; 7], [0u8; 256]);
    let mut service = service!(framer, chunk, out);
    let mut io = Duplex {
        input: Cursor::new(CALL.as_bytes().to_vec()),
        output: Vec::new(),
    };
    std_io::serve(&mut service, &mut Ctx::new(), &mut io).unwrap();
    assert_eq!(String::from_utf8(io.output).unwrap(), WANT);
}

/// `embedded-io` (either version): one object over a byte slice and a buffer.
struct Wire<'a> {
    input: &'a [u8],
    output: Vec<u8>,
}

impl embedded_io::ErrorType for Wire<'_> {
    type Error = core::convert::Infallible;
}
impl embedded_io::Read for Wire<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let n = buf.len().min(self.input.len()).min(5);
        buf[..n].copy_from_slice(&self.input[..n]);
        self.input = &self.input[n..];
        Ok(n)
    }
}
impl embedded_io::Write for Wire<'_> {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        self.output.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
impl embedded_io_07::ErrorType for Wire<'_> {
    type Error = core::convert::Infallible;
}
impl embedded_io_07::Read for Wire<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        embedded_io::Read::read(self, buf)
    }
}
impl embedded_io_07::Write for Wire<'_> {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        embedded_io::Write::write(self, buf)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[test]
fn embedded_io_06_and_07_blocking() {
    let (mut framer, mut chunk, mut out) = (LineAccumulator::<256>::new(), [0u8; 16], [0u8; 256]);
    let mut service = service!(framer, chunk, out);
    let mut wire = Wire {
        input: CALL.as_bytes(),
        output: Vec::new(),
    };
    jsonrpc_slice::io::embedded_io::serve(&mut service, &mut Ctx::new(), &mut wire).unwrap();
    assert_eq!(String::from_utf8(wire.output).unwrap(), WANT);

    let (mut framer, mut chunk, mut out) = (LineAccumulator::<256>::new(), [0u8; 16], [0u8; 256]);
    let mut service = service!(framer, chunk, out);
    let mut wire = Wire {
        input: CALL.as_bytes(),
        output: Vec::new(),
    };
    jsonrpc_slice::io::embedded_io_07::serve(&mut service, &mut Ctx::new(), &mut wire).unwrap();
    assert_eq!(String::from_utf8(wire.output).unwrap(), WANT);

    // A reader and a writer: `&[u8]` reads and `&mut [u8]` writes in both versions.
    for version in [6, 7] {
        let (mut framer, mut chunk, mut out) =
            (LineAccumulator::<256>::new(), [0u8; 16], [0u8; 256]);
        let mut service = service!(framer, chunk, out);
        let mut reader = CALL.as_bytes();
        let mut buf = [0u8; 256];
        let mut writer: &mut [u8] = &mut buf;
        match version {
            6 => jsonrpc_slice::io::embedded_io::serve(
                &mut service,
                &mut Ctx::new(),
                &mut Split(&mut reader, &mut writer),
            )
            .unwrap(),
            _ => jsonrpc_slice::io::embedded_io_07::serve(
                &mut service,
                &mut Ctx::new(),
                &mut Split(&mut reader, &mut writer),
            )
            .unwrap(),
        }
        let left = writer.len();
        assert_eq!(&buf[..256 - left], WANT.as_bytes(), "0.{version}");
    }
}

/// Polls a future to completion with a waker that does nothing: enough for futures
/// that never wait (the async transports here are ready at once). No allocation.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    // The tests run on stable; the minimum Rust version is the library's.
    #[allow(clippy::incompatible_msrv)]
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[test]
fn embedded_io_async_06_and_07() {
    for version in [6, 7] {
        let (mut framer, mut chunk, mut out) =
            (LineAccumulator::<256>::new(), [0u8; 16], [0u8; 256]);
        let mut service = service!(framer, chunk, out);
        let mut reader = CALL.as_bytes();
        let mut buf = [0u8; 256];
        let mut writer: &mut [u8] = &mut buf;
        let mut ctx = Ctx::new();
        match version {
            6 => block_on(jsonrpc_slice::io::embedded_io::serve_async(
                &mut service,
                &mut ctx,
                &mut Split(&mut reader, &mut writer),
            ))
            .unwrap(),
            _ => block_on(jsonrpc_slice::io::embedded_io_07::serve_async(
                &mut service,
                &mut ctx,
                &mut Split(&mut reader, &mut writer),
            ))
            .unwrap(),
        }
        let left = writer.len();
        assert_eq!(&buf[..256 - left], WANT.as_bytes(), "0.{version}");
    }
}

#[test]
fn the_loop_allocates_nothing() {
    counting::the_counter_works();
    let input = format!(
        "{CALL}{{\"jsonrpc\":\"2.0\",\"method\":\"opened\"}}\n{{\"jsonrpc\":\"2.0\",\"result\":null,\"id\":100}}\n{}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"countdown\",\"params\":[3],\"id\":\"last\"}"
    );
    let mut ctx = Ctx::new();
    ctx.answered.reserve(8);
    let (mut framer, mut chunk, mut out) = (LineAccumulator::<256>::new(), [0u8; 16], [0u8; 256]);
    let mut service =
        service!(framer, chunk, out).with_responses(|c: &mut Ctx, r: Response<'_>| {
            // Counted, not formatted: formatting would allocate.
            if let Resolution::Matched(tag) = c.pending.resolve(r.id) {
                c.answered.push((tag, String::new()));
            }
        });
    let mut reader = input.as_bytes();
    let mut buf = [0u8; 1024];
    let mut writer: &mut [u8] = &mut buf;
    let (result, n) = counting::counting(|| {
        block_on(jsonrpc_slice::io::embedded_io::serve_async(
            &mut service,
            &mut ctx,
            &mut Split(&mut reader, &mut writer),
        ))
    });
    result.unwrap();
    assert_eq!(n, 0, "{n} allocator calls");
    let left = writer.len();
    let text = std::str::from_utf8(&buf[..1024 - left]).unwrap();
    assert_eq!(text.lines().count(), 2 + 1 + 3 + 1, "{text}");
    assert_eq!(ctx.answered.len(), 1);
}

/// Pending once, then ready.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// `countdown`, awaiting between its notifications.
async fn countdown_async<'p>(
    ctx: &mut Ctx,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let n = count_of(p)?;
    for i in 1..=n {
        YieldOnce(false).await;
        ctx.outbox.notify("$/progress", |w| {
            w.begin_object()?;
            w.key("progress")?;
            w.u64(i)?;
            w.end()
        })?;
    }
    Ok(out.str("done")?)
}

jsonrpc_slice::async_method_table! {
    AsyncTable<Ctx> { "countdown" => countdown_async }
}

static ASYNC_SERVER: jsonrpc_slice::AsyncServer<Ctx, AsyncTable> =
    jsonrpc_slice::AsyncServer::new(AsyncTable);

#[test]
fn async_handlers_through_the_async_loops_allocate_nothing() {
    counting::the_counter_works();
    for version in [6, 7] {
        let (mut framer, mut chunk, mut out) =
            (LineAccumulator::<256>::new(), [0u8; 16], [0u8; 256]);
        let mut service =
            jsonrpc_slice::service::Service::new(&ASYNC_SERVER, &mut framer, &mut chunk, &mut out)
                .with_outbox(|c: &mut Ctx| &mut c.outbox);
        let mut reader = CALL.as_bytes();
        let mut buf = [0u8; 256];
        let mut writer: &mut [u8] = &mut buf;
        let mut ctx = Ctx::new();
        let (ok, n) = counting::counting(|| match version {
            6 => block_on(jsonrpc_slice::io::embedded_io::serve_async(
                &mut service,
                &mut ctx,
                &mut Split(&mut reader, &mut writer),
            ))
            .is_ok(),
            _ => block_on(jsonrpc_slice::io::embedded_io_07::serve_async(
                &mut service,
                &mut ctx,
                &mut Split(&mut reader, &mut writer),
            ))
            .is_ok(),
        });
        assert!(ok, "0.{version}");
        assert_eq!(n, 0, "0.{version}: {n} allocator calls");
        let left = writer.len();
        assert_eq!(&buf[..256 - left], WANT.as_bytes(), "0.{version}");
    }
}

/// The sync handlers, awaited (each after one suspension).
async fn countdown_awaited<'p>(
    c: &mut Ctx,
    p: Params<'p>,
    o: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    YieldOnce(false).await;
    countdown(c, p, o)
}
async fn opened_awaited<'p>(
    c: &mut Ctx,
    p: Params<'p>,
    o: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    YieldOnce(false).await;
    opened(c, p, o)
}
async fn exit_awaited<'p>(
    c: &mut Ctx,
    p: Params<'p>,
    o: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    YieldOnce(false).await;
    exit(c, p, o)
}

jsonrpc_slice::async_method_table! {
    /// `SERVER`'s table, awaited.
    Awaited<Ctx> {
        "countdown" => countdown_awaited,
        "opened" => opened_awaited,
        "exit" => exit_awaited,
    }
}

static AWAITED: jsonrpc_slice::AsyncServer<Ctx, Awaited> = jsonrpc_slice::AsyncServer::new(Awaited);

/// Feeds `input` in chunks of `sizes` (in a cycle) through `service` (over the sync
/// [`Server`] or the awaited [`AsyncServer`](jsonrpc_slice::AsyncServer), both
/// driven by `next_async`): what it writes, and what its context saw.
fn session<S: Answers<Ctx>>(
    service: &mut Service<'_, Ctx, LineAccumulator<128>, S>,
    input: &[u8],
    sizes: &[usize],
) -> (Vec<u8>, usize, bool) {
    let (mut ctx, mut wire, mut rest, mut turn) = (Ctx::new(), Vec::new(), input, 0);
    loop {
        while let Some(m) = block_on(service.next_async(&mut ctx)) {
            m.pieces().for_each(|p| wire.extend_from_slice(p));
        }
        if service.is_done() {
            return (wire, ctx.answered.len(), ctx.exit);
        }
        let buf = service.input_buffer();
        let n = rest.len().min(buf.len()).min(sizes[turn % sizes.len()]);
        turn += 1;
        buf[..n].copy_from_slice(&rest[..n]);
        rest = &rest[n..];
        match n {
            0 => service.end_of_input(),
            n => service.received(n),
        }
    }
}

/// [`session`] through the sync service.
fn sync_session(input: &[u8], sizes: &[usize]) -> (Vec<u8>, usize, bool) {
    let (mut framer, mut chunk, mut out) = (LineAccumulator::<128>::new(), [0u8; 64], [0u8; 192]);
    let mut service = Service::new(&SERVER, &mut framer, &mut chunk, &mut out)
        .with_outbox(|c: &mut Ctx| &mut c.outbox)
        .with_responses(responses)
        .until(|c: &Ctx| c.exit);
    session(&mut service, input, sizes)
}

/// [`session`] through the async service and the awaited handlers.
fn async_session(input: &[u8], sizes: &[usize]) -> (Vec<u8>, usize, bool) {
    let (mut framer, mut chunk, mut out) = (LineAccumulator::<128>::new(), [0u8; 64], [0u8; 192]);
    let mut service =
        jsonrpc_slice::service::Service::new(&AWAITED, &mut framer, &mut chunk, &mut out)
            .with_outbox(|c: &mut Ctx| &mut c.outbox)
            .with_responses(responses)
            .until(|c: &Ctx| c.exit);
    session(&mut service, input, sizes)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 400, ..Default::default() })]

    /// The async service is the sync one, awaited: the same bytes out (messages from
    /// the outbox, replies, error replies for junk and oversized lines, the last line
    /// without its newline) and the same context, for any session in any chunks.
    #[test]
    fn the_async_service_is_the_sync_one_awaited(
        messages in proptest::collection::vec(0usize..9, 0..12),
        sizes in proptest::collection::vec(1usize..70, 1..5),
        last_newline in proptest::bool::ANY,
    ) {
        let lines: Vec<String> = messages
            .iter()
            .enumerate()
            .map(|(i, &m)| match m {
                0 => format!(r#"{{"jsonrpc":"2.0","method":"countdown","params":[{}],"id":{i}}}"#, i % 4),
                1 => r#"{"jsonrpc":"2.0","method":"countdown","params":[2]}"#.to_owned(),
                2 => r#"{"jsonrpc":"2.0","method":"opened"}"#.to_owned(),
                3 => r#"{"jsonrpc":"2.0","result":{"a":1},"id":100}"#.to_owned(),
                4 => r#"{"jsonrpc":"2.0","method":"exit"}"#.to_owned(),
                5 => "{not json".to_owned(),
                6 => "x".repeat(200),
                7 => format!(r#"[{{"jsonrpc":"2.0","method":"countdown","params":[1],"id":"b{i}"}},1]"#),
                _ => format!(r#"{{"jsonrpc":"2.0","method":"nope","id":{i}}}"#),
            })
            .collect();
        let mut input = lines.join("\n");
        if last_newline && !input.is_empty() {
            input.push('\n');
        }
        let sync = sync_session(input.as_bytes(), &sizes);
        let awaited = async_session(input.as_bytes(), &sizes);
        proptest::prop_assert_eq!(
            (String::from_utf8_lossy(&sync.0), sync.1, sync.2),
            (String::from_utf8_lossy(&awaited.0), awaited.1, awaited.2)
        );
    }
}

/// A handler's context whose outbox it can also send while it runs: `wire` stands for
/// the transport, shared with the serve loop's writer (as `std::io::stdout()` is).
struct LiveCtx {
    outbox: Outbox<256>,
    wire: Rc<RefCell<Vec<u8>>>,
    /// What the wire held when each call's handler returned.
    at_return: Vec<String>,
}

/// `[n]`: `n` progress notifications, each sent while the handler runs (what is queued,
/// written, then cleared), one more queued at the end, then the result `"done"`.
fn live_steps<'p>(
    ctx: &mut LiveCtx,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let n = count_of(p)?;
    let step = |i| {
        move |w: &mut ResultWriter<'_>| {
            w.begin_array()?;
            w.u64(i)?;
            w.end()
        }
    };
    for i in 1..=n {
        ctx.outbox.notify("step", step(i))?;
        // Newline framing: the queue is framed already, one message per line.
        ctx.wire.borrow_mut().extend_from_slice(ctx.outbox.queued());
        ctx.outbox.clear();
    }
    ctx.outbox.notify("step", step(n + 1))?;
    let wire = String::from_utf8(ctx.wire.borrow().clone()).unwrap();
    ctx.at_return.push(wire);
    Ok(out.str("done")?)
}

/// The serve loop's writer, onto the shared wire.
struct SharedWire(Rc<RefCell<Vec<u8>>>);

impl Write for SharedWire {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

static LIVE: Server<LiveCtx> = Server::new(method_table! { "steps" => live_steps });

#[test]
fn a_handler_can_send_what_it_queued_while_it_runs() {
    let wire = Rc::new(RefCell::new(Vec::new()));
    let mut ctx = LiveCtx {
        outbox: Outbox::new(),
        wire: wire.clone(),
        at_return: Vec::new(),
    };
    let (mut framer, mut chunk, mut out) = (LineAccumulator::<256>::new(), [0u8; 32], [0u8; 256]);
    let mut service = Service::new(&LIVE, &mut framer, &mut chunk, &mut out)
        .with_outbox(|c: &mut LiveCtx| &mut c.outbox);
    let input = b"{\"jsonrpc\":\"2.0\",\"method\":\"steps\",\"params\":[2],\"id\":1}\n\
                  {\"jsonrpc\":\"2.0\",\"method\":\"steps\",\"params\":[0],\"id\":2}\n";
    std_io::serve(
        &mut service,
        &mut ctx,
        &mut Split(&input[..], SharedWire(wire.clone())),
    )
    .unwrap();
    let step = |i| format!("{{\"jsonrpc\":\"2.0\",\"method\":\"step\",\"params\":[{i}]}}\n");
    let reply = |id| format!("{{\"jsonrpc\":\"2.0\",\"result\":\"done\",\"id\":{id}}}\n");
    let first = [step(1), step(2), step(3), reply(1)].concat();
    // The first call's two steps were on the wire before it returned; the second sent
    // nothing while it ran.
    assert_eq!(ctx.at_return, [[step(1), step(2)].concat(), first.clone()]);
    // What was queued and not sent goes out before the reply, as always.
    assert_eq!(
        String::from_utf8(wire.borrow().clone()).unwrap(),
        [first, step(1), reply(2)].concat()
    );
}

/// A `std::io` object that gives its input two lines a read and logs what the loop
/// does: `r` a read, `w` a write, `f` a flush.
struct Logged {
    input: Vec<u8>,
    at: usize,
    log: String,
}

impl Read for Logged {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.log.push('r');
        let rest = &self.input[self.at..];
        let two = rest
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(1)
            .map_or(rest.len(), |(i, _)| i + 1);
        let n = two.min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

impl Write for Logged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.log.push('w');
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.log.push('f');
        Ok(())
    }
}

#[test]
fn the_replies_to_one_read_share_a_flush_made_before_the_next_read() {
    let (mut framer, mut chunk, mut out) = (LineAccumulator::<256>::new(), [0u8; 512], [0u8; 256]);
    let mut service = service!(framer, chunk, out);
    let mut io = Logged {
        input: CALL.repeat(4).into_bytes(),
        at: 0,
        log: String::new(),
    };
    std_io::serve(&mut service, &mut Ctx::new(), &mut io).unwrap();
    // Two reads of two calls each; each call a notification and a reply (two pieces
    // each: the message, its newline). One flush a read (there were 8, one a message),
    // each before the next read; nothing written after the last.
    let each = format!("r{}f", "w".repeat(8));
    assert_eq!(io.log, format!("{each}{each}r"));
}
