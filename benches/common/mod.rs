//! What the comparison benches share: the bench messages, and the same job written once
//! per implementation.
//!
//! The job, for every implementation: validate the whole message as JSON and recognise
//! its JSON-RPC envelope, handing out `method`, `id` and `params` (for a response: `id`
//! and `result`) as borrowed views. Each job returns a digest of what it found (lengths of
//! the views and how many ids), so the bench can check it and the optimiser cannot drop
//! the work; `check_agreement` checks once that all implementations agree.
//!
//! The baselines are written as a user of each crate would write them, as well as the
//! crate allows:
//!
//! - `serde_json`: `from_slice` into a `#[derive(Deserialize)]` struct with borrowed
//!   fields (`Cow<str>` for `jsonrpc` and `method`, `&RawValue` for `params`, `id`,
//!   `result`, `error`); a batch as `Vec` of that struct.
//! - `sonic-rs`: the same struct with `LazyValue` for the raw members, through
//!   `sonic_rs::from_slice`.
//! - `jsonrpsee-types`: what `jsonrpsee-server` does: `Request` through
//!   `serde_json::from_slice`, and `Notification<Option<&RawValue>>` when that fails (a
//!   message without `id`); a batch as `Vec<&RawValue>` first, then each element; a
//!   response as `Response<&RawValue>`.
//! - `simd-json` (0.19): its tape. simd-json parses in place (it unescapes strings
//!   inside the input), so the job first copies the message into a reused buffer,
//!   preallocated and padded with `simd_json::INPUT_PADDING` bytes; the copy is part of
//!   the job, as a user with a `&[u8]` must make it too. `fill_tape_padded` then fills a
//!   reused `Tape` with reused `Buffers` (no allocation once warm, and no second copy:
//!   `fill_tape` and `to_tape` copy the input again into an aligned buffer of their
//!   own), and the job walks the tape's nodes for the envelope's members (`Tape::0` and
//!   `Node` are public; the `Object` API does the same walk, but hides a value's node
//!   count). `params` and `result` are views into the tape (a node slice), not raw text:
//!   simd-json has no raw-value type. So its digest counts the nodes of `params`
//!   (`result`) where the others count bytes, and `check_agreement` checks it against
//!   the same count taken from a `serde_json::Value` of the message. This was the
//!   cheapest way tried (callgrind, 01 / 06, instructions per message): this job
//!   1,806 / 14,783; `simd_json::to_tape` of a copy (allocates a tape and copies
//!   again) 3,990 / 19,067; `simd_json::serde::from_slice_with_buffers` into a borrowed
//!   struct (`&str` fields; `params` and `id` as `BorrowedValue`, as simd-json has no
//!   raw value) 2,714 / 22,829. CPU features: simd-json is built with its default
//!   `runtime-detection`: under std it picks AVX2 (this machine), else SSE4.2, else a
//!   portable path, at run time, whatever `-C target-cpu` says.
//!
//! The `serde_json`, `sonic-rs` and `simd-json` batch jobs take the happy path (one `Vec` of structs):
//! one element that is not a valid request fails the whole batch, where JSON-RPC wants
//! one error per element. That is less work than the spec asks, and in their favour.

#![allow(dead_code)]

use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};

use jsonrpc_slice::envelope::{self, Call, Envelope, Outcome, ResponseMessage};
use jsonrpc_slice::{
    demo, dispatch, method_table, Limits, Method, MethodTable, Params, ResultWriter, RpcError,
    Server,
};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use simd_json::{Node, StaticNode, Tape};
use sonic_rs::LazyValue;

/// The implementations compared, in table order.
pub const IMPLS: [&str; 5] = [
    "jsonrpc-slice",
    "serde_json",
    "sonic-rs",
    "jsonrpsee-types",
    "simd-json",
];

/// The baselines, in table order.
pub const BASELINES: [&str; 4] = ["serde_json", "sonic-rs", "jsonrpsee-types", "simd-json"];

/// The demo server the end-to-end benches use.
pub static SERVER: Server<()> = Server::new(demo::TABLE);

