//! The LM3S6965's devices behind the MCP image's tools (`--features mcp`): the ADC,
//! one conversion at a time, started by general-purpose timer 0; and the EK-LM3S6965's
//! status LED on PF0.
//!
//! QEMU's `lm3s6965evb` models both: its ADC converts on a timer trigger (it does not
//! model the processor trigger, `ADCPSSI`), and gives 512 to 519 on every channel (a
//! fixed level with a little noise; it models no analog inputs); its GPIO port reads
//! back what was written to an output pin. On silicon the same code reads the
//! channel's pin and drives the LED.
//!
//! Datasheet: LM3S6965, "Analog-to-Digital Converter", "General-Purpose Timers",
//! "General-Purpose Input/Outputs".

use super::{read, write};

/// Run-mode clock gating: ADC0 (bit 16) in RCGC0, timer 0 (bit 16) in RCGC1, GPIO
/// port F (bit 5) in RCGC2.
const SYSCTL_RCGC0: usize = 0x400F_E100;
const SYSCTL_RCGC1: usize = 0x400F_E104;
const SYSCTL_RCGC2: usize = 0x400F_E108;

const TIMER0: usize = 0x4003_0000;
const TIMER_CFG: usize = TIMER0;
const TIMER_TAMR: usize = TIMER0 + 0x004;
const TIMER_CTL: usize = TIMER0 + 0x00C;
const TIMER_TAILR: usize = TIMER0 + 0x028;
/// CTL: timer A enabled (TAEN), and its time-out triggers the ADC (TAOTE).
const TIMER_CTL_TAEN_TAOTE: u32 = (1 << 0) | (1 << 5);

const ADC0: usize = 0x4003_8000;
const ADC_ACTSS: usize = ADC0;
const ADC_RIS: usize = ADC0 + 0x004;
const ADC_ISC: usize = ADC0 + 0x00C;
const ADC_EMUX: usize = ADC0 + 0x014;
const ADC_SSMUX0: usize = ADC0 + 0x040;
const ADC_SSCTL0: usize = ADC0 + 0x044;
const ADC_SSFIFO0: usize = ADC0 + 0x048;
/// EMUX: sample sequencer 0 starts on a timer's trigger.
const ADC_EMUX_TIMER: u32 = 0x5;
/// SSCTL0: the first sample is the sequence's last (END0) and raises its flag (IE0).
const ADC_SSCTL0_END0_IE0: u32 = 0b110;

/// GPIO port F, bit 0 (the board's status LED): DATA through the address mask of bit
/// 0 (bits 9:2 of the address select the bits a data access touches).
const GPIOF: usize = 0x4002_5000;
const GPIOF_DATA_PF0: usize = GPIOF + (1 << 2);
const GPIOF_DIR: usize = GPIOF + 0x400;
const GPIOF_DEN: usize = GPIOF + 0x51C;

/// Timer ticks from the start of a conversion to its trigger.
const TRIGGER_TICKS: u32 = 100;
/// Polls of the ADC's flag before a conversion is given up: far more than one
/// conversion takes, so only a dead ADC reaches it.
const ADC_POLLS: u32 = 1_000_000;

/// The ADC's channels (AIN0 to AIN3).
pub const ADC_CHANNELS: u8 = 4;

/// The ADC and the LED, clocked and set up. There is one (made by [`Io::init`]).
pub struct Io(());

impl Io {
    /// Clocks the ADC, timer 0 and GPIO port F; makes PF0 an output, off.
    pub fn init() -> Self {
        write(SYSCTL_RCGC0, read(SYSCTL_RCGC0) | 1 << 16);
        write(SYSCTL_RCGC1, read(SYSCTL_RCGC1) | 1 << 16);
        write(SYSCTL_RCGC2, read(SYSCTL_RCGC2) | 1 << 5);
        // A few cycles must pass after gating a clock on before its registers answer.
        let _ = read(SYSCTL_RCGC2);
        write(GPIOF_DIR, read(GPIOF_DIR) | 1);
        write(GPIOF_DEN, read(GPIOF_DEN) | 1);
        write(GPIOF_DATA_PF0, 0);
        // Sequencer 0: one sample, on a timer trigger.
        write(ADC_ACTSS, 0);
        write(ADC_EMUX, ADC_EMUX_TIMER);
        write(ADC_SSCTL0, ADC_SSCTL0_END0_IE0);
        write(ADC_ACTSS, 1);
        // Timer A: 32 bits, one-shot.
        write(TIMER_CTL, 0);
        write(TIMER_CFG, 0);
        write(TIMER_TAMR, 1);
        Io(())
    }

    /// One conversion of `channel` (below [`ADC_CHANNELS`]): the 10-bit value, or
    /// `None` if the ADC did not answer.
    pub fn convert(&mut self, channel: u8) -> Option<u16> {
        write(ADC_SSMUX0, u32::from(channel & (ADC_CHANNELS - 1)));
        write(ADC_ISC, 1);
        write(TIMER_TAILR, TRIGGER_TICKS);
        write(TIMER_CTL, TIMER_CTL_TAEN_TAOTE);
        let mut polls = ADC_POLLS;
        while read(ADC_RIS) & 1 == 0 {
            polls -= 1;
            if polls == 0 {
                write(TIMER_CTL, 0);
                return None;
            }
        }
        write(TIMER_CTL, 0);
        write(ADC_ISC, 1);
        Some((read(ADC_SSFIFO0) & 0x3FF) as u16)
    }

    /// Drives the LED, then reads the pin back: what it now is.
    pub fn set_led(&mut self, on: bool) -> bool {
        write(GPIOF_DATA_PF0, u32::from(on));
        read(GPIOF_DATA_PF0) & 1 != 0
    }
}
