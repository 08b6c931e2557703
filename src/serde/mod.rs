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

mod de;
mod ser;
mod typed;

use crate::raw::{Kind, RawJson, RawStr};

pub use typed::typed;

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
