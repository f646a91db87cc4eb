// URL adversarial list (DESIGN.md, "Which interface a client picks"; src/interface_url.rs): a
// hand-written list of cards, each with the binding required and the gate's expected answer, put
// through the real SDK clients two ways:
//   recorded: url-send.mjs's machinery (@a2a-js/sdk's ClientFactory with a recording fetchImpl,
//     default and legacyCompat setups; a2a-sdk's ClientFactory on an httpx MockTransport);
//   wire: for the cards whose url is on this machine (127.0.0.1, [::1] in several spellings,
//     localhost), a real HTTP server on a loopback port, @a2a-js/sdk's client with Node's own
//     fetch and a2a-sdk's with a plain httpx client (py_send.py --wire); the server records the
//     request line each one puts on the wire (and its Host header, reported, not compared).
// For every card the gate grants, both clients must send to the same place, except the kinds
// DESIGN.md allows: ws:/wss: (only httpx sends), different interfaces picked without
// `protocol:`, and the same interface spoken at different protocol versions without `protocol:`
// (each SDK's rule for its 0.3 transport: a2a-sdk for 0.3 <= v < 1.0 by PEP 440, so `1.0rc1`
// and `0.9` get 0.3 and `""` gets 1.0; @a2a-js/sdk's legacyCompat factories for `""` and for
// major.minor in [0.3, 1.0), its default ones never). The angles: hosts (IPv6 spellings,
// leading-zero ports, `_`, empty and long labels, trailing dots, names ending in digits), path
// and query characters (`%25`, escapes in either case, `;`, `[`, `]`, `@`, `:`, `//` after the
// authority, dot-like segments, a 9,000-character path), REST tenants at the edge of the allowed
// set, v0.3-shaped cards (`url`, `preferredTransport`, `additionalInterfaces`) and versions at
// the edge of each SDK's 0.3 rule.
//
//   node tests/node/url-adv.mjs [--pkg DIR] [--python PY] [--no-wire]
//
// The test is url-adv.test.mjs.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { check, jsLegacy, pep440Legacy } from './url-send.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BASE = { name: 'w', description: 'd', version: '1.0.0', capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [] };
const card = (interfaces) => ({ ...BASE, supportedInterfaces: interfaces });
const one = (url, binding, version = '1.0', tenant) => card([{ url, protocolBinding: binding, protocolVersion: version, ...(tenant === undefined ? {} : { tenant }) }]);
// A v0.3-shaped card: the legacy members only.
const legacy = (url, preferredTransport, additionalInterfaces) => ({
  ...BASE, protocolVersion: '0.3.0', url, ...(preferredTransport === undefined ? {} : { preferredTransport }),
  ...(additionalInterfaces ? { additionalInterfaces } : {}),
});

/** The list. `{angle, binding, card, expect: 'valid' | 'rejected', wire?: true}`; urls on this
 * machine use `PORT`, replaced by the wire server's port. */
