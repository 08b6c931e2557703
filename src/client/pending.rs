//! [`Pending`]: a table of ids awaiting replies, with a tag of the caller's each (the
//! building block under [`Client`](super::Client), for callers that write and send
//! their requests themselves).

use core::fmt;

use super::id::{compare, RequestId, Same, StoredId};
use super::retired::{Left, Retired};
use crate::id::{Id, IdKind};

/// Why [`Pending::insert`] refused a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InsertError {
    /// The table is full.
    Full,
    /// A request with this id is already pending.
    DuplicateId,
    /// The id is longer than [`MAX_PENDING_ID`](super::MAX_PENDING_ID) bytes, or `null`.
    UnsuitableId,
}

impl fmt::Display for InsertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Full => "pending-request table full",
            Self::DuplicateId => "a request with this id is already pending",
            Self::UnsuitableId => "id null or too long to keep",
        })
    }
}

impl core::error::Error for InsertError {}

/// What a response's id means to a [`Pending`] table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Resolution<T> {
    /// The reply to a pending request, which leaves the table: here is its tag.
    Matched(T),
    /// The reply to a pending request whose id came back as another type (`7` sent,
    /// `"7"` received): a server bug, reported, and the request leaves the table.
    IdTypeChanged(T),
    /// A second reply to a request that was answered already.
    Duplicate,
    /// A reply to a request that was given up ([`Pending::give_up`]).
    Late,
    /// `"id":null`: the server could not read the request's id (a parse error or an
    /// invalid request), so no request can be matched.
    NullId,
    /// An id this table never sent (or forgot: it remembers the last `R` requests
    /// that left it).
    Unknown,
}

/// A fixed-capacity table of requests awaiting replies: `N` pending requests, each
/// with a tag of yours (a waker, a callback index, a timestamp), and a memory of the
/// last `R` that left it, to tell a duplicate or late reply from an unknown one.
///
/// ```
/// use jsonrpc_slice::client::{Pending, RequestId, Resolution};
/// use jsonrpc_slice::{Id, RawJson};
///
/// // The ids of replies, as `parse_response` hands them out.
/// let id = |s: &'static [u8]| Id::from_raw(RawJson::new(s).unwrap()).unwrap();
/// let mut pending: Pending<&str, 4> = Pending::new();
/// pending.insert(RequestId::Number(1), "first").unwrap();
/// pending.insert(RequestId::Str("b"), "second").unwrap();
///
/// assert_eq!(pending.resolve(id(b"1")), Resolution::Matched("first"));
/// assert_eq!(pending.resolve(id(b"1")), Resolution::Duplicate);
/// assert_eq!(pending.resolve(id(b"7")), Resolution::Unknown);
/// assert_eq!(pending.give_up(RequestId::Str("b")), Some("second"));
/// assert_eq!(pending.resolve(id(b"\"b\"")), Resolution::Late);
/// assert!(pending.is_empty());
/// ```
pub struct Pending<T, const N: usize, const R: usize = 8> {
    slots: [Option<(StoredId, T)>; N],
    retired: Retired<R>,
}

impl<T, const N: usize, const R: usize> Default for Pending<T, N, R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, const N: usize, const R: usize> fmt::Debug for Pending<T, N, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.slots.iter().flatten().map(|(id, _)| id.id()))
            .finish()
    }
}

impl<T, const N: usize, const R: usize> Pending<T, N, R> {
    /// An empty table (a `const fn`, so it can live in a `static`).
    pub const fn new() -> Self {
        Self {
            slots: [const { None }; N],
            retired: Retired::new(),
        }
    }

    /// Requests pending.
    pub fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// `true` if no request is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ids and tags of the pending requests.
    pub fn iter(&self) -> impl Iterator<Item = (Id<'_>, &T)> {
        self.slots.iter().flatten().map(|(id, tag)| (id.id(), tag))
    }

