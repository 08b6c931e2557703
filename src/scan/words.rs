//! The fast build's walk, a word at a time: [`value_wordwise`], its numbers
//! ([`number_words`]) and [`array()`], the common params' reader. Eight bytes are read
//! at once ([`word_at`]) where the input is in its common shape; every other case goes
//! through the general rules of `value.rs`, `number.rs` and `string.rs` from the same
//! offset, so the result and every error are the general walk's. The unit tests (here
//! and in `scan/tests.rs`, through [`other_walks`]) pin each to those rules.

use super::string_fast::string_blocks;
use crate::scan::number::number;
use crate::scan::value::{
    end_of_input, is_object_at, literal, member, set_kind, value_bytewise, value_general, WORDS,
};
use crate::scan::{byte_at, fail, skip_ws, string, ScanError, ScanErrorKind};
use crate::simd;

/// [`value_wordwise`]'s `level` (open containers times two, plus one in an object) when it
/// starts inside an array already open.
const ARRAY_OPEN: usize = 2;

/// How many open containers' kinds [`value_wordwise`] holds in a register.
const KINDS_HELD: usize = 64;

/// The shortest input [`value_wordwise`] takes; shorter ones go the general way.
const WORD_WALK_MIN: usize = 24;

/// [`value`](crate::scan::value) on the fast build: the word walk, out of line.
#[inline(always)]
pub(crate) fn value(b: &[u8], i: usize, max_depth: u16) -> Result<usize, ScanError> {
    value_or_rest(b, i, max_depth, false)
}

/// [`value`], or with `in_array` the rest of an array already open ([`value_wordwise`]
/// says how); the one copy of the word walk.
///
/// The word walk reads eight bytes at a time: an input shorter than [`WORD_WALK_MIN`]
/// goes the general way (and the compiler knows, in the word walk, that so many bytes
/// are there, so that `word_at` is one compare). Only the word walk starts inside an
/// array, and `array` asks it to on that many bytes or more only.
#[inline(always)]
fn value_or_rest(b: &[u8], i: usize, max_depth: u16, in_array: bool) -> Result<usize, ScanError> {
    let level = if in_array { ARRAY_OPEN } else { 0 };
    scanned(walk(b, i, max_depth, level))
}

/// [`value_bytewise`], or with `in_array` the end of the input: only the word walk
/// starts inside an array, and [`array()`] asks it to on [`WORD_WALK_MIN`] bytes or
/// more only.
#[inline(always)]
fn bytewise_from(b: &[u8], i: usize, max_depth: u16, in_array: bool) -> Result<usize, ScanError> {
    if in_array {
        return Err(fail(ScanErrorKind::UnexpectedEnd, b.len()));
    }
    value_bytewise(b, i, max_depth)
}

/// A walk's result as two registers: the offset after the value and no error kind,
/// or the offset and the kind of the error (a `Result<usize, ScanError>` is returned
/// through memory).
type Scanned = (usize, Option<ScanErrorKind>);

/// The walk's result from [`Scanned`].
#[inline(always)]
fn scanned((at, kind): Scanned) -> Result<usize, ScanError> {
    match kind {
        None => Ok(at),
        Some(kind) => Err(ScanError { kind, offset: at }),
    }
}

/// [`value_or_rest`] by the word walk, out of line (its bit stack, 128 bytes, is off
/// the stack again before the caller reads what it scanned), `level` as
/// [`value_wordwise`] takes it, the arguments one by one so that they come in
/// registers.
#[inline(never)]
fn walk(b: &[u8], i: usize, max_depth: u16, level: usize) -> Scanned {
    // Asked here, inside the walk's copy, so that its compiler knows it in the word
    // walk (the callers ask nothing before the call); shorter inputs take the general
    // walk.
    let walked = if b.len() >= WORD_WALK_MIN {
        value_wordwise(b, i, max_depth, level)
    } else {
        bytewise_from(b, i, max_depth, level != 0)
    };
    match end_of_input(b, walked) {
        Ok(end) => (end, None),
        Err(e) => (e.offset, Some(e.kind)),
    }
}

