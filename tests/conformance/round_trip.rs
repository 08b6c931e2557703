//! Round trips over real JSON-RPC traffic: parse → write → parse.
//!
//! For every request and notification found in `bench/` and `traffic/` of the
//! conformance corpus:
//!
//! 1. `envelope::parse` reads it, and its `method`, `params` and `id` views are the
//!    exact spans serde_json's `RawValue` finds for the same members;
//! 2. a new message is written from those views alone
//!    (`{"jsonrpc":"2.0","method":…,"params":…,"id":…}`) and parsed again: the views
//!    are byte-identical, serde_json reads the same values as in the original, and
//!    writing it once more gives the same bytes;
//! 3. the demo `echo` method is called with the message's params (and id): the reply
//!    is JSON, its `result` is the params byte for byte (raw line breaks, which are
//!    whitespace, dropped) and its `id` the id.
//!
//! Sources, and what is taken from each:
//!
//! | source | messages |
//! |---|---|
//! | `bench/*.json` | each file (one batch of 10; the response file is not a request) |
//! | `traffic/ethereum-execution-apis/tests/**/*.io` | every `>> ` line |
//! | `traffic/lsp-devtools/session/*.jsonl` | every line (responses are not requests) |
//! | `traffic/lsp-devtools/client-capabilities/*.json` | wrapped as `initialize` requests |
//! | `traffic/mcp-spec-examples/examples/**/*.json` | files with a top-level `jsonrpc` |
//! | `traffic/lsp-inspector/**/*.json` | request/notification entries, wrapped |
//!
//! A message counts as a request when serde_json sees an object with a `method`
//! member; `envelope::parse` must then give a `Call::Request`, and must not for the
//! others. Each source asserts its count of requests, so an empty or changed corpus
//! fails.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::round_trip::{build, run, Message, RawMembers, Tally};

fn corpus(rel: &str) -> PathBuf {
    let path = crate::corpus()
        .expect("the tests check for the corpus first")
        .join(rel);
    assert!(path.exists(), "corpus missing at {}", path.display());
    path
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn read_text(path: &Path) -> String {
    String::from_utf8(read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Files under `dir` (recursively) whose name ends with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            fs::read_dir(&d).unwrap_or_else(|e| panic!("cannot list {}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("read_dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn label(path: &Path) -> String {
    let base = corpus("");
    path.strip_prefix(&base)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn bench_messages() {
    let Some(_) = crate::corpus() else { return };
    let messages: Vec<Message> = files(&corpus("bench"), ".json")
        .iter()
        .map(|p| Message {
            label: label(p),
            bytes: read(p),
        })
        .collect();
    let tally = run("bench", &messages);
    // 01–05, 08: one request each (02 and 05 are notifications); 06: a batch of 7
    // calls and 3 notifications; 07: a response.
    assert_eq!(
        tally,
        Tally {
            messages: 8,
            requests: 16,
            notifications: 5,
            others: 1
        }
    );
}

#[test]
fn ethereum_execution_api_requests() {
    let Some(_) = crate::corpus() else { return };
    let mut messages = Vec::new();
    for path in files(&corpus("traffic/ethereum-execution-apis/tests"), ".io") {
        for (n, line) in read_text(&path).lines().enumerate() {
            if let Some(json) = line.strip_prefix(">> ") {
                messages.push(Message {
                    label: format!("{}:{}", label(&path), n + 1),
                    bytes: json.as_bytes().to_vec(),
                });
            }
        }
    }
    let tally = run("ethereum-execution-apis", &messages);
    assert_eq!(
        tally,
        Tally {
            messages: 236,
            requests: 236,
            notifications: 0,
            others: 0
        }
    );
}

#[test]
fn lsp_devtools_session() {
    let Some(_) = crate::corpus() else { return };
    let mut messages = Vec::new();
    for path in files(&corpus("traffic/lsp-devtools/session"), ".jsonl") {
        for (n, line) in read_text(&path).lines().enumerate() {
            if !line.trim().is_empty() {
                messages.push(Message {
                    label: format!("{}:{}", label(&path), n + 1),
                    bytes: line.as_bytes().to_vec(),
                });
            }
        }
    }
    let tally = run("lsp-devtools session", &messages);
    // 233 lines: 6 calls, 221 notifications, 6 responses.
    assert_eq!(
        tally,
        Tally {
            messages: 233,
            requests: 227,
            notifications: 221,
            others: 6
        }
    );
}

#[test]
fn lsp_devtools_client_capabilities_as_initialize() {
    let Some(_) = crate::corpus() else { return };
    let messages: Vec<Message> =
        files(&corpus("traffic/lsp-devtools/client-capabilities"), ".json")
            .iter()
            .map(|p| {
                let mut bytes =
                    br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":"#.to_vec();
                bytes.extend_from_slice(&read(p));
                bytes.push(b'}');
                Message {
                    label: label(p),
                    bytes,
                }
            })
            .collect();
    let tally = run("lsp-devtools client-capabilities", &messages);
    assert_eq!(
        tally,
        Tally {
            messages: 7,
            requests: 7,
            notifications: 0,
            others: 0
        }
    );
}

#[test]
fn mcp_spec_examples() {
    let Some(_) = crate::corpus() else { return };
    let mut messages = Vec::new();
    for path in files(&corpus("traffic/mcp-spec-examples/examples"), ".json") {
        let bytes = read(&path);
        let value: Value =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if value.get("jsonrpc").is_some() {
            messages.push(Message {
                label: label(&path),
                bytes,
            });
        }
    }
    let tally = run("mcp-spec-examples", &messages);
    // 32 envelopes: 10 calls, 8 notifications, 14 responses (results and errors).
    assert_eq!(
        tally,
        Tally {
            messages: 32,
            requests: 18,
            notifications: 8,
            others: 14
        }
    );
}

#[test]
fn lsp_inspector_entries_wrapped() {
    let Some(_) = crate::corpus() else { return };
    let mut messages = Vec::new();
    for path in files(&corpus("traffic/lsp-inspector"), ".json") {
        let text = read_text(&path);
        let entries: Vec<RawMembers<'_>> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (n, entry) in entries.iter().enumerate() {
            let field = |k: &str| -> Option<String> {
                entry
                    .get(k)
                    .and_then(|v| serde_json::from_str(v.get()).ok())
            };
            let kind = field("msgKind").unwrap_or_default();
            let with_id = match kind.as_str() {
                "send-request" | "recv-request" => true,
                "send-notification" | "recv-notification" => false,
                _ => continue,
            };
            let method = field("msgType").expect("msgType");
            let method = serde_json::to_string(&method).expect("method as JSON");
            let id = with_id.then(|| {
                let id = field("msgId").expect("msgId");
                let numeric = id.bytes().all(|b| b.is_ascii_digit())
                    && !id.is_empty()
                    && (id == "0" || !id.starts_with('0'));
                if numeric {
                    id
                } else {
                    serde_json::to_string(&id).expect("id as JSON")
                }
            });
            // The params are the entry's `arg`, byte for byte as stored.
            let params = entry.get("arg").map(|v| v.get().as_bytes());
            let method_raw = &method.as_bytes()[1..method.len() - 1];
            messages.push(Message {
                label: format!("{}[{n}]", label(&path)),
                bytes: build(method_raw, params, id.as_ref().map(|s| s.as_bytes())),
            });
        }
    }
    let tally = run("lsp-inspector", &messages);
    // 103 requests (95 sent, 8 received) and 71 notifications (49 sent, 22 received).
    assert_eq!(
        tally,
        Tally {
            messages: 174,
            requests: 174,
            notifications: 71,
            others: 0
        }
    );
}
