//! Typed params in: a serde `Deserializer` over an already validated [`RawJson`].
//!
//! The value was scanned before it became a `RawJson`, so nothing here checks the
//! grammar: the only errors are shapes that do not fit the type. It reads the value
//! as it decodes it, one cursor over the bytes: each value's deserializer leaves the
//! cursor where its value ended, and the array or object around it goes on from there,
//! so each byte is passed over a bounded number of times whatever its depth (a value
//! the type ignores is passed over once, by the trusted skipper). It never indexes or
//! allocates. Serde's visitors recurse once per level of nesting; a depth bound
//! ([`MAX_DEPTH`], or the caller's) limits that, counting every level that recurses
//! (arrays, objects, enum wrappers, `Some` and newtypes), so a recursive type on deep
//! input ends in [`Reason::TooDeep`] instead of the end of the stack.

use serde::de::{self, DeserializeSeed, Deserializer as _, Visitor};
use serde::Deserialize;

use super::error::{At, DecodeError, Reason};
use super::raw::RAW_JSON_TOKEN;
use crate::params::Params;
use crate::raw::{skip_trusted, Kind, RawJson, RawStr};
use crate::scan::{byte_at, skip_ws};
use crate::Limits;

/// How many levels of nesting a typed decode follows by default (arrays, objects,
/// enum wrappers, `Some` and newtype wrappers each count one) before it refuses with
/// [`Reason::TooDeep`]: the default nesting limit of [`Limits`], as serde_json's.
/// [`RawJson::decode_within`] and [`Params::decode_within`] take another.
pub const MAX_DEPTH: u16 = Limits::DEFAULT.max_depth;

type Result<T, E> = core::result::Result<T, E>;

/// Decodes `value` into `T`, unescaping strings with escapes into `scratch`, following
/// at most `max_depth` levels of nesting.
pub(crate) fn from_raw<'de, T: Deserialize<'de>>(
    value: RawJson<'de>,
    scratch: &mut [u8],
    max_depth: u16,
) -> Result<T, DecodeError<'de>> {
    T::deserialize(&mut Reader::new(value.as_bytes(), scratch, max_depth))
}

impl<'a> RawJson<'a> {
    /// Decodes this value into `T` (see the [module docs](crate::serde) for the
    /// shapes). Strings without escapes are borrowed; a string with an escape needs
    /// [`decode_with_scratch`](Self::decode_with_scratch) and is refused here
    /// ([`Reason::NoScratch`]).
    ///
    /// ```
    /// use jsonrpc_slice::RawJson;
    ///
    /// let v = RawJson::new(br#"{"x": 1, "tag": "a"}"#)?;
    /// #[derive(serde::Deserialize)]
    /// struct P<'a> { x: u8, tag: &'a str }
    /// let p: P = v.decode().unwrap();
    /// assert_eq!((p.x, p.tag), (1, "a"));
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn decode<T: Deserialize<'a>>(&self) -> Result<T, DecodeError<'a>> {
        from_raw(*self, &mut [], MAX_DEPTH)
    }

