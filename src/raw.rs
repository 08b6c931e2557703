//! Raw JSON views: [`RawJson`] (one checked JSON value) and [`RawStr`] (the inside of a
//! JSON string, escapes as sent).
//!
//! # Contract
//!
//! A `RawJson` always holds exactly one complete, valid JSON value with no whitespace
//! around it: the only ways to make one are [`RawJson::new`], which scans the bytes
//! first, and the envelope parser, which has scanned the whole message. Its accessors
//! walk the value lazily, iteratively and without allocation; they never panic, even
//! on input they did not expect (they answer `None` or end the iteration instead).
//!
//! # One pass, or from the start
//!
//! An iterator ([`RawJson::members`], [`RawJson::elements`]) passes each item once, so
//! reading every member through it is one pass. [`RawJson::get`] and [`RawJson::nth`]
//! walk from the container's start each time, skipping each value before the one asked
//! for: `N` of them on one container pass its first members `N` times. A chain of them
//! (`v.get("a")?.get("b")`) passes the inner bytes once per level, since each value is
//! skipped to its end before the next call walks it again. [`RawJson::at`] follows a
//! whole path ([`Step`]s) in one walk: each byte at most once.

use core::fmt;

use crate::scan::{self, ScanError};

mod path;
// The fast build's decoder of strings, a block at a time; the compact build's is the
// byte loop of `RawStr::bytes` (flash).
#[cfg(jsonrpc_slice_fast)]
mod unescape;

pub use path::Step;

/// The kind of a JSON value, read from its first byte.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `{...}`
    Object,
    /// `[...]`
    Array,
    /// `"..."`
    String,
    /// `-1.5e3` and the like.
    Number,
    /// `true` or `false`.
    Bool,
    /// `null`.
    Null,
}

impl Kind {
    /// The kind of the value whose first byte is `first` (a number when there is none:
    /// no other kind starts with anything else).
    #[inline(always)]
    pub(crate) fn of_first(first: Option<&u8>) -> Kind {
        match first {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }
}

/// One valid JSON value, borrowed from the input, exactly as received.
///
/// ```
/// use jsonrpc_slice::{Kind, RawJson};
///
/// let v = RawJson::new(br#"{"name": "myself", "tags": [1, 2, 3]}"#)?;
/// assert_eq!(v.kind(), Kind::Object);
/// assert_eq!(v.get("name").and_then(|n| n.as_str()).map(|s| s.as_raw()), Some(&b"myself"[..]));
/// assert_eq!(v.get("tags").and_then(|t| t.nth(2)).and_then(|n| n.as_i64()), Some(3));
/// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct RawJson<'a> {
    bytes: &'a [u8],
}

impl<'a> RawJson<'a> {
    /// `null`.
    pub const NULL: RawJson<'static> = RawJson { bytes: b"null" };

    /// Checks that `bytes` is one JSON value (surrounding whitespace is trimmed off) with
    /// at most [`scan::DEFAULT_MAX_DEPTH`] levels of nesting.
    pub fn new(bytes: &'a [u8]) -> Result<Self, ScanError> {
        let (start, end) = scan::text(bytes, scan::DEFAULT_MAX_DEPTH)?;
        Ok(Self::trusted(bytes.get(start..end).unwrap_or(b"null")))
    }

    /// Wraps bytes the caller has already scanned as one value.
    #[inline]
    pub(crate) const fn trusted(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// The value's bytes, exactly as received.
    #[inline]
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// What kind of value this is.
    // Always inlined: most callers test for one kind, which then costs a compare or
    // two instead of a call and a match (flash, on a Cortex-M).
    #[inline(always)]
    pub fn kind(&self) -> Kind {
        Kind::of_first(self.bytes.first())
    }

    /// `true` for `null`.
    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    /// The boolean, if this is `true` or `false`.
    pub fn as_bool(&self) -> Option<bool> {
        match self.bytes {
            b"true" => Some(true),
            b"false" => Some(false),
            _ => None,
        }
    }

    /// The string, if this is one (escapes still as sent; see [`RawStr`]).
    // Out of line in the compact build: one copy for its callers (flash).
    #[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
    pub fn as_str(&self) -> Option<RawStr<'a>> {
        match self.bytes {
            [b'"', inner @ .., b'"'] => Some(RawStr::trusted(inner)),
            _ => None,
        }
    }

