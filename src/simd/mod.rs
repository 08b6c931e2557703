//! The inner byte-class loops of the scanner and the writer, per target.
//!
//! Everything else in the crate reads bytes one grammar step at a time; the loops here
//! run over whole classes of bytes and are the only code that differs by target. Each
//! routine has a scalar body in [`scalar`] (the compact build's, and the oracle every
//! other body is tested against) and, where the build has one, a faster body:
//!
//! | build | body | file |
//! |---|---|---|
//! | compact (32-bit targets, the firmware) | one byte at a time | `scalar.rs` |
//! | fast, x86_64 (SSE2 is part of the architecture) | 16 bytes, the next 32, then 64 at a time, SSE2 | `sse2.rs` |
//! | fast, aarch64 with NEON (the baseline of every aarch64 target but the `softfloat` ones) | 16 bytes, then 64 at a time, NEON | `neon.rs` |
//! | fast, any other 64-bit target | 8 bytes at a time in a `u64` | `swar.rs` |
//!
//! Built with `-C target-cpu=x86-64-v3` (AVX2, BMI1, BMI2), the SSE2 bodies get the VEX
//! encoding and the scanner BMI's shifts and bit scans; nothing here picks a wider copy
//! at run time (docs/perf/LOG.md has why). Two routines do pick by the CPU, on x86_64
//! where `cpuid` says it has AVX2 (`lookup.rs`, asked once): the UTF-8 check of the
//! fast build without `std` (`lookup.rs`; by SSE2's masks elsewhere, `utf8.rs`), and
//! the scanner's long strings, whose classes and UTF-8 are then found in one pass
//! (`string_avx2.rs`, or `string_avx512.rs` where the CPU has AVX-512 and the
//! compiler its intrinsics, [`string_blocks_utf8`]; elsewhere [`string_classes`] and
//! [`is_utf8`], two passes).
//!
//! The SIMD bodies are the only `unsafe` code of the crate (the intrinsics are `unsafe`
//! functions, and a vector load reads through a raw pointer), with one more block: the
//! `&str` of the fast build's `utf8_str` without `std`, from the crate's own UTF-8
//! check's yes (`build_fast.rs`); each `unsafe` block says why it is sound. Every body stops at exactly the byte its scalar twin
//! stops at.
//!
//! # Contract
//!
//! - Every routine takes any slice and any offset and never panics; an offset at or
//!   past the end returns the length of the slice ([`string_classes`] takes a 64-byte
//!   block, which the caller cuts from the slice).
//! - Every body of a routine returns exactly what its scalar twin returns, on every
//!   input: `cargo test` pins every body the host can run to the scalar one (and Miri
//!   runs those tests in CI), and the `simd` fuzz target does too.
//!
//! # Routines
//!
//! - [`plain_end`]: the end of a run of string content that needs no attention when
//!   writing: the first `"`, `\` or control character (below 0x20).
//! - [`plain_ascii_end`]: the same, also stopping at a non-ASCII byte (the start of a
//!   UTF-8 sequence the scanner must check).
//! - [`plain_ascii_mask`]: the stops of [`plain_ascii_end`] among 16 bytes, as a mask
//!   (the scanner's strings with escapes, in the last 64 bytes of the input).
//! - [`string_classes`]: the quotes, backslashes and control or non-ASCII bytes of a
//!   64-byte block, one mask each (the scanner's strings with escapes, block by block).
//! - [`string_blocks_utf8`]: a string's blocks, the same classes and the UTF-8 check
//!   in one pass, the scanner's step for each block run inside the loop (AVX2 or
//!   AVX-512 only).
//! - [`plain_bits`], [`backslash_bits`]: the stops of [`plain_end`], and the
//!   backslashes, of a 64-byte block as a mask (the writer's escaping and the decoder
//!   of strings, a block at a time).
//!
//! These four have an SSE2 body and the scalar one only: the NEON and SWAR builds use
//! the scalar body, a byte at a time (no NEON or SWAR body is written for them).

pub(crate) mod scalar;

