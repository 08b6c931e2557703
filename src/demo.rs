//! The demo method table: the methods the specification's examples call, and three
//! helpers to try things by hand.
//!
//! The stdio server (`cargo run --release --features std`), the firmware example, the
//! tests and the benchmarks all serve this table. Its handlers are generic over the
//! context, so another table (the firmware's, with its own `stats` and `shutdown`) can
//! list them next to its own methods without copying them.
//!
//! | method | params | result |
//! |---|---|---|
//! | `subtract` | `[a, b]` or `{"minuend": a, "subtrahend": b}`, integers | `a - b` |
//! | `sum` | an array of integers | their sum |
//! | `get_data` | none | `["hello", 5]` |
//! | `echo` | anything | the params, byte for byte but for raw line breaks, which the writer drops (`null` without params) |
//! | `fail` | anything | error `-32000 "Server error"` with the params as `data` |
//! | `big` | `[n]` | a string of `n` `x` characters |
//! | `update`, `notify_hello`, `notify_sum` | anything | `null` |
//!
//! Any other shape of params is `-32602 Invalid params`; an integer result that would
//! overflow an `i64` too.

use crate::dispatch::MethodTable;
use crate::error::RpcError;
use crate::params::Params;
use crate::raw::RawJson;
use crate::write::ResultWriter;

/// The demo table, with the unit context.
pub static TABLE: MethodTable<()> = crate::method_table! {
    "subtract" => subtract,
    "sum" => sum,
    "get_data" => get_data,
    "echo" => echo,
    "fail" => fail,
    "big" => big,
    "update" => null,
    "notify_hello" => null,
    "notify_sum" => null,
};

/// The code `fail` answers with.
pub const FAIL_CODE: i32 = -32000;

/// `subtract`: `[a, b]` or `{"minuend": a, "subtrahend": b}` → `a - b`.
pub fn subtract<'p, C>(
    _: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    match operands(params).and_then(|(a, b)| a.checked_sub(b)) {
        Some(difference) => Ok(out.i64(difference)?),
        None => Err(RpcError::invalid_params()),
    }
}

/// The two integers of `subtract`, read in one pass over the params, either shape.
fn operands(params: Params<'_>) -> Option<(i64, i64)> {
    let (a, b) = if params.is_positional() {
        let mut values = params.positional();
        let (a, b) = (values.next()?, values.next()?);
        if values.next().is_some() {
            return None;
        }
        (a, b)
    } else {
        let (mut a, mut b, mut count) = (None, None, 0);
        for (name, value) in params.named() {
            count += 1;
            if name.eq_str("minuend") {
                a = Some(value);
            } else if name.eq_str("subtrahend") {
                b = Some(value);
            }
        }
        if count != 2 {
            return None;
        }
        (a?, b?)
    };
    Some((a.as_i64()?, b.as_i64()?))
}

/// `sum`: an array of integers → their sum.
pub fn sum<'p, C>(
    _: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let total = if params.is_positional() {
        params
            .positional()
            .try_fold(0i64, |total, v| total.checked_add(v.as_i64()?))
    } else {
        None
    };
    match total {
        Some(total) => Ok(out.i64(total)?),
        None => Err(RpcError::invalid_params()),
    }
}

/// `get_data` → `["hello", 5]`.
pub fn get_data<'p, C>(
    _: &mut C,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    // Each write's error converted once, at the end.
    let written = out
        .begin_array()
        .and_then(|()| out.str("hello"))
        .and_then(|()| out.i64(5))
        .and_then(|()| out.end());
    Ok(written?)
}

/// `echo` → its params, byte for byte but for raw line breaks (JSON whitespace, which
/// the writer drops so that a reply stays one line), or `null` without params.
pub fn echo<'p, C>(
    _: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Ok(out.raw(params.raw().unwrap_or(RawJson::NULL))?)
}

/// `fail` → error `-32000 "Server error"` whose `data` is its params.
pub fn fail<'p, C>(
    _: &mut C,
    params: Params<'p>,
    _: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    let e = RpcError::new(FAIL_CODE, "Server error");
    Err(match params.raw() {
        Some(data) => e.with_data(data),
        None => e,
    })
}

/// `big`: `[n]` → a string of `n` `x` characters (it exercises the reply limit).
pub fn big<'p, C>(
    _: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    const XS: &str = "xxxxxxxxxxxxxxxx";
    let mut values = params.positional();
    let Some(n) = (match (values.next(), values.next()) {
        (Some(n), None) => n.as_u64(),
        _ => None,
    }) else {
        return Err(RpcError::invalid_params());
    };
    if !out.is_live() {
        return Ok(());
    }
    // More than a `usize` is more than any buffer: the writer refuses it all the same.
    let mut left = usize::try_from(n).unwrap_or(usize::MAX);
    let mut written = out.string_start();
    while left > 0 && written.is_ok() {
        let take = left.min(XS.len());
        written = out.string_push(XS.get(..take).unwrap_or(XS));
        left -= take;
    }
    Ok(written.and_then(|()| out.string_end())?)
}

/// `update`, `notify_hello`, `notify_sum` → `null`.
pub fn null<'p, C>(_: &mut C, _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(())
}
