// The inspector's "load from a URL" and redirects (DESIGN.md "Redirects"), in real Chromium: the
// inspector is served over http (as `make www` serves it), the card sources over real https
// (a self-signed certificate the context accepts) and http. Chromium follows the redirects and
// shows only the URL that answered.
// - an https source that answered over http is a failed fetch (the card and its watermark
//   crossed the network in the clear), as in the package;
// - an https source that was redirected, on this http page, may have passed an http hop the
//   browser neither blocks nor shows: its watermark headers are not used (no watermark: not fresh);
// - the same source asked without a redirect fills the watermark (the control);
// - what the fetch asks (JSON, no cache), a scheme named only in the query, a redirect back to the
//   URL asked, a same-origin answer (read without the "server exposes" box), and the page's words
//   for a URL that does not parse, a port where nothing listens and an answer that never ends.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gotoInspector, launchBrowser, startSite } from './harness.mjs';

const CARD = JSON.stringify({
  name: 'worker-7',
  version: '3.1.0',
  supportedInterfaces: [{ url: 'https://worker-7.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  skills: [{ id: 'task.execute.v3', name: 'execute', description: 'x', tags: ['t'] }],
});
// Every header the inspector reads, exposed: the "server lists every one" box may be ticked.
const EXPOSE = 'x-replica-lag-ms, x-replica-lag-s, x-replica-synced-at, x-consul-lastcontact, x-consul-knownleader, age';

let dir;
let site;
let plain;
let tls;
let browser;
let context;
const hits = [];
const base = {};

// The request headers of the last request each server saw.
const asked = {};
// `/bounce` redirects to `/back` once, which redirects to `/bounce` again: the answer's URL is the
// one asked, though it was redirected.
let bounced = false;
// Answers `/stall` left open.
const stalled = [];

function handler(name) {
  return (req, res) => {
    hits.push(`${name} ${req.url}`);
    asked[name] = req.headers;
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSE };
    // A query is not a route: `/card?x=https:` is the card (the https tests read the scheme only).
    const path = req.url.split('?')[0];
    if (path === '/bounce') bounced = !bounced;
    if (path === '/back' || (path === '/bounce' && bounced)) {
      res.writeHead(302, { location: path === '/bounce' ? '/back' : '/bounce', ...cors });
      return res.end();
    }
    if (path === '/stall') {
      // Headers and part of the card, then nothing: held open until the test ends it.
      res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0', ...cors });
      res.write(CARD.slice(0, 10));
      stalled.push(res);
      return undefined;
    }
    if (path === '/card' || path === '/bounce') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0', ...cors });
      return res.end(CARD);
    }
    if (req.url === '/partial') {
      res.writeHead(206, { 'content-type': 'application/json', 'content-range': `bytes 0-${CARD.length - 1}/${CARD.length}`, 'x-replica-lag-ms': '0', ...cors });
      return res.end(CARD);
    }
    const to = { '/down': `${base.plain}/card`, '/same': `${base.tls}/card` }[req.url];
    res.writeHead(to ? 302 : 404, to ? { location: to, ...cors } : cors);
    return res.end();
  };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cardgate-inspector-redirect-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'pipe' });
  plain = http.createServer(handler('plain'));
  tls = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, handler('tls'));
  await new Promise((ok) => plain.listen(0, '127.0.0.1', ok));
  await new Promise((ok) => tls.listen(0, '127.0.0.1', ok));
  base.plain = `http://127.0.0.1:${plain.address().port}`;
  base.tls = `https://127.0.0.1:${tls.address().port}`;
  site = await startSite();
  browser = await launchBrowser();
  context = await browser.newContext({ ignoreHTTPSErrors: true });
});

