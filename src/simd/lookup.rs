//! Strict UTF-8 by nibble lookups, 32 bytes a vector, where the CPU has AVX2: the fast
//! build's check without `std` on x86_64 (`utf8.rs` asks [`is_utf8`] first, and falls
//! back to its SSE2 masks where this says `None`). AVX2 is not part of the x86_64
//! baseline, so the CPU is asked once (`cpuid`, and whether the system saves the
//! 256-bit registers, `xgetbv`; the answer kept in an atomic) unless the build enables
//! it already (`-C target-cpu=x86-64-v3`). SSSE3 has the same lookups on 16 bytes, but
//! without AVX's three-operand forms every step also copies a register: written and
//! measured, it cost about what the masks cost, so it is not kept (docs/perf/LOG.md).
//!
//! The rule is Keiser and Lemire's ("Validating UTF-8 in less than one instruction per
//! byte", 2021): every error UTF-8 can have shows in a pair of adjacent bytes, or is a
//! third or fourth byte of a character that is missing or extra. For each byte and the
//! one before it, three 16-entry tables, indexed by the high nibble of the byte before,
//! its low nibble, and the high nibble of the byte, each give the set of error kinds
//! (a bit each) the pair may be; their `and` is the kinds it is. `vpshufb` looks up 16
//! bytes in a table at once (in each 16-byte lane), so a vector costs three lookups
//! and a few shifts, whatever the mix of widths, with no branch on the data. The kinds:
//!
//! - a lead followed by a byte that is not a continuation (`TOO_SHORT`), and an ASCII
//!   byte followed by one (`TOO_LONG`);
//! - overlong forms: `C0`/`C1` then a continuation (`OVERLONG_2`), `E0` then
//!   `80..=9F` (`OVERLONG_3`), `F0` then `80..=8F` (`OVERLONG_4`);
//! - surrogates: `ED` then `A0..=BF` (`SURROGATE`);
//! - above U+10FFFF: `F4` then `90..=BF`, or `F5..=FF` then any continuation
//!   (`TOO_LARGE`, and `TOO_LARGE_1000` for the second bytes `80..=8F`, which only
//!   `F5` and up make too large);
//! - two continuation bytes in a row (`TWO_CONTS`): an error unless the second is the
//!   third or fourth byte of a character, which the bytes two and three places before
//!   say (a lead of three bytes or more two places before, of four three places
//!   before). That one is not a lookup: its bit is set where such a lead is, and the
//!   two must agree (`xor`).
//!
//! A character the input ends inside is an error too: the leads among the last three
//! bytes checked that still expect bytes are kept (`open`), an error unless more bytes
//! follow. A block of ASCII (no byte with its top bit) skips the lookups: only a
//! character left open by the block before is an error there.
//!
//! The unit tests (`utf8.rs`) pin [`is_utf8`] to `core::str::from_utf8` and to the
//! masks; the `simd` fuzz target does too.
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_permute2x128_si256, _mm256_set1_epi8,
    _mm256_setr_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_srli_epi16,
    _mm256_subs_epu8, _mm256_testz_si256, _mm256_xor_si256,
};

/// Whether `b` is UTF-8 (strict, as `core::str::from_utf8` has it); `None` where the
/// CPU has no AVX2 (the caller then checks another way).
#[inline]
pub(crate) fn is_utf8(b: &[u8]) -> Option<bool> {
    if !available() {
        return None;
    }
    // SAFETY: `check` only needs AVX2 (its `target_feature`), which `available` has
    // found the CPU runs and the system saves; it reads `b` through the safe slice API
    // and loads through `&[u8; 64]` references only.
    Some(unsafe { check(b) })
}

/// Whether the CPU runs AVX2: known at build time where the build enables it.
#[cfg(target_feature = "avx2")]
#[inline(always)]
pub(crate) fn available() -> bool {
    true
}

/// Whether the CPU runs AVX2, under Miri: no (Miri interprets no `cpuid`, and refuses a
/// call into code that needs a feature the build does not enable); the masks check.
#[cfg(all(not(target_feature = "avx2"), miri))]
#[inline(always)]
pub(crate) fn available() -> bool {
    false
}

