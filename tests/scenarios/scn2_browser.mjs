// argv[2]: JSON file, a list of {card (text), requirement (object), observation (object), form}.
// Prints, per scenario, the web build's evaluateRaw bytes in Chromium ("raw") and, where the
// inspector's form can express it, the decision bytes the page shows ("form") or its error.
// Reuses tests/browser/harness.mjs (needs www/pkg/web: `make www` or copy pkg/web there).
import { readFile } from 'node:fs/promises';
import { gotoInspector, launchBrowser, openPage, startSite } from '../browser/harness.mjs';

const cases = JSON.parse(await readFile(process.argv[2], 'utf8'));
const site = await startSite();
const browser = await launchBrowser();
try {
  const { page } = await openPage(browser);
  await gotoInspector(page, site.url);
  const out = await page.evaluate(async (all) => {
    const cg = await import('./pkg/web/index.js');
    await cg.default();
    return all.map((c) => {
      try {
        return { raw: cg.evaluateRaw(c.card, JSON.stringify(c.requirement), JSON.stringify(c.observation)) };
      } catch (e) {
        return { thrown: `${e.name}: ${e.message}` };
      }
    });
  }, cases);
  const formFields = ['require', 'min_version', 'max_stale', 'pin'];
  for (const [i, c] of cases.entries()) {
    if (!c.form || out[i].thrown) continue;
    if (Object.keys(c.requirement).some((k) => !formFields.includes(k))) continue;
    if (Object.values(c.observation).some((v) => typeof v !== 'string')) continue;
    const shown = await page.evaluate((k) => {
      const set = (id, v) => { document.getElementById(id).value = v === undefined ? '' : v; };
      const req = k.requirement;
      const obs = k.observation;
      set('card', k.card);
      set('card-url', '');
      set('req-require', (req.require || []).join('\n'));
      set('req-min-version', req.min_version);
      set('req-max-stale', req.max_stale);
      set('req-pin', req.pin);
      set('obs-lag-ms', obs.lag_ms);
      set('obs-lag-s', obs.lag_s);
      set('obs-synced-at', obs.synced_at);
      set('obs-consul-last-contact', obs.consul_last_contact_ms);
      set('obs-consul-known-leader', obs.consul_known_leader);
      set('obs-age-s', obs.age_s);
      set('obs-now', obs.now);
      document.getElementById('obs-use-clock').checked = false;
      document.querySelector('#inputs button[type=submit]').click();
      return {
        problem: document.getElementById('problem').textContent,
        error: document.getElementById('page-error').hidden ? null : document.getElementById('page-error').innerText,
      };
    }, c);
    out[i].form = shown.problem;
    out[i].form_error = shown.error;
  }
  process.stdout.write(JSON.stringify(out));
} finally {
  await browser.close();
  await site.close();
}
