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
//! - `jsonrpc-slice/wait`: answered `null` once a `jsonrpc-slice/release`
//!   notification comes (a long request, for clients and tests to cancel or to serve
//!   others beside).
//! - `shutdown`, then `exit`: the process exits 0 (1 without `shutdown`, or when the
//!   input ends without `exit`). Requests before `initialize` get `-32002`, after
//!   `shutdown` `-32600`; unknown requests `-32601`; other notifications are ignored.
//!
//! Up to 4 requests are in flight at once (the concurrent service, on tokio's
//! current-thread runtime): a hover is answered while a `jsonrpc-slice/wait` is
//! pending, and `$/cancelRequest` cancels a request (`-32800`, `Cancellation::LSP`).
//! Every handler makes its changes to the state before its first await, and the
//! handlers start in the order their messages were read, so the documents change in
//! the order the client sent the changes.
//!
//! Memory: the framer (frames up to 8 MiB) lives in a `static`; the slots (four of
//! 8 MiB frames and replies) and the outbox are lent their memory once at start-up
//! (`LentSlots`, `LentOutbox`: 8 MiB buffers cannot be built as one value). The open
//! documents are this server's own storage: `didOpen` allocates the uri, the text and
//! its line starts, `didChange` reuses the text's and the line starts' buffers (they
//! reallocate only when the text outgrows them, as does the one buffer texts are
//! decoded in), `didClose` frees them. Nothing else allocates per message
//! (`tests/lsp_server.rs` counts).
//!
//! Time: the documents are indexed by uri and keep where each of their lines starts,
//! so a hover costs the length of its line, not of its document or of the number of
//! documents open. A document's text is reached with one walk (`Params::at`) and
//! decoded once: past the codec's own check, the handlers pass over it once to decode
//! it and once to copy it, then read it for lines and `TODO`s
//! (`benches/replay.rs` runs a session through them).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::poll_fn;
use std::io;
use std::process::ExitCode;
use std::sync::{Mutex, PoisonError};
use std::task::{Poll, Waker};

use embassy_futures::select::{select, Either};
use jsonrpc_slice::error::code;
use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::outbox::LentOutbox;
use jsonrpc_slice::raw::Step::{Index, Key};
use jsonrpc_slice::service::concurrent::{
    Call, Cancellation, ConcurrentServer, LentSlots, Read, Write,
};
use jsonrpc_slice::service::ServeError;
use jsonrpc_slice::{async_method_table, AsyncMethods, Params, RawStr, ResultWriter, RpcError};

/// The largest frame (a `didOpen` of an 8 MiB file), and the largest reply (a hover
/// on a word as long as that file).
const MAX_FRAME: usize = 8 << 20;
const MAX_REPLY: usize = MAX_FRAME + 1024;
/// Requests in flight at once.
const SLOTS: usize = 4;
/// Room for the notifications queued and not sent yet: about 20 000 diagnostics. A
/// document with more TODOs gets the first ones that fit.
const OUTBOX: usize = 4 << 20;
const NAME: &str = "jsonrpc-slice-lsp";

/// In a `static`, so that 8 MiB never pass through the stack.
static FRAMER: Mutex<ContentLengthAccumulator<MAX_FRAME>> =
    Mutex::new(ContentLengthAccumulator::new());

async_method_table! {
    Known<'c, Call<'c, Lsp>> {
        "initialize" => initialize,
        "shutdown" => shutdown,
        "exit" => exit,
        "textDocument/didOpen" => did_open,
        "textDocument/didChange" => did_change,
        "textDocument/didClose" => did_close,
        "textDocument/hover" => hover,
        "jsonrpc-slice/wait" => wait,
        "jsonrpc-slice/release" => release,
    }
}

/// The known methods, and [`other`] for every other name.
struct Methods;

/// The row of [`other`]: past the known ones.
const OTHER: usize = usize::MAX;

impl<'c> AsyncMethods<Call<'c, Lsp>> for Methods {
    fn find(&self, method: RawStr<'_>) -> Option<usize> {
        Some(Known.find(method).unwrap_or(OTHER))
    }

    async fn run<'p>(
        &self,
        index: usize,
        call: &mut Call<'c, Lsp>,
        params: Params<'p>,
        out: &mut ResultWriter<'_>,
    ) -> Reply<'p> {
        match index {
            OTHER => other(call),
            _ => Known.run(index, call, params, out).await,
        }
    }
}

static SERVER: ConcurrentServer<Methods> =
    ConcurrentServer::new(Methods).with_cancellation(Cancellation::LSP);

/// The state shared by the calls in flight (all in one task: `Cell`s and a `RefCell`
/// borrowed only between awaits).
pub(crate) struct Lsp {
    state: RefCell<State>,
    /// Raised by each `jsonrpc-slice/release`.
    released: Signal,
    /// Raised by `exit`: the input ends, the waits answer.
    exited: Signal,
}

