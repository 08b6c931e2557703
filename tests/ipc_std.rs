//! `io::std::ipc::serve`, the blocking Unix-socket server, with raw clients; every
//! wait for the server is a wait for its bytes or its close, bounded by `LIMIT`.
//!
//! | property | test |
//! |---|---|
//! | newline-delimited and back-to-back JSON on one socket, batches too | `both_framings_on_one_socket` |
//! | bytes that are not a message answered once, the stream goes on | `garbage_is_answered_and_the_stream_resyncs` |
//! | connections served at once, each on its own thread | `connections_are_served_at_once` |
//! | at the cap a new client waits until a connection closes | `at_the_cap_a_client_waits_for_a_connection_to_close` |
//! | a silent peer is closed after the idle timeout | `a_silent_peer_is_closed` |

#![cfg(unix)]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::time::Duration;

use jsonrpc_slice::io::std::ipc::{serve, Settings};
use jsonrpc_slice::{demo, Server};

static SERVER: Server<()> = Server::new(demo::TABLE);

/// The longest any step waits: far above every time limit set here.
const LIMIT: Duration = Duration::from_secs(10);

fn relaxed() -> Settings {
    Settings {
        idle_timeout: LIMIT * 6,
        write_timeout: LIMIT * 6,
        ..Settings::default()
    }
}

/// A socket file that is removed when the test that made it ends.
struct Bound(PathBuf);

impl std::ops::Deref for Bound {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl Drop for Bound {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A server on a fresh socket in the temporary directory, on a thread of its own
/// (it serves for ever; the process ends it; the file goes with the test).
fn start(name: &str, settings: Settings) -> Bound {
    let path = std::env::temp_dir().join(format!(
        "jsonrpc-slice-ipc-std-{name}-{}.sock",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).unwrap();
    std::thread::spawn(move || serve(&listener, &SERVER, || (), &settings));
    Bound(path)
}

struct Client {
    io: BufReader<UnixStream>,
}

impl Client {
    fn connect(path: &PathBuf) -> Self {
        let stream = UnixStream::connect(path).unwrap();
        stream.set_read_timeout(Some(LIMIT)).unwrap();
        Self {
            io: BufReader::new(stream),
        }
    }

    fn send(&mut self, bytes: &str) {
        self.io.get_mut().write_all(bytes.as_bytes()).unwrap();
    }

    /// The next reply line, without its `\n`.
    fn line(&mut self) -> String {
        let mut line = String::new();
        let n = self
            .io
            .read_line(&mut line)
            .expect("a reply within the limit");
        assert!(n > 0, "the end, not a reply");
        line.trim_end_matches('\n').to_string()
    }

    /// Whether the server closes the connection (within the limit) with nothing more.
    fn closed(&mut self) -> bool {
        let mut rest = Vec::new();
        matches!(self.io.read_to_end(&mut rest), Ok(0))
    }
}

fn subtract(a: i32, b: i32, id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"subtract","params":[{a},{b}],"id":{id}}}"#)
}

fn result(value: i32, id: u32) -> String {
    format!(r#"{{"jsonrpc":"2.0","result":{value},"id":{id}}}"#)
}

#[test]
fn both_framings_on_one_socket() {
    let path = start("framings", relaxed());
    let mut c = Client::connect(&path);
    // One a line, then two back to back, then a batch.
    c.send(&format!("{}\n", subtract(42, 23, 1)));
    assert_eq!(c.line(), result(19, 1));
    c.send(&format!("{}{}", subtract(5, 3, 2), subtract(7, 3, 3)));
    assert_eq!(c.line(), result(2, 2));
    assert_eq!(c.line(), result(4, 3));
    c.send(&format!("[{},{}]", subtract(1, 1, 4), subtract(3, 1, 5)));
    assert_eq!(c.line(), format!("[{},{}]", result(0, 4), result(2, 5)));
}

#[test]
fn garbage_is_answered_and_the_stream_resyncs() {
    let path = start("garbage", relaxed());
    let mut c = Client::connect(&path);
    c.send(&format!("xyz {}", subtract(9, 4, 6)));
    assert!(c.line().contains("-32700"));
    assert_eq!(c.line(), result(5, 6));
}

#[test]
fn connections_are_served_at_once() {
    let path = start("at-once", relaxed());
    // The first stays open and idle while the second is served.
    let mut first = Client::connect(&path);
    first.send(&subtract(2, 1, 1));
    assert_eq!(first.line(), result(1, 1));
    let mut second = Client::connect(&path);
    second.send(&subtract(3, 1, 2));
    assert_eq!(second.line(), result(2, 2));
    first.send(&subtract(4, 1, 3));
    assert_eq!(first.line(), result(3, 3));
}

#[test]
fn at_the_cap_a_client_waits_for_a_connection_to_close() {
    let path = start(
        "cap",
        Settings {
            max_connections: 1,
            ..relaxed()
        },
    );
    let mut a = Client::connect(&path);
    a.send(&subtract(2, 1, 1));
    assert_eq!(a.line(), result(1, 1));
    // B connects (into the backlog) and asks; A is still served meanwhile.
    let mut b = Client::connect(&path);
    b.send(&subtract(3, 1, 2));
    a.send(&subtract(4, 1, 3));
    assert_eq!(a.line(), result(3, 3));
    // Not accepted while A is open: nothing for B.
    b.io.get_ref().set_nonblocking(true).unwrap();
    let mut byte = [0u8; 1];
    let unread = b.io.get_mut().read(&mut byte);
    assert!(
        matches!(&unread, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "{unread:?}"
    );
    b.io.get_ref().set_nonblocking(false).unwrap();
    drop(a);
    assert_eq!(b.line(), result(2, 2));
}

#[test]
fn a_silent_peer_is_closed() {
    let path = start(
        "idle",
        Settings {
            idle_timeout: Duration::from_millis(100),
            ..relaxed()
        },
    );
    let mut silent = Client::connect(&path);
    let mut used = Client::connect(&path);
    used.send(&subtract(2, 1, 1));
    assert_eq!(used.line(), result(1, 1));
    assert!(silent.closed());
    assert!(used.closed());
}
