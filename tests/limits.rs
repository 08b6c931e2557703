//! The six limits, each at limit − 1, limit and limit + 1, in two profiles, inside a
//! framed stream, and on a small stack.
//!
//! | limit | where it is configured | host profile | microcontroller profile |
//! |---|---|---|---|
//! | frame bytes | the framer's buffer: `LineAccumulator::<N>`, `ContentLengthAccumulator::<N>` | 65 536 | 1 024 |
//! | reply bytes | the length of the output buffer given to `Server::handle` / `Service` | 65 536 | 1 024 |
//! | nesting depth | `Limits::max_depth` | 128 (`Limits::DEFAULT`) | 16 |
//! | batch elements | `Limits::max_batch` | 1 024 (`Limits::DEFAULT`) | 8 |
//! | id bytes | `Limits::max_id_len` | 256 (`Limits::DEFAULT`) | 32 |
//! | method bytes | `Limits::max_method_len` | 256 (`Limits::DEFAULT`) | 32 |
//!
//! What is measured, as the crate defines it: the frame is the bytes of one message (for
//! newline framing without its `\n` or `\r\n`; for `Content-Length` the body); the
//! reply is the bytes `Server::handle` writes (without the framing); depth counts every
//! open container, the envelope object and a batch array included; the id is counted as
//! received, quotes included; the method as received, escapes as sent, quotes
//! excluded.
//!
//! Exceeding a limit gives, exactly:
//!
//! | limit | reply |
//! |---|---|
//! | frame | `-32600` `Invalid Request: frame larger than N bytes`, `"id":null` |
//! | reply | `-32603` `Internal error: reply larger than N bytes`, the request's id |
//! | depth | `-32700` `Parse error: nesting deeper than N`, `"id":null` |
//! | batch | `-32600` `Invalid Request: batch larger than N elements`, `"id":null` (one object for the whole batch) |
//! | id | `-32600` `Invalid Request: id longer than N bytes`, `"id":null` |
//! | method | `-32600` `Invalid Request: method longer than N bytes`, the request's id |
//!
//! Two of the six are not `Limits` fields, and are tested as the crate offers them:
//! the frame limit is the framer's buffer size (a type parameter), and the reply limit is
//! the length of the output buffer (there is no separate setting: a reply one byte
//! longer than the buffer is the "limit + 1" case). The reply-limit boundary is reached
//! with the demo method `big` (a string of `n` `x`), whose reply length is exact.
//!
//! "The stream carries on": every case is sent inside a framed stream through
//! `service::Service` (newline with `\n`, newline with `\r\n`, and `Content-Length`),
//! each followed by a valid probe request whose reply must come next; the stream is fed
//! whole, in chunks of 997 bytes, and byte by byte, through one framer per stream.
//!
//! "Constant stack": `over_limit_inputs_in_a_small_stack` runs every stream of this
//! file, and inputs far over each limit (1 MiB of `[`, a frame of nothing but `[`, a
//! batch of 32 767 elements, ids and methods filling a frame, a reply of 2^64 − 1
//! bytes), on a thread with a 32 KiB stack.
//!
//! `batch_element_overflow_names_a_size_its_reply_exceeds` checks the size an
//! overflowing batch element's message names: see its doc comment.

mod common;

use common::served::served;
use common::{nested_arrays, nested_objects, req};

use jsonrpc_slice::frame::content_length::ContentLengthAccumulator;
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::Framer;
use jsonrpc_slice::scan::{DEFAULT_MAX_DEPTH, MAX_DEPTH_LIMIT};
use jsonrpc_slice::{demo, dispatch, Limits, Method, MethodTable, Server};

const KIB: usize = 1024;

/// A configuration: the `Limits`, and the frame and reply buffer sizes.
#[derive(Clone, Copy, Debug)]
struct Profile {
    name: &'static str,
    limits: Limits,
    frame: usize,
    reply: usize,
}

const HOST: Profile = Profile {
    name: "host",
    limits: Limits::DEFAULT,
    frame: 64 * KIB,
    reply: 64 * KIB,
};

