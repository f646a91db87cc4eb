// Integration with the real @a2a-js/sdk: its express agent-card handler serves the worker's card,
// a lagging-replica fixture (a small node:http proxy) sits in front of it, and a real
// ClientFactory with CardGateResolver refuses the replica's stale card, then accepts the fresh one
// and actually talks to the worker over JSON-RPC. With re-resolution (`sources`), the same
// factory gets the worker's (the primary's) current card at once, behind the lagging replica.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import express from 'express';
import { Role } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { importPackage } from './consumer.mjs';
import { listen } from './helpers.mjs';

const cg = await importPackage();

const close = (server) => new Promise((resolve) => (server ? server.close(resolve) : resolve()));

function workerCard(version, skill, url) {
  return {
    name: 'worker-7',
    description: 'Task execution worker.',
    version,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    provider: { organization: 'Example Platform', url: 'https://platform.example.com' },
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: skill, name: 'Execute task', description: 'Runs one planner task.', tags: ['task'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
}

// The planner's requirement for delegating to worker-7.
const REQUIREMENT = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' };

let worker; // the real SDK server (primary)
let replica; // the lagging registry replica in front of it
let workerUrl;
let replicaUrl;
let current; // the card the worker serves now
const replicaState = { mode: 'lagging', lagMs: 40000, snapshot: null, served: 0 };
// Requests that reached the worker (the primary) directly: its card, its JSON-RPC endpoint.
const primaryHits = { card: 0, rpc: 0 };

before(async () => {
  const app = express();
  worker = createServer(app);
  workerUrl = await listen(worker);
  // Before the rolling deploy: v2 on the old endpoint.
  current = workerCard('2.0.0', 'task.execute.v2', `${workerUrl}/a2a-v2`);
  const executor = {
    async execute(ctx, bus) {
      const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      bus.publish(
        AgentEvent.message({
          messageId: randomUUID(),
          contextId: ctx.contextId,
          taskId: '',
          role: Role.ROLE_AGENT,
          parts: [{ content: { $case: 'text', value: `executed: ${text}` }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        }),
      );
      bus.finished();
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(current, new InMemoryTaskStore(), executor);
  // The worker is the primary: its card is current by definition, and it says so (lag 0) to the
  // callers that ask it directly (the replica does not forward this header: it reports its own).
  app.use('/.well-known/agent-card.json', (req, res, next) => {
    if (!req.headers['x-replica-fetch']) primaryHits.card++;
    res.set('x-replica-lag-ms', '0');
    next();
  });
  app.use('/a2a', (req, res, next) => {
    primaryHits.rpc++;
    next();
  });
  // The SDK's own card handler, with the card read at request time (it changes on deploy).
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => current, cache: { maxAge: 0 } }));
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));

  // The replica: when lagging it keeps serving the body it copied before the deploy; when synced
  // it forwards to the worker. Either way it says how far behind it is.
  replica = createServer(async (req, res) => {
    replicaState.served++;
    try {
      let status;
      let body;
      let type;
      if (replicaState.mode === 'lagging' && replicaState.snapshot) {
        ({ status, body, type } = replicaState.snapshot);
      } else {
        const upstream = await fetch(new URL(req.url, workerUrl), {
          headers: { 'a2a-version': req.headers['a2a-version'] ?? '1.0', 'x-replica-fetch': '1' },
        });
        status = upstream.status;
        body = Buffer.from(await upstream.arrayBuffer());
        type = upstream.headers.get('content-type') ?? 'application/json';
      }
      res.writeHead(status, { 'content-type': type, 'x-replica-lag-ms': String(replicaState.lagMs) });
      res.end(body);
    } catch (e) {
      res.writeHead(502).end(String(e));
    }
  });
  replicaUrl = await listen(replica);

  // The replica copies the pre-deploy card, then the worker deploys v3 on a new endpoint.
  const copy = await fetch(`${workerUrl}/.well-known/agent-card.json`, { headers: { 'x-replica-fetch': '1' } });
  replicaState.snapshot = { status: copy.status, body: Buffer.from(await copy.arrayBuffer()), type: copy.headers.get('content-type') };
  current = workerCard('3.0.0', 'task.execute.v3', `${workerUrl}/a2a`);
});

after(async () => {
  await close(replica);
  await close(worker);
});

const gatedFactory = (options = {}) =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new cg.CardGateResolver({ requirement: REQUIREMENT, ...options }),
    }),
  );

