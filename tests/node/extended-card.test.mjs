// extendedCardInterceptor with @a2a-js/sdk's real Client (the newest and the lowest release of
// the package's peer range): `getAgentCard()` fetches the extended card from a real SDK server
// (DefaultRequestHandler's extendedAgentCardProvider) over JSON-RPC and HTTP+JSON and replaces
// the client's card with it; the interceptor refuses one that lost a required capability, fell
// below the version floor or names another agent.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { ensureConsumer, importPackage, ROOT } from './consumer.mjs';
import { listen, loadSdkClient, sdkPeerRange } from './helpers.mjs';

const consumer = ensureConsumer();
const cg = await importPackage(consumer);

// The newest release (the devDependency) and the lowest of the peer range (.ci/setup.sh installs it
// into .tools; tests/node/sdk-versions.test.mjs runs it too).
const SDKS = [
  await loadSdkClient(join(ROOT, 'node_modules')),
  await loadSdkClient(sdkPeerRange(consumer).lowestModules),
];

const REQUIREMENT = {
  require: ['task.execute.v3', 'capability:streaming', 'binding:JSONRPC', 'protocol:1.0'],
  min_version: '3.0.0',
  max_stale: '10s',
  card_name: 'worker-7',
};

function card(base, { version = '3.0.0', skills = ['task.execute.v3'], streaming = true, name = 'worker-7', extended = true } = {}) {
  return {
    name,
    description: 'Task execution worker.',
    version,
    supportedInterfaces: [
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: `${base}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
    ],
    capabilities: { streaming, pushNotifications: false, extensions: [], extendedAgentCard: extended },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: skills.map((id) => ({ id, name: id, description: 'a skill', tags: ['task'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] })),
    signatures: [],
  };
}

let server;
let base;
let extended; // what the agent answers GetExtendedAgentCard with

before(async () => {
  const app = express();
  server = createServer(app);
  base = await listen(server);
  const executor = { async execute(_ctx, bus) { bus.finished(); }, async cancelTask() {} };
  const handler = new DefaultRequestHandler(
    card(base),
    new InMemoryTaskStore(),
    executor,
    undefined,
    undefined,
    undefined,
    async () => extended,
  );
  app.use('/.well-known/agent-card.json', (_req, res, next) => {
    res.set('x-replica-lag-ms', '0');
    next();
  });
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card(base) }));
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
});

after(() => new Promise((resolve) => server.close(resolve)));

/** A client of `sdk` built through the gate, with the interceptor unless `guarded` is false. */
async function client(sdk, transport, guarded = true) {
  const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } = sdk.client;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
      preferredTransports: [transport],
      cardResolver: new cg.CardGateResolver({ requirement: REQUIREMENT }),
      clientConfig: guarded ? { interceptors: [cg.extendedCardInterceptor(REQUIREMENT)] } : {},
    }),
  );
  return factory.createFromUrl(`${base}/`);
}

for (const [sdk, transport] of SDKS.flatMap((sdk) => ['JSONRPC', 'HTTP+JSON'].map((t) => [sdk, t]))) {
  test(`@a2a-js/sdk ${sdk.version}, ${transport}: an extended card that keeps what is required replaces the client's card`, async () => {
    extended = card(base, { skills: ['task.execute.v3', 'task.admin'] });
    const c = await client(sdk, transport);
    assert.equal(c.transport.protocolName, transport);
    const got = await c.getAgentCard();
    assert.deepEqual(got.skills.map((s) => s.id), ['task.execute.v3', 'task.admin']);
    assert.equal(c.agentCard, got);
  });

  test(`@a2a-js/sdk ${sdk.version}, ${transport}: an extended card without a required skill is CapabilityMismatchError, the client keeps its card`, async () => {
    extended = card(base, { skills: ['task.execute.v2'] });
    const c = await client(sdk, transport);
    const held = c.agentCard;
    await assert.rejects(c.getAgentCard(), (e) => {
      assert.ok(e instanceof cg.CapabilityMismatchError, e.name);
      assert.deepEqual(e.missingCapabilities, ['task.execute.v3']);
      assert.equal(e.decision.card_version, '3.0.0');
      return true;
    });
    assert.equal(c.agentCard, held);
    // Without the interceptor the SDK takes it without a word.
    const unguarded = await client(sdk, transport, false);
    assert.deepEqual((await unguarded.getAgentCard()).skills.map((s) => s.id), ['task.execute.v2']);
  });
}