/// One bench message.
pub struct Message {
    /// The file stem, e.g. `01_small_positional`.
    pub stem: String,
    pub bytes: Vec<u8>,
    /// A response (client side), parsed with `parse_response`.
    pub response: bool,
}

/// The shared corpus, beside this repository.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// The folders of the bench messages: the shared corpus's eight (01 to 08), and this
/// package's own two (`messages/`: 09 as web3.py writes a request, with a space after
/// each `:` and `,`; 10 as ethers.js writes it, `method` first and `jsonrpc` last).
pub fn message_dirs() -> [PathBuf; 2] {
    [
        corpus().join("bench"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("messages"),
    ]
}

/// The ten bench messages, sorted by file name.
pub fn messages() -> Vec<Message> {
    let mut files: Vec<_> = message_dirs()
        .iter()
        .flat_map(|dir| {
            fs::read_dir(dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.unwrap().path())
        })
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort_by_key(|p| p.file_name().map(|n| n.to_owned()));
    assert_eq!(files.len(), 10, "expected the ten benchmark messages");
    files
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let bytes = fs::read(&p).unwrap();
            let response = is_response(&bytes);
            Message {
                stem,
                bytes,
                response,
            }
        })
        .collect()
}

/// A message is a response when it has a `result` or `error` member and no `method`.
/// (Setup only; the jobs do not use it.)
fn is_response(bytes: &[u8]) -> bool {
    let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    let one = |v: &serde_json::Value| v.get("method").is_none() && v.get("id").is_some();
    match &v {
        serde_json::Value::Array(a) => a.iter().all(one),
        v => one(v),
    }
}

/// A job: one message in, a digest of what was recognised out. A closure, as simd-json's
/// job keeps its buffers from call to call.
pub type Job = Box<dyn FnMut(&[u8]) -> u64>;

/// The digest of one recognised call: the lengths of the views, and a count of ids.
#[inline(always)]
fn digest(method: usize, id: bool, params: usize) -> u64 {
    ((method as u64) << 40) + ((id as u64) << 32) + params as u64
}

/// The job of `implementation` for a request message (`response == false`) or a
/// response message.
pub fn job(implementation: &str, response: bool) -> Job {
    match (implementation, response) {
        ("jsonrpc-slice", false) => Box::new(slice_request),
        ("jsonrpc-slice", true) => Box::new(slice_response),
        ("serde_json", false) => Box::new(serde_request),
        ("serde_json", true) => Box::new(serde_response),
        ("sonic-rs", false) => Box::new(sonic_request),
        ("sonic-rs", true) => Box::new(sonic_response),
        ("jsonrpsee-types", false) => Box::new(jsonrpsee_request),
        ("jsonrpsee-types", true) => Box::new(jsonrpsee_response),
        ("simd-json", response) => {
            let mut s = SimdJson::new();
            if response {
                Box::new(move |msg| s.response(msg))
            } else {
                Box::new(move |msg| s.request(msg))
            }
        }
        _ => panic!("unknown implementation {implementation}"),
    }
}

/// What a job of `implementation` must return for `m` (setup only): jsonrpc-slice's
/// digest, or for simd-json the same with node counts for `params`/`result`, taken from
/// a `serde_json::Value`.
pub fn expected(implementation: &str, m: &Message) -> u64 {
    if implementation == "simd-json" {
        tape_digest(&m.bytes, m.response)
    } else {
        job("jsonrpc-slice", m.response)(&m.bytes)
    }
}

/// Runs every implementation on every message once and checks that they agree.
pub fn check_agreement(messages: &[Message]) {
    for m in messages {
        for imp in IMPLS {
            let want = expected(imp, m);
            assert_ne!(want, 0, "{}", m.stem);
            let mut job = job(imp, m.response);
            // Twice: simd-json's second call runs on warm buffers.
            for _ in 0..2 {
                assert_eq!(job(&m.bytes), want, "{imp} disagrees on {}", m.stem);
            }
        }
    }
}

