//! A language server on stdin/stdout (the LSP base protocol: `Content-Length` frames)
//! that flags every `TODO` and shows the word under the cursor on hover.
//!
//! ```sh
//! cargo run --release --example lsp-server
//! ```
//!
//! - `initialize`: positions in UTF-8 bytes when the client lists `"utf-8"` in
//!   `capabilities.general.positionEncodings`, else in UTF-16 code units (LSP's
//!   default); full text sync; hover.
//! - `textDocument/didOpen`, `didChange`: `textDocument/publishDiagnostics` with one
//!   warning per `TODO` in the text; `didClose`: an empty list.
//! - `textDocument/hover`: the word at the position (letters, digits, `_`), or `null`.
//! - `shutdown`, then `exit`: the process exits 0 (1 without `shutdown`, or when the
//!   input ends without `exit`). Requests before `initialize` get `-32002`, after
//!   `shutdown` `-32600`; unknown requests `-32601`; other notifications are ignored.
//!
//! Memory: the framer (frames up to 8 MiB) and the outbox live in `static`s, the read
//! and reply buffers are allocated once at start-up. The open documents are this
//! server's own storage: `didOpen` allocates the uri, the text and its line starts,
//! `didChange` reuses the text's and the line starts' buffers (they reallocate only
//! when the text outgrows them), `didClose` frees them. Nothing else allocates per
//! message (`tests/lsp_server.rs` counts).
//!
//! Time: the documents are indexed by uri and keep where each of their lines starts,
//! so a hover costs the length of its line, not of its document or of the number of
//! documents open.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::sync::{Mutex, MutexGuard, PoisonError};

use jsonrpc_slice::error::code;
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::outbox::Outbox;
use jsonrpc_slice::service::Service;
use jsonrpc_slice::{
    method_table, std_io, Params, RawJson, RawStr, ResultWriter, RpcError, Server,
};

/// The largest frame (a `didOpen` of an 8 MiB file), and the largest reply (a hover
/// on a word as long as that file).
const MAX_FRAME: usize = 8 << 20;
const MAX_REPLY: usize = MAX_FRAME + 1024;
/// Room for the notifications one message queues: about 20 000 diagnostics. A
/// document with more TODOs gets the first ones that fit.
const OUTBOX: usize = 4 << 20;
const NAME: &str = "jsonrpc-slice-lsp";

/// In `static`s, so that 8 MiB never pass through the stack.
static FRAMER: Mutex<ContentLengthAccumulator<MAX_FRAME>> =
    Mutex::new(ContentLengthAccumulator::new());
static OUTBOX_BUF: Mutex<Outbox<OUTBOX>> = Mutex::new(Outbox::new());

static SERVER: Server<Lsp> = Server::new(method_table! {
    "initialize" => initialize,
    "shutdown" => shutdown,
    "exit" => exit,
    "textDocument/didOpen" => did_open,
    "textDocument/didChange" => did_change,
    "textDocument/didClose" => did_close,
    "textDocument/hover" => hover,
})
.with_fallback(other);

struct Lsp {
    initialized: bool,
    shut_down: bool,
    /// Positions count UTF-8 bytes, not UTF-16 code units.
    utf8: bool,
    /// The exit code, once `exit` came.
    exit: Option<u8>,
    /// The open documents, by uri (decoded).
    docs: HashMap<Box<str>, Doc>,
    /// Where a received uri is decoded when it holds escapes, to look it up: as long
    /// as the longest uri opened (a uri never decodes longer than it is sent), so a
    /// longer one is no open document's.
    key: Vec<u8>,
    outbox: MutexGuard<'static, Outbox<OUTBOX>>,
}

impl Lsp {
    /// `Ok` when requests are served: after `initialize`, before `shutdown`. (The
    /// error of a notification is never sent: a notification then is ignored.)
    fn ready<'p>(&self) -> Result<(), RpcError<'p>> {
        match (self.initialized, self.shut_down) {
            (_, true) => Err(RpcError::new(
                code::INVALID_REQUEST,
                "Invalid Request: shut down",
            )),
            (false, _) => Err(RpcError::new(-32002, "Server not initialized")),
            _ => Ok(()),
        }
    }
}

