//! Dispatch: a static method table, and the [`Server`] that runs a message through
//! scan → envelope → dispatch → write.
//!
//! # Contract
//!
//! [`Server::handle`] takes any input bytes and any output buffer. It never panics
//! (handlers aside: a handler that panics is the caller's bug), never allocates, and
//! its output is always either nothing (a notification, a batch of them) or one
//! complete JSON-RPC reply: a response object, or a batch array of them. A reply that
//! does not fit is rolled back and replaced by `-32603` with the same id; if even that
//! does not fit, nothing is written and [`OutputTooSmall`] is returned.

use core::fmt;

use crate::envelope::{self, Batch, Call, Envelope};
use crate::error::{code, InvalidRequest, RpcError};
use crate::id::Id;
use crate::limits::{Limits, BATCH_WORK_FACTOR};
use crate::params::Params;
use crate::raw::{RawJson, RawStr};
use crate::scan::{ScanErrorKind, FAST_PATHS};
use crate::write::{Message, ResultWriter, WriteError};

/// A method handler: gets the context, the params, and a writer for its result.
///
/// It writes one JSON value as its result (or nothing, for `null`) and returns `Ok`,
/// or returns an [`RpcError`], whose `data` and `message` may borrow from the params.
/// For a notification the same handler runs with a writer that drops its result.
pub type Handler<C> =
    for<'p> fn(&mut C, Params<'p>, &mut ResultWriter<'_>) -> Result<(), RpcError<'p>>;

/// The handler for method names a table lacks (see [`Server::with_fallback`]): a
/// [`Handler`] that is given the name it was called with, escapes as sent.
pub type Fallback<C> =
    for<'p> fn(&mut C, RawStr<'p>, Params<'p>, &mut ResultWriter<'_>) -> Result<(), RpcError<'p>>;

/// What runs a call: a method's handler, or the fallback.
enum Target<C: 'static> {
    Method(Handler<C>),
    Fallback(Fallback<C>),
}

/// One row of a method table: a name and its handler.
pub struct Method<C: 'static> {
    name: &'static str,
    handler: Handler<C>,
}

impl<C> Method<C> {
    /// A row of a method table.
    pub const fn new(name: &'static str, handler: Handler<C>) -> Self {
        Self { name, handler }
    }

    /// The method's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<C> Clone for Method<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Method<C> {}

impl<C> fmt::Debug for Method<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Method").field(&self.name).finish()
    }
}

/// A method table fixed at compile time: its rows, and a hash index of their names.
///
/// Build it in a `const` or `static` with the [`method_table!`](crate::method_table)
/// macro, which computes the index at compile time. A name given twice, or a name that
/// starts with `rpc.` (reserved by the specification), then fails the build; the
/// check takes expected O(M) steps for M methods (each name hashed, and compared only
/// with the names its hash collides with), so a table of thousands of methods builds
/// in moments.
///
/// A lookup ([`find`](Self::find), [`position`](Self::position)) hashes the name once
/// (a word at a time) and compares it with the row its hash leads to: O(1) expected,
/// whatever the size of the table (the index has a power-of-two number of slots, more
/// than twice the rows, probed linearly; each slot holds a 16-bit tag of its row's
/// hash, so a name is compared only with rows whose tag it shares). About 90
/// instructions for the last of 1 024 methods on x86-64 (`benches/table.sh`); a table
/// of at most four methods is scanned instead, which costs fewer. The
/// compact build (`--cfg jsonrpc_slice_compact`, 32-bit targets) scans the rows
/// instead, O(M): less code for a Cortex-M's flash.
///
/// Names are matched byte for byte as sent, and a name sent with escapes
/// (`"su\u0062tract"`) decoded.
///
/// ```compile_fail
/// use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError};
///
/// fn a<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     Ok(())
/// }
/// static TABLE: MethodTable<()> = method_table! { "a" => a, "a" => a };
/// ```
///
/// ```compile_fail
/// use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError};
///
/// fn a<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     Ok(())
/// }
/// static TABLE: MethodTable<()> = method_table! { "a" => a, "rpc.a" => a };
/// ```
pub struct MethodTable<C: 'static> {
    methods: &'static [Method<C>],
    /// The hash index: a power-of-two number of slots, each 0 (empty) or a row + 1
    /// (low 16 bits) and the tag of its name's hash (high 16), every row in exactly one
    /// slot, found by linear probing from the slot its name's hash picks (checked by
    /// [`MethodTable::new`]).
    index: &'static [u32],
    /// How far a name's hash is shifted right to give its first slot.
    shift: u8,
    /// Some name holds a backslash (then a name sent without escapes is compared byte
    /// for byte only, as before; without one, a byte-equal name is always the match).
    backslash: bool,
    /// No name holds a backslash and there are more than [`SCANNED`] rows: the fast
    /// build hashes a name sent as it is (one test on the usual path).
    hashed: bool,
}

impl<C> Clone for MethodTable<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for MethodTable<C> {}

impl<C> fmt::Debug for MethodTable<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.methods).finish()
    }
}

const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn reserved(name: &[u8]) -> bool {
    name.len() >= 4 && name[0] == b'r' && name[1] == b'p' && name[2] == b'c' && name[3] == b'.'
}