/// The first byte that is not whitespace (how a server tells a batch from one call).
#[inline(always)]
fn first_byte(msg: &[u8]) -> u8 {
    msg.iter()
        .copied()
        .find(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        .unwrap_or(0)
}

// ---- jsonrpc-slice -------------------------------------------------------------------

fn slice_call(call: Call<'_>) -> u64 {
    match call {
        Call::Request(r) => digest(
            r.method.as_raw().len(),
            r.id.is_some(),
            r.params.map_or(0, |p| p.as_bytes().len()),
        ),
        Call::Invalid { .. } => panic!("invalid request"),
    }
}

pub fn slice_request(msg: &[u8]) -> u64 {
    match envelope::parse(msg, &Limits::DEFAULT) {
        Ok(Envelope::Single(call)) => slice_call(call),
        Ok(Envelope::Batch(batch)) => batch.map(slice_call).sum(),
        Err(e) => panic!("{e}"),
    }
}

pub fn slice_response(msg: &[u8]) -> u64 {
    match envelope::parse_response(msg, &Limits::DEFAULT) {
        Ok(ResponseMessage::Single(Ok(r))) => match r.outcome {
            Outcome::Result(v) => digest(0, true, v.as_bytes().len()),
            Outcome::Error(_) => digest(0, true, 0),
        },
        other => panic!("{other:?}"),
    }
}

// ---- serde_json ----------------------------------------------------------------------

/// `Some` for any value, `null` included (`Option`'s own impl reads `null` as `None`).
fn some_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct SerdeRequest<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "some_raw")]
    id: Option<&'a RawValue>,
}

impl SerdeRequest<'_> {
    fn digest(&self) -> u64 {
        assert!(self.jsonrpc == "2.0");
        let params = self.params.map_or(0, |p| {
            assert!(matches!(p.get().as_bytes()[0], b'[' | b'{'));
            p.get().len()
        });
        digest(self.method.len(), self.id.is_some(), params)
    }
}

#[derive(Deserialize)]
struct SerdeResponse<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow)]
    id: &'a RawValue,
}

pub fn serde_request(msg: &[u8]) -> u64 {
    if first_byte(msg) == b'[' {
        let batch: Vec<SerdeRequest<'_>> = serde_json::from_slice(msg).unwrap();
        batch.iter().map(SerdeRequest::digest).sum()
    } else {
        serde_json::from_slice::<SerdeRequest<'_>>(msg)
            .unwrap()
            .digest()
    }
}

pub fn serde_response(msg: &[u8]) -> u64 {
    let r: SerdeResponse<'_> = serde_json::from_slice(msg).unwrap();
    assert!(r.jsonrpc == "2.0" && !r.id.get().is_empty());
    match (r.result, r.error) {
        (Some(v), None) => digest(0, true, v.get().len()),
        (None, Some(_)) => digest(0, true, 0),
        _ => panic!("not a response"),
    }
}

// ---- sonic-rs ------------------------------------------------------------------------

fn some_lazy<'de, D: Deserializer<'de>>(d: D) -> Result<Option<LazyValue<'de>>, D::Error> {
    LazyValue::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct SonicRequest<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow, default)]
    params: Option<LazyValue<'a>>,
    #[serde(borrow, default, deserialize_with = "some_lazy")]
    id: Option<LazyValue<'a>>,
}

impl SonicRequest<'_> {
    fn digest(&self) -> u64 {
        assert!(self.jsonrpc == "2.0");
        let params = self.params.as_ref().map_or(0, |p| {
            let raw = p.as_raw_str();
            assert!(matches!(raw.as_bytes()[0], b'[' | b'{'));
            raw.len()
        });
        digest(self.method.len(), self.id.is_some(), params)
    }
}

#[derive(Deserialize)]
struct SonicResponse<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow, default)]
    result: Option<LazyValue<'a>>,
    #[serde(borrow, default)]
    error: Option<LazyValue<'a>>,
    #[serde(borrow)]
    id: LazyValue<'a>,
}

