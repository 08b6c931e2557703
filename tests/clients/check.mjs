// The checks of the Node.js client suites (ethers/, mcp-ts/), written once: one line per
// check (`PASS name` or `FAIL name: why`) and the closing `N passed, N failed`.

let passed = 0;
let failed = 0;

/** Runs `fn` (sync or async) as the check `name`, and prints its line. */
export async function check(name, fn) {
    try {
        await fn();
        passed += 1;
        console.log(`PASS ${name}`);
    } catch (e) {
        failed += 1;
        console.log(`FAIL ${name}: ${e && e.message ? e.message : e}`);
    }
}

/** Throws unless `got` and `want` are the same JSON (bigints written as `5n`). */
export function equal(got, want) {
    const json = (v) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));
    if (json(got) !== json(want)) throw new Error(`got ${json(got)}, want ${json(want)}`);
}

/** The reason `promise` rejects with, when `wanted(reason)`; throws otherwise (and
 *  when it resolves, saying it wanted `what`). */
export async function rejection(promise, wanted, what) {
    let value;
    try {
        value = await promise;
    } catch (e) {
        if (wanted(e)) return e;
        throw e;
    }
    throw new Error(`resolved to ${JSON.stringify(value)}, want ${what}`);
}

/** Runs `main` (which runs the checks), prints the closing line and exits: 1 when a
 *  check failed or `main` threw (a failed setup counts as one more failure). */
export function run(main) {
    main().then(
        () => finish(0),
        (e) => {
            console.log(`FAIL setup: ${e && e.stack ? e.stack : e}`);
            finish(1);
        },
    );
}

function finish(setupFailures) {
    console.log(`${passed} passed, ${failed + setupFailures} failed`);
    process.exit(failed + setupFailures ? 1 : 0);
}
