//! Instructions per byte of writing a string into a reply (`ResultWriter::str`),
//! counted by callgrind: the slope between a 256 KiB and a 1 MiB string, so that the
//! fixed costs (the quotes, the call) drop out.
//!
//! ```text
//! cargo bench -p jsonrpc-slice-benches --bench write_per_byte            the table (runs itself under valgrind)
//! write_per_byte one <plain|every8> <BYTES>     one string, once (what valgrind runs)
//! ```
//!
//! Two strings: `plain`, printable ASCII that needs no escape, and `every8`, the same
//! with every 8th byte a `"` (escaped as `\"`). Needs `valgrind` on the `PATH`; without
//! it the table is not printed and the run only checks the written bytes.

use std::hint::black_box;
use std::process::Command;

use jsonrpc_slice::ResultWriter;

/// The two sizes of the slope.
const SMALL: usize = 256 << 10;
const LARGE: usize = 1 << 20;

/// A string of `len` bytes of the given shape.
fn text(shape: &str, len: usize) -> String {
    (0..len)
        .map(|i| match shape {
            "every8" if i % 8 == 7 => '"',
            _ => (b'a' + (i % 26) as u8) as char,
        })
        .collect()
}

/// Counted by callgrind: everything under this function, nothing else.
#[inline(never)]
fn measured(s: &str, out: &mut [u8]) -> usize {
    let mut w = ResultWriter::new(out);
    w.str(black_box(s)).expect("fits");
    w.written().len()
}

/// Instructions inside `measured` for one string, by callgrind.
fn count(exe: &str, shape: &str, len: usize) -> Option<u64> {
    let file = std::env::temp_dir().join(format!(
        "write_per_byte.{}.{shape}.{len}.cg",
        std::process::id()
    ));
    let status = Command::new("valgrind")
        .args(["--tool=callgrind", "--toggle-collect=*measured*"])
        .arg(format!("--callgrind-out-file={}", file.display()))
        .args([exe, "one", shape, &len.to_string()])
        .output()
        .ok()?;
    if !status.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&status.stderr));
        return None;
    }
    let out = std::fs::read_to_string(&file).ok()?;
    let _ = std::fs::remove_file(&file);
    out.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|t| t.trim().parse().ok())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if let ["one", shape, len] = args.as_slice() {
        let s = text(shape, len.parse().expect("BYTES"));
        let mut out = vec![0u8; s.len() * 2 + 16];
        let n = measured(&s, &mut out);
        black_box(n);
        return;
    }
    // Check what is written, then count.
    for shape in ["plain", "every8"] {
        let s = text(shape, 1000);
        let mut out = vec![0u8; 4096];
        let n = measured(&s, &mut out);
        let want = format!("\"{}\"", s.replace('"', "\\\""));
        assert_eq!(&out[..n], want.as_bytes(), "{shape}");
    }
    let exe = std::env::current_exe().expect("own path");
    let exe = exe.to_str().expect("a UTF-8 path");
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("write_per_byte: valgrind not found; checked the output only");
        return;
    }
    println!("| string | instructions at 256 KiB | at 1 MiB | per byte (slope) |");
    println!("|---|---|---|---|");
    for shape in ["plain", "every8"] {
        let (Some(small), Some(large)) = (count(exe, shape, SMALL), count(exe, shape, LARGE))
        else {
            println!("| {shape} | callgrind failed | | |");
            continue;
        };
        let slope = (large as f64 - small as f64) / (LARGE - SMALL) as f64;
        println!("| {shape} | {small} | {large} | {slope:.2} |");
    }
}