    /// Decodes this value into `T`, unescaping each string that holds an escape into
    /// `scratch` and handing it to the type as a transient `&str` (so owned strings,
    /// `String` or `heapless::String`, get the decoded text). `scratch` is reused
    /// string by string: it needs to hold the longest escaped string, decoded.
    /// Strings without escapes are still borrowed.
    ///
    /// ```
    /// use jsonrpc_slice::RawJson;
    ///
    /// let v = RawJson::new(br#"["C:\\temp\\a.txt", "line\nbreak"]"#)?;
    /// let mut scratch = [0u8; 64];
    /// let (path, text): (heapless::String<32>, heapless::String<32>) =
    ///     v.decode_with_scratch(&mut scratch).unwrap();
    /// assert_eq!((path.as_str(), text.as_str()), ("C:\\temp\\a.txt", "line\nbreak"));
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn decode_with_scratch<T: Deserialize<'a>>(
        &self,
        scratch: &mut [u8],
    ) -> Result<T, DecodeError<'a>> {
        from_raw(*self, scratch, MAX_DEPTH)
    }

    /// [`decode_with_scratch`](Self::decode_with_scratch) following at most
    /// `max_depth` levels of nesting (arrays, objects, enum wrappers, `Some` and
    /// newtypes each count one) instead of [`MAX_DEPTH`]; one more is
    /// [`Reason::TooDeep`]. Each level costs stack (`SECURITY.md` gives the measured
    /// size): a server's own [`Limits::max_depth`] already bounds how deep its params
    /// nest, and passing it here bounds the types that recurse without consuming input
    /// too.
    ///
    /// ```
    /// use jsonrpc_slice::serde::Reason;
    /// use jsonrpc_slice::RawJson;
    ///
    /// let v = RawJson::new(b"[[[1]]]")?;
    /// assert!(v.decode_within::<Vec<Vec<Vec<u8>>>>(&mut [], 3).is_ok());
    /// let e = v.decode_within::<Vec<Vec<Vec<u8>>>>(&mut [], 2).unwrap_err();
    /// assert_eq!(e.reason(), Reason::TooDeep);
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn decode_within<T: Deserialize<'a>>(
        &self,
        scratch: &mut [u8],
        max_depth: u16,
    ) -> Result<T, DecodeError<'a>> {
        from_raw(*self, scratch, max_depth)
    }
}

impl<'a> Params<'a> {
    /// Decodes the params: a tuple or array type for positional params, a struct for
    /// named ones. Absent params decode as `null` (so `()` and `Option<T>` accept
    /// them). A mismatch is a [`DecodeError`], which `?` makes a `-32602`.
    ///
    /// ```
    /// use jsonrpc_slice::serde::Reason;
    /// use jsonrpc_slice::{Params, RawJson};
    ///
    /// let p = Params::new(Some(RawJson::new(b"[42, 23]")?));
    /// assert_eq!(p.decode::<(i64, i64)>(), Ok((42, 23)));
    /// let e = p.decode::<(i64, i64, i64)>().unwrap_err();
    /// assert_eq!(e.reason(), Reason::TooFewElements);
    /// assert_eq!(e.to_string(), "Invalid params: index 2: too few elements");
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn decode<T: Deserialize<'a>>(&self) -> Result<T, DecodeError<'a>> {
        self.raw().unwrap_or(RawJson::NULL).decode()
    }

    /// Decodes the params, unescaping strings that hold escapes into `scratch` (see
    /// [`RawJson::decode_with_scratch`]).
    pub fn decode_with_scratch<T: Deserialize<'a>>(
        &self,
        scratch: &mut [u8],
    ) -> Result<T, DecodeError<'a>> {
        self.raw()
            .unwrap_or(RawJson::NULL)
            .decode_with_scratch(scratch)
    }

    /// Decodes the params following at most `max_depth` levels of nesting (see
    /// [`RawJson::decode_within`]).
    pub fn decode_within<T: Deserialize<'a>>(
        &self,
        scratch: &mut [u8],
        max_depth: u16,
    ) -> Result<T, DecodeError<'a>> {
        self.raw()
            .unwrap_or(RawJson::NULL)
            .decode_within(scratch, max_depth)
    }
}

/// The error for the value as a whole.
fn fail<'de, T>(reason: Reason) -> Result<T, DecodeError<'de>> {
    Err(DecodeError::new(reason))
}

/// The value's text (valid UTF-8: it was scanned).
fn text(value: RawJson<'_>) -> &str {
    core::str::from_utf8(value.as_bytes()).unwrap_or("null")
}

