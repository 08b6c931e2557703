// The `http-node` example's Unix socket (`--ipc PATH`) under ethers.js 6
// (IpcSocketProvider), as a wallet or a script on the node's machine reaches geth.
//
//     node ipc.mjs <path to the http-node executable>
//
// Starts the server with a socket in a fresh temporary folder, prints one line per
// check (`PASS name` or `FAIL name: why`) and a closing `N passed, N failed`; exits 1 on
// any failure. ethers writes each message followed by a line end and reads replies one
// a line; a raw socket checks the back-to-back framing (no delimiter) beside it.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { IpcSocketProvider, getAddress, version } from "ethers";
import { check, equal, rejection, run } from "../check.mjs";

const RICH = getAddress("0x00000000000000000000000000000000000000aa");
const OTHER = getAddress("0x" + "11".repeat(20));
const ONE_ETHER = 10n ** 18n;

async function rpcError(promise) {
    const e = await rejection(promise, (e) => typeof e?.error?.code === "number", "a JSON-RPC error");
    return e.error;
}

/** Starts the server; resolves once it said both of its listening lines. */
async function startServer(path, socket) {
    const proc = spawn(path, ["--addr", "127.0.0.1:0", "--ipc", socket], {
        stdio: ["ignore", "pipe", "inherit"],
    });
    const lines = createInterface({ input: proc.stdout });
    const said = [];
    await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the server said ${JSON.stringify(said)} in 10 s`)), 10_000);
        lines.on("line", (line) => {
            said.push(line.trim());
            if (said.length === 2) {
                clearTimeout(timer);
                resolve();
            }
        });
        proc.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
    });
    equal(said[1], `listening on ipc://${socket}`);
    return proc;
}

/** Writes `bytes` on a raw connection and resolves with the first `n` reply lines. */
async function raw(socket, bytes, n) {
    const conn = connect(socket);
    await once(conn, "connect");
    conn.write(bytes);
    const got = [];
    for await (const line of createInterface({ input: conn })) {
        got.push(JSON.parse(line));
        if (got.length === n) break;
    }
    conn.destroy();
    return got;
}

async function main(serverPath) {
    const dir = mkdtempSync(join(tmpdir(), "jrs-ethers-ipc-"));
    const socket = join(dir, "node.ipc");
    const proc = await startServer(serverPath, socket);
    console.log(`ethers ${version} against ipc://${socket}`);
    const provider = new IpcSocketProvider(socket);
    try {
        await checks(provider, socket);
    } finally {
        provider.destroy();
        await check("Ctrl-C: the server exits 0 and removes its socket file", async () => {
            const exited = once(proc, "exit");
            proc.kill("SIGINT");
            const [code] = await exited;
            equal(code, 0);
            equal(existsSync(socket), false);
        });
        rmSync(dir, { recursive: true, force: true });
    }
}

async function checks(provider, socket) {
    await check("getNetwork: chain id 1337 (eth_chainId)", async () => {
        equal((await provider.getNetwork()).chainId, 1337n);
    });
    await check("getBlockNumber: 16 at start", async () => {
        equal(await provider.getBlockNumber(), 16);
    });
    await check("getBalance of 0x..aa is 1 ether; of another address 0", async () => {
        equal(await provider.getBalance(RICH), ONE_ETHER);
        equal(await provider.getBalance(OTHER), 0n);
    });
    await check("send: web3_clientVersion, net_version, eth_gasPrice", async () => {
        const v = await provider.send("web3_clientVersion", []);
        equal(v.split("/")[0], "jsonrpc-slice-node");
        equal(await provider.send("net_version", []), "1337");
        equal(await provider.send("eth_gasPrice", []), "0x3b9aca00");
    });
    await check("100 calls in flight at once: every answer to its own call", async () => {
        const calls = [];
        for (let i = 0; i < 100; i++) {
            calls.push(i % 2 ? provider.send("eth_getBalance", [RICH, "latest"]) : provider.send("eth_chainId", []));
        }
        const results = await Promise.all(calls);
        results.forEach((r, i) => equal(r, i % 2 ? "0xde0b6b3a7640000" : "0x539"));
    });
    await check("an unknown method is -32601; a bad address -32602", async () => {
        equal((await rpcError(provider.send("eth_noSuchMethod", []))).code, -32601);
        equal((await rpcError(provider.send("eth_getBalance", ["0x12", "latest"]))).code, -32602);
    });
    await check("evm_mine advances the block number by one", async () => {
        const before = Number(await provider.send("eth_blockNumber", []));
        equal(await provider.send("evm_mine", []), "0x0");
        equal(Number(await provider.send("eth_blockNumber", [])), before + 1);
    });
    await check("beside it, JSON values back to back (geth's IPC framing) and a batch", async () => {
        const call = (method, id) => JSON.stringify({ jsonrpc: "2.0", method, id });
        const replies = await raw(socket, call("eth_chainId", 1) + call("net_version", 2) + `[${call("eth_gasPrice", 3)}]`, 3);
        replies.sort((a, b) => (a.id ?? a[0].id) - (b.id ?? b[0].id));
        equal(replies, [
            { jsonrpc: "2.0", result: "0x539", id: 1 },
            { jsonrpc: "2.0", result: "1337", id: 2 },
            [{ jsonrpc: "2.0", result: "0x3b9aca00", id: 3 }],
        ]);
    });
}

const server = process.argv[2];
if (!server) {
    console.error("usage: node ipc.mjs <http-node executable>");
    process.exit(2);
}
run(() => main(server));