    /// The number as an `i64`, if it is an integer lexeme (no fraction, no exponent)
    /// that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match integer_at(self.bytes, 0) {
            Some((value, end)) if end == self.bytes.len() => value,
            _ => None,
        }
    }

    /// The number as a `u64`, if it is a non-negative integer lexeme that fits.
    pub fn as_u64(&self) -> Option<u64> {
        let (magnitude, end) = magnitude_at(self.bytes, 0);
        // Exact up to 19 digits (10^19 - 1 < 2^64). Twenty (no leading zeros in JSON)
        // are at least 10^19: from 2 * 10^19 they never fit; below it, one that fits is
        // at least 10^19 > 2^63 (its top bit set), and one that wrapped is under
        // 2 * 10^19 - 2^64 < 2^63. More never fit.
        let fits = match end {
            1..=19 => true,
            20 => self.bytes.first() == Some(&b'1') && magnitude >> 63 == 1,
            _ => false,
        };
        (fits && end == self.bytes.len()).then_some(magnitude)
    }

    /// The number as the nearest `f64`, if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        if self.kind() != Kind::Number {
            return None;
        }
        core::str::from_utf8(self.bytes).ok()?.parse().ok()
    }

    /// The elements, if this is an array (an empty iterator otherwise).
    pub fn elements(&self) -> Elements<'a> {
        Elements {
            cursor: Cursor::open(self.bytes, b'['),
        }
    }

    /// The members as `(key, value)` pairs, if this is an object (an empty iterator
    /// otherwise). Duplicate keys are all yielded, in order.
    pub fn members(&self) -> Members<'a> {
        Members {
            cursor: Cursor::open(self.bytes, b'{'),
        }
    }

    /// The element at `index`, if this is an array that long.
    pub fn nth(&self, index: usize) -> Option<RawJson<'a>> {
        self.elements().nth(index)
    }

    /// The value of the first member whose key equals `key` (escapes decoded), if this
    /// is an object.
    pub fn get(&self, key: &str) -> Option<RawJson<'a>> {
        self.members()
            .find(|(k, _)| k.eq_str(key))
            .map(|(_, value)| value)
    }
}

impl fmt::Debug for RawJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self)
    }
}

impl fmt::Display for RawJson<'_> {
    /// Writes the value as received. (It is valid UTF-8 by construction.)
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match core::str::from_utf8(self.bytes) {
            Ok(s) => f.write_str(s),
            Err(_) => f.write_str("<invalid>"),
        }
    }
}

/// A walk over the inside of one container, trusting that it was scanned.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    b: &'a [u8],
    /// Offset of the next item, or `b.len()` when done (the compact build's batch
    /// reader keeps it between elements).
    pub(crate) i: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor whose next item starts at `i` (`b.len()`: none).
    pub(crate) fn at(b: &'a [u8], i: usize) -> Self {
        Cursor { b, i }
    }

    fn open(b: &'a [u8], opener: u8) -> Self {
        let mut c = Cursor { b, i: b.len() };
        if b.first() == Some(&opener) {
            let i = c.ws(1);
            if !matches!(b.get(i), Some(b']' | b'}') | None) {
                c.i = i;
            }
        }
        c
    }

    fn ws(&self, i: usize) -> usize {
        scan::skip_ws(self.b, i)
    }

    /// Takes the value at the cursor, then steps past the separator after it.
    // Out of line in the compact build: flash.
    #[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
    pub(crate) fn take_value(&mut self) -> Option<RawJson<'a>> {
        self.take(b',')
    }

    /// Takes the value at the cursor as an `i64` (`Err`: the value, when it is not an
    /// integer that fits), reading an integer's digits once.
    #[inline(always)]
    fn take_i64(&mut self) -> Option<Result<i64, RawJson<'a>>> {
        let (b, start) = (self.b, self.i);
        let Some((value, end)) =
            integer_at(b, start).filter(|&(_, end)| !scan::fraction_or_exponent_at(b, end))
        else {
            let (taken, next) = take_other_as_i64(b, start);
            self.i = next;
            return taken;
        };
        self.i = scan::next_item(b, end, b',');
        match value {
            Some(v) => Some(Ok(v)),
            None => Some(Err(RawJson::trusted(b.get(start..end)?))),
        }
    }

    /// Takes a `"key":` at the cursor.
    // Inlined into its callers in the compact build (flash: 20 bytes less on a
    // Cortex-M than its own copy).
    #[cfg_attr(not(jsonrpc_slice_fast), inline(always))]
    fn take_key(&mut self) -> Option<RawStr<'a>> {
        let key = self.take(b':')?.as_str();
        if key.is_none() {
            self.i = self.b.len();
        }
        key
    }

    /// Takes the value at the cursor, then steps past `sep` after it (`,` after a
    /// value, `:` after a key); anything else there ends the walk.
    fn take(&mut self, sep: u8) -> Option<RawJson<'a>> {
        let start = self.i;
        let (end, next) = skip_item(self.b, start, sep);
        let value = self.b.get(start..end)?;
        self.i = next;
        if value.is_empty() {
            self.i = self.b.len();
            return None;
        }
        Some(RawJson::trusted(value))
    }
}