/// The most rows a lookup in the fast build compares one after the other instead of
/// hashing the name: fewer instructions for a table that small.
const SCANNED: usize = 4;

/// The bytes a name's hash reads at a time: a `usize`.
const WORD: usize = core::mem::size_of::<usize>();

/// The multiplier of the name hash (FxHash's, for the width of a `usize`).
const SEED: usize = if WORD == 8 {
    0x517c_c1b7_2722_0a95_u64 as usize
} else {
    0x9e37_79b9
};

/// One step of the name hash: `word` mixed into `hash` (FxHash's step).
#[inline(always)]
const fn mix(hash: usize, word: usize) -> usize {
    (hash.rotate_left(5) ^ word).wrapping_mul(SEED)
}

/// The hash of a method name, a `usize` (`WORD` bytes, little-endian) at a time: each
/// whole word but one that ends the name, then the name's last word (which may overlap
/// the one before: one load, no tail loop), then the length. A name shorter than a
/// word is one word, padded with zeros. The same function builds the index at compile
/// time and looks names up at run time; [`stream_hash`] is the same hash of bytes that
/// come one at a time (a name sent with escapes, decoded).
#[inline(always)]
const fn name_hash(name: &[u8]) -> usize {
    let mut hash = 0;
    match name.last_chunk::<WORD>() {
        Some(last) => {
            // Two words a turn, then one, while a byte is left after them.
            let mut rest = name;
            while let Some((two, tail)) = rest.split_first_chunk::<{ 2 * WORD }>() {
                if tail.is_empty() {
                    break;
                }
                let (a, b) = two.split_at(WORD);
                hash = mix(hash, word_at(a));
                hash = mix(hash, word_at(b));
                rest = tail;
            }
            if let Some((word, tail)) = rest.split_first_chunk::<WORD>() {
                if !tail.is_empty() {
                    hash = mix(hash, usize::from_le_bytes(*word));
                }
            }
            hash = mix(hash, usize::from_le_bytes(*last));
        }
        None => {
            let mut word = 0;
            let mut k = name.len();
            while k > 0 {
                k -= 1;
                word = (word << 8) | name[k] as usize;
            }
            hash = mix(hash, word);
        }
    }
    mix(hash, name.len())
}

/// The first word of `bytes` (at least `WORD` of them, else 0).
#[inline(always)]
const fn word_at(bytes: &[u8]) -> usize {
    match bytes.first_chunk::<WORD>() {
        Some(word) => usize::from_le_bytes(*word),
        None => 0,
    }
}

/// [`name_hash`] of the bytes `bytes` yields: the last `WORD` of them kept in a window,
/// which is mixed in as a whole word each time one more byte shows it was not the last.
fn stream_hash(bytes: impl Iterator<Item = u8>) -> usize {
    let (mut hash, mut window, mut len) = (0, 0usize, 0usize);
    for b in bytes {
        if len >= WORD && len % WORD == 0 {
            hash = mix(hash, window);
        }
        window = (window >> 8) | ((b as usize) << (usize::BITS - 8));
        len += 1;
    }
    let last = match len {
        // The window holds the last word.
        WORD.. => window,
        0 => 0,
        // Fewer bytes than a word: down to the bottom, zeros above.
        _ => window >> (8 * (WORD - len)),
    };
    mix(mix(hash, last), len)
}

/// `true` if `a` and `b` are the same bytes: a word at a time, the last word read where
/// it ends (overlapping the one before), no call to `memcmp`. The lookup's comparison.
#[inline(always)]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let Some(at) = a.len().checked_sub(WORD) else {
        // Shorter than a word.
        return a.iter().zip(b).all(|(x, y)| x == y);
    };
    // (Sliced rather than `last_chunk`: no check for a null pointer.)
    if a.get(at..) != b.get(at..) {
        return false;
    }
    // The words before the last one.
    let (mut a, mut b) = (a, b);
    while let (Some((x, a_rest)), Some((y, b_rest))) =
        (a.split_first_chunk::<WORD>(), b.split_first_chunk::<WORD>())
    {
        if a_rest.len() <= WORD {
            return x == y || a_rest.is_empty();
        }
        if x != y {
            return false;
        }
        (a, b) = (a_rest, b_rest);
    }
    true
}
/// The shift that turns a hash into a slot of an index of `slots` slots (a power of
/// two): its top bits, FxHash's best. One slot: a shift by the full width, which
/// `wrapping_shr` makes no shift (no row to find there anyway).
const fn shift_for(slots: usize) -> u32 {
    usize::BITS - slots.trailing_zeros()
}

/// The tag of a hash: 16 bits from its middle (in a 64-bit build, apart from the top
/// 16 at most that pick the slot). A slot holds its row's tag, so that a probe compares
/// names only when the tags agree.
#[inline(always)]
const fn tag(hash: usize) -> u32 {
    (hash >> (usize::BITS / 2)) as u16 as u32
}

/// Panics unless an index of `slots` slots can hold `methods` rows.
const fn check_shape(slots: usize, methods: usize) {
    if !slots.is_power_of_two() || slots <= methods || slots > 1 << 16 {
        panic!("the index of a method table needs a power-of-two number of slots, more than the methods, at most 65,536");
    }
}

