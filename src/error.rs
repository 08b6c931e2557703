//! Errors: the JSON-RPC error codes and the error a handler returns.

use core::fmt;

use crate::raw::RawJson;

/// The error codes the specification defines (section 5.1).
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid Request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameter(s).
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// The first of the codes reserved for implementation-defined server errors
    /// (`-32099..=-32000`).
    pub const SERVER_ERROR_FIRST: i32 = -32099;
    /// The last of the codes reserved for implementation-defined server errors.
    pub const SERVER_ERROR_LAST: i32 = -32000;
}

/// The message the specification gives a code, for the five predefined codes.
pub const fn standard_message(code: i32) -> Option<&'static str> {
    match code {
        code::PARSE_ERROR => Some("Parse error"),
        code::INVALID_REQUEST => Some("Invalid Request"),
        code::METHOD_NOT_FOUND => Some("Method not found"),
        code::INVALID_PARAMS => Some("Invalid params"),
        code::INTERNAL_ERROR => Some("Internal error"),
        _ => None,
    }
}

/// An error a handler answers with: `code`, `message` and optional raw `data`.
///
/// The lifetime lets `data` (and `message`) borrow from the request's params.
///
/// ```
/// use jsonrpc_slice::{error::code, RpcError};
///
/// let e = RpcError::invalid_params();
/// assert_eq!((e.code, e.message), (code::INVALID_PARAMS, "Invalid params"));
/// let e = RpcError::new(-32000, "Server error");
/// assert!(e.data.is_none());
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RpcError<'a> {
    /// The error code.
    pub code: i32,
    /// A short description (written as a JSON string, escaped as needed).
    pub message: &'a str,
    /// Additional information, copied into the reply verbatim.
    pub data: Option<RawJson<'a>>,
}

impl<'a> RpcError<'a> {
    /// An error with a code and a message, without `data`.
    pub const fn new(code: i32, message: &'a str) -> Self {
        Self {
            code,
            message,
            data: None,
        }
    }

    /// The same error with `data`.
    pub const fn with_data(mut self, data: RawJson<'a>) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32602 Invalid params`.
    // Out of line: one copy for every handler's refusal (flash, on a Cortex-M).
    #[cold]
    #[inline(never)]
    pub const fn invalid_params() -> Self {
        Self::new(code::INVALID_PARAMS, "Invalid params")
    }

    /// `-32601 Method not found` (for a fallback handler: see
    /// [`Server::with_fallback`](crate::Server::with_fallback)).
    pub const fn method_not_found() -> Self {
        Self::new(code::METHOD_NOT_FOUND, "Method not found")
    }

    /// `-32603 Internal error`.
    pub const fn internal() -> Self {
        Self::new(code::INTERNAL_ERROR, "Internal error")
    }
}

impl fmt::Display for RpcError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.code, self.message)
    }
}

impl core::error::Error for RpcError<'_> {}

/// Why a message is not a valid Request object (answered with `-32600`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
// `repr(u32)`: a word, so a `Call::Invalid` (an id and this) is whole words, and a
// `Call` moves with loads and stores. With one byte, the move of its 11-byte tail was
// the one `memcpy` call left in the compact build (0.7 KiB of flash on a Cortex-M).
#[repr(u32)]
pub enum InvalidRequest {
    /// Valid JSON, but not an object (or, at the top level, not an object or array).
    NotAnObject,
    /// The batch `[]`.
    EmptyBatch,
    /// A batch with more elements than [`Limits::max_batch`](crate::Limits).
    BatchTooLarge,
    /// `jsonrpc` missing or not exactly `"2.0"`.
    BadVersion,
    /// `method` missing.
    MissingMethod,
    /// `method` not a string.
    MethodNotString,
    /// `method` longer than [`Limits::max_method_len`](crate::Limits).
    MethodTooLong,
    /// `params` present but neither an array nor an object.
    ParamsNotStructured,
    /// `id` an object, an array, `true` or `false`.
    BadId,
    /// `id` longer than [`Limits::max_id_len`](crate::Limits).
    IdTooLong,
    /// A member of the envelope given twice.
    DuplicateMember,
}

impl InvalidRequest {
    /// A short description, for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NotAnObject => "not an object",
            Self::EmptyBatch => "empty batch",
            Self::BatchTooLarge => "batch too large",
            Self::BadVersion => "jsonrpc is not \"2.0\"",
            Self::MissingMethod => "method missing",
            Self::MethodNotString => "method is not a string",
            Self::MethodTooLong => "method too long",
            Self::ParamsNotStructured => "params is not an array or object",
            Self::BadId => "id is not a string, number or null",
            Self::IdTooLong => "id too long",
            Self::DuplicateMember => "envelope member given twice",
        }
    }
}

impl fmt::Display for InvalidRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
