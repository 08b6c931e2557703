//! Every example of the JSON-RPC 2.0 specification (section 7), replayed against the
//! demo server byte for byte.
//!
//! The examples are read at run time from the conformance corpus,
//! `jsonrpc-spec/README.md`, section "The examples, byte for byte". In its fenced code blocks a line starting with `--> `
//! opens a request and a line starting with `<-- ` opens the expected response; either
//! continues on the following lines until the next `-->` / `<--` line, a blank line,
//! or the end of the block. A request with no response after it expects no reply at all.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::spec::{exact_buffer_failures, raw_ids, reply_failures, show, Example};
use crate::common::vectors::spec_examples;

/// The 12 example sections of the specification.
const SECTIONS: usize = 12;
/// Request/response pairs per section, in order (3 has two notifications, 1 and 2 two
/// calls each).
const PAIRS_PER_SECTION: [usize; SECTIONS] = [2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1];
/// All request/response pairs.
const PAIRS: usize = 15;

fn readme_path() -> PathBuf {
    crate::corpus()
        .expect("the tests check for the corpus first")
        .join("jsonrpc-spec/README.md")
}

fn read_readme() -> String {
    let path = readme_path();
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the JSON-RPC spec examples at {}: {e}\n\
             (see tests/common/corpus.rs)",
            path.display()
        )
    })
}

enum Open {
    Nothing,
    Request(Vec<String>),
    Response(Vec<String>),
}

/// Extracts the examples of the "The examples, byte for byte" section.
fn extract(readme: &str) -> Vec<Example> {
    let start = readme
        .find("\n## The examples, byte for byte")
        .expect("README has no section \"## The examples, byte for byte\"");
    let body = &readme[start + 1..];
    // The section ends at the next level-2 heading.
    let body = match body[3..].find("\n## ") {
        Some(end) => &body[..end + 3],
        None => body,
    };

    let mut examples: Vec<Example> = Vec::new();
    let mut section: Option<String> = None;
    let mut in_block = false;
    let mut open = Open::Nothing;
    // Requests of the current block still waiting to learn whether a response follows.
    let mut pending: Option<Vec<u8>> = None;

    fn close(
        open: &mut Open,
        pending: &mut Option<Vec<u8>>,
        examples: &mut Vec<Example>,
        section: &str,
    ) {
        match std::mem::replace(open, Open::Nothing) {
            Open::Nothing => {}
            Open::Request(lines) => {
                // A request right after another one: the earlier one has no response.
                if let Some(request) = pending.take() {
                    examples.push(Example {
                        section: section.to_owned(),
                        request,
                        response: None,
                    });
                }
                *pending = Some(lines.join("\n").into_bytes());
            }
            Open::Response(lines) => {
                let request = pending
                    .take()
                    .unwrap_or_else(|| panic!("a response without a request in {section}"));
                examples.push(Example {
                    section: section.to_owned(),
                    request,
                    response: Some(lines.join("\n").into_bytes()),
                });
            }
        }
    }

    for line in body.split('\n') {
        if !in_block {
            if let Some(title) = line.strip_prefix("### ") {
                section = Some(title.to_owned());
            } else if line.starts_with("```") {
                in_block = true;
            }
            continue;
        }
        let here = section
            .clone()
            .expect("a code block before the first example heading");
        if line.starts_with("```") {
            close(&mut open, &mut pending, &mut examples, &here);
            if let Some(request) = pending.take() {
                examples.push(Example {
                    section: here,
                    request,
                    response: None,
                });
            }
            in_block = false;
        } else if let Some(rest) = line.strip_prefix("--> ") {
            close(&mut open, &mut pending, &mut examples, &here);
            open = Open::Request(vec![rest.to_owned()]);
        } else if let Some(rest) = line.strip_prefix("<-- ") {
            close(&mut open, &mut pending, &mut examples, &here);
            open = Open::Response(vec![rest.to_owned()]);
        } else if line.is_empty() {
            // A blank line ends the message being read (none of the examples has one
            // inside a message).
            close(&mut open, &mut pending, &mut examples, &here);
        } else {
            match &mut open {
                Open::Request(lines) | Open::Response(lines) => lines.push(line.to_owned()),
                Open::Nothing => panic!("a line outside any message in {here}: {line:?}"),
            }
        }
    }
    assert!(!in_block, "unterminated code block in the examples section");
    examples
}

/// The examples as published in the corpus.
pub(crate) fn examples() -> Vec<Example> {
    extract(&read_readme())
}

#[test]
fn readme_is_where_the_tests_look() {
    let Some(_) = crate::corpus() else { return };
    let path = readme_path();
    assert!(
        path.is_file(),
        "the JSON-RPC spec examples are missing: expected {}",
        path.display()
    );
}

