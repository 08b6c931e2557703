//! Why typed params did not decode: [`DecodeError`], its [`Reason`] and where it
//! happened ([`At`]).

use core::fmt;

use serde::de;

use crate::error::{code, RpcError};
use crate::raw::RawJson;

/// What every `-32602` message of a [`Reason`] starts with.
const PREFIX: &str = "Invalid params: ";

/// Declares [`Reason`], its short text and its `-32602` message, each written once.
macro_rules! reasons {
    ($($(#[$doc:meta])* $name:ident => $text:literal,)*) => {
        /// Why a value did not decode into its type.
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Reason {
            $($(#[$doc])* $name,)*
        }

        impl Reason {
            /// A short description, such as `expected a string`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$name => $text,)*
                }
            }

            /// `Invalid params: ` and the description: the message of the `-32602`.
            pub const fn message(self) -> &'static str {
                match self {
                    $(Self::$name => concat!("Invalid params: ", $text),)*
                }
            }
        }
    };
}

reasons! {
    /// The type wants `null` (a unit, a unit struct, a unit variant's value).
    ExpectedNull => "expected null",
    /// The type wants `true` or `false`.
    ExpectedBool => "expected true or false",
    /// The type wants an integer: a number without fraction or exponent.
    ExpectedInteger => "expected an integer",
    /// The type wants a number.
    ExpectedNumber => "expected a number",
    /// The type wants a string.
    ExpectedString => "expected a string",
    /// The type wants an array (a sequence or a tuple).
    ExpectedArray => "expected an array",
    /// The type wants an object (a map or a struct).
    ExpectedObject => "expected an object",
    /// An enum is a variant name (a unit variant) or an object of one member, the
    /// variant's name and its value.
    ExpectedEnum => "expected a variant name or an object with one member",
    /// A variant with data was given as a bare name.
    VariantNeedsData => "this variant has data: expected an object with one member",
    /// An integer beyond the range of its type.
    IntegerOutOfRange => "integer out of range for its type",
    /// A number beyond the range of `f64` (such as `1e400`), as serde_json refuses it.
    NumberOutOfRange => "number out of range",
    /// The type refused `null`.
    UnexpectedNull => "unexpected null",
    /// The type refused a boolean.
    UnexpectedBool => "unexpected boolean",
    /// The type refused a number.
    UnexpectedNumber => "unexpected number",
    /// The type refused a string.
    UnexpectedString => "unexpected string",
    /// The type refused an array.
    UnexpectedArray => "unexpected array",
    /// The type refused an object.
    UnexpectedObject => "unexpected object",
    /// The type refused the value's type.
    WrongType => "wrong type",
    /// The type refused the value.
    InvalidValue => "invalid value",
    /// The type refused the number of elements.
    WrongLength => "wrong length",
    /// An array shorter than its type (a tuple) needs.
    TooFewElements => "too few elements",
    /// An array longer than its type (a tuple, or a fixed capacity) holds.
    TooManyElements => "too many elements",
    /// An object with more members than its type holds (a fixed capacity), or
    /// members its type did not read.
    TooManyMembers => "too many members",
    /// A string longer than its type holds (a fixed-capacity string).
    StringTooLong => "string too long for its type",
    /// A variant name the enum does not have.
    UnknownVariant => "unknown variant",
    /// A member the struct does not have, and `#[serde(deny_unknown_fields)]`.
    UnknownField => "unknown field",
    /// A field the struct needs is missing.
    MissingField => "required field missing",
    /// A field given twice.
    DuplicateField => "field given twice",
    /// A string with escapes cannot be borrowed as a `&str`: its decoded text exists
    /// only in the scratch buffer.
    EscapedBorrowed => "a string with escapes cannot be borrowed: use an owned string type",
    /// A string with escapes, decoded without a scratch buffer.
    NoScratch => "a string with escapes needs a scratch buffer",
    /// A string with escapes longer, decoded, than the scratch buffer.
    ScratchTooSmall => "an escaped string is longer than the scratch buffer",
    /// A map key of a type that cannot be read from a JSON string.
    BadMapKey => "map keys of this type cannot be read from a string",
    /// More levels of nesting than [`MAX_DEPTH`](super::MAX_DEPTH).
    TooDeep => "nested too deeply",
    /// The type refused the value with a message of its own (serde's `custom`; an
    /// untagged enum that matches no variant, for one). The message is not kept:
    /// it would need an allocation.
    Custom => "the value does not fit the type",
}

/// Where in the params a decoding failed: the innermost member or element that
/// failed, or the field the type found missing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum At<'a> {
    /// The value as a whole (the params, or the value decoded).
    Whole,
    /// The value (or the key) of the member with this key: the key as sent, a JSON
    /// string with its quotes.
    Member(RawJson<'a>),
    /// The element at this index of an array.
    Element(usize),
    /// A field of the type: one it needs and did not find, or one given twice.
    Field(&'static str),
}

impl<'a> At<'a> {
    /// The place as the pieces of its text: `field `, the name, and the closing
    /// backquote, or `index ` and the digits (written into `digits`); nothing for
    /// [`At::Whole`]. A key is shown as sent, escapes included.
    fn pieces<'d>(&self, digits: &'d mut [u8; 20]) -> [&'d str; 3]
    where
        'a: 'd,
    {
        match *self {
            At::Whole => ["", "", ""],
            At::Member(key) => {
                let inner = key.as_str().map(|s| s.as_raw()).unwrap_or(b"");
                let text = core::str::from_utf8(inner).unwrap_or("?");
                ["field `", text, "`"]
            }
            At::Element(index) => ["index ", decimal(index, digits), ""],
            At::Field(name) => ["field `", name, "`"],
        }
    }
}

/// `n` in decimal, written at the end of `digits` (no `core::fmt`).
fn decimal(mut n: usize, digits: &mut [u8; 20]) -> &str {
    let mut at = digits.len();
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    core::str::from_utf8(digits.get(at..).unwrap_or(&[])).unwrap_or("")
}

impl fmt::Display for At<'_> {
    /// `field `uri``, `index 2`, or nothing for [`At::Whole`]. A key is shown as
    /// sent, escapes included.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces(&mut [0; 20])
            .iter()
            .try_for_each(|piece| f.write_str(piece))
    }
}

