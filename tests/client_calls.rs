//! The client: every outcome of a handle (result, the server's error, a result that
//! does not decode, timeout, cancellation, lost connection, no reply, an id that came
//! back as another type, a reply too large, a stale handle), late, duplicate and
//! unknown replies, notifications beside replies, batches (an empty one refused), and
//! the loops over `std::io` and `embedded-io` 0.6 and 0.7, blocking and async. Each
//! runs under the counting allocator and counts zero allocations; time is a manual
//! clock (no sleeps).

#[path = "common/counting.rs"]
mod counting;

use std::cell::Cell;
use std::fmt::{self, Write as _};

use counting::counting;
use jsonrpc_slice::client::{
    params, Call, CallError, Cancel, Client, Connection, ConnectionError, Handle, Incoming,
    InsertError, RequestId, SendError, Status,
};
use jsonrpc_slice::frame::cobs::CobsAccumulator;
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::io::Split;
use jsonrpc_slice::RawJson;

/// A fixed buffer that `Display` writes into (`to_string` would allocate).
struct Text<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Text<N> {
    fn of(v: impl fmt::Display) -> Self {
        let mut t = Self {
            buf: [0; N],
            len: 0,
        };
        write!(t, "{v}").unwrap();
        t
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap()
    }
}

impl<const N: usize> fmt::Write for Text<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// What `receive` handed on, counted by kind.
#[derive(Default, Debug, PartialEq, Eq, Clone, Copy)]
struct Seen {
    notifications: usize,
    requests: usize,
    late: usize,
    duplicate: usize,
    unknown: usize,
    null_id: usize,
    invalid: usize,
}

impl Seen {
    fn note(&mut self, i: Incoming<'_>) {
        match i {
            Incoming::Notification(_) => self.notifications += 1,
            Incoming::Request(_) => self.requests += 1,
            Incoming::Late(_) => self.late += 1,
            Incoming::Duplicate(_) => self.duplicate += 1,
            Incoming::Unknown(_) => self.unknown += 1,
            Incoming::NullId(_) => self.null_id += 1,
            _ => self.invalid += 1,
        }
    }
}

