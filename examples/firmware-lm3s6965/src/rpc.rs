//! The JSON-RPC path: UART0 bytes → newline frames → `Server::handle` → UART0.

use jsonrpc_slice::frame::newline::{FeedResult, LineAccumulator};
use jsonrpc_slice::frame::{malformed_frame_reply, oversized_frame_reply};
use jsonrpc_slice::{demo, method_table, OutputTooSmall, Params, ResultWriter, RpcError, Server};

use crate::cell::TakeOnce;
use crate::cycles::{self, Ticks};
use crate::stack;
use crate::uart::Uart;

/// The longest frame (line) taken, in bytes; a longer one gets `-32600`.
pub const MAX_FRAME: usize = 1024;
/// The reply buffer; a reply that would not fit becomes `-32603`.
pub const MAX_REPLY: usize = 1024;

/// The receive and reply buffers, in one cell (one `take` to link).
struct Buffers {
    frames: LineAccumulator<MAX_FRAME>,
    reply: [u8; MAX_REPLY],
}

static BUFFERS: TakeOnce<Buffers> = TakeOnce::new(Buffers {
    frames: LineAccumulator::new(),
    reply: [0; MAX_REPLY],
});

/// What the handlers see.
pub struct Ctx {
    /// Frames received (oversized ones and this one included; blank lines skipped).
    frames: u32,
    /// SysTick ticks the previous `Server::handle` call took.
    last_handle_ticks: u32,
    ticks: Ticks,
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
/// meaningful under QEMU's `-icount shift=0` only (see `cycles`).
fn stats<'p>(ctx: &mut Ctx, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    // `i64`, the integer write the demo handlers link already.
    let members = [
        ("stack_peak_bytes", stack::peak() as i64),
        ("stack_size_bytes", stack::size() as i64),
        ("frames", i64::from(ctx.frames)),
        (
            "last_handle_instructions",
            ctx.ticks.instructions(ctx.last_handle_ticks) as i64,
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
pub fn run(mut uart: Uart, ticks: Ticks) -> ! {
    let Some(Buffers { frames, reply }) = BUFFERS.take() else {
        crate::exit(false)
    };
    let mut ctx = Ctx {
        frames: 0,
        last_handle_ticks: 0,
        ticks,
        shutdown: false,
    };
    // The RX FIFO is 16 bytes deep: drain it in one go.
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
                    let start = cycles::now();
                    let answer = SERVER.handle(&mut ctx, frame, reply);
                    ctx.last_handle_ticks = cycles::elapsed(start, cycles::now());
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
            send(&mut uart, answer);
            if ctx.shutdown {
                uart.flush();
                crate::exit(true);
            }
        }
    }
}

/// Writes a reply and its newline; nothing for an empty one (a notification).
fn send(uart: &mut Uart, answer: Result<&[u8], OutputTooSmall>) {
    // `OutputTooSmall` needs a reply buffer smaller than the shortest error reply
    // (about 100 bytes); with 1 KiB it does not happen, and there is nothing to send.
    if let Ok(reply) = answer {
        if !reply.is_empty() {
            uart.write_all(reply);
            uart.write_byte(b'\n');
        }
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
