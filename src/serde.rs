//! Typed params and results (feature `serde`): the one file that names `serde` and
//! `serde-json-core`.
//!
//! - **Params in**: [`Params::decode`] and [`RawJson::decode`] run `serde-json-core`
//!   over the raw slice: a tuple or array for positional params, a struct for named
//!   ones. `&str` fields borrow from the input when the string holds no escape;
//!   strings with escapes need an owned type (`heapless::String`, say) and
//!   [`Params::decode_with_scratch`], which unescapes into your buffer. A shape that
//!   does not match is `-32602 Invalid params` with a message that says what was
//!   wrong.
//! - **Results out**: [`ResultWriter::serialize`] writes any `Serialize` value
//!   straight into the reply buffer, through the same checked writer as every other
//!   result: no intermediate copy, and an overflow rolls the reply back like any
//!   other. It is this crate's own serializer, not `serde-json-core`'s, which panics
//!   on a `char` or a custom error; here those are a `char` string and a `-32603`.
//! - **`serde-json-core` has no `deserialize_any`**, so untagged enums cannot be
//!   decoded. For values that may be a number or a string (ids, hex quantities),
//!   read the field as a [`RawJson`] view with [`Params::get`] / [`Params::nth`] and
//!   use [`NumberOrString`], or decode the parts that are typed field by field with
//!   [`RawJson::decode`].
//! - **Declaring a typed handler**: [`typed`] adapts a closure over typed params and
//!   a typed result to a [`Handler`](crate::Handler); the [`typed_handler!`](crate::typed_handler)
//!   macro writes the whole handler from a signature.

use core::fmt::{self, Write as _};

use serde::ser::{self, Serialize};
use serde::Deserialize;
use serde_json_core::de::Error as DeError;

use crate::error::{code, RpcError};
use crate::params::Params;
use crate::raw::{Kind, RawJson, RawStr};
use crate::write::{ResultWriter, WriteError};

/// Decodes `bytes`, unescaping strings into `scratch`, or refusing strings with
/// escapes when `scratch` is empty. (Without an unescape buffer, `serde-json-core`
/// would hand a `&str` field the string with its escapes undecoded.)
fn decode<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    scratch: &mut [u8],
) -> Result<T, RpcError<'static>> {
    let no_scratch = scratch.is_empty();
    serde_json_core::from_slice_escaped(bytes, scratch)
        .map(|(v, _)| v)
        .map_err(|e| match e {
            DeError::EscapedStringIsTooLong if no_scratch => RpcError::new(
                code::INVALID_PARAMS,
                "Invalid params: a string with escapes needs decode_with_scratch and an owned string type",
            ),
            e => invalid_params(e),
        })
}

/// The `-32602` error for a params decoding failure, with a message saying why.
fn invalid_params(e: DeError) -> RpcError<'static> {
    let message = match e {
        DeError::InvalidType => "Invalid params: a value has the wrong type",
        DeError::InvalidNumber => "Invalid params: a number does not fit its type",
        DeError::CustomError => {
            "Invalid params: the shape does not match (a field missing, too few values, or an unknown variant)"
        }
        DeError::EscapedStringIsTooLong => {
            "Invalid params: an escaped string is longer than the scratch buffer"
        }
        DeError::AnyIsUnsupported => {
            "Invalid params: the type needs deserialize_any (untagged enums); read RawJson views instead"
        }
        DeError::TrailingCharacters | DeError::TrailingComma | DeError::ExpectedListCommaOrEnd => {
            "Invalid params: too many values"
        }
        _ => "Invalid params",
    };
    RpcError::new(code::INVALID_PARAMS, message)
}

impl<'a> RawJson<'a> {
    /// Decodes this value with `serde-json-core`. Strings are borrowed; a string that
    /// holds an escape cannot be, and is refused (`-32602`): use
    /// [`decode_with_scratch`](Self::decode_with_scratch) and an owned string type
    /// for those.
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
    pub fn decode<T: Deserialize<'a>>(&self) -> Result<T, RpcError<'static>> {
        decode(self.as_bytes(), &mut [])
    }

    /// Decodes this value, unescaping strings that hold escapes into `scratch` and
    /// handing them to owned string types (such as `heapless::String`); strings
    /// without escapes are still borrowed.
    pub fn decode_with_scratch<T: Deserialize<'a>>(
        &self,
        scratch: &mut [u8],
    ) -> Result<T, RpcError<'static>> {
        decode(self.as_bytes(), scratch)
    }
}