fn none<T>(f: impl FnOnce() -> T) -> T {
    let (v, allocations) = counting(f);
    assert_eq!(allocations, 0, "the client allocated");
    v
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Point {
    x: u64,
    y: u64,
}

#[test]
fn a_result_the_servers_error_and_a_result_that_does_not_decode() {
    none(|| {
        let mut client: Client<4, 256> = Client::new();
        let mut out = [0u8; 128];
        let (sum, msg) = client
            .request::<u64>(&mut out, "sum", RawJson::new(b"[1,2]").unwrap())
            .unwrap();
        assert_eq!(
            msg,
            br#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}"#
        );
        let (fail, _) = client.request::<u64>(&mut out, "fail", ()).unwrap();
        let (point, _) = client.request::<Point>(&mut out, "point", ()).unwrap();
        let (name, msg) = client
            .request::<(bool, &str)>(&mut out, "name", params(|p| p.serialize(&("a", 1))))
            .unwrap();
        assert_eq!(
            msg,
            br#"{"jsonrpc":"2.0","method":"name","params":["a",1],"id":4}"#
        );
        assert_eq!(client.in_flight(), 4);
        assert_eq!(client.status(&sum), Status::Waiting);
        assert_eq!(client.take(&sum), None, "nothing yet");

        let mut seen = Seen::default();
        let resolved = client.receive(
            br#"[{"jsonrpc":"2.0","result":{"y":"2","x":1},"id":3},
                 {"jsonrpc":"2.0","error":{"code":-32000,"message":"no \"way\" \u00e9","data":{"why":1}},"id":2},
                 {"jsonrpc":"2.0","result":3,"id":1},
                 {"jsonrpc":"2.0","result":[true,"plain"],"id":4}]"#,
            0,
            |i| seen.note(i),
        );
        assert_eq!((resolved, seen), (4, Seen::default()));
        assert_eq!(client.status(&sum), Status::Ready);
        assert_eq!(client.take(&sum), Some(Ok(3)));
        let Some(Err(CallError::Rpc(e))) = client.take(&fail) else {
            panic!("not the server's error")
        };
        assert_eq!(e.code, -32000);
        assert_eq!(e.data.unwrap().as_bytes(), br#"{"why":1}"#);
        assert_eq!(
            Text::<64>::of(CallError::Rpc(e)).as_str(),
            r#"error -32000: no "way" é (data: {"why":1})"#
        );
        let Some(Err(e @ CallError::Decode(_))) = client.take(&point) else {
            panic!("not a decode error")
        };
        assert_eq!(
            Text::<80>::of(e).as_str(),
            "the result did not decode: field `y`: expected an integer"
        );
        assert_eq!(client.take(&name), Some(Ok((true, "plain"))));
        assert_eq!(client.in_flight(), 0);
    });
}

#[test]
fn a_deadline_times_a_call_out_and_sends_the_protocols_cancellation() {
    none(|| {
        let mut client: Client<4, 128> = Client::new().with_cancel(Cancel::LSP);
        let mut out = [0u8; 128];
        let (slow, _) = client
            .request::<u64>(&mut out, Call::new("slow").deadline(10), ())
            .unwrap();
        let (quick, _) = client
            .request::<u64>(&mut out, Call::new("quick").deadline(20), ())
            .unwrap();
        assert_eq!(client.next_deadline(), Some(10));
        let mut seen = Seen::default();
        // Before the deadline: nothing expires.
        client.receive(br#"{"jsonrpc":"2.0","method":"tick"}"#, 9, |i| seen.note(i));
        assert_eq!(client.status(&slow), Status::Waiting);
        // At it, a reply to the other call in hand is kept, and `slow` times out.
        client.receive(br#"{"jsonrpc":"2.0","result":2,"id":2}"#, 10, |i| {
            seen.note(i)
        });
        assert_eq!(client.next_deadline(), None);
        let cancel = client.next_cancellation(&mut out).unwrap().unwrap();
        assert_eq!(
            cancel,
            br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#
        );
        assert!(client.next_cancellation(&mut out).is_none(), "sent once");
        assert_eq!(client.take(&slow), Some(Err(CallError::TimedOut)));
        assert_eq!(client.take(&quick), Some(Ok(2)));
        // Its reply, when it comes, is late.
        client.receive(br#"{"jsonrpc":"2.0","result":1,"id":1}"#, 11, |i| {
            seen.note(i)
        });
        assert_eq!(
            seen,
            Seen {
                notifications: 1,
                late: 1,
                ..Seen::default()
            }
        );

        // MCP's shape, and a call the caller cancels.
        let mut client: Client<2, 64> = Client::new().with_cancel(Cancel::MCP);
        let (call, _) = client.request::<u64>(&mut out, "long", ()).unwrap();
        assert!(client.cancel(&call));
        assert!(!client.cancel(&call), "not waiting any more");
        let cancel = client.next_cancellation(&mut out).unwrap().unwrap();
        assert_eq!(
            cancel,
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timed out"}}"#
        );
        assert_eq!(client.take(&call), Some(Err(CallError::Cancelled)));

        // Without a cancellation set, none is written.
        let mut client: Client<2, 64> = Client::new();
        let (call, _) = client
            .request::<u64>(&mut out, Call::new("m").deadline(5), ())
            .unwrap();
        assert_eq!(client.expire(5), 1);
        assert!(client.next_cancellation(&mut out).is_none());
        assert_eq!(client.take(&call), Some(Err(CallError::TimedOut)));
    });
}

#[test]
fn a_lost_connection_and_a_reply_left_out() {
    none(|| {
        let mut client: Client<4, 128> = Client::new();
        let mut out = [0u8; 128];
        let (a, _) = client.request::<u64>(&mut out, "a", ()).unwrap();
        assert_eq!(client.connection_lost(), 1);
        assert_eq!(client.take(&a), Some(Err(CallError::ConnectionLost)));
        let mut seen = Seen::default();
        client.receive(br#"{"jsonrpc":"2.0","result":1,"id":1}"#, 0, |i| {
            seen.note(i)
        });
        assert_eq!(seen.late, 1);

        // A batch reply that leaves a call out: it will not come.
        let mut batch = client.batch(&mut out);
        let b = batch.call::<u64>("b", ()).unwrap();
        let c = batch.call::<u64>("c", ()).unwrap();
        batch.notify("note", ()).unwrap();
        assert_eq!(batch.len(), 3);
        batch.finish().unwrap();
        let (d, _) = client.request::<u64>(&mut out, "d", ()).unwrap();
        client.receive(br#"[{"jsonrpc":"2.0","result":2,"id":2}]"#, 0, |i| {
            seen.note(i)
        });
        assert_eq!(client.take(&b), Some(Ok(2)));
        assert_eq!(client.take(&c), Some(Err(CallError::NoReply)));
        assert_eq!(client.status(&d), Status::Waiting, "another message's call");
        // An exchange (an HTTP body) that ended without the answer.
        assert_eq!(client.unanswered(&d), 1);
        assert_eq!(client.take(&d), Some(Err(CallError::NoReply)));
    });
}

