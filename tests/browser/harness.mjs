// Shared set-up for the inspector's browser tests: the static site, a real Chromium, and a
// record of every request a page makes (to prove the page never leaves 127.0.0.1).
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../www/serve.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../../target/screenshots/', import.meta.url));

// The toolchain doc's flags for Debian's chromium on this kind of machine.
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-quic', '--disable-sync',
];

async function loadPlaywright() {
  try {
    return await import('playwright-core');
  } catch (err) {
    throw new Error(`playwright-core is not installed (run "make setup-js" / npm ci at the repo root): ${err.message}`);
  }
}

/** The site under test: $CARDGATE_WWW_URL (set by `make test-browser`) or a server started here. */
export async function startSite() {
  if (process.env.CARDGATE_WWW_URL) {
    const url = process.env.CARDGATE_WWW_URL.replace(/\/?$/, '/');
    return { url, close: async () => {} };
  }
  return startServer({ root: fileURLToPath(new URL('../../www/', import.meta.url)), port: 0 });
}

export async function launchBrowser() {
  const { chromium } = await loadPlaywright();
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

/**
 * A fresh context and page. `requests` collects every URL the page asks for; `problems` collects
 * uncaught page errors and console errors, so a test can insist there are none.
 */
export async function openPage(browser, { viewport = { width: 1280, height: 900 }, permissions = [], origin } = {}) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  if (permissions.length && origin) await context.grantPermissions(permissions, { origin });
  const page = await context.newPage();
  const requests = [];
  const problems = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return { context, page, requests, problems };
}

/** Loads the inspector and waits until the cardgate module is initialised. */
export async function gotoInspector(page, url) {
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', null, { timeout: 15000 });
}

/** Waits until the inspector's verdict box shows `kind` (valid/rejected/malformed/error/pending). */
export async function verdictIs(page, kind) {
  await page.waitForFunction((k) => document.getElementById('verdict').classList.contains(k), kind, { timeout: 5000 });
}

/**
 * Types a case into the inspector's form as a person would (card text, requirement members,
 * observation header texts, the page's clock off) and submits it. `k`: {card (text),
 * requirement (object), observation (object)}; members the form has no field for are ignored.
 */
export async function typeIntoForm(page, k) {
  await page.evaluate((c) => {
    const set = (id, v) => { document.getElementById(id).value = v === undefined ? '' : v; };
    const req = c.requirement;
    const obs = c.observation;
    set('card', c.card);
    set('card-url', '');
    set('req-require', (req.require || []).join('\n'));
    set('req-min-version', req.min_version);
    set('req-max-stale', req.max_stale);
    set('req-pin', req.pin);
    document.getElementById('req-pin-mode').checked = req.pin_mode === 'with_watermark';
    set('req-card-name', req.card_name);
    set('obs-lag-ms', obs.lag_ms);
    set('obs-lag-s', obs.lag_s);
    set('obs-synced-at', obs.synced_at);
    set('obs-consul-last-contact', obs.consul_last_contact_ms);
    set('obs-consul-known-leader', obs.consul_known_leader);
    set('obs-age-s', obs.age_s);
    set('obs-now', obs.now);
    document.getElementById('obs-use-clock').checked = false;
    document.querySelector('#inputs button[type=submit]').click();
  }, k);
}

export async function screenshot(page, name, { fullPage = true } = {}) {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = `${SCREENSHOTS}${name}.png`;
  await page.screenshot({ path, fullPage });
  return path;
}

/** Every request went to one of `origins` (or is a data: URL). Returns the offenders. */
export function externalRequests(requests, origins) {
  return requests.filter((u) => !u.startsWith('data:') && !origins.some((o) => u.startsWith(o)));
}

/** The decision member the native runner compares for each `expect` key of a shared vector. */
export function actualFor(key, decision) {
  if (key === 'reason_codes') return (decision.reasons || []).map((r) => r.code);
  if (key === 'missing_capabilities') return decision.missing_capabilities || [];
  return decision[key] === undefined ? null : decision[key];
}
