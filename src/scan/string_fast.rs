//! The fast build's strings: a string's first plain run by `simd`, the rest 64 bytes
//! at a time ([`string_blocks`]), the last bytes 16 at a time ([`string_chunks`]),
//! then the general loop of `string.rs`; non-ASCII runs checked whole
//! ([`simd::is_utf8`]), and after a run that ends at an escape the rest of the string
//! at once ([`string_blocks_checked`]), `\u` escapes read as one word ([`hex4_word`]); and a validated
//! string's end for the trusted skip ([`trusted_string_end`]). The unit tests pin each
//! to the general rules of `string.rs`.

use crate::scan::string::{escape, hex4_digits, one_letter, string_rest, utf8_sequence, LETTERS};
use crate::scan::{byte_at, fail, ScanError, ScanErrorKind};
use crate::simd;

/// Scans the string whose opening quote is at `i`. Returns the offset after the closing
/// quote.
// Inlined into the walk.
#[inline(always)]
pub(crate) fn string(b: &[u8], i: usize) -> Result<usize, ScanError> {
    // Most strings (keys, short values) are one plain run.
    let end = simd::plain_ascii_end(b, i + 1);
    if byte_at(b, end) == b'"' {
        return Ok(end + 1);
    }
    string_blocks(b, end)
}

/// The rest of a string, from `i` inside it: 64 bytes at a time,
/// with the escapes of a block resolved by bit operations on its classes
/// ([`simd::string_classes`]): [`escaped_bytes`] finds the bytes an escape covers,
/// the first quote, control character or non-ASCII byte not among them is where the
/// block stops, and before it the escaped bytes other than `"` and `\` are checked one
/// at a time ([`is_one_letter`], or `u` and four hex digits of a code unit that is not a
/// surrogate, [`is_plain_unit`]). A surrogate `\u`, a broken escape and a non-ASCII run
/// are handed to the general routines, which also name the errors. Fewer than 64 bytes
/// left go to [`string_chunks`]; the unit tests pin this to [`string_rest`]. Also where
/// the fast build's word walk goes on after a string's first plain run.
#[inline(never)]
pub(crate) fn string_blocks(b: &[u8], i: usize) -> Result<usize, ScanError> {
    // A short string with escapes (a log message, a key) ends in its first block, and
    // so does the input near its end: there the SSE2 block's classes, without the
    // one-pass loop's setup.
    match b.get(i..).and_then(|r| r.first_chunk::<64>()) {
        Some(bytes) => {
            if let Some(end) = first_block(b, i, bytes) {
                return Ok(end);
            }
        }
        None => return string_blocks_by_classes(b, i),
    }
    match blocks_utf8(b, i) {
        Ok(end) => end,
        Err(from) => string_blocks_by_classes(b, from),
    }
}

/// The end of a string whose content from `i` is ASCII and valid escapes up to its
/// closing quote in `bytes`, the 64 bytes at `i`, as [`blocks`] reads a block; `None`
/// for anything else (no quote in the block, a non-ASCII byte or a control character
/// before it, an escape handed to the general rules), which the caller reads from `i`
/// again.
#[inline(always)]
fn first_block(b: &[u8], i: usize, bytes: &[u8; 64]) -> Option<usize> {
    let block = simd::string_classes::<true>(bytes);
    let (stops, escaped) = block_stops(&block, &mut 0);
    let first = stops & stops.wrapping_neg();
    if first & block.quote == 0 || handed_escape(b, i, bytes, &block, (stops, escaped)).is_some() {
        return None;
    }
    Some(i + first.trailing_zeros() as usize + 1)
}

/// [`string_blocks`] where the CPU cannot check UTF-8 in the block loop (no AVX2, or
/// not x86_64), or where that loop found the UTF-8 broken (then this names the error):
/// the non-ASCII bytes among the stops, each run checked whole.
#[inline(never)]
fn string_blocks_by_classes(b: &[u8], i: usize) -> Result<usize, ScanError> {
    blocks::<false>(b, i, 0)
}

