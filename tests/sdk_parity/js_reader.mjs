// Reads Agent Cards with npm @a2a-js/sdk's own resolver, for the SDK differential test.
//
// stdin: JSON lines {"id": N, "card": {...}}. stdout: one JSON line per card,
// {"id": N, "default": READING, "legacy": READING} where READING is
// {"ok": true, "path": "legacy"|"proto"|"raw", "view": {...}} or {"ok": false, "error": "..."}.
//   default: `new DefaultAgentCardResolver()` (legacyCompat off, as ClientFactory's default
//            resolver `AgentCardResolver.default`);
//   legacy:  `new DefaultAgentCardResolver({ legacyCompat: { enabled: true } })`.
// Each reading gets its own structuredClone of the card, through `normalizeAgentCard`, the
// method `resolve()` and `ClientFactory.createFromAgentCard` both call on the fetched JSON.
// An entry with `raw` (the served bytes, base64) is parsed as the resolver does it, by
// `fetch()`'s `Response.json()`; when that throws, both readings refuse the card.
// `--sdk DIR`: use the @a2a-js/sdk installed under DIR/node_modules (e.g. the lowest version of
// the npm package's peer range, .tools/a2a-sdk-1.0.1) instead of the project's own.
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const sdkAt = process.argv.indexOf('--sdk');
const sdkFile = (sub) =>
  sdkAt < 0 ? `@a2a-js/sdk/${sub}` : pathToFileURL(join(resolve(process.argv[sdkAt + 1]), 'node_modules/@a2a-js/sdk/dist', sub, 'index.js')).href;
const { AgentCardResolver, DefaultAgentCardResolver } = await import(sdkFile('client'));
const { isLegacyAgentCard } = await import(sdkFile('compat/v0_3/client'));

const resolvers = {
  default: AgentCardResolver.default,
  legacy: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
};
if (!(resolvers.default instanceof DefaultAgentCardResolver) || resolvers.default.options?.legacyCompat?.enabled) {
  throw new Error('AgentCardResolver.default is no longer a DefaultAgentCardResolver without legacyCompat');
}

const isObject = (v) => v !== null && typeof v === 'object';
const json = (v) => (v === undefined ? null : v);

// What a caller using the normalized card sees, in the members the gate reads (raw values: the
// driver decides what counts, e.g. JS truthiness for flags).
function view(card) {
  const caps = isObject(card?.capabilities) ? card.capabilities : {};
  return {
    skills: Array.isArray(card?.skills) ? card.skills.map((s) => json(isObject(s) ? s.id : undefined)) : [],
    extensions: Array.isArray(caps.extensions)
      ? caps.extensions.map((e) => json(isObject(e) ? e.uri : undefined))
      : [],
    streaming: json(caps.streaming),
    pushNotifications: json(caps.pushNotifications),
    extendedAgentCard: json(caps.extendedAgentCard),
    interfaces: Array.isArray(card?.supportedInterfaces)
      ? card.supportedInterfaces.map((i) =>
          isObject(i) ? [json(i.protocolBinding), json(i.protocolVersion)] : [null, null])
      : [],
    version: json(card?.version),
    name: json(card?.name),
  };
}

function read(resolver, card) {
  const mine = structuredClone(card);
  let path = 'raw';
  if (resolver.options?.legacyCompat?.enabled && isLegacyAgentCard(structuredClone(card))) path = 'legacy';
  else if (resolver.isProtoAgentCard(structuredClone(card))) path = 'proto';
  try {
    const normalized = resolver.normalizeAgentCard(mine);
    return { ok: true, path, view: view(normalized) };
  } catch (e) {
    return { ok: false, path, error: `${e?.name ?? 'Error'}: ${e?.message ?? e}`.slice(0, 300) };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
const out = [];
for await (const line of lines) {
  if (!line.trim()) continue;
  const entry = JSON.parse(line);
  const { id } = entry;
  let card = entry.card;
  if (entry.raw !== undefined) {
    try {
      card = await new Response(Buffer.from(entry.raw, 'base64')).json();
    } catch (e) {
      const refused = { ok: false, path: 'fetch', error: `${e?.name ?? 'Error'}: ${e?.message ?? e}`.slice(0, 300) };
      out.push(JSON.stringify({ id, default: refused, legacy: refused }));
      continue;
    }
  }
  out.push(JSON.stringify({ id, default: read(resolvers.default, card), legacy: read(resolvers.legacy, card) }));
  if (out.length >= 256) process.stdout.write(out.splice(0).join('\n') + '\n');
}
if (out.length) process.stdout.write(out.join('\n') + '\n');