/// The decoded text of `s`: borrowed from the input when it has no escape, else
/// unescaped into `scratch`.
enum Text<'de, 'b> {
    Borrowed(&'de str),
    Transient(&'b str),
}

fn text_of<'de, 'b>(
    s: RawStr<'de>,
    scratch: &'b mut [u8],
) -> Result<Text<'de, 'b>, DecodeError<'de>> {
    if !s.has_escapes() {
        return match core::str::from_utf8(s.as_raw()) {
            Ok(plain) => Ok(Text::Borrowed(plain)),
            Err(_) => fail(Reason::ExpectedString),
        };
    }
    if scratch.is_empty() {
        return fail(Reason::NoScratch);
    }
    match s.unescape_into(scratch) {
        Some(decoded) => Ok(Text::Transient(decoded)),
        None => fail(Reason::ScratchTooSmall),
    }
}

/// Visits the string `s` as a `&str`: borrowed, or transient from `scratch`. A type
/// that refuses the transient string wanted to borrow it ([`Reason::EscapedBorrowed`]);
/// one that finds it too long is a fixed-capacity string ([`Reason::StringTooLong`]).
fn visit_text<'de, V: Visitor<'de>>(
    s: RawStr<'de>,
    scratch: &mut [u8],
    visitor: V,
) -> Result<V::Value, DecodeError<'de>> {
    let result = match text_of(s, scratch)? {
        Text::Borrowed(plain) => visitor.visit_borrowed_str(plain),
        Text::Transient(decoded) => visitor.visit_str(decoded).map_err(|e: DecodeError<'de>| {
            if e.reason() == Reason::UnexpectedString && e.at() == At::Whole {
                e.because(Reason::EscapedBorrowed)
            } else {
                e
            }
        }),
    };
    result.map_err(|e| {
        if e.reason() == Reason::WrongLength && e.at() == At::Whole {
            e.because(Reason::StringTooLong)
        } else {
            e
        }
    })
}

/// Visits the string `s` as bytes: borrowed, or transient from `scratch`.
fn visit_text_bytes<'de, V: Visitor<'de>>(
    s: RawStr<'de>,
    scratch: &mut [u8],
    visitor: V,
) -> Result<V::Value, DecodeError<'de>> {
    match text_of(s, scratch)? {
        Text::Borrowed(plain) => visitor.visit_borrowed_bytes(plain.as_bytes()),
        Text::Transient(decoded) => visitor.visit_bytes(decoded.as_bytes()),
    }
}

/// An integer lexeme: its sign and magnitude. `-0` is not one (serde_json reads it
/// as the float `-0.0`).
fn integer(lexeme: &[u8]) -> Result<(bool, u128), Reason> {
    let (negative, digits) = match lexeme {
        [b'-', rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Reason::ExpectedInteger);
    }
    let mut magnitude: u128 = 0;
    for &d in digits {
        magnitude = magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u128::from(d - b'0')))
            .ok_or(Reason::IntegerOutOfRange)?;
    }
    if negative && magnitude == 0 {
        return Err(Reason::ExpectedInteger);
    }
    Ok((negative, magnitude))
}

/// The integer lexeme as a `T`, range-checked exactly.
fn integer_as<T: TryFrom<u128> + TryFrom<i128>>(lexeme: &[u8]) -> Result<T, Reason> {
    let (negative, magnitude) = integer(lexeme)?;
    let v = if negative {
        0i128
            .checked_sub_unsigned(magnitude)
            .and_then(|v| T::try_from(v).ok())
    } else {
        T::try_from(magnitude).ok()
    };
    v.ok_or(Reason::IntegerOutOfRange)
}

/// A number lexeme as an `f64`; beyond `f64`'s range (`1e400`) is refused, as
/// serde_json refuses it.
fn float(lexeme: &[u8]) -> Result<f64, Reason> {
    let v: f64 = core::str::from_utf8(lexeme)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or(Reason::ExpectedNumber)?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(Reason::NumberOutOfRange)
    }
}

/// `text` as a JSON number lexeme (for map keys: `"42"`), if it is exactly one.
fn number_lexeme(text: &str) -> Option<RawJson<'_>> {
    RawJson::new(text.as_bytes())
        .ok()
        .filter(|n| n.kind() == Kind::Number && n.as_bytes().len() == text.len())
}

