//! The inner byte loops of `src/simd/`: every body compiled on this target (SSE2 or
//! NEON, SWAR, and the one the build uses) returns what the scalar body returns, for
//! both routines (and the build's `plain_ascii_mask` and `string_classes` the scalar
//! ones'), on arbitrary bytes, from every start offset (past the end too), and on the
//! same bytes at 16 different alignments. And the UTF-8 check of the build without
//! `std` says what `core::str::from_utf8` says, by its masks and (where the CPU has
//! AVX2) by its nibble lookups; and where the CPU has AVX2 the scanner's one-pass
//! string loop gives the scalar classes and `core`'s verdict up to where it stops.
//!
//! Input layout: `data[0]` picks the alignment shift (`data[0] % 16`), the rest is the
//! buffer.
#![no_main]

use jsonrpc_slice::simd_fuzzing::{
    bodies, classes, classes_checked, masks, string_blocks_utf8, utf8, SCALAR,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&shift, rest)) = data.split_first() else {
        return;
    };
    // The buffer at a chosen offset from a 16-byte boundary: the vector loads must not
    // care.
    let mut room = [0u8; 32 + 4096];
    let rest = &rest[..rest.len().min(4096)];
    let start = room.as_ptr().align_offset(16).min(15) + usize::from(shift % 16);
    room[start..start + rest.len()].copy_from_slice(rest);
    let b = &room[start..start + rest.len()];
    let (_, scalar_plain, scalar_ascii) = SCALAR;
    for i in (0..=b.len() + 1).chain([usize::MAX]) {
        let plain = scalar_plain(b, i);
        let ascii = scalar_ascii(b, i);
        for &(name, body_plain, body_ascii) in bodies() {
            assert_eq!(body_plain(b, i), plain, "{name} plain_end at {i}");
            assert_eq!(body_ascii(b, i), ascii, "{name} plain_ascii_end at {i}");
        }
        let (scalar_mask, build_mask) = masks(b, i);
        assert_eq!(build_mask, scalar_mask, "plain_ascii_mask at {i}");
        if let Some((scalar_classes, build_classes)) = classes(b, i) {
            assert_eq!(build_classes, scalar_classes, "string_classes at {i}");
        }
        if let Some((scalar_classes, build_classes)) = classes_checked(b, i) {
            assert_eq!(
                build_classes, scalar_classes,
                "string_classes::<false> at {i}"
            );
        }
    }
    assert_eq!(utf8(b), std::str::from_utf8(b).is_ok(), "is_utf8");
    // The one-pass string loop from a few offsets, stopped at the first quote after
    // the start (where a string would end), inside the input, and never.
    for i in [0, 1, b.len() / 3, b.len() / 2] {
        let quote = b.iter().skip(i).position(|&c| c == b'"').map_or(b.len(), |k| i + k);
        for stop in [quote, b.len() / 2 + 1, usize::MAX] {
            string_blocks_utf8(b, i, stop);
        }
    }
});
