//! Typed params in: decoding a [`RawJson`] or [`Params`] into a `Deserialize` type.

use serde::Deserialize;
use serde_json_core::de::Error as DeError;

use crate::error::{code, RpcError};
use crate::params::Params;
use crate::raw::RawJson;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code;

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
