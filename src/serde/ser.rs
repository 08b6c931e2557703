//! Typed results out: [`ResultWriter::serialize`], this crate's own serializer.

use core::fmt::{self, Write as _};

use serde::ser::{self, Serialize};

use super::raw::RAW_JSON_TOKEN;
use crate::raw::RawJson;
use crate::write::{f32_text, f64_text, NumberText, ResultWriter, WriteError};

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
        let mut text = NumberText::new();
        write!(text, "{v}").map_err(|_| WriteError::Misuse)?;
        self.number_text(&text)
    }

    /// A float as [`ResultWriter::f64`] writes it (the same text), but `null` for NaN
    /// and the infinities, as serde_json does.
    fn float_value(&mut self, text: Option<NumberText>) -> Result<(), WriteError> {
        match text {
            Some(text) => self.number_text(&text),
            None => self.null(),
        }
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
        self.w.float_value(f32_text(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), WriteError> {
        self.w.float_value(f64_text(v))
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
        name: &'static str,
        value: &T,
    ) -> Result<(), WriteError> {
        if name == RAW_JSON_TOKEN {
            return value.serialize(RawText { w: self.w });
        }
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
        self.w.display(value)
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
        let mut text = NumberText::new();
        write!(text, "{v}").map_err(|_| WriteError::Misuse)?;
        let s = core::str::from_utf8(text.as_bytes()).map_err(|_| WriteError::Misuse)?;
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

/// Writes the text of a [`RawJson`] verbatim (checked again: a `RawJson` holds one
/// JSON value). Anything but a string is a misuse of the token.
struct RawText<'a, 'o> {
    w: &'a mut ResultWriter<'o>,
}

/// Serializer methods that refuse their value.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $ret:ty,)*) => {$(
        fn $method(self, $(_: $arg),*) -> Result<$ret, WriteError> {
            Err(WriteError::Misuse)
        }
    )*};
}

impl ser::Serializer for RawText<'_, '_> {
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
        let raw = RawJson::new(v.as_bytes()).map_err(|_| WriteError::Misuse)?;
        self.w.raw(raw)
    }
    fn collect_str<T: fmt::Display + ?Sized>(self, _: &T) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), WriteError> {
        Err(WriteError::Misuse)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), WriteError> {
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
    refuse! {
        serialize_bool(bool) -> (),
        serialize_i8(i8) -> (),
        serialize_i16(i16) -> (),
        serialize_i32(i32) -> (),
        serialize_i64(i64) -> (),
        serialize_u8(u8) -> (),
        serialize_u16(u16) -> (),
        serialize_u32(u32) -> (),
        serialize_u64(u64) -> (),
        serialize_f32(f32) -> (),
        serialize_f64(f64) -> (),
        serialize_char(char) -> (),
        serialize_bytes(&[u8]) -> (),
        serialize_none() -> (),
        serialize_unit() -> (),
        serialize_unit_struct(&'static str) -> (),
        serialize_unit_variant(&'static str, u32, &'static str) -> (),
        serialize_seq(Option<usize>) -> Self::SerializeSeq,
        serialize_tuple(usize) -> Self::SerializeTuple,
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
        serialize_map(Option<usize>) -> Self::SerializeMap,
        serialize_struct(&'static str, usize) -> Self::SerializeStruct,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant,
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
        // Floats as serde_json writes them (NaN as `null`, as it does too).
        assert_eq!(
            written(&[1.0f64, 1e300, -1e-300, f64::NAN, 0.1]),
            "[1.0,1e+300,-1e-300,null,0.1]"
        );
        assert_eq!(written(&0.1f32), serde_json::to_string(&0.1f32).unwrap());
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
}
