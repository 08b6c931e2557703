//! The session replay: a generated LSP session (`replay/session.rs`: 3,000 messages,
//! a dozen Rust-like files opened, changed in full, hovered and completed in; raw UTF-8
//! among escapes, fixed seed) run through four servers, two side by side each time:
//!
//! - **codec alone**: every body through `Server::handle` with trivial handlers (each
//!   known method answers `null`; `completion` is not one, so `-32601`), against
//!   serde_json's DOM: `serde_json::from_slice::<Value>`, the envelope read from the
//!   `Value` (`jsonrpc`, `method`, `id`), and the same reply written from a struct with
//!   `serde_json::to_writer`. Bodies only, no framing; replies into a reused buffer.
//! - **LSP server**: the framed session (`Content-Length`) through the LSP example's
//!   own serve loop and handlers (`examples/lsp-server.rs`, `run`: the concurrent
//!   service on `embassy_futures::block_on`, read from memory in 64 KiB chunks, written
//!   into memory), against the example ported to rust-analyzer's `lsp-server` crate
//!   (`replay/port.rs`: same handler logic, same replies and notifications).
//!
//! Each pair is checked once to write the same messages (as JSON values). Then:
//!
//! ```text
//! cargo bench -p jsonrpc-slice-benches --bench replay          criterion: time, messages a second
//! replay count <codec-slice|codec-serde|lsp-example|lsp-port>   one replay, for callgrind (`*counted*`)
//! replay allocations                                            allocator calls a message, each server
//! replay session                                                the session's messages and bytes of bodies
//! ```
//!
//! `benches/replay.sh` runs callgrind on each (instructions a message, and with
//! `--branch-sim=yes --cache-sim=yes` the mispredicted branches and cache misses);
//! `docs/perf/replay.md` has the method and the figures.

mod common;
#[allow(dead_code)]
#[path = "../examples/lsp-server.rs"]
mod lsp;
#[path = "replay/port.rs"]
mod port;
#[path = "replay/session.rs"]
mod session;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, Throughput};
use jsonrpc_slice::service::concurrent::{Read, Write};
use jsonrpc_slice::{method_table, Params, ResultWriter, RpcError, Server};
use serde::Serialize;
use serde_json::Value;

/// Messages in the session.
const MESSAGES: usize = 3_000;

// ---- counting allocator --------------------------------------------------------------

/// Counts allocator calls on a thread that armed it (`counting`); otherwise forwards.
struct Counting;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    if ARMED.try_with(Cell::get).unwrap_or(false) {
        let _ = CALLS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to `System`; counting touches only
// const-initialised thread-locals (no allocation, no re-entrance).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` with the allocator armed: its result and the allocator calls it made.
fn counting<R>(f: impl FnOnce() -> R) -> (R, usize) {
    CALLS.with(|n| n.set(0));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (r, CALLS.with(Cell::get))
}

// ---- the codec alone -----------------------------------------------------------------

/// A trivial handler: the result is `null` (nothing written).
fn null<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(())
}

/// The session's methods but `completion`, each answered `null`.
static TRIVIAL: Server<()> = Server::new(method_table! {
    "initialize" => null,
    "initialized" => null,
    "shutdown" => null,
    "exit" => null,
    "textDocument/didOpen" => null,
    "textDocument/didChange" => null,
    "textDocument/hover" => null,
});

/// The same names, for the serde_json job.
const KNOWN: [&str; 7] = [
    "initialize",
    "initialized",
    "shutdown",
    "exit",
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/hover",
];

/// Every body through `Server::handle`; the bytes of the replies written.
fn codec_slice(bodies: &[Vec<u8>], out: &mut [u8]) -> usize {
    let mut written = 0;
    for body in bodies {
        written += TRIVIAL.handle(&mut (), body, out).expect("room").len();
    }
    written
}

#[derive(Serialize)]
struct ResultReply<'a> {
    jsonrpc: &'static str,
    result: (),
    id: &'a Value,
}

#[derive(Serialize)]
struct ErrorReply<'a> {
    jsonrpc: &'static str,
    error: ErrorObject,
    id: &'a Value,
}

#[derive(Serialize)]
struct ErrorObject {
    code: i32,
    message: &'static str,
}

