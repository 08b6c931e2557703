//! The JSON-RPC path: UART bytes → frames → `Server::handle` → framed replies → UART.

use jsonrpc_slice::frame::{malformed_frame_reply, oversized_frame_reply, FeedResult};
use jsonrpc_slice::{demo, method_table, Params, ResultWriter, RpcError, Server};

use crate::board::{Clock, Serial, Uart};
use crate::cell::TakeOnce;
use crate::stack;

/// The longest frame (its payload) taken, in bytes; a longer one gets `-32600`.
pub const MAX_FRAME: usize = 1024;
/// The reply buffer; a reply that would not fit becomes `-32603`.
pub const MAX_REPLY: usize = 1024;

/// Lines: one message a line, `\n` or `\r\n` after it.
#[cfg(not(feature = "cobs"))]
type Frames = jsonrpc_slice::frame::newline::LineAccumulator<MAX_FRAME>;
#[cfg(not(feature = "cobs"))]
const FRAMES: Frames = Frames::new();

/// COBS frames, each payload followed by its CRC-32 (4 bytes, held with it); a frame
/// whose CRC fails is dropped unanswered (see `jsonrpc_slice::frame::cobs`).
#[cfg(feature = "cobs")]
type Frames = jsonrpc_slice::frame::cobs::CobsAccumulator<{ MAX_FRAME + 4 }>;
#[cfg(feature = "cobs")]
const FRAMES: Frames = Frames::with_check(jsonrpc_slice::frame::cobs::Check::Crc32);

/// The receive and reply buffers, in one cell (one `take` to link).
struct Buffers {
    frames: Frames,
    reply: [u8; MAX_REPLY],
}

static BUFFERS: TakeOnce<Buffers> = TakeOnce::new(Buffers {
    frames: FRAMES,
    reply: [0; MAX_REPLY],
});

/// What the handlers see.
pub struct Ctx {
    /// Frames received (oversized ones and this one included; blank lines skipped).
    frames: u32,
    /// Instructions the previous `Server::handle` call took (0 where the board
    /// cannot count them).
    last_handle_instructions: u32,
    /// Set by `shutdown`: exit once its reply is out.
    shutdown: bool,
}

/// The demo methods (the specification's examples and `echo`, `fail`, `big`), plus
/// `stats` and `shutdown`.
static SERVER: Server<Ctx> = Server::new(method_table! {
    "subtract" => demo::subtract::<Ctx>,
    "sum" => demo::sum::<Ctx>,
    "get_data" => demo::get_data::<Ctx>,
    "echo" => demo::echo::<Ctx>,
    "fail" => demo::fail::<Ctx>,
    "big" => demo::big::<Ctx>,
    "update" => demo::null::<Ctx>,
    "notify_hello" => demo::null::<Ctx>,
    "notify_sum" => demo::null::<Ctx>,
    "stats" => stats,
    "shutdown" => shutdown,
});

/// `stats` → `{"stack_peak_bytes":N,"stack_size_bytes":S,"frames":M,
/// "last_handle_instructions":I}`; the last is the previous frame's `Server::handle`,
/// meaningful under QEMU's `-icount shift=0` only (see the boards' `Clock`).
fn stats<'p>(ctx: &mut Ctx, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    // `i64`, the integer write the demo handlers link already.
    let members = [
        ("stack_peak_bytes", stack::peak() as i64),
        ("stack_size_bytes", stack::size() as i64),
        ("frames", i64::from(ctx.frames)),
        (
            "last_handle_instructions",
            i64::from(ctx.last_handle_instructions),
        ),
    ];
    out.begin_object()?;
    for (name, value) in members {
        out.key(name)?;
        out.i64(value)?;
    }
    Ok(out.end()?)
}

/// `shutdown` → `"bye"`; once the reply is out, QEMU exits with status 0.
fn shutdown<'p>(
    ctx: &mut Ctx,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    ctx.shutdown = true;
    Ok(out.str("bye")?)
}

