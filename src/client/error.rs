//! Why a call gave no result ([`CallError`]), and why one could not be sent
//! ([`SendError`]).

use core::fmt;

use super::pending::InsertError;
use crate::envelope::ErrorObject;
use crate::write::WriteError;

/// Why a call gave no result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError<'a> {
    /// The server answered with an error: its code, message (escapes as sent; its
    /// `Display` decodes them) and data.
    Rpc(ErrorObject<'a>),
    /// The result does not decode as the type asked for: why, and at which member or
    /// element (feature `serde`).
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    Decode(crate::serde::DecodeError<'a>),
    /// Its deadline passed before its reply came; a reply that comes later is
    /// reported as [`Incoming::Late`](super::Incoming::Late).
    TimedOut,
    /// Given up by the caller ([`Client::cancel`](super::Client::cancel)).
    Cancelled,
    /// The connection ended before its reply came.
    ConnectionLost,
    /// The reply to the message that carried it came without an answer to it (a
    /// batch reply that left it out, an exchange that ended without it).
    NoReply,
    /// The reply came with its id as another type (`7` sent, `"7"` received): a
    /// server bug, not taken as the answer.
    IdTypeChanged,
    /// The reply did not fit in the room the client keeps for replies.
    ReplyTooLarge,
    /// The handle's call was taken already (or the handle is another client's).
    Stale,
}

impl fmt::Display for CallError<'_> {
    /// The server's message is printed decoded, straight from the reply: no scratch
    /// buffer.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rpc(e) => {
                write!(f, "error {}: {}", e.code, e.message)?;
                match e.data {
                    Some(data) => write!(f, " (data: {data})"),
                    None => Ok(()),
                }
            }
            #[cfg(feature = "serde")]
            Self::Decode(e) => {
                f.write_str("the result did not decode: ")?;
                e.fmt_unprefixed(f)
            }
            Self::TimedOut => f.write_str("timed out"),
            Self::Cancelled => f.write_str("cancelled"),
            Self::ConnectionLost => f.write_str("connection lost"),
            Self::NoReply => f.write_str("no reply to this call"),
            Self::IdTypeChanged => f.write_str("the reply's id came back as another type"),
            Self::ReplyTooLarge => f.write_str("reply larger than the room kept for replies"),
            Self::Stale => f.write_str("stale handle"),
        }
    }
}

impl core::error::Error for CallError<'_> {}

/// Why a request (or a batch) was not written and registered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SendError {
    /// The table of calls in flight refused it: full, the id in flight already, or an
    /// id that cannot be kept.
    Table(InsertError),
    /// The message did not fit, or its params were not an array or an object.
    Write(WriteError),
    /// A batch with no call in it (which the specification answers with an error).
    EmptyBatch,
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Table(e) => e.fmt(f),
            Self::Write(e) => e.fmt(f),
            Self::EmptyBatch => f.write_str("empty batch"),
        }
    }
}

impl core::error::Error for SendError {}

impl From<WriteError> for SendError {
    fn from(e: WriteError) -> Self {
        Self::Write(e)
    }
}

impl From<InsertError> for SendError {
    fn from(e: InsertError) -> Self {
        Self::Table(e)
    }
}
