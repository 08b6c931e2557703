//! Numbers with a fraction: floats in their shortest round-trip form
//! ([`ResultWriter::f64`], [`ResultWriter::f32`]), and fixed-point decimals that need
//! no float code at all ([`ResultWriter::decimal`]). The flash each costs is in the
//! docs of `f64`.

use core::fmt;

use super::{ResultWriter, WriteError};
#[cfg(feature = "ryu")]
use crate::ryu::{f32_digits, f64_digits};
#[cfg(not(feature = "ryu"))]
use shortest as f32_digits;
#[cfg(not(feature = "ryu"))]
use shortest as f64_digits;
#[cfg(all(test, feature = "ryu"))]
use shortest as core_digits;

/// A number's text, made on the stack before it is pushed whole.
pub(crate) struct NumberText {
    bytes: [u8; 40],
    len: usize,
}

impl NumberText {
    /// An empty text.
    pub(crate) const fn new() -> Self {
        Self {
            bytes: [0; 40],
            len: 0,
        }
    }

    /// The text written so far.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }

    fn push(&mut self, b: u8) {
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// A text holding `bytes` (as many as fit).
    #[cfg_attr(not(feature = "ryu"), allow(dead_code))]
    pub(crate) fn from_bytes(bytes: &[u8]) -> Self {
        let mut text = Self::new();
        text.push_all(bytes);
        text
    }

    /// All of `bytes`, or none if they do not fit (a float's text is at most 25).
    fn push_all(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if let Some(room) = self.bytes.get_mut(self.len..end) {
            room.copy_from_slice(bytes);
            self.len = end;
        }
    }

    /// An exponent, its sign always written: `+21`, `-7`, `+308` (at most 3 digits;
    /// no `core::fmt`, which the `ryu` build would link for this alone).
    fn exponent(&mut self, e: i32) {
        self.push(if e < 0 { b'-' } else { b'+' });
        let e = e.unsigned_abs();
        let mut started = false;
        for unit in [100, 10, 1] {
            let d = (e / unit % 10) as u8;
            started |= d != 0 || unit == 1;
            if started {
                self.push(b'0' + d);
            }
        }
    }

    /// `n` zeros, or none if they do not fit.
    fn zeros(&mut self, n: i32) {
        let end = self.len + n.max(0) as usize;
        if let Some(room) = self.bytes.get_mut(self.len..end) {
            room.fill(b'0');
            self.len = end;
        }
    }
}

impl fmt::Write for NumberText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.len + s.len() > self.bytes.len() {
            return Err(fmt::Error);
        }
        self.push_all(s.as_bytes());
        Ok(())
    }
}

/// Where a float switches from plain digits to an exponent: the largest and smallest
/// `kk` (the power of ten just above the value) written without one. The forms of
/// serde_json: `1e+16` but `1000000000000000.0`, `0.00001` but `1e-6`.
struct Plain {
    max: i32,
    min: i32,
}

const PLAIN_F64: Plain = Plain { max: 16, min: -4 };
const PLAIN_F32: Plain = Plain { max: 13, min: -5 };

