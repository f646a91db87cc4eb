// Resolver-level SDK differential: CardGateResolver inside the real @a2a-js/sdk ClientFactory.
//
//   node tests/node/resolver-differential.mjs [--count N] [--seed S] [--corpus choice,glue,adv,cards,indep]
//       [--stub] [--pkg DIR] [--out FILE] [--python PY]
//
// tests/sdk_parity/ compares the gate's decision with what the SDKs read from a card and which
// interface their factories pick; this goes through the package's glue instead. Cards come from
// the SDK differential's generators (gen_choice.py, gen_adv.py, gen_cards.py, gen_indep.py, run as they are by
// --python, default .tools/py/bin/python; --count cards split over the corpora, seeded). Each
// interface url (the top-level v0.3 one, supportedInterfaces / supported_interfaces /
// additionalInterfaces) becomes one of its own, so an endpoint names one interface; gen_adv's
// `url` class keeps its url forms, and raw-byte cards are served as they are (there an endpoint
// is matched by url, every interface of that url and binding must fit).
//
// For each card and each binding X that a reading of it has (the gate's declaredCapabilities,
// the SDK's default and legacyCompat resolvers), each requirement {binding:X}, {binding:X,
// protocol:P} for every P a reading has (and 1.0, 0.3), and the same with every other
// capability the gate reads on the card: the card bytes are served from a loopback HTTP server
// (or, with --stub, a fetch returning a real Response) with `x-replica-lag-ms: 0`, and clients
// are built for two setups,
//   default  ClientFactoryOptions.default + preferredTransports [X] (a recording transport
//            factory for a binding the SDK has none for); normalize none / the default
//            resolver's normalizeAgentCard
//   legacy   JSON-RPC and REST transport factories with legacyCompat, preferredTransports [X];
//            normalize none / new DefaultAgentCardResolver({legacyCompat}).normalizeAgentCard
// through createFromUrl (cardResolver: new CardGateResolver({requirement, normalize}); and with
// `sources`: first a lagging replica serving the card with other interface urls, then the
// card's own url), then
// createFromAgentCard on the same factory with the accepted card (the client's, as it is, as
// JSON and in its RFC 8785 form), a JSON re-parse of the bytes and their RFC 8785 form; and on a
// fresh resolver pinned to the card's hash with the re-parse and the canonical copy, and one
// pinned to the held card's hash with its JSON.
// Every built client: its transport's endpoint must be an interface of the card the client
// holds (as the SDK read it) whose binding upper-cases to X's, and, with protocol:P, whose
// protocolVersion has cardgate's Major.Minor P, and (tagged cards) a url the served card holds.
// A client on any other interface is UNSAFE (exit 1). A createFromUrl client must hold the
// interfaces the SDK reads from the served bytes with the same normalization (bare: the card as
// it is); one that does not is DIVERGE (exit 1). A refusal is counted by kind (typed gate error, the resolver's TypeError, an SDK throw);
// over-strict counts the gate's refusals on createFromUrl and the pinned paths (requirements
// of binding and protocol only) where the SDK's own factory, same setup, builds a client whose
// interface fits. Over-strict is allowed (the gate answers for every SDK reading and client).
// A client without a string endpoint (an interface with a null or no url) is counted as noUrl
// and checked against every such interface; since the twelfth session the gate grants no
// binding whose picked interface has no url, so the fixed-seed test wants none.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AgentCardResolver,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function parseArgs(argv) {
  const o = { count: 300, seed: 7, corpus: ['choice', 'glue', 'adv', 'cards'], stub: false, pkg: join(ROOT, 'pkg'), out: null, python: join(ROOT, '.tools/py/bin/python') };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--count') o.count = Number(next());
    else if (a === '--seed') o.seed = Number(next());
    else if (a === '--corpus') o.corpus = next().split(',');
    else if (a === '--stub') o.stub = true;
    else if (a === '--pkg') o.pkg = resolve(next());
    else if (a === '--out') o.out = resolve(next());
    else if (a === '--python') o.python = next();
    else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(o.count) || o.count < 1 || !Number.isInteger(o.seed)) throw new Error('--count and --seed take integers');
  return o;
}

