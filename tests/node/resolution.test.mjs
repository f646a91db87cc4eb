// Re-resolution through the package (DESIGN.md "Re-resolution"): the shared vectors
// (tests/vectors/resolution/*.json) replayed through the wasm Resolution exactly as
// tests/resolution_vectors.rs replays them natively, then again end to end through
// resolveAgentCard([...]) against real HTTP sources on 127.0.0.1, and the scenarios
// (stale then valid, stale + stale, a primary that times out, a fresh capability mismatch that
// never reaches the primary, malformed then valid, every source down) with requests counted at
// the fixtures.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureConsumer, importPackage } from './consumer.mjs';
import { caseBytes, VECTORS_DIR } from './helpers.mjs';

const consumer = ensureConsumer();
const cg = await importPackage(consumer);
// The raw wasm-bindgen glue inside the installed package (the instance the package itself uses).
const raw = createRequire(join(consumer, 'cjs.cjs'))(join(consumer, 'node_modules', 'cardgate', 'node', 'cardgate.js'));

const RES_DIR = join(VECTORS_DIR, 'resolution');
const CASES = readdirSync(RES_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .flatMap((f) => JSON.parse(readFileSync(join(RES_DIR, f), 'utf8')).cases);

/** What a finished resolution shows, in the vectors' `expect` vocabulary. */
function actual(key, decision, tried) {
  const resolution = decision.resolution;
  switch (key) {
    case 'tried':
      return tried;
    case 'reason_codes':
      return (decision.reasons ?? []).map((r) => r.code);
    case 'outcome':
    case 'source':
      return resolution ? resolution[key] : null;
    case 'attempts':
      return resolution ? resolution.attempts.map((a) => [a.source, a.verdict, a.error_class ?? null]) : null;
    case 'final_urls':
      return resolution ? resolution.attempts.map((a) => a.final_url ?? null) : null;
    default:
      return decision[key] === undefined ? null : decision[key];
  }
}

function diffs(expect, decision, tried) {
  const out = [];
  for (const [key, want] of Object.entries(expect)) {
    const got = actual(key, decision, tried);
    if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  return out;
}

/** Replays a case through the wasm Resolution the way tests/resolution_vectors.rs does. */
function replay(c) {
  const limits = c.limits ?? {};
  const r = new raw.ResolutionRaw(JSON.stringify(c.requirement ?? {}), limits.max_attempts ?? 3, limits.deadline_ms ?? 5000, 0);
  try {
    let budget = c.budget;
    let tried = 0;
    for (const [i, source] of c.sources.entries()) {
      if (i > 0 && budget !== undefined) {
        if (budget === 0) {
          r.stop('over_budget');
          break;
        }
        budget -= 1;
      }
      const step =
        source.failed !== undefined
          ? r.recordFailed(source.source, source.failed, source.at_ms, source.final_url)
          : r.recordCard(source.source, caseBytes(source), JSON.stringify(source.observation ?? {}), source.at_ms, source.final_url);
      tried += 1;
      if (step !== 'try_next') break;
    }
    r.stop('sources_exhausted');
    return { decision: JSON.parse(r.finish()), tried };
  } finally {
    r.free();
  }
}

test('the resolution vectors are there', () => {
  assert.ok(CASES.length >= 10, `only ${CASES.length} resolution vectors`);
  assert.equal(new Set(CASES.map((c) => c.name)).size, CASES.length, 'names are unique');
});

for (const c of CASES) {
  test(`resolution vector through the wasm Resolution: ${c.name}`, () => {
    const { decision, tried } = replay(c);
    assert.deepEqual(diffs(c.expect, decision, tried), [], JSON.stringify(decision));
  });
}

test('a bound resolution refuses further use and bad input, without trapping', () => {
  // Errors cross as objects {kind, message, path}, not JSON text (issue 8).
  const coreError = (kind, pattern) => (e) => e !== null && typeof e === 'object' && e.kind === kind && pattern.test(`${e.path} ${e.message}`);
  assert.throws(() => new raw.ResolutionRaw('{"max_stale":"soon"}', 3, 5000, 0), coreError('range', /max_stale/));
  assert.throws(() => new raw.ResolutionRaw({ max_stale: 'soon' }, 3, 5000, 0), coreError('range', /max_stale/));
  const r = new raw.ResolutionRaw('{}', 3, 5000, 0);
  assert.throws(() => r.recordCard('a', new Uint8Array(0), '{"now":"yesterday"}', 1), coreError('range', /\/observation\/now/));
  assert.throws(() => r.recordCard('a', new Uint8Array(0), { now: 'yesterday' }, 1), coreError('range', /\/observation\/now/));
  assert.throws(() => r.stop('bored'), coreError('range', /unknown outcome/));
  assert.equal(r.remainingMs(1000), 4000);
  assert.equal(r.recordFailed('a', 'HTTP 500', 2), 'try_next');
  assert.equal(r.lastDecision(), undefined);
  assert.equal(JSON.parse(r.attempts()).length, 1);
  JSON.parse(r.finish());
  assert.throws(() => r.finish(), coreError('type', /already finished/));
  assert.throws(() => r.recordFailed('b', 'x', 3), coreError('type', /already finished/));
  r.free();
});

// ---------------------------------------------------------------- real sources on 127.0.0.1

const card = (version, skill, extra = {}) => ({
  name: 'worker-7',
  version,
  supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  skills: [{ id: skill, name: 'Execute task', description: 'Runs one planner task.', tags: [] }],
  ...extra,
});
const V3 = card('3.0.0', 'task.execute.v3');
const V2 = card('2.0.0', 'task.execute.v2');
const REQ = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' };

// path -> handler(req, res); requests counted per path.
const routes = new Map();
const hits = new Map();
const serve = (path, status, headers, body) =>
  routes.set(path, (req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
let server;
let base;
let deadUrl;
before(async () => {
  server = createServer((req, res) => {
    hits.set(req.url, (hits.get(req.url) ?? 0) + 1);
    const route = routes.get(req.url);
    if (route) return route(req, res);
    res.writeHead(404).end('no route');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  deadUrl = `http://127.0.0.1:${probe.address().port}/card.json`;
  await new Promise((r) => probe.close(r));

  serve('/replica/stale.json', 200, { 'x-replica-lag-ms': '40000' }, JSON.stringify(V2));
  serve('/replica/stale-v3.json', 200, { 'x-replica-lag-ms': '40000' }, JSON.stringify(V3));
  serve('/replica/fresh-v2.json', 200, { 'x-replica-lag-ms': '0' }, JSON.stringify({ ...V3, skills: V2.skills }));
  serve('/replica/truncated.json', 200, { 'x-replica-lag-ms': '0' }, JSON.stringify(V3).slice(0, 60));
  serve('/replica/huge.json', 200, { 'x-replica-lag-ms': '0' }, JSON.stringify({ ...V3, pad: 'p'.repeat(70000) }));
  serve('/replica/error.json', 500, {}, 'replica broke');
  serve('/primary/card.json', 200, { 'x-replica-lag-ms': '0' }, JSON.stringify(V3));
  serve('/primary/stale.json', 200, { 'x-replica-lag-ms': '15000' }, JSON.stringify(V3));
  routes.set('/primary/stall.json', () => {});
  routes.set('/replica/stall.json', () => {});
  for (const b of ['/agents/w7/replica/', '/agents/w7/primary/']) {
    const lag = b.includes('replica') ? '40000' : '0';
    serve(`${b}.well-known/agent-card.json`, 200, { 'x-replica-lag-ms': lag }, JSON.stringify(lag === '0' ? V3 : V2));
  }
});
after(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});

const url = (path) => `${base}${path}`;
const count = (path) => hits.get(path) ?? 0;

test('stale replica, then the primary: the primary card is accepted, the stale attempt on record', async () => {
  const decisions = [];
  let final;
  const before = count('/primary/card.json');
  const got = await cg.resolveAgentCard([url('/replica/stale.json'), url('/primary/card.json')], REQ, {
    onDecision: (d, info) => decisions.push([d.verdict, info.url, info.observation.lag_ms]),
    onResolution: (d, info) => (final = [d, info]),
  });
  assert.deepEqual(got, V3);
  assert.equal(count('/primary/card.json'), before + 1);
  assert.deepEqual(decisions, [
    ['rejected', url('/replica/stale.json'), '40000'],
    ['valid', url('/primary/card.json'), '0'],
  ]);
  const [decision, info] = final;
  assert.equal(decision.verdict, 'valid');
  assert.equal(decision.card_version, '3.0.0');
  assert.equal(decision.resolution.outcome, 'accepted');
  assert.equal(decision.resolution.source, url('/primary/card.json'));
  assert.equal(decision.resolution.message, `accepted the card from ${url('/primary/card.json')} at attempt 2`);
  assert.equal(info.url, url('/primary/card.json'));
  assert.deepEqual(
    info.attempts.map((a) => [a.source, a.verdict, a.error_class, a.staleness_ms]),
    [
      [url('/replica/stale.json'), 'rejected', 'stale_agent_card', 40000],
      [url('/primary/card.json'), 'valid', null, 0],
    ],
  );
  assert.deepEqual(info.attempts, decision.resolution.attempts);
  assert.equal(decision.card_hash, cg.cardHash(JSON.stringify(V3)));
});

test('stale replica and stale primary: StaleAgentCardError carrying both attempts', async () => {
  await assert.rejects(cg.resolveAgentCard([url('/replica/stale.json'), url('/primary/stale.json')], REQ), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError, `${e.name}: ${e.message}`);
    assert.equal(e.url, url('/primary/stale.json'), 'the last source that served a card');
    assert.equal(e.stalenessMs, 15000);
    assert.deepEqual(e.attempts.map((a) => [a.source, a.verdict, a.error_class]), [
      [url('/replica/stale.json'), 'rejected', 'stale_agent_card'],
      [url('/primary/stale.json'), 'rejected', 'stale_agent_card'],
    ]);
    assert.deepEqual(e.attempts[0].reasons.map((r) => r.code), ['watermark_exceeded', 'version_below_minimum', 'capabilities_missing']);
    assert.equal(e.decision.resolution.outcome, 'sources_exhausted');
    assert.deepEqual(e.decision.resolution.attempts, e.attempts);
    return true;
  });
});

test('a primary that never answers: rejected within the deadline, the timeout on record', async () => {
  const started = performance.now();
  await assert.rejects(cg.resolveAgentCard([url('/replica/stale.json'), url('/primary/stall.json')], REQ, { deadlineMs: 400 }), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError, `${e.name}: ${e.message}`);
    assert.equal(e.url, url('/replica/stale.json'), "the replica's rejection stands");
    assert.equal(e.attempts.length, 2);
    const failed = e.attempts[1];
    assert.equal(failed.source, url('/primary/stall.json'));
    assert.equal(failed.verdict, 'failed');
    assert.match(failed.error, /^did not complete within \d+ ms$/);
    assert.ok(failed.elapsed_ms >= 350 && failed.elapsed_ms < 4000, `recorded at ${failed.elapsed_ms} ms`);
    assert.equal(e.decision.resolution.outcome, 'deadline_passed');
    return true;
  });
  const took = performance.now() - started;
  assert.ok(took < 4000, `the whole resolution took ${took} ms for a 400 ms deadline`);
  assert.ok(took >= 390, `it waited for the deadline (${took} ms)`);

  // timeoutMs bounds each fetch: a stalled replica gives way to the primary within the deadline.
  const t0 = performance.now();
  const got = await cg.resolveAgentCard([url('/replica/stall.json'), url('/primary/card.json')], REQ, { timeoutMs: 150, deadlineMs: 3000 });
  assert.deepEqual(got, V3);
  assert.ok(performance.now() - t0 < 2900, 'well before the 3 s deadline');
});

test('a fresh replica card that lacks the capability stops there: the primary is never asked', async () => {
  const before = count('/primary/card.json');
  await assert.rejects(cg.resolveAgentCard([url('/replica/fresh-v2.json'), url('/primary/card.json')], REQ), (e) => {
    assert.ok(e instanceof cg.CapabilityMismatchError, e.name);
    assert.equal(e.retry, 'none');
    assert.deepEqual(e.missingCapabilities, ['task.execute.v3']);
    assert.equal(e.url, url('/replica/fresh-v2.json'));
    assert.deepEqual(e.attempts.map((a) => [a.source, a.verdict, a.error_class]), [[url('/replica/fresh-v2.json'), 'rejected', 'capability_mismatch']]);
    assert.equal(e.decision.resolution, undefined, 'one attempt that ended the resolution: the plain decision');
    assert.equal(JSON.stringify(e.decision), cg.evaluateRaw(JSON.stringify({ ...V3, skills: V2.skills }), REQ, { lag_ms: '0', now: null }));
    return true;
  });
  assert.equal(count('/primary/card.json'), before, 'no request reached the primary');
});

test('a truncated or oversized replica body, then the primary: accepted', async () => {
  for (const [replica, code] of [['/replica/truncated.json', 'json_syntax'], ['/replica/huge.json', 'body_too_large']]) {
    let final;
    const got = await cg.resolveAgentCard([url(replica), url('/primary/card.json')], REQ, { onResolution: (d, i) => (final = i) });
    assert.deepEqual(got, V3, replica);
    assert.deepEqual(final.attempts.map((a) => [a.verdict, a.error_class, a.reasons.map((r) => r.code)]), [
      ['rejected', 'malformed_card', [code]],
      ['valid', null, []],
    ], replica);
  }
});

test('every source down: source_unavailable (malformed_card, 502) listing each failure', async () => {
  await assert.rejects(cg.resolveAgentCard([deadUrl, url('/replica/error.json')], REQ), (e) => {
    assert.ok(e instanceof cg.MalformedAgentCardError, e.name);
    assert.equal(e.status, 502);
    assert.deepEqual(e.reasons.map((r) => r.code), ['source_unavailable']);
    assert.equal(e.url, null);
    assert.equal(e.decision.resolution.source, null);
    assert.deepEqual(e.attempts.map((a) => [a.source, a.verdict]), [
      [deadUrl, 'failed'],
      [url('/replica/error.json'), 'failed'],
    ]);
    assert.match(e.attempts[0].error, /^failed: .*ECONNREFUSED/);
    assert.equal(e.attempts[1].error, 'answered 500 Internal Server Error, not 2xx');
    assert.match(e.detail ?? e.decision.detail, /answered 500/);
    return true;
  });
});

test('maxAttempts bounds the sources asked; the caller signal ends the resolution', async () => {
  const before = count('/primary/card.json');
  await assert.rejects(
    cg.resolveAgentCard([url('/replica/stale.json'), url('/replica/stale-v3.json'), url('/primary/card.json')], REQ, { maxAttempts: 2 }),
    (e) => e instanceof cg.StaleAgentCardError && e.decision.resolution.outcome === 'attempts_exhausted' && e.attempts.length === 2,
  );
  assert.equal(count('/primary/card.json'), before);
  assert.equal(cg.DEFAULT_MAX_ATTEMPTS, 3);

  const gone = new AbortController();
  await assert.rejects(
    cg.resolveAgentCard([url('/replica/stale.json'), url('/primary/stall.json')], REQ, {
      signal: gone.signal,
      onDecision: () => setTimeout(() => gone.abort(new Error('shutting down')), 50),
    }),
    (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError && !(e instanceof cg.AgentCardTimeoutError), e.name);
      assert.match(e.message, /aborted by the caller: shutting down/);
      assert.deepEqual(e.attempts.map((a) => a.verdict), ['rejected'], 'the attempts made before');
      return true;
    },
  );
});

