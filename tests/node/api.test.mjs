// The package API as installed: entry points, card forms, the clock, typed errors, and every
// kind of bad input (a TypeError/RangeError naming the field, never a wasm trap).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ensureConsumer, importPackage, requirePackage } from './consumer.mjs';
import { cli, FRESH_CARD, STALE_CARD } from './helpers.mjs';

const dir = ensureConsumer();
const cg = await importPackage(dir);
const cjs = await requirePackage(dir);

const REQ = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' };
const NOW = '2026-11-09T12:00:40Z';

test('ES module and CommonJS entries expose one API and one set of classes', () => {
  const names = [
    'evaluate', 'evaluateRaw', 'cardHash', 'declaredCapabilities', 'canonicalize', 'checkPolicy', 'coreVersion', 'statusWithoutCard', 'toError', 'assertValid',
    'resolveAgentCard', 'observationFromHeaders', 'CardGateResolver', 'CardGateError', 'StaleAgentCardError',
    'CapabilityMismatchError', 'MalformedAgentCardError', 'AgentCardFetchError', 'DEFAULT_WATERMARK', 'init',
  ];
  for (const n of names) {
    assert.ok(cg[n] !== undefined, `import { ${n} }`);
    assert.equal(cjs[n], cg[n], `require().${n} is the same object as the ESM export`);
  }
  assert.equal(typeof cg.default, 'function', 'default export init() for isomorphic code');
  assert.match(cg.coreVersion(), /^\d+\.\d+\.\d+/);
});

test('statusWithoutCard: 204, 205 and 206 carry no whole card (the core rule), other statuses null', () => {
  for (const status of [204, 205, 206]) assert.match(cg.statusWithoutCard(status), new RegExp(`^HTTP ${status} `));
  for (const status of [0, 200, 201, 203, 207, 299, 65535]) assert.equal(cg.statusWithoutCard(status), null);
  for (const [bad, what] of [['206', 'a string'], [206.5, 'a number'], [-1, 'a number'], [65536, 'a number'], [null, 'null']]) {
    assert.throws(() => cg.statusWithoutCard(bad), { name: 'TypeError', message: `statusWithoutCard: status must be an integer HTTP status, not ${what}` });
  }
});

test('the incident: evaluate returns the decision object, evaluateRaw the CLI bytes', () => {
  const raw = cg.evaluateRaw(STALE_CARD, REQ, { lag_ms: '40000', now: NOW });
  const d = cg.evaluate(STALE_CARD, REQ, { lag_ms: '40000', now: NOW });
  assert.deepEqual(d, JSON.parse(raw));
  assert.equal(d.verdict, 'rejected');
  assert.equal(d.status, 503);
  assert.equal(d.error_class, 'stale_agent_card');
  assert.deepEqual(d.reasons.map((r) => r.code), ['watermark_exceeded', 'version_below_minimum', 'capabilities_missing']);
  assert.deepEqual(d.missing_capabilities, ['task.execute.v3']);
  assert.equal(d.staleness_ms, 40000);
  assert.deepEqual(d.card, STALE_CARD);

  const native = cli(
    ['check', '-', '--require=task.execute.v3', '--min-version=3.0.0', '--max-stale=10s', '--lag-ms=40000', `--now=${NOW}`],
    JSON.stringify(STALE_CARD),
  );
  assert.equal(native.status, 1);
  assert.equal(raw, native.stdout.replace(/\n$/, ''));

  const ok = cg.evaluate(FRESH_CARD, REQ, { lag_ms: '3000' });
  assert.equal(ok.verdict, 'valid');
  assert.equal(ok.freshness, 'watermark');
  assert.equal(ok.staleness_ms, 3000);
  assert.equal(cg.assertValid(ok), ok);
  assert.equal(cg.toError(ok), null);
});

test('a card as text, Buffer, Uint8Array, ArrayBuffer, DataView or object gives one decision', () => {
  const text = JSON.stringify(FRESH_CARD);
  const buf = Buffer.from(text);
  const u8 = new TextEncoder().encode(text);
  const forms = [text, buf, u8, u8.buffer, new DataView(u8.buffer), FRESH_CARD];
  const obs = { lag_s: '1', now: NOW };
  const want = cg.evaluateRaw(text, REQ, obs);
  for (const f of forms) assert.equal(cg.evaluateRaw(f, REQ, obs), want, Object.prototype.toString.call(f));
  const hash = cg.cardHash(text);
  assert.match(hash, /^sha256:[0-9a-f]{64}$/);
  for (const f of forms) assert.equal(cg.cardHash(f), hash);
  // A subarray view hashes only its own bytes.
  const padded = Buffer.concat([Buffer.from('xx'), buf, Buffer.from('yy')]);
  assert.equal(cg.cardHash(padded.subarray(2, 2 + buf.length)), hash);
  // Pinning that hash passes (b) with no watermark at all.
  const pinned = cg.evaluate(text, { require: ['task.execute.v3'], pin: hash }, {});
  assert.equal(pinned.verdict, 'valid');
  assert.equal(pinned.freshness, 'pinned');
});

test('exact bytes matter: a duplicate member is caught only from the text', () => {
  const text = '{"name":"a","name":"b","version":"1","capabilities":{},"skills":[]}';
  const d = cg.evaluate(text, { max_stale: '1s' }, { lag_ms: '0' });
  assert.equal(d.error_class, 'malformed_card');
  assert.equal(d.reasons[0].code, 'duplicate_member');
  assert.equal(d.card_text, text);
});

test('a member set to undefined is absent (objects go to the core without JSON text)', () => {
  const d = cg.evaluate(FRESH_CARD, { ...REQ, pin: undefined }, { lag_ms: '1', age_s: undefined, now: NOW });
  assert.equal(d.verdict, 'valid', JSON.stringify(d));
  assert.equal(d.staleness_ms, 1);
});

