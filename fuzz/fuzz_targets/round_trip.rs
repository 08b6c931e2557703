//! Builds a request from fuzzed parts, parses it back with `envelope::parse`, and
//! checks that the method, params and id views are the parts, byte for byte.
//!
//! Input: two flag bytes, then `method 0xFF params 0xFF id` (0xFF never occurs in
//! UTF-8, so it never cuts a valid part). First byte: bit 0 keep params, bit 1 keep id,
//! bit 2 spaces around `:` and `,`, bit 3 spell the version `"2\u002e0"`, bit 4 wrap
//! the request in a one-element batch. Second byte: member order (one of 24). A part
//! that is not valid (per `RawJson::new`, the default limits, and the nesting left
//! inside the envelope) ends the run. The message is built in a fixed buffer.
#![no_main]

use jsonrpc_slice::envelope::{parse, Call, Envelope};
use jsonrpc_slice::{Kind, Limits, RawJson};
use jsonrpc_slice_fuzz::{nesting, MAX_DEPTH};
use libfuzzer_sys::fuzz_target;

/// A fixed buffer written front to back; `None` once it is full.
struct Buf {
    bytes: [u8; 8192],
    len: usize,
}

impl Buf {
    fn push(&mut self, s: &[u8]) -> Option<()> {
        self.bytes
            .get_mut(self.len..self.len + s.len())?
            .copy_from_slice(s);
        self.len += s.len();
        Some(())
    }
}

/// `Ok(None)` for an absent part, `Ok(Some(value))` for a valid one, `Err` otherwise.
fn part<'a>(raw: Option<&'a [u8]>, ok: impl Fn(&RawJson) -> bool) -> Result<Option<&'a [u8]>, ()> {
    match raw.map(RawJson::new) {
        None => Ok(None),
        Some(Ok(v)) if ok(&v) => Ok(Some(v.as_bytes())),
        Some(_) => Err(()),
    }
}

fuzz_target!(|data: &[u8]| {
    let [flags, order, rest @ ..] = data else {
        return;
    };
    let batch = flags & 16 != 0;
    let mut parts = rest.splitn(3, |&b| b == 0xFF);
    let (method, params, id) = (parts.next(), parts.next(), parts.next());
    // The envelope object, and the batch array, take one level each.
    let room = MAX_DEPTH - 1 - batch as usize;
    let string = |m: &RawJson| m.kind() == Kind::String && m.as_bytes().len() - 2 <= 256;
    let structured = |p: &RawJson| {
        matches!(p.kind(), Kind::Array | Kind::Object) && nesting(p.as_bytes()) <= room
    };
    let id_like = |i: &RawJson| {
        matches!(i.kind(), Kind::String | Kind::Number | Kind::Null) && i.as_bytes().len() <= 256
    };
    let (Ok(Some(method)), Ok(params), Ok(id)) = (
        part(method, string),
        part(params.filter(|_| flags & 1 != 0), structured),
        part(id.filter(|_| flags & 2 != 0), id_like),
    ) else {
        return;
    };

    let (colon, comma): (&[u8], &[u8]) = match flags & 4 {
        0 => (b":", b","),
        _ => (b" : ", b" , "),
    };
    let version: &[u8] = match flags & 8 {
        0 => br#""2.0""#,
        _ => br#""2\u002e0""#,
    };
    let members: [(&[u8], Option<&[u8]>); 4] = [
        (b"\"jsonrpc\"", Some(version)),
        (b"\"method\"", Some(method)),
        (b"\"params\"", params),
        (b"\"id\"", id),
    ];
    // The `order`-th permutation of the four members (factorial number system).
    let (mut left, mut k, mut perm) = ([0, 1, 2, 3], *order as usize % 24, [0usize; 4]);
    for (n, slot) in (1..=4).rev().zip(&mut perm) {
        *slot = left[k % n];
        left.copy_within(k % n + 1.., k % n);
        k /= n;
    }
    let mut buf = Buf {
        bytes: [0; 8192],
        len: 0,
    };
    let built = (|| {
        buf.push(if batch { b"[{" } else { b"{" })?;
        let present = perm
            .iter()
            .filter_map(|&i| Some((members[i].0, members[i].1?)));
        for (n, (key, value)) in present.enumerate() {
            buf.push(if n > 0 { comma } else { b"" })?;
            buf.push(key)?;
            buf.push(colon)?;
            buf.push(value)?;
        }
        buf.push(if batch { b"}]" } else { b"}" })
    })();
    if built.is_none() {
        return;
    }
    let msg = &buf.bytes[..buf.len];
    let shown = || String::from_utf8_lossy(msg);

    let call = match parse(msg, &Limits::DEFAULT) {
        Ok(Envelope::Single(call)) if !batch => call,
        Ok(Envelope::Batch(mut b)) if batch && b.len() == 1 => b.next().expect("one element"),
        other => panic!("{other:?} for {}", shown()),
    };
    let Call::Request(req) = call else {
        panic!("{call:?} for {}", shown())
    };
    assert_eq!(
        req.method.as_raw(),
        &method[1..method.len() - 1],
        "{}",
        shown()
    );
    assert_eq!(req.params.map(|p| p.as_bytes()), params, "{}", shown());
    assert_eq!(req.id.map(|i| i.as_bytes()), id, "{}", shown());
    assert_eq!(req.is_notification(), id.is_none());
});
