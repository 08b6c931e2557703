//! A JSON-RPC 2.0 client: spawns the `serve` example as a child process and calls it
//! over each framing: newline-delimited, `Content-Length`, COBS and COBS with a CRC-32.
//!
//! ```sh
//! cargo build --release --features std --bin jsonrpc-slice-serve
//! cargo run --release --features std,serde --example client
//! ```
//!
//! A `Connection` runs the client over the child's pipes: each call is written,
//! registered and sent in one step, and its reply read back typed. It exits non-zero
//! if any reply is not what the demo table answers.

use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use jsonrpc_slice::client::{CallError, Connection, ConnectionError, Incoming};
use jsonrpc_slice::frame::cobs::{Check, CobsAccumulator};
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::Framer;
use jsonrpc_slice::io::Split;
use jsonrpc_slice::RawJson;

/// Where the `serve` binary is: next to this example, built by cargo.
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

fn params(json: &str) -> RawJson<'_> {
    RawJson::new(json.as_bytes()).expect("valid JSON")
}

/// What went wrong, as text (the client's errors borrow its buffers).
fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The code of the server's error, or what went wrong instead.
fn error_code<T: std::fmt::Debug>(
    reply: Result<T, ConnectionError<'_, std::io::Error, std::io::Error>>,
) -> Result<i64, String> {
    match reply {
        Err(ConnectionError::Call(CallError::Rpc(e))) => Ok(e.code),
        other => Err(format!("expected an error, got {other:?}")),
    }
}

/// Runs the calls over one framing; returns how many replies were checked.
fn session(framing: &str) -> Result<usize, String> {
    let mut child = Command::new(serve_path())
        .args(["--framing", framing])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!("cannot start the server ({e}); build it: cargo build --release --features std")
        })?;
    let mut pipes = Split(
        child.stdout.take().ok_or("no stdout")?,
        child.stdin.take().ok_or("no stdin")?,
    );
    let mut framer: Box<dyn Framer> = match framing {
        "newline" => Box::new(LineAccumulator::<65536>::new()),
        "cobs" => Box::new(CobsAccumulator::<65536>::new()),
        "cobs-crc32" => Box::new(CobsAccumulator::<65536>::with_check(Check::Crc32)),
        _ => Box::new(ContentLengthAccumulator::<65536>::new()),
    };
    let (mut input, mut output) = (vec![0; 65536], vec![0; 65536]);
    // Anything that answers no call (an answered notification, say) is counted.
    let mut strays = 0;
    let mut stray = |_: Incoming<'_>| strays += 1;
    let now = std::time::Instant::now;
    let mut conn: Connection<'_, dyn Framer, _, 16, 4096> =
        Connection::new(&mut *framer, &mut input, &mut output, now).on_incoming(&mut stray);
    let io = &mut pipes;

    let diff: i64 = conn.call(io, "subtract", params("[42,23]")).map_err(text)?;
    let named: i64 = conn
        .call(io, "subtract", params(r#"{"subtrahend":23,"minuend":42}"#))
        .map_err(text)?;
    let sum: i64 = conn.call(io, "sum", params("[1,2,4]")).map_err(text)?;
    let data: (String, i64) = conn.call(io, "get_data", ()).map_err(text)?;
    // A notification in between: it must not be answered.
    conn.notify(io, "notify_hello", params("[7]"))
        .map_err(text)?;
    let not_found = error_code(conn.call::<i64, _, _>(io, "foobar", ()))?;
    let failed = error_code(conn.call::<i64, _, _>(io, "fail", params(r#"{"why":"testing"}"#)))?;
    // A batch with a notification in it: one reply per call.
    let (batch_sum, echo) = conn
        .send_batch(io, |batch| {
            let sum = batch.call::<i64>("sum", params("[1,2]"))?;
            batch.notify("update", ())?;
            Ok((sum, batch.call::<[bool; 1]>("echo", params("[true]"))?))
        })
        .map_err(text)?;
    conn.wait(io, &echo).map_err(text)?;
    let batch_sum = conn
        .client()
        .take(&batch_sum)
        .ok_or("no reply")?
        .map_err(text)?;
    let echo = conn.client().take(&echo).ok_or("no reply")?.map_err(text)?;

    let got = (
        diff, named, sum, data, not_found, failed, batch_sum, echo, strays,
    );
    let want = (19, 19, 7, ("hello".into(), 5), -32601, -32000, 3, [true], 0);
    if got != want {
        return Err(format!("got {got:?}, want {want:?}"));
    }
    // Closing its input ends the server.
    drop(pipes);
    let status = child.wait().map_err(text)?;
    match status.success() {
        true => Ok(8),
        false => Err(format!("server exited with {status}")),
    }
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