/// [`value`] of an array that starts at `at`, its verdict only (`Some` of the offset
/// after it exactly when `value` is `Ok` of it): for the most common params, an array
/// of strings, numbers or literals. Inlined into its caller, it reads such an array by
/// the walk's rules without the walk's bit stack; at the first container inside it,
/// the word walk takes over from there, as if it had opened the array itself. (Objects
/// are left to the word walk: their members cost more this way on the bench's
/// notifications than they save on its batch.) The unit tests pin it to `value`.
#[inline(always)]
pub(crate) fn array(b: &[u8], at: usize, max_depth: u16) -> Option<usize> {
    if b.len() < WORD_WALK_MIN || max_depth == 0 || byte_at(b, at) != b'[' {
        return value(b, at, max_depth).ok();
    }
    let mut i = skip_ws(b, at + 1);
    if byte_at(b, i) == b']' {
        return Some(i + 1);
    }
    loop {
        let c = byte_at(b, i);
        // A string and a number are asked for before the `match` over the other first
        // bytes (the common elements first).
        i = if c == b'"' {
            // Inline: once the word walk's job took its arguments in registers, the call
            // cost more than the inlined loop.
            string(b, i).ok()?
        } else if c == b'-' || c.is_ascii_digit() {
            // A short number from one word, with the separator after it and the byte
            // after that: no loop over its digits, no second read.
            let short = if c.wrapping_sub(b'1') < 9 {
                short_number(word_at(b, i))
            } else {
                None
            };
            match short {
                Some((len, after)) => {
                    let end = i + len;
                    if after as u8 == b',' && (after >> 8) as u8 > b' ' {
                        i = end + 1;
                        continue;
                    }
                    if after as u8 == b']' {
                        return Some(end + 1);
                    }
                    end
                }
                None => number(b, i).ok()?,
            }
        } else {
            match c {
                b't' | b'f' | b'n' => literal(b, i).ok()?,
                b'{' | b'[' => return value_or_rest(b, i, max_depth, true).ok(),
                _ => return None,
            }
        };
        match super::skip_ws_to(b, i) {
            (comma, b',') => i = skip_ws(b, comma + 1),
            (close, b']') => return Some(close + 1),
            _ => return None,
        }
    }
}

