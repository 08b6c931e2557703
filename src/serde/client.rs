//! Typed outcomes of the client's calls: [`Client::take`], [`Connection::call`].

use serde::Deserialize;

use crate::client::{
    Call, CallError, Client, Clock, Connection, ConnectionError, Handle, ToParams,
};
use crate::frame::Framer;
use crate::io::{AsyncStream, Stream};

impl<const N: usize, const B: usize, I, G> Client<N, B, I, G> {
    /// Takes `handle`'s outcome: its result decoded as `T` (strings with escapes
    /// decoded into the client's free reply room), or why there is none
    /// ([`CallError::Decode`] names the member or element that did not fit). `None`
    /// while it waits; once taken, the handle is stale.
    ///
    /// ```
    /// use jsonrpc_slice::client::{CallError, Client};
    ///
    /// let mut client: Client<4, 256> = Client::new();
    /// let mut out = [0u8; 128];
    /// let (height, _) = client.request::<(u64, String)>(&mut out, "height", ())?;
    /// let (other, _) = client.request::<u64>(&mut out, "height", ())?;
    /// client.receive(br#"{"jsonrpc":"2.0","result":[16,"0x\u0061b"],"id":1}"#, 0, |_| {});
    /// client.receive(br#"{"jsonrpc":"2.0","result":"16","id":2}"#, 0, |_| {});
    /// assert_eq!(client.take(&height), Some(Ok((16, "0xab".to_string()))));
    /// let Some(Err(CallError::Decode(e))) = client.take(&other) else { panic!() };
    /// assert_eq!(CallError::Decode(e).to_string(), "the result did not decode: expected an integer");
    /// # Ok::<(), jsonrpc_slice::client::SendError>(())
    /// ```
    pub fn take<'s, T: Deserialize<'s>>(
        &'s mut self,
        handle: &Handle<T>,
    ) -> Option<Result<T, CallError<'s>>> {
        Some(match self.take_parts(handle)? {
            Ok((result, scratch)) => result
                .decode_with_scratch(scratch)
                .map_err(CallError::Decode),
            Err(e) => Err(e),
        })
    }
}

impl<F, C, const N: usize, const B: usize, G> Connection<'_, F, C, N, B, G>
where
    F: Framer + ?Sized,
    C: Clock,
    C::Instant: Copy + Ord,
{
    /// Sends a call and waits for it (see [`Connection::wait`]): its result decoded
    /// as `T`, or why there is none.
    pub fn call<'s, 'c, T, V, IO>(
        &'s mut self,
        io: &mut IO,
        call: impl Into<Call<'c, C::Instant, G>>,
        params: impl ToParams,
    ) -> Result<T, ConnectionError<'s, IO::ReadError, IO::WriteError>>
    where
        T: Deserialize<'s>,
        IO: Stream<V> + ?Sized,
    {
        let handle = self.send::<T, V, IO>(io, call, params)?;
        self.wait(io, &handle)?;
        typed(self.client().take(&handle))
    }

    /// [`call`](Self::call) over an async stream.
    pub async fn call_async<'s, 'c, T, V, IO>(
        &'s mut self,
        io: &mut IO,
        call: impl Into<Call<'c, C::Instant, G>>,
        params: impl ToParams,
    ) -> Result<T, ConnectionError<'s, IO::ReadError, IO::WriteError>>
    where
        T: Deserialize<'s>,
        IO: AsyncStream<V> + ?Sized,
    {
        let handle = self.send_async::<T, V, IO>(io, call, params).await?;
        self.wait_async(io, &handle).await?;
        typed(self.client().take(&handle))
    }
}

/// A waited call's outcome (`wait` returns once it is resolved).
fn typed<'s, T, R, W>(
    taken: Option<Result<T, CallError<'s>>>,
) -> Result<T, ConnectionError<'s, R, W>> {
    Ok(taken.unwrap_or(Err(CallError::Stale))?)
}