struct State {
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
    /// Where a received text is decoded before it is copied into its document: one
    /// buffer, as long as the longest text sent.
    text: Vec<u8>,
}

impl State {
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

/// Something that happened, counted, for calls of this one task to await.
#[derive(Default)]
struct Signal {
    count: Cell<u64>,
    /// The waker of the task that awaits: every call in flight and the loop run in the
    /// one task, so the last waker kept wakes them all.
    waker: Cell<Option<Waker>>,
}

impl Signal {
    fn raise(&self) {
        self.count.set(self.count.get().wrapping_add(1));
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }

    /// Resolves once the signal is raised after `count` was `seen`.
    async fn after(&self, seen: u64) {
        poll_fn(|cx| {
            if self.count.get() != seen {
                return Poll::Ready(());
            }
            self.waker.set(Some(cx.waker().clone()));
            Poll::Pending
        })
        .await;
    }
}

/// An open document.
#[derive(Default)]
pub(crate) struct Doc {
    pub(crate) text: String,
    /// The byte offset where each line of `text` starts (the first is 0).
    pub(crate) lines: Vec<usize>,
}

impl Doc {
    /// Line `n` of the text, without its end, or `None` past the last line.
    pub(crate) fn line(&self, n: usize) -> Option<&str> {
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
/// A handler's context: the state, the call's cancellation, the outbox.
type Ctx<'c> = Call<'c, Lsp>;

async fn initialize<'p>(
    call: &mut Ctx<'_>,
    p: Params<'p>,
    out: &mut ResultWriter<'_>,
) -> Reply<'p> {
    let mut lsp = call.state().state.borrow_mut();
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
async fn shutdown<'p>(call: &mut Ctx<'_>, _: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    let mut lsp = call.state().state.borrow_mut();
    lsp.ready()?;
    lsp.shut_down = true;
    Ok(())
}

async fn exit<'p>(call: &mut Ctx<'_>, _: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    let lsp = call.state();
    let mut state = lsp.state.borrow_mut();
    state.exit = Some(if state.shut_down { 0 } else { 1 });
    lsp.exited.raise();
    Ok(())
}

/// Any other method: `-32601` (after `initialize` and before `shutdown`).
fn other<'p>(call: &Ctx<'_>) -> Reply<'p> {
    call.state().state.borrow().ready()?;
    Err(RpcError::method_not_found())
}

/// `null` once a `jsonrpc-slice/release` or `exit` comes; `-32800` if cancelled
/// first (the loop drops this future and answers for it).
async fn wait<'p>(call: &mut Ctx<'_>, _: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    let lsp = call.state();
    lsp.state.borrow().ready()?;
    let released = lsp.released.after(lsp.released.count.get());
    select(released, lsp.exited.after(0)).await;
    Ok(())
}

/// Lets every `jsonrpc-slice/wait` in flight answer.
async fn release<'p>(call: &mut Ctx<'_>, _: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    call.state().released.raise();
    Ok(())
}

/// The string at `path` in the params, reached in one walk: only the members before
/// each step are passed over, and a long text once, where a chain of `get`s would pass
/// it once per level.
fn string_at<'p>(
    p: &Params<'p>,
    path: &[jsonrpc_slice::raw::Step<'_>],
) -> Result<RawStr<'p>, RpcError<'p>> {
    p.at(path)
        .and_then(|v| v.as_str())
        .ok_or(RpcError::invalid_params())
}

async fn did_open<'p>(call: &mut Ctx<'_>, p: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    let (uri, text) = (
        string_at(&p, &[Key("textDocument"), Key("uri")])?,
        string_at(&p, &[Key("textDocument"), Key("text")])?,
    );
    {
        let mut state = call.state().state.borrow_mut();
        let lsp = &mut *state;
        lsp.ready()?;
        // Room to decode any uri as long as this one (and at least 256 bytes: most
        // uris fit, so the buffer is allocated once).
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
        update(lsp, uri, text)?;
    }
    publish(call, uri).await;
    Ok(())
}

async fn did_change<'p>(call: &mut Ctx<'_>, p: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    call.state().state.borrow().ready()?;
    let uri = string_at(&p, &[Key("textDocument"), Key("uri")])?;
    // Full sync: the change a client sends is the whole text, in one walk. (A client
    // that sent several full texts in one message would have the first one kept.)
    let text = string_at(&p, &[Key("contentChanges"), Index(0), Key("text")])?;
    let open = update(&mut call.state().state.borrow_mut(), uri, text)?;
    if open {
        publish(call, uri).await;
    }
    Ok(())
}

