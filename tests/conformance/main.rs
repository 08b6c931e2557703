//! The conformance tier: the crate against the big external corpora, which are not part
//! of the crate (JSONTestSuite, the specification's examples as published, captured
//! Ethereum, LSP and MCP traffic, the benchmark messages).
//!
//! Where the corpus is looked for, and what happens without it, is in
//! `tests/common/corpus.rs`: in short, `JSONRPC_SLICE_CORPUS=/path/to/corpus`, else
//! `../shared/corpus` beside the crate; without either every test here passes without
//! checking anything and one line on standard error says the tier was skipped
//! (`CI=true` makes a missing corpus a failure). The crate's own vectors, in the other
//! test files, need nothing beside the crate.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/counting.rs"]
mod counting;

mod jsontestsuite;
mod no_alloc;
mod round_trip;
mod spec_examples;

/// The corpus folder, or `None` when the tier is skipped (see `tests/common/corpus.rs`).
fn corpus() -> Option<&'static std::path::Path> {
    common::corpus::corpus()
}
