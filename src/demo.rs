//! The demo method table: the methods the specification's examples call, and three
//! helpers to try things by hand.
//!
//! The stdio server (`cargo run --release --example serve`), the firmware example, the
//! tests and the benchmarks all serve this table. Its handlers are generic over the
//! context, so another table (the firmware's, with its own `stats` and `shutdown`) can
//! list them next to its own methods without copying them.
//!
//! | method | params | result |
//! |---|---|---|
//! | `subtract` | `[a, b]` or `{"minuend": a, "subtrahend": b}`, integers | `a - b` |
//! | `sum` | an array of integers | their sum |
//! | `get_data` | none | `["hello", 5]` |
//! | `echo` | anything | the params, byte for byte (`null` without params) |
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
    // One pass over the params, either shape.
    let (a, b) = if params.is_positional() {
        let mut values = params.positional();
        match (values.next(), values.next(), values.next()) {
            (Some(a), Some(b), None) => (Some(a), Some(b)),
            _ => (None, None),
        }
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
        if count == 2 {
            (a, b)
        } else {
            (None, None)
        }
    };
    let int = |v: Option<RawJson<'_>>| v.and_then(|v| v.as_i64());
    let (Some(a), Some(b)) = (int(a), int(b)) else {
        return Err(RpcError::invalid_params());
    };
    let difference = a.checked_sub(b).ok_or(RpcError::invalid_params())?;
    Ok(out.i64(difference)?)
}

/// `sum`: an array of integers → their sum.
pub fn sum<'p, C>(
    _: &mut C,
    params: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    if !params.is_positional() {
        return Err(RpcError::invalid_params());
    }
    let mut total: i64 = 0;
    for v in params.positional() {
        let n = v.as_i64().ok_or(RpcError::invalid_params())?;
        total = total.checked_add(n).ok_or(RpcError::invalid_params())?;
    }
    Ok(out.i64(total)?)
}

/// `get_data` → `["hello", 5]`.
pub fn get_data<'p, C>(
    _: &mut C,
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    out.begin_array()?;
    out.str("hello")?;
    out.i64(5)?;
    Ok(out.end()?)
}

/// `echo` → its params, byte for byte, or `null` without params.
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
    const XS: &str = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    let mut values = params.positional();
    let n = match (values.next(), values.next()) {
        (Some(n), None) => n.as_u64().ok_or(RpcError::invalid_params())?,
        _ => return Err(RpcError::invalid_params()),
    };
    if !out.is_live() {
        return Ok(());
    }
    out.string_start()?;
    let mut left = n;
    while left > 0 {
        let take = left.min(XS.len() as u64) as usize;
        out.string_push(XS.get(..take).unwrap_or(XS))?;
        left -= take as u64;
    }
    Ok(out.string_end()?)
}

/// `update`, `notify_hello`, `notify_sum` → `null`.
pub fn null<'p, C>(_: &mut C, _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(())
}
