//! The parts of the codec, one at a time, and real traffic end to end.
//!
//! - `dispatch/<n>`: `Server::handle` of a small request on tables of 4, 32 and 256
//!   methods, for the first and the last name of the table.
//! - `write/<what>`: the `ResultWriter` alone: a small result object, a 1 KiB string
//!   with escapes, an error reply (`handle` of an unknown method).
//! - `batch/<n>`: batches of 1, 10 and 100 calls through `Server::handle`.
//! - `traffic/<corpus>`: every message of a folder of `../shared/corpus/traffic/`
//!   through the server (requests and notifications: parse, dispatch to a table of all
//!   the folder's method names, reply) or `parse_response` (responses), per pass over
//!   the folder.
//!
//! Validation alone (`scan/<message>`) and the bench messages end to end
//! (`handle/<message>`) are in `benches/codec.rs`; the comparison with other crates in
//! `benches/compare.rs`. `cargo bench -p jsonrpc-slice-benches --bench parts`.

mod common;

use std::fs;
use std::path::Path;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use jsonrpc_slice::envelope::{parse_response, ResponseMessage};
use jsonrpc_slice::{Limits, Method, Params, ResultWriter, RpcError, Server};

/// A handler for every generated name: answers `null`.
fn null<'p>(_: &mut (), _: Params<'p>, _: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    Ok(())
}

/// A server for `names` (leaked: benches build their tables once).
fn server(names: &[String]) -> Server<()> {
    let rows: Vec<Method<()>> = names
        .iter()
        .map(|n| Method::new(Box::leak(n.clone().into_boxed_str()), null))
        .collect();
    Server::new(common::leaked_table(rows))
}

fn request(method: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":[42,23],"id":1}}"#).into_bytes()
}

