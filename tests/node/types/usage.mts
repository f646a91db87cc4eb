// Type-checked (tsc --noEmit --strict) against the installed package, Node ES module entry.
import init, {
  AgentCardFetchError,
  assertValid,
  canonicalize,
  cardHash,
  CapabilityMismatchError,
  CardGateError,
  CardGateResolver,
  checkPolicy,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_WATERMARK,
  evaluate,
  evaluateRaw,
  MalformedAgentCardError,
  resolveAgentCard,
  StaleAgentCardError,
  toError,
  type Decision,
  type RequirementJson,
  type ResolutionAttempt,
  type RetryHint,
} from 'cardgate';

await init();
const requirement: RequirementJson = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' };
const card = { name: 'worker-7', version: '3.0.0', capabilities: {}, skills: [{ id: 'task.execute.v3' }] };

const decision: Decision = evaluate(card, requirement, { lag_ms: '3000', now: new Date() });
if (decision.verdict === 'valid') {
  const hash: string = decision.card_hash;
  const freshness: 'watermark' | 'pinned' = decision.freshness;
  void hash, freshness;
} else {
  const codes: string[] = decision.reasons.map((r) => r.code);
  const missing: string[] | undefined = decision.missing_capabilities;
  void codes, missing;
}
const text: string = evaluateRaw(new TextEncoder().encode(JSON.stringify(card)), JSON.stringify(requirement), '{}');
const bytes: string = evaluateRaw(Buffer.from('{}'), null, { now: 0 });
const pin: string = cardHash(card);
const canon: string = canonicalize('{"b":1,"a":2}');
checkPolicy({ defaults: { max_stale: '10s' } });
void text, bytes, pin, canon;

const error = toError(decision);
if (error instanceof StaleAgentCardError) {
  const retry: 're-resolve' = error.retry;
  void retry;
} else if (error instanceof CapabilityMismatchError) {
  const retry: 'none' = error.retry;
  const missing: string[] = error.missingCapabilities;
  void retry, missing;
} else if (error instanceof MalformedAgentCardError) {
  const c: unknown = error.card;
  void c;
}
try {
  assertValid(decision);
} catch (e) {
  if (e instanceof CardGateError) {
    const hint: RetryHint = e.retry;
    const h: string | null = e.cardHash;
    void hint, h;
  }
}

const resolved = await resolveAgentCard<{ name: string }>('http://127.0.0.1:1/card.json', requirement, {
  watermark: { ...DEFAULT_WATERMARK, lagMsHeader: 'x-lag', consul: false, corsExposed: true },
  headers: { authorization: 'Bearer x' },
  now: Date.now(),
  onDecision: (d, info) => void [d.verdict, info.url, info.finalUrl?.length],
  // The DOM's / Node's AbortSignal fits AbortSignalLike; the timeout is per resolution.
  signal: new AbortController().signal,
  timeoutMs: 2500,
});
await resolveAgentCard('http://127.0.0.1:1/card.json', requirement, { signal: AbortSignal.timeout(50), timeoutMs: Infinity });
const name: string = resolved.name;
void name;

// Re-resolution: an ordered list of sources, bounds, the attempts on the error and the result.
const fromList = await resolveAgentCard<{ version: string }>(['http://127.0.0.1:1/replica', new URL('http://127.0.0.1:1/primary')], requirement, {
  maxAttempts: DEFAULT_MAX_ATTEMPTS,
  deadlineMs: 2000,
  onResolution: (d, info) => void [d.resolution?.outcome, info.url, info.attempts?.length, info.finalUrl?.length],
  // Redirects: the Node build asks for `manual` and follows them itself.
  fetch: (url, init) => fetch(url, { method: init.method, headers: init.headers, redirect: init.redirect }),
});
void fromList.version;
try {
  await resolveAgentCard(['http://127.0.0.1:1/replica'], requirement);
} catch (e) {
  if (e instanceof CardGateError && e.attempts) {
    const first: ResolutionAttempt | undefined = e.attempts[0];
    if (first && first.verdict === 'failed') void [first.error.length, first.final_url?.length];
    else if (first) void [first.error_class, first.final_url?.length];
  }
}
const viaSources = new CardGateResolver({ requirement, sources: ['http://127.0.0.1:1/r/', 'http://127.0.0.1:1/p/'] });
const mapped = new CardGateResolver({ requirement, sources: async (base) => [base, base.replace('/r/', '/p/')] });
await viaSources.resolve('http://127.0.0.1:1/r/');
const last = mapped.lastResolution;
if (last) void [last.url, last.decision.verdict, last.attempts, last.finalUrl];
try {
  await resolveAgentCard('https://127.0.0.1:1/card.json', requirement);
} catch (e) {
  if (e instanceof AgentCardFetchError) void [e.url, e.finalUrl?.length, e.status];
}

// @ts-expect-error: a number is not a card
evaluate(42, {});
// @ts-expect-error: a timeout is a number of ms
void resolveAgentCard('http://127.0.0.1:1/card.json', requirement, { timeoutMs: '10s' });
// @ts-expect-error: maxAttempts is a number
void resolveAgentCard(['http://127.0.0.1:1/card.json'], requirement, { maxAttempts: '3' });
// @ts-expect-error: max_stale is a duration string
evaluate(card, { max_stale: 10 });
// @ts-expect-error: unknown requirement member
evaluate(card, { maxStale: '10s' });
