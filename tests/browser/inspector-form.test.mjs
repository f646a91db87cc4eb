// The inspector's form: what it sends to the core, what the page shows when there is nothing to
// judge or the core refuses an input, and what its buttons, keys and events do (www/app.js:
// headersFromModule, requirementFromForm, observationFromForm, evaluateNow, renderEmpty,
// resetDetails, renderInputError, showPageError, loadExample, clearForm, wire, start). In Debian's
// headless Chromium, driven by playwright-core; the page's own record of what it sent ("Inputs
// sent to the core") is read back and checked member by member.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gotoInspector, launchBrowser, openPage, startSite, verdictIs } from './harness.mjs';

let site;
let browser;

before(async () => {
  site = await startSite();
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (site) await site.close();
});

/** Sets form fields by id (text fields get their value, checkboxes `checked`), then submits. */
async function fill(page, fields) {
  await page.evaluate((f) => {
    for (const [id, v] of Object.entries(f)) {
      const node = document.getElementById(id);
      if (typeof v === 'boolean') node.checked = v;
      else node.value = v;
    }
    document.querySelector('#inputs button[type=submit]').click();
  }, fields);
}

/** The requirement and observation the page last sent, as it recorded them. */
async function sent(page) {
  const record = await page.locator('#sent-inputs').textContent();
  const m = /^requirement: ([\s\S]*)\nobservation: ([\s\S]*)$/.exec(record);
  assert.ok(m, `the record reads "requirement: ...\\nobservation: ...": ${record}`);
  return { requirement: JSON.parse(m[1]), observation: JSON.parse(m[2]), record };
}

/** "Load from a URL" on `url`, until the page lists the headers it read. */
async function loadFromUrl(page, url) {
  await page.locator('#card-url').fill(url);
  await page.locator('#fetch-card').click();
  await page.waitForFunction(() => /Headers read/.test(document.getElementById('fetch-status').textContent));
}

/** Serves the web build with each `from` of `edits` replaced by its `to` (each must be there). */
async function editWebBuild(page, edits) {
  await page.route('**/pkg/web/index.js', async (route) => {
    const res = await route.fetch();
    let body = await res.text();
    for (const [from, to] of edits) {
      assert.ok(body.includes(from), `the web build says ${from}`);
      body = body.replace(from, to);
    }
    await route.fulfill({ response: res, body });
  });
}

/** Serves `headers` with a card at /watermarked.json, loads it from that URL, and returns the
 * headers-read list's lines and the six watermark fields' values. */
async function loadWatermarked(page, headers) {
  const url = new URL('/watermarked.json', site.url).href;
  await page.route(url, (route) => route.fulfill({
    status: 200, contentType: 'application/json', headers, body: '{"name":"worker-7"}',
  }));
  await loadFromUrl(page, url);
  return { read: await page.locator('#fetch-status li').allInnerTexts(), filled: await watermarkFields(page) };
}

/** The six watermark fields' values, by field id. */
function watermarkFields(page) {
  return page.evaluate(() => Object.fromEntries(['obs-lag-ms', 'obs-lag-s', 'obs-synced-at', 'obs-consul-last-contact',
    'obs-consul-known-leader', 'obs-age-s'].map((id) => [id, document.getElementById(id).value])));
}

/** Dispatches a drag event of `type` on the card field, carrying a file (`[name, text]`) or else
 * some text; resolves to whether the page took the event (its default prevented). */
function dragOnCard(page, type, file) {
  return page.evaluate(([t, f]) => {
    const dt = new DataTransfer();
    if (f) dt.items.add(new File([f[1]], f[0], { type: 'application/json' }));
    else dt.setData('text/plain', 'some text');
    const e = new DragEvent(t, { dataTransfer: dt, bubbles: true, cancelable: true });
    document.getElementById('card').dispatchEvent(e);
    return e.defaultPrevented;
  }, [type, file]);
}

/** Waits until the record of what was sent matches `re`. */
async function recordMatches(page, re, timeout) {
  await page.waitForFunction(([source, flags]) => new RegExp(source, flags).test(document.getElementById('sent-inputs').textContent),
    [re.source, re.flags], { timeout });
}

/** Every detail as resetDetails leaves it. */
async function assertDetailsReset(page) {
  for (const c of ['a', 'b', 'c']) {
    assert.equal(await page.locator(`#cond-${c}`).getAttribute('class'), 'cond na', `condition ${c}`);
    assert.equal(await page.locator(`#cond-${c} .badge`).textContent(), 'not evaluated', `condition ${c}`);
    assert.equal(await page.locator(`#cond-${c} .cond-body`).innerHTML(), '', `condition ${c}`);
  }
  assert.equal(await page.locator('#caps-body').innerHTML(),
    '<tr><td colspan="4" class="muted">No card evaluated yet.</td></tr>');
  assert.equal(await page.locator('#card-hash').textContent(), '(none: the card did not parse)');
  assert.ok(await page.locator('#copy-pin').isDisabled());
  for (const id of ['canonical', 'problem', 'problem-pretty']) {
    assert.equal(await page.locator(`#${id}`).textContent(), '(none)', id);
  }
  assert.equal(await page.locator('#problem-caption').textContent(), 'The exact canonical bytes for this input.');
}