/// The offset just past the value starting at `i` in already-scanned JSON, by the
/// trusted skip (`scan::skip_trusted`: the validator's own rules, no second walker).
/// Iterative. On bytes that are not valid JSON it still ends (at or before `b.len()`)
/// without panicking.
#[inline]
pub(crate) fn skip_trusted(b: &[u8], i: usize) -> usize {
    let end = if i >= b.len() {
        b.len()
    } else {
        scan::skip_trusted(b, i)
    };
    #[cfg(test)]
    SKIPPED.with(|n| n.set(n.get() + end.saturating_sub(i)));
    end
}

#[cfg(test)]
std::thread_local! {
    /// The bytes [`skip_trusted`] passed over on this thread: the unit tests count
    /// how often a walk passes each byte.
    pub(crate) static SKIPPED: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// [`skip_trusted`] of the value at `i`, and where the next item starts after it
/// ([`scan::after_separator`]).
#[inline(always)]
fn skip_item(b: &[u8], i: usize, sep: u8) -> (usize, usize) {
    let end = skip_trusted(b, i);
    (end, scan::after_separator(b, end, sep))
}

/// [`Cursor::take_i64`] of anything but an integer lexeme, at `i` in `b`: what it
/// takes, and where the cursor goes on. Out of line, and given the cursor's fields by
/// value, so that the usual path keeps the cursor in registers.
#[inline(never)]
fn take_other_as_i64(b: &[u8], i: usize) -> (Option<Result<i64, RawJson<'_>>>, usize) {
    let mut cursor = Cursor::at(b, i);
    let taken = cursor.take_value().map(|v| v.as_i64().ok_or(v));
    (taken, cursor.i)
}

/// The integer at `i` (`-`, if there is one, then digits): its value if it fits an
/// `i64`, and the offset after its digits; `None` when no digit is there. An integer
/// lexeme if no fraction or exponent follows, which its callers check:
/// [`RawJson::as_i64`] (the digits end the value) and [`Elements::next_i64`], which
/// reads an element's value as it passes over it.
#[inline(always)]
fn integer_at(b: &[u8], i: usize) -> Option<(Option<i64>, usize)> {
    let negative = scan::byte_at(b, i) == b'-';
    let first = i + usize::from(negative);
    // Exact up to 19 digits (10^19 - 1 < 2^64); JSON has no leading zeros, so a
    // lexeme of 20 digits or more never fits an `i64`.
    let (magnitude, end) = magnitude_at(b, first);
    if end == first {
        return None;
    }
    let value = if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    };
    Some((value.filter(|_| end - first <= 19), end))
}

/// The digits from `i` as a number (wrapping past `u64::MAX`), and the offset after
/// them: the one loop that gives digits a value ([`integer_at`], [`RawJson::as_u64`]).
#[inline(always)]
fn magnitude_at(b: &[u8], i: usize) -> (u64, usize) {
    let (mut magnitude, mut end) = (0u64, i);
    while let d @ 0..=9 = scan::byte_at(b, end).wrapping_sub(b'0') {
        magnitude = magnitude.wrapping_mul(10).wrapping_add(u64::from(d));
        end += 1;
    }
    (magnitude, end)
}

/// The elements of a JSON array, in order. See [`RawJson::elements`].
#[derive(Clone)]
pub struct Elements<'a> {
    cursor: Cursor<'a>,
}

