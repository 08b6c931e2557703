//! Time, as the client sees it: a [`Clock`] you supply, and the cancellation a
//! protocol sends for a call given up ([`Cancel`]).

use crate::id::Id;
use crate::write::{ResultWriter, WriteError};

/// Where the time comes from: anything that tells the present as an ordered instant
/// (`std::time::Instant::now`, `embassy_time::Instant::now`, a tick counter). A
/// function or closure returning such an instant is one.
///
/// ```
/// use jsonrpc_slice::client::Clock;
///
/// fn deadline_in<C: Clock<Instant = u64>>(clock: &mut C, ticks: u64) -> u64 {
///     clock.now() + ticks
/// }
/// let mut tick = 0u64;
/// let mut clock = || { tick += 1; tick };
/// assert_eq!(deadline_in(&mut clock, 10), 11);
/// ```
pub trait Clock {
    /// An instant: deadlines are instants, compared with the present.
    type Instant: Copy + Ord;

    /// The present.
    fn now(&mut self) -> Self::Instant;
}

impl<I: Copy + Ord, F: FnMut() -> I> Clock for F {
    type Instant = I;

    fn now(&mut self) -> I {
        self()
    }
}

/// The notification that tells the server a call was given up (timed out or
/// cancelled), where the protocol has one: its method, and how its params carry the
/// call's id. None is sent unless one is set ([`Client::with_cancel`](super::Client::with_cancel)):
/// plain JSON-RPC has no such message.
///
/// ```
/// use jsonrpc_slice::client::Cancel;
/// use jsonrpc_slice::{Id, ResultWriter, WriteError};
///
/// // A protocol of your own: `{"method":"abort","params":[ID]}`.
/// fn abort(p: &mut ResultWriter<'_>, id: Id<'_>) -> Result<(), WriteError> {
///     p.begin_array()?;
///     p.raw(id.as_raw())?;
///     p.end()
/// }
/// let cancel = Cancel { method: "abort", params: abort };
/// # let _ = (cancel, Cancel::LSP, Cancel::MCP);
/// ```
#[derive(Copy, Clone, Debug)]
pub struct Cancel {
    /// The notification's method.
    pub method: &'static str,
    /// Writes its params for the call with this id (an array or an object).
    pub params: fn(&mut ResultWriter<'_>, Id<'_>) -> Result<(), WriteError>,
}

impl Cancel {
    /// The Language Server Protocol's: `$/cancelRequest`, `{"id":ID}`.
    pub const LSP: Cancel = Cancel {
        method: "$/cancelRequest",
        params: lsp_params,
    };

    /// The Model Context Protocol's: `notifications/cancelled`,
    /// `{"requestId":ID,"reason":"timed out"}`.
    pub const MCP: Cancel = Cancel {
        method: "notifications/cancelled",
        params: mcp_params,
    };
}

fn lsp_params(p: &mut ResultWriter<'_>, id: Id<'_>) -> Result<(), WriteError> {
    p.begin_object()?;
    p.key("id")?;
    p.raw(id.as_raw())?;
    p.end()
}

fn mcp_params(p: &mut ResultWriter<'_>, id: Id<'_>) -> Result<(), WriteError> {
    p.begin_object()?;
    p.key("requestId")?;
    p.raw(id.as_raw())?;
    p.key("reason")?;
    p.str("timed out")?;
    p.end()
}
