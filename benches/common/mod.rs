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
//!
//! The `serde_json` and `sonic-rs` batch jobs take the happy path (one `Vec` of structs):
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
use sonic_rs::LazyValue;

/// The implementations compared, in table order.
pub const IMPLS: [&str; 4] = ["jsonrpc-slice", "serde_json", "sonic-rs", "jsonrpsee-types"];

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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// The eight bench messages, sorted by file name.
pub fn messages() -> Vec<Message> {
    let dir = corpus().join("bench");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 8, "expected the eight benchmark messages");
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

/// A job: one message in, a digest of what was recognised out.
pub type Job = fn(&[u8]) -> u64;

/// The digest of one recognised call: the lengths of the views, and a count of ids.
#[inline(always)]
fn digest(method: usize, id: bool, params: usize) -> u64 {
    ((method as u64) << 40) + ((id as u64) << 32) + params as u64
}

/// The job of `implementation` for a request message (`response == false`) or a
/// response message.
pub fn job(implementation: &str, response: bool) -> Job {
    match (implementation, response) {
        ("jsonrpc-slice", false) => slice_request,
        ("jsonrpc-slice", true) => slice_response,
        ("serde_json", false) => serde_request,
        ("serde_json", true) => serde_response,
        ("sonic-rs", false) => sonic_request,
        ("sonic-rs", true) => sonic_response,
        ("jsonrpsee-types", false) => jsonrpsee_request,
        ("jsonrpsee-types", true) => jsonrpsee_response,
        _ => panic!("unknown implementation {implementation}"),
    }
}

/// Runs every implementation on every message once and checks that they agree.
pub fn check_agreement(messages: &[Message]) {
    for m in messages {
        let want = job("jsonrpc-slice", m.response)(&m.bytes);
        assert_ne!(want, 0, "{}", m.stem);
        for imp in IMPLS {
            let got = job(imp, m.response)(&m.bytes);
            assert_eq!(got, want, "{imp} disagrees on {}", m.stem);
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

// ---- writing the reply {"jsonrpc":"2.0","result":19,"id":1} ---------------------------

/// The reply every bench writes for a call.
pub const REPLY: &[u8] = br#"{"jsonrpc":"2.0","result":19,"id":1}"#;

#[derive(Serialize)]
struct SerdeReply {
    jsonrpc: &'static str,
    result: i64,
    id: u64,
}

const SERDE_REPLY: SerdeReply = SerdeReply {
    jsonrpc: "2.0",
    result: 19,
    id: 1,
};

/// A reply writer: the reply for result 19, id 1, into `out` (cleared first, its
/// capacity reused); returns the length written.
pub type ReplyJob = fn(&mut Vec<u8>) -> usize;

pub fn reply_job(implementation: &str) -> ReplyJob {
    match implementation {
        "serde_json" => |out| {
            out.clear();
            serde_json::to_writer(&mut *out, &SERDE_REPLY).unwrap();
            out.len()
        },
        "sonic-rs" => |out| {
            out.clear();
            sonic_rs::to_writer(&mut *out, &SERDE_REPLY).unwrap();
            out.len()
        },
        "jsonrpsee-types" => |out| {
            use jsonrpsee_types::{Id, Response, ResponsePayload};
            out.clear();
            let r = Response::new(ResponsePayload::success(19i64), Id::Number(1));
            serde_json::to_writer(&mut *out, &r).unwrap();
            out.len()
        },
        _ => panic!("no reply job for {implementation}"),
    }
}

fn nineteen<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(out.i64(19)?)
}

/// The reply row's server: one method, whose handler writes the result `19` without
/// reading its params, so that `handle` minus `parse` of message 01 is dispatch plus
/// writing the reply.
pub static ANSWER: Server<()> = Server::new(method_table! { "subtract" => nineteen });

/// Message 01 through [`ANSWER`]: parse, dispatch, write
/// `{"jsonrpc":"2.0","result":19,"id":1}`. Returns the reply's length.
#[inline(always)]
pub fn answer_19(msg: &[u8], out: &mut [u8]) -> usize {
    ANSWER.handle(&mut (), msg, out).unwrap().len()
}

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
