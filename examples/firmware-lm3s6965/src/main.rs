//! JSON-RPC 2.0 over UART0 on a TI Stellaris LM3S6965 (Cortex-M3), as QEMU's
//! `lm3s6965evb` machine models it: the `jsonrpc-slice` codec in a real no_std,
//! no-alloc firmware, with its flash, RAM and stack measured (see README.md).
//!
//! Boot: UART0 up, then the line `{"jsonrpc":"2.0","method":"ready"}`; from then on
//! one JSON-RPC message per line in, one reply per line out (none for a
//! notification). The `echo-only` feature swaps the JSON-RPC path for a byte echo,
//! the baseline the codec's flash share is measured against.
#![no_std]
#![no_main]

mod uart;

#[cfg(not(feature = "echo-only"))]
mod cell;
#[cfg(not(feature = "echo-only"))]
mod cycles;
#[cfg(not(feature = "echo-only"))]
mod rpc;
#[cfg(not(feature = "echo-only"))]
mod stack;

#[cfg(feature = "defmt")]
use defmt_semihosting as _;

use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::debug;

/// The first line written on UART0 once it is up: a notification from the device.
const READY: &[u8] = br#"{"jsonrpc":"2.0","method":"ready"}"#;

#[entry]
fn main() -> ! {
    let Some(core) = cortex_m::Peripherals::take() else {
        exit(false)
    };
    let mut uart = uart::Uart::init();

    #[cfg(not(feature = "echo-only"))]
    let ticks = cycles::Ticks::start(core.SYST);
    #[cfg(feature = "echo-only")]
    let _ = core;

    uart.write_all(READY);
    uart.write_byte(b'\n');
    #[cfg(all(feature = "defmt", not(feature = "echo-only")))]
    defmt::info!("ready; stack {=usize} bytes", stack::size());

    #[cfg(not(feature = "echo-only"))]
    rpc::run(uart, ticks);
    #[cfg(feature = "echo-only")]
    echo(uart);
}

/// The `echo-only` baseline: every byte back as it came; EOT (Ctrl-D) exits.
#[cfg(feature = "echo-only")]
fn echo(mut uart: uart::Uart) -> ! {
    loop {
        if let Some(b) = uart.try_read() {
            if b == 0x04 {
                uart.flush();
                exit(true);
            }
            uart.write_byte(b);
        }
    }
}

/// Ends the program: QEMU exits with status 0 (`ok`) or 1, through semihosting.
pub fn exit(ok: bool) -> ! {
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Only reached without a semihosting host (no QEMU, no debugger attached).
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    #[cfg(feature = "defmt")]
    defmt::error!("panic: {}", defmt::Display2Format(_info));
    exit(false)
}

#[cfg(feature = "defmt")]
#[defmt::panic_handler]
fn defmt_panic() -> ! {
    exit(false)
}

#[exception]
unsafe fn HardFault(_frame: &ExceptionFrame) -> ! {
    #[cfg(feature = "defmt")]
    defmt::error!("HardFault at pc {=u32:#010x}", _frame.pc());
    exit(false)
}

#[exception]
unsafe fn DefaultHandler(_irqn: i16) {
    #[cfg(feature = "defmt")]
    defmt::error!("unexpected exception {=i16}", _irqn);
    exit(false)
}
