// URL send check (DESIGN.md, "Which interface a client picks"; src/interface_url.rs): where the
// real SDK clients send a message, for every interface url the npm package grants. Where
// url-differential.mjs compares the URL parsers and re-implements each SDK's join of url, tenant
// and path, this builds each SDK's own client through its own factory and records the request
// it hands to its HTTP layer:
//   @a2a-js/sdk: `ClientFactory` with the real `JsonRpcTransportFactory` and
//     `RestTransportFactory`, given a recording `fetchImpl`; two setups, `default` (the default
//     resolver, factories without options) and `legacy` (`DefaultAgentCardResolver` and both
//     transport factories with `legacyCompat: {enabled: true}`, which speak 0.3 to a 0.3 pick);
//     `client.sendMessage` once; the url `fetch` is called with, read as undici does
//     (`new Request(input).url`).
//   a2a-sdk: `ClientFactory(ClientConfig(httpx_client=httpx.AsyncClient(transport=
//     httpx.MockTransport(...)), supported_protocol_bindings=[binding])).create(card)`, then
//     `send_message` once (tests/sdk_parity/py_send.py); the url as httpx holds it.
// Both recorders refuse the request after recording it, so nothing leaves the machine.
//
// The cards: for each url from url-differential.mjs's generator and each HTTP binding, one card
// whose interface for that binding has the url, sometimes a tenant (url-differential's list and
// PLAIN_TENANTS), protocolVersion "1.0" or "0.3", now and then its binding in lower case, and
// sometimes a second interface with another url, generated or plain (another binding, or the same
// binding, now and then in lower case, at "0.3", "1.0.0", "1.1" or ""). A pair is compared when
// both clients speak the same protocol version (a2a-sdk speaks 0.3 to a 0.3 pick, @a2a-js/sdk's
// default transports 1.0 to any; for JSON-RPC the place is the url either way, for REST the path
// is the version's): every granted pair must be built by both and handed to the HTTP layer by
// both, for the same scheme, host, port and request target. Refused pairs that both send alike are
// counted (over-strict). Two kinds of granted pair that send apart are counted and listed on their
// own (allowed by design, DESIGN.md "Which interface a client picks"): `wireApart`, one place but only one HTTP
// layer sends (`ws:`/`wss:` urls: undici refuses the scheme, httpx sends HTTP or HTTPS to the
// host); `picksApart`, the two factories picked different interfaces of the card (each noted by a
// wrapper around the real transport factory / producer) and send to their different urls.
// `--strict` counts both as unsafe.
// Every fourth card is also asked in a folded spelling (FOLDED: `J\u017fONRPC`, `HTTP+J\u017fON`,
// U+017F long s, which `toUpperCase` makes `S`) on its interfaces of that binding and in the
// requirement: @a2a-js/sdk's factories find the same transport and interface for it and send
// alike, so a folded grant where the plain spelling is refused and the JS clients send alike is
// unsafe too (the gate must not read the url by looser rules for a spelling @a2a-js/sdk folds).
//
//   node tests/node/url-send.mjs [--count N] [--seed S] [--pkg DIR] [--python PY] [--samples] [--strict]
//
// The fixed-seed run is url-send.test.mjs.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { cliOptions, generate, rng, TENANTS } from './url-differential.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BINDINGS = ['JSONRPC', 'HTTP+JSON'];
const FOLDED = { JSONRPC: 'J\u017fONRPC', 'HTTP+JSON': 'HTTP+J\u017fON' };
// Tenants the gate keeps for REST, beside url-differential's list (mostly ones it refuses).
const PLAIN_TENANTS = ['acme', 'eu-west-1', 'a.b', 'T~_x', '(a)*!', 'a..b', '...', '-', '_'];
const DEFAULT_PORT = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };

// Which protocol version each client speaks to a pick at `v` (DESIGN.md: the gate checks the
// declared version; which one the client speaks is the caller's, stated with `protocol:`).
export function pep440Legacy(v) {
  // a2a-sdk: packaging's Version(v) in [0.3, 1.0); only the spellings this list uses.
  if (!v) return false;
  const m = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?((?:a|b|c|rc|\.dev|\.post)\d*)?\s*$/i.exec(v);
  if (!m) return false;
  const [maj, min, , pre] = [Number(m[1]), Number(m[2]), m[3], m[4]];
  const isPre = pre !== undefined && !/^\.post/i.test(pre);
  if (maj === 0) return min > 3 || (min === 3 && !(isPre && m[3] === undefined));
  return maj === 1 && min === 0 && isPre && (m[3] === undefined || Number(m[3]) === 0);
}
export function jsLegacy(v) {
  // @a2a-js/sdk isLegacyVersion: "" or whitespace, or parseInt'd major.minor in [0.3, 1.0).
  if (!v || v.trim() === '') return true;
  const [a, b] = v.trim().split('.');
  const maj = Number.parseInt(a, 10);
  const min = b === undefined ? 0 : Number.parseInt(b, 10);
  if (!Number.isFinite(maj) || !Number.isFinite(min) || maj < 0 || min < 0) return false;
  return maj === 0 && min >= 3;
}

