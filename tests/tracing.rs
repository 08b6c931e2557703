//! `tracing::HOOK`: a span per call, seen by a subscriber that records spans, their
//! fields, enters, exits and closes, and the span each event was logged in.
//!
//! | property | test |
//! |---|---|
//! | a call's span: method, id, outcome, duration; closed; the handler's log inside it | `a_call_is_a_span_and_its_handler_logs_inside_it` |
//! | an error carries the span's trace id in `error.data` | `an_error_carries_the_trace_id_of_its_span` |
//! | a notification, a refused method, a batch: one span each, each closed | `every_call_of_a_batch_is_a_span` |
//! | over IPC, async calls interleaved in the concurrent service: each closes its own span | `interleaved_calls_each_close_their_own_span` |

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use jsonrpc_slice::{method_table, MethodTable, Params, ResultWriter, RpcError, Server};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// A span as the subscriber saw it.
#[derive(Clone, Debug, Default)]
struct SpanSeen {
    name: String,
    fields: HashMap<String, String>,
    entered: usize,
    exited: usize,
    closed: bool,
}

/// An event, and the span it was logged in.
#[derive(Clone, Debug)]
struct EventSeen {
    message: String,
    span: Option<u64>,
}

#[derive(Default)]
struct Seen {
    spans: HashMap<u64, SpanSeen>,
    /// Spans in the order they were made.
    order: Vec<u64>,
    events: Vec<EventSeen>,
    stack: Vec<u64>,
}

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Seen>>);

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut span = SpanSeen {
            name: attrs.metadata().name().to_string(),
            ..SpanSeen::default()
        };
        attrs.record(&mut Fields(&mut span.fields));
        let mut seen = self.0.lock().unwrap();
        seen.spans.insert(id, span);
        seen.order.push(id);
        Id::from_u64(id)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut seen = self.0.lock().unwrap();
        let span = seen.spans.get_mut(&span.into_u64()).unwrap();
        values.record(&mut Fields(&mut span.fields));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = HashMap::new();
        event.record(&mut Fields(&mut fields));
        let mut seen = self.0.lock().unwrap();
        let span = seen.stack.last().copied();
        seen.events.push(EventSeen {
            message: fields.remove("message").unwrap_or_default(),
            span,
        });
    }
    fn enter(&self, span: &Id) {
        let mut seen = self.0.lock().unwrap();
        seen.stack.push(span.into_u64());
        seen.spans.get_mut(&span.into_u64()).unwrap().entered += 1;
    }
    fn exit(&self, span: &Id) {
        let mut seen = self.0.lock().unwrap();
        let id = span.into_u64();
        if let Some(at) = seen.stack.iter().rposition(|&s| s == id) {
            seen.stack.remove(at);
        }
        seen.spans.get_mut(&id).unwrap().exited += 1;
    }
    fn try_close(&self, span: Id) -> bool {
        let mut seen = self.0.lock().unwrap();
        seen.spans.get_mut(&span.into_u64()).unwrap().closed = true;
        true
    }
}

impl Recorder {
    /// The `rpc.call` spans, in the order they were made.
    fn calls(&self) -> Vec<(u64, SpanSeen)> {
        let seen = self.0.lock().unwrap();
        let spans = seen.order.iter().map(|id| (*id, seen.spans[id].clone()));
        spans.filter(|(_, s)| s.name == "rpc.call").collect()
    }

    fn events(&self) -> Vec<EventSeen> {
        self.0.lock().unwrap().events.clone()
    }
}

type Rpc<'p> = Result<(), RpcError<'p>>;

fn work<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    tracing::info!("working");
    Ok(out.str("done")?)
}

fn locked<'p>(_: &mut (), _: Params<'p>, out: &mut ResultWriter<'_>) -> Rpc<'p> {
    tracing::warn!("the door is locked");
    Err(jsonrpc_slice::tracing::error(out, -32001, "locked")?)
}

const METHODS: MethodTable<()> = method_table! { "work" => work, "locked" => locked };
static SERVER: Server<()> = Server::new(METHODS).with_hook(jsonrpc_slice::tracing::HOOK);

