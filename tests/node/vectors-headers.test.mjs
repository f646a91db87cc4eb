// The shared vectors that carry response headers (`headers`: the card served with them), which
// `evaluate()` cannot take, replayed the way the two hosts that fetch by URL meet them: a
// real HTTP answer on 127.0.0.1 with those exact header bytes, read by the npm package's
// `resolveAgentCard` (Node's fetch, then the package's own header reading) and by
// `cardgate resolve` (ureq, then the core's). Both must give every `expect` member and the same
// reasons as each other; tests/vectors.rs replays the same cases through the core's
// `watermark_sources::observe` directly, and tests/envoy through a real Envoy.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { importPackage } from './consumer.mjs';
import { CLI, caseBytes, compareExpect, loadVectors, rawAnswer, rawServer } from './helpers.mjs';

const cg = await importPackage();
const cases = loadVectors().filter((c) => c.headers);

let server;
let base;
before(async () => {
  // Case i's body with its header lines byte for byte (repeated names kept apart).
  server = await rawServer((method, path) => {
    const c = cases[Number(/^\/case\/(\d+)$/.exec(path)?.[1])];
    return c && rawAnswer('200 OK', c.headers, caseBytes(c));
  });
  base = server.base;
});
after(() => server.close());

test('the vectors with response headers are there', () => {
  assert.ok(cases.length >= 20, `only ${cases.length} cases with headers`);
});

// The clock the native runner gives such a case: its observation's `now`, else none.
const now = (c) => c.observation?.now ?? null;

async function packageDecision(c, url) {
  let decision = null;
  try {
    await cg.resolveAgentCard(url, c.requirement ?? {}, { now: now(c), onDecision: (d) => { decision = d; } });
  } catch (e) {
    if (decision === null) throw e;
  }
  assert.ok(decision !== null, 'the package made a decision (the source answered 200)');
  return decision;
}

async function cliDecision(c, url) {
  const args = ['resolve', url, `--requirement=${JSON.stringify(c.requirement ?? {})}`, '--max-attempts=1'];
  args.push(now(c) === null ? '--no-clock' : `--now=${now(c)}`);
  // Asynchronous: the server answering the CLI runs in this process.
  const child = spawn(CLI, args);
  const out = [];
  const err = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => err.push(d));
  const status = await new Promise((resolve) => child.on('close', resolve));
  assert.ok(status === 0 || status === 1, `cardgate resolve exited ${status}: ${Buffer.concat(err)}`);
  const decision = JSON.parse(Buffer.concat(out).toString('utf8'));
  assert.equal(status, decision.verdict === 'valid' ? 0 : 1, 'CLI exit code');
  return decision;
}

const codes = (d) => (d.reasons ?? []).map((r) => r.code);

cases.forEach((c, i) => {
  test(`${c.file}: ${c.name}`, async () => {
    const url = `${base}/case/${i}`;
    const pkg = await packageDecision(c, url);
    assert.deepEqual(compareExpect(c.expect, pkg), [], 'npm package resolveAgentCard: expect members');
    const cli = await cliDecision(c, url);
    assert.deepEqual(compareExpect(c.expect, cli), [], 'cardgate resolve: expect members');
    assert.deepEqual(codes(pkg), codes(cli), 'same reasons from both hosts');
    assert.equal(pkg.staleness_ms, cli.staleness_ms, 'same staleness from both hosts');
  });
});
