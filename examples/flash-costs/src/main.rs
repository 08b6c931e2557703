//! One loop, a variant per feature (see flash-costs.sh): reads bytes from a UART
//! register, cuts frames, and writes an answer back. The baseline (no feature) cuts
//! frames at `0x00` and echoes them; each feature replaces one step with the
//! library's, so the difference in flash is that feature's cost.
//!
//! - `cobs`: `frame::cobs::CobsAccumulator` decodes, `FramedReply::pieces` encodes
//!   (no check: its CRC code is still linked, the check being chosen at run time);
//! - `cobs-crc32`: the same with `Check::Crc32`;
//! - `typed`: the frame decoded into a two-field struct (`RawJson::decode`), the
//!   error answered with `Reason::message`;
//! - `typed-fmt`: the error answered with its `Display` (the field named) through
//!   `core::fmt`;
//! - `typed-into`: the same message through `DecodeError::message_into`, without
//!   `core::fmt`.
//! - `float`: the frame's eight bytes taken as an `f64`, written by
//!   `ResultWriter::f64` (the shortest text that reads back) without jsonrpc-slice's
//!   `ryu` feature: laid out from `core`'s `{:e}` digits;
//! - `float-ryu`: the same `ResultWriter::f64` with the `ryu` feature, jsonrpc-slice's
//!   default (its digits from `ryu`, tables `small`).
//! - `service`: the blocking serve loop (`service::Service`, newline framing) with a
//!   sync `Server` of one method (`ping`), in place of the frame loop;
//! - `outbox`: the same loop with an `outbox::Outbox` (`Service::with_outbox`), into
//!   which `ping` queues one notification before its reply;
//! - `client`: the client half instead of a server: `client::Client` (4 calls in
//!   flight, 128 bytes kept for replies) writes and registers a request with a
//!   deadline on a tick clock, the framer cuts the reply, `receive` resolves it and
//!   `take` decodes its `u64` result (or the call times out);
//! - `concurrent-1`, `-4`, `-8`: the concurrent service (`service::concurrent`) with
//!   1, 4 or 8 slots and the same method, async, on a busy-polling `block_on`.
#![no_std]
#![no_main]

use core::ptr::{read_volatile, write_volatile};

/// A UART data register (the LM3S6965's UART0; the program is measured, not run).
const UART: *mut u8 = 0x4000_C000 as *mut u8;

fn rx() -> u8 {
    // SAFETY: a device register; the program is only measured, never run.
    unsafe { read_volatile(UART) }
}

fn tx(bytes: &[u8]) {
    for &b in bytes {
        // SAFETY: as for `rx`.
        unsafe { write_volatile(UART, b) }
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[cfg(feature = "typed")]
#[derive(serde::Deserialize)]
struct Sub {
    minuend: i64,
    subtrahend: i64,
}

#[cfg(feature = "typed-fmt")]
struct Buf<'a> {
    buf: &'a mut [u8],
    len: usize,
}

#[cfg(feature = "typed-fmt")]
impl core::fmt::Write for Buf<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(core::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The answer to one frame.
#[cfg(feature = "typed")]
fn answer(frame: &[u8]) {
    let Ok(v) = jsonrpc_slice::RawJson::new(frame) else {
        return tx(b"parse error");
    };
    match v.decode::<Sub>() {
        Ok(s) => tx(&(s.minuend.wrapping_sub(s.subtrahend)).to_le_bytes()),
        Err(e) => {
            #[allow(unused_mut, unused_variables)]
            let mut out = [0u8; 96];
            #[cfg(not(any(feature = "typed-fmt", feature = "typed-into")))]
            let message = e.reason().message().as_bytes();
            #[cfg(feature = "typed-fmt")]
            let message = {
                let mut w = Buf {
                    buf: &mut out,
                    len: 0,
                };
                let _ = core::fmt::write(&mut w, format_args!("{e}"));
                let len = w.len;
                out.get(..len).unwrap_or(&[])
            };
            #[cfg(feature = "typed-into")]
            let message = e.message_into(&mut out).as_bytes();
            tx(message);
        }
    }
}

/// The frame's first eight bytes as an `f64`.
#[cfg(feature = "float")]
fn float_of(frame: &[u8]) -> f64 {
    let mut bytes = [0u8; 8];
    for (b, f) in bytes.iter_mut().zip(frame) {
        *b = *f;
    }
    f64::from_le_bytes(bytes)
}

#[cfg(feature = "float")]
fn answer(frame: &[u8]) {
    let mut out = [0u8; 32];
    let mut w = jsonrpc_slice::ResultWriter::new(&mut out);
    if w.f64(float_of(frame)).is_ok() {
        tx(w.into_written());
    }
}

#[cfg(not(any(feature = "typed", feature = "float")))]
#[cfg_attr(
    any(
        feature = "cobs",
        feature = "service",
        feature = "client",
        feature = "concurrent-1",
        feature = "concurrent-4",
        feature = "concurrent-8"
    ),
    allow(dead_code)
)]
fn answer(frame: &[u8]) {
    tx(frame);
}

