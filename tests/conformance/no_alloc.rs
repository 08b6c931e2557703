//! No heap allocation on the conformance corpus: every benchmark message, every request
//! of the specification's examples as published, every JSONTestSuite file (whole, and
//! as the params of an `echo`), and every message of the captured traffic, through
//! `Server::handle` under the counting allocator of `tests/common/counting.rs`.

use std::path::{Path, PathBuf};

use crate::counting::{case, no_allocation_in, the_counter_works, Case, Want};

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot read {} ({e})", d.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {} ({e})", path.display()))
}

fn all_cases() -> Vec<Case> {
    let corpus = crate::corpus().expect("the test checks for the corpus first");
    let mut cases = Vec::new();

    let bench = files_under(&corpus.join("bench"));
    assert!(bench.len() >= 8, "benchmark files: {bench:?}");
    for path in bench {
        let label = format!("bench {}", path.display());
        cases.push(case(label, read(&path), Want::Any));
    }

    let spec: Vec<Vec<u8>> = crate::spec_examples::examples()
        .into_iter()
        .map(|e| e.request)
        .collect();
    assert_eq!(spec.len(), 15, "spec example requests");
    for (i, input) in spec.into_iter().enumerate() {
        cases.push(case(format!("spec request {i}"), input, Want::Any));
    }

    let suite = files_under(&corpus.join("jsontestsuite/test_parsing"));
    assert!(suite.len() > 300, "JSONTestSuite files: {}", suite.len());
    for path in suite {
        let bytes = read(&path);
        // Whole, and as the params of an echo (where it parses).
        let mut wrapped = br#"{"jsonrpc":"2.0","method":"echo","params":["#.to_vec();
        wrapped.extend_from_slice(&bytes);
        wrapped.extend_from_slice(br#"],"id":1}"#);
        cases.push(case(format!("suite {}", path.display()), bytes, Want::Any));
        cases.push(case(
            format!("suite in echo {}", path.display()),
            wrapped,
            Want::Any,
        ));
    }

    for path in files_under(&corpus.join("traffic")) {
        let bytes = read(&path);
        if path.extension().is_some_and(|e| e == "io") {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            for (n, line) in text.lines().enumerate() {
                if let Some(msg) = line.strip_prefix(">> ").or(line.strip_prefix("<< ")) {
                    let label = format!("traffic {}:{}", path.display(), n + 1);
                    cases.push(case(label, msg.as_bytes().to_vec(), Want::Any));
                }
            }
        }
        cases.push(case(
            format!("traffic {}", path.display()),
            bytes,
            Want::Any,
        ));
    }

    cases
}

#[test]
fn no_allocation_on_the_corpus() {
    let Some(_) = crate::corpus() else { return };
    the_counter_works();
    no_allocation_in(&all_cases());
}