fn handle(message: &str) -> String {
    let mut out = [0u8; 1024];
    let reply = SERVER
        .handle(&mut (), message.as_bytes(), &mut out)
        .unwrap();
    String::from_utf8(reply.to_vec()).unwrap()
}

fn field<'a>(span: &'a SpanSeen, name: &str) -> Option<&'a str> {
    span.fields.get(name).map(String::as_str)
}

#[test]
fn a_call_is_a_span_and_its_handler_logs_inside_it() {
    let recorder = Recorder::default();
    let reply = tracing::subscriber::with_default(recorder.clone(), || {
        handle(r#"{"jsonrpc":"2.0","method":"work","id":7}"#)
    });
    assert_eq!(reply, r#"{"jsonrpc":"2.0","result":"done","id":7}"#);
    let calls = recorder.calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    let (id, span) = &calls[0];
    assert_eq!(field(span, "rpc.system"), Some("jsonrpc"));
    assert_eq!(field(span, "rpc.method"), Some("work"));
    assert_eq!(field(span, "rpc.jsonrpc.request_id"), Some("7"));
    assert_eq!(field(span, "rpc.outcome"), Some("result"));
    assert_eq!(field(span, "rpc.jsonrpc.error_code"), None);
    assert!(field(span, "rpc.duration_us").is_some(), "{span:?}");
    assert_eq!(field(span, "trace_id").map(str::len), Some(16));
    assert_eq!((span.entered, span.exited, span.closed), (1, 1, true));
    let events = recorder.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].message, "working");
    assert_eq!(events[0].span, Some(*id), "logged inside the call's span");
}

