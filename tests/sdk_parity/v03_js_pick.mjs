// Where @a2a-js/sdk 0.3.x's own clients send each binding, for the pre-1.0 callers' check
// (v03_picks.py). Run with `--sdk DIR`: the @a2a-js/sdk 0.3 installed under DIR/node_modules.
//
// stdin: JSON lines {"id": N, "raw": base64 of the card's bytes}. stdout: one JSON line per card,
// {"id": N, "factory": {"<binding>": url | null}, "a2aclient": url | null, "extended": bool}:
//   factory:   the card through the SDK's DefaultAgentCardResolver (its fetchImpl hands over the
//              bytes: `response.json()`, then normalizeAgentCard) and, for each binding X, a fresh
//              `new ClientFactory({transports: [T], cardResolver}).createFromUrl(...)`, where T is
//              a recording transport factory named X: the SDK's own selection
//              (createFromAgentCard), and T.create's url says where the client would send. A
//              throw is no client (null).
//   a2aclient: `A2AClient.fromCardUrl(...)` with the same fetchImpl (JSON-RPC only): its
//              serviceEndpointUrl, null when it throws.
//   extended:  whether the Client the factory built would fetch the extended card
//              (`getAgentCard()` tests the card's supportsAuthenticatedExtendedCard).
//   flags:     {"factory": {...}, "a2aclient": {...}}, each {"streaming": bool,
//              "pushNotifications": bool}: the truthiness of `capabilities.<flag>` in the card
//              each holds (the resolver's card, which the factory's Client keeps, and the card
//              A2AClient fetched as is), which their streaming and push-notification calls
//              test; null when it has no card.
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const sdkAt = process.argv.indexOf('--sdk');
if (sdkAt < 0) throw new Error('v03_js_pick.mjs: --sdk DIR is required');
const client = await import(
  pathToFileURL(join(resolve(process.argv[sdkAt + 1]), 'node_modules/@a2a-js/sdk/dist/client/index.js')).href
);
const { A2AClient, ClientFactory, DefaultAgentCardResolver } = client;
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { id, raw } = JSON.parse(line);
  const bytes = Buffer.from(raw, 'base64');
  const fetchImpl = async () =>
    new Response(bytes, { status: 200, headers: { 'content-type': 'application/json' } });
  const factory = {};
  let extended = false;
  for (const x of BINDINGS) {
    let sent = null;
    const recorder = {
      protocolName: x,
      async create(url) {
        sent = url;
        return {
          async getExtendedAgentCard() {
            extended = true;
            return {};
          },
        };
      },
    };
    try {
      const c = await new ClientFactory({
        transports: [recorder],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }).createFromUrl('https://card.example/', '');
      await c.getAgentCard();
    } catch {
      sent = null;
    }
    // JSON text, not String(): String() throws on an object with its own toString member.
    factory[x] = typeof sent === 'string' ? sent : sent === null ? null : { notString: JSON.stringify(sent) ?? typeof sent };
  }
  const flags = { factory: null, a2aclient: null };
  try {
    flags.factory = flagsOf(await new DefaultAgentCardResolver({ fetchImpl }).resolve('https://card.example/', ''));
  } catch {
    flags.factory = null;
  }
  let a2aclient = null;
  try {
    const c = await A2AClient.fromCardUrl('https://card.example/agent-card.json', { fetchImpl });
    a2aclient = c.serviceEndpointUrl ?? null;
    flags.a2aclient = flagsOf(await c.getAgentCard());
  } catch {
    a2aclient = null;
  }
  process.stdout.write(JSON.stringify({ id, factory, a2aclient, extended, flags }) + '\n');
}

/** What a client's `if (!card.capabilities.<flag>)` sees (a missing `capabilities` throws there). */
function flagsOf(card) {
  const caps = card?.capabilities;
  if (caps === null || caps === undefined) return { streaming: false, pushNotifications: false };
  return { streaming: Boolean(caps.streaming), pushNotifications: Boolean(caps.pushNotifications) };
}
