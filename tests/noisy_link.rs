//! A noisy link: a stream of valid requests, corrupted on its way to the server at a
//! stated rate (bit flips, dropped bytes, inserted garbage, bursts of line noise), for
//! newline framing and for COBS with a CRC-32 (and a CRC-16). The host service runs
//! in-process (`Service`, the serve loops' state machine, read 64 bytes at a time,
//! as from a UART FIFO); the replies come back clean. Counted, per rate:
//!
//! - clean frames answered correctly (of the clean frames sent);
//! - error replies (corrupted frames answered as errors; `"id":null` mostly, so
//!   counted as replies, not matched to frames);
//! - **wrong results**: success replies that are not the answer to any request sent,
//!   that is a corrupted frame that reached a handler as a different valid request
//!   (what a checksum exists to drive to zero);
//! - clean frames lost around a corruption (a merged or cut neighbour);
//! - whether the server still answered afterwards (three clean probes after the
//!   noise, each answered correctly).
//!
//! Seeded generator, a fixed number of frames: the same counts on every run. Both
//! tests run with the suite: `a_noisy_link_at_one_rate`, and a table for several
//! rates, each row checked, which
//! `cargo test --features std --test noisy_link -- --nocapture` prints.

use jsonrpc_slice::frame::cobs::{Check, CobsAccumulator};
use jsonrpc_slice::frame::newline::LineAccumulator;
use jsonrpc_slice::frame::{frame_message, FeedResult, Framer};
use jsonrpc_slice::service::Service;
use jsonrpc_slice::{demo, Server};

static SERVER: Server<()> = Server::new(demo::TABLE);

/// The frames of one run.
const FRAMES: usize = 2000;
/// The frame buffer of the server: room for a few merged requests, no more.
const MAX: usize = 256;

/// A small seeded generator (xorshift64*), deterministic across platforms.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// `true` with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Framing {
    Newline,
    Cobs(Check),
}

impl Framing {
    fn name(self) -> &'static str {
        match self {
            Framing::Newline => "newline",
            Framing::Cobs(Check::None) => "COBS",
            Framing::Cobs(Check::Crc16) => "COBS + CRC-16",
            Framing::Cobs(Check::Crc32) => "COBS + CRC-32",
        }
    }
}

