//! The service threads of a server of async handlers ([`HttpServer::concurrent`]):
//! where its requests are answered, without an allocation per request.
//!
//! The service's futures are not `Send`, so they cannot run on the server's own
//! (multi-threaded) runtime. When the server starts serving it starts a few threads
//! (one per core, at most one per worker), each a current-thread runtime and a
//! `LocalSet` running a fixed number of long-lived workers, made once. A request is a
//! [`Job`] (its buffer pair and its time limit) put in a queue that every worker
//! takes from ([`Jobs`]), which wakes the worker that waited last; its connection
//! waits for the pair to come back in a slot of its own ([`Back`], one per
//! connection, reused by each of its requests), which wakes the request's task. The
//! queue holds at most one job per buffer pair, and the list of waiting workers one
//! entry per worker, room made for them all at start-up: in steady state neither
//! side allocates.
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
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::Duration;
use std::vec::Vec;

use tokio::sync::Semaphore;
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

/// The queue of jobs every worker of a server takes from, and the workers waiting for
/// one. (A waker each, kept here, rather than tokio's `Notify`: one lock per job and
/// per wait instead of a waiter list's, a measurable share of a request's cost.)
pub(super) struct Jobs {
    state: Mutex<Queue>,
}

struct Queue {
    jobs: VecDeque<Job>,
    /// The workers waiting for a job, by number, the latest last (woken first: its
    /// memory is the likeliest still in cache).
    idle: Vec<(usize, Waker)>,
    /// Whether each worker (by number) is in `idle`.
    listed: Vec<bool>,
    closed: bool,
}

impl Jobs {
    /// A queue for `workers` workers, numbered from 0, with room for as many jobs
    /// (one per buffer pair: never more).
    pub(super) fn new(workers: usize) -> Self {
        Self {
            state: Mutex::new(Queue {
                jobs: VecDeque::with_capacity(workers),
                idle: Vec::with_capacity(workers),
                listed: std::vec![false; workers],
                closed: false,
            }),
        }
    }

    /// Queues `job`; once closed, drops it (its connection then sees it unanswered).
    pub(super) fn push(&self, job: Job) {
        let (refused, woken) = {
            let mut queue = lock(&self.state);
            match queue.closed {
                true => (Some(job), None),
                false => {
                    queue.jobs.push_back(job);
                    // One worker is enough: each looks at the queue before it waits.
                    let woken = queue.idle.pop();
                    if let Some((worker, _)) = &woken {
                        if let Some(listed) = queue.listed.get_mut(*worker) {
                            *listed = false;
                        }
                    }
                    (None, woken)
                }
            }
        };
        // Outside the lock: a job's drop takes its connection's; the woken worker
        // takes this one.
        drop(refused);
        if let Some((_, waker)) = woken {
            waker.wake();
        }
    }

    /// The next job for worker `worker`; `None` once the queue is closed and empty.
    pub(super) async fn next(&self, worker: usize) -> Option<Job> {
        poll_fn(|cx| {
            let mut queue = lock(&self.state);
            let Queue {
                jobs,
                idle,
                listed,
                closed,
            } = &mut *queue;
            let job = jobs.pop_front();
            let listed = listed.get_mut(worker);
            if job.is_some() || *closed {
                // Polled while it waits (not by `push`, which takes it out): out.
                if let Some(listed) = listed.filter(|l| **l) {
                    *listed = false;
                    idle.retain(|(w, _)| *w != worker);
                }
                return Poll::Ready(job);
            }
            match listed {
                Some(true) => {
                    if let Some((_, waker)) = idle.iter_mut().find(|(w, _)| *w == worker) {
                        if !waker.will_wake(cx.waker()) {
                            waker.clone_from(cx.waker());
                        }
                    }
                }
                Some(listed) => {
                    *listed = true;
                    idle.push((worker, cx.waker().clone()));
                }
                // Not one of the queue's workers: not reached (`start` numbers
                // them), and it would never be woken.
                None => return Poll::Ready(None),
            }
            Poll::Pending
        })
        .await
    }