/// Why typed params (or a [`RawJson`] value) did not decode: a [`Reason`] and where
/// it happened. Small and `Copy`; borrows the failing key from the input.
///
/// Its `Display` is the full message, such as
/// ``Invalid params: field `uri`: expected a string``. Made into an [`RpcError`] (with
/// `?` or `From`), it is a `-32602` whose message is [`Reason::message`] (such as
/// `Invalid params: expected a string`) and whose `data` names where it failed: the
/// key as sent (a JSON string, `"uri"`) or the index (a number, for indexes under
/// 100); no `data` for the value as a whole, or for a field the type found missing.
///
/// ```
/// use jsonrpc_slice::serde::{At, Reason};
/// use jsonrpc_slice::RawJson;
///
/// #[derive(serde::Deserialize, Debug)]
/// struct Open { uri: heapless::String<32> }
///
/// let v = RawJson::new(br#"{"uri": 7}"#)?;
/// let e = v.decode_with_scratch::<Open>(&mut [0; 32]).unwrap_err();
/// assert_eq!(e.reason(), Reason::ExpectedString);
/// assert_eq!(e.at(), At::Member(RawJson::new(br#""uri""#)?));
/// assert_eq!(e.to_string(), "Invalid params: field `uri`: expected a string");
/// let rpc: jsonrpc_slice::RpcError = e.into();
/// assert_eq!((rpc.code, rpc.message), (-32602, "Invalid params: expected a string"));
/// assert_eq!(rpc.data.unwrap().as_bytes(), br#""uri""#);
/// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DecodeError<'a> {
    reason: Reason,
    at: At<'a>,
}

impl<'a> DecodeError<'a> {
    /// An error for the value as a whole.
    pub const fn new(reason: Reason) -> Self {
        Self {
            reason,
            at: At::Whole,
        }
    }

    /// Why it failed.
    pub const fn reason(&self) -> Reason {
        self.reason
    }