#[cfg_attr(
    any(
        feature = "service",
        feature = "client",
        feature = "concurrent-1",
        feature = "concurrent-4",
        feature = "concurrent-8"
    ),
    allow(dead_code)
)]
static mut REPLY: [u8; 256] = [0; 256];

#[cfg(feature = "service")]
mod serve {
    use jsonrpc_slice::frame::newline::LineAccumulator;
    #[cfg(feature = "outbox")]
    use jsonrpc_slice::outbox::Outbox;
    use jsonrpc_slice::service::Service;
    use jsonrpc_slice::{method_table, Params, RawJson, ResultWriter, RpcError, Server};

    /// What the handler sees: with `outbox`, the queue of messages to the peer.
    #[derive(Default)]
    pub struct Ctx {
        #[cfg(feature = "outbox")]
        outbox: Outbox<256>,
    }

    fn ping<'p>(_ctx: &mut Ctx, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
        #[cfg(feature = "outbox")]
        _ctx.outbox.notify("tick", |w| {
            w.begin_array()?;
            w.end()
        })?;
        Ok(out.raw(RawJson::NULL)?)
    }

    static SERVER: Server<Ctx> = Server::new(method_table! { "ping" => ping });

    pub fn run() -> ! {
        let mut framer = LineAccumulator::<256>::new();
        let (mut chunk, mut output) = ([0u8; 1], [0u8; 256]);
        let service = Service::new(&SERVER, &mut framer, &mut chunk, &mut output);
        #[cfg(feature = "outbox")]
        let service = service.with_outbox(|c: &mut Ctx| &mut c.outbox);
        let mut service = service;
        let mut ctx = Ctx::default();
        loop {
            while let Some(reply) = service.next(&mut ctx) {
                for piece in reply.pieces() {
                    super::tx(piece);
                }
            }
            if let Some(b) = service.input_buffer().first_mut() {
                *b = super::rx();
                service.received(1);
            }
        }
    }
}

#[cfg(feature = "client")]
mod serve {
    use jsonrpc_slice::client::{Call, Client};
    use jsonrpc_slice::frame::newline::LineAccumulator;
    use jsonrpc_slice::frame::{frame_message, FeedResult};

    pub fn run() -> ! {
        let mut client: Client<4, 128> = Client::new();
        let mut framer = LineAccumulator::<256>::new();
        let mut out = [0u8; 128];
        let mut tick = 0u64;
        loop {
            let call = Call::new("ping").deadline(tick.wrapping_add(1000));
            let Ok((handle, msg)) = client.request::<u64>(&mut out, call, ()) else {
                continue;
            };
            for piece in frame_message(&framer, msg).pieces() {
                super::tx(piece);
            }
            loop {
                tick = tick.wrapping_add(1);
                if let FeedResult::Frame { frame, .. } = framer.feed(&[super::rx()]) {
                    client.receive(frame, tick, |_| {});
                } else {
                    client.expire(tick);
                }
                match client.take(&handle) {
                    None => continue,
                    Some(Ok(n)) => super::tx(&n.to_le_bytes()),
                    Some(Err(_)) => super::tx(b"!"),
                }
                break;
            }
        }
    }
}

