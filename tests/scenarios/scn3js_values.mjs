// Third review, JavaScript surface: the npm package's entry points with odd JavaScript values.
//
//   node tests/scenarios/scn3js_values.mjs [PKG]      (default: pkg/ of this checkout)
//
// Each scenario states its expectation from cardgate.d.ts / DESIGN.md ("Card objects",
// "Requirement", "Observation") before it is run:
//   'same'   evaluate(x) equals evaluateRaw(JSON.stringify(x)) (a value JSON.stringify changes is
//            said so in the label), or a TypeError/RangeError;
//   'throws' a TypeError/RangeError (named class);
//   'bytes'  the decision equals evaluateRaw of the card's text;
//   a verdict / error class.
// Whatever the outcome, a `valid` card object is also read with @a2a-js/sdk (default resolver and
// legacyCompat): every required capability must be in both readings. Prints one line per
// scenario and a summary; exits 1 on a difference.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { AgentCardResolver, DefaultAgentCardResolver } from '@a2a-js/sdk/client';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG = resolve(process.argv[2] ?? process.env.PKG ?? join(ROOT, 'pkg'));
const require = createRequire(import.meta.url);
const cg = require(join(PKG, 'node', 'index.cjs'));

const RESOLVERS = { default: AgentCardResolver.default, legacy: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }) };
const NOW = '2026-11-09T12:00:40Z';
const REQ = { require: ['task.execute.v3', 'binding:JSONRPC', 'protocol:1.0'], max_stale: '10s' };
const OBS = { lag_ms: '100', now: NOW };

