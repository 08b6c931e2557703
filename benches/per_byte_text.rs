//! The texts of the per-byte jobs that parse or decode a string param
//! (`instructions.rs`, on the crate with `std` and without).

/// The plain ASCII text of `parse-ascii`.
pub const ASCII: &str = "the quick brown fox jumps over 13 lazy dogs ";

/// The non-ASCII text of `parse-mixed`: 124 bytes, 91 of them (73 %) non-ASCII: 8
/// characters of 2 bytes (16 bytes), 25 of 3 bytes (75 bytes), and 33 ASCII bytes.
pub const MIXED: &str =
    "Déjà l'été: où sont les élèves français? 東京都の天気は晴れ、気温は二十度です。北京欢迎你。";

/// The source-like text of `parse-source`, as JSON string content: lines of Rust-like
/// code and comments with `\n` and `\"` escapes (and one `\\`) among raw non-ASCII
/// (é, ü, €, 東京), as code and prose are: 223 bytes, 14 escapes, 28 non-ASCII bytes.
pub const SOURCE: &str = r#"    // Café menu: prices in € for the 東京 branch.\n    let name = \"crème brûlée\";\n    println!(\"{name}: {price} €\\n\");\n    assert_eq!(city, \"東京\", \"über\");\n    if total > 0 { return Ok(total); }\n"#;

/// A string of exactly `bytes` bytes: `pattern` repeated, cut at a character boundary,
/// filled up with `.`.
pub fn repeat_to(pattern: &str, bytes: usize) -> String {
    let mut s = pattern.repeat(bytes / pattern.len() + 1);
    let mut cut = bytes;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    while s.len() < bytes {
        s.push('.');
    }
    s
}

/// The string content of a job named `<verb>-<text>` (`ascii`, `mixed`, `source`,
/// `escaped`) of
/// about `bytes` bytes, or `None` for another text.
pub fn text_of(job: &str, bytes: usize) -> Option<String> {
    Some(match job.rsplit('-').next()? {
        "ascii" => repeat_to(ASCII, bytes),
        "mixed" => repeat_to(MIXED, bytes),
        // Whole lines (a cut could split an escape): at least `bytes`.
        "source" => SOURCE.repeat(bytes.div_ceil(SOURCE.len())),
        // Every 8th character a newline written as `\n` (an escape every 9 bytes).
        "escaped" => r"abcdefg\n".repeat(bytes / 9),
        _ => return None,
    })
}

/// The request of the parse jobs: `{"jsonrpc":"2.0","method":"log","params":["<text>"],"id":1}`.
pub fn request(text: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","method":"log","params":["{text}"],"id":1}}"#).into_bytes()
}

/// The one string param of the request `msg` (leaked: the unescape jobs decode it
/// again and again, the parse outside the measured loop).
pub fn string_param(msg: Vec<u8>) -> jsonrpc_slice::RawStr<'static> {
    use jsonrpc_slice::envelope::{self, Call, Envelope};
    let msg: &'static [u8] = Box::leak(msg.into_boxed_slice());
    let Ok(Envelope::Single(Call::Request(r))) =
        envelope::parse(msg, &jsonrpc_slice::Limits::DEFAULT)
    else {
        panic!("not a request")
    };
    let s = r.params.and_then(|p| p.nth(0)).and_then(|s| s.as_str());
    s.expect("a string")
}
