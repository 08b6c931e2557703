// The `mcp-server` example under the official MCP TypeScript SDK, the client most MCP
// hosts are built on: v1 (`@modelcontextprotocol/sdk`, Client over StdioClientTransport
// and StreamableHTTPClientTransport), which speaks the revisions up to 2025-11-25, then
// v2 (`@modelcontextprotocol/client`), which speaks 2026-07-28 (`versionNegotiation:
// { mode: "auto" }`: `server/discover` first, then stateless requests).
//
//     node client.mjs <path to the mcp-server executable> <crate version> [http://ADDR/mcp]
//
// With a URL, the same checks run once more over Streamable HTTP against the server
// listening there (run.sh starts it with `--http`).
//
// Prints one line per check (`PASS name` or `FAIL name: why`) and a closing
// `N passed, N failed`; exits 1 on any failure. The SDK validates every message it gets
// against its schemas (zod), so a reply of the wrong shape fails the call that got it;
// whatever it cannot match or parse reaches `onerror`, and the last check says there
// was none.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION, ListResourcesResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import * as v2 from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { readFileSync } from "node:fs";
import { check as checkOne, equal, rejection, run } from "../check.mjs";

const versionOf = (pkg) =>
    JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url))).version;
const SDK_VERSION = versionOf("@modelcontextprotocol/sdk");
const V2_VERSION = versionOf("@modelcontextprotocol/client");

// How many progress notifications of `countdown` the SDK delivered to onprogress.
let countdownProgress = -1;



function textOf(result) {
    return result.content.filter((c) => c.type === "text").map((c) => c.text).join("");
}

// The McpError a rejected request carries.
function mcpError(promise) {
    return rejection(promise, (e) => e instanceof McpError, "an MCP error");
}

async function main(server, crateVersion, url) {
    await session(new StdioClientTransport({ command: server, args: [], stderr: "pipe" }), "stdio", crateVersion);
    if (url) {
        await session(new StreamableHTTPClientTransport(new URL(url)), "http", crateVersion);
    }
    await stateless(() => new StdioV2({ command: server, args: [], stderr: "pipe" }), "stdio", crateVersion);
    if (url) {
        await stateless(() => new v2.StreamableHTTPClientTransport(new URL(url)), "http", crateVersion);
    }
}

// A 2026-07-28 session through SDK v2: negotiated by `server/discover`, then every
// request stateless (its `_meta` carries the version and the client's capabilities;
// over HTTP, the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers too, and an
// argument marked `x-mcp-header` mirrored in an Mcp-Param header).
async function stateless(transport, over, crateVersion) {
    const complaints = [];
    let dropped = 0;
    const check = (name, f) => checkOne(`${over}, v2: ${name}`, f);
    const client = new v2.Client(
        { name: "jsonrpc-slice-check", version: "0.0.0" },
        { versionNegotiation: { mode: "auto" } },
    );
    client.onerror = (e) => complaints.push(`client: ${e && e.message ? e.message : e}`);
    console.log(`@modelcontextprotocol/client ${V2_VERSION} over ${over}`);
    await check("connect: server/discover, then 2026-07-28", async () => {
        await client.connect(transport());
        equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
        equal(client.getServerVersion(), { name: "jsonrpc-slice-mcp", version: crateVersion });
    });
    await check("tools/list: add, echo, countdown first, each with the schema of its type", async () => {
        const { tools } = await client.listTools();
        equal(tools.slice(0, 3).map((t) => t.name), ["add", "echo", "countdown"]);
        equal(tools[0].outputSchema.required, ["sum"]);
    });
    await check("add (text and structuredContent), echo (escapes, unicode), an argument missing", async () => {
        const five = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
        equal([textOf(five), five.structuredContent], ["5", { sum: 5 }]);
        const text = 'quote " backslash \\ é 漢字 😀 \u2028';
        equal(textOf(await client.callTool({ name: "echo", arguments: { text } })), text);
        const missing = await client.callTool({ name: "add", arguments: { a: 1 } });
        equal(missing.isError, true);
    });
    await check("countdown: its progress, then done", async () => {
        const seen = [];
        const r = await client.callTool({ name: "countdown", arguments: { n: 3 } }, {
            onprogress: (p) => seen.push([p.progress, p.total]),
        });
        equal(textOf(r), "done");
        // The first k, in order: as v1, v2 drops the progress that reaches it in the same
        // read as the reply (typescript-sdk issue #2580), each reported once.
        equal(seen, [[1, 3], [2, 3], [3, 3]].slice(0, seen.length));
        dropped = 3 - seen.length;
    });
    await check("lookup: an argument mirrored in a header (non-ASCII: base64)", async () => {
        const r = await client.callTool({ name: "lookup", arguments: { region: "z\u00fcrich-1", query: "q" } });
        equal([textOf(r), r.isError ?? false], ['would run in "z\u00fcrich-1"', false]);
    });
    await check("resources/read, prompts/get, an unknown tool -32602", async () => {
        const read = await client.readResource({ uri: "test://static-text" });
        equal(read.contents[0].text, "This is the content of the static text resource.");
        const p = await client.getPrompt({ name: "test_simple_prompt" });
        equal(p.messages[0].content.text, "This is a simple prompt for testing.");
        const e = await rejection(client.callTool({ name: "nope", arguments: {} }), (e) => e.code === -32602, "-32602");
        if (!e.message.includes("nope")) throw new Error(`the message names no tool: ${e.message}`);
    });
    await check("the SDK reported no error (but the progress it dropped)", async () => {
        const late = complaints.filter((c) => c.includes("progress notification for an unknown token"));
        equal(late.length, dropped);
        equal(complaints.filter((c) => !late.includes(c)), []);
    });
    await client.close();
}