pub fn sonic_request(msg: &[u8]) -> u64 {
    if first_byte(msg) == b'[' {
        let batch: Vec<SonicRequest<'_>> = sonic_rs::from_slice(msg).unwrap();
        batch.iter().map(SonicRequest::digest).sum()
    } else {
        sonic_rs::from_slice::<SonicRequest<'_>>(msg)
            .unwrap()
            .digest()
    }
}

pub fn sonic_response(msg: &[u8]) -> u64 {
    let r: SonicResponse<'_> = sonic_rs::from_slice(msg).unwrap();
    assert!(r.jsonrpc == "2.0" && !r.id.as_raw_str().is_empty());
    match (&r.result, &r.error) {
        (Some(v), None) => digest(0, true, v.as_raw_str().len()),
        (None, Some(_)) => digest(0, true, 0),
        _ => panic!("not a response"),
    }
}

// ---- jsonrpsee-types -----------------------------------------------------------------

type Notification<'a> = jsonrpsee_types::Notification<'a, Option<&'a RawValue>>;

fn jsonrpsee_one(msg: &[u8]) -> u64 {
    if let Ok(r) = serde_json::from_slice::<jsonrpsee_types::Request<'_>>(msg) {
        let params = r.params.as_ref().map_or(0, |p| p.get().len());
        return digest(r.method.len(), true, params);
    }
    let n: Notification<'_> = serde_json::from_slice(msg).unwrap();
    digest(n.method.len(), false, n.params.map_or(0, |p| p.get().len()))
}

pub fn jsonrpsee_request(msg: &[u8]) -> u64 {
    if first_byte(msg) == b'[' {
        let batch: Vec<&RawValue> = serde_json::from_slice(msg).unwrap();
        batch
            .iter()
            .map(|e| jsonrpsee_one(e.get().as_bytes()))
            .sum()
    } else {
        jsonrpsee_one(msg)
    }
}

pub fn jsonrpsee_response(msg: &[u8]) -> u64 {
    use jsonrpsee_types::{Response, ResponsePayload};
    let r: Response<'_, &RawValue> = serde_json::from_slice(msg).unwrap();
    match r.payload {
        ResponsePayload::Success(v) => digest(0, true, v.get().len()),
        ResponsePayload::Error(_) => digest(0, true, 0),
    }
}

// ---- simd-json -----------------------------------------------------------------------

/// Nodes of a value on simd-json's tape: 1 for a scalar or a string, the container's own
/// node plus everything inside it for an array or an object (keys are nodes too).
#[inline(always)]
fn tape_len(node: &Node<'_>) -> usize {
    match *node {
        Node::Object { count, .. } | Node::Array { count, .. } => count + 1,
        _ => 1,
    }
}

/// The same count from a `serde_json::Value` (setup only: `check_agreement`).
fn value_nodes(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::Array(a) => 1 + a.iter().map(value_nodes).sum::<usize>(),
        serde_json::Value::Object(o) => 1 + o.values().map(|v| 1 + value_nodes(v)).sum::<usize>(),
        _ => 1,
    }
}

/// What simd-json's job must return for `bytes` (setup only).
fn tape_digest(bytes: &[u8], response: bool) -> u64 {
    let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    let one = |v: &serde_json::Value| {
        if response {
            digest(0, true, v.get("result").map_or(0, value_nodes))
        } else {
            let method = v["method"].as_str().unwrap().len();
            digest(
                method,
                v.get("id").is_some(),
                v.get("params").map_or(0, value_nodes),
            )
        }
    };
    match &v {
        serde_json::Value::Array(a) => a.iter().map(one).sum(),
        v => one(v),
    }
}

/// simd-json's reused state: the padded copy of the message, the parser's buffers and
/// the tape (kept between calls with its lifetime reset).
pub struct SimdJson {
    input: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: Option<Tape<'static>>,
}

/// The largest message the preallocated buffers are sized for (they grow past it).
const SIMD_PREALLOCATED: usize = 128 * 1024;

impl SimdJson {
    pub fn new() -> Self {
        Self {
            input: Vec::with_capacity(SIMD_PREALLOCATED + simd_json::INPUT_PADDING),
            buffers: simd_json::Buffers::new(SIMD_PREALLOCATED),
            tape: Some(Tape::null()),
        }
    }