function card() {
  return {
    name: 'worker-7',
    description: 'd',
    version: '3.0.0',
    supportedInterfaces: [{ url: 'https://w.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'task.execute.v3', name: 'n', description: 'd', tags: ['t'] }],
  };
}
const CARD_TEXT = JSON.stringify(card());

/** Outcome of one call: the decision summary, or the thrown class. */
function run(f) {
  try {
    const raw = f();
    const d = typeof raw === 'string' ? JSON.parse(raw) : raw;
    const codes = (d.reasons ?? []).map((r) => r.code).join(',');
    return { raw: typeof raw === 'string' ? raw : JSON.stringify(raw), verdict: d.verdict, cls: d.verdict === 'valid' ? 'valid' : `${d.error_class}[${codes}]` };
  } catch (e) {
    return { thrown: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e), path: e?.path };
  }
}
const show = (o) => (o.thrown ? `${o.thrown}(${o.path ?? ''}: ${o.message.slice(0, 110)})` : o.cls);
const typed = (o) => o.thrown === 'TypeError' || o.thrown === 'RangeError';

function sdkLacks(object, req) {
  const want = (req?.require ?? []);
  const out = [];
  for (const [name, r] of Object.entries(RESOLVERS)) {
    let n;
    try {
      n = r.normalizeAgentCard(object);
    } catch (e) {
      out.push(`${name}: throws ${e.message}`);
      continue;
    }
    const ifaces = Array.isArray(n?.supportedInterfaces) ? n.supportedInterfaces : [];
    for (const w of want) {
      let ok;
      if (w.startsWith('binding:')) ok = ifaces.some((i) => typeof i?.protocolBinding === 'string' && i.protocolBinding.toUpperCase() === w.slice(8));
      else if (w.startsWith('protocol:')) ok = ifaces.some((i) => typeof i?.protocolVersion === 'string' && i.protocolVersion.startsWith(w.slice(9)));
      else ok = Array.isArray(n?.skills) && n.skills.some((s) => s?.id === w);
      if (!ok) out.push(`${name} lacks ${w}`);
    }
  }
  return out;
}

const results = [];
function record(area, label, expect, got, extra = {}) {
  let ok;
  if (expect === 'same') ok = typed(got) || (extra.text !== undefined && got.raw === extra.text.raw);
  else if (expect === 'throws') ok = typed(got);
  else if (expect === 'bytes') ok = extra.text !== undefined && got.raw === extra.text.raw;
  else ok = !got.thrown && got.cls.startsWith(expect);
  const notes = [];
  if (!got.thrown && got.verdict === 'valid' && extra.object !== undefined) {
    const lacks = sdkLacks(extra.object, extra.req ?? REQ);
    if (lacks.length) {
      ok = false;
      notes.push(`SDK: ${lacks.join('; ')}`);
    }
  }
  if (extra.text && expect !== 'bytes') notes.push(`stringify: ${show(extra.text)}`);
  results.push({ area, label, ok });
  console.log(`${ok ? 'ok  ' : 'DIFF'} [${area}] ${label}: expect ${expect}, got ${show(got)}${notes.length ? ' | ' + notes.join(' | ') : ''}`);
}

/** A card object scenario: evaluate(obj) vs evaluateRaw(JSON.stringify(obj)). */
function cardObject(label, object, expect = 'same', req = REQ, obs = OBS) {
  let text;
  try {
    const t = JSON.stringify(object);
    text = typeof t === 'string' ? run(() => cg.evaluateRaw(t, req, obs)) : { thrown: 'none', message: 'JSON.stringify gave undefined' };
  } catch (e) {
    text = { thrown: `stringify:${e.constructor.name}`, message: e.message };
  }
  const got = run(() => cg.evaluateRaw(object, req, obs));
  const viaEvaluate = run(() => cg.evaluate(object, req, obs));
  if (!got.thrown && !viaEvaluate.thrown && JSON.stringify(JSON.parse(got.raw)) !== viaEvaluate.raw) {
    console.log(`DIFF evaluate vs evaluateRaw on ${label}`);
  }
  record('card-object', label, expect, got, { text, object, req });
}

const mutate = (f) => {
  const c = card();
  return f(c) ?? c;
};

// ---------------------------------------------------------------- card objects
cardObject('plain card', card(), 'valid');
cardObject('JSON.parse with own __proto__ holding supportedInterfaces (SDK reads own member only)',
  JSON.parse(CARD_TEXT.replace('{', '{"__proto__":{"preferredTransport":"GRPC","url":"x"},')));
cardObject('JSON.parse: capabilities with own __proto__',
  JSON.parse(CARD_TEXT.replace('"capabilities":{', '"capabilities":{"__proto__":{"streaming":false},')));
cardObject('JSON.parse: interface with own __proto__ {protocolBinding}',
  JSON.parse(CARD_TEXT.replace('"supportedInterfaces":[{', '"supportedInterfaces":[{"__proto__":{"protocolBinding":"GRPC"},')));
cardObject('member named constructor / toString / hasOwnProperty', mutate((c) => Object.assign(c, { constructor: 'x', toString: 'y', hasOwnProperty: 1, valueOf: null })));
cardObject('skill named constructor, toString as a function', mutate((c) => { c.skills[0].toString = () => 'x'; }), 'throws');
cardObject('getter on skills', mutate((c) => { const s = c.skills; Object.defineProperty(c, 'skills', { get: () => s, enumerable: true }); }), 'throws');
cardObject('toJSON on the card', mutate((c) => { c.toJSON = () => card(); }), 'throws');
cardObject('toJSON inherited from a class', mutate((c) => Object.assign(new (class { toJSON() { return card(); } })(), c)), 'throws');
cardObject('Symbol-keyed members (ignored; stringify drops them)', mutate((c) => { c[Symbol('skills')] = []; c.skills[0][Symbol.toPrimitive] = () => 'x'; }));
cardObject('Symbol.toStringTag own member', mutate((c) => { c[Symbol.toStringTag] = 'AgentCard'; }));
cardObject('a Map card', new Map(Object.entries(card())), 'throws');
cardObject('a Date member', mutate((c) => { c.version = new Date(0); }), 'throws');
cardObject('class instance card', mutate((c) => Object.assign(new (class Card {})(), c)), 'throws');
cardObject('null-prototype card and members', mutate((c) => {
  const n = Object.assign(Object.create(null), c);
  n.supportedInterfaces = [Object.assign(Object.create(null), c.supportedInterfaces[0])];
  n.skills = [Object.assign(Object.create(null), c.skills[0])];
  return n;
}), 'valid');
cardObject('a Proxy card', new Proxy(card(), {}), 'throws');
cardObject('a revoked Proxy card', (() => { const r = Proxy.revocable(card(), {}); r.revoke(); return r.proxy; })(), 'throws');
cardObject('a Proxy skill array', mutate((c) => { c.skills = new Proxy(c.skills, {}); }), 'throws');
cardObject('sparse skills [, skill]', mutate((c) => { c.skills = [, c.skills[0]]; }), 'throws'); // eslint-disable-line no-sparse-arrays
cardObject('skills array with an extra named member', mutate((c) => { c.skills.extra = 1; }), 'throws');
cardObject('array with length set larger (holes at end)', mutate((c) => { c.supportedInterfaces.length = 3; }), 'throws');
cardObject('-0 as a member value (stringify: 0)', mutate((c) => { c.x = -0; c.capabilities.n = -0; }));
cardObject('NaN member (stringify: null)', mutate((c) => { c.x = NaN; }), 'throws');
cardObject('Infinity in an unknown member (stringify: null)', mutate((c) => { c.x = [Infinity]; }), 'throws');
cardObject('BigInt member (stringify throws)', mutate((c) => { c.x = 1n; }), 'throws');
cardObject('BigInt with BigInt.prototype.toJSON defined', mutate((c) => { c.x = 1n; }), 'throws');
cardObject('boxed Boolean flag', mutate((c) => { c.capabilities.streaming = new Boolean(false); }), 'throws'); // eslint-disable-line no-new-wrappers
cardObject('lone high surrogate in skill id (stringify escapes it)', mutate((c) => { c.skills[0].id = 'task.execute.v3\uD800'; }), 'malformed_card');
cardObject('lone surrogate in a member name', mutate((c) => { c['x\uDC00'] = 1; }), 'malformed_card');
cardObject('paired surrogates in name (valid)', mutate((c) => { c.name = 'w\uD83D\uDE00'; }), 'valid');
cardObject('deep unknown data, 63 levels', mutate((c) => { let d = 1; for (let i = 0; i < 62; i++) d = [d]; c.x = d; }));
cardObject('deep unknown data, 200 levels', mutate((c) => { let d = 1; for (let i = 0; i < 200; i++) d = { a: d }; c.x = d; }), 'malformed_card');
cardObject('deep data, 1200 levels (walk limit)', mutate((c) => { let d = 1; for (let i = 0; i < 1200; i++) d = [d]; c.x = d; }), 'throws');
cardObject('deep data, 100000 levels (no stack overflow)', mutate((c) => { let d = 1; for (let i = 0; i < 100000; i++) d = [d]; c.x = d; }), 'throws');
cardObject('very long name (1 MiB)', mutate((c) => { c.name = 'n'.repeat(1 << 20); }), 'malformed_card');
cardObject('name of 21000 3-byte characters (63000 bytes, under the limit)', mutate((c) => { c.name = '\u20ac'.repeat(21000); }), 'valid');
cardObject('name of 22000 3-byte characters (66000 bytes: over 65536 though 22000 UTF-16 units)', mutate((c) => { c.name = '\u20ac'.repeat(22000); }), 'malformed_card');
cardObject('frozen, sealed card', Object.freeze(mutate((c) => { Object.freeze(c.skills); })), 'valid');
cardObject('member set to undefined where SDK reads values (description)', mutate((c) => { c.description = undefined; }));
cardObject('supportedInterfaces undefined + url', mutate((c) => { c.supportedInterfaces = undefined; c.url = 'https://w.example/a2a'; }), 'throws');
cardObject('array holding a function', mutate((c) => { c.defaultInputModes = [() => 1]; }), 'throws');
cardObject('a member holding a Uint8Array', mutate((c) => { c.x = new Uint8Array(2); }), 'throws');
cardObject('a member holding an ArrayBuffer', mutate((c) => { c.x = new ArrayBuffer(2); }), 'throws');
cardObject('object from another realm (vm)', vm.runInNewContext(`(${CARD_TEXT})`), 'throws');
cardObject('array from another realm (vm) in a plain card', mutate((c) => { c.skills = vm.runInNewContext(`(${JSON.stringify(c.skills)})`); }), 'throws');
cardObject('Object.prototype.skills polluted, own skills present', (() => card())(), 'valid');
cardObject('an Error object as card', Object.assign(new Error('x'), card()), 'throws');
cardObject('arguments object as skills', mutate((c) => { c.skills = (function () { return arguments; })(c.skills[0]); }), 'throws');
cardObject('a card that is an array', [card()], 'malformed_card');
cardObject('a function as card', Object.assign(function f() {}, { skills: [] }), 'throws');

// ---------------------------------------------------------------- bytes and text
const textResult = run(() => cg.evaluateRaw(CARD_TEXT, REQ, OBS));
const enc = new TextEncoder().encode(CARD_TEXT);
function bytes(label, value, expect = 'bytes', text = textResult) {
  record('bytes', label, expect, run(() => cg.evaluateRaw(typeof value === 'function' ? value() : value, REQ, OBS)), { text });
}
const padded = new Uint8Array(enc.length + 16);
padded.set(enc, 7);
bytes('Uint8Array view with byteOffset 7', padded.subarray(7, 7 + enc.length));
bytes('Buffer.from(text) (pooled, byteOffset)', Buffer.from(CARD_TEXT));
bytes('Buffer slice of a larger buffer', Buffer.concat([Buffer.from('xx'), Buffer.from(CARD_TEXT), Buffer.from('yy')]).subarray(2, 2 + enc.length));
bytes('ArrayBuffer', enc.slice().buffer);
bytes('DataView with offset', new DataView(padded.buffer, 7, enc.length));
bytes('Uint8ClampedArray', new Uint8ClampedArray(enc));
bytes('Int8Array (signed view of the same bytes)', new Int8Array(enc.slice().buffer));
{
  const b = new ArrayBuffer(enc.length + (enc.length % 2));
  new Uint8Array(b).set(enc);
  const u16 = new Uint16Array(b);
  bytes('Uint16Array over the bytes (padding byte 0 at end)', u16, enc.length % 2 ? 'malformed_card' : 'bytes');
}
{
  const sab = new SharedArrayBuffer(enc.length);
  new Uint8Array(sab).set(enc);
  bytes('Uint8Array over a SharedArrayBuffer', new Uint8Array(sab));
  bytes('a SharedArrayBuffer itself', sab, 'same', textResult);
  bytes('DataView over a SharedArrayBuffer', new DataView(sab));
}
{
  const ab = enc.slice().buffer;
  const view = new Uint8Array(ab);
  structuredClone(ab, { transfer: [ab] });
  bytes('a detached ArrayBuffer', ab, 'throws');
  bytes('a view of a detached buffer (length 0)', view, 'throws');
}
{
  const ab = new ArrayBuffer(enc.length, { maxByteLength: enc.length * 2 });
  new Uint8Array(ab).set(enc);
  bytes('resizable ArrayBuffer', ab);
  const tracking = new Uint8Array(ab);
  bytes('length-tracking view of a resizable buffer', tracking);
}
bytes('Uint8Array from another realm (vm)', vm.runInNewContext('new Uint8Array(b)', { b: Array.from(enc) }));
bytes('ArrayBuffer from another realm (vm)', vm.runInNewContext('new Uint8Array(b).buffer', { b: Array.from(enc) }), 'same');
bytes('text with a UTF-8 BOM as string', '\uFEFF' + CARD_TEXT, 'malformed_card');
{
  const lone = CARD_TEXT.replace('"task.execute.v3"', '"task.execute.v3\uD800"');
  const reqLone = { ...REQ, require: ['task.execute.v3\uFFFD', 'binding:JSONRPC'] };
  record('text', 'string card with an unescaped lone surrogate in a skill id', 'malformed_card', run(() => cg.evaluateRaw(lone, REQ, OBS)));
  record('text', 'same string card, requirement naming the U+FFFD spelling', 'malformed_card', run(() => cg.evaluateRaw(lone, reqLone, OBS)));
  record('text', 'JSON.parse of it, as an object (stringify escapes \\ud800)', 'malformed_card', run(() => cg.evaluateRaw(JSON.parse(lone), reqLone, OBS)));
  record('text', 'cardHash of the string equals cardHash of U+FFFD text? (should throw)', 'throws', run(() => ({ verdict: 'valid', error_class: null, hash: cg.cardHash(lone) })));
  const lonePin = CARD_TEXT.replace('"worker-7"', '"worker-7\uDFFF"');
  record('text', 'string card with a lone surrogate in name, pinned to the U+FFFD text\'s hash', 'malformed_card',
    run(() => cg.evaluateRaw(lonePin, { require: ['task.execute.v3'], pin: cg.cardHash(lonePin.replace('\uDFFF', '\uFFFD')) }, { now: NOW })));
}
bytes('a very long string card (200 000 chars)', CARD_TEXT.replace('"d"', `"${'d'.repeat(200000)}"`), 'malformed_card');
bytes('a number as card', 42, 'throws');
bytes('a boolean as card', true, 'throws');
bytes('undefined card', undefined, 'throws');
bytes('null card', null, 'throws');
bytes('a String object card', new String(CARD_TEXT), 'throws'); // eslint-disable-line no-new-wrappers

// ---------------------------------------------------------------- requirement / observation values
function input(label, req, obs, expect) {
  let text;
  try {
    const r = req === undefined ? undefined : JSON.stringify(req);
    const o = obs === undefined ? undefined : JSON.stringify(obs);
    text = run(() => cg.evaluateRaw(CARD_TEXT, r === undefined ? undefined : JSON.parse(r), o === undefined ? undefined : JSON.parse(o)));
  } catch (e) {
    text = { thrown: `stringify:${e.constructor.name}`, message: e.message };
  }
  record('inputs', label, expect, run(() => cg.evaluateRaw(CARD_TEXT, req, obs)), { text });
}
input('requirement with an unknown member', { ...REQ, maxStale: '10s' }, OBS, 'throws');
input('requirement member undefined (absent)', { ...REQ, pin: undefined }, OBS, 'valid');
input('requirement member null', { ...REQ, pin: null }, OBS, 'throws');
input('require: [undefined] (stringify: [null])', { ...REQ, require: [undefined] }, OBS, 'throws');
input('require with a hole (stringify: [null])', { ...REQ, require: [, 'task.execute.v3'] }, OBS, 'throws'); // eslint-disable-line no-sparse-arrays
input('require as a Set', { ...REQ, require: new Set(['task.other']) }, OBS, 'same');
input('requirement as a Map (stringify: {})', new Map([['require', ['task.other']], ['max_stale', '10s']]), OBS, 'same');
input('requirement as a class instance', Object.assign(new (class R {})(), REQ), OBS, 'same');
input('requirement with toJSON (stringify: another requirement)', { ...REQ, toJSON: () => ({ max_stale: '10s' }) }, OBS, 'same');
input('requirement with a getter', Object.defineProperty({ max_stale: '10s' }, 'require', { get: () => ['task.other'], enumerable: true }), OBS, 'same');
input('requirement with a non-enumerable require', Object.defineProperty({ max_stale: '10s' }, 'require', { value: ['task.other'], enumerable: false }), OBS, 'same');
input('requirement inheriting require', Object.assign(Object.create({ require: ['task.other'] }), { max_stale: '10s' }), OBS, 'same');
input('requirement as a Proxy', new Proxy({ ...REQ }, {}), OBS, 'same');
input('requirement with Symbol keys', { ...REQ, [Symbol('x')]: 1 }, OBS, 'valid');
input('requirement: max_stale as a number 10000', { ...REQ, max_stale: 10000 }, OBS, 'throws');
input('requirement: max_stale as a BigInt', { ...REQ, max_stale: 10n }, OBS, 'throws');
input('requirement: require as a string', { ...REQ, require: 'task.execute.v3' }, OBS, 'throws');
input('requirement: require with a boxed String', { ...REQ, require: [new String('task.other')] }, OBS, 'same'); // eslint-disable-line no-new-wrappers
input('requirement frozen', Object.freeze({ ...REQ, require: Object.freeze([...REQ.require]) }), OBS, 'valid');
input('requirement: require with a lone surrogate', { ...REQ, require: ['task\uD800'] }, OBS, 'throws');
input('requirement text with a lone surrogate', JSON.stringify({ ...REQ, require: ['task'] }).replace('task"', 'task\uD800"'), OBS, 'throws');
input('requirement: pin with a lone surrogate', { ...REQ, pin: 'sha256:' + 'a'.repeat(63) + '\uD800' }, OBS, 'throws');
input('requirement null-prototype', Object.assign(Object.create(null), REQ), OBS, 'valid');
input('requirement an array', [REQ], OBS, 'throws');
input('requirement a number', 5, OBS, 'throws');
input('requirement a Uint8Array of its text', new TextEncoder().encode(JSON.stringify(REQ)), OBS, 'same');
input('requirement: require array from another realm', { ...REQ, require: vm.runInNewContext('["task.other"]') }, OBS, 'same');
input('observation: lag_ms number', REQ, { lag_ms: 100, now: NOW }, 'valid');
input('observation: lag_ms -0 (stringify: 0)', REQ, { lag_ms: -0, now: NOW }, 'same');
input('observation: lag_ms NaN (stringify: null -> watermark_invalid)', REQ, { lag_ms: NaN, now: NOW }, 'stale_agent_card');
input('observation: lag_ms Infinity (stringify: null)', REQ, { lag_ms: Infinity, now: NOW }, 'stale_agent_card');
input('observation: lag_ms BigInt 100n (stringify throws)', REQ, { lag_ms: 100n, now: NOW }, 'same');
input('observation: lag_ms BigInt 2^70', REQ, { lag_ms: 2n ** 70n, now: NOW }, 'same');
input('observation: lag_ms 1e21 (a number whose text has an exponent)', REQ, { lag_ms: 1e21, now: NOW }, 'stale_agent_card');
input('observation: lag_ms 5e-324', { ...REQ, max_stale: '0s' }, { lag_ms: 5e-324, now: NOW }, 'stale_agent_card');
input('observation: lag_ms undefined (absent -> unverifiable)', REQ, { lag_ms: undefined, now: NOW }, 'stale_agent_card');
input('observation: lag_ms null (invalid)', REQ, { lag_ms: null, now: NOW }, 'stale_agent_card');
input('observation: lag_ms boxed Number (read from the value, not its JSON: fails closed)', REQ, { lag_ms: new Number(100), now: NOW }, 'stale_agent_card'); // eslint-disable-line no-new-wrappers
input('observation: lag_ms boxed String', REQ, { lag_ms: new String('100'), now: NOW }, 'same'); // eslint-disable-line no-new-wrappers
input('observation: lag_ms an object with toJSON "100" (read from the value: fails closed)', REQ, { lag_ms: { toJSON: () => '100' }, now: NOW }, 'stale_agent_card');
input('observation: lag_ms a Date', REQ, { lag_ms: new Date(100), now: NOW }, 'stale_agent_card');
input('observation: lag_ms an array ["100"]', REQ, { lag_ms: ['100'], now: NOW }, 'stale_agent_card');
input('observation: lag_ms a getter', REQ, Object.defineProperty({ now: NOW }, 'lag_ms', { get: () => '100', enumerable: true }), 'same');
input('observation: lag_ms inherited', REQ, Object.assign(Object.create({ lag_ms: '100' }), { now: NOW }), 'stale_agent_card');
input('observation: lag_ms non-enumerable', REQ, Object.defineProperty({ now: NOW }, 'lag_ms', { value: '100', enumerable: false }), 'stale_agent_card');
input('observation as a Map', REQ, new Map([['lag_ms', '100'], ['now', NOW]]), 'same');
input('observation with unknown member', REQ, { ...OBS, lagMs: '1' }, 'throws');
input('observation: now as a Date', REQ, { lag_ms: '100', now: new Date(NOW) }, 'valid');
input('observation: now as an invalid Date', REQ, { lag_ms: '100', now: new Date(NaN) }, 'throws');
input('observation: now as NaN', REQ, { lag_ms: '100', now: NaN }, 'throws');
input('observation: now as -0', REQ, { synced_at: '1970-01-01T00:00:00Z', now: -0 }, 'valid');
input('observation: now as a BigInt', REQ, { lag_ms: '100', now: 1n }, 'throws');
input('observation: now 8.64e15+1 (past Date range)', REQ, { lag_ms: '100', now: 8.64e15 + 1 }, 'throws');
input('observation: now as a numeric string', REQ, { lag_ms: '100', now: '1762689640000' }, 'throws');
input('observation: now as a boxed String', REQ, { lag_ms: '100', now: new String(NOW) }, 'throws'); // eslint-disable-line no-new-wrappers
input('observation frozen', REQ, Object.freeze({ ...OBS }), 'valid');
input('observation Proxy', REQ, new Proxy({ ...OBS }, {}), 'same');
input('observation class instance', REQ, Object.assign(new (class O {})(), OBS), 'same');
input('observation with toJSON', REQ, { ...OBS, toJSON: () => ({ lag_ms: '1', now: NOW }) }, 'same');
input('observation a string "{}"', REQ, '{}', 'stale_agent_card');
input('observation an array', REQ, [OBS], 'throws');
input('observation: synced_at with a lone surrogate', REQ, { synced_at: '2026-11-09T12:00:40Z\uD800', now: NOW }, 'same');

// Repeat calls with the same object mutated in between (the package caches prepared inputs).
{
  const req = { require: ['task.execute.v3'], max_stale: '10s' };
  const first = run(() => cg.evaluateRaw(CARD_TEXT, req, OBS));
  req.require.push('task.other');
  record('cache', 'requirement object mutated (nested push) after a call', 'capability_mismatch', run(() => cg.evaluateRaw(CARD_TEXT, req, OBS)));
  req.require.pop();
  record('cache', '...and restored', first.cls, run(() => cg.evaluateRaw(CARD_TEXT, req, OBS)));
  const obs = { lag_ms: '100', now: NOW };
  cg.evaluateRaw(CARD_TEXT, REQ, obs);
  obs.lag_ms = '40000';
  record('cache', 'observation object mutated after a call', 'stale_agent_card', run(() => cg.evaluateRaw(CARD_TEXT, REQ, obs)));
  let n = 0;
  const flip = Object.defineProperty({ max_stale: '10s' }, 'require', { get: () => (++n % 2 ? ['task.execute.v3'] : ['task.other']), enumerable: true });
  const a = run(() => cg.evaluateRaw(CARD_TEXT, flip, OBS));
  const b = run(() => cg.evaluateRaw(CARD_TEXT, flip, OBS));
  record('cache', `requirement getter changing per read (first ${a.cls})`, 'capability_mismatch', b);
  const ro = { lag_ms: '100' }; // clock taken from the host each call
  cg.evaluateRaw(CARD_TEXT, REQ, ro);
  ro.synced_at = '2000-01-01T00:00:00Z';
  record('cache', 'observation without now, member added after a call', 'stale_agent_card', run(() => cg.evaluateRaw(CARD_TEXT, REQ, ro)));
  const proxyTarget = { require: ['task.execute.v3'], max_stale: '10s' };
  const p = new Proxy(proxyTarget, {});
  cg.evaluateRaw(CARD_TEXT, p, OBS);
  proxyTarget.require = ['task.other'];
  record('cache', 'requirement Proxy whose target changed after a call', 'capability_mismatch', run(() => cg.evaluateRaw(CARD_TEXT, p, OBS)));
}

const bad = results.filter((r) => !r.ok);
const byArea = {};
for (const r of results) byArea[r.area] = (byArea[r.area] ?? 0) + 1;
console.log(`\n${results.length} scenarios (${Object.entries(byArea).map(([k, v]) => `${k} ${v}`).join(', ')}), ${bad.length} differ`);
process.exitCode = bad.length ? 1 : 0;