/// Whether the CPU runs AVX2, asked once: `cpuid` costs a hundred cycles or more (and
/// exits a virtual machine), so the answer is kept, 0 while unknown, 1 no, 2 yes.
/// Relaxed order is enough: every thread that asks finds the same answer.
#[cfg(all(not(target_feature = "avx2"), not(miri)))]
#[inline(always)]
pub(crate) fn available() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering::Relaxed};
    static KNOWN: AtomicU8 = AtomicU8::new(0);
    match KNOWN.load(Relaxed) {
        2 => true,
        1 => false,
        _ => {
            let yes = detect();
            KNOWN.store(if yes { 2 } else { 1 }, Relaxed);
            yes
        }
    }
}

/// AVX2 is bit 5 of `ebx` in `cpuid` leaf 7, usable only where the system saves the
/// 256-bit registers on a switch: leaf 1 says it manages them (`OSXSAVE`, bit 27 of
/// `ecx`) and `xgetbv` that it saves the SSE and AVX state (bits 1 and 2 of XCR0).
#[cfg(all(not(target_feature = "avx2"), not(miri)))]
#[cold]
fn detect() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // `__cpuid` is an `unsafe fn` on older compilers and safe on newer ones.
    // SAFETY: every x86_64 CPU has `cpuid` with leaves 0 and 1; leaf 7 is asked only
    // where leaf 0 says it exists. The instruction only writes the four registers the
    // intrinsics return.
    #[allow(unused_unsafe)]
    let (leaf1, leaf7) = unsafe {
        let top = __cpuid(0).eax;
        let leaf7 = if top >= 7 { __cpuid_count(7, 0).ebx } else { 0 };
        (__cpuid(1).ecx, leaf7)
    };
    let osxsave = leaf1 & (1 << 27) != 0;
    // SAFETY: `xgetbv` faults unless the system set CR4.OSXSAVE, which leaf 1's bit 27
    // reports: it runs only where that bit is set. `xcr0` needs the XSAVE extension,
    // which OSXSAVE implies.
    let saves_ymm = osxsave && unsafe { xcr0() } & 0b110 == 0b110;
    leaf7 & (1 << 5) != 0 && saves_ymm
}

/// The XCR0 register: the state components the system saves.
///
/// # Safety
///
/// The system must have set CR4.OSXSAVE (`cpuid` leaf 1, bit 27 of `ecx`).
#[cfg(all(not(target_feature = "avx2"), not(miri)))]
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    core::arch::x86_64::_xgetbv(0)
}

// The error kinds, a bit each (see the module's text).
const TOO_SHORT: u8 = 1 << 0;
const TOO_LONG: u8 = 1 << 1;
const OVERLONG_3: u8 = 1 << 2;
const TOO_LARGE: u8 = 1 << 3;
const SURROGATE: u8 = 1 << 4;
const OVERLONG_2: u8 = 1 << 5;
const TOO_LARGE_1000: u8 = 1 << 6;
const OVERLONG_4: u8 = 1 << 6;
pub(super) const TWO_CONTS: u8 = 1 << 7;
/// The kinds that the low nibble of the byte before does not narrow.
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

/// By the high nibble of the byte before: what it may start or continue.
pub(super) const BEFORE_HIGH: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        t[n] = match n {
            // ASCII: followed by a continuation byte, one too many.
            0..=7 => TOO_LONG,
            0x8..=0xB => TWO_CONTS,
            0xC => TOO_SHORT | OVERLONG_2,
            0xD => TOO_SHORT,
            0xE => TOO_SHORT | OVERLONG_3 | SURROGATE,
            _ => TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
        };
        n += 1;
    }
    t
};

/// By the low nibble of the byte before: which leads of each high nibble are the
/// narrow ones (`C0`/`C1`, `E0`, `ED`, `F0`, `F4`, `F5` and up).
pub(super) const BEFORE_LOW: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        t[n] = CARRY
            | match n {
                0 => OVERLONG_2 | OVERLONG_3 | OVERLONG_4,
                1 => OVERLONG_2,
                2 | 3 => 0,
                4 => TOO_LARGE,
                0xD => TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
                _ => TOO_LARGE | TOO_LARGE_1000,
            };
        n += 1;
    }
    t
};

/// By the high nibble of the byte: which second bytes make each kind.
pub(super) const HIGH: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        t[n] = match n {
            // Not a continuation byte: only a lead before it is wrong.
            0..=7 | 0xC..=0xF => TOO_SHORT,
            0x8 => TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
            0x9 => TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
            _ => TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        };
        n += 1;
    }
    t
};