#[test]
fn late_duplicate_unknown_null_and_changed_ids() {
    none(|| {
        let mut client: Client<4, 128> = Client::new();
        let mut out = [0u8; 128];
        let (a, _) = client.request::<u64>(&mut out, "a", ()).unwrap();
        let (b, _) = client
            .request::<u64>(&mut out, Call::new("b").id(RequestId::Str("b\"")), ())
            .unwrap();
        let (seven, _) = client
            .request::<u64>(&mut out, Call::new("c").id(RequestId::Number(7)), ())
            .unwrap();
        let mut seen = Seen::default();
        client.receive(br#"{"jsonrpc":"2.0","result":1,"id":1}"#, 0, |i| {
            seen.note(i)
        });
        client.receive(br#"{"jsonrpc":"2.0","result":1,"id":1}"#, 0, |i| {
            seen.note(i)
        });
        client.receive(br#"{"jsonrpc":"2.0","result":1,"id":99}"#, 0, |i| {
            seen.note(i)
        });
        client.receive(
            br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#,
            0,
            |i| seen.note(i),
        );
        // The string id matched with its escapes decoded; 7 came back as "7".
        client.receive(
            br#"[{"jsonrpc":"2.0","result":2,"id":"b\u0022"},{"jsonrpc":"2.0","result":3,"id":"7"}]"#,
            0,
            |i| seen.note(i),
        );
        // Not a response: a server's request, and nonsense.
        client.receive(br#"{"jsonrpc":"2.0","method":"ask","id":5}"#, 0, |i| {
            seen.note(i)
        });
        client.receive(b"{", 0, |i| seen.note(i));
        client.receive(br#"{"jsonrpc":"2.0","id":5}"#, 0, |i| seen.note(i));
        assert_eq!(
            seen,
            Seen {
                duplicate: 1,
                unknown: 1,
                null_id: 1,
                requests: 1,
                invalid: 2,
                ..Seen::default()
            }
        );
        assert_eq!(client.take(&a), Some(Ok(1)));
        assert_eq!(client.take(&b), Some(Ok(2)));
        assert_eq!(client.take(&seven), Some(Err(CallError::IdTypeChanged)));
        // A "7" after that is a duplicate, not a stranger.
        client.receive(br#"{"jsonrpc":"2.0","result":3,"id":7}"#, 0, |i| {
            seen.note(i)
        });
        assert_eq!(seen.duplicate, 2);
    });
}

