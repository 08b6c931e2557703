//! Typed decoding of deeply nested values, for `benches/typed_nested.sh` (callgrind).
//!
//!   typed_nested SHAPE IMPL DEPTH N
//!
//! SHAPE: `arrays` (`[[[…[1]…]]]`) or `objects` (`{"a":{"a":…{"a":1}…}}`), eight such
//! nests side by side in one array, each reaching DEPTH levels in all (the outer array
//! counted). IMPL: `slice` (`RawJson::decode` into `serde_json::Value`) or `serde_json`
//! (`serde_json::from_slice` into the same type). `measured` decodes the input N times;
//! the script counts the instructions inside it and divides by N and by the input's size.
//!
//! A bench of the root package (feature `serde`), not of `benches/Cargo.toml`'s: it needs
//! only the root's dev-dependencies.

use jsonrpc_slice::RawJson;

/// Eight nests of `depth - 1` levels, side by side in one array.
fn input(shape: &str, depth: usize) -> Vec<u8> {
    let (open, close): (&[u8], &[u8]) = match shape {
        "arrays" => (b"[", b"]"),
        "objects" => (br#"{"a":"#, b"}"),
        _ => usage(),
    };
    let mut nest = Vec::new();
    for _ in 1..depth {
        nest.extend_from_slice(open);
    }
    nest.push(b'1');
    for _ in 1..depth {
        nest.extend_from_slice(close);
    }
    let mut all = b"[".to_vec();
    for k in 0..8 {
        if k > 0 {
            all.push(b',');
        }
        all.extend_from_slice(&nest);
    }
    all.push(b']');
    all
}

/// Decodes `input` `n` times with `imp`; what callgrind counts.
#[inline(never)]
fn measured(imp: &str, input: &[u8], n: usize) -> usize {
    let mut total = 0;
    for _ in 0..n {
        let v: serde_json::Value = match imp {
            "slice" => RawJson::new(input).unwrap().decode().unwrap(),
            "serde_json" => serde_json::from_slice(input).unwrap(),
            _ => usage(),
        };
        total += std::hint::black_box(v).as_array().map_or(0, Vec::len);
    }
    total
}

fn usage() -> ! {
    eprintln!("usage: typed_nested arrays|objects slice|serde_json DEPTH N");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [shape, imp, depth, n] = &args[..] else {
        usage()
    };
    let (Ok(depth), Ok(n)) = (depth.parse(), n.parse()) else {
        usage()
    };
    let input = input(shape, depth);
    // Both decode the same value (checked outside the measured part).
    let ours: serde_json::Value = RawJson::new(&input).unwrap().decode().unwrap();
    let theirs: serde_json::Value = serde_json::from_slice(&input).unwrap();
    assert_eq!(ours, theirs);
    println!("{} {}", input.len(), measured(imp, &input, n));
}
