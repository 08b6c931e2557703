//! The outbox shared by the concurrent loop's parts and the application (feature
//! `concurrent`).

use core::cell::{Cell, Ref, RefCell};
use core::future::poll_fn;
use core::task::{Context, Poll, Waker};

use super::Outbox;
use crate::client;
use crate::write::{ResultWriter, WriteError};

/// An outbox shared by everything that runs in one task beside a
/// [`ConcurrentServer`](crate::service::concurrent::ConcurrentServer)'s loop: its
/// handlers (through [`Call::notify`](crate::service::concurrent::Call::notify)) and
/// the application (a future joined with the loop that pushes an event whenever a
/// sensor, a timer or a channel says so). The loop's writer sends what it holds as
/// soon as it is free, with no input needed: a device pushes an event on a quiet link.
///
/// It is an [`Outbox`] behind a `RefCell`, with the waker of the task that polls the
/// loop: each message queued wakes the writer. While the writer sends, the queue is
/// borrowed and messages wait ([`notify`](Self::notify) awaits room; [`try_notify`](Self::try_notify)
/// says `OutboxFull`). Not `Sync`: it belongs to one task. An outbox too large to
/// build as one value is lent its memory instead ([`LentOutbox`]).
pub struct SharedOutbox<const N: usize> {
    shared: Shared<Outbox<N>>,
}

/// A [`SharedOutbox`] over memory lent once at start (a `Box::leak`, a `static`
/// array), for a queue too large to build as one value: the same queue, its
/// capacity the length of the memory.
pub struct LentOutbox<'m> {
    shared: Shared<Lent<'m>>,
}

/// An outbox behind a `RefCell`, with the waker of the task that polls the loop.
struct Shared<B> {
    queue: RefCell<B>,
    waker: Cell<Option<Waker>>,
}

impl<B> Shared<B> {
    const fn new(queue: B) -> Self {
        Self {
            queue: RefCell::new(queue),
            waker: Cell::new(None),
        }
    }
}

/// Bytes queued in lent memory.
struct Lent<'m> {
    buf: &'m mut [u8],
    len: usize,
}

/// What a [`Shared`] queue holds its messages in.
trait Store {
    fn is_empty(&self) -> bool;
    fn queued(&self) -> &[u8];
    fn clear(&mut self);
    fn push(&mut self, write: &mut WriteMessage<'_>) -> Result<(), WriteError>;
}

impl<const N: usize> Store for Outbox<N> {
    fn is_empty(&self) -> bool {
        Outbox::is_empty(self)
    }

    fn queued(&self) -> &[u8] {
        Outbox::queued(self)
    }

    fn clear(&mut self) {
        Outbox::clear(self);
    }

    fn push(&mut self, write: &mut WriteMessage<'_>) -> Result<(), WriteError> {
        self.queue(|room| write(room))
    }
}

impl Store for Lent<'_> {
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn queued(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn push(&mut self, write: &mut WriteMessage<'_>) -> Result<(), WriteError> {
        super::push(self.buf, &mut self.len, |room| write(room))
    }
}

impl<const N: usize> Default for SharedOutbox<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::fmt::Debug for SharedOutbox<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedOutbox")
            .field("capacity", &N)
            .finish()
    }
}

impl<const N: usize> SharedOutbox<N> {
    /// An empty outbox.
    pub const fn new() -> Self {
        Self {
            shared: Shared::new(Outbox::new()),
        }
    }

    /// Queues a notification now, as [`Outbox::notify`] does; `Err(OutboxFull)` also
    /// while the writer is sending what was queued before.
    pub fn try_notify(
        &self,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        try_notify(&self.shared, method, params)
    }

    /// Queues a notification, waiting while the outbox is full or being sent.
    /// `params` may be called more than once (each time the message did not fit).
    /// `Err(OutboxFull)`: it does not fit even in an empty outbox.
    pub async fn notify(
        &self,
        method: &str,
        params: impl FnMut(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        notify(&self.shared, method, params).await
    }
}

impl core::fmt::Debug for LentOutbox<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let capacity = self.shared.queue.try_borrow().map(|q| q.buf.len());
        f.debug_struct("LentOutbox")
            .field("capacity", &capacity.ok())
            .finish()
    }
}

impl<'m> LentOutbox<'m> {
    /// An empty outbox over `memory`: it holds `memory.len()` bytes of messages. (Not
    /// `const`: a `&mut` argument needs Rust 1.83, and the minimum is 1.81.)
    pub fn new(memory: &'m mut [u8]) -> Self {
        Self {
            shared: Shared::new(Lent {
                buf: memory,
                len: 0,
            }),
        }
    }

