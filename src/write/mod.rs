//! Write: replies into a fixed buffer, with checkpoints and rollback.
//!
//! The last room of the flow. [`ResultWriter`] is the one writer of a reply: the
//! dispatcher writes the envelope through it, and a handler writes its `result` through
//! it. Every write either fits whole or is refused; the dispatcher checkpoints before
//! each reply and rolls back a reply that did not fit, writing `-32603` in its place, so
//! the buffer only ever holds complete, valid JSON.
//!
//! # Contract
//!
//! - No write panics, whatever the buffer size and whatever a handler calls in
//!   whatever order: a call out of order (a key inside an array, `end` with nothing
//!   open, a second top-level value, ...) is refused with [`WriteError::Misuse`] and
//!   poisons the result, which the dispatcher then replaces with `-32603`.
//! - Strings are escaped (`"`, `\`, control characters), so nothing a handler writes
//!   through [`ResultWriter::str`] can break the JSON or put a raw newline on the wire.
//!   [`RawJson`] values (results, error `data`) are valid JSON by construction and are
//!   copied verbatim, except that raw line breaks, which a valid value holds only as
//!   whitespace, are dropped: no reply ever holds one.

use core::fmt;

use crate::id::Id;
use crate::raw::RawJson;
use crate::scan::FAST_PATHS;

mod float;
#[cfg(feature = "serde")]
pub(crate) use float::{f32_text, f64_text, NumberText};

/// Why a write was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
// A word, and no variant 0: `Ok(())` of a write is then 0 in a register, and each of
// the many checks of a write's outcome is one compare with zero (flash, on a
// Cortex-M).
#[repr(u32)]
pub enum WriteError {
    /// The reply does not fit in the output buffer.
    BufferFull = 1,
    /// A call out of order for the JSON being written (a handler bug).
    Misuse = 2,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::BufferFull => "reply does not fit in the output buffer",
            Self::Misuse => "result written out of order",
        })
    }
}

impl core::error::Error for WriteError {}

/// Lets a handler use `?` on writes: the dispatcher sees the overflow or the misuse
/// itself and answers `-32603` in place of the reply.
impl From<WriteError> for crate::error::RpcError<'_> {
    // Out of line: a failed write is rare, and each inlined copy wrote the whole error
    // at every `?` of every handler.
    #[cold]
    #[inline(never)]
    fn from(_: WriteError) -> Self {
        crate::error::RpcError::internal()
    }
}

/// The `message` of an error reply: a text, optionally completed by a number and a
/// tail (`"Parse error: nesting deeper than "`, `128`, `""`).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Message<'m> {
    pub(crate) text: &'m str,
    pub(crate) detail: Option<(usize, &'static str)>,
}

impl<'m> Message<'m> {
    pub(crate) const fn plain(text: &'m str) -> Self {
        Self { text, detail: None }
    }

    pub(crate) const fn with(text: &'m str, number: usize, tail: &'static str) -> Self {
        Self {
            text,
            detail: Some((number, tail)),
        }
    }
}

/// `fmt::Write` into a writer, escaping as JSON strings need.
pub(crate) struct Escaping<'w, 'o> {
    pub(crate) w: &'w mut ResultWriter<'o>,
    /// The write error behind a `fmt::Error`.
    pub(crate) err: Option<WriteError>,
}

impl fmt::Write for Escaping<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.w.escaped(s).map_err(|e| {
            self.err = Some(e);
            fmt::Error
        })
    }
}

/// `(v / 10, v % 10)`. A 64-bit target divides by multiplying; elsewhere a 64-bit
/// division is a library call (`__aeabi_uldivmod`, 0.9 KiB of flash on a Cortex-M),
/// so the division is done in three 32-bit steps.
#[inline]
fn div10(v: u64) -> (u64, u8) {
    #[cfg(target_pointer_width = "64")]
    return (v / 10, (v % 10) as u8);
    #[cfg(not(target_pointer_width = "64"))]
    return div10_narrow(v);
}

/// `(v / 10, v % 10)` with 32-bit divisions only: long division of `v` split into a
/// 32-bit high part and two 16-bit low parts (each partial dividend stays below
/// 10 << 16, so it fits in 32 bits).
#[cfg_attr(target_pointer_width = "64", allow(dead_code))]
#[inline]
fn div10_narrow(v: u64) -> (u64, u8) {
    let (hi, lo) = ((v >> 32) as u32, v as u32);
    let (q_hi, r) = (hi / 10, hi % 10);
    let mid = (r << 16) | (lo >> 16);
    let (q_mid, r) = (mid / 10, mid % 10);
    let low = (r << 16) | (lo & 0xFFFF);
    let (q_low, r) = (low / 10, low % 10);
    (
        (u64::from(q_hi) << 32) | u64::from((q_mid << 16) | q_low),
        r as u8,
    )
}

/// The deepest nesting a handler may open in its result.
pub const MAX_RESULT_DEPTH: u8 = 64;

/// Writes compact JSON into a fixed buffer. Handlers get one to write their `result`.
///
/// A handler writes exactly one JSON value, with the typed calls below or as a
/// [`RawJson`] copied verbatim. A handler that writes nothing and returns `Ok` answers
/// `null`.
///
/// ```
/// use jsonrpc_slice::ResultWriter;
///
/// let mut buf = [0u8; 64];
/// let mut w = ResultWriter::new(&mut buf);
/// w.begin_object()?;
/// w.key("sum")?;
/// w.i64(-7)?;
/// w.key("tags")?;
/// w.begin_array()?;
/// w.str("a\"b")?;
/// w.bool(true)?;
/// w.end()?;
/// w.end()?;
/// assert_eq!(w.written(), br#"{"sum":-7,"tags":["a\"b",true]}"#);
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
pub struct ResultWriter<'o> {
    buf: &'o mut [u8],
    len: usize,
    /// Writes may not go past this offset (`<= buf.len()`).
    end: usize,
    /// The work budget left: how far `end` may still be, which every rollback lowers
    /// by the bytes it drops (`usize::MAX`: no budget; see `set_allowance`).
    allowance: usize,
    /// `false` while a notification's handler runs: everything is accepted and dropped.
    live: bool,
    /// A write did not fit since the last checkpoint.
    full: bool,
    /// Where the reply being written starts (`usize::MAX` outside a handler's call).
    reply_at: usize,
    /// After [`error`](ResultWriter::error): where the error's `,"data":` starts;
    /// 0 when the handler wrote no error.
    error_data_at: usize,
    /// Structure of the value being written.
    value: ValueState,
}