/// An open document.
#[derive(Default)]
struct Doc {
    text: String,
    /// The byte offset where each line of `text` starts (the first is 0).
    lines: Vec<usize>,
}

impl Doc {
    /// Line `n` of the text, without its end, or `None` past the last line.
    fn line(&self, n: usize) -> Option<&str> {
        let rest = self.text.get(*self.lines.get(n)?..)?;
        Some(rest.find(['\r', '\n']).map_or(rest, |end| &rest[..end]))
    }
}

/// `uri` decoded, to look it up in the documents: in `key` if it holds escapes. `None`
/// when it is longer than `key` or not UTF-8 once decoded: no document is open under it.
fn decoded<'k>(key: &'k mut [u8], uri: RawStr<'k>) -> Option<&'k str> {
    uri.as_plain_str().or_else(|| uri.unescape_into(key))
}

type Reply<'p> = Result<(), RpcError<'p>>;

fn initialize<'p>(lsp: &mut Lsp, p: Params<'p>, out: &mut ResultWriter<'_>) -> Reply<'p> {
    lsp.initialized = true;
    lsp.ready()?;
    let encodings = p
        .get("capabilities")
        .and_then(|c| c.get("general")?.get("positionEncodings"));
    lsp.utf8 = encodings.is_some_and(|e| {
        e.elements()
            .any(|e| e.as_str().is_some_and(|s| s.eq_str("utf-8")))
    });
    out.begin_object()?;
    out.key("capabilities")?;
    out.begin_object()?;
    out.key("positionEncoding")?;
    out.str(if lsp.utf8 { "utf-8" } else { "utf-16" })?;
    out.key("textDocumentSync")?;
    out.i64(1)?;
    out.key("hoverProvider")?;
    out.bool(true)?;
    out.end()?;
    out.key("serverInfo")?;
    out.begin_object()?;
    out.key("name")?;
    out.str(NAME)?;
    out.end()?;
    Ok(out.end()?)
}

/// The result is `null` (nothing written).
fn shutdown<'p>(lsp: &mut Lsp, _: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    lsp.ready()?;
    lsp.shut_down = true;
    Ok(())
}

fn exit<'p>(lsp: &mut Lsp, _: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    lsp.exit = Some(if lsp.shut_down { 0 } else { 1 });
    Ok(())
}

/// Any other method: `-32601` (after `initialize` and before `shutdown`).
fn other<'p>(lsp: &mut Lsp, _: RawStr<'p>, _: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    lsp.ready()?;
    Err(RpcError::method_not_found())
}

/// The string member `key` of `v`.
fn string<'p>(v: Option<RawJson<'p>>, key: &str) -> Result<RawStr<'p>, RpcError<'p>> {
    v.and_then(|v| v.get(key)?.as_str())
        .ok_or(RpcError::invalid_params())
}

fn did_open<'p>(lsp: &mut Lsp, p: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    lsp.ready()?;
    let (uri, text) = (
        string(p.get("textDocument"), "uri")?,
        string(p.get("textDocument"), "text")?,
    );
    // Room to decode any uri as long as this one (and at least 256 bytes: most uris
    // fit, so the buffer is allocated once).
    let len = uri.as_raw().len();
    if lsp.key.len() < len {
        lsp.key.resize(len.max(256), 0);
    }
    let Some(key) = decoded(&mut lsp.key, uri) else {
        return Ok(()); // Not UTF-8 once decoded: no document can be found under it.
    };
    if !lsp.docs.contains_key(key) {
        lsp.docs.insert(key.into(), Doc::default());
    }
    update(lsp, uri, text)
}

fn did_change<'p>(lsp: &mut Lsp, p: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    lsp.ready()?;
    let uri = string(p.get("textDocument"), "uri")?;
    // Full sync: each change is the whole text; the last one wins.
    let last = p.get("contentChanges").and_then(|c| c.elements().last());
    update(lsp, uri, string(last, "text")?)
}

