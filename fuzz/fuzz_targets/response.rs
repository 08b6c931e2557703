//! The response parser (the client side): never panics, and whatever it accepts
//! serde_json reads the same way: a Response object with `"jsonrpc":"2.0"`, exactly one
//! of `result` and `error` (an object with an integer `code` and a string `message`),
//! and an `id` that is a string, a number or null, with the same bytes. Input that
//! serde_json takes as JSON is never a parse error, but for the documented differences
//! (nesting deeper than 128, unpaired surrogate escapes).
#![no_main]

use jsonrpc_slice::envelope::{parse_response, Outcome, Response, ResponseMessage};
use jsonrpc_slice::Limits;
use jsonrpc_slice_fuzz::{has_unpaired_surrogate, nesting, serde_accepts, MAX_DEPTH};
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;

/// Checks one accepted response against serde_json's reading of the same object.
fn agree(object: &[u8], r: &Response<'_>) {
    let members: HashMap<String, &RawValue> =
        serde_json::from_slice(object).expect("an accepted response is a JSON object");
    assert_eq!(members.get("jsonrpc").map(|v| v.get()), Some("\"2.0\""));
    assert_eq!(
        members.get("id").map(|v| v.get().as_bytes()),
        Some(r.id.as_bytes())
    );
    match r.outcome {
        Outcome::Result(result) => {
            assert!(!members.contains_key("error"));
            assert_eq!(
                members.get("result").map(|v| v.get().as_bytes()),
                Some(result.as_bytes())
            );
        }
        Outcome::Error(e) => {
            assert!(!members.contains_key("result"));
            // Raw members: serde_json's `Value` would reject a number out of f64 range
            // in `data`, which is valid JSON.
            let error: HashMap<String, &RawValue> =
                serde_json::from_str(members["error"].get()).unwrap();
            // An integer lexeme (`-0` included, which serde_json reads as a float).
            let code: i64 = error["code"].get().parse().unwrap();
            assert_eq!(code, e.code);
            assert!(serde_json::from_str::<Value>(error["message"].get())
                .unwrap()
                .is_string());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    match parse_response(data, &Limits::DEFAULT) {
        Err(_) => {
            if serde_accepts(data) {
                assert!(
                    nesting(data) > MAX_DEPTH || has_unpaired_surrogate(data),
                    "serde_json accepts what parse_response calls invalid JSON"
                );
            }
        }
        Ok(message) => {
            assert!(
                serde_accepts(data),
                "parse_response accepts what serde_json rejects"
            );
            match message {
                ResponseMessage::Single(Ok(r)) => agree(data, &r),
                ResponseMessage::Single(Err(_)) => {}
                ResponseMessage::Batch(batch) => {
                    let elements: Vec<&serde_json::value::RawValue> =
                        serde_json::from_slice(data).expect("a JSON array");
                    assert_eq!(elements.len(), batch.len());
                    for (element, r) in elements.iter().zip(batch) {
                        if let Ok(r) = r {
                            agree(element.get().as_bytes(), &r);
                        }
                    }
                }
            }
        }
    }
});