/// The number of slots [`method_table!`](crate::method_table) gives the index of a
/// table of `methods` methods: the power of two above twice as many (so an index is
/// from a quarter to half full, and a probe rarely passes more than a slot or two). An
/// index has at most 65,536 slots, so such a table at most 32,767 methods.
pub const fn index_len(methods: usize) -> usize {
    (2 * methods + 1).next_power_of_two()
}

/// The hash index of a table whose rows have these `names`, in row order, with `S`
/// slots (a power of two above `names.len()`, at most 65,536; [`index_len`] gives the
/// one [`method_table!`](crate::method_table) uses), for [`MethodTable::new`]. Each
/// slot is 0 (empty) or a row + 1 in its low 16 bits and a tag of its name's hash in
/// its high 16.
///
/// # Panics
///
/// If two names are the same, a name starts with `rpc.`, or `S` does not fit. In a
/// `const` or `static` initializer that panic is a compile error. It takes expected
/// O(M) steps for M names: each name is hashed once and compared with the names
/// already in the slots its probe passes that have its tag.
pub const fn index<const S: usize>(names: &[&str]) -> [u32; S] {
    check_shape(S, names.len());
    let shift = shift_for(S);
    let mut slots = [0u32; S];
    let mut row = 0;
    while row < names.len() {
        let name = names[row].as_bytes();
        if reserved(name) {
            panic!("method names that start with `rpc.` are reserved by JSON-RPC 2.0");
        }
        let hash = name_hash(name);
        let tag = tag(hash);
        let mut i = hash.wrapping_shr(shift);
        loop {
            let slot = slots[i];
            if slot == 0 {
                slots[i] = tag << 16 | (row + 1) as u32;
                break;
            }
            let other = (slot & 0xffff) as usize - 1;
            if slot >> 16 == tag && same_bytes(names[other].as_bytes(), name) {
                panic!("a method name appears twice in the method table");
            }
            i = (i + 1) & (S - 1);
        }
        row += 1;
    }
    slots
}

impl<C> MethodTable<C> {
    /// A table of `methods` with the hash `index` of their names, as
    /// [`index`] makes it (what
    /// [`method_table!`](crate::method_table) writes for you).
    ///
    /// ```
    /// use jsonrpc_slice::{dispatch, Method, MethodTable, Params, RawJson, ResultWriter, RpcError};
    ///
    /// fn a<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ///     Ok(())
    /// }
    /// const NAMES: [&str; 2] = ["a", "b"];
    /// static TABLE: MethodTable<()> = MethodTable::new(
    ///     &[Method::new(NAMES[0], a), Method::new(NAMES[1], a)],
    ///     &dispatch::index::<{ dispatch::index_len(NAMES.len()) }>(&NAMES),
    /// );
    /// let b = RawJson::new(br#""b""#)?.as_str().unwrap();
    /// assert_eq!(TABLE.position(b), Some(1));
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    ///
    /// # Panics
    ///
    /// If two methods share a name, a name starts with `rpc.`, or `index` is not the
    /// index of these names. In a `const` or `static` initializer that panic is a
    /// compile error, which is where tables belong. The check takes expected O(M)
    /// steps for M methods: each name is hashed, and its probe walked to its row.
    pub const fn new(methods: &'static [Method<C>], index: &'static [u32]) -> Self {
        let slots = index.len();
        check_shape(slots, methods.len());
        let shift = shift_for(slots);
        // Every slot empty or a row, as many rows as methods...
        let mut used = 0;
        let mut i = 0;
        while i < slots {
            if (index[i] & 0xffff) as usize > methods.len() {
                panic!("the index does not match the methods of the table");
            }
            used += (index[i] & 0xffff != 0) as usize;
            i += 1;
        }
        if used != methods.len() {
            panic!("the index does not match the methods of the table");
        }
        // ...and each row where its probe finds it, with its tag, no row of the same
        // name before it (so each row is in exactly one slot).
        let mut backslash = false;
        let mut row = 0;
        while row < methods.len() {
            let name = methods[row].name.as_bytes();
            if reserved(name) {
                panic!("method names that start with `rpc.` are reserved by JSON-RPC 2.0");
            }
            let mut k = 0;
            while k < name.len() {
                backslash |= name[k] == b'\\';
                k += 1;
            }
            let hash = name_hash(name);
            let tag = tag(hash);
            let mut i = hash.wrapping_shr(shift);
            loop {
                let slot = index[i];
                let other = (slot & 0xffff) as usize;
                if other == 0 {
                    panic!("the index does not match the methods of the table");
                }
                if other == row + 1 {
                    if slot >> 16 != tag {
                        panic!("the index does not match the methods of the table");
                    }
                    break;
                }
                if same_bytes(methods[other - 1].name.as_bytes(), name) {
                    panic!("a method name appears twice in the method table");
                }
                i = (i + 1) & (slots - 1);
            }
            row += 1;
        }
        Self {
            methods,
            index,
            shift: shift as u8,
            backslash,
            hashed: !backslash && methods.len() > SCANNED,
        }
    }

