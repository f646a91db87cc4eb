// "Replica vs primary" in a real headless Chromium: a lagging replica and the primary served from
// a local fixture on 127.0.0.1, the incident's cards taken from the shared vectors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import {
  ROOT, externalRequests, gotoInspector, launchBrowser, openPage, screenshot, startSite,
} from './harness.mjs';

const INCIDENT = JSON.parse(readFileSync(`${ROOT}tests/vectors/incident.json`, 'utf8')).cases;
const vector = (prefix) => {
  const c = INCIDENT.find((x) => x.name.startsWith(prefix));
  assert.ok(c, `tests/vectors/incident.json has a case "${prefix}…"`);
  return c;
};
// The stale replica's v2 card (lag 40 s) and the primary's v3 card (lag 0), byte for byte as the
// vectors give them; their hashes are the vectors' expectations.
const STALE = vector('incident: edge replica 40 s behind serves the task.execute.v2 card');
const PRIMARY = vector('incident: the primary serves the fresh task.execute.v3 card');
const REPLICA_BODY = JSON.stringify(STALE.card, null, 2);
const PRIMARY_BODY = JSON.stringify(PRIMARY.card, null, 2);
// The stale card with a version of the wrong type: readable JSON, a malformed card.
const STALE_BODY_MALFORMED = JSON.stringify({ ...STALE.card, version: 2 });

let site;
let browser;
let fixture;
let other;
const hits = { replica: 0, primary: 0, other: 0 };
// Bodies a test sets: `/card/NAME` answers bodies[NAME], [body, lag ms or watermark headers].
const bodies = {};

before(async () => {
  site = await startSite();
  browser = await launchBrowser();
  fixture = createServer((req, res) => {
    const headers = {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      // Every header the page reads, so that the user's "the server exposes them" is true.
      'access-control-expose-headers': 'X-Replica-Lag-Ms, X-Replica-Lag-S, X-Replica-Synced-At, X-Consul-LastContact, X-Consul-KnownLeader, Age',
    };
    const routes = {
      '/replica/.well-known/agent-card.json': ['replica', REPLICA_BODY, '40000'],
      '/primary/.well-known/agent-card.json': ['primary', PRIMARY_BODY, '0'],
      '/truncated/.well-known/agent-card.json': ['replica', REPLICA_BODY.slice(0, 120), '0'],
      // The primary's card after a pause: the page's status while both are fetched can be read.
      '/slow/.well-known/agent-card.json': ['primary', PRIMARY_BODY, '0', 1500],
    };
    const named = req.url.startsWith('/card/') ? bodies[req.url.slice('/card/'.length)] : undefined;
    const route = named ? ['other', ...named] : routes[req.url];
    if (!route) {
      res.writeHead(404, headers);
      res.end('{}');
      return;
    }
    hits[route[0]] += 1;
    // A watermark is a lag in ms, or the headers themselves.
    if (typeof route[2] === 'object') Object.assign(headers, route[2]);
    else headers['x-replica-lag-ms'] = route[2];
    setTimeout(() => {
      res.writeHead(200, headers);
      res.end(route[1]);
    }, route[3] || 0);
  });
  await new Promise((ok) => fixture.listen(0, '127.0.0.1', ok));
  other = `http://127.0.0.1:${fixture.address().port}`;
});

after(async () => {
  if (browser) await browser.close();
  if (site) await site.close();
  if (fixture) await new Promise((ok) => fixture.close(ok));
});

async function text(page, selector) {
  return (await page.locator(selector).innerText()).replace(/\s+/g, ' ').trim();
}

/** Fills the requirement (form step 2) and both URLs, then compares by keyboard. The fixture is
 * on another origin: `exposed` ticks "the server lists every one of these headers". */
async function compare(page, replicaPath, primaryPath, { exposed = true } = {}) {
  // The outcome's title is cleared first, so that the wait below is for this comparison's.
  await page.evaluate(() => { document.getElementById('compare-resolution-title').textContent = ''; });
  await page.locator('#cors-exposed').setChecked(exposed);
  await page.locator('#req-require').fill(STALE.requirement.require.join('\n'));
  await page.locator('#req-max-stale').fill(STALE.requirement.max_stale);
  await page.locator('#replica-url').fill(`${other}${replicaPath}`);
  await page.locator('#primary-url').fill(`${other}${primaryPath}`);
  await page.locator('#primary-url').press('Enter');
  await page.waitForFunction(() => !document.getElementById('compare-results').hidden
    && document.getElementById('compare-resolution-title').textContent !== '', null, { timeout: 10000 });
}