/// The rest of a string, from `i` inside it, in one pass that checks its UTF-8 too
/// ([`simd::string_blocks_utf8`], where the CPU has AVX2): each block's escapes
/// resolved as in [`blocks`] (a step run inside that loop), and the bytes before the
/// block's first stop (the quote, a control character, an escape handed to the general
/// rules: a surrogate `\u`, a broken one) the last ones checked as UTF-8. A string is
/// then read once: checking its UTF-8 apart needs its end first, another pass. After an
/// escape handed over, the loop starts again after it, a fresh UTF-8 state (the byte
/// before is the escape's last, ASCII). `Err(from)` where this loop cannot tell: no
/// AVX2, or the UTF-8 from `from` broken (which [`string_blocks_by_classes`] names, from
/// there: every byte before `from` is good string content).
#[inline(always)]
fn blocks_utf8(b: &[u8], mut i: usize) -> Result<Result<usize, ScanError>, usize> {
    loop {
        // 1 when the block's first byte is escaped (see `blocks`): the step's own.
        let mut carry = 0;
        let step = move |bytes: &[u8; 64], block: simd::StringClasses, at: usize| {
            if block.backslash | carry == 0 {
                // No escape (most blocks of prose): the first quote or control
                // character stops, and the carry stays 0.
                let stops = block.quote | block.other;
                return (stops != 0).then(|| at + stops.trailing_zeros() as usize);
            }
            let (stops, escaped) = block_stops(&block, &mut carry);
            if let Some(k) = handed_escape(b, at, bytes, &block, (stops, escaped)) {
                // Stop at the escape's backslash, the byte before (in the block before
                // when `k` is 0).
                return Some((at + k).saturating_sub(1));
            }
            if stops == 0 {
                return None;
            }
            Some(at + stops.trailing_zeros() as usize)
        };
        let Some(stopped) = simd::string_blocks_utf8(b, i, step) else {
            return Err(i);
        };
        if !stopped.utf8 {
            return Err(i);
        }
        if byte_at(b, stopped.at) == b'\\' {
            match escape(b, stopped.at) {
                Ok(next) => i = next,
                Err(e) => return Ok(Err(e)),
            }
            continue;
        }
        return Ok(match byte_at(b, stopped.at) {
            b'"' => Ok(stopped.at + 1),
            // A control character, or the end of the input: the general rules' error.
            _ => rest(b, stopped.at),
        });
    }
}

/// [`string_blocks`] once the rest of the string, from `i` to `utf8_until` (its end as
/// the trusted skip finds it), has been checked as UTF-8 at once: UTF-8 as a whole is
/// UTF-8 between its ASCII bytes (escapes, the quote), so its non-ASCII bytes are not
/// stops ([`simd::non_ascii_bits`]). `utf8_until` is 0 when the check failed: then each
/// run is checked, and the error named, by [`non_ascii`], and the string is not
/// checked whole again.
#[inline(never)]
fn string_blocks_checked(b: &[u8], i: usize, utf8_until: usize) -> Result<usize, ScanError> {
    blocks::<true>(b, i, utf8_until)
}

/// The block loop of [`string_blocks`] (`CHECKED` false: after the first non-ASCII run
/// that ends at an escape, the rest of the string is checked as UTF-8 at once and
/// [`string_blocks_checked`] goes on) and of [`string_blocks_checked`].
#[inline(always)]
fn blocks<const CHECKED: bool>(
    b: &[u8],
    mut i: usize,
    utf8_until: usize,
) -> Result<usize, ScanError> {
    // 1 when the byte at `i` is escaped (the block before ended in an odd run of
    // backslashes).
    let mut carry = 0;
    // From `i`, and again after each escape or non-ASCII run handed over.
    'from: while let Some(mut rest) = b.get(i..) {
        // The blocks of `rest`, the input from `i` (its offset, `b.len() - rest.len()`).
        while let Some((bytes, after)) = rest.split_first_chunk::<64>() {
            // The block's offset in `b`.
            let at = b.len() - rest.len();
            // The bytes of the block before `utf8_until`, when they are all of them: then
            // only control characters are other stops.
            let checked = utf8_until.saturating_sub(at);
            let block = if CHECKED && checked >= 64 {
                simd::string_classes::<false>(bytes)
            } else {
                let mut block = simd::string_classes::<true>(bytes);
                if CHECKED && block.other != 0 {
                    block.other &= !(simd::non_ascii_bits(bytes) & ((1u64 << checked) - 1));
                }
                block
            };
            let (stops, escaped) = block_stops(&block, &mut carry);
            if let Some(k) = handed_escape(b, at, bytes, &block, (stops, escaped)) {
                // From the escape's backslash, the byte before (in the block before
                // when `k` is 0).
                i = escape(b, at + k - 1)?;
                carry = 0;
                continue 'from;
            }
            if stops != 0 {
                let at = at + stops.trailing_zeros() as usize;
                match byte_at(b, at) {
                    b'"' => return Ok(at + 1),
                    0x80..=0xFF => {
                        i = non_ascii(b, at)?;
                        carry = 0;
                        // A run up to an escape: the text mixes the two (code, prose),
                        // so the rest is checked at once. A run up to the quote (plain
                        // text) was one check already.
                        if !CHECKED && byte_at(b, i) == b'\\' {
                            let end = trusted_string_blocks(b, i);
                            let utf8 = simd::is_utf8(b.get(i..end).unwrap_or(&[]));
                            return string_blocks_checked(b, i, if utf8 { end } else { 0 });
                        }
                        continue 'from;
                    }
                    _ => return Err(fail(ScanErrorKind::ControlCharacter, at)),
                }
            }
            rest = after;
        }
        i = b.len() - rest.len();
        break;
    }
    // An escaped first byte: from its backslash. Where the UTF-8 is checked, a
    // character the last block cut: from its lead, which `string_chunks` checks again
    // (it reads a non-ASCII run from its start).
    if CHECKED && i < utf8_until {
        while i > 0 && matches!(byte_at(b, i), 0x80..=0xBF) {
            i -= 1;
        }
    }
    string_chunks(b, i - carry as usize)
}