    /// Where it failed.
    pub const fn at(&self) -> At<'a> {
        self.at
    }

    /// The error placed at `at`, unless it already has a (more precise) place.
    pub(crate) fn within(mut self, at: At<'a>) -> Self {
        if self.at == At::Whole {
            self.at = at;
        }
        self
    }

    /// The error with another reason, at the same place.
    pub(crate) fn because(mut self, reason: Reason) -> Self {
        self.reason = reason;
        self
    }

    /// The `-32602` for this error (see the type's docs for what it holds).
    pub fn to_rpc_error(&self) -> RpcError<'a> {
        let e = RpcError::new(code::INVALID_PARAMS, self.reason.message());
        match self.at {
            At::Member(key) => e.with_data(key),
            At::Element(index) => match index_lexeme(index) {
                Some(n) => e.with_data(n),
                None => e,
            },
            At::Whole | At::Field(_) => e,
        }
    }
}

/// The decimal lexemes of 0 to 99, for an index as `data` without formatting.
const INDEXES: &[u8; 190] = b"0123456789\
101112131415161718192021222324252627282930313233343536373839\
404142434445464748495051525354555657585960616263646566676869\
707172737475767778798081828384858687888990919293949596979899";

/// `index` as a JSON number borrowed from [`INDEXES`], if under 100.
fn index_lexeme(index: usize) -> Option<RawJson<'static>> {
    let (start, len) = match index {
        0..=9 => (index, 1),
        10..=99 => (10 + 2 * (index - 10), 2),
        _ => return None,
    };
    INDEXES.get(start..start + len).map(RawJson::trusted)
}

impl<'a> DecodeError<'a> {
    /// The message as pieces: `Invalid params: `, the place's three, `: `, the
    /// reason; or the reason's message alone for [`At::Whole`].
    fn pieces<'d>(&self, digits: &'d mut [u8; 20]) -> [&'d str; 6]
    where
        'a: 'd,
    {
        match self.at {
            At::Whole => [self.reason.message(), "", "", "", "", ""],
            at => {
                // The reason's text taken from its message (`as_str`'s texts are a
                // second copy of them in flash, linked only where it is called).
                let message = self.reason.message();
                let (prefix, text) = message.split_at(PREFIX.len().min(message.len()));
                let [a, b, c] = at.pieces(digits);
                [prefix, a, b, c, ": ", text]
            }
        }
    }

    /// The full message, the one `Display` shows (``Invalid params: field `uri`:
    /// expected a string``, ``Invalid params: index 2: expected a number``), written
    /// into `buf` without `core::fmt`: a message that names the field costs a few
    /// copies, not the formatting machinery. When it does not fit, the message
    /// without the place ([`Reason::message`]) instead, never a message cut short.
    ///
    /// ```
    /// use jsonrpc_slice::RawJson;
    ///
    /// #[derive(serde::Deserialize, Debug)]
    /// struct Open { uri: heapless::String<32> }
    ///
    /// let e = RawJson::new(br#"{"uri": 7}"#)?.decode::<Open>().unwrap_err();
    /// let mut buf = [0u8; 64];
    /// assert_eq!(e.message_into(&mut buf), "Invalid params: field `uri`: expected a string");
    /// assert_eq!(e.message_into(&mut [0u8; 16]), "Invalid params: expected a string");
    /// # Ok::<(), jsonrpc_slice::scan::ScanError>(())
    /// ```
    pub fn message_into<'b>(&self, buf: &'b mut [u8]) -> &'b str {
        let mut digits = [0u8; 20];
        let pieces = self.pieces(&mut digits);
        let mut len = 0;
        for piece in pieces {
            let end = len + piece.len();
            match buf.get_mut(len..end) {
                Some(dst) => dst.copy_from_slice(piece.as_bytes()),
                None => return self.reason.message(),
            }
            len = end;
        }
        // Whole pieces of `str`s: UTF-8.
        core::str::from_utf8(buf.get(..len).unwrap_or(&[])).unwrap_or(self.reason.message())
    }
}

