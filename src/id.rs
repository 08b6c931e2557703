//! The request `id`: echoed as the exact bytes received.
//!
//! A JSON-RPC id is a string, a number or `null`. The server never converts it: `1.0`,
//! `1e3` and `"a\u0062"` go back as sent, so a client that matches replies by the bytes
//! (or by a type it chose) never sees its id change type or spelling.

use core::fmt;

use crate::raw::{Kind, RawJson};

/// A request id, as the raw JSON bytes received: a string (quotes and escapes as
/// sent), a number lexeme, or `null`.
///
/// ```
/// use jsonrpc_slice::{Id, RawJson};
///
/// let id = Id::from_raw(RawJson::new(b"1e3")?).unwrap();
/// assert_eq!(id.as_bytes(), b"1e3");
/// assert!(Id::from_raw(RawJson::new(b"true")?).is_none());
/// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct Id<'a> {
    raw: RawJson<'a>,
}

/// What kind of id a request carried.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IdKind {
    /// A JSON string.
    String,
    /// A JSON number.
    Number,
    /// `null`.
    Null,
}

impl<'a> Id<'a> {
    /// The id `null`: used when a request has none that can be echoed.
    pub const NULL: Id<'static> = Id { raw: RawJson::NULL };

    /// The id for a raw value, if that value may be an id (string, number or `null`).
    pub fn from_raw(raw: RawJson<'a>) -> Option<Self> {
        match raw.kind() {
            Kind::String | Kind::Number | Kind::Null => Some(Self { raw }),
            _ => None,
        }
    }

    /// The id's bytes exactly as received (what a reply echoes).
    #[inline]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.raw.as_bytes()
    }

    /// The id as a raw JSON value.
    #[inline]
    pub const fn as_raw(&self) -> RawJson<'a> {
        self.raw
    }

    /// Its kind.
    pub fn kind(&self) -> IdKind {
        match self.raw.kind() {
            Kind::String => IdKind::String,
            Kind::Null => IdKind::Null,
            _ => IdKind::Number,
        }
    }
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.raw)
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.raw, f)
    }
}
