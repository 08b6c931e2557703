//! Integers: their digits, written whole or not at all.

use super::{ResultWriter, WriteError};

// Which body each of `u64_digits`, `i64_digits` and `code_digits` takes: one file
// each, the build switch named here alone.
#[cfg_attr(jsonrpc_slice_fast, path = "digits_fast.rs")]
#[cfg_attr(not(jsonrpc_slice_fast), path = "digits_compact.rs")]
mod digits;

/// `(v / 10, v % 10)`. A 64-bit target divides by multiplying; on a 32-bit one, where
/// a 64-bit division is a library call (`__aeabi_uldivmod`, 0.9 KiB of flash on a
/// Cortex-M), the division is done in three 32-bit steps.
#[inline]
pub(super) fn div10(v: u64) -> (u64, u8) {
    if cfg!(target_pointer_width = "64") {
        return (v / 10, (v % 10) as u8);
    }
    div10_narrow(v)
}

/// `(v / 10, v % 10)` with 32-bit divisions only: long division of `v` split into a
/// 32-bit high part and two 16-bit low parts (each partial dividend stays below
/// 10 << 16, so it fits in 32 bits).
#[inline]
fn div10_narrow(v: u64) -> (u64, u8) {
    let (hi, lo) = ((v >> 32) as u32, v as u32);
    let (q_hi, r) = div10_u32(hi);
    let mid = (r << 16) | (lo >> 16);
    let (q_mid, r) = div10_u32(mid);
    let low = (r << 16) | (lo & 0xFFFF);
    let (q_low, r) = div10_u32(low);
    (
        (u64::from(q_hi) << 32) | u64::from((q_mid << 16) | q_low),
        r as u8,
    )
}

/// `(n / 10, n % 10)` as a multiply by 2^35 / 10 rounded up, then a shift: exact for
/// every `u32`. What a compiler makes of `n / 10` where the CPU multiplies into 64
/// bits (Cortex-M3, RV32IM); written out for the Cortex-M0, which has no divide
/// instruction and would call a 400-byte division routine for `/ 10`.
#[inline]
fn div10_u32(n: u32) -> (u32, u32) {
    let q = ((u64::from(n) * 0xCCCC_CCCD) >> 35) as u32;
    (q, n - q * 10)
}