impl fmt::Display for DecodeError<'_> {
    /// `Invalid params: field `uri`: expected a string` (no place for
    /// [`At::Whole`]); the same text as [`message_into`](DecodeError::message_into).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces(&mut [0; 20])
            .iter()
            .try_for_each(|piece| f.write_str(piece))
    }
}

impl DecodeError<'_> {
    /// The place and the reason without the `-32602` message's prefix
    /// (``field `y`: expected an integer``): how a client says its result did not
    /// decode.
    pub(crate) fn fmt_unprefixed(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut digits = [0; 20];
        for piece in self.at.pieces(&mut digits) {
            f.write_str(piece)?;
        }
        if self.at != At::Whole {
            f.write_str(": ")?;
        }
        f.write_str(self.reason.as_str())
    }
}

impl core::error::Error for DecodeError<'_> {}

impl<'a> From<DecodeError<'a>> for RpcError<'a> {
    fn from(e: DecodeError<'a>) -> Self {
        e.to_rpc_error()
    }
}

impl de::Error for DecodeError<'_> {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Self::new(Reason::Custom)
    }

    fn invalid_type(unexpected: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        use de::Unexpected as U;
        Self::new(match unexpected {
            U::Unit | U::Option => Reason::UnexpectedNull,
            U::Bool(_) => Reason::UnexpectedBool,
            U::Unsigned(_) | U::Signed(_) | U::Float(_) => Reason::UnexpectedNumber,
            U::Char(_) | U::Str(_) | U::Bytes(_) => Reason::UnexpectedString,
            U::Seq => Reason::UnexpectedArray,
            U::Map => Reason::UnexpectedObject,
            _ => Reason::WrongType,
        })
    }

    fn invalid_value(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        Self::new(Reason::InvalidValue)
    }

    fn invalid_length(_: usize, _: &dyn de::Expected) -> Self {
        Self::new(Reason::WrongLength)
    }

    fn unknown_variant(_: &str, _: &'static [&'static str]) -> Self {
        Self::new(Reason::UnknownVariant)
    }

    fn unknown_field(_: &str, _: &'static [&'static str]) -> Self {
        Self::new(Reason::UnknownField)
    }

    fn missing_field(field: &'static str) -> Self {
        Self::new(Reason::MissingField).within(At::Field(field))
    }

    fn duplicate_field(field: &'static str) -> Self {
        Self::new(Reason::DuplicateField).within(At::Field(field))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_lexemes() {
        for i in 0..100 {
            let n = index_lexeme(i).unwrap();
            assert_eq!(n.as_u64(), Some(i as u64), "{i}");
        }
        assert_eq!(index_lexeme(100), None);
    }

    /// `message_into` writes what `Display` shows, at every place, without
    /// `core::fmt`; the pieces are checked against `format!` here.
    #[test]
    fn the_message_without_fmt() {
        use std::format;
        let key = RawJson::new(br#""a\u0062c""#).unwrap();
        let places = [
            At::Whole,
            At::Member(key),
            At::Element(0),
            At::Element(7),
            At::Element(10),
            At::Element(123_456),
            At::Element(usize::MAX),
            At::Field("subtrahend"),
        ];
        for at in places {
            let e = DecodeError::new(Reason::ExpectedString).within(at);
            let place = match at {
                At::Whole => None,
                At::Member(_) => Some("field `a\\u0062c`".into()),
                At::Element(i) => Some(format!("index {i}")),
                At::Field(name) => Some(format!("field `{name}`")),
            };
            let want = match place {
                None => "Invalid params: expected a string".into(),
                Some(p) => format!("Invalid params: {p}: expected a string"),
            };
            assert_eq!(e.message_into(&mut [0; 128]), want, "{at:?}");
            assert_eq!(format!("{e}"), want, "{at:?}");
            // One byte short: the message without its place, never cut.
            let mut short = std::vec![0u8; want.len() - 1];
            let got = e.message_into(&mut short);
            if at == At::Whole {
                assert_eq!(got, want);
            } else {
                assert_eq!(got, "Invalid params: expected a string", "{at:?}");
            }
        }
    }
}
