//! The memory of ids that left a table, so that a reply to one is told apart from an
//! unknown id: a second reply (duplicate) or a reply after the request was given up
//! (late).

use super::id::{compare, Same, StoredId};
use crate::id::Id;

/// How a request left its table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Left {
    /// Its reply came.
    Answered,
    /// It was given up (a deadline, a cancellation, a lost connection).
    GivenUp,
}

/// The last `R` ids that left a table, in a ring (the oldest is forgotten first).
pub(crate) struct Retired<const R: usize> {
    ids: [Option<(StoredId, Left)>; R],
    /// Where the next one goes.
    next: usize,
}

impl<const R: usize> Retired<R> {
    pub(crate) const fn new() -> Self {
        Self {
            ids: [None; R],
            next: 0,
        }
    }

    /// Remembers that `id` left, and how.
    pub(crate) fn retire(&mut self, id: StoredId, how: Left) {
        if let Some(slot) = self.ids.get_mut(self.next) {
            *slot = Some((id, how));
            self.next = (self.next + 1) % R;
        }
    }

    /// How `id` left, if it is remembered (ids of another type count: `"7"` after
    /// `7` was answered is a duplicate, not a stranger).
    pub(crate) fn find(&self, id: Id<'_>) -> Option<Left> {
        self.ids
            .iter()
            .flatten()
            .find(|(s, _)| compare(s.id(), id) != Same::No)
            .map(|(_, how)| *how)
    }
}
