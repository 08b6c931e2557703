//! Scan: the JSON grammar of RFC 8259, validated in one forward pass.
//!
//! This is the first room of the flow (scan → envelope → dispatch → write). It knows
//! JSON and nothing of JSON-RPC: it checks bytes and reports where values end, so the
//! envelope can hand out borrowed spans.
//!
//! # Contract
//!
//! - Every function here takes any byte slice and any offset and never panics: a read
//!   past the end sees the byte `0x00`, which no rule of the grammar accepts outside a
//!   string, and which inside a string is a control character, so the end of input
//!   always surfaces as [`ScanErrorKind::UnexpectedEnd`].
//! - Nothing recurses. Nesting is tracked in a fixed bit stack of
//!   [`MAX_DEPTH_LIMIT`] bits (one bit per open container: object or array), so the
//!   stack used is the same for `1` and for 100 000 nested `[`.
//! - The grammar is the complete one: strict UTF-8 (no overlong forms, no encoded
//!   surrogates, nothing above U+10FFFF), escapes including `\u` with surrogate pairs
//!   that must pair up, numbers as RFC 8259 spells them (any length: the lexeme is kept,
//!   never converted), the three literals, no trailing commas, and nothing but
//!   whitespace after the value.

use core::fmt;

/// The default nesting limit: an input may open this many containers (objects and
/// arrays) inside each other; one more is a parse error. The same number as
/// serde_json's recursion limit.
pub const DEFAULT_MAX_DEPTH: u16 = 128;

/// The largest nesting limit that can be configured: the size of the bit stack, in
/// bits (it costs `MAX_DEPTH_LIMIT / 8` bytes of stack while a value is scanned).
pub const MAX_DEPTH_LIMIT: u16 = 1024;

/// Why a slice is not JSON.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScanErrorKind {
    /// The input ended inside a value.
    UnexpectedEnd,
    /// A byte that the grammar does not allow where it stands.
    UnexpectedByte,
    /// A byte sequence that is not strict UTF-8 (overlong, surrogate, out of range, cut).
    InvalidUtf8,
    /// A backslash followed by something other than `"\/bfnrtu`, or a `\u` without four
    /// hex digits.
    InvalidEscape,
    /// A `\u` escape of a UTF-16 surrogate that does not form a pair.
    LoneSurrogate,
    /// A raw control character (below U+0020) inside a string.
    ControlCharacter,
    /// A number that does not follow the grammar (`01`, `1.`, `.5`, `1e`, `+1`, ...).
    InvalidNumber,
    /// More containers open at once than the configured limit allows.
    TooDeep,
    /// Something other than whitespace after the value.
    TrailingCharacters,
}

impl ScanErrorKind {
    /// A short description, for logs and for the `message` of a `-32700` reply.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::UnexpectedEnd => "unexpected end of input",
            Self::UnexpectedByte => "unexpected byte",
            Self::InvalidUtf8 => "invalid UTF-8",
            Self::InvalidEscape => "invalid escape",
            Self::LoneSurrogate => "unpaired UTF-16 surrogate escape",
            Self::ControlCharacter => "control character in string",
            Self::InvalidNumber => "invalid number",
            Self::TooDeep => "nesting too deep",
            Self::TrailingCharacters => "trailing characters after the value",
        }
    }
}

/// A JSON syntax error: what went wrong and the byte offset where it was seen.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ScanError {
    /// What went wrong.
    pub kind: ScanErrorKind,
    /// Byte offset into the scanned slice where the error was detected.
    pub offset: usize,
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.as_str(), self.offset)
    }
}

impl core::error::Error for ScanError {}

/// Checks that `input` is exactly one JSON text (a value with optional whitespace
/// around it), with at most `max_depth` containers open at once (clamped to
/// [`MAX_DEPTH_LIMIT`]).
///
/// ```
/// use jsonrpc_slice::scan::{validate, ScanErrorKind, DEFAULT_MAX_DEPTH};
///
/// assert!(validate(br#" {"a": [1, 2.5e3, "\u00e9"]} "#, DEFAULT_MAX_DEPTH).is_ok());
/// let err = validate(b"[1, 2,]", DEFAULT_MAX_DEPTH).unwrap_err();
/// assert_eq!(err.kind, ScanErrorKind::UnexpectedByte);
/// assert_eq!(err.offset, 6);
/// ```
pub fn validate(input: &[u8], max_depth: u16) -> Result<(), ScanError> {
    let s = Scanner::new(input, max_depth);
    if FAST_PATHS {
        let start = skip_ws_fast(input, 0);
        if let Some(end) = value_fast(input, start, 0, s.max_depth) {
            if skip_ws_fast(input, end) == input.len() {
                return Ok(());
            }
        }
    }
    let start = s.skip_ws(0);
    let end = s.value(start, 0)?;
    s.end(end)
}

/// Returns the offset just past the one JSON value that starts at `start` (leading
/// whitespace is skipped), checking it fully. Bytes after the value are not looked at.
///
/// ```
/// use jsonrpc_slice::scan::{value_end, DEFAULT_MAX_DEPTH};
///
/// assert_eq!(value_end(b"[1,{\"a\":2}] tail", 0, DEFAULT_MAX_DEPTH), Ok(11));
/// ```
pub fn value_end(input: &[u8], start: usize, max_depth: u16) -> Result<usize, ScanError> {
    let s = Scanner::new(input, max_depth);
    if FAST_PATHS {
        if let Some(end) = value_fast(input, skip_ws_fast(input, start), 0, s.max_depth) {
            return Ok(end);
        }
    }
    let at = s.skip_ws(start);
    s.value(at, 0)
}