const MCU_LIMITS: Limits = Limits::DEFAULT
    .max_depth(16)
    .max_batch(8)
    .max_id_len(32)
    .max_method_len(32);

const MCU: Profile = Profile {
    name: "mcu",
    limits: MCU_LIMITS,
    frame: KIB,
    reply: KIB,
};

const PROFILES: [Profile; 2] = [HOST, MCU];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    /// Each message followed by `\n`.
    Newline,
    /// Each message followed by `\r\n`.
    CrLf,
    /// `Content-Length: N\r\n\r\n` before each message.
    ContentLength,
}

const FRAMINGS: [Framing; 3] = [Framing::Newline, Framing::CrLf, Framing::ContentLength];

/// A framer of the profile's frame size. Made on the heap: a 64 KiB framer must not
/// sit on a small stack.
fn framer(p: &Profile, f: Framing) -> Box<dyn Framer + Send> {
    match (p.frame, f) {
        (65536, Framing::ContentLength) => Box::new(ContentLengthAccumulator::<65536>::new()),
        (65536, _) => Box::new(LineAccumulator::<65536>::new()),
        (1024, Framing::ContentLength) => Box::new(ContentLengthAccumulator::<1024>::new()),
        (1024, _) => Box::new(LineAccumulator::<1024>::new()),
        (n, _) => panic!("no framer of {n} bytes here"),
    }
}

/// The demo table, plus `sum` under the names `m…m` of `max_method_len − 1`, `+ 0` and
/// `+ 1` bytes: a name one byte too long is refused even though the table has it.
fn server(p: &Profile) -> Server<()> {
    let mut methods: Vec<Method<()>> = demo::TABLE.methods().to_vec();
    let m = p.limits.max_method_len;
    for len in [m - 1, m, m + 1] {
        let name: &'static str = Box::leak("m".repeat(len).into_boxed_str());
        methods.push(Method::new(name, demo::sum::<()>));
    }
    let names: Vec<&str> = methods.iter().map(|m| m.name()).collect();
    // The index `method_table!` would give these rows: the demo's nine, and three.
    const SLOTS: usize = dispatch::index_len(9 + 3);
    assert_eq!(names.len(), 9 + 3);
    let index: &'static [u32] = Box::leak(Box::new(dispatch::index::<SLOTS>(&names)));
    Server::new(MethodTable::new(
        Box::leak(methods.into_boxed_slice()),
        index,
    ))
    .with_limits(p.limits)
}

// ---------------------------------------------------------------------------------
// Messages and replies.

fn ok(result: &str, id: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","result":{result},"id":{id}}}"#)
}

fn err(code: i32, message: &str, id: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","error":{{"code":{code},"message":"{message}"}},"id":{id}}}"#)
}

const PROBE: &str = r#"{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":"probe"}"#;
const PROBE_REPLY: &str = r#"{"jsonrpc":"2.0","result":3,"id":"probe"}"#;

/// One message of a stream and the reply it must get (`None`: no reply).
struct Case {
    name: String,
    input: Vec<u8>,
    reply: Option<String>,
}

fn case(name: impl Into<String>, input: impl Into<Vec<u8>>, reply: Option<String>) -> Case {
    Case {
        name: name.into(),
        input: input.into(),
        reply,
    }
}

// ---------------------------------------------------------------------------------
// The cases of each limit, at limit − 1, limit and limit + 1.

