//! [`parse`](super::parse) and [`parse_response`](super::parse_response), which read a
//! message through the build's reader (on the fast build, the member loop of
//! `read_fast.rs`, its first guess the order most senders write), against a reference
//! reader (the validator, then the members of each object compared name by name): the
//! check that
//! the unit tests and the `validate` fuzz target (cargo-fuzz builds with
//! `--cfg fuzzing`) both run. Not part of the API.

use super::members::Slots;
use super::{parse, parse_response, read, Call, Envelope, InvalidResponse, ResponseMessage};
use crate::error::InvalidRequest;
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::{Kind, RawJson};
use crate::scan::{self, skip_ws};

/// What `input` was at the nesting limit `max_depth`: a request as most senders write
/// it (the fast build's first guess read all of it), another object, a batch, or
/// neither (invalid JSON, an empty batch, or any other value).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Taken {
    /// A request as most senders write it, read whole by the first guess.
    Usual,
    /// Another object.
    Object,
    /// A non-empty batch.
    Batch,
    /// Neither a valid object nor a valid non-empty batch.
    GivenUp,
}

/// Panics unless `parse` and `parse_response` of `input`, with the nesting limit
/// `max_depth`, give what the reference reader gives: the same error, or the same
/// calls (responses), a batch's in order. Says what the readers made of `input`.
pub fn quick_reader_agrees(input: &[u8], max_depth: u16) -> Taken {
    let limits = Limits {
        max_depth,
        ..Limits::DEFAULT
    };
    let reference = scan::text(input, limits.depth_in_force())
        .map(|(start, end)| RawJson::trusted(input.get(start..end).unwrap_or(&[])));
    let elements = |v: RawJson<'_>| (v.kind() == Kind::Array).then(|| v.elements().count());
    let batch_rule = |n: usize| match n {
        0 => Some(InvalidRequest::EmptyBatch),
        n if n > limits.max_batch => Some(InvalidRequest::BatchTooLarge),
        _ => None,
    };
    match (parse(input, &limits), reference) {
        (Err(got), Err(want)) => assert_eq!(got, want, "{input:?}"),
        (Ok(got), Ok(value)) => match (got, elements(value).map(batch_rule)) {
            (Envelope::Batch(got), Some(None)) => {
                assert_eq!(got.len(), value.elements().count(), "{input:?}");
                let mut want = value.elements();
                for call in got {
                    assert_eq!(Some(call), want.next().map(|v| request(v, &limits)));
                }
                assert_eq!(want.next(), None, "{input:?}");
            }
            (Envelope::Single(call), Some(Some(reason))) => assert_eq!(
                call,
                Call::Invalid {
                    id: Id::NULL,
                    reason
                },
                "{input:?}"
            ),
            (Envelope::Single(call), None) => assert_eq!(call, request(value, &limits)),
            (got, _) => panic!("{input:?}: {got:?}"),
        },
        (got, want) => panic!("{input:?}: {got:?}, the reference {want:?}"),
    }
    match (parse_response(input, &limits), reference) {
        (Err(got), Err(want)) => assert_eq!(got, want, "{input:?}"),
        (Ok(got), Ok(value)) => match (got, elements(value).map(batch_rule)) {
            (ResponseMessage::Batch(got), Some(None)) => {
                let mut want = value.elements();
                for r in got {
                    assert_eq!(Some(r), want.next().map(response), "{input:?}");
                }
                assert_eq!(want.next(), None, "{input:?}");
            }
            (ResponseMessage::Single(r), Some(Some(reason))) => {
                let want = match reason {
                    InvalidRequest::EmptyBatch => InvalidResponse::EmptyBatch,
                    _ => InvalidResponse::BatchTooLarge,
                };
                assert_eq!(r, Err(want), "{input:?}");
            }
            (ResponseMessage::Single(r), None) => assert_eq!(r, response(value), "{input:?}"),
            (got, _) => panic!("{input:?}: {got:?}"),
        },
        (got, want) => panic!("{input:?}: {got:?}, the reference {want:?}"),
    }
    let at = skip_ws(input, 0);
    match reference {
        Ok(v) if v.kind() == Kind::Object && read::usual_reads_all(input, at) => Taken::Usual,
        Ok(v) if v.kind() == Kind::Object => Taken::Object,
        Ok(v) if v.kind() == Kind::Array && v.elements().next().is_some() => Taken::Batch,
        _ => Taken::GivenUp,
    }
}

/// The call that `value` (validated) is, its members compared name by name.
fn request<'a>(value: RawJson<'a>, limits: &Limits) -> Call<'a> {
    if value.kind() != Kind::Object {
        return Call::Invalid {
            id: Id::NULL,
            reason: InvalidRequest::NotAnObject,
        };
    }
    Slots::of_by_name(value).request(limits)
}

/// The response that `value` (validated) is, its members compared name by name.
fn response(value: RawJson<'_>) -> Result<super::Response<'_>, InvalidResponse> {
    if value.kind() != Kind::Object {
        return Err(InvalidResponse::NotAnObject);
    }
    Slots::of_by_name(value).response()
}