impl<'a> Params<'a> {
    /// Decodes the params: a tuple or array type for positional params, a struct for
    /// named ones. Absent params decode as `null` (so `()` and `Option<T>` accept
    /// them). A mismatch is `-32602` with a message that says why.
    ///
    /// ```
    /// use jsonrpc_slice::{Params, RawJson};
    ///
    /// let p = Params::new(Some(RawJson::new(b"[42, 23]")?));
    /// assert_eq!(p.decode::<(i64, i64)>(), Ok((42, 23)));
    /// assert_eq!(p.decode::<(i64, i64, i64)>().unwrap_err().code, -32602);
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn decode<T: Deserialize<'a>>(&self) -> Result<T, RpcError<'static>> {
        self.raw().unwrap_or(RawJson::NULL).decode()
    }

    /// Decodes the params, unescaping strings that hold escapes into `scratch` (see
    /// [`RawJson::decode_with_scratch`]).
    pub fn decode_with_scratch<T: Deserialize<'a>>(
        &self,
        scratch: &mut [u8],
    ) -> Result<T, RpcError<'static>> {
        self.raw()
            .unwrap_or(RawJson::NULL)
            .decode_with_scratch(scratch)
    }
}

/// A value that may be a number or a string — what an untagged enum would be, had
/// `serde-json-core` `deserialize_any`. Made from a [`RawJson`] view.
///
/// ```
/// use jsonrpc_slice::serde::NumberOrString;
/// use jsonrpc_slice::RawJson;
///
/// let n = NumberOrString::from_raw(RawJson::new(b"17")?).unwrap();
/// assert_eq!(n.as_u64(), Some(17));
/// let s = NumberOrString::from_raw(RawJson::new(br#""0x11""#)?).unwrap();
/// assert!(matches!(s, NumberOrString::String(h) if h.eq_str("0x11")));
/// assert!(NumberOrString::from_raw(RawJson::new(b"[]")?).is_none());
/// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NumberOrString<'a> {
    /// A JSON number, as its lexeme.
    Number(RawJson<'a>),
    /// A JSON string, escapes as sent.
    String(RawStr<'a>),
}

impl<'a> NumberOrString<'a> {
    /// The value, if `raw` is a number or a string.
    pub fn from_raw(raw: RawJson<'a>) -> Option<Self> {
        match raw.kind() {
            Kind::Number => Some(Self::Number(raw)),
            Kind::String => raw.as_str().map(Self::String),
            _ => None,
        }
    }

    /// The number as a `u64`: a non-negative integer, or a string holding one in
    /// decimal or `0x` hex.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Self::Number(n) => n.as_u64(),
            Self::String(s) => {
                let raw = s.as_raw();
                match raw {
                    [b'0', b'x' | b'X', hex @ ..] if !hex.is_empty() && hex.len() <= 16 => {
                        hex.iter().try_fold(0u64, |v, &c| {
                            crate::scan::hex_digit(c).map(|d| (v << 4) | d as u64)
                        })
                    }
                    _ => RawJson::new(raw).ok()?.as_u64(),
                }
            }
        }
    }
}

/// Runs a handler written over typed params and a typed result: decodes the params
/// (`-32602` when they do not fit `P`), calls `f`, and serializes its `Ok` value as
/// the result.
///
/// ```
/// use jsonrpc_slice::serde::typed;
/// use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError, Server};
///
/// #[derive(serde::Deserialize)]
/// struct Sub { minuend: i64, subtrahend: i64 }
///
/// fn subtract<'p>(ctx: &mut (), p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
///     typed(ctx, p, out, |_, s: Sub| Ok(s.minuend - s.subtrahend))
/// }
///
/// static SERVER: Server<()> = Server::new(method_table! { "subtract" => subtract });
/// let mut out = [0u8; 128];
/// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":4}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":19,"id":4}"#);
/// ```
pub fn typed<'p, C, P, R, F>(
    ctx: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
    f: F,
) -> Result<(), RpcError<'p>>
where
    P: Deserialize<'p>,
    R: Serialize,
    F: FnOnce(&mut C, P) -> Result<R, RpcError<'p>>,
{
    let p = params.decode::<P>()?;
    let result = f(ctx, p)?;
    Ok(out.serialize(&result)?)
}

