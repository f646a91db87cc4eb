// The per-call path of evaluate/evaluateRaw (js/api.js "one evaluation, cheaply"; src/js.rs
// GateRaw): the card buffer inside the module, and the bounded cache of prepared requirements and
// observations keyed by their exact JSON text. Every decision here is compared with the raw
// export `evaluateRaw`, which reads every input afresh (the shared vectors compare the same path
// with the native CLI); the reads are counted on the raw glue's GateRaw.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureConsumer, requirePackage } from './consumer.mjs';
import { FRESH_CARD, whilePolluted } from './helpers.mjs';

const dir = ensureConsumer();
const cg = await requirePackage(dir);
// The same instance of the raw glue as the package's (one require cache entry).
const raw = createRequire(join(dir, 'cjs.cjs'))(join(dir, 'node_modules', 'cardgate', 'node', 'cardgate.js'));

// The incident's fresh card (tests/node/helpers.mjs).
const CARD = FRESH_CARD;
const CARD_TEXT = JSON.stringify(CARD);
const NOW = '2026-11-09T12:00:40Z';

// Every read into a slot, as [kind, slot].
const reads = [];
for (const [kind, name] of [['requirement', 'prepareRequirement'], ['observation', 'prepareObservation']]) {
  const original = raw.GateRaw.prototype[name];
  raw.GateRaw.prototype[name] = function (slot, value) {
    reads.push([kind, slot]);
    return original.call(this, slot, value);
  };
}
const SLOTS = raw.GateRaw.slots();

/** The reads `fn` causes. */
function readsOf(fn) {
  const start = reads.length;
  fn();
  return reads.slice(start);
}

/** The decision from the raw export, which keeps nothing (a card object as its JSON text). */
function fresh(card, requirement, observation) {
  const bytes = card instanceof Uint8Array ? card : new TextEncoder().encode(typeof card === 'string' ? card : JSON.stringify(card));
  return raw.evaluateRaw(bytes, requirement, observation);
}

let unique = 0;
/** A requirement text no other test uses. */
function newRequirement(extra = {}) {
  unique += 1;
  return JSON.stringify({ require: ['task.execute.v3'], min_version: `1.${unique}`, max_stale: '10s', ...extra });
}

test('a repeated requirement or observation is read once, each form of it under its own key', () => {
  const req = newRequirement();
  const obs = `{"lag_ms":"${unique}","now":"${NOW}"}`;
  const first = readsOf(() => assert.equal(cg.evaluateRaw(CARD_TEXT, req, obs), fresh(CARD_TEXT, req, obs)));
  assert.deepEqual(first.map(([k]) => k), ['requirement', 'observation']);
  assert.ok(first.every(([, slot]) => slot > 0 && slot < SLOTS), 'kept in a slot other than scratch');
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(readsOf(() => assert.equal(cg.evaluateRaw(CARD_TEXT, req, obs), fresh(CARD_TEXT, req, obs))), []);
  }
  // The same inputs as objects: keyed by their JSON, apart from the text keys.
  const reqObject = JSON.parse(req);
  const obsObject = JSON.parse(obs);
  assert.equal(readsOf(() => cg.evaluateRaw(CARD, reqObject, obsObject)).length, 2);
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, { ...reqObject }, { ...obsObject })), [], 'an equal object hits');
  assert.equal(cg.evaluateRaw(CARD, reqObject, obsObject), fresh(CARD_TEXT, req, obs));
  // No requirement is the requirement `{}`.
  readsOf(() => cg.evaluateRaw(CARD, null, obs));
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, undefined, obs)), []);
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, '{}', obs)), []);
  assert.equal(cg.evaluateRaw(CARD, undefined, obs), fresh(CARD_TEXT, '{}', obs));
});

/** The decision made at some ms in [t0, t1] with `obs` plus that time as `now`, if any. */
function freshWithin(t0, t1, card, requirement, obs, actual) {
  for (let t = t0; t <= t1; t++) {
    const d = fresh(card, requirement, JSON.stringify({ ...obs, now: new Date(t).toISOString() }));
    if (d === actual) return d;
  }
  return fresh(card, requirement, JSON.stringify({ ...obs, now: new Date(t1).toISOString() }));
}

/** Waits `ms` (the clock must move between two calls). */
function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

