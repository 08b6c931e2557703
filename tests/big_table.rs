//! A table of 1,024 methods, sync (`method_table!`) and async (`async_method_table!`),
//! built at compile time like any other: it builds in moments without a lint override
//! (the duplicate check is not quadratic), every row is found (by its own handler, which
//! answers its row number), escapes in a name are decoded, and names that are not in the
//! table are refused.
//!
//! The names are `eth_getBlockByNumber_0000` … `eth_getBlockByNumber_1023`: all 25
//! bytes long and the same for their first 21, the worst case for a lookup that looks at
//! a prefix or the length. The rows are written by a macro (`rows!`) that counts them.

use std::future::Future;
use std::task::{Context, Poll, Waker};

use jsonrpc_slice::{
    async_method_table, method_table, AsyncServer, MethodTable, Params, RawJson, ResultWriter,
    RpcError, Server,
};

/// Row `K`'s handler: answers `K`.
fn row<'p, const K: u64>(
    _: &mut (),
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Ok(out.u64(K)?)
}

/// Row `K`'s async handler: answers `K`.
async fn async_row<'p, const K: u64>(
    _: &mut (),
    _: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Result<(), RpcError<'p>> {
    Ok(out.u64(K)?)
}

/// Appends each digit 0–9 to each number of the list, then hands the longer numbers
/// to the next macro named (the last one gets `[] [numbers] extra…`).
macro_rules! times10 {
    ([$next:ident $($later:ident)*] [$(($($digit:tt)*))*] $($extra:tt)*) => {
        $next! { [$($later)*] [$(
            ($($digit)* 0) ($($digit)* 1) ($($digit)* 2) ($($digit)* 3) ($($digit)* 4)
            ($($digit)* 5) ($($digit)* 6) ($($digit)* 7) ($($digit)* 8) ($($digit)* 9)
        )*] $($extra)* }
    };
}

/// The numbers 0000–1023 as four digits each, handed to `$table!` as
/// `[] [(0 0 0 0) … (0 9 9 9)] (1 0 0 0) … (1 0 2 3)`.
macro_rules! rows {
    ($table:ident) => {
        times10! { [times10 times10 $table] [(0)]
            (1 0 0 0) (1 0 0 1) (1 0 0 2) (1 0 0 3) (1 0 0 4)
            (1 0 0 5) (1 0 0 6) (1 0 0 7) (1 0 0 8) (1 0 0 9)
            (1 0 1 0) (1 0 1 1) (1 0 1 2) (1 0 1 3) (1 0 1 4)
            (1 0 1 5) (1 0 1 6) (1 0 1 7) (1 0 1 8) (1 0 1 9)
            (1 0 2 0) (1 0 2 1) (1 0 2 2) (1 0 2 3)
        }
    };
}

/// The sync table of the numbers.
macro_rules! sync_table {
    ([] [$($first:tt)*] $(($a:tt $b:tt $c:tt $d:tt))*) => {
        sync_table! { $($first)* $(($a $b $c $d))* }
    };
    ($(($a:tt $b:tt $c:tt $d:tt))*) => {
        method_table! { $(
            concat!("eth_getBlockByNumber_", $a, $b, $c, $d)
                => row::<{ $a * 1000 + $b * 100 + $c * 10 + $d }>,
        )* }
    };
}

/// The async table of the numbers.
macro_rules! async_table {
    ([] [$($first:tt)*] $(($a:tt $b:tt $c:tt $d:tt))*) => {
        async_table! { $($first)* $(($a $b $c $d))* }
    };
    ($(($a:tt $b:tt $c:tt $d:tt))*) => {
        async_method_table! {
            /// The 1,024 rows, awaited.
            Big<()> { $(
                concat!("eth_getBlockByNumber_", $a, $b, $c, $d)
                    => async_row::<{ $a * 1000 + $b * 100 + $c * 10 + $d }>,
            )* }
        }
    };
}

static TABLE: MethodTable<()> = rows!(sync_table);
static SYNC: Server<()> = Server::new(TABLE);

rows!(async_table);
static ASYNC: AsyncServer<(), Big> = AsyncServer::new(Big);

/// Polls to completion with a waker that does nothing.
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    // The tests run on stable; the minimum Rust version is the library's.
    #[allow(clippy::incompatible_msrv)]
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn call(method: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","method":"{method}","id":7}}"#).into_bytes()
}

/// The sync and the async reply to a call of `method` (the two must agree).
fn replies(method: &str) -> String {
    let msg = call(method);
    let (mut a, mut b) = ([0u8; 128], [0u8; 128]);
    let sync = SYNC.handle(&mut (), &msg, &mut a).unwrap();
    let awaited = block_on(ASYNC.handle(&mut (), &msg, &mut b)).unwrap();
    assert_eq!(sync, awaited, "{method}");
    String::from_utf8(sync.to_vec()).unwrap()
}

fn name(k: usize) -> String {
    format!("eth_getBlockByNumber_{k:04}")
}

#[test]
fn the_table_has_its_rows_in_order() {
    assert_eq!(TABLE.methods().len(), 1024);
    for (k, m) in TABLE.methods().iter().enumerate() {
        assert_eq!(m.name(), name(k));
    }
}

#[test]
fn every_row_is_found_and_runs_its_own_handler() {
    for k in 0..1024 {
        let name = name(k);
        let raw = format!("\"{name}\"");
        let sent = RawJson::new(raw.as_bytes()).unwrap().as_str().unwrap();
        assert_eq!(TABLE.position(sent), Some(k), "{name}");
        assert_eq!(
            replies(&name),
            format!(r#"{{"jsonrpc":"2.0","result":{k},"id":7}}"#)
        );
    }
}

#[test]
fn names_sent_with_escapes_are_decoded() {
    for k in [0, 1, 511, 1000, 1023] {
        let plain = name(k);
        // The first letter, and the last digit, escaped.
        let last = plain.as_bytes()[plain.len() - 1];
        let escaped = format!(r"\u0065{}\u00{:02x}", &plain[1..plain.len() - 1], last);
        assert_eq!(
            replies(&escaped),
            format!(r#"{{"jsonrpc":"2.0","result":{k},"id":7}}"#)
        );
    }
}

#[test]
fn names_not_in_the_table_are_refused() {
    let not_found =
        r#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":7}"#;
    for missing in [
        "eth_getBlockByNumber_1024",
        "eth_getBlockByNumber_",
        "eth_getBlockByNumber_00000",
        "eth_getBlockByNumber_000",
        "Eth_getBlockByNumber_0000",
        r"eth_getBlockByNumber_102\u0034",
        "",
        "e",
        "eth_getB",
    ] {
        assert_eq!(replies(missing), not_found, "{missing}");
    }
}