test('an extended card that drops streaming is refused (the client would stop streaming silently)', async () => {
  extended = card(base, { streaming: false });
  const c = await client(SDKS[0], 'JSONRPC');
  await assert.rejects(c.getAgentCard(), (e) => {
    assert.ok(e instanceof cg.CapabilityMismatchError, e.name);
    assert.deepEqual(e.missingCapabilities, ['capability:streaming']);
    return true;
  });
  assert.equal(c.agentCard.capabilities.streaming, true);
});

test('an extended card below the version floor is StaleAgentCardError (condition a)', async () => {
  extended = card(base, { version: '2.9.0' });
  const c = await client(SDKS[0], 'JSONRPC');
  await assert.rejects(c.getAgentCard(), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError, e.name);
    assert.equal(e.decision.conditions.a.passed, false);
    assert.equal(e.decision.conditions.b.passed, true);
    return true;
  });
});

test("an extended card with another agent's name is refused (card_name)", async () => {
  extended = card(base, { name: 'worker-8' });
  const c = await client(SDKS[0], 'HTTP+JSON');
  await assert.rejects(c.getAgentCard(), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError, e.name);
    assert.ok(e.decision.reasons.some((r) => r.code === 'card_name_mismatch'), JSON.stringify(e.decision.reasons));
    return true;
  });
});

test('binding:, protocol:, max_stale and pin are not applied to the extended card', async () => {
  const interceptor = cg.extendedCardInterceptor({ ...REQUIREMENT, pin: `sha256:${'a'.repeat(64)}`, pin_mode: 'with_watermark' });
  // No interface at all, and not the pinned card: still within the requirement.
  const value = { name: 'worker-7', version: '3.1.0', capabilities: { streaming: true }, skills: [{ id: 'task.execute.v3' }] };
  await interceptor.after({ result: { method: 'getAgentCard', value } });
  // Any other method's result is not looked at.
  await interceptor.after({ result: { method: 'sendMessage', value: 42 } });
  await interceptor.before({});
});

test('near-variants of a passing extended card fail closed', async () => {
  const requirement = { require: ['task.execute.v3', 'capability:pushNotifications', 'extension:urn:x'], min_version: '3.0.0', card_name: 'worker-7' };
  const interceptor = cg.extendedCardInterceptor(requirement);
  const good = {
    name: 'worker-7',
    version: '3.0.0',
    capabilities: { pushNotifications: true, extensions: [{ uri: 'urn:x' }] },
    skills: [{ id: 'task.execute.v3' }],
  };
  await interceptor.after({ result: { method: 'getAgentCard', value: good } });
  for (const [over, Expected, code] of [
    [{ skills: [{ id: 'Task.Execute.V3' }] }, cg.CapabilityMismatchError, 'capabilities_missing'],
    [{ skills: [{ id: 'task.execute.v3 ' }] }, cg.CapabilityMismatchError, 'capabilities_missing'],
    [{ version: '3.0.0-rc.1' }, cg.StaleAgentCardError, 'version_below_minimum'],
    [{ name: 'Worker-7' }, cg.StaleAgentCardError, 'card_name_mismatch'],
    // Only the client's own member names count: a snake_case flag or extension list is not read.
    [{ capabilities: { push_notifications: true, extensions: [{ uri: 'urn:x' }] } }, cg.CapabilityMismatchError, 'capabilities_missing'],
    [{ capabilities: { pushNotifications: true, extensions: [{ URI: 'urn:x' }] } }, cg.MalformedAgentCardError, 'missing_field'],
  ]) {
    const value = { ...good, ...over };
    await assert.rejects(interceptor.after({ result: { method: 'getAgentCard', value } }), (e) => {
      assert.ok(e instanceof Expected, `${JSON.stringify(over)}: ${e.name}: ${e.message}`);
      assert.ok(e.decision.reasons.some((r) => r.code === code), `${JSON.stringify(over)}: ${JSON.stringify(e.decision.reasons)}`);
      return true;
    });
  }
});