/// [`value_bytewise`] a word at a time: the byte that starts a value is read
/// with the bytes after it ([`word_at`], one bounds check for eight), so a literal is
/// one compare and a number's digits are found eight at a time ([`number_words`]); the
/// end of a string is read with the separator after it, a separator with the byte after
/// it; a `,"` in an object goes straight into the next key
/// ([`nested_key`]: one run of plain bytes, and its `":` read with the value's first
/// bytes). The open count and the kind of the innermost container share one register.
/// Whatever is not the common case (whitespace, escapes, an exponent, any error) goes
/// the general way from the same offset, through the rules `value_bytewise` uses, so the result
/// and every error are `value_bytewise`'s. The unit tests pin the two to each other. The kinds of
/// the innermost [`KINDS_HELD`] open containers are a register, shifted on each open
/// and close; only deeper ones touch the bit stack. A value that is not a container goes to the
/// general walk at once, so that only a container's closing asks whether the
/// outermost value ended.
///
/// `level` is 0, or with [`ARRAY_OPEN`] the walk starts inside an array already open,
/// where one of its elements starts at `i`, and ends after that array closes. (The
/// caller says it as the level, not a flag: the level is the register the walk keeps.)
#[inline(always)]
fn value_wordwise(
    b: &[u8],
    mut i: usize,
    max_depth: u16,
    level: usize,
) -> Result<usize, ScanError> {
    const TRUE: u32 = u32::from_le_bytes(*b"true");
    const NULL: u32 = u32::from_le_bytes(*b"null");
    const FALSE: u64 = u64::from_le_bytes(*b"false\0\0\0");
    const FIVE: u64 = 0xFF_FFFF_FFFF;
    let max_depth = max_depth as usize;
    let held_or_limit = max_depth.min(KINDS_HELD);
    let mut words = [0u32; WORDS];
    // The kinds of the innermost `KINDS_HELD` open containers, the innermost lowest (1
    // for an object), in a register; those further out in `words`, by level.
    let mut kinds: u64 = 0;
    // The open containers times two, and one more when the innermost is an object: one
    // register for both.
    // An array open at the start is level 1, its kind bit 0 as the words start.
    let mut level = level;
    // The bytes from `i`, as `word_at` reads them: here all eight (a number is read
    // from them without reading again).
    let mut w = word_at(b, i);
    if level == 0 && w as u8 | 0x20 != b'{' {
        // Not a container: one value, by the general walk (so that only a container's
        // closing asks whether the outermost value ended).
        return value_general(b, i, max_depth as u16);
    }
    loop {
        // Here a value starts at `i` (its key, if any, read). After it, `s` is to hold
        // the bytes from its end: at least the first two. The first bytes are asked
        // for one kind at a time, the most common first: a string, a number `1`-`9`,
        // a container, the literals; a `match` is left for the rest. (A `match` over
        // them all was a range check and a jump table, dearer for the common bytes.)
        let mut s = if w as u8 == b'"' {
            let (end, s) = plain_run(b, i + 1);
            if s as u8 == b'"' {
                i = end + 1;
                s >> 8
            } else {
                // Where `string` goes on after its first plain run, read already.
                i = string_blocks(b, end)?;
                word_at(b, i)
            }
        } else if (w as u8).wrapping_sub(b'1') < 9 {
            // Its own copy of `number_words`, which knows its first byte (a short
            // number at once).
            let after;
            (i, after) = number_words(b, i, w)?;
            after
        } else if w as u8 | 0x20 == b'{' {
            // `{` or `[` (`[` is `{` less 0x20).
            let c = w as u8;
            let open = level >> 1;
            // One compare for both rare cases: too deep, or the register full.
            if open >= held_or_limit {
                if open >= max_depth {
                    return Err(ScanError {
                        kind: ScanErrorKind::TooDeep,
                        offset: i,
                    });
                }
                // The outermost kind held goes to the bit stack (an empty container
                // spills it too: the same bit, written again when it is needed).
                set_kind(
                    &mut words,
                    open - KINDS_HELD,
                    kinds >> (KINDS_HELD - 1) != 0,
                );
            }
            i += 1;
            let mut next = (w >> 8) as u8;
            if next <= b' ' {
                i = skip_ws(b, i);
                next = byte_at(b, i);
            }
            // `}` and `]` are two past their openers.
            if next == c + 2 {
                // Empty: closed at once.
                i += 1;
                if level < 2 {
                    // The outermost value.
                    return Ok(i);
                }
                word_at(b, i)
            } else {
                let is_object = c == b'{';
                kinds = kinds << 1 | is_object as u64;
                level = (open + 1) * 2 + is_object as usize;
                match element(b, i, next, is_object)? {
                    Member::Value(value, bytes) => {
                        (i, w) = (value, bytes);
                        continue;
                    }
                    Member::Ended(end, after) => {
                        i = end;
                        after
                    }
                }
            }
        } else if w as u32 == NULL || w as u32 == TRUE {
            i += 4;
            w >> 32
        } else if w & FIVE == FALSE {
            i += 5;
            word_at(b, i)
        } else {
            match w as u8 {
                b'-' | b'0' => {
                    let after;
                    (i, after) = number_words(b, i, w)?;
                    after
                }
                b't' | b'f' | b'n' => {
                    // Not the literal: the general rule names the byte.
                    i = literal(b, i)?;
                    word_at(b, i)
                }
                _ => return Err(fail(ScanErrorKind::UnexpectedByte, i)),
            }
        };
        // Here a value just ended at `i`: separators and closers, until a value starts
        // again or the outermost one ends.
        loop {
            if level & 1 != 0 && s as u16 == u16::from_le_bytes(*b",\"") {
                // The next member of an object, its key right after the comma.
                match nested_key(b, i + 1) {
                    Some(Member::Value(value, bytes)) => {
                        (i, w) = (value, bytes);
                        break;
                    }
                    Some(Member::Ended(end, after)) => {
                        (i, s) = (end, after);
                        continue;
                    }
                    None => {}
                }
            }
            if s as u8 <= b' ' {
                i = skip_ws(b, i);
                s = word_at(b, i);
            }
            if s as u8 == b',' {
                i += 1;
                let mut next = (s >> 8) as u8;
                if next <= b' ' {
                    i = skip_ws(b, i);
                    next = byte_at(b, i);
                }
                match element(b, i, next, level & 1 != 0)? {
                    Member::Value(value, bytes) => {
                        (i, w) = (value, bytes);
                        break;
                    }
                    Member::Ended(end, after) => {
                        (i, s) = (end, after);
                        continue;
                    }
                }
            }
            // `}` is `]` and 0x20.
            if s as u8 != b']' | ((kinds & 1) as u8) << 5 {
                return Err(fail(ScanErrorKind::UnexpectedByte, i));
            }
            i += 1;
            let open = (level >> 1) - 1;
            if open == 0 {
                // The outermost value ended.
                return Ok(i);
            }
            kinds >>= 1;
            if open >= KINDS_HELD {
                kinds |= (is_object_at(&words, open - KINDS_HELD + 1) as u64) << (KINDS_HELD - 1);
            }
            level = open * 2 + (kinds & 1) as usize;
            s = word_at(b, i);
        }
    }
}