#[test]
fn stale_handles_never_read_another_calls_reply() {
    none(|| {
        let mut client: Client<1, 64> = Client::new();
        let mut out = [0u8; 128];
        let (first, _) = client.request::<u64>(&mut out, "a", ()).unwrap();
        client.receive(br#"{"jsonrpc":"2.0","result":1,"id":1}"#, 0, |_| {});
        assert_eq!(client.take(&first), Some(Ok(1)));
        assert_eq!(client.take(&first), Some(Err(CallError::Stale)));
        // The slot is reused: the old handle still reads nothing.
        let (second, _) = client.request::<u64>(&mut out, "b", ()).unwrap();
        assert_ne!(first, second);
        client.receive(br#"{"jsonrpc":"2.0","result":2,"id":2}"#, 0, |_| {});
        assert_eq!(client.status(&first), Status::Stale);
        assert_eq!(client.take(&first), Some(Err(CallError::Stale)));
        assert_eq!(client.take_raw(&second).unwrap().unwrap().as_bytes(), b"2");
    });
}

#[test]
fn batches_refuse_empty_and_forget_calls_when_dropped() {
    none(|| {
        let mut client: Client<2, 64, u64, u8> = Client::new();
        let mut out = [0u8; 160];
        assert_eq!(client.batch(&mut out).finish(), Err(SendError::EmptyBatch));
        let only_notes = {
            let mut batch = client.batch(&mut out);
            batch.notify("n", ()).unwrap();
            batch.finish().map(<[u8]>::len)
        };
        assert_eq!(only_notes, Ok(r#"[{"jsonrpc":"2.0","method":"n"}]"#.len()));
        let dropped: Handle<u64> = {
            let mut batch = client.batch(&mut out);
            batch.call(Call::new("x").tag(1), ()).unwrap()
        };
        assert_eq!(client.status(&dropped), Status::Stale);
        assert_eq!(client.in_flight(), 0);
        // A call that does not fit leaves the batch and the table as they were.
        let mut small = [0u8; 48];
        let mut batch = client.batch(&mut small);
        let kept: Handle<u64> = batch.call(Call::new("x").tag(2), ()).unwrap();
        let refused = batch.call::<u64>(Call::new("longer-method").tag(3), ());
        assert_eq!(
            refused,
            Err(SendError::Write(jsonrpc_slice::WriteError::BufferFull))
        );
        assert_eq!(
            batch.finish(),
            Ok(&br#"[{"jsonrpc":"2.0","method":"x","id":2}]"#[..])
        );
        assert_eq!(client.tag(&kept), Some(&2));
        assert_eq!(client.in_flight(), 1);
    });
}

#[test]
fn the_table_refuses_what_it_cannot_keep() {
    none(|| {
        let mut client: Client<2, 8> = Client::new();
        let mut out = [0u8; 128];
        let (big, _) = client.request::<u64>(&mut out, "big", ()).unwrap();
        let given = Call::new("m").id(RequestId::Number(1));
        assert_eq!(
            client.request::<u64>(&mut out, given, ()).map(|_| ()),
            Err(SendError::Table(InsertError::DuplicateId))
        );
        let (_, msg) = client.request::<u64>(&mut out, "m", ()).unwrap();
        assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"m","id":2}"#);
        assert_eq!(
            client.request::<u64>(&mut out, "m", ()).map(|_| ()),
            Err(SendError::Table(InsertError::Full))
        );
        // Params that are not an array or an object: nothing is registered.
        client.connection_lost();
        let _ = client.take(&big);
        assert_eq!(
            client
                .request::<u64>(&mut out, "m", RawJson::new(b"1").unwrap())
                .map(|_| ()),
            Err(SendError::Write(jsonrpc_slice::WriteError::Misuse))
        );
        // A result larger than the room kept for replies.
        let (big, _) = client.request::<u64>(&mut out, "big", ()).unwrap();
        client.receive(
            br#"{"jsonrpc":"2.0","result":"0123456789","id":4}"#,
            0,
            |_| {},
        );
        assert_eq!(client.take(&big), Some(Err(CallError::ReplyTooLarge)));
    });
}

/// A stream whose reads follow a script: bytes, or a read timeout at which the
/// clock reads the given instant (std and `embedded-io` 0.6 and 0.7 alike).
struct Script<'a> {
    steps: &'a [Step<'a>],
    clock: &'a Cell<u64>,
    sent: [u8; 512],
    len: usize,
}

enum Step<'a> {
    Bytes(&'a [u8]),
    TimeoutAt(u64),
}

impl<'a> Script<'a> {
    fn new(steps: &'a [Step<'a>], clock: &'a Cell<u64>) -> Self {
        Self {
            steps,
            clock,
            sent: [0; 512],
            len: 0,
        }
    }

    /// The next read: bytes, or `None` for a timeout (the clock moved).
    fn next(&mut self, buf: &mut [u8]) -> Option<usize> {
        let Some((step, rest)) = self.steps.split_first() else {
            return Some(0);
        };
        self.steps = rest;
        match step {
            Step::Bytes(b) => {
                buf[..b.len()].copy_from_slice(b);
                Some(b.len())
            }
            Step::TimeoutAt(t) => {
                self.clock.set(*t);
                None
            }
        }
    }

    fn push(&mut self, b: &[u8]) -> usize {
        self.sent[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
        b.len()
    }

    fn sent(&self) -> &[u8] {
        &self.sent[..self.len]
    }
}

impl std::io::Read for Script<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.next(buf)
            .ok_or(std::io::Error::from(std::io::ErrorKind::WouldBlock))
    }
}

impl std::io::Write for Script<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        Ok(self.push(b))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[derive(Debug)]
struct TimedOut;

impl fmt::Display for TimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("timed out")
    }
}