test('the clock: the wrapper supplies now, and accepts text, Date or ms', () => {
  const synced = new Date(Date.now() - 3000).toISOString();
  const d = cg.evaluate(FRESH_CARD, REQ, { synced_at: synced });
  assert.equal(d.verdict, 'valid', JSON.stringify(d.reasons));
  assert.ok(d.staleness_ms >= 3000 && d.staleness_ms < 60000, `staleness ${d.staleness_ms}`);

  const at = Date.parse('2026-11-09T12:00:00Z');
  const byText = cg.evaluateRaw(FRESH_CARD, REQ, { synced_at: '2026-11-09T11:59:55Z', now: '2026-11-09T12:00:00Z' });
  assert.equal(cg.evaluateRaw(FRESH_CARD, REQ, { synced_at: '2026-11-09T11:59:55Z', now: new Date(at) }), byText);
  assert.equal(cg.evaluateRaw(FRESH_CARD, REQ, { synced_at: '2026-11-09T11:59:55Z', now: at }), byText);
  assert.equal(JSON.parse(byText).staleness_ms, 5000);

  const none = cg.evaluate(FRESH_CARD, REQ, { synced_at: synced, now: null });
  assert.deepEqual(none.reasons.map((r) => r.code), ['clock_missing']);
  // JSON text is verbatim: no clock added.
  const verbatim = cg.evaluate(FRESH_CARD, REQ, JSON.stringify({ synced_at: synced }));
  assert.deepEqual(verbatim.reasons.map((r) => r.code), ['clock_missing']);
});

test('typed errors carry the card, hash, reasons, decision and a retry hint', () => {
  const stale = cg.toError(cg.evaluate(STALE_CARD, REQ, { lag_ms: '40000', now: NOW }), { url: 'http://r/x' });
  assert.ok(stale instanceof cg.StaleAgentCardError);
  assert.ok(stale instanceof cg.CardGateError);
  assert.ok(stale instanceof Error);
  assert.equal(stale.name, 'StaleAgentCardError');
  assert.equal(stale.retry, 're-resolve');
  assert.equal(stale.errorClass, 'stale_agent_card');
  assert.equal(stale.status, 503);
  assert.deepEqual(stale.card, STALE_CARD);
  assert.equal(stale.cardHash, cg.cardHash(STALE_CARD));
  assert.deepEqual(stale.reasons.map((r) => r.code), ['watermark_exceeded', 'version_below_minimum', 'capabilities_missing']);
  assert.deepEqual(stale.missingCapabilities, ['task.execute.v3']);
  assert.equal(stale.stalenessMs, 40000);
  assert.equal(stale.agent, 'worker-7');
  assert.equal(stale.url, 'http://r/x');
  assert.match(stale.message, /^Stale Agent Card: staleness 40000 ms exceeds max_stale 10000 ms/);
  assert.equal(stale.decision.error_class, 'stale_agent_card');

  const mismatch = cg.toError(cg.evaluate(STALE_CARD, { require: ['task.execute.v3'], max_stale: '10s' }, { lag_ms: '1000' }));
  assert.ok(mismatch instanceof cg.CapabilityMismatchError);
  assert.equal(mismatch.retry, 'none');
  assert.equal(mismatch.status, 409);
  assert.deepEqual(mismatch.missingCapabilities, ['task.execute.v3']);
  assert.deepEqual(mismatch.reasons.map((r) => r.code), ['capabilities_missing']);

  const garbled = cg.toError(cg.evaluate('<html>502 Bad Gateway</html>', REQ, { lag_ms: '0' }));
  assert.ok(garbled instanceof cg.MalformedAgentCardError);
  assert.equal(garbled.retry, 're-resolve');
  assert.equal(garbled.status, 502);
  assert.equal(garbled.card, '<html>502 Bad Gateway</html>', 'unparsed body text');
  assert.equal(garbled.cardHash, null);
  assert.equal(garbled.reasons[0].code, 'json_syntax');

  const shapeless = cg.toError(cg.evaluate({ name: 'x' }, REQ, { lag_ms: '0' }));
  assert.ok(shapeless instanceof cg.MalformedAgentCardError);
  assert.deepEqual(shapeless.card, { name: 'x' }, 'parsed card');
  assert.match(shapeless.cardHash, /^sha256:/);

  assert.throws(() => cg.assertValid(cg.evaluate(STALE_CARD, REQ, { lag_ms: '40000' })), cg.StaleAgentCardError);
  assert.throws(() => cg.toError({ verdict: 'rejected', error_class: 'nope' }), TypeError);
});

