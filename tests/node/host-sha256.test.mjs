// Card hashes through the host's SHA-256 (src/js.rs useHostSha256, installed by the Node entry
// with node:crypto): used only for canonical forms of 1 KiB and more, only after it agreed with
// the module's own sha2 on test inputs, and never able to change a card hash. The module's sha2
// (the hook removed) is the reference every hash here is compared with; the native CLI gives
// the same hashes through the shared vectors (vectors.test.mjs).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureConsumer, requirePackage } from './consumer.mjs';
import { FRESH_CARD } from './helpers.mjs';

const dir = ensureConsumer();
const cg = await requirePackage(dir);
// The same instance of the raw glue as the package's (one require cache entry).
const raw = createRequire(join(dir, 'cjs.cjs'))(join(dir, 'node_modules', 'cardgate', 'node', 'cardgate.js'));

const enc = new TextEncoder();
const LONG = enc.encode(JSON.stringify({ ...FRESH_CARD, description: 'long '.repeat(600) }));
const SHORT = enc.encode(JSON.stringify(FRESH_CARD));
const nodeSha = (data) => createHash('sha256').update(data).digest();

/** The card hash by the module's own sha2, then the hook `f` (or node:crypto) put back. */
function reference(card, f = nodeSha) {
  assert.equal(raw.useHostSha256(undefined), true);
  const hash = raw.cardHash(card);
  assert.equal(raw.useHostSha256(f), true);
  return hash;
}

test('the host SHA-256 hashes long canonical forms, not short ones, with the same result', () => {
  const calls = [];
  const counting = (data) => {
    calls.push(data.length);
    return nodeSha(data);
  };
  const want = { long: reference(LONG, counting), short: reference(SHORT, counting) };
  calls.length = 0;
  assert.equal(cg.cardHash(LONG), want.long);
  assert.equal(calls.length, 1);
  assert.ok(calls[0] >= 1024, `hashed ${calls[0]} bytes`);
  assert.equal(cg.cardHash(SHORT), want.short);
  assert.equal(calls.length, 1, 'a short canonical form is hashed in Wasm');
  assert.equal(raw.useHostSha256(nodeSha), true);
});

test('a host SHA-256 that disagrees with sha2 is refused and changes nothing', () => {
  const want = reference(LONG);
  const calls = [];
  const wrong = (data) => {
    calls.push(data.length);
    const d = nodeSha(data);
    if (data.length > 2000) d[5] ^= 0x40;
    return d;
  };
  assert.equal(raw.useHostSha256(wrong), false);
  assert.ok(calls.some((n) => n > 2000), 'the check reached the wrong digest');
  calls.length = 0;
  assert.equal(cg.cardHash(LONG), want);
  assert.equal(calls.length, 0, 'the refused function is not called');
});

test('a host SHA-256 that throws or answers the wrong length leaves hashing to sha2', () => {
  const want = reference(LONG);
  for (const bad of [() => { throw new Error('no hash today'); }, () => new Uint8Array(31), () => 'digest']) {
    assert.equal(raw.useHostSha256(bad), true);
    assert.equal(cg.cardHash(LONG), want);
    const decision = JSON.parse(cg.evaluateRaw(LONG, '{"require":["task.execute.v3"]}', '{"lag_ms":0}'));
    assert.equal(decision.card_hash, want);
  }
  assert.equal(raw.useHostSha256(nodeSha), true);
});

test('decisions are the same with and without the host SHA-256', () => {
  const requirement = JSON.stringify({ require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' });
  const observation = JSON.stringify({ lag_ms: 500 });
  assert.equal(raw.useHostSha256(undefined), true);
  const wasm = cg.evaluateRaw(LONG, requirement, observation);
  assert.equal(raw.useHostSha256(nodeSha), true);
  assert.equal(cg.evaluateRaw(LONG, requirement, observation), wasm);
  assert.equal(JSON.parse(wasm).verdict, 'valid');
});
