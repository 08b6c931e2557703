//! The envelope of replies: the success reply around a handler's result, the error
//! replies, and the error a handler makes at run time.

use core::fmt;

use super::{ResultWriter, WriteError};
use crate::id::Id;
use crate::raw::RawJson;

/// The `message` of an error reply: a text, optionally completed by a number and a
/// tail (`"Parse error: nesting deeper than "`, `128`, `""`).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Message<'m> {
    pub(crate) text: &'m str,
    pub(crate) detail: Option<(usize, &'static str)>,
}

impl<'m> Message<'m> {
    /// A message that is `text` alone.
    pub(crate) const fn plain(text: &'m str) -> Self {
        Self { text, detail: None }
    }

    /// `text`, then `number` in decimal, then `tail`.
    pub(crate) const fn with(text: &'m str, number: usize, tail: &'static str) -> Self {
        Self {
            text,
            detail: Some((number, tail)),
        }
    }
}

impl ResultWriter<'_> {
    /// Writes an id as received.
    pub(crate) fn id(&mut self, id: Id<'_>) -> Result<(), WriteError> {
        self.push(id.as_bytes())
    }

    /// Writes a whole error reply: `{"jsonrpc":"2.0","error":{...},"id":...}`, and
    /// returns its code.
    pub(crate) fn error_reply(
        &mut self,
        id: Id<'_>,
        code: i32,
        message: Message<'_>,
        data: Option<RawJson<'_>>,
    ) -> Result<i32, WriteError> {
        self.push_array(b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":")?;
        self.code_digits(code)?;
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
        // The code given back: the last push is then no tail call, which on RISC-V
        // would keep this function from the shared register save and restore
        // (`+save-restore`, examples/firmware's README).
        self.push_byte(b'}').map(|()| code)
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
        self.push_between(b",\"id\":", id.as_bytes(), b"}")
    }

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
}