/// Where a handler is in the one JSON value it writes.
#[derive(Copy, Clone)]
struct ValueState {
    depth: u8,
    /// One bit per open level, the innermost in the lowest bit: set for an object.
    /// (Shifted by one on open and close: cheap on a 32-bit core too.)
    objects: u64,
    /// The same levels: set once the level holds an item.
    items: u64,
    after_key: bool,
    in_string: bool,
    done: bool,
    misuse: bool,
}

impl<'o> ResultWriter<'o> {
    /// A writer over all of `buf`.
    // Out of line in the compact build (the condition of `scan::FAST_PATHS`): one
    // copy for the server and the framers' error replies.
    #[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
    pub fn new(buf: &'o mut [u8]) -> Self {
        let end = buf.len();
        Self {
            buf,
            len: 0,
            end,
            allowance: usize::MAX,
            live: true,
            full: false,
            reply_at: usize::MAX,
            error_data_at: 0,
            value: ValueState {
                depth: 0,
                // Any bits: none above `depth` is read before `open` shifts it in.
                // (All zeros made the whole writer one `memset` call on a Cortex-M.)
                objects: u64::MAX,
                items: u64::MAX,
                after_key: false,
                in_string: false,
                done: false,
                misuse: false,
            },
        }
    }

    /// The bytes written so far.
    pub fn written(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// Consumes the writer, giving back the written part of the buffer.
    pub fn into_written(self) -> &'o [u8] {
        let len = self.len;
        let buf: &'o [u8] = self.buf;
        buf.get(..len).unwrap_or(&[])
    }

    /// Bytes still free in the buffer (`0` while writing for a notification, whose
    /// result is dropped: a handler may skip work when this is `false`, see
    /// [`ResultWriter::is_live`]).
    pub fn remaining(&self) -> usize {
        if self.live {
            self.end.saturating_sub(self.len)
        } else {
            0
        }
    }

    /// `false` while the result is for a notification and will be dropped.
    pub fn is_live(&self) -> bool {
        self.live
    }

    // ---- byte level (crate-internal) -----------------------------------------------

