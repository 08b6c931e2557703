//! [`RawJson`] as a serde field: written verbatim into typed results, borrowed as is
//! from typed params.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::raw::RawJson;

/// The newtype name by which this crate's serializer and deserializer recognise a
/// [`RawJson`] (any other serializer sees a newtype holding the JSON text).
pub(crate) const RAW_JSON_TOKEN: &str = "$jsonrpc_slice::RawJson";

impl Serialize for RawJson<'_> {
    /// Verbatim through [`ResultWriter::serialize`](crate::ResultWriter::serialize).
    /// Another serializer (serde_json's, say) writes the JSON text as a string.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = core::str::from_utf8(self.as_bytes()).unwrap_or("null");
        serializer.serialize_newtype_struct(RAW_JSON_TOKEN, text)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawJson<'a> {
    /// The value as sent, borrowed (any JSON value: an MCP tool's `arguments`
    /// object, say), through this crate's deserializer
    /// ([`Params::decode`](crate::Params::decode)). Other deserializers, and serde's
    /// buffering of untagged and internally tagged enums and `#[serde(flatten)]`,
    /// cannot hand it over and are refused.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_JSON_TOKEN, RawVisitor(PhantomData))
    }
}

/// Takes the text of the value from this crate's deserializer.
struct RawVisitor<'a>(PhantomData<RawJson<'a>>);

impl<'de: 'a, 'a> Visitor<'de> for RawVisitor<'a> {
    type Value = RawJson<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value decoded by jsonrpc_slice")
    }

    /// Checked again: only this crate's deserializer is meant to call it, with a
    /// value it has validated, but a `RawJson` must hold valid JSON whoever calls.
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        RawJson::new(v.as_bytes()).map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}