test('bad sources and options are refused before any request', async () => {
  const before = [...hits.values()].reduce((a, b) => a + b, 0);
  const ok = [url('/replica/stale.json'), url('/primary/card.json')];
  for (const [sources, opts, Ctor, pattern] of [
    [[], {}, TypeError, /non-empty array/],
    [['relative/card.json'], {}, TypeError, /sources\[0\] is not an absolute URL/],
    [[url('/x'), 42], {}, TypeError, /sources\[1\] must be a URL/],
    [[url('/x'), null], {}, TypeError, /^sources\[1\] must be a URL string or a URL, not null$/],
    [[{ href: 42 }], {}, TypeError, /^sources\[0\] must be a URL string or a URL, not /],
    // Credentials in a URL: refused, named by the host alone (the attempts would print them).
    [[ok[0], ok[1].replace('http://', 'http://agent:s3cret@')], {}, TypeError, /sources\[1\]: the URL for "127\.0\.0\.1:\d+" carries user information/],
    [ok[0].replace('http://', 'http://agent:s3cret@'), {}, TypeError, /^url: the URL for .* carries user information/],
    [ok, { maxAttempts: 0 }, RangeError, /maxAttempts/],
    [ok, { maxAttempts: 1.5 }, RangeError, /maxAttempts/],
    [ok, { maxAttempts: '3' }, TypeError, /maxAttempts/],
    [ok, { deadlineMs: 0 }, RangeError, /deadlineMs/],
    [ok, { deadlineMs: '5s' }, TypeError, /deadlineMs/],
    [ok, { timeoutMs: -1 }, RangeError, /timeoutMs/],
    [ok, { signal: 'soon' }, TypeError, /signal/],
    [ok, { signal: {} }, TypeError, /^options\.signal must be an AbortSignal, not /],
    // A function is no AbortSignal, even with the method's name.
    [ok, { signal: Object.assign(() => {}, { addEventListener() {}, removeEventListener() {} }) }, TypeError, /^options\.signal must be an AbortSignal, not /],
  ]) {
    await assert.rejects(cg.resolveAgentCard(sources, REQ, opts), (e) => e instanceof Ctor && pattern.test(e.message) && !e.message.includes('s3cret'), JSON.stringify([sources, opts]));
  }
  await assert.rejects(cg.resolveAgentCard(ok, { max_stale: 'soon' }), /invalid requirement at \/max_stale/);
  assert.equal([...hits.values()].reduce((a, b) => a + b, 0), before, 'no request was sent');
});