    #[inline]
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.push_any(bytes);
        }
        if !self.live {
            return Ok(());
        }
        let new_len = self.len + bytes.len();
        if new_len > self.end {
            self.full = true;
            return Err(WriteError::BufferFull);
        }
        match self.buf.get_mut(self.len..new_len) {
            // One or two bytes (short ids, digits, separators): a call to `memcpy`
            // costs more than they do.
            Some([d]) => *d = bytes.first().copied().unwrap_or(0),
            Some([d0, d1]) => {
                *d0 = bytes.first().copied().unwrap_or(0);
                *d1 = bytes.get(1).copied().unwrap_or(0);
            }
            Some(dst) => dst.copy_from_slice(bytes),
            None => {
                self.full = true;
                return Err(WriteError::BufferFull);
            }
        }
        self.len = new_len;
        Ok(())
    }

    /// [`push`](Self::push) for bytes of a length known at compile time: copied with
    /// a few moves instead of a call to `memcpy`.
    #[inline(always)]
    pub(crate) fn push_array<const N: usize>(&mut self, bytes: &[u8; N]) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.push_any(bytes);
        }
        if !self.live {
            return Ok(());
        }
        let new_len = self.len + N;
        if new_len > self.end {
            self.full = true;
            return Err(WriteError::BufferFull);
        }
        match self
            .buf
            .get_mut(self.len..)
            .and_then(|rest| rest.first_chunk_mut::<N>())
        {
            Some(dst) => *dst = *bytes,
            None => {
                self.full = true;
                return Err(WriteError::BufferFull);
            }
        }
        self.len = new_len;
        Ok(())
    }

    /// [`push`](Self::push) in the compact build: one copy of the code, called from
    /// every site, and a byte loop instead of `memcpy` (0.7 KiB of flash on a
    /// Cortex-M, which the compact build then links no more). Nothing is written
    /// unless all of it fits.
    #[inline(never)]
    fn push_any(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        self.copy(bytes, false)
    }

    /// The byte loop of the compact build: `bytes`, without their line breaks if
    /// `drop_line_breaks` (what [`json`](Self::json) asks), all or nothing.
    #[inline(never)]
    fn copy(&mut self, bytes: &[u8], drop_line_breaks: bool) -> Result<(), WriteError> {
        if !self.live {
            return Ok(());
        }
        let start = self.len;
        for &b in bytes {
            if drop_line_breaks && (b == b'\n' || b == b'\r') {
                continue;
            }
            match self.buf.get_mut(self.len) {
                Some(d) if self.len < self.end => {
                    *d = b;
                    self.len += 1;
                }
                _ => {
                    self.len = start;
                    self.full = true;
                    return Err(WriteError::BufferFull);
                }
            }
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn push_byte(&mut self, b: u8) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.push_one(b);
        }
        self.push(&[b])
    }

    /// [`push_byte`](Self::push_byte) in the compact build: the byte goes in a
    /// register, and the one copy of this function makes it the slice `push_any`
    /// takes.
    #[inline(never)]
    fn push_one(&mut self, b: u8) -> Result<(), WriteError> {
        self.push_any(&[b])
    }

    /// A checkpoint: the current length.
    #[inline]
    pub(crate) fn mark(&self) -> usize {
        self.len
    }

    /// Drops everything written after `mark` and clears the full flag. The bytes
    /// dropped are taken off the allowance, and `end` comes down to it if needed.
    // Out of line in the compact build (the condition of `scan::FAST_PATHS`): flash.
    #[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
    #[cfg_attr(jsonrpc_slice_fast, inline)]
    pub(crate) fn rollback(&mut self, mark: usize) {
        let keep = mark.min(self.len);
        self.allowance = self.allowance.saturating_sub(self.len - keep);
        self.end = self.end.min(self.allowance);
        self.len = keep;
        self.full = false;
    }

    /// Sets the work budget: from now on, the bytes kept plus the bytes rolled back
    /// reach at most `bytes` (counted from the start of the buffer), because each
    /// rollback lowers `end` by what it drops. `usize::MAX` lifts it. The caller sets
    /// `end` no higher than `bytes` (see `Server::batch`).
    pub(crate) fn set_allowance(&mut self, bytes: usize) {
        self.allowance = bytes;
    }

    /// Sets how far writes may go (clamped to the buffer), returning the old limit.
    pub(crate) fn set_end(&mut self, end: usize) -> usize {
        let old = self.end;
        self.end = end.min(self.buf.len());
        old
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// How far writes may go (see `set_end`).
    pub(crate) fn limit(&self) -> usize {
        self.end
    }

    /// Copies a JSON value verbatim, except for its line breaks: a valid value holds
    /// `\n` and `\r` only as whitespace between tokens, and dropping them keeps the
    /// value while no reply ever holds a raw line break (which would break newline
    /// framing).
    pub(crate) fn json(&mut self, value: RawJson<'_>) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.copy(value.as_bytes(), true);
        }
        self.json_runs(value.as_bytes())
    }

    /// [`json`](Self::json) in the fast build: each run between line breaks in one
    /// push; all of the value or none of it, as the compact build's `copy`.
    fn json_runs(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        let start = self.len;
        let mut rest = bytes;
        loop {
            let cut = rest.iter().position(|&b| b == b'\n' || b == b'\r');
            let (run, tail) = rest.split_at(cut.unwrap_or(rest.len()));
            if let Err(e) = self.push(run) {
                self.len = start;
                return Err(e);
            }
            match tail.split_first() {
                Some((_, after)) => rest = after,
                None => return Ok(()),
            }
        }
    }

    pub(crate) fn set_live(&mut self, live: bool) {
        self.live = live;
    }

    /// `true` if a write did not fit since the last rollback.
    pub(crate) fn overflowed(&self) -> bool {
        self.full
    }

    /// Starts a new result value.
    pub(crate) fn begin_value(&mut self) {
        // The level flags need no reset: `open` writes them before anything reads
        // them. (Clearing the whole state is a `memset` call on a Cortex-M.)
        let v = &mut self.value;
        v.depth = 0;
        v.after_key = false;
        v.in_string = false;
        v.done = false;
        v.misuse = false;
    }

    /// Ends the result value: `Ok(true)` if one complete value was written, `Ok(false)`
    /// if none was (the caller writes `null`), `Err` if it is incomplete or misused.
    pub(crate) fn finish_value(&self) -> Result<bool, WriteError> {
        let v = &self.value;
        if v.misuse || v.in_string || v.depth != 0 || v.after_key {
            return Err(WriteError::Misuse);
        }
        Ok(v.done)
    }

    pub(crate) fn u64_digits(&mut self, v: u64) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.digits_in_place(false, v);
        }
        self.digits(false, v)
    }

    /// The digits of `v`, after a `-` if `minus`, in one push: all of the number
    /// fits, or none of it is written.
    #[inline(always)]
    fn digits(&mut self, minus: bool, v: u64) -> Result<(), WriteError> {
        // The common small results, without the loop.
        if !minus && v < 10 {
            return self.push_byte(b'0' + v as u8);
        }
        if !minus && v < 100 {
            return self.push(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
        }
        self.digits_array(minus, v)
    }

    /// [`digits`](Self::digits) past the small cases: made in an array, pushed once.
    fn digits_array(&mut self, minus: bool, mut v: u64) -> Result<(), WriteError> {
        // 20 digits at most, and the sign.
        let mut digits = [0u8; 21];
        let mut i = digits.len();
        loop {
            i -= 1;
            let (q, r) = div10(v);
            if let Some(d) = digits.get_mut(i) {
                *d = b'0' + r;
            }
            v = q;
            if v == 0 || i == 0 {
                break;
            }
        }
        if minus {
            i -= 1;
            if let Some(d) = digits.get_mut(i) {
                *d = b'-';
            }
        }
        self.push(digits.get(i..).unwrap_or(&[]))
    }

    /// The digits of `v`, after a `-` if `minus`, in the compact build: written
    /// straight into the buffer last first, then turned around (no scratch array to
    /// clear, one division per digit, one copy of the code for both signs). All of
    /// the number fits, or none of it is written.
    #[inline(never)]
    fn digits_in_place(&mut self, minus: bool, v: u64) -> Result<(), WriteError> {
        let mark = self.len;
        if minus {
            self.push_one(b'-')?;
        }
        let start = self.len;
        let mut rest = v;
        loop {
            let (q, r) = div10(rest);
            if let Err(e) = self.push_one(b'0' + r) {
                // All of the number or none of it.
                self.len = mark;
                return Err(e);
            }
            rest = q;
            if rest == 0 {
                break;
            }
        }
        // They came last first.
        if let Some(digits) = self.buf.get_mut(start..self.len) {
            digits.reverse();
        }
        Ok(())
    }

    pub(crate) fn i64_digits(&mut self, v: i64) -> Result<(), WriteError> {
        if !FAST_PATHS {
            return self.digits_in_place(v < 0, v.unsigned_abs());
        }
        self.digits(v < 0, v.unsigned_abs())
    }

    /// Writes the inside of a JSON string (no quotes), escaping as needed: each run of
    /// bytes that need no escape in one push, then the escape of the byte that ends it.
    pub(crate) fn escaped(&mut self, s: &str) -> Result<(), WriteError> {
        let mut rest = s.as_bytes();
        loop {
            let (run, tail) = rest.split_at(crate::simd::plain_end(rest, 0).min(rest.len()));
            self.push(run)?;
            let Some((&b, after)) = tail.split_first() else {
                return Ok(());
            };
            self.escape(b)?;
            rest = after;
        }
    }

    /// The escape of `b`, a `"`, a `\\` or a control character.
    fn escape(&mut self, b: u8) -> Result<(), WriteError> {
        let short = match b {
            b'"' | b'\\' => b,
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            _ => 0,
        };
        // `\u00XY` for the other control characters (below 0x20), else the first two
        // bytes made `\` and the short form: one push either way.
        let low = b & 0xF;
        let low = if low < 10 {
            b'0' + low
        } else {
            b'a' + low - 10
        };
        let mut text = [b'\\', b'u', b'0', b'0', b'0' + (b >> 4), low];
        let mut len = text.len();
        if short != 0 {
            text[1] = short;
            len = 2;
        }
        self.push(text.get(..len).unwrap_or(&[]))
    }

    /// Writes an id as received.
    pub(crate) fn id(&mut self, id: Id<'_>) -> Result<(), WriteError> {
        self.push(id.as_bytes())
    }

    /// Writes a whole error reply: `{"jsonrpc":"2.0","error":{...},"id":...}`.
    pub(crate) fn error_reply(
        &mut self,
        id: Id<'_>,
        code: i32,
        message: Message<'_>,
        data: Option<RawJson<'_>>,
    ) -> Result<(), WriteError> {
        self.push_array(b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":")?;
        if FAST_PATHS && (-99_999..=-10_000).contains(&code) {
            // The reserved codes (-32768..-32000) and their like: five digits, no loop.
            let n = code.unsigned_abs();
            let digit = |d: u32| b'0' + (n / d % 10) as u8;
            self.push_array(&[
                b'-',
                digit(10_000),
                digit(1_000),
                digit(100),
                digit(10),
                digit(1),
            ])?;
        } else {
            self.i64_digits(code as i64)?;
        }
        self.push_array(b",\"message\":\"")?;
        self.escaped(message.text)?;
        if let Some((number, tail)) = message.detail {
            self.u64_digits(number as u64)?;
            self.escaped(tail)?;
        }
        self.push_byte(b'"')?;
        if let Some(data) = data {
            self.push(b",\"data\":")?;
            self.json(data)?;
        }
        self.push(b"},\"id\":")?;
        self.id(id)?;
        self.push_byte(b'}')
    }

    /// Writes the start of a success reply, up to where the result goes.
    #[inline]
    pub(crate) fn result_prefix(&mut self) -> Result<(), WriteError> {
        self.reply_at = self.len;
        self.push_array(b"{\"jsonrpc\":\"2.0\",\"result\":")
    }

    /// After a handler: where the `data` of the error it wrote starts, if it wrote one
    /// (and the writer is out of the handler's call).
    pub(crate) fn take_error(&mut self) -> Option<usize> {
        self.reply_at = usize::MAX;
        let at = core::mem::replace(&mut self.error_data_at, 0);
        (at != 0).then_some(at)
    }

    /// Writes the end of a success reply, after the result.
    #[inline]
    pub(crate) fn result_suffix(&mut self, id: Id<'_>) -> Result<(), WriteError> {
        let id = id.as_bytes();
        const HEAD: &[u8; 6] = b",\"id\":";
        self.push_array(HEAD)?;
        self.push(id)?;
        self.push_array(b"}")
    }

    // ---- the handler's API ---------------------------------------------------------

    /// Makes the reply an error with `code` and a message made at run time (anything
    /// `Display`: `format_args!`, a number, a [`RawStr`](crate::RawStr) from the
    /// params), written straight into the reply buffer and escaped. What the handler
    /// writes next through this writer, one value, becomes the error's `data`; it may
    /// write none. Whatever it wrote of a result before is dropped, and whatever it
    /// returns afterwards, the reply is this error: return the [`RpcError`](crate::RpcError) this gives
    /// back, which says so. One error per call: a second is refused with
    /// [`WriteError::Misuse`]. (For a notification nothing is written, as always.)
    ///
    /// The error is held to the same rules as a result: when the message or the data
    /// does not fit, the reply becomes `-32603` with the same id (so does a message of
    /// a few bytes less than the room left, which has no room for the `,"data":` that
    /// is written with it); a `data` value left unfinished is a `-32603` too. Errors
    /// known at compile time cost less as a plain [`RpcError`](crate::RpcError).
    ///
    /// ```
    /// use jsonrpc_slice::{method_table, Params, ResultWriter, RpcError, Server};
    ///
    /// fn open<'p>(_: &mut (), p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ///     let path = p.nth(0).and_then(|v| v.as_str()).ok_or(RpcError::invalid_params())?;
    ///     let line = 42;
    ///     let e = out.error(-32001, format_args!("cannot open {path} (line {line})"))?;
    ///     out.begin_object()?;
    ///     out.key("errno")?;
    ///     out.i64(2)?;
    ///     out.end()?;
    ///     Err(e)
    /// }
    /// static SERVER: Server<()> = Server::new(method_table! { "open" => open });
    /// let mut out = [0u8; 256];
    /// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"open","params":["C:\\x.txt"],"id":1}"#, &mut out)?;
    /// assert_eq!(
    ///     std::str::from_utf8(reply).unwrap(),
    ///     r#"{"jsonrpc":"2.0","error":{"code":-32001,"message":"cannot open C:\\x.txt (line 42)","data":{"errno":2}},"id":1}"#
    /// );
    /// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
    /// ```
    pub fn error(
        &mut self,
        code: i32,
        message: impl fmt::Display,
    ) -> Result<crate::error::RpcError<'static>, WriteError> {
        if self.reply_at == usize::MAX || self.error_data_at != 0 {
            // Not in a handler's call (there is no reply to turn into an error), or an
            // error was written already.
            return Err(WriteError::Misuse);
        }
        self.rollback(self.reply_at);
        self.push(b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":")?;
        self.i64_digits(i64::from(code))?;
        self.push(b",\"message\":\"")?;
        self.escaped_display(message)?;
        self.push_byte(b'"')?;
        let data_at = self.len;
        self.push(b",\"data\":")?;
        // Never 0: the error's head is before it.
        self.error_data_at = data_at;
        self.begin_value();
        Ok(crate::error::RpcError::new(code, "(written in the reply)"))
    }

    /// A string value: `v` formatted with `Display`, escaped as JSON needs.
    ///
    /// ```
    /// use jsonrpc_slice::ResultWriter;
    ///
    /// let mut buf = [0u8; 32];
    /// let mut w = ResultWriter::new(&mut buf);
    /// w.display(format_args!("TODO on line {}", 3))?;
    /// assert_eq!(w.written(), br#""TODO on line 3""#);
    /// # Ok::<(), jsonrpc_slice::WriteError>(())
    /// ```
    pub fn display(&mut self, v: impl fmt::Display) -> Result<(), WriteError> {
        self.string_start()?;
        self.escaped_display(v)?;
        self.string_end()
    }

    /// Writes `v` formatted, escaped (no quotes).
    pub(crate) fn escaped_display(&mut self, v: impl fmt::Display) -> Result<(), WriteError> {
        let mut sink = Escaping { w: self, err: None };
        match fmt::write(&mut sink, format_args!("{v}")) {
            Ok(()) => Ok(()),
            // A `Display` impl that fails on its own is the handler's misuse.
            Err(_) => Err(sink.err.unwrap_or(WriteError::Misuse)),
        }
    }

    /// Checks that a value may start here, writing the comma before it if needed.
    fn before_value(&mut self) -> Result<(), WriteError> {
        self.before(false)
    }

    /// Checks that a value (or, with `key`, an object's key) may come here, and
    /// writes the comma before it if one is needed. One check for both: a key goes
    /// where an open object wants one, a value wherever else a value may go.
    fn before(&mut self, key: bool) -> Result<(), WriteError> {
        let v = &mut self.value;
        let object = v.depth > 0 && v.objects & 1 != 0;
        // In an object, keys and values take turns.
        let fits = if object {
            key != v.after_key
        } else {
            !key && (v.depth > 0 || !v.done)
        };
        if v.misuse || v.in_string || !fits {
            v.misuse = true;
            return Err(WriteError::Misuse);
        }
        // A member's value follows its key: no comma.
        v.after_key = key;
        if v.depth == 0 || (object && !key) {
            return Ok(());
        }
        let comma = v.items & 1 != 0;
        v.items |= 1;
        if comma {
            self.push_byte(b',')?;
        }
        Ok(())
    }

    fn after_value(&mut self) {
        if self.value.depth == 0 {
            self.value.done = true;
        }
    }

    /// A value given as raw JSON, copied verbatim but for raw line breaks (JSON
    /// whitespace), which are dropped so a reply stays one line.
    pub fn raw(&mut self, value: RawJson<'_>) -> Result<(), WriteError> {
        self.before_value()?;
        self.json(value)?;
        self.after_value();
        Ok(())
    }

    /// `null`.
    pub fn null(&mut self) -> Result<(), WriteError> {
        self.raw(RawJson::NULL)
    }

    /// `true` or `false`.
    pub fn bool(&mut self, v: bool) -> Result<(), WriteError> {
        self.before_value()?;
        self.push(if v { b"true" } else { b"false" })?;
        self.after_value();
        Ok(())
    }

    /// A signed integer.
    pub fn i64(&mut self, v: i64) -> Result<(), WriteError> {
        self.before_value()?;
        self.i64_digits(v)?;
        self.after_value();
        Ok(())
    }

    /// An unsigned integer.
    pub fn u64(&mut self, v: u64) -> Result<(), WriteError> {
        self.before_value()?;
        self.u64_digits(v)?;
        self.after_value();
        Ok(())
    }

    /// A string, escaped as JSON needs.
    #[inline(always)]
    pub fn str(&mut self, s: &str) -> Result<(), WriteError> {
        self.string_start()?;
        self.string_push(s)?;
        self.string_end()
    }

    /// Opens a string written in pieces with [`string_push`](Self::string_push).
    pub fn string_start(&mut self) -> Result<(), WriteError> {
        self.before_value()?;
        self.push_byte(b'"')?;
        self.value.in_string = true;
        Ok(())
    }

    /// Appends to the open string, escaping as JSON needs.
    // Out of line in the compact build (the condition of `scan::FAST_PATHS`): flash.
    #[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
    pub fn string_push(&mut self, s: &str) -> Result<(), WriteError> {
        if !self.value.in_string {
            self.value.misuse = true;
            return Err(WriteError::Misuse);
        }
        self.escaped(s)
    }

    /// Closes the open string.
    pub fn string_end(&mut self) -> Result<(), WriteError> {
        if !self.value.in_string {
            self.value.misuse = true;
            return Err(WriteError::Misuse);
        }
        self.push_byte(b'"')?;
        self.value.in_string = false;
        self.after_value();
        Ok(())
    }

    fn open(&mut self, object: bool) -> Result<(), WriteError> {
        self.before_value()?;
        if self.value.depth >= MAX_RESULT_DEPTH {
            self.value.misuse = true;
            return Err(WriteError::Misuse);
        }
        self.push_byte(if object { b'{' } else { b'[' })?;
        let v = &mut self.value;
        v.objects = v.objects << 1 | u64::from(object);
        v.items <<= 1;
        v.depth += 1;
        Ok(())
    }

    /// Opens an array; close it with [`end`](Self::end).
    pub fn begin_array(&mut self) -> Result<(), WriteError> {
        self.open(false)
    }

    /// Opens an object; write members with [`key`](Self::key) and a value each, and
    /// close it with [`end`](Self::end).
    pub fn begin_object(&mut self) -> Result<(), WriteError> {
        self.open(true)
    }

    /// Writes the key of the next member of the open object.
    pub fn key(&mut self, key: &str) -> Result<(), WriteError> {
        self.before(true)?;
        self.push_byte(b'"')?;
        self.escaped(key)?;
        self.push(b"\":")
    }

    /// Closes the innermost open array or object.
    pub fn end(&mut self) -> Result<(), WriteError> {
        let v = &mut self.value;
        if v.misuse || v.in_string || v.after_key || v.depth == 0 {
            v.misuse = true;
            return Err(WriteError::Misuse);
        }
        let close = if v.objects & 1 != 0 { b'}' } else { b']' };
        v.depth -= 1;
        v.objects >>= 1;
        v.items >>= 1;
        self.push_byte(close)?;
        self.after_value();
        Ok(())
    }
}

