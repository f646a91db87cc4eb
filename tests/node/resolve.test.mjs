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
  // Another agent's fresh cards: one meeting REQ, one lacking its capability.
  '/other-agent.json': () => [200, { 'x-replica-lag-ms': '0' }, JSON.stringify({ ...FRESH, name: 'worker-8' })],
  '/other-agent-lacking.json': () => [200, { 'x-replica-lag-ms': '0' }, JSON.stringify({ ...FRESH, name: 'billing', skills: STALE.skills })],
  '/no-watermark.json': () => [200, {}, JSON.stringify(FRESH)],
  '/age-only.json': () => [200, { age: '2' }, JSON.stringify(FRESH)],
  '/lag-and-age.json': () => [200, { 'x-replica-lag-ms': '0', age: '120' }, JSON.stringify(FRESH)],
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
  '/stale-cached.json': () => [200, { 'x-replica-lag-ms': '40000', 'cache-control': 'max-age=600' }, JSON.stringify(FRESH)],
  '/.well-known/agent-card.json': () => [200, { 'x-replica-lag-ms': '1' }, JSON.stringify(FRESH)],
  '/agents/w7/.well-known/agent-card.json': () => [200, { 'x-replica-lag-ms': '2' }, JSON.stringify(FRESH)],
};

// A 71,030-byte card (the figure): over the 65,536-byte limit.
const BIG = JSON.stringify({ ...FRESH, pad: 'p'.repeat(71030 - JSON.stringify({ ...FRESH, pad: '' }).length) });
// Routes that stream by hand: path -> (req, res) => void.
const STREAMS = {
  // Chunked, no Content-Length: the size cannot be known without reading it all.
  '/big-chunked.json': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0' });
    for (let i = 0; i < BIG.length; i += 8192) res.write(BIG.slice(i, i + 8192));
    res.end();
  },
  // Declared length: exact even though only 65,537 bytes are read.
  '/big-declared.json': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0', 'content-length': String(Buffer.byteLength(BIG)) });
    for (let i = 0; i < BIG.length; i += 8192) res.write(BIG.slice(i, i + 8192));
    res.end();
  },
  // Never answers.
  '/stall-headers.json': () => {},
  // Answers, sends half the card, then stalls.
  '/stall-body.json': (req, res) => {
    const body = JSON.stringify(FRESH);
    res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0', 'content-length': String(body.length) });
    res.write(body.slice(0, 40));
  },
  // Declares more than the card, sends the whole card, then closes the connection.
  '/broken-after-card.json': (req, res) => {
    const body = JSON.stringify(FRESH);
    res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0', 'content-length': String(body.length + 100) });
    res.write(body, () => setTimeout(() => res.socket.destroy(), 20));
  },
  // Answers after 300 ms.
  '/slow.json': (req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0' });
      res.end(JSON.stringify(FRESH));
    }, 300);
  },
};

let server;
let base;
const seen = [];
before(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    if (STREAMS[req.url]) return STREAMS[req.url](req, res);
    const route = ROUTES[req.url];
    const [status, headers, body] = route ? route() : [404, {}, 'no route'];
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});

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