impl<'a> Iterator for Elements<'a> {
    type Item = RawJson<'a>;

    fn next(&mut self) -> Option<RawJson<'a>> {
        // At the end, `take_value` finds nothing and says so.
        self.cursor.take_value()
    }
}

impl<'a> Elements<'a> {
    /// The next element as an `i64`, read in one step (its digits are read as it is
    /// passed over, not again after): `None` when no element is left, `Some(Err(v))`
    /// with the element when it is not an integer that fits, which is passed over too.
    /// The same as `next().map(|v| v.as_i64().ok_or(v))`.
    ///
    /// ```
    /// use jsonrpc_slice::RawJson;
    ///
    /// let mut params = RawJson::new(b"[42, 23, 1.5]")?.elements();
    /// assert_eq!((params.next_i64(), params.next_i64()), (Some(Ok(42)), Some(Ok(23))));
    /// assert_eq!(params.next_i64().unwrap().unwrap_err().as_bytes(), b"1.5");
    /// assert_eq!(params.next_i64(), None);
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    #[inline]
    pub fn next_i64(&mut self) -> Option<Result<i64, RawJson<'a>>> {
        self.cursor.take_i64()
    }
}

/// The members of a JSON object, in order. See [`RawJson::members`].
#[derive(Clone)]
pub struct Members<'a> {
    cursor: Cursor<'a>,
}

impl<'a> Iterator for Members<'a> {
    type Item = (RawStr<'a>, RawJson<'a>);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        // At the end, `take_key` finds nothing and says so.
        let key = self.cursor.take_key()?;
        let value = self.cursor.take_value()?;
        Some((key, value))
    }
}

/// The inside of a JSON string (without the quotes), with its escapes as sent.
///
/// Compare it with [`RawStr::eq_str`] (escapes decoded on the fly, no copy), read it
/// with [`RawStr::as_plain_str`] when it holds no escape, or decode it into a buffer of
/// yours with [`RawStr::unescape_into`].
///
/// ```
/// use jsonrpc_slice::RawJson;
///
/// let v = RawJson::new(br#""su\u006d""#)?;
/// let s = v.as_str().unwrap();
/// assert_eq!(s.as_raw(), br"su\u006d");
/// assert!(s.eq_str("sum"));
/// let mut scratch = [0u8; 8];
/// assert_eq!(s.unescape_into(&mut scratch), Some("sum"));
/// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct RawStr<'a> {
    raw: &'a [u8],
}

impl<'a> RawStr<'a> {
    #[inline]
    pub(crate) const fn trusted(raw: &'a [u8]) -> Self {
        Self { raw }
    }

