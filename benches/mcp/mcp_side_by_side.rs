//! MCP side by side over stdio: the `note` tool on jsonrpc-slice (`slice_note.rs`)
//! and on the official Rust MCP SDK, rmcp (`rmcp_note.rs`), each a child process
//! driven through its standard input and output by this program, one after the other.
//!
//! ```sh
//! cargo bench --manifest-path benches/mcp/Cargo.toml --bench mcp_side_by_side -- \
//!     [--calls N] [--lockstep-calls M] [--warmup W] [--rounds R] [--only NAME]
//!     [--mode pipelined|lockstep]
//! ```
//!
//! Each session: `initialize` (protocol version 2025-11-25, which every server must
//! answer with), `notifications/initialized`, W `tools/call` of `note` lock-step
//! (default 1,000, not measured), then the measured calls:
//!
//! - **pipelined**: N calls (default 50,000) written by one thread as fast as the pipe
//!   takes them while another reads the replies;
//! - **lock-step**: M calls (default 10,000), each written once the reply to the one
//!   before was read.
//!
//! Every reply is checked (its id seen once, the result's text `noted: …`); standard
//! input is closed only once every reply was read, and the server must then exit 0.
//!
//! `--only NAME` runs the server of that name alone (as the table names it).
//!
//! Each server runs R times per mode (default 3), once a round, the order reversed
//! every other round; a figure is the median of its rounds (calls per second with
//! the lowest and highest). Figures, for the measured calls only: calls per second (wall clock, from the first
//! call written to the last reply read); the server process's CPU time per call (the
//! sum of `/proc/PID/task/*/schedstat` over its threads, before and after); its heap
//! allocations per call (alloc, alloc_zeroed, realloc), all of them and the tool
//! handler's own, as its counting allocator reports them on `SIGUSR1` (`lib.rs`);
//! the load average as each round started. Then the size of each server binary.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod streamable_http;
use streamable_http::HttpKind;

struct ServerKind {
    name: &'static str,
    exe: &'static str,
    args: &'static [&'static str],
}

const SERVERS: &[ServerKind] = &[
    ServerKind {
        name: "floor: no JSON-RPC, a fixed reply",
        exe: env!("CARGO_BIN_EXE_floor"),
        args: &[],
    },
    ServerKind {
        name: "jsonrpc-slice",
        exe: env!("CARGO_BIN_EXE_slice-note"),
        args: &[],
    },
    ServerKind {
        name: "jsonrpc-slice, pipes",
        exe: env!("CARGO_BIN_EXE_slice-note"),
        args: &["--pipes"],
    },
    ServerKind {
        name: "rmcp 3.11, stdio()",
        exe: env!("CARGO_BIN_EXE_rmcp-note"),
        args: &[],
    },
    ServerKind {
        name: "rmcp 3.11, stdio_pipes()",
        exe: env!("CARGO_BIN_EXE_rmcp-note"),
        args: &["--pipes"],
    },
    ServerKind {
        name: "rmcp 3.11, stdio_pipes(), 1 thread",
        exe: env!("CARGO_BIN_EXE_rmcp-note"),
        args: &["--pipes", "--current-thread"],
    },
];

const HTTP_SERVERS: &[HttpKind] = &[
    HttpKind {
        name: "floor: hyper, no JSON-RPC, a fixed reply, JSON",
        exe: env!("CARGO_BIN_EXE_floor"),
        args: &[],
        sse: false,
    },
    HttpKind {
        name: "floor: hyper, no JSON-RPC, a fixed reply, SSE",
        exe: env!("CARGO_BIN_EXE_floor"),
        args: &["--sse"],
        sse: true,
    },
    HttpKind {
        name: "jsonrpc-slice, no sessions, JSON",
        exe: env!("CARGO_BIN_EXE_slice-note"),
        args: &["--json"],
        sse: false,
    },
    HttpKind {
        name: "jsonrpc-slice, no sessions, JSON, state kept",
        exe: env!("CARGO_BIN_EXE_slice-note"),
        args: &["--json", "--keep"],
        sse: false,
    },
    HttpKind {
        name: "jsonrpc-slice, sessions, SSE, state kept",
        exe: env!("CARGO_BIN_EXE_slice-note"),
        args: &["--keep"],
        sse: true,
    },
    HttpKind {
        name: "jsonrpc-slice, sessions, SSE",
        exe: env!("CARGO_BIN_EXE_slice-note"),
        args: &[],
        sse: true,
    },
    HttpKind {
        name: "rmcp 3.11, stateless, json_response",
        exe: env!("CARGO_BIN_EXE_rmcp-note"),
        args: &["--json"],
        sse: false,
    },
    HttpKind {
        name: "rmcp 3.11, sessions (its defaults)",
        exe: env!("CARGO_BIN_EXE_rmcp-note"),
        args: &[],
        sse: true,
    },
];