/** The cards: `count` urls times the two bindings. */
export function cards(count, seed) {
  const urls = generate(count, seed);
  const r = rng(seed + 7);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const out = [];
  for (const url of urls) {
    for (const binding of BINDINGS) {
      const tenant = r() < 0.5 ? undefined : pick(r() < 0.5 ? TENANTS : PLAIN_TENANTS);
      const version = r() < 0.75 ? '1.0' : '0.3';
      // Now and then spelled in lower case: @a2a-js/sdk matches it, a2a-sdk does not.
      const spelled = r() < 0.1 ? binding.toLowerCase() : binding;
      const picked = { url, protocolBinding: spelled, protocolVersion: version, ...(tenant === undefined ? {} : { tenant }) };
      const interfaces = [picked];
      if (r() < 0.3) {
        // Another interface, with another generated url or a plain one: another binding, or the
        // same one (now and then in lower case) at a version the SDKs may rank differently.
        const same = r() < 0.6;
        const other = {
          url: r() < 0.5 ? pick(urls) : pick(['https://other.example/a2a', 'http://10.0.0.2:8080/', 'wss://other.example/v1']),
          protocolBinding: same ? (r() < 0.2 ? binding.toLowerCase() : binding) : 'GRPC',
          protocolVersion: pick(['0.3', '0.3', '1.0.0', '1.1', '']),
        };
        if (r() < 0.5) interfaces.unshift(other);
        else interfaces.push(other);
      }
      const card = {
        name: 'w', description: 'd', version: '1.0.0', capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [],
        supportedInterfaces: interfaces,
      };
      out.push({ id: out.length, binding, url, tenant, version, decoy: interfaces.length > 1, card });
    }
  }
  return out;
}

/** `e` with its binding spelled as FOLDED has it, on the interfaces spelling it exactly and in
 * the requirement. */
function folded(e) {
  const binding = FOLDED[e.binding];
  const card = structuredClone(e.card);
  // A card in the v1.0 shape names bindings in supportedInterfaces; one in the v0.3 shape (no
  // list, or a null one beside the legacy members) in preferredTransport and
  // additionalInterfaces[].transport.
  if (Array.isArray(card.supportedInterfaces)) {
    for (const i of card.supportedInterfaces) if (i?.protocolBinding === e.binding) i.protocolBinding = binding;
  }
  if (card.preferredTransport === e.binding) card.preferredTransport = binding;
  if (Array.isArray(card.additionalInterfaces)) {
    for (const i of card.additionalInterfaces) if (i?.transport === e.binding) i.transport = binding;
  }
  return { ...e, binding, card };
}

/** A url `fetch` was called with, as undici reads it (`new Request(input).url`). */
function undici(input) {
  try {
    const x = new URL(new Request(input).url);
    return {
      ok: true, scheme: x.protocol.slice(0, -1), host: x.hostname, port: x.port || DEFAULT_PORT[x.protocol] || '',
      target: x.pathname + x.search, wire: x.protocol === 'http:' || x.protocol === 'https:',
    };
  } catch (e) {
    return { ok: false, why: String(e.message).slice(0, 200), input: String(input) };
  }
}

class Recorded extends Error {}

/** @a2a-js/sdk's real `ClientFactory`s by `"<setup> <binding>"`: setup `default` (the real
 * JSON-RPC and REST transport factories without options) and `legacy` (both with
 * `legacyCompat`, and the default resolver with it), each transport factory given `fetchImpl`
 * and passed through `wrap` (which may note the url the pick hands it). */
export function jsFactories(bindings, fetchImpl, wrap = (f) => f) {
  const legacyCompat = { enabled: true };
  const factories = {};
  for (const binding of bindings) {
    factories[`default ${binding}`] = new ClientFactory({
      transports: [wrap(new JsonRpcTransportFactory({ fetchImpl })), wrap(new RestTransportFactory({ fetchImpl }))],
      preferredTransports: [binding],
    });
    factories[`legacy ${binding}`] = new ClientFactory({
      transports: [wrap(new JsonRpcTransportFactory({ fetchImpl, legacyCompat })), wrap(new RestTransportFactory({ fetchImpl, legacyCompat }))],
      preferredTransports: [binding],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
    });
  }
  return factories;
}