test('the host clock is not part of what is kept: the observation is read once, each call gets its own time', () => {
  const req = newRequirement();
  const obs = { synced_at: new Date(Date.now() - 3000 - unique).toISOString() };
  const call = (o) => {
    const t0 = Date.now();
    const d = cg.evaluateRaw(CARD, req, o);
    assert.equal(d, freshWithin(t0, Date.now(), CARD, req, obs, d));
    return JSON.parse(d);
  };
  const r = readsOf(() => call(obs));
  assert.equal(r.length, 2);
  assert.ok(r[1][1] > 0, 'the observation without its clock is kept');
  assert.deepEqual(readsOf(() => call({ ...obs })), [], 'an equal object: the same key');
  const before = call(obs).staleness_ms;
  sleep(30);
  let after;
  assert.deepEqual(readsOf(() => { after = call(obs).staleness_ms; }), [], 'the same object');
  assert.ok(after >= before + 25, `the clock moved: ${before} -> ${after}`);
  // No observation: only the clock, kept as `{}`.
  for (const none of [undefined, null, undefined]) {
    const t0 = Date.now();
    const d = cg.evaluateRaw(CARD, req, none);
    assert.equal(d, freshWithin(t0, Date.now(), CARD, req, {}, d));
    assert.deepEqual(JSON.parse(d).reasons.map((x) => x.code), ['freshness_unverifiable']);
  }
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req)), []);
  // `{now: undefined}` is the object `{}` (a key apart from the text `{}`).
  assert.equal(readsOf(() => cg.evaluateRaw(CARD, req, { now: undefined })).length, 1);
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, {})), [], 'now: undefined is no now');
  // A clock the caller gives is kept like any input.
  const given = { lag_ms: '500', now: new Date(Date.parse(NOW) + unique) };
  assert.equal(readsOf(() => cg.evaluateRaw(CARD, req, given)).length, 1);
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, given)), [], 'keyed by the Date as its RFC 3339 text');
  assert.equal(cg.evaluateRaw(CARD, req, given), fresh(CARD, req, JSON.stringify({ lag_ms: '500', now: given.now.toISOString() })));
  const givenMs = { lag_ms: '500', now: Date.parse(NOW) + unique + 1 };
  assert.equal(readsOf(() => cg.evaluateRaw(CARD, req, givenMs)).length, 1);
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, givenMs)), []);
  assert.equal(cg.evaluateRaw(CARD, req, givenMs), fresh(CARD, req, JSON.stringify({ lag_ms: '500', now: new Date(givenMs.now).toISOString() })));
});

test('a refused input is never kept: the same error on every call, and the slot it would take still works', () => {
  const good = newRequirement();
  const bad = newRequirement({ max_stale: 'soon' });
  const obs = `{"lag_ms":"500","now":"${NOW}"}`;
  const before = cg.evaluateRaw(CARD, good, obs);
  let first;
  for (let i = 0; i < 3; i++) {
    const r = readsOf(() => assert.throws(() => cg.evaluateRaw(CARD, bad, obs), (e) => {
      first ??= e.message;
      return e instanceof RangeError || e instanceof TypeError ? e.message === first && e.input === 'requirement' : false;
    }));
    assert.deepEqual(r.map(([k]) => k), ['requirement'], 'read again every time');
  }
  assert.throws(() => raw.evaluateRaw(new TextEncoder().encode(CARD_TEXT), bad, obs), (e) => e.path === '/requirement/max_stale');
  assert.equal(cg.evaluateRaw(CARD, good, obs), before);
  const badObs = `{"lag_ms":"500","now":"yesterday"}`;
  for (let i = 0; i < 2; i++) {
    assert.throws(() => cg.evaluateRaw(CARD, good, badObs), (e) => e.input === 'observation' && e.path === '/now');
  }
});

test('a changed object is a new key: mutating the requirement between calls changes the decision', () => {
  const req = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' };
  const obs = { lag_ms: '500', now: NOW };
  assert.equal(JSON.parse(cg.evaluateRaw(CARD, req, obs)).verdict, 'valid');
  req.min_version = '4.0.0';
  const d = cg.evaluateRaw(CARD, req, obs);
  assert.equal(JSON.parse(d).verdict, 'rejected');
  assert.equal(d, fresh(CARD, JSON.stringify(req), JSON.stringify(obs)));
  req.require.push('task.other');
  assert.deepEqual(JSON.parse(cg.evaluateRaw(CARD, req, obs)).missing_capabilities, ['task.other']);
  obs.lag_ms = '40000';
  assert.equal(JSON.parse(cg.evaluateRaw(CARD, req, obs)).error_class, 'stale_agent_card');
});

