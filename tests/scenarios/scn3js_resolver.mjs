// Third review, JavaScript surface: CardGateResolver / resolveAgentCard with the real
// @a2a-js/sdk ClientFactory.
//
//   node tests/scenarios/scn3js_resolver.mjs [PKG]     (default: pkg/ of this checkout)
//
// Expectations from cardgate.d.ts / DESIGN.md, written before running: the client the factory
// builds holds the card that was gated, and picks the interface (url, protocol version) that the
// SDK's own resolver would read from the accepted bytes; errors are typed; lastResolution is the
// resolution that produced the client. Prints one line per scenario; exits 1 on a difference.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentCardResolver, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG = resolve(process.argv[2] ?? process.env.PKG ?? join(ROOT, 'pkg'));
const cg = createRequire(import.meta.url)(join(PKG, 'node', 'index.cjs'));

const REQ = { require: ['task.execute.v3', 'binding:JSONRPC', 'protocol:1.0'], max_stale: '10s' };
const base = (over = {}) => ({
  name: 'worker-7',
  description: 'd',
  version: '3.0.0',
  supportedInterfaces: [{ url: 'https://w.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'task.execute.v3', name: 'n', description: 'd', tags: ['t'] }],
  ...over,
});

/** A fetch double: `routes[url]` is a list of answers served in turn (the last repeats). */
function fakeFetch(routes, log = []) {
  const seen = {};
  return async (url, init) => {
    const u = String(url);
    log.push(u);
    const list = routes[u];
    if (!list) throw new TypeError(`fetch failed: no route ${u}`);
    const i = Math.min(seen[u] = (seen[u] ?? -1) + 1, list.length - 1);
    const a = typeof list[i] === 'function' ? await list[i](init) : list[i];
    if (!a || a.raw) return a?.raw;
    if (a.delay) await new Promise((r) => setTimeout(r, a.delay));
    const body = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
    return new Response(body, { status: a.status ?? 200, headers: { 'content-type': 'application/json', ...(a.headers ?? { 'x-replica-lag-ms': '0' }) } });
  };
}

const factory = (resolverOptions) => {
  const resolver = new cg.CardGateResolver(resolverOptions);
  return { resolver, factory: new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { cardResolver: resolver, transports: [new JsonRpcTransportFactory()] })) };
};

/** What the SDK's own ClientFactory (default resolver) would build from the same bytes. */
async function sdkClient(bodyText) {
  const f = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }));
  return f.createFromAgentCard(JSON.parse(bodyText));
}
const endpoint = (client) => client?.transport?.customRpcUrl ?? client?.transport?.endpoint ?? client?.transport?.inner?.endpoint ?? client?.transport?.url;
const summary = (client) => (client ? { endpoint: endpoint(client), protocolVersion: client.protocolVersion, name: client.agentCard?.name, version: client.agentCard?.version } : null);

const results = [];
function record(label, ok, detail) {
  results.push({ label, ok });
  console.log(`${ok ? 'ok  ' : 'DIFF'} ${label}${detail ? ': ' + detail : ''}`);
}
async function outcome(p) {
  try {
    return { value: await p };
  } catch (e) {
    return { error: e, name: e?.constructor?.name, message: String(e?.message ?? e) };
  }
}
const desc = (o) => (o.error ? `${o.name}: ${o.message.slice(0, 140)}` : JSON.stringify(summary(o.value)));

const URL0 = 'https://w.example/.well-known/agent-card.json';
const URL_R = 'https://r.example/.well-known/agent-card.json';

// 1. A plain v1.0 card: the gated client equals the SDK's own.
{
  const body = JSON.stringify(base());
  const { factory: f, resolver } = factory({ requirement: REQ, fetch: fakeFetch({ [URL0]: [{ body }] }) });
  const got = await outcome(f.createFromUrl('https://w.example'));
  const want = await outcome(sdkClient(body));
  record('plain card: gated client = SDK client', !got.error && JSON.stringify(summary(got.value)) === JSON.stringify(summary(want.value)), `${desc(got)} vs ${desc(want)}`);
  record('plain card: lastResolution valid for the URL', resolver.lastResolution?.decision?.verdict === 'valid' && resolver.lastResolution.url === URL0, JSON.stringify(resolver.lastResolution?.url));
}

