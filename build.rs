//! The one build switch, declared once: `jsonrpc_slice_fast`, set on 64-bit targets
//! unless the compact build (what 32-bit targets such as a Cortex-M always get) is
//! asked for, by `--cfg jsonrpc_slice_compact` or by `JSONRPC_SLICE_COMPACT=1` in the
//! environment (the same switch; the variable reaches this crate alone, so a build
//! with it reuses the dependencies already built without it, where RUSTFLAGS rebuilds
//! them all). The code says `cfg(jsonrpc_slice_fast)`
//! (and `scan::FAST_PATHS`), never the condition itself. See "The compact build" in
//! `docs/DESIGN.md`. Within the fast build, `jsonrpc_slice_wide` marks x86_64 with the
//! `std` feature, where `simd::widest` picks the walk's AVX2 copy at run time.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(jsonrpc_slice_fast)");
    println!("cargo::rustc-check-cfg=cfg(jsonrpc_slice_compact)");
    println!("cargo::rustc-check-cfg=cfg(jsonrpc_slice_wide)");
    println!("cargo::rerun-if-env-changed=CARGO_CFG_JSONRPC_SLICE_COMPACT");
    println!("cargo::rerun-if-env-changed=JSONRPC_SLICE_COMPACT");
    let sixty_four = std::env::var("CARGO_CFG_TARGET_POINTER_WIDTH").is_ok_and(|w| w == "64");
    let compact = std::env::var_os("CARGO_CFG_JSONRPC_SLICE_COMPACT").is_some()
        || std::env::var_os("JSONRPC_SLICE_COMPACT").is_some_and(|v| v == "1");
    if sixty_four && !compact {
        println!("cargo::rustc-cfg=jsonrpc_slice_fast");
        // With `std` on x86_64, the walk has a second copy for AVX2, chosen at run time.
        let x86_64 = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
        let sse2 = std::env::var("CARGO_CFG_TARGET_FEATURE")
            .is_ok_and(|f| f.split(',').any(|f| f == "sse2"));
        if x86_64 && sse2 && std::env::var_os("CARGO_FEATURE_STD").is_some() {
            println!("cargo::rustc-cfg=jsonrpc_slice_wide");
        }
    }
}
