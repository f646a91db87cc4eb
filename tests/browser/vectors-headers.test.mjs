// The shared vectors that carry response headers, which the web build's evaluate() cannot take
// (tests/browser/vectors.test.mjs skips them), replayed the way a page meets them: a real HTTP
// answer on another origin of 127.0.0.1 with those exact header bytes, fetched by Chromium and
// read by the web build's `resolveAgentCard` (the page states that the server exposes the
// watermark headers, and the answer does expose them). Every `expect` member must match, as in
// the native runner and tests/node/vectors-headers.test.mjs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gotoInspector, launchBrowser, openPage, startSite } from './harness.mjs';

const VECTORS = process.env.CARDGATE_VECTORS_DIR || fileURLToPath(new URL('../vectors/', import.meta.url));
const EXPOSED = 'x-replica-lag-ms, x-replica-lag-s, x-replica-synced-at, x-consul-lastcontact, x-consul-knownleader, age';

async function loadCases() {
  const cases = [];
  for (const file of (await readdir(VECTORS)).filter((f) => f.endsWith('.json')).sort()) {
    const doc = JSON.parse(await readFile(join(VECTORS, file), 'utf8'));
    for (const c of doc.cases) if (c.headers) cases.push({ ...c, file });
  }
  return cases;
}

function body(c) {
  if (typeof c.card_text === 'string') return Buffer.from(c.card_text, 'utf8');
  if (typeof c.card_base64 === 'string') return Buffer.from(c.card_base64, 'base64');
  return Buffer.from(JSON.stringify(c.card), 'utf8');
}

// The case's header lines byte for byte (a value's characters are its octets, repeated names
// kept apart), the CORS headers a cross-origin page needs, then the body.
function answer(c, method) {
  const cors = ['access-control-allow-origin: *', `access-control-expose-headers: ${EXPOSED}`];
  if (method === 'OPTIONS') {
    return Buffer.from(['HTTP/1.1 204 No Content', ...cors, 'access-control-allow-headers: *', 'content-length: 0', 'connection: close', '', ''].join('\r\n'), 'latin1');
  }
  const bytes = body(c);
  const lines = ['HTTP/1.1 200 OK', ...c.headers.map(([n, v]) => `${n}: ${v}`), ...cors,
    `content-length: ${bytes.length}`, 'connection: close', '', ''];
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), bytes]);
}

function actualFor(key, decision) {
  if (key === 'reason_codes') return (decision.reasons || []).map((r) => r.code);
  if (key === 'missing_capabilities') return decision.missing_capabilities || [];
  return decision[key] === undefined ? null : decision[key];
}

let cases;
let site;
let browser;
let context;
let page;
let fixture;

before(async () => {
  cases = await loadCases();
  fixture = createServer((socket) => {
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const m = /^(GET|OPTIONS) \/case\/(\d+) /.exec(head);
      const c = m && cases[Number(m[2])];
      socket.end(c ? answer(c, m[1]) : 'HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
    socket.on('error', () => {});
  });
  await new Promise((ok) => fixture.listen(0, '127.0.0.1', ok));
  site = await startSite();
  browser = await launchBrowser();
  ({ context, page } = await openPage(browser));
  await gotoInspector(page, site.url);
});

after(async () => {
  if (context) await context.close();
  if (browser) await browser.close();
  if (site) await site.close();
  if (fixture) fixture.close();
});

describe('shared vectors with response headers, fetched in Chromium', () => {
  test('every case gives the recorded decision', async (t) => {
    assert.ok(cases.length >= 20, `only ${cases.length} cases with headers`);
    const base = `http://127.0.0.1:${fixture.address().port}`;
    const results = await page.evaluate(async ({ base, all }) => {
      const cg = await import('./pkg/web/index.js');
      await cg.default();
      const out = [];
      for (const [i, c] of all.entries()) {
        let decision = null;
        try {
          await cg.resolveAgentCard(`${base}/case/${i}`, c.requirement, {
            now: c.now, watermark: { corsExposed: true }, onDecision: (d) => { decision = d; },
          });
        } catch (e) {
          if (decision === null) { out.push({ thrown: `${e.name}: ${e.message}` }); continue; }
        }
        out.push({ decision });
      }
      return out;
    }, { base, all: cases.map((c) => ({ requirement: c.requirement ?? {}, now: c.observation?.now ?? null })) });
    const failures = [];
    cases.forEach((c, i) => {
      const r = results[i];
      if (r.thrown) {
        failures.push(`[${c.file}] ${c.name}: threw ${r.thrown}`);
        return;
      }
      const diffs = [];
      for (const [key, want] of Object.entries(c.expect)) {
        const got = actualFor(key, r.decision);
        if (JSON.stringify(got) !== JSON.stringify(want)) diffs.push(`${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
      }
      if (diffs.length) failures.push(`[${c.file}] ${c.name}:\n    ${diffs.join('\n    ')}`);
    });
    t.diagnostic(`browser header vectors: ${cases.length} cases fetched from ${base}`);
    assert.equal(failures.length, 0, `${failures.length} of ${cases.length} header vectors disagree:\n${failures.join('\n')}`);
  });
});