/// Serves JSON-RPC on `uart` until `shutdown`.
pub fn run(mut uart: Uart, clock: Clock) -> ! {
    let Some(Buffers { frames, reply }) = BUFFERS.take() else {
        crate::board::exit(false)
    };
    send(&mut uart, frames, crate::READY);
    #[cfg(feature = "defmt")]
    defmt::info!("ready; stack {=usize} bytes", stack::size());
    let mut ctx = Ctx {
        frames: 0,
        last_handle_instructions: 0,
        shutdown: false,
    };
    // The smallest receive FIFO of the three boards is 8 bytes (the LM3S6965's is 16);
    // 16 at a time drains any of them in one go.
    let mut chunk = [0u8; 16];
    loop {
        let n = uart.read_some(&mut chunk);
        let mut input = chunk.get(..n).unwrap_or(&[]);
        loop {
            let feed = frames.feed(input);
            if !matches!(feed, FeedResult::Consumed) {
                // `stats` counts the frame it answers.
                ctx.frames = ctx.frames.wrapping_add(1);
            }
            let answer = match feed {
                FeedResult::Consumed => break,
                FeedResult::Frame { frame, remaining } => {
                    input = remaining;
                    let start = clock.now();
                    let answer = SERVER.handle(&mut ctx, frame, reply);
                    ctx.last_handle_instructions = clock.instructions(start, clock.now());
                    #[cfg(feature = "defmt")]
                    log::frame(frame, &answer);
                    answer
                }
                FeedResult::Oversized { remaining } => {
                    input = remaining;
                    #[cfg(feature = "defmt")]
                    defmt::warn!("frame longer than {=usize} bytes dropped", MAX_FRAME);
                    oversized_frame_reply(MAX_FRAME, reply)
                }
                // Newline framing has no headers to get wrong; answered all the same.
                FeedResult::Malformed { remaining } => {
                    input = remaining;
                    malformed_frame_reply(reply)
                }
            };
            // `OutputTooSmall` needs a reply buffer smaller than the shortest error
            // reply (about 100 bytes); with 1 KiB it does not happen, and there is
            // nothing to send. An empty reply is a notification's: nothing either.
            if let Ok(answer) = answer {
                if !answer.is_empty() {
                    send(&mut uart, frames, answer);
                }
            }
            if ctx.shutdown {
                uart.flush();
                crate::board::exit(true);
            }
        }
    }
}

/// Writes a message and its newline.
// Out of line: one copy for the ready line and the replies.
#[cfg(not(feature = "cobs"))]
#[inline(never)]
fn send(uart: &mut Uart, _: &Frames, message: &[u8]) {
    uart.write_all(message);
    uart.write_byte(b'\n');
}

/// Writes a message as a COBS frame: its bytes and CRC-32 encoded, then `0x00`.
#[cfg(feature = "cobs")]
fn send(uart: &mut Uart, frames: &Frames, message: &[u8]) {
    for piece in jsonrpc_slice::frame::frame_message(frames, message).pieces() {
        uart.write_all(piece);
    }
}

#[cfg(feature = "defmt")]
mod log {
    use jsonrpc_slice::envelope::{self, Envelope};
    use jsonrpc_slice::OutputTooSmall;

    /// Logs what a frame was (the request(s), or why it is not JSON) and its reply.
    pub fn frame(frame: &[u8], answer: &Result<&[u8], OutputTooSmall>) {
        match envelope::parse(frame, super::SERVER.limits()) {
            Ok(Envelope::Single(call)) => defmt::info!("{}", call),
            Ok(Envelope::Batch(batch)) => {
                defmt::info!("batch of {=usize}", batch.len());
                for call in batch {
                    defmt::info!("  {}", call);
                }
            }
            Err(e) => defmt::info!("{=[u8]:a}: {}", frame, e),
        }
        match answer {
            Ok([]) => defmt::info!("-> (no reply)"),
            Ok(reply) => defmt::info!("-> {=[u8]:a}", reply),
            Err(e) => defmt::warn!("-> {}", e),
        }
    }
}
