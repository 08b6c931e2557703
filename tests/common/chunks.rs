//! Shared by `tests/fuzz_regressions.rs` and the framing fuzz targets (the fuzz crate, a
//! workspace of its own, includes this file by path).

/// The framing targets' input, cut in three: `data[0]` (the targets read flags from its
/// high bits), `k = data[0] % 8 + 1` chunk sizes, and the rest (the stream, or a
/// script). `None` when the input is shorter than that.
pub fn split_input(data: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&head, rest) = data.split_first()?;
    let k = usize::from(head % 8) + 1;
    (rest.len() >= k).then(|| {
        let (sizes, rest) = rest.split_at(k);
        (head, sizes, rest)
    })
}

/// `stream` cut into consecutive chunks of `sizes[0]`, `sizes[1]`, ... bytes, the sizes
/// used in a cycle (0: an empty chunk, that is an empty feed); the last chunk may be
/// shorter. `sizes` empty or all zero: the whole stream as one chunk.
pub fn chunks<'a>(stream: &'a [u8], sizes: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
    let sizes: &[u8] = if sizes.iter().all(|&s| s == 0) {
        &[]
    } else {
        sizes
    };
    let (mut pos, mut i) = (0, 0);
    std::iter::from_fn(move || {
        if pos >= stream.len() {
            return None;
        }
        let size = sizes
            .get(i % sizes.len().max(1))
            .map_or(stream.len(), |&s| s as usize);
        i += 1;
        let end = (pos + size).min(stream.len());
        let chunk = &stream[pos..end];
        pos = end;
        Some(chunk)
    })
}