test('a requirement that is not plain JSON data is a TypeError naming the member, and nothing is read', () => {
  const obs = `{"lag_ms":"500","now":"${NOW}"}`;
  const refused = [
    [{ require: ['task.execute.v3'], min_version: Object('3.0.0') }, '/min_version'],
    [{ require: ['task.execute.v3'], min_version: new Date(0) }, '/min_version'],
    [{ require: ['task.execute.v3', undefined] }, '/require/1'],
    [{ require: new Array(1) }, '/require/0'],
    [{ require: ['task.execute.v3'], min_version: NaN }, '/min_version'],
    [{ require: ['task.execute.v3'], toJSON: () => ({}) }, '/toJSON'],
    [Object.assign(Object.create({ inherited: 1 }), { require: ['task.execute.v3'] }), ''],
  ];
  for (const [req, path] of refused) {
    for (let i = 0; i < 2; i++) {
      const r = readsOf(() => assert.throws(() => cg.evaluateRaw(CARD, req, obs),
        (e) => e instanceof TypeError && e.input === 'requirement' && e.path === path, path));
      assert.deepEqual(r, [], `${path}: refused before any read`);
    }
  }
});

test('plain requirements that are not keys are read on every call, as the raw export reads them', () => {
  const obs = `{"lag_ms":"500","now":"${NOW}"}`;
  const inputs = [
    { require: ['task.execute.v3'], nested: { a: undefined } },
    { require: ['task.execute.v3'], min_version: -0 },
    ['task.execute.v3'],
    7,
  ];
  for (const req of inputs) {
    let expected;
    try {
      expected = raw.evaluateRaw(new TextEncoder().encode(CARD_TEXT), req, obs);
    } catch (e) {
      expected = e;
    }
    for (let i = 0; i < 2; i++) {
      const r = readsOf(() => {
        if (typeof expected === 'string') assert.equal(cg.evaluateRaw(CARD, req, obs), expected);
        else assert.throws(() => cg.evaluateRaw(CARD, req, obs), (e) => e.message.endsWith(expected.message));
      });
      assert.deepEqual(r, [['requirement', 0]], `${JSON.stringify(req)} read into scratch`);
    }
  }
  // A toJSON on Object.prototype would make JSON.stringify lie about every object.
  const polluted = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s', note: unique };
  delete polluted.note;
  const pollutedText = '{"require":["task.execute.v3"],"min_version":"3.0.0","max_stale":"10s"}';
  whilePolluted(Object.prototype, 'toJSON', { value: () => ({}), writable: true }, () => {
    for (let i = 0; i < 2; i++) {
      const r = readsOf(() => assert.equal(cg.evaluateRaw(CARD_TEXT, polluted, obs), fresh(CARD_TEXT, pollutedText, obs)));
      assert.deepEqual(r, [['requirement', 0]], 'read into scratch');
    }
  });
  // A toJSON getter on Object.prototype that answers nothing to the check and a toJSON to
  // JSON.stringify must not make the kept key (the text the core reads) lie about the object.
  const reqObj = { require: ['task.execute.v3', 'task.other'], max_stale: '10s', note: unique + 1 };
  delete reqObj.note;
  let reads = 0;
  const get = function () {
    if (this !== reqObj) return undefined;
    reads += 1;
    return reads > 1 ? () => ({ require: [], max_stale: '10s' }) : undefined;
  };
  whilePolluted(Object.prototype, 'toJSON', { get }, () => {
    const d = JSON.parse(cg.evaluateRaw(CARD_TEXT, reqObj, obs));
    assert.deepEqual(d.missing_capabilities, ['task.other'], 'the requirement the caller holds');
  });
  // Top-level undefined members are absent, as for the raw export: plain data, kept.
  const req = { require: ['task.execute.v3'], min_version: undefined, pin: undefined };
  assert.equal(readsOf(() => cg.evaluateRaw(CARD, req, obs)).length, 1);
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, obs)), []);
  assert.equal(cg.evaluateRaw(CARD, req, obs), fresh(CARD, '{"require":["task.execute.v3"]}', obs));
});

test('eviction: at most slots-1 inputs are kept, the oldest goes first, and every decision stays right', () => {
  const obs = `{"lag_ms":"500","now":"${NOW}"}`;
  const reqs = Array.from({ length: 3 * SLOTS }, () => newRequirement());
  for (const req of reqs) assert.equal(cg.evaluateRaw(CARD, req, obs), fresh(CARD, req, obs));
  // The last slots-1 are kept; every other one was evicted and is read again.
  const kept = reqs.slice(-(SLOTS - 1));
  for (const req of kept) assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, obs)), [], 'kept');
  const slotsUsed = new Set();
  for (const req of reqs.slice(0, SLOTS - 1)) {
    const r = readsOf(() => assert.equal(cg.evaluateRaw(CARD, req, obs), fresh(CARD, req, obs)));
    assert.equal(r.length, 1, 'evicted, read again');
    slotsUsed.add(r[0][1]);
  }
  assert.equal(slotsUsed.size, SLOTS - 1, 'each into its own slot');
  assert.ok([...slotsUsed].every((s) => s >= 1 && s < SLOTS));
  // A text longer than the key bound is never kept.
  const long = newRequirement({ note: undefined, require: ['task.execute.v3', 'x'.repeat(5000)] });
  for (let i = 0; i < 2; i++) assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, long, obs)), [['requirement', 0]]);
});

