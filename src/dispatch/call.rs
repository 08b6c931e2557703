//! What a call's reply goes through, before and after its handler, and a batch
//! reply's state: shared by the sync [`Server`](super::Server) and the async dispatch
//! (`async_server.rs`).

use crate::envelope::Call;
use crate::error::{InvalidRequest, RpcError};
use crate::id::Id;
use crate::limits::BATCH_WORK_FACTOR;
use crate::params::Params;
use crate::raw::RawJson;
use crate::scan::ScanErrorKind;
use crate::write::ResultWriter;

/// Why a message, or a call in it, gets an error reply instead of its result.
#[derive(Copy, Clone)]
pub(crate) enum Failure<'p> {
    /// Not valid JSON (`-32700`).
    Parse,
    /// Valid JSON so far, nested deeper than the limit (`-32700`).
    TooDeep,
    /// Not a valid Request object.
    Invalid(InvalidRequest),
    /// No such method in the table.
    NotFound,
    /// The handler's own error.
    Handler(RpcError<'p>),
    /// The handler returned `Ok` with its result unfinished or misused.
    Incomplete,
    /// The reply did not fit in the room it had.
    TooLarge,
    /// The replies of a batch did not fit in the buffer.
    BatchTooLarge,
}

/// The failure of a message that is not JSON (or nests too deep).
#[inline(always)]
pub(crate) fn parse_failure<'p>(kind: ScanErrorKind) -> Failure<'p> {
    match kind {
        ScanErrorKind::TooDeep => Failure::TooDeep,
        _ => Failure::Parse,
    }
}

/// Before a call's handler runs: the start of its reply, and the writer readied for
/// its result. A notification's handler runs all the same, its writes dropped; so does
/// a call's when not even the start of its reply fits (a batch reply lost). Shared by
/// the sync and the async dispatch (`async_server.rs`).
#[inline(always)]
pub(crate) fn call_start<'p>(
    w: &mut ResultWriter<'_>,
    params: Option<RawJson<'p>>,
    id: Option<Id<'p>>,
) -> Params<'p> {
    let live = id.is_some() && w.result_prefix().is_ok();
    w.set_live(live);
    w.begin_value();
    Params::of_call(params, id)
}

/// After a call's handler ran with `outcome`: the rest of its reply (for a call), or
/// why it gets an error reply instead. Shared as [`call_start`] is.
#[inline(always)]
pub(crate) fn call_end<'p>(
    w: &mut ResultWriter<'_>,
    id: Option<Id<'_>>,
    outcome: Result<(), RpcError<'p>>,
) -> Result<(), Failure<'p>> {
    w.set_live(true);
    // An error the handler wrote itself (`ResultWriter::error`): its reply is that
    // error, whatever it returned.
    let wrote_error = w.take_error();
    let Some(id) = id else {
        return Ok(());
    };
    // A start that did not fit set the flag too.
    if w.overflowed() {
        return Err(Failure::TooLarge);
    }
    if wrote_error.is_none() {
        outcome.map_err(Failure::Handler)?;
    }
    let written = match (w.finish_value(), wrote_error) {
        (Ok(true), None) => Ok(()),
        (Ok(false), None) => w.push(b"null"),
        // The error's data, or none: then no `,"data":` either.
        (Ok(done), Some(data_at)) => {
            if !done {
                w.rollback(data_at);
            }
            w.push_byte(b'}')
        }
        (Err(_), _) => return Err(Failure::Incomplete),
    };
    written
        .and_then(|()| w.result_suffix(id))
        .map_err(|_| Failure::TooLarge)
}

/// `true` for a notification: in a batch it runs, and gets no entry.
#[inline(always)]
pub(crate) fn is_notification(call: &Call<'_>) -> bool {
    matches!(call, Call::Request(r) if r.is_notification())
}

/// Where a batch reply is: where it starts, the writer's limit before it, whether it
/// has an entry and whether it still fits. Shared by the sync and the async dispatch.
pub(crate) struct BatchState {
    pub(super) start: usize,
    pub(super) old_end: usize,
    pub(super) any: bool,
    pub(super) fits: bool,
}

impl BatchState {
    /// Starts a batch reply: room kept for the closing `]`, and the work budget set.
    #[inline(always)]
    pub(crate) fn open(w: &mut ResultWriter<'_>) -> Self {
        let start = w.mark();
        let old_end = w.set_end(w.capacity().saturating_sub(1));
        // The work budget: each rollback takes what it drops off the room left. (A
        // slice holds at most `isize::MAX` bytes: twice that is a `usize`.)
        w.set_allowance(w.capacity() * BATCH_WORK_FACTOR);
        Self {
            start,
            old_end,
            any: false,
            fits: true,
        }
    }

    /// Writes the `[` or `,` before the next entry while the reply still fits. Once
    /// the batch reply is lost (the buffer or the work budget spent), the remaining
    /// requests still run: what they write is refused for want of room, or rolled
    /// back with the batch, within the budget.
    #[inline(always)]
    pub(crate) fn separate(&self, w: &mut ResultWriter<'_>) -> bool {
        self.fits && w.push_byte(if self.any { b',' } else { b'[' }).is_ok()
    }

    /// An entry was answered (`answered`: its reply fits), after its separator.
    #[inline(always)]
    pub(crate) fn answered(&mut self, answered: bool, separated: bool) {
        self.fits = answered && separated;
        self.any = true;
    }
}
