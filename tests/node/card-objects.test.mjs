// Cards handed to the package as JavaScript objects (evaluate, gateAgentCard, cardHash,
// declaredCapabilities, compareCards). The caller gives the same object to @a2a-js/sdk, which
// reads the object itself (normalizeAgentCard: `in` tests, inherited and non-enumerable members,
// getters), while the core reads its JSON text. The oracle is the real SDK: for every object
// the package either refuses with a TypeError or grants only capabilities that both of the
// SDK's readings of THAT object have (ClientFactory's default resolver, and legacyCompat on);
// it never grants on an object both readings refuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentCardResolver, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { importPackage } from './consumer.mjs';
import { whilePolluted } from './helpers.mjs';

const cg = await importPackage();

const RESOLVERS = {
  default: AgentCardResolver.default,
  legacy: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
};
const EXT = 'https://example.com/ext/trace/v1';

/** A v1.0 card with every capability kind (`interfaces`: false leaves supportedInterfaces out,
 * so that one legacy member makes the card v0.3 for legacyCompat). */
function card(interfaces = true) {
  const c = { name: 'worker-7', description: 'd', version: '3.0.0' };
  if (interfaces) c.supportedInterfaces = [{ url: 'https://w.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }];
  c.capabilities = { streaming: true, pushNotifications: true, extendedAgentCard: true, extensions: [{ uri: EXT }] };
  c.defaultInputModes = ['text/plain'];
  c.defaultOutputModes = ['text/plain'];
  c.skills = [{ id: 'task.execute.v3', name: 'n', description: 'd', tags: ['t'] }];
  return c;
}

const CANDIDATES = ['task.execute.v3', 'task.other', `extension:${EXT}`, 'capability:streaming',
  'capability:pushNotifications', 'capability:extendedAgentCard', 'binding:JSONRPC', 'binding:GRPC',
  'protocol:1.0', 'protocol:0.3'];

function majorMinor(v) {
  const m = typeof v === 'string' ? /^(\d+)\.(\d+)(?:\.(\d+)(?:[-+].*)?)?$/s.exec(v) : null;
  return m ? `${m[1]}.${m[2]}` : null;
}

/** The capabilities a normalized card gives a caller, in cardgate's vocabulary (as
 * tests/sdk_parity/sdk_parity.py counts them for JS: flags by truthiness). */
function capabilitiesOf(n) {
  const caps = new Set();
  const isObj = (v) => v !== null && typeof v === 'object';
  for (const s of Array.isArray(n?.skills) ? n.skills : []) if (isObj(s) && typeof s.id === 'string' && s.id) caps.add(s.id);
  const c = isObj(n?.capabilities) ? n.capabilities : {};
  for (const e of Array.isArray(c.extensions) ? c.extensions : []) {
    if (isObj(e) && typeof e.uri === 'string' && e.uri) caps.add(`extension:${e.uri}`);
  }
  for (const f of ['streaming', 'pushNotifications', 'extendedAgentCard']) if (c[f]) caps.add(`capability:${f}`);
  for (const i of Array.isArray(n?.supportedInterfaces) ? n.supportedInterfaces : []) {
    if (!isObj(i)) continue;
    if (typeof i.protocolBinding === 'string' && i.protocolBinding) caps.add(`binding:${i.protocolBinding}`);
    const mm = majorMinor(i.protocolVersion);
    if (mm) caps.add(`protocol:${mm}`);
  }
  return caps;
}

/** What the package does with `object`: {refused: TypeError} or {granted: [...]}, then what each
 * SDK reading of the same object has. The gate is asked first, as a caller would. */
function judge(object) {
  let granted;
  let pin; // the card's own hash passes (b); a card the core cannot read has none
  try {
    pin = cg.cardHash(object);
  } catch {
    pin = undefined;
  }
  try {
    const d = cg.evaluate(object, { require: CANDIDATES, pin }, {});
    granted = d.verdict === 'valid' || d.error_class === 'capability_mismatch'
      ? CANDIDATES.filter((c) => !(d.missing_capabilities ?? []).includes(c))
      : [];
  } catch (e) {
    assert.ok(e instanceof TypeError, `a refusal is a TypeError, not ${e?.name}: ${e?.message}`);
    return { refused: e };
  }
  const readings = {};
  for (const [name, r] of Object.entries(RESOLVERS)) {
    try {
      readings[name] = capabilitiesOf(r.normalizeAgentCard(object));
    } catch (e) {
      readings[name] = null;
    }
  }
  return { granted, readings };
}

/** Asserts the invariant for `object`; returns the judgement. */
function safe(label, object) {
  const j = judge(object);
  if (j.refused) return j;
  const accepting = Object.entries(j.readings).filter(([, caps]) => caps !== null);
  if (accepting.length === 0) assert.deepEqual(j.granted, [], `${label}: grants on an object every reading refuses`);
  for (const [name, caps] of accepting) {
    const lacking = j.granted.filter((c) => !caps.has(c));
    assert.deepEqual(lacking, [], `${label}: granted, but the ${name} reading lacks it`);
  }
  return j;
}

// Each mutation makes one member (or element) of a fresh card something other than plain JSON
// data; `where` is the JSON Pointer the TypeError names.
const fn = () => true;
class Box {
  constructor(v) {
    this.value = v;
  }
}
const MUTATIONS = [
  // undefined: absent for JSON.stringify, present for `in` (isLegacyAgentCard).
  ['supportsAuthenticatedExtendedCard: undefined', (c) => { c.supportsAuthenticatedExtendedCard = undefined; }, '/supportsAuthenticatedExtendedCard'],
  ['preferredTransport: undefined', (c) => { c.preferredTransport = undefined; }, '/preferredTransport'],
  ['additionalInterfaces: undefined', (c) => { c.additionalInterfaces = undefined; }, '/additionalInterfaces'],
  ['supportedInterfaces: undefined', (c) => { c.supportedInterfaces = undefined; c.url = 'https://w.example/a2a'; }, '/supportedInterfaces'],
  ['security[0].schemes: undefined', (c) => { c.security = [{ schemes: undefined }]; c.capabilities.push_notifications = true; }, '/security/0/schemes'],
  ['skills[0].security[0].schemes: undefined', (c) => { c.skills[0].security = [{ schemes: undefined }]; }, '/skills/0/security/0/schemes'],
  ['securitySchemes first value with type: undefined', (c) => { c.securitySchemes = { a: { type: undefined, scheme: 'bearer' } }; }, '/securitySchemes/a/type'],
  ['skills[1] undefined', (c) => { c.skills.push(undefined); }, '/skills/1'],
  ['securitySchemes first value undefined', (c) => { c.securitySchemes = { a: undefined, b: { bearerFormat: 'x' } }; c.capabilities.push_notifications = true; }, '/securitySchemes/a'],
  // Holes and odd values.
  ['skills with a hole', (c) => { c.skills.length = 2; }, '/skills/1'],
  // A hole and an extra member make the count of enumerable keys the length (H37).
  ['skills with a hole and an extra member', (c) => { c.skills.length = 2; c.skills.extra = 'y'; }, '/skills/1'],
  ['skills with an extra member', (c) => { c.skills.extra = 'y'; }, '/skills'],
  ['a hole first, an extra member after', (c) => { c.defaultInputModes = [, 'text/plain']; c.defaultInputModes.x = 1; }, '/defaultInputModes/0'], // eslint-disable-line no-sparse-arrays
  ['capabilities.streaming: NaN', (c) => { c.capabilities.streaming = NaN; }, '/capabilities/streaming'],
  ['version: Infinity', (c) => { c.version = Infinity; }, '/version'],
  ['capabilities.streaming: a function', (c) => { c.capabilities.streaming = fn; }, '/capabilities/streaming'],
  ['preferredTransport: a function', (c) => { c.preferredTransport = fn; }, '/preferredTransport'],
  ['capabilities.extendedAgentCard: a symbol', (c) => { c.capabilities.extendedAgentCard = Symbol('x'); }, '/capabilities/extendedAgentCard'],
  ['version: a bigint (JSON.stringify throws)', (c) => { c.version = 3n; }, null],
  // toJSON: the text would be something else than the members the SDK reads.
  ['own toJSON (another card)', (c) => { c.toJSON = () => ({ ...card(), skills: [{ id: 'task.other', tags: [] }] }); }, '/toJSON'],
  ['skill id with toJSON', (c) => { c.skills[0].id = { toJSON: () => 'task.execute.v3' }; }, '/skills/0/id/toJSON'],
  ['flag with toJSON', (c) => { c.capabilities.pushNotifications = { toJSON: () => true }; }, '/capabilities/pushNotifications/toJSON'],
  ['name: a Date', (c) => { c.name = new Date(0); }, '/name'],
  ['skills: a Set', (c) => { c.skills = new Set(c.skills); }, '/skills'],
  ['capabilities: a Map', (c) => { c.capabilities = new Map(Object.entries(c.capabilities)); }, '/capabilities'],
  ['capabilities: a class instance', (c) => { c.capabilities = Object.assign(new Box(1), c.capabilities); }, '/capabilities'],
  ['version: a boxed String', (c) => { c.version = new String('3.0.0'); }, '/version'], // eslint-disable-line no-new-wrappers
  ['skills: a Uint8Array', (c) => { c.skills = new Uint8Array(1); }, '/skills'],
  ['skills: an Array subclass', (c) => { c.skills = Object.setPrototypeOf([...c.skills], class extends Array {}.prototype); }, '/skills'],
  // Getters (stable or not), non-enumerable and inherited members.
  ['a getter (stable)', (c) => { const v = c.capabilities; Object.defineProperty(c, 'capabilities', { get: () => v, enumerable: true }); }, '/capabilities'],
  ['a getter true once, then false', (c) => {
    let n = 0;
    Object.defineProperty(c.capabilities, 'extendedAgentCard', { get: () => ++n === 1, enumerable: true });
  }, '/capabilities/extendedAgentCard'],
  ['an array element getter', (c) => { const s = c.skills[0]; Object.defineProperty(c.skills, 0, { get: () => s, enumerable: true }); }, '/skills/0'],
  ['non-enumerable additionalInterfaces', (c) => { Object.defineProperty(c, 'additionalInterfaces', { value: [], enumerable: false }); }, '/additionalInterfaces'],
  ['non-enumerable capabilities.pushNotifications', (c) => {
    Object.defineProperty(c.capabilities, 'pushNotifications', { value: true, enumerable: false });
  }, '/capabilities/pushNotifications'],
  ['inherited preferredTransport', (c) => Object.assign(Object.create({ preferredTransport: 'GRPC' }), c), ''],
  ['inherited url', (c) => Object.assign(Object.create({ url: 'https://w.example/a2a' }), c), ''],
  ['capabilities inheriting supportsAuthenticatedExtendedCard', (c) => { c.capabilities = Object.assign(Object.create({ extendedAgentCard: true }), { streaming: true }); }, '/capabilities'],
  // Proxies (Node can tell one).
  ['a Proxy (transparent)', (c) => new Proxy(c, {}), ''],
  ['a Proxy lying to JSON.stringify', (c) => {
    const p = new Proxy(c.capabilities, { ownKeys: () => ['streaming'], getOwnPropertyDescriptor: (t, k) => (k === 'streaming' ? { value: true, enumerable: true, configurable: true } : undefined) });
    c.capabilities = p;
  }, '/capabilities'],
  // A circular card.
  ['circular', (c) => { c.capabilities.self = c; }, null],
];

test('objects that are not plain JSON data are refused with a TypeError naming the member', () => {
  for (const interfaces of [true, false]) {
    for (const [label, mutate, where] of MUTATIONS) {
      const c = card(interfaces);
      const object = mutate(c) ?? c;
      const j = safe(`${label} (interfaces: ${interfaces})`, object);
      assert.ok(j.refused, `${label} (interfaces: ${interfaces}) should be refused`);
      assert.match(j.refused.message, /^card/);
      if (where !== null) assert.equal(j.refused.path, where, `${label}: ${j.refused.message}`);
      // Every entry that reads a card object refuses it alike.
      assert.throws(() => cg.cardHash(object), TypeError);
      assert.throws(() => cg.declaredCapabilities(object), TypeError);
      assert.throws(() => cg.gateAgentCard(object, { require: [] }, {}), TypeError);
      assert.throws(() => cg.compareCards(object, card(), { require: [] }, {}, {}), TypeError);
    }
  }
});

test('without the check, these objects would be unsafe: the SDK reads them differently from their JSON', () => {
  // The oracle agrees that the refusals matter: for these, JSON.stringify's text grants a
  // capability that a reading of the object itself lacks.
  const unsafe = [];
  for (const [label, mutate] of MUTATIONS) {
    const c = card(false);
    const object = mutate(c) ?? c;
    let text;
    try {
      text = JSON.stringify(object);
    } catch {
      continue;
    }
    if (typeof text !== 'string') continue;
    const d = cg.declaredCapabilities(text);
    if (!d.granted) continue;
    const lacking = Object.values(RESOLVERS).some((r) => {
      try {
        const caps = capabilitiesOf(r.normalizeAgentCard(object));
        return d.granted.some((g) => !caps.has(g));
      } catch {
        return d.granted.length > 0;
      }
    });
    if (lacking) unsafe.push(label);
  }
  for (const label of ['supportsAuthenticatedExtendedCard: undefined', 'preferredTransport: undefined',
    'non-enumerable additionalInterfaces', 'inherited preferredTransport', 'own toJSON (another card)']) {
    assert.ok(unsafe.includes(label), `${label}: expected the SDK to read the object differently (${unsafe.join('; ')})`);
  }
});

test('plain JSON data is read as its JSON text, whatever else it is', () => {
  const cases = [
    ['a plain card', card()],
    ['a card without interfaces', card(false)],
    ['null prototypes', (() => {
      const c = Object.assign(Object.create(null), card());
      c.capabilities = Object.assign(Object.create(null), c.capabilities);
      return c;
    })()],
    ['frozen', Object.freeze(card())],
    ['symbol-keyed members', Object.assign(card(), { [Symbol('x')]: 1 })],
    ['-0', Object.assign(card(), { x: -0 })],
    // A member set to undefined is absent where the SDK reads values only (TypeScript-built
    // cards, AgentCard.fromJSON's output).
    ['optional members set to undefined', (() => {
      const c = card(false);
      c.capabilities.streaming = undefined;
      c.iconUrl = undefined;
      c.url = undefined;
      c.protocolVersion = undefined;
      c.skills[0].examples = undefined;
      c.securitySchemes = { b: { type: 'http', scheme: 'bearer', bearerFormat: undefined } };
      return c;
    })()],
    ['AgentCard.fromJSON output (a proto-shaped card normalized by the SDK)', RESOLVERS.default.normalizeAgentCard(
      Object.assign(card(), { securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'bearer' } } } }))],
    ['own __proto__ from JSON.parse', JSON.parse(JSON.stringify(card()).replace('{', '{"__proto__":{"preferredTransport":"GRPC"},'))],
    ['an array-like object where a list is expected', Object.assign(card(), { skills: { 0: card().skills[0], length: 1 } })],
    ['deep unknown data (refused by the core as too deep)', Object.assign(card(), { x: JSON.parse('['.repeat(100) + ']'.repeat(100)) })],
  ];
  for (const [label, object] of cases) {
    const j = safe(label, object);
    assert.ok(!j.refused, `${label}: ${j.refused?.message}`);
    assert.equal(cg.evaluateRaw(object, { require: ['task.execute.v3'] }, {}),
      cg.evaluateRaw(JSON.stringify(object), { require: ['task.execute.v3'] }, {}), label);
  }
  assert.deepEqual(judge(card()).granted, CANDIDATES.filter((c) => !['task.other', 'binding:GRPC', 'protocol:0.3'].includes(c)));
});