// Each body is compiled where its build uses it, and wherever the tests and the fuzz
// target can pin it to the scalar one.
#[cfg(all(
    target_arch = "aarch64",
    target_feature = "neon",
    any(jsonrpc_slice_fast, test, fuzzing)
))]
pub(crate) mod neon;
#[cfg(all(
    target_arch = "x86_64",
    target_feature = "sse2",
    any(jsonrpc_slice_fast, test, fuzzing)
))]
// The compact build's fuzz targets pin only its runs (`fuzzing::bodies`), not its
// block routines, which only the fast build's scanner calls.
#[cfg_attr(all(fuzzing, not(jsonrpc_slice_fast), not(test)), allow(dead_code))]
pub(crate) mod sse2;
#[cfg(any(jsonrpc_slice_fast, test, fuzzing))]
pub(crate) mod swar;
// The fast build's UTF-8 check without `std`: compiled wherever the tests and the fuzz
// target can pin it to `core`'s.
#[cfg(any(jsonrpc_slice_fast, test, fuzzing))]
pub(crate) mod utf8;
// The UTF-8 check by nibble lookups where an x86_64 CPU has AVX2 (asked at run time):
// `utf8.rs` tries it first.
#[cfg(all(target_arch = "x86_64", any(jsonrpc_slice_fast, test, fuzzing)))]
#[cfg_attr(all(feature = "std", not(test), not(fuzzing)), allow(dead_code))]
pub(crate) mod lookup;
// A string's classes and its UTF-8 in one pass where an x86_64 CPU has AVX2 (asked at
// run time): the fast build's scanner tries it first on the rest of a long string.
#[cfg(all(target_arch = "x86_64", any(jsonrpc_slice_fast, test, fuzzing)))]
#[cfg_attr(all(fuzzing, not(jsonrpc_slice_fast), not(test)), allow(dead_code))]
pub(crate) mod string_avx2;
// The same loop on 64-byte vectors where an x86_64 CPU has AVX-512 (asked at run
// time) and the compiler its intrinsics (`build.rs`): tried before the AVX2 one.
#[cfg(all(
    target_arch = "x86_64",
    jsonrpc_slice_avx512,
    any(jsonrpc_slice_fast, test, fuzzing)
))]
#[cfg_attr(all(fuzzing, not(jsonrpc_slice_fast), not(test)), allow(dead_code))]
// Compiled only by Rust 1.89 and up, whatever the crate's MSRV: Clippy is told so.
#[clippy::msrv = "1.89"]
pub(crate) mod string_avx512;
// What the build takes of the bodies, and on the fast build the routines only its
// scanner calls (`plain_ascii_mask`, `string_classes`, `is_utf8`): one file each, all
// of it re-exported here.
#[cfg_attr(jsonrpc_slice_fast, path = "build_fast.rs")]
#[cfg_attr(not(jsonrpc_slice_fast), path = "build_compact.rs")]
mod build;

/// For the scanner's tests, which run the AVX2 one-pass loop too where the CPU has
/// AVX-512.
#[cfg(all(test, jsonrpc_slice_fast))]
pub(crate) use build::loop_choice::with_avx2_only;
pub(crate) use build::*;

/// The last bytes of a loop over 64-byte blocks, `rest` (fewer than 64), as a block
/// padded with zeros: ASCII, which stops no string and leaves a UTF-8 sequence the
/// end cuts open. (All zeros if `rest` were longer.)
#[cfg(any(jsonrpc_slice_fast, test, fuzzing))]
#[inline(always)]
pub(crate) fn padded(rest: &[u8]) -> [u8; 64] {
    let mut block = [0u8; 64];
    if let Some(head) = block.get_mut(..rest.len()) {
        head.copy_from_slice(rest);
    }
    block
}

/// The offset of the first byte at or after `i` that is `"`, `\` or below 0x20, or
/// `b.len()` if there is none.
#[inline]
pub(crate) fn plain_end(b: &[u8], i: usize) -> usize {
    body::plain_end(b, i)
}

/// The offset of the first byte at or after `i` that is `"`, `\`, below 0x20 or
/// non-ASCII (0x80 and above), or `b.len()` if there is none.
#[inline]
pub(crate) fn plain_ascii_end(b: &[u8], i: usize) -> usize {
    body::plain_ascii_end(b, i)
}

/// A `u64` with each byte 1: `ONES * b` has each byte `b`.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The top bit of each byte.
const HIGH: u64 = ONES * 0x80;

/// The top bit of each byte of `y` that is zero: exact for the lowest such byte; a
/// byte above it may be flagged wrongly, where the subtraction's borrow reaches (the
/// word routines read the lowest flag only).
#[inline(always)]
const fn zero_bytes(y: u64) -> u64 {
    y.wrapping_sub(ONES) & !y & HIGH
}

/// The offset of the first `byte` in `b`, eight bytes at a time (the message ends of
/// an outbox's queued bytes and of a WebSocket's replies, searched in every message).
#[cfg_attr(not(feature = "concurrent"), allow(dead_code))]
pub(crate) fn find_byte(b: &[u8], byte: u8) -> Option<usize> {
    let pattern = ONES * u64::from(byte);
    let mut words = b.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let Ok(word) = <[u8; 8]>::try_from(word) else {
            break;
        };
        // Zero where `byte` is.
        let found = zero_bytes(u64::from_le_bytes(word) ^ pattern);
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let rest = words.remainder().iter().position(|&c| c == byte)?;
    Some(at + rest)
}

/// Every body, for the `simd` fuzz target (cargo-fuzz builds with `--cfg fuzzing`),
/// which pins them to the scalar one: not part of the API.
#[cfg(fuzzing)]
pub mod fuzzing {
    /// A body: its name, then its [`plain_end`](super::plain_end) and
    /// [`plain_ascii_end`](super::plain_ascii_end).
    pub type Body = (
        &'static str,
        fn(&[u8], usize) -> usize,
        fn(&[u8], usize) -> usize,
    );

