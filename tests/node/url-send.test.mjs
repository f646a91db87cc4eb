// A fixed-seed run of the URL send check (url-send.mjs): for every card and HTTP binding the npm
// package grants, @a2a-js/sdk's real client (default and legacyCompat setups) and a2a-sdk's real
// client are both built from the card, both send `sendMessage` once, and to the same scheme,
// host, port and request target. Bigger runs: `node tests/node/url-send.mjs --count 20000 --seed S`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { run } from './url-send.mjs';

test('url send, fixed seed: no granted card the real SDK clients send apart', { timeout: 120_000 }, async (t) => {
  const { stats, unsafe, wireApart, picksApart } = await run({ count: 2500, seed: 11 });
  const s = JSON.stringify(stats);
  // The corpus reaches both sides: grants for each binding (with tenants, unpicked interfaces,
  // 0.3 picks, urls both clients put on the wire), and many cards the two clients send apart
  // (which the gate granted before the url form).
  assert.ok(stats.granted.JSONRPC > 220 && stats.granted['HTTP+JSON'] > 70, s);
  assert.ok(stats.grantedTenant > 20 && stats.grantedDecoy > 70 && stats.grantedAt03 > 60 && stats.grantedWire > 350, s);
  assert.ok(stats.sentApart.JSONRPC > 1000 && stats.sentApart['HTTP+JSON'] > 1000, s);
  // The folded spelling (HTTP+J\u017fON) is asked on every fourth card and granted on some.
  assert.ok(stats.folded > 2000 && stats.grantedFolded > 100, s);
  assert.deepEqual(unsafe.map((u) => `${u.setup} ${u.binding} ${JSON.stringify(u.url)} tenant=${JSON.stringify(u.tenant)}: `
    + `${JSON.stringify(u.js)} vs ${JSON.stringify(u.py)}`), []);
  // Allowed by design (DESIGN.md, "Which interface a client picks"), counted apart from `unsafe`:
  // - ws:/wss: urls, to which both clients address the same place but only a2a-sdk's httpx
  //   sends (plain HTTP / HTTPS); @a2a-js/sdk's fetch fails loudly ("unknown scheme");
  // - with `binding:` required and no `protocol:`, cards where the two factories pick different
  //   declared interfaces (versions they rank differently: "1.0.0", "1.1", "" against "0.3" or
  //   "1.0"; a lower-case binding); `protocol:` makes every pick speak the caller's version.
  // Nothing else may show up this way.
  t.diagnostic(`allowed by design: ${wireApart.length} granted pairs only httpx sends (ws:/wss:), ${picksApart.length} granted pairs the factories pick apart`);
  assert.deepEqual(wireApart.filter((u) => !(/^wss?$/.test(u.js.sent[0].scheme) && !u.js.sent[0].wire && u.py.sent[0].wire)), []);
  assert.deepEqual(picksApart.filter((u) => u.js.picked[0] === u.py.picked[0]), []);
});
