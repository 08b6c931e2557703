//! The work budget of a batch (`limits::BATCH_WORK_FACTOR`, `SECURITY.md` "Make a
//! message cost more than its size"): the bytes a batch's replies write, kept and
//! rolled back together, stay within `BATCH_WORK_FACTOR` times the output buffer.
//!
//! Work is counted, never timed: every handler here adds the bytes it wrote through
//! its `ResultWriter` (the room it had before, minus the room left after) to the
//! context. Those bytes are part of what the budget bounds, so they stay within it;
//! comparing two messages, the reply's bytes are added to them. Before the budget, each
//! element of a batch that overflowed got the whole room left again, so a batch of
//! `flood` calls wrote about (elements × buffer) bytes.

use jsonrpc_slice::limits::BATCH_WORK_FACTOR;
use jsonrpc_slice::{demo, method_table, MethodTable, Params, ResultWriter, RpcError, Server};
use proptest::prelude::*;

/// What the handlers did.
#[derive(Default)]
struct Work {
    /// Bytes written by handlers, whether kept or rolled back later.
    bytes: usize,
    /// Handlers that ran with a writer that drops their writes: notifications, and
    /// calls with no room left in a lost batch.
    notified: usize,
    /// Handlers that ran, calls and notifications.
    ran: usize,
}

/// `flood`: writes one string a byte at a time until the writer refuses.
fn flood<'p>(w: &mut Work, _: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    w.ran += 1;
    if !out.is_live() {
        w.notified += 1;
        return Ok(());
    }
    let before = out.remaining();
    let mut written = out.string_start();
    while written.is_ok() {
        written = out.string_push("x");
    }
    w.bytes += before - out.remaining();
    Ok(written?)
}

/// `big` and `sum` of the demo table, their bytes counted.
fn big<'p>(w: &mut Work, p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    w.ran += 1;
    let before = out.remaining();
    let result = demo::big(w, p, out);
    w.bytes += before - out.remaining();
    result
}

fn sum<'p>(w: &mut Work, p: Params<'p>, out: &mut ResultWriter<'_>) -> Result<(), RpcError<'p>> {
    w.ran += 1;
    if !out.is_live() {
        w.notified += 1;
    }
    let before = out.remaining();
    let result = demo::sum(w, p, out);
    w.bytes += before - out.remaining();
    result
}

static TABLE: MethodTable<Work> = method_table! { "flood" => flood, "big" => big, "sum" => sum };
static SERVER: Server<Work> = Server::new(TABLE);

fn call(method: &str, params: &str, id: usize) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params},"id":{id}}}"#)
}

fn notification(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{params}}}"#)
}

fn batch(elements: &[String]) -> String {
    format!("[{}]", elements.join(","))
}

/// Handles `message` into a buffer of `cap` bytes: the bytes of the reply, the reply,
/// and what the handlers counted.
fn handle(message: &str, cap: usize) -> (usize, serde_json::Value, Work) {
    let mut work = Work::default();
    let mut out = vec![0u8; cap];
    let reply = SERVER
        .handle(&mut work, message.as_bytes(), &mut out)
        .expect("an error reply fits");
    let value = if reply.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_slice(reply).expect("the reply is JSON")
    };
    (reply.len(), value, work)
}

fn lost_batch(reply: &serde_json::Value) -> bool {
    reply["error"]["code"] == -32603
        && reply["id"].is_null()
        && reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Internal error: batch reply larger than "))
}

#[test]
fn a_batch_of_floods_writes_at_most_the_budget() {
    for cap in [256, 1024, 4096, 65536] {
        let floods: Vec<String> = (0..1024).map(|i| call("flood", "[]", i)).collect();
        let (_, reply, work) = handle(&batch(&floods), cap);
        assert!(lost_batch(&reply), "{reply}");
        assert!(
            work.bytes <= BATCH_WORK_FACTOR * cap,
            "{} bytes written for a buffer of {cap}",
            work.bytes
        );
    }
}

