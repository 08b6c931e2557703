//! The handler's API: one JSON value (scalars, strings in pieces, arrays and
//! objects), its structure checked call by call.

use core::fmt;

use super::{ResultWriter, WriteError, MAX_RESULT_DEPTH};
use crate::raw::RawJson;

impl ResultWriter<'_> {
    /// Starts a new result value.
    pub(crate) fn begin_value(&mut self) {
        // The level flags need no reset: `open` writes them before anything reads
        // them. (Clearing the whole state is a `memset` call on a Cortex-M.)
        let v = &mut self.value;
        v.depth = 0;
        v.after_key = false;
        v.in_string = false;
        v.done = false;
        v.misuse = false;
    }

    /// Ends the result value: `Ok(true)` if one complete value was written, `Ok(false)`
    /// if none was (the caller writes `null`), `Err` if it is incomplete or misused.
    pub(crate) fn finish_value(&self) -> Result<bool, WriteError> {
        let v = &self.value;
        // Misused, or a level, a key or a string left open: four adjacent bytes, one
        // load and one compare.
        if u32::from_ne_bytes([
            v.depth,
            v.after_key as u8,
            v.in_string as u8,
            v.misuse as u8,
        ]) != 0
        {
            return Err(WriteError::Misuse);
        }
        Ok(v.done)
    }

    /// A string value: `v` formatted with `Display`, escaped as JSON needs.
    ///
    /// ```
    /// use jsonrpc_slice::ResultWriter;
    ///
    /// let mut buf = [0u8; 32];
    /// let mut w = ResultWriter::new(&mut buf);
    /// w.display(format_args!("TODO on line {}", 3))?;
    /// assert_eq!(w.written(), br#""TODO on line 3""#);
    /// # Ok::<(), jsonrpc_slice::WriteError>(())
    /// ```
    pub fn display(&mut self, v: impl fmt::Display) -> Result<(), WriteError> {
        self.string_start()?;
        self.escaped_display(v)?;
        self.string_end()
    }

    /// Checks that a value may start here, writing the comma before it if needed.
    pub(super) fn before_value(&mut self) -> Result<(), WriteError> {
        self.before(false)
    }

    /// Checks that a value (or, with `key`, an object's key) may come here, and
    /// writes the comma before it if one is needed. One check for both: a key goes
    /// where an open object wants one, a value wherever else a value may go.
    fn before(&mut self, key: bool) -> Result<(), WriteError> {
        let v = &mut self.value;
        let object = v.depth > 0 && v.objects & 1 != 0;
        // In an object, keys and values take turns.
        let fits = if object {
            key != v.after_key
        } else {
            !key && (v.depth > 0 || !v.done)
        };
        if v.misuse || v.in_string || !fits {
            v.misuse = true;
            return Err(WriteError::Misuse);
        }
        // A member's value follows its key: no comma.
        v.after_key = key;
        if v.depth == 0 || (object && !key) {
            return Ok(());
        }
        let comma = v.items & 1 != 0;
        v.items |= 1;
        if comma {
            self.push_byte(b',')?;
        }
        Ok(())
    }

    /// After a whole value: at the top level, the result is then complete.
    pub(super) fn after_value(&mut self) {
        if self.value.depth == 0 {
            self.value.done = true;
        }
    }

    /// A value given as raw JSON, copied verbatim but for raw line breaks (JSON
    /// whitespace), which are dropped so a reply stays one line.
    pub fn raw(&mut self, value: RawJson<'_>) -> Result<(), WriteError> {
        self.before_value()?;
        self.json(value)?;
        self.after_value();
        Ok(())
    }

    /// [`raw`](Self::raw) for a value a `ResultWriter` wrote, which holds no raw line
    /// break: one copy, without the search for them (a subscription's event, written
    /// once and copied into each subscriber's notification).
    #[cfg(feature = "websocket")]
    pub(crate) fn written_value(&mut self, value: &[u8]) -> Result<(), WriteError> {
        self.before_value()?;
        self.push(value)?;
        self.after_value();
        Ok(())
    }

    /// `null`.
    pub fn null(&mut self) -> Result<(), WriteError> {
        self.raw(RawJson::NULL)
    }

    /// `true` or `false`.
    pub fn bool(&mut self, v: bool) -> Result<(), WriteError> {
        self.before_value()?;
        self.push(if v { b"true" } else { b"false" })?;
        self.after_value();
        Ok(())
    }

    /// A signed integer.
    pub fn i64(&mut self, v: i64) -> Result<(), WriteError> {
        self.before_value()?;
        self.i64_digits(v)?;
        self.after_value();
        Ok(())
    }

    /// An unsigned integer.
    pub fn u64(&mut self, v: u64) -> Result<(), WriteError> {
        self.before_value()?;
        self.u64_digits(v)?;
        self.after_value();
        Ok(())
    }

    /// A string, escaped as JSON needs.
    #[inline(always)]
    pub fn str(&mut self, s: &str) -> Result<(), WriteError> {
        self.string_start()?;
        self.string_push(s)?;
        self.string_end()
    }

    /// Opens a string written in pieces with [`string_push`](Self::string_push).
    pub fn string_start(&mut self) -> Result<(), WriteError> {
        self.before_value()?;
        self.push_byte(b'"')?;
        self.value.in_string = true;
        Ok(())
    }

    /// Appends to the open string, escaping as JSON needs.
    // Out of line in the compact build: flash.
    #[cfg_attr(not(jsonrpc_slice_fast), inline(never))]
    pub fn string_push(&mut self, s: &str) -> Result<(), WriteError> {
        if !self.value.in_string {
            self.value.misuse = true;
            return Err(WriteError::Misuse);
        }
        self.escaped(s)
    }

    /// Closes the open string.
    pub fn string_end(&mut self) -> Result<(), WriteError> {
        if !self.value.in_string {
            self.value.misuse = true;
            return Err(WriteError::Misuse);
        }
        self.push_byte(b'"')?;
        self.value.in_string = false;
        self.after_value();
        Ok(())
    }

    fn open(&mut self, object: bool) -> Result<(), WriteError> {
        self.before_value()?;
        if self.value.depth >= MAX_RESULT_DEPTH {
            self.value.misuse = true;
            return Err(WriteError::Misuse);
        }
        self.push_byte(if object { b'{' } else { b'[' })?;
        let v = &mut self.value;
        v.objects = v.objects << 1 | u64::from(object);
        v.items <<= 1;
        v.depth += 1;
        Ok(())
    }

    /// Opens an array; close it with [`end`](Self::end).
    pub fn begin_array(&mut self) -> Result<(), WriteError> {
        self.open(false)
    }

    /// Opens an object; write members with [`key`](Self::key) and a value each, and
    /// close it with [`end`](Self::end).
    pub fn begin_object(&mut self) -> Result<(), WriteError> {
        self.open(true)
    }

    /// Writes the key of the next member of the open object.
    pub fn key(&mut self, key: &str) -> Result<(), WriteError> {
        self.before(true)?;
        self.push_byte(b'"')?;
        self.escaped(key)?;
        self.push(b"\":")
    }

    /// Closes the innermost open array or object.
    pub fn end(&mut self) -> Result<(), WriteError> {
        let v = &mut self.value;
        if v.misuse || v.in_string || v.after_key || v.depth == 0 {
            v.misuse = true;
            return Err(WriteError::Misuse);
        }
        let close = if v.objects & 1 != 0 { b'}' } else { b']' };
        v.depth -= 1;
        v.objects >>= 1;
        v.items >>= 1;
        self.push_byte(close)?;
        self.after_value();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::*;
    use crate::raw::RawJson;

    #[test]
    fn misuse_is_refused_not_panicked() {
        let mut buf = [0u8; 32];
        let mut w = ResultWriter::new(&mut buf);
        assert_eq!(w.end(), Err(WriteError::Misuse));
        assert_eq!(w.finish_value(), Err(WriteError::Misuse));

        let mut w = ResultWriter::new(&mut buf);
        w.begin_array().unwrap();
        assert_eq!(w.key("k"), Err(WriteError::Misuse));

        let mut w = ResultWriter::new(&mut buf);
        w.i64(1).unwrap();
        assert_eq!(w.i64(2), Err(WriteError::Misuse));

        let mut w = ResultWriter::new(&mut buf);
        w.begin_object().unwrap();
        assert_eq!(w.i64(2), Err(WriteError::Misuse));
    }

    /// Writes `[{"a":[1,{"b":2}],"c":3` and stops there.
    fn mixed_prefix(w: &mut ResultWriter<'_>) {
        w.begin_array().unwrap();
        w.begin_object().unwrap();
        w.key("a").unwrap();
        w.begin_array().unwrap();
        w.i64(1).unwrap();
        w.begin_object().unwrap();
        w.key("b").unwrap();
        w.i64(2).unwrap();
        w.end().unwrap();
        w.end().unwrap();
        w.key("c").unwrap();
        w.i64(3).unwrap();
    }

    #[test]
    fn nesting_comes_back_to_each_level_with_its_kind_and_commas() {
        let mut buf = [0u8; 256];
        let mut w = ResultWriter::new(&mut buf);
        mixed_prefix(&mut w);
        assert_eq!(w.i64(9), Err(WriteError::Misuse), "a value without its key");

        let mut w = ResultWriter::new(&mut buf);
        mixed_prefix(&mut w);
        w.end().unwrap();
        w.begin_array().unwrap();
        w.begin_array().unwrap();
        w.end().unwrap();
        w.begin_object().unwrap();
        w.end().unwrap();
        w.end().unwrap();
        w.i64(4).unwrap();
        w.end().unwrap();
        assert_eq!(w.finish_value(), Ok(true));
        assert_eq!(
            core::str::from_utf8(w.written()).unwrap(),
            r#"[{"a":[1,{"b":2}],"c":3},[[],{}],4]"#
        );
    }

    /// Opens `MAX_RESULT_DEPTH` levels, objects on even levels and arrays on odd ones,
    /// each after one item; returns what it wrote.
    fn open_deepest(w: &mut ResultWriter<'_>) -> std::string::String {
        let mut wrote = std::string::String::new();
        for level in 0..MAX_RESULT_DEPTH {
            if level % 2 == 0 {
                w.begin_object().unwrap();
                w.key("k").unwrap();
                wrote.push_str(r#"{"k":"#);
            } else {
                w.begin_array().unwrap();
                w.i64(0).unwrap();
                wrote.push_str("[0,");
            }
        }
        wrote
    }

    #[test]
    fn the_deepest_result_closes_back_to_every_level() {
        let mut buf = [0u8; 512];
        let mut w = ResultWriter::new(&mut buf);
        open_deepest(&mut w);
        assert_eq!(
            w.begin_array(),
            Err(WriteError::Misuse),
            "one level too deep"
        );

        let mut w = ResultWriter::new(&mut buf);
        let mut want = open_deepest(&mut w);
        w.null().unwrap();
        want.push_str("null");
        for level in (0..MAX_RESULT_DEPTH).rev() {
            w.end().unwrap();
            want.push(if level % 2 == 0 { '}' } else { ']' });
        }
        assert_eq!(w.finish_value(), Ok(true));
        assert_eq!(core::str::from_utf8(w.written()).unwrap(), want);
    }

    #[test]
    fn numbers_and_escapes() {
        let mut buf = [0u8; 128];
        let mut w = ResultWriter::new(&mut buf);
        w.begin_array().unwrap();
        w.i64(i64::MIN).unwrap();
        w.u64(u64::MAX).unwrap();
        w.i64(0).unwrap();
        w.str("\u{1}\n\"é").unwrap();
        w.end().unwrap();
        assert_eq!(w.finish_value(), Ok(true));
        assert_eq!(
            core::str::from_utf8(w.written()).unwrap(),
            "[-9223372036854775808,18446744073709551615,0,\"\\u0001\\n\\\"é\"]"
        );
    }

    // ---- the writer against a naive model of its rules -----------------------------

    use proptest::prelude::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    /// One call on the handler's API (`Str` is `str`: start, push, end at once).
    #[derive(Clone, Debug)]
    enum Op {
        Array,
        Object,
        End,
        Key(String),
        Int(i64),
        Uint(u64),
        Bool(bool),
        Null,
        Str(String),
        Raw(&'static str),
        Start,
        Push(String),
        Stop,
    }

    fn op() -> impl Strategy<Value = Op> {
        // Short strings with the characters that need escaping.
        let text = "[a\"\\\n\u{1}\u{1f}é]{0,4}";
        prop_oneof![
            3 => Just(Op::Array),
            3 => Just(Op::Object),
            4 => Just(Op::End),
            4 => text.prop_map(Op::Key),
            2 => any::<i64>().prop_map(Op::Int),
            1 => any::<u64>().prop_map(Op::Uint),
            1 => any::<bool>().prop_map(Op::Bool),
            1 => Just(Op::Null),
            2 => text.prop_map(Op::Str),
            1 => prop::sample::select(&["1", "[1,2]", "{\"a\":null}", "\"x\""][..]).prop_map(Op::Raw),
            1 => Just(Op::Start),
            1 => text.prop_map(Op::Push),
            1 => Just(Op::Stop),
        ]
    }

    /// The rules, kept the plain way: a stack of open levels.
    #[derive(Default)]
    struct Model {
        /// Per open level: an object?, holds an item already?
        levels: Vec<(bool, bool)>,
        after_key: bool,
        in_string: bool,
        done: bool,
        out: String,
    }

    impl Model {
        fn value_may_start(&self) -> bool {
            !self.in_string
                && match self.levels.last() {
                    None => !self.done,
                    Some(&(object, _)) => !object || self.after_key,
                }
        }

        /// Before a value: its comma, or the end of the key it follows.
        fn start_value(&mut self) {
            if let Some((object, items)) = self.levels.last_mut() {
                if *object {
                    self.after_key = false;
                } else {
                    if *items {
                        self.out.push(',');
                    }
                    *items = true;
                }
            }
        }

        fn end_value(&mut self) {
            if self.levels.is_empty() {
                self.done = true;
            }
        }

        fn escape(&mut self, s: &str) {
            for c in s.chars() {
                match c {
                    '"' => self.out.push_str("\\\""),
                    '\\' => self.out.push_str("\\\\"),
                    '\n' => self.out.push_str("\\n"),
                    '\r' => self.out.push_str("\\r"),
                    '\t' => self.out.push_str("\\t"),
                    c if (c as u32) < 0x20 => {
                        self.out.push_str(&std::format!("\\u{:04x}", c as u32))
                    }
                    c => self.out.push(c),
                }
            }
        }

        /// Applies `op` if the rules allow it; `false` if they do not.
        fn apply(&mut self, op: &Op) -> bool {
            match op {
                Op::Array | Op::Object => {
                    if !self.value_may_start() || self.levels.len() >= MAX_RESULT_DEPTH as usize {
                        return false;
                    }
                    self.start_value();
                    let object = matches!(op, Op::Object);
                    self.out.push(if object { '{' } else { '[' });
                    self.levels.push((object, false));
                }
                Op::End => {
                    if self.in_string || self.after_key {
                        return false;
                    }
                    let Some((object, _)) = self.levels.pop() else {
                        return false;
                    };
                    self.out.push(if object { '}' } else { ']' });
                    self.end_value();
                }
                Op::Key(k) => {
                    let Some((true, items)) = self.levels.last_mut() else {
                        return false;
                    };
                    if self.in_string || self.after_key {
                        return false;
                    }
                    if *items {
                        self.out.push(',');
                    }
                    *items = true;
                    self.out.push('"');
                    self.escape(k);
                    self.out.push_str("\":");
                    self.after_key = true;
                }
                Op::Int(_) | Op::Uint(_) | Op::Bool(_) | Op::Null | Op::Raw(_) | Op::Str(_) => {
                    if !self.value_may_start() {
                        return false;
                    }
                    self.start_value();
                    match op {
                        Op::Int(n) => self.out.push_str(&std::format!("{n}")),
                        Op::Uint(n) => self.out.push_str(&std::format!("{n}")),
                        Op::Bool(b) => self.out.push_str(&std::format!("{b}")),
                        Op::Null => self.out.push_str("null"),
                        Op::Raw(r) => self.out.push_str(r),
                        Op::Str(s) => {
                            self.out.push('"');
                            self.escape(s);
                            self.out.push('"');
                        }
                        _ => unreachable!(),
                    }
                    self.end_value();
                }
                Op::Start => {
                    if !self.value_may_start() {
                        return false;
                    }
                    self.start_value();
                    self.out.push('"');
                    self.in_string = true;
                }
                Op::Push(s) => {
                    if !self.in_string {
                        return false;
                    }
                    self.escape(s);
                }
                Op::Stop => {
                    if !self.in_string {
                        return false;
                    }
                    self.out.push('"');
                    self.in_string = false;
                    self.end_value();
                }
            }
            true
        }
    }

    fn call(w: &mut ResultWriter<'_>, op: &Op) -> Result<(), WriteError> {
        match op {
            Op::Array => w.begin_array(),
            Op::Object => w.begin_object(),
            Op::End => w.end(),
            Op::Key(k) => w.key(k),
            Op::Int(n) => w.i64(*n),
            Op::Uint(n) => w.u64(*n),
            Op::Bool(b) => w.bool(*b),
            Op::Null => w.null(),
            Op::Str(s) => w.str(s),
            Op::Raw(r) => w.raw(RawJson::new(r.as_bytes()).unwrap()),
            Op::Start => w.string_start(),
            Op::Push(s) => w.string_push(s),
            Op::Stop => w.string_end(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Every call the rules allow succeeds and writes what the model writes; a
        /// call they do not allow is refused as `Misuse`. The calls not allowed are
        /// skipped but for the `probe`-th one, so that most runs build long values.
        #[test]
        fn writer_follows_a_naive_model(
            ops in prop::collection::vec(op(), 0..120),
            probe in 0usize..40,
        ) {
            let mut buf = vec![0u8; 1 << 16];
            let mut w = ResultWriter::new(&mut buf);
            w.begin_value();
            let mut model = Model::default();
            let (mut skipped, mut refused) = (0, false);
            for op in &ops {
                if model.apply(op) {
                    prop_assert_eq!(call(&mut w, op), Ok(()), "{:?} after {}", op, model.out);
                } else if skipped == probe {
                    let got = call(&mut w, op);
                    prop_assert_eq!(got, Err(WriteError::Misuse), "{:?} after {}", op, model.out);
                    refused = true;
                    break;
                } else {
                    skipped += 1;
                }
            }
            let expected = if refused || model.in_string || !model.levels.is_empty() {
                Err(WriteError::Misuse)
            } else {
                Ok(model.done)
            };
            prop_assert_eq!(w.finish_value(), expected);
            if !refused {
                prop_assert_eq!(core::str::from_utf8(w.written()).unwrap(), model.out.as_str());
            }
        }
    }
}