export function cases() {
  const out = [];
  const add = (angle, binding, c, expect, extra = {}) => out.push({ angle, binding, card: c, expect, ...extra });
  const both = (angle, url, expect, extra) => {
    for (const b of ['JSONRPC', 'HTTP+JSON']) {
      const e = typeof expect === 'string' ? expect : expect[b];
      add(angle, b, one(url, b), e, extra);
      add(angle, b, one(url, b, '0.3'), e, extra);
    }
  };
  // Hosts.
  // IPv6 literals only in the form WHATWG writes (fetch sends that form in Host, httpx the text
  // as written; found by this list): lower case, no leading zeros, the first longest zero run
  // compressed, no dotted part.
  for (const u of ['http://[::1.2.3.4]/', 'http://[1:2:3:4:5:6:7::]/', 'http://[::1:2:3:4:5:6:7]/', 'http://[1:2:3:4:5:6:1.2.3.4]/',
    'http://[::FFFF:AbCd]/', 'http://[0000:0000::0001]/', 'http://[::ffff:0.0.0.0]/', 'http://[0:0::1]/', 'http://[::FFFF:7F00:1]/',
    'http://[2001:db8:0:0:1:0:0:1]/']) both('host', u, 'rejected');
  for (const u of ['http://[1:2:3:4:5:6:7:0]/', 'http://[0:1:2:3:4:5:6:7]/', 'http://[::ffff:abcd]/', 'http://[2001:db8::1:0:0:1]/',
    'http://[::]/', 'http://[::1]:080/',
    'http://[::1]:00080/x', 'http://a.example:00443/', 'https://a.example:00443/', 'wss://a.example:0443/', 'http://0.0.0.0/',
    'http://255.255.255.255/', 'http://localhost./', 'http://LOCALHOST/', 'http://a_b/', 'http://_/', 'http://-/', 'http://a-.example/',
    `http://${'a'.repeat(64)}.example/`, `http://${`${'a'.repeat(60)}.`.repeat(5)}example/`, 'http://a..b/', 'http://..a/', 'http://1.example/',
    'http://e/', 'HtTp://A.EXAMPLE/A']) both('host', u, 'valid');
  for (const u of ['http://[::ffff:1.2.3.04]/', 'http://127.0.0.1./', 'http://a.example../', 'http://0/', 'http://a.b.c.1/',
    'http://example.1a/', 'http://x.0/', 'http://x.09/', 'http://x.0x/', 'http://x.9z/', 'http://[fe80::1%25lo]/', 'http://a.example:0/',
    'http://a.example:065536/', 'http://a.example:000080/']) both('host', u, 'rejected');
  // Paths and queries.
  for (const u of ['http://a.example/%25', 'http://a.example/%2525', 'http://a.example/%7e%7E', 'http://a.example/%2F%2f', 'http://a.example/a;b=c;d',
    'http://a.example/;', 'http://a.example/[::1]', 'http://a.example/@a:b@', 'http://a.example//x', 'http://a.example/x/.a/..a/a./a../...',
    'http://a.example/a%2F..%2Fb', 'http://a.example/%C3%A9', 'http://a.example/%c3%a9', 'http://a.example/%00', 'http://a.example/%0A',
    `http://a.example/${'x'.repeat(9000)}`]) both('path', u, 'valid');
  for (const u of ['http://a.example//', 'http://a.example///', 'http://a.example/?a=%25&b=[]', 'http://a.example/?/../x', 'http://a.example/??',
    'http://a.example/?a#b?c', 'http://a.example:8080?x=1', 'http://a.example#f', 'http://a.example/#?']) both('path', u, { JSONRPC: 'valid', 'HTTP+JSON': 'rejected' });
  for (const u of ['http://a.example/%2e', 'http://a.example/.%2E', 'http://a.example/?#', 'http://a.example?', 'http://a.example/a/b/c/../',
    'http://a.example/#%2e', 'http://a.example/?%2e%2E']) both('path', u, 'rejected');
  // REST tenants.
  for (const t of ['*', '!', '(', ')', '~', '-', 'a.', '.a', '...', '..a', 'a..', '~~', '()', '*!', '_.', '.~', 'A', 'a-']) {
    for (const u of ['https://a.example/a2a', 'https://a.example', 'https://a.example/v1/']) add('tenant', 'HTTP+JSON', one(u, 'HTTP+JSON', '1.0', t), 'valid');
  }
  for (const t of ['.', '..', "'", 'a/b', '%41', 'a b', 'a;b', '\u00e9']) add('tenant', 'HTTP+JSON', one('https://a.example/a2a', 'HTTP+JSON', '1.0', t), 'rejected');
  // Versions at the edge of each SDK's 0.3 rule (same interface, no protocol:).
  for (const v of ['1.0rc1', '1.0.dev0', '1.0a1', '1.0.0rc1', '0.9', '', '1.0.post1', '1', '0.3.1', '0.4']) {
    for (const b of ['JSONRPC', 'HTTP+JSON']) add('version', b, one('https://a.example/a2a/', b, v), 'valid');
  }
  // v0.3-shaped cards: the legacyCompat resolver converts them, the default one does not (its
  // client has no interface), so the gate grants them no binding (DESIGN.md); nor the mixed
  // shapes one SDK converts and the other does not (`supportedInterfaces: []` or `null` beside
  // the legacy members: @a2a-js/sdk's legacyCompat resolver converts, a2a-sdk keeps none).
  for (const u of ['https://a.example/a2a', 'https://a.example/a2a/', 'https://a.example', 'http://[::1]:8080/v1/']) {
    add('v0.3 card', 'JSONRPC', legacy(u), 'rejected');
    add('v0.3 card', 'JSONRPC', legacy(u, 'JSONRPC'), 'rejected');
    add('v0.3 card', 'HTTP+JSON', legacy(u, 'HTTP+JSON'), 'rejected');
    add('v0.3 card', 'HTTP+JSON', legacy('https://other.example/', 'JSONRPC', [{ url: u, transport: 'HTTP+JSON' }]), 'rejected');
    for (const si of [[], null]) {
      add('v0.3 card', 'JSONRPC', { ...legacy(u, 'JSONRPC'), supportedInterfaces: si }, 'rejected');
      add('v0.3 card', 'HTTP+JSON', { ...legacy(u, 'HTTP+JSON'), supportedInterfaces: si }, 'rejected');
    }
    // Both shapes: a2a-sdk keeps supportedInterfaces (and drops the legacy members), so does
    // @a2a-js/sdk (a non-empty list is not a legacy card).
    for (const b of ['JSONRPC', 'HTTP+JSON']) {
      add('v0.3 card', b, { ...legacy('https://legacy.example/x', b, [{ url: 'https://legacy.example/y', transport: b }]), supportedInterfaces: [{ url: u, protocolBinding: b, protocolVersion: '1.0' }] }, 'valid');
    }
  }
  // On the wire.
  const wire = (url, expect, tenant) => {
    for (const b of ['JSONRPC', 'HTTP+JSON']) {
      const e = typeof expect === 'string' ? expect : expect[b];
      add('wire', b, one(url, b, '1.0', b === 'HTTP+JSON' ? tenant : undefined), e, { wire: true });
      add('wire', b, one(url, b, '0.3'), e, { wire: true });
    }
  };
  for (const h of ['127.0.0.1', '[::1]', 'localhost', 'localhost.', 'LocalHost']) {
    wire(`http://${h}:PORT/a2a`, 'valid');
    wire(`http://${h}:0PORT/`, 'valid');
  }
  // Non-canonical IPv6 spellings of the same socket: refused (different Host headers).
  for (const h of ['[0:0::1]', '[0000::0001]', '[::ffff:127.0.0.1]', '[::FFFF:7F00:1]']) {
    wire(`http://${h}:PORT/a2a`, 'rejected');
    wire(`http://${h}:0PORT/`, 'rejected');
  }
  for (const p of ['/a;b=c', '/%25/%2525', '/%7e%7E%2f', '/[x]/@:/!$&()*+,=', '//x', '/x/.a/a./...', '/%C3%A9/%00', `/${'y'.repeat(9000)}`, '', '/', '/v1/']) {
    wire(`http://127.0.0.1:PORT${p}`, 'valid', '(a)*!~-._');
  }
  for (const q of ['?a=[]&b=%25', '?x=/y/../z', '?@:/?', '#f', '?q#f']) wire(`http://127.0.0.1:PORT/a2a${q}`, { JSONRPC: 'valid', 'HTTP+JSON': 'rejected' });
  for (const t of ['*', '!', '(', ')', '~', '-', 'a.', '.a', '...']) add('wire', 'HTTP+JSON', one('http://127.0.0.1:PORT/a2a/', 'HTTP+JSON', '1.0', t), 'valid', { wire: true });
  return out;
}