#[cfg(any(feature = "concurrent-1", feature = "concurrent-4", feature = "concurrent-8"))]
mod serve {
    use core::future::Future;
    use core::task::{Context, Poll, Waker};

    use jsonrpc_slice::frame::newline::LineAccumulator;
    use jsonrpc_slice::outbox::SharedOutbox;
    use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Read, Slots, Write};
    use jsonrpc_slice::{async_method_table, Params, RawJson, ResultWriter, RpcError};

    const N: usize = if cfg!(feature = "concurrent-8") {
        8
    } else if cfg!(feature = "concurrent-4") {
        4
    } else {
        1
    };

    async fn ping<'p>(_: &mut Call<'_, ()>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
        Ok(out.raw(RawJson::NULL)?)
    }

    async_method_table! { Methods<'c, Call<'c, ()>> { "ping" => ping } }
    static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);

    struct Uart;

    impl Read for Uart {
        type Error = ();
        async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
            match buf.first_mut() {
                Some(b) => {
                    *b = super::rx();
                    Ok(1)
                }
                None => Ok(0),
            }
        }
    }

    impl Write for Uart {
        type Error = ();
        async fn write_all(&mut self, bytes: &[u8]) -> Result<(), ()> {
            super::tx(bytes);
            Ok(())
        }
        async fn flush(&mut self) -> Result<(), ()> {
            Ok(())
        }
    }

    pub fn run() -> ! {
        let slots = Slots::<N, 256, 256>::new();
        let outbox = SharedOutbox::<256>::new();
        let mut framer = LineAccumulator::<256>::new();
        let mut chunk = [0u8; 1];
        let (mut r, mut w) = (Uart, Uart);
        let serve = SERVER.serve(&(), &mut framer, &slots, &outbox, &mut chunk, &mut r, &mut w);
        let mut serve = core::pin::pin!(serve);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(_) = serve.as_mut().poll(&mut cx) {
                loop {}
            }
        }
    }
}

#[no_mangle]
pub extern "C" fn _start() -> ! {
    #[cfg(any(
        feature = "service",
        feature = "client",
        feature = "concurrent-1",
        feature = "concurrent-4",
        feature = "concurrent-8"
    ))]
    serve::run();
    #[cfg(feature = "cobs")]
    {
        use jsonrpc_slice::frame::cobs::{Check, CobsAccumulator};
        use jsonrpc_slice::frame::{frame_message, FeedResult};
        let check = if cfg!(feature = "cobs-crc32") {
            Check::Crc32
        } else {
            Check::None
        };
        let mut acc = CobsAccumulator::<256>::with_check(check);
        loop {
            if let FeedResult::Frame { frame, .. } = acc.feed(&[rx()]) {
                // SAFETY: the one reference to REPLY, in this loop.
                let reply = unsafe { &mut *core::ptr::addr_of_mut!(REPLY) };
                let n = frame.len().min(reply.len());
                reply[..n].copy_from_slice(&frame[..n]);
                for piece in frame_message(&acc, &reply[..n]).pieces() {
                    tx(piece);
                }
            }
        }
    }
    #[cfg(not(any(
        feature = "cobs",
        feature = "service",
        feature = "client",
        feature = "concurrent-1",
        feature = "concurrent-4",
        feature = "concurrent-8"
    )))]
    {
        let mut frame = [0u8; 256];
        let mut n = 0;
        loop {
            let b = rx();
            if b != 0 {
                if let Some(slot) = frame.get_mut(n) {
                    *slot = b;
                    n += 1;
                }
                continue;
            }
            // SAFETY: the one reference to REPLY, in this loop.
            let reply = unsafe { &mut *core::ptr::addr_of_mut!(REPLY) };
            reply[..n].copy_from_slice(&frame[..n]);
            answer(&reply[..n]);
            tx(&[0]);
            n = 0;
        }
    }
}
