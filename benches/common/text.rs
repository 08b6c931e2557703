//! Text shaped like real traffic, generated from a seed: the source files of an LSP
//! session and the prose of an MCP tool's argument. Bench messages 11 and 12
//! (`messages/`) and the session replay (`replay.rs`) are made from it.
//!
//! What makes it real is what a client sends: code and prose in several languages,
//! written as `JSON.stringify` (and `serde_json`) write a string, raw UTF-8 for every
//! character but `"`, `\` and the control characters, which are escaped (`\n` at every
//! line end, `\t`, `\"` and `\\` where code quotes and escapes). So a string holds raw
//! non-ASCII (2-, 3- and 4-byte characters) between escapes, as code and prose do;
//! bench message 05 writes its non-ASCII as `\u00e9` escapes instead.

/// A small deterministic generator (splitmix64): the same seed, the same text, on every
/// machine and build.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `true` once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// Words of comments, string literals and prose: English, French, German, Spanish,
/// Russian, Greek, Japanese, Chinese, Korean, and a few symbols and emoji (1- to 4-byte
/// UTF-8).
const WORDS: &[&str] = &[
    "the",
    "value",
    "parser",
    "returns",
    "buffer",
    "length",
    "when",
    "empty",
    "request",
    "server",
    "client",
    "error",
    "message",
    "before",
    "after",
    "each",
    "line",
    "reads",
    "writes",
    "index",
    "cache",
    "token",
    "stream",
    "bytes",
    "config",
    "handler",
    "retry",
    "déjà",
    "été",
    "café",
    "naïve",
    "élève",
    "façade",
    "reçu",
    "où",
    "très",
    "fenêtre",
    "größe",
    "über",
    "schließen",
    "Straße",
    "Fehler",
    "prüfen",
    "Bücher",
    "año",
    "niño",
    "señal",
    "canción",
    "значение",
    "ошибка",
    "строка",
    "файл",
    "запрос",
    "λόγος",
    "δεδομένα",
    "東京",
    "データ",
    "変換",
    "文字列",
    "エラー",
    "処理",
    "设置",
    "文件",
    "错误",
    "请求",
    "返回",
    "데이터",
    "오류",
    "요청",
    "€",
    "→",
    "±",
    "°C",
    "✓",
    "🚀",
    "😀",
    "🦀",
];

const IDENTS: &[&str] = &[
    "buf", "len", "offset", "reader", "writer", "state", "config", "item", "items", "count",
    "total", "name", "path", "uri", "text", "line", "column", "token", "scope", "result", "value",
    "input", "output", "cursor", "limit", "depth", "node", "span",
];

const TYPES: &[&str] = &[
    "usize",
    "u32",
    "i64",
    "bool",
    "String",
    "&str",
    "Vec<u8>",
    "Option<usize>",
    "Result<(), Error>",
    "&[u8]",
    "HashMap<String, usize>",
    "Span",
];

/// `words` words of [`WORDS`], space-separated.
fn words(rng: &mut Rng, words: usize, out: &mut String) {
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
}

fn ident(rng: &mut Rng, out: &mut String) {
    out.push_str(rng.pick(IDENTS));
    if rng.one_in(3) {
        out.push('_');
        out.push_str(rng.pick(IDENTS));
    }
}

