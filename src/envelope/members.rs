//! The envelope members of one object: which key names which member, and the slots
//! their values are recorded in as the build's reader (`read_fast.rs`,
//! `read_compact.rs`) finds them; the rules of a request (`request.rs`) and of a
//! response (`response.rs`) read them from there.

use super::{VERSION, VERSION_LEXEME};
use crate::raw::{RawJson, RawStr};

/// The envelope members of one object, as found.
#[derive(Default, Clone, Copy)]
pub(super) struct Slots<'a> {
    /// The value of each [`Member`] but `Other`, indexed by `Member as usize`.
    pub(super) values: [Option<RawJson<'a>>; 6],
    /// Bit `Member as usize` is set when that member was given twice.
    pub(super) duplicates: u8,
}

/// The envelope member a key names.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Member {
    Jsonrpc = 0,
    Method = 1,
    Params = 2,
    Id = 3,
    Result = 4,
    Error = 5,
    Other = 6,
}

/// The names of the members, in the order of [`Member`].
pub(super) const NAMES: [&str; 6] = ["jsonrpc", "method", "params", "id", "result", "error"];

/// The member at `k` in [`NAMES`] (`Other` past them).
#[inline(always)]
fn member_at(k: usize) -> Member {
    match k {
        0 => Member::Jsonrpc,
        1 => Member::Method,
        2 => Member::Params,
        3 => Member::Id,
        4 => Member::Result,
        5 => Member::Error,
        _ => Member::Other,
    }
}

/// The members of a Request object, and of a Response object, as duplicate masks.
pub(super) const REQUEST_MEMBERS: u8 = 1 << Member::Jsonrpc as u8
    | 1 << Member::Method as u8
    | 1 << Member::Params as u8
    | 1 << Member::Id as u8;
pub(super) const RESPONSE_MEMBERS: u8 = 1 << Member::Jsonrpc as u8
    | 1 << Member::Result as u8
    | 1 << Member::Error as u8
    | 1 << Member::Id as u8;

/// The member a key names, escapes decoded, compared name by name with those in
/// `names` (any other is `Other`): the compact build's way for every key, the fast
/// build's for keys with escapes (rare there). Inlined into its one caller.
#[inline(always)]
pub(super) fn member_decoded(key: RawStr<'_>, names: &[&str]) -> Member {
    names
        .iter()
        .position(|name| key.eq_str(name))
        .map_or(Member::Other, member_at)
}

impl<'a> Slots<'a> {
    /// The value of a member, if given.
    pub(super) fn get(&self, m: Member) -> Option<RawJson<'a>> {
        self.values.get(m as usize).copied().flatten()
    }

    /// Whether a member was given more than once.
    pub(super) fn duplicated(&self, m: Member) -> bool {
        self.duplicates & (1 << m as u8) != 0
    }

    /// Whether any of the members in `mask` (bit `Member as u8` each) was given more
    /// than once.
    pub(super) fn any_duplicated(&self, mask: u8) -> bool {
        self.duplicates & mask != 0
    }

    /// `jsonrpc` is present and exactly the string `"2.0"` (escapes decoded).
    #[inline(always)]
    pub(super) fn version_ok(&self) -> bool {
        match self.get(Member::Jsonrpc) {
            // As most senders write it (the fast build only: flash).
            Some(v) if cfg!(jsonrpc_slice_fast) && v.as_bytes() == VERSION_LEXEME => true,
            Some(v) => v.as_str().is_some_and(|v| v.eq_str(VERSION)),
            None => false,
        }
    }

    /// The members of `object` (validated), the names compared one by one, escapes
    /// decoded: the tests' reference reader.
    #[cfg(any(test, fuzzing))]
    pub(super) fn of_by_name(object: RawJson<'a>) -> Self {
        let mut slots = Slots::default();
        for (key, value) in object.members() {
            let m = member_decoded(key, &NAMES);
            if let Some(slot) = slots.values.get_mut(m as usize) {
                if slot.replace(value).is_some() {
                    slots.duplicates |= 1 << m as u8;
                }
            }
        }
        slots
    }
}
