//! UART0 of the LM3S6965 (an ARM PL011 at `0x4000_C000`), interrupt-driven: the
//! receive interrupt moves bytes from the RX FIFO into a ring the reader awaits; the
//! writer fills the TX FIFO and, when it is full, awaits the transmit interrupt.
//!
//! The register addresses and the set-up are those of `examples/firmware`'s
//! `src/board/lm3s6965.rs` (copied; the interrupt part is this file's own). Datasheet: LM3S6965, "Universal Asynchronous Receivers/Transmitters".

use core::cell::RefCell;
use core::future::poll_fn;
use core::task::Poll;

use cortex_m::interrupt::InterruptNumber;
use cortex_m::peripheral::NVIC;
use critical_section::Mutex;
use embassy_sync::waitqueue::AtomicWaker;

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
/// Interrupt mask (a set bit enables the interrupt), and interrupt clear.
const IM: usize = UART0 + 0x038;
const ICR: usize = UART0 + 0x044;

const FR_TXFE: u32 = 1 << 7;
const FR_TXFF: u32 = 1 << 5;
const FR_RXFE: u32 = 1 << 4;
const FR_BUSY: u32 = 1 << 3;
/// 8 data bits, FIFOs on (no parity, one stop bit).
const LCRH_8N1_FIFO: u32 = (0b11 << 5) | (1 << 4);
/// UART, transmitter and receiver enabled.
const CTL_UARTEN_TXE_RXE: u32 = (1 << 0) | (1 << 8) | (1 << 9);
/// Receive, transmit and receive-timeout interrupts.
const IM_RX: u32 = 1 << 4;
const IM_TX: u32 = 1 << 5;
const IM_RT: u32 = 1 << 6;

/// 115 200 baud from the 12 MHz reset clock (QEMU's model ignores the divisors).
const BAUD_IBRD: u32 = 6;
const BAUD_FBRD: u32 = 33;

/// UART0's interrupt: IRQ 5 of the LM3S6965.
#[derive(Copy, Clone)]
pub struct Uart0Irq;

// SAFETY: 5 is UART0's position in the LM3S6965's vector table.
unsafe impl InterruptNumber for Uart0Irq {
    fn number(self) -> u16 {
        5
    }
}

fn read(addr: usize) -> u32 {
    // SAFETY: only called with the aligned addresses of the LM3S6965 registers above,
    // which are always mapped; a DR read pops the RX FIFO, which is what the caller
    // wants.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

fn write(addr: usize, value: u32) {
    // SAFETY: as for `read`: fixed, aligned, always-mapped peripheral registers.
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}

/// Sets (`on`) or clears `bits` of the interrupt mask, in a critical section (the
/// handler changes it too).
fn mask(bits: u32, on: bool) {
    critical_section::with(|_| {
        let im = read(IM);
        write(IM, if on { im | bits } else { im & !bits });
    });
}

/// Received bytes, between the interrupt handler and the reader.
struct Ring {
    buf: [u8; 128],
    head: usize,
    len: usize,
}

static RX: Mutex<RefCell<Ring>> = Mutex::new(RefCell::new(Ring {
    buf: [0; 128],
    head: 0,
    len: 0,
}));
static RX_WAKER: AtomicWaker = AtomicWaker::new();
static TX_WAKER: AtomicWaker = AtomicWaker::new();

/// UART0's interrupt handler: the RX FIFO into the ring (when the ring is full the
/// receive interrupt is masked and the bytes wait in the FIFO, then on the wire:
/// nothing is dropped), and the TX interrupt to the writer.
pub fn on_interrupt() {
    critical_section::with(|cs| {
        let mut ring = RX.borrow_ref_mut(cs);
        while read(FR) & FR_RXFE == 0 {
            if ring.len == ring.buf.len() {
                write(IM, read(IM) & !(IM_RX | IM_RT));
                break;
            }
            let at = (ring.head + ring.len) % ring.buf.len();
            // Bits 8..12 are error flags: the byte is kept either way; a damaged
            // frame gets a JSON-RPC error reply.
            ring.buf[at] = read(DR) as u8;
            ring.len += 1;
        }
    });
    write(ICR, IM_RX | IM_RT);
    RX_WAKER.wake();
    if read(IM) & IM_TX != 0 && read(FR) & FR_TXFF == 0 {
        mask(IM_TX, false);
        TX_WAKER.wake();
    }
}

/// Clocks UART0 and its pins, sets 115 200 8N1 with FIFOs, enables it and its receive
/// interrupts: the two halves of the transport.
pub fn init() -> (Rx, Tx) {
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
    write(IM, IM_RX | IM_RT);
    // SAFETY: the handler only touches the ring (in a critical section), the UART's
    // registers and the wakers; unmasking it cannot break a critical section.
    unsafe { NVIC::unmask(Uart0Irq) };
    (Rx(()), Tx { reply: false })
}

/// The receiving half.
pub struct Rx(());

impl jsonrpc_slice::service::concurrent::Read for Rx {
    type Error = core::convert::Infallible;

    /// Waits for at least one byte (the interrupt's), then takes what the ring holds.
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        poll_fn(|cx| {
            RX_WAKER.register(cx.waker());
            let n = critical_section::with(|cs| {
                let mut ring = RX.borrow_ref_mut(cs);
                let n = ring.len.min(buf.len());
                for slot in buf.iter_mut().take(n) {
                    *slot = ring.buf[ring.head];
                    ring.head = (ring.head + 1) % ring.buf.len();
                    ring.len -= 1;
                }
                n
            });
            if n == 0 {
                return Poll::Pending;
            }
            // Room again: let the interrupt take what waits in the FIFO.
            mask(IM_RX | IM_RT, true);
            NVIC::pend(Uart0Irq);
            Poll::Ready(Ok(n))
        })
        .await
    }
}

/// The transmitting half.
pub struct Tx {
    /// The message being written is a result (not a notification).
    reply: bool,
}

impl jsonrpc_slice::service::concurrent::Write for Tx {
    type Error = core::convert::Infallible;

    async fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error> {
        if bytes.first() == Some(&b'{') {
            self.reply = bytes.starts_with(br#"{"jsonrpc":"2.0","result""#);
        }
        for &b in bytes {
            // The TX FIFO full: wait for its interrupt (QEMU's model sends at once).
            poll_fn(|cx| {
                if read(FR) & FR_TXFF == 0 {
                    return Poll::Ready(());
                }
                TX_WAKER.register(cx.waker());
                mask(IM_TX, true);
                Poll::Pending
            })
            .await;
            write(DR, u32::from(b));
        }
        Ok(())
    }

    /// Waits until everything written has left the shift register (at most a FIFO's
    /// worth of bytes: a short busy wait). A result sent once `shutdown` ran is its
    /// reply (no other request is in flight then): the program ends.
    async fn flush(&mut self) -> Result<(), Self::Error> {
        while read(FR) & (FR_TXFE | FR_BUSY) != FR_TXFE {}
        if self.reply && crate::shutting_down() {
            crate::exit(true);
        }
        Ok(())
    }
}