    /// The rows of the table, in the order they were given.
    pub const fn methods(&self) -> &'static [Method<C>] {
        self.methods
    }

    /// The handler for `name` (escapes in it decoded), if the table has one.
    #[inline(always)]
    pub fn find(&self, name: RawStr<'_>) -> Option<Handler<C>> {
        self.lookup(name).map(|(_, m)| m.handler)
    }

    /// The row of [`methods`](Self::methods) named `name` (escapes in it decoded), if
    /// the table has one.
    #[inline(always)]
    pub fn position(&self, name: RawStr<'_>) -> Option<usize> {
        self.lookup(name).map(|(row, _)| row)
    }

    /// The row named `name` (escapes in it decoded), and where it is.
    // Always inlined: the lookup is a few dozen instructions, and its caller's
    // registers saved once instead of twice.
    #[inline(always)]
    fn lookup(&self, name: RawStr<'_>) -> Option<(usize, &'static Method<C>)> {
        if !FAST_PATHS {
            return self.scan(name);
        }
        // Names as sent, byte for byte: the usual case. (A name with an escape cannot
        // match that way, when no table name has a backslash.)
        let raw = name.as_raw();
        if !self.hashed {
            if !self.backslash {
                // A few rows: compared one after the other, cheaper than a hash.
                let found = self.scan_bytes(raw);
                if found.is_some() {
                    return found;
                }
            }
        } else {
            let by_bytes =
                |raw: &[u8]| self.probe(name_hash(raw), |n| same_name(n.as_bytes(), raw));
            // The same lookup twice: each copy knows whether the name is a word long,
            // and checks it once.
            let found = match raw.len() >= WORD {
                true => by_bytes(raw),
                false => by_bytes(raw),
            };
            if found.is_some() {
                return found;
            }
        }
        self.lookup_rest(name)
    }

    /// The rest of [`lookup`](Self::lookup): a name not found byte for byte, or any
    /// name when a table name holds a backslash.
    #[cold]
    #[inline(never)]
    fn lookup_rest(&self, name: RawStr<'_>) -> Option<(usize, &'static Method<C>)> {
        if !name.has_escapes() {
            // Byte for byte is the decoded comparison.
            if !self.backslash {
                return None;
            }
            let raw = name.as_raw();
            return self.probe(name_hash(raw), |n| same_name(n.as_bytes(), raw));
        }
        self.lookup_decoded(name)
    }

    /// [`lookup`](Self::lookup) by the decoded name, hashed and compared a byte at a
    /// time: for a name sent with escapes.
    fn lookup_decoded(&self, name: RawStr<'_>) -> Option<(usize, &'static Method<C>)> {
        self.probe(stream_hash(name.bytes()), |n| name.eq_decoded(n))
    }

    /// The rows one after the other, each compared byte for byte with `raw`: the
    /// lookup of a table of at most [`SCANNED`] rows (no table name with a backslash).
    #[inline(always)]
    fn scan_bytes(&self, raw: &[u8]) -> Option<(usize, &'static Method<C>)> {
        self.methods
            .iter()
            .enumerate()
            .find(|(_, m)| same_name(m.name.as_bytes(), raw))
    }

    /// The lookup of the compact build: the rows one after the other, each compared
    /// with the decoded name. O(M), but the least code (the firmware's flash budget:
    /// the hashed lookup would cost it some 740 bytes); `scan_agrees` pins the two to
    /// each other.
    fn scan(&self, name: RawStr<'_>) -> Option<(usize, &'static Method<C>)> {
        self.methods
            .iter()
            .enumerate()
            .find(|(_, m)| name.eq_decoded(m.name))
    }

    /// The row whose name `eq` accepts, probing from the slot `hash` picks and
    /// comparing names only in slots with its tag.
    #[inline(always)]
    fn probe(&self, hash: usize, eq: impl Fn(&str) -> bool) -> Option<(usize, &'static Method<C>)> {
        let mask = self.index.len().wrapping_sub(1);
        let shift = self.shift as u32;
        let tag = tag(hash);
        let mut i = hash.wrapping_shr(shift);
        loop {
            let slot = *self.index.get(i)?;
            if slot >> 16 == tag {
                // An empty slot (0, when the tag is 0 too) is no row: no such name.
                let row = ((slot & 0xffff) as usize).wrapping_sub(1);
                let method = self.methods.get(row)?;
                if eq(method.name) {
                    return Some((row, method));
                }
            } else if slot == 0 {
                // An empty slot: no such name. (`new` checked that there is one.)
                return None;
            }
            i = (i + 1) & mask;
        }
    }
}

/// Builds a [`MethodTable`] from `"name" => handler` rows, its hash index computed and
/// checked at compile time (a name twice, or one that starts with `rpc.`, fails the
/// build; expected O(M) steps for M rows) when used in a `const` or `static`, where it
/// belongs. The rows stay in the order given; the index has
/// [`index_len`] slots.
///
/// ```
/// use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError};
///
/// struct Counter(u64);
///
/// fn bump<'p>(c: &mut Counter, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     c.0 += 1;
///     Ok(out.u64(c.0)?)
/// }
///
/// static TABLE: MethodTable<Counter> = method_table! { "bump" => bump };
/// assert_eq!(TABLE.methods().len(), 1);
/// ```
#[macro_export]
macro_rules! method_table {
    ($($name:expr => $handler:expr),* $(,)?) => {
        $crate::MethodTable::new(
            &[$($crate::Method::new($name, $handler)),*],
            &$crate::dispatch::index::<
                { $crate::dispatch::index_len(<[&str]>::len(&[$($name),*])) },
            >(&[$($name),*]),
        )
    };
}

