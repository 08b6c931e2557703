//! The service threads of a server of async handlers ([`HttpServer::concurrent`]):
//! where its requests are answered, without an allocation per request.
//!
//! The service's futures are not `Send`, so they cannot run on the server's own
//! (multi-threaded) runtime. When the server starts serving it starts a few threads
//! (one per core, at most one per worker), each a current-thread runtime and a
//! `LocalSet` running a fixed number of long-lived workers, made once. A request is a
//! [`Job`] (its buffer pair and its time limit) put in a queue that every worker
//! takes from ([`Jobs`]); its connection waits for the pair to come back in a slot
//! of its own ([`Back`], one per connection, reused by each of its requests). The
//! queue holds at most one job per buffer pair, room made for them all at start-up:
//! in steady state neither side allocates.
//!
//! How many workers: one per buffer pair ([`Settings::buffers`]). Every job holds a
//! pair from the moment it is queued until it is answered, so no more jobs exist at
//! once than pairs, and with a worker for each no job ever waits for a worker: a
//! request whose handlers wait for something another request brings (an
//! application's own rendezvous between calls) is never queued behind it, which
//! fewer workers could deadlock. The calls whose handlers may ask the client
//! ([`Verdict::peer`](super::gate::Verdict::peer)) are not jobs: they run on tokio's
//! blocking pool (a rare path, see `concurrent.rs`), and the responses they wait for
//! are routed by the connection's task (`peers.rs`), never by a worker.
//!
//! [`HttpServer::concurrent`]: super::HttpServer::concurrent
//! [`Settings::buffers`]: super::Settings::buffers

use std::boxed::Box;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::{JoinSet, LocalSet};

use super::server::{lock, Conn, Taken};
use crate::dispatch::OutputTooSmall;

/// What answering a request gave: its reply's length, `None` past its time limit
/// (or when it could not be answered at all: the server shut down, a handler
/// panicked).
pub(super) type Answered = Option<Result<usize, OutputTooSmall>>;

/// A request for a worker: its buffer pair (the body in, the reply out) and its
/// time limit. Dropped, it gives the pair back to its connection's [`Back`], with
/// what `answered` holds then (`None` if it was never answered: a handler panicked,
/// or the server shut down first).
pub(super) struct Job {
    taken: Option<Taken>,
    limit: Duration,
    conn: Arc<Conn>,
    answered: Answered,
}

impl Job {
    pub(super) fn new(taken: Taken, limit: Duration, conn: Arc<Conn>) -> Self {
        Self {
            taken: Some(taken),
            limit,
            conn,
            answered: None,
        }
    }

    /// The pair, the limit, and where the answer goes.
    pub(super) fn parts(&mut self) -> (Option<&mut Taken>, Duration, &mut Answered) {
        (self.taken.as_mut(), self.limit, &mut self.answered)
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.conn.back.put(self.taken.take(), self.answered.take());
    }
}

/// The queue of jobs every worker of a server takes from.
pub(super) struct Jobs {
    state: Mutex<Queue>,
    /// A job was queued, or the queue closed.
    ready: Notify,
}

struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

impl Jobs {
    /// A queue with room for `most` jobs (one per buffer pair: never more).
    pub(super) fn new(most: usize) -> Self {
        Self {
            state: Mutex::new(Queue {
                jobs: VecDeque::with_capacity(most),
                closed: false,
            }),
            ready: Notify::new(),
        }
    }

    /// Queues `job`; once closed, drops it (its connection then sees it unanswered).
    pub(super) fn push(&self, job: Job) {
        let refused = {
            let mut queue = lock(&self.state);
            match queue.closed {
                true => Some(job),
                false => {
                    queue.jobs.push_back(job);
                    None
                }
            }
        };
        match refused {
            // Dropped outside the lock: a job's drop takes its connection's.
            Some(job) => drop(job),
            // One worker is enough: each looks at the queue before it waits.
            None => self.ready.notify_one(),
        }
    }

    /// The next job; `None` once the queue is closed and empty.
    pub(super) async fn next(&self) -> Option<Job> {
        loop {
            let mut ready = pin!(self.ready.notified());
            // Enabled before the look below: a job queued after it wakes this wait.
            ready.as_mut().enable();
            {
                let mut queue = lock(&self.state);
                if let Some(job) = queue.jobs.pop_front() {
                    return Some(job);
                }
                if queue.closed {
                    return None;
                }
            }
            ready.await;
        }
    }

    /// No more jobs: the workers finish the queued ones, then end, and their threads
    /// with them.
    pub(super) fn close(&self) {
        lock(&self.state).closed = true;
        self.ready.notify_waiters();
    }

    fn is_closed(&self) -> bool {
        lock(&self.state).closed
    }
}

