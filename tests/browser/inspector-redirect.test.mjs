// The inspector's "load from a URL" and redirects (DESIGN.md "Redirects"), in real Chromium: the
// inspector is served over http (as `make www` serves it), the card sources over real https
// (a self-signed certificate the context accepts) and http. Chromium follows the redirects and
// shows only the URL that answered.
// - an https source that answered over http is a failed fetch (the card and its watermark
//   crossed the network in the clear), as in the package;
// - an https source that was redirected, on this http page, may have passed an http hop the
//   browser neither blocks nor shows: its watermark headers are not used (no watermark: not fresh);
// - the same source asked without a redirect fills the watermark (the control).
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

function handler(name) {
  return (req, res) => {
    hits.push(`${name} ${req.url}`);
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSE };
    if (req.url === '/card') {
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
