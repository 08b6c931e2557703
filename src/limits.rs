//! Limits: named configuration, not magic numbers.
//!
//! Every limit here bounds the work or the memory one message can cost. Exceeding one
//! gives a JSON-RPC error (never a panic, never a truncated reply) in constant stack,
//! and the next message is served as usual.

/// The work budget of a batch, in reply buffers: the bytes a batch's replies write,
/// those kept and those rolled back (replies that did not fit) together, reach at most
/// this many times the size of the output buffer given to
/// [`Server::handle`](crate::Server::handle). An element that finds too little of it
/// left is handled as one whose reply does not fit (see `docs/DESIGN.md`, "Batch
/// overflow"). Twice the buffer: a batch whose replies fit is never cut short, and one
/// element that fills the buffer and is rolled back leaves the rest of the batch room
/// to be answered.
pub const BATCH_WORK_FACTOR: usize = 2;

/// The limits one [`Server`](crate::Server) applies to each message.
///
/// ```
/// use jsonrpc_slice::Limits;
///
/// // A microcontroller: shallow nesting, small batches.
/// const MCU: Limits = Limits::DEFAULT.max_depth(16).max_batch(8);
/// assert_eq!(MCU.max_depth, 16);
/// assert_eq!(MCU.max_method_len, Limits::DEFAULT.max_method_len);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Containers (objects and arrays, the envelope included) that may be open at
    /// once; one more is `-32700` "Parse error: nesting deeper than N". At most
    /// [`MAX_DEPTH_LIMIT`](crate::scan::MAX_DEPTH_LIMIT).
    pub max_depth: u16,
    /// Elements of one batch; more is one `-32600` for the whole batch, `"id":null`.
    pub max_batch: usize,
    /// Bytes of an `id` as received (quotes included); longer is `-32600`,
    /// `"id":null`.
    pub max_id_len: usize,
    /// Bytes of a `method` string as received (escapes as sent, quotes excluded);
    /// longer is `-32600` with the request's id.
    pub max_method_len: usize,
}

impl Limits {
    /// Host defaults: depth 128 (as serde_json), 1024 batch elements, ids and method
    /// names up to 256 bytes.
    pub const DEFAULT: Limits = Limits {
        max_depth: crate::scan::DEFAULT_MAX_DEPTH,
        max_batch: 1024,
        max_id_len: 256,
        max_method_len: 256,
    };

    /// The nesting limit in force: `max_depth`, capped at
    /// [`MAX_DEPTH_LIMIT`](crate::scan::MAX_DEPTH_LIMIT) (the size of the scanner's
    /// bit stack).
    pub const fn depth_in_force(&self) -> u16 {
        if self.max_depth > crate::scan::MAX_DEPTH_LIMIT {
            crate::scan::MAX_DEPTH_LIMIT
        } else {
            self.max_depth
        }
    }

    /// The same limits with another nesting depth.
    pub const fn max_depth(mut self, depth: u16) -> Self {
        self.max_depth = depth;
        self
    }

    /// The same limits with another batch size. `0` is "no batches" (MCP's rule since
    /// 2025-06-18): every batch, `[]` included, is one `-32600` with `"id":null`, and
    /// single messages are answered as ever.
    ///
    /// ```
    /// use jsonrpc_slice::{demo, Limits, Server};
    ///
    /// static NO_BATCHES: Server<()> = Server::new(demo::TABLE).with_limits(Limits::DEFAULT.max_batch(0));
    /// let mut out = [0u8; 256];
    /// let call = r#"{"jsonrpc":"2.0","method":"echo","params":[1],"id":1}"#;
    /// let reply = NO_BATCHES.handle(&mut (), format!("[{call}]").as_bytes(), &mut out)?;
    /// assert_eq!(
    ///     reply,
    ///     &br#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: batch larger than 0 elements"},"id":null}"#[..]
    /// );
    /// let reply = NO_BATCHES.handle(&mut (), call.as_bytes(), &mut out)?;
    /// assert!(reply.starts_with(br#"{"jsonrpc":"2.0","result""#));
    /// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
    /// ```
    pub const fn max_batch(mut self, elements: usize) -> Self {
        self.max_batch = elements;
        self
    }

    /// The same limits with another id length.
    pub const fn max_id_len(mut self, bytes: usize) -> Self {
        self.max_id_len = bytes;
        self
    }

    /// The same limits with another method-name length.
    pub const fn max_method_len(mut self, bytes: usize) -> Self {
        self.max_method_len = bytes;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