    /// Records a request sent with `id` (the same [`RequestId`] given to
    /// [`write_request`](super::write_request)). On refusal the tag is handed back.
    pub fn insert(&mut self, id: RequestId<'_>, tag: T) -> Result<(), (T, InsertError)> {
        let stored = match StoredId::new(id) {
            Some(stored) if stored.id().kind() != IdKind::Null => stored,
            _ => return Err((tag, InsertError::UnsuitableId)),
        };
        if self.position(stored.id()).is_some() {
            return Err((tag, InsertError::DuplicateId));
        }
        match self.slots.iter_mut().find(|s| s.is_none()) {
            Some(slot) => {
                *slot = Some((stored, tag));
                Ok(())
            }
            None => Err((tag, InsertError::Full)),
        }
    }

    /// Matches a response's id against the table.
    pub fn resolve(&mut self, id: Id<'_>) -> Resolution<T> {
        if id.kind() == IdKind::Null {
            return Resolution::NullId;
        }
        if let Some(i) = self.position(id) {
            if let Some((stored, tag)) = self.take(i) {
                self.retire(stored, Left::Answered);
                return Resolution::Matched(tag);
            }
        }
        let other_type = self.slots.iter().position(|s| {
            s.as_ref()
                .is_some_and(|(s, _)| compare(s.id(), id) == Same::OtherType)
        });
        if let Some(i) = other_type {
            if let Some((stored, tag)) = self.take(i) {
                self.retire(stored, Left::Answered);
                return Resolution::IdTypeChanged(tag);
            }
        }
        match self.retired.find(id) {
            Some(Left::Answered) => Resolution::Duplicate,
            Some(Left::GivenUp) => Resolution::Late,
            None => Resolution::Unknown,
        }
    }

    /// Gives up waiting for the reply to the request sent with `id` (the same
    /// [`RequestId`] given to [`insert`](Self::insert)): a timeout, a cancellation. The
    /// request leaves the table, and a reply that comes later is reported as
    /// [`Resolution::Late`]. Returns its tag, if it was pending.
    pub fn give_up(&mut self, id: RequestId<'_>) -> Option<T> {
        let stored = StoredId::new(id)?;
        let i = self.position(stored.id())?;
        let (stored, tag) = self.take(i)?;
        self.retire(stored, Left::GivenUp);
        Some(tag)
    }

