//! String content: escaped as JSON needs, for the handler's strings and keys, error
//! messages and anything `Display`.

use core::fmt;

use super::{ResultWriter, WriteError};

/// `fmt::Write` into a writer, escaping as JSON strings need.
struct Escaping<'w, 'o> {
    /// Where the text goes.
    w: &'w mut ResultWriter<'o>,
    /// The write error behind a `fmt::Error`.
    err: Option<WriteError>,
}

impl fmt::Write for Escaping<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.w.escaped(s).map_err(|e| {
            self.err = Some(e);
            fmt::Error
        })
    }

    // Padding (`{:0>512}`) comes a char at a time: one that needs no escape is
    // pushed as it is, without the run search of `escaped`.
    fn write_char(&mut self, c: char) -> fmt::Result {
        match u8::try_from(c) {
            Ok(b) if b >= 0x20 && b != b'"' && b != b'\\' && b < 0x80 => {
                self.w.push(&[b]).map_err(|e| {
                    self.err = Some(e);
                    fmt::Error
                })
            }
            _ => self.write_str(c.encode_utf8(&mut [0; 4])),
        }
    }
}

impl ResultWriter<'_> {
    /// Writes the inside of a JSON string (no quotes), escaping as needed: each run of
    /// bytes that need no escape in one push, then the escape of the byte that ends it.
    pub(crate) fn escaped(&mut self, s: &str) -> Result<(), WriteError> {
        let mut rest = s.as_bytes();
        loop {
            let (run, tail) = rest.split_at(crate::simd::plain_end(rest, 0).min(rest.len()));
            self.push(run)?;
            let Some((&b, after)) = tail.split_first() else {
                return Ok(());
            };
            self.escape(b)?;
            rest = after;
        }
    }

    /// The escape of `b`, a `"`, a `\\` or a control character.
    fn escape(&mut self, b: u8) -> Result<(), WriteError> {
        // The letters of `\t`, `\n` and `\r` by the byte's place from 0x08 (one load;
        // 0: none, `\u00XY` below).
        const LETTERS: &[u8; 6] = b"\0tn\0\0r";
        let short = match b {
            b'"' | b'\\' => b,
            _ => LETTERS
                .get(usize::from(b.wrapping_sub(8)))
                .copied()
                .unwrap_or(0),
        };
        // `\u00XY` for the other control characters (below 0x20), else the first two
        // bytes made `\` and the short form: one push either way.
        let low = b & 0xF;
        let low = if low < 10 {
            b'0' + low
        } else {
            b'a' + low - 10
        };
        let mut text = [b'\\', b'u', b'0', b'0', b'0' + (b >> 4), low];
        let mut len = text.len();
        if short != 0 {
            text[1] = short;
            len = 2;
        }
        self.push(text.get(..len).unwrap_or(&[]))
    }

    /// Writes `v` formatted, escaped (no quotes).
    pub(crate) fn escaped_display(&mut self, v: impl fmt::Display) -> Result<(), WriteError> {
        let mut sink = Escaping { w: self, err: None };
        match fmt::write(&mut sink, format_args!("{v}")) {
            Ok(()) => Ok(()),
            // A `Display` impl that fails on its own is the handler's misuse.
            Err(_) => Err(sink.err.unwrap_or(WriteError::Misuse)),
        }
    }
}
