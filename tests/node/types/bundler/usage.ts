// A bundler consumer (moduleResolution "bundler", lib ES2020 only, no DOM, no @types/node):
// the declarations must compile on their own.
import init, {
  AgentCardTimeoutError,
  CardGateResolver,
  DEFAULT_TIMEOUT_MS,
  StaleAgentCardError,
  evaluate,
  gateAgentCard,
  resolveAgentCard,
  type AbortSignalLike,
  type Decision,
} from 'cardgate';

export async function gated(bytes: Uint8Array, signal?: AbortSignalLike): Promise<string> {
  await init(bytes);
  const decision: Decision = evaluate('{}', { max_stale: '10s' }, { lag_ms: '1', now: null });
  const card = gateAgentCard({ name: 'w' }, { pin: 'sha256:' + '0'.repeat(64) });
  try {
    await resolveAgentCard<{ name: string }>('https://registry.invalid/card.json', {}, { timeoutMs: DEFAULT_TIMEOUT_MS, signal });
  } catch (e) {
    if (e instanceof AgentCardTimeoutError) return `timeout ${e.timeoutMs}`;
    if (e instanceof StaleAgentCardError) return e.retry;
  }
  const resolver = new CardGateResolver<{ name: string }>({ requirement: {}, cardRequirement: { pin: 'sha256:' + '1'.repeat(64) } });
  return `${decision.verdict} ${card.name} ${resolver.normalizeAgentCard(card).name}`;
}