/// Closes the queue when dropped: when the server stops serving, however it stops.
pub(super) struct CloseOnDrop(pub(super) Arc<Jobs>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Where a connection's job gives its buffer pair back: one per connection, reused by
/// each of its requests (HTTP/1.1 has one in flight at a time).
pub(super) struct Back {
    state: Mutex<Returned>,
    /// The job put its answer.
    ready: Notify,
}

enum Returned {
    /// No job out.
    Idle,
    /// A job out, its request waiting.
    Out,
    /// A job's answer, not yet taken.
    Done(Option<Taken>, Answered),
    /// A job out whose request is gone (dropped at its time limit, or its connection
    /// closed): its pair goes straight back to the pool.
    Abandoned,
}

impl Back {
    pub(super) const fn new() -> Self {
        Self {
            state: Mutex::new(Returned::Idle),
            ready: Notify::const_new(),
        }
    }

    /// Marks a job out, to be awaited; `None` while an earlier job of the connection
    /// is still out. Not reached: a request dropped before its answer (the only way
    /// to leave one out) ends its connection (`503` with `Connection: close`, or the
    /// connection gone), but were it reached the request is refused, not mixed up
    /// with another's pair.
    pub(super) fn send(&self) -> Option<Awaiting<'_>> {
        let mut state = lock(&self.state);
        match *state {
            Returned::Idle => {
                *state = Returned::Out;
                Some(Awaiting { back: self })
            }
            _ => None,
        }
    }

    /// A job's pair and answer, back.
    fn put(&self, taken: Option<Taken>, answered: Answered) {
        let dropped = {
            let mut state = lock(&self.state);
            match *state {
                Returned::Out => {
                    *state = Returned::Done(taken, answered);
                    None
                }
                _ => {
                    *state = Returned::Idle;
                    taken
                }
            }
        };
        match dropped {
            // Back in the pool, outside this lock.
            Some(taken) => drop(taken),
            None => self.ready.notify_one(),
        }
    }
}

/// A request waiting for its job: abandons it when dropped first.
pub(super) struct Awaiting<'a> {
    back: &'a Back,
}

impl Awaiting<'_> {
    /// The job's pair (`None` if the job was dropped before it could give it back,
    /// which it always does) and its answer.
    pub(super) async fn answer(&mut self) -> (Option<Taken>, Answered) {
        loop {
            let mut ready = pin!(self.back.ready.notified());
            // Enabled before the look below, as in `Jobs::next`. A permit left by an
            // earlier request's answer only makes one more look.
            ready.as_mut().enable();
            {
                let mut state = lock(&self.back.state);
                if let Returned::Done(..) = *state {
                    if let Returned::Done(taken, answered) =
                        std::mem::replace(&mut *state, Returned::Idle)
                    {
                        return (taken, answered);
                    }
                }
            }
            ready.await;
        }
    }
}

impl Drop for Awaiting<'_> {
    fn drop(&mut self) {
        let dropped = {
            let mut state = lock(&self.back.state);
            match std::mem::replace(&mut *state, Returned::Idle) {
                Returned::Out => {
                    *state = Returned::Abandoned;
                    None
                }
                Returned::Done(taken, _) => taken,
                Returned::Idle | Returned::Abandoned => None,
            }
        };
        // Back in the pool, outside the lock.
        drop(dropped);
    }
}

/// A worker: takes jobs from the queue and answers them until it closes. Made once
/// per worker on its service thread (its future is not `Send`).
pub(super) type Worker = Pin<Box<dyn Future<Output = ()>>>;

/// Starts the service threads: `workers` workers, made by `worker`, spread over one
/// thread per core (at most one per worker). The threads end once `jobs` closes and
/// their workers have answered what was queued. If not one thread could be started
/// (the system refused), `jobs` is closed: each request is then answered `503`.
pub(super) fn start(
    jobs: &Arc<Jobs>,
    workers: usize,
    worker: Arc<dyn Fn(Arc<Jobs>) -> Worker + Send + Sync>,
) {
    let workers = workers.max(1);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(workers);
    let mut started = 0;
    for i in 0..threads {
        // Each thread's share: the first `workers % threads` take one more.
        let count = workers / threads + usize::from(i < workers % threads);
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            continue;
        };
        let (jobs, worker) = (jobs.clone(), worker.clone());
        let spawned = std::thread::Builder::new()
            .name(std::format!("jsonrpc-http-{i}"))
            .spawn(move || service_thread(&runtime, &jobs, count, &*worker));
        started += usize::from(spawned.is_ok());
    }
    if started == 0 {
        jobs.close();
    }
}

fn service_thread(
    runtime: &tokio::runtime::Runtime,
    jobs: &Arc<Jobs>,
    count: usize,
    worker: &(dyn Fn(Arc<Jobs>) -> Worker + Send + Sync),
) {
    LocalSet::new().block_on(runtime, async {
        let mut running = JoinSet::new();
        for _ in 0..count {
            running.spawn_local(worker(jobs.clone()));
        }
        while let Some(ended) = running.join_next().await {
            // A worker ends when the queue closes, or when a handler panicked (its job
            // then answered `503`, see `Job`): another takes its place.
            if ended.is_err() && !jobs.is_closed() {
                running.spawn_local(worker(jobs.clone()));
            }
        }
    });
}
