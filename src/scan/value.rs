//! The walk: one JSON value, its containers and separators, without recursion.
//!
//! Nesting lives in a bit stack (one bit per open container, 1 for an object) of
//! [`MAX_DEPTH_LIMIT`] bits on the stack of [`value`]; the kind of the innermost open
//! container is kept in a register (the word walk keeps the innermost 64 there, and
//! spills the kinds further out to the bit stack). Strings and numbers are scanned by their own files;
//! literals here. The walk is written twice: `value_bytewise`, the general one (the compact
//! build's, and the reference), and `value_wordwise`, the fast build's, which reads eight
//! bytes at a time where the input is in its common shape and takes every other case
//! through the same rules as `value_bytewise`; a unit test pins it to `value_bytewise`. [`array()`] reads an
//! array of scalars (the common params) by the same rules without the walk's setup,
//! and hands the word walk the rest of the array at the first container in it; a unit
//! test pins it to [`value`].

use super::number::{number, number_words};
use super::string::{string, string_blocks};
use super::{byte_at, fail, skip_ws, word_at, ScanError, ScanErrorKind, MAX_DEPTH_LIMIT};
use crate::simd;

const WORDS: usize = (MAX_DEPTH_LIMIT / 32) as usize;

/// [`value_wordwise`]'s `level` (open containers times two, plus one in an object) when it
/// starts inside an array already open.
const ARRAY_OPEN: usize = 2;

/// How many open containers' kinds [`value_wordwise`] holds in a register.
const KINDS_HELD: usize = 64;

/// The shortest input [`value_wordwise`] takes; shorter ones go the general way.
const WORD_WALK_MIN: usize = 24;

/// Scans the value that starts exactly at `i` (no leading whitespace), with at most
/// `max_depth` containers open at once, which is at most [`MAX_DEPTH_LIMIT`] (every
/// caller's limit is clamped already: `Limits::depth_in_force`, the public entries of
/// `scan`; a larger one would outgrow the bit stack). Returns the offset after the
/// value; bytes after it are not looked at.
#[inline(always)]
pub(crate) fn value(b: &[u8], i: usize, max_depth: u16) -> Result<usize, ScanError> {
    value_or_rest(b, i, max_depth, false)
}

/// [`value`], or with `in_array` the rest of an array already open ([`value_wordwise`]
/// says how); the one copy of the walks.
///
/// The word walk reads eight bytes at a time: an input shorter than [`WORD_WALK_MIN`]
/// goes the general way (and the compiler knows, in the word walk, that so many bytes
/// are there, so that `word_at` is one compare). Only the word walk starts
/// inside an array, and `array` asks it to on that many bytes or more only. The word
/// walk runs in the widest copy the CPU has ([`simd::widest`]: on x86_64 with `std`,
/// AVX2 where the CPU has it).
// Both walks out of line: their bit stack (128 bytes) is off the stack again before
// the caller goes on to read what it scanned.
#[inline(always)]
fn value_or_rest(b: &[u8], i: usize, max_depth: u16, in_array: bool) -> Result<usize, ScanError> {
    if super::FAST_PATHS {
        let level = if in_array { ARRAY_OPEN } else { 0 };
        return scanned(simd::widest::<ValueOrRestWordwise>(b, i, max_depth, level));
    }
    value_or_rest_bytewise(b, i, max_depth, in_array)
}

/// [`value_or_rest`] by the general walk, out of line.
#[inline(never)]
fn value_or_rest_bytewise(
    b: &[u8],
    i: usize,
    max_depth: u16,
    in_array: bool,
) -> Result<usize, ScanError> {
    end_of_input(b, bytewise_from(b, i, max_depth, in_array))
}

/// [`value_bytewise`], or with `in_array` the end of the input: only the word walk starts inside
/// an array, and [`array()`] asks it to on [`WORD_WALK_MIN`] bytes or more only.
#[inline(always)]
fn bytewise_from(b: &[u8], i: usize, max_depth: u16, in_array: bool) -> Result<usize, ScanError> {
    if in_array {
        return Err(fail(ScanErrorKind::UnexpectedEnd, b.len()));
    }
    value_bytewise(b, i, max_depth)
}