after(async () => {
  await context?.close();
  await browser?.close();
  await site?.close();
  plain?.close();
  tls?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Loads `url` through the inspector's "Fetch" with a requirement the card meets. */
async function load(page, url) {
  await page.evaluate((url) => {
    document.getElementById('cors-exposed').checked = true;
    document.getElementById('req-require').value = 'task.execute.v3';
    document.getElementById('req-max-stale').value = '10s';
    document.getElementById('obs-use-clock').checked = true;
    document.getElementById('obs-lag-ms').value = '';
    document.getElementById('fetch-status').textContent = '';
    document.getElementById('page-error').hidden = true;
    document.getElementById('card-url').value = url;
    document.getElementById('fetch-card').click();
  }, url);
  await page.waitForFunction(
    () => /Headers read/.test(document.getElementById('fetch-status').textContent) || !document.getElementById('page-error').hidden,
    null,
    { timeout: 10000 },
  );
  // Read before the form is submitted again (which clears the page's error box).
  const error = await page.evaluate(() =>
    document.getElementById('page-error').hidden ? null : document.getElementById('page-error').textContent.replace(/\s+/g, ' '));
  await page.locator('#inputs button[type=submit]').click();
  return page.evaluate((error) => ({
    error,
    lag: document.getElementById('obs-lag-ms').value,
    status: document.getElementById('fetch-status').textContent.replace(/\s+/g, ' '),
    verdict: document.getElementById('verdict').className,
    freshness: document.getElementById('cond-b').textContent.replace(/\s+/g, ' '),
  }), error);
}

test('the inspector: an https source answering over http is a failed fetch; a redirected https source on an http page is not fresh', async () => {
  const page = await context.newPage();
  await gotoInspector(page, site.url);

  // The control: straight from the https source, the exposed lag fills the watermark.
  const direct = await load(page, `${base.tls}/card`);
  assert.equal(direct.error, null);
  assert.equal(direct.lag, '0');
  assert.doesNotMatch(direct.status, /redirected/);
  assert.match(direct.verdict, /\bvalid\b/);

  // https -> http: the browser followed it (this page is http: no mixed-content block).
  hits.length = 0;
  const down = await load(page, `${base.tls}/down`);
  assert.deepEqual(hits, ['tls /down', 'plain /card'], 'Chromium followed the downgrade itself');
  assert.ok(down.error, JSON.stringify(down));
  assert.match(down.error, /must answer over https/);
  assert.match(down.error, new RegExp(`${base.plain}/card`.replace(/[.]/g, '\\.')));
  assert.equal(down.lag, '', 'no watermark taken from the downgraded answer');
  assert.doesNotMatch(down.verdict, /\bvalid\b/);

  // The same downgrade asked with a URL text only the URL parser reads as https (a leading
  // control character, a tab inside the scheme): the https check reads the parsed URL.
  for (const spelling of [`\u0001${base.tls}/down`, `${base.tls.replace('https', 'ht\ttps')}/down`]) {
    const odd = await load(page, spelling);
    assert.ok(odd.error, JSON.stringify({ spelling, odd }));
    assert.match(odd.error, /must answer over https/);
    assert.equal(odd.lag, '', JSON.stringify(spelling));
    assert.doesNotMatch(odd.verdict, /\bvalid\b/);
  }

  // A fragment is not a redirect (`response.url` never has one): the watermark is used.
  const fragment = await load(page, `${base.tls}/card#v3`);
  assert.equal(fragment.error, null, JSON.stringify(fragment));
  assert.equal(fragment.lag, '0');
  assert.doesNotMatch(fragment.status, /redirected/);
  assert.match(fragment.verdict, /\bvalid\b/);

  // A 206 carries part of a card, never a whole one: a failed fetch, as in the package and the CLI.
  const partial = await load(page, `${base.tls}/partial`);
  assert.ok(partial.error, JSON.stringify(partial));
  assert.match(partial.error, /HTTP 206 Partial Content: not a whole card/);
  assert.doesNotMatch(partial.verdict, /\bvalid\b/);

  // https -> https: the card is shown, but the hops are not visible from an http page.
  const same = await load(page, `${base.tls}/same`);
  assert.equal(same.error, null);
  assert.match(same.status, new RegExp(`from ${base.tls.replace(/[.]/g, '\\.')}/card \\(redirected\\)`));
  assert.match(same.status, /cannot be checked/);
  assert.equal(same.lag, '', 'the lag of a redirected https answer is not used on an http page');
  assert.match(same.freshness, /freshness_unverifiable/);
  assert.doesNotMatch(same.verdict, /\bvalid\b/);
  await page.close();
});

// What the fetch asks and where its answer came from, read from the parsed URLs; and the page's
// words for a URL that does not parse and a server that does not answer (each a failed fetch).
test('the inspector: what "load from a URL" asks, a scheme named in the query, a redirect back to the URL asked, and failed fetches', async () => {
  const page = await context.newPage();
  await gotoInspector(page, site.url);

  // Asked as a card request that no cache may answer: JSON, and the Fetch standard's no-store.
  const direct = await load(page, `${base.plain}/card`);
  assert.equal(direct.error, null);
  assert.equal(asked.plain.accept, 'application/json');
  assert.equal(asked.plain['cache-control'], 'no-cache');
  assert.equal(asked.plain.pragma, 'no-cache');
  // The status lists each header read, and nothing else.
  assert.match(direct.status, new RegExp(`^HTTP 200, ${CARD.length} bytes\\. Headers read:`));
  const unread = (h, k) => `${h} → ${k}: not readable (absent, or not exposed by CORS)`;
  assert.deepEqual(await page.locator('#fetch-status li').allInnerTexts(), [
    'x-replica-lag-ms → lag_ms: 0', unread('x-replica-lag-s', 'lag_s'), unread('x-replica-synced-at', 'synced_at'),
    unread('x-consul-lastcontact', 'consul_last_contact_ms'), unread('x-consul-knownleader', 'consul_known_leader'),
    unread('age', 'age_s'),
  ]);

  // "https:" in an http URL's query is not an https source, and "http:" in an https URL's query
  // is no downgrade: the scheme is the parsed URL's.
  for (const url of [`${base.plain}/card?from=https://x`, `${base.tls}/card?from=http://x`]) {
    const got = await load(page, url);
    assert.equal(got.error, null, url);
    assert.equal(got.lag, '0', url);
    assert.match(got.verdict, /\bvalid\b/, url);
  }

  // Redirected back to the URL asked: the answer's URL is the one asked, but it went through
  // another, so on this http page its watermark is not used.
  bounced = false;
  hits.length = 0;
  const bounce = await load(page, `${base.tls}/bounce`);
  assert.deepEqual(hits, ['tls /bounce', 'tls /back', 'tls /bounce']);
  assert.equal(bounce.error, null);
  assert.equal(bounce.lag, '');
  assert.match(bounce.freshness, /freshness_unverifiable/);
  assert.doesNotMatch(bounce.verdict, /\bvalid\b/);
  assert.equal(await page.locator('#fetch-status .cors-note').count(), 1);
  assert.match(await page.locator('#fetch-status .cors-note').innerText(), /cannot be checked/);

  // A URL that does not parse, and a port where nothing listens.
  // (The error box's title and message, as its text content reads them.)
  const bad = await load(page, 'http://[');
  assert.equal(bad.error, 'Could not fetch http://["http://[" is not a URL.');
  const closed = http.createServer();
  await new Promise((ok) => closed.listen(0, '127.0.0.1', ok));
  const gone = `http://127.0.0.1:${closed.address().port}/card`;
  await new Promise((ok) => closed.close(ok));
  const refused = await load(page, gone);
  assert.equal(refused.error, `Could not fetch ${gone}Failed to fetch. The server may be unreachable, or it does not allow this page's origin (CORS).`);
  assert.doesNotMatch(refused.verdict, /\bvalid\b/);
  await page.close();
});

/** Serves the card with a lag of 0 from the inspector's own origin (Playwright's `route`: Chromium
 * reports the answer as same-origin, as a real server there would); its URL. */
async function serveSameOrigin(page) {
  const url = `${site.url}/same-origin-card.json`;
  await page.route(url, (route) =>
    route.fulfill({ status: 200, headers: { 'content-type': 'application/json', 'x-replica-lag-ms': '0' }, body: CARD }));
  return url;
}

// A same-origin answer shows every header: it is read without the "server exposes" box ticked.
test('the inspector: a same-origin answer fills the watermark without the "server exposes them" box', async () => {
  const page = await context.newPage();
  await gotoInspector(page, site.url);
  const sameOrigin = await serveSameOrigin(page);
  await page.evaluate((url) => {
    document.getElementById('cors-exposed').checked = false;
    document.getElementById('req-require').value = 'task.execute.v3';
    document.getElementById('req-max-stale').value = '10s';
    document.getElementById('card-url').value = url;
    document.getElementById('fetch-card').click();
  }, sameOrigin);
  await page.waitForFunction(() => document.getElementById('obs-lag-ms').value === '0', null, { timeout: 10000 });
  assert.equal(await page.locator('#fetch-status .cors-note').count(), 0);
  await page.locator('#inputs button[type=submit]').click();
  assert.match(await page.locator('#verdict').getAttribute('class'), /\bvalid\b/);
  await page.close();
});

// A source that never finishes its answer fails after the package's default timeout (10 s), with
// the page saying so, rather than leaving the page fetching.
test('the inspector: an answer that never finishes is a failed fetch after the default timeout', async () => {
  const page = await context.newPage();
  await gotoInspector(page, site.url);
  const url = `${base.plain}/stall`;
  try {
    await page.evaluate((url) => {
      document.getElementById('card-url').value = url;
      document.getElementById('fetch-card').click();
    }, url);
    await page.waitForFunction(() => !document.getElementById('page-error').hidden, null, { timeout: 30000 });
    const error = (await page.locator('#page-error').textContent()).replace(/\s+/g, ' ');
    assert.equal(error, `Could not fetch ${url}No whole answer from ${url} within 10000 ms.`);
    assert.equal(await page.locator('#obs-lag-ms').inputValue(), '');
  } finally {
    for (const res of stalled.splice(0)) res.destroy();
    await page.close();
  }
});

// "Replica vs primary" says of each side why its headers were not used, and only of that side.
test('replica vs primary: each side gets its own note (a redirected https answer on this http page, an answer from another origin)', async () => {
  const page = await context.newPage();
  await gotoInspector(page, site.url);
  const sameOrigin = await serveSameOrigin(page);
  const compare = async (replica, primary, exposed) => {
    await page.evaluate(({ replica, primary, exposed }) => {
      document.getElementById('cors-exposed').checked = exposed;
      document.getElementById('req-require').value = 'task.execute.v3';
      document.getElementById('req-max-stale').value = '10s';
      document.getElementById('obs-use-clock').checked = true;
      document.getElementById('compare-resolution-title').textContent = '';
      document.getElementById('replica-url').value = replica;
      document.getElementById('primary-url').value = primary;
      document.getElementById('compare-run').click();
    }, { replica, primary, exposed });
    await page.waitForFunction(() => document.getElementById('compare-resolution-title').textContent !== '', null, { timeout: 10000 });
    return page.evaluate(() => ({
      status: document.getElementById('compare-status').textContent.replace(/\s+/g, ' '),
      notes: [...document.querySelectorAll('#compare-status .cors-note')].map((n) => n.textContent.replace(/\s+/g, ' ')),
      replica: document.getElementById('side-replica').className,
      primary: document.getElementById('side-primary').className,
    }));
  };
  // The replica redirected https -> https (its hops unseen from this http page), the primary
  // asked directly; every header exposed.
  let got = await compare(`${base.tls}/same`, `${base.tls}/card`, true);
  assert.equal(got.notes.length, 1, got.status);
  assert.ok(got.notes[0].startsWith(`${base.tls}/same redirected to ${base.tls}/card. On a page that is not https`), got.notes[0]);
  assert.equal(got.status, got.notes[0], 'the status holds the note alone');
  assert.match(got.replica, /\brejected\b/);
  assert.match(got.primary, /\bvalid\b/);
  // The same the other way round.
  got = await compare(`${base.tls}/card`, `${base.tls}/same`, true);
  assert.equal(got.notes.length, 1, got.status);
  assert.ok(got.notes[0].startsWith(`${base.tls}/same redirected to ${base.tls}/card.`), got.notes[0]);
  assert.match(got.replica, /\bvalid\b/);
  assert.match(got.primary, /\brejected\b/);
  // The box unticked: the same-origin replica's headers are read, the other origin's are not.
  got = await compare(sameOrigin, `${base.tls}/card`, false);
  assert.equal(got.notes.length, 1, got.status);
  assert.ok(got.notes[0].startsWith(`${base.tls}/card is on another origin`), got.notes[0]);
  assert.match(got.replica, /\bvalid\b/);
  assert.match(got.primary, /\brejected\b/);
  await page.close();
});