/// The offset after the closing quote of the string whose opening quote is at `i`, in
/// JSON validated already (`skip_trusted`): the first quote no escape covers, found
/// with the block loop's classes and [`escaped_bytes`], without checking the escapes or
/// the UTF-8 again. A string's first plain run as [`string`] reads it (keys, short
/// values), the rest [`trusted_string_blocks`]. On valid input it ends where [`string`]
/// ends (the unit tests pin the two); on any input, at or before the end of `b`.
#[inline(always)]
pub(crate) fn trusted_string_end(b: &[u8], i: usize) -> usize {
    let end = simd::plain_ascii_end(b, i + 1);
    if byte_at(b, end) == b'"' {
        return end + 1;
    }
    trusted_string_blocks(b, end)
}

/// [`trusted_string_end`] from `i` inside the string, a byte no escape covers: 64
/// bytes at a time, and the last bytes as one block padded with zeros (which are
/// neither quotes nor backslashes). `b.len()` when no quote ends the string.
#[inline(never)]
fn trusted_string_blocks(b: &[u8], i: usize) -> usize {
    let mut carry = 0;
    let mut rest = b.get(i..).unwrap_or(&[]);
    while let Some((bytes, after)) = rest.split_first_chunk::<64>() {
        let block = simd::string_classes::<false>(bytes);
        let quotes = block.quote & !escaped_bytes(block.backslash, &mut carry);
        if quotes != 0 {
            return b.len() - rest.len() + quotes.trailing_zeros() as usize + 1;
        }
        rest = after;
    }
    let block = simd::string_classes::<false>(&simd::padded(rest));
    let quotes = block.quote & !escaped_bytes(block.backslash, &mut carry);
    if quotes != 0 {
        return b.len() - rest.len() + quotes.trailing_zeros() as usize + 1;
    }
    b.len()
}

/// The stops of a block no escape covers (a quote, a control or other byte of
/// `block.other`), and the bytes escapes cover ([`escaped_bytes`], `carry` as it has
/// it): the first half of the one reading of a block's escapes for the block loops
/// ([`first_block`], [`blocks`], the step of [`blocks_utf8`]); [`handed_escape`] is
/// the second.
#[inline(always)]
fn block_stops(block: &simd::StringClasses, carry: &mut u64) -> (u64, u64) {
    let escaped = escaped_bytes(block.backslash, carry);
    ((block.quote | block.other) & !escaped, escaped)
}

/// The offset in the block of `b` at `at` (its bytes `bytes`, its classes `block`) of
/// the first escaped letter before the block's first stop ([`block_stops`]) that the
/// block loops do not take themselves: a surrogate `\u` (which may be a pair) or a
/// broken escape, which the general rules read from the backslash before it. Each
/// escaped letter is checked here once: a one-letter escape, or `u` and four hex
/// digits of a code unit that is not a surrogate ([`is_plain_unit`]).
#[inline(always)]
fn handed_escape(
    b: &[u8],
    at: usize,
    bytes: &[u8; 64],
    block: &simd::StringClasses,
    (stops, escaped): (u64, u64),
) -> Option<usize> {
    // Every bit below the first stop (all of them when there is none).
    let before = (stops & stops.wrapping_neg()).wrapping_sub(1);
    let mut letters = escaped & before & !(block.quote | block.backslash);
    while letters != 0 {
        let k = letters.trailing_zeros() as usize;
        let c = bytes[k % 64];
        if !(is_one_letter(c) || (c == b'u' && plain_unit_at(b, at + k + 1))) {
            return Some(k);
        }
        letters &= letters - 1;
    }
    None
}

/// The bytes of a 64-byte block that an escape covers (bit `k` for byte `k`): those
/// after an odd run of backslashes (an escaped backslash among them). `carry` is 1 when
/// the first byte is covered by the last backslash of the block before, and is set so
/// for the next block. simdjson's branchless way (its `json_escape_scanner`): with the
/// odd bits set, subtracting each run's backslashes from the bits after them marks the
/// backslashes that escape, and the byte after an odd run; xor with the backslashes
/// leaves the covered bytes. The unit tests pin it to a walk over the bits.
#[inline(always)]
fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let first = *carry;
    // An escaped first byte starts no escape.
    let starts = backslash & !first;
    let codes = (((starts << 1) | ODD).wrapping_sub(starts)) ^ ODD;
    // Whether the last byte is a backslash that escapes.
    *carry = (codes & backslash) >> 63;
    codes ^ (backslash | first)
}

/// The rest of a string, from `i` inside it, where fewer than 64
/// bytes of input are left ([`string_blocks`]' tail): sixteen bytes at a time, the
/// stops of each chunk ([`simd::plain_ascii_mask`]) taken in order, so that a
/// one-letter escape costs a few bit operations and the chunk is not read again. The
/// last bytes before the end of the input go to [`string_rest`] (out of line, [`rest`]),
/// which the unit tests pin it to.
#[inline(never)]
fn string_chunks(b: &[u8], mut i: usize) -> Result<usize, ScanError> {
    'chunks: while let Some(mut stops) = simd::plain_ascii_mask(b, i) {
        while stops != 0 {
            let k = stops.trailing_zeros() as usize;
            let at = i + k;
            match byte_at(b, at) {
                b'"' => return Ok(at + 1),
                b'\\' if one_letter(byte_at(b, at + 1)).is_some() => {
                    if k == 15 {
                        // The escaped byte is in the next chunk.
                        i = at + 2;
                        continue 'chunks;
                    }
                    // Past the escaped byte, which may be a stop itself.
                    stops &= !0u32 << (k + 2);
                }
                b'\\' => {
                    i = escape(b, at)?;
                    continue 'chunks;
                }
                0x80..=0xFF => {
                    i = non_ascii(b, at)?;
                    continue 'chunks;
                }
                _ => return Err(fail(ScanErrorKind::ControlCharacter, at)),
            }
        }
        i += 16;
    }
    rest(b, i)
}

