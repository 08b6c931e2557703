//! What both servers and the driver share: the counting global allocator each server
//! binary installs, its report on `SIGUSR1`, and the traffic.
//!
//! Each server counts its own allocations (alloc, alloc_zeroed, realloc; frees not
//! counted) on every thread of its process, split in two: those made while the
//! tool's own code runs ([`handler`]) and all the others (the library's: framing,
//! parsing, dispatch, the reply, the transport, the runtime). On `SIGUSR1` a thread
//! of its own writes `allocations TOTAL HANDLER` on stderr; the driver signals before
//! and after the measured calls and takes the differences.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

static ALL: AtomicU64 = AtomicU64::new(0);
static IN_HANDLER: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // 0: counted as the library's; 1: the handler's; 2: not counted (the reporter).
    static ROLE: Cell<u8> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: never panic in the allocator, even while a thread is torn down.
    match ROLE.try_with(Cell::get) {
        Ok(0) => {
            ALL.fetch_add(1, Ordering::Relaxed);
        }
        Ok(1) => {
            ALL.fetch_add(1, Ordering::Relaxed);
            IN_HANDLER.fetch_add(1, Ordering::Relaxed);
        }
        _ => {}
    }
}

/// The global allocator of both server binaries: `System`, counted.
pub struct Counting;

// SAFETY: every call is forwarded unchanged to `System`; counting touches only a
// const-initialised thread-local and atomics (no allocation, no re-entrance).
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
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f`, the tool's own code, counting what it allocates as the handler's.
pub fn handler<R>(f: impl FnOnce() -> R) -> R {
    let before = ROLE.with(|r| r.replace(1));
    let result = f();
    ROLE.with(|r| r.set(before));
    result
}

/// Starts the reporter: call first in `main`, before any other thread starts (every
/// thread inherits the signal mask that keeps `SIGUSR1` for the reporter alone).
pub fn report_on_sigusr1() {
    // SAFETY: a zeroed sigset_t is filled by sigemptyset before use; the calls only
    // read and write that local set and this thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGUSR1);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    std::thread::spawn(move || {
        ROLE.with(|r| r.set(2));
        loop {
            let mut signal = 0;
            // SAFETY: `set` is a valid signal set, `signal` a valid out-pointer.
            if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
                return;
            }
            let (all, handler) = (
                ALL.load(Ordering::Relaxed),
                IN_HANDLER.load(Ordering::Relaxed),
            );
            eprintln!("allocations {all} {handler}");
        }
    });
}

/// The protocol version both servers are asked for (the latest with `initialize`).
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The first request of a session.
pub fn initialize() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-side-by-side","version":"0"}}}}}}"#
    )
}

/// The notification that ends the handshake.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The note every call takes.
pub const NOTE: &str = "Buy milk, eggs and 2 loaves of bread before Saturday.";

/// `tools/call` of the note tool, with id `id`.
pub fn call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"note","arguments":{{"text":"{NOTE}"}}}}}}"#
    )
}

/// The text content both servers answer a call with.
pub fn noted() -> String {
    format!("noted: {NOTE}")
}