fn depth_cases(p: &Profile) -> Vec<Case> {
    let d = p.limits.max_depth as usize;
    let too_deep = err(
        -32700,
        &format!("Parse error: nesting deeper than {d}"),
        "null",
    );
    let mut cases = Vec::new();
    for total in [d - 1, d, d + 1] {
        let fits = total <= d;
        // The envelope is one level: params hold total − 1.
        let (want, batch_want) = if fits {
            (
                Some(ok("null", "1")),
                Some(format!("[{}]", ok("null", "1"))),
            )
        } else {
            (Some(too_deep.clone()), Some(too_deep.clone()))
        };
        cases.push(case(
            format!("depth {total} (arrays)"),
            req("update", Some(&nested_arrays(total - 1)), Some("1")),
            want.clone(),
        ));
        cases.push(case(
            format!("depth {total} (objects)"),
            req("update", Some(&nested_objects(total - 1)), Some("1")),
            want.clone(),
        ));
        cases.push(case(
            format!("depth {total} in a notification"),
            req("update", Some(&nested_arrays(total - 1)), None),
            if fits { None } else { want.clone() },
        ));
        // In a batch, the batch array is one more level.
        cases.push(case(
            format!("depth {total} in a batch"),
            format!(
                "[{}]",
                req("update", Some(&nested_arrays(total - 2)), Some("1"))
            ),
            batch_want,
        ));
        // Depth at the top, no envelope at all: `[[...]]` is a batch of one non-object.
        cases.push(case(
            format!("depth {total} at the top"),
            nested_arrays(total),
            if fits {
                Some(format!("[{}]", err(-32600, "Invalid Request", "null")))
            } else {
                want
            },
        ));
    }
    cases
}

fn batch_cases(p: &Profile) -> Vec<Case> {
    let b = p.limits.max_batch;
    let too_large = err(
        -32600,
        &format!("Invalid Request: batch larger than {b} elements"),
        "null",
    );
    let mut cases = Vec::new();
    for n in [b - 1, b, b + 1] {
        let input: Vec<String> = (0..n)
            .map(|i| req("sum", Some(&format!("[{i}]")), Some(&i.to_string())))
            .collect();
        let output: Vec<String> = (0..n).map(|i| ok(&i.to_string(), &i.to_string())).collect();
        cases.push(case(
            format!("batch of {n} requests"),
            format!("[{}]", input.join(",")),
            Some(if n <= b {
                format!("[{}]", output.join(","))
            } else {
                too_large.clone()
            }),
        ));
        let notes = vec![req("update", None, None); n];
        cases.push(case(
            format!("batch of {n} notifications"),
            format!("[{}]", notes.join(",")),
            (n > b).then(|| too_large.clone()),
        ));
    }
    cases
}

fn id_cases(p: &Profile) -> Vec<Case> {
    let max = p.limits.max_id_len;
    let too_long = err(
        -32600,
        &format!("Invalid Request: id longer than {max} bytes"),
        "null",
    );
    let mut cases = Vec::new();
    for len in [max - 1, max, max + 1] {
        // Quotes included.
        let string = format!("\"{}\"", "i".repeat(len - 2));
        let number = "9".repeat(len);
        let escaped = format!(
            "\"{}\"",
            r"\u0069".repeat((len - 2) / 6) + &"i".repeat((len - 2) % 6)
        );
        for (kind, id) in [("string", string), ("number", number), ("escaped", escaped)] {
            assert_eq!(id.len(), len);
            let want = if len <= max {
                ok("3", &id)
            } else {
                too_long.clone()
            };
            cases.push(case(
                format!("{kind} id of {len} bytes"),
                req("sum", Some("[1,2]"), Some(&id)),
                Some(want),
            ));
        }
    }
    cases
}

fn method_cases(p: &Profile) -> Vec<Case> {
    let max = p.limits.max_method_len;
    let mut cases = Vec::new();
    for len in [max - 1, max, max + 1] {
        // Every one of these names is in the table (see `server`).
        let method = "m".repeat(len);
        for id in ["1", r#""m""#] {
            let want = if len <= max {
                ok("3", id)
            } else {
                err(
                    -32600,
                    &format!("Invalid Request: method longer than {max} bytes"),
                    id,
                )
            };
            cases.push(case(
                format!("method of {len} bytes, id {id}"),
                req(&method, Some("[1,2]"), Some(id)),
                Some(want),
            ));
        }
        // Not in the table: looked up (and not found) up to the limit.
        let unknown = "u".repeat(len);
        let want = if len <= max {
            err(-32601, "Method not found", "2")
        } else {
            err(
                -32600,
                &format!("Invalid Request: method longer than {max} bytes"),
                "2",
            )
        };
        cases.push(case(
            format!("unknown method of {len} bytes"),
            req(&unknown, None, Some("2")),
            Some(want),
        ));
    }
    cases
}