/// The reader of one typed decode: a cursor over the value's bytes. Each value's
/// deserializer (`&mut Reader`) reads the value that starts at the cursor and leaves
/// the cursor just past it.
pub(crate) struct Reader<'de, 's> {
    b: &'de [u8],
    /// Where the next value starts (or, between the items of a container, where the
    /// last one ended).
    i: usize,
    scratch: &'s mut [u8],
    /// Levels of nesting entered so far.
    depth: u16,
    max_depth: u16,
    /// Bytes the cursor passed over between values (whitespace, brackets and
    /// separators): the unit tests count the walk.
    #[cfg(test)]
    walked: usize,
}

impl<'de, 's> Reader<'de, 's> {
    fn new(b: &'de [u8], scratch: &'s mut [u8], max_depth: u16) -> Self {
        Reader {
            b,
            i: 0,
            scratch,
            depth: 0,
            max_depth,
            #[cfg(test)]
            walked: 0,
        }
    }

    /// The cursor moved on to `to`.
    #[inline(always)]
    fn go_to(&mut self, to: usize) {
        #[cfg(test)]
        {
            self.walked += to.saturating_sub(self.i);
        }
        self.i = to;
    }

    /// The kind of the value at the cursor.
    fn kind(&self) -> Kind {
        Kind::of_first(self.b.get(self.i))
    }

    /// The value at the cursor, passed over in one walk (the skipper's: the unit
    /// tests count its bytes in `raw::SKIPPED`, not in `walked`).
    fn take(&mut self) -> RawJson<'de> {
        let (b, start) = (self.b, self.i);
        let end = skip_trusted(b, start);
        self.i = end;
        RawJson::trusted(b.get(start..end).unwrap_or(b"null"))
    }

    /// The string at the cursor, passed over.
    fn take_str(&mut self) -> Option<(RawJson<'de>, RawStr<'de>)> {
        if self.kind() != Kind::String {
            return None;
        }
        let raw = self.take();
        raw.as_str().map(|s| (raw, s))
    }

    /// The byte after the whitespace at the cursor, the cursor moved to it.
    fn peek(&mut self) -> u8 {
        self.go_to(skip_ws(self.b, self.i));
        byte_at(self.b, self.i)
    }

    /// Steps past the byte at the cursor (a bracket or a separator) and the
    /// whitespace after it.
    fn step(&mut self) {
        self.go_to(self.i + 1);
        self.peek();
    }

    /// Runs `f` one level further in, or refuses with [`Reason::TooDeep`].
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, DecodeError<'de>>,
    ) -> Result<T, DecodeError<'de>> {
        if self.depth >= self.max_depth {
            return fail(Reason::TooDeep);
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    /// Where the next item of a container starts, the cursor moved to it: `None` at
    /// the end of the container. After the first item, an item starts only after a
    /// `,`, so the cursor always moves on or the walk ends.
    fn next_item(&mut self, first: bool) -> Option<u8> {
        let c = self.peek();
        if first {
            return Some(c).filter(|&c| c != b']' && c != b'}');
        }
        if c != b',' {
            return None;
        }
        self.step();
        Some(byte_at(self.b, self.i))
    }

    /// Passes over the rest of the container the cursor is in (items, separators and
    /// the closing bracket), for a visitor that stopped reading it.
    fn skip_rest(&mut self) {
        loop {
            match self.peek() {
                b',' | b':' => self.go_to(self.i + 1),
                b']' | b'}' => return self.go_to(self.i + 1),
                0 => return,
                _ => {
                    let at = self.i;
                    self.take();
                    if self.i == at {
                        return;
                    }
                }
            }
        }
    }

    fn visit_array<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.nested(|r| {
            r.step();
            let mut seq = Seq {
                r,
                count: 0,
                exhausted: false,
            };
            match visitor.visit_seq(&mut seq) {
                Ok(v) => {
                    let (count, exhausted) = (seq.count, seq.exhausted);
                    if exhausted || r.next_item(count == 0).is_none() {
                        // At the `]`.
                        r.go_to(r.i + 1);
                        Ok(v)
                    } else {
                        Err(DecodeError::new(Reason::TooManyElements).within(At::Element(count)))
                    }
                }
                Err(e) if e.reason() == Reason::WrongLength && e.at() == At::Whole => {
                    Err(if seq.exhausted {
                        e.because(Reason::TooFewElements)
                            .within(At::Element(seq.count))
                    } else {
                        e.because(Reason::TooManyElements)
                            .within(At::Element(seq.count.saturating_sub(1)))
                    })
                }
                Err(e) => Err(e),
            }
        })
    }

    fn visit_object<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.nested(|r| {
            r.step();
            let mut map = Map {
                r,
                count: 0,
                pending: None,
                last: None,
                exhausted: false,
            };
            let v = match visitor.visit_map(&mut map) {
                Ok(v) => v,
                // A map of fixed capacity, full.
                Err(e) if e.reason() == Reason::WrongLength && e.at() == At::Whole => {
                    let e = e.because(Reason::TooManyMembers);
                    return Err(match map.last {
                        Some(key) => e.within(At::Member(key)),
                        None => e,
                    });
                }
                Err(e) => return Err(e),
            };
            let (count, exhausted, pending) = (map.count, map.exhausted, map.pending.is_some());
            if pending {
                // A key read without its value: the rest is passed over.
                r.skip_rest();
                return Ok(v);
            }
            if exhausted || r.next_item(count == 0).is_none() {
                // At the `}`.
                r.go_to(r.i + 1);
                return Ok(v);
            }
            match r.take_str() {
                Some((key, _)) => {
                    Err(DecodeError::new(Reason::TooManyMembers).within(At::Member(key)))
                }
                None => fail(Reason::TooManyMembers),
            }
        })
    }

    fn string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        match self.take_str() {
            Some((_, s)) => visit_text(s, self.scratch, visitor),
            None => fail(Reason::ExpectedString),
        }
    }

    /// The number at the cursor, passed over; `reason` if there is none.
    fn number(&mut self, reason: Reason) -> Result<&'de [u8], DecodeError<'de>> {
        if self.kind() != Kind::Number {
            return fail(reason);
        }
        Ok(self.take().as_bytes())
    }

    fn integer<T: TryFrom<u128> + TryFrom<i128>>(&mut self) -> Result<T, DecodeError<'de>> {
        integer_as(self.number(Reason::ExpectedInteger)?).map_err(DecodeError::new)
    }

    fn float(&mut self) -> Result<f64, DecodeError<'de>> {
        float(self.number(Reason::ExpectedNumber)?).map_err(DecodeError::new)
    }

    /// The literal at the cursor (`null`, `true`, `false`), passed over.
    fn literal(&mut self) -> RawJson<'de> {
        self.take()
    }
}