test('a value the core cannot read as a card is MalformedAgentCardError', async () => {
  const interceptor = cg.extendedCardInterceptor({ require: ['task.execute.v3'] });
  for (const [value, reason] of [
    [{ name: 'worker-7', version: '3.0.0', skills: [{ id: 7 }] }, ['wrong_type', '/skills/0/id', 'card member /skills/0/id must be a string, found number']],
    [{ name: 'worker-7', version: 3, skills: [{ id: 'task.execute.v3' }] }, ['wrong_type', '/version', 'card member /version must be a string, found number']],
    [
      { name: 'worker-7', version: '3.0.0', capabilities: { streaming: 'yes' }, skills: [{ id: 'task.execute.v3' }] },
      ['wrong_type', '/capabilities/streaming', 'card member /capabilities/streaming must be a boolean, found string'],
    ],
    [null, ['not_an_object', '', 'card must be a JSON object, found null']],
    ['a card', ['not_an_object', '', 'card must be a JSON object, found string']],
  ]) {
    await assert.rejects(interceptor.after({ result: { method: 'getAgentCard', value } }), (e) => {
      assert.ok(e instanceof cg.MalformedAgentCardError, `${JSON.stringify(value)}: ${e.name}: ${e.message}`);
      assert.deepEqual(e.decision.reasons.map((r) => [r.code, r.path, r.message]), [reason]);
      return true;
    });
  }
});

test('after() leaves alone what is not a getAgentCard result, however it is called', async () => {
  // The SDK's client always passes {result: {method, value}}; a caller invoking the interceptor
  // itself may pass less, and nothing there is an extended card to check.
  const interceptor = cg.extendedCardInterceptor({ require: ['task.execute.v3'] });
  for (const args of [undefined, null, {}, { result: null }, { result: { method: 'sendMessage', value: null } }]) {
    assert.equal(await interceptor.after(args), undefined, JSON.stringify(args));
  }
});

test('a bad requirement is refused when the interceptor is made, with the exact error', () => {
  const notRequirement = 'extendedCardInterceptor: requirement must be a requirement object or its JSON text';
  for (const [requirement, name, message] of [
    [{ min_version: '' }, 'RangeError', 'invalid requirement at /min_version: version "" is not comparable: it is empty'],
    [{ require: ['protocol:1'] }, 'RangeError', 'invalid requirement at /require/0: protocol: needs a Major.Minor version such as 1.0, found "1"'],
    [{ requires: [] }, 'TypeError', 'invalid requirement at /requires: unknown field `requires`, expected one of `require`, `min_version`, `max_stale`, `pin`, `pin_mode`, `card_name`'],
    [{ require: { length: 1, 0: 'x' } }, 'TypeError', 'invalid requirement at /require: invalid type: map, expected a sequence'],
    // JSON text the core refuses: JSON.parse would keep the last `require` (checking nothing).
    ['{"require":["task.execute.v3"],"require":[]}', 'TypeError', 'invalid requirement: requirement is not valid JSON: duplicate member name "require" at byte 31'],
    ['{', 'TypeError', 'invalid requirement: requirement is not valid JSON: EOF while parsing an object, found end of input at byte 1'],
    ['[]', 'TypeError', 'invalid requirement: invalid type: sequence, expected an object'],
    [[], 'TypeError', 'invalid requirement: requirement must be an object or JSON text, not an array'],
    [42, 'TypeError', 'invalid requirement: requirement must be an object or JSON text, not a number'],
    [null, 'TypeError', notRequirement],
    [undefined, 'TypeError', notRequirement],
  ]) {
    assert.throws(() => cg.extendedCardInterceptor(requirement), { name, message }, JSON.stringify(requirement));
  }
  // Its JSON text is read as the object is.
  assert.doesNotThrow(() => cg.extendedCardInterceptor(JSON.stringify(REQUIREMENT)));
});

