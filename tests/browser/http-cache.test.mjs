// The browser's own HTTP layer between the package's web build and a card server, in a real
// Chromium: its HTTP cache, and what it hides of a cross-origin answer.
//
// - A card a server marks cacheable (`max-age`, or only `Last-Modified`: heuristic freshness) was
//   answered from Chromium's HTTP cache on the next resolution, with its headers as stored (the
//   lag of then; `Age` not brought up to date), so a card of any age could pass. The package now
//   asks with `cache: 'no-store'`: each resolution reaches the server (and the browser sends
//   `Cache-Control: no-cache`, so caches on the way revalidate).
// - A cross-origin answer shows only the headers its server exposes; a hidden `Age` or a hidden
//   contradicting lag cannot be told from an absent one. Such an answer is a failed source unless
//   the caller states `watermark.corsExposed`.
// The inspector's own "load from a URL" is tested in inspector.test.mjs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { gotoInspector, launchBrowser, openPage, startSite } from './harness.mjs';

const CARD = JSON.stringify({
  name: 'worker-7',
  description: 'cache test card',
  version: '3.1.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'task.execute.v3', name: 'execute', description: 'x', tags: ['t'] }],
});
const REQ = { require: ['task.execute.v3'], max_stale: '10s' };
const EXPOSE = 'x-replica-lag-ms, x-replica-lag-s, x-replica-synced-at, x-consul-lastcontact, x-consul-knownleader, age';

let site;
let browser;
let cards;
let page;
// What the card server answers next, and what it was asked.
const state = { lag: '0', extra: {}, expose: EXPOSE, requests: [] };

before(async () => {
  site = await startSite();
  cards = http.createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-expose-headers': state.expose };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    state.requests.push({ url: req.url, cacheControl: req.headers['cache-control'] || null, pragma: req.headers.pragma || null });
    res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': state.lag, ...state.extra, ...cors });
    res.end(CARD);
  });
  await new Promise((resolve) => cards.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser();
  ({ page } = await openPage(browser));
  await gotoInspector(page, site.url);
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => cards?.close(resolve));
  await site?.close();
});

// The card server on another origin than the page: `localhost` when the page is on 127.0.0.1.
function cardUrl(path) {
  const host = new URL(site.url).hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  return `http://${host}:${cards.address().port}${path}`;
}

/** resolveAgentCard in the page: {ok, verdict/staleness} or {error, name, message}. */
function resolveInPage(url, watermark) {
  return page.evaluate(async ({ url, req, watermark }) => {
    try {
      let decision = null;
      await window.cardgate.resolveAgentCard(url, req, { watermark, onDecision: (d) => { decision = d; } });
      return { ok: true, verdict: decision.verdict, staleness: decision.staleness_ms };
    } catch (e) {
      return { ok: false, name: e.name, message: e.message, code: e.reasons?.[0]?.code ?? null };
    }
  }, { url, req: REQ, watermark });
}

for (const [name, extra] of [
  ['max-age', { 'cache-control': 'max-age=600' }],
  ['Last-Modified only (heuristic freshness)', { 'last-modified': new Date(Date.now() - 30 * 86400e3).toUTCString() }],
  ['max-age with a stored Age', { 'cache-control': 'max-age=600', age: '2' }],
]) {
  test(`a cacheable card (${name}) is asked of the server on every resolution, not read from the browser's cache`, async () => {
    const path = `/card-${encodeURIComponent(name)}.json`;
    state.extra = extra;
    state.expose = EXPOSE;
    state.lag = '0';
    const before = state.requests.length;
    const first = await resolveInPage(cardUrl(path), { corsExposed: true });
    assert.deepEqual(first, { ok: true, verdict: 'valid', staleness: extra.age ? 2000 : 0 });
    // The replica falls behind: the same URL must now be refused.
    state.lag = '40000';
    const second = await resolveInPage(cardUrl(path), { corsExposed: true });
    assert.equal(second.ok, false, `served from the browser's cache: ${JSON.stringify(second)}`);
    assert.equal(second.name, 'StaleAgentCardError');
    assert.equal(second.code, 'watermark_exceeded');
    const asked = state.requests.slice(before);
    assert.equal(asked.length, 2, 'both resolutions reached the server');
    for (const r of asked) {
      // The Fetch standard's `no-store` request: caches on the way must revalidate.
      assert.equal(r.cacheControl, 'no-cache');
      assert.equal(r.pragma, 'no-cache');
    }
  });
}

