// resolveAgentCard and CardGateResolver against a real HTTP server on 127.0.0.1 (port 0).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { importPackage } from './consumer.mjs';

const cg = await importPackage();

const card = (version, skill) => ({
  name: 'worker-7',
  version,
  supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  skills: [{ id: skill, name: 'Execute task', description: 'Runs one planner task.', tags: [] }],
});
const FRESH = card('3.0.0', 'task.execute.v3');
const STALE = card('2.0.0', 'task.execute.v2');
const REQ = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' };

// path -> [status, headers, body]
const ROUTES = {
  '/fresh.json': () => [200, { 'x-replica-lag-ms': '3000' }, JSON.stringify(FRESH)],
  '/stale.json': () => [200, { 'x-replica-lag-ms': '40000' }, JSON.stringify(STALE)],
  '/fresh-old-card.json': () => [200, { 'x-replica-lag-ms': '0' }, JSON.stringify({ ...FRESH, skills: STALE.skills })],
  '/no-watermark.json': () => [200, {}, JSON.stringify(FRESH)],
  '/age-only.json': () => [200, { age: '2' }, JSON.stringify(FRESH)],
  '/consul.json': () => [200, { 'x-consul-lastcontact': '500', 'x-consul-knownleader': 'true', age: '2' }, JSON.stringify(FRESH)],
  '/consul-no-leader.json': () => [200, { 'x-consul-lastcontact': '5', 'x-consul-knownleader': 'false' }, JSON.stringify(FRESH)],
  '/lag-s.json': () => [200, { 'x-replica-lag-s': '12' }, JSON.stringify(FRESH)],
  '/synced.json': () => [200, { 'x-replica-synced-at': '2026-11-09T12:00:35Z' }, JSON.stringify(FRESH)],
  '/custom.json': () => [200, { 'x-registry-staleness-ms': '7', 'x-replica-lag-ms': '999999' }, JSON.stringify(FRESH)],
  '/twice.json': () => [200, { 'x-replica-lag-ms': ['3000', '3000'] }, JSON.stringify(FRESH)],
  '/garbage.json': () => [200, { 'x-replica-lag-ms': '0' }, '<html>upstream timed out</html>'],
  '/empty.json': () => [200, { 'x-replica-lag-ms': '0' }, ''],
  '/missing.json': () => [404, {}, 'not found'],
  '/huge.json': () => [200, { 'x-replica-lag-ms': '0' }, '{"name":"' + 'x'.repeat(8 << 20) + '"}'],
  '/error.json': () => [503, {}, JSON.stringify(FRESH)],
  '/.well-known/agent-card.json': () => [200, { 'x-replica-lag-ms': '1' }, JSON.stringify(FRESH)],
  '/agents/w7/.well-known/agent-card.json': () => [200, { 'x-replica-lag-ms': '2' }, JSON.stringify(FRESH)],
};

let server;
let base;
const seen = [];
before(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    const route = ROUTES[req.url];
    const [status, headers, body] = route ? route() : [404, {}, 'no route'];
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

test('a fresh card with a watermark header resolves to the card object', async () => {
  const decisions = [];
  const got = await cg.resolveAgentCard(`${base}/fresh.json`, REQ, { onDecision: (d, info) => decisions.push([d, info]) });
  assert.deepEqual(got, FRESH);
  assert.equal(decisions.length, 1);
  assert.equal(decisions[0][0].verdict, 'valid');
  assert.equal(decisions[0][0].staleness_ms, 3000);
  assert.equal(decisions[0][1].url, `${base}/fresh.json`);
  assert.equal(decisions[0][1].observation.lag_ms, '3000');
  const req = seen.at(-1);
  assert.equal(req.headers['a2a-version'], '1.0');
  assert.equal(req.headers.accept, 'application/json');
});

test('the incident: the lagging replica answer is refused as stale, with the card attached', async () => {
  await assert.rejects(cg.resolveAgentCard(`${base}/stale.json`, REQ), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError);
    assert.equal(e.retry, 're-resolve');
    assert.equal(e.url, `${base}/stale.json`);
    assert.deepEqual(e.card, STALE);
    assert.equal(e.stalenessMs, 40000);
    assert.deepEqual(e.reasons.map((r) => r.code), ['watermark_exceeded', 'version_below_minimum', 'capabilities_missing']);
    return true;
  });
});