/// Why a message, or a call in it, gets an error reply instead of its result.
#[derive(Copy, Clone)]
pub(crate) enum Failure<'p> {
    /// Not valid JSON (`-32700`).
    Parse,
    /// Valid JSON so far, nested deeper than the limit (`-32700`).
    TooDeep,
    /// Not a valid Request object.
    Invalid(InvalidRequest),
    /// No such method in the table.
    NotFound,
    /// The handler's own error.
    Handler(RpcError<'p>),
    /// The handler returned `Ok` with its result unfinished or misused.
    Incomplete,
    /// The reply did not fit in the room it had.
    TooLarge,
    /// The replies of a batch did not fit in the buffer.
    BatchTooLarge,
}

/// The failure of a message that is not JSON (or nests too deep).
#[inline(always)]
pub(crate) fn parse_failure<'p>(kind: ScanErrorKind) -> Failure<'p> {
    match kind {
        ScanErrorKind::TooDeep => Failure::TooDeep,
        _ => Failure::Parse,
    }
}

/// Before a call's handler runs: the start of its reply, and the writer readied for
/// its result. A notification's handler runs all the same, its writes dropped; so does
/// a call's when not even the start of its reply fits (a batch reply lost). Shared by
/// the sync and the async dispatch (`dispatch_async`).
#[inline(always)]
pub(crate) fn call_start<'p>(
    w: &mut ResultWriter<'_>,
    params: Option<RawJson<'p>>,
    id: Option<Id<'p>>,
) -> Params<'p> {
    let live = id.is_some() && w.result_prefix().is_ok();
    w.set_live(live);
    w.begin_value();
    Params::of_call(params, id)
}

/// After a call's handler ran with `outcome`: the rest of its reply (for a call), or
/// why it gets an error reply instead. Shared as [`call_start`] is.
#[inline(always)]
pub(crate) fn call_end<'p>(
    w: &mut ResultWriter<'_>,
    id: Option<Id<'_>>,
    outcome: Result<(), RpcError<'p>>,
) -> Result<(), Failure<'p>> {
    w.set_live(true);
    // An error the handler wrote itself (`ResultWriter::error`): its reply is that
    // error, whatever it returned.
    let wrote_error = w.take_error();
    let Some(id) = id else {
        return Ok(());
    };
    // A start that did not fit set the flag too.
    if w.overflowed() {
        return Err(Failure::TooLarge);
    }
    if wrote_error.is_none() {
        outcome.map_err(Failure::Handler)?;
    }
    let written = match (w.finish_value(), wrote_error) {
        (Ok(true), None) => Ok(()),
        (Ok(false), None) => w.push(b"null"),
        // The error's data, or none: then no `,"data":` either.
        (Ok(done), Some(data_at)) => {
            if !done {
                w.rollback(data_at);
            }
            w.push_byte(b'}')
        }
        (Err(_), _) => return Err(Failure::Incomplete),
    };
    written
        .and_then(|()| w.result_suffix(id))
        .map_err(|_| Failure::TooLarge)
}

/// `true` for a notification: in a batch it runs, and gets no entry.
#[inline(always)]
pub(crate) fn is_notification(call: &Call<'_>) -> bool {
    matches!(call, Call::Request(r) if r.is_notification())
}

/// Where a batch reply is: where it starts, the writer's limit before it, whether it
/// has an entry and whether it still fits. Shared by the sync and the async dispatch.
pub(crate) struct BatchState {
    start: usize,
    old_end: usize,
    any: bool,
    fits: bool,
}

impl BatchState {
    /// Starts a batch reply: room kept for the closing `]`, and the work budget set.
    #[inline(always)]
    pub(crate) fn open(w: &mut ResultWriter<'_>) -> Self {
        let start = w.mark();
        let old_end = w.set_end(w.capacity().saturating_sub(1));
        // The work budget: each rollback takes what it drops off the room left. (A
        // slice holds at most `isize::MAX` bytes: twice that is a `usize`.)
        w.set_allowance(w.capacity() * BATCH_WORK_FACTOR);
        Self {
            start,
            old_end,
            any: false,
            fits: true,
        }
    }

    /// Writes the `[` or `,` before the next entry while the reply still fits. Once
    /// the batch reply is lost (the buffer or the work budget spent), the remaining
    /// requests still run: what they write is refused for want of room, or rolled
    /// back with the batch, within the budget.
    #[inline(always)]
    pub(crate) fn separate(&self, w: &mut ResultWriter<'_>) -> bool {
        self.fits && w.push_byte(if self.any { b',' } else { b'[' }).is_ok()
    }

    /// An entry was answered (`answered`: its reply fits), after its separator.
    #[inline(always)]
    pub(crate) fn answered(&mut self, answered: bool, separated: bool) {
        self.fits = answered && separated;
        self.any = true;
    }
}

/// The output buffer cannot hold even the error reply that replaces a reply too large
/// for it. Nothing was written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OutputTooSmall;

impl fmt::Display for OutputTooSmall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("output buffer too small for an error reply")
    }
}

impl core::error::Error for OutputTooSmall {}

