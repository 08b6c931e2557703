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

/// The escape of `b`, a `"`, a `\\` or a control character: its text in the first
/// bytes, its length in the last. `\"`, `\\`, `\t`, `\n`, `\r`; `\u00XY` for the other
/// control characters. The one rule of the writer's escapes: the compact build calls it,
/// the fast build reads it from a table (`string_fast.rs`).
pub(super) const fn escape_text(b: u8) -> [u8; 8] {
    // The letters of `\t`, `\n` and `\r` by the byte's place from 0x08 (0: none).
    const LETTERS: &[u8; 6] = b"\0tn\0\0r";
    let short = match b {
        b'"' | b'\\' => b,
        0x08..=0x0D => LETTERS[(b - 0x08) as usize],
        _ => 0,
    };
    let low = b & 0xF;
    let low = if low < 10 {
        b'0' + low
    } else {
        b'a' + low - 10
    };
    // `\u00XY`, or its first two bytes made `\` and the short form.
    let mut text = [b'\\', b'u', b'0', b'0', b'0' + (b >> 4), low, 0, 6];
    if short != 0 {
        text[1] = short;
        text[7] = 2;
    }
    text
}

impl ResultWriter<'_> {
    /// Writes the inside of a JSON string (no quotes), escaping as needed: in the fast
    /// build a block at a time while the buffer has a window of room
    /// ([`escaped_blocks`](Self::escaped_blocks), `string_fast.rs`), then (and in the
    /// compact build) each
    /// run of bytes that need no escape in one push, then the escape of the byte that
    /// ends it. On a full buffer, what is left written is the same either way: the runs
    /// and escapes before the one that did not fit.
    pub(crate) fn escaped(&mut self, s: &str) -> Result<(), WriteError> {
        // What is left to write, and where the run being written starts in the buffer
        // (the fast build's blocks may have written its first bytes).
        let (read, run_start) = self.escaped_blocks(s.as_bytes());
        let mut rest = s.as_bytes().get(read..).unwrap_or(&[]);
        let mut first = true;
        loop {
            let (run, tail) = rest.split_at(crate::simd::plain_end(rest, 0).min(rest.len()));
            if let Err(e) = self.push(run) {
                // A run that does not fit is not written at all.
                if first {
                    self.drop_blocks_run(run_start);
                }
                return Err(e);
            }
            let Some((&b, after)) = tail.split_first() else {
                return Ok(());
            };
            let text = escape_text(b);
            let len = usize::from(text[7]);
            self.push(text.get(..len).unwrap_or(&[]))?;
            rest = after;
            first = false;
        }
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

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::*;
    use std::string::String;
    use std::vec::Vec;

    /// The naive escaper: the string as pieces, each run of bytes that need no escape
    /// and each escape, written a character at a time by JSON's rule.
    fn pieces(s: &str) -> Vec<Vec<u8>> {
        let mut pieces = Vec::new();
        let mut run = Vec::new();
        for c in s.chars() {
            let escape = match c {
                '"' => String::from("\\\""),
                '\\' => String::from("\\\\"),
                '\n' => String::from("\\n"),
                '\r' => String::from("\\r"),
                '\t' => String::from("\\t"),
                c if (c as u32) < 0x20 => std::format!("\\u{:04x}", c as u32),
                c => {
                    run.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    continue;
                }
            };
            pieces.push(core::mem::take(&mut run));
            pieces.push(escape.into_bytes());
        }
        pieces.push(run);
        pieces
    }

    /// `escaped` against the naive escaper, with `end` at every room from `rooms`: the
    /// text, or on a full buffer the pieces before the first that does not fit, the
    /// same answer and full flag; and no byte written at or past `end`.
    fn agree(s: &str, rooms: impl Iterator<Item = usize>) -> usize {
        let pieces = pieces(s);
        let mut checked = 0;
        for room in rooms {
            let mut buf = std::vec![0xAAu8; room + 600];
            let mut w = ResultWriter::new(&mut buf);
            w.set_end(room);
            let got = w.escaped(s);
            let mut want = Vec::new();
            let mut fits = true;
            for piece in &pieces {
                if want.len() + piece.len() > room {
                    fits = false;
                    break;
                }
                want.extend_from_slice(piece);
            }
            let what = (s, room);
            assert_eq!(got.is_ok(), fits, "{what:?}");
            assert_eq!(w.overflowed(), !fits, "{what:?}");
            assert_eq!(w.written(), &want[..], "{what:?}");
            assert!(buf[room..].iter().all(|&b| b == 0xAA), "{what:?}");
            checked += 1;
        }
        checked
    }

    /// Strings long enough for the fast build's blocks: each byte that needs an escape
    /// (all of them, `"`, `\` and every control character) at every offset of the first
    /// three blocks, among plain ASCII, raw UTF-8 and other escapes; random strings of
    /// pieces, dense with escapes or not; each into a buffer with room for all of it
    /// and, for some, with `end` at every size around where each piece stops fitting.
    #[test]
    fn blocks_agree_with_the_naive_escaper() {
        let mut checked = 0;
        let stops: Vec<char> = (0u8..0x20).map(char::from).chain(['"', '\\']).collect();
        for &stop in &stops {
            for at in 0..200 {
                for filler in ["x", "é", "\n"] {
                    let mut s = filler.repeat(at / filler.len());
                    s.push_str(&"y".repeat(at % filler.len()));
                    s.push(stop);
                    s.push_str(&"z".repeat(130));
                    checked += agree(&s, [2000].into_iter());
                }
            }
        }
        let parts = [
            "a",
            "plain text, a longer run of it to pass 16 bytes",
            "é東京😀",
            "\"",
            "\\",
            "\n",
            "\u{1}",
            "\u{1f}",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        for round in 0..300 {
            let mut s = String::new();
            let len = 64 + next() % 700;
            let dense = next() % 2 == 0;
            while (s.len() as u64) < len {
                let k = next() as usize % if dense { 5 } else { parts.len() };
                s.push_str(parts[if dense { k + 3 } else { k }]);
            }
            let need: usize = pieces(&s).iter().map(Vec::len).sum();
            checked += if round % 10 == 0 {
                agree(&s, 0..need + 2)
            } else {
                agree(&s, [need, need + 1000].into_iter())
            };
        }
        // Runs longer than a block, cut where the window stops at every room.
        for s in [
            "x".repeat(900),
            std::format!("{}\"{}", "x".repeat(700), "é".repeat(100)),
            std::format!("\n{}\t", "東京".repeat(150)),
        ] {
            let need: usize = pieces(&s).iter().map(Vec::len).sum();
            checked += agree(&s, 0..need + 2);
        }
        assert!(checked > 30_000, "{checked}");
    }

    /// A notification's writer takes every string and writes none of it.
    #[test]
    fn dropped_while_not_live() {
        let mut buf = [0xAAu8; 1200];
        let mut w = ResultWriter::new(&mut buf);
        w.set_live(false);
        let s = "x\"y".repeat(300);
        assert_eq!(w.escaped(&s), Ok(()));
        assert_eq!(w.written(), b"");
        assert!(!w.overflowed());
        assert!(buf.iter().all(|&b| b == 0xAA));
    }
}