test('memory stays bounded under a stream of distinct requirements and observations', () => {
  const memory = raw.wasmMemory();
  const pad = 'y'.repeat(3000);
  const run = (n) => {
    for (let i = 0; i < n; i++) {
      unique += 1;
      const req = `{"require":["task.execute.v3","${pad}${unique}"]}`;
      const obs = `{"lag_ms":"${unique}","synced_at":"${NOW}","now":"${NOW}"}`;
      cg.evaluateRaw(CARD_TEXT, req, obs);
    }
  };
  run(500);
  const after500 = memory.buffer.byteLength;
  run(3000);
  assert.equal(memory.buffer.byteLength, after500, 'the module memory did not grow');
});

test('cards of every size and form: through the buffer, past its bound, after a longer one', () => {
  const req = newRequirement();
  const obs = `{"lag_ms":"500","now":"${NOW}"}`;
  const max = raw.GateRaw.cardBufferMax();
  const big = { ...CARD, description: 'd'.repeat(max + 10) };
  const bigText = JSON.stringify(big);
  const wide = { ...CARD, description: 'é€😀\ud800'.repeat(Math.ceil(max / 12)) };
  const wideText = JSON.stringify(wide);
  // At the bound itself: `max` bytes fill the buffer, one more go past it; a text of
  // max / 3 units (room for 3 bytes each) is the longest text written into it.
  const forms = [
    CARD_TEXT,
    bigText,
    wideText,
    'x',
    '',
    CARD_TEXT.slice(0, 40),
    CARD_TEXT.padEnd(max),
    CARD_TEXT.padEnd(max + 1),
    CARD_TEXT.padEnd(Math.floor(max / 3)),
  ];
  // A text's lone surrogate is read as its escape (refused: lone_surrogate), not as the U+FFFD
  // a UTF-8 encoder writes in its place (third review); its bytes are bytes.
  const escapeLone = (t) => t.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    (u) => `\\u${u.charCodeAt(0).toString(16).toUpperCase()}`);
  for (const text of forms) {
    const bytes = new TextEncoder().encode(text);
    const expected = fresh(bytes, req, obs);
    const textExpected = fresh(new TextEncoder().encode(escapeLone(text)), req, obs);
    assert.equal(cg.evaluateRaw(text, req, obs), textExpected, `text of ${text.length} units`);
    assert.equal(cg.evaluateRaw(bytes, req, obs), expected, `${bytes.length} bytes`);
    assert.equal(cg.evaluateRaw(Buffer.from(bytes), req, obs), expected, 'Buffer');
    assert.equal(cg.evaluateRaw(bytes.buffer, req, obs), expected, 'ArrayBuffer');
    // The short forms again after a long one: nothing of the longer card is read.
    assert.equal(cg.evaluateRaw(CARD_TEXT.slice(0, 40), req, obs), fresh(CARD_TEXT.slice(0, 40), req, obs));
  }
  // Text with a lone surrogate is not the U+FFFD text TextEncoder would make of it (the caller's
  // JSON.parse keeps the surrogate): it is written as generalized UTF-8, which the core refuses.
  for (const text of [`{"name":"\u00e9\ud83d","version":"1"}`, `{"name":"\u00e9\ud83d`]) {
    const d = JSON.parse(cg.evaluateRaw(text, req, obs));
    assert.deepEqual([d.error_class, d.reasons[0].code, d.reasons[0].offset], ['malformed_card', 'invalid_utf8', 11], text);
    assert.throws(() => cg.cardHash(text), TypeError);
  }
  assert.equal(cg.evaluateRaw(big, req, obs), fresh(bigText, req, obs), 'a card object past the bound');
  assert.equal(JSON.parse(cg.evaluateRaw(big, req, obs)).reasons[0].code, 'body_too_large');
});

