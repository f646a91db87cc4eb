// Tenant send check, @a2a-js/sdk's side (tests/sdk_parity/py_tenant.py is a2a-sdk's): does the
// real client send the tenant of the interface it picks? For cards of one or two interfaces of
// one HTTP binding (versions around 0.3 and 1.0, tenants absent / "" / "acme", each interface at
// its own url so the url handed to the transport factory names the pick), @a2a-js/sdk's
// `ClientFactory` with the real JSON-RPC and REST transport factories, in the default setup and
// with `legacyCompat` (which speaks v0.3 to a pick `isLegacyVersion` reads as such), builds a
// client and sends one message to a recording `fetchImpl` that refuses it after recording.
// The tenant reached the agent when the JSON-RPC body's `params.tenant`, or the REST path's
// first segment after the interface url's path, is the picked interface's tenant.
// UNSAFE: the npm package says `valid` for `binding:X` and some setup's request lacks the
// picked tenant (DESIGN.md, "Which interface a client picks": `Choice::DropsTenant`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importPackage } from './consumer.mjs';
import { jsFactories } from './url-send.mjs';

const cg = await importPackage();

const VERSIONS = ['0.3', '0.3.0', '1.0', '1.0.0', '1.0rc1', '0.9', '', '1.1'];
const TENANTS = [undefined, '', 'acme'];
const BASE = {
  name: 'Worker', description: 'd', version: '1', capabilities: {},
  defaultInputModes: ['text'], defaultOutputModes: ['text'], skills: [],
};

function* cards() {
  const iface = (binding, i, version, tenant) => ({
    url: `https://worker.example/a2a/i${i}`,
    protocolBinding: binding,
    ...(version ? { protocolVersion: version } : {}),
    ...(tenant === undefined ? {} : { tenant }),
  });
  for (const binding of ['JSONRPC', 'HTTP+JSON']) {
    for (const v of VERSIONS) for (const t of TENANTS) yield [binding, [iface(binding, 0, v, t)]];
    const pairs = [];
    for (const v of ['0.3', '1.0', '1.0rc1']) for (const t of [undefined, 'acme']) pairs.push([v, t]);
    for (const [v1, t1] of pairs) {
      for (const [v2, t2] of pairs) yield [binding, [iface(binding, 0, v1, t1), iface(binding, 1, v2, t2)]];
    }
  }
}

class Recorded extends Error {}

function clients() {
  let sent = null;
  let picked = null;
  const fetchImpl = async (input, init) => {
    sent = { url: new Request(input).url, body: init?.body ?? null };
    throw new Recorded('recorded');
  };
  const noting = (f) => ({
    get protocolName() { return f.protocolName; },
    create(url, card) {
      picked = url;
      return f.create(url, card);
    },
  });
  const factories = jsFactories(['JSONRPC', 'HTTP+JSON'], fetchImpl, noting);
  const message = { messageId: 'm1', role: 1, parts: [{ content: { $case: 'text', value: 'hi' } }] };
  // The picked interface's tenant and whether the request carried it; null: no request.
  return async (setup, binding, card) => {
    sent = null;
    picked = null;
    try {
      const client = await factories[`${setup} ${binding}`].createFromAgentCard(structuredClone(card));
      await client.sendMessage({ message });
    } catch (e) {
      if (sent === null) return null;
    }
    if (sent === null) return null;
    const pick = card.supportedInterfaces.find((i) => i.url === picked);
    assert.ok(pick, `the factory handed ${picked}, which is no interface url of the card`);
    if (!pick.tenant) return { tenant: pick.tenant, carried: true };
    let got = '';
    if (binding === 'JSONRPC') got = JSON.parse(sent.body)?.params?.tenant ?? '';
    else got = new URL(sent.url).pathname.slice(new URL(pick.url).pathname.length).split('/')[1] ?? '';
    return { tenant: pick.tenant, carried: got === pick.tenant };
  };
}

test('@a2a-js/sdk sends the picked tenant for every binding the package grants', async (t) => {
  const send = clients();
  let checked = 0;
  let dropped = 0;
  const unsafe = [];
  for (const [binding, interfaces] of cards()) {
    const card = { ...BASE, supportedInterfaces: interfaces };
    const decision = cg.evaluate(card, { require: [`binding:${binding}`], max_stale: '10s' }, { lag_ms: '0' });
    for (const setup of ['default', 'legacy']) {
      const outcome = await send(setup, binding, card);
      checked += 1;
      if (outcome === null || outcome.carried) continue;
      dropped += 1;
      if (decision.verdict === 'valid') unsafe.push(`${setup} ${binding} ${JSON.stringify(interfaces)}: valid, no tenant ${JSON.stringify(outcome.tenant)} in the request`);
    }
  }
  t.diagnostic(`tenant send: ${checked} (card, setup) pairs, ${dropped} where @a2a-js/sdk drops the picked tenant, ${unsafe.length} unsafe`);
  // The cards reach the case the rule is about: some client drops a tenant.
  assert.ok(dropped > 0, 'no card made a client drop its tenant');
  assert.deepEqual(unsafe, [], `${unsafe.length} unsafe:\n${unsafe.join('\n')}`);
});
