//! A request's gate: the application's rules on a request's head and body, before the
//! codec ([`HttpServer::with_gate`]).
//!
//! A protocol on top of JSON-RPC over HTTP has rules of its own (MCP's Streamable HTTP:
//! which headers, versions, sessions): the gate sees each request with its headers
//! and body (any method: the server's own `405` and `415` come after it, a `413` or a
//! body cut short before), and either answers it itself (a status and a body of its
//! choosing: a refusal, a session's `DELETE`) or lets it be answered, saying how: a reply as one JSON body or as server-sent events (with the
//! messages the handlers sent on their own during the call, before it), the status of
//! a message that gets no reply (`204`, or `202`), headers to add, and whether the
//! call's handlers may ask the client and await its answer ([`Verdict::peer`]).
//!
//! [`HttpServer::with_gate`]: super::HttpServer::with_gate

use std::vec::Vec;

use hyper::header::{HeaderMap, HeaderName, HeaderValue, HOST, ORIGIN};
use hyper::{Method, StatusCode, Uri};

/// What a gate sees of a request.
#[derive(Debug)]
pub struct Head<'r> {
    /// The method (a method other than `POST` that the gate lets through is `405`).
    pub method: &'r Method,
    /// The request's target.
    pub uri: &'r Uri,
    /// Its headers.
    pub headers: &'r HeaderMap,
    /// Its body, whole (a JSON-RPC message, not yet parsed).
    pub body: &'r [u8],
}

/// What a gate says of a request: answered by the codec (how), or by the gate itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub(super) respond: Option<(StatusCode, Vec<u8>)>,
    pub(super) events: bool,
    pub(super) no_reply: StatusCode,
    pub(super) headers: Vec<(HeaderName, HeaderValue)>,
    pub(super) peer: Option<u64>,
    pub(super) listen: Option<u64>,
}

impl Default for Verdict {
    fn default() -> Self {
        Self::answer()
    }
}

impl Verdict {
    /// Answered as without a gate: a reply is one JSON body (`200`), no reply is `204`.
    pub fn answer() -> Self {
        Self {
            respond: None,
            events: false,
            no_reply: StatusCode::NO_CONTENT,
            headers: Vec::new(),
            peer: None,
            listen: None,
        }
    }

    /// Answered by the gate, not the codec: `status`, with `body` (JSON, sent as
    /// `application/json`; empty: no body): a refusal (`403`, or `400` with a
    /// JSON-RPC error saying why), or what the gate serves itself (`DELETE` of a
    /// session, say).
    pub fn respond(status: StatusCode, body: impl Into<Vec<u8>>) -> Self {
        Self {
            respond: Some((status, body.into())),
            ..Self::answer()
        }
    }

    /// The reply as server-sent events (`text/event-stream`, see
    /// [`frame::sse`](crate::frame::sse)): one event for each message the handlers
    /// sent on their own during the call ([`Call::notify`]), in order, then one for
    /// the reply. They are sent together once the reply is made (not as each is sent,
    /// but for a call that may ask the client, [`peer`](Self::peer)); when they do not
    /// all fit in [`Settings::max_reply`] with the reply, those messages are dropped
    /// and the reply is sent alone. A message that gets no reply
    /// is still answered by [`no_reply`](Self::no_reply)'s status.
    ///
    /// [`Call::notify`]: crate::service::concurrent::Call::notify
    /// [`Settings::max_reply`]: super::Settings::max_reply
    pub fn events(mut self) -> Self {
        self.events = true;
        self
    }

    /// The status of a message that gets no reply (a notification, a response): `204`
    /// unless set (MCP's Streamable HTTP says `202`).
    pub fn no_reply(mut self, status: StatusCode) -> Self {
        self.no_reply = status;
        self
    }

