//! Message builders the integration tests share (`mod common;` in each test file).

// Each test crate uses a part of this module.
#![allow(dead_code)]

/// A request for `method` with `params` (raw JSON, or `None`) and `id` (raw JSON, or
/// `None` for a notification).
pub fn req(method: &str, params: Option<&str>, id: Option<&str>) -> String {
    let mut s = format!(r#"{{"jsonrpc":"2.0","method":"{method}""#);
    if let Some(p) = params {
        s.push_str(&format!(r#","params":{p}"#));
    }
    if let Some(id) = id {
        s.push_str(&format!(r#","id":{id}"#));
    }
    s.push('}');
    s
}

/// `depth` nested arrays: `[[...]]`.
pub fn nested_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// `depth` nested objects around `1`: `{"a":{"a":...1}}`.
pub fn nested_objects(depth: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

pub mod corpus;
pub mod round_trip;
pub mod served;
pub mod spec;
pub mod vectors;
