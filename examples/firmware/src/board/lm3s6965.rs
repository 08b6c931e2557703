//! TI Stellaris LM3S6965 (Cortex-M3), QEMU's `lm3s6965evb`: UART0, an ARM PL011 at
//! `0x4000_C000`, and SysTick as the instruction counter.
//!
//! Datasheet: LM3S6965, "Universal Asynchronous Receivers/Transmitters".

use super::{read, write, Serial};

pub use super::systick::Clock;

/// System control: run-mode clock gating, peripherals (UART0 is bit 0).
const SYSCTL_RCGC1: usize = 0x400F_E104;
/// System control: run-mode clock gating, GPIO ports (port A is bit 0).
const SYSCTL_RCGC2: usize = 0x400F_E108;
/// GPIO port A: alternate function select, digital enable (PA0 = U0RX, PA1 = U0TX).
const GPIOA_AFSEL: usize = 0x4000_4420;
const GPIOA_DEN: usize = 0x4000_451C;

const UART0: usize = 0x4000_C000;
const DR: usize = UART0;
const FR: usize = UART0 + 0x018;
const IBRD: usize = UART0 + 0x024;
const FBRD: usize = UART0 + 0x028;
const LCRH: usize = UART0 + 0x02C;
const CTL: usize = UART0 + 0x030;

/// FR: transmit FIFO empty.
const FR_TXFE: u32 = 1 << 7;
/// FR: transmit FIFO full.
const FR_TXFF: u32 = 1 << 5;
/// FR: receive FIFO empty.
const FR_RXFE: u32 = 1 << 4;
/// FR: still shifting bits out.
const FR_BUSY: u32 = 1 << 3;
/// LCRH: 8 data bits, FIFOs on (no parity, one stop bit).
#[cfg(not(feature = "mcp"))]
const LCRH_8N1_FIFO: u32 = (0b11 << 5) | (1 << 4);
/// The MCP image keeps the FIFOs off: QEMU's model takes a byte into the receive
/// register before the UART is set up (an MCP client writes as soon as it has started
/// QEMU), and turning the FIFOs on drops it (the first byte of the first request, one
/// boot in 15). With them off QEMU holds every further byte until the one before is
/// read. (On silicon nothing is received before the UART is on, and the host opens
/// the port once the device runs; there a one-byte receive register would want
/// interrupts, or a faster clock, at 115 200 baud.)
#[cfg(feature = "mcp")]
const LCRH_8N1_FIFO: u32 = 0b11 << 5;
/// CTL: UART, transmitter and receiver enabled.
const CTL_UARTEN_TXE_RXE: u32 = (1 << 0) | (1 << 8) | (1 << 9);

/// 115 200 baud from the 12 MHz reset clock: 12e6 / (16 × 115 200) = 6.51 → 6 + 33/64.
/// (QEMU's model ignores the divisors; real silicon needs them.)
const BAUD_IBRD: u32 = 6;
const BAUD_FBRD: u32 = 33;

/// UART0, configured and enabled. There is one (made once, by [`Uart::init`]).
pub struct Uart(());

impl Uart {
    /// Clocks UART0 and its pins, sets 115 200 8N1 with FIFOs, and enables it.
    pub fn init() -> Self {
        write(SYSCTL_RCGC1, read(SYSCTL_RCGC1) | 1);
        write(SYSCTL_RCGC2, read(SYSCTL_RCGC2) | 1);
        // A few cycles must pass after gating a clock on before its registers answer.
        let _ = read(SYSCTL_RCGC2);
        write(GPIOA_AFSEL, read(GPIOA_AFSEL) | 0b11);
        write(GPIOA_DEN, read(GPIOA_DEN) | 0b11);

        write(CTL, 0);
        write(IBRD, BAUD_IBRD);
        write(FBRD, BAUD_FBRD);
        // An LCRH write latches the divisors too.
        write(LCRH, LCRH_8N1_FIFO);
        write(CTL, CTL_UARTEN_TXE_RXE);
        Uart(())
    }
}

impl Serial for Uart {
    #[inline]
    fn try_read(&mut self) -> Option<u8> {
        if read(FR) & FR_RXFE != 0 {
            None
        } else {
            // Bits 8..12 are error flags (overrun, break, parity, framing): the byte
            // is kept either way; a damaged frame gets a JSON-RPC error reply.
            Some(read(DR) as u8)
        }
    }

    #[inline]
    fn write_byte(&mut self, b: u8) {
        while read(FR) & FR_TXFF != 0 {}
        write(DR, u32::from(b));
    }

    fn flush(&mut self) {
        while read(FR) & (FR_TXFE | FR_BUSY) != FR_TXFE {}
    }
}
