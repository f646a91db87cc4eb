// The inspector in a real headless Chromium (Debian's), driven by playwright-core.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import {
  externalRequests, gotoInspector, launchBrowser, openPage, screenshot, startSite, verdictIs,
} from './harness.mjs';

// The seed's incident: the stale replica's card still advertises task.execute.v2.
const INCIDENT_CARD = JSON.stringify({
  name: 'worker-7',
  description: 'Python worker runtime',
  version: '2.0.0',
  supportedInterfaces: [{ url: 'wss://worker-7.internal/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 'task.execute.v2', name: 'Execute task', description: 'Runs a task', tags: ['task'] }],
}, null, 2);

const DUPLICATE_VERSION_CARD =
  '{"name":"worker-7","version":"2.0.0","version":"3.0.0","capabilities":{},"skills":[{"id":"task.execute.v3"}]}';

let site;
let browser;
const origins = () => [site.url];

before(async () => {
  site = await startSite();
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (site) await site.close();
});

async function text(page, selector) {
  return (await page.locator(selector).innerText()).replace(/\s+/g, ' ').trim();
}

/** Submits the inputs form (the inspector evaluates on submit). */
async function submit(page) {
  await page.locator('#inputs button[type=submit]').click();
}

async function classOf(page, selector) {
  return page.locator(selector).getAttribute('class');
}

function assertLocalOnly(requests) {
  assert.deepEqual(externalRequests(requests, origins()), [], 'the page requested something outside the local server');
}

describe('cardgate inspector in Chromium', () => {
  test('loads its core from the local web build with no error and prompts for a card', async () => {
    const { context, page, requests, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    assert.match(await text(page, '#verdict-title'), /Paste, drop or fetch an Agent Card/);
    assert.equal(await page.locator('#verdict').getAttribute('aria-live'), 'polite');
    assert.ok(requests.some((u) => u.endsWith('.wasm')), 'the wasm core was fetched');
    assert.deepEqual(problems, []);
    assertLocalOnly(requests);
    await context.close();
  });

  test('the seed incident typed in: rejected 503, (a) green, (b) and (c) red with figures', async () => {
    const { context, page, requests, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#card').fill(INCIDENT_CARD);
    await page.locator('#req-require').pressSequentially('task.execute.v3');
    await page.locator('#req-max-stale').pressSequentially('10s');
    await page.locator('#obs-lag-ms').pressSequentially('40000');
    await verdictIs(page, 'rejected');
    await page.waitForFunction(() => /task\.execute\.v3/.test(document.getElementById('cond-c').innerText));

    const title = await text(page, '#verdict-title');
    assert.match(title, /Rejected/);
    assert.match(title, /Stale Agent Card/);
    assert.match(title, /503/);
    assert.match(await text(page, '#verdict'), /StaleAgentCardError/);

    assert.match(await classOf(page, '#cond-a'), /\bpass\b/);
    assert.match(await text(page, '#cond-a .badge'), /passed/);

    assert.match(await classOf(page, '#cond-b'), /\bfail\b/);
    const b = await text(page, '#cond-b');
    assert.match(b, /failed/);
    assert.match(b, /40000 ms/);
    assert.match(b, /10000 ms/);
    assert.match(b, /watermark_exceeded/);

    assert.match(await classOf(page, '#cond-c'), /\bfail\b/);
    const c = await text(page, '#cond-c');
    assert.match(c, /failed/);
    assert.match(c, /task\.execute\.v3/);
    assert.match(c, /capabilities_missing/);

    // Capability table: the required v3 skill is missing, the declared v2 skill is listed.
    const missingRows = await page.locator('#caps-body tr.missing').allInnerTexts();
    assert.equal(missingRows.length, 1);
    assert.match(missingRows[0], /task\.execute\.v3/);
    assert.match(missingRows[0], /missing/);
    assert.match(await text(page, '#caps-body'), /task\.execute\.v2/);
    assert.match(await text(page, '#caps-body'), /JSONRPC/);

    // The problem JSON is the module's evaluateRaw output, byte for byte.
    const problem = await page.locator('#problem').textContent();
    const raw = await page.evaluate(([card]) => window.cardgate.evaluateRaw(card,
      { require: ['task.execute.v3'], max_stale: '10s' },
      JSON.parse(document.getElementById('sent-inputs').textContent.split('observation: ')[1])), [INCIDENT_CARD]);
    assert.equal(problem, raw);
    const decision = JSON.parse(problem);
    assert.equal(decision.status, 503);
    assert.equal(decision.error_class, 'stale_agent_card');
    assert.deepEqual(decision.reasons.map((r) => r.code), ['watermark_exceeded', 'capabilities_missing']);
    assert.equal(decision.staleness_ms, 40000);

    // Canonical JSON of the card, from the core.
    const canonical = await page.locator('#canonical').textContent();
    assert.equal(canonical, await page.evaluate((card) => window.cardgate.canonicalize(card), INCIDENT_CARD));

    await screenshot(page, 'incident-verdict');
    assert.deepEqual(problems, []);
    assertLocalOnly(requests);
    await context.close();
  });

  test('"Load the incident" gives the same verdict in one click', async () => {
    const { context, page, requests } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    assert.match(await text(page, '#cond-b'), /40000 ms.*10000 ms/);
    assert.match(await classOf(page, '#cond-a'), /\bpass\b/);
    assert.match(await classOf(page, '#cond-c'), /\bfail\b/);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'verdict');
    assertLocalOnly(requests);
    await context.close();
  });

  test('the card after the deploy, from a fresh replica, is valid: all three conditions green', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-fresh').click();
    await verdictIs(page, 'valid');
    assert.match(await text(page, '#verdict-title'), /Valid for delegation \(200\)/);
    for (const c of ['a', 'b', 'c']) assert.match(await classOf(page, `#cond-${c}`), /\bpass\b/);
    assert.match(await text(page, '#cond-b'), /1200 ms/);
    assert.equal(await page.locator('#caps-body tr.missing').count(), 0);
    assert.match(await text(page, '#caps-body tr.ok'), /task\.execute\.v3/);
    const d = JSON.parse(await page.locator('#problem').textContent());
    assert.equal(d.verdict, 'valid');
    assert.equal(d.freshness, 'watermark');
    await screenshot(page, 'fresh-valid', { fullPage: false });
    await context.close();
  });

  // The verdict's own sentences, word for word: which freshness proof made a card valid, the
  // typed error and retry a rejection maps to, and where in a malformed card the fault is (the
  // member and byte, each said once: a core message that already names one is not repeated).
  test('the verdict says how freshness was proven, the typed error, and where a malformed card is at fault', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-fresh').click();
    await verdictIs(page, 'valid');
    assert.equal(await text(page, '#verdict-detail'), 'worker-7 3.0.0: every condition holds, staleness 1200 ms within tolerance.');
    assert.equal(await page.locator('#verdict .verdict-extra').count(), 0);
    const hash = await page.evaluate(() => window.cardgate.cardHash(document.getElementById('card').value));
    await page.locator('#req-pin').fill(hash);
    await submit(page);
    await page.waitForFunction(() => /pinned hash/.test(document.getElementById('verdict-detail').textContent));
    assert.equal(await text(page, '#verdict-detail'), 'worker-7 3.0.0: every condition holds, freshness proven by the pinned hash.');
    assert.match(await text(page, '#cond-b'), /Proven by the pinned hash: the watermark was not consulted\./);

    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    assert.deepEqual(await page.locator('#verdict .verdict-extra').allInnerTexts(), [
      'Error class stale_agent_card · the Node package throws StaleAgentCardError with retry re-resolve · Envoy answers 503',
    ]);

    // Each case: the card, the verdict's detail, and its extra line (a byte offset gives a button).
    const extra = (status, more = '') => `Error class malformed_card · the Node package throws MalformedAgentCardError with retry re-resolve · Envoy answers ${status}${more}`;
    for (const [card, detail, line] of [
      // The message names the byte, not the member: the member is added.
      [
        DUPLICATE_VERSION_CARD,
        'card is not valid I-JSON: duplicate member name "version" at byte 37 (at /version). No condition was evaluated.',
        extra(502, ' · Show byte 37 in the card'),
      ],
      // The message names the member and there is no byte: nothing is added, and no button.
      [
        '{"name":1,"version":"1","capabilities":{},"skills":[]}',
        'card member /name must be a string, found number. No condition was evaluated.',
        extra(502),
      ],
    ]) {
      await page.locator('#card').fill(card);
      await submit(page);
      await verdictIs(page, 'malformed');
      await page.waitForFunction((d) => document.getElementById('verdict-detail').textContent === d, detail, { timeout: 5000 })
        .catch(() => {});
      assert.equal(await text(page, '#verdict-detail'), detail);
      assert.deepEqual(await page.locator('#verdict .verdict-extra').allInnerTexts(), [line]);
    }
    const show = page.getByRole('button', { name: /^Show byte/ });
    assert.equal(await show.count(), 0);
    await page.locator('#card').fill(DUPLICATE_VERSION_CARD);
    await submit(page);
    await page.waitForFunction(() => /at \/version/.test(document.getElementById('verdict-detail').textContent));
    assert.equal(await show.getAttribute('type'), 'button');
    assert.equal(await show.getAttribute('class'), 'link');
    assert.deepEqual(problems, []);
    await context.close();
  });

  // Each condition's box, word for word: its badge and class, its message, each reason's code
  // (its message only where the condition's does not already say it), figures with their
  // units and lists, and the advice; then the canonical note and the problem's caption.
  test('each condition shows its badge, reasons, figures and advice; the canonical and problem captions', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const incident = JSON.parse(INCIDENT_CARD);
    await page.locator('#card').fill(JSON.stringify(incident));
    await page.locator('#req-max-stale').fill('10s');
    await page.locator('#obs-lag-ms').fill('100');
    await page.locator('#obs-lag-s').fill('5');
    await submit(page);
    await page.waitForFunction(() => /watermark_contradictory/.test(document.getElementById('cond-b').innerText));
    const box = (c) => page.evaluate((id) => {
      const li = document.getElementById(id);
      return {
        class: li.className,
        badge: li.querySelector('.badge').textContent,
        body: [...li.querySelector('.cond-body').children].map((n) => n.className === 'reason'
          ? {
            line: n.firstElementChild.textContent,
            code: n.querySelector('p > code')?.textContent,
            figures: [...n.querySelectorAll('dl.figures > *')].map((f) => `${f.tagName} ${f.textContent}`),
            advice: [...n.querySelectorAll('p.advice')].map((p) => p.textContent),
          }
          : `${n.tagName} ${n.className} ${n.textContent}`),
      };
    }, `cond-${c}`);
    assert.deepEqual(await box('a'), {
      class: 'cond pass', badge: '✓ passed', body: ['P cond-msg no minimum version required (card version "2.0.0")'],
    });
    assert.deepEqual(await box('b'), {
      class: 'cond fail',
      badge: '✗ failed',
      body: [
        'P cond-msg watermarks disagree by 4900 ms (more than 1000 ms): lag_ms 100 ms, lag_s 5 s',
        {
          // The condition says the reason's message: only its code is shown.
          line: 'watermark_contradictory',
          code: 'watermark_contradictory',
          figures: ['DT max_stale_ms', 'DD 10000 ms', 'DT skew_ms', 'DD 1000 ms', 'DT watermarks', 'DD lag_ms 100 ms, lag_s 5 s'],
          advice: ['Two lag sources disagree by more than a second, so neither can be trusted.'],
        },
      ],
    });
    assert.deepEqual(await box('c'), { class: 'cond pass', badge: '✓ passed', body: ['P cond-msg no capabilities required'] });
    assert.equal(await text(page, '#canon-note'), 'The card as the core parsed it, in canonical form.');
    assert.equal(await text(page, '#problem-caption'),
      "Rejected: Envoy answers HTTP 503 with this application/problem+json body; the Node package's StaleAgentCardError carries the same decision.");
    const problem = await page.locator('#problem').textContent();
    assert.equal(await page.locator('#problem-pretty').textContent(), JSON.stringify(JSON.parse(problem), null, 2));

    // Figures that are strings and numbers not in ms; the version's advice.
    await page.locator('#req-min-version').fill('2.1.0');
    await page.locator('#obs-lag-s').fill('');
    await page.locator('#obs-lag-ms').fill('-5');
    await submit(page);
    await page.waitForFunction(() => /version_below_minimum/.test(document.getElementById('cond-a').innerText));
    assert.deepEqual((await box('a')).body[1], {
      line: 'version_below_minimum',
      code: 'version_below_minimum',
      figures: ['DT card_version', 'DD 2.0.0', 'DT min_version', 'DD 2.1.0'],
      advice: ['The registry served an older card than you accept: re-resolve from the primary, or lower the minimum if the old version really is fine.'],
    });
    assert.deepEqual((await box('b')).body.slice(1), [{
      line: 'watermark_invalid',
      code: 'watermark_invalid',
      figures: ['DT max_stale_ms', 'DD 10000 ms', 'DT value', 'DD -5', 'DT watermark', 'DD lag_ms'],
      advice: ['A watermark value does not parse (or is negative); an unreadable watermark is treated as stale.'],
    }]);

    // A valid card with top-level signatures: the note says the hash leaves them out.
    incident.signatures = [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' }];
    await page.locator('#card').fill(JSON.stringify(incident));
    await page.locator('#req-min-version').fill('');
    await page.locator('#obs-lag-ms').fill('100');
    await submit(page);
    await verdictIs(page, 'valid');
    await page.waitForFunction(() => /signatures/.test(document.getElementById('canon-note').textContent));
    assert.equal(await text(page, '#canon-note'),
      'The card as the core parsed it, in canonical form. The hash covers this without the top-level signatures member.');
    assert.equal(await text(page, '#problem-caption'),
      'Valid: the Node package returns this decision and Envoy forwards the card unchanged (200).');
    assert.equal(await page.locator('#canonical').textContent(),
      await page.evaluate((card) => window.cardgate.canonicalize(card), JSON.stringify(incident)));

    // A card that does not parse: no condition evaluated, and no canonical form.
    await page.locator('#card').fill(DUPLICATE_VERSION_CARD);
    await submit(page);
    await verdictIs(page, 'malformed');
    for (const c of ['a', 'b', 'c']) {
      assert.deepEqual(await box(c), { class: 'cond na', badge: 'not evaluated', body: [] });
    }
    assert.equal(await page.locator('#canonical').textContent(), '(the card did not parse, so it has no canonical form)');
    assert.deepEqual(problems, []);
    await context.close();
  });

  // The capability table row by row: kind, name (breakable after . / :), whether required, and
  // what the card grants, sorted by kind with the required first; a capability only some SDK
  // readings have, with the readings that lack it; a declared binding or flag the decision still
  // finds missing, with why; and the one-line tables.
  // Every reason code the page has advice for, each shown once under its reason (the three
  // above are checked there): the inputs that give each code, and the sentence, word for word.
  test('every reason with advice shows it under the reason, once', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const card = (version) => JSON.stringify({ ...JSON.parse(INCIDENT_CARD), version });
    const hash = await page.evaluate((c) => window.cardgate.cardHash(c), card('2.0.0'));
    const cases = [
      ['a', 'version_incomparable', { card: card('nightly'), 'req-min-version': '2.0.0', 'obs-lag-ms': '100' },
        'The card version is not a number sequence or semver, so no floor can be checked: fix the card, or drop the minimum.'],
      ['b', 'freshness_unverifiable', {},
        'The response carried no replica-lag watermark, so freshness cannot be proven: the registry must send one, or you must pin the card hash.'],
      ['b', 'tolerance_missing', { 'req-max-stale': '', 'obs-lag-ms': '100' },
        'No max staleness was given, so the watermark cannot be judged: set one, or pin the card hash.'],
      ['b', 'leader_unknown', { 'obs-consul-last-contact': '5', 'obs-consul-known-leader': 'false' },
        'Consul reports no known leader, so its last-contact figure means nothing.'],
      ['b', 'clock_missing', { 'obs-synced-at': '2026-11-09T12:00:00Z' },
        'A sync timestamp needs a clock to turn it into a lag: give “now”.'],
      ['b', 'watermark_in_future', { 'obs-synced-at': '2026-11-09T12:00:00Z', 'obs-now': '2026-11-09T11:00:00Z' },
        'The sync timestamp is later than now: one of the clocks is wrong.'],
      ['b', 'watermark_exceeded', { 'obs-lag-ms': '40000' },
        'The replica that answered is further behind than you tolerate: re-resolve from a fresher replica or the primary.'],
      ['b', 'pinned_hash_mismatch', { 'req-pin': `sha256:${'0'.repeat(64)}` },
        'The card differs from the one you pinned out of band: it changed, or you are talking to a different registry state.'],
      ['b', 'card_name_mismatch', { 'obs-lag-ms': '100', 'req-card-name': 'worker-8' },
        'The registry served a card with another name than the one you expect: another agent\'s card, or one from before a rename; re-resolve from the primary, and check the agent id you asked for.'],
      ['c', 'capabilities_missing', { 'obs-lag-ms': '100', 'req-require': 'task.execute.v3' },
        'Delegating would fail at the worker, after the task is queued: do not delegate to this card (retrying will not help).'],
    ];
    assert.ok(hash.startsWith('sha256:'));
    for (const [c, code, fields, advice] of cases) {
      await page.evaluate((f) => {
        const base = { 'req-require': '', 'req-min-version': '', 'req-max-stale': '10s', 'req-pin': '', 'req-card-name': '',
          'obs-lag-ms': '', 'obs-lag-s': '', 'obs-synced-at': '', 'obs-consul-last-contact': '', 'obs-consul-known-leader': '',
          'obs-age-s': '', 'obs-now': '' };
        for (const [id, v] of Object.entries({ ...base, ...f })) document.getElementById(id).value = v;
        document.getElementById('obs-use-clock').checked = false;
        document.querySelector('#inputs button[type=submit]').click();
      }, { card: card('2.0.0'), ...fields });
      await page.waitForFunction(([id, k]) => [...document.querySelectorAll(`#${id} .reason p > code`)].some((e) => e.textContent === k),
        [`cond-${c}`, code], { timeout: 5000 });
      const shown = await page.evaluate(([id, k]) => [...document.querySelectorAll(`#${id} .reason`)]
        .filter((r) => r.querySelector('p > code').textContent === k)
        .map((r) => [...r.querySelectorAll('p.advice')].map((a) => a.textContent)), [`cond-${c}`, code]);
      assert.deepEqual(shown, [[advice]], code);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the capability table, row by row', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const card = JSON.stringify({
      name: 'w',
      version: '1',
      capabilities: { push_notifications: true, streaming: true, extensions: [{ uri: 'urn:example:trace/v1' }] },
      skills: [{ id: 's1' }, { id: 'task.run/v2' }],
      supportedInterfaces: [
        { url: 'https://a.example/x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://a.example/g', protocolBinding: 'GRPC', protocolVersion: '0.3' },
      ],
    });
    const rows = async (cardText, require, title) => {
      await page.locator('#card').fill(cardText);
      await page.locator('#req-require').fill(require.join('\n'));
      await page.locator('#req-max-stale').fill('10s');
      await page.locator('#obs-lag-ms').fill('5');
      await submit(page);
      await page.waitForFunction((t) => document.getElementById('verdict-title').textContent.startsWith(t), title, { timeout: 5000 })
        .catch(() => {});
      assert.match(await text(page, '#verdict-title'), new RegExp(`^${title.replace(/[()]/g, '\\$&')}`));
      return page.evaluate(() => [...document.querySelectorAll('#caps-body tr')].map((tr) =>
        [tr.className, tr.dataset.agree, ...[...tr.children].map((td) => td.textContent)].join(' | ')));
    };
    const pushNote = 'not granted (not read by @a2a-js/sdk default resolver, @a2a-js/sdk with legacyCompat)';
    assert.deepEqual(await rows(card, ['task.run/v2', 's9', 'capability:streaming', 'binding:GRPC', 'task.run/v2',
      'extension:urn:example:trace/v1'], 'Rejected: Agent Card Capability Mismatch (409)'), [
      'ok | true | skill | task.run/v2 | required | ✓ declared',
      'missing | true | skill | s9 | required | ✗ missing',
      ' | true | skill | s1 | — | declared',
      'ok | true | extension | urn:example:trace/v1 | required | ✓ declared',
      'ok | true | flag | streaming | required | ✓ declared',
      ` | true | flag | pushNotifications | — | ${pushNote}`,
      'ok | true | binding | GRPC | required | ✓ declared',
      ' | true | binding | JSONRPC | — | declared',
      ' | true | protocol | 1.0 | — | declared',
      ' | true | protocol | 0.3 | — | declared',
    ]);
    assert.equal(await page.locator('#caps-body tr:first-child code').innerHTML(), 'task.<wbr>run/<wbr>v2');
    // GRPC is declared, at 0.3 only: with protocol:1.0 required, the decision finds it missing;
    // HTTP+JSON is not declared at all, so it gets no note.
    assert.deepEqual(await rows(card, ['binding:GRPC', 'protocol:1.0', 'binding:HTTP+JSON'], 'Rejected: Agent Card Capability Mismatch (409)'), [
      ' | true | skill | s1 | — | declared',
      ' | true | skill | task.run/v2 | — | declared',
      ' | true | extension | urn:example:trace/v1 | — | declared',
      ' | true | flag | streaming | — | declared',
      ` | true | flag | pushNotifications | — | ${pushNote}`,
      'missing | true | binding | GRPC | required | ✗ missing (declared, but the interface a client picks for it is not at a required protocol version, or a pre-1.0 client sends it elsewhere)',
      'missing | true | binding | HTTP+JSON | required | ✗ missing',
      ' | true | binding | JSONRPC | — | declared',
      'ok | true | protocol | 1.0 | required | ✓ declared',
      ' | true | protocol | 0.3 | — | declared',
    ]);
    // A caller naming only protocol:0.3 may be on a pre-1.0 SDK.
    const extended = JSON.stringify({
      name: 'w', version: '1', capabilities: { extendedAgentCard: true }, skills: [],
      supportedInterfaces: [{ url: 'https://a.example/x', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
    });
    assert.deepEqual(await rows(extended, ['capability:extendedAgentCard', 'protocol:0.3'], 'Rejected: Agent Card Capability Mismatch (409)'), [
      'missing | true | flag | extendedAgentCard | required | ✗ missing (declared, but a caller naming only protocol:0.3 may be on a pre-1.0 SDK, whose clients fetch the extended card only with supportsAuthenticatedExtendedCard)',
      ' | true | binding | JSONRPC | — | declared',
      // A v1.0 card without url: a2a-sdk 0.3's resolver refuses it (src/v03_card_model.rs).
      'missing | true | protocol | 0.3 | required | ✗ missing (declared, but a caller naming only protocol:0.3 may be on a pre-1.0 SDK whose resolver refuses this card: see the verdict)',
    ]);
    assert.deepEqual(await rows('{"name":"w","version":"1","capabilities":{},"skills":[]}', [], 'Valid for delegation (200)'),
      [' |  | No capability required or declared.']);
    assert.deepEqual(await rows('{"name":1}', [], 'Malformed Agent Card (502)'),
      [' |  | The card is malformed: the gate reads no capability from it.']);
    assert.deepEqual(await rows('{"name":', [], 'Malformed Agent Card (502)'),
      [' |  | The card did not parse: the gate reads no capability from it.']);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a card file opened or dropped is evaluated as its exact bytes', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#req-require').fill('task.execute.v3');
    await page.locator('#req-max-stale').fill('10s');
    await page.locator('#obs-lag-ms').fill('40000');
    await page.locator('#card-file').setInputFiles({ name: 'worker-7.json', mimeType: 'application/json', buffer: Buffer.from(INCIDENT_CARD) });
    await verdictIs(page, 'rejected');
    assert.match(await text(page, '#fetch-status'), /worker-7\.json/);
    assert.equal(await page.locator('#card').inputValue(), INCIDENT_CARD);

    // Dropping a file with invalid UTF-8 on the text area: the core sees the raw bytes.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array([0x7b, 0xff, 0x7d])], 'bad.json', { type: 'application/json' }));
      const area = document.getElementById('card');
      area.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      area.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await verdictIs(page, 'malformed');
    assert.match(await text(page, '#verdict'), /invalid_utf8/);
    await context.close();
  });

  test('a file with CRLF line ends is still evaluated as its bytes (the text area turns them into LF)', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-fresh').click();
    await verdictIs(page, 'valid');
    const pretty = JSON.stringify(JSON.parse(await page.locator('#card').inputValue()), null, 2).replace(/\n/g, '\r\n');
    // CRLF alone: still the valid card (JSON whitespace).
    await page.locator('#card-file').setInputFiles({ name: 'crlf.json', mimeType: 'application/json', buffer: Buffer.from(pretty) });
    await verdictIs(page, 'valid');
    // CRLF and a byte-order mark, which the core refuses (the text area would show the text
    // without it): malformed, as `cardgate check` says of the same bytes.
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(pretty)]);
    await page.locator('#card-file').setInputFiles({ name: 'bom-crlf.json', mimeType: 'application/json', buffer: bom });
    await verdictIs(page, 'malformed');
    // CRLF and a byte that is not UTF-8 (the text area would show U+FFFD).
    const bad = Buffer.from(pretty.replace('"name": "', '"name": "\u0000'));
    bad[bad.indexOf(0)] = 0xff;
    await page.locator('#card-file').setInputFiles({ name: 'bad-crlf.json', mimeType: 'application/json', buffer: bad });
    await verdictIs(page, 'malformed');
    assert.match(await text(page, '#verdict'), /invalid_utf8/);
    await context.close();
  });

  test('"Copy as pin" copies the core hash, fills the pin field and says so', async () => {
    const { context, page, requests } = await openPage(browser, {
      permissions: ['clipboard-read', 'clipboard-write'], origin: site.url.replace(/\/$/, ''),
    });
    await gotoInspector(page, site.url);
    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    const card = await page.locator('#card').inputValue();
    const expected = await page.evaluate((c) => window.cardgate.cardHash(c), card);
    assert.match(expected, /^sha256:[0-9a-f]{64}$/);
    assert.equal(await text(page, '#card-hash'), expected);

    await page.locator('#copy-pin').click();
    await page.waitForFunction(() => document.getElementById('copy-status').textContent !== '');
    assert.equal(await page.locator('#req-pin').inputValue(), expected);
    assert.match(await text(page, '#copy-status'), /Copied sha256:[0-9a-f]{64}/);
    assert.ok(await page.locator('#copy-status').isVisible());
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected);

    // Pinned: (b) now passes by the pin, the capability gap alone remains (409).
    await page.waitForFunction(() => document.getElementById('cond-b').classList.contains('pass'));
    assert.match(await text(page, '#cond-b'), /pin/i);
    assert.match(await text(page, '#verdict-title'), /409/);
    assert.match(await text(page, '#verdict'), /CapabilityMismatchError/);

    // With pin_mode with_watermark the incident's 40 s lag counts again: (b) fails, 503.
    await page.locator('#req-pin-mode').check();
    await page.waitForFunction(() => document.getElementById('cond-b').classList.contains('fail'));
    assert.match(await text(page, '#verdict-title'), /503/);
    assert.match(await text(page, '#cond-b'), /40000|40 s|watermark/);
    await page.locator('#req-pin-mode').uncheck();
    await page.waitForFunction(() => document.getElementById('cond-b').classList.contains('pass'));
    assertLocalOnly(requests);
    await context.close();
  });

  test('a card with duplicate "version" members shows the typed error in the page', async () => {
    const { context, page, requests, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#card').fill(DUPLICATE_VERSION_CARD);
    await submit(page);
    await verdictIs(page, 'malformed');
    const v = await text(page, '#verdict');
    assert.match(v, /Malformed Agent Card/);
    assert.match(v, /502/);
    assert.match(v, /duplicate_member/);
    assert.match(v, /\/version/);
    assert.match(v, /MalformedAgentCardError/);
    for (const c of ['a', 'b', 'c']) assert.match(await classOf(page, `#cond-${c}`), /\bna\b/);
    assert.match(await text(page, '#card-hash'), /did not parse/);
    assert.ok(await page.locator('#copy-pin').isDisabled());
    const problem = JSON.parse(await page.locator('#problem').textContent());
    assert.equal(problem.error_class, 'malformed_card');
    assert.equal(problem.reasons[0].code, 'duplicate_member');
    await screenshot(page, 'malformed-duplicate-version', { fullPage: false });
    // "Show byte N" puts the caret on the second "version" in the card.
    const offset = problem.reasons[0].offset;
    assert.equal(typeof offset, 'number');
    await page.getByRole('button', { name: `Show byte ${offset} in the card` }).click();
    const caret = await page.evaluate(() => {
      const a = document.getElementById('card');
      return { focused: document.activeElement === a, at: a.selectionStart };
    });
    assert.ok(caret.focused);
    assert.equal(caret.at, offset); // ASCII card: bytes and characters coincide
    assert.equal(DUPLICATE_VERSION_CARD.slice(offset, offset + 10), '"version":');
    assert.deepEqual(problems, []);
    assertLocalOnly(requests);
    await context.close();
  });

  test('non-JSON and a bad requirement are shown in the page, never blank', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#card').fill('this is not json');
    await submit(page);
    await verdictIs(page, 'malformed');
    assert.match(await text(page, '#verdict'), /json_syntax/);

    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    await page.locator('#req-max-stale').fill('ten seconds');
    await submit(page);
    await verdictIs(page, 'error');
    assert.ok(await page.locator('#page-error').isVisible());
    const err = await text(page, '#page-error');
    assert.match(err, /max_stale/);
    assert.match(err, /(TypeError|RangeError)/);

    // Back to a good input: the error goes away.
    await page.locator('#req-max-stale').fill('10s');
    await submit(page);
    await verdictIs(page, 'rejected');
    assert.ok(await page.locator('#page-error').isHidden());
    await context.close();
  });

  test('a web build that fails to load is reported in the page', async () => {
    const { context, page } = await openPage(browser);
    await page.route('**/pkg/web/index.js', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await page.goto(site.url);
    await verdictIs(page, 'error');
    assert.match(await text(page, '#verdict-title'), /could not be loaded/);
    assert.ok(await page.locator('#page-error').isVisible());
    // "Fetch both and compare" without the core does nothing: nothing is fetched, the status is
    // left empty and the error stays the build's.
    const asked = [];
    await page.route('http://cards.invalid/**', (route) => { asked.push(route.request().url()); return route.abort(); });
    await page.locator('#replica-url').fill('http://cards.invalid/replica.json');
    await page.locator('#primary-url').fill('http://cards.invalid/primary.json');
    await page.locator('#compare-run').click();
    await page.waitForTimeout(300);
    assert.equal(await page.locator('#compare-status').textContent(), '');
    assert.match(await text(page, '#page-error'), /^The cardgate web build did not load/);
    assert.ok(await page.locator('#compare-results').isHidden());
    assert.deepEqual(asked, []);
    await context.close();
  });

  test('narrow screen (375 px): no horizontal scroll, verdict on top', async () => {
    const { context, page, requests } = await openPage(browser, { viewport: { width: 375, height: 812 } });
    await gotoInspector(page, site.url);
    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    const m = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      verdictTop: document.getElementById('verdict').getBoundingClientRect().top + window.scrollY,
      formTop: document.getElementById('inputs').getBoundingClientRect().top + window.scrollY,
    }));
    assert.ok(m.scroll <= m.client, `page is ${m.scroll} px wide in a ${m.client} px viewport`);
    assert.ok(m.verdictTop < m.formTop, 'the verdict comes before the inputs');
    // Nothing inside is wider than the viewport either (tables and code scroll or wrap inside).
    const wide = await page.evaluate(() => [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1
        && !e.closest('.table-wrap') && getComputedStyle(e).position !== 'absolute')
      .map((e) => e.id || e.tagName));
    assert.deepEqual(wide, []);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'incident-narrow', { fullPage: false });
    await screenshot(page, 'incident-narrow-full');
    assertLocalOnly(requests);
    await context.close();
  });

  test('keyboard only: skip link, one-key incident, pin copy, visible focus, labelled controls', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    const focused = () => page.evaluate(() => {
      const e = document.activeElement;
      const s = getComputedStyle(e);
      return { id: e.id, tag: e.tagName, outline: s.outlineStyle, width: s.outlineWidth };
    });

    await page.keyboard.press('Tab');
    let f = await focused();
    assert.equal(f.tag, 'A', 'first stop is the skip link');
    assert.ok(await page.locator('a.skip').isVisible(), 'the skip link shows when focused');
    await page.keyboard.press('Tab');
    f = await focused();
    assert.equal(f.id, 'load-incident');
    assert.notEqual(f.outline, 'none', 'focus is visible');
    await page.keyboard.press('Enter');
    await verdictIs(page, 'rejected');
    assert.equal((await focused()).id, 'verdict', 'focus moves to the verdict');

    // Tab on until the copy-as-pin button, through every input in document order.
    const order = [];
    for (let i = 0; i < 40; i += 1) {
      await page.keyboard.press('Tab');
      f = await focused();
      order.push(f.id || f.tag);
      if (f.id === 'copy-pin') break;
      if (['INPUT', 'TEXTAREA', 'BUTTON'].includes(f.tag)) assert.notEqual(f.outline, 'none', `${f.id} shows focus`);
    }
    assert.equal(f.id, 'copy-pin', `reached the pin button; order: ${order.join(' ')}`);
    const ids = ['card', 'card-file', 'card-url', 'fetch-card', 'req-require', 'req-min-version', 'req-max-stale',
      'req-pin', 'req-pin-mode', 'obs-lag-ms', 'obs-now', 'obs-use-clock', 'clear'];
    const pos = ids.map((id) => order.indexOf(id));
    assert.ok(pos.every((p) => p >= 0), `every control is reachable: ${order.join(' ')}`);
    assert.deepEqual([...pos].sort((x, y) => x - y), pos, 'focus order follows the form');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('req-pin').value.startsWith('sha256:'));
    await page.waitForFunction(() => document.getElementById('cond-b').classList.contains('pass'));

    // Enter in a field evaluates; every form control has a label.
    await page.locator('#req-min-version').focus();
    await page.keyboard.type('3.0.0');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('cond-a').classList.contains('fail'));
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, textarea, select')]
      .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map((e) => e.id));
    assert.deepEqual(unlabelled, []);
    await context.close();
  });

  test('load from a URL reads the watermark headers the server exposes', async () => {
    const card = INCIDENT_CARD;
    const fixture = createServer((req, res) => {
      const headers = { 'content-type': 'application/json', 'access-control-allow-origin': '*' };
      if (req.url === '/exposed') {
        Object.assign(headers, {
          'x-replica-lag-ms': '40000', age: '3',
          'access-control-expose-headers': 'X-Replica-Lag-Ms, X-Replica-Lag-S, X-Replica-Synced-At, X-Consul-LastContact, X-Consul-KnownLeader, Age',
        });
      } else if (req.url === '/hidden') {
        headers['x-replica-lag-ms'] = '40000';
      } else {
        res.writeHead(404, headers);
        res.end('{}');
        return;
      }
      res.writeHead(200, headers);
      res.end(card);
    });
    await new Promise((ok) => fixture.listen(0, '127.0.0.1', ok));
    const other = `http://127.0.0.1:${fixture.address().port}`;
    try {
      const { context, page, requests } = await openPage(browser);
      await gotoInspector(page, site.url);
      await page.locator('#req-require').fill('task.execute.v2');
      await page.locator('#req-max-stale').fill('10s');

      // The fixture is on another origin and exposes every header the page reads: said so.
      await page.locator('#cors-exposed').check();
      await page.locator('#card-url').fill(`${other}/exposed`);
      await page.locator('#fetch-card').click();
      await verdictIs(page, 'rejected');
      assert.equal(await page.locator('#obs-lag-ms').inputValue(), '40000');
      assert.equal(await page.locator('#obs-age-s').inputValue(), '3');
      const status = await text(page, '#fetch-status');
      assert.match(status, /x-replica-lag-ms → lag_ms: 40000/);
      assert.match(status, /age → age_s: 3/);
      assert.match(status, /x-consul-lastcontact → consul_last_contact_ms: not readable/);
      assert.match(await text(page, '#cond-b'), /43000 ms/);

      // Without Access-Control-Expose-Headers the browser hides the lag: freshness unverifiable.
      await page.locator('#card-url').fill(`${other}/hidden`);
      await page.locator('#fetch-card').click();
      await page.waitForFunction(() => document.getElementById('obs-lag-ms').value === '');
      await page.waitForFunction(() => /freshness_unverifiable/.test(document.getElementById('cond-b').innerText));
      assert.match(await text(page, '#fetch-status'), /x-replica-lag-ms → lag_ms: not readable/);
      assert.equal(await page.locator('#fetch-status .cors-note').count(), 0, 'the box says the server exposes them all');

      // Unticked: the page says why the headers it did read are not used.
      await page.locator('#cors-exposed').uncheck();
      await page.locator('#card-url').fill(`${other}/exposed`);
      await page.locator('#fetch-card').click();
      await page.waitForFunction(() => document.querySelector('#fetch-status .cors-note') !== null);
      assert.equal(await page.locator('#obs-lag-ms').inputValue(), '');
      assert.equal(await page.locator('#fetch-status .cors-note').innerHTML(),
        `${other}/exposed is on another origin: the browser hides every response header its server does not list in `
        + '<code>Access-Control-Expose-Headers</code>, so the watermark headers read were not used (no watermark: not fresh). '
        + 'Once the server exposes all of them, tick “The server lists every one of these headers” and fetch again.');

      await page.locator('#card-url').fill(`${other}/missing`);
      await page.locator('#fetch-card').click();
      await page.waitForFunction(() => !document.getElementById('page-error').hidden);
      assert.match(await text(page, '#page-error'), /HTTP 404/);
      assert.deepEqual(externalRequests(requests, [site.url, `${other}/`]), []);
      await context.close();
    } finally {
      await new Promise((ok) => fixture.close(ok));
    }
  });
});