// 2. Proto-shaped card (securitySchemes value without `type`): the SDK's default resolver reads it
// through AgentCard.fromJSON, which reads snake_case names. Two JSONRPC interfaces: the camelCase
// one at 0.3 (old endpoint), the other spelled protocol_version "1.0" (new endpoint).
for (const [label, card] of [
  ['proto-shaped, second interface with protocol_version 1.0', base({
    supportedInterfaces: [
      { url: 'https://old.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://new.example/a2a', protocolBinding: 'JSONRPC', protocol_version: '1.0' },
    ],
    securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'bearer' } } },
  })],
  ['proto-shaped, only supported_interfaces (snake)', (() => {
    const c = base({ securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'bearer' } } } });
    c.supported_interfaces = c.supportedInterfaces;
    delete c.supportedInterfaces;
    return c;
  })()],
  ['proto-shaped via security[0].schemes, interface with protocol_binding', base({
    supportedInterfaces: [
      { url: 'https://old.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://new.example/a2a', protocol_binding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    security: [{ schemes: { b: { list: [] } } }],
  })],
  ['proto-shaped, capabilities.streaming via snake? (flags)', base({
    capabilities: { push_notifications: true },
    securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'bearer' } } },
  })],
]) {
  const body = JSON.stringify(card);
  const d = cg.evaluate(body, REQ, { lag_ms: '0' });
  const { factory: f } = factory({ requirement: REQ, fetch: fakeFetch({ [URL0]: [{ body }] }) });
  const got = await outcome(f.createFromUrl('https://w.example'));
  const want = await outcome(sdkClient(body));
  // Either the SDK's own client, or a refusal (fail closed: a TypeError asking for normalize,
  // or the gate's typed error); never a client on another interface.
  const refused = (o) => o.error instanceof TypeError || o.error instanceof cg.CardGateError;
  const same = got.error ? d.verdict !== 'valid' || !!want.error || refused(got) : JSON.stringify(summary(got.value)) === JSON.stringify(summary(want.value));
  record(`${label} (gate: ${d.verdict})`, same, `gated ${desc(got)} | SDK ${desc(want)}`);
  const normalize = (c) => AgentCardResolver.default.normalizeAgentCard(c);
  const { factory: fn } = factory({ requirement: REQ, normalize, fetch: fakeFetch({ [URL0]: [{ body }] }) });
  const gotN = await outcome(fn.createFromUrl('https://w.example'));
  const sameN = gotN.error ? d.verdict !== 'valid' || !!want.error : JSON.stringify(summary(gotN.value)) === JSON.stringify(summary(want.value));
  record(`${label}, normalize = the SDK's: gated client = SDK client`, sameN, `gated ${desc(gotN)} | SDK ${desc(want)}`);
  // createFromAgentCard with a card the caller already holds (pinned).
  const pin = cg.cardHash(body);
  const { factory: f2 } = factory({ requirement: { ...REQ, pin }, fetch: fakeFetch({}) });
  const got2 = await outcome(f2.createFromAgentCard(JSON.parse(body)));
  const same2 = got2.error ? refused(got2) || !!want.error : JSON.stringify(summary(got2.value)) === JSON.stringify(summary(want.value));
  record(`${label}: createFromAgentCard, pinned`, same2, `gated ${desc(got2)} | SDK ${desc(want)}`);
}

