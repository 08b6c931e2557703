#!/usr/bin/env python3
"""Resident memory of the http-node example with 1,000 idle connections (issue 39).

    cargo build --release --example http-node
    python3 tests/load/idle_connections.py [PATH_TO_HTTP_NODE] [--connections N] [--rounds R] [--keep-alive | --websocket [--hold S]]

Not a CI stage: a measurement on loopback, bounded (N connections, default 1,000; R
rounds, default 3; every socket operation times out after 10 s; the whole run takes a
few seconds). The server's descriptor limit is raised to N + 64 for the run (its cap,
1,000 connections by default, is then what bounds it).

Each round opens N connections that send nothing (the issue's case); with
`--keep-alive`, each makes one request first and keeps the connection alive; with
`--websocket`, each becomes a WebSocket (its `101` read) and then sends nothing (a
WebSocket has no idle timeout; the server's first ping is 30 s away; `--hold 35` reads
the memory past it, when the server has pinged each and waits for its pong, and a
peer that never answers is closed at the second, 60 s). The server's resident memory (VmRSS of /proc/PID/status)
is read at start, with the N connections open (within the idle timeout, 5 s, so that
they are all still open: its descriptors are counted, and a round in which the server
did not hold all N at once, a machine too loaded to open them in time, fails), and after they are closed and
the server has closed its ends (its descriptors back to the start's count).
Printed as a table; exit status 0 when RSS with the connections open stays under
20 MiB and returns within 4 MiB of the start after they close, 1 otherwise.
"""

import os
import resource
import socket
import subprocess
import sys
import time

TARGET_OPEN_MIB = 20.0
TARGET_BACK_MIB = 4.0
TIMEOUT = 10.0

REQUEST = (
    b"POST / HTTP/1.1\r\nHost: load\r\nContent-Type: application/json\r\n"
    b"Content-Length: 48\r\n\r\n"
    b'{"jsonrpc":"2.0","method":"eth_chainId","id":1}\n'
)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def settle(pid, base):
    """Waits (polling, bounded by TIMEOUT) until the server holds `base` descriptors."""
    deadline = time.monotonic() + TIMEOUT
    while fds(pid) > base and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fds(pid) <= base, f"{fds(pid) - base} connections still open"


UPGRADE = (
    b"GET / HTTP/1.1\r\nHost: load\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
    b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
)


def upgrade(sock):
    """Makes the connection a WebSocket: the `101`'s head read, nothing past it."""
    sock.sendall(UPGRADE)
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        if not byte:
            raise RuntimeError("closed before the upgrade's answer")
        head += byte
    status = int(head.split(b" ")[1])
    if status != 101:
        raise RuntimeError(f"status {status}")


def steady_fds(pid):
    """The server's descriptors once their count holds for 100 ms (bounded by TIMEOUT):
    its threads open theirs as they start (the WebSocket session threads' runtimes),
    after it prints its address, so a count taken then is not the start's."""
    deadline = time.monotonic() + TIMEOUT
    last, same = fds(pid), 0
    while same < 10 and time.monotonic() < deadline:
        time.sleep(0.01)
        now = fds(pid)
        last, same = now, same + 1 if now == last else 0
    return last


def read_reply(sock):
    """Reads one response (headers and a Content-Length body); returns its status."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError("closed before a reply")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError("closed inside a reply")
        body += chunk
    return int(head.split(b" ")[1])


def open_connections(addr, n, keep_alive, websocket):
    socks = []
    for _ in range(n):
        s = socket.create_connection(addr, timeout=TIMEOUT)
        if websocket:
            upgrade(s)
        elif keep_alive:
            s.sendall(REQUEST)
            status = read_reply(s)
            if status != 200:
                raise RuntimeError(f"status {status}")
        socks.append(s)
    return socks


def served(addr):
    """One request on a fresh connection: the server is up and has caught up."""
    with socket.create_connection(addr, timeout=TIMEOUT) as s:
        s.sendall(REQUEST)
        return read_reply(s) == 200


def main():
    args = sys.argv[1:]
    n, rounds, keep_alive, websocket, hold = 1000, 3, False, False, 0.0
    server = "target/release/examples/http-node"
    while args:
        a = args.pop(0)
        if a == "--connections":
            n = int(args.pop(0))
        elif a == "--rounds":
            rounds = int(args.pop(0))
        elif a == "--keep-alive":
            keep_alive = True
        elif a == "--websocket":
            websocket = True
        elif a == "--hold":
            hold = float(args.pop(0))
        else:
            server = a
    if not os.access(server, os.X_OK):
        print(f"no executable at {server}: cargo build --release --example http-node")
        return 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = n + 64
    if hard != resource.RLIM_INFINITY and hard < want:
        print(f"the descriptor limit's hard bound is {hard}, below {want}")
        return 2
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    proc = subprocess.Popen(
        [server, "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline()
        host_port = line.strip().rsplit("/", 1)[-1]
        host, port = host_port.rsplit(":", 1)
        addr = (host, int(port))
        served(addr)
        base_fds = steady_fds(proc.pid)
        start = rss_kib(proc.pid)
        print(
            f"{'round':>5} {'start MiB':>10} {'held':>5} {'open MiB':>9} {'closed MiB':>11}"
        )
        worst_open, worst_back, all_held = 0.0, 0.0, True
        for r in range(1, rounds + 1):
            t0 = time.monotonic()
            socks = open_connections(addr, n, keep_alive, websocket)
            # Within the idle timeout (5 s): every connection still open.
            # Every connection accepted (the last ones may still be in the backlog).
            while fds(proc.pid) < base_fds + n and time.monotonic() - t0 < 4.5:
                time.sleep(0.01)
            if websocket and hold:
                time.sleep(max(0.0, hold - (time.monotonic() - t0)))
            opened = rss_kib(proc.pid)
            held = fds(proc.pid) - base_fds
            all_held = all_held and held >= n
            for s in socks:
                s.close()
            # The server has seen every close when its descriptors are back to the
            # start's (polled, bounded by TIMEOUT).
            settle(proc.pid, base_fds)
            closed = rss_kib(proc.pid)
            print(
                f"{r:>5} {start / 1024:>10.1f} {held:>5} {opened / 1024:>9.1f} "
                f"{closed / 1024:>11.1f}"
            )
            worst_open = max(worst_open, opened / 1024)
            worst_back = max(worst_back, (closed - start) / 1024)
        if not all_held:
            print(f"not all {n} connections were held open at once (a loaded machine?)")
        ok = all_held and worst_open < TARGET_OPEN_MIB and worst_back < TARGET_BACK_MIB
        print(
            f"open: {worst_open:.1f} MiB at most (target < {TARGET_OPEN_MIB}); "
            f"after close: {worst_back:+.1f} MiB from the start at most "
            f"(target < {TARGET_BACK_MIB}): {'met' if ok else 'NOT met'}"
        )
        return 0 if ok else 1
    finally:
        proc.terminate()
        proc.wait(timeout=TIMEOUT)


if __name__ == "__main__":
    sys.exit(main())
