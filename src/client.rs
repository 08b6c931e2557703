//! The client half: requests written into a fixed buffer, responses parsed borrowed,
//! and a fixed-capacity table of pending requests that matches them up.
//!
//! The mirror image of the server: [`write_request`] and [`write_notification`] build
//! messages with the same checked writer the server replies with (params raw, built
//! value by value, or serialized with the `serde` feature), and [`BatchWriter`] builds
//! a batch of them call by call;
//! [`parse_response`](crate::envelope::parse_response) reads replies; [`Pending`]
//! matches each reply to its request by id and says plainly what went wrong when one
//! does not match: an unknown id, a second reply to the same request, a reply after
//! the request was given up (by its id, or by a deadline [`Pending::sweep`] finds
//! passed), or an id that came back as another type.

use core::fmt;

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

/// Writes a request into `out`: `{"jsonrpc":"2.0","method":...,"params":...,"id":...}`.
///
/// `params` writes the params through a [`ResultWriter`]: an array or an object (raw,
/// built value by value, or serialized with the `serde` feature), or nothing to leave
/// the member out. Anything else (a scalar, an incomplete value) is refused with
/// [`WriteError::Misuse`]; a message that does not fit is [`WriteError::BufferFull`].
/// Returns the message.
///
/// ```
/// use jsonrpc_slice::client::{write_request, RequestId};
/// use jsonrpc_slice::RawJson;
///
/// let mut buf = [0u8; 128];
/// let msg = write_request(&mut buf, RequestId::Number(1), "subtract", |p| {
///     p.begin_array()?;
///     p.i64(42)?;
///     p.i64(23)?;
///     p.end()
/// })?;
/// assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#);
///
/// let params = RawJson::new(br#"{"name":"myself"}"#).unwrap();
/// let msg = write_request(&mut buf, RequestId::Str("5"), "foo.get", |p| p.raw(params))?;
/// assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"}"#);
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
pub fn write_request<'o>(
    out: &'o mut [u8],
    id: RequestId<'_>,
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<&'o [u8], WriteError> {
    write_message(out, Some(id), method, params)
}

/// Writes a notification (a request without an id: it gets no reply) into `out`.
///
/// ```
/// use jsonrpc_slice::client::write_notification;
///
/// let mut buf = [0u8; 64];
/// let msg = write_notification(&mut buf, "update", |_| Ok(()))?;
/// assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"update"}"#);
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
pub fn write_notification<'o>(
    out: &'o mut [u8],
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<&'o [u8], WriteError> {
    write_message(out, None, method, params)
}

fn write_message<'o>(
    out: &'o mut [u8],
    id: Option<RequestId<'_>>,
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<&'o [u8], WriteError> {
    let mut w = ResultWriter::new(out);
    message(&mut w, id, method, params)?;
    Ok(w.into_written())
}

/// Appends one request or notification object to `w`.
fn message(
    w: &mut ResultWriter<'_>,
    id: Option<RequestId<'_>>,
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    w.push(b"{\"jsonrpc\":\"2.0\",\"method\":\"")?;
    w.escaped(method)?;
    w.push_byte(b'"')?;
    let mark = w.mark();
    if w.push(b",\"params\":").is_err() {
        // No room for params, but the message may have none: ask with no room at all,
        // so that any write of the params fails.
        w.rollback(mark);
        let end = w.set_end(mark);
        w.begin_value();
        let asked = params(w).and_then(|()| w.finish_value());
        w.set_end(end);
        match asked {
            Ok(false) => w.rollback(mark),
            Ok(true) | Err(_) => return Err(WriteError::BufferFull),
        }
    } else {
        structured_params(w, mark, params)?;
    }
    if let Some(id) = id {
        w.push(b",\"id\":")?;
        write_id(w, id)?;
    }
    w.push_byte(b'}')
}

/// Writes the params after `,"params":` (written from `mark` on), or takes that back
/// when `params` writes nothing.
fn structured_params(
    w: &mut ResultWriter<'_>,
    mark: usize,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let value_start = w.mark();
    w.begin_value();
    params(w)?;
    if w.overflowed() {
        return Err(WriteError::BufferFull);
    }
    if !w.finish_value()? {
        w.rollback(mark);
    } else if !matches!(w.written().get(value_start), Some(b'[' | b'{')) {
        // Params must be structured: an array or an object.
        return Err(WriteError::Misuse);
    }
    Ok(())
}

