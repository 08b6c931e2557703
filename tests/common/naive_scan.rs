//! A naive JSON validator, the oracle of the crate's scanner: one byte at a time, each
//! rule spelled out plainly, errors with the same kinds and offsets. Included by the
//! scanner's unit tests and by the `validate` fuzz target, which compare the two on
//! every input they make. It expects `ScanError` and `ScanErrorKind` in its parent
//! module (the crate's own, under whatever path the includer has them).
//!
//! It recurses on nesting (an oracle may), so callers keep their inputs' nesting
//! within `max_depth`, at most a few hundred levels.

use super::{ScanError, ScanErrorKind};

/// `Ok(end)` of the one JSON text `b` (value end, before trailing whitespace), or the
/// first error.
pub fn validate(b: &[u8], max_depth: usize) -> Result<usize, ScanError> {
    let n = Naive { b, max_depth };
    let i = n.ws(0);
    let end = n.value(i, 0)?;
    let after = n.ws(end);
    if after < b.len() {
        return Err(ScanError {
            kind: ScanErrorKind::TrailingCharacters,
            offset: after,
        });
    }
    Ok(end)
}

/// `Ok(end)` of the value at `i` (no whitespace before it); bytes after are not read.
pub fn value_end(b: &[u8], i: usize, max_depth: usize) -> Result<usize, ScanError> {
    Naive { b, max_depth }.value(i, 0)
}

struct Naive<'a> {
    b: &'a [u8],
    max_depth: usize,
}

impl Naive<'_> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn err(&self, kind: ScanErrorKind, i: usize) -> ScanError {
        let kind = if i >= self.b.len() {
            ScanErrorKind::UnexpectedEnd
        } else {
            kind
        };
        ScanError { kind, offset: i }
    }

    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.at(i), b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    }

    fn value(&self, i: usize, depth: usize) -> Result<usize, ScanError> {
        match self.at(i) {
            b'{' | b'[' if depth >= self.max_depth => Err(ScanError {
                kind: ScanErrorKind::TooDeep,
                offset: i,
            }),
            b'{' => self.object(i, depth + 1),
            b'[' => self.array(i, depth + 1),
            b'"' => self.string(i),
            b'-' | b'0'..=b'9' => self.number(i),
            b't' => self.literal(i, b"true"),
            b'f' => self.literal(i, b"false"),
            b'n' => self.literal(i, b"null"),
            _ => Err(self.err(ScanErrorKind::UnexpectedByte, i)),
        }
    }

    fn object(&self, i: usize, depth: usize) -> Result<usize, ScanError> {
        let mut i = self.ws(i + 1);
        if self.at(i) == b'}' {
            return Ok(i + 1);
        }
        loop {
            if self.at(i) != b'"' {
                return Err(self.err(ScanErrorKind::UnexpectedByte, i));
            }
            i = self.ws(self.string(i)?);
            if self.at(i) != b':' {
                return Err(self.err(ScanErrorKind::UnexpectedByte, i));
            }
            i = self.ws(i + 1);
            i = self.ws(self.value(i, depth)?);
            match self.at(i) {
                b',' => i = self.ws(i + 1),
                b'}' => return Ok(i + 1),
                _ => return Err(self.err(ScanErrorKind::UnexpectedByte, i)),
            }
        }
    }

    fn array(&self, i: usize, depth: usize) -> Result<usize, ScanError> {
        let mut i = self.ws(i + 1);
        if self.at(i) == b']' {
            return Ok(i + 1);
        }
        loop {
            i = self.ws(self.value(i, depth)?);
            match self.at(i) {
                b',' => i = self.ws(i + 1),
                b']' => return Ok(i + 1),
                _ => return Err(self.err(ScanErrorKind::UnexpectedByte, i)),
            }
        }
    }

    fn string(&self, i: usize) -> Result<usize, ScanError> {
        let mut i = i + 1;
        loop {
            match self.at(i) {
                b'"' => return Ok(i + 1),
                b'\\' => i = self.escape(i)?,
                0x20..=0x7F => i += 1,
                0x80..=0xFF => i = self.utf8(i)?,
                _ => return Err(self.err(ScanErrorKind::ControlCharacter, i)),
            }
        }
    }

    fn hex4(&self, i: usize) -> Result<u32, ScanError> {
        let mut v = 0;
        for k in 0..4 {
            let d = match self.at(i + k) {
                c @ b'0'..=b'9' => c - b'0',
                c @ b'a'..=b'f' => c - b'a' + 10,
                c @ b'A'..=b'F' => c - b'A' + 10,
                _ => return Err(self.err(ScanErrorKind::InvalidEscape, i + k)),
            };
            v = v * 16 + u32::from(d);
        }
        Ok(v)
    }

    fn escape(&self, i: usize) -> Result<usize, ScanError> {
        match self.at(i + 1) {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => return Ok(i + 2),
            b'u' => {}
            _ => return Err(self.err(ScanErrorKind::InvalidEscape, i + 1)),
        }
        let lone = ScanError {
            kind: ScanErrorKind::LoneSurrogate,
            offset: i,
        };
        match self.hex4(i + 2)? {
            0xD800..=0xDBFF => {
                if self.at(i + 6) != b'\\' || self.at(i + 7) != b'u' {
                    return Err(self.err(ScanErrorKind::LoneSurrogate, i));
                }
                match self.hex4(i + 8)? {
                    0xDC00..=0xDFFF => Ok(i + 12),
                    _ => Err(lone),
                }
            }
            0xDC00..=0xDFFF => Err(lone),
            _ => Ok(i + 6),
        }
    }

    fn utf8(&self, i: usize) -> Result<usize, ScanError> {
        let bad = |at| Err(self.err(ScanErrorKind::InvalidUtf8, at));
        let (len, lo, hi) = match self.at(i) {
            0xC2..=0xDF => (2, 0x80, 0xBF),
            0xE0 => (3, 0xA0, 0xBF),
            0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
            0xED => (3, 0x80, 0x9F),
            0xF0 => (4, 0x90, 0xBF),
            0xF1..=0xF3 => (4, 0x80, 0xBF),
            0xF4 => (4, 0x80, 0x8F),
            _ => return bad(i),
        };
        if !(lo..=hi).contains(&self.at(i + 1)) {
            return bad(i + 1);
        }
        for k in 2..len {
            if self.at(i + k) & 0xC0 != 0x80 {
                return bad(i + k);
            }
        }
        Ok(i + len)
    }

    fn digits(&self, mut i: usize) -> usize {
        while self.at(i).is_ascii_digit() {
            i += 1;
        }
        i
    }

    fn number(&self, mut i: usize) -> Result<usize, ScanError> {
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

    fn literal(&self, i: usize, lit: &[u8]) -> Result<usize, ScanError> {
        for (k, &want) in lit.iter().enumerate() {
            if self.at(i + k) != want {
                return Err(self.err(ScanErrorKind::UnexpectedByte, i + k));
            }
        }
        Ok(i + lit.len())
    }
}