/// A JSON-RPC 2.0 server: a method table and the limits it applies.
///
/// ```
/// use jsonrpc_slice::{demo, Server};
///
/// static SERVER: Server<()> = Server::new(demo::TABLE);
/// let mut out = [0u8; 256];
/// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"}"#, &mut out)?;
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":7,"id":"1"}"#);
/// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
/// ```
pub struct Server<C: 'static> {
    table: MethodTable<C>,
    limits: Limits,
    /// The handler for names the table lacks.
    fallback: Option<Fallback<C>>,
}

impl<C> fmt::Debug for Server<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("table", &self.table)
            .field("limits", &self.limits)
            .finish()
    }
}

impl<C> Server<C> {
    /// A server for `table` with [`Limits::DEFAULT`].
    pub const fn new(table: MethodTable<C>) -> Self {
        Self {
            table,
            limits: Limits::DEFAULT,
            fallback: None,
        }
    }

    /// The same server with a handler for every method name the table lacks (`$/…`
    /// notifications, a proxy, names matched by a pattern): it is given the name, and
    /// answers `-32601` itself with [`RpcError::method_not_found`] for names it does
    /// not serve either. Without one, such calls get `-32601` and such notifications
    /// are dropped.
    ///
    /// ```
    /// use jsonrpc_slice::{method_table, MethodTable, Params, RawStr, ResultWriter, RpcError, Server};
    ///
    /// fn version<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ///     Ok(out.str("1.0")?)
    /// }
    /// /// Every `$/` method is accepted and ignored; other names are not found.
    /// fn dollar<'p>(_: &mut (), method: RawStr<'p>, _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ///     match method.as_raw().starts_with(b"$/") {
    ///         true => Ok(()),
    ///         false => Err(RpcError::method_not_found()),
    ///     }
    /// }
    /// static SERVER: Server<()> = Server::new(method_table! { "version" => version }).with_fallback(dollar);
    /// let mut out = [0u8; 128];
    /// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"$/ping","id":1}"#, &mut out)?;
    /// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":null,"id":1}"#);
    /// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"nope","id":2}"#, &mut out)?;
    /// assert_eq!(reply, br#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}"#);
    /// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
    /// ```
    pub const fn with_fallback(mut self, handler: Fallback<C>) -> Self {
        self.fallback = Some(handler);
        self
    }

    /// The same server with other limits.
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits in force.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The method table.
    pub const fn table(&self) -> &MethodTable<C> {
        &self.table
    }

