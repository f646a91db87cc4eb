// A small fixed-seed run of the resolver-level differential (resolver-differential.mjs): no client
// that ClientFactory builds through CardGateResolver targets an interface the requirement
// excludes. Bigger runs: `node tests/node/resolver-differential.mjs --count 5000 --seed S`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { check, run } from './resolver-differential.mjs';

test('the check sees a client on the wrong interface (the SDK\'s own factory, no gate)', async () => {
  const card = {
    name: 'w',
    description: 'd',
    version: '1.0.0',
    supportedInterfaces: [
      { url: 'https://i0.rsv.test/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://i1.rsv.test/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0.0' },
      { url: 'https://i2.rsv.test/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 't' },
    ],
    capabilities: {},
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  };
  const factory = (x) => new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [x] }));
  const jsonrpc = await factory('JSONRPC').createFromAgentCard(structuredClone(card));
  assert.equal(check(jsonrpc, 'JSONRPC', null, true).ok, true);
  const wrong = check(jsonrpc, 'JSONRPC', '1.0', true);
  assert.equal(wrong.ok, false, 'the SDK picks the 0.3 interface');
  assert.equal(wrong.info.endpoint, 'https://i0.rsv.test/a2a');
  assert.equal(check(jsonrpc, 'JSONRPC', '0.3', true).ok, true);
  assert.equal(check(jsonrpc, 'HTTP+JSON', null, true).ok, false, 'another binding');
  const rest = await factory('HTTP+JSON').createFromAgentCard(structuredClone(card));
  assert.equal(check(rest, 'HTTP+JSON', '1.0', true).ok, true, 'through the tenant decorator');
});

test('resolver differential, fixed seed: no client on an interface the requirement excludes', { timeout: 120_000 }, async () => {
  const { stats, unsafe, diverge } = await run({ count: 320, seed: 7, corpus: ['choice', 'glue', 'adv', 'cards', 'indep'], stub: true });
  assert.ok(stats.clients > 500, `clients built: ${stats.clients}`);
  assert.ok(stats.refused > 500, `refusals: ${stats.refused}`);
  assert.deepEqual(
    unsafe.map((u) => `${u.corpus}#${u.id} ${u.label} ${JSON.stringify(u.requirement.require)} ${u.path}: ${u.why}`),
    [],
  );
  // createFromUrl: the client holds the served card as the SDK reads it (no other card).
  assert.deepEqual(diverge.map((d) => `${d.corpus}#${d.id} ${d.label} ${d.path}`), []);
  // No client on an interface without a url: the gate does not grant a binding whose picked
  // interface has none (DESIGN.md, "Which interface a client picks").
  assert.equal(stats.noUrl, 0, 'clients built on an interface without a url');
});
