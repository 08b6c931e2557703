// Interop tests: the jsonrpc-slice `serve` example against vscode-jsonrpc, the
// JSON-RPC library under every VS Code language client.
//
//   node interop.mjs [path/to/serve]        (or JSONRPC_SLICE_SERVE=path/to/serve)
//
// Default server path: <repo root>/target/release/jsonrpc-slice-serve, where the repo root
// is three levels above this file, so the script works from any working directory.
//
// Every phase spawns its own server with `--framing content-length` and, at the end,
// closes its stdin and checks that the server exits 0 and that nothing arrived that no
// request asked for (the JSON-RPC 2.0 rule: notifications get no reply).
//
// Prints one line per failure, then `N passed, M failed`; exits 1 on any failure.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, inspect } from 'node:util';

let rpc;
try {
  rpc = (await import('vscode-jsonrpc/node.js')).default;
} catch (e) {
  console.error(`interop (node): cannot load vscode-jsonrpc (${e.message.split('\n')[0]})`);
  console.error('install it first: (cd tests/interop/node && npm ci)');
  process.exit(2);
}

const {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  ResponseError,
  CancellationTokenSource,
  ParameterStructures,
  RequestType,
} = rpc;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '..', '..', '..');
const SERVER = path.resolve(
  process.argv[2] || process.env.JSONRPC_SLICE_SERVE || path.join(REPO, 'target', 'release', 'jsonrpc-slice-serve'),
);
const VERBOSE = !!process.env.INTEROP_VERBOSE;

if (!existsSync(SERVER)) {
  console.error(`interop (node): server binary not found: ${SERVER}`);
  console.error('build it with `cargo build --release --features std`, or pass its path as the first argument');
  process.exit(2);
}

// ---------------------------------------------------------------------------------------
// A tiny test runner.

let passed = 0;
let failed = 0;
const failures = [];

class Mismatch extends Error {}

function show(v) {
  return inspect(v, { depth: 6, breakLength: Infinity, maxStringLength: 80, maxArrayLength: 20 });
}

function eq(actual, expected, what = 'value') {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Mismatch(`${what}: expected ${show(expected)}, got ${show(actual)}`);
  }
}

