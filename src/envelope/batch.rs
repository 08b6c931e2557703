//! The elements of a batch. On the fast build, the pass that validates a batch of
//! requests (`object.rs`'s reader) records the request members of its first
//! [`RECORDED`] elements as it goes ([`ElementRecorder`]); once the whole batch is
//! valid, these elements are handed out from their records, and any after them are
//! read one at a time with the trusted skipper (`Slots::read`), never validated again.
//! Batches of responses are counted in the validating pass and all read the second
//! way. On the compact build the elements are
//! counted, then read as any array's (the trusted skip is the validator's own rules,
//! `raw::skip_by_validating`, for flash).

use super::members::Slots;
use super::object::Visit;
use super::{Batch, Top};
use crate::error::InvalidRequest;
use crate::limits::Limits;
use crate::raw::{skip_trusted, Cursor, RawJson};
use crate::scan::{byte_at, skip_ws};
#[cfg(jsonrpc_slice_fast)]
use {
    super::members::{le, Member, MemberStart},
    super::object,
    super::VERSION_LEXEME,
    super::{Call, Envelope},
    crate::id::Id,
    crate::scan::{self, word_at, ScanError},
};

/// How many elements of a batch of requests the validating pass records (the fast
/// build). Each costs [`Recorded`]'s 16 bytes in [`Envelope`].
#[cfg(jsonrpc_slice_fast)]
pub(super) const RECORDED: usize = 10;
#[cfg(jsonrpc_slice_fast)]
const _: () = assert!(RECORDED <= u8::MAX as usize);

/// The longest message whose batch is recorded: offsets in a record are `u16`.
#[cfg(jsonrpc_slice_fast)]
pub(super) const RECORDED_BYTES: usize = u16::MAX as usize;

/// The request members of one batch element, as the validating pass found them:
/// offsets into the message (a batch is recorded when its message is at most
/// [`RECORDED_BYTES`] long). `jsonrpc` is one bit when it is `"2.0"` as most senders
/// write it; an element with any other `jsonrpc` is read again with the trusted
/// skipper ([`READ_AGAIN`]).
#[cfg(jsonrpc_slice_fast)]
#[derive(Copy, Clone)]
pub(super) struct Recorded {
    /// The values of `method`, `params` and `id` (indexed by `Member as usize - 1`):
    /// start and length; `[0, 0]` when absent (no value is empty).
    spans: [[u16; 2]; 3],
    /// Where the next element starts (after the element's `,` and any whitespace), or
    /// the batch's length after the last.
    next: u16,
    /// Bit `Member as u8` set for each of the request members given twice, and
    /// [`VERSION`] and [`READ_AGAIN`].
    flags: u8,
}

/// [`Recorded::flags`]: `jsonrpc` given, as `"2.0"`.
#[cfg(jsonrpc_slice_fast)]
const VERSION: u8 = 1 << 4;
/// [`Recorded::flags`]: `jsonrpc` given otherwise, or the element is not an object; the
/// element is read again.
#[cfg(jsonrpc_slice_fast)]
const READ_AGAIN: u8 = 1 << 5;

#[cfg(jsonrpc_slice_fast)]
impl Recorded {
    /// No member yet.
    const EMPTY: Self = Self {
        spans: [[0; 2]; 3],
        next: 0,
        flags: 0,
    };
}

/// The elements of a validated batch, read one at a time, from the records of the
/// validating pass ([`Records`]) where there are some, else with the trusted skipper:
/// an object's envelope members, or that the element is not an object.
#[derive(Clone)]
pub(super) struct BatchElements<'a> {
    /// The message up to the batch's `]`, from its start or from the `[`: the offsets
    /// are into this.
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

    /// The next element of a batch of requests as the validating pass recorded it (the
    /// fast build), if it did: the envelope members of that object. `None` when it has
    /// no record (it is not an object, or its `jsonrpc` is not written `"2.0"`) or there
    /// is none left; then [`next_into`](Self::next_into) reads it.
    #[inline(always)]
    pub(super) fn next_recorded(&mut self, records: &mut Records) -> Option<Slots<'a>> {
        let batch = self.batch;
        if self.pos >= batch.len() {
            return None;
        }
        let (slots, next) = records.take(batch)?;
        self.pos = next;
        Some(slots)
    }

    /// Reads the next element (the fast build): `Some(true)` when it is an object (its
    /// envelope members put into `slots`, which start empty), `Some(false)` when it is
    /// not, `None` after the last one. With the trusted skipper.
    #[inline(always)]
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
        self.step(end);
        Some(object)
    }

    /// Past the element that ends at `end`, and the comma after it.
    #[inline(always)]
    fn step(&mut self, end: usize) {
        let batch = self.batch;
        let next = skip_ws(batch, end);
        self.pos = if byte_at(batch, next) == b',' {
            skip_ws(batch, next + 1)
        } else {
            batch.len()
        };
    }
}

