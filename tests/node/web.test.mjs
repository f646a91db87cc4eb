// The browser build (pkg/web) in Node: explicit init, a clear error before it, and the same
// decision bytes as the Node build. (The inspector's Chromium tests load it in a real browser.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureConsumer, importPackage, importWebPackage } from './consumer.mjs';

const dir = ensureConsumer();
const web = await importWebPackage(dir);
const node = await importPackage(dir);
const wasm = readFileSync(join(dir, 'node_modules/cardgate/web/cardgate_bg.wasm'));
const card = { name: 'worker-7', version: '3.0.0', capabilities: {}, skills: [{ id: 'task.execute.v3' }] };
const req = { require: ['task.execute.v3'], max_stale: '10s' };

test('before init, every call throws an Error that says to await init()', () => {
  for (const call of [() => web.evaluate(card, req, {}), () => web.cardHash(card), () => web.canonicalize('{}'), () => web.coreVersion()]) {
    assert.throws(call, /await init\(\) first/);
  }
});

test('init(Response) loads the module; later init calls are no-ops', async () => {
  await web.default(new Response(wasm, { headers: { 'content-type': 'application/wasm' } }));
  await web.init(wasm);
  web.initSync(wasm);
  assert.equal(web.coreVersion(), node.coreVersion());
});

test('the web build decides exactly like the Node build, errors included', () => {
  const obs = { lag_ms: '40000', now: '2026-11-09T12:00:40Z' };
  assert.equal(web.evaluateRaw(card, req, obs), node.evaluateRaw(card, req, obs));
  assert.equal(web.cardHash(card), node.cardHash(card));
  const err = web.toError(web.evaluate(card, req, obs));
  assert.ok(err instanceof web.StaleAgentCardError);
  assert.equal(err.retry, 're-resolve');
  assert.throws(() => web.evaluate(card, { max_stale: 'x' }, {}), (e) => e instanceof RangeError && /requirement at \/max_stale/.test(e.message));
  assert.equal(web.evaluate(card, req, { lag_ms: '1' }).verdict, 'valid');
});