// [description, thunk, error class, pattern the message must match (names the field)]
const BAD_INPUT = [
  ['requirement is not JSON', () => cg.evaluate(FRESH_CARD, '{"max_stale":', {}), TypeError, /requirement.*not valid JSON/],
  ['requirement is an array', () => cg.evaluate(FRESH_CARD, '[]', {}), TypeError, /requirement/],
  ['requirement is a number', () => cg.evaluate(FRESH_CARD, 42, {}), TypeError, /requirement must be an object or JSON text/],
  ['requirement has an unknown key', () => cg.evaluate(FRESH_CARD, { maxStale: '10s' }, {}), TypeError, /requirement at \/maxStale/],
  ['require is a string', () => cg.evaluate(FRESH_CARD, { require: 'task.execute.v3' }, {}), TypeError, /requirement at \/require/],
  ['require holds a number', () => cg.evaluate(FRESH_CARD, { require: [3] }, {}), TypeError, /requirement at \/require\/0/],
  ['require holds an empty name', () => cg.evaluate(FRESH_CARD, { require: [''] }, {}), RangeError, /requirement at \/require\/0/],
  ['unknown capability flag', () => cg.evaluate(FRESH_CARD, { require: ['capability:teleport'] }, {}), RangeError, /requirement at \/require\/0/],
  ['duration without unit', () => cg.evaluate(FRESH_CARD, { max_stale: '10' }, {}), RangeError, /requirement at \/max_stale/],
  ['negative duration', () => cg.evaluate(FRESH_CARD, { max_stale: '-1s' }, {}), RangeError, /requirement at \/max_stale/],
  ['duration with a space', () => cg.evaluate(FRESH_CARD, { max_stale: '10 s' }, {}), RangeError, /requirement at \/max_stale/],
  ['duration as a number', () => cg.evaluate(FRESH_CARD, { max_stale: 10 }, {}), TypeError, /requirement at \/max_stale/],
  ['pin too short', () => cg.evaluate(FRESH_CARD, { pin: 'sha256:abc' }, {}), RangeError, /requirement at \/pin/],
  ['pin in upper case', () => cg.evaluate(FRESH_CARD, { pin: 'sha256:' + 'A'.repeat(64) }, {}), RangeError, /requirement at \/pin/],
  ['pin with another algorithm', () => cg.evaluate(FRESH_CARD, { pin: 'md5:' + 'a'.repeat(64) }, {}), RangeError, /requirement at \/pin/],
  ['min_version not comparable', () => cg.evaluate(FRESH_CARD, { min_version: 'latest' }, {}), RangeError, /requirement at \/min_version/],
  ['min_version a number', () => cg.evaluate(FRESH_CARD, { min_version: 3 }, {}), TypeError, /requirement at \/min_version/],
  ['observation has an unknown key', () => cg.evaluate(FRESH_CARD, REQ, { lag: '1' }), TypeError, /observation at \/lag/],
  ['observation is not JSON', () => cg.evaluate(FRESH_CARD, REQ, 'lag_ms=1'), TypeError, /observation.*not valid JSON/],
  ['observation is an array', () => cg.evaluate(FRESH_CARD, REQ, [1]), TypeError, /observation must be an object/],
  ['now is not RFC 3339', () => cg.evaluate(FRESH_CARD, REQ, { now: 'yesterday' }), RangeError, /observation at \/now/],
  ['now is an invalid Date', () => cg.evaluate(FRESH_CARD, REQ, { now: new Date('x') }), RangeError, /observation\.now/],
  ['now is NaN', () => cg.evaluate(FRESH_CARD, REQ, { now: NaN }), RangeError, /observation\.now/],
  ['now is a boolean', () => cg.evaluate(FRESH_CARD, REQ, { now: true }), TypeError, /observation\.now/],
  ['card is undefined', () => cg.evaluate(undefined, REQ, {}), TypeError, /card must be/],
  ['card is a number', () => cg.evaluate(7, REQ, {}), TypeError, /card must be/],
  ['card cannot be serialized', () => cg.evaluate({ n: 1n }, REQ, {}), TypeError, /card: cannot be serialized/],
  ['cardHash of non-JSON', () => cg.cardHash('not json'), TypeError, /card/],
  ['cardHash of a duplicate member', () => cg.cardHash('{"a":1,"a":2}'), TypeError, /card/],
  ['cardHash of an oversized body', () => cg.cardHash('"' + 'x'.repeat(70000) + '"'), null, /card/],
  ['canonicalize of non-JSON', () => cg.canonicalize('{"a":}'), TypeError, /json/],
  ['canonicalize of a lone surrogate', () => cg.canonicalize('"\\ud800"'), TypeError, /json/],
  ['card_name is empty', () => cg.evaluate(FRESH_CARD, { ...REQ, card_name: '' }, {}), RangeError, /requirement at \/card_name/],
  ['card_name is a number', () => cg.evaluate(FRESH_CARD, { ...REQ, card_name: 7 }, {}), TypeError, /requirement at \/card_name/],
  ['card_name is a getter', () => cg.evaluate(FRESH_CARD, { ...REQ, get card_name() { return 'worker-7'; } }, {}), TypeError, /requirement/],
  ['policy with an empty card_name', () => cg.checkPolicy({ agents: { w7: { card_name: '' } } }), RangeError, /policy at \/agents\/w7\/card_name/],
  ['policy with a bad duration', () => cg.checkPolicy({ agents: { w7: { max_stale: 'soon' } } }), RangeError, /policy at \/agents\/w7\/max_stale/],
  ['policy with an unknown key', () => cg.checkPolicy('{"default":{}}'), TypeError, /policy at \/default/],
];

for (const [what, thunk, Ctor, pattern] of BAD_INPUT) {
  test(`bad input: ${what} throws ${Ctor ? Ctor.name : 'TypeError/RangeError'} naming the field, and the module still works`, () => {
    assert.throws(thunk, (e) => {
      if (Ctor === null) assert.ok(e instanceof TypeError || e instanceof RangeError, `${e.constructor.name}: ${e.message}`);
      else assert.equal(e.constructor, Ctor, `${e.constructor.name}: ${e.message}`);
      assert.match(e.message, pattern);
      return true;
    });
    assert.equal(cg.evaluate(FRESH_CARD, REQ, { lag_ms: '1' }).verdict, 'valid', 'usable after the error');
  });
}

test('card_name: another agent\'s card is a StaleAgentCardError to re-resolve, the own card passes', () => {
  const fresh = { lag_ms: '1000' };
  assert.equal(cg.evaluate(FRESH_CARD, { ...REQ, card_name: 'worker-7' }, fresh).verdict, 'valid');
  for (const other of ['worker-8', 'Worker-7', ' worker-7', 'worker-7\u0301']) {
    const d = cg.evaluate(FRESH_CARD, { ...REQ, card_name: other }, fresh);
    assert.equal(d.verdict, 'rejected', other);
    assert.deepEqual(d.reasons.map((r) => r.code), ['card_name_mismatch'], other);
    assert.deepEqual(d.reasons[0].figures, { agent: 'worker-7', card_name: other });
    const e = cg.toError(d);
    assert.ok(e instanceof cg.StaleAgentCardError, other);
    assert.equal(e.retry, 're-resolve');
    // The raw entry (card bytes in, decision JSON out) reads the same requirement.
    const raw = JSON.parse(cg.evaluateRaw(JSON.stringify(FRESH_CARD), { ...REQ, card_name: other }, { ...fresh, now: NOW }));
    assert.deepEqual(raw.reasons.map((r) => r.code), ['card_name_mismatch'], other);
  }
  assert.doesNotThrow(() => cg.checkPolicy({ agents: { 'worker-7': { card_name: 'worker-7', max_stale: '10s' } } }));
});

test('the module survives a storm of bad calls and oversized input', () => {
  for (let i = 0; i < 500; i++) {
    const [, thunk] = BAD_INPUT[i % BAD_INPUT.length];
    assert.throws(thunk);
  }
  const huge = cg.evaluate('{"name":"' + 'x'.repeat(1 << 20) + '"}', REQ, {});
  assert.equal(huge.reasons[0].code, 'body_too_large');
  const deep = cg.evaluate('['.repeat(100000), REQ, {});
  assert.equal(deep.error_class, 'malformed_card');
  assert.equal(cg.evaluate(FRESH_CARD, REQ, { lag_ms: '1' }).verdict, 'valid');
  assert.equal(cg.canonicalize({ b: [1e21, 0.1, -0], a: 'é\u2028' }), '{"a":"é\u2028","b":[1e+21,0.1,0]}');
  assert.equal(cg.checkPolicy({ defaults: { max_stale: '10s' } }), undefined);
  // Over 1 MiB, as `cardgate policy check` and the filter refuse it.
  const big = '{"defaults":{"max_stale":"10s"}}' + ' '.repeat(1 << 20);
  assert.throws(() => cg.checkPolicy(big), (e) => e instanceof RangeError && /over the 1048576-byte \(1 MiB\) limit/.test(e.message));
  assert.equal(cg.checkPolicy(big.slice(0, 1 << 20)), undefined);
});

