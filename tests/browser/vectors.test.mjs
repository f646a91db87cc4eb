// Every shared decision vector (tests/vectors/*.json, format in DESIGN.md) replayed inside a real
// Chromium through the package's web build, as the inspector page loads it. Each field present in
// a case's `expect` must match, the way the native runner (tests/vectors.rs) compares them.
// Then the cases a person can type into the form are replayed through the form itself, and the
// page must show exactly the module's decision bytes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  actualFor, gotoInspector, launchBrowser, openPage, startSite, typeIntoForm,
} from './harness.mjs';

const VECTORS = process.env.CARDGATE_VECTORS_DIR || fileURLToPath(new URL('../vectors/', import.meta.url));

const skippedForHeaders = [];

async function loadCases() {
  const files = (await readdir(VECTORS)).filter((f) => f.endsWith('.json')).sort();
  const cases = [];
  for (const file of files) {
    const doc = JSON.parse(await readFile(join(VECTORS, file), 'utf8'));
    for (const c of doc.cases) {
      // Response headers need a host that reads an HTTP response; the web build's evaluate()
      // takes none (vectors-headers.test.mjs fetches these cases in Chromium).
      if (c.headers) {
        skippedForHeaders.push(`${file}: ${c.name}`);
        continue;
      }
      let card;
      if (typeof c.card_text === 'string') card = { kind: 'text', value: c.card_text };
      else if (typeof c.card_base64 === 'string') card = { kind: 'bytes', value: [...Buffer.from(c.card_base64, 'base64')] };
      else card = { kind: 'text', value: JSON.stringify(c.card) };
      cases.push({
        file,
        name: c.name,
        card,
        raw: c,
        // JSON text: the package passes text through verbatim (an object observation would get
        // the host clock as `now`, which the native runner never adds).
        requirement: JSON.stringify(c.requirement || {}),
        observation: JSON.stringify(c.observation || {}),
        expect: c.expect,
      });
    }
  }
  return cases;
}

/** A case the form can express exactly: a JSON card, string-only inputs the form passes as is. */
function typeable(c) {
  const req = c.raw.requirement || {};
  const obs = c.raw.observation || {};
  const clean = (v) => typeof v === 'string' && v !== '' && v === v.trim() && !/[\r\n]/.test(v);
  if (c.raw.card === undefined) return false;
  if (Object.keys(req).some((k) => !['require', 'min_version', 'max_stale', 'pin', 'pin_mode', 'card_name'].includes(k))) return false;
  // The name field is not trimmed: any one-line name can be typed as it is.
  if (req.card_name !== undefined && !(typeof req.card_name === 'string' && req.card_name !== '' && !/[\r\n]/.test(req.card_name))) return false;
  if (req.pin_mode !== undefined && !['replace', 'with_watermark'].includes(req.pin_mode)) return false;
  if (req.require !== undefined && !(Array.isArray(req.require) && req.require.length && req.require.every(clean))) return false;
  for (const k of ['min_version', 'max_stale', 'pin']) if (req[k] !== undefined && !clean(req[k])) return false;
  const obsKeys = ['lag_ms', 'lag_s', 'synced_at', 'consul_last_contact_ms', 'consul_known_leader', 'age_s', 'now'];
  if (Object.keys(obs).some((k) => !obsKeys.includes(k))) return false;
  for (const [k, v] of Object.entries(obs)) {
    if (typeof v !== 'string' || v === '') return false;
    if (k === 'now' && v !== v.trim()) return false;
  }
  return true;
}

let site;
let browser;
let cases;
let page;
let context;
let results;

before(async () => {
  cases = await loadCases();
  site = await startSite();
  browser = await launchBrowser();
  ({ context, page } = await openPage(browser));
  await gotoInspector(page, site.url);
  results = await page.evaluate(async (all) => {
    const cg = await import('./pkg/web/index.js');
    await cg.default();
    return all.map((c) => {
      const card = c.card.kind === 'bytes' ? new Uint8Array(c.card.value) : c.card.value;
      try {
        const raw = cg.evaluateRaw(card, c.requirement, c.observation);
        const object = cg.evaluate(card, c.requirement, c.observation);
        let hash = null;
        let hashError = null;
        try {
          hash = cg.cardHash(card);
        } catch (e) {
          hashError = `${e.name}: ${e.message}`;
        }
        return { raw, sameObject: JSON.stringify(object) === JSON.stringify(JSON.parse(raw)), hash, hashError };
      } catch (e) {
        return { thrown: `${e.name}: ${e.message}` };
      }
    });
  }, cases.map(({ card, requirement, observation }) => ({ card, requirement, observation })));
});

