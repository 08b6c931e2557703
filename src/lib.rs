//! A JSON-RPC 2.0 codec that never allocates.
//!
//! `jsonrpc-slice` reads a message straight out of your byte slice, answers into your
//! fixed buffer, and routes calls through a method table fixed at compile time. The
//! same `#![no_std]` core, with no `alloc`, serves a Cortex-M firmware on a UART and a
//! host service moving millions of messages a second.
//!
//! ```text
//! bytes ──► scan ──► envelope ──► dispatch ──► handler ──► write ──► bytes
//!          (JSON      (jsonrpc,     (static      (params as    (fixed buffer,
//!           grammar)   method, id,   method       raw slice)    rollback on
//!                      params)       table)                     overflow)
//! ```
//!
//! Each stage is a module: [`scan`] (RFC 8259, iterative, strict), [`envelope`]
//! (Request objects and batches, borrowed), [`dispatch`] ([`MethodTable`], [`Server`]),
//! [`mod@write`] ([`ResultWriter`], checkpoints and rollback). Around them: [`frame`]
//! cuts byte streams into messages, [`service`] is the serve loop without its I/O
//! (replies, and the messages a server sends on its own from an [`outbox`]), [`io`]
//! runs it over other crates' streams (one file per crate, each behind its feature),
//! and [`client`] is the other direction.
//!
//! # Example
//!
//! ```
//! use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError, Server};
//!
//! /// The handlers' context: whatever state they need (peripherals, counters...).
//! struct Ctx {
//!     calls: u32,
//! }
//!
//! fn add<'p>(ctx: &mut Ctx, params: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
//!     ctx.calls += 1;
//!     // The two numbers, read in one pass.
//!     let mut args = params.positional();
//!     let (Some(Ok(a)), Some(Ok(b))) = (args.next_i64(), args.next_i64()) else {
//!         return Err(RpcError::invalid_params());
//!     };
//!     Ok(out.i64(a.wrapping_add(b))?)
//! }
//!
//! fn hello<'p>(_: &mut Ctx, params: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
//!     let name = params.get("name").and_then(|v| v.as_str()).ok_or(RpcError::invalid_params())?;
//!     let mut scratch = [0u8; 32];
//!     let name = name.unescape_into(&mut scratch).ok_or(RpcError::invalid_params())?;
//!     out.string_start()?;
//!     out.string_push("hello, ")?;
//!     out.string_push(name)?;
//!     Ok(out.string_end()?)
//! }
//!
//! static SERVER: Server<Ctx> = Server::new(method_table! {
//!     "add" => add,
//!     "hello" => hello,
//! });
//!
//! let mut ctx = Ctx { calls: 0 };
//! let mut out = [0u8; 512];
//!
//! let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"add","params":[2,3],"id":1}"#, &mut out)?;
//! assert_eq!(reply, br#"{"jsonrpc":"2.0","result":5,"id":1}"#);
//!
//! // Ids come back exactly as sent; a batch streams its replies in order.
//! let batch = br#"[{"jsonrpc":"2.0","method":"hello","params":{"name":"w\u00f6rld"},"id":"a\u0062"},
//!                  {"jsonrpc":"2.0","method":"add","params":[1]},
//!                  {"jsonrpc":"2.0","method":"nope","id":1.0}]"#;
//! let reply = SERVER.handle(&mut ctx, batch, &mut out)?;
//! assert_eq!(
//!     core::str::from_utf8(reply).unwrap(),
//!     r#"[{"jsonrpc":"2.0","result":"hello, wörld","id":"a\u0062"},{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1.0}]"#
//! );
//!
//! // Notifications are never answered.
//! let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"add","params":[1,1]}"#, &mut out)?;
//! assert!(reply.is_empty());
//! assert_eq!(ctx.calls, 3);
//! # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
//! ```
//!
//! # Guarantees
//!
//! Each is checked by a test or a tool that anyone can run (see the README):
//!
//! - **No allocation**, on any path: the crate has no `alloc`, and a test with a
//!   counting global allocator drives every benchmark message, every example of the
//!   specification and every decided edge case through [`Server::handle`] and counts
//!   zero allocations.
//! - **No panic** on any input, and **bounded stack**: nothing recurses over the input;
//!   nesting is tracked in a fixed bit stack, so 100 000 nested `[` is a `-32700` in
//!   the same stack as `[]`. (Typed params, feature `serde`, are the one exception:
//!   serde's visitors recurse once per level, at most `serde::MAX_DEPTH` levels.)
//! - **Never a truncated reply**: a reply that does not fit is rolled back and replaced
//!   by `-32603` with the same id.
//! - **Spec-exact**: ids are echoed byte for byte, notifications are never answered,
//!   and every decided case of `DESIGN.md` is a test row.
//! - **`unsafe` in one place only**: the crate is `#![deny(unsafe_code)]`, allowed
//!   only in the SIMD bodies of the inner byte loops (SSE2 on x86_64, NEON on
//!   aarch64; the compact build has none), where each block argues its soundness in a
//!   `SAFETY` comment, the loads stay inside the slice, and the tests (under Miri in
//!   CI) and a fuzz target pin every body to the scalar one. One more block there:
//!   without `std`, a decoded string's `&str` from the crate's own UTF-8 check, which
//!   the tests and a fuzz target pin to `core::str::from_utf8` (on x86_64 that check
//!   runs on AVX2 where the CPU has it, asked by `cpuid`).
//!
//! # Crate features
//!
//! One is on by default, `ryu`; with `default-features = false` the core needs none
//! and depends on `core` alone.
//!
//! (Items behind a feature are named here without a link, so that these docs build
//! with no feature on; on docs.rs, which builds them all, each such item is marked
//! with the feature it needs.)
//!
//! - `std`: `io::std::serve`, the [`service`] loop over `std::io::{Read, Write}` (one
//!   object, or a reader and a writer).
//! - `serde`: typed params (`Params::decode`, this crate's own deserializer over the
//!   validated params: every serde shape, escapes into a scratch buffer, a `-32602`
//!   that names the failing field) and typed results (`ResultWriter::serialize`),
//!   [`RawJson`] as a pass-through field, the `serde::typed` adapter and the
//!   `typed_handler!` macro.
//! - `embedded-io`, `embedded-io-async`: `io::embedded_io::serve` and `serve_async`,
//!   the same over `embedded-io` 0.6 streams (a UART); `embedded-io-07`,
//!   `embedded-io-async-07`: `io::embedded_io_07`, the same over 0.7.
//! - `heapless`: `Server::handle_into`, a reply into a `heapless::Vec<u8, N>`
//!   (heapless 0.9 needs Rust 1.88).
//! - `defmt`: `defmt::Format` for the public error and message types, raw JSON
//!   printed with the `{=[u8]:a}` hint (firmware logging).
//! - `ryu` (default): floats (`ResultWriter::f64`, `f32`, typed results) from `ryu`'s
//!   shortest digits, the same text as from `core`'s `{:e}` without it, in less flash
//!   and fewer instructions (see [`ResultWriter::f64`]).
//!
//! # Non-goals
//!
//! A JSON value tree, anything that allocates, and JSON-RPC 1.0.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![deny(missing_docs)]