test('the raw GateRaw misused (a wrapper bug) throws a typed internal error, never a decision or a trap', () => {
  const g = new raw.GateRaw();
  const internal = (call, what) => {
    try {
      call();
    } catch (e) {
      assert.deepEqual([e.kind, e.path, e.message], ['type', '', `internal: ${what}`]);
      return;
    }
    assert.fail(`no error: ${what}`);
  };
  internal(() => g.cardBuffer(raw.GateRaw.cardBufferMax() + 1), 'card buffer request over its bound');
  // The bound itself is in.
  assert.equal(typeof g.cardBuffer(raw.GateRaw.cardBufferMax()), 'number');
  internal(() => g.prepareRequirement(SLOTS, '{}'), 'no such slot');
  internal(() => g.evaluate(0, 1, 1, NaN), 'empty slot');
  g.prepareRequirement(1, '{"max_stale":"10s"}');
  g.prepareObservation(1, '{"lag_ms":"0"}');
  internal(() => g.evaluate(raw.GateRaw.cardBufferMax() + 1, 1, 1, NaN), 'card length beyond the card buffer');
  internal(() => g.evaluate(0, 1, SLOTS, NaN), 'no such slot');
  // Slot 0 (scratch) is emptied by the read: a second evaluation from it has no input.
  g.prepareRequirement(0, '{"max_stale":"10s"}');
  g.prepareObservation(0, '{"lag_ms":"0"}');
  const bytes = new TextEncoder().encode(CARD_TEXT);
  assert.equal(JSON.parse(g.evaluateBytes(bytes, 0, 0, NaN)).verdict, 'valid');
  internal(() => g.evaluateBytes(bytes, 0, 0, NaN), 'empty slot');
});

test("the raw glue words an object's refusal as its JSON text only when that is refused at the same member", () => {
  const bytes = new TextEncoder().encode(CARD_TEXT);
  const obs = `{"lag_ms":"0","now":"${NOW}"}`;
  const refusal = (req) => {
    try {
      raw.evaluateRaw(bytes, req, obs);
    } catch (e) {
      return [e.kind, e.path, e.message];
    }
    assert.fail('no refusal');
  };
  // Its JSON text (toJSON's) is refused at /pin: the object's own refusal, at /max_stale, keeps
  // serde-wasm-bindgen's words, without their `Error: ` prefix.
  const [kind, path, message] = refusal({ max_stale: 5, toJSON: () => ({ pin: 'x' }) });
  assert.deepEqual([kind, path], ['type', '/requirement/max_stale']);
  assert.match(message, /^invalid type: floating point `5(\.0)?`, expected a string$/);
  // Refused at the same member: the text's words.
  assert.deepEqual(refusal({ max_stale: 5 }), refusal('{"max_stale":5}'));
});

test('the raw too-large decision reports a size it can vouch for', () => {
  // The wrapper's figure is used when it is a count at least as large as the bytes in hand, and
  // is exact only when the wrapper says so; anything else is the bytes in hand, "at least".
  const start = new Uint8Array(65537).fill(0x20);
  for (const [seen, complete, bytes, exact] of [
    [70000, true, 70000, true],
    [70000, false, 70000, false],
    [65537, true, 65537, true],
    [65536, true, 65537, false],
    [12, true, 65537, false],
    [NaN, true, 65537, false],
    [Infinity, true, 65537, false],
    [-1, true, 65537, false],
  ]) {
    const d = JSON.parse(raw.bodyTooLargeRaw(start, seen, complete));
    const reason = d.reasons[0];
    assert.equal(reason.code, 'body_too_large');
    assert.equal(reason.figures.body_bytes, bytes, `${seen}`);
    assert.equal(reason.message, `card body is ${exact ? '' : 'at least '}${bytes} bytes, more than the limit of 65536 bytes`, `${seen}`);
  }
});

test('an object seen before is found again by identity, and a change made to it in place is seen', () => {
  unique += 1;
  const req = { require: ['task.execute.v3'], min_version: `2.${unique}`, max_stale: '10s' };
  const obs = { lag_ms: '500', now: Date.parse(NOW) + unique };
  const expected = () => fresh(CARD, JSON.stringify(req), JSON.stringify({ ...obs, now: new Date(obs.now).toISOString() }));
  assert.equal(readsOf(() => assert.equal(cg.evaluateRaw(CARD, req, obs), expected())).length, 2);
  assert.deepEqual(readsOf(() => assert.equal(cg.evaluateRaw(CARD, req, obs), expected())), []);
  obs.lag_ms = '40000';
  assert.deepEqual(readsOf(() => assert.equal(cg.evaluateRaw(CARD, req, obs), expected())).map(([k]) => k), ['observation']);
  assert.equal(JSON.parse(cg.evaluateRaw(CARD, req, obs)).error_class, 'stale_agent_card');
  obs.lag_ms = '500';
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, obs)), [], 'back to a kept key');
  req.require[0] = 'task.other';
  assert.deepEqual(readsOf(() => assert.equal(cg.evaluateRaw(CARD, req, obs), expected())).map(([k]) => k), ['requirement']);
  assert.deepEqual(JSON.parse(cg.evaluateRaw(CARD, req, obs)).missing_capabilities, ['task.other']);
  req.extra = undefined;
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, obs)), [], 'an undefined member is absent');
  req.extra = 1;
  assert.throws(() => cg.evaluateRaw(CARD, req, obs), (e) => e.input === 'requirement');
  delete req.extra;
  obs.now = null;
  assert.equal(cg.evaluateRaw(CARD, req, obs), fresh(CARD, JSON.stringify(req), '{"lag_ms":"500"}'));
  delete obs.now;
  const t0 = Date.now();
  const d = cg.evaluateRaw(CARD, req, obs);
  assert.equal(d, freshWithin(t0, Date.now(), CARD, req, obs, d), 'now the clock is in it');
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, obs)), []);
});