/// A 16-entry table in both 16-byte lanes, for `vpshufb` (which looks up within each).
#[inline(always)]
fn table(t: [u8; 16]) -> __m256i {
    let t = t.map(|x| x as i8);
    // SAFETY: arithmetic on values (no memory is read); the only caller, `Tables::new`,
    // runs where the CPU has AVX2.
    unsafe {
        _mm256_setr_epi8(
            t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13],
            t[14], t[15], t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11],
            t[12], t[13], t[14], t[15],
        )
    }
}

/// The constants of the check, made once per call (kept in registers by the loop).
#[derive(Clone, Copy)]
pub(super) struct Tables {
    before_high: __m256i,
    before_low: __m256i,
    high: __m256i,
    nibble: __m256i,
    /// Subtracted with saturation from the byte two before: a result of 0x80 or more
    /// exactly where it is 0xE0 or more (a lead of three bytes or more).
    third: __m256i,
    /// The same from the byte three before: 0xF0 or more (a lead of four).
    fourth: __m256i,
    /// Subtracted with saturation from the last vector: not zero where a lead still
    /// expects bytes after the vector's end (0xC0 and up in its last byte, 0xE0 and up
    /// in the one before, 0xF0 and up in the one before that).
    open: __m256i,
}

/// The rule on one vector `x`, `before` the vector before it: the errors found, a byte
/// each (zero where there are none). AVX2's byte shift (`vpalignr`) works within each
/// 16-byte lane, so the bytes before each lane's first come from `seam`, the high lane
/// of `before` then the low lane of `x` (`vperm2i128`).
///
/// # Safety
///
/// The CPU must run AVX2 (as for every function of this file with its
/// `target_feature`: only [`is_utf8`] calls in, after [`available`]).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn vector_errors(t: &Tables, x: __m256i, before: __m256i) -> __m256i {
    let seam = _mm256_permute2x128_si256::<0x21>(before, x);
    // The bytes that must be a third or fourth byte: their top bit set. (First, so
    // that the bytes two and three places before are done with before the lookups.)
    let must = _mm256_or_si256(
        _mm256_subs_epu8(_mm256_alignr_epi8::<14>(x, seam), t.third),
        _mm256_subs_epu8(_mm256_alignr_epi8::<13>(x, seam), t.fourth),
    );
    let must = _mm256_and_si256(must, _mm256_set1_epi8(TWO_CONTS as i8));
    // The byte before each byte of `x`.
    let prev1 = _mm256_alignr_epi8::<15>(x, seam);
    // No byte shift in AVX2: shift the 16-bit lanes and keep each byte's low nibble.
    let high_before = _mm256_and_si256(_mm256_srli_epi16::<4>(prev1), t.nibble);
    let low_before = _mm256_and_si256(prev1, t.nibble);
    let high = _mm256_and_si256(_mm256_srli_epi16::<4>(x), t.nibble);
    let kinds = _mm256_and_si256(
        _mm256_and_si256(
            _mm256_shuffle_epi8(t.before_high, high_before),
            _mm256_shuffle_epi8(t.before_low, low_before),
        ),
        _mm256_shuffle_epi8(t.high, high),
    );
    _mm256_xor_si256(kinds, must)
}

/// What the check carries from one block to the next.
pub(super) struct State {
    /// The errors found so far, or-ed (zero while there are none).
    errors: __m256i,
    /// The last vector of the last block that was not ASCII (zero before one): its
    /// leads that expect bytes after it ([`Tables::open`]) are asked of it only after
    /// an ASCII block and at the end, not in the loop over non-ASCII blocks.
    before: __m256i,
}

/// The rule on one 64-byte block, two vectors of 32.
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn block_rule(t: &Tables, block: &[u8; 64], state: &mut State) {
    let p = block.as_ptr();
    // SAFETY: two 32-byte unaligned reads at offsets 0 and 32 of a `&[u8; 64]`: the
    // second ends at byte 64, so both are in bounds and initialised. AVX2 is enabled
    // (this function's `target_feature`).
    let (low, high) = unsafe {
        (
            _mm256_loadu_si256(p.cast::<__m256i>()),
            _mm256_loadu_si256(p.add(32).cast::<__m256i>()),
        )
    };
    vectors_rule(t, low, high, state);
}