describe('the inspector: what the form sends and shows', () => {
  test('the requirement as typed: lines and fields trimmed, blank lines and empty fields left out, the card name untouched', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    const hash = await page.evaluate(() => window.cardgate.cardHash(document.getElementById('card').value));

    await fill(page, {
      'req-require': '  task.execute.v3 \n\n \t \nextension:https://example.com/ext/trace/v1\t\n',
      'req-min-version': ' 2.0.0 ',
      'req-max-stale': '\t10s ',
      'req-pin': `  ${hash} `,
      'req-pin-mode': true,
      'req-card-name': ' worker-7 ',
    });
    await page.waitForFunction(() => /card_name/.test(document.getElementById('sent-inputs').textContent));
    const typed = await sent(page);
    assert.deepEqual(typed.requirement, {
      require: ['task.execute.v3', 'extension:https://example.com/ext/trace/v1'],
      min_version: '2.0.0',
      max_stale: '10s',
      pin: hash,
      pin_mode: 'with_watermark',
      card_name: ' worker-7 ',
    });
    // The record is the two objects, each as JSON.stringify(value, null, 2) writes it.
    assert.equal(typed.record, `requirement: ${JSON.stringify(typed.requirement, null, 2)}\nobservation: ${JSON.stringify(typed.observation, null, 2)}`);
    // The name is compared exactly: ' worker-7 ' is another agent's name.
    assert.match(await page.locator('#cond-b').innerText(), /card_name_mismatch/);

    // Only blanks, and the box unticked: no member at all (a card name of one space is a name).
    await fill(page, {
      'req-require': ' \n\t\n',
      'req-min-version': '  ',
      'req-max-stale': ' ',
      'req-pin': '\t',
      'req-pin-mode': false,
      'req-card-name': '',
    });
    await page.waitForFunction(() => /requirement: \{\}/.test(document.getElementById('sent-inputs').textContent));
    assert.deepEqual((await sent(page)).requirement, {});
    await fill(page, { 'req-card-name': ' ' });
    await page.waitForFunction(() => /card_name/.test(document.getElementById('sent-inputs').textContent));
    assert.deepEqual((await sent(page)).requirement, { card_name: ' ' });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the observation as typed: header texts untouched, the time trimmed, the browser clock or no clock', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');

    // Every header field, each passed as its text; the time trimmed.
    await fill(page, {
      'obs-lag-ms': '40000',
      'obs-lag-s': '40',
      'obs-synced-at': '2026-11-09T12:00:00Z',
      'obs-consul-last-contact': '40000',
      'obs-consul-known-leader': 'true',
      'obs-age-s': '3',
      'obs-now': '  2026-11-09T12:00:40Z\t',
      'obs-use-clock': false,
    });
    await page.waitForFunction(() => /"age_s"/.test(document.getElementById('sent-inputs').textContent));
    assert.deepEqual((await sent(page)).observation, {
      lag_ms: '40000',
      lag_s: '40',
      synced_at: '2026-11-09T12:00:00Z',
      consul_last_contact_ms: '40000',
      consul_known_leader: 'true',
      age_s: '3',
      now: '2026-11-09T12:00:40Z',
    });

    // A header text is not trimmed (the core reads it as the header it stands for); an empty
    // field is left out; no time and no clock is `now: null`, never the host's clock.
    await fill(page, {
      'obs-lag-ms': ' 40000',
      'obs-lag-s': '',
      'obs-synced-at': '',
      'obs-consul-last-contact': '',
      'obs-consul-known-leader': '',
      'obs-age-s': '',
      'obs-now': ' ',
      'obs-use-clock': false,
    });
    await page.waitForFunction(() => /" 40000"/.test(document.getElementById('sent-inputs').textContent));
    assert.deepEqual((await sent(page)).observation, { lag_ms: ' 40000', now: null });

    // The browser's clock when the box is ticked and no time is typed.
    const before = Date.now();
    await fill(page, { 'obs-lag-ms': '40000', 'obs-now': '', 'obs-use-clock': true });
    await page.waitForFunction(() => /"now": "/.test(document.getElementById('sent-inputs').textContent));
    const { observation } = await sent(page);
    assert.deepEqual(Object.keys(observation), ['lag_ms', 'now']);
    assert.match(observation.now, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const at = Date.parse(observation.now);
    assert.ok(at >= before - 1000 && at <= Date.now() + 1000, `${observation.now} is this browser's clock`);

    // A typed time wins over the clock.
    await fill(page, { 'obs-now': '2026-11-09T12:00:40Z', 'obs-use-clock': true });
    await page.waitForFunction(() => /"now": "2026-11-09T12:00:40Z"/.test(document.getElementById('sent-inputs').textContent));
    assert.equal((await sent(page)).observation.now, '2026-11-09T12:00:40Z');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an empty card, or one of spaces only, brings back the prompt and resets every detail', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    for (const blank of ['', ' \n\t ']) {
      await page.locator('#load-incident').click();
      await verdictIs(page, 'rejected');
      assert.notEqual(await page.locator('#problem').textContent(), '(none)');
      const record = await page.locator('#sent-inputs').textContent();
      await fill(page, { card: blank });
      await verdictIs(page, 'pending');
      assert.equal(await page.locator('#verdict').getAttribute('class'), 'verdict pending');
      assert.equal(await page.locator('#verdict-title').textContent(), 'Paste, drop or fetch an Agent Card to begin');
      assert.equal(await page.locator('#verdict-detail').textContent(),
        'Or press “Load the incident” to see the seed incident: a replica 40 s behind serving a card without task.execute.v3.');
      assert.equal(await page.locator('#verdict .verdict-extra').count(), 0, 'the rejected verdict\'s extra line is gone');
      assert.equal((await page.locator('#verdict').textContent()).replace(/\s+/g, ' ').trim(),
        'Paste, drop or fetch an Agent Card to begin Or press “Load the incident” to see the seed incident: a replica 40 s behind serving a card without task.execute.v3.',
        'the verdict is its title and detail, nothing more');
      await assertDetailsReset(page);
      // Nothing was sent: the record is the last evaluation's.
      assert.equal(await page.locator('#sent-inputs').textContent(), record);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an input the core refuses: the verdict and the page error give its type and message, and every detail is reset', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    await fill(page, { 'req-max-stale': 'ten seconds' });
    await verdictIs(page, 'error');
    // What the core throws for this input, asked directly.
    const thrown = await page.evaluate(() => {
      try {
        window.cardgate.evaluate('{}', { max_stale: 'ten seconds' }, { now: null });
      } catch (e) {
        return `${e.name}: ${e.message}`;
      }
      return null;
    });
    assert.match(thrown, /^(TypeError|RangeError): .*max_stale/);
    assert.equal(await page.locator('#verdict').getAttribute('class'), 'verdict error');
    assert.equal(await page.locator('#verdict-title').textContent(), 'Cannot evaluate: the requirement or observation is invalid');
    assert.equal(await page.locator('#verdict-detail').textContent(), thrown);
    assert.equal(await page.locator('#verdict .verdict-extra').count(), 0);
    assert.ok(await page.locator('#page-error').isVisible());
    assert.equal(await page.locator('#page-error').innerHTML(),
      `<strong>The core refused an input</strong><p>${thrown.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>`);
    await assertDetailsReset(page);

    // An observation the core refuses is reported the same way.
    await fill(page, { 'req-max-stale': '10s', 'obs-now': 'yesterday' });
    await page.waitForFunction(() => /yesterday/.test(document.getElementById('verdict-detail').textContent));
    assert.equal(await page.locator('#verdict-title').textContent(), 'Cannot evaluate: the requirement or observation is invalid');
    assert.match(await page.locator('#verdict-detail').textContent(), /^RangeError: invalid observation at \/now: .*"yesterday"/);
    await assertDetailsReset(page);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('an unexpected error in the page is shown in it: an Error by its name and message, anything else as text', async () => {
    const { context, page } = await openPage(browser);
    await gotoInspector(page, site.url);
    const shown = async () => {
      await page.waitForFunction(() => !document.getElementById('page-error').hidden);
      const html = await page.locator('#page-error').innerHTML();
      await page.evaluate(() => { const b = document.getElementById('page-error'); b.hidden = true; b.replaceChildren(); });
      return html;
    };
    await page.evaluate(() => setTimeout(() => { throw new RangeError('out of range'); }));
    assert.equal(await shown(), '<strong>Unexpected error in the page</strong><p>RangeError: out of range</p>');
    await page.evaluate(() => setTimeout(() => { throw 'a thrown string'; }));
    assert.equal(await shown(), '<strong>Unexpected error in the page</strong><p>a thrown string</p>');
    await page.evaluate(() => { Promise.reject(new TypeError('not a function')); });
    assert.equal(await shown(), '<strong>Unexpected error in the page</strong><p>TypeError: not a function</p>');
    // An error whose message is empty is not "Error: ": it is written as the value itself.
    await page.evaluate(() => { Promise.reject(new Error('')); });
    assert.equal(await shown(), '<strong>Unexpected error in the page</strong><p>Error</p>');
    await page.evaluate(() => { Promise.reject(42); });
    assert.equal(await shown(), '<strong>Unexpected error in the page</strong><p>42</p>');
    // A rejection with no reason, or a null one.
    await page.evaluate(() => { Promise.reject(); });
    assert.equal(await shown(), '<strong>Unexpected error in the page</strong><p>undefined</p>');
    await page.evaluate(() => { Promise.reject(null); });
    assert.equal(await shown(), '<strong>Unexpected error in the page</strong><p>null</p>');
    await context.close();
  });

  test('the examples replace the whole form: every other field emptied, the page error and statuses cleared', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const fields = ['card', 'req-require', 'req-min-version', 'req-max-stale', 'req-pin', 'req-card-name',
      'obs-lag-ms', 'obs-lag-s', 'obs-synced-at', 'obs-consul-last-contact', 'obs-consul-known-leader', 'obs-age-s',
      'obs-now', 'card-url'];
    const values = () => page.evaluate((ids) => Object.fromEntries(ids.map((id) => [id, document.getElementById(id).value])), fields);
    const litter = async () => {
      await page.evaluate((ids) => {
        for (const id of ids) document.getElementById(id).value = `junk ${id}`;
        document.getElementById('req-pin-mode').checked = true;
        document.getElementById('fetch-status').textContent = 'an old status';
        document.getElementById('copy-status').textContent = 'an old copy status';
        const box = document.getElementById('page-error');
        box.textContent = 'an old error';
        box.hidden = false;
      }, fields);
    };
    const examples = [
      ['load-incident', 'rejected', {
        version: '2.0.0', url: 'wss://worker-7.internal/a2a', skill: 'task.execute.v2', lag: '40000',
      }],
      ['load-fresh', 'valid', {
        version: '3.0.0', url: 'wss://worker-7.internal/a2a/v3', skill: 'task.execute.v3', lag: '1200',
      }],
    ];
    for (const [button, verdict, want] of examples) {
      await litter(page);
      await page.locator(`#${button}`).click();
      await verdictIs(page, verdict);
      const v = await values();
      const card = JSON.parse(v.card);
      assert.equal(v.card, JSON.stringify(card, null, 2), 'the card is pretty-printed, two spaces');
      assert.equal(card.name, 'worker-7');
      assert.equal(card.version, want.version);
      assert.deepEqual(card.supportedInterfaces, [{ url: want.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
      assert.deepEqual(card.skills.map((k) => k.id), [want.skill]);
      assert.deepEqual(v, {
        card: v.card,
        'req-require': 'task.execute.v3',
        'req-min-version': '2.0.0',
        'req-max-stale': '10s',
        'req-pin': '',
        'req-card-name': '',
        'obs-lag-ms': want.lag,
        'obs-lag-s': '',
        'obs-synced-at': '',
        'obs-consul-last-contact': '',
        'obs-consul-known-leader': '',
        'obs-age-s': '',
        'obs-now': '',
        'card-url': '',
      });
      assert.equal(await page.locator('#req-pin-mode').isChecked(), false);
      assert.equal(await page.locator('#fetch-status').innerHTML(), '');
      assert.equal(await page.locator('#copy-status').textContent(), '');
      assert.ok(await page.locator('#page-error').isHidden());
      assert.equal(await page.locator('#page-error').innerHTML(), '');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'verdict');
    }
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('"Clear" empties the form (the clock box kept), forgets a fetched card, and focuses the card', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    // A card fetched from the page's own server: its bytes are the card until the text changes.
    const url = new URL('/fetched-card.json', site.url).href;
    await page.route(url, (route) => route.fulfill({
      status: 200, contentType: 'application/json', headers: { 'x-replica-lag-ms': '40000' }, body: '{"name":"worker-7"}',
    }));
    await loadFromUrl(page, url);
    await page.locator('#req-pin-mode').check();
    await page.locator('#obs-use-clock').uncheck();
    await page.evaluate(() => {
      const box = document.getElementById('page-error');
      box.textContent = 'an old error';
      box.hidden = false;
      document.getElementById('copy-status').textContent = 'an old copy status';
    });
    await page.locator('#clear').click();
    await verdictIs(page, 'pending');
    const left = await page.evaluate(() => [...document.querySelectorAll('#inputs input:not([type=checkbox]):not([type=file]), #inputs textarea')]
      .filter((e) => e.value !== '').map((e) => e.id));
    assert.deepEqual(left, []);
    assert.equal(await page.locator('#req-pin-mode').isChecked(), false);
    assert.equal(await page.locator('#obs-use-clock').isChecked(), false, 'the clock box is the user\'s choice: kept');
    assert.equal(await page.locator('#fetch-status').innerHTML(), '');
    assert.equal(await page.locator('#copy-status').textContent(), '');
    assert.ok(await page.locator('#page-error').isHidden());
    assert.equal(await page.evaluate(() => document.activeElement.id), 'card');
    await assertDetailsReset(page);
    // The fetched bytes are forgotten: typing the same text again is text, not the old fetch.
    await fill(page, { card: '{"name":"worker-7"}' });
    await verdictIs(page, 'malformed');
    assert.equal(await page.locator('#fetch-status').innerHTML(), '');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('what triggers an evaluation: typing (after a pause), the two boxes, submit; not the URL or file fields', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    // Each evaluation rewrites the record of what was sent: a marker there shows whether one ran.
    const record = () => page.locator('#sent-inputs').textContent();
    await page.evaluate(() => { document.getElementById('sent-inputs').textContent = 'marker'; });

    // The URL field and the file field: no evaluation.
    await page.locator('#card-url').pressSequentially('http://example.invalid/x');
    await page.locator('#card-url').dispatchEvent('input');
    await page.locator('#card-file').dispatchEvent('input');
    await page.waitForTimeout(500);
    assert.equal(await record(), 'marker');
    // Keys other than Enter are typed into the URL field and fetch nothing.
    assert.equal(await page.locator('#card-url').inputValue(), 'http://example.invalid/x');
    assert.equal(await page.locator('#fetch-status').textContent(), '');
    assert.equal(await page.locator('#page-error').isHidden(), true);

    // Typing evaluates soon after the typing stops (a 200 ms pause).
    await page.locator('#req-min-version').fill('');
    await page.locator('#req-min-version').pressSequentially('3.0.0', { delay: 20 });
    await recordMatches(page, /"min_version": "3.0.0"/, 1500);

    // Ticking the pin-mode box, or the clock box, evaluates.
    for (const [box, want] of [['req-pin-mode', /"pin_mode": "with_watermark"/], ['obs-use-clock', /"now": null/]]) {
      await page.evaluate(() => { document.getElementById('sent-inputs').textContent = 'marker'; });
      await page.locator(`#${box}`).click();
      await recordMatches(page, want, 3000);
    }

    // Enter in the URL field fetches that URL and does not submit the form.
    await page.evaluate(() => { document.getElementById('sent-inputs').textContent = 'marker'; });
    const asked = [];
    await page.route('http://cards.invalid/**', (route) => { asked.push(route.request().url()); return route.abort(); });
    await page.locator('#card-url').fill('http://cards.invalid/enter.json');
    await page.locator('#card-url').press('Enter');
    await page.waitForFunction(() => !document.getElementById('page-error').hidden);
    assert.deepEqual(asked, ['http://cards.invalid/enter.json']);
    assert.match(await page.locator('#page-error strong').textContent(), /^Could not fetch http:\/\/cards\.invalid\/enter\.json$/);
    assert.equal(await record(), 'marker', 'Enter in the URL field does not evaluate the form');
    assert.equal(new URL(page.url()).search, '', 'the form was not submitted to a new page');

    // Submit evaluates at once and moves the focus to the verdict.
    await page.locator('#req-min-version').focus();
    await page.locator('#req-min-version').press('Enter');
    await page.waitForFunction(() => document.getElementById('sent-inputs').textContent !== 'marker', null, { timeout: 1000 });
    assert.equal(await page.evaluate(() => document.activeElement.id), 'verdict');
    // The one aborted fetch, which Chromium reports without its URL.
    assert.deepEqual(problems, ['console: Failed to load resource: net::ERR_FAILED']);
    await context.close();
  });

  test('dragging over the card field marks it; leaving or dropping unmarks it; dropped text is left to the field', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const marked = () => page.locator('#card').evaluate((a) => a.classList.contains('drop'));
    const drag = (type, withFile) => dragOnCard(page, type, withFile ? ['dropped.json', '{"name":"dropped"}'] : null);
    assert.equal(await drag('dragover', true), true, 'dragover is taken, so the field accepts a drop');
    assert.equal(await marked(), true);
    assert.equal(await drag('dragleave', true), false);
    assert.equal(await marked(), false);
    await drag('dragover', false);
    assert.equal(await marked(), true);
    assert.equal(await drag('drop', false), false, 'dropped text: the field inserts it itself');
    assert.equal(await marked(), false);
    await drag('dragover', true);
    assert.equal(await drag('drop', true), true, 'a dropped file is read by the page');
    assert.equal(await marked(), false);
    await page.waitForFunction(() => document.getElementById('card').value === '{"name":"dropped"}');
    assert.equal(await page.locator('#fetch-status').textContent(), 'Loaded dropped.json (18 bytes).');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the file field emptied (a file picker closed with no file): the card and the status are kept, nothing is reported', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#card-file').setInputFiles({ name: 'opened.json', mimeType: 'application/json', buffer: Buffer.from('{"name":"opened"}') });
    await page.waitForFunction(() => document.getElementById('card').value === '{"name":"opened"}');
    const status = 'Loaded opened.json (17 bytes).';
    assert.equal(await page.locator('#fetch-status').textContent(), status);
    await page.evaluate(() => { document.getElementById('sent-inputs').textContent = 'marker'; });
    // The page's handler runs first (it was added first); this count shows the event came.
    await page.locator('#card-file').evaluate((input) => {
      window.fileFieldChanges = 0;
      input.addEventListener('change', () => { window.fileFieldChanges += 1; });
    });
    await page.locator('#card-file').setInputFiles([]);
    await page.waitForFunction(() => window.fileFieldChanges === 1, null, { timeout: 2000 });
    await page.waitForTimeout(500);
    assert.equal(await page.locator('#card-file').evaluate((input) => input.files.length), 0);
    assert.equal(await page.locator('#card').inputValue(), '{"name":"opened"}');
    assert.equal(await page.locator('#fetch-status').textContent(), status);
    assert.equal(await page.locator('#sent-inputs').textContent(), 'marker', 'nothing was evaluated');
    assert.equal(await page.locator('#page-error').isHidden(), true);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a file that cannot be read, opened or dropped: "Could not read" with its name and the reason; the card is kept', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    await page.locator('#load-incident').click();
    await verdictIs(page, 'rejected');
    const card = await page.locator('#card').inputValue();
    // The file is gone by the time the page reads it: every read of its bytes fails.
    await page.evaluate(() => { Blob.prototype.arrayBuffer = () => Promise.reject(new Error('file gone')); });
    await page.locator('#card-file').setInputFiles({ name: 'opened.json', mimeType: 'application/json', buffer: Buffer.from('{}') });
    await page.waitForFunction(() => !document.getElementById('page-error').hidden);
    assert.equal(await page.locator('#page-error').innerHTML(), '<strong>Could not read opened.json</strong><p>Error: file gone</p>');
    await dragOnCard(page, 'drop', ['dropped.json', '{}']);
    await page.waitForFunction(() => document.querySelector('#page-error strong').textContent !== 'Could not read opened.json');
    assert.equal(await page.locator('#page-error').innerHTML(), '<strong>Could not read dropped.json</strong><p>Error: file gone</p>');
    assert.equal(await page.locator('#card').inputValue(), card);
    assert.equal(await page.locator('#fetch-status').textContent(), '');
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the watermark headers are the module\'s DEFAULT_WATERMARK: the hint lists them and "load from a URL" reads only them', async () => {
    const { context, page, problems } = await openPage(browser);
    // The web build with other defaults: the lag header renamed, no lag-in-seconds header, no
    // Consul pair, no Age.
    await editWebBuild(page, [["lagMsHeader: 'x-replica-lag-ms'", "lagMsHeader: 'X-Lag-Ms'"],
      ["lagSHeader: 'x-replica-lag-s'", 'lagSHeader: null'], ['consul: true', 'consul: false'], ['age: true', 'age: false']]);
    await gotoInspector(page, site.url);
    assert.equal(await page.locator('#headers-hint').innerHTML(),
      '<code>x-lag-ms</code> → lag_ms, <code>x-replica-synced-at</code> → synced_at');
    const { read, filled } = await loadWatermarked(page, {
      'x-lag-ms': '40000', 'x-replica-lag-ms': '1', 'x-replica-lag-s': '2', 'x-consul-lastcontact': '3',
      'x-consul-knownleader': 'true', age: '4',
    });
    assert.deepEqual(read, ['x-lag-ms → lag_ms: 40000', 'x-replica-synced-at → synced_at: not readable (absent, or not exposed by CORS)']);
    assert.deepEqual(filled, {
      'obs-lag-ms': '40000', 'obs-lag-s': '', 'obs-synced-at': '', 'obs-consul-last-contact': '', 'obs-consul-known-leader': '', 'obs-age-s': '',
    });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a DEFAULT_WATERMARK without the lag-in-ms and last-sync headers: neither is listed or read, the others are', async () => {
    const { context, page, problems } = await openPage(browser);
    await editWebBuild(page, [["lagMsHeader: 'x-replica-lag-ms'", 'lagMsHeader: null'],
      ["syncedAtHeader: 'x-replica-synced-at'", 'syncedAtHeader: false']]);
    await gotoInspector(page, site.url);
    assert.equal(await page.locator('#headers-hint').innerHTML(),
      '<code>x-replica-lag-s</code> → lag_s, <code>x-consul-lastcontact</code> → consul_last_contact_ms, '
      + '<code>x-consul-knownleader</code> → consul_known_leader, <code>age</code> → age_s');
    const { read, filled } = await loadWatermarked(page, {
      'x-replica-lag-ms': '1', 'x-replica-synced-at': '2026-11-09T12:00:00Z', 'x-replica-lag-s': '2',
      'x-consul-lastcontact': '3', 'x-consul-knownleader': 'true', age: '4',
    });
    assert.deepEqual(read, ['x-replica-lag-s → lag_s: 2', 'x-consul-lastcontact → consul_last_contact_ms: 3',
      'x-consul-knownleader → consul_known_leader: true', 'age → age_s: 4']);
    assert.deepEqual(filled, {
      'obs-lag-ms': '', 'obs-lag-s': '2', 'obs-synced-at': '', 'obs-consul-last-contact': '3', 'obs-consul-known-leader': 'true', 'obs-age-s': '4',
    });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('load from a URL: a URL asked for first, the fetch named, the whole watermark replaced by the answer\'s, the form kept when it fails', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    const asked = [];
    const card = '{"name":"worker-7","version":"2.0.0","capabilities":{},"skills":[]}';
    let release;
    const held = new Promise((ok) => { release = ok; });
    await page.route(`${site.url}wm/**`, async (route) => {
      const u = route.request().url();
      asked.push(u);
      if (u.endsWith('/slow.json')) await held;
      if (u.endsWith('/gone.json')) return route.fulfill({ status: 404, contentType: 'application/json', body: '{}' });
      if (u.endsWith('/latin1.json')) {
        return route.fulfill({ status: 200, contentType: 'application/json', body: Buffer.from(`{"name":"w\xe9"}`, 'latin1') });
      }
      return route.fulfill({
        status: 200, contentType: 'application/json', headers: { 'x-replica-lag-ms': '250', age: '7' }, body: card,
      });
    });

    // No URL, or only spaces: asked for, with the focus on the field; nothing fetched.
    for (const blank of ['', '   ']) {
      await page.locator('#card-url').fill(blank);
      await page.locator('#fetch-card').click();
      assert.equal(await page.locator('#fetch-status').textContent(), 'Enter a URL first.');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'card-url');
    }
    assert.deepEqual(asked, []);

    // A stale watermark typed in before, and an old page error: the answer's headers replace
    // every field, the ones it does not send emptied.
    await page.evaluate(() => {
      for (const [id, v] of [['obs-lag-ms', '40000'], ['obs-lag-s', '40'], ['obs-synced-at', '2026-11-09T12:00:00Z'],
        ['obs-consul-last-contact', '5'], ['obs-consul-known-leader', 'true'], ['obs-age-s', '1']]) {
        document.getElementById(id).value = v;
      }
      const box = document.getElementById('page-error');
      box.textContent = 'an old error';
      box.hidden = false;
    });
    const url = `${site.url}wm/slow.json`;
    await page.locator('#card-url').fill(`  ${url} `);
    await page.locator('#fetch-card').click();
    await page.waitForFunction(() => document.getElementById('fetch-status').textContent !== 'Enter a URL first.');
    assert.equal(await page.locator('#fetch-status').textContent(), `Fetching ${url}…`);
    release();
    await page.waitForFunction(() => /Headers read/.test(document.getElementById('fetch-status').textContent));
    assert.deepEqual(asked, [url]);
    const unread = '<span class="muted">not readable (absent, or not exposed by CORS)</span>';
    assert.equal(await page.locator('#fetch-status').innerHTML(),
      `<p>HTTP 200, ${card.length} bytes. Headers read:</p><ul class="headers-read">`
      + '<li><code>x-replica-lag-ms</code> → lag_ms: <code>250</code></li>'
      + `<li><code>x-replica-lag-s</code> → lag_s: ${unread}</li>`
      + `<li><code>x-replica-synced-at</code> → synced_at: ${unread}</li>`
      + `<li><code>x-consul-lastcontact</code> → consul_last_contact_ms: ${unread}</li>`
      + `<li><code>x-consul-knownleader</code> → consul_known_leader: ${unread}</li>`
      + '<li><code>age</code> → age_s: <code>7</code></li></ul>');
    const watermark = async () => Object.values(await watermarkFields(page));
    assert.deepEqual(await watermark(), ['250', '', '', '', '', '7']);
    assert.ok(await page.locator('#page-error').isHidden());
    assert.equal(await page.locator('#card').inputValue(), card);
    await page.waitForFunction(() => document.getElementById('problem').textContent !== '(none)');
    assert.equal(JSON.parse(await page.locator('#problem').textContent()).card_version, '2.0.0');

    // A failed fetch: the status emptied, the error in the page, the card and watermark kept.
    const gone = `${site.url}wm/gone.json`;
    await page.locator('#card-url').fill(gone);
    await page.locator('#fetch-card').click();
    await page.waitForFunction(() => !document.getElementById('page-error').hidden);
    assert.equal(await page.locator('#fetch-status').textContent(), '');
    assert.equal(await page.locator('#page-error').innerHTML(),
      `<strong>Could not fetch ${gone}</strong><p>HTTP 404 Not Found; the body was not loaded as a card.</p>`);
    assert.deepEqual(await watermark(), ['250', '', '', '', '', '7']);
    assert.equal(await page.locator('#card').inputValue(), card);

    // The card is the bytes received, not the text shown: a Latin-1 body is not UTF-8.
    await page.locator('#card-url').fill(`${site.url}wm/latin1.json`);
    await page.locator('#fetch-card').click();
    await page.waitForFunction(() => document.getElementById('card').value === '{"name":"w\ufffd"}');
    await page.waitForFunction(() => /invalid_utf8/.test(document.getElementById('problem').textContent));
    // Once the text is edited, the text is the card: the bytes are forgotten.
    await page.locator('#card').press('End');
    await page.locator('#card').pressSequentially(' ');
    await page.waitForFunction(() => !/invalid_utf8/.test(document.getElementById('problem').textContent));
    assert.equal(JSON.parse(await page.locator('#problem').textContent()).reasons[0].code, 'missing_field');
    assert.deepEqual(problems, ['console: Failed to load resource: the server responded with a status of 404 (Not Found)']);
    await context.close();
  });

  test('a web build without DEFAULT_WATERMARK: the page keeps its own list of the six default headers', async () => {
    const { context, page, problems } = await openPage(browser);
    await editWebBuild(page, [[' DEFAULT_WATERMARK, DEFAULT_TIMEOUT_MS,', ' DEFAULT_TIMEOUT_MS,']]);
    await gotoInspector(page, site.url);
    assert.equal(await page.evaluate(() => window.cardgate.DEFAULT_WATERMARK), undefined);
    // The hint is the page's own text, untouched.
    assert.equal((await page.locator('#headers-hint').textContent()).replace(/\s+/g, ' '),
      'x-replica-lag-ms → lag_ms, x-replica-lag-s → lag_s, x-replica-synced-at → synced_at, x-consul-lastcontact and x-consul-knownleader, age → age_s');
    const { read, filled } = await loadWatermarked(page, {
      'x-replica-lag-ms': '40000', 'x-replica-lag-s': '2', 'x-replica-synced-at': '2026-11-09T12:00:00Z',
      'x-consul-lastcontact': '3', 'x-consul-knownleader': 'true', age: '4',
    });
    // Each header read into its own observation member.
    assert.deepEqual(read, [
      'x-replica-lag-ms → lag_ms: 40000', 'x-replica-lag-s → lag_s: 2', 'x-replica-synced-at → synced_at: 2026-11-09T12:00:00Z',
      'x-consul-lastcontact → consul_last_contact_ms: 3', 'x-consul-knownleader → consul_known_leader: true', 'age → age_s: 4']);
    assert.deepEqual(filled, {
      'obs-lag-ms': '40000', 'obs-lag-s': '2', 'obs-synced-at': '2026-11-09T12:00:00Z', 'obs-consul-last-contact': '3',
      'obs-consul-known-leader': 'true', 'obs-age-s': '4',
    });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a web build that loads but fails to start: the verdict names the module and says how to build it; nothing evaluates', async () => {
    // An Error by its message; anything else thrown, as text.
    for (const [thrown, said, shown] of [['new Error("no wasm here")', 'no wasm here', 'Error: no wasm here'],
      ['"no wasm here either"', 'no wasm here either', 'no wasm here either']]) {
      const { context, page, problems } = await openPage(browser);
      await page.route('**/pkg/web/index.js', (route) => route.fulfill({
        status: 200, contentType: 'text/javascript', body: `export default async function init() { throw ${thrown}; }`,
      }));
      await page.goto(site.url);
      await page.waitForFunction(() => document.getElementById('verdict').classList.contains('error'));
      assert.equal(await page.locator('#verdict-title').textContent(), 'The cardgate core could not be loaded');
      assert.equal(await page.locator('#verdict-detail').textContent(),
        `./pkg/web/index.js: ${said}. Build it with “make pkg”, then serve with “make www”.`);
      assert.equal(await page.locator('#page-error').innerHTML(), `<strong>The cardgate web build did not load</strong><p>${shown}</p>`);
      assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), undefined);
      assert.equal(await page.evaluate(() => window.cardgate), undefined);
      // The form is wired, but nothing is evaluated without the core.
      await page.locator('#load-incident').click();
      await page.waitForTimeout(300);
      assert.equal(await page.locator('#verdict-title').textContent(), 'The cardgate core could not be loaded');
      assert.equal(await page.locator('#sent-inputs').textContent(), '(none)');
      assert.deepEqual(problems.filter((p) => !/no wasm here/.test(p)), []);
      await context.close();
    }
  });

  test('once the core is up: ready, exposed as window.cardgate, and the empty form already evaluated', async () => {
    const { context, page, problems } = await openPage(browser);
    await gotoInspector(page, site.url);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), 'true');
    assert.equal(await page.evaluate(() => typeof window.cardgate.evaluate), 'function');
    assert.equal(await page.locator('#verdict').getAttribute('class'), 'verdict pending');
    assert.equal(await page.locator('#verdict-title').textContent(), 'Paste, drop or fetch an Agent Card to begin');
    await assertDetailsReset(page);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