    /// Copies `msg` into the padded input, parses it onto the tape and hands the tape's
    /// nodes to `walk`.
    #[inline(always)]
    fn with_tape<R>(&mut self, msg: &[u8], walk: impl FnOnce(&[Node<'_>]) -> R) -> R {
        self.input.clear();
        self.input.extend_from_slice(msg);
        self.input.resize(msg.len() + simd_json::INPUT_PADDING, 0);
        let mut tape = self.tape.take().unwrap_or_else(Tape::null).reset();
        simd_json::fill_tape_padded(&mut self.input, msg.len(), &mut self.buffers, &mut tape)
            .unwrap();
        let r = walk(&tape.0);
        self.tape = Some(tape.reset());
        r
    }

    pub fn request(&mut self, msg: &[u8]) -> u64 {
        self.with_tape(msg, |nodes| match nodes.first() {
            Some(Node::Array { len, .. }) => {
                let mut at = 1;
                let mut sum = 0;
                for _ in 0..*len {
                    let call = &nodes[at..];
                    sum += simd_call(call);
                    at += tape_len(&call[0]);
                }
                sum
            }
            _ => simd_call(nodes),
        })
    }

    pub fn response(&mut self, msg: &[u8]) -> u64 {
        self.with_tape(msg, |nodes| {
            let (mut version, mut id, mut result, mut error) = (false, false, None, false);
            for (key, value) in members(nodes) {
                match key {
                    "jsonrpc" => version = matches!(value[0], Node::String("2.0")),
                    "id" => id = true,
                    "result" => result = Some(value.len()),
                    "error" => error = true,
                    _ => {}
                }
            }
            assert!(version && id, "not a response");
            match (result, error) {
                (Some(n), false) => digest(0, true, n),
                (None, true) => digest(0, true, 0),
                _ => panic!("not a response"),
            }
        })
    }
}

impl Default for SimdJson {
    fn default() -> Self {
        Self::new()
    }
}

/// The members of the object starting at `nodes[0]`: each key, and its value's nodes.
#[inline(always)]
fn members<'t, 'i>(nodes: &'t [Node<'i>]) -> impl Iterator<Item = (&'i str, &'t [Node<'i>])> {
    let Some(&Node::Object { len, .. }) = nodes.first() else {
        panic!("not an object");
    };
    let mut at = 1;
    (0..len).map(move |_| {
        let Node::String(key) = nodes[at] else {
            panic!("a key that is not a string");
        };
        let n = tape_len(&nodes[at + 1]);
        let value = &nodes[at + 1..at + 1 + n];
        at += 1 + n;
        (key, value)
    })
}

/// One call on the tape: the digest of its method, id and params.
#[inline(always)]
fn simd_call(nodes: &[Node<'_>]) -> u64 {
    let (mut version, mut method, mut id, mut params) = (false, None, false, 0);
    for (key, value) in members(nodes) {
        match key {
            "jsonrpc" => version = matches!(value[0], Node::String("2.0")),
            "method" => match value[0] {
                Node::String(m) => method = Some(m.len()),
                _ => panic!("method is not a string"),
            },
            "id" => id = true,
            "params" => {
                assert!(matches!(value[0], Node::Array { .. } | Node::Object { .. }));
                params = value.len();
            }
            _ => {}
        }
    }
    assert!(version, "not JSON-RPC 2.0");
    digest(method.expect("a method"), id, params)
}

// ---- answering 01: parse, dispatch, handle, write ------------------------------------
//
// The reply row: every implementation does the whole job of a server for request 01,
// `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`: parse the request,
// look the method up, run the handler (subtract the two params), write
// `{"jsonrpc":"2.0","result":19,"id":1}` into a reused buffer. The method is looked up
// with a `match` on its name (one method; an unknown one is an error). Params are read
// the way each crate reads them: serde_json and sonic-rs take a raw view in the request
// struct, then deserialize it as `(i64, i64)` once the method is known (what a
// dispatching server must do); jsonrpsee-types through its `Params::parse`; simd-json
// from its tape; jsonrpc-slice with `Params::positional` and `Elements::next_i64` (one
// pass over the two, each number read as it is passed over). The id is
// echoed as received (a raw view, or the tape's node).

/// The reply every implementation writes for message 01.
pub const REPLY: &[u8] = br#"{"jsonrpc":"2.0","result":19,"id":1}"#;

/// Checks a reply job's output (setup only): the same JSON value as [`REPLY`], and as
/// many bytes (jsonrpsee-types writes `id` before `result`).
pub fn check_reply(implementation: &str, written: &[u8]) {
    let v = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap();
    assert_eq!(written.len(), REPLY.len(), "{implementation}");
    assert_eq!(v(written), v(REPLY), "{implementation}");
}

/// A reply job: a request in, the reply written into `out` (a reused buffer: cleared,
/// or for jsonrpc-slice sized once and written over); returns the reply's length, the
/// reply being `out[..length]`.
pub type ReplyJob = Box<dyn FnMut(&[u8], &mut Vec<u8>) -> usize>;

/// The handler every implementation calls.
#[inline(never)]
fn subtract(a: i64, b: i64) -> i64 {
    a.wrapping_sub(b)
}

#[derive(Serialize)]
struct SerdeReply<'a> {
    jsonrpc: &'static str,
    result: i64,
    id: &'a RawValue,
}

#[derive(Serialize)]
struct SonicReply<'a> {
    jsonrpc: &'static str,
    result: i64,
    id: LazyValue<'a>,
}

/// An id as simd-json's tape holds it, serialised back as it came (numbers and strings;
/// `null` for a notification is not answered, and 01 has id 1).
#[derive(Serialize)]
#[serde(untagged)]
enum SimdId<'a> {
    Signed(i64),
    Unsigned(u64),
    Str(&'a str),
}

#[derive(Serialize)]
struct SimdReply<'a> {
    jsonrpc: &'static str,
    result: i64,
    id: SimdId<'a>,
}