/// The first elements of a batch of requests, as the validating pass recorded them
/// (the fast build; the compact build records nothing).
#[derive(Clone)]
pub(super) struct Records {
    /// The records of the first elements of the batch, in order. When the validating
    /// pass recorded nothing, every record is marked [`READ_AGAIN`], as its element
    /// would be; the records past the batch's last element are never reached (its
    /// `next` is the batch's end). So no count is kept or asked.
    #[cfg(jsonrpc_slice_fast)]
    elements: [Recorded; RECORDED],
    /// The index of the next element.
    #[cfg(jsonrpc_slice_fast)]
    next: usize,
}

/// A record that is not used: its element is read again, with the trusted skipper.
#[cfg(jsonrpc_slice_fast)]
const UNUSED: Recorded = Recorded {
    flags: READ_AGAIN,
    ..Recorded::EMPTY
};

impl Records {
    /// No records: every element is read with the trusted skipper.
    #[cfg(jsonrpc_slice_fast)]
    const NONE: Self = Self {
        elements: [UNUSED; RECORDED],
        next: 0,
    };
    /// No records: the compact build's.
    #[cfg(not(jsonrpc_slice_fast))]
    const NONE: Self = Self {};

    /// The next element of `batch` from its record, if the validating pass recorded it
    /// (then it is an object): its members, and where the next element starts.
    #[cfg(jsonrpc_slice_fast)]
    #[inline(always)]
    fn take<'a>(&mut self, batch: &'a [u8]) -> Option<(Slots<'a>, usize)> {
        let index = self.next;
        self.next = index + 1;
        let element = self.elements.get(index)?;
        if element.flags & READ_AGAIN != 0 {
            return None;
        }
        let slots = {
            let value = |[from, len]: [u16; 2]| {
                let from = from as usize;
                (len != 0)
                    .then(|| batch.get(from..from + len as usize))
                    .flatten()
                    .map(RawJson::trusted)
            };
            let version = (element.flags & VERSION != 0).then(|| RawJson::trusted(VERSION_LEXEME));
            let [method, params, id] = element.spans;
            Slots::of_request_members(
                [version, value(method), value(params), value(id)],
                element.flags,
            )
        };
        Some((slots, element.next as usize))
    }

    /// The compact build records nothing.
    #[cfg(not(jsonrpc_slice_fast))]
    #[inline(always)]
    fn take<'a>(&mut self, _: &'a [u8]) -> Option<(Slots<'a>, usize)> {
        None
    }
}

impl<'a> Batch<'a> {
    /// A batch whose elements are all read with the trusted skipper. Out of line on
    /// the fast build: its empty records are written on this path alone, not on every
    /// path of [`parse`](super::parse).
    #[cfg_attr(jsonrpc_slice_fast, inline(never))]
    #[cfg_attr(not(jsonrpc_slice_fast), inline(always))]
    pub(super) fn unrecorded(elements: BatchElements<'a>) -> Self {
        Batch {
            elements,
            records: Records::NONE,
        }
    }
}

/// The batch that ends `batch` (validated, an array of `len` elements), its `[` at
/// `open`, or why it is answered as one invalid request.
pub(super) fn top<'a>(batch: &'a [u8], open: usize, len: usize, limits: &'a Limits) -> Top<'a> {
    match len {
        0 => Top::Other(InvalidRequest::EmptyBatch),
        len if len > limits.max_batch => Top::Other(InvalidRequest::BatchTooLarge),
        len => Top::Batch(BatchElements {
            batch,
            pos: skip_ws(batch, open + 1),
            len,
            limits,
        }),
    }
}

/// [`parse`](super::parse) of a batch of requests (the fast build; `input`, its first
/// byte after whitespace a `[`, at most [`RECORDED_BYTES`] long): validated whole, the
/// members of its first [`RECORDED`] elements recorded as it goes. Out of line: the
/// records are written into the returned envelope only on this path.
#[cfg(jsonrpc_slice_fast)]
#[inline(never)]
pub(super) fn parse_recorded<'a>(
    input: &'a [u8],
    limits: &'a Limits,
) -> Result<Envelope<'a>, ScanError> {
    let (at, max_depth) = (skip_ws(input, 0), limits.depth_in_force());
    let mut recorded = [Recorded::EMPTY; SCRATCH];
    // Most batches: their elements read the quick way (`object.rs`).
    let quick = {
        let mut recorder = ElementRecorder::new(input, &mut recorded);
        object::batch(input, at, max_depth, &mut recorder).map(|end| (recorder.len, end))
    };
    // What it gives up on, the validator names the error of (or finds the batch empty);
    // then no record is used.
    let (len, start, end, used) = match quick {
        // The offsets of a longer batch would not fit the records: none is used.
        Some((len, end)) => (len, at, end, input.len() <= RECORDED_BYTES),
        None => {
            let (start, end) = scan::text(input, max_depth)?;
            (count(input, start, end), start, end, false)
        }
    };
    let elements = match top(input.get(..end).unwrap_or(&[]), start, len, limits) {
        Top::Batch(elements) => elements,
        Top::Other(reason) => {
            return Ok(Envelope::Single(Call::Invalid {
                id: Id::NULL,
                reason,
            }))
        }
        // Not made by `top`.
        Top::Object | Top::Value(_) => {
            return Ok(Envelope::Single(Call::Invalid {
                id: Id::NULL,
                reason: InvalidRequest::NotAnObject,
            }))
        }
    };
    if !used {
        recorded.fill(UNUSED);
    }
    // The records past the batch's last element are not reached: its `next` is the
    // batch's end.
    Ok(Envelope::Batch(Batch {
        elements,
        records: Records {
            elements: *recorded.first_chunk().unwrap_or(&[UNUSED; RECORDED]),
            next: 0,
        },
    }))
}