/// Whether the word-at-a-time paths are compiled in: on 64-bit targets, where an
/// 8-byte word is one register. Elsewhere (a Cortex-M) the crate is built for size:
/// only the exact byte-at-a-time scanner validates, and validated JSON is re-read
/// with byte loops (see `docs/DESIGN.md`, "The compact build"). Both builds give the
/// same verdicts: the unit tests of this module and of `envelope` run the two
/// validators side by side on every host, and `RUSTFLAGS="--cfg jsonrpc_slice_compact"
/// cargo test` runs the whole suite on the compact build (CI does).
pub(crate) const FAST_PATHS: bool = cfg!(jsonrpc_slice_fast);

/// Bytes that end a run of plain string content: `"`, `\`, control characters, and
/// every non-ASCII byte (which starts a UTF-8 sequence to check).
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i < 0x20 || i == b'"' as usize || i == b'\\' as usize || i >= 0x80;
        i += 1;
    }
    t
};

/// A one-bit-per-level stack: 1 for an object, 0 for an array. Words of 32 bits: one
/// shift each on a 32-bit core too. A level is set before it is read, so the words may
/// start as anything.
struct BitStack<'w> {
    words: &'w mut [u32; (MAX_DEPTH_LIMIT / 32) as usize],
}

impl BitStack<'_> {
    /// Records the kind of the container at `level` (`level < MAX_DEPTH_LIMIT`).
    #[inline]
    fn set(&mut self, level: usize, is_object: bool) {
        let (w, bit) = (level / 32, level % 32);
        if let Some(word) = self.words.get_mut(w) {
            if is_object {
                *word |= 1 << bit;
            } else {
                *word &= !(1 << bit);
            }
        }
    }

    #[inline]
    fn is_object(&self, level: usize) -> bool {
        let (w, bit) = (level / 32, level % 32);
        self.words.get(w).is_some_and(|word| word & (1 << bit) != 0)
    }
}

