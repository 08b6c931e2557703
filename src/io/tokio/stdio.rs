//! Standard input and output for a tokio program, as non-blocking pipes on the
//! runtime's reactor when they are pipes (the usual case for a server a client
//! launches: an MCP or LSP server), else as [`tokio::io::stdin`] and
//! [`tokio::io::stdout`] (a terminal, a file), which hand each read and write to a
//! thread of tokio's blocking pool: a thread switch and, per call, an allocation.
//!
//! ```no_run
//! # async fn serve() {
//! use jsonrpc_slice::io::tokio::{stdio, Io};
//! let (mut stdin, mut stdout) = (Io(stdio::stdin()), Io(stdio::stdout()));
//! # }
//! ```
//!
//! A pipe made non-blocking is so for every holder of it: in this process, a write
//! through `std::io::stdout` (`println!`) can then fail with
//! [`WouldBlock`](std::io::ErrorKind::WouldBlock) (a server on stdio writes its logs to
//! stderr anyway), and so can the other processes sharing the pipe's end.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
#[cfg(unix)]
use tokio::net::unix::pipe;

/// Standard input as [`stdin`] opened it: an [`AsyncRead`].
#[derive(Debug)]
pub enum Stdin {
    /// A pipe, read on the reactor.
    #[cfg(unix)]
    Pipe(pipe::Receiver),
    /// Anything else, read through tokio's blocking pool.
    Blocking(tokio::io::Stdin),
}

/// Standard output as [`stdout`] opened it: an [`AsyncWrite`].
#[derive(Debug)]
pub enum Stdout {
    /// A pipe, written on the reactor.
    #[cfg(unix)]
    Pipe(pipe::Sender),
    /// Anything else, written through tokio's blocking pool.
    Blocking(tokio::io::Stdout),
}

/// Standard input: a pipe on the reactor if it is a pipe, else `tokio::io::stdin()`.
/// Call it within a tokio runtime whose I/O driver is enabled (the pipe registers
/// with it).
pub fn stdin() -> Stdin {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = io::stdin().as_fd().try_clone_to_owned();
        if let Ok(pipe) = fd.and_then(pipe::Receiver::from_owned_fd) {
            return Stdin::Pipe(pipe);
        }
    }
    Stdin::Blocking(tokio::io::stdin())
}

/// Standard output: a pipe on the reactor if it is a pipe, else
/// `tokio::io::stdout()`. Call it within a tokio runtime whose I/O driver is enabled.
pub fn stdout() -> Stdout {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = io::stdout().as_fd().try_clone_to_owned();
        if let Ok(pipe) = fd.and_then(pipe::Sender::from_owned_fd) {
            return Stdout::Pipe(pipe);
        }
    }
    Stdout::Blocking(tokio::io::stdout())
}

impl Stdin {
    /// It is a pipe read on the reactor.
    pub fn is_pipe(&self) -> bool {
        !matches!(self, Self::Blocking(_))
    }
}

impl Stdout {
    /// It is a pipe written on the reactor.
    pub fn is_pipe(&self) -> bool {
        !matches!(self, Self::Blocking(_))
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Self::Pipe(pipe) => Pin::new(pipe).poll_read(cx, buf),
            Self::Blocking(stdin) => Pin::new(stdin).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stdout {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            #[cfg(unix)]
            Self::Pipe(pipe) => Pin::new(pipe).poll_write(cx, buf),
            Self::Blocking(stdout) => Pin::new(stdout).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Self::Pipe(pipe) => Pin::new(pipe).poll_flush(cx),
            Self::Blocking(stdout) => Pin::new(stdout).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Self::Pipe(pipe) => Pin::new(pipe).poll_shutdown(cx),
            Self::Blocking(stdout) => Pin::new(stdout).poll_shutdown(cx),
        }
    }
}
