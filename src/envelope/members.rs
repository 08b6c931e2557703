//! The envelope members of one object: which key names which member, and the slots
//! their values are recorded in, as the envelope's reader reports them (`object.rs`,
//! a single message) or as the trusted skipper finds them (a batch element).

use super::object::Visit;
use super::{VERSION, VERSION_LEXEME};
use crate::raw::{skip_trusted, RawJson, RawStr};
use crate::scan::{byte_at, skip_string_trusted, skip_ws, skip_ws_after_separator, FAST_PATHS};

/// The envelope members of one object, as found.
#[derive(Default)]
pub(super) struct Slots<'a> {
    /// The value of each [`Member`] but `Other`, indexed by `Member as usize`.
    values: [Option<RawJson<'a>>; 6],
    /// Bit `Member as usize` is set when that member was given twice; [`EXACT_VERSION`]
    /// when `jsonrpc` was read as [`VERSION_LEXEME`] whole.
    duplicates: u8,
}

/// [`Slots`]' flag of a `jsonrpc` read as [`VERSION_LEXEME`] whole (by the readers that
/// compare it so): the version rule then holds without reading it again. No member's
/// bit (those are 0 to 5).
const EXACT_VERSION: u8 = 1 << 7;

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
const NAMES: [&str; 6] = ["jsonrpc", "method", "params", "id", "result", "error"];
/// The first four of [`NAMES`]: the members of a Request object, all that a request's
/// reader looks for (the others are of no use to it, as any unknown key).
pub(super) const REQUEST_NAMES: [&str; 4] = [NAMES[0], NAMES[1], NAMES[2], NAMES[3]];
/// All of [`NAMES`], for a response's reader.
pub(super) const RESPONSE_NAMES: &[&str] = &NAMES;

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

/// The member a key names, escapes decoded, compared name by name: the compact
/// build's way for every key, the fast build's for keys with escapes (rare there).
// Out of line on the fast build; inlined into its one caller on the compact one.
#[cfg_attr(jsonrpc_slice_fast, cold)]
#[cfg_attr(jsonrpc_slice_fast, inline(never))]
#[cfg_attr(not(jsonrpc_slice_fast), inline(always))]
fn member_decoded(key: RawStr<'_>, names: &[&str]) -> Member {
    names
        .iter()
        .position(|name| key.eq_str(name))
        .map_or(Member::Other, member_at)
}

/// A little-endian word of up to eight bytes.
pub(super) const fn le(s: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut k = 0;
    while k < s.len() {
        w |= (s[k] as u64) << (8 * k);
        k += 1;
    }
    w
}

/// The envelope keys as most senders write them: the name, its closing quote and the
/// colon, read in one word. At the opening quote `i` of a key: the member and the
/// offset just after the colon, when the key is one of them (anything else, escapes or
/// whitespace included, goes the general way).
#[inline(always)]
fn known_key(input: &[u8], i: usize) -> Option<(Member, usize)> {
    let w = match input.get(i + 1..i + 9).and_then(|r| r.first_chunk::<8>()) {
        Some(w) => u64::from_le_bytes(*w),
        // Near the end of the input: the last member is often a short id.
        None => {
            return match input.get(i + 1..i + 5) {
                Some(b"id\":") => Some((Member::Id, i + 5)),
                _ => None,
            }
        }
    };
    const METHOD: u64 = le(b"method\":");
    const PARAMS: u64 = le(b"params\":");
    const RESULT: u64 = le(b"result\":");
    const JSONRPC: u64 = le(b"jsonrpc\"");
    const ID: u64 = le(b"id\":");
    const ERROR: u64 = le(b"error\":");
    match w {
        METHOD => return Some((Member::Method, i + 9)),
        PARAMS => return Some((Member::Params, i + 9)),
        RESULT => return Some((Member::Result, i + 9)),
        JSONRPC if byte_at(input, i + 9) == b':' => return Some((Member::Jsonrpc, i + 10)),
        _ => {}
    }
    if w & 0xFFFF_FFFF == ID {
        return Some((Member::Id, i + 5));
    }
    if w & 0x00FF_FFFF_FFFF_FFFF == ERROR {
        return Some((Member::Error, i + 8));
    }
    None
}

