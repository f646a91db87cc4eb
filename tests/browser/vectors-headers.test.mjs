// The shared vectors that carry response headers, which the web build's evaluate() cannot take
// (tests/browser/vectors.test.mjs skips them), replayed the way a page meets them: a real HTTP
// answer on another origin of 127.0.0.1 with those exact header bytes, fetched by Chromium and
// read by the web build's `resolveAgentCard` (the page states that the server exposes the
// watermark headers, and the answer does expose them). Every `expect` member must match, as in
// the native runner and tests/node/vectors-headers.test.mjs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { caseBytes, rawAnswer, rawServer } from '../node/helpers.mjs';
import { actualFor, gotoInspector, launchBrowser, openPage, startSite } from './harness.mjs';

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

// The case's header lines byte for byte (repeated names kept apart) and the CORS headers a
// cross-origin page needs; the preflight (fetch sends `a2a-version`) gets the CORS headers alone.
function answer(c, method) {
  const cors = [['access-control-allow-origin', '*'], ['access-control-expose-headers', EXPOSED]];
  if (method === 'OPTIONS') return rawAnswer('204 No Content', [...cors, ['access-control-allow-headers', '*']], '');
  return rawAnswer('200 OK', [...c.headers, ...cors], caseBytes(c));
}

let cases;
let site;
let browser;
let context;
let page;
let fixture;

before(async () => {
  cases = await loadCases();
  fixture = await rawServer((method, path) => {
    const c = cases[Number(/^\/case\/(\d+)$/.exec(path)?.[1])];
    return c && answer(c, method);
  });
  site = await startSite();
  browser = await launchBrowser();
  ({ context, page } = await openPage(browser));
  await gotoInspector(page, site.url);
});

after(async () => {
  if (context) await context.close();
  if (browser) await browser.close();
  if (site) await site.close();
  if (fixture) await fixture.close();
});

describe('shared vectors with response headers, fetched in Chromium', () => {
  test('every case gives the recorded decision', async (t) => {
    assert.ok(cases.length >= 20, `only ${cases.length} cases with headers`);
    const { base } = fixture;
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