test('without the gate, the SDK silently accepts the stale replica card (the incident)', async () => {
  replicaState.mode = 'lagging';
  replicaState.lagMs = 40000;
  const card = await new DefaultAgentCardResolver().resolve(`${replicaUrl}/`);
  assert.equal(card.version, '2.0.0');
  assert.deepEqual(card.skills.map((s) => s.id), ['task.execute.v2']);
  const client = await new ClientFactory().createFromUrl(`${replicaUrl}/`);
  assert.ok(client, 'a client for an outdated card is built without complaint');
});

test('ClientFactory with CardGateResolver refuses the lagging replica: StaleAgentCardError', async () => {
  replicaState.mode = 'lagging';
  replicaState.lagMs = 40000;
  const before = replicaState.served;
  await assert.rejects(gatedFactory().createFromUrl(`${replicaUrl}/`), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError, `${e.name}: ${e.message}`);
    assert.equal(e.retry, 're-resolve');
    assert.equal(e.status, 503);
    assert.deepEqual(e.reasons.map((r) => r.code), ['watermark_exceeded', 'version_below_minimum', 'capabilities_missing']);
    assert.equal(e.stalenessMs, 40000);
    assert.deepEqual(e.missingCapabilities, ['task.execute.v3']);
    assert.equal(e.card.version, '2.0.0', 'the stale card is attached');
    assert.equal(e.url, `${replicaUrl}/.well-known/agent-card.json`);
    assert.equal(e.cardHash, cg.cardHash(replicaState.snapshot.body));
    return true;
  });
  assert.equal(replicaState.served, before + 1, 'one fetch through the replica');
});

test('the replica that serves the new card but is still 40 s behind is refused too', async () => {
  replicaState.mode = 'synced';
  replicaState.lagMs = 40000;
  await assert.rejects(gatedFactory().createFromUrl(`${replicaUrl}/`), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError);
    assert.deepEqual(e.reasons.map((r) => r.code), ['watermark_exceeded']);
    assert.equal(e.card.version, '3.0.0');
    return true;
  });
});

test('once the replica has caught up, the gate accepts the fresh card and the client works', async () => {
  replicaState.mode = 'synced';
  replicaState.lagMs = 250;
  const decisions = [];
  const factory = gatedFactory({
    onDecision: (d) => decisions.push(d),
    normalize: (c) => new DefaultAgentCardResolver().normalizeAgentCard(c),
  });
  const client = await factory.createFromUrl(`${replicaUrl}/`);
  assert.equal(decisions.length, 1);
  assert.equal(decisions[0].verdict, 'valid');
  assert.equal(decisions[0].staleness_ms, 250);
  assert.equal(decisions[0].card_version, '3.0.0');

  const reply = await client.sendMessage({
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: 'plan step 1' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  });
  const parts = reply.parts ?? reply.status?.message?.parts ?? [];
  assert.deepEqual(parts.map((p) => p.content?.value), ['executed: plan step 1'], JSON.stringify(reply));
});

test('a capability the fresh worker lacks is a CapabilityMismatchError (no retry)', async () => {
  replicaState.mode = 'synced';
  replicaState.lagMs = 0;
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory()],
    cardResolver: new cg.CardGateResolver({ requirement: { require: ['task.execute.v3', 'capability:streaming'], max_stale: '10s' } }),
  });
  await assert.rejects(factory.createFromUrl(`${replicaUrl}/`), (e) => {
    assert.ok(e instanceof cg.CapabilityMismatchError, e.name);
    assert.equal(e.retry, 'none');
    assert.deepEqual(e.missingCapabilities, ['capability:streaming']);
    return true;
  });
});

test('a replica error is an AgentCardFetchError, distinct from a stale card', async () => {
  replicaState.mode = 'synced';
  await assert.rejects(gatedFactory().createFromUrl(`${replicaUrl}/`, 'no-such-card.json'), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError);
    assert.equal(e.status, 404);
    return true;
  });
});

