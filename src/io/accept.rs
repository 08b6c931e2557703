//! What an error of a listener's `accept` means to a server that loops on it (the
//! HTTP server, both IPC servers).

use std::io;

/// Out of descriptors or memory: a closing connection would cure it, so the server
/// waits and accepts again.
pub(crate) fn out_of_descriptors(e: &io::Error) -> bool {
    // EMFILE, ENFILE (Linux, the BSDs and macOS alike), ENOBUFS, ENOMEM.
    matches!(e.raw_os_error(), Some(23 | 24 | 105 | 12 | 55))
}

/// The client left before it was accepted (`ECONNABORTED` and kin): the next one is
/// accepted.
pub(crate) fn is_per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}
