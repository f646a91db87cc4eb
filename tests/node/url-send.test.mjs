// A fixed-seed run of the URL send check (url-send.mjs): for every card and HTTP binding the npm
// package grants, @a2a-js/sdk's real client (default and legacyCompat setups) and a2a-sdk's real
// client are both built from the card, both send `sendMessage` once, and to the same scheme,
// host, port and request target. Bigger runs: `node tests/node/url-send.mjs --count 20000 --seed S`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { run } from './url-send.mjs';

test('url send, fixed seed: no granted card the real SDK clients send apart', { timeout: 120_000 }, async () => {
  const { stats, unsafe } = await run({ count: 2500, seed: 11 });
  const s = JSON.stringify(stats);
  // The corpus reaches both sides: grants for each binding (with tenants, unpicked interfaces,
  // 0.3 picks, urls both clients put on the wire), and many cards the two clients send apart
  // (which the gate granted before the url form).
  assert.ok(stats.granted.JSONRPC > 250 && stats.granted['HTTP+JSON'] > 80, s);
  assert.ok(stats.grantedTenant > 20 && stats.grantedDecoy > 100 && stats.grantedAt03 > 80 && stats.grantedWire > 400, s);
  assert.ok(stats.sentApart.JSONRPC > 1000 && stats.sentApart['HTTP+JSON'] > 1000, s);
  assert.deepEqual(unsafe.map((u) => `${u.setup} ${u.binding} ${JSON.stringify(u.url)} tenant=${JSON.stringify(u.tenant)}: `
    + `${JSON.stringify(u.js)} vs ${JSON.stringify(u.py)}`), []);
});