/// Declares a typed handler: a function over a context, typed params and a typed
/// result, made into a [`Handler`](crate::Handler) with [`typed`].
///
/// ```
/// use jsonrpc_slice::{method_table, typed_handler, MethodTable, RpcError, Server};
///
/// struct Ctx { total: i64 }
///
/// typed_handler! {
///     /// Adds its params to a running total and returns it.
///     pub fn add(ctx: &mut Ctx, (a, b): (i64, i64)) -> Result<i64, RpcError<'static>> {
///         ctx.total += a + b;
///         Ok(ctx.total)
///     }
/// }
///
/// static SERVER: Server<Ctx> = Server::new(method_table! { "add" => add });
/// let mut ctx = Ctx { total: 0 };
/// let mut out = [0u8; 128];
/// let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"add","params":[2,3],"id":1}"#, &mut out).unwrap();
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":5,"id":1}"#);
/// let reply = SERVER.handle(&mut ctx, br#"{"jsonrpc":"2.0","method":"add","params":["2",3],"id":2}"#, &mut out).unwrap();
/// assert!(reply.starts_with(br#"{"jsonrpc":"2.0","error":{"code":-32602,"#));
/// ```
#[macro_export]
macro_rules! typed_handler {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($ctx:ident : &mut $ctx_ty:ty, $params:tt : $params_ty:ty) -> $ret:ty $body:block
    ) => {
        $(#[$attr])*
        $vis fn $name<'p>(
            ctx: &mut $ctx_ty,
            params: $crate::Params<'p>,
            out: &mut $crate::ResultWriter<'_>,
        ) -> ::core::result::Result<(), $crate::RpcError<'p>> {
            #[allow(unused_variables)]
            fn inner($ctx: &mut $ctx_ty, $params: $params_ty) -> $ret $body
            $crate::serde::typed(ctx, params, out, |c, p: $params_ty| inner(c, p))
        }
    };
}

impl ResultWriter<'_> {
    /// Writes `value` as the result (or as the next value inside an open array or
    /// object), serialized straight into the reply buffer.
    ///
    /// Maps are written with string keys (integer and `char` keys are written as
    /// strings, as serde_json does; other keys are refused). Non-finite floats are
    /// `null`. A `Serialize` impl that reports a custom error makes the reply a
    /// `-32603`.
    pub fn serialize<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WriteError> {
        value.serialize(ValueSerializer { w: self })
    }

    /// An integer wider than 64 bits, in decimal.
    fn wide_integer(&mut self, v: impl fmt::Display) -> Result<(), WriteError> {
        let mut buf = NumberBuf::new();
        write!(buf, "{v}").map_err(|_| WriteError::Misuse)?;
        self.raw(RawJson::new(buf.as_bytes()).map_err(|_| WriteError::Misuse)?)
    }

    fn f64_value(&mut self, v: f64) -> Result<(), WriteError> {
        if !v.is_finite() {
            return self.null();
        }
        let mut buf = NumberBuf::new();
        let abs = v.abs();
        let written = if abs == 0.0 || (1e-5..1e16).contains(&abs) {
            write!(buf, "{v}")
        } else {
            write!(buf, "{v:e}")
        };
        if written.is_err() {
            return Err(WriteError::Misuse);
        }
        match RawJson::new(buf.as_bytes()) {
            Ok(raw) => self.raw(raw),
            Err(_) => Err(WriteError::Misuse),
        }
    }
}

/// A small stack buffer for formatting one number.
struct NumberBuf {
    bytes: [u8; 64],
    len: usize,
}

impl NumberBuf {
    fn new() -> Self {
        Self {
            bytes: [0; 64],
            len: 0,
        }
    }

    fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

impl fmt::Write for NumberBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let dst = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl ser::Error for WriteError {
    fn custom<T: fmt::Display>(_: T) -> Self {
        WriteError::Misuse
    }
}

/// Serializes one value through a [`ResultWriter`].
struct ValueSerializer<'a, 'o> {
    w: &'a mut ResultWriter<'o>,
}

/// Serializes the members of an array or object through a [`ResultWriter`].
struct Compound<'a, 'o> {
    w: &'a mut ResultWriter<'o>,
    /// Close an extra object (enum variants are `{"Variant": ...}`).
    wrapped: bool,
}

impl Compound<'_, '_> {
    fn close(self) -> Result<(), WriteError> {
        self.w.end()?;
        if self.wrapped {
            self.w.end()?;
        }
        Ok(())
    }
}

impl<'a, 'o> ser::Serializer for ValueSerializer<'a, 'o> {
    type Ok = ();
    type Error = WriteError;
    type SerializeSeq = Compound<'a, 'o>;
    type SerializeTuple = Compound<'a, 'o>;
    type SerializeTupleStruct = Compound<'a, 'o>;
    type SerializeTupleVariant = Compound<'a, 'o>;
    type SerializeMap = Compound<'a, 'o>;
    type SerializeStruct = Compound<'a, 'o>;
    type SerializeStructVariant = Compound<'a, 'o>;

