//! Instructions per message, measured with SysTick.
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

/// Fraction bits of [`Ticks::scale`].
const SCALE_SHIFT: u32 = 12;

/// A free-running SysTick and its calibration.
pub struct Ticks {
    /// Instructions per SysTick tick, fixed point with `SCALE_SHIFT` fraction bits
    /// (QEMU's lm3s6965 SysTick runs at 12.5 MHz: 80 instructions a tick under
    /// `-icount shift=0`, so a count is good to about ±80 instructions).
    scale: u32,
}

/// The current SysTick value (it counts down).
#[inline(always)]
pub fn now() -> u32 {
    SYST::get_current()
}

/// SysTick ticks from `start` (an earlier [`now`]) to `end`.
#[inline(always)]
pub fn elapsed(start: u32, end: u32) -> u32 {
    start.wrapping_sub(end) & MASK
}

impl Ticks {
    /// Starts SysTick free-running on the core clock and calibrates it.
    pub fn start(mut syst: SYST) -> Self {
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(MASK);
        syst.clear_current();
        syst.enable_counter();
        let start = now();
        spin(CALIBRATION_LOOPS);
        let calibration = elapsed(start, now());
        // A u32 division (one `udiv`); `2 * CALIBRATION_LOOPS << SCALE_SHIFT` fits.
        let scale = ((2 * CALIBRATION_LOOPS) << SCALE_SHIFT)
            .checked_div(calibration)
            .unwrap_or(0);
        Ticks { scale }
    }

    /// `ticks` of SysTick as instructions (0 if SysTick does not run). A multiply
    /// and a shift: no 64-bit division, which would pull in ~900 bytes of
    /// `__aeabi_uldivmod`.
    pub fn instructions(&self, ticks: u32) -> u64 {
        (u64::from(ticks) * u64::from(self.scale)) >> SCALE_SHIFT
    }
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
