// Scenarios from the independent scenario review (tests/scenarios/README.md) through the npm
// package's resolveAgentCard over real HTTP on loopback: exact answers, decisions checked against
// DESIGN.md and against what `cardgate resolve` and the Envoy filter decide for the same answer.
import assert from 'node:assert/strict';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { importPackage } from './consumer.mjs';
import { rawAnswer, rawServer } from './helpers.mjs';

const cg = await importPackage();

const FRESH = JSON.stringify({
  name: 'worker-7',
  version: '3.0.0',
  supportedInterfaces: [{ url: 'wss://worker-7b.internal/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 'task.execute.v3', name: 'Execute task', description: 'Runs one planner task.', tags: ['task'] }],
});
const REQUIREMENT = { require: ['task.execute.v3'], max_stale: '10s' };

// Exact response bytes per path (raw sockets: repeated headers, any case, any status line).
const routes = new Map();
// path -> the head of the last request for it.
const heads = new Map();
let server;
let base;
before(async () => {
  server = await rawServer((method, path, head) => {
    heads.set(path, head);
    return routes.get(path);
  });
  base = server.base;
});
after(() => server.close());

const CT = ['content-type', 'application/json'];

// DESIGN.md "Whole cards" / "Envoy host": a 206 is never valid, and a failed attempt when
// re-resolving. The package used to return the card.
test('scenario: a 206 Partial Content answer is never a valid card', async () => {
  routes.set('/206/replica', rawAnswer('206 Partial Content', [CT, ['x-replica-lag-ms', '0'], ['content-range', 'bytes 0-10/500']], FRESH));
  routes.set('/206/primary', rawAnswer('200 OK', [CT, ['x-replica-lag-ms', '0']], FRESH));
  await assert.rejects(cg.resolveAgentCard(`${base}/206/replica`, REQUIREMENT), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError, String(e));
    assert.equal(e.status, 206);
    return true;
  });
  // Alone in a source list: no source served a card.
  await assert.rejects(cg.resolveAgentCard([`${base}/206/replica`], REQUIREMENT), (e) => {
    assert.ok(e instanceof cg.MalformedAgentCardError, String(e));
    assert.deepEqual(e.decision.reasons.map((r) => r.code), ['source_unavailable']);
    assert.equal(e.attempts[0].verdict, 'failed');
    return true;
  });
  let final;
  const card = await cg.resolveAgentCard([`${base}/206/replica`, `${base}/206/primary`], REQUIREMENT, {
    onResolution: (d) => { final = d; },
  });
  assert.equal(card.version, '3.0.0');
  const attempts = final.resolution.attempts;
  assert.deepEqual(attempts.map((a) => a.verdict), ['failed', 'valid']);
  assert.match(attempts[0].error, /206/);
});

// The same header scenarios as tests/cli.rs (its "scenarios from the review" section): the same reason in both runtimes.
test('scenario: watermark headers decide the same as cardgate resolve', async () => {
  const cases = [
    ['/h/dup', [CT, ['X-Replica-Lag-Ms', '0'], ['x-replica-lag-ms', '0']], 'watermark_invalid'],
    ['/h/age', [CT, ['x-replica-lag-ms', '5000'], ['age', '6']], 'watermark_exceeded'],
    ['/h/agedup', [CT, ['x-replica-lag-ms', '0'], ['age', '1'], ['Age', '1']], 'watermark_invalid'],
    ['/h/ageonly', [CT, ['age', '0']], 'freshness_unverifiable'],
    ['/h/follower', [CT, ['X-Consul-LastContact', '0'], ['X-Consul-KnownLeader', 'false']], 'leader_unknown'],
    ['/h/empty', [CT, ['x-replica-lag-ms', '']], 'watermark_invalid'],
    ['/h/neg', [CT, ['x-replica-lag-ms', '-1']], 'watermark_invalid'],
    ['/h/both', [CT, ['x-replica-lag-ms', '0'], ['x-replica-lag-s', '40']], 'watermark_contradictory'],
  ];
  for (const [path, headers, code] of cases) {
    routes.set(path, rawAnswer('200 OK', headers, FRESH));
    await assert.rejects(cg.resolveAgentCard(`${base}${path}`, REQUIREMENT), (e) => {
      assert.ok(e instanceof cg.StaleAgentCardError, `${path}: ${e}`);
      assert.deepEqual(e.decision.reasons.map((r) => r.code), [code], path);
      assert.ok(e.decision.card, `${path}: the typed error carries the card`);
      return true;
    });
  }
});

// Nineteenth session (resolution red team): a 204 or 205 has no content. fetch reads no body on
// either (the Fetch standard's null body statuses; @a2a-js/sdk's resolver fails on them), so the
// package read `body_empty` while `cardgate resolve` read the bytes after the headers and said
// `valid` on a 205. Both now record a failed source with the core's text
// (`statusWithoutCard`), the same attempt as the CLI's.
test('scenario: a 204 or 205 with a body is a failed source, the attempt as cardgate resolve records it', async () => {
  for (const [status, why] of [
    ['204 No Content', 'HTTP 204 No Content: a status without content, not a card'],
    ['205 Reset Content', 'HTTP 205 Reset Content: a status without content, not a card'],
  ]) {
    const code = status.slice(0, 3);
    routes.set(`/${code}/replica`, rawAnswer(status, [CT, ['x-replica-lag-ms', '0']], FRESH));
    routes.set(`/${code}/primary`, rawAnswer('200 OK', [CT, ['x-replica-lag-ms', '0']], FRESH));
    await assert.rejects(cg.resolveAgentCard(`${base}/${code}/replica`, REQUIREMENT), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, `${status}: ${e}`);
      assert.equal(e.status, Number(code));
      assert.equal(e.message, `GET ${base}/${code}/replica failed: ${why}`);
      return true;
    });
    let final;
    await cg.resolveAgentCard([`${base}/${code}/replica`, `${base}/${code}/primary`], REQUIREMENT, {
      onResolution: (d) => {
        final = d;
      },
    });
    assert.deepEqual(final.resolution.attempts.map((a) => a.verdict), ['failed', 'valid']);
    assert.equal(final.resolution.attempts[0].error, why);
  }
});