/// A batch of requests and notifications, written into a fixed buffer one call at a
/// time: `[call,call,...]`.
///
/// Each call is written whole or not at all: one that does not fit (or whose params
/// are refused) is rolled back and its error returned, and the batch written so far
/// stays valid, with room kept for its closing `]`. [`finish`](Self::finish) closes it;
/// an empty batch (which the specification answers with an error) is refused.
///
/// ```
/// use jsonrpc_slice::client::{BatchWriter, RequestId};
///
/// let mut buf = [0u8; 160];
/// let mut batch = BatchWriter::new(&mut buf);
/// batch.request(RequestId::Number(1), "sum", |p| {
///     p.begin_array()?;
///     p.i64(1)?;
///     p.i64(2)?;
///     p.end()
/// })?;
/// batch.notification("update", |_| Ok(()))?;
/// assert_eq!(batch.len(), 2);
/// let msg = batch.finish()?;
/// assert_eq!(
///     msg,
///     br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"update"}]"#
/// );
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
pub struct BatchWriter<'o> {
    w: ResultWriter<'o>,
    calls: usize,
}

impl<'o> BatchWriter<'o> {
    /// An empty batch that will be written into `out`.
    pub fn new(out: &'o mut [u8]) -> Self {
        Self {
            w: ResultWriter::new(out),
            calls: 0,
        }
    }

    /// Appends a request (see [`write_request`]).
    pub fn request(
        &mut self,
        id: RequestId<'_>,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        self.call(Some(id), method, params)
    }

    /// Appends a notification (see [`write_notification`]).
    pub fn notification(
        &mut self,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        self.call(None, method, params)
    }

    /// The calls in the batch so far.
    pub fn len(&self) -> usize {
        self.calls
    }

    /// `true` before the first call.
    pub fn is_empty(&self) -> bool {
        self.calls == 0
    }

    /// Closes the batch and returns it; an empty batch is refused with
    /// [`WriteError::Misuse`].
    pub fn finish(mut self) -> Result<&'o [u8], WriteError> {
        if self.calls == 0 {
            return Err(WriteError::Misuse);
        }
        // Room for it was kept by every call.
        self.w.push_byte(b']')?;
        Ok(self.w.into_written())
    }

    fn call(
        &mut self,
        id: Option<RequestId<'_>>,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        let mark = self.w.mark();
        let written = self
            .w
            .push_byte(if self.calls == 0 { b'[' } else { b',' })
            .and_then(|()| message(&mut self.w, id, method, params))
            .and_then(|()| match self.w.remaining() {
                0 => Err(WriteError::BufferFull),
                _ => Ok(()),
            });
        match written {
            Ok(()) => {
                self.calls += 1;
                Ok(())
            }
            Err(e) => {
                self.w.rollback(mark);
                Err(e)
            }
        }
    }
}

/// Writes an id as JSON.
fn write_id(w: &mut ResultWriter<'_>, id: RequestId<'_>) -> Result<(), WriteError> {
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

/// The longest id (as its JSON bytes) a [`Pending`] table keeps.
pub const MAX_PENDING_ID: usize = 64;

/// An id kept by a [`Pending`] table: its JSON bytes, as written.
#[derive(Copy, Clone)]
struct StoredId {
    bytes: [u8; MAX_PENDING_ID],
    len: u8,
}

impl StoredId {
    const EMPTY: StoredId = StoredId {
        bytes: [0; MAX_PENDING_ID],
        len: 0,
    };

    fn new(id: RequestId<'_>) -> Option<Self> {
        let mut stored = Self::EMPTY;
        let mut w = ResultWriter::new(&mut stored.bytes);
        write_id(&mut w, id).ok()?;
        let len = w.written().len() as u8;
        stored.len = len;
        Some(stored)
    }

    fn id(&self) -> Id<'_> {
        let raw = self.bytes.get(..self.len as usize).unwrap_or(b"null");
        // Stored from an `Id`, so this is a string, number or null.
        Id::from_raw(RawJson::trusted(raw)).unwrap_or(Id::NULL)
    }
}

/// How two ids compare.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Same {
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
/// decoded, numbers by lexeme (the rule [`Pending`] matches replies by).
#[cfg(feature = "concurrent")]
pub(crate) fn same_id(a: Id<'_>, b: Id<'_>) -> bool {
    compare(a, b) == Same::Yes
}

fn compare(sent: Id<'_>, got: Id<'_>) -> Same {
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

/// What became of a request that has left the table.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Retired {
    Answered,
    GivenUp,
}

