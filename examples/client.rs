//! A JSON-RPC 2.0 client: spawns the `serve` example as a child process and calls it
//! over each framing: newline-delimited, `Content-Length`, COBS and COBS with a CRC-32.
//!
//! ```sh
//! cargo build --release --features std && cargo run --release --example client
//! ```
//!
//! Requests are written into a fixed buffer, replies read through the library's
//! framers and parsed borrowed, and a `Pending` table matches each reply to its
//! request by id. It exits non-zero if any reply is not what the demo table answers.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};

use jsonrpc_slice::client::{
    write_notification, write_request, IdCounter, Pending, RequestId, Resolution,
};
use jsonrpc_slice::envelope::{parse_response, Outcome, Response, ResponseMessage};
use jsonrpc_slice::frame::cobs::{Check, CobsAccumulator};
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::{frame_message, FeedResult, Framer};
use jsonrpc_slice::{Limits, RawJson, WriteError};

/// Where the `serve` example is: next to this binary, built by cargo.
fn serve_path() -> PathBuf {
    if let Some(path) = std::env::var_os("JSONRPC_SLICE_SERVE") {
        return PathBuf::from(path);
    }
    // target/<profile>/examples/client -> target/<profile>/jsonrpc-slice-serve
    let me = std::env::current_exe().expect("own path");
    let profile_dir = me.parent().and_then(|d| d.parent()).unwrap_or(&me);
    profile_dir.join(format!(
        "jsonrpc-slice-serve{}",
        std::env::consts::EXE_SUFFIX
    ))
}

/// One connection to a spawned server.
struct Connection {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    framer: Box<dyn Framer>,
    chunk: Vec<u8>,
    /// Bytes read but not yet fed.
    unread: Vec<u8>,
}

impl Connection {
    fn spawn(framing: &str) -> Result<Self, String> {
        let path = serve_path();
        let mut child = Command::new(&path)
            .args(["--framing", framing])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| {
                format!(
                    "cannot start {} ({e}); build it first: cargo build --release --features std",
                    path.display()
                )
            })?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let framer: Box<dyn Framer> = match framing {
            "newline" => Box::new(LineAccumulator::<65536>::new()),
            "cobs" => Box::new(CobsAccumulator::<65536>::new()),
            "cobs-crc32" => Box::new(CobsAccumulator::<65536>::with_check(Check::Crc32)),
            _ => Box::new(ContentLengthAccumulator::<65536>::new()),
        };
        Ok(Self {
            child,
            stdin,
            stdout,
            framer,
            chunk: vec![0; 65536],
            unread: Vec::new(),
        })
    }

    /// Sends one message, framed as the server frames its replies.
    fn send(&mut self, msg: &[u8]) -> std::io::Result<()> {
        for piece in frame_message(&*self.framer, msg).pieces() {
            self.stdin.write_all(piece)?;
        }
        self.stdin.flush()
    }

    /// Reads the next reply frame and hands it to `f`.
    fn receive<T>(&mut self, f: impl FnOnce(&[u8]) -> T) -> Result<T, String> {
        loop {
            let input = std::mem::take(&mut self.unread);
            match self.framer.feed(&input) {
                FeedResult::Frame { frame, remaining } => {
                    let rest = remaining.to_vec();
                    let out = f(frame);
                    self.unread = rest;
                    return Ok(out);
                }
                FeedResult::Oversized { .. } | FeedResult::Malformed { .. } => {
                    return Err("the server sent a reply that is not a frame".into())
                }
                FeedResult::Consumed => {}
            }
            let n = self
                .stdout
                .read(&mut self.chunk)
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the server closed its output".into());
            }
            self.unread = self.chunk[..n].to_vec();
        }
    }

    fn close(mut self) -> Result<(), String> {
        drop(self.stdin);
        let status = self.child.wait().map_err(|e| e.to_string())?;
        status
            .success()
            .then_some(())
            .ok_or(format!("server exited with {status}"))
    }
}