impl std::error::Error for TimedOut {}

impl embedded_io::Error for TimedOut {
    fn kind(&self) -> embedded_io::ErrorKind {
        embedded_io::ErrorKind::TimedOut
    }
}

impl embedded_io_07::Error for TimedOut {
    fn kind(&self) -> embedded_io_07::ErrorKind {
        embedded_io_07::ErrorKind::TimedOut
    }
}

impl embedded_io::ErrorType for Script<'_> {
    type Error = TimedOut;
}
impl embedded_io::Read for Script<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, TimedOut> {
        self.next(buf).ok_or(TimedOut)
    }
}
impl embedded_io::Write for Script<'_> {
    fn write(&mut self, b: &[u8]) -> Result<usize, TimedOut> {
        Ok(self.push(b))
    }
    fn flush(&mut self) -> Result<(), TimedOut> {
        Ok(())
    }
}
impl embedded_io_07::ErrorType for Script<'_> {
    type Error = TimedOut;
}
impl embedded_io_07::Read for Script<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, TimedOut> {
        self.next(buf).ok_or(TimedOut)
    }
}
impl embedded_io_07::Write for Script<'_> {
    fn write(&mut self, b: &[u8]) -> Result<usize, TimedOut> {
        Ok(self.push(b))
    }
    fn flush(&mut self) -> Result<(), TimedOut> {
        Ok(())
    }
}

/// The transports, as each is named where a type implements more than one.
#[derive(Clone, Copy, Debug)]
enum Via {
    Std,
    E06,
    E07,
}

/// A call's outcome with the stream's error types left out, so that the three
/// transports' outcomes compare.
fn outcome<T, R, W>(r: Result<T, ConnectionError<'_, R, W>>) -> Result<T, &'static str> {
    r.map_err(|e| match e {
        ConnectionError::Call(CallError::TimedOut) => "timed out",
        ConnectionError::Call(CallError::ConnectionLost) => "lost",
        _ => "other",
    })
}

/// Calls over one transport: a typed result with a notification before it, a call
/// whose deadline passes during a read timeout (an LSP cancellation sent), then the
/// end of the input.
fn calls_over(via: Via) {
    use jsonrpc_slice::io::{embedded_io, embedded_io_07, std as std_io};
    let clock = Cell::new(0u64);
    let steps = [
        // Content-Length frames, cut anywhere.
        Step::Bytes(b"Content-Length: 33\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"tick\"}Cont"),
        Step::Bytes(b"ent-Length: 36\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":19,\"id\":1}"),
        Step::TimeoutAt(4),
        Step::TimeoutAt(5),
        Step::Bytes(b"Content-Length: 36\r\n\r\n{\"jsonrpc\":\"2.0\",\"result\":20,\"id\":2}"),
    ];
    let mut script = Script::new(&steps, &clock);
    let mut framer = ContentLengthAccumulator::<256>::new();
    let (mut input, mut output) = ([0u8; 64], [0u8; 256]);
    let mut seen = Seen::default();
    let mut note = |i: Incoming<'_>| seen.note(i);
    let now = || clock.get();
    let mut conn: Connection<'_, _, _, 4, 128> =
        Connection::new(&mut framer, &mut input, &mut output, now)
            .on_incoming(&mut note)
            .with_cancel(Cancel::LSP);
    let args = RawJson::new(b"[42,23]").unwrap();
    let n: u64 = match via {
        Via::Std => outcome(conn.call::<u64, std_io::Via, _>(&mut script, "subtract", args)),
        Via::E06 => outcome(conn.call::<u64, embedded_io::Via, _>(&mut script, "subtract", args)),
        Via::E07 => {
            outcome(conn.call::<u64, embedded_io_07::Via, _>(&mut script, "subtract", args))
        }
    }
    .unwrap();
    assert_eq!(n, 19);
    let deadline = conn.after(5);
    let slow = Call::new("slow").deadline(deadline);
    let late = match via {
        Via::Std => outcome(conn.call::<u64, std_io::Via, _>(&mut script, slow, ())),
        Via::E06 => outcome(conn.call::<u64, embedded_io::Via, _>(&mut script, slow, ())),
        Via::E07 => outcome(conn.call::<u64, embedded_io_07::Via, _>(&mut script, slow, ())),
    };
    assert_eq!(late, Err("timed out"));
    let lost = match via {
        Via::Std => outcome(conn.call::<u64, std_io::Via, _>(&mut script, "after", ())),
        Via::E06 => outcome(conn.call::<u64, embedded_io::Via, _>(&mut script, "after", ())),
        Via::E07 => outcome(conn.call::<u64, embedded_io_07::Via, _>(&mut script, "after", ())),
    };
    assert_eq!(lost, Err("lost"));
    assert!(conn.is_ended());
    assert_eq!(
        std::str::from_utf8(script.sent()).unwrap(),
        "Content-Length: 61\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[42,23],\"id\":1}\
         Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"slow\",\"id\":2}\
         Content-Length: 62\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":2}}\
         Content-Length: 41\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"after\",\"id\":3}"
    );
    assert_eq!(
        seen,
        Seen {
            notifications: 1,
            late: 1,
            ..Seen::default()
        },
        "{via:?}"
    );
}