// 3. A card that changes between fetches: each client holds the card of its own fetch.
{
  const v3 = JSON.stringify(base());
  const v4 = JSON.stringify(base({ version: '4.0.0', supportedInterfaces: [{ url: 'https://v4.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }));
  const { factory: f, resolver } = factory({ requirement: REQ, fetch: fakeFetch({ [URL0]: [{ body: v3 }, { body: v4 }] }) });
  const a = await outcome(f.createFromUrl('https://w.example'));
  const b = await outcome(f.createFromUrl('https://w.example'));
  record('changing card: first client v3, second v4', summary(a.value)?.version === '3.0.0' && summary(b.value)?.version === '4.0.0' && endpoint(b.value) === 'https://v4.example/a2a', `${desc(a)} / ${desc(b)}`);
  record('changing card: lastResolution is v4\'s', resolver.lastResolution?.decision?.card_hash === cg.cardHash(v4), resolver.lastResolution?.decision?.card_hash);
  // The v3 card object handed back later: re-checked against v3's bytes.
  const c = await outcome(f.createFromAgentCard(a.value.agentCard));
  record('changing card: createFromAgentCard(v3 card) still holds v3', summary(c.value)?.version === '3.0.0', desc(c));
}

// 4. Two resolutions at once on one resolver; the slower started first.
{
  const slow = JSON.stringify(base({ version: '3.0.1' }));
  const fast = JSON.stringify(base({ version: '3.0.2' }));
  const URL_S = 'https://s.example/.well-known/agent-card.json';
  const URL_F = 'https://f.example/.well-known/agent-card.json';
  const { factory: f, resolver } = factory({ requirement: REQ, fetch: fakeFetch({ [URL_S]: [{ body: slow, delay: 80 }], [URL_F]: [{ body: fast, delay: 5 }] }) });
  const [a, b] = await Promise.all([outcome(f.createFromUrl('https://s.example')), outcome(f.createFromUrl('https://f.example'))]);
  record('concurrent: each client holds its own card', summary(a.value)?.version === '3.0.1' && summary(b.value)?.version === '3.0.2', `${desc(a)} / ${desc(b)}`);
  record('concurrent: lastResolution = the one that finished last (documented: "the last resolve")', resolver.lastResolution?.url === URL_S, resolver.lastResolution?.url);
}

// 5. lastResolution after a failure that is not a gate decision (fetch error).
{
  const body = JSON.stringify(base());
  const { factory: f, resolver } = factory({ requirement: REQ, fetch: fakeFetch({ [URL0]: [{ body }, { body: 'x', status: 503 }] }) });
  await outcome(f.createFromUrl('https://w.example'));
  const second = await outcome(f.createFromUrl('https://w.example'));
  const lr = resolver.lastResolution;
  record(`fetch error after a success: lastResolution (${second.name}) does not still show the earlier valid decision`, !(lr && lr.decision && lr.decision.verdict === 'valid'), `lastResolution ${lr ? lr.decision.verdict + ' ' + lr.url : 'null'}`);
}

// 6. Fetch doubles that misbehave: each is a typed AgentCardFetchError (or a TypeError naming the fetch).
for (const [label, answer] of [
  ['fetch throws synchronously', () => { throw new Error('boom'); }],
  ['fetch rejects with a non-Error', () => Promise.reject('nope')], // eslint-disable-line prefer-promise-reject-errors
  ['fetch resolves to null', () => ({ raw: null })],
  ['fetch resolves to undefined', () => ({ raw: undefined })],
  ['fetch resolves to a string', () => ({ raw: 'hello' })],
  ['fetch resolves to {ok:true,status:200} without headers/body', () => ({ raw: { ok: true, status: 200, arrayBuffer: async () => new TextEncoder().encode(JSON.stringify(base())).buffer } })],
  ['fetch resolves to {ok:true} with headers, arrayBuffer rejects', () => ({ raw: { ok: true, status: 200, headers: new Headers({ 'x-replica-lag-ms': '0' }), arrayBuffer: async () => { throw new Error('eof'); } } })],
  ['fetch resolves to a Response-like whose arrayBuffer returns a string', () => ({ raw: { ok: true, status: 200, headers: new Headers({ 'x-replica-lag-ms': '0' }), arrayBuffer: async () => JSON.stringify(base()) } })],
  ['fetch resolves to a Response-like whose arrayBuffer returns an array of byte values', () => ({ raw: { ok: true, status: 200, headers: new Headers({ 'x-replica-lag-ms': '0' }), arrayBuffer: async () => Array.from(new TextEncoder().encode(JSON.stringify(base()))) } })],
  ['fetch resolves to ok:true status 304', () => ({ raw: { ok: true, status: 304, headers: new Headers({ 'x-replica-lag-ms': '0' }), arrayBuffer: async () => new TextEncoder().encode(JSON.stringify(base())).buffer } })],
  ['headers.get throws', () => ({ raw: { ok: true, status: 200, headers: { get() { throw new Error('hdr'); } }, arrayBuffer: async () => new ArrayBuffer(0) } })],
  ['body stream that errors', () => ({ raw: new Response(new ReadableStream({ pull(c) { c.error(new Error('reset')); } }), { headers: { 'x-replica-lag-ms': '0' } }) })],
]) {
  const fetchImpl = async () => {
    const a = answer();
    return a && typeof a === 'object' && 'raw' in a ? a.raw : a;
  };
  const one = await outcome(cg.resolveAgentCard(URL0, REQ, { fetch: fetchImpl }));
  const many = await outcome(cg.resolveAgentCard([URL_R, URL0], REQ, { fetch: fetchImpl }));
  // A typed error; or, for a Response-like that is lenient but whole (bytes as an array, an
  // ok 304), the card of exactly those bytes.
  const okType = (o) => o.error instanceof cg.AgentCardFetchError || o.error instanceof cg.CardGateError ||
    (!o.error && /array of byte values|304/.test(label) && o.value?.name === 'worker-7');
  record(`${label}: single URL typed`, okType(one), desc(one));
  record(`${label}: sources typed`, okType(many), desc(many));
}

// 7. A signal already aborted, aborted mid-body, timeouts.
{
  const ac = new AbortController();
  ac.abort(new Error('caller gone'));
  const a = await outcome(cg.resolveAgentCard(URL0, REQ, { fetch: fakeFetch({ [URL0]: [{ body: base() }] }), signal: ac.signal }));
  record('signal already aborted: AgentCardFetchError, no card', a.error instanceof cg.AgentCardFetchError && !(a.error instanceof cg.AgentCardTimeoutError), desc(a));
  const ac2 = new AbortController();
  const stalled = (init) => ({ raw: new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('{"name":')); } }), { headers: { 'x-replica-lag-ms': '0' } }) });
  setTimeout(() => ac2.abort(), 30);
  const b = await outcome(cg.resolveAgentCard(URL0, REQ, { fetch: fakeFetch({ [URL0]: [stalled] }), signal: ac2.signal }));
  record('aborted while the body stalls: AgentCardFetchError', b.error instanceof cg.AgentCardFetchError, desc(b));
  const c = await outcome(cg.resolveAgentCard(URL0, REQ, { fetch: fakeFetch({ [URL0]: [stalled] }), timeoutMs: 50 }));
  record('timeout while the body stalls: AgentCardTimeoutError', c.error instanceof cg.AgentCardTimeoutError, desc(c));
  const d = await outcome(cg.resolveAgentCard(URL0, REQ, { fetch: () => new Promise(() => {}), timeoutMs: 30 }));
  record('fetch that never settles and ignores the signal: AgentCardTimeoutError', d.error instanceof cg.AgentCardTimeoutError, desc(d));
  for (const t of [0, -1, NaN, '100', null]) {
    const e = await outcome(cg.resolveAgentCard(URL0, REQ, { fetch: fakeFetch({ [URL0]: [{ body: base() }] }), timeoutMs: t }));
    record(`timeoutMs ${String(t)}: TypeError/RangeError`, e.error instanceof TypeError || e.error instanceof RangeError, desc(e));
  }
  const ac3 = new AbortController();
  const resolver = new cg.CardGateResolver({ requirement: REQ, sources: ['https://r.example', 'https://w.example'], signal: ac3.signal,
    fetch: fakeFetch({ [URL_R]: [{ body: base(), headers: { 'x-replica-lag-ms': '40000' } }], [URL0]: [() => { ac3.abort(); return { body: base(), delay: 20 }; }] }) });
  const r = await outcome(resolver.resolve('https://r.example'));
  record('sources: caller aborts during the second source: AgentCardFetchError with attempts', r.error instanceof cg.AgentCardFetchError && Array.isArray(r.error.attempts), `${desc(r)} attempts ${JSON.stringify(r.error?.attempts?.map((x) => x.outcome ?? x.kind ?? x))}`);
}