fn did_close<'p>(lsp: &mut Lsp, p: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    lsp.ready()?;
    let uri = string(p.get("textDocument"), "uri")?;
    if let Some(key) = decoded(&mut lsp.key, uri) {
        lsp.docs.remove(key);
    }
    publish(&mut lsp.outbox, uri, "", lsp.utf8);
    Ok(())
}

/// Decodes `text` into the open document `uri`'s buffer, and publishes its TODOs.
fn update<'p>(lsp: &mut Lsp, uri: RawStr<'p>, text: RawStr<'p>) -> Reply<'p> {
    let Some(doc) = decoded(&mut lsp.key, uri).and_then(|key| lsp.docs.get_mut(key)) else {
        return Ok(()); // Not open: ignored.
    };
    let mut buf = std::mem::take(&mut doc.text).into_bytes();
    // Decoded, a JSON string is never longer than as sent.
    buf.resize(text.as_raw().len(), 0);
    let len = text
        .unescape_into(&mut buf)
        .map(str::len)
        .ok_or(RpcError::invalid_params())?;
    buf.truncate(len);
    doc.text = String::from_utf8(buf).map_err(|_| RpcError::invalid_params())?;
    line_starts(&doc.text, &mut doc.lines);
    publish(&mut lsp.outbox, uri, &doc.text, lsp.utf8);
    Ok(())
}

/// Queues `publishDiagnostics` for `uri`: a warning per TODO in `text` (as many as the
/// outbox holds).
fn publish(outbox: &mut Outbox<OUTBOX>, uri: RawStr<'_>, text: &str, utf8: bool) {
    let mut limit = usize::MAX;
    loop {
        let mut written = 0;
        let queued = outbox.notify("textDocument/publishDiagnostics", |p| {
            p.begin_object()?;
            p.key("uri")?;
            p.display(uri)?;
            p.key("diagnostics")?;
            p.begin_array()?;
            for (line, col) in todos(text, utf8).take(limit) {
                p.begin_object()?;
                p.key("range")?;
                range(p, line, col, col + 4)?;
                p.key("severity")?;
                p.i64(2)?;
                p.key("source")?;
                p.str(NAME)?;
                p.key("message")?;
                p.display(format_args!("TODO on line {}", line + 1))?;
                p.end()?;
                written += 1;
            }
            p.end()?;
            p.end()
        });
        match queued {
            // Too many: one less than what fitted, and say so.
            Err(_) if written > 0 => limit = written - 1,
            Err(e) => break eprintln!("{NAME}: no diagnostics for {uri}: {e}"),
            Ok(()) if limit < usize::MAX => {
                break eprintln!("{NAME}: {uri}: the first {limit} TODOs only (outbox full)");
            }
            Ok(()) => break,
        }
    }
}

/// `{"start":{"line":..,"character":..},"end":{..}}` on one line.
fn range(
    out: &mut ResultWriter<'_>,
    line: usize,
    start: usize,
    end: usize,
) -> Result<(), jsonrpc_slice::WriteError> {
    out.begin_object()?;
    for (key, character) in [("start", start), ("end", end)] {
        out.key(key)?;
        out.begin_object()?;
        out.key("line")?;
        out.u64(line as u64)?;
        out.key("character")?;
        out.u64(character as u64)?;
        out.end()?;
    }
    out.end()
}

/// The lines of `text`: LSP ends a line at `\n`, `\r\n` or `\r`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        let Some(end) = t.find(['\r', '\n']) else {
            rest = None;
            return Some(t);
        };
        let next = if t[end..].starts_with("\r\n") {
            end + 2
        } else {
            end + 1
        };
        rest = Some(&t[next..]);
        Some(&t[..end])
    })
}

/// Where each line of `text` starts, into `starts` (its buffer reused): the lines of
/// [`lines`].
fn line_starts(text: &str, starts: &mut Vec<usize>) {
    starts.clear();
    starts.push(0);
    // Byte by byte: a line end is ASCII, never inside a character, and searching for
    // a `[char; 2]` pattern decodes every character first.
    let bytes = text.as_bytes();
    for (at, &b) in bytes.iter().enumerate() {
        let end = match b {
            b'\n' => true,
            b'\r' => bytes.get(at + 1) != Some(&b'\n'),
            _ => false,
        };
        if end {
            starts.push(at + 1);
        }
    }
}