function ok(cond, message) {
  if (!cond) throw new Mismatch(message);
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Mismatch(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function test(name, fn) {
  try {
    await withTimeout(Promise.resolve().then(fn), 20000, name);
    passed++;
    if (VERBOSE) console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    const message = e instanceof Mismatch ? e.message : (e && e.stack) || String(e);
    failures.push(`${name}: ${message}`);
    console.log(`FAIL ${name}: ${message}`);
  }
}

/** The ResponseError a request is rejected with, or a Mismatch if it resolves. */
async function rejection(promise) {
  try {
    const value = await promise;
    throw new Mismatch(`expected an error reply, got result ${show(value)}`);
  } catch (e) {
    if (e instanceof Mismatch) throw e;
    return e;
  }
}

function expectResponseError(e, code, message, data) {
  ok(e instanceof ResponseError, `expected a ResponseError, got ${show(e)}`);
  eq(e.code, code, 'error code');
  if (message instanceof RegExp) {
    ok(message.test(e.message), `error message: expected ${message}, got ${show(e.message)}`);
  } else {
    eq(e.message, message, 'error message');
  }
  eq(e.data, data, 'error data');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------
// The server under test, with a tap on both directions.

function spawnServer() {
  const child = spawn(SERVER, ['--framing', 'content-length'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.stdin.on('error', () => {}); // EPIPE is reported through the exit status instead
  return { child, exited, stderr: () => stderr };
}

/** Wraps a reader so that every decoded message is also recorded in `seen`. */
function tapReader(reader, seen) {
  const listen = reader.listen.bind(reader);
  reader.listen = (callback) =>
    listen((message) => {
      seen.push(message);
      callback(message);
    });
  return reader;
}

/** Wraps a writer so that every message written is also recorded in `sent`. */
function tapWriter(writer, sent) {
  const write = writer.write.bind(writer);
  writer.write = (message) => {
    sent.push(message);
    return write(message);
  };
  return writer;
}

function connect() {
  const server = spawnServer();
  const seen = [];
  const sent = [];
  const logs = [];
  const events = [];
  const reader = tapReader(new StreamMessageReader(server.child.stdout), seen);
  const writer = tapWriter(new StreamMessageWriter(server.child.stdin), sent);
  const logger = {
    error: (m) => logs.push(['error', m]),
    warn: (m) => logs.push(['warn', m]),
    info: (m) => logs.push(['info', m]),
    log: (m) => logs.push(['log', m]),
  };
  const connection = createMessageConnection(reader, writer, logger);
  connection.onError(([error]) => events.push(['error', String(error && error.message)]));
  connection.onUnhandledNotification((n) => events.push(['notification', n]));
  connection.listen();
  return { ...server, connection, reader, writer, seen, sent, logs, events };
}

/**
 * The end-of-session check: every message received is a response to exactly one request
 * that was sent (no reply to any notification, no duplicate, none missing), nothing was
 * logged or raised, and the server exits 0 once its stdin closes.
 */
async function finish(s, { expectedStray = [] } = {}) {
  await sleep(200); // anything still in flight arrives now
  const requests = new Map();
  for (const m of s.sent) if (m.id !== undefined) requests.set(m.id, m);
  const notifications = s.sent.filter((m) => m.id === undefined).length;
  const answered = new Set();
  const problems = [];
  for (const m of s.seen) {
    if (expectedStray.some((pred) => pred(m))) continue;
    if (m.method !== undefined) problems.push(`server sent a request/notification: ${show(m)}`);
    else if (!requests.has(m.id)) problems.push(`reply to no request sent (a notification answered?): ${show(m)}`);
    else if (answered.has(m.id)) problems.push(`second reply for id ${show(m.id)}: ${show(m)}`);
    else answered.add(m.id);
  }
  for (const id of requests.keys()) if (!answered.has(id)) problems.push(`no reply for id ${show(id)}`);
  for (const l of s.logs) problems.push(`library logged ${l[0]}: ${l[1]}`);
  for (const e of s.events) problems.push(`connection event ${e[0]}: ${show(e[1])}`);
  if (s.connection) s.connection.dispose();
  s.child.stdin.end();
  const { code, signal } = await withTimeout(s.exited, 5000, 'server exit after stdin closed');
  if (code !== 0) problems.push(`server exited with ${code ?? signal}; stderr: ${s.stderr().trim()}`);
  if (problems.length) throw new Mismatch(problems.join('\n    '));
  return { requests: requests.size, notifications };
}

// ---------------------------------------------------------------------------------------
// Phase 1: the MessageConnection API, as a language client uses it.

async function phaseConnection() {
  const s = connect();
  const c = s.connection;
  const lastSent = (method) => [...s.sent].reverse().find((m) => m.method === method);

  await test('connection: first request (id 0) subtract(42, 23) = 19', async () => {
    eq(await c.sendRequest('subtract', 42, 23), 19);
    eq(s.sent[0].id, 0, 'first id vscode-jsonrpc chose');
    eq(s.sent[0].params, [42, 23], 'params on the wire');
  });
  await test('connection: positional subtract(23, 42) = -19', async () => {
    eq(await c.sendRequest('subtract', 23, 42), -19);
  });
  await test('connection: named subtract {subtrahend, minuend} = 19', async () => {
    eq(await c.sendRequest('subtract', { subtrahend: 23, minuend: 42 }), 19);
    eq(lastSent('subtract').params, { subtrahend: 23, minuend: 42 }, 'params on the wire');
  });
  await test('connection: named subtract via ParameterStructures.byName = 19', async () => {
    eq(await c.sendRequest('subtract', ParameterStructures.byName, { minuend: 42, subtrahend: 23 }), 19);
  });
  await test('connection: RequestType2 spreads [10, 2] = 8; RequestType+byPosition wraps [[10, 2]] → -32602', async () => {
    const Subtract = new RequestType('subtract', ParameterStructures.byPosition);
    // RequestType (one param) + byPosition wraps the value: params = [[10, 2]] → invalid.
    // RequestType2 spreads two params: params = [10, 2].
    const Subtract2 = new rpc.RequestType2('subtract');
    eq(await c.sendRequest(Subtract2, 10, 2), 8);
    expectResponseError(await rejection(c.sendRequest(Subtract, [10, 2])), -32602, 'Invalid params', undefined);
    eq(lastSent('subtract').params, [[10, 2]], 'RequestType+byPosition params on the wire');
  });
  await test('connection: sum(1, 2, 4) = 7 (params spread as [1,2,4])', async () => {
    eq(await c.sendRequest('sum', 1, 2, 4), 7);
    eq(lastSent('sum').params, [1, 2, 4], 'params on the wire');
  });
  await test('connection: sum(5) = 5 (a single scalar is wrapped: [5])', async () => {
    eq(await c.sendRequest('sum', 5), 5);
    eq(lastSent('sum').params, [5], 'params on the wire');
  });
  await test('connection: sum([1, 2, 4]) sends [[1,2,4]] (library wraps arrays) → -32602', async () => {
    const e = await rejection(c.sendRequest('sum', [1, 2, 4]));
    expectResponseError(e, -32602, 'Invalid params', undefined);
    eq(lastSent('sum').params, [[1, 2, 4]], 'params on the wire');
  });
  await test('connection: get_data (no params member) = ["hello", 5]', async () => {
    eq(await c.sendRequest('get_data'), ['hello', 5]);
    // The message object has `params: undefined`, which JSON.stringify leaves out.
    ok(!('params' in JSON.parse(JSON.stringify(lastSent('get_data')))), 'a request without arguments carries no params member');
  });
  await test('connection: echo without params resolves to null', async () => {
    eq(await c.sendRequest('echo'), null);
  });
  await test('connection: echo(null) is sent as [null] and echoed', async () => {
    eq(await c.sendRequest('echo', null), [null]);
  });
  await test('connection: echo of an object with non-ASCII text (byte Content-Length)', async () => {
    const v = { a: [1, -2.5, 'é😀 ✓', null, true, false], 'b/"\\': {}, c: 'line\nbreak\ttab\u0001', d: 1e21 };
    eq(await c.sendRequest('echo', v), v);
  });
  await test('connection: echo of a 60 000-byte UTF-8 string (one frame under 64 KiB)', async () => {
    const v = 'é'.repeat(30000); // 60 000 bytes of UTF-8
    eq(await c.sendRequest('echo', v), [v]);
  });
  await test('connection: NaN and Infinity are sent as null (JSON.stringify), echoed as null', async () => {
    eq(await c.sendRequest('echo', NaN, Infinity), [null, null]);
  });
  await test('connection: update(1, 2, 3) resolves to null', async () => {
    eq(await c.sendRequest('update', 1, 2, 3), null);
  });

  await test('connection: notifications get no reply; the next request gets its own', async () => {
    await c.sendNotification('update', 1, 2, 3, 4, 5);
    await c.sendNotification('notify_hello', 7);
    await c.sendNotification('notify_sum', 1, 2, 4);
    await c.sendNotification('notify_hello', { named: true });
    await c.sendNotification('notify_hello');
    await c.sendNotification('no_such_method', 1); // unknown method: still no reply
    await c.sendNotification('fail', 'boom'); // a failing method: still no reply
    await c.sendNotification('subtract', 'not', 'numbers'); // invalid params: still no reply
    await c.sendNotification('big', 1000000); // a reply that would be too large: still none
    const before = s.seen.length;
    eq(await c.sendRequest('get_data'), ['hello', 5]);
    await sleep(150);
    eq(s.seen.length, before + 1, 'messages received after 9 notifications and 1 request');
    eq(s.seen[s.seen.length - 1].id, lastSent('get_data').id, 'id of the one reply');
  });

  await test('connection: 200 concurrent requests, results matched to their ids', async () => {
    const calls = [];
    for (let i = 0; i < 200; i++) {
      switch (i % 5) {
        case 0: calls.push([c.sendRequest('subtract', i, 1000 - i), i - (1000 - i)]); break;
        case 1: calls.push([c.sendRequest('subtract', { minuend: i, subtrahend: -i }), 2 * i]); break;
        case 2: calls.push([c.sendRequest('sum', i, i, i, -1), 3 * i - 1]); break;
        case 3: calls.push([c.sendRequest('echo', { i, s: `#${i}` }), { i, s: `#${i}` }]); break;
        default: calls.push([c.sendRequest('big', i), 'x'.repeat(i)]); break;
      }
    }
    const results = await Promise.all(calls.map(([p]) => p));
    results.forEach((r, i) => eq(r, calls[i][1], `result of concurrent request #${i}`));
  });

  await test('connection: 200 concurrent mixed successes and errors', async () => {
    const settled = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 ? c.sendRequest('fail', { i }) : c.sendRequest('subtract', i, 1)),
    );
    settled.forEach((r, i) => {
      if (i % 2) {
        eq(r.status, 'rejected', `status of #${i}`);
        expectResponseError(r.reason, -32000, 'Server error', { i });
      } else {
        eq(r.status, 'fulfilled', `status of #${i}`);
        eq(r.value, i - 1, `result of #${i}`);
      }
    });
  });

  await test('connection: unknown method → ResponseError -32601', async () => {
    expectResponseError(await rejection(c.sendRequest('no_such_method', 1)), -32601, 'Method not found', undefined);
  });
  await test('connection: rpc.-prefixed method → ResponseError -32601', async () => {
    expectResponseError(await rejection(c.sendRequest('rpc.discover')), -32601, 'Method not found', undefined);
  });
  await test('connection: subtract("a", "b") → ResponseError -32602', async () => {
    expectResponseError(await rejection(c.sendRequest('subtract', 'a', 'b')), -32602, 'Invalid params', undefined);
  });
  await test('connection: subtract(1, 2, 3) → ResponseError -32602', async () => {
    expectResponseError(await rejection(c.sendRequest('subtract', 1, 2, 3)), -32602, 'Invalid params', undefined);
  });
  await test('connection: subtract {minuend} only → ResponseError -32602', async () => {
    expectResponseError(await rejection(c.sendRequest('subtract', { minuend: 1 })), -32602, 'Invalid params', undefined);
  });
  await test('connection: sum(1.5) → ResponseError -32602', async () => {
    expectResponseError(await rejection(c.sendRequest('sum', 1.5)), -32602, 'Invalid params', undefined);
  });
  await test('connection: subtract(2**63, -1) (not an i64) → ResponseError -32602', async () => {
    // 9223372036854775807 is not exactly representable as a JS number; BigInt cannot be
    // JSON.stringify'd, so send the nearest double (2^63), which is not an i64 either.
    expectResponseError(await rejection(c.sendRequest('subtract', 2 ** 63, -1)), -32602, 'Invalid params', undefined);
  });
  await test('connection: fail {why} → ResponseError -32000 with data', async () => {
    const data = { why: 'because', list: [1, 'two', null], nested: { ok: false } };
    expectResponseError(await rejection(c.sendRequest('fail', data)), -32000, 'Server error', data);
  });
  await test('connection: fail(1, "two") → data [1, "two"]', async () => {
    expectResponseError(await rejection(c.sendRequest('fail', 1, 'two')), -32000, 'Server error', [1, 'two']);
  });
  await test('connection: fail without params → no data', async () => {
    const e = await rejection(c.sendRequest('fail'));
    expectResponseError(e, -32000, 'Server error', undefined);
  });
  await test('connection: big(60000) = 60 000 x', async () => {
    const r = await c.sendRequest('big', 60000);
    eq(typeof r, 'string', 'result type');
    eq(r.length, 60000, 'result length');
    ok(/^x*$/.test(r), 'result is all x');
  });
  await test('connection: big(70000) (reply over 64 KiB) → ResponseError -32603', async () => {
    const e = await rejection(c.sendRequest('big', 70000));
    expectResponseError(e, -32603, /^Internal error/, undefined);
  });
  await test('connection: big("x") → ResponseError -32602', async () => {
    expectResponseError(await rejection(c.sendRequest('big', 'x')), -32602, 'Invalid params', undefined);
  });

  await test('connection: cancellation sends $/cancelRequest, a notification the server ignores', async () => {
    const source = new CancellationTokenSource();
    const p = c.sendRequest('sum', 1, 2, source.token);
    source.cancel();
    // vscode-jsonrpc 8 does not reject on cancel: it waits for the server's reply.
    eq(await p, 3);
    const cancel = lastSent('$/cancelRequest');
    ok(cancel !== undefined, '$/cancelRequest was sent');
    ok(!('id' in cancel), '$/cancelRequest is a notification');
    eq(cancel.params, { id: lastSent('sum').id }, '$/cancelRequest params');
    eq(await c.sendRequest('subtract', 5, 3), 2); // and no stray reply (checked at the end)
  });

  await test('connection: session accounting (every request answered once, no other message, exit 0)', async () => {
    const { requests, notifications } = await finish(s);
    ok(requests >= 400 && notifications >= 10, `ran ${requests} requests and ${notifications} notifications`);
  });
}

// ---------------------------------------------------------------------------------------
// Phase 2: the stream reader/writer alone (no MessageConnection): ids the connection API
// cannot produce (strings, null), and batches, which it does not support.

async function phaseTransport() {
  const s = spawnServer();
  const seen = [];
  const readerErrors = [];
  const reader = new StreamMessageReader(s.child.stdout);
  const writer = new StreamMessageWriter(s.child.stdin);
  const waiting = [];
  reader.onError((e) => readerErrors.push(String(e && e.message)));
  reader.listen((m) => {
    seen.push(m);
    const w = waiting.shift();
    if (w) w(m);
  });
  // The server answers in order, one reply per request or batch: the next message read is
  // the reply to the last thing written that deserves one.
  const next = () => new Promise((resolve) => waiting.push(resolve));
  let calls = 0; // messages written that deserve exactly one reply
  const call = async (message) => {
    calls++;
    const reply = next();
    await writer.write(message);
    return withTimeout(reply, 5000, `reply to ${show(message)}`);
  };
  const req = (method, params, id) => ({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }), id });

  await test('transport: string id "abc" echoed', async () => {
    eq(await call(req('subtract', [42, 23], 'abc')), { jsonrpc: '2.0', result: 19, id: 'abc' });
  });
  await test('transport: empty string id', async () => {
    eq(await call(req('get_data', undefined, '')), { jsonrpc: '2.0', result: ['hello', 5], id: '' });
  });
  await test('transport: non-ASCII / escaped string id', async () => {
    const id = 'é😀 "quoted" \\ /';
    eq(await call(req('sum', [1, 2], id)), { jsonrpc: '2.0', result: 3, id });
  });
  await test('transport: id "1" (string) stays a string', async () => {
    eq(await call(req('sum', [1], '1')), { jsonrpc: '2.0', result: 1, id: '1' });
  });
  await test('transport: negative and large integer ids', async () => {
    eq(await call(req('sum', [1], -7)), { jsonrpc: '2.0', result: 1, id: -7 });
    eq(await call(req('sum', [1], 2 ** 53 - 1)), { jsonrpc: '2.0', result: 1, id: 2 ** 53 - 1 });
  });
  await test('transport: null id (discouraged by the spec) is answered with id null', async () => {
    eq(await call(req('echo', undefined, null)), { jsonrpc: '2.0', result: null, id: null });
  });
  await test('transport: error reply carries the string id', async () => {
    eq(await call(req('nope', undefined, 'e1')), {
      jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 'e1',
    });
  });
  await test('transport: notification then request: only the request is answered', async () => {
    await writer.write({ jsonrpc: '2.0', method: 'notify_hello', params: [7] });
    await writer.write({ jsonrpc: '2.0', method: 'update', params: { a: 1 } });
    eq(await call(req('get_data', undefined, 'after-notes')), { jsonrpc: '2.0', result: ['hello', 5], id: 'after-notes' });
  });
  await test('transport: the specification batch example', async () => {
    const batch = [
      req('sum', [1, 2, 4], '1'),
      { jsonrpc: '2.0', method: 'notify_hello', params: [7] },
      req('subtract', [42, 23], '2'),
      { foo: 'boo' },
      req('foo.get', { name: 'myself' }, '5'),
      req('get_data', undefined, '9'),
    ];
    const reply = await call(batch);
    ok(Array.isArray(reply), `batch reply is an array: ${show(reply)}`);
    const byId = (id) => reply.filter((r) => r.id === id);
    eq(reply.length, 5, 'batch reply length');
    eq(byId('1'), [{ jsonrpc: '2.0', result: 7, id: '1' }], 'reply "1"');
    eq(byId('2'), [{ jsonrpc: '2.0', result: 19, id: '2' }], 'reply "2"');
    eq(byId(null), [{ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null }], 'reply null');
    eq(byId('5'), [{ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: '5' }], 'reply "5"');
    eq(byId('9'), [{ jsonrpc: '2.0', result: ['hello', 5], id: '9' }], 'reply "9"');
  });
  await test('transport: a batch of notifications only gets no reply at all', async () => {
    await writer.write([
      { jsonrpc: '2.0', method: 'notify_sum', params: [1, 2, 4] },
      { jsonrpc: '2.0', method: 'notify_hello', params: [7] },
    ]);
    eq(await call(req('sum', [2, 2], 'after-batch')), { jsonrpc: '2.0', result: 4, id: 'after-batch' });
  });
  await test('transport: empty batch → one -32600 error object (not an array)', async () => {
    eq(await call([]), { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null });
  });
  await test('transport: batch of one invalid element → array of one -32600', async () => {
    eq(await call([1]), [{ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null }]);
  });
  await test('transport: 100-element batch, replies matched by id', async () => {
    const batch = Array.from({ length: 100 }, (_, i) => req('subtract', { minuend: i, subtrahend: 1 }, `b${i}`));
    const reply = await call(batch);
    eq(Array.isArray(reply) && reply.length, 100, 'batch reply length');
    const got = new Map(reply.map((r) => [r.id, r]));
    for (let i = 0; i < 100; i++) eq(got.get(`b${i}`), { jsonrpc: '2.0', result: i - 1, id: `b${i}` }, `reply b${i}`);
  });
  await test('transport: frame over 64 KiB → -32600 with id null, stream stays usable', async () => {
    eq(await call(req('echo', ['x'.repeat(70000)], 'too-big')), {
      jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: frame larger than 65536 bytes' }, id: null,
    });
    eq(await call(req('sum', [40, 2], 'after-too-big')), { jsonrpc: '2.0', result: 42, id: 'after-too-big' });
  });
  await test('transport: session accounting (replies = requests + batches, no reader error, exit 0)', async () => {
    await sleep(200);
    eq(seen.length, calls, 'messages received (one per request or batch with a request in it)');
    eq(waiting.length, 0, 'requests still waiting');
    eq(readerErrors, [], 'reader errors');
    s.child.stdin.end();
    const { code, signal } = await withTimeout(s.exited, 5000, 'server exit');
    eq(code ?? signal, 0, `server exit status (stderr: ${s.stderr().trim()})`);
  });
}

// ---------------------------------------------------------------------------------------
// Phase 3: what the MessageConnection makes of replies it has no API for. These tests pin
// down the library's behaviour (documented in ../README.md), not the server's.

async function phaseConnectionLimits() {
  const s = connect();
  const c = s.connection;
  // A second writer on the same stdin, used only while the connection is idle.
  const side = new StreamMessageWriter(s.child.stdin);

  await test('connection limits: a batch reply is logged as invalid and dropped', async () => {
    await side.write([
      { jsonrpc: '2.0', method: 'sum', params: [1, 2], id: 'side-1' },
      { jsonrpc: '2.0', method: 'sum', params: [3, 4], id: 'side-2' },
    ]);
    eq(await c.sendRequest('subtract', 3, 1), 2);
    await sleep(100);
    const batch = s.seen.find((m) => Array.isArray(m));
    eq(batch && batch.map((r) => r.result).sort(), [3, 7], 'batch reply the server sent');
    const logged = s.logs.filter(([lvl, m]) => lvl === 'error' && m.includes('neither a response nor a notification'));
    eq(logged.length, 1, 'errors logged for the batch reply');
    s.logs.splice(s.logs.indexOf(logged[0]), 1);
  });

  await test('connection limits: a reply with a string id nobody asked for is silently dropped', async () => {
    await side.write({ jsonrpc: '2.0', method: 'get_data', id: 'side-3' });
    eq(await c.sendRequest('subtract', 3, 2), 1);
    await sleep(100);
    ok(s.seen.some((m) => m.id === 'side-3'), 'the server answered id "side-3"');
    eq(s.logs, [], 'library logs');
  });

  await test('connection limits: an oversized request is answered with id null; the promise never settles', async () => {
    let settled = false;
    const p = c.sendRequest('echo', 'x'.repeat(70000)).then(() => (settled = 'resolved'), () => (settled = 'rejected'));
    eq(await c.sendRequest('subtract', 10, 3), 7); // the stream resynchronised
    await sleep(300);
    eq(settled, false, 'the oversized request\'s promise');
    const nullReply = s.seen.find((m) => m.id === null);
    eq(nullReply && nullReply.error && nullReply.error.code, -32600, 'the id-null reply');
    const logged = s.logs.filter(([lvl, m]) => lvl === 'error' && m.includes('without id'));
    eq(logged.length, 1, 'errors logged for the id-null reply');
    s.logs.splice(s.logs.indexOf(logged[0]), 1);
    // Drop the request from the accounting: it can never be answered by id.
    const i = s.sent.findIndex((m) => m.method === 'echo' && typeof m.params?.[0] === 'string' && m.params[0].length === 70000);
    s.sent.splice(i, 1);
    void p;
  });

  await test('connection limits: session accounting', async () => {
    // The side requests' replies are expected strays for the connection.
    await finish(s, {
      expectedStray: [
        (m) => Array.isArray(m),
        (m) => m.id === 'side-3',
        (m) => m.id === null && m.error?.code === -32600,
      ],
    });
  });
}

// ---------------------------------------------------------------------------------------

const started = Date.now();
const LIB_VERSION = createRequire(import.meta.url)('vscode-jsonrpc/package.json').version;
console.log(`interop (node): vscode-jsonrpc ${LIB_VERSION}, node ${process.version}, server ${SERVER}`);
await phaseConnection();
await phaseTransport();
await phaseConnectionLimits();
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (failed) {
  console.log(`\n${failed} failure(s):`);
  for (const f of failures) console.log(`  - ${f}`);
}
console.log(`${passed} passed, ${failed} failed (${seconds} s)`);
process.exit(failed ? 1 : 0);
