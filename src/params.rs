//! Params: what a handler gets to read its arguments from, and the call they came
//! with.

use crate::id::Id;
use crate::raw::{Elements, Kind, Members, RawJson, Step};

/// The `params` of a request, as a borrowed raw JSON view: an array (positional), an
/// object (named), or absent. Nothing is decoded until asked for.
///
/// A handler's `Params` also carry the id of the call they came with
/// ([`id`](Self::id); none for a notification), for progress tokens, cancellation and
/// logs. (A handler knows its method's name; a fallback handler, which serves the
/// names a table lacks, is given it: see [`Server::with_fallback`](crate::Server::with_fallback).)
///
/// ```
/// use jsonrpc_slice::{Params, RawJson};
///
/// let named = Params::new(Some(RawJson::new(br#"{"minuend": 42, "subtrahend": 23}"#)?));
/// assert_eq!(named.get("minuend").and_then(|v| v.as_i64()), Some(42));
/// let positional = Params::new(Some(RawJson::new(b"[42, 23]")?));
/// assert_eq!(positional.nth(1).and_then(|v| v.as_i64()), Some(23));
/// assert!(Params::new(None).is_absent());
/// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Params<'a> {
    raw: Option<RawJson<'a>>,
    id: Option<Id<'a>>,
}

impl<'a> Params<'a> {
    /// Params from a raw value (an array or an object), or none, outside any call:
    /// no id, and an empty method name.
    pub const fn new(raw: Option<RawJson<'a>>) -> Self {
        Self { raw, id: None }
    }

    /// The params of a call with `id` (none: a notification).
    pub const fn of_call(raw: Option<RawJson<'a>>, id: Option<Id<'a>>) -> Self {
        Self { raw, id }
    }

    /// The id of the call, exactly as received; `None` for a notification (whose
    /// result and errors are dropped).
    ///
    /// ```
    /// use jsonrpc_slice::{method_table, Params, ResultWriter, RpcError, Server};
    ///
    /// // Echoes the request's id back as its result.
    /// fn whoami<'p>(_: &mut (), p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    ///     Ok(out.raw(p.id().expect("a call").as_raw())?)
    /// }
    /// static SERVER: Server<()> = Server::new(method_table! { "whoami" => whoami });
    /// let mut out = [0u8; 64];
    /// let reply = SERVER.handle(&mut (), br#"{"jsonrpc":"2.0","method":"whoami","id":"a-1"}"#, &mut out)?;
    /// assert_eq!(reply, br#"{"jsonrpc":"2.0","result":"a-1","id":"a-1"}"#);
    /// # Ok::<(), jsonrpc_slice::OutputTooSmall>(())
    /// ```
    pub const fn id(&self) -> Option<Id<'a>> {
        self.id
    }

    /// `true` for a notification: a call without an id, never answered.
    pub const fn is_notification(&self) -> bool {
        self.id.is_none()
    }

    /// The params exactly as received, if present.
    pub const fn raw(&self) -> Option<RawJson<'a>> {
        self.raw
    }

    /// `true` if the request had no `params` member.
    pub const fn is_absent(&self) -> bool {
        self.raw.is_none()
    }

    /// `true` if the params are an array.
    pub fn is_positional(&self) -> bool {
        self.raw.is_some_and(|r| r.kind() == Kind::Array)
    }

    /// `true` if the params are an object.
    pub fn is_named(&self) -> bool {
        self.raw.is_some_and(|r| r.kind() == Kind::Object)
    }

    /// The named param `name` (escapes in keys decoded), if the params are an object
    /// that has it.
    ///
    /// Each call walks the object from its start: reading `N` params with `get` costs
    /// `N` walks. A handler that reads many reads them in one pass with
    /// [`named`](Self::named).
    pub fn get(&self, name: &str) -> Option<RawJson<'a>> {
        self.raw?.get(name)
    }

    /// The positional param at `index`, if the params are an array that long.
    ///
    /// Each call walks the array from its start, as [`get`](Self::get) does; one pass
    /// over them all is [`positional`](Self::positional).
    pub fn nth(&self, index: usize) -> Option<RawJson<'a>> {
        self.raw?.nth(index)
    }

    /// The value at `path` inside the params, in one walk ([`RawJson::at`]): each byte
    /// passed at most once, where a chain of [`get`](Self::get) and [`nth`](Self::nth)
    /// calls passes the inner levels once per level.
    ///
    /// ```
    /// use jsonrpc_slice::raw::Step::{Index, Key};
    /// use jsonrpc_slice::{Params, RawJson};
    ///
    /// let p = Params::new(Some(RawJson::new(br#"{"contentChanges": [{"text": "hi"}]}"#)?));
    /// let text = p.at(&[Key("contentChanges"), Index(0), Key("text")]).and_then(|t| t.as_str());
    /// assert!(text.is_some_and(|t| t.eq_str("hi")));
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn at(&self, path: &[Step<'_>]) -> Option<RawJson<'a>> {
        self.raw?.at(path)
    }

    /// The member `key` of the params' `_meta` object, read where it is (nothing else
    /// of the params is decoded): the metadata a protocol carries beside a call's
    /// arguments (MCP's progress token, protocol version and client capabilities).
    /// `None` if the params are not an object, have no `_meta` object, or it has no
    /// such member. One walk, as [`at`](Self::at).
    ///
    /// ```
    /// use jsonrpc_slice::{Params, RawJson};
    ///
    /// let p = Params::new(Some(RawJson::new(br#"{"name": "add", "_meta": {
    ///     "io.modelcontextprotocol/protocolVersion": "2026-07-28", "progressToken": 7}}"#)?));
    /// let version = p.meta("io.modelcontextprotocol/protocolVersion").and_then(|v| v.as_str());
    /// assert!(version.is_some_and(|v| v.eq_str("2026-07-28")));
    /// assert_eq!(p.meta("progressToken").and_then(|t| t.as_i64()), Some(7));
    /// assert_eq!(p.meta("absent"), None);
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn meta(&self, key: &str) -> Option<RawJson<'a>> {
        self.at(&[Step::Key("_meta"), Step::Key(key)])
    }

    /// The positional params in order (empty unless the params are an array), in one
    /// pass; [`Elements::next_i64`] reads the next one as an integer in the same step.
    pub fn positional(&self) -> Elements<'a> {
        self.raw.unwrap_or(RawJson::NULL).elements()
    }

    /// The named params in order (empty unless the params are an object), in one pass:
    /// the way to read many.
    pub fn named(&self) -> Members<'a> {
        self.raw.unwrap_or(RawJson::NULL).members()
    }
}
