//! [`Handle`]: a call in flight, as its writer gets it back.

use core::fmt;
use core::marker::PhantomData;

/// A call in flight, typed by what its result decodes into: the slot of the
/// [`Client`](super::Client) that holds it and the generation of that slot, so that a
/// handle kept after its call was taken (or whose slot now holds another call) reads
/// [`CallError::Stale`](super::CallError::Stale), never another call's reply. A handle
/// belongs to the client that made it.
pub struct Handle<T> {
    pub(crate) slot: usize,
    pub(crate) generation: u32,
    // `fn() -> T`: a handle neither owns a `T` nor borrows from one.
    result: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    pub(crate) const fn new(slot: usize, generation: u32) -> Self {
        Self {
            slot,
            generation,
            result: PhantomData,
        }
    }

    /// The same call, read as another type (`U`).
    pub const fn cast<U>(self) -> Handle<U> {
        Handle::new(self.slot, self.generation)
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Handle<T> {}

impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.slot, self.generation) == (other.slot, other.generation)
    }
}

impl<T> Eq for Handle<T> {}

impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("slot", &self.slot)
            .field("generation", &self.generation)
            .finish()
    }
}
