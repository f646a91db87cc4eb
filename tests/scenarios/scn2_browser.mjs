// argv[2]: JSON file, a list of {card (text), requirement (object), observation (object), form}.
// Prints, per scenario, the web build's evaluateRaw bytes in Chromium ("raw") and, where the
// inspector's form can express it, the decision bytes the page shows ("form") or its error.
// Reuses tests/browser/harness.mjs (needs www/pkg/web: `make www` or copy pkg/web there).
import { readFile } from 'node:fs/promises';
import {
  gotoInspector, launchBrowser, openPage, startSite, typeIntoForm,
} from '../browser/harness.mjs';

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
  const formFields = ['require', 'min_version', 'max_stale', 'pin', 'pin_mode'];
  for (const [i, c] of cases.entries()) {
    if (!c.form || out[i].thrown) continue;
    if (Object.keys(c.requirement).some((k) => !formFields.includes(k))) continue;
    if (Object.values(c.observation).some((v) => typeof v !== 'string')) continue;
    await typeIntoForm(page, { card: c.card, requirement: c.requirement, observation: c.observation });
    const shown = await page.evaluate(() => ({
      problem: document.getElementById('problem').textContent,
      error: document.getElementById('page-error').hidden ? null : document.getElementById('page-error').innerText,
    }));
    out[i].form = shown.problem;
    out[i].form_error = shown.error;
  }
  process.stdout.write(JSON.stringify(out));
} finally {
  await browser.close();
  await site.close();
}