after(async () => {
  if (context) await context.close();
  if (browser) await browser.close();
  if (site) await site.close();
});

describe('shared vectors in Chromium through the web build', () => {
  test('there are vectors to replay', (t) => {
    assert.ok(cases.length > 0, `no case found in ${VECTORS}`);
    const files = new Set(cases.map((c) => c.file));
    t.diagnostic(`browser vectors: ${cases.length} cases from ${files.size} files`);
    if (skippedForHeaders.length) {
      const files = [...new Set(skippedForHeaders.map((n) => n.split(':')[0]))].join(', ');
      t.diagnostic(`skipped ${skippedForHeaders.length} cases that set response headers (evaluate() takes none; vectors-headers.test.mjs fetches them), from ${files}`);
    }
  });

  test('every case gives the recorded decision', () => {
    const failures = [];
    cases.forEach((c, i) => {
      const r = results[i];
      if (r.thrown) {
        failures.push(`[${c.file}] ${c.name}: threw ${r.thrown}`);
        return;
      }
      const d = JSON.parse(r.raw);
      const diffs = [];
      for (const [key, want] of Object.entries(c.expect)) {
        const got = actualFor(key, d);
        try {
          assert.deepStrictEqual(got, want);
        } catch {
          diffs.push(`${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
        }
      }
      if (!r.sameObject) diffs.push('evaluate() and JSON.parse(evaluateRaw()) differ');
      // cardHash() (what "copy as pin" offers) agrees with the decision on every readable card.
      if (d.error_class !== 'malformed_card' && r.hash !== d.card_hash) diffs.push(`cardHash() gave ${r.hash ?? r.hashError}, decision has ${d.card_hash}`);
      if (diffs.length) failures.push(`[${c.file}] ${c.name}:\n    ${diffs.join('\n    ')}\n    decision: ${r.raw}`);
    });
    assert.equal(failures.length, 0, `${failures.length} of ${cases.length} vectors disagree:\n${failures.join('\n')}`);
  });

  test('cases a person can type give the same bytes through the form', async (t) => {
    const typed = cases.map((c, i) => [c, results[i]]).filter(([c, r]) => typeable(c) && !r.thrown);
    assert.ok(typed.length > 0, 'no vector is expressible in the form');
    const failures = [];
    for (const [c, r] of typed) {
      await typeIntoForm(page, { card: c.card.value, requirement: c.raw.requirement || {}, observation: c.raw.observation || {} });
      const shown = await page.evaluate(() => ({
        problem: document.getElementById('problem').textContent,
        verdictClass: document.getElementById('verdict').className,
        error: document.getElementById('page-error').hidden ? null : document.getElementById('page-error').innerText,
        missingRows: [...document.querySelectorAll('#caps-body tr.missing td:nth-child(2)')].map((td) => td.textContent),
        disagree: [...document.querySelectorAll('#caps-body tr[data-agree=false]')].map((tr) => tr.innerText),
      }));
      const d = JSON.parse(r.raw);
      const kind = d.verdict === 'valid' ? 'valid' : d.error_class === 'malformed_card' ? 'malformed' : 'rejected';
      if (shown.problem !== r.raw || !shown.verdictClass.split(' ').includes(kind) || shown.error !== null) {
        failures.push(`[${c.file}] ${c.name}: page shows ${shown.verdictClass} ${shown.error ?? ''}\n    ${shown.problem}\n    module: ${r.raw}`);
      }
      // The capability table: missing rows are the core's list (by the capability value shown).
      const wantMissing = (d.missing_capabilities || []).map((m) => m.replace(/^(extension|capability|binding|protocol):/, ''));
      if (JSON.stringify([...shown.missingRows].sort()) !== JSON.stringify([...wantMissing].sort())) {
        failures.push(`[${c.file}] ${c.name}: table marks ${JSON.stringify(shown.missingRows)} missing, core says ${JSON.stringify(d.missing_capabilities)}`);
      }
      if (shown.disagree.length) {
        failures.push(`[${c.file}] ${c.name}: the page's declared list disagrees with the core on ${JSON.stringify(shown.disagree)}`);
      }
    }
    t.diagnostic(`browser vectors through the form: ${typed.length} of ${cases.length} cases`);
    assert.equal(failures.length, 0, `${failures.length} of ${typed.length} typed cases differ:\n${failures.join('\n')}`);
  });
});
