//! The compact build's reader of a message (for flash): the validator reads all of it,
//! then an object's members are read as any object's are ([`RawJson::members`]), and
//! a batch's elements as any array's, with the trusted skipper (the validator's own
//! rules, `scan::build_compact.rs`'s `skip_trusted`). The unit tests pin it to the reference reader
//! (`fuzzing.rs`), as they pin the fast build's.

use super::members::{member_decoded, Slots, NAMES};
use super::response::{InvalidResponse, Response, ResponseBatch};
use super::{Batch, Call, Envelope, ResponseMessage};
use crate::error::InvalidRequest;
use crate::id::Id;
use crate::limits::Limits;
use crate::raw::{Cursor, Kind, RawJson};
use crate::scan::{self, skip_ws, ScanError};

/// The first four of [`NAMES`]: the members of a Request object, all that a request's
/// reader looks for (the others are of no use to it, as any unknown key).
const REQUEST_NAMES: [&str; 4] = [NAMES[0], NAMES[1], NAMES[2], NAMES[3]];
/// All of [`NAMES`], for a response's reader.
const RESPONSE_NAMES: &[&str] = &NAMES;

/// A whole message, validated.
enum Message<'a> {
    /// One value (an object, or any other that is not a batch).
    Value(RawJson<'a>),
    /// A batch, its elements still to be read.
    Batch(Elements<'a>),
    /// A batch answered as one invalid message.
    Invalid(InvalidRequest),
}

/// Validates all of `input`: one value, or the elements of its batch.
#[inline(always)]
fn message<'a>(input: &'a [u8], limits: &'a Limits) -> Result<Message<'a>, ScanError> {
    let (start, end) = scan::text(input, limits.depth_in_force())?;
    let message = RawJson::trusted(input.get(start..end).unwrap_or(&[]));
    Ok(match message.kind() {
        Kind::Array => batch(message.as_bytes(), message.elements().count(), limits),
        _ => Message::Value(message),
    })
}

/// The batch `batch` (validated, an array of `len` elements), or why it is answered as
/// one invalid message.
fn batch<'a>(batch: &'a [u8], len: usize, limits: &'a Limits) -> Message<'a> {
    match len {
        0 => Message::Invalid(InvalidRequest::EmptyBatch),
        len if len > limits.max_batch => Message::Invalid(InvalidRequest::BatchTooLarge),
        len => Message::Batch(Elements {
            batch,
            pos: skip_ws(batch, 1),
            len,
            limits,
        }),
    }
}

/// [`super::parse`]. Inlined into its caller, for flash.
#[inline(always)]
pub(super) fn parse<'a>(input: &'a [u8], limits: &'a Limits) -> Result<Envelope<'a>, ScanError> {
    // The envelope made in the match (less flash than the call first).
    Ok(match message(input, limits)? {
        Message::Value(message) => Envelope::Single(request_of(message, limits)),
        Message::Batch(elements) => Envelope::Batch(Batch { elements }),
        Message::Invalid(reason) => Envelope::Single(Call::Invalid {
            id: Id::NULL,
            reason,
        }),
    })
}

/// [`super::parse_response`].
pub(super) fn parse_response<'a>(
    input: &'a [u8],
    limits: &'a Limits,
) -> Result<ResponseMessage<'a>, ScanError> {
    Ok(match message(input, limits)? {
        Message::Value(message) => ResponseMessage::Single(response_of(message)),
        Message::Batch(elements) => ResponseMessage::Batch(ResponseBatch { elements }),
        Message::Invalid(InvalidRequest::EmptyBatch) => {
            ResponseMessage::Single(Err(InvalidResponse::EmptyBatch))
        }
        Message::Invalid(_) => ResponseMessage::Single(Err(InvalidResponse::BatchTooLarge)),
    })
}

/// The elements of a validated batch, read one at a time as any array's.
#[derive(Clone)]
pub(super) struct Elements<'a> {
    /// The batch, from its `[` to its `]`.
    batch: &'a [u8],
    /// Offset of the next element, or `batch.len()` when done.
    pos: usize,
    /// How many elements the batch has.
    len: usize,
    limits: &'a Limits,
}

impl core::fmt::Debug for Elements<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Elements").field("len", &self.len).finish()
    }
}

impl<'a> Elements<'a> {
    /// The number of elements.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The next element.
    // A cursor of its own, not one kept in the batch: the batch's fields then stay in
    // registers (flash).
    fn next_value(&mut self) -> Option<RawJson<'a>> {
        if self.pos >= self.batch.len() {
            return None;
        }
        let mut cursor = Cursor::at(self.batch, self.pos);
        let element = cursor.take_value()?;
        self.pos = cursor.i;
        Some(element)
    }
}

impl<'a> Iterator for Batch<'a> {
    type Item = Call<'a>;

    fn next(&mut self) -> Option<Call<'a>> {
        let limits = self.elements.limits;
        Some(request_of(self.elements.next_value()?, limits))
    }
}

impl<'a> Iterator for ResponseBatch<'a> {
    type Item = Result<Response<'a>, InvalidResponse>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(response_of(self.elements.next_value()?))
    }
}

/// The call that `value` (a whole message or a batch element, validated) is. Out of
/// line: one copy, its slots off the stack once the call is answered.
#[inline(never)]
fn request_of<'a>(value: RawJson<'a>, limits: &Limits) -> Call<'a> {
    if value.kind() != Kind::Object {
        return Call::Invalid {
            id: Id::NULL,
            reason: InvalidRequest::NotAnObject,
        };
    }
    let mut slots = Slots::default();
    read_members(&mut slots, value, &REQUEST_NAMES);
    slots.request(limits)
}

/// The response that `value` (a whole message or a batch element, validated) is.
fn response_of(value: RawJson<'_>) -> Result<Response<'_>, InvalidResponse> {
    if value.kind() != Kind::Object {
        return Err(InvalidResponse::NotAnObject);
    }
    let mut slots = Slots::default();
    read_members(&mut slots, value, RESPONSE_NAMES);
    slots.response()
}

/// Records into `slots` the envelope members of `object`, a validated object, of those
/// named in `names` (any other key is `Other`), each key's escapes decoded; a member
/// given twice is marked so.
fn read_members<'a>(slots: &mut Slots<'a>, object: RawJson<'a>, names: &[&str]) {
    for (key, value) in object.members() {
        let m = member_decoded(key, names);
        if let Some(slot) = slots.values.get_mut(m as usize) {
            if slot.is_some() {
                slots.duplicates |= 1 << m as u8;
            }
            *slot = Some(value);
        }
    }
}

/// For the tests and the fuzz target: the compact build has no first guess.
#[cfg(any(test, fuzzing))]
pub(super) fn usual_reads_all(_: &[u8], _: usize) -> bool {
    false
}