/// [`string_rest`], out of line: the last bytes of a long string.
#[inline(never)]
fn rest(b: &[u8], i: usize) -> Result<usize, ScanError> {
    string_rest::<false>(b, i)
}

/// Checks string content from `i`, a non-ASCII byte, as strict UTF-8; returns the
/// offset where the string loop goes on: the whole run up to the next `"`, `\` or
/// control character at once ([`simd::is_utf8`]), and where it is not UTF-8,
/// [`utf8_sequence`] names the byte that breaks it. The unit tests pin it to the
/// compact build's one sequence at a time.
#[inline(never)]
pub(crate) fn non_ascii(b: &[u8], i: usize) -> Result<usize, ScanError> {
    let end = simd::plain_end(b, i);
    let run = b.get(i..end).unwrap_or(&[]);
    if simd::is_utf8(run) {
        return Ok(end);
    }
    match core::str::from_utf8(run) {
        Ok(_) => Ok(end),
        // The first sequence that is not UTF-8 starts at `valid_up_to`; the error names
        // the byte that breaks it (which may be the stop after a cut sequence).
        Err(e) => {
            let at = i + e.valid_up_to();
            let breaks = utf8_sequence(b, at).err().unwrap_or(at);
            Err(fail(ScanErrorKind::InvalidUtf8, breaks))
        }
    }
}

/// [`LETTERS`] as a table: `true` at each.
const IS_LETTER: [bool; 256] = {
    let mut table = [false; 256];
    let mut k = 0;
    while k < LETTERS.len() {
        table[LETTERS[k] as usize] = true;
        k += 1;
    }
    table
};

/// Whether `c` makes a one-letter escape ([`one_letter`] is `Some`), as one load: the
/// block loop ([`string_blocks`]; the compact build links no such table); the unit
/// tests pin it to [`one_letter`].
#[inline(always)]
fn is_one_letter(c: u8) -> bool {
    IS_LETTER[usize::from(c)]
}

/// Whether the four bytes at `i` are the hex digits of a UTF-16 code unit that is not a
/// surrogate ([`is_plain_unit`]): a `\u` escape complete in itself.
#[inline(always)]
fn plain_unit_at(b: &[u8], i: usize) -> bool {
    match b.get(i..).and_then(|r| r.first_chunk::<4>()) {
        Some(&digits) => is_plain_unit(u32::from_le_bytes(digits)),
        None => false,
    }
}

/// Four hex digits at `i`, as a UTF-16 code unit, read at once ([`hex4_word`]); `None`
/// when they are not four hex digits.
#[inline(always)]
fn unit_at(b: &[u8], i: usize) -> Option<u32> {
    hex4_word(u32::from_le_bytes(*b.get(i..)?.first_chunk::<4>()?))
}

/// One in each byte of a `u32`.
const ONES: u32 = 0x0101_0101;
/// The top bit of each byte of a `u32`.
const HIGH: u32 = ONES * 0x80;

/// The four bytes of `x` (the first digit in the lowest byte) as hex digits: the top bit
/// of each byte that is a letter (`A..=F`, `a..=f`), or `None` unless all four are hex
/// digits. A few word operations, shared by [`hex4_word`] and [`is_plain_unit`]; the
/// unit tests pin both to [`hex4_digits`]'s loop.
#[inline(always)]
const fn hex4_letters(x: u32) -> Option<u32> {
    // For a byte below 0x80, no sum below carries into the next byte, and the top bit of
    // a byte of `x + ONES * (0x80 - n)` says that byte is at least `n`. A byte of 0x80 or
    // more passes neither test below (the two sums of a test both keep the top bit, or
    // the first wraps and loses it): the lowest such byte is computed exactly and fails,
    // so, whatever it carries into the bytes above, not all four pass.
    let digit = x.wrapping_add(ONES * (0x80 - 0x30)) & !x.wrapping_add(ONES * (0x80 - 0x3A));
    // `c | 0x20` is in `a..=f` exactly when `c` is in `A..=F` or `a..=f`.
    let lower = x | (ONES * 0x20);
    let letter =
        lower.wrapping_add(ONES * (0x80 - 0x61)) & !lower.wrapping_add(ONES * (0x80 - 0x67));
    if (digit | letter) & HIGH != HIGH {
        return None;
    }
    Some(letter & HIGH)
}