/** A user message for sendMessage. */
const ask = (text) => ({
  tenant: '',
  message: {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

test('re-resolution: behind the lagging replica, the client is built on the primary card and sendMessage works', async () => {
  replicaState.mode = 'lagging';
  replicaState.lagMs = 40000;
  const served = replicaState.served;
  const hits = { ...primaryHits };
  const resolver = new cg.CardGateResolver({
    requirement: REQUIREMENT,
    sources: [`${replicaUrl}/`, `${workerUrl}/`],
    normalize: (c) => new DefaultAgentCardResolver().normalizeAgentCard(c),
  });
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { cardResolver: resolver }));
  const client = await factory.createFromUrl(`${replicaUrl}/`);

  assert.equal(replicaState.served, served + 1, 'the replica was asked once');
  assert.equal(primaryHits.card, hits.card + 1, 'then the primary, once');
  const { url, decision, attempts } = resolver.lastResolution;
  assert.equal(url, `${workerUrl}/.well-known/agent-card.json`);
  assert.equal(decision.card_version, '3.0.0');
  assert.equal(decision.resolution.outcome, 'accepted');
  assert.deepEqual(
    attempts.map((a) => [a.source, a.verdict, a.error_class, a.staleness_ms]),
    [
      [`${replicaUrl}/.well-known/agent-card.json`, 'rejected', 'stale_agent_card', 40000],
      [`${workerUrl}/.well-known/agent-card.json`, 'valid', null, 0],
    ],
  );
  assert.equal(attempts[0].card_hash, cg.cardHash(replicaState.snapshot.body), 'the stale v2 card is on record');

  // The client holds the primary's v3 card and talks to its v3 endpoint.
  const held = await client.getAgentCard();
  assert.equal(held.version, '3.0.0');
  assert.deepEqual(held.skills.map((s) => s.id), ['task.execute.v3']);
  assert.equal(held.supportedInterfaces[0].url, `${workerUrl}/a2a`);
  const reply = await client.sendMessage(ask('plan step 2'));
  const parts = reply.parts ?? reply.status?.message?.parts ?? [];
  assert.deepEqual(parts.map((p) => p.content?.value), ['executed: plan step 2'], JSON.stringify(reply));
  assert.ok(primaryHits.rpc > hits.rpc, 'the message reached the worker');
});

test('re-resolution: a fresh replica card lacking a capability is final (the primary is not asked)', async () => {
  replicaState.mode = 'synced';
  replicaState.lagMs = 0;
  const hits = primaryHits.card;
  const resolver = new cg.CardGateResolver({
    requirement: { require: ['task.execute.v3', 'capability:streaming'], max_stale: '10s' },
    sources: [`${replicaUrl}/`, `${workerUrl}/`],
  });
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { cardResolver: resolver }));
  await assert.rejects(factory.createFromUrl(`${replicaUrl}/`), (e) => {
    assert.ok(e instanceof cg.CapabilityMismatchError, e.name);
    assert.deepEqual(e.attempts.map((a) => a.verdict), ['rejected']);
    return true;
  });
  assert.equal(primaryHits.card, hits, 'no request reached the primary');
});

// Each of the three signs @a2a-js/sdk's resolver reads a card by (`isProtoAgentCard`) makes
// CardGateResolver refuse the card as it is, alone: a card-level `security` list whose first
// requirement has `schemes`, the same in any one skill, a first security scheme without `type`.
// The SDK's own normalization shows which cards it converts; empty lists and plain requirements
// are no sign.
test('each sign of a proto-shaped card alone makes CardGateResolver refuse it, as the SDK converts it', () => {
  const base = {
    name: 'worker-7',
    description: 'd',
    version: '3.0.0',
    supportedInterfaces: [{ url: 'https://new.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    securitySchemes: { b: { type: 'http', scheme: 'bearer' } },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [
      { id: 'a', name: 'n', description: 'd', tags: [] },
      { id: 'b', name: 'n', description: 'd', tags: [] },
    ],
  };
  const withSkill = (extra) => ({ ...base, skills: [base.skills[0], { ...base.skills[1], ...extra }] });
  const cases = [
    ['card security', { ...base, security: [{ schemes: ['x'] }] }, true],
    ['second skill security', withSkill({ security: [{ schemes: ['x'] }] }), true],
    ['first scheme without type', { ...base, securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'bearer' } } } }, true],
    ['plain requirements', { ...withSkill({ security: [{ b: [] }] }), security: [{ b: [] }] }, false],
    ['empty lists and schemes', { ...withSkill({ security: [] }), security: [], securitySchemes: {} }, false],
  ];
  for (const [what, card, proto] of cases) {
    const body = JSON.stringify(card);
    const pinned = { pin: cg.cardHash(body) };
    assert.equal(cg.evaluate(body, pinned, {}).verdict, 'valid', what);
    const sdkConverts = JSON.stringify(new DefaultAgentCardResolver().normalizeAgentCard(structuredClone(card))) !== body;
    assert.equal(sdkConverts, proto, `${what}: the SDK's resolver ${proto ? 'converts' : 'keeps'} it`);
    const resolver = new cg.CardGateResolver({ requirement: pinned });
    if (proto) {
      assert.throws(() => resolver.normalizeAgentCard(card), (e) => e instanceof TypeError && /is proto-shaped/.test(e.message), what);
    } else {
      assert.equal(resolver.normalizeAgentCard(card), card, what);
    }
  }
});