pub fn reply_job(implementation: &str) -> ReplyJob {
    match implementation {
        "jsonrpc-slice" => Box::new(|msg, out| {
            if out.len() < 256 {
                out.resize(256, 0);
            }
            ANSWER.handle(&mut (), msg, out).unwrap().len()
        }),
        "serde_json" => Box::new(|msg, out| {
            let req: SerdeRequest<'_> = serde_json::from_slice(msg).unwrap();
            assert!(req.jsonrpc == "2.0");
            let result = match &*req.method {
                "subtract" => {
                    let params = req.params.expect("params");
                    let (a, b): (i64, i64) = serde_json::from_str(params.get()).unwrap();
                    subtract(a, b)
                }
                m => panic!("unknown method {m}"),
            };
            let id = req.id.expect("a request");
            out.clear();
            let reply = SerdeReply {
                jsonrpc: "2.0",
                result,
                id,
            };
            serde_json::to_writer(&mut *out, &reply).unwrap();
            out.len()
        }),
        "sonic-rs" => Box::new(|msg, out| {
            let req: SonicRequest<'_> = sonic_rs::from_slice(msg).unwrap();
            assert!(req.jsonrpc == "2.0");
            let result = match &*req.method {
                "subtract" => {
                    let params = req.params.as_ref().expect("params");
                    let (a, b): (i64, i64) = sonic_rs::from_str(params.as_raw_str()).unwrap();
                    subtract(a, b)
                }
                m => panic!("unknown method {m}"),
            };
            let id = req.id.expect("a request");
            out.clear();
            let reply = SonicReply {
                jsonrpc: "2.0",
                result,
                id,
            };
            sonic_rs::to_writer(&mut *out, &reply).unwrap();
            out.len()
        }),
        "jsonrpsee-types" => Box::new(|msg, out| {
            use jsonrpsee_types::{Request, Response, ResponsePayload};
            let req: Request<'_> = serde_json::from_slice(msg).unwrap();
            let result = match &*req.method {
                "subtract" => {
                    let (a, b): (i64, i64) = req.params().parse().unwrap();
                    subtract(a, b)
                }
                m => panic!("unknown method {m}"),
            };
            out.clear();
            let reply = Response::new(ResponsePayload::success(result), req.id);
            serde_json::to_writer(&mut *out, &reply).unwrap();
            out.len()
        }),
        "simd-json" => {
            let mut s = SimdJson::new();
            Box::new(move |msg, out| {
                s.with_tape(msg, |nodes| {
                    let (mut version, mut method, mut params, mut id) = (false, "", None, None);
                    for (key, value) in members(nodes) {
                        match (key, value[0]) {
                            ("jsonrpc", Node::String(v)) => version = v == "2.0",
                            ("method", Node::String(m)) => method = m,
                            ("params", _) => params = Some(value),
                            ("id", Node::Static(StaticNode::I64(n))) => {
                                id = Some(SimdId::Signed(n))
                            }
                            ("id", Node::Static(StaticNode::U64(n))) => {
                                id = Some(SimdId::Unsigned(n))
                            }
                            ("id", Node::String(s)) => id = Some(SimdId::Str(s)),
                            (key, _) => panic!("unexpected member {key}"),
                        }
                    }
                    assert!(version);
                    let result = match method {
                        "subtract" => match params.expect("params") {
                            [Node::Array { len: 2, .. }, Node::Static(a), Node::Static(b)] => {
                                subtract(tape_i64(a), tape_i64(b))
                            }
                            _ => panic!("subtract takes two integers"),
                        },
                        m => panic!("unknown method {m}"),
                    };
                    out.clear();
                    let reply = SimdReply {
                        jsonrpc: "2.0",
                        result,
                        id: id.expect("a request"),
                    };
                    simd_json::serde::to_writer(&mut *out, &reply).unwrap();
                    out.len()
                })
            })
        }
        _ => panic!("no reply job for {implementation}"),
    }
}

