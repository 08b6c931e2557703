//! The device calls the host (feature `host-call`): once its UART is up, before it
//! serves, the firmware calls `host_sum` on the host with the crate's client
//! (`jsonrpc_slice::client::Connection` over the UART as an `embedded-io` stream) and
//! decodes the reply as `(u32, &str)`; then it calls `host_silent`, which the host
//! leaves unanswered, with a deadline three ticks away. The clock is a tick counter:
//! one tick each time a read finds the UART idle for [`POLLS`] polls (the stream's
//! read timeout), so the deadline passes, the call times out and MCP's
//! `notifications/cancelled` goes out for it. Last, a `device_report` notification
//! says what the device made of both: the sum doubled, the note's length, and how
//! the silent call ended. The host's side is `host_call.py`.

use core::cell::Cell;

use embedded_io::ErrorKind;
use jsonrpc_slice::client::{params, Call, CallError, Cancel, Connection, ConnectionError};
use jsonrpc_slice::frame::newline::LineAccumulator;

use crate::board::{Serial, Uart};

/// Empty polls of the UART that make one tick of the clock.
const POLLS: u32 = 20_000;

/// The UART as an `embedded-io` stream, whose reads give up (a `TimedOut` error, one
/// tick) after [`POLLS`] polls that found nothing.
struct Port<'u> {
    uart: &'u mut Uart,
    ticks: &'u Cell<u32>,
}

#[derive(Debug)]
struct Idle;

impl embedded_io::Error for Idle {
    fn kind(&self) -> ErrorKind {
        ErrorKind::TimedOut
    }
}

impl embedded_io::ErrorType for Port<'_> {
    type Error = Idle;
}

impl embedded_io::Read for Port<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Idle> {
        for _ in 0..POLLS {
            let mut n = 0;
            for slot in buf.iter_mut() {
                match self.uart.try_read() {
                    Some(b) => {
                        *slot = b;
                        n += 1;
                    }
                    None => break,
                }
            }
            if n > 0 {
                return Ok(n);
            }
        }
        self.ticks.set(self.ticks.get().wrapping_add(1));
        Err(Idle)
    }
}

impl embedded_io::Write for Port<'_> {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Idle> {
        self.uart.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> Result<(), Idle> {
        self.uart.flush();
        Ok(())
    }
}

/// Calls the host (see the module's docs), then hands the UART back.
pub fn run(mut uart: Uart) -> Uart {
    let ticks = Cell::new(0u32);
    let mut framer = LineAccumulator::<256>::new();
    let (mut input, mut output) = ([0u8; 16], [0u8; 256]);
    let mut conn: Connection<'_, _, _, 2, 128> =
        Connection::new(&mut framer, &mut input, &mut output, || ticks.get())
            .with_cancel(Cancel::MCP);
    let port = &mut Port {
        uart: &mut uart,
        ticks: &ticks,
    };

    let args = params(|p| {
        p.begin_array()?;
        p.u64(40)?;
        p.u64(2)?;
        p.end()
    });
    let (doubled, note_len) = match conn.call::<(u32, &str), _, _>(port, "host_sum", args) {
        Ok((sum, note)) => (sum.wrapping_mul(2), note.len()),
        Err(_) => (0, 0),
    };
    let silent = Call::new("host_silent").deadline(conn.now().wrapping_add(3));
    let silent = match conn.call::<u32, _, _>(port, silent, ()) {
        Err(ConnectionError::Call(CallError::TimedOut)) => "timed out",
        Ok(_) => "answered",
        Err(_) => "failed",
    };
    let report = params(|p| {
        p.begin_object()?;
        p.key("doubled")?;
        p.u64(u64::from(doubled))?;
        p.key("note_len")?;
        p.u64(note_len as u64)?;
        p.key("silent")?;
        p.str(silent)?;
        p.end()
    });
    // The UART does not fail; the report is what the host checks.
    let _ = conn.notify(port, "device_report", report);
    uart
}