/// The number of elements of the validated array at `start..end` of `input`, counted
/// with the trusted skipper (for what the quick reader gave up on: an empty batch).
pub(super) fn count(input: &[u8], start: usize, end: usize) -> usize {
    RawJson::trusted(input.get(start..end).unwrap_or(&[]))
        .elements()
        .count()
}

/// Counts the elements of a batch as the quick reader reports them.
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

    fn end(&mut self, _: usize) {}

    fn usual(&mut self, _: [(usize, usize); 4]) {}

    #[inline]
    fn element_end(&mut self, _: usize) {
        self.len += 1;
    }
}

/// Records the request members of the first [`RECORDED`] elements of a batch as the
/// quick reader reports them, and counts the elements.
#[cfg(jsonrpc_slice_fast)]
pub(super) struct ElementRecorder<'a, 'r> {
    /// The member being walked, in the input.
    current: MemberStart<'a>,
    /// The elements that have ended.
    pub(super) len: usize,
    /// Where the element being walked is recorded: `len`, or the last of [`SCRATCH`]
    /// for any element past it (whose record is not used). Kept, not derived from
    /// `len` at each visit, which costs a compare per visit.
    at: usize,
    recorded: &'r mut [Recorded; SCRATCH],
}

/// How many records the recorder writes into: [`RECORDED`] and more, a power of two,
/// so that the element's record is found by a mask, not a bounds check.
#[cfg(jsonrpc_slice_fast)]
pub(super) const SCRATCH: usize = (RECORDED + 1).next_power_of_two();

/// The record at `at` (at most `SCRATCH - 1`), found by a mask.
#[cfg(jsonrpc_slice_fast)]
#[inline(always)]
fn record_at(recorded: &mut [Recorded; SCRATCH], at: usize) -> &mut Recorded {
    &mut recorded[at & (SCRATCH - 1)]
}

#[cfg(jsonrpc_slice_fast)]
impl<'a, 'r> ElementRecorder<'a, 'r> {
    /// Ready to record into `recorded` (all empty) the batch in `input` (the records
    /// are of use when `input` is at most [`RECORDED_BYTES`] long).
    pub(super) fn new(input: &'a [u8], recorded: &'r mut [Recorded; SCRATCH]) -> Self {
        Self {
            current: MemberStart::new(input),
            len: 0,
            at: 0,
            recorded,
        }
    }

    /// The record of the element being walked.
    #[inline(always)]
    fn element(&mut self) -> &mut Recorded {
        record_at(self.recorded, self.at)
    }
}

// Inlined into the quick reader of `object.rs`, as `Recorder`'s are.
#[cfg(jsonrpc_slice_fast)]
impl Visit for ElementRecorder<'_, '_> {
    #[inline(always)]
    fn known_key(&mut self, i: usize) -> usize {
        self.current.known_key(i)
    }

    #[inline(always)]
    fn key(&mut self, key: usize, key_end: usize, value: usize) {
        self.current.key(key, key_end, value);
    }

    #[inline(always)]
    fn end(&mut self, end: usize) {
        let (m, value) = (self.current.member, self.current.value);
        // Not `self.element()`: the member's input is read below.
        let element = record_at(self.recorded, self.at);
        if m == Member::Jsonrpc {
            if element.flags & (VERSION | READ_AGAIN) != 0 {
                element.flags |= 1 << Member::Jsonrpc as u8;
            }
            // `VERSION_LEXEME`: its five bytes, and nothing after them.
            const V2: u64 = le(VERSION_LEXEME);
            let five = word_at(self.current.input, value) & 0xFF_FFFF_FFFF;
            element.flags |= if five == V2 && end == value + VERSION_LEXEME.len() {
                VERSION
            } else {
                READ_AGAIN
            };
        } else if let Some(span) = element.spans.get_mut((m as usize).wrapping_sub(1)) {
            if span[1] != 0 {
                element.flags |= 1 << m as u8;
            }
            *span = [value as u16, end.wrapping_sub(value) as u16];
        }
    }

    #[inline(always)]
    fn usual(&mut self, spans: [(usize, usize); 4]) {
        let element = self.element();
        // Its first member: the version, as most senders write it.
        element.flags |= VERSION;
        let [_, method, params, id] = spans;
        element.spans =
            [method, params, id].map(|(start, end)| [start as u16, end.wrapping_sub(start) as u16]);
    }

    #[inline(always)]
    fn element_end(&mut self, next: usize) {
        self.element().next = next as u16;
        self.len += 1;
        self.at = self.len.min(SCRATCH - 1);
    }

    #[inline(always)]
    fn not_an_object(&mut self) {
        self.element().flags |= READ_AGAIN;
    }
}
