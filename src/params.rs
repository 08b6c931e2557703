//! Params: what a handler gets to read its arguments from.

use crate::raw::{Elements, Kind, Members, RawJson};

/// The `params` of a request, as a borrowed raw JSON view: an array (positional), an
/// object (named), or absent. Nothing is decoded until asked for.
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
}

impl<'a> Params<'a> {
    /// Params from a raw value (an array or an object), or none.
    pub const fn new(raw: Option<RawJson<'a>>) -> Self {
        Self { raw }
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
    pub fn get(&self, name: &str) -> Option<RawJson<'a>> {
        self.raw?.get(name)
    }

    /// The positional param at `index`, if the params are an array that long.
    pub fn nth(&self, index: usize) -> Option<RawJson<'a>> {
        self.raw?.nth(index)
    }

    /// The positional params in order (empty unless the params are an array).
    pub fn positional(&self) -> Elements<'a> {
        self.raw.unwrap_or(RawJson::NULL).elements()
    }

    /// The named params in order (empty unless the params are an object).
    pub fn named(&self) -> Members<'a> {
        self.raw.unwrap_or(RawJson::NULL).members()
    }
}