/// The issue's message: 1 024 `big [70000]` against 1 024 `sum [70000]`, the same size,
/// into the serve example's 64 KiB: at most 10 times the work (it was over 1 000 times).
#[test]
fn a_batch_of_big_calls_costs_about_what_a_plain_batch_costs() {
    let bigs: Vec<String> = (0..1024).map(|_| call("big", "[70000]", 1)).collect();
    let sums: Vec<String> = (0..1024).map(|_| call("sum", "[70000]", 1)).collect();
    let (bigs, sums) = (batch(&bigs), batch(&sums));
    assert_eq!(bigs.len(), sums.len());
    let (reply_bytes, reply, work) = handle(&bigs, 64 * 1024);
    assert!(lost_batch(&reply), "{reply}");
    let big_work = work.bytes + reply_bytes;
    let (reply_bytes, reply, work) = handle(&sums, 64 * 1024);
    assert_eq!(reply.as_array().map(Vec::len), Some(1024));
    let sum_work = work.bytes + reply_bytes;
    assert!(
        big_work <= 10 * sum_work,
        "big batch: {big_work} bytes, plain batch: {sum_work} bytes"
    );
}

/// One element that fills the buffer and is rolled back leaves the rest of the batch
/// answered; once the budget is spent, the remaining calls and notifications still
/// run, and nothing they write is kept.
#[test]
fn an_element_that_overflows_leaves_the_rest_answered() {
    let cap = 512;
    let elements = [
        call("flood", "[]", 1),
        call("sum", "[1,2]", 2),
        notification("flood", "[]"),
        call("sum", "[3]", 3),
    ];
    let (_, reply, work) = handle(&batch(&elements), cap);
    let entries = reply.as_array().expect("an array");
    assert_eq!(entries.len(), 3, "{reply}");
    assert_eq!(entries[0]["error"]["code"], -32603);
    assert_eq!(entries[0]["id"], 1);
    assert_eq!(entries[1]["result"], 3);
    assert_eq!(entries[2]["result"], 3);
    assert_eq!(work.notified, 1);

    let mut elements: Vec<String> = (0..20).map(|i| call("flood", "[]", i)).collect();
    elements.extend((0..5).map(|_| notification("flood", "[]")));
    elements.extend((0..5).map(|i| call("sum", "[1]", i)));
    let (_, reply, work) = handle(&batch(&elements), cap);
    assert!(lost_batch(&reply), "{reply}");
    assert!(work.bytes <= BATCH_WORK_FACTOR * cap);
    // The 5 notifications, and the calls that found no room.
    assert!(work.notified >= 5);
    assert_eq!(work.ran, 30);
}

fn element() -> impl Strategy<Value = String> {
    prop_oneof![
        (0usize..100).prop_map(|i| call("flood", "[]", i)),
        (0u32..5000, 0usize..100).prop_map(|(n, i)| call("big", &format!("[{n}]"), i)),
        (0usize..100).prop_map(|i| call("sum", "[1,2]", i)),
        Just(notification("flood", "[]")),
        Just(notification("sum", "[1]")),
        Just("1".to_string()),
        Just(call("nope", "[]", 7)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any batch, any buffer: the work stays within the budget, every notification
    /// runs, and the reply is one entry per call or the one error of a lost batch.
    #[test]
    fn any_batch_stays_within_the_budget(
        elements in proptest::collection::vec(element(), 1..64),
        cap in 160usize..4096,
    ) {
        let (_, reply, work) = handle(&batch(&elements), cap);
        prop_assert!(
            work.bytes <= BATCH_WORK_FACTOR * cap,
            "{} bytes written for a buffer of {}", work.bytes, cap
        );
        let notifications = elements.iter().filter(|e| !e.contains("\"id\"") && e.len() > 1).count();
        prop_assert!(work.notified >= notifications);
        // Every request for a method of the table ran, whatever happened to the reply.
        let requests = elements.iter().filter(|e| e.len() > 1 && !e.contains("nope")).count();
        prop_assert_eq!(work.ran, requests);
        let calls = elements.len() - notifications;
        match reply.as_array() {
            Some(entries) => prop_assert_eq!(entries.len(), calls),
            None if calls == 0 => prop_assert!(reply.is_null()),
            None => prop_assert!(lost_batch(&reply), "{}", reply),
        }
    }
}