/// The integer methods: an exact range check, then the visitor's own type.
macro_rules! integers {
    ($($method:ident => $visit:ident,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
            visitor.$visit(self.integer()?)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de, '_> {
    type Error = DecodeError<'de>;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        match self.kind() {
            Kind::Null => {
                self.literal();
                visitor.visit_unit()
            }
            Kind::Bool => visitor.visit_bool(self.literal().as_bool() == Some(true)),
            Kind::String => self.string(visitor),
            Kind::Array => self.visit_array(visitor),
            Kind::Object => self.visit_object(visitor),
            Kind::Number => {
                let lexeme = self.take().as_bytes();
                match integer(lexeme) {
                    Ok((false, m)) if m <= u128::from(u64::MAX) => visitor.visit_u64(m as u64),
                    Ok((true, m)) if m <= u128::from(i64::MIN.unsigned_abs()) => {
                        visitor.visit_i64(0i64.wrapping_sub_unsigned(m as u64))
                    }
                    // Beyond 64 bits, or a fraction or exponent: an f64, as serde_json.
                    _ => visitor.visit_f64(float(lexeme).map_err(DecodeError::new)?),
                }
            }
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        if self.kind() != Kind::Bool {
            return fail(Reason::ExpectedBool);
        }
        match self.literal().as_bool() {
            Some(b) => visitor.visit_bool(b),
            None => fail(Reason::ExpectedBool),
        }
    }

    integers! {
        deserialize_i8 => visit_i8,
        deserialize_i16 => visit_i16,
        deserialize_i32 => visit_i32,
        deserialize_i64 => visit_i64,
        deserialize_i128 => visit_i128,
        deserialize_u8 => visit_u8,
        deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32,
        deserialize_u64 => visit_u64,
        deserialize_u128 => visit_u128,
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_f64(self.float()?)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_f64(self.float()?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.string(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        match self.kind() {
            Kind::String => match self.take_str() {
                Some((_, s)) => visit_text_bytes(s, self.scratch, visitor),
                None => fail(Reason::ExpectedString),
            },
            Kind::Array => self.visit_array(visitor),
            _ => fail(Reason::ExpectedString),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        if self.kind() == Kind::Null {
            self.literal();
            visitor.visit_none()
        } else {
            self.nested(|r| visitor.visit_some(r))
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        if self.kind() == Kind::Null {
            self.literal();
            visitor.visit_unit()
        } else {
            fail(Reason::ExpectedNull)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        if name == RAW_JSON_TOKEN {
            return visitor.visit_borrowed_str(text(self.take()));
        }
        self.nested(|r| visitor.visit_newtype_struct(r))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        if self.kind() != Kind::Array {
            return fail(Reason::ExpectedArray);
        }
        self.visit_array(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        if self.kind() != Kind::Object {
            return fail(Reason::ExpectedObject);
        }
        self.visit_object(visitor)
    }

    /// An object, or (as serde_json) an array of the fields in order.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        match self.kind() {
            Kind::Object => self.visit_object(visitor),
            Kind::Array => self.visit_array(visitor),
            _ => fail(Reason::ExpectedObject),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        match self.kind() {
            Kind::String => match self.take_str() {
                Some((_, name)) => visitor.visit_enum(Variant {
                    name,
                    r: self,
                    data: false,
                }),
                None => fail(Reason::ExpectedEnum),
            },
            // `{"Name": value}`: one member, its value read by the variant.
            Kind::Object => self.nested(|r| {
                r.step();
                let Some((key, name)) = r.take_str() else {
                    return fail(Reason::ExpectedEnum);
                };
                if r.peek() != b':' {
                    return fail(Reason::ExpectedEnum);
                }
                r.step();
                let v = visitor
                    .visit_enum(Variant {
                        name,
                        r: &mut *r,
                        data: true,
                    })
                    .map_err(|e| e.within(At::Member(key)))?;
                if r.peek() != b'}' {
                    return fail(Reason::ExpectedEnum);
                }
                r.go_to(r.i + 1);
                Ok(v)
            }),
            _ => fail(Reason::ExpectedEnum),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.string(visitor)
    }

    /// Passed over in one walk (the trusted skipper's), without a visit.
    fn deserialize_ignored_any<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.take();
        visitor.visit_unit()
    }
}

/// The elements of an array, each decoded on request.
struct Seq<'a, 'de, 's> {
    r: &'a mut Reader<'de, 's>,
    /// Elements handed out so far.
    count: usize,
    /// `true` once the visitor asked past the last element.
    exhausted: bool,
}

impl<'de> de::SeqAccess<'de> for Seq<'_, 'de, '_> {
    type Error = DecodeError<'de>;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError<'de>> {
        if self.r.next_item(self.count == 0).is_none() {
            self.exhausted = true;
            return Ok(None);
        }
        let index = self.count;
        self.count += 1;
        seed.deserialize(&mut *self.r)
            .map(Some)
            .map_err(|e| e.within(At::Element(index)))
    }
}

/// The members of an object, each key and value decoded on request.
struct Map<'a, 'de, 's> {
    r: &'a mut Reader<'de, 's>,
    /// Keys read so far.
    count: usize,
    /// The key (as sent) of the member whose key was just read, its value at the
    /// cursor.
    pending: Option<RawJson<'de>>,
    /// The key (as sent) of the last member read.
    last: Option<RawJson<'de>>,
    /// `true` once the visitor asked past the last member.
    exhausted: bool,
}

impl<'de> de::MapAccess<'de> for Map<'_, 'de, '_> {
    type Error = DecodeError<'de>;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError<'de>> {
        let r = &mut *self.r;
        let member = match r.next_item(self.count == 0) {
            Some(b'"') => r.take_str(),
            _ => None,
        };
        let Some((raw_key, key)) = member.filter(|_| r.peek() == b':') else {
            self.exhausted = true;
            return Ok(None);
        };
        r.step();
        self.count += 1;
        self.pending = Some(raw_key);
        self.last = Some(raw_key);
        seed.deserialize(Key { key, r })
            .map(Some)
            .map_err(|e| e.within(At::Member(raw_key)))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        // A value asked for before its key breaks serde's contract: an error, not a
        // panic.
        let Some(raw_key) = self.pending.take() else {
            return fail(Reason::Custom);
        };
        seed.deserialize(&mut *self.r)
            .map_err(|e| e.within(At::Member(raw_key)))
    }
}

/// An enum's variant: its name, and whether its value (`{"Name": value}`) is at the
/// cursor.
struct Variant<'a, 'de, 's> {
    name: RawStr<'de>,
    r: &'a mut Reader<'de, 's>,
    data: bool,
}

impl<'a, 'de, 's> de::EnumAccess<'de> for Variant<'a, 'de, 's> {
    type Error = DecodeError<'de>;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self), DecodeError<'de>> {
        let v = seed.deserialize(Key {
            key: self.name,
            r: &mut *self.r,
        })?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de, '_> {
    type Error = DecodeError<'de>;

    fn unit_variant(self) -> Result<(), DecodeError<'de>> {
        if !self.data {
            return Ok(());
        }
        if self.r.kind() != Kind::Null {
            return fail(Reason::ExpectedNull);
        }
        self.r.literal();
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, DecodeError<'de>> {
        if !self.data {
            return fail(Reason::VariantNeedsData);
        }
        seed.deserialize(self.r)
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        if !self.data {
            return fail(Reason::VariantNeedsData);
        }
        self.r.deserialize_seq(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        if !self.data {
            return fail(Reason::VariantNeedsData);
        }
        self.r.deserialize_struct("", fields, visitor)
    }
}

/// The deserializer of a map key (or a variant name): a JSON string, read as a
/// string, or parsed as a number or a boolean for keys of those types (as
/// serde_json does). The key was passed over already; `r` gives the scratch and the
/// depth.
struct Key<'a, 'de, 's> {
    key: RawStr<'de>,
    r: &'a mut Reader<'de, 's>,
}