/** @a2a-js/sdk's real clients, one factory per setup and binding; `send(setup, entry)` builds a
 * client from the card and sends one message, returning what `fetch` was called with. */
function jsClients() {
  const calls = [];
  // The real transport factories, each behind a wrapper noting the url the ClientFactory's pick
  // hands it (which interface was picked).
  const picked = [];
  const noting = (f) => ({
    get protocolName() { return f.protocolName; },
    create(url, card) {
      picked.push(url);
      return f.create(url, card);
    },
  });
  const fetchImpl = async (input) => {
    calls.push(undici(input));
    throw new Recorded('recorded');
  };
  const factories = jsFactories([...BINDINGS, ...Object.values(FOLDED)], fetchImpl, noting);
  const message = { messageId: 'm1', role: 1, parts: [{ content: { $case: 'text', value: 'hi' } }] };
  return async (setup, entry) => {
    calls.length = 0;
    picked.length = 0;
    const out = { built: false };
    let client;
    try {
      client = await factories[`${setup} ${entry.binding}`].createFromAgentCard(structuredClone(entry.card));
      out.built = true;
      await client.sendMessage({ message });
    } catch (e) {
      if (!(e instanceof Recorded) && !(e?.cause instanceof Recorded) && calls.length === 0) out.error = `${e?.name}: ${e?.message}`.slice(0, 200);
    }
    out.sent = [...calls];
    out.picked = [...picked];
    return out;
  };
}