    /// Handles one message: parses `input`, calls the handlers, and writes the reply
    /// into `output`. Returns the reply, which is empty when nothing is to be sent
    /// (a notification, or a batch of them).
    pub fn handle<'o>(
        &self,
        ctx: &mut C,
        input: &[u8],
        output: &'o mut [u8],
    ) -> Result<&'o [u8], OutputTooSmall> {
        let mut w = ResultWriter::new(output);
        let done = match envelope::parse(input, &self.limits) {
            Err(e) => self.fail(&mut w, 0, Id::NULL, parse_failure(e.kind)),
            Ok(Envelope::Single(call)) => self.answer(ctx, call, &mut w),
            Ok(Envelope::Batch(batch)) => self.batch(ctx, batch, &mut w),
        };
        match done {
            Ok(()) => Ok(w.into_written()),
            Err(_) => Err(OutputTooSmall),
        }
    }

    /// Writes the error reply for `failure` at `mark`, in place of anything written
    /// after it. The reply to a failed call that does not fit in its room (the whole
    /// buffer, or what a batch leaves it) becomes `-32603 reply larger than N bytes`
    /// with the same id. When the reply written last does not fit (that one, a parse
    /// error's, a batch overflow's), nothing is left written and `Err` is returned.
    /// The one place that writes an error reply: fewer calls to set up (flash, on a
    /// Cortex-M).
    #[inline(never)]
    pub(crate) fn fail(
        &self,
        w: &mut ResultWriter<'_>,
        mark: usize,
        id: Id<'_>,
        mut failure: Failure<'_>,
    ) -> Result<(), WriteError> {
        let room = w.limit().saturating_sub(mark);
        loop {
            w.rollback(mark);
            let (code, message, data) = self.failure_reply(failure, room);
            let written = w.error_reply(id, code, message, data);
            match failure {
                _ if written.is_ok() => return Ok(()),
                Failure::Parse | Failure::TooDeep | Failure::TooLarge | Failure::BatchTooLarge => {
                    w.rollback(mark);
                    return written;
                }
                _ => failure = Failure::TooLarge,
            }
        }
    }

    /// The error reply for `failure`: code, message and data. `room` is what the
    /// reply had (see `fail`).
    fn failure_reply<'p>(
        &self,
        failure: Failure<'p>,
        room: usize,
    ) -> (i32, Message<'p>, Option<RawJson<'p>>) {
        let (code, message) = match failure {
            Failure::Handler(e) => return (e.code, Message::plain(e.message), e.data),
            Failure::TooDeep => (
                code::PARSE_ERROR,
                Message::with(
                    "Parse error: nesting deeper than ",
                    self.limits.depth_in_force() as usize,
                    "",
                ),
            ),
            Failure::Parse => (code::PARSE_ERROR, Message::plain("Parse error")),
            Failure::NotFound => (code::METHOD_NOT_FOUND, Message::plain("Method not found")),
            Failure::Incomplete => (
                code::INTERNAL_ERROR,
                Message::plain("Internal error: the handler wrote an incomplete result"),
            ),
            Failure::TooLarge => (
                code::INTERNAL_ERROR,
                Message::with("Internal error: reply larger than ", room, " bytes"),
            ),
            Failure::BatchTooLarge => (
                code::INTERNAL_ERROR,
                Message::with("Internal error: batch reply larger than ", room, " bytes"),
            ),
            Failure::Invalid(reason) => (
                code::INVALID_REQUEST,
                match reason {
                    InvalidRequest::BatchTooLarge => Message::with(
                        "Invalid Request: batch larger than ",
                        self.limits.max_batch,
                        " elements",
                    ),
                    InvalidRequest::IdTooLong => Message::with(
                        "Invalid Request: id longer than ",
                        self.limits.max_id_len,
                        " bytes",
                    ),
                    InvalidRequest::MethodTooLong => Message::with(
                        "Invalid Request: method longer than ",
                        self.limits.max_method_len,
                        " bytes",
                    ),
                    _ => Message::plain("Invalid Request"),
                },
            ),
        };
        (code, message, None)
    }

    /// Writes the reply to one call (nothing for a notification); see `fail` for
    /// what happens when it does not fit.
    fn answer(
        &self,
        ctx: &mut C,
        call: Call<'_>,
        w: &mut ResultWriter<'_>,
    ) -> Result<(), WriteError> {
        let mark = w.mark();
        let (id, failure) = match call {
            Call::Invalid { id, reason } => (id, Failure::Invalid(reason)),
            Call::Request(req) => match (self.target(req.method), req.id) {
                (None, None) => return Ok(()),
                (None, Some(id)) => (id, Failure::NotFound),
                (Some(target), id) => match self.call(ctx, target, req.method, req.params, id, w) {
                    Ok(()) => return Ok(()),
                    // Only a call fails: a notification's outcome is dropped.
                    Err(failure) => (id.unwrap_or(Id::NULL), failure),
                },
            },
        };
        self.fail(w, mark, id, failure)
    }

    /// Runs a handler for a request and, for a call, writes its result and the rest
    /// of the reply, or says why the call gets an error reply instead.
    /// What runs a call of `method`.
    fn target(&self, method: RawStr<'_>) -> Option<Target<C>> {
        match self.table.find(method) {
            Some(handler) => Some(Target::Method(handler)),
            None => self.fallback.map(Target::Fallback),
        }
    }

    fn call<'p>(
        &self,
        ctx: &mut C,
        target: Target<C>,
        method: RawStr<'p>,
        params: Option<RawJson<'p>>,
        id: Option<Id<'p>>,
        w: &mut ResultWriter<'_>,
    ) -> Result<(), Failure<'p>> {
        let params = call_start(w, params, id);
        let outcome = match target {
            Target::Method(handler) => handler(ctx, params, w),
            Target::Fallback(fallback) => fallback(ctx, method, params, w),
        };
        call_end(w, id, outcome)
    }

    /// Streams the replies of a batch, in request order, into one array (or nothing).
    // Out of line in the fast build, so that its state is off the stack while a single
    // message is parsed; inlined in the compact one, where that measured smaller in
    // flash and in stack (the firmware's peak went from 700 to 672 bytes).
    #[cfg_attr(jsonrpc_slice_fast, inline(never))]
    fn batch(
        &self,
        ctx: &mut C,
        batch: Batch<'_>,
        w: &mut ResultWriter<'_>,
    ) -> Result<(), WriteError> {
        let mut state = BatchState::open(w);
        for call in batch {
            if is_notification(&call) {
                // Runs its handler, writes nothing: no entry, no separator.
                let _ = self.answer(ctx, call, w);
                continue;
            }
            let separated = state.separate(w);
            let answered = self.answer(ctx, call, w).is_ok();
            state.answered(answered, separated);
        }
        self.batch_close(w, state)
    }

    /// Ends a batch reply: its `]`, nothing (a batch of notifications), or, when it was
    /// lost, the one error that replaces it. Shared by the sync and the async dispatch.
    #[inline(always)]
    pub(crate) fn batch_close(
        &self,
        w: &mut ResultWriter<'_>,
        state: BatchState,
    ) -> Result<(), WriteError> {
        w.set_allowance(usize::MAX);
        w.set_end(state.old_end);
        if !state.fits {
            return self.fail(w, state.start, Id::NULL, Failure::BatchTooLarge);
        }
        if !state.any {
            return Ok(());
        }
        w.push_byte(b']')
    }
}

#[cfg(test)]
mod tests {
    use std::boxed::Box;
    use std::vec::Vec;

    use super::*;