/// A running server: its pipes, and its `allocations` reports.
struct Session {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    reports: mpsc::Receiver<(u64, u64)>,
}

impl Session {
    fn start(kind: &ServerKind) -> Session {
        // `MCP_SERVER_WRAP`: a command the server runs under (`instructions.sh`'s
        // callgrind).
        let wrap = std::env::var("MCP_SERVER_WRAP").unwrap_or_default();
        let mut words = wrap.split_whitespace().chain([kind.exe]);
        let mut child = Command::new(words.next().unwrap())
            .args(words)
            .args(kind.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", kind.exe));
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let (tx, reports) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                let counts: Vec<u64> = match line.strip_prefix("allocations ") {
                    Some(rest) => rest.split(' ').filter_map(|n| n.parse().ok()).collect(),
                    None => {
                        eprintln!("server: {line}");
                        continue;
                    }
                };
                let _ = tx.send((counts[0], counts[1]));
            }
        });
        Session {
            input: BufWriter::new(child.stdin.take().unwrap()),
            output: BufReader::new(child.stdout.take().unwrap()),
            child,
            reports,
        }
    }

    fn send(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).unwrap();
        self.input.write_all(b"\n").unwrap();
        self.input.flush().unwrap();
    }

    fn receive(&mut self, line: &mut String) {
        line.clear();
        let n = self.output.read_line(line).unwrap();
        assert!(n > 0, "the server closed its output");
    }

    /// The allocations counted so far: all, and the handler's.
    fn allocations(&mut self) -> (u64, u64) {
        // SAFETY: kill has no memory preconditions; the pid is our live child's.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGUSR1) };
        self.reports
            .recv_timeout(Duration::from_secs(60))
            .expect("an allocations report")
    }

    fn cpu_ns(&self) -> u64 {
        cpu_ns(self.child.id())
    }

    /// Closes standard input and waits for the server to exit 0.
    fn finish(self) {
        let Session {
            mut child, input, ..
        } = self;
        drop(input);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "the server exited with {status}");
                return;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the server did not exit within 60 s of the end of its input");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// CPU time, in nanoseconds, of every thread of process `pid`.
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// Checks one reply to a `tools/call` and returns its id.
fn check(reply: &str, noted: &str) -> u64 {
    assert!(
        reply.contains(noted)
            && !reply.contains("\"error\"")
            && !reply.contains("\"isError\":true"),
        "{reply}"
    );
    let at = reply.find("\"id\":").expect("an id") + 5;
    let digits: String = reply[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().expect("a numeric id")
}

pub struct Row {
    pub calls_per_s: f64,
    pub cpu_us: f64,
    pub allocations: f64,
    pub handler: f64,
}

fn session(kind: &ServerKind, pipelined: bool, calls: u64, warmup: u64) -> Row {
    let mut s = Session::start(kind);
    let mut line = String::new();
    s.send(&mcp_bench::initialize());
    s.receive(&mut line);
    let version = format!("\"protocolVersion\":\"{}\"", mcp_bench::PROTOCOL_VERSION);
    assert!(line.contains(&version), "{}: {line}", kind.name);
    s.send(mcp_bench::INITIALIZED);
    let noted = format!("\"text\":\"{}\"", mcp_bench::noted());
    for id in 1..=warmup {
        s.send(&mcp_bench::call(id));
        s.receive(&mut line);
        assert_eq!(check(&line, &noted), id);
    }
    let first = warmup + 1;
    let requests: Vec<String> = (first..first + calls).map(mcp_bench::call).collect();
    let mut seen = vec![false; calls as usize];
    let (a0, h0) = s.allocations();
    let cpu0 = s.cpu_ns();
    let start = Instant::now();
    if pipelined {
        let mut input = s.input;
        let writer = std::thread::spawn(move || {
            for r in &requests {
                input.write_all(r.as_bytes()).unwrap();
                input.write_all(b"\n").unwrap();
            }
            input.flush().unwrap();
            input
        });
        for _ in 0..calls {
            s.output
                .read_line({
                    line.clear();
                    &mut line
                })
                .unwrap();
            let id = check(&line, &noted);
            assert!(!std::mem::replace(&mut seen[(id - first) as usize], true));
        }
        s.input = writer.join().unwrap();
    } else {
        for r in &requests {
            s.send(r);
            s.receive(&mut line);
            let id = check(&line, &noted);
            assert!(!std::mem::replace(&mut seen[(id - first) as usize], true));
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let cpu = s.cpu_ns().saturating_sub(cpu0);
    let (a1, h1) = s.allocations();
    assert!(seen.iter().all(|&s| s));
    s.finish();
    let n = calls as f64;
    Row {
        calls_per_s: n / secs,
        cpu_us: cpu as f64 / 1000.0 / n,
        allocations: (a1 - a0) as f64 / n,
        handler: (h1 - h0) as f64 / n,
    }
}

/// Runs `run(i)` for every server `i` once a round, `rounds` rounds, the order
/// reversed every other round, and prints a row for each: the medians, and the load
/// average as each round began.
fn rounds_of(names: &[&str], what: &str, rounds: u64, mut run: impl FnMut(usize) -> Row) {
    let mut rows: Vec<Vec<Row>> = names.iter().map(|_| Vec::new()).collect();
    let mut loads = Vec::new();
    for round in 0..rounds {
        loads.push(load());
        let mut order: Vec<usize> = (0..names.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for i in order {
            rows[i].push(run(i));
        }
    }
    let loads = loads.join(", ");
    for (name, rows) in names.iter().zip(&rows) {
        let median = |f: fn(&Row) -> f64| {
            let mut v: Vec<f64> = rows.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            (v[v.len() / 2], v[0], v[v.len() - 1])
        };
        let (cps, low, high) = median(|r| r.calls_per_s);
        println!(
            "| {name} | {what} | {cps:.0} ({low:.0}..{high:.0}) | {:.2} | {:.2} | {:.2} | {loads} |",
            median(|r| r.cpu_us).0,
            median(|r| r.allocations).0,
            median(|r| r.handler).0
        );
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').next().unwrap_or("?").to_owned())
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let named = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let number =
        |name: &str, default: u64| named(name).and_then(|v| v.parse().ok()).unwrap_or(default);
    let calls = number("--calls", 50_000);
    let lockstep = number("--lockstep-calls", 10_000);
    let warmup = number("--warmup", 1_000);
    let rounds = number("--rounds", 3).max(1);
    let connections = number("--connections", 4).max(1);
    let http_calls = number("--http-calls", 20_000);
    let only = named("--only");
    let mode = named("--mode");
    println!(
        "\nMCP over stdio: `tools/call` of `note`; {calls} pipelined, {lockstep} lock-step, after {warmup} not measured; {rounds} rounds\n"
    );
    let transport = named("--transport");
    let header = |what: &str| {
        println!("| server | {what} | calls/s, median (lowest..highest) | CPU µs/call | allocations/call | of which the handler's | load |");
        println!("|---|---|---:|---:|---:|---:|---:|");
    };
    if transport.as_deref() != Some("http") {
        header("calls");
        let servers: Vec<&ServerKind> = SERVERS
            .iter()
            .filter(|k| only.as_deref().is_none_or(|o| k.name == o))
            .collect();
        for (pipelined, mode_name, n) in
            [(true, "pipelined", calls), (false, "lock-step", lockstep)]
        {
            if mode.as_deref().is_some_and(|m| !mode_name.starts_with(m)) {
                continue;
            }
            let names: Vec<&str> = servers.iter().map(|k| k.name).collect();
            rounds_of(&names, mode_name, rounds, |i| {
                session(servers[i], pipelined, n, warmup)
            });
        }
    }
    if transport.as_deref() != Some("stdio") {
        println!(
            "\nMCP over Streamable HTTP: `tools/call` of `note`; {connections} connections lock-step, {http_calls} calls, after {warmup} not measured; {rounds} rounds\n"
        );
        header("replies");
        let servers: Vec<&HttpKind> = HTTP_SERVERS
            .iter()
            .filter(|k| only.as_deref().is_none_or(|o| k.name == o))
            .collect();
        let client = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        for (sse, replies) in [(false, "JSON"), (true, "SSE")] {
            let servers: Vec<&HttpKind> =
                servers.iter().copied().filter(|k| k.sse == sse).collect();
            if servers.is_empty() {
                continue;
            }
            let names: Vec<&str> = servers.iter().map(|k| k.name).collect();
            rounds_of(&names, replies, rounds, |i| {
                streamable_http::session(servers[i], &client, connections, http_calls, warmup)
            });
        }
    }
    println!("\n| server binary | bytes | stripped |");
    println!("|---|---:|---:|");
    for exe in [
        env!("CARGO_BIN_EXE_slice-note"),
        env!("CARGO_BIN_EXE_rmcp-note"),
    ] {
        let size = std::fs::metadata(exe).map(|m| m.len()).unwrap_or(0);
        let stripped =
            std::env::temp_dir().join(format!("mcp-side-by-side-{}", std::process::id()));
        let ok = Command::new("strip")
            .arg("-o")
            .arg(&stripped)
            .arg(exe)
            .status()
            .is_ok_and(|s| s.success());
        let small = std::fs::metadata(&stripped)
            .map(|m| m.len())
            .ok()
            .filter(|_| ok);
        let _ = std::fs::remove_file(&stripped);
        let name = exe.rsplit('/').next().unwrap_or(exe);
        let small = small.map_or("?".into(), |s| s.to_string());
        println!("| {name} | {size} | {small} |");
    }
}
