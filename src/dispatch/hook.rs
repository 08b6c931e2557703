//! A hook around every call: told of each call before its handler runs (and able to
//! refuse it), and of how it ended, for logging, metrics, rate limits and
//! authorisation.
//!
//! A hook is two plain functions, so a server that has one is still a `static` built
//! by `const fn`s, and a server without one pays a branch per call. It sees the call
//! (method, id), not the handler's context: what it counts or limits lives in its own
//! statics (atomics, a `critical_section` cell). Under the `std` feature the second
//! function is also given the call's duration, the handler's awaits included.

use core::time::Duration;

use crate::error::RpcError;
use crate::id::Id;
use crate::raw::RawStr;

/// A call as its hook sees it: the method as sent (escapes not decoded; compare with
/// [`RawStr::eq_str`] to decode them) and the id (`None` for a notification).
#[derive(Copy, Clone, Debug)]
pub struct CallInfo<'a> {
    /// The method's name.
    pub method: RawStr<'a>,
    /// The id, exactly as received; `None` for a notification.
    pub id: Option<Id<'a>>,
}

/// How a call ended, as its reply says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A result was written.
    Result,
    /// An error reply with this code was written (the handler's own, `-32601` for a
    /// method the table lacks, `-32603` for a reply that did not fit, or the hook's
    /// refusal).
    Error(i32),
    /// A notification: nothing is written, whatever its handler returned.
    NoReply,
}

/// The hook a server calls around each call (requests and notifications; an element
/// that is not a Request object has no method and is not a call).
///
/// `before` runs first: an `Err` refuses the call, whose handler then does not run; a
/// request gets that error as its reply. `after` runs once the call's reply is
/// written (or, for a notification, once its handler returned), with how it ended
/// and, under `std`, the time since `before` was called (`None` without `std`).
///
/// ```
/// use core::sync::atomic::{AtomicU32, Ordering};
/// use jsonrpc_slice::dispatch::{CallHook, CallInfo, Outcome};
/// use jsonrpc_slice::{demo, RpcError, Server};
///
/// static ERRORS: AtomicU32 = AtomicU32::new(0);
///
/// /// `update` is refused; every error reply is counted.
/// fn before(call: &CallInfo<'_>) -> Result<(), RpcError<'static>> {
///     match call.method.eq_str("update") {
///         true => Err(RpcError::new(-32001, "Forbidden")),
///         false => Ok(()),
///     }
/// }
/// fn after(_: &CallInfo<'_>, outcome: Outcome, _: Option<core::time::Duration>) {
///     if let Outcome::Error(_) = outcome {
///         ERRORS.fetch_add(1, Ordering::Relaxed);
///     }
/// }
///
/// static SERVER: Server<()> = Server::new(demo::TABLE).with_hook(CallHook { before, after });
/// let mut out = [0u8; 256];
/// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"update","params":[1],"id":1}"#, &mut out)?;
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"Forbidden"},"id":1}"#);
/// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":2}"#, &mut out)?;
/// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":3,"id":2}"#);
/// assert_eq!(ERRORS.load(Ordering::Relaxed), 1);
/// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
/// ```
#[derive(Copy, Clone, Debug)]
pub struct CallHook {
    /// Runs before the call's handler; `Err` refuses the call.
    pub before: fn(&CallInfo<'_>) -> Result<(), RpcError<'static>>,
    /// Runs once the call has ended.
    pub after: fn(&CallInfo<'_>, Outcome, Option<Duration>),
}

/// When a call started, for the duration `after` is given: a clock under `std`,
/// nothing without it.
#[derive(Copy, Clone)]
pub(crate) struct Started(#[cfg(feature = "std")] std::time::Instant);

impl CallHook {
    /// Tells `before` of a call: when it started, and whether it may run.
    #[inline]
    pub(crate) fn start(&self, call: &CallInfo<'_>) -> (Started, Result<(), RpcError<'static>>) {
        let started = Started(
            #[cfg(feature = "std")]
            std::time::Instant::now(),
        );
        (started, (self.before)(call))
    }

    /// Tells `after` how the call that `started` ended.
    #[inline]
    pub(crate) fn end(&self, call: &CallInfo<'_>, started: Started, outcome: Outcome) {
        #[cfg(feature = "std")]
        let elapsed = Some(started.0.elapsed());
        #[cfg(not(feature = "std"))]
        let elapsed = {
            let _ = started;
            None
        };
        (self.after)(call, outcome, elapsed)
    }
}