test('mutated cards never trap: 3000 byte-level mutations give a decision, then the module still works', () => {
  // Deterministic xorshift PRNG so a failure is reproducible.
  let x = 0x9e3779b9;
  const rand = (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const base = Buffer.from(JSON.stringify(STALE_CARD));
  const alphabet = Buffer.concat([
    Buffer.from('{}[]",:\\u0123456789abcdefnulltrue-+.eE '),
    Buffer.from([0x0a, 0x09, 0x00, 0xff, 0xc3, 0xa9, 0xed, 0xa0, 0x80, 0xf0, 0x9f]),
  ]);
  for (let i = 0; i < 3000; i++) {
    const bytes = Buffer.from(base);
    const edits = 1 + rand(4);
    let out = bytes;
    for (let k = 0; k < edits; k++) {
      const at = rand(out.length);
      const op = rand(3);
      if (op === 0) out[at] = alphabet[rand(alphabet.length)];
      else if (op === 1) out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1 + rand(8))]);
      else out = Buffer.concat([out.subarray(0, at), alphabet.subarray(rand(alphabet.length)), out.subarray(at)]);
    }
    const d = cg.evaluate(out, REQ, { lag_ms: '1' });
    assert.ok(d.verdict === 'valid' || d.verdict === 'rejected', `case ${i}`);
    try {
      cg.cardHash(out);
    } catch (e) {
      assert.ok(e instanceof TypeError || e instanceof RangeError, `case ${i}: ${e}`);
    }
  }
  assert.equal(cg.evaluate(FRESH_CARD, REQ, { lag_ms: '1' }).verdict, 'valid');
});

test('DEFAULT_WATERMARK names the same headers as the core (and so the Envoy filter)', async () => {
  // The raw wasm-bindgen glue of the installed package, below the wrapper.
  const { createRequire } = await import('node:module');
  const { join } = await import('node:path');
  const raw = createRequire(import.meta.url)(join(dir, 'node_modules', 'cardgate', 'node', 'cardgate.js'));
  const core = JSON.parse(raw.conventionalWatermarkSources());
  assert.deepEqual(
    {
      lag_ms_header: cg.DEFAULT_WATERMARK.lagMsHeader,
      lag_s_header: cg.DEFAULT_WATERMARK.lagSHeader,
      synced_at_header: cg.DEFAULT_WATERMARK.syncedAtHeader,
      consul: cg.DEFAULT_WATERMARK.consul,
      age: cg.DEFAULT_WATERMARK.age,
    },
    core,
  );
});

