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
    let at = s.skip_ws(start);
    s.value(at, 0)
}

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

/// A one-bit-per-level stack: 1 for an object, 0 for an array.
struct BitStack {
    words: [u64; (MAX_DEPTH_LIMIT / 64) as usize],
}

impl BitStack {
    const fn new() -> Self {
        Self {
            words: [0; (MAX_DEPTH_LIMIT / 64) as usize],
        }
    }

    /// Records the kind of the container at `level` (`level < MAX_DEPTH_LIMIT`).
    #[inline]
    fn set(&mut self, level: usize, is_object: bool) {
        let (w, bit) = (level / 64, level % 64);
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
        let (w, bit) = (level / 64, level % 64);
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

    /// The whole input.
    #[inline]
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.b
    }

    /// The configured nesting limit.
    #[inline]
    pub(crate) fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The bytes `start..end`, or an empty slice if that range is not in the input.
    #[inline]
    pub(crate) fn slice(&self, start: usize, end: usize) -> &'a [u8] {
        self.b.get(start..end).unwrap_or(&[])
    }

    /// The byte at `i`, or `0` past the end (see the module contract).
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> u8 {
        match self.b.get(i) {
            Some(&c) => c,
            None => 0,
        }
    }

    /// An error of `kind` at `i`, turned into `UnexpectedEnd` when `i` is the end.
    #[cold]
    pub(crate) fn err(&self, kind: ScanErrorKind, i: usize) -> ScanError {
        let kind = if i >= self.b.len() {
            ScanErrorKind::UnexpectedEnd
        } else {
            kind
        };
        ScanError { kind, offset: i }
    }

    #[inline]
    pub(crate) fn skip_ws(&self, mut i: usize) -> usize {
        while matches!(self.at(i), b' ' | b'\n' | b'\r' | b'\t') {
            i += 1;
        }
        i
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
    /// closing quote and whether the string holds any escape.
    pub(crate) fn string(&self, i: usize) -> Result<(usize, bool), ScanError> {
        let mut i = i + 1;
        let mut escaped = false;
        loop {
            let c = self.at(i);
            if !STRING_STOP[c as usize] {
                i += 1;
                continue;
            }
            match c {
                b'"' => return Ok((i + 1, escaped)),
                b'\\' => {
                    escaped = true;
                    i = self.escape(i)?;
                }
                0x80..=0xFF => i = self.utf8(i)?,
                _ => return Err(self.err(ScanErrorKind::ControlCharacter, i)),
            }
        }
    }

    /// Checks the escape whose backslash is at `i`; returns the offset after it.
    fn escape(&self, i: usize) -> Result<usize, ScanError> {
        match self.at(i + 1) {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(i + 2),
            b'u' => {
                let unit = self.hex4(i + 2)?;
                match unit {
                    0xD800..=0xDBFF => {
                        // A high surrogate must be followed by `\u` and a low one.
                        if self.at(i + 6) != b'\\' || self.at(i + 7) != b'u' {
                            return Err(self.err(ScanErrorKind::LoneSurrogate, i));
                        }
                        match self.hex4(i + 8)? {
                            0xDC00..=0xDFFF => Ok(i + 12),
                            _ => Err(self.err(ScanErrorKind::LoneSurrogate, i)),
                        }
                    }
                    0xDC00..=0xDFFF => Err(self.err(ScanErrorKind::LoneSurrogate, i)),
                    _ => Ok(i + 6),
                }
            }
            _ => Err(self.err(ScanErrorKind::InvalidEscape, i + 1)),
        }
    }

    /// Four hex digits at `i`, as a UTF-16 code unit.
    fn hex4(&self, i: usize) -> Result<u16, ScanError> {
        let mut v: u16 = 0;
        for k in 0..4 {
            let d = match hex_digit(self.at(i + k)) {
                Some(d) => d,
                None => return Err(self.err(ScanErrorKind::InvalidEscape, i + k)),
            };
            v = (v << 4) | d as u16;
        }
        Ok(v)
    }

    /// Checks the UTF-8 sequence whose lead byte is at `i` (strict: no overlong
    /// forms, no surrogates, nothing above U+10FFFF); returns the offset after it.
    fn utf8(&self, i: usize) -> Result<usize, ScanError> {
        let lead = self.at(i);
        let (len, lo, hi) = match lead {
            0xC2..=0xDF => (2, 0x80, 0xBF),
            0xE0 => (3, 0xA0, 0xBF),
            0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
            0xED => (3, 0x80, 0x9F),
            0xF0 => (4, 0x90, 0xBF),
            0xF1..=0xF3 => (4, 0x80, 0xBF),
            0xF4 => (4, 0x80, 0x8F),
            _ => return Err(self.err(ScanErrorKind::InvalidUtf8, i)),
        };
        let second = self.at(i + 1);
        if second < lo || second > hi {
            return Err(self.err(ScanErrorKind::InvalidUtf8, i + 1));
        }
        for k in 2..len {
            if self.at(i + k) & 0xC0 != 0x80 {
                return Err(self.err(ScanErrorKind::InvalidUtf8, i + k));
            }
        }
        Ok(i + len)
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

    #[inline]
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
        let (end, _) = self.string(i)?;
        self.expect(end, b':')
    }

    /// Scans the value that starts exactly at `i` (no leading whitespace), which sits
    /// inside `depth` open containers. Returns the offset after the value.
    pub(crate) fn value(&self, mut i: usize, depth: usize) -> Result<usize, ScanError> {
        let mut stack = BitStack::new();
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
                b'"' => i = self.string(i)?.0,
                b'-' | b'0'..=b'9' => i = self.number(i)?,
                b't' => i = self.literal(i, b"true")?,
                b'f' => i = self.literal(i, b"false")?,
                b'n' => i = self.literal(i, b"null")?,
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