#[test]
fn an_error_carries_the_trace_id_of_its_span() {
    let recorder = Recorder::default();
    let reply = tracing::subscriber::with_default(recorder.clone(), || {
        handle(r#"{"jsonrpc":"2.0","method":"locked","id":"a"}"#)
    });
    let calls = recorder.calls();
    let (_, span) = &calls[0];
    let trace_id = field(span, "trace_id").unwrap();
    assert_eq!(
        reply,
        format!(
            r#"{{"jsonrpc":"2.0","error":{{"code":-32001,"message":"locked","data":{{"traceId":"{trace_id}"}}}},"id":"a"}}"#
        )
    );
    assert_eq!(field(span, "rpc.jsonrpc.request_id"), Some(r#""a""#));
    assert_eq!(field(span, "rpc.outcome"), Some("error"));
    assert_eq!(field(span, "rpc.jsonrpc.error_code"), Some("-32001"));
    // Outside a call there is no trace id, and an error has no data.
    assert_eq!(jsonrpc_slice::tracing::trace_id(), None);
}

#[test]
fn every_call_of_a_batch_is_a_span() {
    let recorder = Recorder::default();
    let reply = tracing::subscriber::with_default(recorder.clone(), || {
        handle(
            r#"[{"jsonrpc":"2.0","method":"work","id":1},{"jsonrpc":"2.0","method":"work"},{"jsonrpc":"2.0","method":"nope","id":3}]"#,
        )
    });
    assert!(reply.contains("-32601"), "{reply}");
    let calls = recorder.calls();
    let seen: Vec<_> = calls
        .iter()
        .map(|(_, s)| {
            (
                field(s, "rpc.method").unwrap().to_string(),
                field(s, "rpc.jsonrpc.request_id").map(str::to_string),
                field(s, "rpc.outcome").unwrap().to_string(),
                s.closed,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("work".into(), Some("1".into()), "result".into(), true),
            ("work".into(), None, "no_reply".into(), true),
            ("nope".into(), Some("3".into()), "error".into(), true),
        ]
    );
    // Distinct trace ids.
    let ids: std::collections::HashSet<_> =
        calls.iter().map(|(_, s)| field(s, "trace_id")).collect();
    assert_eq!(ids.len(), 3);
    // Each handler's log is in its own call's span.
    let events = recorder.events();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].span, Some(calls[0].0));
    assert_eq!(events[1].span, Some(calls[1].0));
}

/// Async handlers that wait, on the IPC server: calls in flight at once, each told
/// to the hook with its own key.
#[cfg(unix)]
mod interleaved {
    use std::cell::Cell;
    use std::time::Duration;

    use jsonrpc_slice::io::tokio::ipc::{IpcListener, IpcServer};
    use jsonrpc_slice::service::concurrent::{Call, ConcurrentServer};
    use jsonrpc_slice::{async_method_table, Params, ResultWriter, RpcError};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use tokio::net::UnixStream;

    use super::{field, Recorder, Rpc};

    /// A gate the `wait` calls wait at until `open`: per connection, one task.
    #[derive(Default)]
    pub struct Gate {
        open: Cell<bool>,
        opened: tokio::sync::Notify,
    }

    /// Waits at the gate; then a result, or with params an error (so that two calls
    /// that end alike cannot hide a span closed for the other).
    async fn wait<'p>(
        call: &mut Call<'_, Gate>,
        p: Params<'p>,
        out: &mut ResultWriter<'_>,
    ) -> Rpc<'p> {
        let gate = call.state();
        while !gate.open.get() {
            gate.opened.notified().await;
        }
        match p.nth(0) {
            Some(_) => Err(RpcError::new(-32011, "waited in vain")),
            None => Ok(out.str("waited")?),
        }
    }

    async fn open<'p>(
        call: &mut Call<'_, Gate>,
        _: Params<'p>,
        _: &mut ResultWriter<'_>,
    ) -> Rpc<'p> {
        call.state().open.set(true);
        call.state().opened.notify_waiters();
        Err(RpcError::new(-32010, "opened"))
    }

    async_method_table! { Methods<'c, Call<'c, Gate>> { "wait" => wait, "open" => open } }
    static SERVER: ConcurrentServer<Methods> =
        ConcurrentServer::new(Methods).with_hook(jsonrpc_slice::tracing::HOOK);

    #[test]
    fn interleaved_calls_each_close_their_own_span() {
        let recorder = Recorder::default();
        let path = std::env::temp_dir().join(format!("jrs-tracing-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _default = tracing::subscriber::set_default(recorder.clone());
        let replies = runtime.block_on(async {
            let listener = IpcListener::bind(&path).unwrap();
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let server = IpcServer::new(&SERVER, Gate::default).serve_until(listener, async {
                let _ = stopped.await;
            });
            let client = async {
                let mut c = BufReader::new(UnixStream::connect(&path).await.unwrap());
                let calls = concat!(
                    r#"{"jsonrpc":"2.0","method":"wait","id":1}"#,
                    r#"{"jsonrpc":"2.0","method":"wait","params":[0],"id":2}"#,
                    r#"{"jsonrpc":"2.0","method":"open","id":3}"#,
                );
                c.get_mut().write_all(calls.as_bytes()).await.unwrap();
                let mut replies = Vec::new();
                for _ in 0..3 {
                    let mut line = String::new();
                    let read =
                        tokio::time::timeout(Duration::from_secs(10), c.read_line(&mut line));
                    read.await.expect("a reply within the limit").unwrap();
                    replies.push(line);
                }
                let _ = stop.send(());
                replies
            };
            let (served, replies) = tokio::join!(server, client);
            served.unwrap();
            replies
        });
        assert_eq!(replies.len(), 3, "{replies:?}");
        let mut seen: Vec<_> = recorder
            .calls()
            .iter()
            .map(|(_, s)| {
                (
                    field(s, "rpc.jsonrpc.request_id").unwrap().to_string(),
                    field(s, "rpc.outcome").unwrap().to_string(),
                    field(s, "rpc.jsonrpc.error_code").map(str::to_string),
                    s.closed,
                )
            })
            .collect();
        seen.sort();
        assert_eq!(
            seen,
            [
                ("1".into(), "result".into(), None, true),
                ("2".into(), "error".into(), Some("-32011".to_string()), true),
                ("3".into(), "error".into(), Some("-32010".to_string()), true),
            ]
        );
    }
}