    /// Gives up every pending request whose tag says it `expired` (its deadline has
    /// passed, say), handing each id and tag to `gone`, in table order; replies that
    /// come later are reported as [`Resolution::Late`]. Returns how many left.
    ///
    /// ```
    /// use jsonrpc_slice::client::{Pending, RequestId, Resolution};
    /// use jsonrpc_slice::{Id, RawJson};
    ///
    /// // Tags carry a deadline, in the application's clock (milliseconds here).
    /// let mut pending: Pending<u64, 4> = Pending::new();
    /// pending.insert(RequestId::Number(1), 1_000).unwrap();
    /// pending.insert(RequestId::Number(2), 5_000).unwrap();
    ///
    /// let now = 2_000;
    /// let mut timed_out = Vec::new();
    /// let n = pending.sweep(|deadline| *deadline <= now, |id, _| timed_out.push(id.as_bytes().to_vec()));
    /// assert_eq!((n, timed_out), (1, vec![b"1".to_vec()]));
    /// assert_eq!(pending.len(), 1);
    /// let id = Id::from_raw(RawJson::new(b"1").unwrap()).unwrap();
    /// assert_eq!(pending.resolve(id), Resolution::Late);
    /// ```
    pub fn sweep(
        &mut self,
        mut expired: impl FnMut(&T) -> bool,
        mut gone: impl FnMut(Id<'_>, T),
    ) -> usize {
        let mut n = 0;
        for i in 0..N {
            let due = self
                .slots
                .get(i)
                .and_then(Option::as_ref)
                .is_some_and(|(_, tag)| expired(tag));
            if let Some((stored, tag)) = due.then(|| self.take(i)).flatten() {
                gone(stored.id(), tag);
                self.retire(stored, Left::GivenUp);
                n += 1;
            }
        }
        n
    }

    fn position(&self, id: Id<'_>) -> Option<usize> {
        self.slots.iter().position(|s| {
            s.as_ref()
                .is_some_and(|(s, _)| compare(s.id(), id) == Same::Yes)
        })
    }

    fn take(&mut self, i: usize) -> Option<(StoredId, T)> {
        self.slots.get_mut(i)?.take()
    }

    fn retire(&mut self, id: StoredId, how: Left) {
        self.retired.retire(id, how);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::MAX_PENDING_ID;
    use crate::raw::RawJson;

    fn id(s: &'static [u8]) -> Id<'static> {
        Id::from_raw(RawJson::new(s).unwrap()).unwrap()
    }

    #[test]
    fn ids_compare_by_value_and_type() {
        let mut p: Pending<u8, 4, 2> = Pending::new();
        p.insert(RequestId::Number(7), 1).unwrap();
        p.insert(RequestId::Raw(id(br#""a\u0062""#)), 2).unwrap();
        let refused = p.insert(RequestId::Str("ab"), 3);
        assert_eq!(refused, Err((3, InsertError::DuplicateId)));
        let refused = p.insert(RequestId::Raw(Id::NULL), 3);
        assert_eq!(refused, Err((3, InsertError::UnsuitableId)));
        let long = [b'x'; MAX_PENDING_ID];
        let long = core::str::from_utf8(&long).unwrap();
        let refused = p.insert(RequestId::Str(long), 3);
        assert_eq!(refused, Err((3, InsertError::UnsuitableId)));
        assert_eq!(p.resolve(id(br#""ab""#)), Resolution::Matched(2));
        assert_eq!(p.resolve(id(br#""7""#)), Resolution::IdTypeChanged(1));
        assert_eq!(p.resolve(id(b"7")), Resolution::Duplicate);
        assert_eq!(p.resolve(id(b"null")), Resolution::NullId);
        assert_eq!(p.resolve(id(b"7.0")), Resolution::Unknown);
    }

    #[test]
    fn full_tables_hand_the_tag_back() {
        let mut p: Pending<u8, 1, 0> = Pending::new();
        p.insert(RequestId::Number(1), 1).unwrap();
        assert_eq!(
            p.insert(RequestId::Number(2), 2),
            Err((2, InsertError::Full))
        );
        assert_eq!(p.resolve(id(b"1")), Resolution::Matched(1));
        // No memory of retired ids: a second reply is unknown.
        assert_eq!(p.resolve(id(b"1")), Resolution::Unknown);
    }

    #[test]
    fn give_up_and_sweep_take_what_insert_took() {
        let mut p: Pending<u32, 4, 4> = Pending::new();
        p.insert(RequestId::Str("a\"b"), 10).unwrap();
        p.insert(RequestId::Number(2), 20).unwrap();
        p.insert(RequestId::Number(3), 30).unwrap();
        assert_eq!(p.give_up(RequestId::Str("a\"b")), Some(10));
        assert_eq!(p.give_up(RequestId::Str("a\"b")), None);
        assert_eq!(p.resolve(id(br#""a\"b""#)), Resolution::Late);
        let mut gone = std::vec::Vec::new();
        assert_eq!(
            p.sweep(|t| *t < 25, |i, t| gone.push((i.as_bytes().to_vec(), t))),
            1
        );
        assert_eq!(gone, [(b"2".to_vec(), 20)]);
        assert_eq!(p.resolve(id(b"2")), Resolution::Late);
        assert_eq!(p.resolve(id(b"3")), Resolution::Matched(30));
        assert_eq!(p.sweep(|_| true, |_, _| {}), 0);
    }
}
