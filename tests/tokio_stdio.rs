//! `io::tokio::stdio`: standard input and output as pipes on the reactor when they are
//! pipes, else tokio's own. Each case runs this binary again as a child process
//! (`STDIO_CHILD` set) with its standard streams as pipes or files; the child says on
//! stderr what it opened and copies its input to its output through it. A test of its
//! own (`harness = false`): the binary is both the cases and their child.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};

use jsonrpc_slice::io::tokio::stdio;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CHILD: &str = "STDIO_CHILD";
const INPUT: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n";

fn main() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    pipes_are_read_and_written_on_the_reactor();
    files_fall_back_to_tokios_own();
    a_file_and_a_pipe_each_get_their_own();
    println!("tokio_stdio: 3 cases passed");
}

/// In the child: what it opened on stderr, its input copied to its output.
fn child() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (mut stdin, mut stdout) = (stdio::stdin(), stdio::stdout());
        eprintln!(
            "stdin pipe: {}, stdout pipe: {}",
            stdin.is_pipe(),
            stdout.is_pipe()
        );
        let mut input = Vec::new();
        stdin.read_to_end(&mut input).await.unwrap();
        stdout.write_all(b"<<").await.unwrap();
        stdout.write_all(&input).await.unwrap();
        stdout.write_all(b">>").await.unwrap();
        stdout.flush().await.unwrap();
    });
}

/// Runs the child with `stdin` and `stdout`: its stderr and its output (read from the
/// pipe, or from `file` when stdout is that file).
fn run(
    stdin: Stdio,
    stdout: Stdio,
    feed: bool,
    file: Option<&std::path::Path>,
) -> (String, Vec<u8>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, "1")
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if feed {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(INPUT).unwrap();
    }
    let mut out = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_end(&mut out).unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    if let Some(file) = file {
        out = std::fs::read(file).unwrap();
    }
    (String::from_utf8(output.stderr).unwrap(), out)
}

fn copied(out: &[u8]) -> bool {
    let mut expected = b"<<".to_vec();
    expected.extend_from_slice(INPUT);
    expected.extend_from_slice(b">>");
    out.windows(expected.len()).any(|w| w == expected)
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("jsonrpc-slice-stdio-{}-{name}", std::process::id()))
}

fn pipes_are_read_and_written_on_the_reactor() {
    let (said, out) = run(Stdio::piped(), Stdio::piped(), true, None);
    assert!(
        said.contains("stdin pipe: true, stdout pipe: true"),
        "{said}"
    );
    assert!(copied(&out), "{}", String::from_utf8_lossy(&out));
}

fn files_fall_back_to_tokios_own() {
    let (input, output) = (temp("in"), temp("out"));
    std::fs::write(&input, INPUT).unwrap();
    let stdin = Stdio::from(File::open(&input).unwrap());
    let stdout = Stdio::from(File::create(&output).unwrap());
    let (said, out) = run(stdin, stdout, false, Some(&output));
    let _ = (std::fs::remove_file(&input), std::fs::remove_file(&output));
    assert!(
        said.contains("stdin pipe: false, stdout pipe: false"),
        "{said}"
    );
    assert!(copied(&out), "{}", String::from_utf8_lossy(&out));
}

fn a_file_and_a_pipe_each_get_their_own() {
    let input = temp("mixed");
    std::fs::write(&input, INPUT).unwrap();
    let stdin = Stdio::from(File::open(&input).unwrap());
    let (said, out) = run(stdin, Stdio::piped(), false, None);
    let _ = std::fs::remove_file(&input);
    assert!(
        said.contains("stdin pipe: false, stdout pipe: true"),
        "{said}"
    );
    assert!(copied(&out), "{}", String::from_utf8_lossy(&out));
}
