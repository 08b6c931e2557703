//! Request ids: the ones a client writes ([`RequestId`], [`IdCounter`]), the copy a
//! table keeps of each, and the rule that matches a reply's id to it.

use crate::id::{Id, IdKind};
use crate::raw::{RawJson, RawStr};
use crate::write::{ResultWriter, WriteError};

/// The id a client gives a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RequestId<'a> {
    /// A number, e.g. from an [`IdCounter`].
    Number(u64),
    /// A string, written escaped.
    Str(&'a str),
    /// An id exactly as given (a string with its escapes, a number lexeme, `null`).
    Raw(Id<'a>),
}

/// Numbers for request ids, counting up from where it starts (wrapping at `u64::MAX`).
///
/// ```
/// use jsonrpc_slice::client::IdCounter;
///
/// let mut ids = IdCounter::new(1);
/// assert_eq!((ids.next_id(), ids.next_id()), (1, 2));
/// ```
#[derive(Clone, Debug)]
pub struct IdCounter {
    next: u64,
}

impl IdCounter {
    /// A counter whose first id is `start`.
    pub const fn new(start: u64) -> Self {
        Self { next: start }
    }

    /// The next id.
    pub fn next_id(&mut self) -> u64 {
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        id
    }
}

/// Writes an id as JSON.
pub(crate) fn write_id(w: &mut ResultWriter<'_>, id: RequestId<'_>) -> Result<(), WriteError> {
    match id {
        RequestId::Number(n) => w.u64_digits(n),
        RequestId::Str(s) => {
            w.push_byte(b'"')?;
            w.escaped(s)?;
            w.push_byte(b'"')
        }
        RequestId::Raw(raw) => w.id(raw),
    }
}

/// The longest id (as its JSON bytes) a [`Pending`](super::Pending) table or a
/// [`Client`](super::Client) keeps.
pub const MAX_PENDING_ID: usize = 64;

/// An id kept by a table of requests in flight: its JSON bytes, as written.
#[derive(Copy, Clone)]
pub(crate) struct StoredId {
    bytes: [u8; MAX_PENDING_ID],
    len: u8,
}

impl StoredId {
    pub(crate) const EMPTY: StoredId = StoredId {
        bytes: [0; MAX_PENDING_ID],
        len: 0,
    };

    pub(crate) fn new(id: RequestId<'_>) -> Option<Self> {
        let mut stored = Self::EMPTY;
        let mut w = ResultWriter::new(&mut stored.bytes);
        write_id(&mut w, id).ok()?;
        let len = w.written().len() as u8;
        stored.len = len;
        Some(stored)
    }

    pub(crate) fn id(&self) -> Id<'_> {
        let raw = self.bytes.get(..self.len as usize).unwrap_or(b"null");
        // Stored from an `Id`, so this is a string, number or null.
        Id::from_raw(RawJson::trusted(raw)).unwrap_or(Id::NULL)
    }
}

/// How two ids compare.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Same {
    /// The same value and type (strings compared with escapes decoded, numbers by
    /// lexeme).
    Yes,
    /// The same text, another type: `7` and `"7"`.
    OtherType,
    No,
}

/// The text of an id: a string's inside, or a number's lexeme.
fn id_text(id: Id<'_>) -> RawStr<'_> {
    match id.as_bytes() {
        [b'"', s @ .., b'"'] => RawStr::trusted(s),
        raw => RawStr::trusted(raw),
    }
}

/// `true` if `a` and `b` are the same id: the same type, strings with escapes
/// decoded, numbers by lexeme (the rule replies are matched by).
#[cfg(feature = "concurrent")]
pub(crate) fn same_id(a: Id<'_>, b: Id<'_>) -> bool {
    compare(a, b) == Same::Yes
}

pub(crate) fn compare(sent: Id<'_>, got: Id<'_>) -> Same {
    let inner = id_text;
    let same_text = || {
        let (a, b) = (inner(sent), inner(got));
        if a.has_escapes() || b.has_escapes() {
            a.bytes().eq(b.bytes())
        } else {
            a.as_raw() == b.as_raw()
        }
    };
    match (sent.kind(), got.kind()) {
        (IdKind::Null, _) | (_, IdKind::Null) => Same::No,
        (a, b) if a == b => {
            if same_text() {
                Same::Yes
            } else {
                Same::No
            }
        }
        _ if same_text() => Same::OtherType,
        _ => Same::No,
    }
}