/// The member a key names (escapes decoded), of those in `names` (the compact build's
/// readers) or of all of them (the fast build's).
#[inline(always)]
fn member_of(key: RawStr<'_>, names: &[&str]) -> Member {
    if !FAST_PATHS {
        // The compact build: one comparison per name, escapes decoded when there are
        // any (flash).
        return member_decoded(key, names);
    }
    match key.as_raw() {
        b"jsonrpc" => Member::Jsonrpc,
        b"method" => Member::Method,
        b"params" => Member::Params,
        b"id" => Member::Id,
        b"result" => Member::Result,
        b"error" => Member::Error,
        _ if key.has_escapes() => member_decoded(key, &NAMES),
        _ => Member::Other,
    }
}

impl<'a> Slots<'a> {
    /// Records the value of a member; a second one marks it duplicated.
    #[inline]
    fn record(&mut self, m: Member, value: RawJson<'a>) {
        if let Some(slot) = self.values.get_mut(m as usize) {
            if slot.is_some() {
                self.duplicates |= 1 << m as u8;
            }
            *slot = Some(value);
        }
    }

    /// The slots of a request's members as recorded in the validating pass of a batch
    /// (the fast build): `jsonrpc`, `method`, `params` and `id`, and the duplicate bits
    /// (of these members: any other bit of `flags` is not one).
    #[cfg(jsonrpc_slice_fast)]
    pub(super) fn of_request_members(values: [Option<RawJson<'a>>; 4], flags: u8) -> Self {
        let [jsonrpc, method, params, id] = values;
        Self {
            values: [jsonrpc, method, params, id, None, None],
            duplicates: flags & REQUEST_MEMBERS
                // The recorder keeps `jsonrpc` only when it was `VERSION_LEXEME`.
                | if jsonrpc.is_some() { EXACT_VERSION } else { 0 },
        }
    }

    /// The slots of a request read by `object::usual` from `input`: the spans (start,
    /// end) of `jsonrpc` (exactly [`VERSION_LEXEME`]), `method`, `params` and `id`, in
    /// this order, `(0, 0)` for a member not given.
    #[inline(always)]
    pub(super) fn of_usual(input: &'a [u8], spans: [(usize, usize); 4]) -> Self {
        let value = |(start, end): (usize, usize)| {
            (end != 0)
                .then(|| input.get(start..end))
                .flatten()
                .map(RawJson::trusted)
        };
        let [jsonrpc, method, params, id] = spans;
        Self {
            values: [
                value(jsonrpc),
                value(method),
                value(params),
                value(id),
                None,
                None,
            ],
            duplicates: EXACT_VERSION,
        }
    }

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
        if FAST_PATHS && self.duplicates & EXACT_VERSION != 0 {
            return true;
        }
        match self.get(Member::Jsonrpc) {
            // As most senders write it (the fast build only: flash).
            Some(v) if FAST_PATHS && v.as_bytes() == VERSION_LEXEME => true,
            Some(v) => v.as_str().is_some_and(|v| v.eq_str(VERSION)),
            None => false,
        }
    }

    /// Records the envelope members of the object whose `{` is at `start` in `input`,
    /// validated already (a batch element, on the fast build); returns the offset after
    /// its `}`. The common keys are read a word at a time ([`known_key`]), values are
    /// skipped by the trusted skipper. On input that is not valid JSON it ends without
    /// panicking, at or before the end of the input. The unit tests pin it to the
    /// reference reader (`of_by_name`, after the validator).
    pub(super) fn read(&mut self, input: &'a [u8], start: usize) -> usize {
        let mut i = skip_ws(input, start + 1);
        while byte_at(input, i) == b'"' {
            let (m, after_colon) = match known_key(input, i) {
                Some(known) => known,
                None => {
                    let key_end = skip_string_trusted(input, i);
                    let raw = input.get(i + 1..key_end.saturating_sub(1)).unwrap_or(&[]);
                    // Past the colon.
                    (
                        member_of(RawStr::trusted(raw), &NAMES),
                        skip_ws(input, key_end) + 1,
                    )
                }
            };
            let value_start = skip_ws(input, after_colon);
            let value_end = match input.get(value_start..value_start + VERSION_LEXEME.len()) {
                // As most senders write it.
                Some(v) if m == Member::Jsonrpc && v == VERSION_LEXEME => {
                    value_start + VERSION_LEXEME.len()
                }
                _ => skip_trusted(input, value_start),
            };
            if let Some(value) = input.get(value_start..value_end) {
                self.record(m, RawJson::trusted(value));
            }
            i = skip_ws(input, value_end);
            if byte_at(input, i) != b',' {
                break;
            }
            i = skip_ws(input, i + 1);
        }
        // The closing brace.
        (i + 1).min(input.len())
    }