#[test]
fn blocking_loops_over_std_and_embedded_io_06_and_07() {
    for via in [Via::Std, Via::E06, Via::E07] {
        none(|| calls_over(via));
    }
}

/// Polls a future to completion with a waker that does nothing (the streams here
/// are ready at once). No allocation.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    #[allow(clippy::incompatible_msrv)]
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[test]
fn async_loops_over_embedded_io_06_and_07_with_cobs() {
    use jsonrpc_slice::io::{embedded_io, embedded_io_07};
    for version in [6, 7] {
        none(|| {
            // Two COBS frames: a notification, then the reply to call 1 (no zero
            // bytes in either, so each is one block: its length + 1, the bytes, 0).
            let note = br#"{"jsonrpc":"2.0","method":"tick"}"#;
            let reply = br#"{"jsonrpc":"2.0","result":[1,"a"],"id":1}"#;
            let mut wire = [0u8; 128];
            let mut at = 0;
            for frame in [&note[..], &reply[..]] {
                wire[at] = frame.len() as u8 + 1;
                wire[at + 1..at + 1 + frame.len()].copy_from_slice(frame);
                wire[at + 1 + frame.len()] = 0;
                at += frame.len() + 2;
            }
            let mut reader = &wire[..at];
            let mut sent = [0u8; 128];
            let mut writer: &mut [u8] = &mut sent;
            let mut framer = CobsAccumulator::<128>::new();
            let (mut input, mut output) = ([0u8; 16], [0u8; 128]);
            let mut notes = 0;
            let mut note =
                |i: Incoming<'_>| notes += usize::from(matches!(i, Incoming::Notification(_)));
            let mut conn: Connection<'_, _, _, 2, 64> =
                Connection::new(&mut framer, &mut input, &mut output, || 0u64)
                    .on_incoming(&mut note);
            let mut io = Split(&mut reader, &mut writer);
            let got: (u8, &str) = match version {
                6 => outcome(block_on(conn.call_async::<_, embedded_io::Via, _>(
                    &mut io,
                    "pair",
                    (),
                ))),
                _ => outcome(block_on(conn.call_async::<_, embedded_io_07::Via, _>(
                    &mut io,
                    "pair",
                    (),
                ))),
            }
            .unwrap();
            assert_eq!(got, (1, "a"));
            // Then the input ends: the next call is lost.
            let lost = match version {
                6 => outcome(block_on(conn.call_raw_async::<embedded_io::Via, _>(
                    &mut io,
                    "more",
                    (),
                )))
                .map(|_| ()),
                _ => outcome(block_on(conn.call_raw_async::<embedded_io_07::Via, _>(
                    &mut io,
                    "more",
                    (),
                )))
                .map(|_| ()),
            };
            assert_eq!(lost, Err("lost"));
            assert_eq!(notes, 1);
            let left = writer.len();
            let sent = &sent[..128 - left];
            // The request went out COBS-framed: one block, then the delimiter.
            let request = br#"{"jsonrpc":"2.0","method":"pair","id":1}"#;
            assert_eq!(sent[0] as usize, request.len() + 1);
            assert_eq!(&sent[1..=request.len()], request);
            assert_eq!(sent[request.len() + 1], 0);
        });
    }
}

