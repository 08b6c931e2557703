//! JSON-RPC 2.0 over HTTP/1.1, on hyper 1 and tokio (feature `hyper`): [`HttpServer`].
//!
//! The HTTP rules: `POST` only (else `405` with `Allow: POST`), on any path; the
//! request's `Content-Type` is `application/json` (parameters allowed;
//! `application/json-rpc` and `application/jsonrequest` too), else `415`; a body over
//! [`Settings::max_body`] is `413`. A reply is `200` with `Content-Type:
//! application/json`, JSON-RPC errors included; a message that gets no reply (a
//! notification, a batch of them) is `204` with no body. A request not answered within
//! [`Settings::request_timeout`] is `503`.
//!
//! What holds a server down when copied from an example is bounded here, each bound a
//! named [`Settings`] field with a production default:
//!
//! - **connections**: at most [`Settings::max_connections`] (1,000, below the usual
//!   descriptor limit of 1,024). A client that comes when all are open is served
//!   once the oldest idle one is closed for it; while none is idle, it waits in the
//!   listen backlog.
//! - **time**: a request head must arrive within [`Settings::header_timeout`] (10 s,
//!   hyper's timer installed: a slowloris peer is closed); a keep-alive connection
//!   idle for [`Settings::idle_timeout`] (5 s) is closed.
//! - **memory**: no buffer belongs to a connection. A request takes a pair (body and
//!   reply) from a pool of [`Settings::buffers`] (64) when its head has arrived, and
//!   gives it back once its reply is sent; a pair is allocated the first time the pool
//!   runs short, then reused. Its pages are touched only as far as bodies and replies
//!   reach. A connection that has sent nothing holds its socket and its task (about
//!   2 KiB): hyper's state, with its 8 KiB read and 8 KiB write buffers, is made at
//!   its first byte, and dropped again once a keep-alive connection has waited
//!   [`Settings::release_after`] (1 ms) for its next request.
//! - **shutdown**: [`HttpServer::serve_until`] stops accepting when its signal comes,
//!   closes idle connections, lets requests in flight finish for up to
//!   [`Settings::shutdown_grace`] (10 s), then drops the rest.
//!
//! Handlers are the codec's ([`Server::handle`](crate::Server::handle)): synchronous,
//! each given a context made for its request ([`HttpServer::new`]); or async, through
//! the concurrent service ([`HttpServer::concurrent`]): a batch's calls in flight at
//! once, each in a slot of its own, so a slow call does not hold up the others
//! (`concurrent.rs` says how).
//!
//! A protocol with rules of its own over HTTP (MCP's Streamable HTTP) puts them in a
//! [`gate`] ([`HttpServer::with_gate`]): it sees each request and its body, answers it
//! itself (a refusal) or says how the codec's answer goes (as JSON or as server-sent
//! events, `202` for no reply), and whether the call's handlers may ask the client,
//! whose answer comes in another `POST` ([`gate::Verdict::peer`]), or grants a
//! stream on which the client hears the server outside its calls (MCP's `GET` stream:
//! [`gate::Verdict::listen`], [`Listeners`]).
//!
//! With the `websocket` feature, [`HttpServer::with_websocket`] takes WebSocket
//! upgrades on the same address, with subscriptions ([`websocket`]).
//!
//! The client side: [`RemoteClient`], the crate's [`Client`](crate::client::Client)
//! over HTTP (one `POST` per call or batch on a keep-alive connection) or, with the
//! `websocket` feature, a WebSocket (the server's notifications beside the replies).

mod client;
mod concurrent;
pub mod gate;
mod listen;
mod peers;
#[cfg(feature = "websocket")]
mod pubsub;
mod server;
mod stream;
mod threads;
#[cfg(feature = "websocket")]
#[cfg_attr(docsrs, doc(cfg(feature = "websocket")))]
pub mod websocket;

pub use client::{
    ClientSettings, ConnectError, RemoteBatch, RemoteClient, RemoteError, QUEUED, QUEUED_BYTES,
};
pub use listen::{Listeners, Unsent, DEPTH, KEEP_ALIVE};
#[cfg(feature = "websocket")]
pub use pubsub::{Session, Subscribers, WithSync, CLOSE_NOT_READING};
pub use server::{HttpServer, Settings};
#[cfg(feature = "websocket")]
pub use websocket::WebSocket;

/// A body of at most one frame: a buffer lent to hyper (a request the client sends, a
/// reply the server sends), or nothing.
struct OneFrame<B>(Option<B>);

impl<B: hyper::body::Buf + Unpin> hyper::body::Body for OneFrame<B> {
    type Data = B;
    type Error = core::convert::Infallible;

    fn poll_frame(
        mut self: core::pin::Pin<&mut Self>,
        _: &mut core::task::Context<'_>,
    ) -> core::task::Poll<Option<Result<hyper::body::Frame<B>, Self::Error>>> {
        core::task::Poll::Ready(self.0.take().map(|buf| Ok(hyper::body::Frame::data(buf))))
    }
    fn is_end_stream(&self) -> bool {
        self.0.is_none()
    }
    fn size_hint(&self) -> hyper::body::SizeHint {
        hyper::body::SizeHint::with_exact(self.0.as_ref().map_or(0, |b| b.remaining() as u64))
    }
}