test('a cross-origin answer is a failed source unless the caller states its server exposes the watermark headers', async () => {
  state.extra = { age: '120', 'cache-control': 'no-store' };
  state.lag = '0';
  // The server exposes the lag but not Age: the browser hides 120 s of cache time.
  state.expose = 'x-replica-lag-ms';
  const hidden = await resolveInPage(cardUrl('/cors.json'));
  assert.equal(hidden.ok, false);
  assert.equal(hidden.name, 'AgentCardFetchError');
  assert.match(hidden.message, /answered cross-origin/);
  assert.match(hidden.message, /Access-Control-Expose-Headers/);
  assert.match(hidden.message, /x-replica-lag-ms, x-replica-lag-s, x-replica-synced-at, X-Consul-LastContact, X-Consul-KnownLeader, Age/);
  assert.match(hidden.message, /corsExposed = true/);
  // The message names the headers this resolution reads, no more.
  for (const off of [null, false, '']) {
    const fewer = await resolveInPage(cardUrl('/cors.json'), { consul: false, age: false, lagSHeader: off });
    assert.match(fewer.message, /List x-replica-lag-ms, x-replica-synced-at there/, `lagSHeader: ${JSON.stringify(off)}`);
  }
  // Re-resolution moves on from such a source, and fails closed when none is left.
  const chain = await page.evaluate(async ({ urls, req }) => {
    try {
      await window.cardgate.resolveAgentCard(urls, req);
      return { ok: true };
    } catch (e) {
      return { ok: false, name: e.name, code: e.reasons?.[0]?.code ?? null, attempts: e.attempts?.length ?? null };
    }
  }, { urls: [cardUrl('/cors.json'), cardUrl('/cors2.json')], req: REQ });
  assert.deepEqual(chain, { ok: false, name: 'MalformedAgentCardError', code: 'source_unavailable', attempts: 2 });
  // The caller's statement, when true, lets the answer be read as natively: Age counts.
  state.expose = EXPOSE;
  const exposed = await resolveInPage(cardUrl('/cors.json'), { corsExposed: true });
  assert.equal(exposed.ok, false);
  assert.equal(exposed.code, 'watermark_exceeded');
  state.extra = {};
  assert.deepEqual(await resolveInPage(cardUrl('/cors.json'), { corsExposed: true }), { ok: true, verdict: 'valid', staleness: 0 });
  // A statement of the wrong type is refused before any request.
  const typed = await resolveInPage(cardUrl('/cors.json'), { corsExposed: 'yes' });
  assert.equal(typed.name, 'TypeError');
  assert.match(typed.message, /options\.watermark\.corsExposed must be a boolean/);
});

test("the inspector's \"load from a URL\": a cross-origin answer's headers fill the watermark only when the user states the server exposes them", async () => {
  state.extra = {};
  state.expose = EXPOSE;
  state.lag = '0';
  const load = async (exposed) => {
    await page.evaluate(({ url, exposed, req }) => {
      document.getElementById('cors-exposed').checked = exposed;
      document.getElementById('req-require').value = req.require.join('\n');
      document.getElementById('req-max-stale').value = req.max_stale;
      document.getElementById('obs-use-clock').checked = true;
      document.getElementById('card-url').value = url;
      document.getElementById('fetch-status').textContent = '';
      document.getElementById('fetch-card').click();
    }, { url: cardUrl('/inspect.json'), exposed, req: REQ });
    await page.waitForFunction(() => /bytes\. Headers read/.test(document.getElementById('fetch-status').textContent), null, { timeout: 10000 });
    // The verdict follows the form (the page re-evaluates on input).
    await page.locator('#inputs button[type=submit]').click();
    return page.evaluate(() => ({
      lag: document.getElementById('obs-lag-ms').value,
      status: document.getElementById('fetch-status').textContent.replace(/\s+/g, ' '),
      verdict: document.getElementById('verdict').className,
      detail: document.getElementById('verdict-detail').textContent,
    }));
  };
  const hidden = await load(false);
  assert.equal(hidden.lag, '', 'the exposed lag is not used');
  assert.match(hidden.status, /is on another origin/);
  assert.doesNotMatch(hidden.verdict, /\bvalid\b/);
  const exposed = await load(true);
  assert.equal(exposed.lag, '0');
  assert.doesNotMatch(exposed.status, /is on another origin/);
  assert.match(exposed.verdict, /\bvalid\b/);
});