const withPort = (c, port) => JSON.parse(JSON.stringify(c.card).replaceAll(':0PORT', `:0${port}`).replaceAll(':PORT', `:${port}`));

/** The picked interface's declared version, when the card has one interface for the binding. */
function declaredVersion(c) {
  const list = c.card.supportedInterfaces;
  if (!list) return '0.3'; // a v0.3-shaped card: every interface the conversions make is at 0.3
  const mine = list.filter((i) => i.protocolBinding?.toUpperCase() === c.binding);
  return mine.length === 1 ? mine[0].protocolVersion : undefined;
}

/** Whether the two clients speak the same protocol version to this card in this setup. */
function sameSpoken(c, setup) {
  const v = declaredVersion(c);
  if (v === undefined) return true;
  const py = pep440Legacy(v);
  const js = setup === 'legacy' ? jsLegacy(v) : false;
  return py === js;
}

/** The recorded run: the gate's answer for each case, and url-send's comparison. */
async function recorded(list, o) {
  const entries = list.map((c, id) => ({ id, binding: c.binding, card: withPort(c, 8080), url: c.card.supportedInterfaces?.[0]?.url ?? c.card.url, version: '1.0' }));
  const cg = createRequire(import.meta.url)(join(o.pkg, 'node', 'index.cjs'));
  const wrong = [];
  for (const [i, c] of list.entries()) {
    const d = cg.evaluate(entries[i].card, { require: [`binding:${c.binding}`], max_stale: '10s' }, { lag_ms: 0 });
    if (d.verdict !== c.expect) wrong.push(`${c.angle} ${c.binding} ${JSON.stringify(entries[i].card).slice(0, 300)}: gate ${d.verdict}, listed ${c.expect}`);
  }
  const r = await check(entries, o);
  const byId = (u) => entries.findIndex((e) => e.card.supportedInterfaces === u.interfaces || (e.card.supportedInterfaces && JSON.stringify(e.card.supportedInterfaces) === JSON.stringify(u.interfaces)));
  // The same interface spoken at different versions (allowed, DESIGN.md) is set apart.
  const spokenApart = [];
  const unsafe = [];
  for (const u of r.unsafe) {
    const i = byId(u);
    const c = i >= 0 ? list[i] : undefined;
    if (c && !sameSpoken(c, u.setup)) spokenApart.push(u);
    else unsafe.push(u);
  }
  return { stats: r.stats, wrong, unsafe, spokenApart, wireApart: r.wireApart, picksApart: r.picksApart };
}

