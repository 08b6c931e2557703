//! What a request is made of before it is written: its method, its id (minted or
//! given), its deadline and its tag ([`Call`]), and its params ([`ToParams`]).

use super::id::RequestId;
use crate::raw::RawJson;
use crate::write::{ResultWriter, WriteError};

/// One call to make: the method, and optionally the id to send (otherwise the client
/// mints the next number), a deadline (an instant of the client's clock, after which
/// the call times out) and a tag of yours (kept with the call, read back with
/// [`Client::tag`](super::Client::tag)). A method name alone converts into one.
///
/// ```
/// use jsonrpc_slice::client::{Call, RequestId};
///
/// let call: Call<'_, u64> = Call::new("eth_blockNumber").deadline(1_500).id(RequestId::Str("block"));
/// let tagged = Call::<u64>::new("eth_chainId").tag(7u8);
/// # let _ = (call, tagged);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Call<'a, I = u64, G = ()> {
    pub(crate) method: &'a str,
    pub(crate) id: Option<RequestId<'a>>,
    pub(crate) deadline: Option<I>,
    pub(crate) tag: G,
}

impl<'a, I> Call<'a, I, ()> {
    /// A call of `method`, with a minted id, no deadline and no tag.
    pub const fn new(method: &'a str) -> Self {
        Self {
            method,
            id: None,
            deadline: None,
            tag: (),
        }
    }
}

impl<'a, I, G> Call<'a, I, G> {
    /// Sends this id instead of a minted one (refused if a call in flight has it).
    pub fn id(mut self, id: RequestId<'a>) -> Self {
        self.id = Some(id);
        self
    }

    /// The instant after which the call times out (see
    /// [`Client::expire`](super::Client::expire)).
    pub fn deadline(mut self, at: I) -> Self {
        self.deadline = Some(at);
        self
    }

    /// Keeps `tag` with the call.
    pub fn tag<H>(self, tag: H) -> Call<'a, I, H> {
        Call {
            method: self.method,
            id: self.id,
            deadline: self.deadline,
            tag,
        }
    }
}

impl<'a, I> From<&'a str> for Call<'a, I, ()> {
    fn from(method: &'a str) -> Self {
        Self::new(method)
    }
}

/// A request's params: none (`()`), raw JSON (an array or an object), or a closure
/// that writes them through a [`ResultWriter`] (built value by value, or
/// `p.serialize(&value)` with the `serde` feature; wrap it in [`params`] so that its
/// argument's type is inferred). Anything but an array or an object is refused with
/// [`WriteError::Misuse`] when the request is written.
pub trait ToParams {
    /// Writes the params (or nothing, to leave the member out).
    fn write_params(self, w: &mut ResultWriter<'_>) -> Result<(), WriteError>;
}

impl ToParams for () {
    fn write_params(self, _: &mut ResultWriter<'_>) -> Result<(), WriteError> {
        Ok(())
    }
}

impl ToParams for RawJson<'_> {
    fn write_params(self, w: &mut ResultWriter<'_>) -> Result<(), WriteError> {
        w.raw(self)
    }
}

impl<F: FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>> ToParams for F {
    fn write_params(self, w: &mut ResultWriter<'_>) -> Result<(), WriteError> {
        self(w)
    }
}

/// The params a closure writes (see [`ToParams`]): `params(|p| p.serialize(&(1, 2)))`.
/// Only there to tell the compiler the closure's argument type.
///
/// ```
/// use jsonrpc_slice::client::{params, Client};
///
/// let mut client: Client<1, 64> = Client::new();
/// let mut out = [0u8; 64];
/// let (_, msg) = client.request::<i64>(&mut out, "sum", params(|p| {
///     p.begin_array()?;
///     p.i64(1)?;
///     p.end()
/// }))?;
/// assert_eq!(msg, br#"{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}"#);
/// # Ok::<(), jsonrpc_slice::client::SendError>(())
/// ```
pub fn params<F: FnOnce(&mut ResultWriter<'_>) -> Result<(), WriteError>>(f: F) -> F {
    f
}