// Nineteenth session: the package asks for `accept-encoding: identity` and reads a
// Content-Encoding as `cardgate resolve` and the Envoy filter do (the core's rule): any coding
// other than identity is `body_encoded`. It used to read what fetch decoded (gzip, x-gzip,
// deflate, br) or passed through (x-custom), so the CLI and the package decided differently on
// the same answer, and an x-gzip or br card was valid where a2a-sdk's httpx (no brotli) reads
// the encoded bytes and fails.
test('scenario: a Content-Encoding other than identity is body_encoded, as in cardgate resolve', async () => {
  const gz = gzipSync(FRESH);
  const encoded = [
    ['gzip', gz],
    ['x-gzip', gz],
    ['deflate', deflateSync(FRESH)],
    ['br', brotliCompressSync(FRESH)],
    ['x-custom', Buffer.from(FRESH)],
    ['identity, gzip', gz],
  ];
  for (const [k, [coding, body]] of encoded.entries()) {
    routes.set(`/ce/${k}`, rawAnswer('200 OK', [CT, ['x-replica-lag-ms', '0'], ['content-encoding', coding]], body));
    await assert.rejects(cg.resolveAgentCard(`${base}/ce/${k}`, REQUIREMENT), (e) => {
      assert.ok(e instanceof cg.MalformedAgentCardError, `${coding}: ${e}`);
      assert.deepEqual(e.decision.reasons.map((r) => r.code), ['body_encoded'], coding);
      assert.equal(e.decision.detail, `the body has Content-Encoding ${JSON.stringify(coding)}; the gate reads identity-encoded cards only`);
      return true;
    });
    assert.match(heads.get(`/ce/${k}`), /\r\naccept-encoding: identity\r\n/i, coding);
    // In a source list: a card attempt (malformed), then the next source.
    let final;
    routes.set(`/ce/${k}/primary`, rawAnswer('200 OK', [CT, ['x-replica-lag-ms', '0']], FRESH));
    await cg.resolveAgentCard([`${base}/ce/${k}`, `${base}/ce/${k}/primary`], REQUIREMENT, {
      onResolution: (d) => {
        final = d;
      },
    });
    const first = final.resolution.attempts[0];
    assert.deepEqual([first.verdict, first.reasons.map((r) => r.code)], ['rejected', ['body_encoded']], coding);
  }
  // identity in any listing is no coding: the card.
  for (const [k, coding] of ['identity', '', 'Identity, identity', ' , '].entries()) {
    routes.set(`/ci/${k}`, rawAnswer('200 OK', [CT, ['x-replica-lag-ms', '0'], ['content-encoding', coding]], FRESH));
    assert.equal((await cg.resolveAgentCard(`${base}/ci/${k}`, REQUIREMENT)).version, '3.0.0', JSON.stringify(coding));
  }
});

// Twenty-sixth session (an HTTP framing differential against the real SDKs' resolvers): undici
// keeps a header name written with whitespace before its colon (`x-replica-lag-ms : 50000` is
// the header "x-replica-lag-ms "), so the package judged the lag 0 beside it and said valid,
// where `cardgate resolve` (ureq) and httpx refuse the answer and a proxy trims the name into a
// second, contradicting lag (RFC 9112 section 5.1). Now a failed source, as in the CLI.
test('scenario: a header name that is not a token is a failed source', async () => {
  routes.set('/ws/replica', rawAnswer('200 OK', [CT, ['x-replica-lag-ms', '0'], ['x-replica-lag-ms ', '50000']], FRESH));
  routes.set('/ws/other', rawAnswer('200 OK', [CT, ['x-replica-lag-ms', '0'], ['x-note ', 'a']], FRESH));
  routes.set('/ws/primary', rawAnswer('200 OK', [CT, ['x-replica-lag-ms', '0']], FRESH));
  for (const path of ['/ws/replica', '/ws/other']) {
    await assert.rejects(cg.resolveAgentCard(`${base}${path}`, REQUIREMENT), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, `${path}: ${e}`);
      // Node 20 and 22's undici keep such a name and the package refuses it; from Node 24 on,
      // undici refuses the answer itself ("fetch failed"). Either way the source failed.
      assert.match(e.message, /not an HTTP token|fetch failed/, path);
      return true;
    });
  }
  let final;
  const card = await cg.resolveAgentCard([`${base}/ws/replica`, `${base}/ws/primary`], REQUIREMENT, {
    onResolution: (d) => { final = d; },
  });
  assert.equal(card.version, '3.0.0');
  assert.deepEqual(final.resolution.attempts.map((a) => a.verdict), ['failed', 'valid']);
  // The control: the same answer without the odd name is valid.
  assert.equal((await cg.resolveAgentCard(`${base}/ws/primary`, REQUIREMENT)).version, '3.0.0');
});