/// Request `k` and the reply it must get.
fn request(k: usize) -> (String, String) {
    let params = format!(r#"[{k},"sensor-{k:05}-ok"]"#);
    (
        format!(r#"{{"jsonrpc":"2.0","method":"echo","params":{params},"id":{k}}}"#),
        format!(r#"{{"jsonrpc":"2.0","result":{params},"id":{k}}}"#),
    )
}

fn framed(framing: Framing, msg: &[u8]) -> Vec<u8> {
    match framing {
        Framing::Newline => {
            let framer = LineAccumulator::<8>::new();
            frame_message(&framer, msg)
                .pieces()
                .flatten()
                .copied()
                .collect()
        }
        Framing::Cobs(check) => {
            let framer = CobsAccumulator::<8>::with_check(check);
            frame_message(&framer, msg)
                .pieces()
                .flatten()
                .copied()
                .collect()
        }
    }
}

/// What one run counted.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    clean: usize,
    clean_answered: usize,
    corrupted: usize,
    corrupted_answered_correctly: usize,
    error_replies: usize,
    wrong_results: usize,
    still_answering: bool,
}

impl Counts {
    fn clean_lost(&self) -> usize {
        self.clean - self.clean_answered
    }
}

/// The clean stream corrupted at `rate` faults per byte: each fault one of a bit
/// flip, a dropped byte, an inserted garbage byte, or a burst of 2 to 8 random bytes
/// in place of the stream's. Returns the stream and, per frame, whether a fault hit it
/// (its bytes or its delimiter).
fn corrupt(frames: &[Vec<u8>], rate: f64, rng: &mut Rng) -> (Vec<u8>, Vec<bool>) {
    let mut out = Vec::new();
    let mut hit = vec![false; frames.len()];
    for (k, frame) in frames.iter().enumerate() {
        let mut i = 0;
        while i < frame.len() {
            let b = frame[i];
            i += 1;
            if !rng.chance(rate) {
                out.push(b);
                continue;
            }
            hit[k] = true;
            match rng.below(4) {
                0 => out.push(b ^ (1 << rng.below(8))),
                1 => {}
                2 => {
                    out.push(rng.next() as u8);
                    out.push(b);
                }
                _ => {
                    let len = 2 + rng.below(7) as usize;
                    out.extend((0..len).map(|_| rng.next() as u8));
                    // The burst replaces the bytes under it.
                    i += len - 1;
                }
            }
        }
    }
    (out, hit)
}

/// Serves `stream` with a fresh framer; the replies' bytes.
fn serve<F: Framer>(framer: &mut F, stream: &[u8]) -> Vec<u8> {
    let (mut chunk, mut output) = ([0u8; 64], [0u8; 1024]);
    let mut service = Service::new(&SERVER, framer, &mut chunk, &mut output);
    let mut input = stream;
    let mut wire = Vec::new();
    loop {
        while let Some(reply) = service.next(&mut ()) {
            reply.pieces().for_each(|p| wire.extend_from_slice(p));
        }
        if service.is_done() {
            return wire;
        }
        let buf = service.input_buffer();
        let n = input.len().min(buf.len());
        buf[..n].copy_from_slice(&input[..n]);
        input = &input[n..];
        match n {
            0 => service.end_of_input(),
            n => service.received(n),
        }
    }
}

/// The replies, as text, cut out of the (clean) reply stream.
fn replies(framing: Framing, wire: &[u8]) -> Vec<String> {
    match framing {
        Framing::Newline => wire
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect(),
        Framing::Cobs(check) => {
            let mut acc = CobsAccumulator::<2048>::with_check(check);
            let mut out = Vec::new();
            let mut input = wire;
            while let FeedResult::Frame { frame, remaining } = acc.feed(input) {
                out.push(String::from_utf8_lossy(frame).into_owned());
                input = remaining;
            }
            assert_eq!(acc.dropped(), 0, "the replies travel clean");
            out
        }
    }
}

/// One run: `FRAMES` requests through the noise, then the probes, clean.
fn run(framing: Framing, rate: f64, seed: u64) -> Counts {
    let mut rng = Rng(seed | 1);
    let msgs: Vec<(String, String)> = (0..FRAMES).map(request).collect();
    let frames: Vec<Vec<u8>> = msgs
        .iter()
        .map(|(m, _)| framed(framing, m.as_bytes()))
        .collect();
    let (mut stream, hit) = corrupt(&frames, rate, &mut rng);
    // The probes: a delimiter first (what a client sends after a timeout, to end any
    // frame the noise left open), then three clean requests.
    let probes: Vec<(String, String)> = (0..3).map(|p| request(1_000_000 + p)).collect();
    stream.push(match framing {
        Framing::Newline => b'\n',
        Framing::Cobs(_) => 0,
    });
    for (m, _) in &probes {
        stream.extend(framed(framing, m.as_bytes()));
    }
    let wire = match framing {
        Framing::Newline => serve(&mut LineAccumulator::<MAX>::new(), &stream),
        Framing::Cobs(check) => serve(&mut CobsAccumulator::<MAX>::with_check(check), &stream),
    };
    let got = replies(framing, &wire);
    let expected: std::collections::HashMap<&str, usize> = msgs
        .iter()
        .enumerate()
        .map(|(k, (_, r))| (r.as_str(), k))
        .collect();
    let mut counts = Counts::default();
    let mut answered = vec![false; FRAMES];
    for reply in &got {
        if let Some(&k) = expected.get(reply.as_str()) {
            answered[k] = true;
        } else if probes.iter().any(|(_, r)| r == reply) {
        } else if reply.contains(r#""error":"#) {
            counts.error_replies += 1;
        } else {
            counts.wrong_results += 1;
        }
    }
    for k in 0..FRAMES {
        if hit[k] {
            counts.corrupted += 1;
            counts.corrupted_answered_correctly += usize::from(answered[k]);
        } else {
            counts.clean += 1;
            counts.clean_answered += usize::from(answered[k]);
        }
    }
    counts.still_answering = probes.iter().all(|(_, r)| got.iter().any(|g| g == r));
    counts
}

const SEED: u64 = 0x005E_ED0F_11E5;

#[test]
fn a_noisy_link_at_one_rate() {
    // One fault per 1,000 bytes: about one request in twenty hit.
    let rate = 1e-3;
    let newline = run(Framing::Newline, rate, SEED);
    let cobs = run(Framing::Cobs(Check::Crc32), rate, SEED);
    for (framing, c) in [("newline", &newline), ("COBS + CRC-32", &cobs)] {
        assert!(
            c.corrupted > 20,
            "{framing}: the noise must hit frames: {c:?}"
        );
        assert!(c.still_answering, "{framing}: stopped answering: {c:?}");
        // At most the two neighbours of each corrupted frame are lost.
        assert!(c.clean_lost() <= 2 * c.corrupted, "{framing}: {c:?}");
    }
    assert_eq!(
        cobs.wrong_results, 0,
        "a corrupted frame reached a handler: {cobs:?}"
    );
    // A corrupted COBS + CRC-32 frame is dropped, never answered at all.
    assert_eq!(cobs.error_replies, 0, "{cobs:?}");
    assert_eq!(cobs.corrupted_answered_correctly, 0, "{cobs:?}");
    // Newline framing hands corrupted frames to the handlers: some come back as
    // results to requests never sent (the same seed: the same count on every run).
    assert!(newline.wrong_results > 0, "{newline:?}");
}

/// A table: every framing at several rates. Zero wrong results under
/// COBS + CRC-32 at every rate, and the server answers after the noise at each.
#[test]
fn the_table_for_several_rates() {
    println!("| framing | faults per byte | corrupted frames | clean frames answered | clean frames lost | error replies | wrong results | answers after |");
    println!("|---|---|---|---|---|---|---|---|");
    for rate in [1e-4, 1e-3, 1e-2, 3e-2] {
        for framing in [
            Framing::Newline,
            Framing::Cobs(Check::None),
            Framing::Cobs(Check::Crc16),
            Framing::Cobs(Check::Crc32),
        ] {
            let c = run(framing, rate, SEED);
            println!(
                "| {} | {rate} | {} of {FRAMES} | {} of {} | {} | {} | {} | {} |",
                framing.name(),
                c.corrupted,
                c.clean_answered,
                c.clean,
                c.clean_lost(),
                c.error_replies,
                c.wrong_results,
                if c.still_answering { "yes" } else { "no" },
            );
            assert!(c.still_answering, "{framing:?} at {rate}: {c:?}");
            if framing == Framing::Cobs(Check::Crc32) {
                assert_eq!(c.wrong_results, 0, "{rate}: {c:?}");
            }
        }
    }
}