/// The scanner over one input. Cheap to make; all state of a scan lives on the stack
/// of the function doing it.
#[derive(Copy, Clone)]
pub(crate) struct Scanner<'a> {
    b: &'a [u8],
    max_depth: usize,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(b: &'a [u8], max_depth: u16) -> Self {
        let max_depth = if max_depth > MAX_DEPTH_LIMIT {
            MAX_DEPTH_LIMIT
        } else {
            max_depth
        };
        Self {
            b,
            max_depth: max_depth as usize,
        }
    }

    /// The bytes `start..end`, or an empty slice if that range is not in the input.
    #[inline]
    pub(crate) fn slice(&self, start: usize, end: usize) -> &'a [u8] {
        self.b.get(start..end).unwrap_or(&[])
    }

    /// The byte at `i`, or `0` past the end (see the module contract).
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> u8 {
        byte_at(self.b, i)
    }

    /// An error of `kind` at `i`, turned into `UnexpectedEnd` when `i` is the end.
    #[cold]
    #[inline(never)]
    pub(crate) fn err(&self, kind: ScanErrorKind, i: usize) -> ScanError {
        let kind = if i >= self.b.len() {
            ScanErrorKind::UnexpectedEnd
        } else {
            kind
        };
        ScanError { kind, offset: i }
    }

    /// Skips whitespace from `i` (the one whitespace loop, [`skip_ws_fast`]).
    #[inline]
    pub(crate) fn skip_ws(&self, i: usize) -> usize {
        skip_ws_fast(self.b, i)
    }

    /// Checks that only whitespace follows `i`.
    pub(crate) fn end(&self, i: usize) -> Result<(), ScanError> {
        let i = self.skip_ws(i);
        if i < self.b.len() {
            Err(ScanError {
                kind: ScanErrorKind::TrailingCharacters,
                offset: i,
            })
        } else {
            Ok(())
        }
    }

    /// Expects `byte` at `i` (after whitespace) and returns the offset after it.
    #[inline]
    pub(crate) fn expect(&self, i: usize, byte: u8) -> Result<usize, ScanError> {
        let i = self.skip_ws(i);
        if self.at(i) == byte {
            Ok(i + 1)
        } else {
            Err(self.err(ScanErrorKind::UnexpectedByte, i))
        }
    }

    /// Scans the string whose opening quote is at `i`. Returns the offset after the
    /// closing quote.
    pub(crate) fn string(&self, i: usize) -> Result<usize, ScanError> {
        let mut i = i + 1;
        loop {
            let c = self.at(i);
            // A table read on the fast build; four compares (and no 256-byte table in
            // flash) on the compact one.
            let stop = if FAST_PATHS {
                STRING_STOP[c as usize]
            } else {
                c < 0x20 || c == b'"' || c == b'\\' || c >= 0x80
            };
            if !stop {
                i += 1;
                continue;
            }
            match c {
                b'"' => return Ok(i + 1),
                b'\\' => i = self.escape(i)?,
                0x80..=0xFF => i = self.utf8(i)?,
                _ => return Err(self.err(ScanErrorKind::ControlCharacter, i)),
            }
        }
    }

    /// Checks the escape whose backslash is at `i`; returns the offset after it.
    fn escape(&self, i: usize) -> Result<usize, ScanError> {
        match escape_at(self.b, i) {
            Ok((_, end)) => Ok(end),
            Err((kind, at)) => Err(self.err(kind, at)),
        }
    }

    /// Checks the UTF-8 sequence whose lead byte is at `i` (strict: no overlong
    /// forms, no surrogates, nothing above U+10FFFF); returns the offset after it.
    fn utf8(&self, i: usize) -> Result<usize, ScanError> {
        utf8_sequence(self.b, i).map_err(|at| self.err(ScanErrorKind::InvalidUtf8, at))
    }

    /// Scans the number that starts at `i`; returns the offset after it.
    pub(crate) fn number(&self, mut i: usize) -> Result<usize, ScanError> {
        if self.at(i) == b'-' {
            i += 1;
        }
        match self.at(i) {
            b'0' => i += 1,
            b'1'..=b'9' => i = self.digits(i + 1),
            _ => return Err(self.err(ScanErrorKind::InvalidNumber, i)),
        }
        if self.at(i) == b'.' {
            if !self.at(i + 1).is_ascii_digit() {
                return Err(self.err(ScanErrorKind::InvalidNumber, i + 1));
            }
            i = self.digits(i + 1);
        }
        if matches!(self.at(i), b'e' | b'E') {
            i += 1;
            if matches!(self.at(i), b'+' | b'-') {
                i += 1;
            }
            if !self.at(i).is_ascii_digit() {
                return Err(self.err(ScanErrorKind::InvalidNumber, i));
            }
            i = self.digits(i);
        }
        Ok(i)
    }

    // Out of line: one copy for the three runs of digits of a number.
    #[inline(never)]
    fn digits(&self, mut i: usize) -> usize {
        while self.at(i).is_ascii_digit() {
            i += 1;
        }
        i
    }

    /// Checks the literal `lit` at `i`; returns the offset after it.
    fn literal(&self, i: usize, lit: &[u8]) -> Result<usize, ScanError> {
        for (k, &want) in lit.iter().enumerate() {
            if self.at(i + k) != want {
                return Err(self.err(ScanErrorKind::UnexpectedByte, i + k));
            }
        }
        Ok(i + lit.len())
    }

    /// Scans an object key (a string, then `:`) at `i`, after whitespace; returns the
    /// offset just after the colon.
    #[inline]
    fn key_colon(&self, i: usize) -> Result<usize, ScanError> {
        let i = self.skip_ws(i);
        if self.at(i) != b'"' {
            return Err(self.err(ScanErrorKind::UnexpectedByte, i));
        }
        let end = self.string(i)?;
        self.expect(end, b':')
    }

    /// Scans the value that starts exactly at `i` (no leading whitespace), which sits
    /// inside `depth` open containers. Returns the offset after the value.
    // Out of line: its `BitStack` (128 bytes) is off the stack again before the caller
    // goes on to read what it scanned.
    #[inline(never)]
    pub(crate) fn value(&self, mut i: usize, depth: usize) -> Result<usize, ScanError> {
        // Any start value will do (see `BitStack`); a value only known at run time is
        // a short store loop where zeros were a call to `memset` (174 bytes of flash on
        // a Cortex-M, which the compact build then links no more).
        let mut words = [self.max_depth as u32; (MAX_DEPTH_LIMIT / 32) as usize];
        let mut stack = BitStack { words: &mut words };
        // Open containers of this value (relative to `depth`).
        let mut open: usize = 0;
        loop {
            // Here a value starts at `i`.
            match self.at(i) {
                c @ (b'{' | b'[') => {
                    if depth + open >= self.max_depth {
                        return Err(ScanError {
                            kind: ScanErrorKind::TooDeep,
                            offset: i,
                        });
                    }
                    let is_object = c == b'{';
                    stack.set(open, is_object);
                    open += 1;
                    let close = if is_object { b'}' } else { b']' };
                    let j = self.skip_ws(i + 1);
                    if self.at(j) == close {
                        open -= 1;
                        i = j + 1;
                    } else if is_object {
                        i = self.skip_ws(self.key_colon(j)?);
                        continue;
                    } else {
                        i = j;
                        continue;
                    }
                }
                b'"' => i = self.string(i)?,
                b'-' | b'0'..=b'9' => i = self.number(i)?,
                c @ (b't' | b'f' | b'n') => {
                    let lit: &[u8] = match c {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    i = self.literal(i, lit)?;
                }
                _ => return Err(self.err(ScanErrorKind::UnexpectedByte, i)),
            }
            // Here a value just ended at `i`: close containers until one goes on.
            loop {
                if open == 0 {
                    return Ok(i);
                }
                let is_object = stack.is_object(open - 1);
                i = self.skip_ws(i);
                match self.at(i) {
                    b',' => {
                        i = if is_object {
                            self.key_colon(i + 1)?
                        } else {
                            i + 1
                        };
                        i = self.skip_ws(i);
                        break;
                    }
                    b'}' if is_object => {
                        open -= 1;
                        i += 1;
                    }
                    b']' if !is_object => {
                        open -= 1;
                        i += 1;
                    }
                    _ => return Err(self.err(ScanErrorKind::UnexpectedByte, i)),
                }
            }
        }
    }
}

// ---- the fast path ---------------------------------------------------------------
//
// The functions below accept exactly the language of the [`Scanner`] above, faster: they
// read strings a word (8 bytes) at a time, keep the nesting of up to `FAST_DEPTH` levels
// in one register, and say nothing about *why* an input is refused. They answer `None`
// when an input is not valid or when they cannot decide (deeper than `FAST_DEPTH`); the
// callers then run the [`Scanner`], which gives the exact error, kind and offset, or
// goes deeper. So the fast path only ever has to be right about accepting.

