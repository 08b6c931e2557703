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
/// says `OutboxFull`). Not `Sync`: it belongs to one task.
pub struct SharedOutbox<const N: usize> {
    queue: RefCell<Outbox<N>>,
    waker: Cell<Option<Waker>>,
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
            queue: RefCell::new(Outbox::new()),
            waker: Cell::new(None),
        }
    }

    /// Queues a notification now, as [`Outbox::notify`] does; `Err(OutboxFull)` also
    /// while the writer is sending what was queued before.
    pub fn try_notify(
        &self,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        let mut params = Some(params);
        let written = self.try_write(&mut |room| {
            let params = params.take().ok_or(WriteError::BufferFull)?;
            client::write_notification(room, method, params)
        });
        written.map_err(|_| WriteError::OutboxFull)
    }

    /// Queues a notification, waiting while the outbox is full or being sent.
    /// `params` may be called more than once (each time the message did not fit).
    /// `Err(OutboxFull)`: it does not fit even in an empty outbox.
    pub async fn notify(
        &self,
        method: &str,
        mut params: impl FnMut(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        queue_message(self, &mut |room| {
            client::write_notification(room, method, &mut params)
        })
        .await
    }
}

/// What writes one message into the room it is given, returning what it wrote.
pub(crate) type WriteMessage<'w> = dyn FnMut(&mut [u8]) -> Result<&[u8], WriteError> + 'w;

/// What the concurrent loop needs of a [`SharedOutbox`], whatever its size.
pub(crate) trait Queue {
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

impl<const N: usize> Queue for SharedOutbox<N> {
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
        Some(Ref::map(queue, Outbox::queued))
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
        match queue.queue(|room| write(room)) {
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