test('card_name: another agent\'s fresh card is re-resolved past, not accepted or stopped on', async () => {
  const named = { ...REQ, card_name: 'worker-7' };
  // Without the name, the replica's answer decides: accepted, or a stop on the missing capability.
  assert.equal((await cg.resolveAgentCard([`${base}/other-agent.json`, `${base}/fresh.json`], REQ)).name, 'worker-8');
  await assert.rejects(cg.resolveAgentCard([`${base}/other-agent-lacking.json`, `${base}/fresh.json`], REQ), cg.CapabilityMismatchError);
  for (const replica of ['/other-agent.json', '/other-agent-lacking.json']) {
    const attempts = [];
    const got = await cg.resolveAgentCard([`${base}${replica}`, `${base}/fresh.json`], named, {
      onDecision: (d) => attempts.push((d.reasons || []).map((r) => r.code)),
    });
    assert.deepEqual(got, FRESH, replica);
    assert.deepEqual(attempts[0].slice(0, 1), ['card_name_mismatch'], replica);
    assert.deepEqual(attempts.slice(1), [[]], replica);
  }
  await assert.rejects(cg.resolveAgentCard([`${base}/other-agent.json`], named), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError);
    assert.deepEqual(e.reasons.map((r) => r.code), ['card_name_mismatch']);
    assert.equal(e.agent, 'worker-8');
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

/** The body_too_large figures and message of a rejection. */
const tooLarge = (e) => {
  assert.ok(e instanceof cg.MalformedAgentCardError, `${e.name}: ${e.message}`);
  assert.deepEqual(e.reasons.map((r) => r.code), ['body_too_large']);
  return { bytes: e.reasons[0].figures.body_bytes, limit: e.reasons[0].figures.max_card_bytes, message: e.reasons[0].message };
};

test('an oversized body is body_too_large after reading one byte past the limit, its size never understated', async () => {
  // 8 MiB without a declared length: read only to just past the limit, reported as a bound.
  await assert.rejects(cg.resolveAgentCard(`${base}/huge.json`, REQ), (e) => {
    const t = tooLarge(e);
    assert.ok(t.bytes > 65536 && t.bytes < 1 << 20, `read ${t.bytes} bytes of 8 MiB`);
    assert.equal(t.limit, 65536);
    assert.equal(t.message, `card body is at least ${t.bytes} bytes, more than the limit of 65536 bytes`);
    return true;
  });
  // Content-Length: the exact size.
  await assert.rejects(cg.resolveAgentCard(`${base}/big-declared.json`, REQ), (e) => {
    assert.equal(tooLarge(e).bytes, 71030);
    assert.doesNotMatch(tooLarge(e).message, /at least/);
    return true;
  });
  // Chunked, no length: a lower bound, said as one (never "65537 bytes" for a 71,030-byte card).
  await assert.rejects(cg.resolveAgentCard(`${base}/big-chunked.json`, REQ), (e) => {
    const t = tooLarge(e);
    assert.ok(t.bytes > 65536 && t.bytes <= 71030, String(t.bytes));
    assert.equal(t.message, `card body is at least ${t.bytes} bytes, more than the limit of 65536 bytes`);
    assert.equal(e.decision.detail, t.message);
    assert.ok(e.card.startsWith('{"name":"worker-7"'), 'card_text is the start of the body');
    return true;
  });
  // A compressed answer is body_encoded in Node (the core's rule, as `cardgate resolve`), its
  // body not read; before the nineteenth session its decoded size was reported "at least" (a
  // compressed body's Content-Length is not its size), which the browser build still does.
  const gz = async () =>
    new Response(new Blob([BIG]).stream(), { headers: { 'x-replica-lag-ms': '0', 'content-encoding': 'gzip', 'content-length': '900' } });
  await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: gz }), (e) =>
    e instanceof cg.MalformedAgentCardError && e.decision.reasons[0].code === 'body_encoded');
  // Same through a fetch whose Response has no stream (arrayBuffer only): the whole size.
  const plain = async () => ({ ok: true, status: 200, headers: new Map([['x-replica-lag-ms', '0']]), arrayBuffer: async () => new ArrayBuffer(70000) });
  await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: plain }), (e) => {
    assert.equal(tooLarge(e).message, 'card body is 70000 bytes, more than the limit of 65536 bytes');
    return true;
  });
  // A body that is no stream (a caller's fetch: a string, a Node Buffer) is read by arrayBuffer().
  for (const body of ['a string', Buffer.from('bytes'), {}]) {
    const other = async () => ({ ok: true, status: 200, headers: new Headers({ 'x-replica-lag-ms': '0' }), body, arrayBuffer: async () => new TextEncoder().encode(JSON.stringify(FRESH)).buffer });
    assert.deepEqual(await cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: other }), FRESH, typeof body);
  }
  // An exactly-at-the-limit body is read whole (65536 bytes of valid card).
  const pad = 65536 - JSON.stringify({ ...FRESH, pad: '' }).length;
  const exact = JSON.stringify({ ...FRESH, pad: 'p'.repeat(pad) });
  assert.equal(Buffer.byteLength(exact), 65536);
  const chunked = async () => new Response(new Blob([exact.slice(0, 1000), exact.slice(1000)]).stream(), { headers: { 'x-replica-lag-ms': '0' } });
  assert.equal((await cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: chunked })).pad.length, pad);
  // The same through a fetch without a stream (arrayBuffer only).
  const whole = async () => ({ ok: true, status: 200, headers: new Headers({ 'x-replica-lag-ms': '0' }), arrayBuffer: async () => new TextEncoder().encode(exact).buffer });
  assert.equal((await cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: whole })).pad.length, pad);
  // A card of exactly the limit followed by one more byte, the limit reached at a chunk's end:
  // over the limit, never the card before the extra byte read as the whole body.
  const chunks = (...parts) =>
    new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
  for (const extra of [' ', 'x']) {
    const tail = async () => new Response(chunks(exact, extra), { headers: { 'x-replica-lag-ms': '0' } });
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: tail }), (e) => {
      assert.equal(tooLarge(e).message, 'card body is at least 65537 bytes, more than the limit of 65536 bytes');
      return true;
    });
  }
  // A declared length is the exact size whatever the identity coding's case, up to 2^32 - 1;
  // spaces around it (a caller's headers need not trim them, as fetch's Headers do) are no part.
  const declaring = (declared, coding) => async () => ({
    ok: true,
    status: 200,
    headers: new Map([['x-replica-lag-ms', '0'], ['content-length', declared], ...(coding ? [['content-encoding', coding]] : [])]),
    body: new Blob([BIG]).stream(),
  });
  for (const [declared, coding, size] of [
    ['71030', 'IDENTITY', 71030],
    [' 71030 ', 'Identity ', 71030],
    ['4294967295', undefined, 4294967295],
  ]) {
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: declaring(declared, coding) }), (e) => {
      assert.equal(tooLarge(e).message, `card body is ${size} bytes, more than the limit of 65536 bytes`, `${declared} ${coding}`);
      return true;
    });
  }
  // A declared length smaller than what arrived (a caller's fetch may pass any header) is no size:
  // the bytes read stay the lower bound. A declared length that is no plain number is none either.
  for (const declared of ['100', ' 65536 ', '+80000', '80000x', 'x80000', '1e5', '0x1ffff', '4294967296']) {
    const lying = async () => new Response(new Blob([BIG]).stream(), { headers: { 'x-replica-lag-ms': '0', 'content-length': declared } });
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: lying }), (e) => {
      const t = tooLarge(e);
      assert.ok(t.bytes > 65536 && t.bytes <= Buffer.byteLength(BIG), `${declared}: ${t.bytes}`);
      assert.equal(t.message, `card body is at least ${t.bytes} bytes, more than the limit of 65536 bytes`, declared);
      return true;
    });
  }
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
  // A status without a reason phrase (HTTP/2, or a caller's fetch) is named by its number alone.
  const bare = async () => new Response('no', { status: 503 });
  await assert.rejects(cg.resolveAgentCard('http://x.invalid/card', REQ, { fetch: bare }), (e) => {
    assert.equal(e.message, 'GET http://x.invalid/card answered 503, not 2xx');
    return true;
  });
  // A port nobody listens on: bind one, close it, connect to it.
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const dead = `http://127.0.0.1:${probe.address().port}/card.json`;
  await new Promise((r) => probe.close(r));
  await assert.rejects(cg.resolveAgentCard(dead, REQ), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError);
    assert.equal(e.status, null);
    assert.ok(e.cause);
    assert.match(e.message, /^GET http:\/\/127\.0\.0\.1:\d+\/card\.json failed: fetch failed \(ECONNREFUSED\)$/);
    return true;
  });
  // A caller's fetch that throws an error without a cause, or a value that is no error.
  for (const [thrown, text] of [[new Error('down'), 'down'], ['down', 'down'], [null, 'null']]) {
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/card', REQ, { fetch: async () => { throw thrown; } }), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, `${e.name}: ${e.message}`);
      assert.equal(e.message, `GET http://x.invalid/card failed: ${text}`);
      return true;
    });
  }
});

