//! Typed results for the client half: a response's `result` decoded, or its error.

use serde::Deserialize;

use super::DecodeError;
use crate::envelope::{ErrorObject, Outcome, Response};

/// Why [`Response::decode_result`] gave no value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResultError<'a> {
    /// The server answered with an error.
    Rpc(ErrorObject<'a>),
    /// The result does not decode as the type asked for.
    Decode(DecodeError<'a>),
}

impl core::fmt::Display for ResultError<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Rpc(e) => write!(f, "error {}: {}", e.code, e.message),
            Self::Decode(e) => write!(f, "{e}"),
        }
    }
}

impl<'a> Response<'a> {
    /// The `result` decoded as `T` (strings with escapes into `scratch`, as
    /// [`RawJson::decode_with_scratch`](crate::RawJson::decode_with_scratch) does), or
    /// the error the server answered with.
    ///
    /// ```
    /// use jsonrpc_slice::envelope::{parse_response, ResponseMessage};
    /// use jsonrpc_slice::serde::ResultError;
    /// use jsonrpc_slice::Limits;
    ///
    /// let reply = br#"{"jsonrpc":"2.0","result":{"height":16,"hash":"0x\u0061b"},"id":1}"#;
    /// let Ok(ResponseMessage::Single(Ok(response))) = parse_response(reply, &Limits::DEFAULT) else { panic!() };
    /// #[derive(serde::Deserialize)]
    /// struct Block { height: u64, hash: String }
    /// let block: Block = response.decode_result(&mut [0; 64]).unwrap();
    /// assert_eq!((block.height, block.hash.as_str()), (16, "0xab"));
    ///
    /// let reply = br#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":2}"#;
    /// let Ok(ResponseMessage::Single(Ok(response))) = parse_response(reply, &Limits::DEFAULT) else { panic!() };
    /// assert!(matches!(response.decode_result::<u64>(&mut []), Err(ResultError::Rpc(e)) if e.code == -32601));
    /// ```
    pub fn decode_result<T: Deserialize<'a>>(
        &self,
        scratch: &mut [u8],
    ) -> Result<T, ResultError<'a>> {
        match self.outcome {
            Outcome::Result(raw) => raw
                .decode_with_scratch(scratch)
                .map_err(ResultError::Decode),
            Outcome::Error(e) => Err(ResultError::Rpc(e)),
        }
    }
}
