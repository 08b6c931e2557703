"""The `http-node` example under web3.py (HTTP, then WebSocket with a `newHeads`
subscription), then under a plain HTTP client (http.client).

    python client.py <path to the http-node executable>

Starts the server on a free loopback port, prints one line per check (`PASS name` or
`FAIL name: why`) and a closing `N passed, N failed`; exits 1 on any failure.
"""

import asyncio
import http.client
import json
import subprocess
import sys
import warnings

import web3
from web3 import AsyncWeb3, Web3, WebSocketProvider
from web3.exceptions import Web3RPCError

RICH = "0x00000000000000000000000000000000000000aa"
ONE_ETHER = 10**18
MIB = 1024 * 1024

passed = failed = 0


def check(name, fn):
    global passed, failed
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
        failed += 1
        print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
    else:
        passed += 1
        print(f"PASS {name}", flush=True)


def equal(got, want):
    assert got == want, f"got {got!r}, want {want!r}"


def main(server):
    proc = subprocess.Popen([server, "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("listening on http://"), f"server said {line!r}"
        url = line.removeprefix("listening on ")
        host, port = url.removeprefix("http://").split(":")
        print(f"web3.py {web3.__version__} against {url}", flush=True)
        with_web3(url)
        asyncio.run(with_websocket(url))
        plain(host, int(port))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


def with_web3(url):
    w3 = Web3(Web3.HTTPProvider(url))
    rich = Web3.to_checksum_address(RICH)

    check("web3: is_connected", lambda: equal(w3.is_connected(), True))
    check("web3: eth.chain_id is 1337", lambda: equal(w3.eth.chain_id, 1337))
    check("web3: net.version is '1337'", lambda: equal(w3.net.version, "1337"))
    check(
        "web3: client_version",
        lambda: equal(w3.client_version.split("/")[0], "jsonrpc-slice-node"),
    )
    check("web3: eth.gas_price is 1 gwei", lambda: equal(w3.eth.gas_price, 10**9))
    check("web3: eth.block_number is 16 at start", lambda: equal(w3.eth.block_number, 16))
    check(
        "web3: get_balance of 0x..aa (checksummed) is 1 ether",
        lambda: equal(w3.eth.get_balance(rich), ONE_ETHER),
    )
    check(
        "web3: get_balance of another address is 0",
        lambda: equal(w3.eth.get_balance(Web3.to_checksum_address("0x" + "11" * 20)), 0),
    )
    check(
        "web3: get_balance at block 'earliest' and at block 5",
        lambda: equal((w3.eth.get_balance(rich, "earliest"), w3.eth.get_balance(rich, 5)), (ONE_ETHER, ONE_ETHER)),
    )

    def mine():
        before = w3.eth.block_number
        w3.testing.mine()  # evm_mine
        equal(w3.eth.block_number, before + 1)
        equal(w3.provider.make_request("evm_mine", [])["result"], "0x0")
        equal(w3.eth.block_number, before + 2)

    check("web3: testing.mine (evm_mine) advances the block number by one", mine)

    def batch():
        with w3.batch_requests() as b:
            b.add(w3.eth.get_block_number())
            b.add(w3.eth.get_balance(rich))
            b.add(w3.eth.get_balance(Web3.to_checksum_address("0x" + "22" * 20)))
            b.add(w3.eth.gas_price)
            b.add(w3.net.version)
            results = b.execute()
        equal(results[1:], [ONE_ETHER, 0, 10**9, "1337"])
        equal(results[0], w3.eth.block_number)

    check("web3: a batch of 5 (batch_requests)", batch)

    def bad_address():
        reply = w3.provider.make_request("eth_getBalance", ["0x12", "latest"])
        equal(reply["error"]["code"], -32602)
        assert "0x12" in reply["error"]["message"], reply
        reply = w3.provider.make_request("eth_getBalance", ["0x" + "a" * 39, "latest"])
        equal(reply["error"]["code"], -32602)
        assert "0x" + "a" * 39 in reply["error"]["message"], reply

    check("web3: a bad address is -32602 naming it", bad_address)

    def bad_tag():
        reply = w3.provider.make_request("eth_getBalance", [RICH, "tomorrow"])
        equal(reply["error"]["code"], -32602)

    check("web3: a bad block tag is -32602", bad_tag)


async def acheck(name, fn):
    """`check` of a coroutine function, within 10 s."""
    global passed, failed
    try:
        await asyncio.wait_for(fn(), timeout=10)
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
        failed += 1
        print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
    else:
        passed += 1
        print(f"PASS {name}", flush=True)


async def with_websocket(url):
    """web3.py's WebSocketProvider on the same address: calls, then a `newHeads`
    subscription that sees the blocks `evm_mine` makes over HTTP and over WebSocket."""
    http_w3 = Web3(Web3.HTTPProvider(url))
    async with AsyncWeb3(WebSocketProvider(url.replace("http://", "ws://"))) as w3:

        async def calls():
            equal(await w3.eth.chain_id, 1337)
            equal(await w3.eth.block_number, http_w3.eth.block_number)
            equal(await w3.eth.get_balance(Web3.to_checksum_address(RICH)), ONE_ETHER)

        await acheck("web3 ws: eth.chain_id, block_number, get_balance over WebSocket", calls)

        async def new_heads():
            sub = await w3.eth.subscribe("newHeads")
            assert sub.startswith("0x"), sub
            before = await w3.eth.block_number
            http_w3.testing.mine()  # over HTTP
            equal((await w3.provider.make_request("evm_mine", []))["result"], "0x0")  # over WS
            numbers = []
            async for message in w3.socket.process_subscriptions():
                equal(message["subscription"], sub)
                header = message["result"]
                assert "hash" in header and "timestamp" in header, header
                numbers.append(header["number"])
                if len(numbers) == 2:
                    break
            equal(numbers, [before + 1, before + 2])
            equal(await w3.eth.unsubscribe(sub), True)
            # Gone on the server too: a second eth_unsubscribe is false.
            equal((await w3.provider.make_request("eth_unsubscribe", [sub]))["result"], False)

        await acheck(
            "web3 ws: eth_subscribe newHeads gets the header of each block evm_mine makes "
            "(over HTTP and over WebSocket); eth_unsubscribe",
            new_heads,
        )


class Http:
    """One keep-alive connection: post() returns (status, headers, body)."""

    def __init__(self, host, port):
        self.conn = http.client.HTTPConnection(host, port, timeout=10)

    def send(self, method, body=b"", headers=None, path="/"):
        self.conn.request(method, path, body=body, headers=headers or {})
        r = self.conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()

    def post(self, body, content_type="application/json", path="/"):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        headers = {"Content-Type": content_type} if content_type is not None else {}
        return self.send("POST", body, headers, path)

    def rpc(self, body, **kw):
        status, headers, data = self.post(body, **kw)
        equal(status, 200)
        equal(headers.get("content-type"), "application/json")
        return json.loads(data)


def req(method, params=None, id=1):
    r = {"jsonrpc": "2.0", "method": method, "id": id}
    if params is not None:
        r["params"] = params
    return r


def note(method, params=None):
    r = req(method, params)
    del r["id"]
    return r


def plain(host, port):
    h = Http(host, port)

    def only_post():
        for method in ("GET", "PUT", "DELETE", "PATCH"):
            status, headers, body = h.send(method)
            equal((status, headers.get("allow"), body), (405, "POST", b""))

    check("http: GET, PUT, DELETE, PATCH are 405 with Allow: POST", only_post)

    def content_types():
        for ct in ("application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8",
                   "application/json-rpc", "application/jsonrequest"):
            equal(h.rpc(req("eth_chainId"), content_type=ct)["result"], "0x539")
        for ct in ("text/plain", "application/x-www-form-urlencoded", "application/jsonx", None):
            equal(h.post(req("eth_chainId"), content_type=ct)[0], 415)

    check("http: Content-Type application/json (+params, json-rpc, jsonrequest), else 415", content_types)

    def any_path():
        equal(h.rpc(req("net_version"), path="/some/path?x=1")["result"], "1337")

    check("http: any path", any_path)

    def keep_alive():
        h.rpc(req("eth_chainId"))
        sock = h.conn.sock
        for i in range(20):
            equal(h.rpc(req("eth_chainId", id=i))["id"], i)
        assert h.conn.sock is sock, "the connection was not kept alive"

    check("http: keep-alive, 20 requests on one connection", keep_alive)

    def sizes():
        # Exactly 1 MiB (a batch padded with whitespace) is served; one byte more is 413.
        batch = json.dumps([req("eth_chainId", id=i) for i in range(1000)]).encode()
        body = batch + b" " * (MIB - len(batch))
        replies = h.rpc(body)
        equal([r["id"] for r in replies], list(range(1000)))
        status, headers, _ = h.post(body + b" ")
        equal((status, headers.get("connection")), (413, "close"))
        # Without Content-Length (chunked): the same limit.
        chunked = Http(host, port)
        chunked.conn.putrequest("POST", "/")
        chunked.conn.putheader("Content-Type", "application/json")
        chunked.conn.putheader("Transfer-Encoding", "chunked")
        chunked.conn.endheaders()
        big = body + b" " * 1024
        for i in range(0, len(big), 64 * 1024):
            piece = big[i:i + 64 * 1024]
            chunked.conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
        chunked.conn.send(b"0\r\n\r\n")
        equal(chunked.conn.getresponse().status, 413)
        # Far too large: refused from its Content-Length alone.
        status, _, _ = Http(host, port).send("POST", b"", {"Content-Type": "application/json",
                                                           "Content-Length": str(64 * MIB)})
        equal(status, 413)
        # A connection that had a 413 is closed; http.client opens a new one, served as usual.
        equal(h.rpc(req("eth_chainId"))["result"], "0x539")

    check("http: a 1 MiB batch is served, 1 MiB + 1 is 413 (with Content-Length or chunked)", sizes)

    def no_reply():
        for body in (note("evm_mine"), [note("eth_chainId"), note("net_version")]):
            status, headers, data = h.post(body)
            equal((status, data, headers.get("content-length", "0")), (204, b"", "0"))

    check("http: a notification and an all-notification batch are 204, no body", no_reply)

    def rpc_errors():
        equal(h.rpc(b'{"jsonrpc":"2.0","method":')["error"]["code"], -32700)
        equal(h.rpc({"jsonrpc": "2.0", "method": 1, "id": 1})["error"]["code"], -32600)
        equal(h.rpc([])["error"]["code"], -32600)
        equal(h.rpc(req("eth_nope"))["error"]["code"], -32601)

    check("http: parse error, invalid request, empty batch, unknown method: 200 with the error", rpc_errors)

    def ids():
        equal(h.rpc(req("eth_chainId", id="1"))["id"], "1")
        equal(h.rpc(req("eth_chainId", id=1))["id"], 1)
        equal(h.rpc(req("eth_chainId", id=-7.5))["id"], -7.5)
        equal(h.rpc(req("eth_chainId", id=None))["id"], None)
        raw = h.post(b'{"jsonrpc":"2.0","method":"eth_chainId","id":"\\u0031"}')[2]
        assert raw.endswith(b'"id":"\\u0031"}'), raw

    check("http: ids keep their type and text", ids)

    def mixed_batch():
        replies = h.rpc([req("eth_chainId", id="a"), note("evm_mine"), req("net_version", id=2), 5,
                         note("eth_nope")])
        equal([r.get("id") for r in replies], ["a", 2, None])
        equal(replies[2]["error"]["code"], -32600)

    check("http: a mixed batch answers its requests only", mixed_batch)

    def shared_block():
        a, b = Http(host, port), Http(host, port)
        before = int(a.rpc(req("eth_blockNumber"))["result"], 16)
        equal(b.rpc(req("evm_mine"))["result"], "0x0")
        equal(a.rpc(req("eth_blockNumber"))["result"], hex(before + 1))

    check("http: evm_mine on one connection is seen on another", shared_block)

    def addresses():
        upper = "0x" + RICH[2:].upper()
        equal(h.rpc(req("eth_getBalance", [upper, "latest"]))["result"], "0xde0b6b3a7640000")
        equal(h.rpc(req("eth_getBalance", ["0x" + "ab" * 20, "pending"]))["result"], "0x0")
        for bad in ("0x" + "a" * 39, "0x" + "a" * 41, "aa" * 21, "0x" + "g" * 40):
            e = h.rpc(req("eth_getBalance", [bad, "latest"]))["error"]
            equal(e["code"], -32602)
            assert bad in e["message"], e
        for tag in ("safe", "finalized", "0x0", "0x1f"):
            equal(h.rpc(req("eth_getBalance", [RICH, tag]))["result"], "0xde0b6b3a7640000")
        for tag in ("Latest", "0x", "0x01", "12", 12, None, "0x" + "f" * 17):
            equal(h.rpc(req("eth_getBalance", [RICH, tag]))["error"]["code"], -32602)
        equal(h.rpc(req("eth_getBalance", [RICH]))["error"]["code"], -32602)
        equal(h.rpc(req("eth_getBalance", [RICH, "latest", 1]))["error"]["code"], -32602)
        # Escaped strings are the same strings: \u0030x... is 0x...
        escaped = b'{"jsonrpc":"2.0","method":"eth_getBalance","params":["\\u0030x' + RICH[2:].encode() \
            + b'","l\\u0061test"],"id":1}'
        equal(h.rpc(escaped)["result"], "0xde0b6b3a7640000")

    check("http: eth_getBalance addresses (any case, escapes decoded) and block tags", addresses)


if __name__ == "__main__":
    warnings.simplefilter("error", RuntimeWarning)
    sys.exit(main(sys.argv[1]))