    fn none<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
        Ok(())
    }

    /// Names of every length from 0 to 40 (all of a word, none, and the lengths around
    /// each word boundary), of every byte value.
    fn samples() -> impl Iterator<Item = Vec<u8>> {
        (0..=40usize).flat_map(|len| {
            (0..4u8).map(move |seed| {
                (0..len)
                    .map(|i| {
                        (i as u8)
                            .wrapping_mul(31)
                            .wrapping_add(seed.wrapping_mul(97))
                    })
                    .collect()
            })
        })
    }

    #[test]
    fn stream_hash_is_name_hash() {
        for name in samples() {
            assert_eq!(
                stream_hash(name.iter().copied()),
                name_hash(&name),
                "{name:?}"
            );
        }
    }

    #[test]
    fn same_name_compares_every_byte() {
        for name in samples() {
            assert!(same_name(&name, &name.clone()));
            for i in 0..name.len() {
                let mut other = name.clone();
                other[i] ^= 0x80;
                assert!(!same_name(&name, &other), "{name:?} byte {i}");
                assert!(!same_name(&other, &name), "{name:?} byte {i}");
            }
            let mut longer = name.clone();
            longer.push(0);
            assert!(!same_name(&name, &longer));
        }
    }

    #[test]
    fn the_hash_reads_every_byte_and_the_length() {
        for name in samples() {
            let h = name_hash(&name);
            for i in 0..name.len() {
                let mut other = name.clone();
                other[i] ^= 1;
                assert_ne!(name_hash(&other), h, "{name:?} byte {i}");
            }
            let mut longer = name.clone();
            longer.push(0);
            assert_ne!(name_hash(&longer), h, "{name:?} and a zero");
        }
    }

    /// A table of the demo names, a name with a backslash, one long name and names that
    /// differ only in their middle; `(name sent, raw JSON string inside)` pairs.
    static TABLE: MethodTable<()> = crate::method_table! {
        "subtract" => none, "sum" => none, "get_data" => none, "a\\b" => none,
        "" => none, "é" => none, "textDocument/semanticTokens/full/delta" => none,
        "sensor.channel1.read" => none, "sensor.channel2.read" => none,
    };

    /// A table small enough to be scanned in the fast build too.
    static SMALL: MethodTable<()> = crate::method_table! {
        "subtract" => none, "sum" => none, "" => none, "textDocument/semanticTokens/full/delta" => none,
    };

    fn raw(inside: &'static str) -> RawStr<'static> {
        RawStr::trusted(inside.as_bytes())
    }

    /// What the compact build does (`scan`), the hashed lookup of the fast build, and
    /// its scan of small tables (`scan_bytes`) find the same row for every name, sent
    /// plain or with escapes, and refuse the same names.
    #[test]
    fn scan_agrees() {
        let sent = [
            "subtract",
            "su\\u0062tract",
            "\\u0073um",
            "sum",
            "get_data",
            "a\\\\b",
            "a\\b",
            "",
            "\\u00e9",
            "é",
            "textDocument/semanticTokens/full/delta",
            "textDocument\\/semanticTokens\\/full\\/delta",
            "sensor.channel1.read",
            "sensor.channel2.read",
            "sensor.channel3.read",
            "sensor.channel2.rea\\u0064",
            "subtrac",
            "subtractt",
            "Sum",
            "rpc.x",
            "\\u0000",
            "sum\\u0000",
        ];
        assert!(SMALL.methods().len() <= SCANNED && crate::demo::TABLE.methods().len() > SCANNED);
        for table in [&TABLE, &crate::demo::TABLE, &SMALL] {
            for name in sent {
                let scanned = table.scan(raw(name)).map(|(row, _)| row);
                let mut hashed = None;
                if !table.backslash {
                    hashed = table.probe(name_hash(name.as_bytes()), |n| {
                        same_name(n.as_bytes(), name.as_bytes())
                    });
                    let scanned = table.scan_bytes(name.as_bytes()).map(|(row, _)| row);
                    assert_eq!(scanned, hashed.map(|(row, _)| row), "{name}");
                }
                if hashed.is_none() {
                    hashed = table.lookup_rest(raw(name));
                }
                assert_eq!(scanned, hashed.map(|(row, _)| row), "{name}");
                assert_eq!(table.position(raw(name)), scanned, "{name}");
                assert_eq!(table.find(raw(name)).is_some(), scanned.is_some(), "{name}");
            }
            for (row, m) in table.methods().iter().enumerate() {
                // Every table name but the one with a backslash is its own JSON string.
                if !m.name().contains('\\') {
                    let name = raw(m.name());
                    assert_eq!(table.position(name), Some(row), "{}", m.name());
                    let decoded = table.lookup_decoded(name).map(|(row, _)| row);
                    assert_eq!(decoded, Some(row), "{}", m.name());
                }
            }
        }
        assert_eq!(TABLE.position(raw("a\\\\b")), Some(3));
        assert_eq!(TABLE.position(raw("a\\b")), None);
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let empty: MethodTable<()> = MethodTable::new(&[], &[0]);
        for name in ["", "a", "\\u0061", "a_longer_name_than_a_word"] {
            assert_eq!(empty.position(raw(name)), None);
            assert!(empty.lookup_decoded(raw(name)).is_none());
        }
    }

    #[test]
    #[should_panic(expected = "the index does not match")]
    fn an_index_of_other_names_is_refused() {
        static ROWS: [Method<()>; 2] = [Method::new("a", none), Method::new("b", none)];
        let _ = MethodTable::new(&ROWS, Box::leak(Box::new(index::<4>(&["a", "c"]))));
    }

    #[test]
    #[should_panic(expected = "appears twice")]
    fn a_name_twice_is_refused() {
        let _ = index::<8>(&["a", "b", "a"]);
    }
}
