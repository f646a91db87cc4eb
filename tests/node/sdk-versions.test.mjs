// CardGateResolver with the lowest and the newest @a2a-js/sdk of the package's peer range
// (pkg/package.json peerDependencies): the lowest is installed by .ci/setup.sh into
// .tools/a2a-sdk-<version>, the newest is the repository's devDependency. Both of ClientFactory's
// paths are gated: createFromUrl (resolve) and createFromAgentCard (normalizeAgentCard).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureConsumer, importPackage, ROOT } from './consumer.mjs';
import { loadSdkClient, sdkPeerRange } from './helpers.mjs';

const consumer = ensureConsumer();
const cg = await importPackage(consumer);
const { manifest, range: RANGE, lowest: LOWEST, lowestModules: lowestDir } = sdkPeerRange(consumer);

const semver = (v) => v.split('-')[0].split('.').map(Number);
const cmp = (a, b) => {
  const [x, y] = [semver(a), semver(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
};

test('the package declares @a2a-js/sdk as an optional peer with a bounded range', () => {
  assert.ok(LOWEST, `peerDependencies["@a2a-js/sdk"] is ${JSON.stringify(RANGE)}, expected ">=X.Y.Z <N"`);
  assert.deepEqual(manifest.peerDependenciesMeta, { '@a2a-js/sdk': { optional: true } });
  assert.deepEqual(manifest.dependencies, undefined, 'the package itself has no dependencies');
  assert.ok(manifest.files.includes('LICENSE'));
  const license = readFileSync(join(consumer, 'node_modules', 'cardgate', 'LICENSE'), 'utf8');
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.equal(license, readFileSync(join(ROOT, 'LICENSE'), 'utf8'));
});

const SDKS = [
  ['lowest', lowestDir],
  ['newest', join(ROOT, 'node_modules')],
];

// One registry replica on 127.0.0.1: each path serves a card with its own lag.
const card = (version, skill) => ({
  name: 'worker-7',
  description: 'Task execution worker.',
  version,
  supportedInterfaces: [{ url: 'http://127.0.0.1:9/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: skill, name: 'Execute task', description: 'Runs one planner task.', tags: ['task'] }],
});
const FRESH = card('3.0.0', 'task.execute.v3');
const STALE = card('2.0.0', 'task.execute.v2');
const ROUTES = {
  '/fresh/.well-known/agent-card.json': ['0', FRESH],
  '/edge/.well-known/agent-card.json': ['9990', FRESH],
  '/stale/.well-known/agent-card.json': ['40000', STALE],
};
const REQ = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' };

let server;
let base;
before(async () => {
  server = createServer((req, res) => {
    const route = ROUTES[req.url];
    if (!route) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': route[0] });
    res.end(JSON.stringify(route[1]));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

for (const [which, nodeModules] of SDKS) {
  test(`${which} @a2a-js/sdk: both ClientFactory paths are gated`, async () => {
    assert.ok(
      nodeModules && existsSync(join(nodeModules, '@a2a-js', 'sdk', 'package.json')),
      `${nodeModules}: @a2a-js/sdk is not installed (run .ci/setup.sh js)`,
    );
    const { version, client: sdk } = await loadSdkClient(nodeModules);
    const [, low, major] = LOWEST;
    if (which === 'lowest') assert.equal(version, low, 'the lowest installed SDK is the range minimum');
    assert.ok(cmp(version, low) >= 0 && semver(version)[0] < Number(major), `${version} is in ${RANGE}`);

    const resolver = new cg.CardGateResolver({ requirement: REQ });
    const factory = new sdk.ClientFactory(sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, { cardResolver: resolver }));

    // createFromUrl: resolve() refuses the lagging replica, accepts the fresh one.
    await assert.rejects(factory.createFromUrl(`${base}/stale/`), (e) => {
      assert.ok(e instanceof cg.StaleAgentCardError, `${e.name}: ${e.message}`);
      assert.deepEqual(e.reasons.map((r) => r.code), ['watermark_exceeded', 'version_below_minimum', 'capabilities_missing']);
      return true;
    });
    assert.ok(await factory.createFromUrl(`${base}/fresh/`));

    // Without the gate, createFromAgentCard builds a client for any card: the bypass.
    const ungated = new sdk.ClientFactory();
    const staleCard = await new sdk.DefaultAgentCardResolver().resolve(`${base}/stale/`);
    assert.equal(staleCard.version, '2.0.0');
    assert.ok(await ungated.createFromAgentCard(staleCard), 'the SDK alone does not check the card');
    // gateAgentCard closes it for any factory: no watermark, so only a pin passes.
    assert.throws(() => cg.gateAgentCard(staleCard, REQ), cg.StaleAgentCardError);
    assert.throws(() => cg.gateAgentCard(STALE, { ...REQ, pin: cg.cardHash(STALE) }), cg.StaleAgentCardError, 'version and skill still count');
    assert.equal(cg.gateAgentCard(FRESH, { ...REQ, pin: cg.cardHash(FRESH) }), FRESH);

    // With CardGateResolver, createFromAgentCard goes through normalizeAgentCard.
    await assert.rejects(factory.createFromAgentCard(staleCard), (e) => {
      assert.ok(e instanceof cg.StaleAgentCardError, `${e.name}: ${e.message}`);
      assert.ok(e.reasons.some((r) => r.code === 'freshness_unverifiable'), JSON.stringify(e.reasons));
      return true;
    });
    // A current card from elsewhere (this resolver never fetched it) has no watermark either:
    // refused unless pinned.
    const other = new sdk.ClientFactory({ transports: [new sdk.JsonRpcTransportFactory()], cardResolver: new cg.CardGateResolver({ requirement: REQ }) });
    await assert.rejects(other.createFromAgentCard(structuredClone(FRESH)), cg.StaleAgentCardError);
    // This resolver fetched the same content above (createFromUrl): accepted, watermark aged.
    assert.ok(await factory.createFromAgentCard(structuredClone(FRESH)));
    const pinned = new cg.CardGateResolver({ requirement: REQ, cardRequirement: { ...REQ, pin: cg.cardHash(FRESH) } });
    const pinnedFactory = new sdk.ClientFactory({ transports: [new sdk.JsonRpcTransportFactory()], cardResolver: pinned });
    assert.ok(await pinnedFactory.createFromAgentCard(structuredClone(FRESH)));
    await assert.rejects(pinnedFactory.createFromAgentCard({ ...FRESH, description: 'changed' }), (e) => {
      assert.deepEqual(e.reasons.map((r) => r.code), ['pinned_hash_mismatch']);
      return true;
    });

    // A card this resolver accepted is accepted again, with its watermark aged by the time since.
    const accepted = await resolver.resolve(`${base}/fresh/`);
    assert.ok(await factory.createFromAgentCard(accepted));
    assert.ok(await factory.createFromAgentCard(structuredClone(accepted)), 'same content, same card');
    const edge = await resolver.resolve(`${base}/edge/`); // 9990 ms of a 10 s tolerance
    await sleep(40);
    await assert.rejects(factory.createFromAgentCard(edge), (e) => {
      assert.ok(e instanceof cg.StaleAgentCardError);
      assert.deepEqual(e.reasons.map((r) => r.code), ['watermark_exceeded']);
      assert.ok(e.stalenessMs >= 10030, `aged staleness ${e.stalenessMs}`);
      assert.equal(e.url, `${base}/edge/.well-known/agent-card.json`);
      return true;
    });
    // Changing an accepted card makes it another card: no watermark, refused.
    const edited = structuredClone(accepted);
    edited.skills.push({ id: 'admin.shutdown', name: 'x', description: 'x', tags: [] });
    await assert.rejects(factory.createFromAgentCard(edited), cg.StaleAgentCardError);

    // The SDK's own normalization, as README suggests, on both paths.
    const sdkNormalize = new sdk.DefaultAgentCardResolver();
    const normalizing = new cg.CardGateResolver({ requirement: REQ, normalize: (c) => sdkNormalize.normalizeAgentCard(c) });
    const normalized = await normalizing.resolve(`${base}/fresh/`);
    const nf = new sdk.ClientFactory({ transports: [new sdk.JsonRpcTransportFactory()], cardResolver: normalizing });
    assert.ok(await nf.createFromAgentCard(normalized));
    assert.ok(await nf.createFromUrl(`${base}/fresh/`));
  });
}