test('a current card without the capability is a CapabilityMismatchError', async () => {
  await assert.rejects(cg.resolveAgentCard(`${base}/fresh-old-card.json`, { require: ['task.execute.v3'], max_stale: '10s' }), (e) => {
    assert.ok(e instanceof cg.CapabilityMismatchError);
    assert.equal(e.retry, 'none');
    assert.deepEqual(e.missingCapabilities, ['task.execute.v3']);
    return true;
  });
});

test('no watermark, or only Age, fails closed', async () => {
  for (const path of ['/no-watermark.json', '/age-only.json']) {
    await assert.rejects(cg.resolveAgentCard(`${base}${path}`, REQ), (e) => {
      assert.ok(e instanceof cg.StaleAgentCardError, path);
      assert.deepEqual(e.reasons.map((r) => r.code), ['freshness_unverifiable']);
      return true;
    });
  }
});

test('Consul headers plus Age add up; a Consul replica without a leader is refused', async () => {
  let decision;
  await cg.resolveAgentCard(`${base}/consul.json`, REQ, { onDecision: (d) => (decision = d) });
  assert.equal(decision.staleness_ms, 2500);
  await assert.rejects(cg.resolveAgentCard(`${base}/consul-no-leader.json`, REQ), (e) => {
    assert.deepEqual(e.reasons.map((r) => r.code), ['leader_unknown']);
    return true;
  });
  await assert.rejects(cg.resolveAgentCard(`${base}/consul.json`, REQ, { watermark: { consul: false } }), (e) => {
    assert.deepEqual(e.reasons.map((r) => r.code), ['freshness_unverifiable'], 'consul: false ignores them');
    return true;
  });
});

test('lag in seconds and a sync timestamp against the given clock', async () => {
  await assert.rejects(cg.resolveAgentCard(`${base}/lag-s.json`, REQ), (e) => e.stalenessMs === 12000);
  let decision;
  const now = new Date('2026-11-09T12:00:40Z');
  await cg.resolveAgentCard(`${base}/synced.json`, REQ, { now, onDecision: (d) => (decision = d) });
  assert.equal(decision.staleness_ms, 5000);
  await assert.rejects(cg.resolveAgentCard(`${base}/synced.json`, REQ, { now: null }), (e) =>
    e.reasons.some((r) => r.code === 'clock_missing'),
  );
});

test('custom watermark header names; default names can be switched off', async () => {
  let decision;
  await cg.resolveAgentCard(`${base}/custom.json`, REQ, {
    watermark: { lagMsHeader: 'x-registry-staleness-ms' },
    onDecision: (d) => (decision = d),
  });
  assert.equal(decision.staleness_ms, 7);
  await assert.rejects(cg.resolveAgentCard(`${base}/custom.json`, REQ, { watermark: { lagMsHeader: null } }), cg.StaleAgentCardError);
});

test('a repeated watermark header is not guessed at: watermark_invalid', async () => {
  await assert.rejects(cg.resolveAgentCard(`${base}/twice.json`, REQ), (e) => {
    assert.deepEqual(e.reasons.map((r) => r.code), ['watermark_invalid']);
    return true;
  });
});

test('an unreadable body is a MalformedAgentCardError carrying the text', async () => {
  await assert.rejects(cg.resolveAgentCard(`${base}/garbage.json`, REQ), (e) => {
    assert.ok(e instanceof cg.MalformedAgentCardError);
    assert.equal(e.card, '<html>upstream timed out</html>');
    assert.equal(e.status, 502);
    return true;
  });
  await assert.rejects(cg.resolveAgentCard(`${base}/empty.json`, REQ), (e) => e.reasons[0].code === 'body_empty');
});

