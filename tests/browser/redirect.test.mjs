// Redirects under the package's browser build, in a real Chromium (DESIGN.md "Redirects").
//
// The browser build cannot follow redirects itself (`redirect: 'manual'` gives an opaque answer,
// status 0, no Location), so it lets the browser follow and checks the URL that answered. That
// rests on what Chromium does, checked here with real https (a self-signed certificate, accepted
// by the context) and host names mapped to 127.0.0.1 (`--host-resolver-rules`, so `plain.test` is
// not a loopback host, which mixed content would allow):
// - on an https page, a redirect from https to http is blocked (mixed content; the http server is
//   never asked), except to a loopback host: there the package refuses the answer by its URL;
// - on an http page nothing is blocked and the hops are not shown, so a redirected https source
//   fails, and one that ended on http names the downgrade.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';

const CARD = JSON.stringify({
  name: 'worker-7',
  version: '3.1.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  skills: [{ id: 'task.execute.v3', name: 'execute', description: 'x', tags: ['t'] }],
});
const REQ = { require: ['task.execute.v3'], max_stale: '10s' };
const DOWNGRADE = ': a source asked over https must answer over https';
const PAGE = '<!doctype html><meta charset="utf-8"><title>redirects</title><p>redirects</p>';
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm' };

let dir;
let plain;
let tls;
let browser;
let context;
const hits = [];
const urls = {};

/** Answers the page, the package's browser build, the card and the redirects of `routes`. */
function handler(name, routes) {
  return (req, res) => {
    hits.push(`${name} ${req.method} ${req.url}`);
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'x-replica-lag-ms' };
    // The package's request headers (a2a-version) make a cross-origin request preflighted.
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-headers': '*' });
      return res.end();
    }
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(PAGE);
    }
    if (req.url.startsWith('/pkg/web/')) {
      const file = req.url.slice('/pkg/web/'.length);
      res.writeHead(200, { 'content-type': TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream' });
      return res.end(readFileSync(join(ROOT, 'pkg', 'web', file)));
    }
    if (req.url === '/card') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0', ...cors });
      return res.end(CARD);
    }
    const to = routes[req.url];
    res.writeHead(to ? 302 : 404, to ? { location: to(), ...cors } : cors);
    res.end();
  };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cardgate-redirect-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=page.test', '-addext', 'subjectAltName=DNS:page.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'pipe' });
  plain = http.createServer(handler('plain', { '/hop': () => '/card' }));
  tls = https.createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    handler('tls', {
      '/down': () => `${urls.plain}/card`,
      '/down-loopback': () => `http://127.0.0.1:${plain.address().port}/card`,
      '/hop': () => '/card',
    }),
  );
  await new Promise((resolve) => plain.listen(0, '127.0.0.1', resolve));
  await new Promise((resolve) => tls.listen(0, '127.0.0.1', resolve));
  urls.plain = `http://plain.test:${plain.address().port}`;
  urls.tls = `https://page.test:${tls.address().port}`;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-quic', '--disable-sync', '--host-resolver-rules=MAP page.test 127.0.0.1, MAP plain.test 127.0.0.1',
    ],
  });
  context = await browser.newContext({ ignoreHTTPSErrors: true });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (plain ? plain.close(resolve) : resolve()));
  await new Promise((resolve) => (tls ? tls.close(resolve) : resolve()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens `origin`'s page, loads the browser build there and resolves each list of sources:
 * `[source, final_url or '-', error or verdict]` of each attempt. */
async function resolveOn(origin, sources, watermark = { corsExposed: true }) {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(async ({ sources, req, watermark }) => {
      const cardgate = await import('/pkg/web/index.js');
      await cardgate.default();
      let info = null;
      await cardgate.resolveAgentCard(sources, req, { watermark, onResolution: (_, i) => (info = i) }).catch(() => {});
      return info.attempts.map((a) => [a.source, a.final_url ?? '-', a.error ?? a.verdict]);
    }, { sources, req: REQ, watermark });
  } finally {
    await page.close();
  }
}

test('https page: Chromium blocks a redirect to http (the http server is never asked); to a loopback http host the package refuses it', async () => {
  const before = hits.filter((h) => h.startsWith('plain GET /card')).length;
  const got = await resolveOn(urls.tls, [`${urls.tls}/down`, `${urls.tls}/down-loopback`, `${urls.tls}/hop`]);
  assert.equal(got[0][0], `${urls.tls}/down`);
  assert.match(got[0][2], /^failed: Failed to fetch$/);
  const loopback = `http://127.0.0.1:${plain.address().port}/card`;
  assert.equal(got[1][1], loopback);
  assert.ok(got[1][2].startsWith(`${urls.tls}/down-loopback redirected to ${loopback}${DOWNGRADE}`), got[1][2]);
  // https -> https: followed, and where the card came from is recorded.
  assert.deepEqual(got[2], [`${urls.tls}/hop`, `${urls.tls}/card`, 'valid']);
  // Only the loopback redirect reached the http server.
  assert.equal(hits.filter((h) => h.startsWith('plain GET /card')).length - before, 1);
});

test('http page: a redirected https source fails (the hops are not shown), one that ended on http names the downgrade', async () => {
  const got = await resolveOn(urls.plain, [`${urls.tls}/down`, `${urls.tls}/hop`]);
  assert.ok(got[0][2].startsWith(`${urls.tls}/down redirected to ${urls.plain}/card${DOWNGRADE}`), got[0][2]);
  assert.equal(got[1][1], `${urls.tls}/card`);
  assert.match(got[1][2], /on a page that is not https the browser does not block http hops/);
});

test('http page: a source asked over http is followed wherever it redirects (it was never protected)', async () => {
  const got = await resolveOn(urls.plain, [`${urls.plain}/hop`]);
  assert.deepEqual(got, [[`${urls.plain}/hop`, `${urls.plain}/card`, 'valid']]);
});

test('a same-origin answer, redirected or not, shows every header: it is read without the caller stating that its server exposes them', async () => {
  // Only a cross-origin (`cors`) answer can hide headers (http-cache.test.mjs); here the page,
  // the source and the redirect target share the https origin.
  const got = await resolveOn(urls.tls, [`${urls.tls}/card`, `${urls.tls}/hop`], {});
  assert.deepEqual(got, [[`${urls.tls}/card`, '-', 'valid']]);
  const hop = await resolveOn(urls.tls, [`${urls.tls}/hop`], {});
  assert.deepEqual(hop, [[`${urls.tls}/hop`, `${urls.tls}/card`, 'valid']]);
});
