//! SiFive FE310 (RV32IMAC), QEMU's `sifive_e`: UART0 at `0x1001_3000`, and the
//! `minstret` counter (instructions retired; QEMU counts them under `-icount`).
//!
//! Manual: SiFive FE310-G000, "Universal Asynchronous Receiver/Transmitter".

use super::{read, write, Serial};

const UART0: usize = 0x1001_3000;
const TXDATA: usize = UART0;
const RXDATA: usize = UART0 + 0x04;
const TXCTRL: usize = UART0 + 0x08;
const RXCTRL: usize = UART0 + 0x0C;
const DIV: usize = UART0 + 0x18;
/// TXDATA: the transmit FIFO is full; RXDATA: the receive FIFO is empty.
const FULL_OR_EMPTY: u32 = 1 << 31;

/// GPIO: which pins an I/O function drives, and which function (UART0 is IOF0 on
/// pins 16 (RX) and 17 (TX)).
const GPIO_IOF_EN: usize = 0x1001_2038;
const GPIO_IOF_SEL: usize = 0x1001_203C;
const UART0_PINS: u32 = (1 << 16) | (1 << 17);

/// 115 200 baud from the 16 MHz reset clock: 16e6 / 115 200 - 1 = 138.
/// (QEMU's model ignores the divisor; real silicon needs it.)
const BAUD_DIV: u32 = 138;

/// UART0, configured and enabled. There is one (made once, by [`Uart::init`]).
pub struct Uart(());

impl Uart {
    /// Gives UART0 its pins, sets 115 200 baud (8N1, one stop bit) and enables both
    /// directions.
    pub fn init() -> Self {
        write(GPIO_IOF_SEL, read(GPIO_IOF_SEL) & !UART0_PINS);
        write(GPIO_IOF_EN, read(GPIO_IOF_EN) | UART0_PINS);
        write(DIV, BAUD_DIV);
        write(TXCTRL, 1);
        write(RXCTRL, 1);
        Uart(())
    }
}

impl Serial for Uart {
    #[inline]
    fn try_read(&mut self) -> Option<u8> {
        // One read pops a byte, or says the FIFO is empty.
        let data = read(RXDATA);
        if data & FULL_OR_EMPTY != 0 {
            None
        } else {
            Some(data as u8)
        }
    }

    #[inline]
    fn write_byte(&mut self, b: u8) {
        while read(TXDATA) & FULL_OR_EMPTY != 0 {}
        write(TXDATA, u32::from(b));
    }

    fn flush(&mut self) {
        // The FE310 has no transmitter-idle flag: a byte in the FIFO is on its way.
    }
}

/// `minstret`: instructions retired (under QEMU's `-icount shift=0`, where its clock
/// advances 1 ns an instruction, QEMU reads it from that clock).
pub struct Clock;

impl Clock {
    /// The counter (free-running from reset).
    pub fn start() -> Self {
        Clock
    }

    /// The low 32 bits of `minstret`.
    #[cfg_attr(feature = "echo-only", allow(dead_code))]
    pub fn now(&self) -> u32 {
        let n: u32;
        // SAFETY: reads a counter CSR; no memory, no side effect.
        unsafe { core::arch::asm!("csrr {0}, minstret", out(reg) n, options(nomem, nostack)) };
        n
    }

    /// Instructions between two readings.
    #[cfg_attr(feature = "echo-only", allow(dead_code))]
    pub fn instructions(&self, start: u32, end: u32) -> u32 {
        end.wrapping_sub(start)
    }
}