/// The length of `s` in the negotiated encoding: bytes, or UTF-16 code units.
fn width(s: &str, utf8: bool) -> usize {
    if utf8 {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

/// Where each `TODO` of `text` starts: its line, and its column (counted from the
/// previous `TODO` of the line, so that a long line is read once).
fn todos(text: &str, utf8: bool) -> impl Iterator<Item = (usize, usize)> + '_ {
    lines(text).enumerate().flat_map(move |(n, line)| {
        let (mut byte, mut col) = (0, 0);
        line.match_indices("TODO").map(move |(at, _)| {
            col += width(&line[byte..at], utf8);
            byte = at;
            (n, col)
        })
    })
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn hover<'p>(lsp: &mut Lsp, p: Params<'p>, out: &mut ResultWriter<'_>) -> Reply<'p> {
    lsp.ready()?;
    let uri = string(p.get("textDocument"), "uri")?;
    let position = |key| {
        p.get("position")
            .and_then(|v| v.get(key)?.as_u64())
            .ok_or(RpcError::invalid_params())
    };
    let (line, character) = (position("line")? as usize, position("character")? as usize);
    let utf8 = lsp.utf8;
    let Some(doc) = decoded(&mut lsp.key, uri).and_then(|key| lsp.docs.get(key)) else {
        return Err(out.error(
            code::INVALID_PARAMS,
            format_args!("document not open: {uri}"),
        )?);
    };
    // The character at the position must be a word's; the word is the run around it.
    let Some(text) = doc.line(line) else {
        return Ok(());
    };
    let mut col = 0;
    let on = text.char_indices().find(|&(_, c)| {
        col += width(c.encode_utf8(&mut [0; 4]), utf8);
        col > character
    });
    let Some((at, _)) = on.filter(|&(_, c)| is_word(c)) else {
        return Ok(());
    };
    let before = text[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c));
    let start = before.last().map_or(at, |(i, _)| i);
    let end = text[at..]
        .find(|c| !is_word(c))
        .map_or(text.len(), |i| at + i);
    let word = &text[start..end];
    out.begin_object()?;
    out.key("contents")?;
    out.begin_object()?;
    out.key("kind")?;
    out.str("markdown")?;
    out.key("value")?;
    out.display(format_args!("`{word}`"))?;
    out.end()?;
    out.key("range")?;
    let first = width(&text[..start], utf8);
    range(out, line, first, first + width(word, utf8))?;
    Ok(out.end()?)
}

/// Serves `input` until `exit` (or its end); the exit code. (`pub(crate)`:
/// `tests/lsp_server.rs` runs it in-process.)
pub(crate) fn run(input: &mut impl Read, output: &mut impl Write) -> io::Result<u8> {
    let mut framer = FRAMER.lock().unwrap_or_else(PoisonError::into_inner);
    framer.clear();
    let (mut chunk, mut reply) = (vec![0u8; 64 << 10], vec![0u8; MAX_REPLY]);
    let mut lsp = Lsp {
        initialized: false,
        shut_down: false,
        utf8: false,
        exit: None,
        docs: HashMap::new(),
        key: Vec::new(),
        outbox: OUTBOX_BUF.lock().unwrap_or_else(PoisonError::into_inner),
    };
    let mut service = Service::new(&SERVER, &mut *framer, &mut chunk, &mut reply)
        .with_outbox(|lsp: &mut Lsp| &mut *lsp.outbox)
        .until(|lsp| lsp.exit.is_some());
    std_io::serve_split(&mut service, &mut lsp, input, output)?;
    Ok(lsp.exit.unwrap_or(1))
}

fn main() -> ExitCode {
    match run(&mut io::stdin().lock(), &mut io::stdout().lock()) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{NAME}: {e}");
            ExitCode::FAILURE
        }
    }
}
