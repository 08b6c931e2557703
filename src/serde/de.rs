//! Typed params in: a serde `Deserializer` over an already validated [`RawJson`].
//!
//! The value was scanned before it became a `RawJson`, so nothing here checks the
//! grammar: the only errors are shapes that do not fit the type. It walks the value
//! with the crate's own iterators ([`RawJson::elements`], the members walk) and
//! never indexes or allocates. Serde's visitors recurse once per level of nesting;
//! [`MAX_DEPTH`] bounds that, counting every level that recurses (arrays, objects,
//! enum wrappers, `Some` and newtypes), so a recursive type on deep input ends in
//! [`Reason::TooDeep`] instead of the end of the stack.

use serde::de::{self, DeserializeSeed, Deserializer as _, Visitor};
use serde::Deserialize;

use super::error::{At, DecodeError, Reason};
use super::raw::RAW_JSON_TOKEN;
use crate::params::Params;
use crate::raw::{Elements, Kind, Members, RawJson, RawStr};

/// How many levels of nesting a typed decode follows (arrays, objects, enum
/// wrappers, `Some` and newtype wrappers each count one) before it refuses with
/// [`Reason::TooDeep`].
pub const MAX_DEPTH: u16 = 128;

type Result<T, E> = core::result::Result<T, E>;

/// Decodes `value` into `T`, unescaping strings with escapes into `scratch`.
pub(crate) fn from_raw<'de, T: Deserialize<'de>>(
    value: RawJson<'de>,
    scratch: &mut [u8],
) -> Result<T, DecodeError<'de>> {
    T::deserialize(Deserializer {
        value,
        scratch,
        depth: 0,
    })
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
        from_raw(*self, &mut [])
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
        from_raw(*self, scratch)
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

/// The deserializer of one value.
pub(crate) struct Deserializer<'de, 's> {
    value: RawJson<'de>,
    scratch: &'s mut [u8],
    /// Levels of nesting entered so far.
    depth: u16,
}

impl<'de> Deserializer<'de, '_> {
    /// The depth one level further in, or [`Reason::TooDeep`].
    fn deeper(&self) -> Result<u16, DecodeError<'de>> {
        if self.depth >= MAX_DEPTH {
            fail(Reason::TooDeep)
        } else {
            Ok(self.depth + 1)
        }
    }

    /// The same value, one level further in (for `Some` and newtypes, which recurse
    /// without consuming input).
    fn wrapped(self) -> Result<Self, DecodeError<'de>> {
        let depth = self.deeper()?;
        Ok(Self { depth, ..self })
    }

    fn visit_array<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        let depth = self.deeper()?;
        let mut seq = Seq {
            items: self.value.elements(),
            scratch: self.scratch,
            depth,
            count: 0,
            exhausted: false,
        };
        match visitor.visit_seq(&mut seq) {
            Ok(v) => {
                if seq.exhausted || seq.items.next().is_none() {
                    Ok(v)
                } else {
                    Err(DecodeError::new(Reason::TooManyElements).within(At::Element(seq.count)))
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
    }

    fn visit_object<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        let depth = self.deeper()?;
        let mut map = Map {
            members: self.value.members(),
            scratch: self.scratch,
            depth,
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
        if map.exhausted || map.pending.is_some() {
            return Ok(v);
        }
        match map.members.next_with_raw_key() {
            None => Ok(v),
            Some((key, _, _)) => {
                Err(DecodeError::new(Reason::TooManyMembers).within(At::Member(key)))
            }
        }
    }

    fn string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        match self.value.as_str() {
            Some(s) => visit_text(s, self.scratch, visitor),
            None => fail(Reason::ExpectedString),
        }
    }

    fn integer<T: TryFrom<u128> + TryFrom<i128>>(&self) -> Result<T, DecodeError<'de>> {
        if self.value.kind() != Kind::Number {
            return fail(Reason::ExpectedInteger);
        }
        integer_as(self.value.as_bytes()).map_err(DecodeError::new)
    }

    fn float(&self) -> Result<f64, DecodeError<'de>> {
        if self.value.kind() != Kind::Number {
            return fail(Reason::ExpectedNumber);
        }
        float(self.value.as_bytes()).map_err(DecodeError::new)
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

