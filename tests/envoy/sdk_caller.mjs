// The Node planner of tests/envoy/test_sdk_callers.py: the real @a2a-js/sdk 1.3.0 ClientFactory
// with its default card resolver (no CardGateResolver) discovers worker-7 through whatever URL
// it is given (the Envoy filter, or the registry replica directly) and delegates one message.
//
// stdin: one JSON object per line:
//   {"base": URL, "path": string|null, "headers": {...}|null, "text": string}
//   - headers null: `new ClientFactory()` exactly as the SDK's README shows, global fetch.
//   - headers set: the caller's requirement sent the way the SDK lets a user add headers, its
//     `fetchImpl` option (DefaultAgentCardResolver and JsonRpcTransportFactory both take one).
// stdout: one JSON object per line:
//   {"stage": "discovery"|"client"|"send"|"done", "error": {name, message, ...}|null,
//    "fetches": [{url, method, status, headers, body_b64}],  every fetch the SDK made, as received
//    "card": the SDK's parsed card (discovery passed), "picked": the url the client sends to,
//    "reply": {"state", "text"}}
// Every fetch the SDK makes is recorded by wrapping globalThis.fetch (also under a fetchImpl),
// so the test can hash the exact bytes the SDK parsed.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Role, taskStateToJSON } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';

const realFetch = globalThis.fetch;
let fetches = [];

async function recordingFetch(input, init) {
  const response = await realFetch(input, init);
  const body = Buffer.from(await response.clone().arrayBuffer());
  fetches.push({
    url: String(input instanceof Request ? input.url : input),
    method: init?.method ?? 'GET',
    status: response.status,
    redirected: response.redirected,
    final_url: response.url,
    headers: [...response.headers.entries()],
    body_b64: body.toString('base64'),
  });
  return response;
}
globalThis.fetch = recordingFetch;

/** The user's fetchImpl: the caller's requirement headers on every request it makes. */
const withHeaders = (extra) => (input, init = {}) => {
  const headers = new Headers(init.headers ?? {});
  for (const [k, v] of Object.entries(extra)) headers.set(k, v);
  return globalThis.fetch(input, { ...init, headers });
};

function factoryFor(headers, preferred) {
  if (preferred) {
    // The SDK's default transports (JSON-RPC and REST), told which binding the caller speaks.
    return new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: preferred }),
    );
  }
  if (headers === null) return new ClientFactory();
  const fetchImpl = withHeaders(headers);
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
}

const describe = (e) => ({
  name: e?.name,
  constructor: e?.constructor?.name,
  message: String(e?.message ?? e),
  // What a caller can read off the exception besides its message.
  own: Object.fromEntries(Object.entries(e ?? {}).map(([k, v]) => [k, typeof v === 'object' ? String(v) : v])),
  cause: e?.cause ? String(e.cause?.message ?? e.cause) : null,
});

async function run(job) {
  fetches = [];
  const out = { stage: 'discovery', error: null, card: null, picked: null, reply: null };
  let client;
  const factory = factoryFor(job.headers ?? null, job.preferred ?? null);
  try {
    client = await factory.createFromUrl(job.base, job.path ?? undefined);
  } catch (e) {
    out.error = describe(e);
    return out;
  }
  out.stage = 'send';
  const card = client.agentCard ?? (await client.getAgentCard?.());
  out.card = card ?? null;
  out.picked = client.transport?.endpoint ?? null;
  // The planner invokes the execute skill the resolved card advertises (as in the incident).
  const skill = (card?.skills ?? []).map((s) => s.id).find((id) => id.startsWith('task.execute')) ?? '';
  try {
    const reply = await client.sendMessage({
      tenant: '',
      message: {
        messageId: randomUUID(),
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [{ content: { $case: 'text', value: job.text ?? 'plan step 1' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: { skill },
    });
    const status = reply.status ?? {};
    const parts = status.message?.parts ?? reply.parts ?? [];
    out.reply = { state: status.state === undefined ? null : taskStateToJSON(status.state), text: parts.map((p) => p.content?.value ?? '').join(''), skill };
    out.stage = 'done';
  } catch (e) {
    out.error = describe(e);
  }
  return out;
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let result;
  try {
    result = await run(JSON.parse(line));
  } catch (e) {
    result = { stage: 'harness', error: describe(e) };
  }
  result.fetches = fetches;
  process.stdout.write(JSON.stringify(result) + '\n');
}
