//! The elements of a batch: counted as the scanner validates the batch, then read one
//! at a time with the trusted skipper (on the fast build an element is never validated
//! twice; on the compact one the trusted skip is the validator itself, for flash).

use super::members::Slots;
use super::Top;
use crate::error::InvalidRequest;
use crate::limits::Limits;
use crate::raw::{skip_trusted, Cursor, RawJson};
use crate::scan::{byte_at, skip_ws, Visit};

/// The elements of a validated batch, read one at a time with the trusted skipper: an
/// object's envelope members, or `None` for an element that is not an object.
#[derive(Clone)]
pub(super) struct BatchElements<'a> {
    /// The batch, `[` to `]`.
    batch: &'a [u8],
    /// Offset of the next element, or `batch.len()` when done.
    pos: usize,
    /// How many elements the batch has.
    pub(super) len: usize,
    pub(super) limits: &'a Limits,
}

impl core::fmt::Debug for BatchElements<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BatchElements")
            .field("len", &self.len)
            .finish()
    }
}

impl<'a> BatchElements<'a> {
    /// The next element as a value: the compact build walks a batch as any array is
    /// walked (flash).
    pub(super) fn next_value(&mut self) -> Option<RawJson<'a>> {
        if self.pos >= self.batch.len() {
            return None;
        }
        let mut cursor = Cursor::at(self.batch, self.pos);
        let element = cursor.take_value()?;
        self.pos = cursor.position();
        Some(element)
    }

    /// Reads the next element (the fast build): `Some(true)` when it is an object (its
    /// envelope members recorded into `slots`, which start empty), `Some(false)` when
    /// it is not, `None` after the last one.
    pub(super) fn next_into(&mut self, slots: &mut Slots<'a>) -> Option<bool> {
        let (batch, start) = (self.batch, self.pos);
        if start >= batch.len() || byte_at(batch, start) == b']' {
            return None;
        }
        let (object, end) = if byte_at(batch, start) != b'{' {
            (false, skip_trusted(batch, start))
        } else {
            // The envelope keys a word at a time (see `Slots::read`).
            (true, slots.read(batch, start))
        };
        let next = skip_ws(batch, end);
        self.pos = if byte_at(batch, next) == b',' {
            skip_ws(batch, next + 1)
        } else {
            batch.len()
        };
        Some(object)
    }
}

/// The batch `batch` (validated, an array of `len` elements), or why it is answered as
/// one invalid request.
pub(super) fn top<'a>(batch: RawJson<'a>, len: usize, limits: &'a Limits) -> Top<'a> {
    match len {
        0 => Top::Other(InvalidRequest::EmptyBatch),
        len if len > limits.max_batch => Top::Other(InvalidRequest::BatchTooLarge),
        len => Top::Batch(BatchElements {
            batch: batch.as_bytes(),
            pos: skip_ws(batch.as_bytes(), 1),
            len,
            limits,
        }),
    }
}

/// Counts the elements of a batch as the scanner reports them.
#[derive(Default)]
pub(super) struct Counter {
    /// The elements counted.
    pub(super) len: usize,
}

impl Visit for Counter {
    fn known_key(&mut self, _: usize) -> usize {
        0
    }

    fn key(&mut self, _: usize, _: usize, _: usize) {}

    #[inline]
    fn end(&mut self, _: usize) {
        self.len += 1;
    }
}
