//! A counting global allocator for servers: allocations are counted on the threads
//! that are armed (a server's runtime threads), summed over all of them in one atomic,
//! so a load generator's own threads do not disturb the count.
//! `tests/common/counting.rs` counts one thread's own events instead.
//!
//! Included with `#[path]` (it sets the global allocator) by `tests/http_allocations.rs`
//! and the side-by-side benches (`benches/http_side_by_side.rs`, `ws_crates.rs`,
//! `ws_side_by_side.rs`).

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static EVERY_THREAD: AtomicBool = AtomicBool::new(false);

thread_local! {
    // `None`: the thread neither armed nor disarmed itself, and counts if
    // `count_every_thread` was called (threads a library spawns cannot arm themselves).
    static ARMED: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Counts this thread's allocations from now on.
pub fn arm() {
    ARMED.with(|a| a.set(Some(true)));
}

/// Stops counting this thread's allocations.
pub fn disarm() {
    ARMED.with(|a| a.set(Some(false)));
}

/// Counts on every thread but those that call `disarm`.
pub fn count_every_thread() {
    EVERY_THREAD.store(true, Ordering::Relaxed);
}

/// Allocations (alloc, alloc_zeroed, realloc) counted so far, on every armed thread.
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

fn note() {
    // `try_with`: never panic in the allocator, even while a thread is torn down.
    let armed = match ARMED.try_with(Cell::get) {
        Ok(Some(armed)) => armed,
        Ok(None) => EVERY_THREAD.load(Ordering::Relaxed),
        Err(_) => false,
    };
    if armed {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

struct Counting;

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

#[global_allocator]
static GLOBAL: Counting = Counting;