function pySend(entries, python) {
  const input = entries.map((e) => JSON.stringify({ id: e.id, binding: e.binding, card: e.card })).join('\n') + '\n';
  const r = spawnSync(python, [join(ROOT, 'tests/sdk_parity/py_send.py')], { input, maxBuffer: 1 << 28, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`a2a-sdk sender failed: ${r.stderr}`);
  const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  if (out.length !== entries.length) throw new Error(`a2a-sdk sender answered ${out.length} of ${entries.length}`);
  return out;
}

const place = (s) => `${s.scheme}://${s.host}:${s.port}${s.target}`;

/** `same`: both clients built and handed one request each to their HTTP layer, for one place,
 * and both HTTP layers send it (or both refuse it); `wire`: one place, but only one HTTP layer
 * puts it on the wire (undici refuses `ws:`/`wss:`, "unknown scheme"; httpx sends them as HTTP);
 * `apart`: anything else. */
function compare(js, py) {
  if (!(js.built && py.built && js.sent.length === 1 && py.sent.length === 1 && js.sent[0].ok && py.sent[0].ok)) return 'apart';
  if (place(js.sent[0]) !== place(py.sent[0])) return 'apart';
  return js.sent[0].wire === py.sent[0].wire ? 'same' : 'wire';
}

export async function run(options = {}) {
  const o = { count: 3000, seed: 1, ...options };
  return check(cards(o.count, o.seed), o);
}

/** The comparison for given entries (`{id, binding, card, url?, tenant?, version?, decoy?}`, ids
 * 0, 1, ...; `version` "1.0" unless said). */
export async function check(entries, options = {}) {
  const o = { pkg: join(ROOT, 'pkg'), python: join(ROOT, '.tools/py/bin/python'), ...options };
  const started = Date.now();
  const cg = createRequire(import.meta.url)(join(o.pkg, 'node', 'index.cjs'));
  const py = pySend(entries, o.python);
  const send = jsClients();
  const zero = () => ({ JSONRPC: 0, 'HTTP+JSON': 0 });
  const stats = {
    cards: entries.length, granted: zero(), grantedTenant: 0, grantedDecoy: 0, grantedAt03: 0,
    compared: 0, grantedCompared: zero(), folded: 0, grantedFolded: 0, notSameVersion: 0, sentApart: zero(), overStrict: zero(), grantedWire: 0, grantedNoWire: 0, grantedWireApart: zero(), grantedPicksApart: zero(), grantedSpokenApart: 0, ms: 0,
  };
  const unsafe = [];
  const wireApart = [];
  const picksApart = [];
  for (const e of entries) {
    const d = cg.evaluate(e.card, { require: [`binding:${e.binding}`], max_stale: '10s' }, { lag_ms: 0 });
    const granted = d.verdict === 'valid';
    if (granted) {
      stats.granted[e.binding] += 1;
      if (e.tenant && e.binding === 'HTTP+JSON') stats.grantedTenant += 1;
      if (e.decoy) stats.grantedDecoy += 1;
      if (e.version === '0.3') stats.grantedAt03 += 1;
    }
    const p = py[e.id];
    for (const setup of ['default', 'legacy']) {
      // @a2a-js/sdk's default transports speak 1.0 to a 0.3 pick, a2a-sdk 0.3: the same place
      // for JSON-RPC, another REST path by design (the version is the caller's `protocol:`).
      if (setup === 'default' && (e.version ?? '1.0') !== '1.0' && e.binding === 'HTTP+JSON') {
        stats.notSameVersion += 1;
        continue;
      }
      const js = await send(setup, e);
      stats.compared += 1;
      let how = compare(js, p);
      if (how !== 'same' && js.picked.length === 1 && p.picked.length === 1 && js.picked[0] !== p.picked[0]) how = 'picks';
      // The same interface, spoken at different protocol versions (a2a-sdk's 0.3 transport for
      // 0.3 <= v < 1.0, @a2a-js/sdk's legacyCompat one for "" and [0.3, 1.0), its default ones
      // never): allowed by design, the caller states its version with `protocol:` (DESIGN.md).
      if (how === 'apart' && js.picked.length === 1 && p.picked.length === 1 && js.picked[0] === p.picked[0]) {
        const v = (e.card.supportedInterfaces ?? []).find((i) => i.url === js.picked[0])?.protocolVersion;
        if (typeof v === 'string' && pep440Legacy(v) !== (setup === 'legacy' && jsLegacy(v))) how = 'spoken';
      }
      const same = how === 'same';
      if (!same && (js.sent.some((s) => s.ok) || p.sent.some((s) => s.ok))) stats.sentApart[e.binding] += 1;
      if (granted) {
        stats.grantedCompared[e.binding] += 1;
        if (same) stats[js.sent[0].wire ? 'grantedWire' : 'grantedNoWire'] += 1;
        const found = { setup, binding: e.binding, url: e.url, tenant: e.tenant, version: e.version, interfaces: e.card.supportedInterfaces, js, py: p };
        if (how === 'wire') {
          stats.grantedWireApart[e.binding] += 1;
          wireApart.push(found);
        } else if (how === 'picks') {
          stats.grantedPicksApart[e.binding] += 1;
          picksApart.push(found);
        } else if (how === 'spoken') {
          stats.grantedSpokenApart += 1;
        }
        if (how === 'apart' || (how !== 'same' && o.strict)) unsafe.push(found);
      } else if (same) {
        stats.overStrict[e.binding] += 1;
        if (o.samples) o.samples.push(`${setup} ${e.binding} ${JSON.stringify(e.url)} tenant=${JSON.stringify(e.tenant)} -> ${place(js.sent[0])}`);
      }
      if (e.id % 4 === 0 && FOLDED[e.binding]) {
        const f = folded(e);
        stats.folded += 1;
        const fd = cg.evaluate(f.card, { require: [`binding:${f.binding}`], max_stale: '10s' }, { lag_ms: 0 });
        if (fd.verdict === 'valid') {
          stats.grantedFolded += 1;
          const fjs = await send(setup, f);
          const alike = JSON.stringify([fjs.built, fjs.sent]) === JSON.stringify([js.built, js.sent]);
          if (!granted && alike) unsafe.push({ setup, binding: f.binding, url: e.url, tenant: e.tenant, version: e.version, interfaces: f.card.supportedInterfaces, js: fjs, py: 'plain spelling refused' });
        }
      }
    }
  }
  stats.ms = Date.now() - started;
  return { stats, unsafe, wireApart, picksApart };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const o = cliOptions(process.argv, { '--samples': () => [], '--strict': () => true });
  const { stats, unsafe, wireApart, picksApart } = await run(o);
  console.log(JSON.stringify(stats));
  for (const u of wireApart.slice(0, 4)) console.log('WIRE-APART', JSON.stringify(u));
  for (const u of picksApart.slice(0, 10)) console.log('PICKS-APART', JSON.stringify(u));
  for (const s of (o.samples ?? []).slice(0, 40)) console.log('OVER-STRICT', s);
  for (const u of unsafe.slice(0, 20)) console.log('UNSAFE', JSON.stringify(u));
  console.log(`${unsafe.length} granted (card, binding, setup) the real clients send apart`);
  process.exitCode = unsafe.length ? 1 : 0;
}
