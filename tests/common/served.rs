//! A stream served by a [`Service`] one piece at a time, each piece one read: shared
//! by the framing tests and the framing fuzz targets (the fuzz crate includes this
//! file by path).

// Each includer uses a part of it.
#![allow(dead_code)]

use jsonrpc_slice::frame::Framer;
use jsonrpc_slice::service::Service;
use jsonrpc_slice::Server;

/// What [`served`] sent: each framed reply as its wire bytes, those sent before the
/// input ended and those sent after (what the framer still held).
pub struct Served {
    pub replies: Vec<Vec<u8>>,
    pub at_end: Vec<Vec<u8>>,
}

impl Served {
    /// Every reply's bytes, in order, as they went on the wire.
    pub fn wire(&self) -> Vec<u8> {
        self.replies
            .iter()
            .chain(&self.at_end)
            .flatten()
            .copied()
            .collect()
    }
}

/// Serves `pieces` with `server`, each piece one read (a piece longer than the read
/// buffer is read in several), replies written into `out`; then ends the input.
pub fn served<'a, C, F: Framer + ?Sized>(
    server: &Server<C>,
    ctx: &mut C,
    framer: &mut F,
    out: &mut [u8],
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> Served {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut service = Service::new(server, framer, &mut chunk, out);
    let mut replies = Vec::new();
    fn sent<C, F: Framer + ?Sized>(
        service: &mut Service<'_, C, F>,
        ctx: &mut C,
        to: &mut Vec<Vec<u8>>,
    ) {
        while let Some(reply) = service.next(ctx) {
            to.push(reply.pieces().collect::<Vec<_>>().concat());
        }
    }
    for mut piece in pieces {
        loop {
            sent(&mut service, ctx, &mut replies);
            if piece.is_empty() {
                break;
            }
            let buf = service.input_buffer();
            let n = piece.len().min(buf.len());
            buf[..n].copy_from_slice(&piece[..n]);
            piece = &piece[n..];
            service.received(n);
        }
    }
    let mut at_end = Vec::new();
    service.end_of_input();
    sent(&mut service, ctx, &mut at_end);
    Served { replies, at_end }
}
