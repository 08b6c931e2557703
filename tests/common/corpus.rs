//! Where the conformance corpus is, and what happens when it is not there.
//!
//! The conformance tier (`tests/conformance/`, and the differential unit tests of
//! `scan` and `envelope`) reads the big external corpora: JSONTestSuite, the
//! specification's examples as published, captured traffic and the benchmark
//! messages. They are not part of the crate. The tier finds them:
//!
//! 1. in the folder named by the environment variable `JSONRPC_SLICE_CORPUS`, which
//!    must then exist (a name that points nowhere fails, it is not a skip);
//! 2. else at `../shared/corpus` beside the crate root.
//!
//! Without either, each test of the tier passes without checking anything, and the
//! first one to look prints one line to standard error (not captured by the test
//! harness) saying so and how to run it. With `CI=true` or
//! `JSONRPC_SLICE_REQUIRE_CORPUS=1` a missing corpus fails instead.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The environment variable that names the corpus folder.
pub const VAR: &str = "JSONRPC_SLICE_CORPUS";

/// The corpus folder, or `None` when it is absent and not required (after printing
/// the one line that says the tier was skipped). Panics when it is required.
pub fn corpus() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(locate).as_deref()
}

fn locate() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os(VAR).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(named);
        assert!(
            path.join("jsontestsuite").is_dir(),
            "{VAR}={} is not a corpus folder (it has no jsontestsuite/)",
            path.display()
        );
        return Some(path);
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if beside.join("jsontestsuite").is_dir() {
        return Some(beside);
    }
    let required = std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("JSONRPC_SLICE_REQUIRE_CORPUS").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "the conformance corpus is required (CI=true or JSONRPC_SLICE_REQUIRE_CORPUS=1) \
         but was not found: set {VAR}=/path/to/corpus or put it at {}",
        beside.display()
    );
    let _ = writeln!(
        std::io::stderr(),
        "conformance tier skipped: no corpus at {} and {VAR} unset \
         (run it with {VAR}=/path/to/corpus cargo test --all-features)",
        beside.display()
    );
    None
}