/** The wire run: a loopback server, both real clients sending through their own HTTP stacks. */
async function onTheWire(list, o) {
  const arrived = new Map();
  const server = createServer((req, res) => {
    const id = req.headers['x-case'];
    const key = `${id} ${req.headers['x-by'] ?? 'py'}`;
    if (!arrived.has(key)) arrived.set(key, []);
    arrived.get(key).push({ method: req.method, target: req.url, host: req.headers.host });
    req.resume();
    req.on('end', () => { res.writeHead(500, { 'content-type': 'application/json', connection: 'close' }); res.end('{}'); });
  });
  server.maxHeaderSize = 64 * 1024;
  // A four-digit port, so that `:0PORT` is five digits, and not one the Fetch standard's "bad
  // port" list blocks in that range: fetch refuses to connect there, so the JS clients would send
  // nothing (seen: 4045 in a CI run).
  const BLOCKED = new Set([2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697]);
  let port;
  for (let tries = 0; port === undefined && tries < 50; tries++) {
    const p = 2000 + Math.floor(Math.random() * 7000);
    if (BLOCKED.has(p)) continue;
    port = await new Promise((ok) => {
      server.once('error', () => ok(undefined));
      server.listen({ port: p, host: '::', ipv6Only: false }, () => ok(p));
    });
  }
  if (port === undefined) throw new Error('no loopback port');
  try {
    const entries = list.map((c, id) => ({ id, binding: c.binding, card: withPort(c, port) }));
    const py = new Promise((ok, fail) => {
      const child = spawn(o.python, [join(ROOT, 'tests/sdk_parity/py_send.py'), '--wire']);
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { err += d; });
      child.on('close', (code) => (code === 0 ? ok(out) : fail(new Error(`a2a-sdk sender failed: ${err}`))));
      child.stdin.end(entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    });
    const message = { messageId: 'm1', role: 1, parts: [{ content: { $case: 'text', value: 'hi' } }] };
    for (const setup of ['default', 'legacy']) {
      for (const e of entries) {
        const fetchImpl = (input, init = {}) => {
          const headers = new Headers(init.headers);
          headers.set('x-case', String(e.id));
          headers.set('x-by', setup);
          return fetch(input, { ...init, headers });
        };
        const legacyCompat = setup === 'legacy' ? { enabled: true } : undefined;
        const factory = new ClientFactory({
          transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat }), new RestTransportFactory({ fetchImpl, legacyCompat })],
          preferredTransports: [e.binding],
          ...(legacyCompat ? { cardResolver: new DefaultAgentCardResolver({ legacyCompat }) } : {}),
        });
        try {
          const client = await factory.createFromAgentCard(structuredClone(e.card));
          await client.sendMessage({ message });
        } catch { /* the server answers 500 */ }
      }
    }
    await py;
  } finally {
    await new Promise((ok) => server.close(ok));
  }
  const cg = createRequire(import.meta.url)(join(o.pkg, 'node', 'index.cjs'));
  const apart = [];
  const spokenApart = [];
  const stats = { cases: list.length, granted: 0, compared: 0, bothArrived: 0, bothRefused: 0, hostHeaderApart: 0 };
  const hostApart = [];
  for (const [id, c] of list.entries()) {
    const cardHere = withPort(c, port);
    const granted = cg.evaluate(cardHere, { require: [`binding:${c.binding}`], max_stale: '10s' }, { lag_ms: 0 }).verdict === 'valid';
    if (!granted) continue;
    stats.granted += 1;
    const p = arrived.get(`${id} py`) ?? [];
    for (const setup of ['default', 'legacy']) {
      const j = arrived.get(`${id} ${setup}`) ?? [];
      stats.compared += 1;
      const line = (x) => x.map((r) => `${r.method} ${r.target}`).join(' | ');
      if (j.length === 0 && p.length === 0) {
        // Neither reaches the server (`localhost.`: /etc/hosts has no entry with the dot, and
        // both resolve through getaddrinfo): both refuse alike.
        stats.bothRefused += 1;
      } else if (line(j) !== line(p) || j.length !== 1) {
        (sameSpoken(c, setup) ? apart : spokenApart).push({ id, setup, binding: c.binding, card: cardHere, js: j, py: p });
      } else {
        stats.bothArrived += 1;
        if (j[0].host !== p[0].host) {
          stats.hostHeaderApart += 1;
          hostApart.push(`${c.binding} ${cardHere.supportedInterfaces[0].url}: Host ${j[0].host} / ${p[0].host}`);
        }
      }
    }
  }
  return { stats, apart, spokenApart, hostApart };
}

