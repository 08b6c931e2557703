// The `http-node` example under ethers.js 6 (JsonRpcProvider, then WebSocketProvider
// with a `newHeads` subscription on the same address), the JavaScript library most
// Ethereum front ends use.
//
//     node client.mjs <path to the http-node executable>
//
// Starts the server on a free loopback port, prints one line per check (`PASS name` or
// `FAIL name: why`) and a closing `N passed, N failed`; exits 1 on any failure.
// ethers sends the calls made in the same tick as one JSON-RPC batch (one HTTP request),
// so most checks here go through the server's batch path; the debug events show the
// payloads it sent.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { JsonRpcProvider, WebSocketProvider, getAddress, version } from "ethers";
import { check, equal, rejection, run } from "../check.mjs";

const RICH = getAddress("0x00000000000000000000000000000000000000aa");
const OTHER = getAddress("0x" + "11".repeat(20));
const ONE_ETHER = 10n ** 18n;




// The JSON-RPC error a rejected call carries (ethers keeps it as `error`).
async function rpcError(promise) {
    const e = await rejection(promise, (e) => typeof e?.error?.code === "number", "a JSON-RPC error");
    return e.error;
}

async function startServer(path) {
    const proc = spawn(path, ["--addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
    const lines = createInterface({ input: proc.stdout });
    const first = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the server said nothing in 10 s")), 10_000);
        lines.once("line", (line) => {
            clearTimeout(timer);
            resolve(line.trim());
        });
        proc.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
    });
    if (!first.startsWith("listening on http://")) throw new Error(`server said ${JSON.stringify(first)}`);
    return { proc, url: first.slice("listening on ".length) };
}

async function main(serverPath) {
    const { proc, url } = await startServer(serverPath);
    console.log(`ethers ${version} against ${url}`);
    // No polling: the requests are the checks' own, and the eth_chainId ethers adds.
    const provider = new JsonRpcProvider(url, undefined, { polling: false });
    const sent = [];
    provider.on("debug", (event) => {
        if (event.action === "sendRpcPayload") sent.push(event.payload);
    });
    try {
        await checks(provider, sent);
        await webSocketChecks(url, provider);
    } finally {
        provider.destroy();
        proc.kill();
    }
}

async function checks(provider, sent) {
    await check("getNetwork: chain id 1337 (eth_chainId)", async () => {
        equal((await provider.getNetwork()).chainId, 1337n);
    });
    await check("getBlockNumber: 16 at start", async () => {
        equal(await provider.getBlockNumber(), 16);
    });
    await check("getBalance of 0x..aa (checksummed) is 1 ether; of another address 0", async () => {
        equal(await provider.getBalance(RICH), ONE_ETHER);
        equal(await provider.getBalance(OTHER), 0n);
    });
    await check("getBalance at 'earliest' and at block 5 (a hex quantity)", async () => {
        equal(await provider.getBalance(RICH, "earliest"), ONE_ETHER);
        equal(await provider.getBalance(RICH, 5), ONE_ETHER);
    });
    await check("send: web3_clientVersion, net_version, eth_gasPrice", async () => {
        const v = await provider.send("web3_clientVersion", []);
        equal(v.split("/")[0], "jsonrpc-slice-node");
        equal(await provider.send("net_version", []), "1337");
        equal(await provider.send("eth_gasPrice", []), "0x3b9aca00");
    });

    await check("calls made together go out as one batch, each answer matched by id", async () => {
        const before = sent.length;
        // Calls no check made before: ethers answers a repeated call from its cache.
        const results = await Promise.all([
            provider.getBalance(RICH, "pending"),
            provider.getBalance(getAddress("0x" + "33".repeat(20))),
            provider.send("eth_chainId", []),
            provider.send("net_version", []),
            provider.send("eth_gasPrice", []),
        ]);
        equal(results, [ONE_ETHER, 0n, "0x539", "1337", "0x3b9aca00"]);
        // getBalance resolves its block tag first, so its calls may go out a tick later
        // than the others, in a batch of their own (ethers adds eth_chainId calls of its
        // own, so those are not counted): each of the four other calls went out inside a
        // batch of more than one call.
        const inBatches = sent
            .slice(before)
            .filter((p) => Array.isArray(p) && p.length > 1)
            .flat()
            .map((p) => `${p.method}${JSON.stringify(p.params)}`);
        const want = [
            `eth_getBalance${JSON.stringify([RICH.toLowerCase(), "pending"])}`,
            `eth_getBalance${JSON.stringify(["0x" + "33".repeat(20), "latest"])}`,
            "net_version[]",
            "eth_gasPrice[]",
        ];
        const missing = want.filter((w) => !inBatches.includes(w));
        if (missing.length) {
            throw new Error(`not sent in a batch: ${missing}; sent: ${JSON.stringify(sent.slice(before))}`);
        }
    });
    await check("a batch of 100 (ethers' batchMaxCount): every answer to its own call", async () => {
        const calls = [];
        for (let i = 0; i < 100; i++) {
            calls.push(i % 2 ? provider.getBalance(RICH) : provider.send("eth_chainId", []));
        }
        const results = await Promise.all(calls);
        results.forEach((r, i) => equal(r, i % 2 ? ONE_ETHER : "0x539"));
    });
    await check("an error inside a batch rejects its own call only", async () => {
        const [a, b, c] = await Promise.allSettled([
            provider.send("eth_chainId", []),
            provider.send("eth_noSuchMethod", []),
            provider.send("eth_getBalance", ["0x12", "latest"]),
        ]);
        equal(a.status, "fulfilled");
        equal(a.value, "0x539");
        equal([b.status, c.status], ["rejected", "rejected"]);
        equal(b.reason.error.code, -32601);
        equal(c.reason.error.code, -32602);
    });

    await check("an unknown method is -32601", async () => {
        equal((await rpcError(provider.send("eth_noSuchMethod", []))).code, -32601);
    });
    await check("a bad address is -32602 naming it; a bad block tag is -32602", async () => {
        const e = await rpcError(provider.send("eth_getBalance", ["0x12", "latest"]));
        equal(e.code, -32602);
        if (!e.message.includes("0x12")) throw new Error(`the message names no address: ${e.message}`);
        equal((await rpcError(provider.send("eth_getBalance", [RICH, "tomorrow"]))).code, -32602);
    });
    await check("evm_mine advances the block number by one", async () => {
        const before = Number(await provider.send("eth_blockNumber", []));
        equal(await provider.send("evm_mine", []), "0x0");
        equal(Number(await provider.send("eth_blockNumber", [])), before + 1);
    });
    await check("ids: ethers' numeric ids came back as numbers (no call went unanswered)", async () => {
        // Every payload ethers sent had a numeric id; had any reply changed its type,
        // ethers would have rejected that call ("missing response"), failing a check above.
        const ids = sent.flatMap((p) => (Array.isArray(p) ? p : [p])).map((p) => typeof p.id);
        if (ids.length === 0 || ids.some((t) => t !== "number")) throw new Error(`ids: ${ids}`);
    });
}