impl fmt::Debug for ResultWriter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResultWriter")
            .field("len", &self.len)
            .field("end", &self.end)
            .field("live", &self.live)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    #[test]
    fn misuse_is_refused_not_panicked() {
        let mut buf = [0u8; 32];
        let mut w = ResultWriter::new(&mut buf);
        assert_eq!(w.end(), Err(WriteError::Misuse));
        assert_eq!(w.finish_value(), Err(WriteError::Misuse));

        let mut w = ResultWriter::new(&mut buf);
        w.begin_array().unwrap();
        assert_eq!(w.key("k"), Err(WriteError::Misuse));

        let mut w = ResultWriter::new(&mut buf);
        w.i64(1).unwrap();
        assert_eq!(w.i64(2), Err(WriteError::Misuse));

        let mut w = ResultWriter::new(&mut buf);
        w.begin_object().unwrap();
        assert_eq!(w.i64(2), Err(WriteError::Misuse));
    }

    /// Writes `[{"a":[1,{"b":2}],"c":3` and stops there.
    fn mixed_prefix(w: &mut ResultWriter<'_>) {
        w.begin_array().unwrap();
        w.begin_object().unwrap();
        w.key("a").unwrap();
        w.begin_array().unwrap();
        w.i64(1).unwrap();
        w.begin_object().unwrap();
        w.key("b").unwrap();
        w.i64(2).unwrap();
        w.end().unwrap();
        w.end().unwrap();
        w.key("c").unwrap();
        w.i64(3).unwrap();
    }

    #[test]
    fn nesting_comes_back_to_each_level_with_its_kind_and_commas() {
        let mut buf = [0u8; 256];
        let mut w = ResultWriter::new(&mut buf);
        mixed_prefix(&mut w);
        assert_eq!(w.i64(9), Err(WriteError::Misuse), "a value without its key");

        let mut w = ResultWriter::new(&mut buf);
        mixed_prefix(&mut w);
        w.end().unwrap();
        w.begin_array().unwrap();
        w.begin_array().unwrap();
        w.end().unwrap();
        w.begin_object().unwrap();
        w.end().unwrap();
        w.end().unwrap();
        w.i64(4).unwrap();
        w.end().unwrap();
        assert_eq!(w.finish_value(), Ok(true));
        assert_eq!(
            core::str::from_utf8(w.written()).unwrap(),
            r#"[{"a":[1,{"b":2}],"c":3},[[],{}],4]"#
        );
    }

    /// Opens `MAX_RESULT_DEPTH` levels, objects on even levels and arrays on odd ones,
    /// each after one item; returns what it wrote.
    fn open_deepest(w: &mut ResultWriter<'_>) -> std::string::String {
        let mut wrote = std::string::String::new();
        for level in 0..MAX_RESULT_DEPTH {
            if level % 2 == 0 {
                w.begin_object().unwrap();
                w.key("k").unwrap();
                wrote.push_str(r#"{"k":"#);
            } else {
                w.begin_array().unwrap();
                w.i64(0).unwrap();
                wrote.push_str("[0,");
            }
        }
        wrote
    }

    #[test]
    fn the_deepest_result_closes_back_to_every_level() {
        let mut buf = [0u8; 512];
        let mut w = ResultWriter::new(&mut buf);
        open_deepest(&mut w);
        assert_eq!(
            w.begin_array(),
            Err(WriteError::Misuse),
            "one level too deep"
        );

        let mut w = ResultWriter::new(&mut buf);
        let mut want = open_deepest(&mut w);
        w.null().unwrap();
        want.push_str("null");
        for level in (0..MAX_RESULT_DEPTH).rev() {
            w.end().unwrap();
            want.push(if level % 2 == 0 { '}' } else { ']' });
        }
        assert_eq!(w.finish_value(), Ok(true));
        assert_eq!(core::str::from_utf8(w.written()).unwrap(), want);
    }

    #[test]
    fn narrow_division_by_ten_is_exact() {
        let mut v: u64 = 0x9E37_79B9_7F4A_7C15;
        let edges = [
            0,
            9,
            10,
            11,
            u32::MAX as u64,
            u32::MAX as u64 + 1,
            u64::MAX - 1,
            u64::MAX,
        ];
        for x in edges.into_iter().chain((0..200_000).map(|_| {
            // xorshift: spread over the whole range and every magnitude.
            v ^= v << 13;
            v ^= v >> 7;
            v ^= v << 17;
            v >> (v % 64)
        })) {
            assert_eq!(div10_narrow(x), (x / 10, (x % 10) as u8), "{x}");
        }
    }

    #[test]
    fn numbers_and_escapes() {
        let mut buf = [0u8; 128];
        let mut w = ResultWriter::new(&mut buf);
        w.begin_array().unwrap();
        w.i64(i64::MIN).unwrap();
        w.u64(u64::MAX).unwrap();
        w.i64(0).unwrap();
        w.str("\u{1}\n\"é").unwrap();
        w.end().unwrap();
        assert_eq!(w.finish_value(), Ok(true));
        assert_eq!(
            core::str::from_utf8(w.written()).unwrap(),
            "[-9223372036854775808,18446744073709551615,0,\"\\u0001\\n\\\"é\"]"
        );
    }

    #[test]
    fn a_number_fits_whole_or_not_at_all() {
        for room in 0..6 {
            let mut buf = [0u8; 8];
            let mut w = ResultWriter::new(&mut buf[..room]);
            assert_eq!(w.i64(-12345), Err(WriteError::BufferFull), "room {room}");
            assert_eq!(w.written(), b"", "room {room}");
        }
        let mut buf = [0u8; 6];
        let mut w = ResultWriter::new(&mut buf);
        assert_eq!(w.i64(-12345), Ok(()));
        assert_eq!(w.written(), b"-12345");
    }

    /// The compact build's `push_any` (and `push_one`, and `push_array` through it)
    /// against the fast build's `push` and `push_array`, both compiled here: the same
    /// bytes written, the same answer, the same full flag, in every room left, live or
    /// not. Line breaks included: only `json` drops them, not the byte sink.
    #[test]
    fn push_any_is_push() {
        let inputs: [&[u8]; 7] = [
            b"",
            b"a",
            b"ab",
            b"abc",
            b"a\nb\r\n",
            b"\n",
            b"0123456789abcdef",
        ];
        for bytes in inputs {
            for room in 0..20 {
                for live in [true, false] {
                    let mut one = [0u8; 20];
                    let mut two = [0u8; 20];
                    let mut fast = ResultWriter::new(&mut one[..room]);
                    let mut compact = ResultWriter::new(&mut two[..room]);
                    fast.set_live(live);
                    compact.set_live(live);
                    let what = (bytes, room, live);
                    assert_eq!(fast.push(bytes), compact.push_any(bytes), "{what:?}");
                    assert_eq!(fast.written(), compact.written(), "{what:?}");
                    assert_eq!(fast.overflowed(), compact.overflowed(), "{what:?}");
                    if let Some(&b) = bytes.first() {
                        assert_eq!(fast.push_byte(b), compact.push_one(b), "{what:?}");
                        assert_eq!(fast.written(), compact.written(), "{what:?}");
                    }
                    if let Ok(array) = <[u8; 3]>::try_from(bytes) {
                        assert_eq!(
                            fast.push_array(&array),
                            compact.push_any(&array),
                            "{what:?}"
                        );
                        assert_eq!(fast.written(), compact.written(), "{what:?}");
                    }
                    assert_eq!(fast.overflowed(), compact.overflowed(), "{what:?}");
                }
            }
        }
    }

    /// `json` in both builds (`json_runs`, fast; `copy` dropping line breaks,
    /// compact), both compiled here: the same bytes, answer and full flag.
    #[test]
    fn both_json_copies_agree() {
        let inputs: [&[u8]; 6] = [
            b"",
            b"1",
            b"[1,\n2]",
            b"{\r\n  \"a\": [\n1,\r2\n]\n}",
            b"\n\n",
            b"[\"x\"]",
        ];
        for bytes in inputs {
            for room in 0..24 {
                for live in [true, false] {
                    let mut one = [0u8; 24];
                    let mut two = [0u8; 24];
                    let mut fast = ResultWriter::new(&mut one[..room]);
                    let mut compact = ResultWriter::new(&mut two[..room]);
                    fast.set_live(live);
                    compact.set_live(live);
                    let what = (bytes, room, live);
                    assert_eq!(fast.json_runs(bytes), compact.copy(bytes, true), "{what:?}");
                    assert_eq!(fast.written(), compact.written(), "{what:?}");
                    assert_eq!(fast.overflowed(), compact.overflowed(), "{what:?}");
                    assert!(!fast.written().iter().any(|&b| b == b'\n' || b == b'\r'));
                }
            }
        }
    }

    #[test]
    fn each_push_fits_whole_or_sets_the_flag() {
        let mut buf = [0u8; 4];
        let mut w = ResultWriter::new(&mut buf);
        assert_eq!(w.str("abc"), Err(WriteError::BufferFull));
        assert!(w.overflowed());
        assert_eq!(w.written(), b"\"abc");
    }

    // ---- the writer against a naive model of its rules -----------------------------

    use proptest::prelude::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    /// One call on the handler's API (`Str` is `str`: start, push, end at once).
    #[derive(Clone, Debug)]
    enum Op {
        Array,
        Object,
        End,
        Key(String),
        Int(i64),
        Uint(u64),
        Bool(bool),
        Null,
        Str(String),
        Raw(&'static str),
        Start,
        Push(String),
        Stop,
    }

    fn op() -> impl Strategy<Value = Op> {
        // Short strings with the characters that need escaping.
        let text = "[a\"\\\n\u{1}\u{1f}é]{0,4}";
        prop_oneof![
            3 => Just(Op::Array),
            3 => Just(Op::Object),
            4 => Just(Op::End),
            4 => text.prop_map(Op::Key),
            2 => any::<i64>().prop_map(Op::Int),
            1 => any::<u64>().prop_map(Op::Uint),
            1 => any::<bool>().prop_map(Op::Bool),
            1 => Just(Op::Null),
            2 => text.prop_map(Op::Str),
            1 => prop::sample::select(&["1", "[1,2]", "{\"a\":null}", "\"x\""][..]).prop_map(Op::Raw),
            1 => Just(Op::Start),
            1 => text.prop_map(Op::Push),
            1 => Just(Op::Stop),
        ]
    }

    /// The rules, kept the plain way: a stack of open levels.
    #[derive(Default)]
    struct Model {
        /// Per open level: an object?, holds an item already?
        levels: Vec<(bool, bool)>,
        after_key: bool,
        in_string: bool,
        done: bool,
        out: String,
    }

    impl Model {
        fn value_may_start(&self) -> bool {
            !self.in_string
                && match self.levels.last() {
                    None => !self.done,
                    Some(&(object, _)) => !object || self.after_key,
                }
        }

        /// Before a value: its comma, or the end of the key it follows.
        fn start_value(&mut self) {
            if let Some((object, items)) = self.levels.last_mut() {
                if *object {
                    self.after_key = false;
                } else {
                    if *items {
                        self.out.push(',');
                    }
                    *items = true;
                }
            }
        }

        fn end_value(&mut self) {
            if self.levels.is_empty() {
                self.done = true;
            }
        }

        fn escape(&mut self, s: &str) {
            for c in s.chars() {
                match c {
                    '"' => self.out.push_str("\\\""),
                    '\\' => self.out.push_str("\\\\"),
                    '\n' => self.out.push_str("\\n"),
                    '\r' => self.out.push_str("\\r"),
                    '\t' => self.out.push_str("\\t"),
                    c if (c as u32) < 0x20 => {
                        self.out.push_str(&std::format!("\\u{:04x}", c as u32))
                    }
                    c => self.out.push(c),
                }
            }
        }

        /// Applies `op` if the rules allow it; `false` if they do not.
        fn apply(&mut self, op: &Op) -> bool {
            match op {
                Op::Array | Op::Object => {
                    if !self.value_may_start() || self.levels.len() >= MAX_RESULT_DEPTH as usize {
                        return false;
                    }
                    self.start_value();
                    let object = matches!(op, Op::Object);
                    self.out.push(if object { '{' } else { '[' });
                    self.levels.push((object, false));
                }
                Op::End => {
                    if self.in_string || self.after_key {
                        return false;
                    }
                    let Some((object, _)) = self.levels.pop() else {
                        return false;
                    };
                    self.out.push(if object { '}' } else { ']' });
                    self.end_value();
                }
                Op::Key(k) => {
                    let Some((true, items)) = self.levels.last_mut() else {
                        return false;
                    };
                    if self.in_string || self.after_key {
                        return false;
                    }
                    if *items {
                        self.out.push(',');
                    }
                    *items = true;
                    self.out.push('"');
                    self.escape(k);
                    self.out.push_str("\":");
                    self.after_key = true;
                }
                Op::Int(_) | Op::Uint(_) | Op::Bool(_) | Op::Null | Op::Raw(_) | Op::Str(_) => {
                    if !self.value_may_start() {
                        return false;
                    }
                    self.start_value();
                    match op {
                        Op::Int(n) => self.out.push_str(&std::format!("{n}")),
                        Op::Uint(n) => self.out.push_str(&std::format!("{n}")),
                        Op::Bool(b) => self.out.push_str(&std::format!("{b}")),
                        Op::Null => self.out.push_str("null"),
                        Op::Raw(r) => self.out.push_str(r),
                        Op::Str(s) => {
                            self.out.push('"');
                            self.escape(s);
                            self.out.push('"');
                        }
                        _ => unreachable!(),
                    }
                    self.end_value();
                }
                Op::Start => {
                    if !self.value_may_start() {
                        return false;
                    }
                    self.start_value();
                    self.out.push('"');
                    self.in_string = true;
                }
                Op::Push(s) => {
                    if !self.in_string {
                        return false;
                    }
                    self.escape(s);
                }
                Op::Stop => {
                    if !self.in_string {
                        return false;
                    }
                    self.out.push('"');
                    self.in_string = false;
                    self.end_value();
                }
            }
            true
        }
    }

    fn call(w: &mut ResultWriter<'_>, op: &Op) -> Result<(), WriteError> {
        match op {
            Op::Array => w.begin_array(),
            Op::Object => w.begin_object(),
            Op::End => w.end(),
            Op::Key(k) => w.key(k),
            Op::Int(n) => w.i64(*n),
            Op::Uint(n) => w.u64(*n),
            Op::Bool(b) => w.bool(*b),
            Op::Null => w.null(),
            Op::Str(s) => w.str(s),
            Op::Raw(r) => w.raw(RawJson::new(r.as_bytes()).unwrap()),
            Op::Start => w.string_start(),
            Op::Push(s) => w.string_push(s),
            Op::Stop => w.string_end(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Every call the rules allow succeeds and writes what the model writes; a
        /// call they do not allow is refused as `Misuse`. The calls not allowed are
        /// skipped but for the `probe`-th one, so that most runs build long values.
        #[test]
        fn writer_follows_a_naive_model(
            ops in prop::collection::vec(op(), 0..120),
            probe in 0usize..40,
        ) {
            let mut buf = vec![0u8; 1 << 16];
            let mut w = ResultWriter::new(&mut buf);
            w.begin_value();
            let mut model = Model::default();
            let (mut skipped, mut refused) = (0, false);
            for op in &ops {
                if model.apply(op) {
                    prop_assert_eq!(call(&mut w, op), Ok(()), "{:?} after {}", op, model.out);
                } else if skipped == probe {
                    let got = call(&mut w, op);
                    prop_assert_eq!(got, Err(WriteError::Misuse), "{:?} after {}", op, model.out);
                    refused = true;
                    break;
                } else {
                    skipped += 1;
                }
            }
            let expected = if refused || model.in_string || !model.levels.is_empty() {
                Err(WriteError::Misuse)
            } else {
                Ok(model.done)
            };
            prop_assert_eq!(w.finish_value(), expected);
            if !refused {
                prop_assert_eq!(core::str::from_utf8(w.written()).unwrap(), model.out.as_str());
            }
        }
    }
}