/// [`value_or_rest`] by the word walk, as a [`simd::Job`]: compiled into each copy that
/// [`simd::widest`] picks from.
struct ValueOrRestWordwise;

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

impl simd::Job for ValueOrRestWordwise {
    type Out = Scanned;

    #[inline(always)]
    fn run(b: &[u8], i: usize, max_depth: u16, level: usize) -> Self::Out {
        // Asked here, inside the copy, so that its compiler knows it in the word walk
        // (the callers ask nothing before the call); shorter inputs take the general
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
}

/// The end-of-input rule: an error at or past the end of `b` is the end of the input.
#[inline(always)]
fn end_of_input(b: &[u8], walked: Result<usize, ScanError>) -> Result<usize, ScanError> {
    walked.map_err(|e| {
        if e.offset >= b.len() {
            fail(ScanErrorKind::UnexpectedEnd, e.offset)
        } else {
            e
        }
    })
}

/// [`value`] of an array that starts at `at`, its verdict only (`Some` of the offset
/// after it exactly when `value` is `Ok` of it): for the most common params, an array
/// of strings, numbers or literals. Inlined into its caller, it reads such an array by
/// the walk's rules without the walk's bit stack; at the first container inside it,
/// the word walk takes over from there, as if it had opened the array itself. (Objects
/// are left to the word walk: their members cost more this way on the bench's
/// notifications than they save on its batch.) The unit tests pin it to `value`.
#[cfg(jsonrpc_slice_fast)]
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
            number(b, i).ok()?
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

/// [`value`], its errors as the rules give them.
#[inline(always)]
fn value_bytewise(b: &[u8], mut i: usize, max_depth: u16) -> Result<usize, ScanError> {
    let max_depth = max_depth as usize;
    // A level's bit is set before it is read, so the words may start as anything:
    // zeros on the fast build (eight vector stores), and on the compact one a value
    // known only at run time, a short store loop where zeros were a call to `memset`
    // (174 bytes of flash on a Cortex-M).
    let fill = if super::FAST_PATHS {
        0
    } else {
        max_depth as u32
    };
    let mut words = [fill; WORDS];
    // Open containers, and the kind of the innermost one.
    let mut open: usize = 0;
    let mut in_object = false;
    loop {
        // Here a value starts at `i`, after its key when it is a member (the walk comes
        // here in an object only after its `{` or a `,`).
        if in_object {
            i = member(b, i)?;
        }
        match byte_at(b, i) {
            c @ (b'{' | b'[') => {
                if open >= max_depth {
                    return Err(ScanError {
                        kind: ScanErrorKind::TooDeep,
                        offset: i,
                    });
                }
                let is_object = c == b'{';
                set_kind(&mut words, open, is_object);
                open += 1;
                in_object = is_object;
                i = skip_ws(b, i + 1);
                // `}` and `]` are two past their openers.
                if byte_at(b, i) != c + 2 {
                    continue;
                }
                // Empty: the loop below closes it, as any other.
            }
            b'"' => i = string(b, i)?,
            b'-' | b'0'..=b'9' => i = number(b, i)?,
            b't' | b'f' | b'n' => i = literal(b, i)?,
            _ => return Err(fail(ScanErrorKind::UnexpectedByte, i)),
        }
        // Here a value just ended at `i`: separators and closers, until a value starts
        // again or the outermost one ends.
        loop {
            if open == 0 {
                return Ok(i);
            }
            i = skip_ws(b, i);
            match byte_at(b, i) {
                b',' => {
                    i = skip_ws(b, i + 1);
                    break;
                }
                b'}' if in_object => {}
                b']' if !in_object => {}
                _ => return Err(fail(ScanErrorKind::UnexpectedByte, i)),
            }
            i += 1;
            open -= 1;
            in_object = is_object_at(&words, open);
        }
    }
}

/// [`value_bytewise`] on the fast build, a word at a time: the byte that starts a value is read
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
    // The bytes from `i`, as `word_at` reads them: here at least the first six.
    let mut w = word_at(b, i);
    if level == 0 && w as u8 | 0x20 != b'{' {
        // Not a container: one value, by the general walk (so that only a container's
        // closing asks whether the outermost value ended).
        return value_or_rest_bytewise(b, i, max_depth as u16, false);
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

/// The general walk, then the fast build's, with the end-of-input rule: inline, in the
/// copy for the build's target ([`simd::built`]) and in the one [`simd::widest`] picks
/// (the AVX2 copy where the CPU has it). For the unit tests and the `validate` fuzz
/// target, which pin the others to the first.
#[cfg(any(test, fuzzing))]
pub(super) fn every_reader(b: &[u8], i: usize, max_depth: u16) -> [Result<usize, ScanError>; 4] {
    let words = end_of_input(b, value_wordwise(b, i, max_depth, 0));
    [
        end_of_input(b, value_bytewise(b, i, max_depth)),
        words,
        scanned(simd::built::<ValueOrRestWordwise>(b, i, max_depth, 0)),
        scanned(simd::widest::<ValueOrRestWordwise>(b, i, max_depth, 0)),
    ]
}

/// For [`value_wordwise`]: where a member or an element stands once its key (if any) is
/// read.
enum Member {
    /// Its value starts at this offset, with these bytes from there (at least the first
    /// six, as [`word_at`] reads them).
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
            let first = (after >> 16) as u8;
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
                return Some(Member::Value(value, after >> 16));
            }
            if first > b' ' {
                return Some(Member::Value(value, after >> 16));
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
        return Some(Member::Value(end + 2, w >> 16));
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

/// Sets the kind of the container at `level` (0 for the outermost): an object or not.
/// Its bit is set before it is ever read, so the words may start as anything.
#[inline(always)]
fn set_kind(words: &mut [u32; WORDS], level: usize, is_object: bool) {
    if let Some(word) = words.get_mut(level / 32) {
        let bit = 1 << (level % 32);
        if is_object {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }
}

/// Whether the innermost of `open` open containers is an object (`false` when none
/// is open).
#[inline(always)]
fn is_object_at(words: &[u32; WORDS], open: usize) -> bool {
    let level = open.wrapping_sub(1);
    words
        .get(level / 32)
        .is_some_and(|w| w & (1 << (level % 32)) != 0)
}

/// The key and colon of a member, the key's opening quote expected at `i`: the offset
/// of the value after the colon (whitespace skipped).
#[inline(always)]
fn member(b: &[u8], i: usize) -> Result<usize, ScanError> {
    key_colon(b, i).map(|(_, _, value)| value)
}

/// An object key and its colon, the key's opening quote expected at `i`: where the key
/// starts and ends, and the offset of the value after the colon (whitespace skipped).
#[inline(always)]
pub(crate) fn key_colon(b: &[u8], i: usize) -> Result<(usize, usize, usize), ScanError> {
    if byte_at(b, i) != b'"' {
        return Err(fail(ScanErrorKind::UnexpectedByte, i));
    }
    let key_end = string(b, i)?;
    let colon = skip_ws(b, key_end);
    if byte_at(b, colon) != b':' {
        return Err(fail(ScanErrorKind::UnexpectedByte, colon));
    }
    Ok((i, key_end, skip_ws(b, colon + 1)))
}

/// Checks the literal (`true`, `false` or `null`, by its first byte: `t`, `f`, or
/// anything else for `null`) at `i`; returns the offset after it.
#[inline(always)]
fn literal(b: &[u8], i: usize) -> Result<usize, ScanError> {
    let lit: &'static [u8] = match byte_at(b, i) {
        b't' => b"true",
        b'f' => b"false",
        _ => b"null",
    };
    for (k, &want) in lit.iter().enumerate() {
        if byte_at(b, i + k) != want {
            return Err(fail(ScanErrorKind::UnexpectedByte, i + k));
        }
    }
    Ok(i + lit.len())
}
