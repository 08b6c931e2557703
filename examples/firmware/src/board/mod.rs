//! The board: what differs between the three targets, and nothing else.
//!
//! Each board module gives the same four things: `Uart` (its UART, polled, set up for
//! 115 200 8N1 by `Uart::init`, with [`Serial`]'s byte reads and writes), `Clock`
//! (`Clock::start`, `now`, and `instructions` between two readings, 0 where the
//! board cannot count them), and through its CPU family's module `exit`
//! (QEMU's exit status through semihosting), the entry point, the fault handlers and
//! the stack bounds [`crate::stack`] reads. The JSON-RPC loop (`rpc.rs`) is the same
//! code on all of them.

#[cfg(any(feature = "lm3s6965", feature = "microbit"))]
#[path = "cortex_m.rs"]
mod family;
#[cfg(feature = "sifive_e")]
#[path = "riscv.rs"]
mod family;

#[cfg(feature = "lm3s6965")]
#[path = "lm3s6965.rs"]
mod chip;
#[cfg(feature = "microbit")]
#[path = "microbit.rs"]
mod chip;
#[cfg(feature = "sifive_e")]
#[path = "sifive_e.rs"]
mod chip;

#[cfg(feature = "lm3s6965")]
mod systick;

// The devices behind the MCP image's tools.
#[cfg(feature = "mcp")]
mod lm3s6965_io;
#[cfg(feature = "mcp")]
pub use lm3s6965_io::Io;

pub use chip::{Clock, Uart};
pub use family::exit;

/// A polled UART: the byte-level operations each board provides, and the loops over
/// them that every board shares.
pub trait Serial {
    /// One received byte, if one is waiting.
    fn try_read(&mut self) -> Option<u8>;

    /// Sends one byte (waits while the transmitter is busy).
    fn write_byte(&mut self, b: u8);

    /// Waits until everything written has left the UART.
    fn flush(&mut self);

    /// Waits for at least one byte, then takes what is waiting, up to `buf.len()`
    /// bytes. Returns how many were read (at least 1).
    #[cfg_attr(feature = "echo-only", allow(dead_code))]
    fn read_some(&mut self, buf: &mut [u8]) -> usize {
        let mut n = 0;
        while n == 0 {
            for slot in buf.iter_mut() {
                match self.try_read() {
                    Some(b) => {
                        *slot = b;
                        n += 1;
                    }
                    None => break,
                }
            }
        }
        n
    }

    /// Sends all of `bytes`.
    fn write_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_byte(b);
        }
    }
}

/// Reads a 32-bit peripheral register.
fn read(addr: usize) -> u32 {
    // SAFETY: only called by the board modules with the fixed, aligned addresses of
    // their chip's peripheral registers, which are always mapped, and whose reads have
    // no effect beyond the peripheral's own state (a UART data read pops its receive
    // FIFO, which is what the caller wants).
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// Writes a 32-bit peripheral register.
fn write(addr: usize, value: u32) {
    // SAFETY: as for `read`: fixed, aligned, always-mapped peripheral registers, not
    // memory that Rust code owns.
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}
