//! Stack high-water mark (as `examples/firmware/src/stack.rs`).
//!
//! cortex-m-rt's `paint-stack` feature fills the whole stack region, from
//! `_stack_end` (the end of `.bss`/`.uninit`, where the heap would start) up to
//! `_stack_start` (the top of RAM, the initial SP), with `0xCCCC_CCCC` in its reset
//! handler, before any Rust code runs. The stack grows down from `_stack_start`; the
//! lowest word that no longer holds the paint is the deepest the stack has been.

/// What cortex-m-rt paints the stack with (its `STACK_PAINT_VALUE`).
const PAINT: u32 = 0xCCCC_CCCC;

extern "C" {
    /// Top of the stack (cortex-m-rt's `link.x`): the initial SP.
    static _stack_start: u32;
    /// Bottom of the stack region (cortex-m-rt's `link.x`), 4-byte aligned.
    static _stack_end: u32;
}

fn bounds() -> (usize, usize) {
    // Only the addresses of the linker symbols are taken; nothing is read through them.
    let top = core::ptr::addr_of!(_stack_start) as usize;
    let bottom = core::ptr::addr_of!(_stack_end) as usize;
    (bottom, top)
}

/// Bytes between the bottom of the stack region and its top.
pub fn size() -> usize {
    let (bottom, top) = bounds();
    top - bottom
}

/// The deepest the stack has been since reset, in bytes below its top.
pub fn peak() -> usize {
    let (bottom, top) = bounds();
    let mut addr = bottom;
    while addr < top {
        // SAFETY: `addr` is 4-byte aligned (both bounds are) and inside RAM between
        // the end of the statics and the top of RAM; below the deepest SP the words
        // are only ever written by the reset handler's painting, and above it they
        // are stack slots of live or dead frames. A volatile read of a word there
        // reads plain memory without creating a Rust reference to anything.
        let word = unsafe { core::ptr::read_volatile(addr as *const u32) };
        if word != PAINT {
            break;
        }
        addr += 4;
    }
    top - addr
}
