//! A response body: one reply lent from its buffer pair, or server-sent events as a
//! call makes them (a call whose handlers may ask the client, [`Verdict::peer`]).
//!
//! The events come through a channel of `DEPTH` messages from the call's loop, which
//! waits while it is full (a client that does not read holds the loop up to the
//! request's time limit, not memory). The body also keeps the connection counted busy
//! while it streams: the connection is not closed as idle, nor its state released,
//! under it.
//!
//! [`Verdict::peer`]: super::gate::Verdict::peer

use std::boxed::Box;
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper::body::{Body, Buf, Bytes, Frame, SizeHint};
use tokio::sync::mpsc;

use super::server::Lent;

/// How many events wait for the client at most.
pub(super) const DEPTH: usize = 16;

/// A response body.
pub(super) enum Reply {
    /// One reply (or nothing), sent whole.
    One(Option<Lent>),
    /// Events, as the call makes them, until it ends.
    Stream(Streamed),
}

/// The events of a call, as its loop sends them.
pub(super) struct Streamed {
    pub(super) events: mpsc::Receiver<Bytes>,
    /// What marks the connection busy until the body is dropped.
    pub(super) busy: Option<Box<dyn Send + Sync>>,
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
            Self::Stream(stream) => stream
                .events
                .poll_recv(cx)
                .map(|event| event.map(|bytes| Ok(Frame::data(Data::Event(bytes))))),
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

/// One server-sent event holding `message` (the codec's messages hold no line break).
pub(super) fn event(message: &[u8]) -> Bytes {
    const DATA: &[u8] = b"data: ";
    const END: &[u8] = b"\n\n";
    let mut event = std::vec::Vec::with_capacity(DATA.len() + message.len() + END.len());
    event.extend_from_slice(DATA);
    event.extend_from_slice(message);
    event.extend_from_slice(END);
    Bytes::from(event)
}