    /// As [`SharedOutbox::try_notify`].
    pub fn try_notify(
        &self,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        try_notify(&self.shared, method, params)
    }

    /// As [`SharedOutbox::notify`].
    pub async fn notify(
        &self,
        method: &str,
        params: impl FnMut(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        notify(&self.shared, method, params).await
    }
}

fn try_notify(
    queue: &dyn Queue,
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let mut params = Some(params);
    let written = queue.try_write(&mut |room| {
        let params = params.take().ok_or(WriteError::BufferFull)?;
        client::write_notification(room, method, params)
    });
    written.map_err(|_| WriteError::OutboxFull)
}

async fn notify(
    queue: &dyn Queue,
    method: &str,
    mut params: impl FnMut(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    queue_message(queue, &mut |room| {
        client::write_notification(room, method, &mut params)
    })
    .await
}

/// A [`SharedOutbox`] or a [`LentOutbox`], as the concurrent loop takes it.
pub trait AsQueue {
    /// The queue.
    #[doc(hidden)]
    fn as_queue(&self) -> &dyn Queue;
}

impl<const N: usize> AsQueue for SharedOutbox<N> {
    fn as_queue(&self) -> &dyn Queue {
        &self.shared
    }
}

impl AsQueue for LentOutbox<'_> {
    fn as_queue(&self) -> &dyn Queue {
        &self.shared
    }
}

/// What writes one message into the room it is given, returning what it wrote.
pub(crate) type WriteMessage<'w> = dyn FnMut(&mut [u8]) -> Result<&[u8], WriteError> + 'w;

/// What the concurrent loop needs of a [`SharedOutbox`], whatever its size.
pub trait Queue {
    /// Wakes the task that polls the loop.
    fn wake(&self);
    /// Keeps the waker of the task polling now, to be woken by [`wake`](Self::wake).
    fn register(&self, cx: &mut Context<'_>);
    /// `true` when nothing is queued (and the writer is not sending).
    fn is_empty(&self) -> bool;
    /// The queued messages, borrowed: nothing can be queued until it is dropped.
    fn queued(&self) -> Option<Ref<'_, [u8]>>;
    /// Forgets what was sent, and wakes those waiting for room.
    fn clear(&self);
    /// Writes one message after the queued ones, whole or not at all: `Err(true)` if
    /// it cannot fit even in an empty queue, `Err(false)` if not now.
    fn try_write(&self, write: &mut WriteMessage<'_>) -> Result<(), bool>;
}

impl<B: Store> Queue for Shared<B> {
    fn wake(&self) {
        if let Some(waker) = self.waker.take() {
            waker.wake_by_ref();
            self.waker.set(Some(waker));
        }
    }

    fn register(&self, cx: &mut Context<'_>) {
        let waker = match self.waker.take() {
            Some(old) if old.will_wake(cx.waker()) => old,
            _ => cx.waker().clone(),
        };
        self.waker.set(Some(waker));
    }

    fn is_empty(&self) -> bool {
        self.queue.try_borrow().is_ok_and(|q| q.is_empty())
    }

    fn queued(&self) -> Option<Ref<'_, [u8]>> {
        let queue = self.queue.try_borrow().ok()?;
        Some(Ref::map(queue, Store::queued))
    }

    fn clear(&self) {
        if let Ok(mut queue) = self.queue.try_borrow_mut() {
            queue.clear();
        }
        self.wake();
    }

    fn try_write(&self, write: &mut WriteMessage<'_>) -> Result<(), bool> {
        let Ok(mut queue) = self.queue.try_borrow_mut() else {
            return Err(false);
        };
        match queue.push(write) {
            Ok(()) => {
                drop(queue);
                self.wake();
                Ok(())
            }
            Err(_) => Err(queue.is_empty()),
        }
    }
}

/// Queues the message `write` writes, trying each time the task is polled until it
/// is taken, or until it cannot fit even in an empty queue (`OutboxFull`).
pub(crate) async fn queue_message(
    queue: &dyn Queue,
    write: &mut WriteMessage<'_>,
) -> Result<(), WriteError> {
    poll_fn(|cx| match queue.try_write(write) {
        Ok(()) => Poll::Ready(Ok(())),
        Err(true) => Poll::Ready(Err(WriteError::OutboxFull)),
        Err(false) => {
            queue.register(cx);
            Poll::Pending
        }
    })
    .await
}