/// One body through serde_json's DOM: parsed into a `Value`, its envelope read from it,
/// the reply written into `out` (cleared); the reply's length, 0 for a notification.
fn serde_one(body: &[u8], out: &mut Vec<u8>) -> usize {
    let v: Value = serde_json::from_slice(body).expect("JSON");
    assert!(v["jsonrpc"] == "2.0", "not JSON-RPC 2.0");
    let method = v["method"].as_str().expect("a method");
    let Some(id) = v.get("id") else {
        return 0; // A notification: no reply.
    };
    out.clear();
    if KNOWN.contains(&method) {
        let reply = ResultReply {
            jsonrpc: "2.0",
            result: (),
            id,
        };
        serde_json::to_writer(&mut *out, &reply).unwrap();
    } else {
        let reply = ErrorReply {
            jsonrpc: "2.0",
            error: ErrorObject {
                code: -32601,
                message: "Method not found",
            },
            id,
        };
        serde_json::to_writer(&mut *out, &reply).unwrap();
    }
    out.len()
}

fn codec_serde(bodies: &[Vec<u8>], out: &mut Vec<u8>) -> usize {
    bodies.iter().map(|body| serde_one(body, out)).sum()
}

/// Both codec jobs write the same replies, message by message (setup only).
fn check_codec(bodies: &[Vec<u8>]) {
    let mut a = vec![0u8; 4096];
    let mut b = Vec::new();
    for body in bodies {
        let slice = TRIVIAL.handle(&mut (), body, &mut a).unwrap().to_vec();
        let n = serde_one(body, &mut b);
        if slice.is_empty() || n == 0 {
            assert_eq!(slice.len(), n, "one answered, the other not");
            continue;
        }
        let v = |b: &[u8]| serde_json::from_slice::<Value>(b).unwrap();
        assert_eq!(v(&slice), v(&b[..n]));
    }
}

// ---- the LSP servers -----------------------------------------------------------------

/// The framed session, read by the example's loop in chunks as large as it asks.
struct Input<'a>(&'a [u8]);

impl Read for Input<'_> {
    type Error = std::convert::Infallible;

    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let n = buf.len().min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// What the example writes, into memory.
struct Output<'a>(&'a RefCell<Vec<u8>>);

impl Write for Output<'_> {
    type Error = std::convert::Infallible;

    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// The session through the LSP example; what it wrote goes to `out` (cleared).
fn lsp_example(framed: &[u8], out: &RefCell<Vec<u8>>) -> u8 {
    out.borrow_mut().clear();
    let code = embassy_futures::block_on(lsp::run(&mut Input(framed), &mut Output(out)));
    code.expect("serving memory does not fail")
}

/// The session through the `lsp-server` port.
fn lsp_port(framed: &[u8], out: &mut Vec<u8>) -> u8 {
    out.clear();
    port::run(framed, out)
}

/// The messages of a written stream, as JSON.
fn messages(wire: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(wire).expect("UTF-8");
    text.split("Content-Length: ")
        .skip(1)
        .map(|m| serde_json::from_str(m.split_once("\r\n\r\n").unwrap().1).unwrap())
        .collect()
}

/// Both LSP servers write the same replies (by id) and the same notifications (in
/// order), and exit 0 (setup only). Returns the number of messages written.
fn check_lsp(framed: &[u8]) -> usize {
    let (example, port) = (RefCell::new(Vec::new()), RefCell::new(Vec::new()));
    assert_eq!(lsp_example(framed, &example), 0);
    assert_eq!(lsp_port(framed, &mut port.borrow_mut()), 0);
    let split = |wire: &[u8]| {
        let mut replies = HashMap::new();
        let mut notes = Vec::new();
        for m in messages(wire) {
            match m.get("id") {
                Some(id) => assert!(replies.insert(id.to_string(), m).is_none()),
                None => notes.push(m),
            }
        }
        (replies, notes)
    };
    let (a, b) = (split(&example.borrow()), split(&port.borrow()));
    assert_eq!(a.0.len(), b.0.len(), "replies");
    for (id, reply) in &a.0 {
        assert_eq!(Some(reply), b.0.get(id), "the replies to {id}");
    }
    assert_eq!(a.1.len(), b.1.len(), "notifications");
    for (x, y) in a.1.iter().zip(&b.1) {
        assert_eq!(x, y);
    }
    // The work was done: hovers found words, documents had TODOs.
    let hovers = a.0.values().filter(|r| r["result"]["contents"].is_object());
    assert!(hovers.count() > 100, "hovers on words");
    let todos =
        a.1.iter()
            .map(|n| n["params"]["diagnostics"].as_array().unwrap().len());
    assert!(todos.sum::<usize>() > 1000, "TODOs published");
    a.0.len() + a.1.len()
}