// A body that breaks off is a failed source, even when what arrived is a whole card: the SDKs'
// fetch fails on it (undici: "terminated"), so the gate never reads the part that came.
test('a body that breaks off after a whole card is an AgentCardFetchError, the card never read', async () => {
  const card = JSON.stringify(FRESH);
  const broken = async () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(card));
          controller.error(new Error('connection reset'));
        },
      }),
      { headers: { 'x-replica-lag-ms': '0' } },
    );
  await assert.rejects(cg.resolveAgentCard('http://x.invalid/card', REQ, { fetch: broken }), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError && !(e instanceof cg.CardGateError), `${e.name}: ${e.message}`);
    assert.equal(e.message, 'GET http://x.invalid/card: reading the body failed: connection reset');
    assert.equal(e.status, 200);
    return true;
  });
  // Over HTTP: a declared length longer than the card, the connection closed after the card.
  await assert.rejects(cg.resolveAgentCard(`${base}/broken-after-card.json`, REQ), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError && !(e instanceof cg.CardGateError), `${e.name}: ${e.message}`);
    assert.match(e.message, /: reading the body failed: /);
    return true;
  });
  // A body reader that throws no Error at all.
  for (const [thrown, text] of [[null, 'null'], ['gone', 'gone'], [undefined, 'undefined']]) {
    const odd = async () => ({ ok: true, status: 200, headers: new Headers({ 'x-replica-lag-ms': '0' }), arrayBuffer: async () => { throw thrown; } });
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/card', REQ, { fetch: odd }), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, `${e.name}: ${e.message}`);
      assert.equal(e.message, `GET http://x.invalid/card: reading the body failed: ${text}`);
      return true;
    });
  }
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
  // Named as the requirement, in the words of the check that refused it.
  for (const [requirement, message] of [
    [5, 'invalid requirement: requirement must be an object or JSON text, not a number'],
    [{ require: [1n] }, 'invalid requirement at /require/0: a BigInt (JSON has no BigInt: JSON.stringify throws)'],
    [
      Object.create({ require: ['x'] }),
      'invalid requirement: an object whose prototype is not Object.prototype or null (a Date, Map, Set, class instance...); ' +
        'the gate and the caller could read it differently (pass plain JSON data, or JSON text)',
    ],
  ]) {
    await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, requirement), (e) => {
      assert.ok(e instanceof TypeError, `${e.name}: ${e.message}`);
      assert.equal(e.message, message);
      return true;
    });
  }
  // A fetch option that is no function is said so, not called.
  for (const fetch of ['http://x.invalid/', {}, 5]) {
    await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, REQ, { fetch }), (e) => {
      assert.ok(e instanceof TypeError && !(e instanceof cg.AgentCardFetchError), `${e.name}: ${e.message}`);
      assert.equal(e.message, 'resolveAgentCard: no fetch available; pass options.fetch');
      return true;
    });
  }
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