async fn did_close<'p>(call: &mut Ctx<'_>, p: Params<'p>, _: &mut ResultWriter<'_>) -> Reply<'p> {
    let uri = string_at(&p, &[Key("textDocument"), Key("uri")])?;
    {
        let mut state = call.state().state.borrow_mut();
        let lsp = &mut *state;
        lsp.ready()?;
        if let Some(key) = decoded(&mut lsp.key, uri) {
            lsp.docs.remove(key);
        }
    }
    publish(call, uri).await;
    Ok(())
}

/// Decodes `text` into the open document `uri`'s text; `false` if it is not open.
fn update<'p>(lsp: &mut State, uri: RawStr<'p>, text: RawStr<'p>) -> Result<bool, RpcError<'p>> {
    let Some(doc) = decoded(&mut lsp.key, uri).and_then(|key| lsp.docs.get_mut(key)) else {
        return Ok(false); // Not open: ignored.
    };
    // Decoded, a JSON string is never longer than as sent. Into a buffer of its own and
    // then copied: `unescape_into` hands out the decoded `&str`, and turning the
    // document's bytes into its `String` would check the UTF-8 again.
    if lsp.text.len() < text.as_raw().len() {
        lsp.text.resize(text.as_raw().len(), 0);
    }
    let decoded = text
        .unescape_into(&mut lsp.text)
        .ok_or(RpcError::invalid_params())?;
    doc.text.clear();
    doc.text.push_str(decoded);
    line_starts(&doc.text, &mut doc.lines);
    Ok(true)
}

/// Queues `publishDiagnostics` for `uri`: a warning per TODO in its text as it is when
/// the message is written (none once it is closed), as many as the outbox holds;
/// waits while the outbox is full.
async fn publish(call: &Ctx<'_>, uri: RawStr<'_>) {
    let lsp = call.state();
    let mut limit = usize::MAX;
    loop {
        let mut written = 0;
        let queued = call
            .notify("textDocument/publishDiagnostics", |p| {
                written = 0;
                let mut state = lsp.state.borrow_mut();
                let State {
                    docs, key, utf8, ..
                } = &mut *state;
                let doc = decoded(key, uri).and_then(|key| docs.get(key));
                let (text, starts) = doc.map_or(("", &[][..]), |doc| (&doc.text, &doc.lines));
                p.begin_object()?;
                p.key("uri")?;
                p.display(uri)?;
                p.key("diagnostics")?;
                p.begin_array()?;
                for (line, col) in todos(text, starts, *utf8).take(limit) {
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
            })
            .await;
        match queued {
            // Too many even for an empty outbox: one less than what fitted, and say so.
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

/// Where each line of `text` starts, into `starts` (its buffer reused). LSP ends a
/// line at `\n`, `\r\n` or `\r`.
pub(crate) fn line_starts(text: &str, starts: &mut Vec<usize>) {
    starts.clear();
    starts.push(0);
    let bytes = text.as_bytes();
    // A line end is ASCII, never inside a character: each found by `memchr`, a block
    // of bytes at a time, not by a test of every byte (lines are short: the search
    // goes on where it stopped, no new search set up per line).
    for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        // `\r\n` is one end, after its `\n`.
        if bytes[at] == b'\n' || bytes.get(at + 1) != Some(&b'\n') {
            starts.push(at + 1);
        }
    }
}

/// The length of `s` in the negotiated encoding: bytes, or UTF-16 code units.
pub(crate) fn width(s: &str, utf8: bool) -> usize {
    if utf8 {
        s.len()
    } else {
        s.chars().map(char::len_utf16).sum()
    }
}

/// Where each `TODO` of `text` starts: its line, and its column. `starts` are where
/// the text's lines start ([`line_starts`]). One search over the whole text (a `TODO`
/// never holds a line end); each column counted from the previous `TODO` of its line
/// or from the line's start, so that a long line is read once.
pub(crate) fn todos<'t>(
    text: &'t str,
    starts: &'t [usize],
    utf8: bool,
) -> impl Iterator<Item = (usize, usize)> + 't {
    let (mut line, mut byte, mut col) = (0, 0, 0);
    memchr::memmem::find_iter(text.as_bytes(), "TODO").map(move |at| {
        // The line holding `at`: the last start at or before it (the starts and the
        // matches both ascend, so the search goes on from the line before).
        let holding = line + starts[line..].partition_point(|&s| s <= at) - 1;
        if holding != line {
            (line, byte, col) = (holding, starts[holding], 0);
        }
        col += width(&text[byte..at], utf8);
        byte = at;
        (line, col)
    })
}

pub(crate) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where the word at column `character` of `line` starts and ends (bytes), if the
/// character there is a word's: the run of word characters around it.
pub(crate) fn word_at(line: &str, character: usize, utf8: bool) -> Option<(usize, usize)> {
    let mut col = 0;
    let on = line.char_indices().find(|&(_, c)| {
        col += width(c.encode_utf8(&mut [0; 4]), utf8);
        col > character
    });
    let (at, _) = on.filter(|&(_, c)| is_word(c))?;
    let before = line[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c));
    let start = before.last().map_or(at, |(i, _)| i);
    let end = line[at..]
        .find(|c| !is_word(c))
        .map_or(line.len(), |i| at + i);
    Some((start, end))
}

