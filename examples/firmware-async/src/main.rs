//! An async JSON-RPC device on the LM3S6965 (QEMU's `lm3s6965evb`): the concurrent
//! service of `jsonrpc-slice` on embassy-executor, over an interrupt-driven UART0.
//!
//! - `sensor/read` asks the sensor task for a reading and awaits it: the sensor task
//!   waits for its conversion to end (here `sensor/convert`, a notification that
//!   stands in for the ADC's interrupt). Other requests are served meanwhile: a `ping`
//!   sent after it is answered first.
//! - `alarm` notifications are pushed every half second (SysTick), with no host input.
//! - `ping`, `stats` (stack peak), `shutdown` (QEMU exits 0 once its reply is sent).
//!
//! Memory: four slots of 256-byte frames and replies, the outbox and the framer are
//! `static`s (made at compile time); the loop's future, with its workers and their
//! handlers' futures in place, lives in the main task, which embassy-executor keeps in
//! a `static`. Nothing is allocated (there is no allocator).

#![no_std]
#![no_main]

mod stack;
mod uart;

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{exception, ExceptionFrame};
use cortex_m_semihosting::debug;
use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_sync::waitqueue::AtomicWaker;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::outbox::SharedOutbox;
use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer, Slots};
use jsonrpc_slice::{async_method_table, Params, RawJson, ResultWriter, RpcError};
use static_cell::ConstStaticCell;

/// Requests in flight at once (1 in the `one-slot` build, which measures a slot).
const SLOTS: usize = if cfg!(feature = "one-slot") { 1 } else { 4 };
/// The largest message and the largest reply.
const FRAME: usize = 256;
const REPLY: usize = 256;
/// The outbox: room for a few alarms.
const OUTBOX: usize = 256;
/// SysTick: 100 Hz from the 12 MHz reset clock; an alarm every 50 ticks.
const TICK_RELOAD: u32 = 12_000_000 / 100 - 1;
const ALARM_TICKS: u32 = 50;

/// A reading asked of the sensor task, the reading it made, and the end of its
/// conversion.
static ASK: Signal<CriticalSectionRawMutex, ()> = Signal::new();
static READING: Signal<CriticalSectionRawMutex, i64> = Signal::new();
static CONVERTED: Signal<CriticalSectionRawMutex, ()> = Signal::new();

static TICKS: AtomicU32 = AtomicU32::new(0);
static TICK_WAKER: AtomicWaker = AtomicWaker::new();
static SHUTDOWN: AtomicBool = AtomicBool::new(false);

/// The handlers' shared state (none: the sensor is a task of its own).
struct App;

type Ctx<'c> = Call<'c, App>;
type Reply<'p> = Result<(), RpcError<'p>>;

async_method_table! {
    Methods<'c, Call<'c, App>> {
        "ping" => ping,
        "sensor/read" => sensor_read,
        "sensor/convert" => sensor_convert,
        "stats" => stats,
        "shutdown" => shutdown,
    }
}

static SERVER: ConcurrentServer<Methods> = ConcurrentServer::new(Methods);

async fn ping<'p>(_: &mut Ctx<'_>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Reply<'p> {
    Ok(out.str("pong")?)
}

/// Asks the sensor task for a reading and awaits it (degrees Celsius, 2 decimals).
async fn sensor_read<'p>(_: &mut Ctx<'_>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Reply<'p> {
    ASK.signal(());
    let centi = READING.wait().await;
    Ok(out.decimal(centi, 2)?)
}

/// The sensor's conversion ends (the ADC interrupt of a real board).
async fn sensor_convert<'p>(_: &mut Ctx<'_>, _: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    CONVERTED.signal(());
    Ok(())
}

/// `{"stack_peak":..,"stack_size":..,"ticks":..}`: the deepest the stack has been
/// since reset, in bytes.
async fn stats<'p>(_: &mut Ctx<'_>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Reply<'p> {
    out.begin_object()?;
    out.key("stack_peak")?;
    out.u64(stack::peak() as u64)?;
    out.key("stack_size")?;
    out.u64(stack::size() as u64)?;
    out.key("ticks")?;
    out.u64(u64::from(TICKS.load(Ordering::Relaxed)))?;
    Ok(out.end()?)
}