/// Whether the bytes of `x` are the four hex digits of a UTF-16 code unit that is not a
/// surrogate (0xD800..=0xDFFF): [`hex4_letters`], and not `D` or `d` followed by a digit
/// of 8 or more (`8`, `9` or a letter, the hex digits from 0x38 up).
#[inline(always)]
const fn is_plain_unit(x: u32) -> bool {
    // The first digit folded to upper case, then the second: a surrogate's are 0x4438
    // (`D8`) to 0x4466 (`Df`), and no other hex digits' are below 0x4438 + 0x48.
    let lead = ((x as u16) & 0xFFDF).swap_bytes();
    hex4_letters(x).is_some() && lead.wrapping_sub(0x4438) >= 0x48
}

/// The four hex digits in the bytes of `x` (the first digit in the lowest byte), as a
/// UTF-16 code unit; `None` unless all four are hex digits ([`hex4_letters`]).
#[inline(always)]
const fn hex4_word(x: u32) -> Option<u32> {
    let Some(letters) = hex4_letters(x) else {
        return None;
    };
    // Each digit's value: its low four bits, and 9 more for a letter.
    let values = (x & (ONES * 0x0F)) + (letters >> 7) * 9;
    // Two digits to a byte (first, second in byte 0; third, fourth in byte 2), then the
    // two bytes in order.
    let pairs = ((values & 0x000F_000F) << 4) | ((values >> 8) & 0x000F_000F);
    Some(((pairs & 0xFF) << 8) | (pairs >> 16))
}