impl ResultWriter<'_> {
    /// The digits of `v`, after a `-` if `minus`, in one push: all of the number
    /// fits, or none of it is written.
    // The other build's body too is compiled, for the tests that pin the two to
    // each other (`both_digit_writers_agree`, `five_digit_codes_are_their_digits`).
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline(always)]
    fn digits(&mut self, minus: bool, v: u64) -> Result<(), WriteError> {
        // The common small results, without the loop.
        if !minus && v < 10 {
            return self.push_byte(b'0' + v as u8);
        }
        if !minus && v < 100 {
            return self.push(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
        }
        self.digits_array(minus, v)
    }

    /// [`digits`](Self::digits) past the small cases: made in an array, pushed once.
    /// Out of line, so that a small number's digits cost their caller no frame.
    #[inline(never)]
    fn digits_array(&mut self, minus: bool, mut v: u64) -> Result<(), WriteError> {
        // 20 digits at most, and the sign.
        let mut digits = [0u8; 21];
        let mut i = digits.len();
        loop {
            i -= 1;
            let (q, r) = div10(v);
            if let Some(d) = digits.get_mut(i) {
                *d = b'0' + r;
            }
            v = q;
            if v == 0 || i == 0 {
                break;
            }
        }
        if minus {
            i -= 1;
            if let Some(d) = digits.get_mut(i) {
                *d = b'-';
            }
        }
        self.push(digits.get(i..).unwrap_or(&[]))
    }

    /// The digits of `v`, after a `-` if `minus`, in the compact build: written
    /// straight into the buffer last first, then turned around (no scratch array to
    /// clear, one division per digit, one copy of the code for both signs). All of
    /// the number fits, or none of it is written.
    // The other build's body too is compiled, for the tests that pin the two to
    // each other (`both_digit_writers_agree`, `five_digit_codes_are_their_digits`).
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline(never)]
    fn digits_in_place(&mut self, minus: bool, v: u64) -> Result<(), WriteError> {
        let mark = self.len;
        if minus {
            self.push_one(b'-')?;
        }
        let start = self.len;
        let mut rest = v;
        loop {
            let (q, r) = div10(rest);
            if let Err(e) = self.push_one(b'0' + r) {
                // All of the number or none of it.
                self.len = mark;
                return Err(e);
            }
            rest = q;
            if rest == 0 {
                break;
            }
        }
        // They came last first.
        if let Some(digits) = self.buf.get_mut(start..self.len) {
            digits.reverse();
        }
        Ok(())
    }

    /// A code of -99 999..=-10 000: a minus and five digits, in one push.
    // The other build's body too is compiled, for the tests that pin the two to
    // each other (`both_digit_writers_agree`, `five_digit_codes_are_their_digits`).
    #[cfg_attr(not(test), allow(dead_code))]
    #[inline(always)]
    fn five_digit_code(&mut self, code: i32) -> Result<(), WriteError> {
        let n = code.unsigned_abs();
        let digit = |d: u32| b'0' + (n / d % 10) as u8;
        self.push_array(&[
            b'-',
            digit(10_000),
            digit(1_000),
            digit(100),
            digit(10),
            digit(1),
        ])
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::*;
    use super::{div10_narrow, div10_u32};

    #[test]
    fn narrow_division_by_ten_is_exact() {
        let mut v: u64 = 0x9E37_79B9_7F4A_7C15;
        let edges = [
            0,
            9,
            10,
            11,
            u32::MAX as u64,
            u32::MAX as u64 + 1,
            u64::MAX - 1,
            u64::MAX,
        ];
        for x in edges.into_iter().chain((0..200_000).map(|_| {
            // xorshift: spread over the whole range and every magnitude.
            v ^= v << 13;
            v ^= v >> 7;
            v ^= v << 17;
            v >> (v % 64)
        })) {
            assert_eq!(div10_narrow(x), (x / 10, (x % 10) as u8), "{x}");
        }
    }

    #[test]
    fn division_by_ten_as_a_multiply_is_exact() {
        // The first error of a multiply-and-shift by a rounded-up reciprocal comes
        // where `n` is just below a multiple of 10: every such value near the ends of
        // the range, the 16-bit boundaries long division crosses, and a spread.
        let mut v: u32 = 0x9E37_79B9;
        let near = [0, 1 << 16, 10 << 16, 1 << 31, u32::MAX - 20];
        let around = near
            .into_iter()
            .flat_map(|base| base..=base.saturating_add(20));
        let spread = (0..1_000_000).map(|_| {
            v ^= v << 13;
            v ^= v >> 17;
            v ^= v << 5;
            v
        });
        for n in around
            .chain(spread)
            .chain((0..=u32::MAX).step_by(9_999_991))
        {
            assert_eq!(div10_u32(n), (n / 10, n % 10), "{n}");
        }
    }

    #[test]
    fn a_number_fits_whole_or_not_at_all() {
        for room in 0..6 {
            let mut buf = [0u8; 8];
            let mut w = ResultWriter::new(&mut buf[..room]);
            assert_eq!(w.i64(-12345), Err(WriteError::BufferFull), "room {room}");
            assert_eq!(w.written(), b"", "room {room}");
        }
        let mut buf = [0u8; 6];
        let mut w = ResultWriter::new(&mut buf);
        assert_eq!(w.i64(-12345), Ok(()));
        assert_eq!(w.written(), b"-12345");
    }

    /// The fast build's `digits` (small cases, then `digits_array`) and the compact
    /// build's `digits_in_place`, both compiled here: the same bytes, answer and full
    /// flag, for every sign, around every power of ten, in every room.
    #[test]
    fn both_digit_writers_agree() {
        let mut values = std::vec![0, 1, 9, 10, 99, 100, 101, 999, u64::MAX, 1 << 63];
        let mut p: u64 = 10;
        while let Some(next) = p.checked_mul(10) {
            values.extend([p - 1, p, p + 1]);
            p = next;
        }
        values.extend(0..1_000);
        for v in values {
            for minus in [false, true] {
                for room in 0..23 {
                    for live in [true, false] {
                        let mut one = [0u8; 22];
                        let mut two = [0u8; 22];
                        let mut fast = ResultWriter::new(&mut one[..room]);
                        let mut compact = ResultWriter::new(&mut two[..room]);
                        fast.set_live(live);
                        compact.set_live(live);
                        let what = (v, minus, room, live);
                        let got = fast.digits(minus, v);
                        assert_eq!(got, compact.digits_in_place(minus, v), "{what:?}");
                        assert_eq!(fast.written(), compact.written(), "{what:?}");
                        assert_eq!(fast.overflowed(), compact.overflowed(), "{what:?}");
                    }
                }
            }
        }
    }

    /// The fast build's five-digit error codes against the digits of any integer,
    /// for every code they serve, with room for them and one byte short.
    #[test]
    fn five_digit_codes_are_their_digits() {
        for code in -99_999..=-10_000 {
            for room in [5, 6] {
                let mut one = [0u8; 6];
                let mut two = [0u8; 6];
                let mut five = ResultWriter::new(&mut one[..room]);
                let mut any = ResultWriter::new(&mut two[..room]);
                let got = five.five_digit_code(code);
                assert_eq!(got, any.i64_digits(i64::from(code)), "{code} in {room}");
                assert_eq!(five.written(), any.written(), "{code} in {room}");
            }
        }
    }
}
