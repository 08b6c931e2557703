//! The compact build's choices among the bodies: the scalar ones (one byte at a time,
//! the smallest code). Its scanner reads no blocks and checks UTF-8 a sequence at a
//! time, so it takes nothing else from here.

/// The body this build uses.
pub(crate) use super::scalar as body;