fn dispatch(c: &mut Criterion) {
    let mut g = c.benchmark_group("dispatch");
    let mut out = [0u8; 256];
    for n in [4usize, 32, 256] {
        // Names like real tables have: a namespace, and many sharing a length.
        let names: Vec<String> = (0..n)
            .map(|k| format!("ns_{}/method_{k:03}", k % 7))
            .collect();
        let server = server(&names);
        for (which, name) in [("first", &names[0]), ("last", &names[n - 1])] {
            let msg = request(name);
            g.throughput(Throughput::Bytes(msg.len() as u64));
            g.bench_with_input(BenchmarkId::new(which, n), &msg, |b, msg| {
                b.iter(|| {
                    let reply = server.handle(&mut (), black_box(msg), &mut out).unwrap();
                    assert_eq!(reply, br#"{"jsonrpc":"2.0","result":null,"id":1}"#);
                })
            });
        }
    }
    g.finish();
}

fn write(c: &mut Criterion) {
    let mut g = c.benchmark_group("write");
    let mut buf = [0u8; 4096];
    g.bench_function("result_object", |b| {
        b.iter(|| {
            let mut w = ResultWriter::new(&mut buf);
            w.begin_object().unwrap();
            w.key("id").unwrap();
            w.u64(black_box(1042)).unwrap();
            w.key("name").unwrap();
            w.str(black_box("Ada Lovelace")).unwrap();
            w.key("roles").unwrap();
            w.begin_array().unwrap();
            w.str("admin").unwrap();
            w.str("dev").unwrap();
            w.end().unwrap();
            w.key("active").unwrap();
            w.bool(true).unwrap();
            w.end().unwrap();
            assert_eq!(
                w.written(),
                br#"{"id":1042,"name":"Ada Lovelace","roles":["admin","dev"],"active":true}"#
            );
        })
    });
    let text: String = "line \"quoted\" \\ path\tand é\n".repeat(37);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("escaped_string_1k", |b| {
        b.iter(|| {
            let mut w = ResultWriter::new(&mut buf);
            w.str(black_box(&text)).unwrap();
            assert!(w.written().len() > text.len());
        })
    });
    g.throughput(Throughput::Elements(1));
    let unknown = request("no_such_method");
    let mut out = [0u8; 256];
    let want = br#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}"#;
    g.bench_function("error_reply", |b| {
        b.iter(|| {
            let reply = common::SERVER
                .handle(&mut (), black_box(&unknown), &mut out)
                .unwrap();
            assert_eq!(reply, want);
        })
    });
    g.finish();
}

fn batches(c: &mut Criterion) {
    let mut g = c.benchmark_group("batch");
    let one = r#"{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}"#;
    let mut out = vec![0u8; 64 * 1024];
    for n in [1usize, 10, 100] {
        let msg = format!("[{}]", vec![one; n].join(",")).into_bytes();
        let want = common::SERVER
            .handle(&mut (), &msg, &mut out)
            .unwrap()
            .len();
        g.throughput(Throughput::Bytes(msg.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &msg, |b, msg| {
            b.iter(|| {
                let reply = common::SERVER
                    .handle(&mut (), black_box(msg), &mut out)
                    .unwrap();
                assert_eq!(reply.len(), want);
            })
        });
    }
    g.finish();
}

/// One folder of traffic: requests (and notifications) and responses, as wire
/// messages.
struct Traffic {
    name: &'static str,
    requests: Vec<Vec<u8>>,
    responses: Vec<Vec<u8>>,
}

impl Traffic {
    fn new(name: &'static str) -> Self {
        Traffic {
            name,
            requests: Vec::new(),
            responses: Vec::new(),
        }
    }

    /// Files a message by its members: `method` makes it a request.
    fn add(&mut self, msg: Vec<u8>) {
        let v: serde_json::Value = serde_json::from_slice(&msg).expect("traffic is JSON");
        if v.get("method").is_some() {
            self.requests.push(msg);
        } else {
            self.responses.push(msg);
        }
    }

    fn bytes(&self) -> usize {
        self.requests
            .iter()
            .chain(&self.responses)
            .map(Vec::len)
            .sum()
    }

    fn methods(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .requests
            .iter()
            .filter_map(|m| {
                let v: serde_json::Value = serde_json::from_slice(m).ok()?;
                Some(v.get("method")?.as_str()?.to_owned())
            })
            .filter(|n| !n.starts_with("rpc."))
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

fn files(dir: &Path, ext: &str, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
    out.sort();
}

fn traffic_corpora() -> Vec<Traffic> {
    let root = common::corpus().join("traffic");
    let mut all = Vec::new();

    // Ethereum: `>> request` and `<< response` lines.
    let mut eth = Traffic::new("ethereum-execution-apis");
    let mut io = Vec::new();
    files(&root.join("ethereum-execution-apis"), "io", &mut io);
    for p in io {
        for line in fs::read_to_string(&p).unwrap().lines() {
            if let Some(m) = line.strip_prefix(">> ") {
                eth.requests.push(m.as_bytes().to_vec());
            } else if let Some(m) = line.strip_prefix("<< ") {
                eth.responses.push(m.as_bytes().to_vec());
            }
        }
    }
    all.push(eth);

    // LSP, recorded on the wire: one message per line.
    let mut lsp = Traffic::new("lsp-devtools");
    let mut jsonl = Vec::new();
    files(&root.join("lsp-devtools"), "jsonl", &mut jsonl);
    for p in jsonl {
        for line in fs::read_to_string(&p).unwrap().lines() {
            if !line.trim().is_empty() {
                lsp.add(line.as_bytes().to_vec());
            }
        }
    }
    all.push(lsp);

    // LSP inspector sessions: entries wrapped into envelopes as its README says.
    let mut inspector = Traffic::new("lsp-inspector");
    let mut json = Vec::new();
    files(&root.join("lsp-inspector"), "json", &mut json);
    for p in json {
        let Ok(serde_json::Value::Array(entries)) =
            serde_json::from_slice::<serde_json::Value>(&fs::read(&p).unwrap())
        else {
            continue;
        };
        for e in entries {
            let kind = e.get("msgKind").and_then(|k| k.as_str()).unwrap_or("");
            let id = e.get("msgId").cloned().unwrap_or(serde_json::Value::Null);
            let arg = e.get("arg").cloned().unwrap_or(serde_json::Value::Null);
            let method = e.get("msgType").cloned().unwrap_or_default();
            let msg = match kind {
                "send-request" | "recv-request" => serde_json::json!({
                    "jsonrpc": "2.0", "id": id, "method": method, "params": arg
                }),
                "send-notification" | "recv-notification" => serde_json::json!({
                    "jsonrpc": "2.0", "method": method, "params": arg
                }),
                "send-response" | "recv-response" => serde_json::json!({
                    "jsonrpc": "2.0", "id": id, "result": arg
                }),
                _ => continue,
            };
            inspector.add(serde_json::to_vec(&msg).unwrap());
        }
    }
    all.push(inspector);

    // MCP specification examples: the complete envelopes, as written (pretty-printed).
    let mut mcp = Traffic::new("mcp-spec-examples");
    let mut json = Vec::new();
    files(&root.join("mcp-spec-examples"), "json", &mut json);
    for p in json {
        let bytes = fs::read(&p).unwrap();
        if bytes.windows(9).any(|w| w == b"\"jsonrpc\"") {
            mcp.add(bytes);
        }
    }
    all.push(mcp);
    all
}

fn traffic(c: &mut Criterion) {
    let mut g = c.benchmark_group("traffic");
    g.sample_size(20);
    let mut out = vec![0u8; 1 << 20];
    for t in traffic_corpora() {
        assert!(!t.requests.is_empty(), "{}: no messages", t.name);
        let server = server(&t.methods()).with_limits(Limits::DEFAULT);
        g.throughput(Throughput::Bytes(t.bytes() as u64));
        g.bench_function(t.name, |b| {
            b.iter(|| {
                let mut replied = 0usize;
                for m in &t.requests {
                    replied += server
                        .handle(&mut (), black_box(m), &mut out)
                        .unwrap()
                        .len();
                }
                let mut results = 0usize;
                for m in &t.responses {
                    if let Ok(ResponseMessage::Single(Ok(_))) =
                        parse_response(black_box(m), &Limits::DEFAULT)
                    {
                        results += 1;
                    }
                }
                assert_eq!(results, t.responses.len(), "{}", t.name);
                black_box(replied)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, dispatch, write, batches, traffic);
criterion_main!(benches);