export async function run(options = {}) {
  const o = { pkg: join(ROOT, 'pkg'), python: join(ROOT, '.tools/py/bin/python'), wire: true, ...options };
  const started = Date.now();
  const list = cases();
  const rec = await recorded(list, o);
  const wire = o.wire ? await onTheWire(list.filter((c) => c.wire), o) : undefined;
  return { cases: list.length, rec, wire, ms: Date.now() - started };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const o = {};
  for (let i = 2; i < process.argv.length; i += 1) {
    const k = process.argv[i];
    if (k === '--pkg') o.pkg = resolve(process.argv[++i]);
    else if (k === '--python') o.python = process.argv[++i];
    else if (k === '--no-wire') o.wire = false;
    else throw new Error(`unknown argument ${k}`);
  }
  const r = await run(o);
  console.log(JSON.stringify({ cases: r.cases, recorded: r.rec.stats, wire: r.wire?.stats, ms: r.ms }));
  for (const w of r.rec.wrong) console.log('GATE-ANSWER', w);
  for (const u of r.rec.unsafe) console.log('UNSAFE', JSON.stringify(u).slice(0, 1200));
  for (const u of r.rec.spokenApart.filter((x) => !(x.setup === 'default' && x.interfaces?.[0]?.protocolVersion === '0.3'))) console.log('SPOKEN-APART', u.setup, u.binding, JSON.stringify(u.interfaces), u.js.sent[0]?.target, u.py.sent[0]?.target);
  for (const u of r.wire?.apart ?? []) console.log('WIRE-UNSAFE', JSON.stringify(u).slice(0, 1200));
  for (const h of r.wire?.hostApart ?? []) console.log('HOST-HEADER', h);
  const bad = r.rec.wrong.length + r.rec.unsafe.length + (r.wire?.apart.length ?? 0) + (r.wire?.hostApart.length ?? 0);
  console.log(`${bad} cases wrong or sent apart`);
  process.exitCode = bad ? 1 : 0;
}
