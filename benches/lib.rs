//! The bench package's library: nothing of its own (the benches share `common/mod.rs` as
//! a module). Cargo asks a package for a library or a binary.
