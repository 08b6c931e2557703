//! The method table: its rows, and the lookup of a name in them (through the hash
//! index of `index.rs` on the fast build, row by row on the compact one).

use core::fmt;

use super::index::{
    check_shape, name_hash, reserved, same_bytes, same_name, shift_for, stream_hash, tag, WORD,
};
use crate::error::RpcError;
use crate::params::Params;
use crate::raw::RawStr;
use crate::write::ResultWriter;

/// A method handler: gets the context, the params, and a writer for its result.
///
/// It writes one JSON value as its result (or nothing, for `null`) and returns `Ok`,
/// or returns an [`RpcError`], whose `data` and `message` may borrow from the params.
/// For a notification the same handler runs with a writer that drops its result.
///
/// # The signature
///
/// Write a handler as a plain `fn` with the lifetime of the params named, `'p`, in both
/// places it appears:
///
/// ```
/// use jsonrpc_slice::{Params, ResultWriter, RpcError};
///
/// fn add<'p>(_: &mut (), params: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     let mut values = params.positional();
///     let a = values.next().and_then(|v| v.as_i64());
///     let b = values.next().and_then(|v| v.as_i64());
///     match (a, b) {
///         (Some(a), Some(b)) => Ok(out.i64(a.wrapping_add(b))?),
///         _ => Err(RpcError::invalid_params()),
///     }
/// }
/// # let _: jsonrpc_slice::Handler<()> = add;
/// ```
///
/// The params' lifetime is the only one the error may borrow from. Written
/// `RpcError<'_>` without naming it, rustc asks for a lifetime specifier (E0106), and
/// its suggestion, one lifetime `'a` on every argument, then fails at the
/// `method_table!` line with *one type is more general than the other*: the table
/// stores a function that takes a context, params and a writer of any lifetimes each.
/// Name `'p` on the params and the error only, as above (`RpcError<'static>` is fine
/// too). A closure that captures nothing coerces; the context `C` is where a
/// handler's state goes.
pub type Handler<C> =
    for<'p> fn(&mut C, Params<'p>, &mut ResultWriter<'_>) -> Result<(), RpcError<'p>>;

/// The handler for method names a table lacks (see [`Server::with_fallback`](super::Server::with_fallback)): a
/// [`Handler`] that is given the name it was called with, escapes as sent.
pub type Fallback<C> =
    for<'p> fn(&mut C, RawStr<'p>, Params<'p>, &mut ResultWriter<'_>) -> Result<(), RpcError<'p>>;

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

    /// The method's handler.
    pub const fn handler(&self) -> Handler<C> {
        self.handler
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
/// hash, so a name is compared only with rows whose tag it shares); `benches/table.sh`
/// counts it. A table of at most four methods is scanned instead, which costs less. The
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

/// The most rows a lookup in the fast build compares one after the other instead of
/// hashing the name: fewer instructions for a table that small.
const SCANNED: usize = 4;

impl<C> MethodTable<C> {
    /// A table of `methods` with the hash `index` of their names, as `dispatch::index`
    /// makes it: what [`method_table!`](crate::method_table) writes for you, and should
    /// (the index is checked against the names at compile time there).
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
        if !cfg!(jsonrpc_slice_fast) {
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
        self.probe(stream_hash(name.bytes()), |n| name.eq_decoded(n.as_bytes()))
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
            .find(|(_, m)| name.eq_decoded(m.name.as_bytes()))
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
/// belongs. The rows stay in the order given; the index has a power of two of slots,
/// more than twice the rows.
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

#[cfg(test)]
mod tests {
    use std::boxed::Box;

    use super::super::index::index;
    use super::*;

    fn none<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
        Ok(())
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