describe('replica vs primary in Chromium', () => {
  test('another origin: without the statement that the server exposes the watermark headers, no side is fresh', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await compare(page, '/replica/.well-known/agent-card.json', '/primary/.well-known/agent-card.json', { exposed: false });
    // The primary's exposed lag of 0 ms is not used: a hidden Age could have been anything.
    assert.match(await page.locator('#side-primary').getAttribute('class'), /\brejected\b/);
    assert.match(await text(page, '#side-primary'), /freshness_unverifiable/);
    assert.doesNotMatch(await page.locator('#compare-resolution').getAttribute('class'), /\bvalid\b/);
    const status = await text(page, '#compare-status');
    assert.ok(status.includes(`${other}/primary/.well-known/agent-card.json is on another origin`), status);
    assert.match(status, /Access-Control-Expose-Headers/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('stale v2 replica and fresh v3 primary: both verdicts, the rename at a glance, re-resolution at attempt 2', async () => {
    const { context, page, requests, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const before = { ...hits };
    await compare(page, '/replica/.well-known/agent-card.json', '/primary/.well-known/agent-card.json');
    assert.equal(hits.replica - before.replica, 1, 'one GET to the replica');
    assert.equal(hits.primary - before.primary, 1, 'one GET to the primary');
    // Keyboard: Enter in the URL field submitted, and focus moved to the outcome.
    assert.equal(await page.evaluate(() => document.activeElement.id), 'compare-resolution');
    // Both answered, on another origin that exposes every header read: the status says nothing.
    assert.equal(await page.locator('#compare-status').textContent(), '');

    // Each verdict, from its own watermark header.
    assert.match(await page.locator('#side-replica').getAttribute('class'), /\brejected\b/);
    const replica = await text(page, '#side-replica');
    assert.match(replica, /Rejected: Stale Agent Card \(503\)/);
    assert.match(replica, /watermark_exceeded/);
    assert.match(replica, /40000 ms/);
    assert.ok(replica.includes(STALE.expect.card_hash), 'the replica card hash is the vector\'s');
    assert.match(await page.locator('#side-primary').getAttribute('class'), /\bvalid\b/);
    const primary = await text(page, '#side-primary');
    assert.match(primary, /Valid for delegation \(200\)/);
    assert.match(primary, /worker-7 3\.0\.0, staleness 0 ms/);

    // The re-resolution outcome, as the core's Resolution reaches it.
    assert.match(await page.locator('#compare-resolution').getAttribute('class'), /\bvalid\b/);
    assert.match(await text(page, '#compare-resolution-title'), /Re-resolution would accept the primary's card at attempt 2/);
    const detail = await text(page, '#compare-resolution-detail');
    assert.match(detail, /stale_agent_card \(503\)/);
    assert.match(detail, /accepted the card from primary at attempt 2/);
    const final = JSON.parse(await page.locator('#compare-decision').textContent());
    assert.equal(final.verdict, 'valid');
    assert.equal(final.resolution.outcome, 'accepted');
    assert.deepEqual(final.resolution.attempts.map((a) => [a.source, a.verdict, a.error_class]),
      [['replica', 'rejected', 'stale_agent_card'], ['primary', 'valid', null]]);

    // The diff: summary chips and the table, skill and endpoint renamed on one row each.
    const summary = await text(page, '#diff-summary');
    assert.match(summary, /version 2\.0\.0 → 3\.0\.0 \(the primary is newer\)/);
    assert.match(summary, /skill task\.execute\.v2 removed/);
    assert.match(summary, /skill task\.execute\.v3 added/);
    const oldUrl = STALE.card.supportedInterfaces[0].url;
    const newUrl = PRIMARY.card.supportedInterfaces[0].url;
    assert.notEqual(oldUrl, newUrl);
    assert.ok(summary.includes(`endpoint ${oldUrl} removed`), summary);
    assert.ok(summary.includes(`endpoint ${newUrl} added`), summary);
    const skillRows = await page.locator('#diff-body tr[data-kind="skill"]').allInnerTexts();
    assert.equal(skillRows.length, 1, 'the rename is one row');
    assert.match(skillRows[0], /task\.execute\.v2\s+removed\s+task\.execute\.v3\s+added/);
    assert.equal(await page.locator('#diff-body tr[data-kind="skill"] td.removed code').innerText(), 'task.execute.v2');
    assert.equal(await page.locator('#diff-body tr[data-kind="skill"] td.added code').innerText(), 'task.execute.v3');
    const unchanged = await page.locator('#diff-body tr:not(.changed)').allInnerTexts();
    assert.ok(unchanged.some((r) => /binding\s+JSONRPC\s+JSONRPC/.test(r)), unchanged.join(' | '));
    assert.ok(unchanged.some((r) => /protocol\s+1\.0\s+1\.0/.test(r)), unchanged.join(' | '));
    assert.ok(unchanged.some((r) => /flag\s+streaming\s+streaming/.test(r)), unchanged.join(' | '));
    assert.match(await text(page, '#diff-body tr:first-child'), /version 2\.0\.0 3\.0\.0 newer/);

    // The page shows what the module computes (the Rust core), not its own reading.
    const core = await page.evaluate(([r, p, req]) => window.cardgate.compareCards(r, p, req,
      { lag_ms: '40000', now: null }, { lag_ms: '0', now: null }), [REPLICA_BODY, PRIMARY_BODY, STALE.requirement]);
    const skills = core.comparison.changes.find((d) => d.kind === 'skill');
    assert.deepEqual([skills.removed, skills.added], [['task.execute.v2'], ['task.execute.v3']]);
    assert.equal(core.comparison.primary.card_hash, PRIMARY.expect.card_hash);

    await page.locator('#compare').scrollIntoViewIfNeeded();
    await screenshot(page, 'compare-incident');
    await page.locator('#compare').screenshot({ path: `${ROOT}target/screenshots/compare-incident-section.png` });
    assert.deepEqual(problems, []);
    assert.deepEqual(externalRequests(requests, [site.url, `${other}/`]), []);
    await context.close();
  });

  test('a truncated replica body is reported, and re-resolution still reaches the primary', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await compare(page, '/truncated/.well-known/agent-card.json', '/primary/.well-known/agent-card.json');
    assert.match(await page.locator('#side-replica').getAttribute('class'), /\bmalformed\b/);
    assert.match(await text(page, '#side-replica'), /Malformed Agent Card \(502\)/);
    assert.match(await text(page, '#diff-summary'), /Cannot compare: the replica's body is not a readable card \(json_syntax/);
    assert.match(await text(page, '#compare-resolution-title'), /accept the primary's card at attempt 2/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a source that does not answer with a card is said so; the other side is still judged', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    await compare(page, '/replica/.well-known/agent-card.json', '/gone');
    assert.match(await text(page, '#compare-resolution-title'), /Cannot compare: the primary did not answer with a card/);
    assert.match(await text(page, '#compare-resolution-detail'), /HTTP 404/);
    assert.match(await text(page, '#side-replica'), /Stale Agent Card \(503\)/);
    assert.match(await page.locator('#side-primary').getAttribute('class'), /\berror\b/);
    // The failed side has nothing for the core to judge: no error from it.
    assert.ok(await page.locator('#page-error').isHidden());
    await context.close();
  });

  test('neither source answers with a card: both are named, and there is nothing to compare', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    // After a comparison that had two cards: what it showed is replaced.
    await compare(page, '/replica/.well-known/agent-card.json', '/primary/.well-known/agent-card.json');
    await compare(page, '/gone', '/also-gone');
    assert.match(await page.locator('#compare-resolution').getAttribute('class'), /\berror\b/);
    assert.equal(await text(page, '#compare-resolution-title'),
      'Cannot compare: the replica and the primary did not answer with a card');
    assert.equal(await text(page, '#compare-resolution-detail'),
      'replica: HTTP 404 Not Found; the body was not loaded as a card. primary: HTTP 404 Not Found; the body was not loaded as a card.');
    for (const [side, path] of [['replica', '/gone'], ['primary', '/also-gone']]) {
      // The URL, "No card" and why; no figures.
      assert.deepEqual(await page.evaluate((side) => {
        const box = document.getElementById(`side-${side}`);
        return [box.className, ...[...box.querySelector('.side-body').children].map((e) => `${e.className}|${e.textContent}`)];
      }, side), ['side error', `side-url|${other}${path}`, 'side-verdict|No card', '|HTTP 404 Not Found; the body was not loaded as a card.']);
    }
    assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('#diff-body td')]
      .map((td) => [td.className, td.getAttribute('colspan'), td.textContent])), [['muted', '3', 'Nothing to compare.']]);
    assert.equal(await text(page, '#diff-summary'), '');
    assert.equal(await page.locator('#compare-decision').textContent(), '(none)');
    assert.ok(await page.locator('#page-error').isHidden());
    // Chromium logs each 404 to the console; nothing else went wrong.
    assert.deepEqual(problems.filter((m) => !/status of 404 \(Not Found\)/.test(m)), []);
    await context.close();
  });

  test('an empty URL field is asked for first, with the focus on it, and nothing is fetched', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const before = { ...hits };
    const replica = `${other}/replica/.well-known/agent-card.json`;
    const primary = `${other}/primary/.well-known/agent-card.json`;
    // Spaces only are empty: the URL fields are trimmed.
    for (const [r, p, side] of [['  ', primary, 'replica'], [replica, ' ', 'primary'], ['', '', 'replica']]) {
      await page.locator('#replica-url').fill(r);
      await page.locator('#primary-url').fill(p);
      await page.locator('#compare-run').click();
      assert.equal(await page.locator('#compare-status').textContent(), `Enter the ${side} URL first.`);
      assert.equal(await page.evaluate(() => document.activeElement.id), `${side}-url`);
      assert.ok(await page.locator('#compare-results').isHidden());
    }
    assert.deepEqual(hits, before, 'nothing was fetched');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('while both are fetched, the status names the two URLs', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const replica = `${other}/replica/.well-known/agent-card.json`;
    const primary = `${other}/slow/.well-known/agent-card.json`;
    await page.locator('#cors-exposed').check();
    await page.locator('#replica-url').fill(replica);
    await page.locator('#primary-url').fill(primary);
    await page.locator('#compare-run').click();
    assert.equal(await page.locator('#compare-status').textContent(), `Fetching ${replica} and ${primary}…`);
    await page.waitForFunction(() => document.getElementById('compare-resolution-title').textContent !== '', null, { timeout: 10000 });
    assert.equal(await page.locator('#compare-status').textContent(), '');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a failure the comparison does not expect is reported as "Could not compare", and no result is shown', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    // Reading an answer's headers throws: nothing in the comparison handles that itself.
    await page.evaluate(() => { Headers.prototype.get = () => { throw new Error('headers gone'); }; });
    await page.locator('#replica-url').fill(`${other}/replica/.well-known/agent-card.json`);
    await page.locator('#primary-url').fill(`${other}/primary/.well-known/agent-card.json`);
    await page.locator('#compare-run').click();
    await page.waitForFunction(() => !document.getElementById('page-error').hidden, null, { timeout: 10000 });
    assert.equal(await page.locator('#page-error').innerHTML(), '<strong>Could not compare</strong><p>Error: headers gone</p>');
    assert.ok(await page.locator('#compare-results').isHidden());
    assert.equal(await page.evaluate(() => document.activeElement.id), 'compare-run');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a requirement the core refuses: the page says so, with or without both cards, and shows no comparison', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    const refused = async (replicaPath, primaryPath) => {
      await page.evaluate(() => { document.getElementById('page-error').hidden = true; });
      await page.locator('#cors-exposed').check();
      await page.locator('#req-max-stale').fill('soon');
      await page.locator('#replica-url').fill(`${other}${replicaPath}`);
      await page.locator('#primary-url').fill(`${other}${primaryPath}`);
      await page.locator('#compare-run').click();
      await page.waitForFunction(() => !document.getElementById('page-error').hidden, null, { timeout: 10000 });
      return text(page, '#page-error');
    };
    // Both cards fetched: compareCards refuses the requirement.
    let err = await refused('/replica/.well-known/agent-card.json', '/primary/.well-known/agent-card.json');
    assert.match(err, /^The core refused an input /);
    assert.match(err, /max_stale/);
    assert.ok(await page.locator('#compare-results').isHidden());
    // One side failed: the other is judged alone, and evaluate refuses the requirement.
    err = await refused('/replica/.well-known/agent-card.json', '/gone');
    assert.match(err, /^The core refused an input /);
    assert.match(err, /max_stale/);
    assert.equal(await text(page, '#compare-resolution-title'), 'Cannot compare: the primary did not answer with a card');
    // The replica's card is there, but the core judged nothing: no verdict on that side.
    assert.equal(await page.locator('#side-replica').getAttribute('class'), 'side error');
    assert.equal(await page.locator('#side-replica .side-verdict').count(), 0);
    await context.close();
  });

  test('re-resolution outcomes in words: replica accepted, replica or primary lacking a capability, both stale', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const P3 = JSON.stringify(PRIMARY.card);
    const S2 = JSON.stringify(STALE.card);
    const outcome = async (replica, primary) => {
      bodies.r = replica;
      bodies.p = primary;
      await compare(page, '/card/r', '/card/p');
      return {
        kind: (await page.locator('#compare-resolution').getAttribute('class')).replace('resolution ', ''),
        title: await text(page, '#compare-resolution-title'),
        detail: await text(page, '#compare-resolution-detail'),
        core: JSON.parse(await page.locator('#compare-decision').textContent()),
      };
    };
    // The replica's card is fresh and has the capability: the primary is not asked.
    let o = await outcome([P3, '0'], [PRIMARY_BODY, '0']);
    assert.equal(o.kind, 'valid');
    assert.equal(o.title, 'No re-resolution needed: the replica\'s card is accepted at attempt 1');
    assert.match(o.detail, /^The replica's card is valid; the primary is not asked\. Core: “[^”]+” \(outcome accepted, 1 attempt\)\.$/);
    // The replica's card is fresh and lacks the capability: that is the agent's real card.
    o = await outcome([S2, '0'], [P3, '0']);
    assert.equal(o.kind, 'rejected');
    assert.equal(o.title, 'Re-resolution stops at the replica: its fresh card lacks a required capability');
    assert.equal(o.detail, 'The replica\'s card is capability_mismatch (409): that is the agent\'s real card, so asking the primary would not help; a host fails closed (409). '
      + 'Core: “replica served a fresh card that lacks a required capability; re-resolution stops there (primary not asked)” (outcome capability_mismatch, 1 attempt).');
    // The replica's card is stale, so the primary is asked, and its fresh card lacks the capability.
    o = await outcome([P3, '40000'], [S2, '0']);
    assert.equal(o.kind, 'rejected');
    assert.equal(o.title, 'Re-resolution stops at the primary: its fresh card lacks a required capability');
    assert.equal(o.detail, 'The replica\'s card is stale_agent_card (503), so the gate asks the primary next; its card is fresh but lacks a required capability, and that is the agent\'s real card: a host fails closed (409). '
      + 'Core: “primary served a fresh card that lacks a required capability; no other source was asked” (outcome capability_mismatch, 2 attempts).');
    assert.equal(o.core.resolution.source, 'primary');
    // Both stale: no valid card from either.
    o = await outcome([S2, '40000'], [P3, '40000']);
    assert.equal(o.kind, 'rejected');
    assert.equal(o.title, 'Re-resolution would fail closed (503): no valid card from either source');
    assert.equal(o.detail, 'The replica\'s card is stale_agent_card (503), and the primary\'s is stale_agent_card (503). '
      + 'Core: “no valid card from any of the 2 sources tried” (outcome sources_exhausted, 2 attempts).');
    // The replica stale, the primary's body no card: the primary's class is said.
    o = await outcome([S2, '40000'], ['{"name":', '0']);
    assert.match(o.detail, /^The replica's card is stale_agent_card \(503\), and the primary's is malformed_card \(502\)\. /);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('each side: its verdict, figures, reasons and the headers read; a pinned card is fresh by its hash', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const P3 = JSON.stringify(PRIMARY.card);
    const sideOf = async (side) => page.evaluate((side) => {
      const box = document.getElementById(`side-${side}`);
      const dl = box.querySelector('dl.figures');
      return {
        kind: box.className,
        verdict: box.querySelector('.side-verdict')?.textContent,
        lines: [...box.querySelectorAll('.side-body > p:not(.side-url):not(.side-verdict)')].map((p) => p.textContent),
        url: box.querySelector('.side-url').textContent,
        figures: dl ? [...dl.children].map((e) => e.textContent) : null,
        headers: box.querySelector('details summary')?.textContent,
      };
    }, side);
    bodies.r = [STALE_BODY_MALFORMED, '0'];
    bodies.p = [P3, '40000'];
    await compare(page, '/card/r', '/card/p');
    const replica = await sideOf('replica');
    assert.equal(replica.kind, 'side malformed');
    assert.equal(replica.verdict, 'Malformed Agent Card (502)');
    assert.equal(replica.url, `${other}/card/r`);
    assert.equal(replica.lines.at(-1), 'Reasons: wrong_type');
    assert.equal(await page.locator('#side-replica .side-reasons').textContent(), 'Reasons: wrong_type');
    assert.deepEqual(replica.figures, ['HTTP', `200, ${Buffer.byteLength(STALE_BODY_MALFORMED)} bytes`, 'card hash', replica.figures[3]]);
    assert.match(replica.figures[3], /^sha256:[0-9a-f]{64}$/);
    assert.equal(replica.headers, 'Watermark headers read');
    const primary = await sideOf('primary');
    assert.equal(primary.kind, 'side rejected');
    assert.equal(primary.verdict, 'Rejected: Stale Agent Card (503)');
    assert.equal(primary.lines.at(-1), 'Reasons: watermark_exceeded');
    assert.deepEqual(primary.figures, ['version', '3.0.0', 'staleness', '40000 ms', 'HTTP', `200, ${P3.length} bytes`, 'card hash', PRIMARY.expect.card_hash]);
    assert.equal(await page.locator('#side-primary dd.hash').textContent(), PRIMARY.expect.card_hash);
    // Two reasons, listed with a comma.
    bodies.r = [JSON.stringify({ ...STALE.card, version: '1.0.0' }), '40000'];
    await page.locator('#req-min-version').fill('2');
    await compare(page, '/card/r', '/card/p');
    assert.match((await sideOf('replica')).lines.at(-1), /^Reasons: [a-z_]+, [a-z_]+/);
    await page.locator('#req-min-version').fill('');
    // The primary's card pinned by its hash: fresh whatever its lag.
    await page.locator('#req-pin').fill(PRIMARY.expect.card_hash);
    await compare(page, '/card/r', '/card/p');
    const pinned = await sideOf('primary');
    assert.equal(pinned.kind, 'side valid');
    assert.equal(pinned.verdict, 'Valid for delegation (200)');
    assert.deepEqual(pinned.lines, ['worker-7 3.0.0, freshness proven by the pinned hash.']);
    await page.locator('#req-pin').fill('');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('both sides are judged at the clock typed in the form (trimmed), else the browser\'s, else at none', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    // Both sources report when they last synced, not a lag: the staleness is "now" minus that.
    const synced = { 'x-replica-synced-at': '2026-11-09T12:00:00Z' };
    bodies.r = [REPLICA_BODY, synced];
    bodies.p = [PRIMARY_BODY, synced];
    const sides = async () => Promise.all(['replica', 'primary'].map((side) => text(page, `#side-${side}`)));
    // A typed time, spaces around it: 3 s after the sync on both sides.
    await page.locator('#obs-now').fill('  2026-11-09T12:00:03Z ');
    await compare(page, '/card/r', '/card/p');
    let [replica, primary] = await sides();
    assert.match(primary, /Valid for delegation \(200\).* 3\.0\.0, staleness 3000 ms within tolerance\./, primary);
    assert.match(replica, /Reasons: capabilities_missing .*staleness 3000 ms/, replica);
    // No time typed: this browser's clock, weeks after the sync.
    await page.locator('#obs-now').fill('');
    await compare(page, '/card/r', '/card/p');
    [replica, primary] = await sides();
    for (const side of [replica, primary]) assert.match(side, /watermark_exceeded/, side);
    // No time typed, the clock box unticked: no "now", so no staleness can be worked out.
    await page.locator('#obs-use-clock').setChecked(false);
    await compare(page, '/card/r', '/card/p');
    [replica, primary] = await sides();
    for (const side of [replica, primary]) {
      assert.match(side, /synced_at needs a clock, and none was supplied.*Reasons: clock_missing/, side);
      assert.doesNotMatch(side, /watermark_exceeded/, side);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the diff: the same card, versions older, equivalent or not comparable, uneven renames, bodies that are no card', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const card = (over) => JSON.stringify({ ...PRIMARY.card, ...over });
    const diff = async (replica, primary) => {
      bodies.r = [replica, '0'];
      bodies.p = [primary, '0'];
      await compare(page, '/card/r', '/card/p');
      return page.evaluate(() => ({
        summary: [...document.querySelectorAll('#diff-summary li')].map((li) => [li.className, li.textContent]),
        rows: [...document.querySelectorAll('#diff-body tr')].map((tr) => [tr.className, tr.dataset.kind ?? null,
          [...tr.children].map((c) => `${c.className}|${c.textContent}`)]),
      }));
    };
    // The same card, spaced differently: one line, and the version row without a change.
    let d = await diff(JSON.stringify(PRIMARY.card), PRIMARY_BODY);
    assert.deepEqual(d.summary, [['same', 'The same card: both bodies have the same card hash.']]);
    assert.deepEqual(d.rows[0], ['', null, ['|version', '|3.0.0', '|3.0.0']]);
    assert.ok(d.rows.slice(1).every(([cls]) => cls === ''), JSON.stringify(d.rows));
    assert.deepEqual(d.rows.find(([, kind]) => kind === 'skill'), ['', 'skill', ['|skill', '|task.execute.v3', '|task.execute.v3']]);
    // Different bodies, nothing that counts changed.
    d = await diff(card({ description: 'another text' }), PRIMARY_BODY);
    assert.deepEqual(d.summary, [['same', 'No difference in version, endpoints or capabilities.']]);
    // Versions.
    for (const [replica, primary, word, tag] of [
      ['3.0.0', '2.9.9', 'the primary is older', 'older'],
      ['3.0', '3.0.0', 'the same version, written differently', 'equivalent'],
      ['latest', '3.0.0', 'different, and not comparable', 'incomparable'],
    ]) {
      d = await diff(card({ version: replica }), card({ version: primary }));
      assert.deepEqual(d.summary, [['changed', `version ${replica} → ${primary} (${word})`]]);
      assert.deepEqual(d.rows[0], ['changed', null, ['|version', `|${replica}`, `|${primary} ${tag}`]]);
      assert.equal(await page.locator('#diff-body tr:first-child span.tag.changed').textContent(), tag);
    }
    // Two skills gone, one come: the second removed one has an empty cell beside it; a flag that
    // turned on is listed as added.
    const skill = (id) => ({ id, name: id, description: 'x', tags: ['t'] });
    d = await diff(card({ skills: [skill('a.one'), skill('a.two'), skill('keep')] }),
      card({ skills: [skill('keep'), skill('b.three')], capabilities: { streaming: true, pushNotifications: true, extensions: [{ uri: 'urn:ext:one' }] } }));
    const skills = d.rows.filter(([, kind]) => kind === 'skill');
    assert.deepEqual(skills, [
      ['changed', 'skill', ['|skill', 'removed|a.one removed', 'added|b.three added']],
      ['changed', 'skill', ['|skill', 'removed|a.two removed', 'absent|—']],
      ['', 'skill', ['|skill', '|keep', '|keep']],
    ]);
    // Each row's kind is its header cell, for screen readers.
    assert.deepEqual(await page.evaluate(() => [...new Set([...document.querySelectorAll('#diff-body tr')]
      .map((tr) => `${tr.firstElementChild.tagName} ${tr.firstElementChild.getAttribute('scope')}`))]), ['TH row']);
    // The tags are marked up as such, in the table and in the summary; an empty cell is muted.
    assert.deepEqual(await page.evaluate(() => ['#diff-body span.tag.removed', '#diff-body span.tag.added', '#diff-body td.absent > span.muted',
      '#diff-summary li > span.tag.removed', '#diff-summary li > span.tag.added'].map((q) => document.querySelectorAll(q).length)), [2, 3, 3, 2, 3]);
    assert.deepEqual(d.summary, [
      ['removed', 'skill a.one removed'], ['removed', 'skill a.two removed'], ['added', 'skill b.three added'],
      ['added', 'extension urn:ext:one added'], ['added', 'flag pushNotifications added'],
    ]);
    // More added than removed: the cells beside the added ones are empty.
    d = await diff(card({ skills: [skill('keep')] }), card({ skills: [skill('keep'), skill('n.one'), skill('n.two')] }));
    assert.deepEqual(d.rows.filter(([, kind]) => kind === 'skill'), [
      ['changed', 'skill', ['|skill', 'absent|—', 'added|n.one added']],
      ['changed', 'skill', ['|skill', 'absent|—', 'added|n.two added']],
      ['', 'skill', ['|skill', '|keep', '|keep']],
    ]);
    // An endpoint is named whole, even one that begins like a capability's kind.
    const odd = 'binding:odd';
    d = await diff(PRIMARY_BODY, card({ supportedInterfaces: [{ ...PRIMARY.card.supportedInterfaces[0], url: odd }] }));
    assert.ok(d.summary.some(([cls, t]) => cls === 'added' && t === `endpoint ${odd} added`), JSON.stringify(d.summary));
    // Neither body a card: both are said, one with the member at fault.
    d = await diff('{"name":', card({ version: 3 }));
    assert.equal(d.summary.length, 1);
    assert.match(d.summary[0][1], /^Cannot compare: the replica's body is not a readable card \(json_syntax at \/name: card is not valid I-JSON: [^)]*\); the primary's body is not a readable card \(wrong_type at \/version: card member \/version must be a string, found number\)\.$/);
    assert.deepEqual(d.rows, [['', null, ['muted|Nothing to compare.']]]);
    assert.equal(await page.locator('#diff-body td').getAttribute('colspan'), '3');
    // A body that is not JSON has no card hash: none is shown.
    assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('#side-replica dl.figures > *')].map((e) => e.textContent)),
      ['HTTP', '200, 8 bytes']);
    // A defect with no member at fault is said without one.
    d = await diff('[]', PRIMARY_BODY);
    assert.match(d.summary[0][1], /^Cannot compare: the replica's body is not a readable card \([a-z_]+: [^)]+\)\.$/);
    // Only the primary's body is no card: only it is named.
    d = await diff(PRIMARY_BODY, card({ version: 3 }));
    assert.deepEqual(d.summary.map(([, t]) => t), ['Cannot compare: the primary\'s body is not a readable card (wrong_type at /version: card member /version must be a string, found number).']);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('keyboard only: the header link, both URL fields and the button, then focus on the outcome', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#req-require').fill('task.execute.v3');
    await page.locator('#req-max-stale').fill('10s');
    // A checkbox like any other (step 1); this test is about the comparison's own controls.
    await page.locator('#cors-exposed').check();
    const focused = () => page.evaluate(() => {
      const e = document.activeElement;
      return { id: e.id, href: e.getAttribute('href'), outline: getComputedStyle(e).outlineStyle };
    });
    await page.locator('#load-fresh').focus();
    await page.keyboard.press('Tab');
    let f = await focused();
    assert.equal(f.href, '#compare', 'the header links to the comparison');
    assert.notEqual(f.outline, 'none');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    f = await focused();
    assert.equal(f.id, 'replica-url', 'the link leads the keyboard to the replica URL');
    await page.keyboard.type(`${other}/replica/.well-known/agent-card.json`);
    await page.keyboard.press('Tab');
    assert.equal((await focused()).id, 'primary-url');
    await page.keyboard.type(`${other}/primary/.well-known/agent-card.json`);
    await page.keyboard.press('Tab');
    f = await focused();
    assert.equal(f.id, 'compare-run');
    assert.notEqual(f.outline, 'none');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement.id === 'compare-resolution', null, { timeout: 10000 });
    assert.match(await text(page, '#compare-resolution-title'), /attempt 2/);
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('#compare input')]
      .filter((e) => !(e.labels && e.labels.length)).map((e) => e.id));
    assert.deepEqual(unlabelled, []);
    await context.close();
  });

  test('375 px: the comparison fits, verdicts stack, nothing overflows', async () => {
    const { context, page } = await openPage(browser, { viewport: { width: 375, height: 812 } });
    await gotoInspector(page, site.url);
    await compare(page, '/replica/.well-known/agent-card.json', '/primary/.well-known/agent-card.json');
    const m = await page.evaluate(() => {
      const r = document.getElementById('side-replica').getBoundingClientRect();
      const p = document.getElementById('side-primary').getBoundingClientRect();
      return {
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
        stacked: p.top >= r.bottom,
        wide: [...document.querySelectorAll('#compare *')]
          .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1
            && !e.closest('.table-wrap') && getComputedStyle(e).position !== 'absolute')
          .map((e) => e.id || e.tagName),
        table: document.querySelector('#compare .table-wrap').scrollWidth
          <= document.querySelector('#compare .table-wrap').clientWidth,
      };
    });
    assert.ok(m.scroll <= m.client, `page is ${m.scroll} px wide in a ${m.client} px viewport`);
    assert.ok(m.stacked, 'the two verdicts stack on a narrow screen');
    assert.deepEqual(m.wide, []);
    assert.ok(m.table, 'the diff table fits without scrolling sideways');
    await page.locator('#compare-resolution').scrollIntoViewIfNeeded();
    await page.locator('#compare').screenshot({ path: `${ROOT}target/screenshots/compare-incident-narrow.png` });
    await context.close();
  });
});