// 8. Real HTTP: redirects (fetch follows them; the watermark is the final answer's).
{
  const card = JSON.stringify(base());
  const server = createServer((req, res) => {
    if (req.url === '/r-fresh') return res.writeHead(302, { location: '/fresh', 'x-replica-lag-ms': '0' }).end();
    if (req.url === '/r-stale') return res.writeHead(302, { location: '/stale', 'x-replica-lag-ms': '0' }).end();
    if (req.url === '/fresh') return res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '0' }).end(card);
    if (req.url === '/stale') return res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': '40000' }).end(card);
    if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    return res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const u = `http://127.0.0.1:${server.address().port}`;
  const a = await outcome(cg.resolveAgentCard(`${u}/r-fresh`, REQ));
  record('redirect (with lag 0 on the 302) to a fresh card: accepted', !a.error, a.error ? desc(a) : 'card');
  const b = await outcome(cg.resolveAgentCard(`${u}/r-stale`, REQ));
  record('redirect (with lag 0 on the 302) to a stale card: StaleAgentCardError', b.error instanceof cg.StaleAgentCardError, desc(b));
  const c = await outcome(cg.resolveAgentCard(`${u}/loop`, REQ));
  record('redirect loop: AgentCardFetchError', c.error instanceof cg.AgentCardFetchError, desc(c));
  const { factory: f } = factory({ requirement: REQ, path: 'r-stale' });
  const d = await outcome(f.createFromUrl(`${u}/`));
  record('ClientFactory.createFromUrl through a redirect to a stale card: refused', d.error instanceof cg.StaleAgentCardError, desc(d));
  server.close();
}

