//! Typed params and results (feature `serde`): the one module that names `serde`.
//!
//! - **Params in**: [`Params::decode`](crate::Params::decode) and
//!   [`RawJson::decode`] run this crate's own deserializer over the already
//!   validated params: a tuple or array for positional params, a struct for named
//!   ones. Strings without escapes are borrowed; strings with escapes are unescaped
//!   into a scratch buffer ([`Params::decode_with_scratch`](crate::Params::decode_with_scratch))
//!   and handed to owned string types. A shape that does not fit is a
//!   [`DecodeError`]: a [`Reason`] and where it failed ([`At`]: the member's key or
//!   the element's index), which becomes a `-32602`. No input and no type makes it
//!   panic, allocate or recurse more than [`MAX_DEPTH`] levels (or the bound given to
//!   [`RawJson::decode_within`]); it reads the value as it decodes it, each byte once
//!   whatever its depth.
//! - **Results out**: [`ResultWriter::serialize`](crate::ResultWriter::serialize)
//!   writes any `Serialize` value straight into the reply buffer, through the same
//!   checked writer as every other result: no intermediate copy, and an overflow
//!   rolls the reply back like any other. A `char` is a string; a custom error is a
//!   `-32603`.
//! - **Pass-through**: a [`RawJson`] field is borrowed as is from the params (an MCP
//!   tool's `arguments`) and written verbatim into a result.
//! - **Typed handlers**: [`typed()`] adapts a closure over typed params and a typed
//!   result to a [`Handler`](crate::Handler), with a [`DEFAULT_SCRATCH`]-byte scratch
//!   buffer on the stack ([`typed_sized`], [`typed_with_scratch`] for others); the
//!   [`typed_handler!`](crate::typed_handler) macro writes the whole handler from a
//!   signature. [`typed_params`] decodes alone, with the same `-32602`, for async
//!   handlers and for results that borrow the handler's locals.
//!
//! # Shapes
//!
//! What each serde shape decodes from, and what is refused (always a clean
//! [`DecodeError`], `-32602`, never a panic). It follows serde_json wherever both
//! decode; the differential tests hold it to that.
//!
//! | Type | Decodes from | Refused, with [`Reason`] |
//! |---|---|---|
//! | `bool` | `true`, `false` | anything else: `ExpectedBool` |
//! | `i8` … `i64`, `u8` … `u64`, `i128`, `u128` | an integer lexeme (no fraction, no exponent), range-checked exactly | `1.0`, `1e2`, `-0`: `ExpectedInteger`; beyond the type: `IntegerOutOfRange` |
//! | `f32`, `f64` | any number (nearest value) | beyond `f64` (`1e400`): `NumberOutOfRange`, as serde_json |
//! | `&str`, `&[u8]` (borrowed) | a string without escapes | a string with escapes: `EscapedBorrowed` (use an owned type) |
//! | `String`, `heapless::String<N>`, `char`, `Cow<str>` | any string; escapes decoded into the scratch | no scratch: `NoScratch`; longer than the scratch: `ScratchTooSmall`; beyond `N`: `StringTooLong` |
//! | `Option<T>` | `null` is `None`, anything else `Some` (also a missing field) | as `T` |
//! | `()`, unit structs | `null` | `ExpectedNull` |
//! | newtype structs | as the inner type | as the inner type |
//! | tuples, tuple structs, `[T; N]` | an array of exactly that many elements | fewer: `TooFewElements`, more: `TooManyElements`, at the index |
//! | `heapless::Vec<T, N>`, `Vec<T>` | an array | more than `N`: `TooManyElements`, at the index |
//! | structs | an object (or, as serde_json, an array of the fields in order) | missing field: `MissingField`; with `deny_unknown_fields`, an unknown member: `UnknownField`; a field twice: `DuplicateField` |
//! | maps (`BTreeMap`, `HashMap`, `heapless::LinearMap`) | an object; keys as strings, or parsed as integers, floats or booleans for those key types (as serde_json; a key with escapes is decoded first, so `"\u0031"` is the integer key 1, which serde_json refuses) | a key that does not parse: `ExpectedInteger`…; keys of unit, sequence or map types: `BadMapKey` |
//! | enums, externally tagged (the default) | `"Unit"`, or `{"Variant": value}` (one member) | anything else: `ExpectedEnum`; a bare name for a variant with data: `VariantNeedsData`; `UnknownVariant` |
//! | enums, internally tagged, adjacently tagged, untagged; `#[serde(flatten)]` | through `deserialize_any` (serde buffers the value; needs serde's `alloc`) | no variant matches: `Custom` (serde's message is not kept: it would need an allocation) |
//! | `serde_json::Value`-like types, `IgnoredAny` | anything, through `deserialize_any` | — |
//! | [`RawJson`] | any value, borrowed as sent | inside untagged or internally tagged enums and `flatten` (serde buffers those values, and a buffer cannot hand out the raw text): `WrongType`, or `Custom` from an untagged enum |
//!
//! Nesting deeper than [`MAX_DEPTH`] levels, or the bound given to
//! [`RawJson::decode_within`] (arrays, objects, enum wrappers, `Some` and newtypes
//! each count one), is `TooDeep`, whatever the type. Each level costs stack
//! (`SECURITY.md` gives the measured size); untagged and internally tagged enums and
//! `flatten` go over their buffered value once per variant tried and per level of
//! such nesting (`SECURITY.md`).
//!
//! Where it failed goes with every error ([`At`]): the innermost member (its key as
//! sent) or element (its index), or the field found missing. `Display` says it all
//! (``Invalid params: field `uri`: expected a string``), and it is the message of the
//! `-32602` the typed adapters ([`typed()`], [`typed_handler!`](crate::typed_handler))
//! answer with, written at run time with [`ResultWriter::error`](crate::ResultWriter::error),
//! the key or index as its `data`. A `DecodeError` returned from a handler with `?`
//! instead is a static `-32602` (see [`DecodeError`]).

mod client;
mod de;
mod error;
mod raw;
mod response;
mod ser;
mod typed;

use crate::raw::{Kind, RawJson, RawStr};

pub use de::MAX_DEPTH;
pub use error::{At, DecodeError, Reason};
pub use response::ResultError;
pub use typed::{
    typed, typed_params, typed_params_sized, typed_sized, typed_with_scratch, DEFAULT_SCRATCH,
};

/// A value that may be a number or a string (an id, a hex quantity), read from a
/// [`RawJson`] view without decoding it. (An untagged enum does the same through
/// [`Params::decode`](crate::Params::decode).)
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