/// How many containers the fast path keeps open at once (one bit each in a `u64`).
const FAST_DEPTH: usize = 63;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` that ends a run of plain string content: `"`, `\`,
/// a control character or a non-ASCII byte. Bits above the lowest one may be false
/// (borrows run upwards), so only the lowest one is used.
#[inline(always)]
pub(crate) const fn string_stops(x: u64) -> u64 {
    let quote = (x ^ (ONES * b'"' as u64)).wrapping_sub(ONES);
    let backslash = (x ^ (ONES * b'\\' as u64)).wrapping_sub(ONES);
    let control = x.wrapping_sub(ONES * 0x20);
    (quote | backslash | control | x) & HIGH
}

/// The eight bytes at `i` as a little-endian word, if there are eight. Never in the
/// compact build: every word-at-a-time loop then goes straight to its byte-loop tail.
#[inline(always)]
pub(crate) fn word(b: &[u8], i: usize) -> Option<u64> {
    if !FAST_PATHS {
        return None;
    }
    b.get(i..)
        .and_then(|rest| rest.first_chunk::<8>())
        .map(|w| u64::from_le_bytes(*w))
}

/// What follows a backslash: 1 for the one-letter escapes, 2 for `u`, 0 for anything
/// else (an error).
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let simple = *b"\"\\/bfnrt";
    let mut k = 0;
    while k < simple.len() {
        t[simple[k] as usize] = 1;
        k += 1;
    }
    t[b'u' as usize] = 2;
    t
};

/// The byte at `i`, or `0` past the end.
#[inline(always)]
pub(crate) fn byte_at(b: &[u8], i: usize) -> u8 {
    match b.get(i) {
        Some(&c) => c,
        None => 0,
    }
}

/// Skips whitespace from `i`.
#[inline(always)]
pub(crate) fn skip_ws_fast(b: &[u8], i: usize) -> usize {
    // The compact build calls the loop at once: one copy of it.
    if FAST_PATHS && byte_at(b, i) > b' ' {
        return i;
    }
    skip_ws_slow(b, i)
}