test('declaredCapabilities: what every SDK reading grants, and what only some do', () => {
  const card = JSON.stringify({
    name: 'W', version: '1', skills: [{ id: 's' }],
    capabilities: { push_notifications: true, streaming: true },
    supportedInterfaces: [
      { url: 'https://w.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: '', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
  });
  const info = cg.declaredCapabilities(card);
  // GRPC's interface has no url: no client can use it, so no reading grants it.
  assert.deepEqual(info.granted, ['s', 'capability:streaming', 'binding:JSONRPC', 'protocol:1.0']);
  assert.ok(info.readings.every((r) => !r.capabilities.includes('binding:GRPC')));
  const python = info.readings.find((r) => r.sdk.startsWith('a2a-sdk'));
  assert.ok(python.capabilities.includes('capability:pushNotifications'), 'a2a-sdk reads snake_case');
  const js = info.readings.find((r) => r.sdk === '@a2a-js/sdk default resolver');
  assert.ok(!js.capabilities.includes('capability:pushNotifications'), 'the raw JS card has no camelCase flag');
  assert.equal(cg.declaredCapabilities('{"name":"W"}').defect.code, 'missing_field');
  assert.throws(() => cg.declaredCapabilities('not json'), TypeError);
  // Only what a requirement can name: a skill id `binding:GRPC` is no binding, `""` and an
  // extension without a URI are nothing a caller can require; each listed one is granted.
  const odd = {
    name: 'W', version: '1', capabilities: { extensions: [{ uri: '' }, { uri: 'urn:x' }] },
    skills: [{ id: 'binding:GRPC' }, { id: '' }, { id: 'extension:urn:y' }, { id: 's' }],
    supportedInterfaces: [{ url: 'https://w.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  };
  const listed = cg.declaredCapabilities(JSON.stringify(odd)).granted;
  assert.deepEqual(listed, ['s', 'extension:urn:x', 'binding:JSONRPC', 'protocol:1.0']);
  const d = cg.evaluate(odd, { require: listed, max_stale: '10s' }, { lag_ms: 0 });
  assert.equal(d.verdict, 'valid', JSON.stringify(d.reasons));
});

// Third review (scn3js): text with a lone surrogate, and requirement/observation values that
// serde-wasm-bindgen reads otherwise than their JSON text.
test('text with a lone surrogate is never read as the U+FFFD text TextEncoder makes of it', () => {
  const valid = { name: 'w', version: '3.0.0', capabilities: {}, skills: [{ id: 'task.execute.v3' }] };
  const text = JSON.stringify(valid).replace('"task.execute.v3"', '"task.execute.v3\ud800"');
  const obs = { lag_ms: '1', now: NOW };
  // The caller's own reading (JSON.parse) keeps the surrogate; the core refuses one.
  assert.equal(cg.evaluate(JSON.parse(text), REQ, obs).reasons[0].code, 'lone_surrogate');
  const d = cg.evaluate(text, { ...REQ, require: ['task.execute.v3\ufffd'] }, obs);
  assert.deepEqual([d.error_class, d.reasons[0].code], ['malformed_card', 'invalid_utf8']);
  // A pin of the U+FFFD text does not pass the surrogate text.
  const pin = cg.cardHash(text.replace('\ud800', '\ufffd'));
  assert.equal(cg.evaluate(text, { pin }, { now: NOW }).verdict, 'rejected');
  assert.throws(() => cg.cardHash(text), TypeError);
  assert.throws(() => cg.declaredCapabilities(text), TypeError);
  assert.throws(() => cg.canonicalize('"\udc00"'), TypeError);
  assert.throws(() => cg.checkPolicy('{"$comment":"\ud800"}'), TypeError);
  // Requirement and observation text, and strings inside an object the core reads directly.
  const reqText = JSON.stringify(REQ).replace('task.execute.v3', 'task.execute.v3\ud800');
  for (const call of [
    () => cg.evaluate(JSON.stringify(valid), reqText, obs),
    () => cg.evaluate(JSON.stringify(valid), REQ, `{"lag_ms":"1\ud800","now":"${NOW}"}`),
    () => cg.compareCards(valid, valid, reqText, obs, obs),
    () => cg.evaluate(JSON.stringify(valid), { ...REQ, require: ['task.execute.v3\ud800'] }, obs),
    () => cg.evaluate(JSON.stringify(valid), { ...REQ, require: ['task.execute.v3'], nested: { a: undefined, b: '\ud800' } }, obs),
  ]) {
    assert.throws(call, (e) => e instanceof TypeError && /lone surrogate/.test(e.message), String(call));
  }
});

test('a requirement or observation holding a Map, a Set or a BigInt is a TypeError, as its JSON text would be', () => {
  const card = JSON.stringify({ name: 'w', version: '3.0.0', capabilities: {}, skills: [{ id: 'task.execute.v3' }] });
  const obs = { lag_ms: '1', now: NOW };
  const cases = [
    [() => cg.evaluate(card, new Map([['pin', cg.cardHash(card)]]), obs), 'requirement', ''],
    [() => cg.evaluate(card, { ...REQ, require: new Set(['task.execute.v3']) }, obs), 'requirement', '/require'],
    [() => cg.evaluate(card, REQ, { lag_ms: 1n, now: NOW }), 'observation', '/lag_ms'],
    [() => cg.evaluate(card, REQ, { ...obs, x: undefined, lag_ms: new Map() }), 'observation', '/lag_ms'],
    [() => cg.compareCards(card, card, new Map([['max_stale', '10s']]), obs, obs), 'requirement', ''],
  ];
  for (const [call, input, path] of cases) {
    assert.throws(call, (e) => e instanceof TypeError && e.input === input && e.path === path, String(call));
  }
  // compareCards names which observation is at fault, in the message too.
  const map = 'an object whose prototype is not Object.prototype or null (a Date, Map, Set, class instance...); ' +
    'the gate and the caller could read it differently (pass plain JSON data, or JSON text)';
  for (const [bad, why] of [[1n, 'a BigInt (JSON has no BigInt: JSON.stringify throws)'], [new Map(), map]]) {
    for (const [ro, po, input] of [[{ ...obs, lag_ms: bad }, obs, 'replica_observation'], [obs, { ...obs, lag_ms: bad }, 'primary_observation']]) {
      assert.throws(() => cg.compareCards(card, card, REQ, ro, po), {
        name: 'TypeError', input, path: '/lag_ms', message: `invalid ${input} at /lag_ms: ${why}`,
      });
    }
  }
});

// Third review (adversarial) found the same: a card named "w\uD800" passed as text was `valid`
// as "w\uFFFD", with the hash of that other text; policy text was read likewise.
test('string inputs with a lone surrogate are refused, not read with U+FFFD', () => {
  const text = JSON.stringify(FRESH_CARD);
  const lone = (s) => s.replace('"worker-7"', '"worker-7\uD800"');
  assert.notEqual(lone(text), text);
  // (A backslash before the surrogate too: written as an escape, `\` + `\uD800` would read as
  // the valid text `\\uD800`, a card the caller's JSON.parse refuses.)
  for (const card of [lone(text), text.replace('"worker-7"', '"worker-7\uDC00x"'), text.replace('"worker-7"', '"worker-7\\\uD800"')]) {
    const d = JSON.parse(cg.evaluateRaw(card, { max_stale: '10s' }, { lag_ms: '0', now: NOW }));
    assert.equal(d.verdict, 'rejected');
    assert.deepEqual(d.reasons.map((r) => r.code), ['invalid_utf8']);
    assert.equal(cg.evaluate(card, { max_stale: '10s' }, { lag_ms: '0', now: NOW }).verdict, 'rejected');
    assert.throws(() => cg.cardHash(card), TypeError);
  }
  // A surrogate pair (well-formed text) is read as it stands.
  const pair = text.replace('"worker-7"', '"worker-7\uD83D\uDE00"');
  assert.equal(cg.evaluate(pair, { max_stale: '10s' }, { lag_ms: '0', now: NOW }).verdict, 'valid');
  // Requirement, observation and policy text.
  assert.throws(() => cg.evaluateRaw(text, '{"require":["task.execute.v3\uD800"]}', { lag_ms: '0', now: NOW }),
    (e) => e instanceof TypeError && /lone surrogate/.test(e.message));
  assert.throws(() => cg.evaluateRaw(text, { max_stale: '10s' }, `{"lag_ms":"0\uDBFF","now":"${NOW}"}`),
    (e) => e instanceof TypeError && /lone surrogate/.test(e.message));
  assert.throws(() => cg.checkPolicy('{"agents":{"w\uD800":{}}}'), TypeError);
  assert.throws(() => cg.checkPolicy('{"agents":{}}\uD800'), TypeError);
});

// Mutation testing of js/api.js: a lone high surrogate followed by U+E000 to U+FFFF was taken
// for a pair by two mutants of loneSurrogate (the text then went to the core with U+FFFD, and was
// `valid`), one looped forever on a pair before a lone surrogate, and others moved the byte the
// refusal names. Each lone surrogate is refused at its own byte, in every layout.
test('a lone surrogate is refused at its own byte: after a pair, before U+E000 to U+FFFF, at the end, twice', () => {
  const card = (name) => `{"name":"${name}","version":"1","capabilities":{},"skills":[]}`;
  const obs = { lag_ms: '0', now: NOW };
  const utf8 = (s) => new TextEncoder().encode(s).length;
  for (const [name, at] of [
    ['w\uD800\uE000', 'w'],
    ['w\uDBFF\uFFFF', 'w'],
    ['w\uD800\uDBFF\uDC00', 'w'],
    ['w\uD83D\uDE00\uD800', 'w\uD83D\uDE00'],
    ['w\uD83D\uDE00\uDC00', 'w\uD83D\uDE00'],
    ['w\uD83D\uDE00x\uD800\uD83D\uDE00', 'w\uD83D\uDE00x'],
    ['w\uDC00x\uD800', 'w'],
    ['\uD800', ''],
    ['w\uDFFF', 'w'],
    ['w\uDC00\uDC00', 'w'],
    ['w\uE000\uD800', 'w\uE000'],
    // Pairs at the ends of the ranges (D800-DBFF, DC00-DFFF), then a lone one.
    ['w\uDBFF\uDC00\uD800', 'w\uDBFF\uDC00'],
    ['w\uD800\uDC00\uD800', 'w\uD800\uDC00'],
    ['w\uD800\uDFFF\uDBFF', 'w\uD800\uDFFF'],
  ]) {
    const text = card(name);
    const d = JSON.parse(cg.evaluateRaw(text, { max_stale: '10s' }, obs));
    assert.equal(d.verdict, 'rejected', JSON.stringify(name));
    assert.deepEqual(d.reasons.map((r) => [r.code, r.offset]), [['invalid_utf8', utf8(`{"name":"${at}`)]], JSON.stringify(name));
  }
  // At the very end of the text.
  const whole = card('w');
  const d = JSON.parse(cg.evaluateRaw(`${whole}\uD800`, { max_stale: '10s' }, obs));
  assert.deepEqual(d.reasons.map((r) => [r.code, r.offset]), [['invalid_utf8', utf8(whole)]]);
  // Requirement and observation text: the surrogate and its character, in a TypeError for that input.
  for (const [call, input, code, index] of [
    [() => cg.evaluateRaw(whole, '{"require":["a\uD83D\uDE00\uDBFF"]}', obs), 'requirement', 'DBFF', 16],
    [() => cg.evaluateRaw(whole, '{"require":["\uDC00"]}', obs), 'requirement', 'DC00', 13],
    [() => cg.evaluateRaw(whole, '{"require":["\uE000\uFFFF\uDC00"]}', obs), 'requirement', 'DC00', 15],
    [() => cg.evaluateRaw(whole, {}, `{"lag_ms":"0\uDABC"}`), 'observation', 'DABC', 12],
  ]) {
    assert.throws(call, (e) => e instanceof TypeError && e.input === input && e.path === '' &&
      e.message === `invalid ${input}: ${input} is not valid JSON: lone surrogate U+${code} at character ${index}`, `${input} ${code}`);
  }
});

// Mutation testing of js/api.js: what an input of the wrong kind is told, word for word, and
// compareCards' host clock (a mutant that gave compareCards no clock, or replaced the caller's
// `now` with it, passed every test).
test('inputs of the wrong kind are told what they are and where; compareCards judges a sync time by the right clock', () => {
  const card = JSON.stringify(FRESH_CARD);
  const kinds = 'must be a string, a Uint8Array/Buffer, an ArrayBuffer or an object';
  for (const [value, what] of [[null, 'null'], [undefined, 'undefined'], [5, 'a number'], [true, 'a boolean']]) {
    assert.throws(() => cg.evaluateRaw(value, REQ, {}), (e) => e instanceof TypeError && e.message === `card ${kinds}, not ${what}`, what);
  }
  const clock = 'observation.now must be an RFC 3339 string, a Date or a number of ms';
  for (const [now, what] of [[[], 'an array'], [{}, 'an object'], [true, 'a boolean']]) {
    assert.throws(() => cg.evaluateRaw(card, REQ, { lag_ms: '1', now }), (e) => e instanceof TypeError && e.message === `${clock}, not ${what}`, what);
  }
  const getter = { max_stale: '10s' };
  Object.defineProperty(getter, 'a/b~c', { get: () => 1, enumerable: true });
  const plain = '; the gate and the caller could read it differently (pass plain JSON data, or JSON text)';
  for (const [call, input, path, message] of [
    // `now` is a clock value in an observation only.
    [() => cg.evaluateRaw(card, { ...REQ, now: new Date(0) }, {}), 'requirement', '/now',
      `invalid requirement at /now: an object whose prototype is not Object.prototype or null (a Date, Map, Set, class instance...)${plain}`],
    [() => cg.evaluateRaw(card, getter, {}), 'requirement', '/a~1b~0c', `invalid requirement at /a~1b~0c: a getter or setter${plain}`],
    [() => cg.evaluateRaw(card, REQ, { lag_ms: () => 1 }), 'observation', '/lag_ms', `invalid observation at /lag_ms: a function is not JSON${plain}`],
    [() => cg.evaluateRaw(card, REQ, { lag_ms: { now: () => 1 } }), 'observation', '/lag_ms/now', `invalid observation at /lag_ms/now: a function is not JSON${plain}`],
    [() => cg.evaluateRaw(card, { ...REQ, min_version: 3n }, {}), 'requirement', '/min_version',
      'invalid requirement at /min_version: a BigInt (JSON has no BigInt: JSON.stringify throws)'],
  ]) {
    assert.throws(call, (e) => e instanceof TypeError && e.input === input && e.path === path && e.message === message, message);
  }
  // compareCards: a sync time without `now` is judged by the host clock, with `now` by that.
  const synced = new Date(Date.now() - 2000).toISOString();
  const byHost = cg.compareCards(card, card, REQ, { synced_at: synced }, { synced_at: synced });
  for (const side of [byHost.replica, byHost.primary]) {
    assert.equal(side.verdict, 'valid');
    assert.ok(side.staleness_ms >= 2000 && side.staleness_ms < 60000, String(side.staleness_ms));
  }
  const at = { synced_at: '2026-11-09T12:00:37Z', now: NOW };
  const byCaller = cg.compareCards(card, card, REQ, at, at);
  assert.deepEqual([byCaller.replica.staleness_ms, byCaller.primary.staleness_ms], [3000, 3000]);
});

test('compareCards: each side is the decision evaluate gives it, the cards compared, and re-resolution accepts the fresh primary', () => {
  const ro = { lag_ms: '40000', now: NOW };
  const po = { lag_ms: '0', now: NOW };
  const r = cg.compareCards(JSON.stringify(STALE_CARD), JSON.stringify(FRESH_CARD), REQ, ro, po);
  assert.deepEqual(r.replica, cg.evaluate(JSON.stringify(STALE_CARD), REQ, ro));
  assert.deepEqual(r.primary, cg.evaluate(JSON.stringify(FRESH_CARD), REQ, po));
  assert.equal(r.replica.error_class, 'stale_agent_card');
  assert.equal(r.comparison.comparable, true);
  assert.equal(r.comparison.same_card, false);
  assert.equal(r.comparison.replica.card_hash, cg.cardHash(STALE_CARD));
  assert.equal(r.comparison.primary.card_hash, cg.cardHash(FRESH_CARD));
  const skills = r.comparison.changes.find((c) => c.kind === 'skill');
  assert.deepEqual([skills.added, skills.removed], [['task.execute.v3'], ['task.execute.v2']]);
  const rr = r.re_resolution;
  assert.deepEqual([rr.after_replica, rr.outcome, rr.attempts], ['try_next', 'accepted', 2]);
  assert.equal(rr.decision.verdict, 'valid');
  assert.equal(rr.decision.card_hash, cg.cardHash(FRESH_CARD));
  // No requirement (undefined or null) is the empty one, as for evaluate (which, with no
  // staleness tolerance, only a pin passes).
  const none = cg.compareCards(STALE_CARD, FRESH_CARD, {}, ro, po);
  assert.deepEqual(none.primary, cg.evaluate(FRESH_CARD, {}, po));
  assert.deepEqual(none.primary.reasons.map((x) => x.code), ['tolerance_missing']);
  for (const req of [undefined, null]) {
    assert.deepEqual(cg.compareCards(STALE_CARD, FRESH_CARD, req, ro, po), none, String(req));
  }
});

test('a requirement too long to keep is read straight from the object: its errors name the member, in the words its JSON text gets', () => {
  const card = JSON.stringify(FRESH_CARD);
  const obs = { lag_ms: '1', now: NOW };
  // Longer than the wrapper keys by JSON text (js/api.js KEY_MAX): read by serde-wasm-bindgen.
  const long = Array.from({ length: 400 }, (_, i) => `task.execute.v${i}`);
  const thrown = (req) => {
    try {
      cg.evaluate(card, req, obs);
    } catch (e) {
      return e;
    }
    assert.fail(`no error for ${JSON.stringify(req).slice(-60)}`);
  };
  for (const [req, Ctor, path] of [
    [{ require: long, max_stale: 5 }, TypeError, '/max_stale'],
    [{ require: [...long, 5] }, TypeError, '/require/400'],
    [{ require: 'task.execute.v3', card_name: 'n'.repeat(5000) }, TypeError, '/require'],
    [{ require: long, foo: 1 }, TypeError, '/foo'],
    [{ require: long, pin: 'sha256:zz' }, RangeError, '/pin'],
  ]) {
    const e = thrown(req);
    assert.ok(e instanceof Ctor, `${path}: ${e}`);
    assert.deepEqual([e.input, e.path], ['requirement', path]);
    assert.ok(e.message.startsWith(`invalid requirement at ${path}: `), e.message);
    assert.doesNotMatch(e.message, /Error:|Reflect|floating point/);
    assert.equal(e.message, thrown(JSON.stringify(req)).message);
  }
});

test('toError and assertValid refuse what is not a decision with their own words', () => {
  for (const bad of [null, undefined, 'rejected', 7]) {
    assert.throws(() => cg.toError(bad), { name: 'TypeError', message: 'toError: decision must be a decision object' });
    assert.throws(() => cg.assertValid(bad), { name: 'TypeError', message: 'toError: decision must be a decision object' });
  }
  assert.throws(() => cg.toError({ verdict: 'rejected', error_class: 'bogus' }),
    { name: 'TypeError', message: 'toError: unknown error_class "bogus"' });
  assert.throws(() => cg.toError({ verdict: 'rejected' }), { name: 'TypeError', message: 'toError: unknown error_class undefined' });
  assert.equal(cg.toError({ verdict: 'valid' }), null);
});

test('the error classes built from partial decisions and bare arguments: documented defaults, names and no cause', () => {
  // A decision lacking every member: the documented defaults, never `undefined` or a text of it.
  const bare = new cg.StaleAgentCardError({});
  assert.deepEqual(
    [bare.name, bare.message, bare.reasons, bare.missingCapabilities, bare.stalenessMs, bare.agent, bare.url, bare.cardHash],
    ['StaleAgentCardError', 'Agent Card rejected', [], [], null, null, null, null],
  );
  // Members of the wrong type are the defaults too; a url given as undefined is no url.
  const odd = new cg.CapabilityMismatchError(
    { title: 7, detail: 8, reasons: 'x', missing_capabilities: 'y', staleness_ms: '5', agent: undefined },
    { url: undefined },
  );
  assert.deepEqual(
    [odd.name, odd.message, odd.reasons, odd.missingCapabilities, odd.stalenessMs, odd.agent, odd.url],
    ['CapabilityMismatchError', 'Agent Card rejected', [], [], null, null, null],
  );
  const titled = new cg.MalformedAgentCardError({ title: 'T', detail: 'D', staleness_ms: 0, agent: null }, { url: new URL('https://a.example/card') });
  assert.deepEqual([titled.message, titled.stalenessMs, titled.agent, titled.url], ['T: D', 0, null, 'https://a.example/card']);
  // Transport errors: their own names, and no `cause` unless one was given.
  const fetchError = new cg.AgentCardFetchError('GET x failed', 'https://a.example/', 503);
  assert.deepEqual([fetchError.name, 'cause' in fetchError, fetchError.status, fetchError.finalUrl], ['AgentCardFetchError', false, 503, null]);
  const why = new Error('reset');
  assert.equal(new cg.AgentCardFetchError('GET x failed', 'https://a.example/', null, why).cause, why);
  const timeout = new cg.AgentCardTimeoutError('https://a.example/', 5);
  assert.deepEqual(
    [timeout.name, timeout.message, 'cause' in timeout, timeout.timeoutMs, timeout instanceof cg.AgentCardFetchError],
    ['AgentCardTimeoutError', 'GET https://a.example/ did not complete within 5 ms', false, 5, true],
  );
});

test("the inspector's helpers name the input at fault, each in its own words", () => {
  const card = JSON.stringify({ name: 'w', version: '1.0.0', skills: [] });
  const notBytes = (what, type) => `${what} must be a string, a Uint8Array/Buffer, an ArrayBuffer or an object, not ${type}`;
  const eof = 'not valid I-JSON: EOF while parsing an object, found end of input at byte 1';
  for (const [call, message] of [
    [() => cg.cardHash(42), notBytes('card', 'a number')],
    [() => cg.cardHash('{'), `invalid card: card is ${eof}`],
    [() => cg.declaredCapabilities(42), notBytes('card', 'a number')],
    [() => cg.declaredCapabilities('{'), `invalid card: card is ${eof}`],
    [() => cg.compareCards(42, card, {}, {}, {}), notBytes('replica', 'a number')],
    [() => cg.compareCards(card, 42, {}, {}, {}), notBytes('primary', 'a number')],
    [() => cg.compareCards(card, card, {}, { lag_ms: 1n }, {}), 'invalid replica_observation at /lag_ms: a BigInt (JSON has no BigInt: JSON.stringify throws)'],
    [() => cg.compareCards(card, card, {}, {}, { lag_ms: 1n }), 'invalid primary_observation at /lag_ms: a BigInt (JSON has no BigInt: JSON.stringify throws)'],
    [() => cg.compareCards(card, card, { require: ['\ud800'] }, {}, {}), 'invalid requirement at /require/0: a string with a lone surrogate'],
    [() => cg.compareCards(card, card, {}, {}, Object.create({ lag_ms: '0' })), "invalid primary_observation: an object whose prototype is not Object.prototype or null (a Date, Map, Set, class instance...); the gate and the caller could read it differently (pass plain JSON data, or JSON text)"],
    [() => cg.compareCards(card, card, { min_version: 5 }, {}, {}), 'invalid requirement at /min_version: invalid type: integer `5`, expected a string'],
    [() => cg.canonicalize(undefined), notBytes('json', 'undefined')],
    [() => cg.canonicalize('{'), `invalid json: ${eof}`],
    [() => cg.checkPolicy(42), notBytes('policy', 'a number')],
    [() => cg.checkPolicy('{'), `invalid policy: policy is ${eof}`],
  ]) {
    assert.throws(call, (e) => e instanceof TypeError && e.message === message, message);
  }
});

test('a host clock that is not a valid time is a RangeError, not a decision without a clock', () => {
  const getTime = Date.prototype.getTime;
  Date.prototype.getTime = () => NaN;
  try {
    assert.throws(() => cg.evaluateRaw(FRESH_CARD, REQ, { lag_ms: 0 }), (e) => e instanceof RangeError && e.message === 'observation.now is not a valid time');
  } finally {
    Date.prototype.getTime = getTime;
  }
});

/** A fetch for calls that must be refused before any request: `sent()` counts its calls. */
function noRequests() {
  let sent = 0;
  return {
    fetch: async () => {
      sent += 1;
      throw new Error('no request may be sent');
    },
    sent: () => sent,
  };
}

test('a card URL carrying user information is refused before any request, whichever part it has', async () => {
  const { fetch, sent } = noRequests();
  const says = (what, host) =>
    `${what}: the URL for ${JSON.stringify(host)} carries user information (user:password@): ` +
    'the gate sends no credentials and would print them in the decision; give the URL without them';
  for (const [url, message] of [
    ['https://user:pw@a.example/card', says('url', 'a.example')],
    ['https://user@a.example/card', says('url', 'a.example')],
    ['https://:pw@a.example/card', says('url', 'a.example')],
    [['https://a.example/card', 'http://u:p@b.example:8080/card'], says('sources[1]', 'b.example:8080')],
  ]) {
    await assert.rejects(cg.resolveAgentCard(url, REQ, { fetch }), (e) => e instanceof TypeError && e.message === message, JSON.stringify(url));
  }
  assert.equal(sent(), 0);
});

test('CardGateResolver remembers the last 256 cards it accepted, no more: an older one is a card from elsewhere', async () => {
  const cardFor = (i) => ({ ...FRESH_CARD, description: `replica card ${i}` });
  const fetch = async (url) => {
    const i = Number(new URL(url).pathname.split('/')[1]);
    return new Response(JSON.stringify(cardFor(i)), { headers: { 'content-type': 'application/json', 'x-replica-lag-ms': '0' } });
  };
  // A requirement given as a function names none for a card handed over from elsewhere.
  const resolver = new cg.CardGateResolver({ requirement: async () => REQ, fetch });
  for (let i = 0; i <= 256; i++) await resolver.resolve(`https://agents.example/${i}/`);
  // The 256 newest are found again (re-checked with their aged watermark) ...
  for (const i of [1, 128, 256]) assert.equal(resolver.normalizeAgentCard(cardFor(i)).description, `replica card ${i}`);
  // ... the oldest was forgotten: judged as a card from elsewhere, unverifiable.
  assert.throws(() => resolver.normalizeAgentCard(cardFor(0)), (e) => {
    assert.ok(e instanceof cg.StaleAgentCardError, `${e.name}: ${e.message}`);
    assert.deepEqual(e.reasons.map((r) => r.code), ['freshness_unverifiable']);
    return true;
  });
});

test('CardGateResolver.lastResolution records gate decisions only: a fetch that failed leaves it as it was', async () => {
  const resolver = new cg.CardGateResolver({ requirement: {}, fetch: async () => { throw new Error('down'); } });
  await assert.rejects(resolver.resolve('https://a.example/'), cg.AgentCardFetchError);
  assert.equal(resolver.lastResolution, null);
});

test('resolving from several sources: bad arguments get their exact messages, before any request', async () => {
  const { fetch, sent } = noRequests();
  for (const [call, message] of [
    [() => cg.resolveAgentCard([], {}, { fetch }), 'sources must be a non-empty array of URLs, not an empty array'],
    [() => cg.resolveAgentCard(['https://a.example/c', 'https://b.example/c'], { require: [1n] }, { fetch }), 'invalid requirement at /require/0: a BigInt (JSON has no BigInt: JSON.stringify throws)'],
    [() => new cg.CardGateResolver({ requirement: {}, sources: ['nope'], fetch }).resolve('https://a.example/'), 'options.sources[0] is not an absolute URL: "nope"'],
    [
      () => new cg.CardGateResolver({ requirement: {}, sources: ['https://a.example/', 'https://b.example/'], fetch }).resolve('https://a.example/', 'https://c.example/card'),
      'CardGateResolver: the card path "https://c.example/card" leads https://a.example/ to https://c.example/card, out of that source ' +
        '(another origin, or outside its directory): with options.sources, give a path within each source (a source ending in / is a directory)',
    ],
  ]) {
    await assert.rejects(call(), (e) => e instanceof TypeError && e.message === message, message);
  }
  assert.equal(sent(), 0);
});