// Fourth audit (H37): a requirement or observation is read by the gate once and by the caller
// again. A `require` getter that named the capability on its first read and nothing after passed
// a card lacking it, and an observation whose `lag_ms` getter said 10 twice and a day after kept
// the decision for 10 ms on every later call.
test('a getter, a hidden or inherited member, a class instance or a Proxy in a requirement is refused unread', () => {
  const obs = `{"lag_ms":"500","now":"${NOW}"}`;
  let read = 0;
  const getter = { max_stale: '10s' };
  Object.defineProperty(getter, 'require', { enumerable: true, get: () => (++read === 1 ? ['task.execute.v3'] : []) });
  const hidden = { max_stale: '10s' };
  Object.defineProperty(hidden, 'require', { value: ['task.execute.v3'], enumerable: false });
  class Requirement { constructor() { this.max_stale = '10s'; } get require() { read += 1; return ['task.execute.v3']; } }
  const proxy = new Proxy({ max_stale: '10s', require: ['task.execute.v3'] }, {
    ownKeys: () => ['max_stale'],
  });
  const cases = [
    [getter, '/require', /getter/],
    [hidden, '/require', /not enumerable/],
    [Object.assign(Object.create({ require: ['task.execute.v3'] }), { max_stale: '10s' }), '', /prototype/],
    [new Requirement(), '', /prototype/],
    [proxy, '', /Proxy/],
  ];
  for (const [req, path, why] of cases) {
    for (const call of [
      () => cg.evaluateRaw(CARD, req, obs),
      () => cg.evaluate(CARD, req, obs),
      () => cg.compareCards(CARD, CARD, req, obs, obs),
    ]) {
      const r = readsOf(() => assert.throws(call, (e) => e instanceof TypeError && e.input === 'requirement' &&
        e.path === path && why.test(e.message), `${path} ${why}`));
      assert.deepEqual(r, []);
    }
  }
  assert.equal(read, 0, 'no getter ran');
  // Polluting Object.prototype with a member the core reads: the plain object only inherits it.
  Object.prototype.require = ['task.execute.v3'];
  try {
    assert.throws(() => cg.evaluateRaw(CARD, { max_stale: '10s' }, obs),
      (e) => e instanceof TypeError && e.path === '/require' && /inherited/.test(e.message));
  } finally {
    delete Object.prototype.require;
  }
  assert.equal(JSON.parse(cg.evaluateRaw(CARD, { require: ['task.execute.v3'], max_stale: '10s' }, obs)).verdict, 'valid');
});