/// The build's walks other than the general one, with the end-of-input rule: the word
/// walk inline, and its out-of-line copy. For the unit tests and the `validate` fuzz
/// target, which pin each to the general walk.
#[cfg(any(test, fuzzing))]
pub(crate) fn other_walks(
    b: &[u8],
    i: usize,
    max_depth: u16,
) -> [(&'static str, Result<usize, ScanError>); 2] {
    [
        (
            "inline",
            end_of_input(b, value_wordwise(b, i, max_depth, 0)),
        ),
        ("out of line", scanned(walk(b, i, max_depth, 0))),
    ]
}

/// For [`value_wordwise`]: where a member or an element stands once its key (if any) is
/// read.
enum Member {
    /// Its value starts at this offset, with these bytes from there (the first eight,
    /// as [`word_at`] reads them).
    Value(usize, u64),
    /// Its value, a string of plain ASCII read with its key, ended just before this
    /// offset, with these bytes from there (the first eight).
    Ended(usize, u64),
}

/// For [`value_wordwise`]: a member or element starts at `i`, whose byte is `first`,
/// whitespace skipped, in an object if `in_object`. A key of plain ASCII with its `":`
/// right after it is read by [`nested_key`]; any other goes to [`member`].
#[inline(always)]
fn element(b: &[u8], i: usize, first: u8, in_object: bool) -> Result<Member, ScanError> {
    if !in_object {
        return Ok(Member::Value(i, word_at(b, i)));
    }
    if first == b'"' {
        if let Some(member) = nested_key(b, i) {
            return Ok(member);
        }
    }
    let value = member(b, i)?;
    Ok(Member::Value(value, word_at(b, value)))
}

/// For [`value_wordwise`]: the key whose opening quote is at `i`, when it is plain ASCII
/// with its `":` right after it; otherwise `None`, and the key goes to [`member`].
/// Where [`KEY_WINDOW`] bytes follow the quote, a key shorter than 16 bytes is read
/// with one mask of its first 16 ([`simd::plain_ascii_mask`]), and a string value of
/// plain ASCII right after its colon with the same mask, or the next 16 bytes' (a key
/// and its string value at once).
#[inline(always)]
fn nested_key(b: &[u8], i: usize) -> Option<Member> {
    if let Some(window) = b.get(i + 1..).and_then(|r| r.first_chunk::<KEY_WINDOW>()) {
        // Bit `k` for each of the first 16 bytes that is no plain ASCII string byte.
        let stops = simd::plain_ascii_mask(window, 0).unwrap_or(0);
        let key_end = stops.trailing_zeros() as usize;
        if key_end < 16 {
            let after = match window.get(key_end..).and_then(|r| r.first_chunk::<8>()) {
                Some(after) => u64::from_le_bytes(*after),
                None => return None,
            };
            if after as u16 != u16::from_le_bytes(*b"\":") {
                return None;
            }
            let value = i + 1 + key_end + 2;
            // The value's first eight bytes, in the window too (`key_end + 2` is at most
            // 17): a number needs them all.
            let bytes = match window.get(key_end + 2..).and_then(|r| r.first_chunk::<8>()) {
                Some(bytes) => u64::from_le_bytes(*bytes),
                None => return None,
            };
            let first = bytes as u8;
            if first == b'"' {
                // The string's first stop after its opening quote (`from` is at most
                // 18), in this mask or in the next 16 bytes'.
                let from = key_end + 3;
                let mut later = stops >> from << from;
                if later == 0 {
                    later = simd::plain_ascii_mask(window, 16).unwrap_or(0) << 16 >> from << from;
                }
                let stop = later.trailing_zeros() as usize;
                if window.get(stop) == Some(&b'"') {
                    if let Some(next) = window.get(stop + 1..).and_then(|r| r.first_chunk::<8>()) {
                        return Some(Member::Ended(i + 1 + stop + 1, u64::from_le_bytes(*next)));
                    }
                }
                return Some(Member::Value(value, bytes));
            }
            if first > b' ' {
                return Some(Member::Value(value, bytes));
            }
            let value = skip_ws(b, value);
            return Some(Member::Value(value, word_at(b, value)));
        }
    }
    let (end, w) = plain_run(b, i + 1);
    if w as u16 != u16::from_le_bytes(*b"\":") {
        return None;
    }
    if (w >> 16) as u8 > b' ' {
        return Some(Member::Value(end + 2, word_at(b, end + 2)));
    }
    let value = skip_ws(b, end + 2);
    Some(Member::Value(value, word_at(b, value)))
}

/// For [`nested_key`]: the bytes it reads at once after a key's opening quote, two
/// masks of 16 and the eight bytes after the last.
const KEY_WINDOW: usize = 40;

/// For [`value_wordwise`]: the end of the run of plain ASCII string bytes from `i`
/// ([`simd::plain_ascii_end`]) and the bytes from there, the first eight as [`word_at`]
/// reads them.
#[inline(always)]
fn plain_run(b: &[u8], i: usize) -> (usize, u64) {
    let end = simd::plain_ascii_end(b, i);
    (end, word_at(b, end))
}

/// [`number`] a word at a time: the number at `i`, whose bytes
/// from `i` are `w`, the first eight as [`word_at`] reads them (the walk has them
/// already, so a short number costs no second read). An integer and a fraction
/// are runs of digits found eight at a time ([`digit_run`]); anything else (an
/// exponent, an error) goes to [`number`] from the start, so the errors are its own.
/// Returns the offset after the number and the bytes from there, the first two as
/// `word_at` reads them (the separator after a short number is in `w` already). The
/// unit tests pin it to `number`.
#[inline(always)]
pub(crate) fn number_words(b: &[u8], i: usize, w: u64) -> Result<(usize, u64), ScanError> {
    // Anything but the common shapes: the general rule from the start.
    let general = || number(b, i).map(|end| (end, word_at(b, end)));
    if (w as u8).wrapping_sub(b'1') < 9 {
        // Most numbers: all of it, and two bytes after it, in one word.
        if let Some((len, after)) = short_number(w) {
            return Ok((i + len, after));
        }
    }
    // `x`: the bytes from `at`, the first `known` of them read.
    let (mut at, mut x, mut known) = match w as u8 {
        b'1'..=b'9' => digit_run(b, i, w, 8),
        b'0' => (i + 1, w >> 8, 7),
        b'-' => match (w >> 8) as u8 {
            b'1'..=b'9' => digit_run(b, i + 1, w >> 8, 7),
            b'0' => (i + 2, w >> 16, 6),
            _ => return general(),
        },
        _ => return general(),
    };
    if x as u8 == b'.' {
        (at, x, known) = (at + 1, x >> 8, known - 1);
        if known == 0 {
            (x, known) = (word_at(b, at), 8);
        }
        if !(x as u8).is_ascii_digit() {
            return general();
        }
        (at, x, known) = digit_run(b, at, x, known);
    }
    if x as u8 | 0x20 == b'e' {
        return general();
    }
    if known < 2 {
        x = word_at(b, at);
    }
    Ok((at, x))
}

/// The top bit of each byte of `w` that is not a digit. A byte `c` is a digit when
/// `t = c ^ '0'` is below 10, and `t + 0x76` (or `t` itself) reaches 0x80 exactly for
/// the others. A carry leaves only a byte already flagged (`t >= 0x8A`, not a digit nor
/// `.`) and goes up, so every flag up to the first such byte is right.
#[inline(always)]
const fn non_digits(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let t = w ^ (ONES * b'0' as u64);
    (t.wrapping_add(ONES * 0x76) | t) & (ONES * 0x80)
}

/// The length of the number at the start of `x` (eight bytes as [`word_at`] reads
/// them, the first a digit `1` to `9`), when it is an integer or a fraction without
/// exponent that ends within the first six bytes (so that the two bytes after it are
/// in `x` too), and the bytes after it; otherwise `None`.
#[inline(always)]
fn short_number(x: u64) -> Option<(usize, u64)> {
    let flags = non_digits(x);
    // The first byte that is not a digit: 1 to 8 (8: none).
    let int = (flags.trailing_zeros() / 8) as usize;
    if int > 6 {
        return None;
    }
    let mut end = int;
    let mut rest = x >> (8 * int);
    if rest as u8 == b'.' {
        // The flags above the `.` are right (it carries nothing): the next one ends
        // the fraction, which needs a digit.
        let frac = ((flags >> (8 * int) >> 8).trailing_zeros() / 8) as usize;
        if frac == 0 || int + 1 + frac > 6 {
            return None;
        }
        end = int + 1 + frac;
        rest = x >> (8 * end);
    }
    if rest as u8 | 0x20 == b'e' {
        return None;
    }
    Some((end, rest))
}

/// The run of digits from `i`, whose bytes from `i` are `w`, the first `known` (1 to 8)
/// as [`word_at`] reads them: the offset after the run, and the bytes from there, the
/// first of them (the byte that ends the run, `0` past the end) and how many more read.
#[inline(always)]
fn digit_run(b: &[u8], mut i: usize, mut w: u64, mut known: usize) -> (usize, u64, usize) {
    loop {
        // 8 when there is none (the lowest flag is right).
        let k = (non_digits(w).trailing_zeros() / 8) as usize;
        if k < known {
            return (i + k, w >> (8 * k), known - k);
        }
        i += known;
        (w, known) = (word_at(b, i), 8);
    }
}

/// The eight bytes from `i` as a little-endian word (the byte at `i` lowest), each
/// byte past the end `0`, as [`byte_at`] reads it: one bounds check for eight bytes.
/// The word walk reads a separator and what follows it, a literal or a run of digits
/// with it.
#[inline(always)]
pub(crate) fn word_at(b: &[u8], i: usize) -> u64 {
    // `i < len - 7` with `len >= 8`: one compare in a loop (the other and the
    // subtraction are the same each time), and the compiler sees the eight in bounds.
    if i < b.len().wrapping_sub(7) && b.len() >= 8 {
        if let Some(w) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
            return u64::from_le_bytes(*w);
        }
    }
    word_at_end(b, i)
}

