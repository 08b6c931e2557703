//! A response body: one reply lent from its buffer pair, or server-sent events as a
//! call makes them (a call whose handlers may ask the client, [`Verdict::peer`]) or as
//! the application sends them (a stream opened to hear the server, [`Verdict::listen`]).
//!
//! The events come through a channel of `DEPTH` messages from the call's loop, which
//! waits while it is full (a client that does not read holds the loop up to the
//! request's time limit, not memory). The body also keeps the connection counted busy
//! while it streams: the connection is not closed as idle, nor its state released,
//! under it.
//!
//! [`Verdict::peer`]: super::gate::Verdict::peer
//! [`Verdict::listen`]: super::gate::Verdict::listen

use std::boxed::Box;
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper::body::{Body, Buf, Bytes, Frame, SizeHint};
use tokio::sync::mpsc;
use tokio::time::{Instant, Interval, MissedTickBehavior};

use super::listen::{Leave, KEEP_ALIVE};
use super::server::Lent;
use crate::frame::sse::SseWriter;

/// How many events wait for the client at most.
pub(super) const DEPTH: usize = 16;

/// A response body.
pub(super) enum Reply {
    /// One reply (or nothing), sent whole.
    One(Option<Lent>),
    /// Events, as the call makes them, until it ends.
    Stream(Streamed),
}

/// The events of a call, as its loop sends them, or of a stream opened to hear the
/// server (`listen.rs`).
pub(super) struct Streamed {
    pub(super) events: mpsc::Receiver<Bytes>,
    /// What marks the connection busy until the body is dropped.
    pub(super) busy: Option<Box<dyn Send + Sync>>,
    /// A stream opened to hear the server: its place in its set, and when it is next
    /// due a keep-alive comment.
    pub(super) listen: Option<(Leave, Interval)>,
}

impl Streamed {
    /// The events of a call.
    pub(super) fn call(events: mpsc::Receiver<Bytes>) -> Self {
        Self {
            events,
            busy: None,
            listen: None,
        }
    }

    /// The events sent to a stream opened to hear the server, and a comment line
    /// after each `KEEP_ALIVE` without one.
    pub(super) fn listen(events: mpsc::Receiver<Bytes>, leave: Leave) -> Self {
        let mut quiet = tokio::time::interval_at(Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
        quiet.set_missed_tick_behavior(MissedTickBehavior::Delay);
        Self {
            events,
            busy: None,
            listen: Some((leave, quiet)),
        }
    }
}

/// A frame of a [`Reply`].
pub(super) enum Data {
    Lent(Lent),
    Event(Bytes),
}

impl Buf for Data {
    fn remaining(&self) -> usize {
        match self {
            Self::Lent(lent) => lent.remaining(),
            Self::Event(bytes) => bytes.remaining(),
        }
    }
    fn chunk(&self) -> &[u8] {
        match self {
            Self::Lent(lent) => lent.chunk(),
            Self::Event(bytes) => bytes.chunk(),
        }
    }
    fn advance(&mut self, n: usize) {
        match self {
            Self::Lent(lent) => lent.advance(n),
            Self::Event(bytes) => bytes.advance(n),
        }
    }
}

impl Body for Reply {
    type Data = Data;
    type Error = core::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Data>, Self::Error>>> {
        match self.get_mut() {
            Self::One(one) => Poll::Ready(one.take().map(|lent| Ok(Frame::data(Data::Lent(lent))))),
            Self::Stream(stream) => match stream.events.poll_recv(cx) {
                Poll::Ready(event) => {
                    if let Some((_, quiet)) = &mut stream.listen {
                        quiet.reset();
                    }
                    Poll::Ready(event.map(|bytes| Ok(Frame::data(Data::Event(bytes)))))
                }
                Poll::Pending => {
                    let quiet = stream.listen.as_mut().map(|(_, quiet)| quiet);
                    match quiet.is_some_and(|quiet| quiet.poll_tick(cx).is_ready()) {
                        // Nothing to send for a while: a comment, which readers ignore.
                        true => Poll::Ready(Some(Ok(Frame::data(Data::Event(
                            Bytes::from_static(b":\n\n"),
                        ))))),
                        false => Poll::Pending,
                    }
                }
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Self::One(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Self::One(one) => {
                SizeHint::with_exact(one.as_ref().map_or(0, |b| b.remaining() as u64))
            }
            Self::Stream(_) => SizeHint::default(),
        }
    }
}

/// One server-sent event holding `message`: a `data:` line for each of its lines (the
/// codec's messages hold no line break: one line, of exactly the bytes it needs).
pub(super) fn event(message: &[u8]) -> Bytes {
    // Each line costs `data: ` and its end; the event, its blank line.
    let lines = 1 + message
        .iter()
        .filter(|&&b| b == b'\n' || b == b'\r')
        .count();
    let mut buf = std::vec![0; message.len() + lines * 7 + 1];
    let mut writer = SseWriter::new(&mut buf);
    // Room for every line: not refused (no id or type to check).
    let len = match writer.event(None, None, message) {
        Ok(()) => writer.len(),
        Err(_) => 0,
    };
    buf.truncate(len);
    Bytes::from(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Listeners;
    use core::future::poll_fn;

    /// The next frame's bytes, `None` at the body's end.
    async fn next(body: &mut Reply) -> Option<std::vec::Vec<u8>> {
        let frame = poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await?;
        let mut data = frame.ok()?.into_data().ok()?;
        Some(data.copy_to_bytes(data.remaining()).to_vec())
    }

    // Time is paused: the runtime moves it on to the next timer when all waits.
    #[tokio::test(start_paused = true)]
    async fn a_quiet_stream_sends_a_comment_after_each_keep_alive() {
        let listeners = Listeners::new(1);
        let (events, leave) = listeners.open(1);
        let mut body = Reply::Stream(Streamed::listen(events, leave));
        let start = Instant::now();
        assert_eq!(next(&mut body).await.as_deref(), Some(&b":\n\n"[..]));
        assert_eq!(start.elapsed(), KEEP_ALIVE);
        listeners.send(1, b"{}").unwrap();
        assert_eq!(next(&mut body).await.as_deref(), Some(&b"data: {}\n\n"[..]));
        assert_eq!(start.elapsed(), KEEP_ALIVE, "sent at once");
        // The message put the next comment off by a whole period.
        assert_eq!(next(&mut body).await.as_deref(), Some(&b":\n\n"[..]));
        assert_eq!(start.elapsed(), KEEP_ALIVE * 2);
        assert!(listeners.close(1));
        assert_eq!(next(&mut body).await, None);
        assert!(listeners.is_empty());
    }
}