test('a polluted Object.prototype.toJSON or Array.prototype.toJSON refuses every card object', () => {
  for (const proto of [Object.prototype, Array.prototype]) {
    whilePolluted(proto, 'toJSON', { value: () => ({}), writable: true }, () => {
      assert.throws(() => cg.evaluate(card(), { require: [] }, {}), TypeError);
      // Text is read as it is.
      assert.equal(cg.evaluate(JSON.stringify(card()), { require: [] }, {}).verdict, 'rejected');
    });
  }
});

test('a toJSON accessor on Object.prototype or Array.prototype refuses every card object, whatever it answers', () => {
  // A getter that hides from a read on the prototypes themselves and hands JSON.stringify a
  // toJSON for the card's own objects: the core would read {streaming: true} while both SDK
  // readings hold the card's streaming: false (found by the forty-third session's object hunt).
  const c = card();
  c.capabilities.streaming = false;
  const req = { require: ['capability:streaming'], max_stale: '10s' };
  const obs = { lag_ms: '5' };
  assert.deepEqual(cg.evaluate(c, req, obs).missing_capabilities, ['capability:streaming']);
  for (const proto of [Object.prototype, Array.prototype]) {
    for (const answer of ['hiding', 'none']) {
      const get = function () {
        if (answer === 'none' || this === Object.prototype || this === Array.prototype) return undefined;
        return this === c.capabilities ? () => ({ streaming: true }) : undefined;
      };
      whilePolluted(proto, 'toJSON', { get }, () => {
        assert.throws(() => cg.evaluate(c, req, obs), {
          name: 'TypeError',
          message: "card: Object.prototype or Array.prototype has a toJSON member, so the card's JSON text would not be its data",
        }, `${answer} getter`);
        for (const r of Object.values(RESOLVERS)) assert.equal(r.normalizeAgentCard(c).capabilities.streaming, false);
      });
    }
  }
});