/// What a reply should say.
enum Expect {
    Result(&'static str),
    Error(i64),
}

fn check(response: &Response<'_>, want: &Expect) -> Result<(), String> {
    match (&response.outcome, want) {
        (Outcome::Result(r), Expect::Result(w)) if r.as_bytes() == w.as_bytes() => Ok(()),
        (Outcome::Error(e), Expect::Error(code)) if e.code == *code => Ok(()),
        (got, _) => Err(format!("id {}: unexpected {got:?}", response.id)),
    }
}

/// Runs the calls over one framing; returns how many replies were checked.
fn session(framing: &str) -> Result<usize, String> {
    let mut conn = Connection::spawn(framing)?;
    let mut ids = IdCounter::new(1);
    let mut pending: Pending<&'static str, 16> = Pending::new();
    let mut buf = [0u8; 1024];
    let calls: [(&str, &str, Expect); 6] = [
        ("subtract", "[42,23]", Expect::Result("19")),
        (
            "subtract",
            r#"{"subtrahend":23,"minuend":42}"#,
            Expect::Result("19"),
        ),
        ("sum", "[1,2,4]", Expect::Result("7")),
        ("get_data", "", Expect::Result(r#"["hello",5]"#)),
        ("foobar", "", Expect::Error(-32601)),
        ("fail", r#"{"why":"testing"}"#, Expect::Error(-32000)),
    ];
    let mut checked = 0;
    for (method, params, want) in &calls {
        let id = ids.next_id();
        let msg = write_request(&mut buf, RequestId::Number(id), method, |p| match params {
            &"" => Ok(()),
            raw => p.raw(RawJson::new(raw.as_bytes()).map_err(|_| WriteError::Misuse)?),
        })
        .map_err(|e| e.to_string())?;
        pending
            .insert(RequestId::Number(id), method)
            .map_err(|(_, e)| e.to_string())?;
        conn.send(msg).map_err(|e| e.to_string())?;
        // A notification in between: it must not be answered.
        let note = write_notification(&mut buf, "notify_hello", |p| {
            p.raw(RawJson::new(b"[7]").unwrap())
        })
        .map_err(|e| e.to_string())?;
        conn.send(note).map_err(|e| e.to_string())?;
        conn.receive(|frame| -> Result<(), String> {
            let Ok(ResponseMessage::Single(Ok(response))) = parse_response(frame, &Limits::DEFAULT)
            else {
                return Err(format!(
                    "not a response: {}",
                    String::from_utf8_lossy(frame)
                ));
            };
            match pending.resolve(response.id) {
                Resolution::Matched(m) if m == *method => check(&response, want),
                other => Err(format!("reply to {method} resolved as {other:?}")),
            }
        })??;
        checked += 1;
    }
    // A batch with a notification in it: one reply per request, in order.
    let batch = br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":"a"},{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"echo","params":[true],"id":"b"}]"#;
    conn.send(batch).map_err(|e| e.to_string())?;
    checked += conn.receive(|frame| -> Result<usize, String> {
        let Ok(ResponseMessage::Batch(replies)) = parse_response(frame, &Limits::DEFAULT) else {
            return Err("not a batch reply".into());
        };
        let replies: Vec<_> = replies
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        if replies.len() != 2 {
            return Err(format!(
                "{} replies to a batch of 2 requests",
                replies.len()
            ));
        }
        check(&replies[0], &Expect::Result("3"))?;
        check(&replies[1], &Expect::Result("[true]"))?;
        Ok(2)
    })??;
    if !pending.is_empty() {
        return Err(format!("requests left unanswered: {pending:?}"));
    }
    conn.close()?;
    Ok(checked)
}

fn main() -> ExitCode {
    let mut failed = false;
    for framing in ["newline", "content-length", "cobs", "cobs-crc32"] {
        match session(framing) {
            Ok(n) => println!("{framing}: {n} replies checked"),
            Err(e) => {
                eprintln!("{framing}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
