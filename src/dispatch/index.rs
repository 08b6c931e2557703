//! The hash of a method name, and the hash index of a table's names that
//! [`method_table!`](crate::method_table) builds (and checks) at compile time.

pub(super) const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

pub(super) const fn reserved(name: &[u8]) -> bool {
    name.len() >= 4 && name[0] == b'r' && name[1] == b'p' && name[2] == b'c' && name[3] == b'.'
}

/// The bytes a name's hash reads at a time: a `usize`.
pub(super) const WORD: usize = core::mem::size_of::<usize>();

/// The multiplier of the name hash (FxHash's, for the width of a `usize`).
const SEED: usize = if WORD == 8 {
    0x517c_c1b7_2722_0a95_u64 as usize
} else {
    0x9e37_79b9
};

/// One step of the name hash: `word` mixed into `hash` (FxHash's step).
#[inline(always)]
const fn mix(hash: usize, word: usize) -> usize {
    (hash.rotate_left(5) ^ word).wrapping_mul(SEED)
}

/// The hash of a method name, a `usize` (`WORD` bytes, little-endian) at a time: each
/// whole word but one that ends the name, then the name's last word (which may overlap
/// the one before: one load, no tail loop), then the length. A name shorter than a
/// word is one word, padded with zeros. The same function builds the index at compile
/// time and looks names up at run time; [`stream_hash`] is the same hash of bytes that
/// come one at a time (a name sent with escapes, decoded).
#[inline(always)]
pub(super) const fn name_hash(name: &[u8]) -> usize {
    let mut hash = 0;
    match name.last_chunk::<WORD>() {
        Some(last) => {
            // Two words a turn, then one, while a byte is left after them.
            let mut rest = name;
            while let Some((two, tail)) = rest.split_first_chunk::<{ 2 * WORD }>() {
                if tail.is_empty() {
                    break;
                }
                let (a, b) = two.split_at(WORD);
                hash = mix(hash, word_at(a));
                hash = mix(hash, word_at(b));
                rest = tail;
            }
            if let Some((word, tail)) = rest.split_first_chunk::<WORD>() {
                if !tail.is_empty() {
                    hash = mix(hash, usize::from_le_bytes(*word));
                }
            }
            hash = mix(hash, usize::from_le_bytes(*last));
        }
        None => {
            let mut word = 0;
            let mut k = name.len();
            while k > 0 {
                k -= 1;
                word = (word << 8) | name[k] as usize;
            }
            hash = mix(hash, word);
        }
    }
    mix(hash, name.len())
}

/// The first word of `bytes` (at least `WORD` of them, else 0).
#[inline(always)]
const fn word_at(bytes: &[u8]) -> usize {
    match bytes.first_chunk::<WORD>() {
        Some(word) => usize::from_le_bytes(*word),
        None => 0,
    }
}

/// [`name_hash`] of the bytes `bytes` yields: the last `WORD` of them kept in a window,
/// which is mixed in as a whole word each time one more byte shows it was not the last.
pub(super) fn stream_hash(bytes: impl Iterator<Item = u8>) -> usize {
    let (mut hash, mut window, mut len) = (0, 0usize, 0usize);
    for b in bytes {
        if len >= WORD && len % WORD == 0 {
            hash = mix(hash, window);
        }
        window = (window >> 8) | ((b as usize) << (usize::BITS - 8));
        len += 1;
    }
    let last = match len {
        // The window holds the last word.
        WORD.. => window,
        0 => 0,
        // Fewer bytes than a word: down to the bottom, zeros above.
        _ => window >> (8 * (WORD - len)),
    };
    mix(mix(hash, last), len)
}

/// `true` if `a` and `b` are the same bytes: a word at a time, the last word read where
/// it ends (overlapping the one before), no call to `memcmp`. The lookup's comparison.
#[inline(always)]
pub(super) fn same_name(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let Some(at) = a.len().checked_sub(WORD) else {
        // Shorter than a word.
        return a.iter().zip(b).all(|(x, y)| x == y);
    };
    // (Sliced rather than `last_chunk`: no check for a null pointer.)
    if a.get(at..) != b.get(at..) {
        return false;
    }
    // The words before the last one.
    let (mut a, mut b) = (a, b);
    while let (Some((x, a_rest)), Some((y, b_rest))) =
        (a.split_first_chunk::<WORD>(), b.split_first_chunk::<WORD>())
    {
        if a_rest.len() <= WORD {
            return x == y || a_rest.is_empty();
        }
        if x != y {
            return false;
        }
        (a, b) = (a_rest, b_rest);
    }
    true
}
/// The shift that turns a hash into a slot of an index of `slots` slots (a power of
/// two): its top bits, FxHash's best. One slot: a shift by the full width, which
/// `wrapping_shr` makes no shift (no row to find there anyway).
pub(super) const fn shift_for(slots: usize) -> u32 {
    usize::BITS - slots.trailing_zeros()
}