/// Four hex digits at `i`, as a UTF-16 code unit: read at once ([`unit_at`]), and by
/// the loop, which names the byte of an error, only when that fails.
#[inline(always)]
pub(crate) fn hex4(b: &[u8], i: usize) -> Result<u32, (ScanErrorKind, usize)> {
    if let Some(unit) = unit_at(b, i) {
        return Ok(unit);
    }
    hex4_digits(b, i)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The compact build's way over non-ASCII content: a sequence, then plain ASCII, as
    /// the string loop goes, until a `"`, `\` or control character.
    fn by_sequences(b: &[u8], mut i: usize) -> Result<usize, ScanError> {
        loop {
            i = utf8_sequence(b, i).map_err(|at| fail(ScanErrorKind::InvalidUtf8, at))?;
            i = simd::plain_ascii_end(b, i);
            if byte_at(b, i) < 0x80 {
                return Ok(i);
            }
        }
    }

    /// The fast build's chunked string loop gives what the general one gives, ends and
    /// errors, on strings dense with escapes, stops at every position of a chunk, and
    /// cut at every length.
    #[test]
    fn chunks_agree_with_the_general_loop() {
        let seeds: [&[u8]; 6] = [
            br#"a\"b\\c\/d\be\ff\ng\rh\ti\u00e9j\ud83d\ude00k""#,
            br#"\\\\\\\\\\\\\\\\\"\"\"\"\"\"\"\"""#,
            "naïve \\ café \\n \\t 東京 \\\" done\"".as_bytes(),
            b"0123456789abcd\\n0123456789abc\\\"0123456789ab\\u00410123\"",
            b"bad \\x escape\"",
            b"ctrl \x01 inside\"",
        ];
        let mut checked = 0;
        for seed in seeds {
            for pad in 0..17 {
                let mut s: Vec<u8> = std::vec![b'p'; pad];
                s.extend_from_slice(seed);
                for cut in 0..=s.len() {
                    let b = &s[..cut];
                    for i in 0..b.len() {
                        assert_eq!(
                            string_chunks(b, i),
                            string_rest::<false>(b, i),
                            "{b:?} from {i}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// A xorshift64* generator: the same numbers on every run.
    fn numbers(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    /// [`escaped_bytes`] over consecutive blocks, its carry passed on.
    fn escaped_of(blocks: &[u64]) -> Vec<u64> {
        let mut carry = 0;
        blocks
            .iter()
            .map(|&m| escaped_bytes(m, &mut carry))
            .collect()
    }

    /// The escaped bytes of consecutive blocks, walked bit by bit: a byte is escaped when
    /// the byte before is a backslash that is not escaped itself.
    fn escaped_by_walk(blocks: &[u64]) -> Vec<u64> {
        let mut escaping = false;
        blocks
            .iter()
            .map(|&backslash| {
                let mut escaped = 0;
                for k in 0..64 {
                    if escaping {
                        escaped |= 1 << k;
                        escaping = false;
                    } else if backslash >> k & 1 == 1 {
                        escaping = true;
                    }
                }
                escaped
            })
            .collect()
    }

    /// `escaped_bytes`, block after block with its carry, is the walk over the bits: on
    /// every run of backslashes at each end of a block, on every three blocks of a pool
    /// of edge masks, and on random blocks, sparse and dense.
    #[test]
    fn escaped_bytes_is_the_walk_over_the_bits() {
        let mut pool: Vec<u64> = std::vec![
            0,
            !0,
            0x5555_5555_5555_5555,
            0xAAAA_AAAA_AAAA_AAAA,
            0x3333_3333_3333_3333,
            0xF0F0_F0F0_F0F0_F0F0,
            0x7FFF_FFFF_FFFF_FFFF,
            0xFFFF_FFFF_FFFF_FFFE,
        ];
        // Runs of 1 to 6 at the start, at the end, and across the middle.
        for len in 1..=6 {
            let run = (1u64 << len) - 1;
            pool.extend([
                run,
                run << 1,
                run << (64 - len),
                run << (63 - len),
                run << 30,
            ]);
        }
        let mut checked = 0;
        for &a in &pool {
            for &b in &pool {
                for &c in &pool {
                    let blocks = [a, b, c];
                    assert_eq!(escaped_of(&blocks), escaped_by_walk(&blocks), "{blocks:x?}");
                    checked += 1;
                }
            }
        }
        let mut next = numbers(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let blocks: Vec<u64> = (0..4)
                .map(|_| match next() % 4 {
                    0 => next() & next() & next(),
                    1 => next() | next(),
                    2 => next(),
                    _ => !0 << (next() % 64),
                })
                .collect();
            assert_eq!(escaped_of(&blocks), escaped_by_walk(&blocks), "{blocks:x?}");
            checked += 1;
        }
        assert!(checked > 50_000, "{checked}");
    }

    /// The digit loop's answers for the bytes of `x`, as the word routines give them.
    fn by_digits(x: u32) -> (Option<u32>, bool) {
        let unit = hex4_digits(&x.to_le_bytes(), 0).ok();
        (
            unit,
            matches!(unit, Some(u) if !(0xD800..=0xDFFF).contains(&u)),
        )
    }

    /// `hex4_word` and `is_plain_unit` are the digit loop `hex4_digits`: every byte value
    /// in each position with the others hex digits (surrogate leads among them), every
    /// pair of positions over all values, every word over a set of bytes either side of
    /// the digit, letter and surrogate edges, and random words.
    #[test]
    fn hex4_word_is_the_digit_loop() {
        let check = |x: u32| {
            let (unit, plain) = by_digits(x);
            assert_eq!(hex4_word(x), unit, "{:02x?}", x.to_le_bytes());
            assert_eq!(is_plain_unit(x), plain, "{:02x?}", x.to_le_bytes());
        };
        let fills: [&[u8; 4]; 10] = [
            b"0000", b"D800", b"dBfF", b"DC00", b"dfff", b"D7FF", b"e000", b"FfFf", b"9aF0",
            b"d8a0",
        ];
        for fill in fills {
            let base = u32::from_le_bytes(*fill);
            for p in 0..4 {
                for c in 0..=255u32 {
                    check(base & !(0xFF << (8 * p)) | c << (8 * p));
                }
            }
        }
        let base = u32::from_le_bytes(*b"d8a0");
        for p in 0..4 {
            for q in p + 1..4 {
                for c in 0..=255u32 {
                    for d in 0..=255u32 {
                        let keep = !(0xFF << (8 * p)) & !(0xFF << (8 * q));
                        check(base & keep | c << (8 * p) | d << (8 * q));
                    }
                }
            }
        }
        let edges = [
            0x00, 0x2F, b'0', b'7', b'8', b'9', 0x3A, 0x40, b'A', b'D', b'F', b'G', 0x60, b'a',
            b'd', b'f', b'g', 0x7F, 0x80, 0xAF, 0xB0, 0xB9, 0xC1, 0xC4, 0xE0, 0xE6, 0xE7, 0xFF,
        ];
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    for &d in &edges {
                        check(u32::from_le_bytes([a, b, c, d]));
                    }
                }
            }
        }
        let mut next = numbers(0x2545_F491_4F6C_DD1D);
        for _ in 0..200_000 {
            check(next() as u32);
        }
    }

    /// `is_one_letter` is `one_letter` on every byte.
    #[test]
    fn is_one_letter_is_one_letter() {
        for c in 0..=255u8 {
            assert_eq!(is_one_letter(c), one_letter(c).is_some(), "{c:#04x}");
        }
    }

    /// What the block loop is tried on: valid and broken escapes, runs of backslashes,
    /// surrogates, UTF-8 and control characters.
    const PIECES: &[&[u8]] = &[
        b"\\n",
        b"\\\"",
        b"\\\\",
        b"\\/\\b\\f\\r\\t",
        b"\\\\\\\"",
        b"\\\\\\\\\\\\\\\\\\n",
        b"\\\\\\\\\\\\\\\\\\\\\\\"",
        b"\\u00e9",
        b"\\uFFFF\\u0041",
        b"\\ud83d\\ude00",
        b"\\uD83D\\uDE00\\uDBFF\\uDFFF",
        b"\\ud83d",
        b"\\ud83dx",
        b"\\ud83d\\u0041",
        b"\\ud83d\\ud83d",
        b"\\ude00",
        b"\\u12G4",
        b"\\u00",
        b"\\u",
        b"\\x",
        b"\\\x01",
        b"\\\xc3\xa9",
        b"\\",
        "é€😀".as_bytes(),
        b"\xc3",
        b"\xc3(",
        b"\xed\xa0\x80",
        b"\xe2\x82\\n",
        b"\x01",
        b"\x1f\\n",
        b"\x7f",
        b"\"",
    ];

    /// The block loop, every way (the one pass that checks UTF-8 too where the CPU has
    /// AVX2, [`blocks_utf8`], on AVX-512 and on AVX2 where it has both, and the SSE2 loop that checks each non-ASCII run,
    /// [`string_blocks_by_classes`]), gives what the general loop gives from `i`: the
    /// end, or the error's kind and offset.
    fn blocks_agree(b: &[u8], i: usize) {
        let want = string_rest::<false>(b, i);
        let text = || std::string::String::from_utf8_lossy(b);
        assert_eq!(string_blocks(b, i), want, "{:?} from {i}", text());
        // The AVX2 one-pass loop too, where the CPU has AVX-512 and the scanner takes
        // that one.
        assert_eq!(
            crate::simd::with_avx2_only(|| string_blocks(b, i)),
            want,
            "AVX2: {:?} from {i}",
            text()
        );
        assert_eq!(
            string_blocks_by_classes(b, i),
            want,
            "by classes: {:?} from {i}",
            text()
        );
    }

    /// The fast build's block loop gives what the general one gives, ends and errors:
    /// each piece at every offset of the first three blocks, from the start and from the
    /// piece; cut at every length near the block edges; and on random strings.
    #[test]
    fn blocks_agree_with_the_general_loop() {
        let agree = blocks_agree;
        let mut checked = 0;
        for piece in PIECES {
            for pad in 0..=134 {
                let mut s: Vec<u8> = std::vec![b'a'; pad];
                s.extend_from_slice(piece);
                s.extend_from_slice(b"bc\\n\"");
                // More input after the string, as inside a message.
                s.extend_from_slice(&[b'x'; 70]);
                for i in [0, pad.saturating_sub(1), pad, pad + 1] {
                    agree(&s, i);
                    checked += 1;
                }
                if pad % 64 <= 3 || pad % 64 >= 59 {
                    for cut in 0..s.len() {
                        agree(&s[..cut], 0);
                        checked += 1;
                    }
                }
            }
        }
        // Random strings over an alphabet of the bytes that matter, each piece as one
        // letter.
        let mut next = numbers(0x0123_4567_89AB_CDEF);
        for _ in 0..3_000 {
            let mut s = Vec::new();
            let len = next() % 300;
            while (s.len() as u64) < len {
                match next() % 8 {
                    0..=3 => s.push(b'a' + (next() % 26) as u8),
                    4 => s.push(b'\\'),
                    5 => s.extend_from_slice(b"u00"),
                    _ => s.extend_from_slice(PIECES[next() as usize % (PIECES.len() - 1)]),
                }
            }
            s.push(b'"');
            for i in [0, next() as usize % s.len()] {
                agree(&s, i);
                let cut = next() as usize % s.len();
                agree(&s[..cut], i.min(cut));
                checked += 2;
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    /// A non-ASCII run up to an escape sends the rest of the string to one UTF-8 check
    /// ([`string_blocks_checked`]): ends and errors are the general loop's with the rest
    /// valid, or broken (bad UTF-8, a control character, a bad escape) at many places
    /// across the block edges, from the start and cut at every length near the end.
    #[test]
    fn checked_rest_agrees_with_the_general_loop() {
        let bad: [&[u8]; 8] = [
            b"",
            b"\xc3",
            b"\xc3(",
            b"\xed\xa0\x80",
            b"\xf0\x9f\x98",
            b"\x01",
            b"\\x",
            b"\\ud83d",
        ];
        let mut checked = 0;
        for pad in 0..70 {
            for bad in bad {
                for at in (0..160).step_by(9) {
                    let mut rest = "東京 \\\" café\\n".as_bytes().repeat(8);
                    let at = at.min(rest.len());
                    rest.splice(at..at, bad.iter().copied());
                    let mut s: Vec<u8> = std::vec![b'a'; pad];
                    s.extend_from_slice("é\\n".as_bytes());
                    s.extend(rest);
                    s.push(b'"');
                    let len = s.len();
                    s.extend_from_slice(&[b'x'; 70]);
                    for (b, i) in [(&s[..], 0), (&s[..], pad), (&s[..len - 3], 0)] {
                        blocks_agree(b, i);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The one pass that checks the UTF-8 in the block loop ([`blocks_utf8`]) on text
    /// that mixes escapes and raw characters of every width, with a broken sequence, a
    /// control character, a broken escape or a surrogate escape (which restarts the
    /// loop after it) put at every offset of the first blocks (a character or an escape
    /// cut by a block edge, the check's state carried over), the string's start at
    /// offsets around a block edge, and 0 to 70 bytes of input after the string, or the
    /// string cut before its quote: ends and errors are the general loop's.
    #[test]
    fn one_pass_agrees_with_the_general_loop() {
        let pieces: [&[u8]; 18] = [
            b"",
            b"\xc3",
            b"\xc3(",
            b"\xed\xa0\x80",
            b"\xf0\x9f\x98",
            b"\xf4\x90\x80\x80",
            b"\xc0\x80",
            b"\x80",
            b"\xff",
            b"\x01",
            b"\\x",
            b"\\u12G4",
            b"\\ud83d",
            b"\\ude00x",
            b"\\ud83d\\ude00",
            b"\\uD83D\\uDE00\xf0\x9f\x98\x80",
            b"\\\xc3\xa9",
            b"\\u00e9\\\\",
        ];
        let body = "ab \\\" é\\n€ 😀 東京\\t \\\\ x\\u00e9".repeat(10);
        let mut checked = 0;
        for pad in [0, 1, 2, 31, 60, 61, 62, 63, 64, 65] {
            for piece in pieces {
                for at in 0..150 {
                    let mut s: Vec<u8> = std::vec![b'a'; pad];
                    let mut text = body.as_bytes().to_vec();
                    text.splice(at..at, piece.iter().copied());
                    s.extend(text);
                    s.push(b'"');
                    let len = s.len();
                    for after in [0, 1, 63, 70] {
                        s.truncate(len);
                        s.extend(std::iter::repeat(b'x').take(after));
                        blocks_agree(&s, 0);
                        blocks_agree(&s, pad);
                        checked += 2;
                    }
                    blocks_agree(&s[..len - 1], pad);
                    blocks_agree(&s[..len - 3], 0);
                    checked += 2;
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    /// Where the string's UTF-8 is checked whole, every multi-byte character across the
    /// edge between the last 64-byte block and the bytes after it, whatever is left of
    /// the input after the string: the ends and errors are the general loop's. The
    /// shape of the input the `validate` fuzz target found
    /// (`tests/regressions/validate-utf8-rest-of-string`, checked too): a 4-byte
    /// character whose lead ends a block, after a run that ends at an escape.
    #[test]
    fn characters_across_the_last_block_edge() {
        let agree = blocks_agree;
        let regression = include_bytes!("../../tests/regressions/validate-utf8-rest-of-string");
        for i in 2..regression.len() {
            agree(regression, i);
        }
        let mut checked = 0;
        for c in ["é", "€", "😀", "東"] {
            for at in 0..140 {
                for after in [0, 1, 2, 3, 5, 30, 63, 64, 70] {
                    let mut s: Vec<u8> = "ab é\\n".as_bytes().to_vec();
                    s.extend(std::iter::repeat(b't').take(at));
                    s.extend_from_slice(c.as_bytes());
                    s.extend_from_slice(b"st\\tu\"");
                    s.extend(std::iter::repeat(b'x').take(after));
                    agree(&s, 0);
                    let end = s.len() - after;
                    agree(&s[..end - 1], 0);
                    checked += 2;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The trusted string end is the validator's ([`string`]) wherever the validator
    /// accepts a string, from every offset: the pieces at every offset of the first
    /// blocks, backslash runs of every length up to 130 across the 64-byte edges, and
    /// strings ending in the last bytes of the input; on anything else it ends within the
    /// input.
    #[test]
    fn trusted_string_end_is_the_validators() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for piece in PIECES {
            for pad in 0..=134 {
                let mut s: Vec<u8> = std::vec![b'"'];
                s.extend(std::iter::repeat(b'a').take(pad));
                s.extend_from_slice(piece);
                s.extend_from_slice(b"bc\\n\"");
                inputs.push(s.clone());
                s.extend_from_slice(b",\"x\\\"\"");
                inputs.push(s);
            }
        }
        for run in 0..=130 {
            for pad in [0, 1, 30, 55, 60, 61, 62, 63, 64, 65, 120, 126, 127, 128] {
                for after in [&b"\""[..], b"n\"", b"\"x\"", b"u00e9\""] {
                    let mut s: Vec<u8> = std::vec![b'"'];
                    s.extend(std::iter::repeat(b'x').take(pad));
                    s.extend(std::iter::repeat(b'\\').take(run));
                    s.extend_from_slice(after);
                    inputs.push(s.clone());
                    s.extend_from_slice(&[b' '; 40]);
                    inputs.push(s);
                }
            }
        }
        let mut checked = 0;
        for s in &inputs {
            for i in 0..s.len() {
                let got = trusted_string_end(s, i);
                match string(s, i) {
                    Ok(end) => {
                        assert_eq!(
                            got,
                            end,
                            "{:?} from {i}",
                            std::string::String::from_utf8_lossy(s)
                        );
                        checked += 1;
                    }
                    Err(_) => assert!(got <= s.len(), "{s:?} from {i}"),
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    /// The two ways over non-ASCII content agree, errors included, on every valid and
    /// broken sequence at every position.
    #[test]
    fn run_and_sequences_agree() {
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for s in ["é", "€", "😀", "naïve café", "東京 ok", "a\u{e9}b"] {
            texts.push(s.as_bytes().to_vec());
        }
        let broken: [&[u8]; 10] = [
            b"\xc0\x80",
            b"\xc3",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe2\x82",
            b"\xff",
            b"\x80",
            b"\xf0\x9f\x98",
            b"\xe0\x80\x80",
            b"\xc3\x28",
        ];
        let mut checked = 0;
        for tail in [&b""[..], b"\"", b"x\"", b"\\n", b"\x01"] {
            for head in &texts {
                for bad in broken.iter().map(|b| b.to_vec()).chain([Vec::new()]) {
                    let mut b = head.clone();
                    b.extend_from_slice(&bad);
                    b.extend_from_slice(head);
                    b.extend_from_slice(tail);
                    for i in 0..b.len() {
                        if b[i] >= 0x80 {
                            assert_eq!(non_ascii(&b, i), by_sequences(&b, i), "{b:?} at {i}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
