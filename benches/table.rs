//! The method table's lookup alone, counted by callgrind: `MethodTable::find` of one
//! name, `N` times, inside one function (`measured_find`) that `benches/table.sh` has
//! callgrind count (`--toggle-collect`), so the count divided by `N` is the
//! instructions one lookup costs (plus the loop's own few).
//!
//! ```text
//! table <demo|big> <first|middle|last|missing> <N>   one lookup, N times
//! table <demo|big> all <N>                            every row of the table in turn, N times
//! table loop <N>                                      the measuring loop alone (its own few instructions)
//! table check                                        every row found, a missing name not (what `cargo bench` runs)
//! ```
//!
//! `demo` is `demo::TABLE` (9 methods); `big` a table of 1,024 methods named
//! `eth_getBlockByNumber_0000` … `eth_getBlockByNumber_1023` (all 25 bytes, the same
//! first 21: the worst case for anything that looks at a prefix or the length). The
//! missing name is `eth_getBlockByNumber_1024`. Run `benches/table.sh` for the table.

mod common;

use std::hint::black_box;

use jsonrpc_slice::{demo, Method, MethodTable, Params, RawJson, RawStr, ResultWriter, RpcError};

/// A handler for every generated name.
fn null<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(())
}

/// The names of the big table, in table order.
fn big_names() -> Vec<&'static str> {
    (0..1024)
        .map(|k| &*Box::leak(format!("eth_getBlockByNumber_{k:04}").into_boxed_str()))
        .collect()
}

/// The big table (built at run time, leaked: the lookup is the same as for a table
/// built at compile time).
fn big_table(names: &[&'static str]) -> MethodTable<()> {
    let rows: Vec<Method<()>> = names.iter().map(|n| Method::new(n, null)).collect();
    common::leaked_table(rows)
}

/// `name` as the envelope parser hands it over: the inside of a JSON string.
fn raw_str(name: &str) -> RawStr<'static> {
    let json: &'static [u8] = Box::leak(format!("\"{name}\"").into_bytes().into_boxed_slice());
    RawJson::new(json).unwrap().as_str().unwrap()
}

/// Counted by callgrind: everything under this function, nothing else.
#[inline(never)]
fn measured_find(table: &MethodTable<()>, name: RawStr<'_>, n: usize) {
    for _ in 0..n {
        black_box(black_box(table).find(black_box(name)));
    }
}

/// Counted by callgrind too: the loop of `measured_find` alone, its `black_box`es and
/// all, with a lookup that does nothing (`benches/table.sh` prints it).
#[inline(never)]
fn measured_loop(table: &MethodTable<()>, name: RawStr<'_>, n: usize) {
    for _ in 0..n {
        black_box((black_box(table).methods(), black_box(name)));
    }
}

/// Counted by callgrind too: each of `names` in turn, `n` times over.
#[inline(never)]
fn measured_find_all(table: &MethodTable<()>, names: &[RawStr<'_>], n: usize) {
    for _ in 0..n {
        for &name in names {
            black_box(black_box(table).find(black_box(name)));
        }
    }
}

fn pick<'a>(names: &[&'a str], which: &str) -> (&'a str, bool) {
    match which {
        "first" => (names[0], true),
        "middle" => (names[names.len() / 2], true),
        "last" => (names[names.len() - 1], true),
        "missing" => ("eth_getBlockByNumber_1024", false),
        _ => panic!("first, middle, last or missing, not {which}"),
    }
}

/// Every row is found, and names not in the table are not.
fn check(table: &MethodTable<()>, names: &[&str]) {
    for (k, name) in names.iter().enumerate() {
        assert_eq!(table.position(raw_str(name)), Some(k), "{name}");
        assert!(table.find(raw_str(name)).is_some(), "{name}");
    }
    for missing in [
        "eth_getBlockByNumber_1024",
        "eth_getBlockByNumber_",
        "",
        "sum ",
    ] {
        assert!(table.find(raw_str(missing)).is_none(), "{missing}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let names = big_names();
    let big = big_table(&names);
    let demo_names: Vec<&str> = demo::TABLE.methods().iter().map(|m| m.name()).collect();
    match args.as_slice() {
        [table, which, count] => {
            let n: usize = count.parse().expect("N");
            let (table, names) = match *table {
                "demo" => (&demo::TABLE, &demo_names),
                "big" => (&big, &names),
                _ => panic!("demo or big, not {table}"),
            };
            if *which == "all" {
                let sent: Vec<RawStr<'_>> = names.iter().map(|name| raw_str(name)).collect();
                assert!(sent.iter().all(|&name| table.find(name).is_some()));
                measured_find_all(table, &sent, n);
                return;
            }
            let (name, present) = pick(names, which);
            assert_eq!(table.find(raw_str(name)).is_some(), present);
            measured_find(table, raw_str(name), n);
        }
        ["loop", count] => {
            let n: usize = count.parse().expect("N");
            measured_loop(&big, raw_str(names[1023]), n);
        }
        // `cargo bench` runs the bench with `--bench`: the check only.
        _ => {
            check(&big, &names);
            check(&demo::TABLE, &demo_names);
            println!("table: every row found, missing names not");
        }
    }
}