// Third review (scn3js): a proto-shaped card is read by the SDK's own resolver through
// AgentCard.fromJSON, and the gate reads it so; CardGateResolver returned it as it is, and the
// client built from that picked another interface than the one the gate checked.
test('a proto-shaped card: without normalize CardGateResolver refuses it; with the SDK normalization the client is the SDK\'s', async () => {
  const card = {
    name: 'worker-7',
    description: 'd',
    version: '3.0.0',
    supportedInterfaces: [
      { url: 'https://old.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://new.example/a2a', protocolBinding: 'JSONRPC', protocol_version: '1.0' },
    ],
    capabilities: {},
    securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'bearer' } } },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [{ id: 'task.execute.v3', name: 'n', description: 'd', tags: [] }],
  };
  const body = JSON.stringify(card);
  const requirement = { require: ['task.execute.v3', 'binding:JSONRPC', 'protocol:1.0'], max_stale: '10s' };
  // The gate reads the card as the SDK's resolver does: the 1.0 interface is the one picked.
  assert.equal(cg.evaluate(body, requirement, { lag_ms: '0' }).verdict, 'valid');
  const fetch = async () => new Response(body, { headers: { 'x-replica-lag-ms': '0' } });
  const endpoint = (client) => client.transport.endpoint ?? client.transport.inner?.endpoint;
  const own = await new ClientFactory().createFromAgentCard(JSON.parse(body));
  assert.equal(endpoint(own), 'https://new.example/a2a');

  const bare = gatedFactory({ requirement, fetch });
  await assert.rejects(bare.createFromUrl('https://w.example'), (e) => e instanceof TypeError && /proto-shaped/.test(e.message));
  const pinned = gatedFactory({ requirement: { ...requirement, pin: cg.cardHash(body) }, fetch });
  await assert.rejects(pinned.createFromAgentCard(JSON.parse(body)), (e) => e instanceof TypeError && /proto-shaped/.test(e.message));

  const normalize = (c) => new DefaultAgentCardResolver().normalizeAgentCard(c);
  const gated = await gatedFactory({ requirement, fetch, normalize }).createFromUrl('https://w.example');
  assert.equal(endpoint(gated), endpoint(own));
  const viaCard = await gatedFactory({ requirement: { ...requirement, pin: cg.cardHash(body) }, fetch, normalize }).createFromAgentCard(JSON.parse(body));
  assert.equal(endpoint(viaCard), endpoint(own));

  // The same card in another member order (its RFC 8785 form sorts keys): a scheme with `type`
  // first makes it not proto-shaped, so the SDK reads it as it is and its client picks the 0.3
  // interface. Same hash, but not the card the gate accepted: judged itself, refused.
  const mixed = { ...card, securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'bearer' } }, a: { type: 'http', scheme: 'bearer' } } };
  const mixedBody = JSON.stringify(mixed);
  const sorted = JSON.parse(cg.canonicalize(mixedBody));
  assert.equal(cg.cardHash(sorted), cg.cardHash(mixedBody));
  const factory = gatedFactory({ requirement, fetch: async () => new Response(mixedBody, { headers: { 'x-replica-lag-ms': '0' } }), normalize });
  assert.equal(endpoint(await factory.createFromUrl('https://w.example')), 'https://new.example/a2a');
  assert.equal(endpoint(await new ClientFactory().createFromAgentCard(structuredClone(sorted))), 'https://old.example/a2a');
  await assert.rejects(factory.createFromAgentCard(sorted), cg.CapabilityMismatchError);
});