test('every resolution has a timeout (default 10 s), combined with the caller signal', async () => {
  assert.equal(cg.DEFAULT_TIMEOUT_MS, 10000);
  for (const path of ['/stall-headers.json', '/stall-body.json']) {
    const started = Date.now();
    await assert.rejects(cg.resolveAgentCard(`${base}${path}`, REQ, { timeoutMs: 200 }), (e) => {
      assert.ok(e instanceof cg.AgentCardTimeoutError, `${path}: ${e.name}: ${e.message}`);
      assert.ok(e instanceof cg.AgentCardFetchError, 'a transport failure');
      assert.ok(!(e instanceof cg.CardGateError));
      assert.equal(e.timeoutMs, 200);
      assert.equal(e.status, null);
      assert.equal(e.url, `${base}${path}`);
      assert.match(e.message, /did not complete within 200 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 5000, `${path}: the timeout fired`);
  }
  // A fetch that ignores the signal is still cut off.
  const deaf = () => new Promise(() => {});
  await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: deaf, timeoutMs: 50 }), cg.AgentCardTimeoutError);
  // The fetch receives a signal that fires on timeout.
  let given;
  const spy = (url, init) => {
    given = init.signal;
    return new Promise(() => {});
  };
  await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: spy, timeoutMs: 50 }), cg.AgentCardTimeoutError);
  assert.equal(given.aborted, true);
  assert.ok(given.reason instanceof cg.AgentCardTimeoutError);

  // The caller's signal firing first: an AgentCardFetchError carrying its reason, not a timeout.
  await assert.rejects(cg.resolveAgentCard(`${base}/stall-body.json`, REQ, { signal: AbortSignal.timeout(100), timeoutMs: 5000 }), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError && !(e instanceof cg.AgentCardTimeoutError), e.name);
    assert.match(e.message, /aborted by the caller/);
    assert.ok(e.cause);
    return true;
  });
  const gone = new AbortController();
  gone.abort(new Error('shutting down'));
  await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, REQ, { signal: gone.signal }), /shutting down/);
  // The timeout of one resolution is its own: a shared signal does not shorten it, and a slow
  // answer within the timeout resolves.
  const shared = new AbortController();
  assert.deepEqual(await cg.resolveAgentCard(`${base}/slow.json`, REQ, { signal: shared.signal, timeoutMs: 3000 }), FRESH);
  assert.deepEqual(await cg.resolveAgentCard(`${base}/slow.json`, REQ, { timeoutMs: Infinity }), FRESH);
  await assert.rejects(cg.resolveAgentCard(`${base}/slow.json`, REQ, { timeoutMs: 100 }), cg.AgentCardTimeoutError);
  // Through CardGateResolver too.
  const r = new cg.CardGateResolver({ requirement: REQ, timeoutMs: 100 });
  await assert.rejects(r.resolve(`${base}/`, 'stall-headers.json'), cg.AgentCardTimeoutError);

  // Bad timeouts and signals are refused before any request.
  const before = seen.length;
  for (const [timeoutMs, Ctor] of [[0, RangeError], [-1, RangeError], ['10s', TypeError], [NaN, TypeError]]) {
    await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, REQ, { timeoutMs }), Ctor, String(timeoutMs));
  }
  await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, REQ, { timeoutMs: '10s' }), {
    message: 'options.timeoutMs must be a number of milliseconds (Infinity: none), not a string',
  });
  await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, REQ, { timeoutMs: -1 }), {
    message: 'options.timeoutMs must be more than 0 ms (Infinity: none), not -1',
  });
  await assert.rejects(cg.resolveAgentCard(`${base}/fresh.json`, REQ, { signal: 'soon' }), TypeError);
  assert.equal(seen.length, before, 'no request was sent');
});

