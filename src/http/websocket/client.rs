//! The WebSocket side of [`RemoteClient`](crate::http::RemoteClient): one connection
//! (tokio-tungstenite), each message out a text message, each text (or UTF-8 binary)
//! message in a reply, a batch of them or a notification.

use std::io;
use std::time::Instant;

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Bytes, Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

use crate::http::client::ClientSettings;

/// A client's WebSocket connection.
pub(crate) struct WsLink {
    ws: WebSocketStream<TcpStream>,
}

impl WsLink {
    /// Connects to `url` (`ws://HOST[:PORT][/PATH]`) and makes the handshake, by
    /// `deadline`.
    pub(crate) async fn connect(
        url: &str,
        settings: &ClientSettings,
        deadline: Instant,
    ) -> io::Result<Self> {
        let rest = url.strip_prefix("ws://").unwrap_or(url);
        let authority = rest.split('/').next().unwrap_or(rest);
        let authority = match authority.rsplit_once(':') {
            Some((_, port)) if !port.ends_with(']') => std::string::String::from(authority),
            _ => std::format!("{authority}:80"),
        };
        let config = WebSocketConfig::default()
            .max_message_size(Some(settings.max_response))
            .max_frame_size(Some(settings.max_response));
        let connect = async {
            let stream = TcpStream::connect(authority.as_str()).await?;
            stream.set_nodelay(true)?;
            tokio_tungstenite::client_async_with_config(url, stream, Some(config))
                .await
                .map_err(io::Error::other)
        };
        let deadline = tokio::time::Instant::from_std(deadline);
        match tokio::time::timeout_at(deadline, connect).await {
            Ok(connected) => Ok(Self { ws: connected?.0 }),
            Err(_) => Err(io::ErrorKind::TimedOut.into()),
        }
    }

    /// Sends `message` as a text message (tungstenite owns what it sends: a copy).
    pub(crate) async fn send(&mut self, message: &[u8]) -> io::Result<()> {
        let text =
            Utf8Bytes::try_from(Bytes::copy_from_slice(message)).map_err(io::Error::other)?;
        self.ws
            .send(Message::Text(text))
            .await
            .map_err(io::Error::other)
    }

    /// The next message's bytes, or `None` if `deadline` came first. `Err` once the
    /// connection has ended (closed, failed, a message over the size limit).
    pub(crate) async fn read(&mut self, deadline: Option<Instant>) -> io::Result<Option<Bytes>> {
        loop {
            let next = match deadline {
                Some(at) => {
                    let at = tokio::time::Instant::from_std(at);
                    match tokio::time::timeout_at(at, self.ws.next()).await {
                        Ok(next) => next,
                        Err(_) => return Ok(None),
                    }
                }
                None => self.ws.next().await,
            };
            match next {
                Some(Ok(Message::Text(text))) => return Ok(Some(Bytes::from(text))),
                Some(Ok(Message::Binary(bytes))) if core::str::from_utf8(&bytes).is_ok() => {
                    return Ok(Some(bytes))
                }
                Some(Ok(Message::Binary(_))) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a binary message that is not UTF-8",
                    ))
                }
                Some(Ok(Message::Close(frame))) => {
                    let why = frame.map_or_else(
                        || std::string::String::from("closed by the server"),
                        |f| std::format!("closed by the server: {} {}", f.code, f.reason),
                    );
                    return Err(io::Error::new(io::ErrorKind::ConnectionAborted, why));
                }
                // Pings are answered by tungstenite; pongs and raw frames say nothing.
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Err(e)) => return Err(io::Error::other(e)),
                None => return Err(io::ErrorKind::UnexpectedEof.into()),
            }
        }
    }
}