    /// The request belongs to `scope` (a session, a user: whatever the gate tells
    /// its clients apart by), whose client answers the server's requests.
    ///
    /// On a request with an id whose reply goes as [`events`](Self::events), with the
    /// concurrent service ([`HttpServer::concurrent`]): its handlers may ask the
    /// client ([`Call::request`]). The reply is then streamed: each message a handler
    /// sends goes out as an event as it is sent, the reply last, and the handler's
    /// request waits for the client's response, which comes in another `POST` with
    /// the same scope. Each such call's requests get ids of their own (a range of
    /// 2^20, every id below 2^53 so that a JavaScript client keeps it exact). At most
    /// half of [`Settings::buffers`] such calls run at once (the others' responses
    /// must find a buffer pair); past that, and on any other request, a handler's
    /// request fails at once with [`PeerError::Lost`], the client told nothing.
    ///
    /// On a response (an object with an id and no `method`): handed to the call of
    /// `scope` that awaits it, and answered with [`no_reply`](Self::no_reply)'s
    /// status; a response no call of `scope` awaits (late, unknown, of another
    /// scope) is dropped and answered the same, as JSON-RPC drops a response nobody
    /// awaits.
    ///
    /// [`HttpServer::concurrent`]: super::HttpServer::concurrent
    /// [`Call::request`]: crate::service::concurrent::Call::request
    /// [`PeerError::Lost`]: crate::service::concurrent::PeerError::Lost
    /// [`Settings::buffers`]: super::Settings::buffers
    pub fn peer(mut self, scope: u64) -> Self {
        self.peer = Some(scope);
        self
    }

    /// A request to hear the server (MCP's `GET` stream, of any method: the gate's
    /// verdict overrules the server's `405` and `415`): answered `200` with
    /// `Content-Type: text/event-stream`, held open, each message the application
    /// sends to `scope` ([`Listeners::send`]) an event on it; the stream replaces the
    /// one of `scope` open before. The server must have been given the set
    /// ([`HttpServer::with_listeners`]); without it the request is answered as
    /// [`answer`](Self::answer) has it. [`listen`](super::Listeners) says what ends a
    /// stream and what bounds them.
    ///
    /// [`Listeners::send`]: super::Listeners::send
    /// [`HttpServer::with_listeners`]: super::HttpServer::with_listeners
    pub fn listen(scope: u64) -> Self {
        Self {
            listen: Some(scope),
            ..Self::answer()
        }
    }

    /// A header to add to the response.
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// The status the gate answers with itself, if it does.
    pub fn responds(&self) -> Option<StatusCode> {
        self.respond.as_ref().map(|(status, _)| *status)
    }
}

/// `true` if the request comes from this machine as far as its `Host` and `Origin` say:
/// each absent, or naming `localhost`, `127.0.0.1` or `[::1]` (any port). A server
/// bound to loopback refuses the rest (`403`): a web page elsewhere that a browser
/// sends to a local server, through a name rebound to 127.0.0.1, carries its own
/// `Origin` and the name it used in `Host` (DNS rebinding).
pub fn local_origin(headers: &HeaderMap) -> bool {
    let local = |authority: &[u8]| {
        let host = match authority.strip_prefix(b"[") {
            // An IPv6 literal: up to its bracket.
            Some(v6) => v6.split(|&b| b == b']').next().map(|h| (h, true)),
            None => authority.split(|&b| b == b':').next().map(|h| (h, false)),
        };
        match host {
            Some((h, true)) => h == b"::1",
            Some((h, false)) => h.eq_ignore_ascii_case(b"localhost") || h == b"127.0.0.1",
            None => false,
        }
    };
    let host_ok = headers.get(HOST).map_or(true, |h| local(h.as_bytes()));
    let origin_ok = headers.get(ORIGIN).map_or(true, |o| {
        let o = o.as_bytes();
        let rest = o
            .strip_prefix(b"http://")
            .or_else(|| o.strip_prefix(b"https://"));
        // `null` (a sandboxed page, a file) is not local either.
        rest.is_some_and(|r| local(r.split(|&b| b == b'/').next().unwrap_or(r)))
    });
    host_ok && origin_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(HeaderName, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn only_this_machine_is_local() {
        assert!(local_origin(&headers(&[])));
        for host in [
            "localhost",
            "localhost:3000",
            "127.0.0.1:8",
            "[::1]:80",
            "LOCALHOST",
        ] {
            assert!(local_origin(&headers(&[(HOST, host)])), "{host}");
        }
        assert!(local_origin(&headers(&[
            (HOST, "127.0.0.1:3000"),
            (ORIGIN, "http://localhost:5173")
        ])));
        for host in [
            "evil.example.com",
            "localhost.evil.com",
            "127.0.0.2",
            "[::2]",
        ] {
            assert!(!local_origin(&headers(&[(HOST, host)])), "{host}");
        }
        for origin in [
            "http://evil.example.com",
            "null",
            "http://127.0.0.1.evil",
            "file://",
        ] {
            assert!(
                !local_origin(&headers(&[(HOST, "localhost"), (ORIGIN, origin)])),
                "{origin}"
            );
        }
    }
}