    /// Records the envelope members of `object`, a validated object, read as
    /// [`RawJson::members`] reads any object (the compact build's reader), of those
    /// named in `names` ([`REQUEST_NAMES`] or [`RESPONSE_NAMES`]; any other key is
    /// `Other`).
    pub(super) fn read_members(&mut self, object: RawJson<'a>, names: &[&str]) {
        for (key, value) in object.members() {
            self.record(member_of(key, names), value);
        }
    }

    /// [`of`](Self::of) with the names compared one by one, escapes decoded: the tests'
    /// reference reader.
    #[cfg(any(test, fuzzing))]
    pub(super) fn of_by_name(object: RawJson<'a>) -> Self {
        let mut slots = Slots::default();
        for (key, value) in object.members() {
            slots.record(member_decoded(key, &NAMES), value);
        }
        slots
    }
}

/// The member of a walk's report that began last, and where its value starts: what
/// the envelope's visitors (a message's [`Recorder`], a batch's `ElementRecorder`)
/// keep of a key, and how they read it.
pub(super) struct MemberStart<'a> {
    /// The walked input.
    pub(super) input: &'a [u8],
    /// The member that began last.
    pub(super) member: Member,
    /// Where its value starts.
    pub(super) value: usize,
}

impl<'a> MemberStart<'a> {
    /// None yet, in `input`.
    pub(super) fn new(input: &'a [u8]) -> Self {
        Self {
            input,
            member: Member::Other,
            value: 0,
        }
    }

    /// [`Visit::known_key`]: a key read a word at a time ([`known_key`]), taken as
    /// begun; the offset of its value (whitespace skipped), or 0.
    #[inline(always)]
    pub(super) fn known_key(&mut self, i: usize) -> usize {
        if !FAST_PATHS {
            // The compact build reads every key the general way (flash).
            return 0;
        }
        match known_key(self.input, i) {
            Some((member, after)) => {
                self.member = member;
                self.value = skip_ws_after_separator(self.input, after);
                self.value
            }
            None => 0,
        }
    }

    /// [`Visit::key`]: the member the key at `key..key_end` names begins, its value at
    /// `value`.
    #[inline(always)]
    pub(super) fn key(&mut self, key: usize, key_end: usize, value: usize) {
        let raw = self
            .input
            .get(key + 1..key_end.saturating_sub(1))
            .unwrap_or(&[]);
        self.member = member_of(RawStr::trusted(raw), &NAMES);
        self.value = value;
    }
}

/// The slots of one object, filled as the scanner reports its members.
pub(super) struct Recorder<'a, 's> {
    /// The member being walked, in the input.
    current: MemberStart<'a>,
    slots: &'s mut Slots<'a>,
}

impl<'a, 's> Recorder<'a, 's> {
    /// Ready to record into `slots` the members of the object that `input` is.
    pub(super) fn new(input: &'a [u8], slots: &'s mut Slots<'a>) -> Self {
        Self {
            current: MemberStart::new(input),
            slots,
        }
    }
}

// Inlined into the quick reader of `object.rs`, the way messages are read: out of line,
// the visitor would live in memory there.
impl Visit for Recorder<'_, '_> {
    #[inline(always)]
    fn known_key(&mut self, i: usize) -> usize {
        self.current.known_key(i)
    }

    #[inline(always)]
    fn key(&mut self, key: usize, key_end: usize, value: usize) {
        self.current.key(key, key_end, value);
    }

    #[inline(always)]
    fn end(&mut self, end: usize) {
        if let Some(v) = self.current.input.get(self.current.value..end) {
            self.slots.record(self.current.member, RawJson::trusted(v));
        }
    }

    #[inline(always)]
    fn usual(&mut self, spans: [(usize, usize); 4]) {
        *self.slots = Slots::of_usual(self.current.input, spans);
    }
}