/// An `echo` request of exactly `len` bytes, and its reply.
fn echo_of_len(len: usize) -> (String, String) {
    let base = req("echo", Some(r#"[""]"#), Some("1")).len();
    let pad = "x".repeat(len - base);
    let params = format!(r#"["{pad}"]"#);
    let input = req("echo", Some(&params), Some("1"));
    assert_eq!(input.len(), len);
    (input, ok(&params, "1"))
}

fn frame_cases(p: &Profile) -> Vec<Case> {
    let n = p.frame;
    let mut cases = Vec::new();
    for len in [n - 1, n, n + 1] {
        let (input, reply) = echo_of_len(len);
        let want = if len <= n {
            reply
        } else {
            err(
                -32600,
                &format!("Invalid Request: frame larger than {n} bytes"),
                "null",
            )
        };
        cases.push(case(format!("frame of {len} bytes"), input, Some(want)));
    }
    cases
}

/// A `big` request whose reply is exactly `len` bytes, and that reply.
fn big_of_len(len: usize, id: &str) -> (String, String) {
    let base = ok(r#""""#, id).len();
    let n = len - base;
    let reply = ok(&format!("\"{}\"", "x".repeat(n)), id);
    assert_eq!(reply.len(), len);
    (req("big", Some(&format!("[{n}]")), Some(id)), reply)
}

fn reply_cases(p: &Profile) -> Vec<Case> {
    let r = p.reply;
    let mut cases = Vec::new();
    for len in [r - 1, r, r + 1] {
        for id in ["7", r#""r""#] {
            let (input, reply) = big_of_len(len, id);
            let want = if len <= r {
                reply
            } else {
                err(
                    -32603,
                    &format!("Internal error: reply larger than {r} bytes"),
                    id,
                )
            };
            cases.push(case(
                format!("reply of {len} bytes, id {id}"),
                input,
                Some(want),
            ));
        }
    }
    cases
}

/// Inputs far over each limit (for the small-stack run).
fn far_over_cases(p: &Profile) -> Vec<Case> {
    let l = &p.limits;
    let d = l.max_depth;
    let too_deep = err(
        -32700,
        &format!("Parse error: nesting deeper than {d}"),
        "null",
    );
    let frame_error = err(
        -32600,
        &format!("Invalid Request: frame larger than {} bytes", p.frame),
        "null",
    );
    let fill = |prefix: &str, unit: &str, suffix: &str| -> String {
        let n = (p.frame - prefix.len() - suffix.len()) / unit.len();
        format!("{prefix}{}{suffix}", unit.repeat(n))
    };
    let batch_n = (p.frame - 2) / 2;
    vec![
        case("1 MiB of [", "[".repeat(1 << 20), Some(frame_error.clone())),
        case(
            "1 MiB of nested arrays",
            nested_arrays(1 << 19),
            Some(frame_error),
        ),
        case(
            "a whole frame of [",
            "[".repeat(p.frame),
            Some(too_deep.clone()),
        ),
        case(
            "a whole frame of {\"a\":",
            fill("", r#"{"a":"#, ""),
            Some(too_deep.clone()),
        ),
        case(
            "a whole frame of nesting in params",
            fill(
                r#"{"jsonrpc":"2.0","method":"update","id":1,"params":"#,
                "[",
                "",
            ),
            Some(too_deep),
        ),
        case(
            format!("a batch of {batch_n} elements"),
            format!("[{}1]", "1,".repeat(batch_n - 1)),
            Some(err(
                -32600,
                &format!(
                    "Invalid Request: batch larger than {} elements",
                    l.max_batch
                ),
                "null",
            )),
        ),
        case(
            "an id filling the frame",
            fill(r#"{"jsonrpc":"2.0","method":"sum","id":""#, "i", r#""}"#),
            Some(err(
                -32600,
                &format!("Invalid Request: id longer than {} bytes", l.max_id_len),
                "null",
            )),
        ),
        case(
            "a method filling the frame",
            fill(r#"{"jsonrpc":"2.0","id":3,"method":""#, "m", r#""}"#),
            Some(err(
                -32600,
                &format!(
                    "Invalid Request: method longer than {} bytes",
                    l.max_method_len
                ),
                "3",
            )),
        ),
        case(
            "a reply of 2^64 - 1 bytes",
            req("big", Some("[18446744073709551615]"), Some("9")),
            Some(err(
                -32603,
                &format!("Internal error: reply larger than {} bytes", p.reply),
                "9",
            )),
        ),
    ]
}

// ---------------------------------------------------------------------------------
// Running a stream.

fn framed(f: Framing, msg: &[u8]) -> Vec<u8> {
    match f {
        Framing::Newline => [msg, b"\n"].concat(),
        Framing::CrLf => [msg, b"\r\n"].concat(),
        Framing::ContentLength => [
            format!("Content-Length: {}\r\n\r\n", msg.len()).as_bytes(),
            msg,
        ]
        .concat(),
    }
}

/// Cuts the framed replies apart.
fn bodies(f: Framing, wire: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = wire;
    while !rest.is_empty() {
        match f {
            Framing::Newline | Framing::CrLf => {
                let end = rest
                    .iter()
                    .position(|&b| b == b'\n')
                    .expect("each reply ends with a newline");
                out.push(String::from_utf8_lossy(&rest[..end]).into_owned());
                rest = &rest[end + 1..];
            }
            Framing::ContentLength => {
                let text = String::from_utf8_lossy(rest);
                let tail = text.strip_prefix("Content-Length: ").expect("a header");
                let end = tail.find("\r\n\r\n").expect("end of header");
                let len: usize = tail[..end].parse().expect("a length");
                let start = "Content-Length: ".len() + end + 4;
                out.push(String::from_utf8_lossy(&rest[start..start + len]).into_owned());
                rest = &rest[start + len..];
            }
        }
    }
    out
}

fn short(s: &str) -> String {
    if s.len() <= 200 {
        s.to_owned()
    } else {
        format!("{}… ({} bytes)", &s[..200], s.len())
    }
}

/// Sends every case, each followed by the probe, through one framer: whole, in chunks of
/// 997 bytes, and byte by byte (streams up to 512 KiB). Every reply must be the expected one, in order.
fn check_stream(
    p: &Profile,
    server: &Server<()>,
    framer: &mut dyn Framer,
    f: Framing,
    cases: &[Case],
) {
    let mut stream = Vec::new();
    let mut want: Vec<(&str, &str)> = Vec::new();
    for c in cases {
        if f != Framing::ContentLength {
            assert!(
                !c.input.contains(&b'\n'),
                "{}: a newline in the input",
                c.name
            );
        }
        stream.extend(framed(f, &c.input));
        if let Some(r) = &c.reply {
            want.push((&c.name, r));
        }
        stream.extend(framed(f, PROBE.as_bytes()));
        want.push((&c.name, PROBE_REPLY));
    }
    let mut out = vec![0u8; p.reply];
    // Byte by byte only for streams up to 512 KiB (the far-over ones hold MiBs).
    let chunks = if stream.len() <= 512 * KIB {
        vec![stream.len(), 997, 1]
    } else {
        vec![stream.len(), 997]
    };
    for chunk in chunks {
        let wire = served(server, &mut (), framer, &mut out, stream.chunks(chunk))
            .replies
            .concat();
        let got = bodies(f, &wire);
        for (i, (name, w)) in want.iter().enumerate() {
            let g = got.get(i).map_or("<no reply>".to_owned(), |g| short(g));
            assert_eq!(
                g,
                short(w),
                "{} profile, {f:?} framing, chunks of {chunk}: reply {i}, after case \"{name}\"",
                p.name
            );
        }
        assert_eq!(
            got.len(),
            want.len(),
            "{} profile, {f:?}, chunks of {chunk}: extra replies",
            p.name
        );
    }
}

fn check_limit(cases: fn(&Profile) -> Vec<Case>) {
    for p in &PROFILES {
        let server = server(p);
        let cases = cases(p);
        for f in FRAMINGS {
            check_stream(p, &server, &mut *framer(p, f), f, &cases);
        }
    }
}

// ---------------------------------------------------------------------------------
// The tests.

/// The profiles are what this file's doc comment says, and the host one is
/// `Limits::DEFAULT`.
#[test]
fn profiles_are_the_documented_ones() {
    assert_eq!(
        Limits::DEFAULT,
        Limits {
            max_depth: 128,
            max_batch: 1024,
            max_id_len: 256,
            max_method_len: 256,
        }
    );
    assert_eq!(Limits::default(), Limits::DEFAULT);
    assert_eq!(DEFAULT_MAX_DEPTH, 128);
    assert_eq!((MCU.limits.max_depth, MCU.limits.max_batch), (16, 8));
    assert_eq!((MCU.limits.max_id_len, MCU.limits.max_method_len), (32, 32));
    assert_eq!(HOST.limits.depth_in_force(), 128);
    assert_eq!(MCU.limits.depth_in_force(), 16);
    assert_eq!(
        Limits::DEFAULT.max_depth(u16::MAX).depth_in_force(),
        MAX_DEPTH_LIMIT
    );
    assert_eq!(Server::new(demo::TABLE).limits(), &Limits::DEFAULT);
    for p in &PROFILES {
        for f in FRAMINGS {
            assert_eq!(framer(p, f).max_frame(), p.frame);
        }
    }
}

#[test]
fn depth_limit() {
    check_limit(depth_cases);
}

#[test]
fn batch_limit() {
    check_limit(batch_cases);
}

#[test]
fn id_length_limit() {
    check_limit(id_cases);
}

#[test]
fn method_length_limit() {
    check_limit(method_cases);
}

#[test]
fn frame_limit() {
    check_limit(frame_cases);
}

#[test]
fn reply_limit() {
    check_limit(reply_cases);
}

/// The same limits through `Server::handle` alone (no framing): the replies are the
/// ones the streams get.
#[test]
fn server_handle_alone_gives_the_same_replies() {
    for p in &PROFILES {
        let server = server(p);
        let mut out = vec![0u8; p.reply];
        for cases in [
            depth_cases,
            batch_cases,
            id_cases,
            method_cases,
            reply_cases,
        ] {
            for c in cases(p) {
                let got = server.handle(&mut (), &c.input, &mut out).expect("fits");
                let want = c.reply.as_deref().unwrap_or("");
                assert_eq!(
                    short(&String::from_utf8_lossy(got)),
                    short(want),
                    "{}: {}",
                    p.name,
                    c.name
                );
            }
        }
    }
}

/// Every stream of this file, and inputs far over every limit, on a 32 KiB stack: the
/// work done for an over-limit input needs no more stack than for a small one. The
/// framers (64 KiB for the host) are made on the heap before the thread starts.
#[test]
fn over_limit_inputs_in_a_small_stack() {
    let mut jobs = Vec::new();
    for p in PROFILES {
        for f in FRAMINGS {
            jobs.push((p, f, framer(&p, f), server(&p)));
        }
    }
    let handle = std::thread::Builder::new()
        .name("32 KiB stack".into())
        .stack_size(32 * KIB)
        .spawn(move || {
            for (p, f, mut framer, server) in jobs {
                let mut all = Vec::new();
                for cases in [
                    depth_cases,
                    batch_cases,
                    id_cases,
                    method_cases,
                    frame_cases,
                    reply_cases,
                    far_over_cases,
                ] {
                    all.extend(cases(&p));
                }
                check_stream(&p, &server, &mut *framer, f, &all);
                // Straight into `Server::handle`, past any framer.
                let mut out = vec![0u8; p.reply];
                let d = p.limits.max_depth;
                for input in ["[".repeat(1 << 20), r#"{"a":"#.repeat(1 << 18)] {
                    let got = server.handle(&mut (), input.as_bytes(), &mut out).unwrap();
                    assert_eq!(
                        String::from_utf8_lossy(got),
                        err(
                            -32700,
                            &format!("Parse error: nesting deeper than {d}"),
                            "null"
                        ),
                    );
                }
            }
        })
        .expect("spawn");
    handle.join().expect("the 32 KiB thread failed");
}

/// In a batch, an element whose reply does not fit in what is left of the buffer is
/// replaced by `-32603` "Internal error: reply larger than N bytes", with N the room
/// it had (it once named the *whole* buffer, a limit the reply did not exceed). Here:
/// two `big [600]` replies (637 bytes each) into 1024 bytes; the second is answered
/// with the room left after the first, and alone, in a buffer of exactly that size, it
/// does not fit either.
#[test]
fn batch_element_overflow_names_a_size_its_reply_exceeds() {
    let server = Server::new(demo::TABLE);
    let one = |id: &str| req("big", Some("[600]"), Some(id));
    let batch = format!("[{},{}]", one("1"), one("2"));
    let mut out = vec![0u8; KIB];
    let reply = String::from_utf8(
        server
            .handle(&mut (), batch.as_bytes(), &mut out)
            .unwrap()
            .to_vec(),
    )
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&reply).unwrap();
    let second = &v[1];
    assert_eq!(second["error"]["code"], -32603, "{reply}");
    let message = second["error"]["message"].as_str().unwrap();
    let named: usize = message
        .strip_prefix("Internal error: reply larger than ")
        .and_then(|m| m.strip_suffix(" bytes"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected message {message:?}"));
    // The same request alone, into a buffer of exactly `named` bytes.
    let mut exact = vec![0u8; named];
    let alone = server
        .handle(&mut (), one("2").as_bytes(), &mut exact)
        .unwrap();
    let alone: serde_json::Value = serde_json::from_slice(alone).unwrap();
    assert!(
        alone.get("error").is_some(),
        "\"{message}\", but the reply alone fits in {named} bytes: {}",
        short(&alone.to_string())
    );
}

/// `OutputTooSmall::enough` is enough: with ids as long as the limits let through, every
/// reply that replaces another (a result too large, the reply of a batch too large, the
/// errors of the envelope) fits in a buffer of that size.
#[test]
fn output_too_small_names_a_size_that_is_enough() {
    for max_id_len in [1, 2, 16, 100, 256, 1000] {
        let limits = Limits::DEFAULT.max_id_len(max_id_len);
        let server = Server::new(demo::TABLE).with_limits(limits);
        let enough = jsonrpc_slice::OutputTooSmall::enough(&limits);
        let mut longest = 0;
        let ids = [
            "9".repeat(max_id_len),
            format!("\"{}\"", "\\\"".repeat(max_id_len.saturating_sub(2) / 2)),
            "1".into(),
            "9".repeat(max_id_len + 1),
        ];
        for id in ids.iter().filter(|id| !id.is_empty()) {
            let big = req("big", Some(&format!("[{}]", 100 * enough)), Some(id));
            for msg in [
                big.clone(),
                format!("[{big},{big}]"),
                req("no such method", None, Some(id)),
                req("subtract", Some(r#"["a"]"#), Some(id)),
                format!(r#"{{"jsonrpc":"1.0","method":"sum","id":{id}}}"#),
                format!(r#"{{"jsonrpc":"2.0","method":"sum","id":{id}"#),
                format!(r#"[{}]"#, req("sum", Some("[1]"), None) + ",1"),
            ] {
                let mut out = vec![0u8; enough];
                let reply = server
                    .handle(&mut (), msg.as_bytes(), &mut out)
                    .unwrap_or_else(|_| panic!("{max_id_len}: {msg:.80}"));
                longest = longest.max(reply.len());
            }
        }
        assert!(longest <= enough, "{max_id_len}: {longest} of {enough}");
    }
}