/// Why [`Pending::insert`] refused a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InsertError {
    /// The table is full.
    Full,
    /// A request with this id is already pending.
    DuplicateId,
    /// The id is longer than [`MAX_PENDING_ID`] bytes, or `null`.
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
    retired: [Option<(StoredId, Retired)>; R],
    /// Where the next retired id goes (a ring).
    retired_next: usize,
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
            retired: [None; R],
            retired_next: 0,
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
    /// [`write_request`]). On refusal the tag is handed back.
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
                self.retire(stored, Retired::Answered);
                return Resolution::Matched(tag);
            }
        }
        let other_type = self.slots.iter().position(|s| {
            s.as_ref()
                .is_some_and(|(s, _)| compare(s.id(), id) == Same::OtherType)
        });
        if let Some(i) = other_type {
            if let Some((stored, tag)) = self.take(i) {
                self.retire(stored, Retired::Answered);
                return Resolution::IdTypeChanged(tag);
            }
        }
        let retired = self
            .retired
            .iter()
            .flatten()
            .find(|(s, _)| compare(s.id(), id) != Same::No);
        match retired {
            Some((_, Retired::Answered)) => Resolution::Duplicate,
            Some((_, Retired::GivenUp)) => Resolution::Late,
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
        self.retire(stored, Retired::GivenUp);
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
                self.retire(stored, Retired::GivenUp);
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

    fn retire(&mut self, id: StoredId, how: Retired) {
        if R == 0 {
            return;
        }
        if let Some(slot) = self.retired.get_mut(self.retired_next % R) {
            *slot = Some((id, how));
        }
        self.retired_next = (self.retired_next + 1) % R;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_batch_keeps_what_fits_and_room_to_close() {
        let one = br#"{"jsonrpc":"2.0","method":"m","id":1}"#.len();
        // Room for `[`, one call and `]`, but not for `,` and a second call.
        let mut buf = [0u8; 64];
        let size = one + 2;
        let b = BatchWriter::new(&mut buf[..size]);
        assert_eq!(b.finish().err(), Some(WriteError::Misuse));
        let mut b = BatchWriter::new(&mut buf[..size]);
        b.request(RequestId::Number(1), "m", |_| Ok(())).unwrap();
        let second = b.request(RequestId::Number(2), "m", |_| Ok(()));
        assert_eq!(second, Err(WriteError::BufferFull));
        assert_eq!(b.len(), 1);
        let msg = b.finish().unwrap();
        assert_eq!(msg, br#"[{"jsonrpc":"2.0","method":"m","id":1}]"#);
        // Params that are refused roll back too.
        let mut b = BatchWriter::new(&mut buf);
        assert_eq!(b.notification("n", |p| p.i64(1)), Err(WriteError::Misuse));
        b.notification("n", |_| Ok(())).unwrap();
        assert_eq!(b.finish().unwrap(), br#"[{"jsonrpc":"2.0","method":"n"}]"#);
        // A call that fits but leaves no room for `]` is refused.
        let mut b = BatchWriter::new(&mut buf[..one + 1]);
        assert_eq!(
            b.request(RequestId::Number(1), "m", |_| Ok(())),
            Err(WriteError::BufferFull)
        );
        assert!(b.is_empty());
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

    extern crate std;

    #[test]
    fn requests_refuse_scalar_params() {
        let mut buf = [0u8; 64];
        assert_eq!(
            write_request(&mut buf, RequestId::Number(1), "m", |p| p.i64(1)),
            Err(WriteError::Misuse)
        );
        assert_eq!(
            write_request(&mut [0u8; 20], RequestId::Number(1), "m", |_| Ok(())),
            Err(WriteError::BufferFull)
        );
        // A message without params fits a buffer of exactly its size; with params it
        // does not.
        let exact = br#"{"jsonrpc":"2.0","method":"m","id":1}"#;
        let mut room = [0u8; 37];
        assert_eq!(room.len(), exact.len());
        let msg = write_request(&mut room, RequestId::Number(1), "m", |_| Ok(()));
        assert_eq!(msg, Ok(&exact[..]));
        let msg = write_request(&mut room, RequestId::Number(1), "m", |p| p.begin_array());
        assert_eq!(msg, Err(WriteError::BufferFull));
        let msg = write_request(&mut buf, RequestId::Str("a\"b"), "m\n", |_| Ok(())).unwrap();
        assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"m\n","id":"a\"b"}"#);
    }
}