test('an observation is read once: a getter is refused, even on an object seen before, and `now` may be a Date', () => {
  const req = { require: ['task.execute.v3'], max_stale: '10s' };
  let read = 0;
  const changing = {};
  Object.defineProperty(changing, 'lag_ms', { enumerable: true, get: () => (++read <= 2 ? '10' : '86400000') });
  for (let i = 0; i < 3; i++) {
    assert.throws(() => cg.evaluateRaw(CARD, req, changing),
      (e) => e instanceof TypeError && e.input === 'observation' && e.path === '/lag_ms');
  }
  assert.throws(() => cg.compareCards(CARD, CARD, req, changing, { lag_ms: '0' }),
    (e) => e instanceof TypeError && e.input === 'replica_observation' && e.path === '/lag_ms');
  assert.equal(read, 0, 'no getter ran');
  // A plain observation kept from an earlier call, given a getter afterwards, is refused too
  // (not found again as the kept key).
  const obs = { lag_ms: '10', now: NOW };
  assert.equal(JSON.parse(cg.evaluateRaw(CARD, req, obs)).verdict, 'valid');
  assert.deepEqual(readsOf(() => cg.evaluateRaw(CARD, req, obs)), [], 'kept');
  Object.defineProperty(obs, 'lag_ms', { enumerable: true, get: () => '86400000' });
  assert.throws(() => cg.evaluateRaw(CARD, req, obs), (e) => e instanceof TypeError && e.path === '/lag_ms');
  // `now` as a Date or a number of ms is the clock's value; a bad one is withClock's RangeError.
  const at = { lag_ms: '10', now: new Date(NOW) };
  assert.equal(cg.evaluateRaw(CARD, req, at), fresh(CARD, JSON.stringify(req), `{"lag_ms":"10","now":"2026-11-09T12:00:40.000Z"}`));
  assert.equal(cg.evaluateRaw(CARD, req, { lag_ms: '10', now: Date.parse(NOW) }), cg.evaluateRaw(CARD, req, at));
  assert.throws(() => cg.evaluateRaw(CARD, req, { lag_ms: '10', now: NaN }), RangeError);
  const nowGetter = { lag_ms: '10', get now() { read += 1; return NOW; } };
  assert.throws(() => cg.evaluateRaw(CARD, req, nowGetter), (e) => e instanceof TypeError && e.path === '/now');
  assert.equal(read, 0);
});

test('a remembered requirement or observation object is compared member by member when found again', () => {
  // Found again by identity (Prepared.known), an object reuses its slot only while it still holds
  // the data it was read with: every change below must give the decision its new text gives.
  // (Each object is new to the cache, so it is remembered; mutation testing of js/api.js found
  // that no test reached the comparison with a remembered object.)
  unique += 1;
  const req = { require: ['task.execute.v3'], min_version: `1.${unique}`, max_stale: '10s' };
  const obs = { lag_ms: String(1000 + unique), now: NOW };
  const same = (label) => {
    const want = fresh(CARD_TEXT, JSON.stringify(req), JSON.stringify(obs));
    assert.equal(cg.evaluateRaw(CARD_TEXT, req, obs), want, label);
    assert.equal(cg.evaluateRaw(CARD_TEXT, req, obs), want, `${label}, again`);
  };
  same('as read');
  assert.deepEqual(readsOf(() => same('found again')), [], 'found again without a read');
  const steps = [
    ['a value changed', () => { req.min_version = '4.0.0'; }],
    ['a member renamed (as many members)', () => { delete req.max_stale; req.card_name = 'worker-7'; }],
    ['the same names in another order', () => { const c = req.card_name; delete req.card_name; req.max_stale = '10s'; req.card_name = c; delete req.max_stale; req.max_stale = '20s'; }],
    ['a member added', () => { req.pin_mode = 'with_watermark'; }],
    ['a member removed', () => { delete req.pin_mode; }],
    ['a list element changed', () => { req.require[0] = 'task.other'; }],
    ['a list element added', () => { req.require.push('task.execute.v3'); }],
    ['a list element removed', () => { req.require.shift(); }],
    ['a member set to undefined (absent)', () => { req.card_name = undefined; }],
    ['that member set again', () => { req.card_name = 'worker-8'; }],
    ['an observation value changed', () => { obs.lag_ms = '40000'; }],
    ['an observation member added', () => { obs.age_s = '3'; }],
    ['an observation member renamed', () => { delete obs.age_s; obs.lag_s = '1'; }],
    ['an observation clock changed', () => { obs.now = '2026-11-09T12:00:41Z'; }],
  ];
  for (const [label, change] of steps) {
    change();
    same(label);
  }
  // Every name changed at once (one member): no position of the two lists holds the same name.
  const one = { min_version: `1.${unique}` };
  assert.equal(cg.evaluateRaw(CARD_TEXT, one, obs), fresh(CARD_TEXT, JSON.stringify(one), JSON.stringify(obs)));
  delete one.min_version;
  one.card_name = 'another-agent';
  assert.equal(cg.evaluateRaw(CARD_TEXT, one, obs), fresh(CARD_TEXT, JSON.stringify(one), JSON.stringify(obs)), 'renamed');
});