test('plain card objects holding every member the presence checks look at are read as their text', () => {
  // A refusal always satisfies the SDK oracle above, so these pin acceptance: plain data in each
  // place presenceProblem and cardDataProblem look (mutants refusing such cards passed before).
  const variants = [
    ['security lists', (c) => {
      c.security = [{ schemes: { a: { list: [] } } }, { schemes: { b: { list: ['read'] } } }];
      c.skills[0].security = [{ schemes: { a: { list: [] } } }];
    }],
    ['v0.3 securitySchemes with a type', (c) => { c.securitySchemes = { a: { type: 'http', scheme: 'bearer' }, b: { type: 'apiKey', name: 'k', in: 'header' } }; }],
    ['proto securitySchemes', (c) => { c.securitySchemes = { a: { httpAuthSecurityScheme: { scheme: 'bearer' } } }; }],
    ['null-prototype objects', (c) => {
      c.capabilities = Object.assign(Object.create(null), c.capabilities);
      c.skills = [Object.assign(Object.create(null), c.skills[0])];
    }],
    ['every legacy presence member', (c) => {
      c.preferredTransport = 'JSONRPC';
      c.additionalInterfaces = [{ url: 'https://w.example/a2a', transport: 'JSONRPC' }];
      c.supportsAuthenticatedExtendedCard = false;
    }],
  ];
  for (const [label, change] of variants) {
    const c = card();
    change(c);
    const text = JSON.stringify(c);
    for (const require of [['task.execute.v3'], ['capability:streaming', 'binding:JSONRPC']]) {
      const want = cg.evaluateRaw(text, { require }, {});
      assert.equal(cg.evaluateRaw(c, { require }, {}), want, label);
      assert.equal(cg.evaluateRaw(Object.assign(Object.create(null), c), { require }, {}), want, `${label}, null-prototype card`);
    }
  }
});

