//! A counting global allocator, and the harness that runs messages through
//! `Server::handle` under it: `tests/no_alloc.rs` (the crate's own vectors) and the
//! conformance tier's `no_alloc` (the corpus) both use it.
//!
//! The allocator counts only on a thread that has armed it (a thread-local flag), so
//! the test harness's own threads cannot disturb the count; everything a run needs
//! (inputs, the output buffer, the room for the results) exists before it arms.
//!
//! Included with `#[path]` by the test crates that want it (it sets the global
//! allocator), not through `common/mod.rs`.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use jsonrpc_slice::{demo, Limits, OutputTooSmall, Server};
use serde_json::Value;

struct Counting;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static EVENTS: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: never panic in the allocator, even while a thread is torn down.
    let armed = ARMED.try_with(Cell::get).unwrap_or(false);
    if armed {
        let _ = EVENTS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting touches only const-initialised thread-locals
// (no allocation, no re-entrance).
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

/// Runs `f` with the allocator armed on this thread; returns its result and the
/// number of allocator calls (alloc, alloc_zeroed, realloc, dealloc) it made.
pub fn counting<R>(f: impl FnOnce() -> R) -> (R, usize) {
    EVENTS.with(|n| n.set(0));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (r, EVENTS.with(Cell::get))
}

/// What a case must produce (checked after the armed run, so that the run cannot be
/// vacuous).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Want {
    /// A reply (or none) that is valid JSON.
    Any,
    /// No reply at all.
    Nothing,
    /// A single reply with `result`.
    Result,
    /// A single error reply with this code.
    Error(i32),
    /// A batch array of this many entries.
    Batch(usize),
    /// `Err(OutputTooSmall)`.
    TooSmall,
}

pub struct Case {
    /// What it is.
    pub label: String,
    /// The message.
    pub input: Vec<u8>,
    /// Use the server with small limits.
    pub small_limits: bool,
    /// The size of the output buffer.
    pub out_len: usize,
    /// What it must produce.
    pub want: Want,
}

pub fn case(label: impl Into<String>, input: impl Into<Vec<u8>>, want: Want) -> Case {
    Case {
        label: label.into(),
        input: input.into(),
        small_limits: false,
        out_len: OUT,
        want,
    }
}

impl Case {
    pub fn out(mut self, out_len: usize) -> Self {
        self.out_len = out_len;
        self
    }

    pub fn small(mut self) -> Self {
        self.small_limits = true;
        self
    }
}

pub const OUT: usize = 64 * 1024;

/// The allocator sees what it should: an allocation while armed is counted, and
/// nothing while disarmed.
pub fn the_counter_works() {
    // The counter works: an allocation while armed is seen...
    let ((), n) = counting(|| {
        black_box(Box::new(black_box(7u64)));
    });
    assert!(n >= 1, "the counting allocator saw no allocation of a Box");
    let ((), n) = counting(|| {
        let v: Vec<u8> = black_box(Vec::with_capacity(black_box(100)));
        black_box(v);
    });
    assert!(n >= 1, "the counting allocator saw no allocation of a Vec");
    // ...and nothing is counted while disarmed.
    black_box(Box::new(black_box(1u8)));
    assert_eq!(EVENTS.with(Cell::get), n, "counted while disarmed");
}

/// One armed call's outcome: OutputTooSmall, or the reply's span in the arena (its
/// length only, if the arena was full).
#[derive(Copy, Clone, Debug)]
enum Outcome {
    TooSmall,
    Reply {
        start: usize,
        len: usize,
        kept: bool,
    },
}

fn check(case: &Case, reply: Option<&[u8]>) -> Result<(), String> {
    let Some(reply) = reply else {
        return match case.want {
            Want::TooSmall => Ok(()),
            w => Err(format!("OutputTooSmall, wanted {w:?}")),
        };
    };
    if case.want == Want::TooSmall {
        return Err("a reply, wanted OutputTooSmall".into());
    }
    if reply.is_empty() {
        return match case.want {
            Want::Any | Want::Nothing => Ok(()),
            w => Err(format!("no reply, wanted {w:?}")),
        };
    }
    let v: Value = match serde_json::from_slice(reply) {
        Ok(v) => v,
        // serde_json refuses numbers beyond f64 (JSONTestSuite's i_number_*huge*
        // files, echoed back verbatim); valid JSON all the same.
        Err(e) if case.want == Want::Any && e.to_string().starts_with("number out of range") => {
            return Ok(());
        }
        Err(e) => return Err(format!("not JSON: {e}")),
    };
    let fine = match case.want {
        Want::Any => v.is_object() || v.is_array(),
        Want::Nothing | Want::TooSmall => false,
        Want::Result => v.get("result").is_some(),
        Want::Error(code) => v["error"]["code"] == code,
        Want::Batch(n) => v.as_array().is_some_and(|a| a.len() == n),
    };
    if fine {
        Ok(())
    } else {
        Err(format!("wanted {:?}", case.want))
    }
}

/// Handles every case with the allocator armed; asserts that nothing was allocated and
/// that every reply is what its case wants. Returns the number of cases.
pub fn no_allocation_in(cases: &[Case]) -> usize {
    let default = Server::new(demo::TABLE);
    let small = Server::new(demo::TABLE).with_limits(
        Limits::DEFAULT
            .max_batch(3)
            .max_id_len(3)
            .max_method_len(3)
            .max_depth(4),
    );
    let mut out = [0u8; OUT];
    let mut arena: Vec<u8> = Vec::with_capacity(32 * 1024 * 1024);
    let mut outcomes: Vec<Outcome> = Vec::with_capacity(cases.len());

    let ((), allocations) = counting(|| {
        for case in cases {
            let server = if case.small_limits { &small } else { &default };
            let outcome = match server.handle(&mut (), &case.input, &mut out[..case.out_len]) {
                Err(OutputTooSmall) => Outcome::TooSmall,
                Ok(reply) => {
                    let start = arena.len();
                    let kept = arena.capacity() - start >= reply.len();
                    if kept {
                        arena.extend_from_slice(reply);
                    }
                    Outcome::Reply {
                        start,
                        len: reply.len(),
                        kept,
                    }
                }
            };
            outcomes.push(outcome);
        }
    });
    assert_eq!(
        allocations,
        0,
        "{allocations} allocator calls while handling {} messages",
        cases.len()
    );

    // The run did the work: every case has its outcome, and each is what it should be.
    assert_eq!(outcomes.len(), cases.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for (case, outcome) in cases.iter().zip(&outcomes) {
        let reply = match *outcome {
            Outcome::TooSmall => None,
            Outcome::Reply { kept: false, .. } => continue,
            Outcome::Reply { start, len, .. } => Some(&arena[start..start + len]),
        };
        checked += 1;
        if let Err(e) = check(case, reply) {
            failures.push(format!(
                "{}: {e}: {}",
                case.label,
                reply.map_or("OutputTooSmall".into(), |r| {
                    String::from_utf8_lossy(&r[..r.len().min(300)]).into_owned()
                })
            ));
        }
    }
    assert_eq!(
        checked,
        cases.len(),
        "the arena was too small to check them all"
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    let replies = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Reply { len, .. } if *len > 0))
        .count();
    assert!(replies > cases.len() / 2, "only {replies} replies");
    println!(
        "{} messages handled, {replies} replies, no allocation",
        cases.len()
    );
    cases.len()
}
