//! An idle keep-alive connection of `http::HttpServer` holds none of hyper's buffers:
//! past `Settings::release_after` without a request, hyper's state for it (its read
//! buffer and its write buffer's head, 8 KiB each, `INIT_BUFFER_SIZE`) is dropped, and
//! made again when the next request comes.
//!
//! A global allocator counts the live allocations of exactly 8,192 bytes (nothing
//! else in this binary asks for that size: the clients read into arrays on the stack).
//! The same server with the release kept out of the way holds them (so the count sees
//! hyper's state); with it, the count goes back to where it started, and every
//! connection is served again afterwards. Its own binary: no other test allocates
//! beside it.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use jsonrpc_slice::http::{HttpServer, Settings};
use jsonrpc_slice::{demo, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// hyper's `INIT_BUFFER_SIZE`.
const HYPER_BUFFER: usize = 8192;

static LIVE: AtomicIsize = AtomicIsize::new(0);
/// Every allocation of that size so far: two for each time hyper's state is made.
static MADE: AtomicIsize = AtomicIsize::new(0);

fn count(size: usize, by: isize) {
    if size == HYPER_BUFFER {
        LIVE.fetch_add(by, Ordering::Relaxed);
        if by > 0 {
            MADE.fetch_add(by, Ordering::Relaxed);
        }
    }
}

struct Counting;

// SAFETY: every call is forwarded unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting is an atomic add (no allocation, no re-entrance).
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        count(layout.size(), 1);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        count(layout.size(), 1);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        count(layout.size(), -1);
        count(size, 1);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.realloc(ptr, layout, size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        count(layout.size(), -1);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn made() -> isize {
    MADE.load(Ordering::Relaxed)
}

/// The tests run one at a time: each counts what its server holds.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

static SERVER: Server<()> = Server::new(demo::TABLE);

/// The longest any step waits: far above every time limit set here.
const LIMIT: Duration = Duration::from_secs(10);

const CONNECTIONS: usize = 10;

const REQUEST: &[u8] = b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
Content-Length: 61\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[42,23],\"id\":1}";

async fn start(release_after: Duration) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = HttpServer::new(&SERVER, || ()).with_settings(Settings {
        header_timeout: LIMIT * 6,
        idle_timeout: LIMIT * 6,
        request_timeout: LIMIT * 6,
        release_after,
        ..Settings::default()
    });
    tokio::spawn(server.serve(listener));
    addr
}

/// One request on `stream`, its reply read whole (its head, then `Content-Length`
/// bytes) into an array on the stack.
async fn call(stream: &mut TcpStream) {
    stream.write_all(REQUEST).await.unwrap();
    let mut buf = [0u8; 1024];
    let mut got = 0;
    let answered = async {
        loop {
            let n = stream.read(&mut buf[got..]).await.unwrap();
            assert!(n > 0, "the server closed the connection");
            got += n;
            let text = std::str::from_utf8(&buf[..got]).unwrap();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                assert!(head.starts_with("HTTP/1.1 200"), "{head}");
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .unwrap()
                    .parse()
                    .unwrap();
                if body.len() == len {
                    assert!(body.contains("\"result\":19"), "{body}");
                    return;
                }
            }
        }
    };
    tokio::time::timeout(LIMIT, answered)
        .await
        .expect("a reply within the limit");
}

/// Polls until `done` holds (bounded by `LIMIT`): whether it came to hold.
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + LIMIT;
    while !done() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    done()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_keep_alive_connection_holds_no_hyper_buffers() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let start_count = live();

    // Kept: each connection that has made a request holds hyper's buffers.
    let held = start(LIMIT * 6).await;
    let mut clients = Vec::new();
    for _ in 0..CONNECTIONS {
        let mut c = TcpStream::connect(held).await.unwrap();
        call(&mut c).await;
        clients.push(c);
    }
    let holding = live() - start_count;
    assert!(
        holding >= CONNECTIONS as isize,
        "{holding} buffers of {HYPER_BUFFER} bytes live for {CONNECTIONS} kept connections"
    );
    drop(clients);
    assert!(
        eventually(|| live() <= start_count).await,
        "closed connections still hold {} buffers",
        live() - start_count
    );

    // Released: the same connections, once idle, hold none.
    let released = start(Duration::from_millis(1)).await;
    let mut clients = Vec::new();
    for _ in 0..CONNECTIONS {
        let mut c = TcpStream::connect(released).await.unwrap();
        call(&mut c).await;
        clients.push(c);
    }
    assert!(
        eventually(|| live() <= start_count).await,
        "{} buffers live for {CONNECTIONS} idle connections",
        live() - start_count
    );
    // Each is served again, its state made anew, then released again.
    for c in &mut clients {
        call(c).await;
    }
    assert!(
        eventually(|| live() <= start_count).await,
        "{} buffers live after the second requests",
        live() - start_count
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_head_begun_before_the_release_is_served_after_it() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let made_before = made();
    let addr = start(Duration::from_millis(1)).await;
    let mut c = TcpStream::connect(addr).await.unwrap();
    let (head, rest) = REQUEST.split_at(40);
    c.write_all(head).await.unwrap();
    // hyper's state made for the head's first bytes, released while the head waits
    // (its bytes kept), and made again for them: twice.
    assert!(
        eventually(|| made() - made_before >= 4).await,
        "hyper's state made {} times",
        (made() - made_before) / 2
    );
    // The rest of the request: answered as a whole request.
    c.write_all(rest).await.unwrap();
    let mut buf = [0u8; 1024];
    let mut got = 0;
    let reply = async {
        while !std::str::from_utf8(&buf[..got])
            .unwrap()
            .contains("\"id\":1}")
        {
            let n = c.read(&mut buf[got..]).await.unwrap();
            assert!(n > 0, "closed before the reply");
            got += n;
        }
    };
    tokio::time::timeout(LIMIT, reply).await.expect("a reply");
    let text = std::str::from_utf8(&buf[..got]).unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("\"result\":19"), "{text}");
    call(&mut c).await;
}