#[test]
fn extraction_finds_every_example() {
    let Some(_) = crate::corpus() else { return };
    let examples = examples();
    assert_eq!(
        examples.len(),
        PAIRS,
        "request/response pairs extracted: {examples:#?}"
    );

    let mut sections: Vec<(String, usize)> = Vec::new();
    for e in &examples {
        match sections.last_mut() {
            Some((name, n)) if *name == e.section => *n += 1,
            _ => sections.push((e.section.clone(), 1)),
        }
    }
    assert_eq!(sections.len(), SECTIONS, "{sections:#?}");
    for (i, ((name, n), want)) in sections.iter().zip(PAIRS_PER_SECTION).enumerate() {
        assert!(
            name.starts_with(&format!("{}. ", i + 1)),
            "section {} is {name:?}",
            i + 1
        );
        assert_eq!(*n, want, "pairs in section {name:?}");
    }

    // No response expected for the two notifications of 3 and the batch of 12 only.
    let silent: Vec<&str> = examples
        .iter()
        .filter(|e| e.response.is_none())
        .map(|e| e.section.as_str())
        .collect();
    assert_eq!(silent.len(), 3, "{silent:?}");
    assert!(silent[0].starts_with("3. ") && silent[1].starts_with("3. "));
    assert!(silent[2].starts_with("12. "));
}

#[test]
fn extraction_is_byte_exact() {
    let Some(_) = crate::corpus() else { return };
    let examples = examples();
    let by_section = |n: &str| -> Vec<&Example> {
        examples
            .iter()
            .filter(|e| e.section.starts_with(&format!("{n}. ")))
            .collect()
    };

    // 1: the first request, exactly.
    assert_eq!(
        show(&by_section("1")[0].request),
        r#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#
    );

    // 5 and 7 are not JSON, and must stay that way.
    for n in ["5", "7"] {
        let e = by_section(n);
        assert_eq!(e.len(), 1);
        assert!(
            serde_json::from_slice::<Value>(&e[0].request).is_err(),
            "example {n} should be invalid JSON: {}",
            show(&e[0].request)
        );
    }
    assert_eq!(
        show(&by_section("5")[0].request),
        r#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#
    );
    assert_eq!(
        show(&by_section("7")[0].request),
        "[\n  {\"jsonrpc\": \"2.0\", \"method\": \"sum\", \"params\": [1,2,4], \"id\": \"1\"},\n  {\"jsonrpc\": \"2.0\", \"method\"\n]"
    );

    // 11 keeps its odd trailing space, and its indentation.
    let e11 = by_section("11");
    assert_eq!(e11.len(), 1);
    let request = show(&e11[0].request);
    assert!(
        request.starts_with("[\n        {\"jsonrpc\""),
        "{request:?}"
    );
    assert!(
        request.contains("\"id\": \"9\"} \n    ]"),
        "the trailing space of example 11 is lost: {request:?}"
    );
    assert!(request.ends_with("\n    ]"), "{request:?}");

    // Every other request, and every response, is valid JSON.
    for e in &examples {
        if !(e.section.starts_with("5. ") || e.section.starts_with("7. ")) {
            serde_json::from_slice::<Value>(&e.request).unwrap_or_else(|err| {
                panic!(
                    "{}: request is not JSON ({err}): {}",
                    e.section,
                    show(&e.request)
                )
            });
        }
        if let Some(r) = &e.response {
            serde_json::from_slice::<Value>(r).unwrap_or_else(|err| {
                panic!("{}: response is not JSON ({err}): {}", e.section, show(r))
            });
        }
    }
}

#[test]
fn raw_ids_are_the_exact_text() {
    let Some(_) = crate::corpus() else { return };
    // The helper itself: raw text, not a normalised value.
    assert_eq!(
        raw_ids(br#"{"id" :  "a\u0062" , "x":1}"#),
        vec![Some(r#""a\u0062""#.to_owned())]
    );
    assert_eq!(
        raw_ids(br#"[{"id":1.0},{"x":1},{"id":null}]"#),
        vec![Some("1.0".to_owned()), None, Some("null".to_owned())]
    );
}

#[test]
fn every_example_gets_the_expected_reply() {
    let Some(_) = crate::corpus() else { return };
    let examples = examples();
    assert_eq!(examples.len(), PAIRS);
    let failures = reply_failures(&examples);
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn every_reply_fits_a_buffer_of_exactly_its_size() {
    let Some(_) = crate::corpus() else { return };
    let failures = exact_buffer_failures(&examples());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The crate's own copy of the examples (`tests/common/vectors.rs`), which the tests
/// that need no corpus replay, is the published text byte for byte.
#[test]
fn the_own_copy_is_the_published_text() {
    let Some(_) = crate::corpus() else { return };
    let published = examples();
    let own = spec_examples();
    assert_eq!(own.len(), published.len());
    for (o, p) in own.iter().zip(&published) {
        assert_eq!(o.section, p.section);
        assert_eq!(show(&o.request), show(&p.request), "{}", p.section);
        assert_eq!(
            o.response.as_deref().map(show),
            p.response.as_deref().map(show),
            "{}",
            p.section
        );
    }
}