/// One line of Rust-like code at `indent` levels, without its line end.
fn code_line(rng: &mut Rng, indent: usize, out: &mut String) {
    // Editors indent with spaces; now and then a file has tabs.
    let unit = if rng.one_in(12) { "\t" } else { "    " };
    for _ in 0..indent {
        out.push_str(unit);
    }
    match rng.below(12) {
        0 | 1 => {
            out.push_str(if rng.one_in(3) { "/// " } else { "// " });
            if rng.one_in(8) {
                out.push_str("TODO: ");
            }
            let n = 4 + rng.below(10);
            words(rng, n, out);
            out.push('.');
        }
        2 | 3 => {
            out.push_str("let ");
            ident(rng, out);
            out.push_str(" = \"");
            let n = 1 + rng.below(5);
            words(rng, n, out);
            // A string literal with escapes of its own (a quote, a line end).
            match rng.below(4) {
                0 => out.push_str(": \\\"{}\\\"\\n"),
                1 => out.push_str("\\t{}"),
                _ => {}
            }
            out.push_str("\";");
        }
        4 => {
            out.push_str("pub fn ");
            ident(rng, out);
            out.push('(');
            ident(rng, out);
            out.push_str(": ");
            out.push_str(rng.pick(TYPES));
            out.push_str(") -> ");
            out.push_str(rng.pick(TYPES));
            out.push_str(" {");
        }
        5 => {
            out.push_str("if ");
            ident(rng, out);
            out.push_str(" > ");
            out.push_str(&rng.below(1000).to_string());
            out.push_str(" { return Err(Error::new(\"");
            let n = 2 + rng.below(4);
            words(rng, n, out);
            out.push_str("\")); }");
        }
        6 => {
            out.push_str("println!(\"{} → {:?} ");
            let n = 1 + rng.below(4);
            words(rng, n, out);
            out.push_str("\\n\", ");
            ident(rng, out);
            out.push_str(", ");
            ident(rng, out);
            out.push_str(");");
        }
        7 => {
            ident(rng, out);
            out.push_str(".push_str(\"\\\\");
            ident(rng, out);
            out.push_str("\");");
        }
        8 => {
            out.push_str("for ");
            ident(rng, out);
            out.push_str(" in ");
            ident(rng, out);
            out.push_str(".iter() {");
        }
        9 => out.push('}'),
        10 => {
            out.push_str("let ");
            ident(rng, out);
            out.push_str(": ");
            out.push_str(rng.pick(TYPES));
            out.push_str(" = ");
            ident(rng, out);
            out.push_str(".len() * ");
            out.push_str(&rng.below(64).to_string());
            out.push(';');
        }
        _ => {} // A blank line (its indent kept, as editors often leave it).
    }
}

/// Source-like text (Rust-like lines, comments and string literals in several
/// languages) of at least `bytes` bytes, whole lines each ended by `\n`.
pub fn source(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 256);
    while out.len() < bytes {
        let indent = rng.below(4);
        code_line(rng, indent, &mut out);
        out.push('\n');
    }
    out
}

/// Prose in Markdown (headings, paragraphs, lists, quoted phrases, inline code) of at
/// least `bytes` bytes: what an MCP client hands a tool to summarise or translate.
pub fn prose(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 256);
    while out.len() < bytes {
        match rng.below(6) {
            0 => {
                out.push_str("## ");
                let n = 2 + rng.below(4);
                words(rng, n, &mut out);
                out.push_str("\n\n");
            }
            1 => {
                for _ in 0..2 + rng.below(3) {
                    out.push_str("- ");
                    let n = 3 + rng.below(8);
                    words(rng, n, &mut out);
                    out.push('\n');
                }
                out.push('\n');
            }
            _ => {
                for _ in 0..3 + rng.below(4) {
                    let n = 6 + rng.below(14);
                    words(rng, n, &mut out);
                    match rng.below(5) {
                        0 => {
                            out.push_str(" \"");
                            let n = 1 + rng.below(3);
                            words(rng, n, &mut out);
                            out.push('"');
                        }
                        1 => {
                            out.push_str(" `");
                            ident(rng, &mut out);
                            out.push('`');
                        }
                        _ => {}
                    }
                    out.push_str(". ");
                }
                out.push_str("\n\n");
            }
        }
    }
    out
}

/// Bench message 11: an LSP `textDocument/didChange` (full sync) of 32 KiB of
/// source-like text, as VS Code writes it.
pub fn message_11() -> String {
    let text = source(&mut Rng::new(11), 32 << 10);
    format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didChange","params":{{"textDocument":{{"uri":"file:///home/user/project/src/parser.rs","version":42}},"contentChanges":[{{"text":{}}}]}}}}"#,
        serde_json::to_string(&text).unwrap()
    )
}

/// Bench message 12: an MCP `tools/call` whose argument is 24 KiB of prose, as the
/// MCP SDKs write it.
pub fn message_12() -> String {
    let text = prose(&mut Rng::new(12), 24 << 10);
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"translate","arguments":{{"text":{},"target_language":"en","style":"formal"}},"_meta":{{"progressToken":"7f3e"}}}}}}"#,
        serde_json::to_string(&text).unwrap()
    )
}

/// The generated bench messages and their file names in `messages/`.
pub fn generated_messages() -> [(&'static str, String); 2] {
    [
        ("11_lsp_did_change_source.json", message_11()),
        ("12_mcp_tools_call_text.json", message_12()),
    ]
}
