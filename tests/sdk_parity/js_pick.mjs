// Which interface @a2a-js/sdk's own ClientFactory connects to, for the SDK differential's
// interface-choice check (sdk_parity.py, "Client picks").
//
// stdin: JSON lines {"id": N, "card": {...}, "bindings": ["JSONRPC", ...]} (or "raw": base64 bytes,
// parsed by fetch's Response.json() as the resolver does). stdout: one JSON line per card,
// {"id": N, "default": PICKS, "legacy": PICKS} where PICKS is
// {"ok": true, "picks": {"<binding>": null | {"index": i, "version": <its protocolVersion>, "wire": W,
// "legacy": L, "tenant": <its tenant>}}}
// or {"ok": false, "error": "..."} when the resolver's normalizeAgentCard throws.
//   default: a ClientFactory with the default resolver (AgentCardResolver.default, legacyCompat off);
//   legacy:  a ClientFactory with cardResolver = new DefaultAgentCardResolver({legacyCompat: {enabled: true}}).
// The card is normalized once per resolver as ClientFactory.createFromAgentCard does it
// (`resolver.normalizeAgentCard(card) ?? card`), each interface of the result tagged with a url
// naming its index (the selection never reads url). Then for each binding X a fresh
// `new ClientFactory({transports: [T], preferredTransports: [X], cardResolver})`, where
// T = {protocolName: X, create(url, card)} is a recording transport factory, and
// `createFromNormalizedAgentCard(card)` is awaited: the SDK's own bestInterfacePerProtocol
// selection, the tenant decorator and the Client constructor run as in a real client, and
// T.create's url says which interface was chosen. A throw is no client (null).
// W is the protocol generation the SDK's own transport factory for the binding builds for the pick
// when it has `legacyCompat` ("0.3" for its Legacy* transport, else "1.0": the `protocolVersion` of
// what `new JsonRpcTransportFactory({legacyCompat: {enabled: true}}).create(url, card)` returns, or
// RestTransportFactory's; it tests the version with isLegacyVersion), null for a binding that does
// not upper-case to JSONRPC or HTTP+JSON (GRPC's factory needs @grpc/grpc-js, not installed here).
// Without `legacyCompat` both factories speak 1.0 to every pick (the caller's configuration).
// `legacy` is the generation the SDK's legacyCompat test (isLegacyVersion, unversioned included)
// gives the pick's version whatever the binding: what JsonRpcTransportFactory({legacyCompat}) builds
// for a one-interface card at that version (GrpcTransportFactory, not installed here, runs the same
// test; a custom binding's factory is the caller's, read alike, fail closed), null when it throws.
// `tenant` is the picked interface's `tenant` as the reading holds it (null when absent); the
// factory wraps the transport in its TenantTransportDecorator when it is truthy, and the Legacy*
// transports send none (client_picks.py's truth).
// `--sdk DIR`: the @a2a-js/sdk installed under DIR/node_modules (e.g. .tools/a2a-sdk-1.0.1).
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const sdkAt = process.argv.indexOf('--sdk');
const sdkFile = (sub) =>
  sdkAt < 0 ? `@a2a-js/sdk/${sub}` : pathToFileURL(join(resolve(process.argv[sdkAt + 1]), 'node_modules/@a2a-js/sdk/dist', sub, 'index.js')).href;
const { AgentCardResolver, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } =
  await import(sdkFile('client'));
const legacyCompat = { enabled: true };
const wireFactories = {
  JSONRPC: new JsonRpcTransportFactory({ legacyCompat }),
  'HTTP+JSON': new RestTransportFactory({ legacyCompat }),
};

// The generation a legacyCompat transport factory for binding `x` speaks to the interface
// tagged `url` of `card` (null: no such factory here, or it throws).
async function wireOf(x, url, card) {
  const factory = wireFactories[x.toUpperCase()];
  if (!factory) return null;
  try {
    const t = await factory.create(url, card);
    return t.protocolVersion === '0.3' ? '0.3' : '1.0';
  } catch {
    return null;
  }
}

// `version` as isLegacyVersion reads it in a legacyCompat transport factory (see `legacy` above).
async function legacyOf(version) {
  const url = 'cardgate-legacy:';
  try {
    const t = await wireFactories.JSONRPC.create(url, {
      supportedInterfaces: [{ protocolBinding: 'JSONRPC', protocolVersion: version, url }],
    });
    return t.protocolVersion === '0.3' ? '0.3' : '1.0';
  } catch {
    return null;
  }
}

const resolvers = {
  default: AgentCardResolver.default,
  legacy: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
};
const TAG = 'cardgate-pick:';

const text = (e) => `${e?.name ?? 'Error'}: ${e?.message ?? e}`.slice(0, 300);

async function picks(resolver, card, bindings) {
  // The reading: when normalizeAgentCard throws, the SDK has no card (reported as refused).
  let normalized;
  try {
    normalized = resolver.normalizeAgentCard(structuredClone(card));
  } catch (e) {
    return { ok: false, error: text(e) };
  }
  // ClientFactory.createFromAgentCard is `createFromNormalizedAgentCard(resolver.normalizeAgentCard?.(card)
  // ?? card)`; the selection itself reads neither url nor anything it could change, so the one
  // normalized card serves every binding, its interfaces tagged with a url naming their index.
  normalized ??= structuredClone(card);
  const ifs = normalized?.supportedInterfaces;
  const found = Array.isArray(ifs) ? ifs.map((i) => (i !== null && typeof i === 'object' ? i : undefined)) : [];
  found.forEach((i, k) => {
    if (i) i.url = TAG + k;
  });
  const out = {};
  for (const x of bindings) {
    let url;
    const transport = {
      protocolName: x,
      async create(u) {
        url = u;
        return { protocolName: x, protocolVersion: undefined };
      },
    };
    let chosen = null;
    try {
      const factory = new ClientFactory({ transports: [transport], preferredTransports: [x], cardResolver: resolver });
      await factory.createFromNormalizedAgentCard(normalized);
      if (typeof url === 'string' && url.startsWith(TAG)) {
        const index = Number(url.slice(TAG.length));
        chosen = { index, version: found[index].protocolVersion ?? null, binding: found[index].protocolBinding ?? null };
        chosen.wire = await wireOf(x, url, normalized);
        chosen.legacy = await legacyOf(found[index].protocolVersion);
        chosen.tenant = found[index].tenant ?? null;
      } else {
        chosen = { index: null, url: url ?? null, error: 'transport created with an untagged url' };
      }
    } catch {
      chosen = null; // the factory threw: no client
    }
    out[x] = chosen;
  }
  return { ok: true, picks: out };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
const out = [];
for await (const line of lines) {
  if (!line.trim()) continue;
  const entry = JSON.parse(line);
  const { id, bindings } = entry;
  let card = entry.card;
  if (entry.raw !== undefined) {
    try {
      card = await new Response(Buffer.from(entry.raw, 'base64')).json();
    } catch (e) {
      const refused = { ok: false, error: text(e) };
      out.push(JSON.stringify({ id, default: refused, legacy: refused }));
      continue;
    }
  }
  const answer = { id };
  for (const [name, r] of Object.entries(resolvers)) answer[name] = await picks(r, card, bindings);
  out.push(JSON.stringify(answer));
  if (out.length >= 256) process.stdout.write(out.splice(0).join('\n') + '\n');
}
if (out.length) process.stdout.write(out.join('\n') + '\n');