    /// No more jobs: the workers finish the queued ones, then end, and their threads
    /// with them.
    pub(super) fn close(&self) {
        let idle = {
            let mut queue = lock(&self.state);
            queue.closed = true;
            queue.listed.fill(false);
            std::mem::take(&mut queue.idle)
        };
        for (_, waker) in idle {
            waker.wake();
        }
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
}

enum Returned {
    /// No job out.
    Idle,
    /// A job out, its request waiting (woken by this once polled).
    Out(Option<Waker>),
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
                *state = Returned::Out(None);
                Some(Awaiting { back: self })
            }
            _ => None,
        }
    }

    /// A job's pair and answer, back.
    fn put(&self, taken: Option<Taken>, answered: Answered) {
        let (dropped, woken) = {
            let mut state = lock(&self.state);
            match std::mem::replace(&mut *state, Returned::Idle) {
                Returned::Out(waker) => {
                    *state = Returned::Done(taken, answered);
                    (None, waker)
                }
                // Abandoned (or, not reached, no job out).
                _ => (taken, None),
            }
        };
        // Back in the pool, and the request woken, outside the lock.
        drop(dropped);
        if let Some(waker) = woken {
            waker.wake();
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
        poll_fn(|cx| {
            let mut state = lock(&self.back.state);
            match &mut *state {
                Returned::Out(Some(waker)) if waker.will_wake(cx.waker()) => Poll::Pending,
                Returned::Out(waker) => {
                    *waker = Some(cx.waker().clone());
                    Poll::Pending
                }
                Returned::Done(..) => match std::mem::replace(&mut *state, Returned::Idle) {
                    Returned::Done(taken, answered) => Poll::Ready((taken, answered)),
                    _ => Poll::Ready((None, None)),
                },
                // Not reached: only this request's drop abandons its job.
                Returned::Idle | Returned::Abandoned => Poll::Ready((None, None)),
            }
        })
        .await
    }
}

impl Drop for Awaiting<'_> {
    fn drop(&mut self) {
        let dropped = {
            let mut state = lock(&self.back.state);
            match std::mem::replace(&mut *state, Returned::Idle) {
                Returned::Out(_) => {
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
/// per worker on its service thread (its future is not `Send`), given its number.
pub(super) type Worker = Pin<Box<dyn Future<Output = ()>>>;

/// What makes a worker: given the queue and the worker's number.
pub(super) type MakeWorker = dyn Fn(Arc<Jobs>, usize) -> Worker + Send + Sync;

/// Starts the service threads: `jobs`'s workers, made by `worker`, spread over one
/// thread per core (at most one per worker); returns once each thread has made its
/// workers (so that the server serves with all of them, and what a thread allocates
/// as it starts is done before the first request). The threads end once `jobs`
/// closes and their workers have answered what was queued. If not one thread could
/// be started (the system refused), `jobs` is closed: each request is then answered
/// `503`.
pub(super) async fn start(jobs: &Arc<Jobs>, worker: Arc<MakeWorker>) {
    let workers = lock(&jobs.state).listed.len();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(workers);
    let ready = Arc::new(Semaphore::new(0));
    let mut started = 0;
    let mut first = 0;
    for i in 0..threads {
        // Each thread's share: the first `workers % threads` take one more.
        let count = workers / threads + usize::from(i < workers % threads);
        let numbers = first..first + count;
        first += count;
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            continue;
        };
        let (jobs, worker) = (jobs.clone(), worker.clone());
        let made = Made(ready.clone());
        let spawned = std::thread::Builder::new()
            .name(std::format!("jsonrpc-http-{i}"))
            .spawn(move || service_thread(&runtime, &jobs, numbers, &*worker, made));
        started += usize::from(spawned.is_ok());
    }
    if started == 0 {
        jobs.close();
    }
    for _ in 0..started {
        // Never closed: `Err` is not reached.
        if let Ok(permit) = ready.acquire().await {
            permit.forget();
        }
    }
}

/// A service thread made its workers (or gave up) once this is dropped.
struct Made(Arc<Semaphore>);

impl Drop for Made {
    fn drop(&mut self) {
        self.0.add_permits(1);
    }
}

fn service_thread(
    runtime: &tokio::runtime::Runtime,
    jobs: &Arc<Jobs>,
    numbers: core::ops::Range<usize>,
    worker: &MakeWorker,
    made: Made,
) {
    LocalSet::new().block_on(runtime, async {
        let mut running = JoinSet::new();
        // Each worker's task, and its number.
        let mut tasks = Vec::with_capacity(numbers.len());
        for number in numbers {
            let task = running.spawn_local(worker(jobs.clone(), number)).id();
            tasks.push((task, number));
        }
        drop(made);
        while let Some(ended) = running.join_next().await {
            // A worker ends when the queue closes, or when a handler panicked (its job
            // then answered `503`, see `Job`): another, of its number, takes its place.
            let Err(panicked) = ended else { continue };
            if jobs.is_closed() {
                continue;
            }
            if let Some((task, number)) = tasks.iter_mut().find(|(t, _)| *t == panicked.id()) {
                *task = running.spawn_local(worker(jobs.clone(), *number)).id();
            }
        }
    });
}
