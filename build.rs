//! The one build switch, declared once: `jsonrpc_slice_fast`, set on 64-bit targets
//! unless `--cfg jsonrpc_slice_compact` asks for the compact build (what 32-bit
//! targets such as a Cortex-M always get). The code says `cfg(jsonrpc_slice_fast)`
//! (and `scan::FAST_PATHS`), never the condition itself. See "The compact build" in
//! `docs/DESIGN.md`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(jsonrpc_slice_fast)");
    println!("cargo::rustc-check-cfg=cfg(jsonrpc_slice_compact)");
    println!("cargo::rerun-if-env-changed=CARGO_CFG_JSONRPC_SLICE_COMPACT");
    let wide = std::env::var("CARGO_CFG_TARGET_POINTER_WIDTH").is_ok_and(|w| w == "64");
    let compact = std::env::var_os("CARGO_CFG_JSONRPC_SLICE_COMPACT").is_some();
    if wide && !compact {
        println!("cargo::rustc-cfg=jsonrpc_slice_fast");
    }
}