#[cfg(any(test, feature = "std"))]
extern crate std;

/// Where the conformance corpus is, for the unit tests that read it when it is there.
#[cfg(test)]
#[path = "../tests/common/corpus.rs"]
mod test_corpus;

pub mod client;
#[cfg(feature = "defmt")]
mod defmt;
// The demo methods of the examples, tests and benches: not API for users.
#[doc(hidden)]
pub mod demo;
pub mod dispatch;
pub mod envelope;
pub mod error;
pub mod frame;
#[cfg(feature = "heapless")]
#[cfg_attr(docsrs, doc(cfg(feature = "heapless")))]
mod heapless;
pub mod id;
pub mod io;
pub mod limits;
pub mod outbox;
pub mod params;
pub mod raw;
#[cfg(feature = "ryu")]
mod ryu;
pub mod scan;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod serde;
pub mod service;
mod simd;
pub mod subscription;
/// The SIMD bodies, for the `simd` fuzz target only (`--cfg fuzzing`).
#[cfg(fuzzing)]
#[doc(hidden)]
pub use simd::fuzzing as simd_fuzzing;

#[cfg(feature = "hyper")]
#[cfg_attr(docsrs, doc(cfg(feature = "hyper")))]
pub mod http;
#[cfg(feature = "tracing")]
#[cfg_attr(docsrs, doc(cfg(feature = "tracing")))]
pub mod tracing;
#[cfg(not(feature = "serde"))]
mod without_serde;
pub mod write;

/// The README's Rust examples, compiled and run as doctests (they use `serde`, `std`,
/// `concurrent`, `embedded-io-async` and `hyper`).
#[cfg(all(
    doctest,
    feature = "serde",
    feature = "std",
    feature = "concurrent",
    feature = "embedded-io-async",
    feature = "hyper"
))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// `docs/serving.md`'s Rust examples, compiled (and run, where they are not `no_run`) as
/// doctests (they use `concurrent`, `embedded-io-async` and `ipc`).
#[cfg(all(
    doctest,
    unix,
    feature = "concurrent",
    feature = "embedded-io-async",
    feature = "ipc"
))]
#[doc = include_str!("../docs/serving.md")]
pub struct ServingDoctests;

pub use dispatch::{
    AsyncMethods, AsyncServer, Fallback, Handler, Method, MethodTable, OutputTooSmall, Server,
};
pub use error::RpcError;
pub use id::{Id, IdKind};
pub use limits::Limits;
pub use params::Params;
pub use raw::{Kind, RawJson, RawStr};
pub use write::{ResultWriter, WriteError};