/// Answers `null`; the program ends once that reply is sent (`uart::Tx::flush`).
async fn shutdown<'p>(_: &mut Ctx<'_>, _: Params<'p>, out: &mut ResultWriter<'_>) -> Reply<'p> {
    SHUTDOWN.store(true, Ordering::Relaxed);
    Ok(out.raw(RawJson::NULL)?)
}

/// `shutdown` ran.
pub fn shutting_down() -> bool {
    SHUTDOWN.load(Ordering::Relaxed)
}

/// The sensor: each reading asked for is made when the conversion ends.
#[embassy_executor::task]
async fn sensor() {
    let mut centi = 2150;
    loop {
        ASK.wait().await;
        CONVERTED.wait().await;
        centi += 1;
        READING.signal(centi);
    }
}

/// Resolves once SysTick has ticked past `until`.
async fn ticks_past(until: u32) {
    core::future::poll_fn(|cx| {
        TICK_WAKER.register(cx.waker());
        if TICKS.load(Ordering::Relaxed).wrapping_sub(until) < u32::MAX / 2 {
            core::task::Poll::Ready(())
        } else {
            core::task::Poll::Pending
        }
    })
    .await;
}

/// Pushes an `alarm` every [`ALARM_TICKS`], with no host input (until `shutdown`).
async fn alarms<const Q: usize>(outbox: &SharedOutbox<Q>) {
    let mut n = 0u64;
    let mut next = ALARM_TICKS;
    loop {
        ticks_past(next).await;
        next = next.wrapping_add(ALARM_TICKS);
        if shutting_down() {
            continue;
        }
        n += 1;
        let uptime_ms = u64::from(TICKS.load(Ordering::Relaxed)) * 10;
        let _ = outbox
            .notify("alarm", |p| {
                p.begin_object()?;
                p.key("n")?;
                p.u64(n)?;
                p.key("uptime_ms")?;
                p.u64(uptime_ms)?;
                p.end()
            })
            .await;
    }
}

#[embassy_executor::main]
async fn main(spawner: Spawner) {
    let Some(mut core) = cortex_m::Peripherals::take() else {
        exit(false)
    };
    core.SYST.set_clock_source(SystClkSource::Core);
    core.SYST.set_reload(TICK_RELOAD);
    core.SYST.clear_current();
    core.SYST.enable_interrupt();
    core.SYST.enable_counter();
    let Ok(sensor) = sensor() else { exit(false) };
    spawner.spawn(sensor);

    let (mut rx, mut tx) = uart::init();
    let Some((slots, outbox, framer, chunk)) = memory() else {
        exit(false)
    };
    let serve = SERVER.serve(&App, framer, slots, outbox, chunk, &mut rx, &mut tx);
    // The UART's input never ends: neither does the loop.
    let _ = join(serve, alarms(outbox)).await;
    exit(false)
}

/// The loop's memory: `static`s made at compile time (`.bss`), taken once, so that
/// no copy of them passes through the stack.
#[allow(clippy::type_complexity)]
fn memory() -> Option<(
    &'static Slots<SLOTS, FRAME, REPLY>,
    &'static SharedOutbox<OUTBOX>,
    &'static mut LineAccumulator<FRAME>,
    &'static mut [u8; 64],
)> {
    static SLOTS_MEM: ConstStaticCell<Slots<SLOTS, FRAME, REPLY>> =
        ConstStaticCell::new(Slots::new());
    static OUTBOX_MEM: ConstStaticCell<SharedOutbox<OUTBOX>> =
        ConstStaticCell::new(SharedOutbox::new());
    static FRAMER: ConstStaticCell<LineAccumulator<FRAME>> =
        ConstStaticCell::new(LineAccumulator::new());
    static CHUNK: ConstStaticCell<[u8; 64]> = ConstStaticCell::new([0; 64]);
    Some((
        SLOTS_MEM.try_take()?,
        OUTBOX_MEM.try_take()?,
        FRAMER.try_take()?,
        CHUNK.try_take()?,
    ))
}

#[exception]
fn SysTick() {
    TICKS.fetch_add(1, Ordering::Relaxed);
    TICK_WAKER.wake();
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == 5 {
        uart::on_interrupt();
    }
}

#[exception]
unsafe fn HardFault(_frame: &ExceptionFrame) -> ! {
    exit(false)
}

/// Ends the program: QEMU exits with status 0 (`ok`) or 1, through semihosting.
pub fn exit(ok: bool) -> ! {
    debug::exit(if ok {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Only reached without a semihosting host (no QEMU, no debugger attached).
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    exit(false)
}