async fn hover<'p>(call: &mut Ctx<'_>, p: Params<'p>, out: &mut ResultWriter<'_>) -> Reply<'p> {
    let mut state = call.state().state.borrow_mut();
    let lsp = &mut *state;
    lsp.ready()?;
    let uri = string_at(&p, &[Key("textDocument"), Key("uri")])?;
    let position = |key| {
        p.at(&[Key("position"), Key(key)])
            .and_then(|v| v.as_u64())
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
    let Some((start, end)) = word_at(text, character, utf8) else {
        return Ok(());
    };
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

/// Serves `reader` until `exit` (or the end of the input), answering on `writer`;
/// the exit code. (`pub(crate)`: `tests/lsp_server.rs` runs it in-process.)
// The framer's lock is held while serving: it is this run's hold on the one framer
// (runs in parallel, as the tests are, take turns).
#[allow(clippy::await_holding_lock)]
pub(crate) async fn run<R: Read, W: Write>(
    reader: &mut R,
    writer: &mut W,
) -> Result<u8, ServeError<R::Error, W::Error>> {
    let mut framer = FRAMER.lock().unwrap_or_else(PoisonError::into_inner);
    framer.clear();
    // Lent once: 8 MiB buffers cannot be built as one value (the pages are mapped as
    // they are first written).
    let mut memory = vec![0u8; LentSlots::<SLOTS>::bytes(MAX_FRAME, MAX_REPLY)];
    let mut queue = vec![0u8; OUTBOX];
    let mut chunk = vec![0u8; 64 << 10];
    let Some(slots) = LentSlots::<SLOTS>::new(&mut memory, MAX_FRAME, MAX_REPLY) else {
        return Ok(1); // Not reached: the memory is as long as the slots take.
    };
    let outbox = LentOutbox::new(&mut queue);
    let lsp = Lsp {
        state: RefCell::new(State {
            initialized: false,
            shut_down: false,
            utf8: false,
            exit: None,
            docs: HashMap::new(),
            key: Vec::new(),
            text: Vec::new(),
        }),
        released: Signal::default(),
        exited: Signal::default(),
    };
    // `exit` ends the input: the loop answers what it read, and ends.
    let mut reader = UntilExit {
        reader,
        exited: &lsp.exited,
    };
    let serve = SERVER.serve(
        &lsp,
        &mut *framer,
        &slots,
        &outbox,
        &mut chunk,
        &mut reader,
        writer,
    );
    serve.await?;
    let code = lsp.state.borrow().exit.unwrap_or(1);
    Ok(code)
}

/// `reader`, whose input ends (a read of 0) once `exit` came.
struct UntilExit<'a, R> {
    reader: &'a mut R,
    exited: &'a Signal,
}

impl<R: Read> Read for UntilExit<'_, R> {
    type Error = R::Error;

    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, R::Error> {
        if self.exited.count.get() != 0 {
            return Ok(0);
        }
        // The read is dropped at `exit`: what it would have read is not wanted.
        match select(self.reader.read(buf), self.exited.after(0)).await {
            Either::First(read) => read,
            Either::Second(()) => Ok(0),
        }
    }
}

fn main() -> ExitCode {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let Ok(runtime) = runtime else {
        eprintln!("{NAME}: cannot start the runtime");
        return ExitCode::FAILURE;
    };
    // Pipes (as an editor launches the server) are read and written on the runtime's
    // reactor; a terminal or a file through tokio's blocking pool.
    use jsonrpc_slice::io::tokio::{stdio, Io};
    let (stdin, stdout) = runtime.block_on(async { (stdio::stdin(), stdio::stdout()) });
    let (mut stdin, mut stdout) = (Io(stdin), Io(stdout));
    let served = runtime.block_on(run(&mut stdin, &mut stdout));
    // A read of stdin in tokio's blocking pool cannot be cancelled: do not wait for it.
    runtime.shutdown_background();
    match served {
        Ok(code) => ExitCode::from(code),
        // The client went away mid-write: nothing left to answer.
        Err(ServeError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
        Err(ServeError::Read(e) | ServeError::Write(e)) => {
            eprintln!("{NAME}: {e}");
            ExitCode::FAILURE
        }
    }
}