#[test]
fn a_batch_over_a_newline_stream() {
    use jsonrpc_slice::io::std as std_io;
    none(|| {
        let replies = b"[{\"jsonrpc\":\"2.0\",\"result\":\"0x539\",\"id\":1},{\"jsonrpc\":\"2.0\",\"result\":16,\"id\":2}]\n";
        let mut sent = [0u8; 256];
        let mut writer: &mut [u8] = &mut sent;
        let mut framer = LineAccumulator::<256>::new();
        let (mut input, mut output) = ([0u8; 32], [0u8; 256]);
        let mut conn: Connection<'_, _, _, 4, 128> =
            Connection::new(&mut framer, &mut input, &mut output, || 0u64);
        let mut io = Split(&replies[..], &mut writer);
        let (chain, block) = conn
            .send_batch::<_, std_io::Via, _>(&mut io, |b| {
                Ok((
                    b.call::<&str>("eth_chainId", ())?,
                    b.call::<u64>("eth_blockNumber", ())?,
                ))
            })
            .unwrap();
        conn.wait::<_, std_io::Via, _>(&mut io, &block).unwrap();
        assert_eq!(
            conn.client().status(&chain),
            Status::Ready,
            "one reply for both"
        );
        assert_eq!(conn.client().take(&block), Some(Ok(16)));
        assert_eq!(conn.client().take(&chain), Some(Ok("0x539")));
    });
}

#[test]
fn a_bounded_queue_keeps_notifications_beside_the_replies() {
    use jsonrpc_slice::client::Notifications;
    none(|| {
        let mut client: Client<2, 64> = Client::new();
        let mut queue: Notifications<2, 40> = Notifications::new();
        let mut out = [0u8; 64];
        let (call, _) = client.request::<u64>(&mut out, "m", ()).unwrap();
        let mut others = 0;
        for message in [
            &br#"{"jsonrpc":"2.0","method":"a","params":{"k":"\u00e9"}}"#[..],
            br#"{"jsonrpc":"2.0","result":7,"id":1}"#,
            br#"{"jsonrpc":"2.0","method":"b"}"#,
            // A third: the queue holds two.
            br#"{"jsonrpc":"2.0","method":"c"}"#,
        ] {
            client.receive(message, 0, |i| match i {
                Incoming::Notification(n) => {
                    queue.push(&n);
                }
                _ => others += 1,
            });
        }
        assert_eq!(others, 0);
        assert_eq!(client.take(&call), Some(Ok(7)));
        assert_eq!((queue.len(), queue.dropped()), (2, 1));
        let a = queue.front().unwrap();
        assert!(a.method.eq_str("a"));
        assert!(a
            .params
            .unwrap()
            .get("k")
            .unwrap()
            .as_str()
            .unwrap()
            .eq_str("é"));
        queue.pop();
        let b = queue.front().unwrap();
        assert!(b.method.eq_str("b") && b.params.is_none());
        queue.pop();
        assert!(queue.is_empty() && queue.front().is_none());
        queue.pop();
        // Room again; one too large for the bytes is dropped.
        let big = br#"{"jsonrpc":"2.0","method":"big","params":["0123456789012345678901234567890123456789"]}"#;
        client.receive(big, 0, |i| {
            if let Incoming::Notification(n) = i {
                assert!(!queue.push(&n));
            }
        });
        assert_eq!((queue.len(), queue.dropped()), (0, 2));
    });
}

#[test]
fn a_deadline_passed_before_the_wait_still_sends_its_cancellation() {
    use jsonrpc_slice::io::std as std_io;
    none(|| {
        let clock = Cell::new(0u64);
        let mut script = Script::new(&[], &clock);
        let mut framer = LineAccumulator::<128>::new();
        let (mut input, mut output) = ([0u8; 16], [0u8; 128]);
        let mut conn: Connection<'_, _, _, 2, 64> =
            Connection::new(&mut framer, &mut input, &mut output, || clock.get())
                .with_cancel(Cancel::LSP);
        let call = Call::new("m").deadline(5);
        let handle = conn
            .send::<u64, std_io::Via, _>(&mut script, call, ())
            .unwrap();
        clock.set(10);
        conn.wait::<_, std_io::Via, _>(&mut script, &handle)
            .unwrap();
        assert_eq!(conn.client().take(&handle), Some(Err(CallError::TimedOut)));
        assert!(!conn.is_ended(), "nothing was read");
        assert_eq!(
            std::str::from_utf8(script.sent()).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":1}\n\
             {\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":1}}\n"
        );
    });
}