    /// The bytes between the quotes, escapes as sent.
    #[inline]
    pub const fn as_raw(&self) -> &'a [u8] {
        self.raw
    }

    /// `true` if the string holds a backslash escape.
    pub fn has_escapes(&self) -> bool {
        if cfg!(jsonrpc_slice_fast) {
            self.raw.contains(&b'\\')
        } else {
            // A loop, not `contains`: `contains` calls `memchr`, 132 bytes of flash
            // the compact build does without.
            #[allow(clippy::manual_contains)]
            self.raw.iter().any(|&c| c == b'\\')
        }
    }

    /// The string itself, if it holds no escape (then it is exactly the raw bytes).
    pub fn as_plain_str(&self) -> Option<&'a str> {
        if self.has_escapes() {
            return None;
        }
        core::str::from_utf8(self.raw).ok()
    }

    /// The decoded string as UTF-8 bytes, one at a time, without a copy.
    pub fn bytes(&self) -> Unescaped<'a> {
        Unescaped {
            raw: self.raw,
            i: 0,
            code: 0,
            len: 0,
            at: 0,
        }
    }

    /// `true` if the decoded string equals `s`.
    pub fn eq_str(&self, s: &str) -> bool {
        self.eq_bytes(s.as_bytes())
    }

    /// `true` if the decoded string's UTF-8 bytes equal `bytes`: escapes decoded as
    /// they are compared, without a copy (a value sent twice, escaped in a JSON body
    /// and as bytes elsewhere, say an HTTP header, compared as the same text).
    ///
    /// ```
    /// use jsonrpc_slice::RawJson;
    ///
    /// let name = RawJson::new(br#""caf\u00e9 \"x\"""#)?.as_str().unwrap();
    /// assert!(name.eq_bytes("café \"x\"".as_bytes()));
    /// // The escapes as sent are not the text.
    /// assert!(!name.eq_bytes(br#"caf\u00e9 \"x\""#));
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn eq_bytes(&self, bytes: &[u8]) -> bool {
        if !cfg!(jsonrpc_slice_fast) {
            return self.eq_decoded(bytes);
        }
        if !self.has_escapes() {
            return self.raw == bytes;
        }
        self.bytes().eq(bytes.iter().copied())
    }

    /// [`eq_bytes`](Self::eq_bytes) in the compact build: decoded always, in one
    /// out-of-line loop, and no `memcmp` to link.
    #[inline(never)]
    pub(crate) fn eq_decoded(&self, bytes: &[u8]) -> bool {
        // An escape decodes to fewer bytes than it takes: never longer than sent.
        if self.raw.len() < bytes.len() {
            return false;
        }
        self.bytes().eq(bytes.iter().copied())
    }

    /// Decodes the string into `buf` and returns it, or `None` if `buf` is too small.
    /// Bytes of `buf` past the decoded string may be written.
    pub fn unescape_into<'b>(&self, buf: &'b mut [u8]) -> Option<&'b str> {
        #[cfg(jsonrpc_slice_fast)]
        return unescape::unescape_into(self.raw, buf);
        #[cfg(not(jsonrpc_slice_fast))]
        return self.unescape_bytes_into(buf);
    }

    /// [`unescape_into`](Self::unescape_into) a byte at a time, from [`bytes`](Self::bytes):
    /// the compact build's, and the fast build's oracle in the unit tests.
    #[cfg_attr(all(jsonrpc_slice_fast, not(test)), allow(dead_code))]
    fn unescape_bytes_into<'b>(&self, buf: &'b mut [u8]) -> Option<&'b str> {
        let mut n = 0;
        for byte in self.bytes() {
            *buf.get_mut(n)? = byte;
            n += 1;
        }
        core::str::from_utf8(buf.get(..n)?).ok()
    }
}

