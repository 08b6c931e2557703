//! Nordic nRF51822 (Cortex-M0), QEMU's `microbit`: the UART at `0x4000_2000`, driven
//! through its tasks and events. The nRF51 has no SysTick, so no instruction counter.
//!
//! Reference manual: nRF51 Series, "Universal Asynchronous Receiver/Transmitter".

use super::{read, write, Serial};

const UART0: usize = 0x4000_2000;
const TASKS_STARTRX: usize = UART0;
const TASKS_STARTTX: usize = UART0 + 0x008;
const EVENTS_RXDRDY: usize = UART0 + 0x108;
const EVENTS_TXDRDY: usize = UART0 + 0x11C;
const ENABLE: usize = UART0 + 0x500;
const PSELTXD: usize = UART0 + 0x50C;
const PSELRXD: usize = UART0 + 0x514;
const RXD: usize = UART0 + 0x518;
const TXD: usize = UART0 + 0x51C;
const BAUDRATE: usize = UART0 + 0x524;

/// ENABLE: the UART (not UARTE) enabled.
const ENABLE_UART: u32 = 4;
/// BAUDRATE: 115 200 baud.
const BAUD_115200: u32 = 0x01D7_E000;
/// The micro:bit's USB serial pins: TX on P0.24, RX on P0.25.
const PIN_TX: u32 = 24;
const PIN_RX: u32 = 25;

/// The UART, configured and started. There is one (made once, by [`Uart::init`]).
pub struct Uart(());

impl Uart {
    /// Routes the UART to the board's pins, sets 115 200 baud (8N1 is the reset
    /// state), enables it and starts both directions.
    pub fn init() -> Self {
        write(PSELTXD, PIN_TX);
        write(PSELRXD, PIN_RX);
        write(BAUDRATE, BAUD_115200);
        write(ENABLE, ENABLE_UART);
        write(TASKS_STARTTX, 1);
        write(TASKS_STARTRX, 1);
        Uart(())
    }
}

impl Serial for Uart {
    #[inline]
    fn try_read(&mut self) -> Option<u8> {
        if read(EVENTS_RXDRDY) == 0 {
            return None;
        }
        // The event is cleared before RXD is read: the read raises it again when more
        // bytes wait in the receive FIFO.
        write(EVENTS_RXDRDY, 0);
        Some(read(RXD) as u8)
    }

    #[inline]
    fn write_byte(&mut self, b: u8) {
        write(EVENTS_TXDRDY, 0);
        write(TXD, u32::from(b));
        while read(EVENTS_TXDRDY) == 0 {}
    }

    fn flush(&mut self) {
        // `write_byte` returns once its byte has left: nothing is ever pending.
    }
}

/// No instruction counter on this board: every reading is 0.
pub struct Clock;

impl Clock {
    /// The counter (none here).
    pub fn start() -> Self {
        Clock
    }

    /// The counter's reading (always 0).
    #[cfg_attr(feature = "echo-only", allow(dead_code))]
    pub fn now(&self) -> u32 {
        0
    }

    /// Instructions between two readings (not counted here: 0).
    #[cfg_attr(feature = "echo-only", allow(dead_code))]
    pub fn instructions(&self, _start: u32, _end: u32) -> u32 {
        0
    }
}