#[test]
fn a_subscription_is_read_without_a_call_waiting() {
    use jsonrpc_slice::client::Notifications;
    use jsonrpc_slice::io::{embedded_io, std as std_io};
    none(|| {
        let events = b"{\"jsonrpc\":\"2.0\",\"method\":\"eth_subscription\",\"params\":{\"result\":1}}\n\
                       {\"jsonrpc\":\"2.0\",\"method\":\"eth_subscription\",\"params\":{\"result\":2}}\n";
        let mut queue: Notifications<4, 256> = Notifications::new();
        let mut push = |i: Incoming<'_>| {
            if let Incoming::Notification(n) = i {
                queue.push(&n);
            }
        };
        let mut framer = LineAccumulator::<128>::new();
        let (mut input, mut output) = ([0u8; 40], [0u8; 64]);
        let mut conn: Connection<'_, _, _, 2, 64> =
            Connection::new(&mut framer, &mut input, &mut output, || 0u64).on_incoming(&mut push);
        let mut sent = [0u8; 8];
        let mut writer: &mut [u8] = &mut sent;
        let mut io = Split(&events[..], &mut writer);
        let mut reads = 0;
        while conn.read_once::<std_io::Via, _>(&mut io).unwrap() {
            reads += 1;
        }
        assert!(reads >= 2, "the events came in pieces of 40 bytes");
        assert!(!conn.read_once::<std_io::Via, _>(&mut io).unwrap(), "ended");
        // The async twin over embedded-io: the same, from the start.
        let mut framer = LineAccumulator::<128>::new();
        let (mut input, mut output) = ([0u8; 40], [0u8; 64]);
        let mut count = 0;
        let mut counter =
            |i: Incoming<'_>| count += usize::from(matches!(i, Incoming::Notification(_)));
        let mut conn: Connection<'_, _, _, 2, 64> =
            Connection::new(&mut framer, &mut input, &mut output, || 0u64)
                .on_incoming(&mut counter);
        let mut reader = &events[..];
        let mut sink = [0u8; 8];
        let mut writer: &mut [u8] = &mut sink;
        let mut io = Split(&mut reader, &mut writer);
        while block_on(conn.read_once_async::<embedded_io::Via, _>(&mut io)).unwrap() {}
        assert_eq!(count, 2);
        queue_check(&queue);
    });
}

/// The two events, in order.
fn queue_check<const N: usize, const B: usize>(queue: &jsonrpc_slice::client::Notifications<N, B>) {
    assert_eq!(queue.len(), 2);
    let first = queue.front().unwrap();
    assert!(first.method.eq_str("eth_subscription"));
    assert_eq!(first.params.unwrap().as_bytes(), br#"{"result":1}"#);
}

#[test]
fn an_exchange_resolves_all_its_calls() {
    none(|| {
        let mut client: Client<4, 256> = Client::new();
        let mut out = [0u8; 256];
        // A batch whose body is one error with a null id (the server could not read
        // it): every call gets that error.
        let mut batch = client.batch(&mut out);
        let a = batch.call::<u64>("a", ()).unwrap();
        let b = batch.call::<u64>("b", ()).unwrap();
        batch.finish().unwrap();
        let (other, _) = client.request::<u64>(&mut out, "other", ()).unwrap();
        let body =
            br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#;
        let mut seen = Seen::default();
        assert_eq!(client.receive_exchange(body, 0, &a, |i| seen.note(i)), 2);
        assert_eq!(seen, Seen::default());
        for h in [a, b] {
            let Some(Err(CallError::Rpc(e))) = client.take(&h) else {
                panic!("not the server's error")
            };
            assert_eq!(e.code, -32700);
        }
        assert_eq!(client.status(&other), Status::Waiting, "another exchange");
        // A single call's body that answers another id: the call gets no reply.
        let body = br#"{"jsonrpc":"2.0","result":1,"id":99}"#;
        assert_eq!(
            client.receive_exchange(body, 0, &other, |i| seen.note(i)),
            0
        );
        assert_eq!(seen.unknown, 1);
        assert_eq!(client.take(&other), Some(Err(CallError::NoReply)));
        // And the plain case: its reply.
        let (one, _) = client.request::<u64>(&mut out, "one", ()).unwrap();
        let body = br#"{"jsonrpc":"2.0","result":5,"id":4}"#;
        assert_eq!(client.receive_exchange(body, 0, &one, |_| {}), 1);
        assert_eq!(client.take(&one), Some(Ok(5)));
    });
}