/// An integer on simd-json's tape (`I64` or `U64`).
#[inline(always)]
fn tape_i64(n: &StaticNode) -> i64 {
    match *n {
        StaticNode::I64(n) => n,
        StaticNode::U64(n) => i64::try_from(n).expect("an i64"),
        _ => panic!("not an integer"),
    }
}

/// jsonrpc-slice's handler: reads the two params, subtracts, writes the result.
fn subtract_params<'p>(
    _: &mut (),
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let mut positional = params.positional();
    let (Some(Ok(a)), Some(Ok(b))) = (positional.next_i64(), positional.next_i64()) else {
        return Err(RpcError::invalid_params());
    };
    Ok(out.i64(subtract(a, b))?)
}

/// The reply row's server: one method, `subtract`.
pub static ANSWER: Server<()> = Server::new(method_table! { "subtract" => subtract_params });

/// A method table of `rows` built at run time (leaked: benches build their tables
/// once), with the index `method_table!` would give it at compile time.
pub fn leaked_table<C>(rows: Vec<Method<C>>) -> MethodTable<C> {
    let names: Vec<&str> = rows.iter().map(|m| m.name()).collect();
    /// The index of `S` slots, leaked.
    fn leak<const S: usize>(names: &[&str]) -> &'static [u32] {
        Box::leak(Box::new(dispatch::index::<S>(names)))
    }
    let index = match dispatch::index_len(names.len()) {
        1 => leak::<1>(&names),
        2 => leak::<2>(&names),
        4 => leak::<4>(&names),
        8 => leak::<8>(&names),
        16 => leak::<16>(&names),
        32 => leak::<32>(&names),
        64 => leak::<64>(&names),
        128 => leak::<128>(&names),
        256 => leak::<256>(&names),
        512 => leak::<512>(&names),
        1024 => leak::<1024>(&names),
        8192 => leak::<8192>(&names),
        2048 => leak::<2048>(&names),
        4096 => leak::<4096>(&names),
        n => panic!("no index of {n} slots here"),
    };
    MethodTable::new(Box::leak(rows.into_boxed_slice()), index)
}
