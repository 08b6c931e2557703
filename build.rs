//! The one build switch, declared once: `jsonrpc_slice_fast`, the build that optimises
//! for speed, or its absence, the compact build, that optimises for flash and stack.
//! By default the pointer width decides: 64-bit targets get the fast build, 32-bit
//! targets such as a Cortex-M the compact one. Either can be asked for on any target:
//!
//! - the compact build by `--cfg jsonrpc_slice_compact` or `JSONRPC_SLICE_COMPACT=1`;
//! - the fast build by `--cfg jsonrpc_slice_fast` or `JSONRPC_SLICE_FAST=1` (a 32-bit
//!   host, wasm32 or armv7 Linux, that wants speed over size).
//!
//! Each cfg and its variable are the same switch; the variable reaches this crate
//! alone, so a build with it reuses the dependencies already built without it, where
//! RUSTFLAGS rebuilds them all. Asking for both is an error. The code says
//! `cfg(jsonrpc_slice_fast)`, never the condition itself, and names it once per concern
//! where it can (`#[cfg_attr(jsonrpc_slice_fast, path = "..._fast.rs")]`). See
//! "The compact build" in `docs/DESIGN.md`. Nothing picks code by the CPU at run time
//! but the UTF-8 check on x86_64 (simdutf8 with `std`, AVX2 nibble lookups without,
//! `src/simd/lookup.rs`) and the scanner's one-pass string loop (AVX-512 where the
//! compiler is 1.89 or newer, `jsonrpc_slice_avx512`, else AVX2): on x86_64, `-C target-cpu=x86-64-v3` gives the whole crate
//! AVX2 and BMI.

use std::env;

/// The minor version of the compiler that builds the crate (`rustc -vV`'s
/// `release: 1.X.Y`), `None` where it cannot be asked or read.
fn rustc_minor() -> Option<u32> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(rustc).arg("-vV").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let release = text.lines().find_map(|l| l.strip_prefix("release: "))?;
    let mut parts = release.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}

/// `true` if the build `name` (`COMPACT`, `FAST`) was asked for, by its cfg or by its
/// environment variable.
fn asked(name: &str) -> bool {
    env::var_os(format!("CARGO_CFG_JSONRPC_SLICE_{name}")).is_some()
        || env::var_os(format!("JSONRPC_SLICE_{name}")).is_some_and(|v| v == "1")
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(jsonrpc_slice_fast)");
    println!("cargo::rustc-check-cfg=cfg(jsonrpc_slice_compact)");
    println!("cargo::rustc-check-cfg=cfg(jsonrpc_slice_avx512)");
    println!("cargo::rerun-if-env-changed=RUSTC");
    // The AVX-512 intrinsics and target features are stable from Rust 1.89; the crate
    // builds at 1.81, so the one-pass string loop on 64-byte vectors
    // (`src/simd/string_avx512.rs`) is compiled only where the compiler has them.
    let x86_64 = env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
    if x86_64 && rustc_minor().is_some_and(|m| m >= 89) {
        println!("cargo::rustc-cfg=jsonrpc_slice_avx512");
    }
    for name in ["COMPACT", "FAST"] {
        println!("cargo::rerun-if-env-changed=CARGO_CFG_JSONRPC_SLICE_{name}");
        println!("cargo::rerun-if-env-changed=JSONRPC_SLICE_{name}");
    }
    let sixty_four = env::var("CARGO_CFG_TARGET_POINTER_WIDTH").is_ok_and(|w| w == "64");
    let (compact, fast) = (asked("COMPACT"), asked("FAST"));
    if compact && fast {
        panic!(
            "jsonrpc-slice: both the compact build (JSONRPC_SLICE_COMPACT=1 or \
             --cfg jsonrpc_slice_compact) and the fast build (JSONRPC_SLICE_FAST=1 or \
             --cfg jsonrpc_slice_fast) were asked for; ask for one"
        );
    }
    // What was asked for, for the test that checks the build is that one
    // (`scan::tests::the_build_is_the_one_asked_for`).
    let asked_for = if fast {
        "fast"
    } else if compact {
        "compact"
    } else {
        ""
    };
    println!("cargo::rustc-env=JSONRPC_SLICE_ASKED={asked_for}");
    if fast || (sixty_four && !compact) {
        println!("cargo::rustc-cfg=jsonrpc_slice_fast");
    }
}
