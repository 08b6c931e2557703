//! The LSP example (`examples/lsp-server.rs`) ported to rust-analyzer's `lsp-server`
//! crate (0.7.8): the same methods, the same handler logic (the example's own functions:
//! line starts, `TODO`s, the word under the cursor, widths in UTF-16 or UTF-8), the same
//! replies and notifications.
//!
//! Written as that crate's users write a server: `Message::read` takes a frame off a
//! `BufRead` and parses it into its `Request` / `Notification` (params as a
//! `serde_json::Value`), each method's params are taken with `extract` into structs
//! shaped as `lsp-types` shapes them (`#[derive(Deserialize)]`, the text an owned
//! `String` moved out of the `Value`), and every reply and notification is built as a
//! struct, turned into a `Value` (`Response::new_ok`, `Notification::new`) and written
//! with `Message::write`. One thread reads, handles and writes, as the example's loop
//! does; `lsp-server`'s own `Connection` would add a reader and a writer thread and
//! their channels, which are left out (in its favour).

use std::collections::HashMap;
use std::io::{BufRead, Write};

use lsp_server::{Message, Notification, Request, RequestId, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lsp::{line_starts, todos, width, word_at, Doc};

const NAME: &str = "jsonrpc-slice-lsp";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeParams {
    #[serde(default)]
    capabilities: ClientCapabilities,
}

#[derive(Deserialize, Default)]
struct ClientCapabilities {
    #[serde(default)]
    general: Option<General>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct General {
    #[serde(default)]
    position_encodings: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidOpenParams {
    text_document: TextDocumentItem,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TextDocumentItem {
    uri: String,
    #[allow(dead_code)]
    language_id: String,
    #[allow(dead_code)]
    version: i32,
    text: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidChangeParams {
    text_document: VersionedTextDocumentIdentifier,
    content_changes: Vec<ContentChange>,
}

#[derive(Deserialize)]
struct VersionedTextDocumentIdentifier {
    uri: String,
    #[allow(dead_code)]
    version: i32,
}

#[derive(Deserialize)]
struct ContentChange {
    text: String,
}

#[derive(Deserialize)]
struct TextDocumentIdentifier {
    uri: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidCloseParams {
    text_document: TextDocumentIdentifier,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HoverParams {
    text_document: TextDocumentIdentifier,
    position: Position,
}

#[derive(Deserialize, Serialize)]
struct Position {
    line: u64,
    character: u64,
}

#[derive(Serialize)]
struct Range {
    start: Position,
    end: Position,
}

fn range(line: usize, start: usize, end: usize) -> Range {
    let at = |character| Position {
        line: line as u64,
        character: character as u64,
    };
    Range {
        start: at(start),
        end: at(end),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult {
    capabilities: ServerCapabilities,
    server_info: ServerInfo,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ServerCapabilities {
    position_encoding: &'static str,
    text_document_sync: u8,
    hover_provider: bool,
}

#[derive(Serialize)]
struct ServerInfo {
    name: &'static str,
}

#[derive(Serialize)]
struct PublishDiagnosticsParams<'a> {
    uri: &'a str,
    diagnostics: Vec<Diagnostic>,
}

#[derive(Serialize)]
struct Diagnostic {
    range: Range,
    severity: u8,
    source: &'static str,
    message: String,
}

#[derive(Serialize)]
struct Hover {
    contents: MarkupContent,
    range: Range,
}

#[derive(Serialize)]
struct MarkupContent {
    kind: &'static str,
    value: String,
}

/// The server's state: as the example's.
#[derive(Default)]
struct State {
    initialized: bool,
    shut_down: bool,
    utf8: bool,
    docs: HashMap<String, Doc>,
}

/// What a request is answered: a result, or an error's code and message.
type Answer = Result<Value, (i32, String)>;

/// Serves `input` (the framed session) into `output`, as the example does; returns the
/// exit code (0 after `shutdown` and `exit`).
pub fn run(mut input: impl BufRead, output: &mut impl Write) -> u8 {
    let mut state = State::default();
    while let Some(message) = Message::read(&mut input).expect("a well-framed session") {
        match message {
            Message::Request(request) => {
                let id = request.id.clone();
                let response = match request_answer(&mut state, request, output) {
                    Ok(result) => Response::new_ok(id, result),
                    Err((code, message)) => Response::new_err(id, code, message),
                };
                Message::Response(response).write(output).unwrap();
            }
            Message::Notification(n) if n.method == "exit" => {
                return if state.shut_down { 0 } else { 1 };
            }
            Message::Notification(n) => notification(&mut state, n, output),
            Message::Response(_) => {}
        }
    }
    1
}

fn ready(state: &State) -> Result<(), (i32, String)> {
    match (state.initialized, state.shut_down) {
        (_, true) => Err((-32600, "Invalid Request: shut down".into())),
        (false, _) => Err((-32002, "Server not initialized".into())),
        _ => Ok(()),
    }
}

fn invalid_params() -> (i32, String) {
    (-32602, "Invalid params".into())
}

fn request_answer(state: &mut State, request: Request, _: &mut impl Write) -> Answer {
    match request.method.as_str() {
        "initialize" => {
            state.initialized = true;
            ready(state)?;
            let (_, params): (RequestId, InitializeParams) = request
                .extract("initialize")
                .map_err(|_| invalid_params())?;
            state.utf8 = params
                .capabilities
                .general
                .and_then(|g| g.position_encodings)
                .is_some_and(|e| e.iter().any(|e| e == "utf-8"));
            Ok(serde_json::to_value(InitializeResult {
                capabilities: ServerCapabilities {
                    position_encoding: if state.utf8 { "utf-8" } else { "utf-16" },
                    text_document_sync: 1,
                    hover_provider: true,
                },
                server_info: ServerInfo { name: NAME },
            })
            .unwrap())
        }
        "shutdown" => {
            ready(state)?;
            state.shut_down = true;
            Ok(Value::Null)
        }
        "textDocument/hover" => {
            ready(state)?;
            let (_, p): (RequestId, HoverParams) = request
                .extract("textDocument/hover")
                .map_err(|_| invalid_params())?;
            let uri = p.text_document.uri;
            let Some(doc) = state.docs.get(&uri) else {
                return Err((-32602, format!("document not open: {uri}")));
            };
            let (line, character) = (p.position.line as usize, p.position.character as usize);
            let Some(text) = doc.line(line) else {
                return Ok(Value::Null);
            };
            let Some((start, end)) = word_at(text, character, state.utf8) else {
                return Ok(Value::Null);
            };
            let word = &text[start..end];
            let first = width(&text[..start], state.utf8);
            Ok(serde_json::to_value(Hover {
                contents: MarkupContent {
                    kind: "markdown",
                    value: format!("`{word}`"),
                },
                range: range(line, first, first + width(word, state.utf8)),
            })
            .unwrap())
        }
        _ => {
            ready(state)?;
            Err((-32601, "Method not found".into()))
        }
    }
}

fn notification(state: &mut State, n: Notification, output: &mut impl Write) {
    // A notification before `initialize` or after `shutdown` is ignored.
    if ready(state).is_err() {
        return;
    }
    match n.method.as_str() {
        "textDocument/didOpen" => {
            let Ok(p) = n.extract::<DidOpenParams>("textDocument/didOpen") else {
                return;
            };
            let mut doc = Doc {
                text: p.text_document.text,
                lines: Vec::new(),
            };
            line_starts(&doc.text, &mut doc.lines);
            let uri = p.text_document.uri;
            state.docs.insert(uri.clone(), doc);
            publish(state, &uri, output);
        }
        "textDocument/didChange" => {
            let Ok(p) = n.extract::<DidChangeParams>("textDocument/didChange") else {
                return;
            };
            let uri = p.text_document.uri;
            // Full sync: the change is the whole text (the first, as the example takes).
            let Some(change) = p.content_changes.into_iter().next() else {
                return;
            };
            if let Some(doc) = state.docs.get_mut(&uri) {
                doc.text = change.text;
                line_starts(&doc.text, &mut doc.lines);
                publish(state, &uri, output);
            }
        }
        "textDocument/didClose" => {
            let Ok(p) = n.extract::<DidCloseParams>("textDocument/didClose") else {
                return;
            };
            state.docs.remove(&p.text_document.uri);
            publish(state, &p.text_document.uri, output);
        }
        _ => {}
    }
}

/// `textDocument/publishDiagnostics` for `uri`: a warning per `TODO` of its text.
fn publish(state: &State, uri: &str, output: &mut impl Write) {
    let (text, starts) = state
        .docs
        .get(uri)
        .map_or(("", &[][..]), |doc| (doc.text.as_str(), &doc.lines[..]));
    let diagnostics = todos(text, starts, state.utf8)
        .map(|(line, col)| Diagnostic {
            range: range(line, col, col + 4),
            severity: 2,
            source: NAME,
            message: format!("TODO on line {}", line + 1),
        })
        .collect();
    let params = PublishDiagnosticsParams { uri, diagnostics };
    let n = Notification::new("textDocument/publishDiagnostics".into(), params);
    Message::Notification(n).write(output).unwrap();
}
