//! Writing requests and notifications, one at a time or as a batch, with the same
//! checked writer the server replies with.

use super::id::{write_id, RequestId};
use crate::write::{ResultWriter, WriteError};

/// Writes a request into `out`: `{"jsonrpc":"2.0","method":...,"params":...,"id":...}`.
///
/// `params` writes the params through a [`ResultWriter`]: an array or an object (raw,
/// built value by value, or serialized with the `serde` feature), or nothing to leave
/// the member out. Anything else (a scalar, an incomplete value) is refused with
/// [`WriteError::Misuse`]; a message that does not fit is [`WriteError::BufferFull`].
/// Returns the message.
///
/// ```
/// use jsonrpc_slice::client::{write_request, RequestId};
/// use jsonrpc_slice::RawJson;
///
/// let mut buf = [0u8; 128];
/// let msg = write_request(&mut buf, RequestId::Number(1), "subtract", |p| {
///     p.begin_array()?;
///     p.i64(42)?;
///     p.i64(23)?;
///     p.end()
/// })?;
/// assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#);
///
/// let params = RawJson::new(br#"{"name":"myself"}"#).unwrap();
/// let msg = write_request(&mut buf, RequestId::Str("5"), "foo.get", |p| p.raw(params))?;
/// assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"}"#);
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
pub fn write_request<'o>(
    out: &'o mut [u8],
    id: RequestId<'_>,
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<&'o [u8], WriteError> {
    write_message(out, Some(id), method, params)
}

/// Writes a notification (a request without an id: it gets no reply) into `out`.
///
/// ```
/// use jsonrpc_slice::client::write_notification;
///
/// let mut buf = [0u8; 64];
/// let msg = write_notification(&mut buf, "update", |_| Ok(()))?;
/// assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"update"}"#);
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
pub fn write_notification<'o>(
    out: &'o mut [u8],
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<&'o [u8], WriteError> {
    write_message(out, None, method, params)
}

fn write_message<'o>(
    out: &'o mut [u8],
    id: Option<RequestId<'_>>,
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<&'o [u8], WriteError> {
    let mut w = ResultWriter::new(out);
    message(&mut w, id, method, params)?;
    Ok(w.into_written())
}

/// Appends one request or notification object to `w`.
pub(crate) fn message(
    w: &mut ResultWriter<'_>,
    id: Option<RequestId<'_>>,
    method: &str,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    w.push(b"{\"jsonrpc\":\"2.0\",\"method\":\"")?;
    w.escaped(method)?;
    w.push_byte(b'"')?;
    let mark = w.mark();
    if w.push(b",\"params\":").is_err() {
        // No room for params, but the message may have none: ask with no room at all,
        // so that any write of the params fails.
        w.rollback(mark);
        let end = w.set_end(mark);
        w.begin_value();
        let asked = params(w).and_then(|()| w.finish_value());
        w.set_end(end);
        match asked {
            Ok(false) => w.rollback(mark),
            Ok(true) | Err(_) => return Err(WriteError::BufferFull),
        }
    } else {
        structured_params(w, mark, params)?;
    }
    if let Some(id) = id {
        w.push(b",\"id\":")?;
        write_id(w, id)?;
    }
    w.push_byte(b'}')
}

/// Writes the params after `,"params":` (written from `mark` on), or takes that back
/// when `params` writes nothing.
fn structured_params(
    w: &mut ResultWriter<'_>,
    mark: usize,
    params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let value_start = w.mark();
    w.begin_value();
    params(w)?;
    if w.overflowed() {
        return Err(WriteError::BufferFull);
    }
    if !w.finish_value()? {
        w.rollback(mark);
    } else if !matches!(w.written().get(value_start), Some(b'[' | b'{')) {
        // Params must be structured: an array or an object.
        return Err(WriteError::Misuse);
    }
    Ok(())
}

/// A batch of requests and notifications, written into a fixed buffer one call at a
/// time: `[call,call,...]`.
///
/// Each call is written whole or not at all: one that does not fit (or whose params
/// are refused) is rolled back and its error returned, and the batch written so far
/// stays valid, with room kept for its closing `]`. [`finish`](Self::finish) closes it;
/// an empty batch (which the specification answers with an error) is refused.
///
/// ```
/// use jsonrpc_slice::client::{BatchWriter, RequestId};
///
/// let mut buf = [0u8; 160];
/// let mut batch = BatchWriter::new(&mut buf);
/// batch.request(RequestId::Number(1), "sum", |p| {
///     p.begin_array()?;
///     p.i64(1)?;
///     p.i64(2)?;
///     p.end()
/// })?;
/// batch.notification("update", |_| Ok(()))?;
/// assert_eq!(batch.len(), 2);
/// let msg = batch.finish()?;
/// assert_eq!(
///     msg,
///     br#"[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1},{"jsonrpc":"2.0","method":"update"}]"#
/// );
/// # Ok::<(), jsonrpc_slice::WriteError>(())
/// ```
pub struct BatchWriter<'o> {
    w: ResultWriter<'o>,
    calls: usize,
}