// Resolves after `ms`, to bound a wait for a message (never to order anything).
const within = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());

async function webSocketChecks(url, http) {
    const ws = new WebSocketProvider(url.replace("http://", "ws://"));
    try {
        await check("WebSocketProvider: chain id, block number and a balance over WebSocket", async () => {
            equal((await ws.getNetwork()).chainId, 1337n);
            equal(await ws.getBlockNumber(), Number(await http.send("eth_blockNumber", [])));
            equal(await ws.getBalance(RICH), ONE_ETHER);
        });
        await check("WebSocketProvider: on('block') (eth_subscribe newHeads) sees the header of a block evm_mine makes", async () => {
            // The raw notifications too, to see the header itself.
            const pushed = [];
            ws.websocket.addEventListener("message", (e) => {
                const m = JSON.parse(e.data);
                if (m.method === "eth_subscription") pushed.push(m.params);
            });
            const blocks = [];
            let seen;
            const first = new Promise((resolve) => (seen = resolve));
            await ws.on("block", (n) => {
                blocks.push(n);
                seen();
            });
            // ethers subscribes in the background: mine (over HTTP, then over WebSocket,
            // in turn) until its subscription has seen a block, waiting up to 1 s each.
            for (let i = 0; i < 10 && blocks.length === 0; i++) {
                equal(await (i % 2 ? ws : http).send("evm_mine", []), "0x0");
                await Promise.race([first, within(1000)]);
            }
            if (blocks.length === 0) throw new Error("no block event after 10 blocks");
            const now = Number(await http.send("eth_blockNumber", []));
            if (!(blocks[0] <= now)) throw new Error(`block ${blocks[0]} past the head ${now}`);
            const header = pushed.find((p) => Number(p.result.number) === blocks[0]);
            if (!header) throw new Error(`no header of block ${blocks[0]} in ${JSON.stringify(pushed)}`);
            if (!/^0x[0-9a-f]+$/.test(header.subscription)) throw new Error(`id ${header.subscription}`);
            equal(header.result.parentHash, "0x" + (blocks[0] - 1).toString(16).padStart(64, "0"));
            await ws.off("block");
        });
        await check("WebSocketProvider: eth_unsubscribe is true for an open subscription, then false", async () => {
            const id = await ws.send("eth_subscribe", ["newHeads"]);
            equal(await ws.send("eth_unsubscribe", [id]), true);
            equal(await ws.send("eth_unsubscribe", [id]), false);
        });
    } finally {
        await ws.destroy();
    }
}

const server = process.argv[2];
if (!server) {
    console.error("usage: node client.mjs <http-node executable>");
    process.exit(2);
}
run(() => main(server));