test('a remembered object changed in place to other kinds of values, or emptied of a member, is read again', () => {
  // Each change below turns a decision the core gave into another (or into a refusal): a
  // comparison that stopped early, or compared a list with an object, a primitive with an object
  // or an empty object with one that gained members, reused the slot of the old data. Mutation
  // testing of js/api.js found these changes untested (every earlier step kept the decision).
  const outcome = (fn) => {
    try {
      return fn();
    } catch (e) {
      // The package's TypeError names its input and path; the raw export throws the core's
      // {kind, message, path}, its path under /requirement or /observation.
      return e instanceof Error
        ? `${e.name} ${e.input}${e.path}: ${e.message.replace(/^invalid [^:]*: /, '')}`
        : `TypeError ${e.path.slice(1)}: ${e.message}`;
    }
  };
  const check = (req, obs, label) => {
    const want = outcome(() => fresh(CARD_TEXT, JSON.stringify(req), JSON.stringify(obs)));
    assert.equal(outcome(() => cg.evaluateRaw(CARD_TEXT, req, obs)), want, label);
    return want;
  };
  const steps = (req, obs, list) => {
    let before = check(req, obs, 'as read');
    assert.equal(outcome(() => cg.evaluateRaw(CARD_TEXT, req, obs)), before, 'again');
    for (const [label, change] of list) {
      change();
      const now = check(req, obs, label);
      assert.notEqual(now, before, `${label} changes the outcome`);
      before = now;
    }
  };
  unique += 1;
  // An empty requirement that gains a member; the last member removed.
  const empty = {};
  const obs = { lag_ms: String(unique), now: NOW };
  steps(empty, obs, [
    ['a member added to an empty object', () => { empty.max_stale = '10s'; }],
    ['a second member added', () => { empty.min_version = '9.0.0'; }],
    ['the last member removed', () => { delete empty.min_version; }],
    ['a list added', () => { empty.require = ['task.execute.v3', `task.${unique}`]; }],
    ['a list made a string', () => { empty.require = 'task.execute.v3'; }],
  ]);
  // A list made an object with the same indices; a number made an empty object.
  unique += 1;
  const req = { require: [`task.${unique}`], max_stale: '10s' };
  // (No other primitive member: a comparison of primitives made false would hide the object one.)
  const numbers = { lag_ms: 5 };
  steps(req, numbers, [
    ['a list made an object with its indices', () => { req.require = { 0: `task.${unique}` }; }],
  ]);
  req.require = ['task.execute.v3'];
  steps(req, numbers, [
    ['an observation number made an empty object', () => { numbers.lag_ms = {}; }],
  ]);
  numbers.lag_ms = 7;
  steps(req, numbers, [
    ['an observation member made null', () => { numbers.lag_ms = null; }],
    ['null made an empty object', () => { numbers.lag_ms = {}; }],
  ]);
});

test('an observation object whose now is undefined takes the host clock, as one without now does', () => {
  // `now: undefined` is absent (as in its JSON text): a synced_at watermark is judged against the
  // host clock, not refused as clock_missing (a mutant of takesClock reading the own member
  // alone passed every test before).
  const req = { require: ['task.execute.v3'], max_stale: '10s' };
  for (const observation of [{ synced_at: null, now: undefined }, { synced_at: null }]) {
    observation.synced_at = new Date(Date.now() - 2000 - unique).toISOString();
    for (let i = 0; i < 2; i++) {
      const d = JSON.parse(cg.evaluateRaw(CARD_TEXT, req, observation));
      assert.equal(d.verdict, 'valid', `${JSON.stringify(observation)}: ${d.reasons?.map((r) => r.code)}`);
    }
  }
});

test('every requirement and observation member the core reads is refused when only inherited', () => {
  // Each name in REQUIREMENT_MEMBERS and OBSERVATION_MEMBERS (js/api.js), one at a time on a
  // polluted Object.prototype (mutants dropping a name from either list passed every test).
  const inherited = (e, path) => e instanceof TypeError && e.path === path && /inherited/.test(e.message);
  const requirement = [['require', ['task.execute.v3']], ['min_version', '1.0.0'], ['max_stale', '10s'],
    ['pin', `sha256:${'0'.repeat(64)}`], ['pin_mode', 'replace'], ['card_name', 'worker-7']];
  const observation = [['lag_ms', '1'], ['lag_s', '1'], ['synced_at', NOW], ['consul_last_contact_ms', '1'],
    ['consul_known_leader', 'true'], ['age_s', '1'], ['now', NOW]];
  for (const [members, make] of [[requirement, (k) => [k === 'require' ? {} : { require: ['task.execute.v3'] }, { lag_ms: '1', now: NOW }]],
    [observation, (k) => [{ require: ['task.execute.v3'], max_stale: '10s' }, k === 'now' ? { lag_ms: '1' } : k === 'lag_ms' ? { now: NOW } : { lag_ms: '1', now: NOW }]]]) {
    for (const [k, v] of members) {
      const [req, obs] = make(k);
      whilePolluted(Object.prototype, k, { value: v, writable: true }, () =>
        assert.throws(() => cg.evaluateRaw(CARD, req, obs), (e) => inherited(e, `/${k}`), k));
    }
  }
});