// The generators, run as they are; each entry's bytes (base64) with its interface urls tagged.
const GENERATE = String.raw`
import base64, copy, json, random, sys
sys.path.insert(0, sys.argv[1])
import gen_adv, gen_cards, gen_choice, gen_indep
count, seed, corpora = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
mods = {"choice": gen_choice, "adv": gen_adv, "cards": gen_cards, "indep": gen_indep}
IFACE_LISTS = ("supportedInterfaces", "supported_interfaces", "additionalInterfaces", "additional_interfaces")

def tag(card, n):
    def one(obj, key):
        if isinstance(obj, dict) and isinstance(obj.get(key), str):
            obj[key] = "https://i%d.rsv.test/a2a" % n[0]
            n[0] += 1
    if not isinstance(card, dict):
        return
    one(card, "url")
    for k in IFACE_LISTS:
        if isinstance(card.get(k), list):
            for i in card[k]:
                one(i, "url")

def data(card):
    try:
        return json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate: the escaped form
        return json.dumps(card, separators=(",", ":")).encode()

# The glue corpus: gen_choice's cards with what the SDK's normalization reads differently in one
# interface (one member in snake_case: only AgentCard.fromJSON reads it, on a proto-shaped card)
# and security schemes whose first value decides proto-shape, in an order RFC 8785 reverses.
PROTO = {"httpAuthSecurityScheme": {"scheme": "bearer"}}
TYPED = {"type": "http", "scheme": "bearer"}
SCHEMES = {"none": None, "proto": {"b": PROTO}, "proto-then-typed": {"b": PROTO, "a": TYPED},
           "typed-then-proto": {"z": TYPED, "a": PROTO}}

def glue(n, seed):
    rng = random.Random(seed)
    out = []
    for e in gen_choice.generate(count=n, seed=seed):
        c = copy.deepcopy(e["card"])
        if not isinstance(c, dict):
            continue
        spelled = []
        for key in ("supportedInterfaces", "supported_interfaces"):
            for k, i in enumerate(c.get(key) if isinstance(c.get(key), list) else []):
                if isinstance(i, dict) and rng.random() < 0.5:
                    camel, snake = rng.choice([("protocolVersion", "protocol_version"), ("protocolBinding", "protocol_binding")])
                    if camel in i and snake not in i:
                        i[snake] = i.pop(camel)
                        spelled.append("%d.%s" % (k, snake))
        mode = rng.choice(list(SCHEMES))
        if SCHEMES[mode] is not None:
            c["securitySchemes"] = copy.deepcopy(SCHEMES[mode])
        out.append({"id": e["id"], "label": "glue %s | %s | schemes %s" % (e["label"], ",".join(spelled) or "-", mode), "card": c})
    return out

for k, name in enumerate(corpora):
    n = count // len(corpora) + (1 if k < count % len(corpora) else 0)
    if n == 0:
        continue
    for e in (glue(n, seed) if name == "glue" else mods[name].generate(count=n, seed=seed)):
        raw = e.get("raw")
        tagged = False
        if raw is None:
            if e["label"].split()[0] != "url":
                tag(e["card"], [0])
                tagged = True
            raw = data(e["card"])
        elif isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogatepass")
        print(json.dumps({"corpus": name, "id": e["id"], "label": e["label"], "tagged": tagged,
                          "bytes": base64.b64encode(raw).decode()}))
`;

