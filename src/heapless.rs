//! `heapless` adapters (feature `heapless`): a reply written into a
//! `heapless::Vec<u8, N>` as well as into a slice. The one file that names
//! `heapless` types.

use heapless::Vec;

use crate::dispatch::{OutputTooSmall, Server};

impl<C> Server<C> {
    /// [`handle`](Server::handle), the reply written into `reply` (its `N` bytes of
    /// capacity are the room the reply has), replacing what it held; empty when
    /// nothing is to be sent. On `Err` it is left empty.
    ///
    /// Each call first fills the vector's whole capacity with zeros (the room must be
    /// initialised bytes, and this crate has no `unsafe` outside its SIMD loops):
    /// `N` bytes of work per
    /// message. For a large reply buffer, [`handle`](Server::handle) into a slice you
    /// keep costs nothing of the kind.
    ///
    /// ```
    /// use jsonrpc_slice::{demo, Server};
    ///
    /// static SERVER: Server<()> = Server::new(demo::TABLE);
    /// let mut reply = heapless::Vec::<u8, 128>::new();
    /// SERVER.handle_into(&mut (), br#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}"#, &mut reply)?;
    /// assert_eq!(reply.as_slice(), br#"{"jsonrpc":"2.0","result":3,"id":1}"#);
    /// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
    /// ```
    pub fn handle_into<const N: usize>(
        &self,
        ctx: &mut C,
        input: &[u8],
        reply: &mut Vec<u8, N>,
    ) -> Result<(), OutputTooSmall> {
        reply.clear();
        // The whole capacity as the room the reply has (a vector of `N` bytes holds
        // `N` bytes, so this cannot fail).
        let _ = reply.resize_default(N);
        let len = self
            .handle(ctx, input, reply.as_mut_slice())
            .map(<[u8]>::len);
        reply.truncate(*len.as_ref().unwrap_or(&0));
        len.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use crate::{demo, Server};

    #[test]
    fn a_reply_that_does_not_fit_leaves_the_vector_empty() {
        static SERVER: Server<()> = Server::new(demo::TABLE);
        let mut reply = heapless::Vec::<u8, 8>::from_slice(b"old").unwrap();
        let r = SERVER.handle_into(
            &mut (),
            br#"{"jsonrpc":"2.0","method":"sum","id":1}"#,
            &mut reply,
        );
        assert!(r.is_err());
        assert!(reply.is_empty());
        let mut reply = heapless::Vec::<u8, 64>::from_slice(b"old").unwrap();
        SERVER
            .handle_into(&mut (), br#"{"jsonrpc":"2.0","method":"sum"}"#, &mut reply)
            .unwrap();
        assert!(reply.is_empty(), "a notification: nothing to send");
    }
}