// ---- modes ---------------------------------------------------------------------------

/// Counted by callgrind (`--toggle-collect='*counted*'`): one replay of `which`, into
/// `out` (made before, with room for all it writes).
#[inline(never)]
fn counted(which: &str, s: &session::Session, out: &RefCell<Vec<u8>>) -> usize {
    match which {
        "codec-slice" => {
            let mut out = out.borrow_mut();
            out.resize(4096, 0);
            codec_slice(&s.bodies, &mut out)
        }
        "codec-serde" => codec_serde(&s.bodies, &mut out.borrow_mut()),
        "lsp-example" => lsp_example(&s.framed, out) as usize,
        "lsp-port" => lsp_port(&s.framed, &mut out.borrow_mut()) as usize,
        _ => panic!("unknown replay {which}"),
    }
}

/// Allocator calls a message, each server (its buffers made before the count, the
/// example's and the port's output buffers too).
fn allocations(s: &session::Session) {
    let m = s.bodies.len() as f64;
    let mut out = vec![0u8; 4096];
    let (_, n) = counting(|| codec_slice(&s.bodies, &mut out));
    println!(
        "codec alone, jsonrpc-slice: {n} allocator calls ({:.3} a message)",
        n as f64 / m
    );
    let mut out = Vec::with_capacity(4096);
    let (_, n) = counting(|| codec_serde(&s.bodies, &mut out));
    println!(
        "codec alone, serde_json's DOM: {n} allocator calls ({:.3} a message)",
        n as f64 / m
    );
    let example = RefCell::new(Vec::with_capacity(64 << 20));
    let (_, n) = counting(|| lsp_example(&s.framed, &example));
    println!(
        "LSP example: {n} allocator calls ({:.3} a message)",
        n as f64 / m
    );
    let mut port = Vec::with_capacity(64 << 20);
    let (_, n) = counting(|| lsp_port(&s.framed, &mut port));
    println!(
        "lsp-server port: {n} allocator calls ({:.3} a message)",
        n as f64 / m
    );
}

fn bench(c: &mut Criterion, s: &session::Session) {
    let mut g = c.benchmark_group("replay codec alone");
    g.throughput(Throughput::Elements(s.bodies.len() as u64));
    g.sample_size(10);
    let mut out = vec![0u8; 4096];
    g.bench_function("jsonrpc-slice Server::handle", |b| {
        b.iter(|| codec_slice(black_box(&s.bodies), &mut out))
    });
    let mut out = Vec::with_capacity(4096);
    g.bench_function("serde_json DOM", |b| {
        b.iter(|| codec_serde(black_box(&s.bodies), &mut out))
    });
    g.finish();
    let mut g = c.benchmark_group("replay LSP server");
    g.throughput(Throughput::Elements(s.bodies.len() as u64));
    g.sample_size(10);
    let out = RefCell::new(Vec::with_capacity(64 << 20));
    g.bench_function("LSP example (jsonrpc-slice)", |b| {
        b.iter(|| lsp_example(black_box(&s.framed), &out))
    });
    let mut out = Vec::with_capacity(64 << 20);
    g.bench_function("lsp-server port", |b| {
        b.iter(|| lsp_port(black_box(&s.framed), &mut out))
    });
    g.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let s = session::session(MESSAGES);
    match args.first().map(String::as_str) {
        Some("count") => {
            let out = RefCell::new(Vec::with_capacity(64 << 20));
            println!("{}", counted(&args[1], black_box(&s), &out));
        }
        Some("allocations") => allocations(&s),
        Some("session") => println!("{} {}", s.bodies.len(), s.bytes()),
        _ => {
            check_codec(&s.bodies);
            let written = check_lsp(&s.framed);
            println!(
                "replay: {} messages, {} bytes of bodies ({} framed); the LSP servers agree on the {written} messages they write",
                s.bodies.len(),
                s.bytes(),
                s.framed.len()
            );
            let mut c = Criterion::default().configure_from_args();
            bench(&mut c, &s);
            c.final_summary();
        }
    }
}