async function session(transport, over, crateVersion) {
    const complaints = [];
    countdownProgress = -1;
    const check = (name, f) => checkOne(`${over}: ${name}`, f);
    const client = new Client({ name: "jsonrpc-slice-check", version: "0.0.0" });
    client.onerror = (e) => complaints.push(`client: ${e && e.message ? e.message : e}`);
    console.log(`@modelcontextprotocol/sdk ${SDK_VERSION} over ${over}`);

    await check(`connect: initialize at ${LATEST_PROTOCOL_VERSION}, then notifications/initialized`, async () => {
        await client.connect(transport);
        equal(client.getServerVersion(), { name: "jsonrpc-slice-mcp", version: crateVersion });
        const caps = client.getServerCapabilities();
        equal(Object.keys(caps).sort(), ["completions", "logging", "prompts", "resources", "tools"]);
        equal([caps.tools, caps.resources.subscribe], [{ listChanged: false }, true]);
        if (over === "http" && !transport.sessionId) throw new Error("no Mcp-Session-Id");
    });
    await check("ping: an empty result", async () => {
        equal(await client.ping(), {});
    });
    await check("tools/list: add, echo, countdown first, each with the schema of its type", async () => {
        const { tools } = await client.listTools();
        equal(tools.slice(0, 3).map((t) => t.name), ["add", "echo", "countdown"]);
        equal(tools[0].inputSchema.required, ["a", "b"]);
        equal(tools[0].outputSchema.required, ["sum"]);
        const n = tools[2].inputSchema.properties.n;
        equal([n.type, n.minimum, n.maximum], ["integer", 0, 100]);
    });
    await check("add: a + b as text (small, and 2^53 + 2^53)", async () => {
        const five = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
        equal([textOf(five), five.structuredContent], ["5", { sum: 5 }]);
        const big = await client.callTool({ name: "add", arguments: { a: 2 ** 53, b: 2 ** 53 } });
        equal(textOf(big), "18014398509481984");
    });
    await check("add: a missing argument is a result with isError, naming it", async () => {
        const r = await client.callTool({ name: "add", arguments: { a: 1 } });
        equal(r.isError, true);
        if (!textOf(r).includes("`b`")) throw new Error(`the text names no argument: ${textOf(r)}`);
    });
    await check("echo: the text back exactly (escapes, controls, unicode, 20 kB)", async () => {
        for (const text of ["", 'quote " backslash \\ tab \t nul \u0000', "é 漢字 😀 \u2028", "x".repeat(20000)]) {
            equal(textOf(await client.callTool({ name: "echo", arguments: { text } })), text);
        }
    });
    await check("countdown: 5 progress notifications (1..5 of 5, the SDK's token) before the result `done`", async () => {
        const seen = [];
        const onWire = [];
        const deliver = transport.onmessage;
        transport.onmessage = (message, extra) => {
            onWire.push(message);
            deliver(message, extra);
        };
        // Over HTTP the events come in one response, read as they arrive.
        let r;
        try {
            r = await client.callTool({ name: "countdown", arguments: { n: 5 } }, undefined, {
                onprogress: (p) => seen.push([p.progress, p.total]),
            });
        } finally {
            transport.onmessage = deliver;
        }
        equal(textOf(r), "done");
        // What the server sent, in order: the progress for the SDK's token, then the reply.
        const reply = onWire.findIndex((m) => "result" in m);
        const progress = onWire.slice(0, reply).filter((m) => m.method === "notifications/progress");
        const token = progress.length ? progress[0].params.progressToken : undefined;
        equal(
            progress.map((m) => [m.params.progressToken, m.params.progress, m.params.total]),
            [1, 2, 3, 4, 5].map((i) => [token, i, 5]),
        );
        equal(onWire[reply].id, token); // the SDK's token is the request's id
        // What the SDK handed to onprogress: the first k of the five, in order; those that
        // reached it in the same read as the reply are dropped (its progress handlers run a
        // microtask after the reply's handler: typescript-sdk issue #2580;
        // docs/examples/mcp-server.md). The wire order above is the server's part.
        equal(seen, [[1, 5], [2, 5], [3, 5], [4, 5], [5, 5]].slice(0, seen.length));
        countdownProgress = seen.length;
    });
    await check("countdown: n = 101 is isError naming n", async () => {
        const r = await client.callTool({ name: "countdown", arguments: { n: 101 } });
        equal(r.isError, true);
        if (!textOf(r).includes("`n`")) throw new Error(`the text names no argument: ${textOf(r)}`);
    });
    await check("an unknown tool is the JSON-RPC error -32602 naming it", async () => {
        const e = await mcpError(client.callTool({ name: "nope", arguments: {} }));
        equal(e.code, -32602);
        if (!e.message.includes("nope")) throw new Error(`the message names no tool: ${e.message}`);
    });
    await check("an unknown request is -32601", async () => {
        const e = await mcpError(client.request({ method: "no/such/method", params: {} }, ListResourcesResultSchema));
        equal(e.code, -32601);
    });
    await check("resources and prompts: the conformance fixtures", async () => {
        const { resources } = await client.listResources();
        equal(resources.map((r) => r.uri), ["test://static-text", "test://static-binary", "test://watched-resource"]);
        const read = await client.readResource({ uri: "test://template/42/data" });
        equal(JSON.parse(read.contents[0].text), { id: "42", templateTest: true, data: "Data for ID: 42" });
        const p = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } });
        equal(p.messages[0].content.text, "Prompt with arguments: arg1='a', arg2='b'");
    });
    await check("notifications (cancelled, an unknown one): no reply, the session goes on", async () => {
        await client.notification({ method: "notifications/cancelled", params: { requestId: 999, reason: "test" } });
        await client.notification({ method: "notifications/message/unknown" });
        equal(await client.ping(), {});
    });
    await check("calls in flight together: each answer to its own call", async () => {
        const calls = [];
        for (let i = 0; i < 50; i++) {
            calls.push(client.callTool({ name: "add", arguments: { a: i, b: 1000 } }));
        }
        (await Promise.all(calls)).forEach((r, i) => equal(textOf(r), String(i + 1000)));
    });
    await check("the SDK reported no error (no unparsable, unmatched or invalid message)", async () => {
        // But for the race of issue #2580: progress it dropped, each reported once.
        const late = complaints.filter((c) => c.includes("progress notification for an unknown token"));
        if (countdownProgress === 0) {
            equal(late.length, 5);
        }
        equal(complaints.filter((c) => !late.includes(c)), []);
        console.log(`  (countdown: the SDK delivered ${countdownProgress} of 5 progress notifications)`);
    });
    await client.close();
}

const [server, crateVersion] = process.argv.slice(2);
if (!server || !crateVersion) {
    console.error("usage: node client.mjs <mcp-server executable> <crate version>");
    process.exit(2);
}
run(() => main(server, crateVersion, process.argv[4]));
