//! Why a slice is not JSON: the error kinds and the error the scanner reports.

use core::fmt;

/// Why a slice is not JSON.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
// `repr(u32)`: a word, so the kind of a `Result<usize, ScanError>` (which comes back
// through memory) is read and written with the word loads and stores that have short
// forms (flash, on a Cortex-M and a RISC-V).
#[repr(u32)]
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