#[inline(never)]
fn skip_ws_slow(b: &[u8], mut i: usize) -> usize {
    while matches!(byte_at(b, i), b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// The string whose opening quote is at `i`: the offset after its closing quote, and
/// whether it holds an escape. `None` if it is not a valid string.
#[inline(always)]
pub(crate) fn string_fast(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut i = i + 1;
    // Most strings (keys, short values) end within the first two words.
    for _ in 0..2 {
        let Some(x) = word(b, i) else { break };
        let m = string_stops(x);
        if m != 0 {
            let at = i + (m.trailing_zeros() / 8) as usize;
            if byte_at(b, at) == b'"' {
                return Some((at + 1, false));
            }
            return string_rest(b, at, false);
        }
        i += 8;
    }
    string_rest(b, i, false)
}

/// The rest of a string from `i` (inside it, after plain content).
///
/// A word at a time: the stops of a word (see [`string_stops`]) are handled in order
/// without reading the word again; a one-letter escape inside the word costs a few
/// bit operations. Bits above the lowest stop may be false (a borrow after `\\`), so
/// every stop is classified by its byte, and a plain byte is just passed over.
#[inline(never)]
fn string_rest(b: &[u8], mut i: usize, mut escaped: bool) -> Option<(usize, bool)> {
    loop {
        let (w0, x, mut m) = loop {
            let Some(x) = word(b, i) else {
                return string_tail(b, i, escaped);
            };
            let m = string_stops(x);
            if m != 0 {
                break (i, x, m);
            }
            i += 8;
        };
        // The stops of the word at `w0`, lowest first.
        loop {
            let k = (m.trailing_zeros() / 8) as usize;
            let c = (x >> (8 * k)) as u8;
            match c {
                b'"' => return Some((w0 + k + 1, escaped)),
                b'\\' => {
                    escaped = true;
                    if k == 7 {
                        // The escaped byte is in the next word.
                        i = escape_end(b, w0 + 7)?;
                        break;
                    }
                    match ESCAPE[(x >> (8 * k + 8)) as u8 as usize] {
                        // Clear the stops up to the escaped byte, inclusive.
                        1 => m &= (!0u64 << (8 * k + 8)) << 8,
                        2 => {
                            i = escape_u(b, w0 + k)?;
                            break;
                        }
                        _ => return None,
                    }
                }
                0x80..=0xFF => {
                    i = utf8_end(b, w0 + k)?;
                    break;
                }
                0x00..=0x1F => return None,
                // A false stop: a plain byte.
                _ => m &= m - 1,
            }
            if m == 0 {
                i = w0 + 8;
                break;
            }
        }
    }
}

/// The escape whose backslash is at `i`; the offset after it.
#[inline(always)]
fn escape_end(b: &[u8], i: usize) -> Option<usize> {
    match ESCAPE[byte_at(b, i + 1) as usize] {
        1 => Some(i + 2),
        2 => escape_u(b, i),
        _ => None,
    }
}

/// The last bytes of a string, fewer than eight before the end of the input: one at a
/// time.
#[cold]
#[inline(never)]
fn string_tail(b: &[u8], mut i: usize, mut escaped: bool) -> Option<(usize, bool)> {
    loop {
        let c = b.get(i).copied()?;
        match c {
            b'"' => return Some((i + 1, escaped)),
            b'\\' => {
                escaped = true;
                i = escape_end(b, i)?;
            }
            0x20..=0x7F => i += 1,
            0x80..=0xFF => i = utf8_end(b, i)?,
            _ => return None,
        }
    }
}

/// A `\u` escape whose backslash is at `i` (with its pair, for a high surrogate).
#[inline(never)]
fn escape_u(b: &[u8], i: usize) -> Option<usize> {
    let hex4 = |at: usize| -> Option<u16> {
        let mut v: u16 = 0;
        for k in 0..4 {
            v = (v << 4) | hex_digit(byte_at(b, at + k))? as u16;
        }
        Some(v)
    };
    match hex4(i + 2)? {
        0xD800..=0xDBFF => {
            if byte_at(b, i + 6) != b'\\' || byte_at(b, i + 7) != b'u' {
                return None;
            }
            match hex4(i + 8)? {
                0xDC00..=0xDFFF => Some(i + 12),
                _ => None,
            }
        }
        0xDC00..=0xDFFF => None,
        _ => Some(i + 6),
    }
}

/// The strict UTF-8 sequence whose lead byte is at `i`; the offset after it.
#[inline(never)]
fn utf8_end(b: &[u8], i: usize) -> Option<usize> {
    utf8_sequence(b, i).ok()
}

/// Checks the UTF-8 sequence whose lead byte is at `i` (strict: no overlong forms, no
/// surrogates, nothing above U+10FFFF): the offset after it, or the offset of the
/// first byte that breaks it. The one table of both scanners.
#[inline]
fn utf8_sequence(b: &[u8], i: usize) -> Result<usize, usize> {
    let (len, lo, hi) = match byte_at(b, i) {
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return Err(i),
    };
    let second = byte_at(b, i + 1);
    if second < lo || second > hi {
        return Err(i + 1);
    }
    for k in 2..len {
        if byte_at(b, i + k) & 0xC0 != 0x80 {
            return Err(i + k);
        }
    }
    Ok(i + len)
}

/// Digits from `i`; the offset after them.
#[inline(always)]
fn digits_fast(b: &[u8], mut i: usize) -> usize {
    while byte_at(b, i).is_ascii_digit() {
        i += 1;
    }
    i
}

/// The number that starts at `i`; the offset after it.
#[inline(always)]
pub(crate) fn number_fast(b: &[u8], mut i: usize) -> Option<usize> {
    if byte_at(b, i) == b'-' {
        i += 1;
    }
    match byte_at(b, i) {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits_fast(b, i + 1),
        _ => return None,
    }
    if byte_at(b, i) == b'.' {
        if !byte_at(b, i + 1).is_ascii_digit() {
            return None;
        }
        i = digits_fast(b, i + 2);
    }
    if byte_at(b, i) | 0x20 == b'e' {
        i += 1;
        if matches!(byte_at(b, i), b'+' | b'-') {
            i += 1;
        }
        if !byte_at(b, i).is_ascii_digit() {
            return None;
        }
        i = digits_fast(b, i + 1);
    }
    Some(i)
}

/// The literal `lit` (4 or 5 bytes) at `i`.
#[inline(always)]
fn literal_fast(b: &[u8], i: usize, lit: &[u8]) -> Option<usize> {
    if b.get(i..i + lit.len()) == Some(lit) {
        Some(i + lit.len())
    } else {
        None
    }
}

/// The value that starts exactly at `i` (no whitespace before it), inside `depth` open
/// containers of at most `max_depth`: the offset after it. `None`: invalid, or deeper
/// than the fast path goes (ask the [`Scanner`]).
#[inline(always)]
pub(crate) fn value_fast(b: &[u8], i: usize, depth: usize, max_depth: usize) -> Option<usize> {
    match byte_at(b, i) {
        b'"' => Some(string_fast(b, i)?.0),
        b'-' | b'0'..=b'9' => number_fast(b, i),
        b'{' | b'[' => container_fast(b, i, depth, max_depth),
        b't' => literal_fast(b, i, b"true"),
        b'f' => literal_fast(b, i, b"false"),
        b'n' => literal_fast(b, i, b"null"),
        _ => None,
    }
}

/// An object key and its colon, the key's opening quote at `i`: the offset of the
/// value after them (whitespace skipped).
#[inline(always)]
fn key_colon_fast(b: &[u8], i: usize) -> Option<usize> {
    let end = string_fast(b, i)?.0;
    // Compact JSON first: `"key":value`.
    let colon = if byte_at(b, end) == b':' {
        end
    } else {
        let j = skip_ws_slow(b, end);
        if byte_at(b, j) != b':' {
            return None;
        }
        j
    };
    Some(skip_ws_fast(b, colon + 1))
}

/// The container whose `{` or `[` is at `i`: see [`value_fast`].
#[inline(never)]
pub(crate) fn container_fast(
    b: &[u8],
    mut i: usize,
    depth: usize,
    max_depth: usize,
) -> Option<usize> {
    // Containers this value may open: up to the limit, and up to what a `u64` holds.
    let room = max_depth.saturating_sub(depth).min(FAST_DEPTH);
    // One bit per open container, innermost lowest: 1 for an object.
    let mut stack: u64 = 0;
    let mut open: usize = 0;
    // The first byte of the value at `i`.
    let mut c = byte_at(b, i);
    'value: loop {
        match c {
            b'"' => i = string_fast(b, i)?.0,
            b'-' | b'0'..=b'9' => i = number_fast(b, i)?,
            b'{' | b'[' => {
                if open >= room {
                    return None;
                }
                open += 1;
                let is_object = c == b'{';
                stack = (stack << 1) | is_object as u64;
                i = skip_ws_fast(b, i + 1);
                let first = byte_at(b, i);
                if first == c + 2 {
                    // `{}` or `[]`: `}` and `]` are two past their openers.
                    open -= 1;
                    stack >>= 1;
                    i += 1;
                } else if is_object {
                    if first != b'"' {
                        return None;
                    }
                    i = key_colon_fast(b, i)?;
                    c = byte_at(b, i);
                    continue 'value;
                } else {
                    c = first;
                    continue 'value;
                }
            }
            b't' => i = literal_fast(b, i, b"true")?,
            b'f' => i = literal_fast(b, i, b"false")?,
            b'n' => i = literal_fast(b, i, b"null")?,
            _ => return None,
        }
        // A value ended at `i`: separators and closers.
        loop {
            if open == 0 {
                return Some(i);
            }
            let mut sep = byte_at(b, i);
            if sep <= b' ' {
                i = skip_ws_slow(b, i);
                sep = byte_at(b, i);
            }
            let in_object = stack & 1 != 0;
            if sep == b',' {
                i = skip_ws_fast(b, i + 1);
                c = byte_at(b, i);
                if in_object {
                    if c != b'"' {
                        return None;
                    }
                    i = key_colon_fast(b, i)?;
                    c = byte_at(b, i);
                }
                continue 'value;
            }
            if sep != if in_object { b'}' } else { b']' } {
                return None;
            }
            open -= 1;
            stack >>= 1;
            i += 1;
        }
    }
}

// ---- skipping JSON already validated ------------------------------------------------
//
// For second passes over input that a fast or exact scan has accepted: these only find
// where values end. On input that is not valid JSON they still end, at or before the
// end of the input, without panicking.

/// The high bit of each byte of `x` equal to `byte`; exact for the lowest one (the
/// ones above may be false after a match, so callers check the byte).
#[inline(always)]
const fn bytes_eq(x: u64, byte: u8) -> u64 {
    let v = x ^ (ONES * byte as u64);
    v.wrapping_sub(ONES) & !v & HIGH
}

/// The offset after the string whose opening quote is at `i`, in validated JSON.
#[inline]
pub(crate) fn skip_string_trusted(b: &[u8], i: usize) -> usize {
    let mut i = i + 1;
    loop {
        let Some(x) = word(b, i) else {
            return skip_string_tail(b, i);
        };
        let mut m = bytes_eq(x, b'"') | bytes_eq(x, b'\\');
        if m == 0 {
            i += 8;
            continue;
        }
        loop {
            let k = (m.trailing_zeros() / 8) as usize;
            match (x >> (8 * k)) as u8 {
                b'"' => return i + k + 1,
                b'\\' if k == 7 => {
                    i += 9;
                    break;
                }
                b'\\' => m &= (!0u64 << (8 * k + 8)) << 8,
                _ => m &= m - 1,
            }
            if m == 0 {
                i += 8;
                break;
            }
        }
    }
}

#[cold]
fn skip_string_tail(b: &[u8], mut i: usize) -> usize {
    loop {
        match b.get(i) {
            None => return b.len(),
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
        }
    }
}

/// The offset after the value that starts at `i`, in validated JSON.
#[inline]
pub(crate) fn skip_value_trusted(b: &[u8], mut i: usize) -> usize {
    match byte_at(b, i) {
        b'"' => skip_string_trusted(b, i),
        b'{' | b'[' => skip_container_trusted(b, i),
        _ => {
            while !matches!(
                byte_at(b, i),
                b',' | b']' | b'}' | b':' | b' ' | b'\n' | b'\r' | b'\t' | 0
            ) {
                i += 1;
            }
            i.min(b.len())
        }
    }
}

/// The offset after the container whose opener is at `i`, in validated JSON: brackets
/// counted outside strings, a word at a time.
#[inline(never)]
fn skip_container_trusted(b: &[u8], mut i: usize) -> usize {
    let mut depth: usize = 0;
    loop {
        let Some(x) = word(b, i) else {
            return skip_container_tail(b, i, depth);
        };
        // `{` `}` `[` `]` (and a few other bytes, passed over) and `"`.
        let mut m = bytes_eq(x & (ONES * 0xD9), 0x59) | bytes_eq(x, b'"');
        if m == 0 {
            i += 8;
            continue;
        }
        loop {
            let k = (m.trailing_zeros() / 8) as usize;
            match (x >> (8 * k)) as u8 {
                b'"' => {
                    i = skip_string_trusted(b, i + k);
                    break;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + k + 1;
                    }
                }
                _ => {}
            }
            m &= m - 1;
            if m == 0 {
                i += 8;
                break;
            }
        }
    }
}