impl<'o> BatchWriter<'o> {
    /// An empty batch that will be written into `out`.
    pub fn new(out: &'o mut [u8]) -> Self {
        Self {
            w: ResultWriter::new(out),
            calls: 0,
        }
    }

    /// Appends a request (see [`write_request`]).
    pub fn request(
        &mut self,
        id: RequestId<'_>,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        self.call(Some(id), method, params)
    }

    /// Appends a notification (see [`write_notification`]).
    pub fn notification(
        &mut self,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        self.call(None, method, params)
    }

    /// The calls in the batch so far.
    pub fn len(&self) -> usize {
        self.calls
    }

    /// `true` before the first call.
    pub fn is_empty(&self) -> bool {
        self.calls == 0
    }

    /// Closes the batch and returns it; an empty batch is refused with
    /// [`WriteError::Misuse`].
    pub fn finish(mut self) -> Result<&'o [u8], WriteError> {
        if self.calls == 0 {
            return Err(WriteError::Misuse);
        }
        // Room for it was kept by every call.
        self.w.push_byte(b']')?;
        Ok(self.w.into_written())
    }

    fn call(
        &mut self,
        id: Option<RequestId<'_>>,
        method: &str,
        params: impl FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        let mark = self.w.mark();
        let written = self
            .w
            .push_byte(if self.calls == 0 { b'[' } else { b',' })
            .and_then(|()| message(&mut self.w, id, method, params))
            .and_then(|()| match self.w.remaining() {
                0 => Err(WriteError::BufferFull),
                _ => Ok(()),
            });
        match written {
            Ok(()) => {
                self.calls += 1;
                Ok(())
            }
            Err(e) => {
                self.w.rollback(mark);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_keeps_what_fits_and_room_to_close() {
        let one = br#"{"jsonrpc":"2.0","method":"m","id":1}"#.len();
        // Room for `[`, one call and `]`, but not for `,` and a second call.
        let mut buf = [0u8; 64];
        let size = one + 2;
        let b = BatchWriter::new(&mut buf[..size]);
        assert_eq!(b.finish().err(), Some(WriteError::Misuse));
        let mut b = BatchWriter::new(&mut buf[..size]);
        b.request(RequestId::Number(1), "m", |_| Ok(())).unwrap();
        let second = b.request(RequestId::Number(2), "m", |_| Ok(()));
        assert_eq!(second, Err(WriteError::BufferFull));
        assert_eq!(b.len(), 1);
        let msg = b.finish().unwrap();
        assert_eq!(msg, br#"[{"jsonrpc":"2.0","method":"m","id":1}]"#);
        // Params that are refused roll back too.
        let mut b = BatchWriter::new(&mut buf);
        assert_eq!(b.notification("n", |p| p.i64(1)), Err(WriteError::Misuse));
        b.notification("n", |_| Ok(())).unwrap();
        assert_eq!(b.finish().unwrap(), br#"[{"jsonrpc":"2.0","method":"n"}]"#);
        // A call that fits but leaves no room for `]` is refused.
        let mut b = BatchWriter::new(&mut buf[..one + 1]);
        assert_eq!(
            b.request(RequestId::Number(1), "m", |_| Ok(())),
            Err(WriteError::BufferFull)
        );
        assert!(b.is_empty());
    }

    #[test]
    fn requests_refuse_scalar_params() {
        let mut buf = [0u8; 64];
        assert_eq!(
            write_request(&mut buf, RequestId::Number(1), "m", |p| p.i64(1)),
            Err(WriteError::Misuse)
        );
        assert_eq!(
            write_request(&mut [0u8; 20], RequestId::Number(1), "m", |_| Ok(())),
            Err(WriteError::BufferFull)
        );
        // A message without params fits a buffer of exactly its size; with params it
        // does not.
        let exact = br#"{"jsonrpc":"2.0","method":"m","id":1}"#;
        let mut room = [0u8; 37];
        assert_eq!(room.len(), exact.len());
        let msg = write_request(&mut room, RequestId::Number(1), "m", |_| Ok(()));
        assert_eq!(msg, Ok(&exact[..]));
        let msg = write_request(&mut room, RequestId::Number(1), "m", |p| p.begin_array());
        assert_eq!(msg, Err(WriteError::BufferFull));
        let msg = write_request(&mut buf, RequestId::Str("a\"b"), "m\n", |_| Ok(())).unwrap();
        assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"m\n","id":"a\"b"}"#);
    }
}