/// [`word_at`] within the last eight bytes of `b` (or past them): the last word shifted
/// down, zeros shifted in.
// Inline everywhere, as the compiler had it while only the walk read words: out of
// line, its calls cost the walk registers.
#[inline(always)]
fn word_at_end(b: &[u8], i: usize) -> u64 {
    let len = b.len();
    if i >= len {
        return 0;
    }
    match b.last_chunk::<8>() {
        // `len - 8 < i < len`: the shift is 8 to 56 bits.
        Some(w) => u64::from_le_bytes(*w) >> (8 * (i - (len - 8))),
        None => (0..8).fold(0, |w, k| w | u64::from(byte_at(b, i + k)) << (8 * k)),
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::scan::tests::compact_and_spaced;
    use crate::scan::value;
    use crate::scan::DEFAULT_MAX_DEPTH;
    use std::vec::Vec;

    /// [`number_words`] gives [`number`]'s answer, end or error, and the two bytes after
    /// the number, on numbers of every shape, cut at every length, followed by each
    /// kind of byte, from every start, given the eight bytes it is promised.
    #[test]
    fn words_agree_with_the_general_rule() {
        let numbers: [&[u8]; 21] = [
            b"1.5",
            b"12.34",
            b"9.",
            b"1.x",
            b"123456",
            b"1234.5",
            b"12.3e5",
            b"0",
            b"-0",
            b"7",
            b"123456789012345678901234567890",
            b"-12345678",
            b"465.78",
            b"0.000000001234567",
            b"1e5",
            b"-2.5E+10",
            b"3e-7",
            b"01",
            b"-x",
            b"1.e3",
            b"12345678.12345678e12345678",
        ];
        let mut checked = 0;
        for number_ in numbers {
            for tail in [
                &b""[..],
                b",",
                b"]",
                b"}",
                b" ",
                b".",
                b"e",
                b"E",
                b"9",
                b"-",
                b"\0",
            ] {
                let mut all: Vec<u8> = number_.to_vec();
                all.extend_from_slice(tail);
                for cut in 0..=all.len() {
                    let b = &all[..cut];
                    for i in 0..=b.len() {
                        let want = number(b, i).map(|end| (end, word_at(b, end) & 0xFFFF));
                        let got = number_words(b, i, word_at(b, i))
                            .map(|(end, after)| (end, after & 0xFFFF));
                        assert_eq!(got, want, "{b:?} at {i}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 5000, "{checked}");
    }

    /// The array reader gives `value`'s verdict on every input, from every start, at four
    /// depth limits: the end of the same array, or nothing where `value` errs. Among the
    /// checks are arrays it reads whole, and arrays in which it hands a nested container
    /// to the word walk; its own arrays (short numbers of every length before every
    /// kind of separator among them) are also cut at every length.
    #[test]
    fn array_reader_agrees_with_the_walk() {
        let own: [&[u8]; 13] = [
            br#"[1,22,333,4444,55555,666666,7777777,88888888,9]"#,
            br#"[1.5,2.25,3.125,44.5,5.0625,6.,7.e1,8.5e2,9.5E-1,1.5.5]"#,
            b"[12 ,34, 56 , 78\t,9\n,1]",
            br#"[12,,3] [12] [12,] [12 ] [1x] [1,x] [1,-2,0,-0,01,00]"#,
            br#"[7,"x",8,true,9,[1,2],10,{"a":11},12]"#,
            br#"[1,"two",true,false,null,-3.5e2,"\u00e9"]"#,
            br#"[1, 2, {"a": [3, {"b": 4}]}, "five", [6]]"#,
            br#"[[[[1]]], 2, "and some more after it"]"#,
            br#"["a string of more than sixteen bytes", 12345678901234567890]"#,
            br#"[1,2,3,4,5,6,7,8,9,10,]"#,
            br#"[1,2,3,4,5,6,7,8 9,10]"#,
            br#"[1,2,3,4,5,{"a":1],7,8,9,10]"#,
            br#"[ "x" , { } , [ ] , tru ]"#,
        ];
        let cuts = own
            .iter()
            .flat_map(|b| (0..=b.len()).map(move |k| b[..k].to_vec()));
        let inputs = compact_and_spaced().chain(cuts);
        let (mut whole, mut handed) = (0, 0);
        for input in inputs {
            let starts = if input.len() <= 300 { input.len() } else { 1 };
            for i in 0..starts.max(1) {
                for depth in [DEFAULT_MAX_DEPTH, 3, 1, 0] {
                    let want = value(&input, i, depth).ok();
                    assert_eq!(array(&input, i, depth), want, "{input:?} from {i}, {depth}");
                    if want.is_some() && byte_at(&input, i) == b'[' && input.len() >= 16 {
                        let inner = &input[i + 1..want.unwrap_or(0)];
                        if inner.contains(&b'[') || inner.contains(&b'{') {
                            handed += 1;
                        } else {
                            whole += 1;
                        }
                    }
                }
            }
        }
        assert!(
            whole > 100 && handed > 100,
            "{whole} read whole, {handed} handed over"
        );
    }

    /// `word_at` reads what `byte_at` reads, at every offset near and past the end.
    #[test]
    fn word_at_reads_as_byte_at() {
        let bytes: Vec<u8> = (1..=24).collect();
        for len in 0..=bytes.len() {
            let b = &bytes[..len];
            for i in 0..len + 10 {
                let want = (0..8).fold(0u64, |w, k| w | u64::from(byte_at(b, i + k)) << (8 * k));
                assert_eq!(word_at(b, i), want, "{len} at {i}");
            }
        }
    }
}