#[cold]
fn skip_container_tail(b: &[u8], mut i: usize, mut depth: usize) -> usize {
    loop {
        match b.get(i) {
            None => return b.len(),
            Some(b'"') => i = skip_string_trusted(b, i),
            Some(b'{' | b'[') => {
                depth += 1;
                i += 1;
            }
            Some(b'}' | b']') => {
                depth = depth.saturating_sub(1);
                i += 1;
                if depth == 0 {
                    return i;
                }
            }
            Some(_) => i += 1,
        }
    }
}

/// The escape whose backslash is at `i`: the code point it stands for (a surrogate
/// pair as one) and the offset after it; or why it is not a valid escape, and the
/// offset of the byte that says so. The one escape decoder: the scanner checks with it,
/// [`RawStr`](crate::RawStr) decodes with it.
pub(crate) fn escape_at(b: &[u8], i: usize) -> Result<(u32, usize), (ScanErrorKind, usize)> {
    let simple = match byte_at(b, i + 1) {
        c @ (b'"' | b'\\' | b'/') => c,
        b'b' => 0x08,
        b'f' => 0x0C,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'u' => 0,
        _ => return Err((ScanErrorKind::InvalidEscape, i + 1)),
    };
    if simple != 0 {
        return Ok((u32::from(simple), i + 2));
    }
    let unit = hex4(b, i + 2)?;
    match unit {
        0xD800..=0xDBFF => {
            // A high surrogate must be followed by `\u` and a low one.
            if byte_at(b, i + 6) != b'\\' || byte_at(b, i + 7) != b'u' {
                return Err((ScanErrorKind::LoneSurrogate, i));
            }
            match hex4(b, i + 8)? {
                low @ 0xDC00..=0xDFFF => {
                    Ok((0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), i + 12))
                }
                _ => Err((ScanErrorKind::LoneSurrogate, i)),
            }
        }
        0xDC00..=0xDFFF => Err((ScanErrorKind::LoneSurrogate, i)),
        _ => Ok((unit, i + 6)),
    }
}

