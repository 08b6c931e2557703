//! `defmt::Format` for the public error and message types (feature `defmt`).
//!
//! The one file that names `defmt`. Raw JSON is printed as bytes with the `{=[u8]:a}`
//! hint, which shows it as `b"..."` text on the host.

use defmt::{write, Format, Formatter};

use crate::dispatch::OutputTooSmall;
use crate::envelope::{Call, ErrorObject, InvalidResponse, Outcome, Request, Response};
use crate::error::{InvalidRequest, RpcError};
use crate::id::{Id, IdKind};
use crate::limits::Limits;
use crate::raw::{Kind, RawJson, RawStr};
use crate::scan::{ScanError, ScanErrorKind};
use crate::write::WriteError;

impl Format for RawJson<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "{=[u8]:a}", self.as_bytes())
    }
}

impl Format for RawStr<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "{=[u8]:a}", self.as_raw())
    }
}

impl Format for Id<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "Id({=[u8]:a})", self.as_bytes())
    }
}

impl Format for IdKind {
    fn format(&self, f: Formatter<'_>) {
        let name = match self {
            IdKind::String => "String",
            IdKind::Number => "Number",
            IdKind::Null => "Null",
        };
        write!(f, "{=str}", name)
    }
}

impl Format for Kind {
    fn format(&self, f: Formatter<'_>) {
        let name = match self {
            Kind::Object => "Object",
            Kind::Array => "Array",
            Kind::String => "String",
            Kind::Number => "Number",
            Kind::Bool => "Bool",
            Kind::Null => "Null",
        };
        write!(f, "{=str}", name)
    }
}

impl Format for ScanErrorKind {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "{=str}", self.as_str())
    }
}

impl Format for ScanError {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "{} at byte {=usize}", self.kind, self.offset)
    }
}

impl Format for InvalidRequest {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "{=str}", self.as_str())
    }
}

impl Format for InvalidResponse {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "{=str}", self.as_str())
    }
}

impl Format for RpcError<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "RpcError {{ code: {=i32}, message: {=str}",
            self.code, self.message
        );
        if let Some(data) = self.data {
            write!(f, ", data: {}", data);
        }
        write!(f, " }}")
    }
}

impl Format for WriteError {
    fn format(&self, f: Formatter<'_>) {
        match self {
            WriteError::BufferFull => write!(f, "BufferFull"),
            WriteError::Misuse => write!(f, "Misuse"),
            WriteError::OutboxFull => write!(f, "OutboxFull"),
        }
    }
}

impl Format for OutputTooSmall {
    fn format(&self, f: Formatter<'_>) {
        write!(f, "OutputTooSmall")
    }
}

impl Format for Limits {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "Limits {{ max_depth: {=u16}, max_batch: {=usize}, max_id_len: {=usize}, max_method_len: {=usize} }}",
            self.max_depth,
            self.max_batch,
            self.max_id_len,
            self.max_method_len
        )
    }
}

impl Format for Request<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "Request {{ method: {}, params: {}, id: {} }}",
            self.method, self.params, self.id
        )
    }
}

impl Format for Call<'_> {
    fn format(&self, f: Formatter<'_>) {
        match self {
            Call::Request(r) => write!(f, "{}", r),
            Call::Invalid { id, reason } => {
                write!(f, "Invalid {{ id: {}, reason: {} }}", id, reason)
            }
        }
    }
}

impl Format for ErrorObject<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "ErrorObject {{ code: {=i64}, message: {}, data: {} }}",
            self.code, self.message, self.data
        )
    }
}

impl Format for Outcome<'_> {
    fn format(&self, f: Formatter<'_>) {
        match self {
            Outcome::Result(r) => write!(f, "Result({})", r),
            Outcome::Error(e) => write!(f, "Error({})", e),
        }
    }
}

impl Format for Response<'_> {
    fn format(&self, f: Formatter<'_>) {
        write!(
            f,
            "Response {{ id: {}, outcome: {} }}",
            self.id, self.outcome
        )
    }
}