// Third review (scn3js): fetch implementations that are not the platform's.
test('a caller signal that fired before the answer is never ignored, even by a fetch that ignores it', async () => {
  const answer = () => new Response(JSON.stringify(FRESH), { headers: { 'x-replica-lag-ms': '0' } });
  const gone = new AbortController();
  gone.abort(new Error('shutting down'));
  // Answers at once (a cache, a test double, a fetch wrapper that drops the signal).
  for (const fetch of [async () => answer(), () => answer()]) {
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch, signal: gone.signal }), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError && !(e instanceof cg.AgentCardTimeoutError), `${e.name}: ${e.message}`);
      assert.match(e.message, /aborted by the caller: shutting down/);
      return true;
    });
  }
  // Aborted while the fetch runs.
  const during = new AbortController();
  const aborting = async () => {
    during.abort(new Error('cancelled'));
    return answer();
  };
  await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: aborting, signal: during.signal }), /aborted by the caller: cancelled/);
  // A reason that is not an Error is said as its text.
  for (const [reason, said] of [['stop', 'stop'], [{ message: 5 }, '[object Object]'], [7, '7']]) {
    const told = new AbortController();
    told.abort(reason);
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: async () => answer(), signal: told.signal }), {
      name: 'AgentCardFetchError', message: `GET http://x.invalid/ was aborted by the caller: ${said}`,
    });
  }
  // A list of sources ends there too (the caller cancelled: not a failed source).
  const again = new AbortController();
  const second = async (url) => {
    if (url.includes('b.invalid')) again.abort(new Error('cancelled'));
    return new Response(JSON.stringify(FRESH), { headers: { 'x-replica-lag-ms': url.includes('a.invalid') ? '40000' : '0' } });
  };
  await assert.rejects(cg.resolveAgentCard(['http://a.invalid/', 'http://b.invalid/'], REQ, { fetch: second, signal: again.signal }), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError, `${e.name}: ${e.message}`);
    assert.equal(e.attempts.length, 1);
    return true;
  });
});

