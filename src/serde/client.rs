//! Typed outcomes of the client's calls: [`Client::take`].

use serde::Deserialize;

use crate::client::{CallError, Client, Handle};

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
    /// assert_eq!(e.to_string(), "Invalid params: expected an integer");
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
