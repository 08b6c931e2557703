//! The Cortex-M boards (LM3S6965, nRF51): cortex-m-rt's start-up (it paints the
//! stack before `main`), exit through semihosting, the fault handlers.

use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::debug;

#[entry]
fn main() -> ! {
    crate::start()
}

/// Ends the program: QEMU exits with status 0 (`ok`) or 1, through semihosting.
// Out of line: one copy of the call sequence, where inlined the serve loop carried one
// at each of its two exits (the codec's flash share counts them).
#[inline(never)]
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
