//! UART0 of the LM3S6965: an ARM PL011 at `0x4000_C000`, driven by polling.
//!
//! Registers are accessed with volatile reads and writes of their fixed addresses
//! (datasheet: LM3S6965, "Universal Asynchronous Receivers/Transmitters").

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
const LCRH_8N1_FIFO: u32 = (0b11 << 5) | (1 << 4);
/// CTL: UART, transmitter and receiver enabled.
const CTL_UARTEN_TXE_RXE: u32 = (1 << 0) | (1 << 8) | (1 << 9);

/// 115 200 baud from the 12 MHz reset clock: 12e6 / (16 × 115 200) = 6.51 → 6 + 33/64.
/// (QEMU's model ignores the divisors; real silicon needs them.)
const BAUD_IBRD: u32 = 6;
const BAUD_FBRD: u32 = 33;

fn read(addr: usize) -> u32 {
    // SAFETY: only called with the aligned addresses of the LM3S6965 registers above,
    // which are always mapped, and whose reads have no effect beyond the UART's own
    // state (a DR read pops the RX FIFO, which is what the caller wants).
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

fn write(addr: usize, value: u32) {
    // SAFETY: as for `read`: fixed, aligned, always-mapped peripheral registers, not
    // memory that Rust code owns.
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}

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

    /// One received byte, if the RX FIFO holds one.
    #[inline]
    pub fn try_read(&mut self) -> Option<u8> {
        if read(FR) & FR_RXFE != 0 {
            None
        } else {
            // Bits 8..12 are error flags (overrun, break, parity, framing): the byte
            // is kept either way; a damaged frame gets a JSON-RPC error reply.
            Some(read(DR) as u8)
        }
    }

    #[cfg_attr(feature = "echo-only", allow(dead_code))]
    /// Waits for at least one byte, then takes what the RX FIFO holds, up to
    /// `buf.len()` bytes. Returns how many were read (at least 1).
    pub fn read_some(&mut self, buf: &mut [u8]) -> usize {
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

    /// Sends one byte (waits while the TX FIFO is full).
    #[inline]
    pub fn write_byte(&mut self, b: u8) {
        while read(FR) & FR_TXFF != 0 {}
        write(DR, u32::from(b));
    }

    /// Sends all of `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_byte(b);
        }
    }

    /// Waits until everything written has left the shift register.
    pub fn flush(&mut self) {
        while read(FR) & (FR_TXFE | FR_BUSY) != FR_TXFE {}
    }
}
