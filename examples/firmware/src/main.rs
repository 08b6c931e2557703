//! JSON-RPC 2.0 over a UART, one firmware for three microcontrollers as QEMU models
//! them: the `jsonrpc-slice` codec in a real no_std, no-alloc firmware, with its flash,
//! RAM and stack measured on each (see README.md).
//!
//! | feature | chip | QEMU machine | target |
//! |---|---|---|---|
//! | `lm3s6965` | TI LM3S6965, Cortex-M3 | `lm3s6965evb` | `thumbv7m-none-eabi` |
//! | `microbit` | Nordic nRF51822, Cortex-M0 | `microbit` | `thumbv6m-none-eabi` |
//! | `sifive_e` | SiFive FE310, RV32IMAC | `sifive_e` | `riscv32imac-unknown-none-elf` |
//!
//! Boot: the UART up, then the message `{"jsonrpc":"2.0","method":"ready"}`; from then
//! on one JSON-RPC message per frame in, one reply per frame out (none for a
//! notification). Frames are lines, or with the `cobs` feature COBS frames whose
//! payload ends in its CRC-32. The `echo-only` feature swaps the JSON-RPC path for a
//! byte echo, the baseline the codec's flash share is measured against.
#![no_std]
#![no_main]

mod board;

#[cfg(not(feature = "echo-only"))]
mod cell;
#[cfg(feature = "host-call")]
mod host_call;
#[cfg(not(feature = "echo-only"))]
mod rpc;
#[cfg(not(feature = "echo-only"))]
mod stack;

#[cfg(feature = "defmt")]
use defmt_semihosting as _;

#[cfg(feature = "echo-only")]
use board::Serial;
use board::{exit, Uart};

/// The first message on the UART once it is up: a notification from the device.
#[cfg_attr(feature = "echo-only", allow(dead_code))]
const READY: &[u8] = br#"{"jsonrpc":"2.0","method":"ready"}"#;

/// What every board's entry point calls once the runtime is set up.
fn start() -> ! {
    let uart = Uart::init();
    #[cfg(feature = "host-call")]
    let uart = host_call::run(uart);
    // The instruction counter is the board's, so the baseline starts it too.
    let clock = board::Clock::start();
    #[cfg(not(feature = "echo-only"))]
    rpc::run(uart, clock);
    #[cfg(feature = "echo-only")]
    echo(uart, clock);
}

/// The `echo-only` baseline: the ready line, then every byte back as it came; EOT
/// (Ctrl-D) exits. The clock is kept running, as the JSON-RPC build keeps it.
#[cfg(feature = "echo-only")]
fn echo(mut uart: Uart, _clock: board::Clock) -> ! {
    uart.write_all(READY);
    uart.write_byte(b'\n');
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