test('a fetch that does not return a Response is an AgentCardFetchError (a failed source), not a TypeError', async () => {
  const body = new TextEncoder().encode(JSON.stringify(FRESH)).buffer;
  const answers = [
    [null, /^GET http:\/\/x\.invalid\/: fetch returned null without headers, not a Response$/],
    [undefined, /^GET http:\/\/x\.invalid\/: fetch returned undefined without headers, not a Response$/],
    [{ ok: true, status: 200, arrayBuffer: async () => body }, /: fetch returned .* without headers, not a Response$/],
    [
      { ok: true, status: 200, headers: { get() { throw new Error('headers gone'); } }, arrayBuffer: async () => body },
      /^GET http:\/\/x\.invalid\/: reading the header content-encoding failed: headers gone$/,
    ],
    // A header reader that throws no Error at all.
    [
      { ok: true, status: 200, headers: { get() { throw null; } }, arrayBuffer: async () => body },
      /^GET http:\/\/x\.invalid\/: reading the header content-encoding failed: null$/,
    ],
    // Headers that are null, or an object without `get`, are no Headers object.
    [{ ok: true, status: 200, headers: null, arrayBuffer: async () => body }, /: fetch returned .* without headers, not a Response$/],
    [{ ok: true, status: 200, headers: {}, arrayBuffer: async () => body }, /: fetch returned .* without headers, not a Response$/],
  ];
  for (const [a, message] of answers) {
    const fetch = async () => a;
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch }), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, `${String(a)}: ${e.name}: ${e.message}`);
      assert.match(e.message, message);
      return true;
    });
    // With sources, a failed source: the next one is asked.
    const fallback = async (url) => (url.includes('a.invalid') ? a : new Response(JSON.stringify(FRESH), { headers: { 'x-replica-lag-ms': '0' } }));
    assert.deepEqual(await cg.resolveAgentCard(['http://a.invalid/', 'http://b.invalid/'], REQ, { fetch: fallback }), FRESH);
  }
  // Headers that can only be read (`get`, no `keys`) are taken as they are; headers whose names
  // cannot be listed cannot be shown to be tokens: a failed source, saying why.
  const get = (n) => (n.toLowerCase() === 'x-replica-lag-ms' ? '0' : null);
  const getOnly = async () => ({ ok: true, status: 200, headers: { get }, arrayBuffer: async () => body });
  assert.deepEqual(await cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: getOnly }), FRESH);
  // A name with whitespace before its colon, as undici before Node 24 keeps it (`x-replica-lag-ms
  // : 50000`; a caller's fetch may too): refused, whatever the other names say.
  // A name that is no string at all (a caller's headers) is no token either.
  for (const [name, shown] of [['x-replica-lag-ms ', '"x-replica-lag-ms "'], [42, '"42"']]) {
    const named = async () => ({ ok: true, status: 200, headers: new Map([['x-replica-lag-ms', '0'], [name, '50000']]), arrayBuffer: async () => body });
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: named }), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, `${e.name}: ${e.message}`);
      assert.ok(e.message.startsWith(`GET http://x.invalid/ answered with a header name that is not an HTTP token: ${shown} `), e.message);
      return true;
    });
  }
  for (const [thrown, why] of [[new Error('no names'), 'no names'], ['no names', 'no names']]) {
    const keys = () => {
      throw thrown;
    };
    const unlisted = async () => ({ ok: true, status: 200, headers: { get, keys }, arrayBuffer: async () => body });
    await assert.rejects(cg.resolveAgentCard('http://x.invalid/', REQ, { fetch: unlisted }), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, `${e.name}: ${e.message}`);
      assert.equal(
        e.message,
        `GET http://x.invalid/ answered with a header name that is not an HTTP token: "(the header names could not be listed: ${why})" ` +
          '(RFC 9112 forbids whitespace before the colon; a proxy would trim it and pass another header, say a second ' +
          'watermark the gate never saw, so the answer is refused as `cardgate resolve` and httpx refuse it)',
      );
      return true;
    });
  }
});

test('CardGateResolver.lastResolution does not keep an earlier decision after a resolve that ended without one', async () => {
  const r = new cg.CardGateResolver({ requirement: REQ });
  await r.resolve(`${base}/`, 'fresh.json');
  assert.equal(r.lastResolution.decision.verdict, 'valid');
  await assert.rejects(r.resolve(`${base}/`, 'missing.json'), cg.AgentCardFetchError);
  assert.equal(r.lastResolution, null);
  await assert.rejects(r.resolve(`${base}/`, 'stale.json'), cg.StaleAgentCardError);
  assert.equal(r.lastResolution.decision.error_class, 'stale_agent_card');
});