/// The tag of a hash: 16 bits from its middle (in a 64-bit build, apart from the top
/// 16 at most that pick the slot). A slot holds its row's tag, so that a probe compares
/// names only when the tags agree.
#[inline(always)]
pub(super) const fn tag(hash: usize) -> u32 {
    (hash >> (usize::BITS / 2)) as u16 as u32
}

/// Panics unless an index of `slots` slots can hold `methods` rows.
pub(super) const fn check_shape(slots: usize, methods: usize) {
    if !slots.is_power_of_two() || slots <= methods || slots > 1 << 16 {
        panic!("the index of a method table needs a power-of-two number of slots, more than the methods, at most 65,536");
    }
}

/// The number of slots [`method_table!`](crate::method_table) gives the index of a
/// table of `methods` methods: the power of two above twice as many (so an index is
/// from a quarter to half full, and a probe rarely passes more than a slot or two). An
/// index has at most 65,536 slots, so such a table at most 32,767 methods.
pub const fn index_len(methods: usize) -> usize {
    (2 * methods + 1).next_power_of_two()
}

/// The hash index of a table whose rows have these `names`, in row order, with `S`
/// slots (a power of two above `names.len()`, at most 65,536; [`index_len`] gives the
/// one [`method_table!`](crate::method_table) uses), for [`MethodTable::new`](super::MethodTable::new). Each
/// slot is 0 (empty) or a row + 1 in its low 16 bits and a tag of its name's hash in
/// its high 16.
///
/// # Panics
///
/// If two names are the same, a name starts with `rpc.`, or `S` does not fit. In a
/// `const` or `static` initializer that panic is a compile error. It takes expected
/// O(M) steps for M names: each name is hashed once and compared with the names
/// already in the slots its probe passes that have its tag.
pub const fn index<const S: usize>(names: &[&str]) -> [u32; S] {
    check_shape(S, names.len());
    let shift = shift_for(S);
    let mut slots = [0u32; S];
    let mut row = 0;
    while row < names.len() {
        let name = names[row].as_bytes();
        if reserved(name) {
            panic!("method names that start with `rpc.` are reserved by JSON-RPC 2.0");
        }
        let hash = name_hash(name);
        let tag = tag(hash);
        let mut i = hash.wrapping_shr(shift);
        loop {
            let slot = slots[i];
            if slot == 0 {
                slots[i] = tag << 16 | (row + 1) as u32;
                break;
            }
            let other = (slot & 0xffff) as usize - 1;
            if slot >> 16 == tag && same_bytes(names[other].as_bytes(), name) {
                panic!("a method name appears twice in the method table");
            }
            i = (i + 1) & (S - 1);
        }
        row += 1;
    }
    slots
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::*;

    /// Names of every length from 0 to 40 (all of a word, none, and the lengths around
    /// each word boundary), of every byte value.
    fn samples() -> impl Iterator<Item = Vec<u8>> {
        (0..=40usize).flat_map(|len| {
            (0..4u8).map(move |seed| {
                (0..len)
                    .map(|i| {
                        (i as u8)
                            .wrapping_mul(31)
                            .wrapping_add(seed.wrapping_mul(97))
                    })
                    .collect()
            })
        })
    }

    #[test]
    fn stream_hash_is_name_hash() {
        for name in samples() {
            assert_eq!(
                stream_hash(name.iter().copied()),
                name_hash(&name),
                "{name:?}"
            );
        }
    }

    #[test]
    fn same_name_compares_every_byte() {
        for name in samples() {
            assert!(same_name(&name, &name.clone()));
            for i in 0..name.len() {
                let mut other = name.clone();
                other[i] ^= 0x80;
                assert!(!same_name(&name, &other), "{name:?} byte {i}");
                assert!(!same_name(&other, &name), "{name:?} byte {i}");
            }
            let mut longer = name.clone();
            longer.push(0);
            assert!(!same_name(&name, &longer));
        }
    }

    #[test]
    fn the_hash_reads_every_byte_and_the_length() {
        for name in samples() {
            let h = name_hash(&name);
            for i in 0..name.len() {
                let mut other = name.clone();
                other[i] ^= 1;
                assert_ne!(name_hash(&other), h, "{name:?} byte {i}");
            }
            let mut longer = name.clone();
            longer.push(0);
            assert_ne!(name_hash(&longer), h, "{name:?} and a zero");
        }
    }
}
