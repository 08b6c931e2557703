//! The quick reader (`object.rs`) against the general walk: the check that the unit
//! tests and the `validate` fuzz target (cargo-fuzz builds with `--cfg fuzzing`) both
//! run. Not part of the API.

/// What the quick reader made of `input` at the nesting limit `max_depth`: took it as
/// an object or as a batch, or gave it to the general walk.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Read as one object.
    Object,
    /// Read as a batch.
    Batch,
    /// Given to the general walk (always, on the compact build).
    GivenUp,
}

/// Reads `input` the quick way (`object.rs`) and, where that does not give up, the
/// general way (`scan::text` with the same visitors), and panics unless the two
/// report the same members (and a batch the same elements and end): whatever the
/// quick reader takes, the general walk accepts and records alike.
pub fn quick_reader_agrees(input: &[u8], max_depth: u16) -> Taken {
    #[cfg(jsonrpc_slice_fast)]
    {
        use super::batch::{ElementRecorder, Recorded, RECORDED};
        use super::members::{Recorder, Slots};
        use super::object;
        use crate::scan::{self, byte_at, skip_ws};

        let at = skip_ws(input, 0);
        match byte_at(input, at) {
            b'{' => {
                let (mut quick, mut general) = (Slots::default(), Slots::default());
                if object::object(input, at, max_depth, &mut Recorder::new(input, &mut quick)) {
                    let walked =
                        scan::text(input, max_depth, &mut Recorder::new(input, &mut general));
                    assert!(walked.is_ok(), "taken quick, refused: {input:?}");
                    assert_eq!(quick, general, "{input:?} at depth {max_depth}");
                    return Taken::Object;
                }
            }
            b'[' => {
                let (mut quick, mut general) =
                    ([Recorded::EMPTY; RECORDED], [Recorded::EMPTY; RECORDED]);
                let mut quick_recorder = ElementRecorder::new(input, at, &mut quick);
                if let Some(end) = object::batch(input, at, max_depth, &mut quick_recorder) {
                    let len = quick_recorder.len;
                    let mut general_recorder = ElementRecorder::new(input, at, &mut general);
                    let walked = scan::text(input, max_depth, &mut general_recorder);
                    assert_eq!(walked, Ok((at, end)), "{input:?} at depth {max_depth}");
                    assert_eq!(len, general_recorder.len, "{input:?}");
                    assert_eq!(quick, general, "{input:?} at depth {max_depth}");
                    return Taken::Batch;
                }
            }
            _ => {}
        }
    }
    let _ = (input, max_depth);
    Taken::GivenUp
}
