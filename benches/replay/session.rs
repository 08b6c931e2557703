//! The replayed LSP session, generated from a fixed seed: what an editor sends a
//! language server while someone works on a dozen Rust files.
//!
//! `initialize` (UTF-16 positions, as VS Code asks), `initialized`, a `didOpen` of each
//! document, then, document by document at random: full-sync `didChange`s (the whole
//! text after an edit of a line or two: a line inserted, replaced or deleted), `hover`s
//! and `completion`s at positions within the text; then `shutdown` and `exit`. Each
//! message is written as VS Code writes it (member order included), its text as
//! `JSON.stringify` writes a string: raw UTF-8, `\n`, `\t`, `\"` and `\\` escaped
//! (`common::text`).

use crate::common::text::{source, Rng};

/// The seed of the session: the same messages on every run and machine.
const SEED: u64 = 20_261_206;
/// Documents open.
const DOCUMENTS: usize = 12;

/// The session: each message's body, and the same messages framed as the LSP base
/// protocol frames them (`Content-Length: N\r\n\r\n` before each body).
pub struct Session {
    pub bodies: Vec<Vec<u8>>,
    pub framed: Vec<u8>,
}

impl Session {
    pub fn bytes(&self) -> usize {
        self.bodies.iter().map(Vec::len).sum()
    }
}

struct Doc {
    uri: String,
    lines: Vec<String>,
    version: u32,
}

impl Doc {
    fn text(&self) -> String {
        self.lines.concat()
    }
}

/// A position in `doc`: a line, and a column in UTF-16 code units within it or a few
/// past its end (an editor's cursor at the end of a line).
fn position(rng: &mut Rng, doc: &Doc) -> (usize, usize) {
    let line = rng.below(doc.lines.len());
    let units = doc.lines[line].encode_utf16().count();
    (line, rng.below(units + 2))
}

/// The session of `messages` messages (at least the fixed ones: `initialize`,
/// `initialized`, the opens, `shutdown`, `exit`).
pub fn session(messages: usize) -> Session {
    let mut rng = Rng::new(SEED);
    let mut bodies: Vec<String> = Vec::with_capacity(messages);
    let mut id = 0u32;
    let mut next_id = || {
        id += 1;
        id
    };
    bodies.push(format!(
        r#"{{"jsonrpc":"2.0","id":{},"method":"initialize","params":{{"processId":4242,"clientInfo":{{"name":"Visual Studio Code","version":"1.95.3"}},"rootUri":"file:///home/user/project","capabilities":{{"general":{{"positionEncodings":["utf-16"]}},"textDocument":{{"hover":{{"contentFormat":["markdown","plaintext"]}},"synchronization":{{"didSave":true}}}}}},"trace":"off"}}}}"#,
        next_id()
    ));
    bodies.push(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#.into());
    let names = [
        "lib", "parser", "lexer", "scan", "value", "error", "config", "server", "client", "frame",
        "write", "main",
    ];
    let mut docs: Vec<Doc> = names[..DOCUMENTS]
        .iter()
        .map(|name| {
            // 1 to 12 KiB of text, whole lines.
            let size = 1024 + rng.below(11 << 10);
            let text = source(&mut rng, size);
            Doc {
                uri: format!("file:///home/user/project/src/{name}.rs"),
                lines: text.split_inclusive('\n').map(str::to_owned).collect(),
                version: 1,
            }
        })
        .collect();
    for doc in &docs {
        bodies.push(format!(
            r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{}","languageId":"rust","version":{},"text":{}}}}}}}"#,
            doc.uri,
            doc.version,
            serde_json::to_string(&doc.text()).unwrap()
        ));
    }
    while bodies.len() + 2 < messages {
        let doc = &mut docs[rng.below(DOCUMENTS)];
        match rng.below(20) {
            // A change: a line or two edited, the whole text sent.
            0..=6 => {
                for _ in 0..1 + rng.below(2) {
                    let at = rng.below(doc.lines.len());
                    let line = source(&mut rng, 1);
                    match rng.below(3) {
                        0 => doc.lines.insert(at, line),
                        1 => doc.lines[at] = line,
                        _ if doc.lines.len() > 1 => drop(doc.lines.remove(at)),
                        _ => {}
                    }
                }
                doc.version += 1;
                bodies.push(format!(
                    r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"{}","version":{}}},"contentChanges":[{{"text":{}}}]}}}}"#,
                    doc.uri,
                    doc.version,
                    serde_json::to_string(&doc.text()).unwrap()
                ));
            }
            7..=13 => {
                let (line, character) = position(&mut rng, doc);
                bodies.push(format!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":"textDocument/hover","params":{{"textDocument":{{"uri":"{}"}},"position":{{"line":{line},"character":{character}}}}}}}"#,
                    next_id(),
                    doc.uri
                ));
            }
            _ => {
                let (line, character) = position(&mut rng, doc);
                bodies.push(format!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":"textDocument/completion","params":{{"textDocument":{{"uri":"{}"}},"position":{{"line":{line},"character":{character}}},"context":{{"triggerKind":1}}}}}}"#,
                    next_id(),
                    doc.uri
                ));
            }
        }
    }
    bodies.push(format!(
        r#"{{"jsonrpc":"2.0","id":{},"method":"shutdown"}}"#,
        next_id()
    ));
    bodies.push(r#"{"jsonrpc":"2.0","method":"exit"}"#.into());
    let mut framed = Vec::new();
    for body in &bodies {
        framed.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        framed.extend_from_slice(body.as_bytes());
    }
    Session {
        bodies: bodies.into_iter().map(String::into_bytes).collect(),
        framed,
    }
}
