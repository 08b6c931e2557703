//! The walk: one JSON value, its containers and separators, without recursion.
//!
//! Nesting lives in a bit stack (one bit per open container, 1 for an object) of
//! [`MAX_DEPTH_LIMIT`] bits on the stack of the walk; the kind of the innermost open
//! container is kept in a register. Strings and numbers are scanned by their own
//! files; literals here. This is the general walk, [`value_bytewise`]: the compact
//! build's, and the reference. The fast build walks a word at a time (`words.rs`,
//! declared by `build_fast.rs`), and takes every case but the common shapes through
//! the rules here; the unit tests pin it to this walk.

use super::{byte_at, fail, number, skip_ws, string, ScanError, ScanErrorKind, MAX_DEPTH_LIMIT};

/// The bit stack's words.
pub(super) const WORDS: usize = (MAX_DEPTH_LIMIT / 32) as usize;

/// Scans the value that starts exactly at `i` (no leading whitespace), with at most
/// `max_depth` containers open at once, which is at most [`MAX_DEPTH_LIMIT`] (every
/// caller's limit is clamped already: `Limits::depth_in_force`, the public entries of
/// `scan`; a larger one would outgrow the bit stack). Returns the offset after the
/// value; bytes after it are not looked at. The build's walk (`build_*.rs`).
#[inline(always)]
pub(crate) fn value(b: &[u8], i: usize, max_depth: u16) -> Result<usize, ScanError> {
    super::build::value(b, i, max_depth)
}

/// [`value`] by the general walk, out of line: its bit stack (128 bytes) is off the
/// stack again before the caller goes on to read what it scanned.
#[inline(never)]
pub(super) fn value_general(b: &[u8], i: usize, max_depth: u16) -> Result<usize, ScanError> {
    end_of_input(b, value_bytewise(b, i, max_depth))
}

/// The general walk's answer, inline, with the end-of-input rule: what the unit tests
/// and the `validate` fuzz target pin the build's other walks to
/// (`build::other_walks`).
#[cfg(any(test, fuzzing))]
pub(super) fn general(b: &[u8], i: usize, max_depth: u16) -> Result<usize, ScanError> {
    end_of_input(b, value_bytewise(b, i, max_depth))
}

/// The end-of-input rule: an error at or past the end of `b` is the end of the input.
#[inline(always)]
pub(super) fn end_of_input(b: &[u8], walked: Result<usize, ScanError>) -> Result<usize, ScanError> {
    walked.map_err(|e| {
        if e.offset >= b.len() {
            fail(ScanErrorKind::UnexpectedEnd, e.offset)
        } else {
            e
        }
    })
}

/// [`value`], its errors as the rules give them.
#[inline(always)]
pub(super) fn value_bytewise(b: &[u8], mut i: usize, max_depth: u16) -> Result<usize, ScanError> {
    let max_depth = max_depth as usize;
    // A level's bit is set before it is read, so the words may start as anything: a
    // value known only at run time, a short store loop where zeros were a call to
    // `memset` on a Cortex-M (flash).
    let mut words = [max_depth as u32; WORDS];
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

/// Sets the kind of the container at `level` (0 for the outermost): an object or not.
/// Its bit is set before it is ever read, so the words may start as anything.
#[inline(always)]
pub(super) fn set_kind(words: &mut [u32; WORDS], level: usize, is_object: bool) {
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
pub(super) fn is_object_at(words: &[u32; WORDS], open: usize) -> bool {
    let level = open.wrapping_sub(1);
    words
        .get(level / 32)
        .is_some_and(|w| w & (1 << (level % 32)) != 0)
}

/// The key and colon of a member, the key's opening quote expected at `i`: the offset
/// of the value after the colon (whitespace skipped).
#[inline(always)]
pub(super) fn member(b: &[u8], i: usize) -> Result<usize, ScanError> {
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
pub(super) fn literal(b: &[u8], i: usize) -> Result<usize, ScanError> {
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