// 9. Re-resolution across sources with the factory: the client holds the accepted source's card.
{
  const stale = JSON.stringify(base({ version: '2.0.0', supportedInterfaces: [{ url: 'https://old.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }));
  const fresh = JSON.stringify(base({ supportedInterfaces: [{ url: 'https://new.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }));
  const { factory: f, resolver } = factory({ requirement: REQ, sources: ['https://r.example', 'https://w.example'],
    fetch: fakeFetch({ [URL_R]: [{ body: stale, headers: { 'x-replica-lag-ms': '40000' } }], [URL0]: [{ body: fresh }] }) });
  const a = await outcome(f.createFromUrl('https://r.example'));
  record('sources: client on the primary\'s card', endpoint(a.value) === 'https://new.example/a2a', desc(a));
  record('sources: lastResolution names the primary, two attempts', resolver.lastResolution?.url === URL0 && resolver.lastResolution?.attempts?.length === 2, JSON.stringify({ url: resolver.lastResolution?.url, n: resolver.lastResolution?.attempts?.length }));
  // Pin: the replica's card matches the pin; a pin short-circuits the watermark.
  const pin = cg.cardHash(stale);
  const { factory: f2 } = factory({ requirement: { require: ['task.execute.v3'], pin }, sources: ['https://r.example', 'https://w.example'],
    fetch: fakeFetch({ [URL_R]: [{ body: stale, headers: {} }], [URL0]: [{ body: fresh }] }) });
  const b = await outcome(f2.createFromUrl('https://r.example'));
  record('sources + pin: the pinned (replica) card is the client\'s', endpoint(b.value) === 'https://old.example/a2a', desc(b));
  const { factory: f3 } = factory({ requirement: { require: ['task.execute.v3'], pin }, sources: ['https://r.example', 'https://w.example'],
    fetch: fakeFetch({ [URL_R]: [{ body: fresh, headers: {} }], [URL0]: [{ body: fresh }] }) });
  const c = await outcome(f3.createFromUrl('https://r.example'));
  record('sources + pin, no source serves the pinned card: StaleAgentCardError', c.error instanceof cg.StaleAgentCardError, desc(c));
}

// 10. createFromAgentCard with a card that equals an accepted one but for `signatures`, or with
// another key order: the accepted card's bytes are re-checked; the client holds the caller's
// object, which reads the same.
{
  const body = JSON.stringify(base());
  const { factory: f } = factory({ requirement: REQ, fetch: fakeFetch({ [URL0]: [{ body }] }) });
  await outcome(f.createFromUrl('https://w.example'));
  const reordered = Object.fromEntries(Object.entries(JSON.parse(body)).reverse());
  const a = await outcome(f.createFromAgentCard(reordered));
  record('createFromAgentCard(same card, other key order): accepted (same hash)', !a.error, desc(a));
  const signed = { ...JSON.parse(body), signatures: [{ protected: 'x', signature: 'y' }] };
  const b = await outcome(f.createFromAgentCard(signed));
  record('createFromAgentCard(same card + signatures): accepted (hash excludes signatures)', !b.error, desc(b));
  const changed = { ...JSON.parse(body), supportedInterfaces: [{ url: 'https://evil.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
  const c = await outcome(f.createFromAgentCard(changed));
  record('createFromAgentCard(other interfaces): refused (no watermark, no pin)', c.error instanceof cg.StaleAgentCardError, desc(c));
}

const bad = results.filter((r) => !r.ok);
console.log(`\n${results.length} scenarios, ${bad.length} differ`);
process.exitCode = bad.length ? 1 : 0;