test('nesting too deep for the walk, or circular, is a TypeError, not a stack overflow', () => {
  let deep = 1;
  for (let i = 0; i < 5000; i++) deep = { a: deep };
  assert.throws(() => cg.evaluate(Object.assign(card(), { x: deep }), { require: [] }, {}), TypeError);
});

test('seeded combinations: any member the SDKs read, made odd in any way, is refused or read as the SDK reads it', () => {
  // Member names the readings look at, per container.
  const NAMES = {
    '': ['supportedInterfaces', 'preferredTransport', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard', 'url',
      'protocolVersion', 'capabilities', 'skills', 'security', 'securitySchemes', 'supported_interfaces', 'version', 'name'],
    capabilities: ['streaming', 'pushNotifications', 'extendedAgentCard', 'extensions', 'push_notifications', 'extended_agent_card'],
    skill: ['id', 'tags', 'security', 'securityRequirements'],
    iface: ['protocolBinding', 'protocolVersion', 'url', 'protocol_binding', 'protocol_version'],
  };
  const VALUES = [true, false, null, 'GRPC', 'JSONRPC', '0.3', '1.0', '', [], {}, [{ schemes: {} }], [{ url: 'u', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
    { streaming: true, extendedAgentCard: true }, { b: { type: 'http', scheme: 'bearer' } }, { b: { httpAuthSecurityScheme: {} } }];
  let seed = 20261201;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pick = (xs) => xs[rand(xs.length)];
  const put = (o, k, v) => Object.defineProperty(o, k, { value: v, enumerable: true, configurable: true, writable: true });
  const odd = [
    (o, k, v) => { put(o, k, undefined); },
    (o, k, v) => { Object.defineProperty(o, k, { value: v, enumerable: false, configurable: true, writable: true }); },
    (o, k, v) => { let n = 0; Object.defineProperty(o, k, { get: () => (++n % 2 ? v : undefined), enumerable: true, configurable: true }); },
    (o, k, v) => { Object.setPrototypeOf(o, Object.assign(Object.create(Object.getPrototypeOf(o)), { [k]: v })); },
    (o, k, v) => { put(o, k, { toJSON: () => v }); },
    (o, k, v) => { put(o, k, new Date(0)); },
    (o, k, v) => { put(o, k, structuredClone(v)); }, // plain: must be read exactly
  ];
  let refused = 0;
  let read = 0;
  for (let i = 0; i < 400; i++) {
    const c = card(rand(2) === 0);
    c.securitySchemes = rand(2) ? { b: { type: 'http', scheme: 'bearer' } } : undefined;
    if (c.securitySchemes === undefined) delete c.securitySchemes;
    for (let m = 0, n = 1 + rand(3); m < n; m++) {
      const where = pick(Object.keys(NAMES));
      const target = where === '' ? c : where === 'capabilities' ? c.capabilities : where === 'skill' ? c.skills[0]
        : (c.supportedInterfaces ?? [{}])[0];
      if (target === null || typeof target !== 'object') continue;
      pick(odd)(target, pick(NAMES[where]), pick(VALUES));
    }
    const j = safe(`combination ${i}`, c);
    if (j.refused) refused++;
    else read++;
  }
  assert.ok(refused > 50 && read > 20, `refused ${refused}, read ${read}`);
});

test('every top-level member the SDK tests for presence or reads is refused on card objects when only inherited', () => {
  // Each name in PRESENCE_TOP_LEVEL and VALUE_TOP_LEVEL (js/api.js), the card's own member of
  // that name removed (mutants dropping a name from either list passed every test).
  const members = [['supportedInterfaces', [{ url: 'https://w.example/a2a', protocolBinding: 'GRPC', protocolVersion: '1.0' }]],
    ['preferredTransport', 'GRPC'], ['additionalInterfaces', [{ url: 'https://w.example/a2a', transport: 'GRPC' }]],
    ['supportsAuthenticatedExtendedCard', true], ['url', 'https://w.example/a2a'], ['protocolVersion', '0.3.0'],
    ['capabilities', { streaming: true }], ['skills', [{ id: 'task.other', name: 'n', description: 'd', tags: ['t'] }]],
    ['security', [{ schemes: {} }]], ['securitySchemes', { b: { type: 'http', scheme: 'bearer' } }]];
  for (const [k, v] of members) {
    const c = card();
    delete c[k];
    whilePolluted(Object.prototype, k, { value: v, writable: true }, () =>
      assert.throws(() => cg.evaluate(c, { require: [] }, {}), (e) => e instanceof TypeError && e.path === `/${k}`, k));
  }
});

test('a polluted Object.prototype member that isLegacyAgentCard reads is refused on card objects', () => {
  for (const [k, v] of [['preferredTransport', 'GRPC'], ['supportsAuthenticatedExtendedCard', false], ['url', 'https://w.example/a2a'],
    ['security', [{ schemes: {} }]], ['securitySchemes', { b: {} }]]) {
    whilePolluted(Object.prototype, k, { value: v, writable: true }, () => {
      const j = safe(`Object.prototype.${k}`, card(false));
      assert.ok(j.refused, `Object.prototype.${k}`);
      assert.equal(j.refused.path, `/${k}`);
    });
  }
  whilePolluted(Object.prototype, 'security', { value: [{ schemes: {} }], writable: true }, () => {
    // card.skills[0] inherits it; the top level is checked first, so make that one own.
    const c = Object.assign(card(), { security: [] });
    assert.equal(safe('inherited skill security', c).refused?.path, '/skills/0/security');
  });
  const c = card();
  c.security = [Object.create({ schemes: {} })];
  assert.equal(safe('inherited schemes', c).refused?.path, '/security/0', 'an element with a prototype is refused first');
});

// Mutation testing of js/api.js (lines 100-795, run again with the fixed harness): a card object
// holding null, or a list element or skill that is not an object, made mutants of the presence
// and plain-data walks throw (`'schemes' in null`) or refuse; a later skill's undefined schemes
// went unseen when the walk stopped at the first skill. These cards decide as their text does,
// or are refused where their text is not what the SDK reads.
test('card objects with null and non-object elements where the walks look decide as their text', () => {
  const variants = [
    ['null members', (c) => { c.description = null; c.capabilities.streaming = null; c.iconUrl = null; }],
    ['security elements that are null, a string, a number', (c) => { c.security = [null, 'x', 5, { schemes: { a: { list: [] } } }]; }],
    ["a skill's security elements that are null or a string", (c) => { c.skills[0].security = [null, 'x']; }],
    ['skills that are null, a string, a number', (c) => { c.skills.push(null, 'x', 5); }],
    ['securitySchemes null', (c) => { c.securitySchemes = null; }],
    ['securitySchemes values that are null or a string', (c) => { c.securitySchemes = { a: null, b: 'x' }; }],
  ];
  for (const [label, change] of variants) {
    const c = card();
    change(c);
    const text = JSON.stringify(c);
    for (const require of [['task.execute.v3'], ['capability:streaming', 'binding:JSONRPC']]) {
      assert.equal(cg.evaluateRaw(c, { require }, {}), cg.evaluateRaw(text, { require }, {}), label);
    }
  }
  // The second skill's security holds an undefined schemes: refused, whatever the first holds.
  const c = card();
  c.skills[0].security = [{ schemes: { a: { list: [] } } }];
  c.skills.push({ id: 'task.other', name: 'n', description: 'd', tags: [], security: [{ schemes: undefined }] });
  assert.throws(() => cg.evaluateRaw(c, { require: [] }, {}), (e) => e instanceof TypeError && e.path === '/skills/1/security/0/schemes');
});

test("a card object's TypeError says what is wrong and where, word for word", () => {
  const tail = '; an SDK would not read this object as its JSON text (pass plain JSON data, or the card\'s bytes)';
  const hidden = (value, i) => {
    const list = ['text/plain', 'text/plain'];
    Object.defineProperty(list, i, value);
    return list;
  };
  const cases = [
    ['a class instance', () => Object.assign(new Box(1), card()), '', 'an object whose prototype is not Object.prototype or null (a Date, Map, Set, class instance...)'],
    ['NaN', (c) => { c.x = NaN; }, '/x', 'the number NaN is not JSON'],
    ['a function', (c) => { c.x = fn; }, '/x', 'a function is not JSON'],
    ['an undefined element', (c) => { c.x = [1, undefined]; }, '/x/1', 'undefined is not JSON'],
    ['an Array subclass', (c) => { c.x = Object.setPrototypeOf([], class extends Array {}.prototype); }, '/x', 'an array whose prototype is not Array.prototype'],
    ['a hole', (c) => { c.x = [1, , 2]; }, '/x/1', 'a hole in an array'], // eslint-disable-line no-sparse-arrays
    ['an element that is not enumerable', (c) => { c.defaultInputModes = hidden({ value: 'x', enumerable: false }, 1); }, '/defaultInputModes/1', 'an element that is not enumerable'],
    ['an element getter', (c) => { c.defaultInputModes = hidden({ get: () => 'x', enumerable: true }, 0); }, '/defaultInputModes/0', 'a getter or setter'],
    ['an array with another member', (c) => { c.x = Object.assign([1], { y: 2 }); }, '/x', 'an array with members other than its elements'],
    ['a member that is not enumerable', (c) => { Object.defineProperty(c.capabilities, 'x', { value: 1, enumerable: false }); }, '/capabilities/x', 'a member that is not enumerable'],
    ['a name with / and ~', (c) => { c['a/b~c'] = fn; }, '/a~1b~0c', 'a function is not JSON'],
    // `now` is a clock value in an observation only: in a card it is a member like any other.
    ['a top-level now', (c) => { c.now = fn; }, '/now', 'a function is not JSON'],
    ['a nested now', (c) => { c.capabilities.now = new Date(0); }, '/capabilities/now', 'an object whose prototype is not Object.prototype or null (a Date, Map, Set, class instance...)'],
    ['an own undefined member the SDK tests', (c) => { c.preferredTransport = undefined; }, '/preferredTransport', 'undefined here is not absent: @a2a-js/sdk tests whether the member is present'],
    ['a securitySchemes value undefined', (c) => { c.securitySchemes = { a: undefined }; }, '/securitySchemes/a', 'undefined here is not absent: @a2a-js/sdk tests whether the member is present'],
  ];
  for (const [label, change, path, what] of cases) {
    const c = card();
    const object = change(c) ?? c;
    assert.throws(() => cg.evaluateRaw(object, { require: [] }, {}), (e) => e instanceof TypeError && e.input === 'card' &&
      e.path === path && e.message === `card${path === '' ? '' : ` at ${path}`}: ${what}${tail}`, label);
  }
  // Inherited through a polluted Object.prototype: read by the SDK, absent from the text.
  whilePolluted(Object.prototype, 'preferredTransport', { value: 'GRPC' }, () => {
    assert.throws(() => cg.evaluateRaw(card(), { require: [] }, {}), (e) => e instanceof TypeError && e.path === '/preferredTransport' &&
      e.message === `card at /preferredTransport: an inherited member (a polluted prototype?): @a2a-js/sdk reads it, the JSON text does not have it${tail}`);
  });
  // JSON.stringify's own TypeError, its message kept.
  assert.throws(() => cg.evaluateRaw(Object.assign(card(), { version: 3n }), { require: [] }, {}),
    (e) => e instanceof TypeError && e.message === 'card: cannot be serialized as JSON (Do not know how to serialize a BigInt)');
});

test('the walk stops at 1000 levels exactly: one level less is read as its text', () => {
  const nested = (levels) => {
    let v = 1;
    for (let i = 0; i < levels; i++) v = [v];
    return Object.assign(card(), { x: v });
  };
  // `x` is one level; its arrays the others. The core refuses the text as too deep (malformed).
  const under = nested(999);
  assert.equal(cg.evaluateRaw(under, { require: [] }, {}), cg.evaluateRaw(JSON.stringify(under), { require: [] }, {}));
  assert.throws(() => cg.evaluateRaw(nested(1000), { require: [] }, {}), (e) => e instanceof TypeError &&
    e.message.startsWith(`card at /x${'/0'.repeat(999)}: nested deeper than 1000 levels, or circular;`));
});