function generate(o) {
  const r = spawnSync(o.python, ['-c', GENERATE, join(ROOT, 'tests/sdk_parity'), String(o.count), String(o.seed), o.corpus.join(',')], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`generators failed (${o.python}): ${r.error ?? ''}${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const e = JSON.parse(l);
      e.bytes = Buffer.from(e.bytes, 'base64');
      return e;
    });
}

/** cardgate's Major.Minor of a protocol version ("0.3.0" -> "0.3"), or null (sdk_parity.py's major_minor). */
export function majorMinor(version) {
  if (typeof version !== 'string') return null;
  const i = version.indexOf('.');
  if (i < 0) return null;
  const j = version.indexOf('.', i + 1);
  const major = version.slice(0, i);
  const minor = j < 0 ? version.slice(i + 1) : version.slice(i + 1, j);
  const digits = (s) => /^[0-9]+$/.test(s);
  if (!digits(major) || !digits(minor)) return null;
  if (j >= 0 && !digits(version.slice(j + 1).replace(/\+/g, '-').split('-')[0])) return null;
  return `${major}.${minor}`;
}

const wellFormed = (s) => typeof s === 'string' && (typeof s.isWellFormed !== 'function' || s.isWellFormed());

const LEGACY = { legacyCompat: { enabled: true } };
const READERS = { default: AgentCardResolver.default, legacy: new DefaultAgentCardResolver(LEGACY) };
const NORMALIZE = {
  default: (c) => READERS.default.normalizeAgentCard(c),
  legacy: (c) => READERS.legacy.normalizeAgentCard(c),
};

/** A transport factory for a binding the SDK has no transport for: the transport holds the url. */
function recordingFactory(name) {
  return {
    protocolName: name,
    async create(url) {
      return { protocolName: name, protocolVersion: '', endpoint: url, recorded: true };
    },
  };
}
const KNOWN = ['JSONRPC', 'HTTP+JSON'];

function factoryFor(setup, x, cardResolver) {
  const extra = KNOWN.includes(x.toUpperCase()) ? [] : [recordingFactory(x)];
  if (setup === 'default') {
    return new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { cardResolver, preferredTransports: [x], ...(extra.length ? { transports: extra } : {}) }),
    );
  }
  return new ClientFactory({
    transports: [new JsonRpcTransportFactory(LEGACY), new RestTransportFactory(LEGACY), ...extra],
    preferredTransports: [x],
    cardResolver,
  });
}

/** A card's interfaces as ClientFactory reads them: [binding, version, url]. */
const interfaces = (card) =>
  (Array.isArray(card?.supportedInterfaces) ? card.supportedInterfaces : [])
    .filter((i) => i !== null && typeof i === 'object')
    .map((i) => [i.protocolBinding, i.protocolVersion, i.url]);

/** The SDK's readings of the bytes (fetch's Response.json, then each resolver's normalization). */
async function readings(bytes) {
  let card;
  try {
    card = await new Response(bytes).json();
  } catch {
    return {};
  }
  const out = {};
  // bare: the card as it is (a CardGateResolver without normalize returns it so).
  for (const [name, r] of [['bare', null], ...Object.entries(READERS)]) {
    try {
      const n = r === null ? card : (r.normalizeAgentCard(structuredClone(card)) ?? card);
      out[name] = interfaces(n);
    } catch {
      /* the SDK refuses the card */
    }
  }
  return out;
}

function requirementsFor(cg, bytes, reads) {
  let declared = [];
  try {
    // Every capability some reading has (`granted`: those all readings have).
    const d = cg.declaredCapabilities(bytes);
    declared = [...new Set([...(d.granted ?? []), ...(d.readings ?? []).flatMap((r) => r.capabilities ?? [])])];
  } catch {
    /* not a card the gate reads */
  }
  const bindings = new Set();
  const protocols = new Set(['1.0', '0.3']);
  for (const c of declared) {
    if (typeof c !== 'string') continue;
    if (c.startsWith('binding:')) bindings.add(c.slice(8));
    if (c.startsWith('protocol:')) protocols.add(c.slice(9));
  }
  for (const ifs of Object.values(reads)) {
    for (const [b, v] of ifs) {
      if (typeof b === 'string' && b !== '') bindings.add(b);
      const mm = majorMinor(v);
      if (mm) protocols.add(mm);
    }
  }
  const others = declared.filter((c) => typeof c === 'string' && !c.startsWith('binding:') && !c.startsWith('protocol:'));
  const out = [];
  for (const x of [...bindings].filter(wellFormed).sort()) {
    for (const p of [null, ...[...protocols].sort()]) {
      const base = ['binding:' + x, ...(p ? ['protocol:' + p] : [])];
      out.push({ x, p, require: base });
      if (others.length && p === null) out.push({ x, p, require: [...base, ...others], full: true });
    }
  }
  return out;
}

/** The interface a built client's transport targets, among the interfaces of the card it holds. */
export function check(client, x, p, tagged) {
  let t = client.transport;
  for (let k = 0; k < 4 && t && t.endpoint === undefined && t.base; k++) t = t.base;
  const endpoint = t?.endpoint;
  const ifs = Array.isArray(client.agentCard?.supportedInterfaces) ? client.agentCard.supportedInterfaces : [];
  const trim = (u) => (typeof u === 'string' ? u.replace(/\/+$/, '') : u);
  // An interface without a string url (null, absent; "" after AgentCard.fromJSON: the gate does
  // not check urls) gives a transport whose endpoint is that value; it names every such interface.
  const atUrl = ifs.filter((i) => i && (i.url === endpoint || (typeof i.url === 'string' && trim(i.url) === endpoint)));
  const upper = (b) => (typeof b === 'string' ? b.toUpperCase() : b);
  const cands = atUrl.filter((i) => upper(i.protocolBinding) === x.toUpperCase());
  const chosen = cands.map((i) => ({ binding: i.protocolBinding, version: i.protocolVersion, url: i.url }));
  const info = { endpoint, transport: t?.constructor?.name ?? (t?.recorded ? 'recording' : typeof t), speaks: client.transport?.protocolVersion, chosen };
  if (typeof endpoint !== 'string' || endpoint === '') info.noUrl = true; // AgentCard.fromJSON: "" for none
  if (atUrl.length === 0) return { ok: false, why: 'endpoint is no interface of the card the client holds', info };
  if (cands.length === 0) return { ok: false, why: `the interface at the endpoint has another binding (${atUrl.map((i) => i.protocolBinding).join(', ')})`, info };
  if ((!tagged || info.noUrl) && cands.length > 1) info.ambiguous = true;
  if (p !== null && !cands.every((i) => majorMinor(i.protocolVersion) === p)) return { ok: false, why: `the interface is at ${cands.map((i) => JSON.stringify(i.protocolVersion)).join(', ')}, not protocol:${p}`, info };
  return { ok: true, info };
}

async function outcome(promise) {
  try {
    return { client: await promise };
  } catch (e) {
    return { error: e };
  }
}

function refusalKind(cg, e) {
  if (e instanceof cg.CardGateError) return e.constructor.name;
  if (e instanceof TypeError && /CardGateResolver|proto-shaped/.test(e.message)) return 'TypeError(resolver)';
  // The package's check of a card object (a value JSON has no text for).
  if (e instanceof TypeError && /^card at /.test(e.message)) return 'TypeError(card object)';
  if (e instanceof cg.AgentCardFetchError) return 'AgentCardFetchError';
  // A capability a reading has that a requirement cannot name (`extension:` without a URI).
  if (e instanceof RangeError && /^invalid requirement/.test(e.message)) return 'RangeError(requirement)';
  return `sdk:${e?.constructor?.name ?? typeof e}`;
}

export async function run(options) {
  const o = { ...parseArgs(['node', 'x']), ...options };
  const cg = createRequire(import.meta.url)(join(o.pkg, 'node', 'index.cjs'));
  const t0 = performance.now();
  const entries = generate(o);
  const tGen = performance.now() - t0;
  const served = new Map();
  let server = null;
  let base;
  let fetchImpl;
  // /c/<key>/...: the card, lag 0. /r/<key>/...: a lagging replica's copy (lag 40 s) of the
  // card with other interface urls (i<k>.stale.test), for re-resolution (`sources`).
  const answer = (path) => {
    const [, kind, id] = path.split('/');
    const body = served.get(id);
    if (!body) return { status: 404, body: 'no card', lag: '0' };
    if (kind === 'r') return { status: 200, body: Buffer.from(body.toString('latin1').replace(/\.rsv\.test/g, '.stale.test'), 'latin1'), lag: '40000' };
    return { status: 200, body, lag: '0' };
  };
  const respond = (path) => {
    const a = answer(path);
    return new Response(a.body, { status: a.status, headers: { 'content-type': 'application/json', 'x-replica-lag-ms': a.lag } });
  };
  if (o.stub) {
    base = 'http://stub.rsv.test';
    fetchImpl = async (url) => respond(new URL(String(url)).pathname);
  } else {
    server = createServer((req, res) => {
      const a = answer(req.url);
      res.writeHead(a.status, { 'content-type': 'application/json', 'x-replica-lag-ms': a.lag });
      res.end(a.body);
    });
    base = await new Promise((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${server.address().port}`)));
  }
  const stats = { cards: entries.length, cardsWithBinding: 0, requirements: 0, attempts: 0, clients: 0, refused: 0, refusedBy: {}, overStrict: 0, overStrictBy: {}, unsafe: 0, ambiguous: 0, noUrl: 0, diverge: 0, speaksOther: {}, byPath: {} };
  const unsafe = [];
  const overStrict = [];
  const diverge = []; // createFromUrl clients holding other interfaces than the SDK reads from the bytes
  const sdkErrors = {}; // the first SDK throw of each kind (no client: not unsafe)
  try {
    for (const e of entries) {
      const key = `${e.corpus}-${e.id}`;
      served.set(key, e.bytes);
      const text = e.bytes.toString('utf8');
      const reads = await readings(e.bytes);
      const reqs = requirementsFor(cg, e.bytes, reads);
      // The interface urls the served card holds (tagged: each its own), however it is read.
      const servedUrls = new Set(text.match(/https:\/\/i[0-9]+\.rsv\.test\/a2a/g) ?? []);
      if (reqs.length) stats.cardsWithBinding++;
      let reparse = null;
      let canonical = null;
      try {
        reparse = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      try {
        canonical = JSON.parse(cg.canonicalize(e.bytes));
      } catch {
        /* not a card the gate reads */
      }
      let pin = null;
      try {
        pin = cg.cardHash(e.bytes);
      } catch {
        /* no hash */
      }
      const own = {}; // the SDK's own factory fits the requirement: by setup, normalize, X, P
      for (const r of reqs) {
        stats.requirements++;
        const requirement = { require: r.require, max_stale: '10s' };
        let decision;
        try {
          decision = cg.evaluate(e.bytes, requirement, { lag_ms: '0' }).verdict;
        } catch (err) {
          decision = `error:${err?.name}`;
        }
        for (const setup of ['default', 'legacy']) {
          for (const norm of [null, setup]) {
            const attempts = [];
            const resolver = new cg.CardGateResolver({ requirement, ...(norm ? { normalize: NORMALIZE[norm] } : {}), ...(fetchImpl ? { fetch: fetchImpl } : {}) });
            const factory = factoryFor(setup, r.x, resolver);
            const viaUrl = await outcome(factory.createFromUrl(`${base}/c/${key}/`));
            attempts.push(['createFromUrl', viaUrl]);
            // Re-resolution: the lagging replica first (refused as stale), then the primary.
            const viaSources = new cg.CardGateResolver({
              requirement,
              sources: [`${base}/r/${key}/`, `${base}/c/${key}/`],
              ...(norm ? { normalize: NORMALIZE[norm] } : {}),
              ...(fetchImpl ? { fetch: fetchImpl } : {}),
            });
            attempts.push(['createFromUrl(sources)', await outcome(factoryFor(setup, r.x, viaSources).createFromUrl(`${base}/r/${key}/`))]);
            const copies = [];
            let held = null; // the accepted card as the client holds it (normalized), as JSON
            if (viaUrl.client) {
              copies.push(['accepted', viaUrl.client.agentCard]);
              try {
                held = JSON.stringify(viaUrl.client.agentCard);
                copies.push(['accepted JSON', JSON.parse(held)]);
                copies.push(['accepted canonical', JSON.parse(cg.canonicalize(held))]);
              } catch {
                held = null;
              }
            }
            if (reparse !== null) copies.push(['reparse', structuredClone(reparse)]);
            if (canonical !== null) copies.push(['canonical', structuredClone(canonical)]);
            for (const [name, c] of copies) attempts.push([`createFromAgentCard(${name})`, await outcome(factory.createFromAgentCard(c))]);
            // A fresh resolver, the card pinned: the bytes' copies by the bytes' hash, the held
            // card's by its own.
            const pinnedFactory = (h) =>
              factoryFor(setup, r.x, new cg.CardGateResolver({ requirement: { require: r.require, pin: h }, ...(norm ? { normalize: NORMALIZE[norm] } : {}), fetch: async () => respond('') }));
            if (pin !== null) {
              const pf = pinnedFactory(pin);
              for (const [name, c] of copies.filter(([n]) => !n.startsWith('accepted'))) {
                attempts.push([`pinned createFromAgentCard(${name})`, await outcome(pf.createFromAgentCard(c))]);
              }
            }
            if (held !== null) {
              let h = null;
              try {
                h = cg.cardHash(held);
              } catch {
                /* no hash */
              }
              if (h !== null) attempts.push(['pinned createFromAgentCard(accepted JSON)', await outcome(pinnedFactory(h).createFromAgentCard(JSON.parse(held)))]);
            }
            for (const [path, a] of attempts) {
              stats.attempts++;
              const label = `${setup}/${norm ? 'normalize' : 'bare'}/${path}`;
              const bp = (stats.byPath[label] ??= { clients: 0, refused: 0 });
              if (a.client) {
                stats.clients++;
                bp.clients++;
                const c = check(a.client, r.x, r.p, e.tagged);
                // The endpoint is one of the served card's interfaces (no card substituted).
                const ep = c.info.endpoint;
                if (c.ok && e.tagged && !c.info.noUrl && !servedUrls.has(ep)) {
                  c.ok = false;
                  c.why = 'the endpoint is no interface url of the served card';
                }
                // createFromUrl: the client holds the served card as the SDK reads it with this
                // normalization (bare: as it is).
                if (path.startsWith('createFromUrl')) {
                  const want = JSON.stringify(reads[norm ?? 'bare'] ?? null);
                  const got = JSON.stringify(interfaces(a.client.agentCard));
                  if (want !== got) {
                    stats.diverge++;
                    if (diverge.length < 50) diverge.push({ corpus: e.corpus, id: e.id, label: e.label, path: label, want, got, card: text });
                  }
                }
                if (c.info.ambiguous) stats.ambiguous++;
                if (c.info.noUrl) stats.noUrl++;
                // Informational: the version the transport speaks is not the required one (the
                // gate checks the version the interface declares; DESIGN.md).
                if (c.ok && r.p !== null && !(a.client.transport?.recorded || a.client.transport?.base?.recorded) && majorMinor(a.client.transport?.protocolVersion) !== r.p) {
                  const k = `${setup} protocol:${r.p} speaks ${a.client.transport?.protocolVersion}`;
                  stats.speaksOther[k] = (stats.speaksOther[k] ?? 0) + 1;
                }
                if (!c.ok) {
                  stats.unsafe++;
                  unsafe.push({ corpus: e.corpus, id: e.id, label: e.label, requirement, path: label, decision, why: c.why, info: c.info, card: text });
                }
              } else {
                stats.refused++;
                bp.refused++;
                const kind = refusalKind(cg, a.error);
                stats.refusedBy[kind] = (stats.refusedBy[kind] ?? 0) + 1;
                if (kind.startsWith('sdk:') && !(kind in sdkErrors)) sdkErrors[kind] = `${e.corpus}#${e.id} ${label}: ${String(a.error?.message).slice(0, 160)}`;
                // Over-strict: the gate refused (fetched, or pinned: an unpinned card without a
                // watermark is refused by design) where the SDK's own factory builds a client
                // on an interface that fits the requirement (binding and protocol only).
                if (r.full || kind.startsWith('sdk:') || kind === 'AgentCardFetchError' || path.startsWith('createFromAgentCard') || path === 'createFromUrl(sources)') continue;
                const ownKey = `${setup}/${norm}/${r.x}/${r.p}`;
                if (!(ownKey in own)) {
                  const b = await outcome(factoryFor(setup, r.x, norm ? READERS[norm] : AgentCardResolver.default).createFromAgentCard(reparse !== null ? structuredClone(reparse) : {}));
                  own[ownKey] = !!b.client && check(b.client, r.x, r.p, e.tagged).ok;
                }
                if (own[ownKey]) {
                  stats.overStrict++;
                  stats.overStrictBy[kind] = (stats.overStrictBy[kind] ?? 0) + 1;
                  if (overStrict.length < 50) overStrict.push({ corpus: e.corpus, id: e.id, label: e.label, require: r.require, path: label, refusal: kind, message: String(a.error?.message).slice(0, 200) });
                }
              }
            }
          }
        }
      }
      served.delete(key);
    }
  } finally {
    if (server) await new Promise((r) => server.close(r));
  }
  stats.seconds = Number(((performance.now() - t0) / 1000).toFixed(1));
  stats.generateSeconds = Number((tGen / 1000).toFixed(1));
  return { stats, unsafe, overStrict, sdkErrors, diverge };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const o = parseArgs(process.argv);
  const { stats, unsafe, overStrict, sdkErrors, diverge } = await run(o);
  if (o.out) writeFileSync(o.out, JSON.stringify({ options: o, stats, unsafe, overStrict, diverge }, null, 1));
  const { byPath, refusedBy, overStrictBy, ...head } = stats;
  console.log(`resolver differential (seed ${o.seed}, ${o.stub ? 'fetch stub' : 'loopback HTTP'}): ${JSON.stringify(head)}`);
  console.log(`refusals: ${JSON.stringify(refusedBy)}`);
  console.log(`over-strict (the SDK's own factory builds a fitting client), by refusal: ${JSON.stringify(overStrictBy)}`);
  for (const [k, v] of Object.entries(sdkErrors)) console.log(`  first ${k}: ${v}`);
  for (const [k, v] of Object.entries(byPath)) console.log(`  ${k.padEnd(58)} clients ${String(v.clients).padStart(6)}  refused ${String(v.refused).padStart(6)}`);
  for (const u of unsafe.slice(0, 20)) console.log(`UNSAFE ${u.corpus}#${u.id} ${u.label} | ${JSON.stringify(u.requirement.require)} | ${u.path} | gate ${u.decision} | ${u.why} | ${JSON.stringify(u.info)}\n  card: ${u.card.slice(0, 600)}`);
  for (const d of diverge.slice(0, 10)) console.log(`DIVERGE ${d.corpus}#${d.id} ${d.label} | ${d.path} | SDK reads ${d.want.slice(0, 300)} | client holds ${d.got.slice(0, 300)}\n  card: ${d.card.slice(0, 600)}`);
  if (overStrict.length) console.log(`over-strict examples: ${overStrict.slice(0, 5).map((s) => `${s.corpus}#${s.id} ${s.label} ${JSON.stringify(s.require)} ${s.path} ${s.refusal}`).join('\n  ')}`);
  process.exitCode = unsafe.length || diverge.length ? 1 : 0;
}