/// Lays out the shortest digits of a float, as `core`'s `{:e}` writes them
/// (`-1.25e-7`, `3e2`, `0e0`) or `ryu` (`-1.25e-7`, `300.0`, `0.001`, `1e16`), in the
/// JSON form serde_json writes: `-1.25e-7`, `300.0`, `0.0`, `1.5e+300`.
fn lay_out(text: &[u8], plain: &Plain) -> NumberText {
    let mut out = NumberText::new();
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let e_at = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
    let (mantissa, exponent) = text.split_at(e_at);
    // The mantissa's digits, without the leading zeros of `0.001` and the trailing
    // ones of `300.0`, and how many of them stood before its point.
    let mut digits = [0u8; 20];
    let mut k = 0usize;
    let mut before_point = 0i32;
    let mut point = false;
    for &b in mantissa {
        if b == b'.' {
            point = true;
        } else if b == b'0' && k == 0 {
            // A leading zero: one place less before the point.
            before_point -= i32::from(point);
        } else if let Some(d) = digits.get_mut(k) {
            *d = b;
            k += 1;
            before_point += i32::from(!point);
        }
    }
    while k > 0 && digits.get(k - 1) == Some(&b'0') {
        k -= 1;
    }
    let mut e: i32 = 0;
    let e_text = exponent.get(1..).unwrap_or(&[]);
    let (e_negative, e_digits) = match e_text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, e_text),
    };
    for &b in e_digits {
        e = e * 10 + i32::from(b.wrapping_sub(b'0'));
    }
    if e_negative {
        e = -e;
    }
    // The value is 0.d1d2...dk × 10^kk; zero is `0` × 10^1, as `0e0` reads.
    let kk = if k == 0 {
        if let Some(d) = digits.first_mut() {
            *d = b'0';
        }
        k = 1;
        1
    } else {
        before_point + e
    };
    let digits = digits.get(..k).unwrap_or(&[]);
    if negative {
        out.push(b'-');
    }
    let k = k as i32;
    if kk >= k && kk <= plain.max {
        // 1234e7 -> 12340000000.0
        out.push_all(digits);
        out.zeros(kk - k);
        out.push_all(b".0");
    } else if kk > 0 && kk <= plain.max {
        // 1234e-2 -> 12.34
        let (int, frac) = digits.split_at(kk as usize);
        out.push_all(int);
        out.push(b'.');
        out.push_all(frac);
    } else if kk > plain.min - 1 && kk <= 0 {
        // 1234e-6 -> 0.001234
        out.push_all(b"0.");
        out.zeros(-kk);
        out.push_all(digits);
    } else {
        // 1234e30 -> 1.234e+33
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.push_all(first);
        if !rest.is_empty() {
            out.push(b'.');
            out.push_all(rest);
        }
        out.push(b'e');
        out.exponent(kk - 1);
    }
    out
}

/// The shortest text that reads back as `v`, in serde_json's form. `None` for NaN and
/// the infinities, which JSON cannot write.
pub(crate) fn f64_text(v: f64) -> Option<NumberText> {
    if !v.is_finite() {
        return None;
    }
    Some(lay_out(f64_digits(v)?.as_bytes(), &PLAIN_F64))
}

/// [`f64_text`] for an `f32`: the shortest digits that read back as the same `f32`.
pub(crate) fn f32_text(v: f32) -> Option<NumberText> {
    if !v.is_finite() {
        return None;
    }
    Some(lay_out(f32_digits(v)?.as_bytes(), &PLAIN_F32))
}

/// A finite float's shortest round-trip digits, as `core`'s `{:e}` writes them
/// (`1.25e-7`): the build without the `ryu` feature (which is on by default: it takes
/// `ryu`'s, `src/ryu.rs`, a third less flash, fewer instructions; README, "What each
/// feature costs in flash"). Compiled into the tests of either build, which pin the
/// two to each other.
#[cfg(any(test, not(feature = "ryu")))]
fn shortest<F: fmt::LowerExp>(v: F) -> Option<NumberText> {
    use core::fmt::Write as _;
    let mut sci = NumberText::new();
    write!(sci, "{v:e}").ok()?;
    Some(sci)
}

