// Third review, JavaScript surface: the browser inspector (www/) with hostile and huge inputs.
//
//   make www-site && node tests/scenarios/scn3js_inspector.mjs
//
// Expectations (www/README.md, DESIGN.md): every card field, reason message and figure is shown
// as text (no element, attribute or script comes from a card: the page's element counts and a
// canary global do not change); a very large or deep input is judged within a few seconds
// (body_too_large / too_deep) without hanging the page; the decision the page shows (#problem,
// the verdict title) is the web build's evaluateRaw for the same inputs. Prints one line per
// scenario; exits 1 on a difference.
import { gotoInspector, launchBrowser, openPage, startSite, typeIntoForm } from '../browser/harness.mjs';

const NOW = '2026-11-09T12:00:40Z';
const REQ = { require: ['task.execute.v3', 'binding:JSONRPC'], max_stale: '10s' };
const OBS = { lag_ms: '100', now: NOW };
const X = '<img src=x onerror="window.__pwned=1">';
const S = '</textarea><script>window.__pwned=2</script>';
const base = (over = {}) => JSON.stringify({
  name: 'worker-7',
  description: 'd',
  version: '3.0.0',
  supportedInterfaces: [{ url: 'https://w.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: false },
  skills: [{ id: 'task.execute.v3', name: 'n', description: 'd', tags: ['t'] }],
  ...over,
});

const CASES = [
  ['HTML in name and description', base({ name: X, description: S })],
  ['HTML in version (incomparable version reason)', base({ version: `3.0.0${X}` }), { ...REQ, min_version: '3.0.0' }],
  ['HTML in a skill id (missing capability listed)', base({ skills: [{ id: X, tags: [] }] })],
  ['HTML in a required capability name', base(), { ...REQ, require: [...REQ.require, X] }],
  ['HTML in the interface binding and url', base({ supportedInterfaces: [{ url: `javascript:alert(1)//${X}`, protocolBinding: `JSONRPC${X}`, protocolVersion: `1.0${S}` }] })],
  ['HTML in an extension uri', base({ capabilities: { extensions: [{ uri: `javascript:${X}` }] } }), { ...REQ, require: [...REQ.require, `extension:javascript:${X}`] }],
  ['HTML as a member name (wrong_type path)', base({ [X]: 1, skills: { [S]: 1 } })],
  ['HTML in a malformed card (card_text in the decision)', `{"name": "${X.replace(/"/g, '\\"')}", ${S}`],
  ['HTML in a watermark value (figure)', base(), REQ, { lag_ms: X, now: NOW }],
  ['HTML in synced_at (figure)', base(), REQ, { synced_at: `${S}`, now: NOW }],
  ['HTML in the pin (range error message)', base(), { ...REQ, pin: `sha256:${X}` }],
  ['HTML in max_stale (range error message)', base(), { ...REQ, max_stale: X }],
  ['__proto__ and constructor members', base({ __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } }).replace('"name"', '"__proto__":{"isAdmin":true},"name"')],
  ['a duplicate member spelled with escapes', base().replace('"name":"worker-7"', '"name":"worker-7","n\\u0061me":"x"')],
  ['U+2028/2029, RTL override and NUL escapes in name', base({ name: 'w\u2028\u2029\u202e\u0000' })],
  ['a 70 000-byte card (body_too_large)', base({ description: 'd'.repeat(70000) })],
  ['a 5 MB card', base({ description: 'd'.repeat(5 * 1024 * 1024) })],
  ['100 000 nested arrays', `{"x":${'['.repeat(100000)}${']'.repeat(100000)}}`],
  ['30 000 nested arrays within 64 KiB (too_deep)', `{"x":${'['.repeat(30000)}${']'.repeat(30000)}}`],
  ['a lone surrogate typed into the card (malformed, not U+FFFD)', base({ name: 'w' }).replace('"w"', '"w\uD800"')],
  ['65 nested objects (too_deep)', `{"x":${'{"a":'.repeat(64)}1${'}'.repeat(64)}}`],
  ['10 000 skills', base({ skills: Array.from({ length: 10000 }, (_, i) => ({ id: `s${i}`, tags: [] })) })],
  ['a 60 000-character skill id required', base({ skills: [{ id: 'k'.repeat(60000), tags: [] }] }), { ...REQ, require: ['k'.repeat(60000)] }],
  ['200 required capabilities, all missing', base(), { ...REQ, require: Array.from({ length: 200 }, (_, i) => `cap.${i}${X}`) }],
];

const site = await startSite();
const browser = await launchBrowser();
const results = [];
try {
  const { page, problems } = await openPage(browser);
  await gotoInspector(page, site.url);
  const counts = () => page.evaluate(() => ({
    img: document.querySelectorAll('img').length,
    script: document.querySelectorAll('script').length,
    iframe: document.querySelectorAll('iframe').length,
    a: document.querySelectorAll('a').length,
    pwned: window.__pwned ?? null,
    handlers: [...document.querySelectorAll('*')].filter((n) => [...n.attributes].some((a) => /^on/i.test(a.name))).length,
  }));
  const before = await counts();
  for (const [label, card, req = REQ, obs = OBS] of CASES) {
    const t0 = Date.now();
    await typeIntoForm(page, { card, requirement: req, observation: obs });
    // The page evaluates on submit; wait until the verdict is no longer pending.
    await page.waitForFunction(() => !document.getElementById('verdict').classList.contains('pending'), null, { timeout: 30000 });
    const ms = Date.now() - t0;
    const shown = await page.evaluate(async ({ card: c, req: r, obs: o }) => {
      const cg = await import('./pkg/web/index.js');
      await cg.default();
      let raw;
      try {
        raw = cg.evaluateRaw(c, r, o);
      } catch (e) {
        raw = `${e.name}: ${e.message}`;
      }
      return {
        raw,
        problem: document.getElementById('problem').textContent,
        title: document.getElementById('verdict-title').textContent,
        detail: document.getElementById('verdict-detail').textContent,
        error: document.getElementById('page-error').hidden ? null : document.getElementById('page-error').innerText,
      };
    }, { card, req, obs });
    const after = await counts();
    const injected = JSON.stringify(after) !== JSON.stringify(before);
    // An input error shows no decision: the page's error box names the same TypeError/RangeError.
    const same = shown.problem === shown.raw || (shown.problem === '(none)' && shown.error !== null && shown.error.includes(shown.raw.split(': ').slice(1).join(': ').slice(0, 60)));
    const fast = ms < 10000;
    const ok = !injected && same && fast;
    results.push(ok);
    console.log(`${ok ? 'ok  ' : 'DIFF'} ${label}: ${ms} ms, ${shown.title.slice(0, 90)}${injected ? ' | INJECTED ' + JSON.stringify(after) : ''}${same ? '' : ` | page ${shown.problem.slice(0, 120)} vs web ${shown.raw.slice(0, 120)}`}`);
  }
  if (problems.length) {
    console.log(`page problems: ${problems.slice(0, 5).join(' | ')}`);
  }
} finally {
  await browser.close();
  await site.close();
}
const bad = results.filter((r) => !r).length;
console.log(`\n${results.length} scenarios, ${bad} differ`);
process.exitCode = bad ? 1 : 0;