impl<'de> de::Deserializer<'de> for Deserializer<'de, '_> {
    type Error = DecodeError<'de>;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        match self.value.kind() {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool => visitor.visit_bool(self.value.as_bool() == Some(true)),
            Kind::String => self.string(visitor),
            Kind::Array => self.visit_array(visitor),
            Kind::Object => self.visit_object(visitor),
            Kind::Number => match integer(self.value.as_bytes()) {
                Ok((false, m)) if m <= u128::from(u64::MAX) => visitor.visit_u64(m as u64),
                Ok((true, m)) if m <= u128::from(i64::MIN.unsigned_abs()) => {
                    visitor.visit_i64(0i64.wrapping_sub_unsigned(m as u64))
                }
                // Beyond 64 bits, or a fraction or exponent: an f64, as serde_json.
                _ => visitor.visit_f64(self.float()?),
            },
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        match self.value.as_bool() {
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
        match self.value.kind() {
            Kind::String => match self.value.as_str() {
                Some(s) => visit_text_bytes(s, self.scratch, visitor),
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
        if self.value.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self.wrapped()?)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        if self.value.is_null() {
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
            return visitor.visit_borrowed_str(text(self.value));
        }
        visitor.visit_newtype_struct(self.wrapped()?)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        if self.value.kind() != Kind::Array {
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
        if self.value.kind() != Kind::Object {
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
        match self.value.kind() {
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
        match self.value.kind() {
            Kind::String => match self.value.as_str() {
                Some(name) => visitor.visit_enum(Variant {
                    name,
                    value: None,
                    scratch: self.scratch,
                    depth: self.depth,
                }),
                None => fail(Reason::ExpectedEnum),
            },
            Kind::Object => {
                let depth = self.deeper()?;
                let mut members = self.value.members();
                let (Some((key, name, value)), None) =
                    (members.next_with_raw_key(), members.next())
                else {
                    return fail(Reason::ExpectedEnum);
                };
                visitor
                    .visit_enum(Variant {
                        name,
                        value: Some(value),
                        scratch: self.scratch,
                        depth,
                    })
                    .map_err(|e| e.within(At::Member(key)))
            }
            _ => fail(Reason::ExpectedEnum),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        self.string(visitor)
    }

    /// Skipped without a walk: the value was validated.
    fn deserialize_ignored_any<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_unit()
    }
}

/// The elements of an array, each decoded on request.
struct Seq<'de, 's> {
    items: Elements<'de>,
    scratch: &'s mut [u8],
    depth: u16,
    /// Elements handed out so far.
    count: usize,
    /// `true` once the visitor asked past the last element.
    exhausted: bool,
}

impl<'de> de::SeqAccess<'de> for Seq<'de, '_> {
    type Error = DecodeError<'de>;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError<'de>> {
        let Some(value) = self.items.next() else {
            self.exhausted = true;
            return Ok(None);
        };
        let index = self.count;
        self.count += 1;
        seed.deserialize(Deserializer {
            value,
            scratch: self.scratch,
            depth: self.depth,
        })
        .map(Some)
        .map_err(|e| e.within(At::Element(index)))
    }
}

/// The members of an object, each key and value decoded on request.
struct Map<'de, 's> {
    members: Members<'de>,
    scratch: &'s mut [u8],
    depth: u16,
    /// The key (as sent) and value of the member whose key was just read.
    pending: Option<(RawJson<'de>, RawJson<'de>)>,
    /// The key (as sent) of the last member read.
    last: Option<RawJson<'de>>,
    /// `true` once the visitor asked past the last member.
    exhausted: bool,
}

impl<'de> de::MapAccess<'de> for Map<'de, '_> {
    type Error = DecodeError<'de>;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError<'de>> {
        let Some((raw_key, key, value)) = self.members.next_with_raw_key() else {
            self.exhausted = true;
            return Ok(None);
        };
        self.pending = Some((raw_key, value));
        self.last = Some(raw_key);
        seed.deserialize(Key {
            key,
            scratch: self.scratch,
            depth: self.depth,
        })
        .map(Some)
        .map_err(|e| e.within(At::Member(raw_key)))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        // A value asked for before its key breaks serde's contract: an error, not a
        // panic.
        let Some((raw_key, value)) = self.pending.take() else {
            return fail(Reason::Custom);
        };
        seed.deserialize(Deserializer {
            value,
            scratch: self.scratch,
            depth: self.depth,
        })
        .map_err(|e| e.within(At::Member(raw_key)))
    }
}

/// An enum's variant: its name, and its value if it came as `{"Name": value}`.
struct Variant<'de, 's> {
    name: RawStr<'de>,
    value: Option<RawJson<'de>>,
    scratch: &'s mut [u8],
    depth: u16,
}

impl<'de, 's> de::EnumAccess<'de> for Variant<'de, 's> {
    type Error = DecodeError<'de>;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self), DecodeError<'de>> {
        let v = seed.deserialize(Key {
            key: self.name,
            scratch: &mut *self.scratch,
            depth: self.depth,
        })?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'de, '_> {
    type Error = DecodeError<'de>;

    fn unit_variant(self) -> Result<(), DecodeError<'de>> {
        match self.value {
            None => Ok(()),
            Some(v) if v.is_null() => Ok(()),
            Some(_) => fail(Reason::ExpectedNull),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, DecodeError<'de>> {
        match self.value {
            Some(value) => seed.deserialize(Deserializer {
                value,
                scratch: self.scratch,
                depth: self.depth,
            }),
            None => fail(Reason::VariantNeedsData),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        match self.value {
            Some(value) => Deserializer {
                value,
                scratch: self.scratch,
                depth: self.depth,
            }
            .deserialize_seq(visitor),
            None => fail(Reason::VariantNeedsData),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        match self.value {
            Some(value) => Deserializer {
                value,
                scratch: self.scratch,
                depth: self.depth,
            }
            .deserialize_struct("", fields, visitor),
            None => fail(Reason::VariantNeedsData),
        }
    }
}

/// The deserializer of a map key (or a variant name): a JSON string, read as a
/// string, or parsed as a number or a boolean for keys of those types (as
/// serde_json does).
struct Key<'de, 's> {
    key: RawStr<'de>,
    scratch: &'s mut [u8],
    depth: u16,
}

impl<'de> Key<'de, '_> {
    /// The key's decoded text as a number lexeme, or `reason`.
    fn number<T>(
        self,
        reason: Reason,
        read: impl FnOnce(&[u8]) -> Result<T, Reason>,
    ) -> Result<T, DecodeError<'de>> {
        let text = match text_of(self.key, self.scratch)? {
            Text::Borrowed(s) | Text::Transient(s) => s,
        };
        match number_lexeme(text) {
            Some(n) => read(n.as_bytes()).map_err(DecodeError::new),
            None => fail(reason),
        }
    }

    /// The same key one level further in (`Some` and newtypes).
    fn wrapped(self) -> Result<Self, DecodeError<'de>> {
        if self.depth >= MAX_DEPTH {
            return fail(Reason::TooDeep);
        }
        Ok(Self {
            depth: self.depth + 1,
            ..self
        })
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

impl<'de> de::Deserializer<'de> for Key<'de, '_> {
    type Error = DecodeError<'de>;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visit_text(self.key, self.scratch, visitor)
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
        visit_text(self.key, self.scratch, visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visit_text(self.key, self.scratch, visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visit_text(self.key, self.scratch, visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visit_text_bytes(self.key, self.scratch, visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        visit_text_bytes(self.key, self.scratch, visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_some(self.wrapped()?)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_newtype_struct(self.wrapped()?)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        visitor.visit_enum(Variant {
            name: self.key,
            value: None,
            scratch: self.scratch,
            depth: self.depth,
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, DecodeError<'de>> {
        visit_text(self.key, self.scratch, visitor)
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