/// Four hex digits at `i`, as a UTF-16 code unit.
#[inline(always)]
fn hex4(b: &[u8], i: usize) -> Result<u32, (ScanErrorKind, usize)> {
    let mut v = 0;
    for k in 0..4 {
        match hex_digit(byte_at(b, i + k)) {
            Some(d) => v = (v << 4) | u32::from(d),
            None => return Err((ScanErrorKind::InvalidEscape, i + k)),
        }
    }
    Ok(v)
}

/// The value of one hex digit.
#[inline]
pub(crate) const fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &[u8]) -> bool {
        validate(s, DEFAULT_MAX_DEPTH).is_ok()
    }

    #[test]
    fn accepts_the_grammar() {
        for s in [
            &b"0"[..],
            b"-0",
            b"-0.5e-10",
            b"1E+2",
            b"123456789012345678901234567890",
            b"\"\\u00e9\\ud83d\\ude00\\/\"",
            b" [ ] ",
            b"{}",
            b"{\"a\":{\"b\":[true,false,null]}}",
            "\"é😀\"".as_bytes(),
        ] {
            assert!(ok(s), "{:?}", core::str::from_utf8(s));
        }
    }

    #[test]
    fn rejects_with_kind_and_offset() {
        let cases: &[(&[u8], ScanErrorKind, usize)] = &[
            (b"", ScanErrorKind::UnexpectedEnd, 0),
            (b"[1,]", ScanErrorKind::UnexpectedByte, 3),
            (b"01", ScanErrorKind::TrailingCharacters, 1),
            (b"1.", ScanErrorKind::UnexpectedEnd, 2),
            (b"1.x", ScanErrorKind::InvalidNumber, 2),
            (b"\"\\x\"", ScanErrorKind::InvalidEscape, 2),
            (b"\"\\ud800\"", ScanErrorKind::LoneSurrogate, 1),
            (b"\"\\udc00\"", ScanErrorKind::LoneSurrogate, 1),
            (b"\"\x01\"", ScanErrorKind::ControlCharacter, 1),
            (b"\"\xc0\x80\"", ScanErrorKind::InvalidUtf8, 1),
            (b"\"\xed\xa0\x80\"", ScanErrorKind::InvalidUtf8, 2),
            (b"\"\xf4\x90\x80\x80\"", ScanErrorKind::InvalidUtf8, 2),
            (b"{\"a\" 1}", ScanErrorKind::UnexpectedByte, 5),
            (b"{\"a\":1,}", ScanErrorKind::UnexpectedByte, 7),
            (b"[1 2]", ScanErrorKind::UnexpectedByte, 3),
            (b"tru", ScanErrorKind::UnexpectedEnd, 3),
            (b"[}", ScanErrorKind::UnexpectedByte, 1),
        ];
        for &(input, kind, offset) in cases {
            let e = validate(input, DEFAULT_MAX_DEPTH).unwrap_err();
            assert_eq!((e.kind, e.offset), (kind, offset), "{input:?}");
        }
    }

    extern crate std;
    use std::vec::Vec;

    /// The exact scanner's answer: the end of the one value, whitespace around it.
    fn exact(input: &[u8], max_depth: u16) -> Option<usize> {
        let s = Scanner::new(input, max_depth);
        let start = s.skip_ws(0);
        let end = s.value(start, 0).ok()?;
        s.end(end).ok()?;
        Some(end)
    }

    /// The fast path's answer, on the same terms.
    fn fast(input: &[u8], max_depth: u16) -> Option<usize> {
        let max_depth = Scanner::new(input, max_depth).max_depth;
        let end = value_fast(input, skip_ws_fast(input, 0), 0, max_depth)?;
        (skip_ws_fast(input, end) == input.len()).then_some(end)
    }

    /// Inputs for the differential tests: the JSONTestSuite files, the bench messages,
    /// each cut at every length, and each with single bytes changed.
    fn inputs() -> Vec<Vec<u8>> {
        let mut seeds: Vec<Vec<u8>> = Vec::new();
        // The conformance corpus, when it is there (see `tests/common/corpus.rs`).
        if let Some(root) = crate::test_corpus::corpus() {
            for dir in ["jsontestsuite/test_parsing", "bench"] {
                for e in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
                    if e.path().extension().is_some_and(|x| x == "json") {
                        seeds.push(std::fs::read(e.path()).unwrap());
                    }
                }
            }
        }
        // The crate's own: every rule of the grammar at least once.
        for s in [
            &br#"{"a":"\u00e9\ud83d\ude00\\\"x\/\b\f\n\r\t","b":[1,-0.5e+7,true,false,null,{}]}"#[..],
            "\"é😀 plain text long enough to need two words\"".as_bytes(),
            br#"["a\\\\]b", "\\\"]", "x\u005d\\]"]"#,
            br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#,
            br#" [ 0 , -0 , 0.0 , 1E2 , 1e-2 , -12.5E+3 , 123456789012345678901234567890 ] "#,
            b"\t\r\n {\"\" : \"\" , \"k\":[[[[[]]]],{},[{}]]}\n",
            br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"foo":"boo"},1]"#,
            "{\"text\":\"    let s = \\\"caf\\u00e9\\\";\\n\\t// naïve résumé ✓ 𝄞\\n\",\"version\":17}".as_bytes(),
            br#"{"jsonrpc":"2.0","id":7,"result":{"user":{"id":1042,"roles":["admin","dev"]},"items":[{"price":9.99,"qty":1,"tags":["red"]}]}}"#,
            b"\"\\u0000\\u001f \\uFFFF\\uDBFF\\uDFFF\\u0041\"",
            b"true",
            b"null",
            b"-1",
        ] {
            seeds.push(s.to_vec());
        }
        let mut all = Vec::new();
        let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
        let specials = *b"\"\\]}[{,:u0 \x01\x7f\x80\xc3\xed\xf4";
        for seed in seeds {
            if seed.len() <= 2048 {
                for cut in 0..seed.len() {
                    all.push(seed[..cut].to_vec());
                }
            }
            for _ in 0..64 {
                if seed.is_empty() {
                    break;
                }
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let at = (rng >> 33) as usize % seed.len();
                let with = specials[(rng >> 20) as usize % specials.len()];
                let mut m = seed.clone();
                m[at] = with;
                all.push(m);
            }
            all.push(seed);
        }
        all
    }

    /// The fast path never accepts what the exact scanner refuses, accepts everything
    /// it accepts within its depth, and finds the same end.
    #[test]
    fn fast_path_agrees_with_the_exact_scanner() {
        let mut accepted = 0;
        for input in inputs() {
            for depth in [DEFAULT_MAX_DEPTH, 3] {
                let (e, f) = (exact(&input, depth), fast(&input, depth));
                match (e, f) {
                    (Some(a), Some(b)) => assert_eq!(a, b, "{input:?}"),
                    (None, Some(_)) => panic!("fast path accepts {input:?}"),
                    (Some(_), None) => {
                        // Only for nesting deeper than the fast path goes.
                        assert!(validate(&input, depth).is_ok());
                        assert!(
                            input.iter().filter(|&&c| c == b'[' || c == b'{').count() > FAST_DEPTH
                        );
                    }
                    (None, None) => {}
                }
                accepted += e.is_some() as usize;
                // `validate` is the two together: the exact error whenever it refuses.
                let v = validate(&input, depth);
                assert_eq!(v.is_ok(), e.is_some());
            }
        }
        // At least every own seed (all valid); with the corpus, a thousand and more.
        let least = if crate::test_corpus::corpus().is_some() {
            1000
        } else {
            13
        };
        assert!(accepted >= least, "{accepted} accepted, fewer than {least}");
    }

    /// The skips used on validated input find the same ends as the exact scanner, and on
    /// any input end within it without panicking.
    #[test]
    fn trusted_skips_agree_and_never_run_past_the_end() {
        for input in inputs() {
            let s = Scanner::new(&input, DEFAULT_MAX_DEPTH);
            let start = s.skip_ws(0);
            if let Some(end) = exact(&input, DEFAULT_MAX_DEPTH) {
                assert_eq!(skip_value_trusted(&input, start), end, "{input:?}");
            }
            if input.len() > 512 {
                continue;
            }
            for i in 0..input.len() {
                assert!(skip_value_trusted(&input, i) <= input.len());
                if input[i] == b'"' {
                    assert!(skip_string_trusted(&input, i) <= input.len());
                }
            }
        }
    }

    /// The word-at-a-time string scan against the byte-at-a-time one.
    #[test]
    fn string_scan_word_and_byte_agree() {
        for input in inputs().into_iter().filter(|i| i.len() <= 4096) {
            for i in 0..input.len() {
                if input[i] != b'"' {
                    continue;
                }
                let s = Scanner::new(&input, DEFAULT_MAX_DEPTH);
                let word = string_fast(&input, i);
                // The flag: any backslash inside the string.
                let byte = s
                    .string(i)
                    .ok()
                    .map(|end| (end, input[i + 1..end - 1].contains(&b'\\')));
                assert_eq!(word, byte, "{input:?} at {i}");
                assert_eq!(string_tail(&input, i + 1, false), byte, "{input:?} at {i}");
            }
        }
    }

    #[test]
    fn depth_limit_is_exact() {
        let mut buf = [0u8; 300];
        for depth in [1usize, 127, 128, 129, 150] {
            buf[..depth].fill(b'[');
            buf[depth..2 * depth].fill(b']');
            let r = validate(&buf[..2 * depth], 128);
            assert_eq!(r.is_ok(), depth <= 128, "depth {depth}");
        }
        assert!(validate(b"[[1]]", 2).is_ok());
        assert_eq!(
            validate(b"[[1]]", 1).unwrap_err().kind,
            ScanErrorKind::TooDeep
        );
    }
}