    fn serialize_bool(self, v: bool) -> Result<(), WriteError> {
        self.w.bool(v)
    }
    fn serialize_i8(self, v: i8) -> Result<(), WriteError> {
        self.w.i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), WriteError> {
        self.w.i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), WriteError> {
        self.w.i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), WriteError> {
        self.w.i64(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), WriteError> {
        self.w.wide_integer(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), WriteError> {
        self.w.u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), WriteError> {
        self.w.u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), WriteError> {
        self.w.u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), WriteError> {
        self.w.u64(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), WriteError> {
        self.w.wide_integer(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), WriteError> {
        self.w.f64_value(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<(), WriteError> {
        self.w.f64_value(v)
    }
    fn serialize_char(self, v: char) -> Result<(), WriteError> {
        self.w.str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), WriteError> {
        self.w.str(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), WriteError> {
        self.w.begin_array()?;
        for &b in v {
            self.w.u64(b.into())?;
        }
        self.w.end()
    }
    fn serialize_none(self) -> Result<(), WriteError> {
        self.w.null()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), WriteError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), WriteError> {
        self.w.null()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), WriteError> {
        self.w.null()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), WriteError> {
        self.w.str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), WriteError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), WriteError> {
        self.w.begin_object()?;
        self.w.key(variant)?;
        value.serialize(ValueSerializer { w: self.w })?;
        self.w.end()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a, 'o>, WriteError> {
        self.w.begin_array()?;
        Ok(Compound {
            w: self.w,
            wrapped: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'o>, WriteError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'o>, WriteError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a, 'o>, WriteError> {
        self.w.begin_object()?;
        self.w.key(variant)?;
        self.w.begin_array()?;
        Ok(Compound {
            w: self.w,
            wrapped: true,
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a, 'o>, WriteError> {
        self.w.begin_object()?;
        Ok(Compound {
            w: self.w,
            wrapped: false,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a, 'o>, WriteError> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a, 'o>, WriteError> {
        self.w.begin_object()?;
        self.w.key(variant)?;
        self.w.begin_object()?;
        Ok(Compound {
            w: self.w,
            wrapped: true,
        })
    }
    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<(), WriteError> {
        self.w.string_start()?;
        let mut adapter = StringAdapter {
            w: self.w,
            err: None,
        };
        if write!(adapter, "{value}").is_err() {
            return Err(adapter.err.unwrap_or(WriteError::Misuse));
        }
        self.w.string_end()
    }
}

/// `fmt::Write` into an open string of a [`ResultWriter`].
struct StringAdapter<'a, 'o> {
    w: &'a mut ResultWriter<'o>,
    err: Option<WriteError>,
}

impl fmt::Write for StringAdapter<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.w.string_push(s).map_err(|e| {
            self.err = Some(e);
            fmt::Error
        })
    }
}

/// The sequence-like compounds: each element is the next value of the open array.
macro_rules! sequence_compound {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = WriteError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WriteError> {
                value.serialize(ValueSerializer { w: self.w })
            }
            fn end(self) -> Result<(), WriteError> {
                self.close()
            }
        }
    )*};
}

sequence_compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = WriteError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), WriteError> {
        key.serialize(KeySerializer { w: self.w })
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WriteError> {
        value.serialize(ValueSerializer { w: self.w })
    }
    fn end(self) -> Result<(), WriteError> {
        self.close()
    }
}

/// The struct-like compounds: each field is a key and its value.
macro_rules! struct_compound {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = WriteError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), WriteError> {
                self.w.key(key)?;
                value.serialize(ValueSerializer { w: self.w })
            }
            fn end(self) -> Result<(), WriteError> {
                self.close()
            }
        }
    )*};
}

struct_compound!(SerializeStruct, SerializeStructVariant);

/// Serializes a map key: strings, and integers and `char`s written as strings.
struct KeySerializer<'a, 'o> {
    w: &'a mut ResultWriter<'o>,
}

impl KeySerializer<'_, '_> {
    fn display(self, v: impl fmt::Display) -> Result<(), WriteError> {
        let mut buf = NumberBuf::new();
        write!(buf, "{v}").map_err(|_| WriteError::Misuse)?;
        let s = core::str::from_utf8(buf.as_bytes()).map_err(|_| WriteError::Misuse)?;
        self.w.key(s)
    }
}

impl ser::Serializer for KeySerializer<'_, '_> {
    type Ok = ();
    type Error = WriteError;
    type SerializeSeq = ser::Impossible<(), WriteError>;
    type SerializeTuple = ser::Impossible<(), WriteError>;
    type SerializeTupleStruct = ser::Impossible<(), WriteError>;
    type SerializeTupleVariant = ser::Impossible<(), WriteError>;
    type SerializeMap = ser::Impossible<(), WriteError>;
    type SerializeStruct = ser::Impossible<(), WriteError>;
    type SerializeStructVariant = ser::Impossible<(), WriteError>;

    fn serialize_str(self, v: &str) -> Result<(), WriteError> {
        self.w.key(v)
    }
    fn collect_str<T: fmt::Display + ?Sized>(self, value: &T) -> Result<(), WriteError> {
        self.display(value)
    }
    fn serialize_char(self, v: char) -> Result<(), WriteError> {
        self.w.key(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_i8(self, v: i8) -> Result<(), WriteError> {
        self.display(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), WriteError> {
        self.display(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), WriteError> {
        self.display(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), WriteError> {
        self.display(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), WriteError> {
        self.display(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), WriteError> {
        self.display(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), WriteError> {
        self.display(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), WriteError> {
        self.display(v)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), WriteError> {
        self.w.key(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), WriteError> {
        value.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_f32(self, _: f32) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_f64(self, _: f64) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_none(self) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_unit(self) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, WriteError> {
        Err(WriteError::Misuse)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    fn written<T: Serialize + ?Sized>(v: &T) -> std::string::String {
        let mut buf = [0u8; 256];
        let mut w = ResultWriter::new(&mut buf);
        w.serialize(v).unwrap();
        std::string::String::from_utf8(w.written().to_vec()).unwrap()
    }

    #[derive(serde::Serialize)]
    enum E {
        Unit,
        New(u8),
        Tuple(u8, char),
        Struct { a: Option<u8>, b: f64 },
    }

    #[test]
    fn serializes_like_serde_json() {
        assert_eq!(
            written(&(1u8, -2i64, "a\"\n", 'é', true, ())),
            r#"[1,-2,"a\"\n","é",true,null]"#
        );
        assert_eq!(written(&[E::Unit, E::New(1)]), r#"["Unit",{"New":1}]"#);
        assert_eq!(written(&E::Tuple(1, 'x')), r#"{"Tuple":[1,"x"]}"#);
        assert_eq!(
            written(&E::Struct { a: None, b: 0.5 }),
            r#"{"Struct":{"a":null,"b":0.5}}"#
        );
        assert_eq!(
            written(&[1.0f64, 1e300, -1e-300, f64::NAN, 0.1]),
            "[1,1e300,-1e-300,null,0.1]"
        );
        assert_eq!(
            written(&u128::MAX),
            "340282366920938463463374607431768211455"
        );
        assert_eq!(
            written(&i128::MIN),
            "-170141183460469231731687303715884105728"
        );
        for v in [
            1.0f64,
            1e300,
            -1e-300,
            0.1,
            123456.789,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            let s = written(&v);
            assert_eq!(s.parse::<f64>().unwrap(), v, "{s}");
        }
    }

    #[test]
    fn decode_errors_say_why() {
        let p = Params::new(Some(RawJson::new(b"[1, 2, 3]").unwrap()));
        let e = p.decode::<(u8, u8)>().unwrap_err();
        assert_eq!(
            (e.code, e.message),
            (code::INVALID_PARAMS, "Invalid params: too many values")
        );
        let e = p.decode::<(u8, u8, u8, u8)>().unwrap_err();
        assert_eq!(
            e.message,
            "Invalid params: the shape does not match (a field missing, too few values, or an unknown variant)"
        );
        let e = p.decode::<(u8, u8, bool)>().unwrap_err();
        assert_eq!(e.message, "Invalid params: a value has the wrong type");
        assert_eq!(Params::new(None).decode::<Option<(u8,)>>(), Ok(None));
    }
}
