//! Every example of the JSON-RPC 2.0 specification (section 7), replayed against the
//! demo server byte for byte.
//!
//! The examples are read at run time from the shared corpus,
//! `../shared/corpus/jsonrpc-spec/README.md` relative to the crate root, section
//! "The examples, byte for byte". In its fenced code blocks a line starting with `--> `
//! opens a request and a line starting with `<-- ` opens the expected response; either
//! continues on the following lines until the next `-->` / `<--` line, a blank line,
//! or the end of the block. A request with no response after it expects no reply at all.

use std::collections::BTreeMap;
use std::path::PathBuf;

use jsonrpc_slice::{demo, Server};
use serde_json::value::RawValue;
use serde_json::Value;

/// The 12 example sections of the specification.
const SECTIONS: usize = 12;
/// Request/response pairs per section, in order (3 has two notifications, 1 and 2 two
/// calls each).
const PAIRS_PER_SECTION: [usize; SECTIONS] = [2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1];
/// All request/response pairs.
const PAIRS: usize = 15;

/// One example: a request and the response it expects (`None`: no response at all).
#[derive(Debug)]
struct Example {
    /// The `### N. title` heading it is under.
    section: String,
    request: Vec<u8>,
    response: Option<Vec<u8>>,
}

fn readme_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/jsonrpc-spec/README.md")
}

fn read_readme() -> String {
    let path = readme_path();
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the JSON-RPC spec examples at {}: {e}\n\
             (the shared corpus must be checked out next to the crate, at ../shared/corpus)",
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

fn examples() -> Vec<Example> {
    extract(&read_readme())
}

/// The raw text of the `id` member of each response object of a reply (an object, or
/// an array of them), in order. `None` for an object without `id`.
fn raw_ids(reply: &[u8]) -> Vec<Option<String>> {
    type Obj = BTreeMap<String, Box<RawValue>>;
    let objects: Vec<Obj> = match serde_json::from_slice::<Value>(reply) {
        Ok(Value::Array(_)) => serde_json::from_slice(reply).expect("an array of objects"),
        Ok(Value::Object(_)) => vec![serde_json::from_slice(reply).expect("an object")],
        other => panic!(
            "not a JSON object or array: {other:?}: {}",
            String::from_utf8_lossy(reply)
        ),
    };
    objects
        .into_iter()
        .map(|o| o.get("id").map(|id| id.get().to_owned()))
        .collect()
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn readme_is_where_the_tests_look() {
    let path = readme_path();
    assert!(
        path.is_file(),
        "the JSON-RPC spec examples are missing: expected {}",
        path.display()
    );
}

#[test]
fn extraction_finds_every_example() {
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
    let server = Server::new(demo::TABLE);
    let examples = examples();
    assert_eq!(examples.len(), PAIRS);
    let mut out = vec![0u8; 64 * 1024];
    let mut failures = Vec::new();

    for e in &examples {
        let reply = match server.handle(&mut (), &e.request, &mut out) {
            Ok(reply) => reply.to_vec(),
            Err(err) => {
                failures.push(format!("{}: handle failed: {err}", e.section));
                continue;
            }
        };
        let Some(expected) = &e.response else {
            if !reply.is_empty() {
                failures.push(format!(
                    "{}: expected no reply at all, got {:?}\n  request: {}",
                    e.section,
                    show(&reply),
                    show(&e.request)
                ));
            }
            continue;
        };
        let want: Value = serde_json::from_slice(expected).expect("expected is JSON");
        let got: Value = match serde_json::from_slice(&reply) {
            Ok(v) => v,
            Err(err) => {
                failures.push(format!(
                    "{}: reply is not JSON ({err}): {:?}",
                    e.section,
                    show(&reply)
                ));
                continue;
            }
        };
        if want != got {
            failures.push(format!(
                "{}: wrong reply\n  request:  {}\n  expected: {}\n  got:      {}",
                e.section,
                show(&e.request),
                want,
                show(&reply)
            ));
            continue;
        }
        let (want_ids, got_ids) = (raw_ids(expected), raw_ids(&reply));
        if want_ids != got_ids {
            failures.push(format!(
                "{}: ids not echoed byte for byte: expected {want_ids:?}, got {got_ids:?}\n  reply: {}",
                e.section,
                show(&reply)
            ));
        }
        for id in got_ids.iter().flatten() {
            if !reply.windows(id.len()).any(|w| w == id.as_bytes()) {
                failures.push(format!("{}: id {id} not in the raw reply", e.section));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn every_reply_fits_a_buffer_of_exactly_its_size() {
    // The same replies into a buffer just large enough (no bytes at all where no reply
    // is due): a reply must never depend on spare room after it.
    let server = Server::new(demo::TABLE);
    let mut big = vec![0u8; 64 * 1024];
    let mut failures = Vec::new();
    for e in examples() {
        let reply = server
            .handle(&mut (), &e.request, &mut big)
            .expect("fits in 64 KiB")
            .to_vec();
        let mut exact = vec![0u8; reply.len()];
        match server.handle(&mut (), &e.request, &mut exact) {
            Ok(again) if again == reply.as_slice() => {}
            Ok(again) => failures.push(format!(
                "{}: in a buffer of {} bytes: {:?}, in 64 KiB: {:?}",
                e.section,
                reply.len(),
                show(again),
                show(&reply)
            )),
            Err(err) => failures.push(format!(
                "{}: {err:?} in a buffer of {} bytes (the reply is {:?})",
                e.section,
                reply.len(),
                show(&reply)
            )),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