// Third review (adversarial configuration): an unknown or mistyped `watermark` option (the
// filter's snake_case `lag_ms_header`, `consul: 'yes'`, a header name with a space) was ignored
// without a word, the defaults reading in its place. Each is a TypeError naming the member,
// before any request, as the filter refuses such a `watermark` at configuration.
const NOW_TEXT = '2026-11-09T12:00:40Z';

test('bad watermark options are a TypeError naming the member, before the network', async () => {
  const refused = 'http://127.0.0.1:9/.well-known/agent-card.json';
  const bad = [
    [{ lag_ms_header: 'x-lag' }, /options\.watermark\.lag_ms_header is not a watermark option/],
    [{ consul: 'yes' }, /options\.watermark\.consul must be a boolean/],
    [{ corsExposed: 1 }, /options\.watermark\.corsExposed must be a boolean/],
    [{ lagMsHeader: 'x lag' }, /options\.watermark\.lagMsHeader must be a header name/],
    [{ syncedAtHeader: 5 }, /options\.watermark\.syncedAtHeader must be a header name/],
    ['x-lag', /options\.watermark must be an object/],
    [['x-lag'], /options\.watermark must be an object/],
  ];
  for (const [watermark, message] of bad) {
    await assert.rejects(cg.resolveAgentCard(refused, REQ, { watermark }), (e) => e instanceof TypeError && message.test(e.message));
    await assert.rejects(cg.resolveAgentCard([refused, refused], REQ, { watermark }), (e) => e instanceof TypeError && message.test(e.message));
    assert.throws(() => cg.observationFromHeaders(new Headers(), watermark), (e) => e instanceof TypeError && message.test(e.message));
  }
  // The documented forms still read.
  const obs = cg.observationFromHeaders(new Headers({ 'x-lag': '7', age: '1' }),
    { lagMsHeader: 'x-lag', lagSHeader: null, syncedAtHeader: false, consul: false, age: true }, null);
  assert.deepEqual(obs, { lag_ms: '7', age_s: '1', now: null });
  // null or undefined options are the defaults; null, false and '' switch a header off (an
  // empty name is never asked of Headers, which refuses one).
  const every = new Headers({ 'x-replica-lag-ms': '5', 'x-replica-lag-s': '6', 'x-replica-synced-at': NOW_TEXT,
    'x-consul-lastcontact': '7', 'x-consul-knownleader': 'true', age: '8' });
  const all = { lag_ms: '5', lag_s: '6', synced_at: NOW_TEXT, consul_last_contact_ms: '7', consul_known_leader: 'true', age_s: '8', now: null };
  for (const watermark of [undefined, null, {}]) assert.deepEqual(cg.observationFromHeaders(every, watermark, null), all);
  for (const off of [null, false, '']) {
    assert.deepEqual(cg.observationFromHeaders(every, { lagMsHeader: off, lagSHeader: off, syncedAtHeader: off }, null),
      { consul_last_contact_ms: '7', consul_known_leader: 'true', age_s: '8', now: null }, String(off));
  }
  // A switched-off name is not looked up as the text of its value (Headers.get(null) asks for a
  // header named "null"): headers named so are never read.
  const named = new Headers({ null: '1', false: '2', undefined: '3', 'x-consul-lastcontact': '7' });
  for (const off of [null, false, '']) {
    assert.deepEqual(cg.observationFromHeaders(named, { lagMsHeader: off, lagSHeader: off, syncedAtHeader: off, age: false }, null),
      { consul_last_contact_ms: '7', now: null }, String(off));
  }
  // The flags switch their headers off.
  assert.deepEqual(cg.observationFromHeaders(every, { consul: false, age: false }, null),
    { lag_ms: '5', lag_s: '6', synced_at: NOW_TEXT, now: null });
  // The message lists every option, and the clock is named when it is not one.
  assert.throws(() => cg.observationFromHeaders(every, { lag_ms_header: 'x-lag' }), {
    name: 'TypeError',
    message: 'options.watermark.lag_ms_header is not a watermark option (lagMsHeader, lagSHeader, syncedAtHeader, consul, age, corsExposed)',
  });
  assert.throws(() => cg.observationFromHeaders(every, {}, {}), {
    name: 'TypeError', message: 'now must be an RFC 3339 string, a Date or a number of ms, not an object',
  });
  assert.throws(() => cg.observationFromHeaders(every, {}, NaN), { name: 'RangeError', message: 'now is not a valid time' });
});

