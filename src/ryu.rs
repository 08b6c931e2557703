//! `ryu`'s shortest round-trip digits for the float writer (feature `ryu`): the one
//! file that names the crate. `write/float.rs` lays the digits out as it lays out
//! `core`'s `{:e}`, so the text is the same either way.

use crate::write::float::NumberText;

/// `v`'s shortest digits as `ryu` writes them (`1.5e-7`, `123.45`, `1e16`). `v` is
/// finite (the caller checks).
pub(crate) fn f64_digits(v: f64) -> Option<NumberText> {
    Some(NumberText::from_bytes(
        ryu::Buffer::new().format_finite(v).as_bytes(),
    ))
}

/// [`f64_digits`] for an `f32`: the shortest digits that read back as the same `f32`.
pub(crate) fn f32_digits(v: f32) -> Option<NumberText> {
    Some(NumberText::from_bytes(
        ryu::Buffer::new().format_finite(v).as_bytes(),
    ))
}
