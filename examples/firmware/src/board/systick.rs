//! Instructions per message, measured with SysTick (the LM3S6965's counter).
//!
//! QEMU models neither DWT's cycle counter nor cycles at all, but with
//! `-icount shift=0` its virtual clock advances exactly 1 ns per guest instruction,
//! and SysTick (on the core clock) counts that virtual time. So a SysTick delta,
//! scaled by a calibration loop of known instruction count, is an instruction count.
//! Without `-icount` the numbers follow the host's wall clock and mean nothing.

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;

/// SysTick's current-value register is 24 bits wide.
const MASK: u32 = 0x00FF_FFFF;
/// Iterations of the calibration loop (2 instructions each).
const CALIBRATION_LOOPS: u32 = 50_000;

/// Fraction bits of [`Clock::scale`].
const SCALE_SHIFT: u32 = 12;

/// A free-running SysTick and its calibration.
pub struct Clock {
    /// Instructions per SysTick tick, fixed point with `SCALE_SHIFT` fraction bits
    /// (QEMU's lm3s6965 SysTick runs at 12.5 MHz: 80 instructions a tick under
    /// `-icount shift=0`, so a count is good to about ±80 instructions).
    scale: u32,
}

impl Clock {
    /// Starts SysTick free-running on the core clock and calibrates it.
    pub fn start() -> Self {
        let Some(core) = cortex_m::Peripherals::take() else {
            super::exit(false)
        };
        let mut syst = core.SYST;
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(MASK);
        syst.clear_current();
        syst.enable_counter();
        let start = SYST::get_current();
        spin(CALIBRATION_LOOPS);
        let calibration = elapsed(start, SYST::get_current());
        // A u32 division (one `udiv`); `2 * CALIBRATION_LOOPS << SCALE_SHIFT` fits.
        let scale = ((2 * CALIBRATION_LOOPS) << SCALE_SHIFT)
            .checked_div(calibration)
            .unwrap_or(0);
        Clock { scale }
    }

    /// The current SysTick value (it counts down).
    #[inline(always)]
    #[cfg_attr(feature = "echo-only", allow(dead_code))]
    pub fn now(&self) -> u32 {
        SYST::get_current()
    }

    /// Instructions between two readings (0 if SysTick does not run). A multiply
    /// and a shift: no 64-bit division, which would pull in ~900 bytes of
    /// `__aeabi_uldivmod`.
    #[cfg_attr(feature = "echo-only", allow(dead_code))]
    pub fn instructions(&self, start: u32, end: u32) -> u32 {
        ((u64::from(elapsed(start, end)) * u64::from(self.scale)) >> SCALE_SHIFT) as u32
    }
}

/// SysTick ticks from `start` to `end` (it counts down, 24 bits).
#[inline(always)]
fn elapsed(start: u32, end: u32) -> u32 {
    start.wrapping_sub(end) & MASK
}

/// Runs `2 * loops` instructions.
#[inline(never)]
fn spin(loops: u32) {
    let mut n = loops;
    // SAFETY: a register-only countdown loop: it touches no memory and no stack,
    // and leaves the flags clobbered, which `asm!` assumes by default.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {n}, #1",
            "bne 2b",
            n = inout(reg) n,
            options(nomem, nostack),
        );
    }
    let _ = n;
}