// A member set to `undefined` is absent everywhere in the package, so it keeps its default. The
// watermark options had copied it over: `age: undefined` switched Age off, and a card that had
// spent 120 s in caches was `valid` under a 10 s tolerance (`consul: undefined` likewise).
test('a watermark option set to undefined keeps its default', async () => {
  const every = new Headers({ 'x-replica-lag-ms': '5', 'x-replica-lag-s': '6', 'x-replica-synced-at': NOW_TEXT,
    'x-consul-lastcontact': '7', 'x-consul-knownleader': 'true', age: '8' });
  const all = { lag_ms: '5', lag_s: '6', synced_at: NOW_TEXT, consul_last_contact_ms: '7', consul_known_leader: 'true', age_s: '8', now: null };
  const unset = { lagMsHeader: undefined, lagSHeader: undefined, syncedAtHeader: undefined, consul: undefined, age: undefined, corsExposed: undefined };
  assert.deepEqual(cg.observationFromHeaders(every, unset, null), all);
  for (const key of Object.keys(unset)) {
    assert.deepEqual(cg.observationFromHeaders(every, { [key]: undefined }, null), all, key);
  }
  await assert.rejects(cg.resolveAgentCard(`${base}/lag-and-age.json`, REQ, { watermark: { age: undefined } }), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError, `${e.name}: ${e.message}`);
    assert.deepEqual(e.reasons.map((r) => r.code), ['watermark_exceeded']);
    return true;
  });
  // What `age: false` states, on the same answer.
  assert.deepEqual(await cg.resolveAgentCard(`${base}/lag-and-age.json`, REQ, { watermark: { age: false } }), FRESH);
});

test('every card request is sent with cache: no-store (a browser cache would answer with a stored card and its old headers)', async () => {
  const calls = [];
  const fetchSpy = async (url, init) => {
    calls.push(init);
    return fetch(url, init);
  };
  await cg.resolveAgentCard(`${base}/fresh.json`, REQ, { fetch: fetchSpy });
  await assert.rejects(cg.resolveAgentCard([`${base}/stale.json`, `${base}/fresh-old-card.json`], REQ, { fetch: fetchSpy }));
  const resolver = new cg.CardGateResolver({ requirement: REQ, fetch: fetchSpy });
  await resolver.resolve(`${base}/`);
  assert.equal(calls.length, 4);
  for (const init of calls) assert.equal(init.cache, 'no-store');
});

test('Node build: an answer fetch calls `cors` (after a redirect to another origin) is read in full, corsExposed or not', async () => {
  // Node's fetch reports `type: 'cors'` once a redirect it followed crossed origins but hides no
  // header (no browser, no CORS filtering), so the browser build's rule for hidden headers does not
  // apply. The Node build now follows redirects itself (`redirect: 'manual'`, tests/node/
  // redirect.test.mjs): each hop is a request of its own, answered `basic`.
  const other = base.replace('127.0.0.1', 'localhost');
  const hop = createServer((req, res) => {
    res.writeHead(302, { location: `${other}${req.url}` });
    res.end();
  });
  await new Promise((resolve) => hop.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${hop.address().port}`;
    const types = [];
    const fetchSpy = async (u, init) => {
      const r = await fetch(u, init);
      types.push(r.type);
      return r;
    };
    assert.deepEqual(await cg.resolveAgentCard(`${url}/fresh.json`, REQ, { fetch: fetchSpy }), FRESH);
    await assert.rejects(cg.resolveAgentCard(`${url}/stale-cached.json`, REQ, { fetch: fetchSpy, watermark: { corsExposed: false } }),
      (e) => e instanceof cg.StaleAgentCardError && e.reasons[0].code === 'watermark_exceeded');
    assert.deepEqual(types, ['basic', 'basic', 'basic', 'basic']);
  } finally {
    hop.closeAllConnections();
    await new Promise((resolve) => hop.close(resolve));
  }
});