test('CardGateResolver({sources}): the path rule on each source, the accepted source on lastResolution', async () => {
  const replicaBase = url('/agents/w7/replica/');
  const primaryBase = url('/agents/w7/primary/');
  const r = new cg.CardGateResolver({ requirement: REQ, sources: [replicaBase, primaryBase] });
  assert.equal(r.lastResolution, null);
  assert.deepEqual(await r.resolve(replicaBase), V3);
  assert.equal(r.lastResolution.url, `${primaryBase}.well-known/agent-card.json`);
  assert.equal(r.lastResolution.decision.resolution.outcome, 'accepted');
  assert.deepEqual(r.lastResolution.attempts.map((a) => a.verdict), ['rejected', 'valid']);
  // The card it returned passes createFromAgentCard's gate (re-checked with the primary's lag).
  assert.deepEqual(r.normalizeAgentCard(V3), V3);
  // A base URL that is not one of the sources is refused (another agent's card is not fetched).
  await assert.rejects(r.resolve(url('/agents/w8/')), /is not one of options\.sources/);
  // A card path that leads the sources off their origin (absolute or protocol-relative) or
  // makes them one URL is refused before any request: it would ask another agent's card in
  // their name (before: every source became that one foreign URL, asked twice).
  const sent = [...hits.values()].reduce((a, b) => a + b, 0);
  for (const [base, path, pattern] of [
    [replicaBase, 'http://other.example/card.json', /out of that source/],
    [replicaBase, '//other.example/card.json', /out of that source/],
    ['http://other.example/x/', 'http://other.example/card.json', /out of that source/],
    // Another agent on the same host, by a relative or an absolute path.
    [replicaBase, '../../w8/.well-known/agent-card.json', /out of that source/],
    [replicaBase, '%2e%2e/%2e%2e/w8/.well-known/agent-card.json', /out of that source/],
    [replicaBase, '/agents/w8/.well-known/agent-card.json', /out of that source/],
    [replicaBase, '..%2F..%2Fw8%2Fcard', /out of that source/],
    [replicaBase, '..;/..;/w8/card', /out of that source/],
    // An escaped dot segment with `;parameters`, which the URL parser leaves as it is.
    [replicaBase, '%2e%2e;x/%2e%2e;x/w8/card', /out of that source/],
    // A single dot with `;parameters` is a dot segment to such a server as well.
    [replicaBase, '.;x/card', /out of that source/],
  ]) {
    await assert.rejects(r.resolve(base, path), (e) => e instanceof TypeError && pattern.test(e.message), `${base} ${path}`);
  }
  // A sibling directory whose name starts with the source's (`replica`, `replicas`).
  const one = new cg.CardGateResolver({ requirement: REQ, sources: [replicaBase] });
  await assert.rejects(one.resolve(replicaBase, '../replicas/.well-known/agent-card.json'), (e) => e instanceof TypeError && /out of that source/.test(e.message));
  // A source given without a trailing slash is its own directory for a path given per call:
  // `w8/card` from `…/w7` would be `…/w8/card`, another agent. The resolver's own path resolves
  // as the SDK resolves it (`https://host/a2a` + the default path is the host's card).
  const bareSources = [`${replicaBase}a2a`, `${primaryBase}a2a`];
  const bare = new cg.CardGateResolver({ requirement: REQ, sources: bareSources });
  await assert.rejects(bare.resolve(bareSources[0], 'w8/card'), (e) => e instanceof TypeError && /out of that source/.test(e.message));
  const twice = new cg.CardGateResolver({ requirement: REQ, sources: [replicaBase, replicaBase] });
  await assert.rejects(twice.resolve(replicaBase), (e) => e instanceof TypeError && /one URL/.test(e.message));
  assert.equal([...hits.values()].reduce((a, b) => a + b, 0), sent, 'no request was sent');
  await bare.resolve(bareSources[0]).catch((e) => assert.ok(!(e instanceof TypeError), `the default path is not refused: ${e}`));
  // The same URL spelled otherwise per call is the resolver's own path too.
  await bare.resolve(bareSources[0], './.well-known/agent-card.json').catch((e) => assert.ok(!(e instanceof TypeError), `./ spelling: ${e}`));
  assert.equal(bare.lastResolution.url, `${primaryBase}.well-known/agent-card.json`);
  // A null path is no path, as in the SDK's resolver (not the relative URL "null").
  assert.deepEqual(await r.resolve(replicaBase, null), V3);
  assert.equal(r.lastResolution.url, `${primaryBase}.well-known/agent-card.json`);
  const nullOption = new cg.CardGateResolver({ requirement: REQ, path: null });
  assert.deepEqual(await nullOption.resolve(primaryBase), V3);
  assert.equal(nullOption.lastResolution.url, `${primaryBase}.well-known/agent-card.json`);
  // A function maps any base URL to that agent's sources.
  const mapped = new cg.CardGateResolver({ requirement: REQ, sources: async (b) => [b, b.replace('/replica/', '/primary/')] });
  assert.deepEqual(await mapped.resolve(replicaBase), V3);
  // A function may send a base to other places only (a directory's mirror): only a fixed list
  // must name the base asked.
  const elsewhere = new cg.CardGateResolver({ requirement: REQ, sources: async (b) => [b.replace('/replica/', '/primary/')] });
  assert.deepEqual(await elsewhere.resolve(replicaBase), V3);
  assert.equal(elsewhere.lastResolution.url, `${primaryBase}.well-known/agent-card.json`);
  // Sources that are (or a function returns) no list, or an empty one: refused before any request,
  // in the resolver's words.
  const before = [...hits.values()].reduce((a, b) => a + b, 0);
  for (const sources of [[], 'https://replica.example/', async () => [], async () => null]) {
    const none = new cg.CardGateResolver({ requirement: REQ, sources });
    await assert.rejects(none.resolve(replicaBase), (e) => {
      assert.ok(e instanceof TypeError, `${e.name}: ${e.message}`);
      assert.equal(e.message, 'CardGateResolver: options.sources must be (or return) a non-empty array of base URLs');
      return true;
    });
  }
  assert.equal([...hits.values()].reduce((a, b) => a + b, 0), before, 'no request was sent');
  // Refused: lastResolution says why, with the attempts.
  const staleOnly = new cg.CardGateResolver({ requirement: REQ, sources: [replicaBase] });
  await assert.rejects(staleOnly.resolve(replicaBase), cg.StaleAgentCardError);
  assert.equal(staleOnly.lastResolution.decision.verdict, 'rejected');
  assert.equal(staleOnly.lastResolution.attempts.length, 1);
  // Without sources, the single-URL resolver is unchanged (no attempts).
  const single = new cg.CardGateResolver({ requirement: REQ });
  assert.deepEqual(await single.resolve(primaryBase), V3);
  assert.equal(single.lastResolution.attempts, null);
  assert.equal(single.lastResolution.decision.resolution, undefined);
  // A requirement given as a function (of the card URL) names no requirement for a card handed
  // over from elsewhere: it is judged by {} unless options.cardRequirement says more, so without
  // a watermark it fails as unverifiable, with the typed error.
  const perUrl = new cg.CardGateResolver({ requirement: async () => REQ });
  assert.throws(() => perUrl.normalizeAgentCard(structuredClone(V3)), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError, `${e.name}: ${e.message}`);
    assert.deepEqual(e.reasons.map((r) => r.code), ['freshness_unverifiable']);
    return true;
  });
});

