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
import { createInterface } from 'node:readline';
import { AgentCardResolver, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { isLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';

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
  const { id, card } = JSON.parse(line);
  out.push(JSON.stringify({ id, default: read(resolvers.default, card), legacy: read(resolvers.legacy, card) }));
  if (out.length >= 256) process.stdout.write(out.splice(0).join('\n') + '\n');
}
if (out.length) process.stdout.write(out.join('\n') + '\n');