/// `units / 10^scale` in decimal: `(2150, 2)` is `21.50`, `(-5, 3)` is `-0.005`.
/// `None` when `scale` is over 19.
fn decimal_text(units: i64, scale: u8) -> Option<NumberText> {
    if scale > 19 {
        return None;
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut rest = units.unsigned_abs();
    loop {
        i -= 1;
        // `div10`: no 64-bit division routine on a 32-bit target.
        let (q, r) = super::number::div10(rest);
        if let Some(d) = digits.get_mut(i) {
            *d = b'0' + r;
        }
        rest = q;
        if rest == 0 || i == 0 {
            break;
        }
    }
    let digits = digits.get(i..).unwrap_or(&[]);
    let mut out = NumberText::new();
    if units < 0 {
        out.push(b'-');
    }
    let (k, scale) = (digits.len() as i32, i32::from(scale));
    if scale == 0 {
        out.push_all(digits);
    } else if k > scale {
        let (int, frac) = digits.split_at((k - scale) as usize);
        out.push_all(int);
        out.push(b'.');
        out.push_all(frac);
    } else {
        out.push_all(b"0.");
        out.zeros(scale - k);
        out.push_all(digits);
    }
    Some(out)
}

impl ResultWriter<'_> {
    /// A float, in the shortest form that reads back as the same `f64`, written as
    /// serde_json writes it (`1.0`, `0.1`, `1e-7`, `1.5e+300`). NaN and the infinities
    /// are refused with [`WriteError::Misuse`] (JSON has none; the reply becomes
    /// `-32603`).
    ///
    /// # Flash
    ///
    /// The digits come from `ryu` (the `ryu` feature, on by default; its `small`
    /// tables): in the README's flash-cost table one `f64` costs 9.1 KiB on a
    /// Cortex-M4F and 9.7 KiB on a Cortex-M0. Without the feature
    /// (`default-features = false`) they come from `core`'s float formatting (`{:e}`,
    /// the same text), which costs more: 14.1 KiB and 17.2 KiB, and 31 to 71 % more
    /// instructions a value on a host. A firmware that counts its flash writes
    /// fixed-point numbers instead: [`decimal`](Self::decimal) writes `2150` at scale 2
    /// as `21.50` with integer code only. A program that never calls `f64` or `f32`
    /// links neither.
    ///
    /// ```
    /// use jsonrpc_slice::ResultWriter;
    ///
    /// let mut buf = [0u8; 64];
    /// let mut w = ResultWriter::new(&mut buf);
    /// w.begin_array()?;
    /// for v in [0.1, 1.0, -2.5e-7, 1e21] {
    ///     w.f64(v)?;
    /// }
    /// w.end()?;
    /// assert_eq!(w.written(), b"[0.1,1.0,-2.5e-7,1e+21]");
    /// assert!(ResultWriter::new(&mut buf).f64(f64::NAN).is_err());
    /// # Ok::<(), jsonrpc_slice::WriteError>(())
    /// ```
    pub fn f64(&mut self, v: f64) -> Result<(), WriteError> {
        let text = f64_text(v).ok_or(WriteError::Misuse)?;
        self.number_text(&text)
    }

    /// A float, in the shortest form that reads back as the same `f32` (`0.1f32` is
    /// `0.1`, not the `0.10000000149011612` of its `f64`). As [`f64`](Self::f64)
    /// otherwise, flash cost included.
    pub fn f32(&mut self, v: f32) -> Result<(), WriteError> {
        let text = f32_text(v).ok_or(WriteError::Misuse)?;
        self.number_text(&text)
    }

    /// A fixed-point number, `units / 10^scale`, written exactly and with no float
    /// code: `decimal(2150, 2)` is `21.50`, `decimal(-5, 3)` is `-0.005`,
    /// `decimal(7, 0)` is `7`. A `scale` over 19 is refused with
    /// [`WriteError::Misuse`].
    ///
    /// ```
    /// use jsonrpc_slice::ResultWriter;
    ///
    /// // A sensor read in hundredths of a degree.
    /// let centidegrees: i64 = -1234;
    /// let mut buf = [0u8; 16];
    /// let mut w = ResultWriter::new(&mut buf);
    /// w.decimal(centidegrees, 2)?;
    /// assert_eq!(w.written(), b"-12.34");
    /// # Ok::<(), jsonrpc_slice::WriteError>(())
    /// ```
    pub fn decimal(&mut self, units: i64, scale: u8) -> Result<(), WriteError> {
        let text = decimal_text(units, scale).ok_or(WriteError::Misuse)?;
        self.number_text(&text)
    }

    /// A number's text as one value: all of it fits, or none of it is written.
    pub(crate) fn number_text(&mut self, text: &NumberText) -> Result<(), WriteError> {
        self.before_value()?;
        self.push(text.as_bytes())?;
        self.after_value();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(v: f64) -> &'static str {
        let t = f64_text(v).unwrap();
        std::string::String::from_utf8(t.as_bytes().to_vec())
            .unwrap()
            .leak()
    }

    extern crate std;

    #[test]
    fn forms_at_the_switch_points() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456.789, "123456.789"),
            (0.0001, "0.0001"),
            (0.00001, "0.00001"),
            (0.000001, "1e-6"),
            (-2.5e-7, "-2.5e-7"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
        ];
        for &(v, want) in cases {
            assert_eq!(f64s(v), want, "{v:e}");
        }
        assert!(f64_text(f64::NAN).is_none());
        assert!(f64_text(f64::INFINITY).is_none());
        assert!(f32_text(f32::NEG_INFINITY).is_none());
    }

    /// `ours` is serde_json's text, or (where two shortest forms are equally near, and
    /// the two libraries break the tie differently) another text of the same form and
    /// length that reads back as the same value.
    fn agrees(ours: &[u8], theirs: &str, same_value: impl Fn(&str) -> bool) -> bool {
        let ours = core::str::from_utf8(ours).unwrap();
        let shape = |s: &str| s.replace(|c: char| c.is_ascii_digit(), "d");
        ours == theirs || (shape(ours) == shape(theirs) && same_value(ours))
    }

    /// Pinned to serde_json, the form users of typed results know, on random bit
    /// patterns of both widths and on the powers of ten around each switch point.
    #[test]
    fn same_text_as_serde_json() {
        same_text_as_serde_json_by(f64_text, f32_text);
    }

    /// [`same_text_as_serde_json`] for `core`'s digits where the build takes `ryu`'s
    /// (the default): the build without the feature stays pinned by the plain test
    /// command.
    #[cfg(feature = "ryu")]
    #[test]
    fn same_text_as_serde_json_from_cores_digits() {
        let f64_core = |v: f64| {
            v.is_finite()
                .then(|| core_digits(v))
                .flatten()
                .map(|d| lay_out(d.as_bytes(), &PLAIN_F64))
        };
        let f32_core = |v: f32| {
            v.is_finite()
                .then(|| core_digits(v))
                .flatten()
                .map(|d| lay_out(d.as_bytes(), &PLAIN_F32))
        };
        same_text_as_serde_json_by(f64_core, f32_core);
    }

    /// The body of [`same_text_as_serde_json`], for the texts `f64_text` and
    /// `f32_text` give.
    fn same_text_as_serde_json_by(
        f64_text: impl Fn(f64) -> Option<NumberText>,
        f32_text: impl Fn(f32) -> Option<NumberText>,
    ) {
        let mut rng: u64 = 0x0123_4567_89AB_CDEF;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut checked = 0;
        let powers = (-30..=30).map(|p| 10f64.powi(p));
        for v in (0..200_000).map(|_| f64::from_bits(next())).chain(powers) {
            for v in [v, v * 1.5, -v] {
                if let Some(t) = f64_text(v) {
                    let theirs = serde_json::to_string(&v).unwrap();
                    let same = |s: &str| s.parse::<f64>() == Ok(v);
                    assert!(agrees(t.as_bytes(), &theirs, same), "{v:e}: {theirs}");
                    checked += 1;
                }
            }
        }
        let powers = (-30..=30).map(|p| 10f32.powi(p));
        for v in (0..200_000)
            .map(|_| f32::from_bits(next() as u32))
            .chain(powers)
        {
            for v in [v, v * 1.5, -v] {
                if let Some(t) = f32_text(v) {
                    let theirs = serde_json::to_string(&v).unwrap();
                    let same = |s: &str| s.parse::<f32>() == Ok(v);
                    assert!(agrees(t.as_bytes(), &theirs, same), "{v:e}: {theirs}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1_000_000, "{checked}");
    }

    /// Which digits the build lays out: `core`'s `{:e}`, or `ryu`'s with its feature.
    #[test]
    fn the_digits_come_from_the_writer_asked_for() {
        let want: &[u8] = if cfg!(feature = "ryu") {
            b"300.0"
        } else {
            b"3e2"
        };
        assert_eq!(f64_digits(300.0).unwrap().as_bytes(), want);
        assert_eq!(f64s(300.0), "300.0");
    }

    #[test]
    fn decimals() {
        let cases: &[(i64, u8, &str)] = &[
            (0, 0, "0"),
            (7, 0, "7"),
            (2150, 2, "21.50"),
            (-5, 3, "-0.005"),
            (5, 1, "0.5"),
            (-1234, 2, "-12.34"),
            (i64::MIN, 19, "-0.9223372036854775808"),
            (i64::MAX, 0, "9223372036854775807"),
            (1, 19, "0.0000000000000000001"),
        ];
        for &(units, scale, want) in cases {
            let t = decimal_text(units, scale).unwrap();
            assert_eq!(t.as_bytes(), want.as_bytes(), "{units} {scale}");
        }
        assert!(decimal_text(1, 20).is_none());
    }
}
