"""The `http-node` example's Unix socket (`--ipc PATH`) under web3.py: IPCProvider and
AsyncIPCProvider.

    python ipc.py <path to the http-node executable>

Starts the server with a socket in a fresh temporary folder, prints one line per check
(`PASS name` or `FAIL name: why`) and a closing `N passed, N failed`; exits 1 on any
failure.
"""

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import warnings

import web3
from web3 import AsyncIPCProvider, AsyncWeb3, Web3

from client import ONE_ETHER, RICH, check, equal
import client


def main(server):
    with tempfile.TemporaryDirectory(prefix="jrs-web3-ipc-") as folder:
        socket = os.path.join(folder, "node.ipc")
        proc = subprocess.Popen(
            [server, "--addr", "127.0.0.1:0", "--ipc", socket], stdout=subprocess.PIPE, text=True
        )
        try:
            said = [proc.stdout.readline().strip() for _ in range(2)]
            equal(said[1], f"listening on ipc://{socket}")
            print(f"web3.py {web3.__version__} against ipc://{socket}", flush=True)
            blocking(socket)
            asyncio.run(in_flight(socket))
        finally:

            def shutdown():
                proc.send_signal(signal.SIGINT)
                equal(proc.wait(timeout=10), 0)
                equal(os.path.exists(socket), False)

            check("ipc: Ctrl-C: the server exits 0 and removes its socket file", shutdown)
            if proc.poll() is None:
                proc.kill()
    print(f"{client.passed} passed, {client.failed} failed", flush=True)
    return 1 if client.failed else 0


def blocking(socket):
    w3 = Web3(Web3.IPCProvider(socket, timeout=10))
    rich = Web3.to_checksum_address(RICH)

    check("ipc: is_connected", lambda: equal(w3.is_connected(), True))
    check("ipc: eth.chain_id is 1337", lambda: equal(w3.eth.chain_id, 1337))
    check("ipc: net.version is '1337'", lambda: equal(w3.net.version, "1337"))
    check("ipc: eth.gas_price is 1 gwei", lambda: equal(w3.eth.gas_price, 10**9))
    check("ipc: eth.block_number is 16 at start", lambda: equal(w3.eth.block_number, 16))
    check("ipc: get_balance of 0x..aa is 1 ether", lambda: equal(w3.eth.get_balance(rich), ONE_ETHER))

    def mine():
        before = w3.eth.block_number
        w3.testing.mine()  # evm_mine
        equal(w3.eth.block_number, before + 1)

    check("ipc: testing.mine (evm_mine) advances the block number by one", mine)

    def batch():
        with w3.batch_requests() as b:
            b.add(w3.eth.get_balance(rich))
            b.add(w3.eth.get_balance(Web3.to_checksum_address("0x" + "22" * 20)))
            b.add(w3.eth.gas_price)
            b.add(w3.net.version)
            results = b.execute()
        equal(results, [ONE_ETHER, 0, 10**9, "1337"])

    check("ipc: a batch of 4 (batch_requests)", batch)

    def errors():
        equal(w3.provider.make_request("eth_noSuchMethod", [])["error"]["code"], -32601)
        equal(w3.provider.make_request("eth_getBalance", ["0x12", "latest"])["error"]["code"], -32602)

    check("ipc: an unknown method is -32601, a bad address -32602", errors)


async def in_flight(socket):
    """AsyncIPCProvider keeps one connection: 50 calls sent at once, each answer to its
    own call."""
    results = {}

    async def run():
        async with AsyncWeb3(AsyncIPCProvider(socket, request_timeout=10)) as w3:
            rich = Web3.to_checksum_address(RICH)
            calls = [w3.eth.get_balance(rich) if i % 2 else w3.eth.chain_id for i in range(50)]
            results["got"] = await asyncio.gather(*calls)

    try:
        await asyncio.wait_for(run(), 30)
        error = None
    except Exception as e:  # noqa: BLE001 - reported by the check below
        error = e

    def answered():
        if error is not None:
            raise error
        equal(results["got"], [ONE_ETHER if i % 2 else 1337 for i in range(50)])

    check("ipc: AsyncIPCProvider, 50 calls in flight on one connection", answered)


if __name__ == "__main__":
    warnings.simplefilter("error", RuntimeWarning)
    sys.exit(main(sys.argv[1]))
