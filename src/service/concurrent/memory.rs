//! The buffers a [`ConcurrentServer`](super::ConcurrentServer)'s loop runs in: inline
//! ([`Slots`], a `const fn`, for a static or a task) or lent once at start
//! ([`LentSlots`], for buffers too large to build as one value: the memory of a
//! `Box::leak`, or of a `static` array). The loop's code is the same for both.

use core::cell::{Ref, RefCell, RefMut};
use core::fmt;

/// The memory of a [`ConcurrentServer`](super::ConcurrentServer)'s loop with `N`
/// slots: [`Slots`] or [`LentSlots`]. Each slot is a frame buffer (a message copied
/// out of the framer: the largest message served) and a reply buffer (the largest
/// reply); two more frame buffers hold the request waiting for a slot and the frame
/// held while reading is stopped (or a response for a handler). The state of the
/// slots lives in the loop's future.
pub trait Memory<const N: usize> {
    /// A frame buffer.
    #[doc(hidden)]
    type Frame: Buffer;
    /// A reply buffer.
    #[doc(hidden)]
    type Reply: Buffer;
    /// The frame buffer of slot `i`.
    #[doc(hidden)]
    fn frame(&self, i: usize) -> Option<&Self::Frame>;
    /// The reply buffer of slot `i`.
    #[doc(hidden)]
    fn reply(&self, i: usize) -> Option<&Self::Reply>;
    /// The buffer of the request waiting for a slot.
    #[doc(hidden)]
    fn waiting(&self) -> &Self::Frame;
    /// The buffer of the frame held while reading is stopped.
    #[doc(hidden)]
    fn held(&self) -> &Self::Frame;
    /// The size of a frame buffer: the largest message a slot takes.
    #[doc(hidden)]
    fn frame_len(&self) -> usize;
}

/// A buffer of the loop, borrowed by one part at a time (a failed borrow waits).
pub trait Buffer {
    /// Its bytes to read, unless a part writes them.
    fn read(&self) -> Option<Ref<'_, [u8]>>;
    /// Its bytes to write, unless another part holds them.
    fn write(&self) -> Option<RefMut<'_, [u8]>>;
}

impl<const L: usize> Buffer for RefCell<[u8; L]> {
    fn read(&self) -> Option<Ref<'_, [u8]>> {
        Some(Ref::map(self.try_borrow().ok()?, |bytes| &bytes[..]))
    }

    fn write(&self) -> Option<RefMut<'_, [u8]>> {
        Some(RefMut::map(self.try_borrow_mut().ok()?, |bytes| {
            &mut bytes[..]
        }))
    }
}

impl Buffer for RefCell<&mut [u8]> {
    fn read(&self) -> Option<Ref<'_, [u8]>> {
        Some(Ref::map(self.try_borrow().ok()?, |bytes| &**bytes))
    }

    fn write(&self) -> Option<RefMut<'_, [u8]>> {
        Some(RefMut::map(self.try_borrow_mut().ok()?, |bytes| {
            &mut **bytes
        }))
    }
}

/// The memory of a [`ConcurrentServer`](super::ConcurrentServer)'s loop, inline: `N`
/// slots, each a frame buffer of `FRAME` bytes and a reply buffer of `REPLY` bytes,
/// and two more frame buffers (see [`Memory`]): `(N + 2) × FRAME + N × REPLY` bytes
/// and a borrow flag per buffer.
///
/// Made with a `const fn`; it lives where the loop's future lives (the task), or in
/// a static cell. Buffers too large to build as one value are lent instead
/// ([`LentSlots`]).
pub struct Slots<const N: usize, const FRAME: usize, const REPLY: usize> {
    frames: [RefCell<[u8; FRAME]>; N],
    replies: [RefCell<[u8; REPLY]>; N],
    waiting: RefCell<[u8; FRAME]>,
    held: RefCell<[u8; FRAME]>,
}

impl<const N: usize, const FRAME: usize, const REPLY: usize> Default for Slots<N, FRAME, REPLY> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const FRAME: usize, const REPLY: usize> fmt::Debug for Slots<N, FRAME, REPLY> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slots")
            .field("slots", &N)
            .field("frame", &FRAME)
            .field("reply", &REPLY)
            .finish()
    }
}

impl<const N: usize, const FRAME: usize, const REPLY: usize> Slots<N, FRAME, REPLY> {
    /// Empty slots.
    pub const fn new() -> Self {
        Self {
            frames: [const { RefCell::new([0; FRAME]) }; N],
            replies: [const { RefCell::new([0; REPLY]) }; N],
            waiting: RefCell::new([0; FRAME]),
            held: RefCell::new([0; FRAME]),
        }
    }
}