// A v0.3 agent: @a2a-js/sdk's client with `legacyCompat` speaks v0.3 JSON-RPC to an interface at
// protocolVersion 0.3 and converts the v0.3 extended card it gets (`toCoreAgentCard`, which
// copies most values without a type check). The SDK's server speaks only v1.0, so this agent
// is a plain HTTP server answering `agent/getAuthenticatedExtendedCard` with `v03Extended`.
let v03Extended;
function v03Card(over) {
  return {
    protocolVersion: '0.3.0',
    name: 'worker-7',
    description: 'Task execution worker.',
    url: 'http://127.0.0.1:9/unused',
    preferredTransport: 'JSONRPC',
    version: '3.0.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'task.execute.v3', name: 'Execute task', description: 'a skill', tags: ['task'] }],
    ...over,
  };
}

for (const sdk of SDKS) {
  test(`@a2a-js/sdk ${sdk.version}, legacyCompat, a v0.3 agent: the converted extended card is judged as the client holds it`, async () => {
    const seen = [];
    const legacy = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.method === 'GET' && req.url.endsWith('agent-card.json')) {
          res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0' });
          res.end(JSON.stringify(publicCard));
          return;
        }
        const rpc = JSON.parse(body);
        seen.push(rpc.method);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: v03Extended }));
      });
    });
    const at = await listen(legacy);
    const publicCard = {
      name: 'worker-7',
      description: 'Task execution worker.',
      version: '3.0.0',
      supportedInterfaces: [{ url: `${at}/v03`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
      capabilities: { streaming: true, extendedAgentCard: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'task.execute.v3', name: 'Execute task', description: 'a skill', tags: ['task'] }],
    };
    const requirement = { require: ['task.execute.v3', 'capability:streaming'], min_version: '3.0.0', max_stale: '10s' };
    const { ClientFactory, JsonRpcTransportFactory } = sdk.client;
    const build = () =>
      new ClientFactory({
        transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
        cardResolver: new cg.CardGateResolver({ requirement }),
        clientConfig: { interceptors: [cg.extendedCardInterceptor(requirement)] },
      }).createFromUrl(`${at}/`);
    try {
      v03Extended = v03Card({ skills: [...v03Card().skills, { id: 'task.admin', name: 'Admin', description: 'a skill', tags: [] }] });
      const ok = await build();
      assert.deepEqual((await ok.getAgentCard()).skills.map((s) => s.id), ['task.execute.v3', 'task.admin']);
      assert.ok(seen.includes('agent/getAuthenticatedExtendedCard'), seen.join());
      // Values the conversion copies as they are: the client would hold a number as the skill id
      // or the version; the gate reads no such card.
      for (const [over, Expected] of [
        [{ skills: [{ id: 3, name: 'Execute task', description: 'a skill', tags: ['task'] }] }, cg.MalformedAgentCardError],
        [{ version: 3 }, cg.MalformedAgentCardError],
        [{ version: '2.0.0' }, cg.StaleAgentCardError],
        [{ capabilities: {} }, cg.CapabilityMismatchError],
      ]) {
        v03Extended = v03Card(over);
        const c = await build();
        const held = c.agentCard;
        await assert.rejects(c.getAgentCard(), (e) => {
          assert.ok(e instanceof Expected, `${JSON.stringify(over)}: ${e.name}: ${e.message}`);
          return true;
        });
        assert.equal(c.agentCard, held);
      }
    } finally {
      await new Promise((resolve) => legacy.close(resolve));
    }
  });
}

test('a requirement without `require` still checks the version floor; `capabilities: null` reads as none', async () => {
  const card = { name: 'worker-7', version: '3.1.0', skills: [{ id: 'task.execute.v3', name: 'x', description: 'x', tags: [] }] };
  const interceptor = cg.extendedCardInterceptor({ min_version: '3.0.0' });
  assert.equal(await interceptor.after({ result: { method: 'getAgentCard', value: card } }), undefined);
  assert.equal(await interceptor.after({ result: { method: 'getAgentCard', value: { ...card, capabilities: null } } }), undefined);
  await assert.rejects(interceptor.after({ result: { method: 'getAgentCard', value: { ...card, version: '2.0.0' } } }), cg.StaleAgentCardError);
});