/// The decoded string (escapes decoded), for messages and logs:
/// `format_args!("no tool {name}")`.
///
/// ```
/// use jsonrpc_slice::RawJson;
///
/// let name = RawJson::new(br#""t\u00e9\"st""#)?.as_str().unwrap();
/// assert_eq!(format!("{name}"), "té\"st");
/// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
/// ```
impl fmt::Display for RawStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(plain) = self.as_plain_str() {
            return f.write_str(plain);
        }
        // One character at a time from the decoded UTF-8 bytes.
        let mut char_buf = [0u8; 4];
        let mut have = 0;
        for b in self.bytes() {
            if let Some(slot) = char_buf.get_mut(have) {
                *slot = b;
                have += 1;
            }
            let first = char_buf.first().copied().unwrap_or(0);
            let width = match first {
                0..=0x7F => 1,
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            if have >= width {
                let s =
                    core::str::from_utf8(char_buf.get(..have).unwrap_or(&[])).unwrap_or("\u{fffd}");
                f.write_str(s)?;
                have = 0;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for RawStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RawStr(\"")?;
        for &b in self.raw {
            if b.is_ascii() {
                fmt::Write::write_char(f, b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        f.write_str("\")")
    }
}

/// How many bytes UTF-8 takes for `code`.
#[inline]
fn utf8_len(code: u32) -> usize {
    match code {
        0..=0x7F => 1,
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        _ => 4,
    }
}

/// Byte `k` of the `len`-byte UTF-8 form of `code`. (By hand: `char::encode_utf8`
/// brings a length check and its panic.)
#[inline]
fn utf8_byte(code: u32, len: usize, k: usize) -> u8 {
    const LEAD: [u8; 5] = [0, 0, 0xC0, 0xE0, 0xF0];
    let bits = (code >> (6 * (len - 1 - k))) as u8;
    if k == 0 {
        LEAD.get(len).copied().unwrap_or(0) | bits
    } else {
        0x80 | (bits & 0x3F)
    }
}

/// The decoded bytes of a [`RawStr`]. See [`RawStr::bytes`].
#[derive(Clone)]
pub struct Unescaped<'a> {
    raw: &'a [u8],
    i: usize,
    /// The code point of the last escape, the length of its UTF-8 form, and how many
    /// bytes of that form are out.
    code: u32,
    len: usize,
    at: usize,
}

impl Iterator for Unescaped<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        if self.at >= self.len {
            let c = *self.raw.get(self.i)?;
            if c != b'\\' {
                self.i += 1;
                return Some(c);
            }
            // A `RawStr` is valid JSON: a broken escape is not possible, and ends it.
            let Ok((code, end)) = scan::escape_at(self.raw, self.i) else {
                self.i = self.raw.len();
                return None;
            };
            self.i = end;
            self.code = code;
            self.len = utf8_len(code);
            self.at = 0;
        }
        // The escape's UTF-8 form, a byte at a time (one copy of the code, flash).
        self.at += 1;
        Some(utf8_byte(self.code, self.len, self.at - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_containers_lazily() {
        let v =
            RawJson::new(br#" { "a" : [1, {"x": "]}"}, [ ] ] , "b\u0022" : -2.5e1, "c":null } "#)
                .unwrap();
        let a = v.get("a").unwrap();
        assert_eq!(a.as_bytes(), br#"[1, {"x": "]}"}, [ ] ]"#);
        assert_eq!(a.elements().count(), 3);
        assert_eq!(a.nth(1).unwrap().get("x").unwrap().as_bytes(), br#""]}""#);
        assert_eq!(a.nth(2).unwrap().elements().count(), 0);
        assert_eq!(v.get("b\"").unwrap().as_f64(), Some(-25.0));
        assert!(v.get("c").unwrap().is_null());
        assert_eq!(v.members().count(), 3);
        assert!(v.get("d").is_none());
        assert!(a.get("a").is_none());
        assert!(v.nth(0).is_none());
    }

    #[test]
    fn integers() {
        fn n(s: &[u8]) -> RawJson<'_> {
            RawJson::new(s).unwrap()
        }
        assert_eq!(n(b"-9223372036854775808").as_i64(), Some(i64::MIN));
        assert_eq!(n(b"9223372036854775807").as_i64(), Some(i64::MAX));
        assert_eq!(n(b"9223372036854775808").as_i64(), None);
        assert_eq!(n(b"18446744073709551615").as_u64(), Some(u64::MAX));
        assert_eq!(n(b"1.0").as_i64(), None);
        assert_eq!(n(b"-1").as_u64(), None);
        assert_eq!(n(b"1e3").as_u64(), None);
        assert_eq!(n(b"-0").as_i64(), Some(0));
    }

    /// `as_i64` and `as_u64` give what `str::parse` gives, on integers of every length
    /// up to 22 digits around each power of ten and each type's limits, both signs.
    #[test]
    fn integers_agree_with_core_parse() {
        use std::string::ToString;
        let mut texts = std::vec::Vec::new();
        let mut p: u128 = 1;
        for _ in 0..23 {
            for v in [p.saturating_sub(1), p, p + 1, p * 9 / 7] {
                texts.push(v.to_string());
            }
            p *= 10;
        }
        for limit in [i64::MAX as u128, 1 << 63, u64::MAX as u128] {
            for v in [limit - 1, limit, limit + 1] {
                texts.push(v.to_string());
            }
        }
        let mut checked = 0;
        for t in &texts {
            for text in [t.clone(), std::format!("-{t}")] {
                let Ok(raw) = RawJson::new(text.as_bytes()) else {
                    continue;
                };
                assert_eq!(raw.as_i64(), text.parse::<i64>().ok(), "{text}");
                assert_eq!(raw.as_u64(), text.parse::<u64>().ok(), "{text}");
                // The element read alone, first and last in an array.
                let want = text.parse::<i64>().ok();
                let read = |array: std::string::String, at: usize| {
                    let mut elements = RawJson::new(array.as_bytes()).unwrap().elements();
                    let got: std::vec::Vec<_> = (0..3).map(|_| elements.next_i64()).collect();
                    let other = if at == 0 { got.get(1) } else { got.first() };
                    if array.contains(',') {
                        assert_eq!(other, Some(&Some(Ok(0))), "{array}");
                    }
                    assert_eq!(got[at].map(|v| v.ok()), Some(want), "{array}");
                    assert_eq!(got[2], None, "{array}");
                };
                read(std::format!("[{text}]"), 0);
                read(std::format!("[ {text} , 0]"), 0);
                read(std::format!("[0,{text}]"), 1);
                checked += 1;
            }
        }
        assert!(checked > 150, "{checked}");
    }

    /// `Elements::next_i64` is `next()` with `as_i64`: the same answer and the same
    /// walk after it, on every kind of element, with whitespace or none around the
    /// commas, read by either in any order.
    #[test]
    fn next_i64_is_next_with_as_i64() {
        let elements = [
            "0",
            "-0",
            "7",
            "-12",
            "1.5",
            "-2e3",
            "1E2",
            "12345678901234567890",
            "\"3\"",
            "[1,2]",
            "{\"a\":1}",
            "true",
            "null",
            "[]",
            "-9223372036854775808",
        ];
        let separators = [",", " ,", ", ", " \n, \t"];
        let mut arrays = 0;
        for k in 0..separators.len() {
            for first in 0..elements.len() {
                // Every element once, starting at `first`, with a separator that
                // changes along the array.
                let mut text = std::string::String::from("[");
                for j in 0..elements.len() {
                    if j > 0 {
                        text += separators[(k + j) % separators.len()];
                    }
                    text += elements[(first + j) % elements.len()];
                }
                text += if k % 2 == 0 { "]" } else { " ]" };
                let raw = RawJson::new(text.as_bytes()).unwrap();
                for pattern in 0u32..4 {
                    let (mut fused, mut reference) = (raw.elements(), raw.elements());
                    for step in 0..=elements.len() {
                        if (pattern >> (step % 2)) & 1 == 0 {
                            let want = reference.next().map(|v| v.as_i64().ok_or(v));
                            assert_eq!(fused.next_i64(), want, "{text} step {step}");
                        } else {
                            assert_eq!(fused.next(), reference.next(), "{text} step {step}");
                        }
                    }
                    assert_eq!(fused.next_i64(), None, "{text}");
                }
                arrays += 1;
            }
        }
        assert_eq!(arrays, separators.len() * elements.len());
    }

    #[test]
    fn trusted_skips_end_where_the_validator_ends() {
        // Every value (or key) of every input, where it starts (after `[`, `{`, `,`,
        // `:` or at the start, no string of these inputs holding one; an empty
        // container's closer is none): the trusted skip (strings by the string rule,
        // integers by their digits, the rest by the build's walk) ends where the
        // validator ends.
        let inputs: [&[u8]; 8] = [
            br#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#,
            br#"[-0, 0, 7, -12, 3.25, -0.5e-3, 1E+9, 2e7, 10.0e1, 123456789012345678901234]"#,
            br#"{"a\"b\\": "x\u00e9\ud83d\ude00\/", "c": [true, false, null, {"d": []}]}"#,
            br#"[1,2]"#,
            b"[ 1 ,\t-2 \n]",
            br#"{"k":0}"#,
            b"42",
            br#""s""#,
        ];
        for b in inputs {
            let starts = (0..b.len()).filter(|&i| {
                let before = b[..i].iter().rev().find(|c| !c.is_ascii_whitespace());
                !matches!(b[i], b' ' | b'\t' | b'\n' | b']' | b'}')
                    && matches!(before, None | Some(b'[' | b'{' | b',' | b':'))
            });
            let mut checked = 0;
            for i in starts {
                let end = scan::value(b, i, scan::MAX_DEPTH_LIMIT).unwrap();
                checked += 1;
                assert_eq!(
                    scan::skip_trusted(b, i),
                    end,
                    "{} from {i}",
                    core::str::from_utf8(b).unwrap()
                );
            }
            assert!(checked > 0);
        }
    }

    #[test]
    fn unescapes() {
        // One escape of each UTF-8 length: 1, 2, 3 and 4 bytes (a surrogate pair).
        let v = RawJson::new(br#""a\n\u00e9\u20ac\ud83d\ude00\/""#).unwrap();
        let s = v.as_str().unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(s.unescape_into(&mut buf), Some("a\né€😀/"));
        assert!(s.eq_str("a\né€😀/"));
        assert!(!s.eq_str("a\né€😀"));
        assert_eq!(s.unescape_into(&mut [0u8; 3]), None);
    }
}
