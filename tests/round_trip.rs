//! Round trips over the crate's own vectors: parse → write → parse.
//!
//! For every request and notification of messages shaped like the benchmark messages
//! and of the specification's examples (`tests/common/vectors.rs`):
//!
//! 1. `envelope::parse` reads it, and its `method`, `params` and `id` views are the
//!    exact spans serde_json's `RawValue` finds for the same members;
//! 2. a new message is written from those views alone
//!    (`{"jsonrpc":"2.0","method":…,"params":…,"id":…}`) and parsed again: the views
//!    are byte-identical, serde_json reads the same values as in the original, and
//!    writing it once more gives the same bytes;
//! 3. the demo `echo` method is called with the message's params (and id): the reply
//!    is JSON, its `result` is the params byte for byte (raw line breaks, which are
//!    whitespace, dropped) and its `id` the id; as a notification it is not answered.
//!
//! The engine is `tests/common/round_trip.rs`; the conformance tier runs it over
//! captured Ethereum, LSP and MCP traffic.

mod common;

use common::round_trip::{run, Message, Tally};
use common::vectors::{bench_shapes, spec_examples};

#[test]
fn bench_shaped_messages() {
    let messages: Vec<Message> = bench_shapes()
        .into_iter()
        .map(|(label, bytes)| Message {
            label: label.to_owned(),
            bytes,
        })
        .collect();
    let tally = run("bench shapes", &messages);
    // 01, 03, 04, 08, 09, 10: a call each; 02, 05: notifications; 06: a batch of 5
    // calls and 3 notifications; 07: a response.
    assert_eq!(
        tally,
        Tally {
            messages: 10,
            requests: 16,
            notifications: 5,
            others: 1
        }
    );
}

#[test]
fn spec_examples_that_are_json() {
    // Examples 5 and 7 are not JSON and 6 is not a Request object; the rest are
    // requests, notifications and batches (with the scalars and the `{"foo": "boo"}`
    // of 9-11 as elements that are not requests).
    let messages: Vec<Message> = spec_examples()
        .into_iter()
        .filter(|e| {
            !["5. ", "6. ", "7. "]
                .iter()
                .any(|n| e.section.starts_with(n))
        })
        .map(|e| Message {
            label: e.section,
            bytes: e.request,
        })
        .collect();
    let tally = run("spec examples", &messages);
    // Requests: 2 + 2 + 2 (3's notifications) + 1 + 5 (11) + 2 (12's notifications);
    // others: `[]` (8), `1` (9), `1,2,3` (10), `{"foo": "boo"}` (11).
    assert_eq!(
        tally,
        Tally {
            messages: 12,
            requests: 14,
            notifications: 5,
            others: 6
        }
    );
}