impl<const N: usize, const FRAME: usize, const REPLY: usize> Memory<N> for Slots<N, FRAME, REPLY> {
    type Frame = RefCell<[u8; FRAME]>;
    type Reply = RefCell<[u8; REPLY]>;

    fn frame(&self, i: usize) -> Option<&Self::Frame> {
        self.frames.get(i)
    }

    fn reply(&self, i: usize) -> Option<&Self::Reply> {
        self.replies.get(i)
    }

    fn waiting(&self) -> &Self::Frame {
        &self.waiting
    }

    fn held(&self) -> &Self::Frame {
        &self.held
    }

    fn frame_len(&self) -> usize {
        FRAME
    }
}

/// The memory of a [`ConcurrentServer`](super::ConcurrentServer)'s loop over buffers
/// lent once at start, for `N` slots whose buffers are too large to build as one
/// value (a language server's 8 MiB frames): the memory of a `Box::leak`, a `Vec`
/// the application keeps, or a `static` array. The same buffers as [`Slots`] (see
/// [`Memory`]), cut from the lent bytes in order: `N` frame buffers, `N` reply
/// buffers, then the waiting and the held frame buffers.
///
/// ```
/// use jsonrpc_slice::service::concurrent::LentSlots;
///
/// const FRAME: usize = 8 << 20;
/// let memory = vec![0u8; LentSlots::<4>::bytes(FRAME, 64 << 10)];
/// let memory = Box::leak(memory.into_boxed_slice());
/// let slots = LentSlots::<4>::new(memory, FRAME, 64 << 10).expect("enough memory");
/// # drop(slots);
/// ```
pub struct LentSlots<'m, const N: usize> {
    frames: [RefCell<&'m mut [u8]>; N],
    replies: [RefCell<&'m mut [u8]>; N],
    waiting: RefCell<&'m mut [u8]>,
    held: RefCell<&'m mut [u8]>,
    frame: usize,
}

impl<const N: usize> fmt::Debug for LentSlots<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LentSlots")
            .field("slots", &N)
            .field("frame", &self.frame)
            .finish_non_exhaustive()
    }
}

impl<'m, const N: usize> LentSlots<'m, N> {
    /// The bytes `N` slots of `frame` and `reply` bytes take: `(N + 2) × frame + N ×
    /// reply` (`usize::MAX` if that overflows).
    pub const fn bytes(frame: usize, reply: usize) -> usize {
        let frames = frame.saturating_mul(N.saturating_add(2));
        frames.saturating_add(reply.saturating_mul(N))
    }

    /// Slots of `frame` and `reply` bytes over `memory` (its first
    /// [`bytes`](Self::bytes)`(frame, reply)` bytes); `None` if it is shorter.
    pub fn new(memory: &'m mut [u8], frame: usize, reply: usize) -> Option<Self> {
        let memory = memory.get_mut(..Self::bytes(frame, reply))?;
        let (frames, replies) =
            memory.split_at_mut_checked(frame.saturating_mul(N.saturating_add(2)))?;
        // Neither length is 0 here unless the buffers are empty: `chunks_exact_mut`
        // wants at least 1.
        let mut frames = frames.chunks_exact_mut(frame.max(1));
        let mut replies = replies.chunks_exact_mut(reply.max(1));
        let cut = |buffers: &mut core::slice::ChunksExactMut<'m, u8>| {
            RefCell::new(buffers.next().unwrap_or_default())
        };
        Some(Self {
            frames: core::array::from_fn(|_| cut(&mut frames)),
            replies: core::array::from_fn(|_| cut(&mut replies)),
            waiting: cut(&mut frames),
            held: cut(&mut frames),
            frame,
        })
    }
}

impl<'m, const N: usize> Memory<N> for LentSlots<'m, N> {
    type Frame = RefCell<&'m mut [u8]>;
    type Reply = RefCell<&'m mut [u8]>;

    fn frame(&self, i: usize) -> Option<&Self::Frame> {
        self.frames.get(i)
    }

    fn reply(&self, i: usize) -> Option<&Self::Reply> {
        self.replies.get(i)
    }

    fn waiting(&self) -> &Self::Frame {
        &self.waiting
    }

    fn held(&self) -> &Self::Frame {
        &self.held
    }

    fn frame_len(&self) -> usize {
        self.frame
    }
}