test('an oversized body is body_too_large after reading one byte past the limit', async () => {
  await assert.rejects(cg.resolveAgentCard(`${base}/huge.json`, REQ), (e) => {
    assert.ok(e instanceof cg.MalformedAgentCardError);
    assert.deepEqual(e.reasons.map((r) => r.code), ['body_too_large']);
    return true;
  });
  // Same through a fetch whose Response has no stream (arrayBuffer only).
  const plain = async () => ({ ok: true, status: 200, headers: new Map([['x-replica-lag-ms', '0']]), arrayBuffer: async () => new ArrayBuffer(70000) });
  await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: plain }), (e) => e.reasons[0].code === 'body_too_large');
  // An exactly-at-the-limit body is read whole (65536 bytes of valid card).
  const pad = 65536 - JSON.stringify({ ...FRESH, pad: '' }).length;
  const exact = JSON.stringify({ ...FRESH, pad: 'p'.repeat(pad) });
  assert.equal(Buffer.byteLength(exact), 65536);
  const chunked = async () => new Response(new Blob([exact.slice(0, 1000), exact.slice(1000)]).stream(), { headers: { 'x-replica-lag-ms': '0' } });
  assert.equal((await cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: chunked })).pad.length, pad);
});

test('non-2xx and network failures are AgentCardFetchError, not gate decisions', async () => {
  for (const [path, status] of [['/missing.json', 404], ['/error.json', 503]]) {
    await assert.rejects(cg.resolveAgentCard(`${base}${path}`, REQ), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, e.name);
      assert.ok(!(e instanceof cg.CardGateError));
      assert.equal(e.status, status);
      assert.match(e.message, new RegExp(`answered ${status}`));
      return true;
    });
  }
  // A port nobody listens on: bind one, close it, connect to it.
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const dead = `http://127.0.0.1:${probe.address().port}/card.json`;
  await new Promise((r) => probe.close(r));
  await assert.rejects(cg.resolveAgentCard(dead, REQ), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError);
    assert.equal(e.status, null);
    assert.ok(e.cause);
    return true;
  });
});

test('an injected fetch is used, with extra request headers', async () => {
  const calls = [];
  const fetchSpy = async (url, init) => {
    calls.push([url, init]);
    return fetch(url, init);
  };
  await cg.resolveAgentCard(`${base}/fresh.json`, REQ, { fetch: fetchSpy, headers: { authorization: 'Bearer t0k' } });
  assert.equal(calls.length, 1);
  assert.equal(calls[0][1].headers.authorization, 'Bearer t0k');
  assert.equal(seen.at(-1).headers.authorization, 'Bearer t0k');
  // A fetch that never touches the network: a WHATWG Response built in memory.
  const offline = async () => new Response(JSON.stringify(FRESH), { headers: { 'x-replica-lag-ms': '4' } });
  assert.deepEqual(await cg.resolveAgentCard('http://registry.invalid/card.json', REQ, { fetch: offline }), FRESH);
});

test('bad requirement throws before any request is sent', async () => {
  const before = seen.length;
  await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, { max_stale: 'soon' }), RangeError);
  await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, 5), TypeError);
  await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, { require: ['x'], extra: 1 }), /requirement at \/extra/);
  assert.equal(seen.length, before, 'no request was sent');
});

test('CardGateResolver.resolve follows the SDK path rule', async () => {
  const r = new cg.CardGateResolver({ requirement: REQ });
  let got = await r.resolve(`${base}/`);
  assert.deepEqual(got, FRESH);
  assert.equal(seen.at(-1).url, '/.well-known/agent-card.json');
  got = await r.resolve(`${base}/agents/w7/`);
  assert.equal(seen.at(-1).url, '/agents/w7/.well-known/agent-card.json');
  got = await r.resolve(`${base}/`, 'fresh.json');
  assert.equal(seen.at(-1).url, '/fresh.json');
  await assert.rejects(r.resolve(base, '/stale.json'), cg.StaleAgentCardError);

  const perAgent = new cg.CardGateResolver({
    requirement: async (url) => (url.includes('/agents/w7/') ? { max_stale: '1ms' } : REQ),
    normalize: (c) => ({ ...c, normalized: true }),
  });
  await assert.rejects(perAgent.resolve(`${base}/agents/w7/`), (e) => e.stalenessMs === 2);
  assert.equal((await perAgent.resolve(`${base}/`)).normalized, true);
  assert.throws(() => new cg.CardGateResolver({}), TypeError);
});