/// The rule on the 64 bytes of `low` then `high` (a block, loaded by the caller).
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn vectors_rule(t: &Tables, low: __m256i, high: __m256i, state: &mut State) {
    state.errors = _mm256_or_si256(state.errors, block_errors(t, low, high, state));
}

/// The errors [`vectors_rule`] finds in the 64 bytes of `low` then `high`, returned
/// rather than or-ed into `state` (whose `before` it carries on): for a loop that
/// asks of each block whether it has any ([`none`]), and keeps no vector of errors
/// live across its blocks.
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn block_errors(
    t: &Tables,
    low: __m256i,
    high: __m256i,
    state: &mut State,
) -> __m256i {
    // No byte with its top bit (`vptest` against the rule's own 0x80, one instruction
    // fewer than a mask move and a test).
    let top = _mm256_set1_epi8(TWO_CONTS as i8);
    if _mm256_testz_si256(_mm256_or_si256(low, high), top) == 1 {
        // ASCII: only a character the block before left open is wrong. `before` is
        // left as it is (nothing to reset): where it leaves a character open the
        // error is found already, and where it does not its last bytes are
        // ASCII, continuation bytes, a lead of two or three bytes before its last byte,
        // or one of four before its last two, which make no third or fourth byte
        // expected and find a continuation byte next wrong, exactly as the ASCII block
        // between would.
        return _mm256_subs_epu8(state.before, t.open);
    }
    let e = _mm256_or_si256(
        vector_errors(t, low, state.before),
        vector_errors(t, high, low),
    );
    state.before = high;
    e
}

/// Whether `errors` ([`block_errors`]) has none.
///
/// # Safety
///
/// The CPU must run AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn none(errors: __m256i) -> bool {
    _mm256_testz_si256(errors, errors) == 1
}

impl Tables {
    /// The tables and constants.
    ///
    /// # Safety
    ///
    /// The CPU must run AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn new() -> Tables {
        Tables {
            before_high: table(BEFORE_HIGH),
            before_low: table(BEFORE_LOW),
            high: table(HIGH),
            nibble: _mm256_set1_epi8(0x0F),
            third: _mm256_set1_epi8((0xE0u8 - 0x80) as i8),
            fourth: _mm256_set1_epi8((0xF0u8 - 0x80) as i8),
            open: {
                // The high lane's last three bytes; 0xFF (never open) elsewhere.
                let mut max = [0xFFu8; 32];
                max[29] = 0xF0 - 1;
                max[30] = 0xE0 - 1;
                max[31] = 0xC0 - 1;
                // SAFETY: an unaligned 32-byte read of a `[u8; 32]`; AVX2 is enabled.
                unsafe { _mm256_loadu_si256(max.as_ptr().cast::<__m256i>()) }
            },
        }
    }
}

impl State {
    /// Before the first block: no error, and the bytes before it taken as ASCII.
    ///
    /// # Safety
    ///
    /// The CPU must run AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn new() -> State {
        State {
            errors: _mm256_setzero_si256(),
            before: _mm256_setzero_si256(),
        }
    }

    /// Whether the bytes checked so far are UTF-8, ending where a character ends.
    ///
    /// # Safety
    ///
    /// The CPU must run AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn is_utf8(&self, t: &Tables) -> bool {
        let errors = _mm256_or_si256(self.errors, _mm256_subs_epu8(self.before, t.open));
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(errors, _mm256_setzero_si256())) == -1
    }
}

/// The check: see the module's text.
///
/// # Safety
///
/// The CPU must run AVX2.
#[target_feature(enable = "avx2")]
unsafe fn check(b: &[u8]) -> bool {
    let t = Tables::new();
    let mut state = State::new();
    let mut blocks = b.chunks_exact(64);
    for block in &mut blocks {
        if let Ok(block) = <&[u8; 64]>::try_from(block) {
            block_rule(&t, block, &mut state);
        }
    }
    // The last bytes, padded with zeros (ASCII: a character they cut is still open
    // after them, and the zeros find it so).
    let rest = blocks.remainder();
    if !rest.is_empty() {
        block_rule(&t, &super::padded(rest), &mut state);
    }
    state.is_utf8(&t)
}
