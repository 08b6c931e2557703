//! The stack a level of typed decoding costs (SECURITY.md, "Exhaust the stack").
//!
//! Typed params recurse once per level through serde's visitors. This measures how much
//! stack a level takes, decoding nested arrays and nested objects into `Tree`, a type
//! whose `Deserialize` is `serde_json::Value`'s (the same visitor: a `Vec` for an
//! array, a map of `String` keys for an object), except that its leaf notes how deep
//! the stack is. The figure is the difference between two depths, so what the test
//! harness and the first call cost drops out.
//!
//! `cargo test --release --features serde --test typed_stack -- --nocapture` prints the
//! figures SECURITY.md gives; the test profile (opt-level 1) needs more.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

use jsonrpc_slice::RawJson;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

thread_local! {
    /// The address of a local of the leaf's visit: how deep the stack was there.
    static LEAF_AT: Cell<usize> = const { Cell::new(0) };
}

/// A JSON value as `serde_json::Value` holds it, with a leaf that notes the stack depth.
#[allow(dead_code)]
enum Tree {
    Leaf,
    Array(Vec<Tree>),
    Object(BTreeMap<String, Tree>),
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tree")
    }

    #[inline(never)]
    fn visit_u64<E>(self, _: u64) -> Result<Tree, E> {
        let here = 0u8;
        LEAF_AT.with(|at| at.set(std::hint::black_box(&here) as *const u8 as usize));
        Ok(Tree::Leaf)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Tree::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut members = BTreeMap::new();
        while let Some((key, value)) = map.next_entry::<String, Tree>()? {
            members.insert(key, value);
        }
        Ok(Tree::Object(members))
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Tree, D::Error> {
        d.deserialize_any(TreeVisitor)
    }
}

/// The stack address at the leaf of `levels` nested `open` .. `close` around `1`.
fn leaf_at(open: &str, close: &str, levels: usize) -> usize {
    let input = open.repeat(levels) + "1" + &close.repeat(levels);
    let value = RawJson::new(input.as_bytes()).unwrap();
    let mut scratch = [0u8; 16];
    let tree: Tree = value.decode_with_scratch(&mut scratch).unwrap();
    drop(tree);
    LEAF_AT.with(Cell::get)
}

/// Bytes of stack one level of `open` .. `close` costs, from 20 and 120 levels.
fn per_level(open: &str, close: &str) -> usize {
    let (shallow, deep) = (leaf_at(open, close, 20), leaf_at(open, close, 120));
    assert!(
        deep < shallow,
        "the stack grows down on the targets this runs on"
    );
    (shallow - deep) / 100
}

/// What SECURITY.md says a level costs at most, for the profile this runs in.
const RELEASE_BOUND: usize = 640;
const TEST_PROFILE_BOUND: usize = 2048;

#[test]
fn a_level_of_typed_decoding_costs_a_bounded_stack() {
    let arrays = per_level("[", "]");
    let objects = per_level(r#"{"a":"#, "}");
    let profile = if cfg!(debug_assertions) {
        "test profile"
    } else {
        "release"
    };
    println!("stack a level ({profile}): arrays {arrays} B, objects {objects} B");
    // Each level holds at least the visitor's and the deserializer's frames.
    assert!(arrays >= 64 && objects >= 64, "{arrays} {objects}");
    let bound = if cfg!(debug_assertions) {
        TEST_PROFILE_BOUND
    } else {
        RELEASE_BOUND
    };
    assert!(
        arrays <= bound && objects <= bound,
        "{arrays} {objects} > {bound}"
    );
}

/// `MAX_DEPTH` levels, the deepest a typed decode goes by default, fit in the stack
/// SECURITY.md tells a host to allow for them (release: 128 KiB).
#[test]
fn the_deepest_default_decode_fits_the_stack_security_md_gives() {
    let stack = if cfg!(debug_assertions) { 512 } else { 128 } << 10;
    let levels = usize::from(jsonrpc_slice::serde::MAX_DEPTH) - 1;
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            leaf_at("[", "]", levels);
            leaf_at(r#"{"a":"#, "}", levels);
        })
        .unwrap()
        .join()
        .unwrap();
}
