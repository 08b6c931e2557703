//! Puts the chosen board's memory map on the linker search path as `memory.x` (which
//! cortex-m-rt's `link.x` and the RISC-V board's `riscv.x` include), with `riscv.x`
//! beside it, and adds defmt's linker script when the `defmt` feature is on.

use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let boards = ["lm3s6965", "microbit", "sifive_e"];
    let chosen: Vec<&str> = boards
        .into_iter()
        .filter(|b| env::var_os(format!("CARGO_FEATURE_{}", b.to_uppercase())).is_some())
        .collect();
    let [board] = chosen[..] else {
        panic!("choose one board feature of {boards:?} (got {chosen:?})");
    };
    let memory = fs::read(format!("memory/{board}.x")).expect("read the board's memory map");
    fs::write(out.join("memory.x"), memory).expect("write memory.x");
    fs::write(out.join("riscv.x"), include_bytes!("riscv.x")).expect("write riscv.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory");
    println!("cargo:rerun-if-changed=riscv.x");
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_DEFMT").is_some() {
        println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
    }
}