    /// [`plain_ascii_mask`](super::plain_ascii_mask) of the scalar body, then the
    /// build's.
    pub fn masks(b: &[u8], i: usize) -> (Option<u32>, Option<u32>) {
        (
            super::scalar::plain_ascii_mask(b, i),
            super::body::plain_ascii_mask(b, i),
        )
    }

    /// [`string_classes`](super::string_classes) of the 64 bytes at `i`, the scalar
    /// body's, then the build's, each as `[quote, backslash, other]`;
    /// `None` when fewer than 64 bytes are left.
    pub fn classes(b: &[u8], i: usize) -> Option<([u64; 3], [u64; 3])> {
        let block = b.get(i..)?.first_chunk::<64>()?;
        let flat = |c: super::StringClasses| [c.quote, c.backslash, c.other];
        Some((
            flat(super::scalar::string_classes::<true>(block)),
            flat(super::body::string_classes::<true>(block)),
        ))
    }

    /// [`string_classes`](super::string_classes) without the non-ASCII stops (a string
    /// whose UTF-8 is checked already), as [`classes`] gives them.
    pub fn classes_checked(b: &[u8], i: usize) -> Option<([u64; 3], [u64; 3])> {
        let block = b.get(i..)?.first_chunk::<64>()?;
        let flat = |c: super::StringClasses| [c.quote, c.backslash, c.other];
        Some((
            flat(super::scalar::string_classes::<false>(block)),
            flat(super::body::string_classes::<false>(block)),
        ))
    }

    /// Whether the UTF-8 check of the build without `std` (`utf8.rs`) finds `b` UTF-8;
    /// asserts that its two ways, the masks and (where the CPU has AVX2) the nibble
    /// lookups of `lookup.rs`, agree, and that its classes of the 64 bytes at each
    /// offset are the scalar body's.
    pub fn utf8(b: &[u8]) -> bool {
        for block in b.windows(64) {
            let Ok(block) = <&[u8; 64]>::try_from(block) else {
                continue;
            };
            assert_eq!(
                super::body::utf8_classes(block),
                super::scalar::utf8_classes(block),
                "utf8_classes"
            );
        }
        let masks = super::utf8::by_masks(b);
        #[cfg(target_arch = "x86_64")]
        if let Some(lookups) = super::lookup::is_utf8(b) {
            assert_eq!(lookups, masks, "the lookups and the masks");
        }
        assert_eq!(super::utf8::is_utf8(b), masks, "is_utf8");
        masks
    }

    /// The one-pass string loops where the CPU has AVX2 (`string_avx2.rs`) and
    /// AVX-512 (`string_avx512.rs`) over `b` from `i`, their step stopping at byte
    /// `stop` of `b`, against the scalar body's classes and `core::str::from_utf8`
    /// (`string_avx2::agrees`, which the unit tests call too). Nothing for a loop the
    /// CPU cannot run.
    pub fn string_blocks_utf8(b: &[u8], i: usize, stop: usize) {
        #[cfg(target_arch = "x86_64")]
        super::string_avx2::agrees(b, i, stop);
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (b, i, stop);
    }

    /// The scalar body: the oracle.
    pub const SCALAR: Body = (
        "scalar",
        super::scalar::plain_end,
        super::scalar::plain_ascii_end,
    );

    const SWAR: Body = ("swar", super::swar::plain_end, super::swar::plain_ascii_end);
    const BUILD: Body = ("build's", super::plain_end, super::plain_ascii_end);

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    const BODIES: &[Body] = &[
        SWAR,
        ("sse2", super::sse2::plain_end, super::sse2::plain_ascii_end),
        BUILD,
    ];
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    const BODIES: &[Body] = &[
        SWAR,
        ("neon", super::neon::plain_end, super::neon::plain_ascii_end),
        BUILD,
    ];
    #[cfg(not(any(
        all(target_arch = "x86_64", target_feature = "sse2"),
        all(target_arch = "aarch64", target_feature = "neon")
    )))]
    const BODIES: &[Body] = &[SWAR, BUILD];

    /// Every body compiled on this target but the scalar one, and the one this build
    /// uses.
    pub fn bodies() -> &'static [Body] {
        BODIES
    }
}

/// The classes of the bytes of a 64-byte block that the fast build's string loop needs,
/// one mask per class (bit `k` for byte `k` of the block): what `string_classes` gives
/// (`build_fast.rs`).
// The compact build's scanner reads no blocks: there only the tests and the fuzz
// target ask for them.
#[cfg_attr(not(any(test, fuzzing)), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StringClasses {
    /// The bytes that are `"`.
    pub(crate) quote: u64,
    /// The bytes that are `\`.
    pub(crate) backslash: u64,
    /// The other bytes that stop a string: those below 0x20 (control characters), and,
    /// unless the string's UTF-8 is checked already (`string_classes::<false>`), those
    /// above 0x7F (non-ASCII).
    pub(crate) other: u64,
}

#[cfg(test)]
mod tests;
