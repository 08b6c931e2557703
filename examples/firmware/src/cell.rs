//! A `static` whose value is handed out once, as `&'static mut`: how the 1 KiB frame
//! and reply buffers live in `.bss` instead of on the stack.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

/// A value in a `static` that [`TakeOnce::take`] lends out mutably exactly once.
pub struct TakeOnce<T> {
    taken: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the value is only reachable through `take`, which gives out a single
// `&mut` for the whole program (`was_taken` makes that hold across interrupts too), so sharing the cell between contexts can never alias it; `T: Send` because
// the one reference may be used from whichever context took it.
unsafe impl<T: Send> Sync for TakeOnce<T> {}

impl<T> TakeOnce<T> {
    /// A cell holding `value` (a `const fn`: all-zero values land in `.bss`).
    pub const fn new(value: T) -> Self {
        Self {
            taken: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// The value, the first time; `None` ever after.
    // The `&mut` out of `&self` is the point: `taken` makes it unique (see below).
    #[allow(clippy::mut_from_ref)]
    pub fn take(&'static self) -> Option<&'static mut T> {
        if self.was_taken() {
            return None;
        }
        // SAFETY: `swap` returned `false`, which happens once per cell, so no other
        // reference to the value exists or will ever be made.
        Some(unsafe { &mut *self.value.get() })
    }

    /// Marks the cell taken; `true` if it was already. An atomic swap, or on a core
    /// without one (the Cortex-M0) a load and a store with interrupts masked.
    fn was_taken(&self) -> bool {
        #[cfg(target_has_atomic = "8")]
        return self.taken.swap(true, Ordering::AcqRel);
        #[cfg(not(target_has_atomic = "8"))]
        cortex_m::interrupt::free(|_| {
            let taken = self.taken.load(Ordering::Acquire);
            self.taken.store(true, Ordering::Release);
            taken
        })
    }
}