// ---------------------------------------------------------------- the vectors end to end

// Each vector whose answers do not depend on the host clock (every answer arrives before the
// deadline) and that has no budget (a host-side bound of Envoy's): its sources served over HTTP,
// a failed source as an HTTP 503, the observation's lag as x-replica-lag-ms.
const E2E = CASES.filter((c) => c.budget === undefined && c.sources.every((s) => s.at_ms < (c.limits?.deadline_ms ?? 5000)));

test('the resolution vectors end to end through resolveAgentCard over HTTP', async () => {
  assert.ok(E2E.length >= 10, `only ${E2E.length} vectors replayable over HTTP`);
  for (const [i, c] of E2E.entries()) {
    const names = new Map();
    const urls = c.sources.map((s) => {
      const path = `/vector/${i}/${s.source}`;
      names.set(url(path), s.source);
      const obs = s.observation ?? {};
      assert.deepEqual(Object.keys(obs).filter((k) => k !== 'lag_ms'), [], `${c.name}: only lag_ms maps to a header here`);
      // A source with final_url redirects there, where the answer is served.
      let answered = path;
      if (s.final_url !== undefined) {
        answered = `/vector/${i}/answered/${s.final_url}`;
        names.set(url(answered), s.final_url);
        serve(path, 302, { location: answered }, '');
      }
      if (s.failed !== undefined) serve(answered, 503, {}, s.failed);
      else serve(answered, 200, obs.lag_ms === undefined ? {} : { 'x-replica-lag-ms': obs.lag_ms }, caseBytes(s));
      return url(path);
    });
    const before = urls.map((u) => count(new URL(u).pathname));
    let decision;
    const opts = { now: null, maxAttempts: c.limits?.max_attempts, deadlineMs: c.limits?.deadline_ms, onResolution: (d) => (decision = d) };
    try {
      await cg.resolveAgentCard(urls, c.requirement ?? {}, opts);
    } catch (e) {
      if (!(e instanceof cg.CardGateError)) throw e;
    }
    const tried = urls.filter((u, k) => count(new URL(u).pathname) > before[k]).length;
    const named = JSON.parse(JSON.stringify(decision));
    if (named.resolution) {
      named.resolution.source = named.resolution.source === null ? null : names.get(named.resolution.source);
      for (const a of named.resolution.attempts) {
        a.source = names.get(a.source);
        if (a.final_url !== undefined) a.final_url = names.get(a.final_url);
      }
    }
    assert.deepEqual(diffs(c.expect, named, tried), [], `${c.name}: ${JSON.stringify(named)}`);
  }
});

test('a signal of null is no signal; a source whose own directory reads as an escape still serves the cards under it', async () => {
  const asked = [];
  const fetch = async (u) => {
    asked.push(u);
    return new Response(JSON.stringify(V3), { headers: { 'x-replica-lag-ms': '0' } });
  };
  assert.deepEqual(await cg.resolveAgentCard(['http://a.invalid/card'], REQ, { fetch, signal: null }), V3);
  // Only the path below the source's directory is searched for encoded slashes and dot segments:
  // the source itself was the caller's choice.
  for (const source of ['http://a.invalid/reg%2Fistry/w7/', 'http://a.invalid/x/..;/w7/']) {
    const r = new cg.CardGateResolver({ requirement: REQ, sources: [source], fetch });
    assert.deepEqual(await r.resolve(source, 'card.json'), V3, source);
    assert.equal(asked.at(-1), `${source}card.json`);
  }
});