impl<'de> Key<'_, 'de, '_> {
    /// The key's decoded text as a number lexeme, or `reason`.
    fn number<T>(
        self,
        reason: Reason,
        read: impl FnOnce(&[u8]) -> Result<T, Reason>,
    ) -> Result<T, DecodeError<'de>> {
        let text = match text_of(self.key, self.r.scratch)? {
            Text::Borrowed(s) | Text::Transient(s) => s,
        };
        match number_lexeme(text) {
            Some(n) => read(n.as_bytes()).map_err(DecodeError::new),
            None => fail(reason),
        }
    }

    fn text<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visit_text(self.key, self.r.scratch, visitor)
    }

    fn text_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visit_text_bytes(self.key, self.r.scratch, visitor)
    }
}

/// Integer keys: the string parsed as an integer lexeme, range-checked exactly.
macro_rules! integer_keys {
    ($($method:ident => $visit:ident,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
            visitor.$visit(self.number(Reason::ExpectedInteger, integer_as)?)
        }
    )*};
}

/// Key shapes that cannot come from a string.
macro_rules! refused_keys {
    ($($method:ident($($arg:ty),*),)*) => {$(
        fn $method<V: Visitor<'de>>(self, $(_: $arg,)* _: V) -> Result<V::Value, DecodeError<'de>> {
            fail(Reason::BadMapKey)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de, '_> {
    type Error = DecodeError<'de>;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.text(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        if self.key.eq_str("true") {
            visitor.visit_bool(true)
        } else if self.key.eq_str("false") {
            visitor.visit_bool(false)
        } else {
            fail(Reason::ExpectedBool)
        }
    }

    integer_keys! {
        deserialize_i8 => visit_i8,
        deserialize_i16 => visit_i16,
        deserialize_i32 => visit_i32,
        deserialize_i64 => visit_i64,
        deserialize_i128 => visit_i128,
        deserialize_u8 => visit_u8,
        deserialize_u16 => visit_u16,
        deserialize_u32 => visit_u32,
        deserialize_u64 => visit_u64,
        deserialize_u128 => visit_u128,
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_f64(self.number(Reason::ExpectedNumber, float)?)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_f64(self.number(Reason::ExpectedNumber, float)?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.text(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.text(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.text(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        self.text_bytes(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.text_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        let key = self.key;
        self.r.nested(|r| visitor.visit_some(Key { key, r }))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        let key = self.key;
        self.r
            .nested(|r| visitor.visit_newtype_struct(Key { key, r }))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_enum(Variant {
            name: self.key,
            r: self.r,
            data: false,
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.text(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_unit()
    }

    refused_keys! {
        deserialize_unit(),
        deserialize_unit_struct(&'static str),
        deserialize_seq(),
        deserialize_tuple(usize),
        deserialize_tuple_struct(&'static str, usize),
        deserialize_map(),
        deserialize_struct(&'static str, &'static [&'static str]),
    }
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::*;
    use crate::raw::SKIPPED;

    /// Decodes `input` into `T`, and counts the bytes passed over doing it: by the
    /// cursor between values and by the trusted skipper.
    fn walk<'de, T: Deserialize<'de>>(input: &'de [u8]) -> (T, usize) {
        let value = RawJson::new(input).unwrap();
        let before = SKIPPED.with(|n| n.get());
        let mut scratch = [0u8; 16];
        let mut r = Reader::new(value.as_bytes(), &mut scratch, MAX_DEPTH);
        let decoded = T::deserialize(&mut r).unwrap();
        assert_eq!(r.i, input.len(), "the cursor ends where the value ends");
        (decoded, r.walked + SKIPPED.with(|n| n.get()) - before)
    }

    /// `inner` wrapped in `depth` levels of `open` .. `close`, eight times side by side
    /// in an array.
    fn nests(open: &str, close: &str, inner: &str, depth: usize) -> Vec<u8> {
        let nest = open.repeat(depth) + inner + &close.repeat(depth);
        std::format!("[{}]", [nest.as_str(); 8].join(" , ")).into_bytes()
    }

    #[test]
    fn each_byte_is_walked_once_whatever_its_depth() {
        for depth in [0, 1, 2, 7, 64, 124] {
            for input in [
                nests("[", "]", "1", depth),
                nests("[ ", " ]", "[1, \"a\\\"b\", null, true]", depth),
                nests(r#"{"a":"#, "}", r#"{"x": [1.5e3, false], "y": {}}"#, depth),
                // Two levels a nest.
                nests(r#"{ "k\u0041" : [ "#, " ] }", "-7", depth / 2),
            ] {
                let (ours, walked): (serde_json::Value, usize) = walk(&input);
                let theirs: serde_json::Value = serde_json::from_slice(&input).unwrap();
                assert_eq!(ours, theirs);
                assert_eq!(walked, input.len(), "depth {depth}");
            }
        }
    }

    #[test]
    fn an_ignored_value_is_passed_over_once() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Wanted {
            b: [u8; 2],
        }
        let deep = nests("[", "]", "1", 100);
        let input = [
            br#"{"a": "#,
            &deep[..],
            br#", "b": [1, 2], "c": "#,
            &deep[..],
            b"}",
        ]
        .concat();
        let (wanted, walked): (Wanted, usize) = walk(&input);
        assert_eq!(wanted, Wanted { b: [1, 2] });
        assert_eq!(walked, input.len());
    }
}
