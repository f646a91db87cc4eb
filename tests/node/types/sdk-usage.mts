// CardGateResolver satisfies @a2a-js/sdk's AgentCardResolver and plugs into ClientFactory.
import type { AgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type AgentCardResolver,
  type CallInterceptor,
} from '@a2a-js/sdk/client';
import { CardGateResolver, extendedCardInterceptor } from 'cardgate';

const sdkNormalize = new DefaultAgentCardResolver();
const resolver: AgentCardResolver = new CardGateResolver<AgentCard>({
  requirement: { require: ['task.execute.v3'], max_stale: '10s' },
  normalize: (card) => sdkNormalize.normalizeAgentCard(card),
});
export const viaDefaults = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { cardResolver: resolver }),
);
export const explicit = new ClientFactory({
  transports: [new JsonRpcTransportFactory()],
  cardResolver: new CardGateResolver({ requirement: (url) => ({ require: [new URL(url).hostname] }) }),
});

// extendedCardInterceptor is a CallInterceptor for the factory's ClientConfig.
const guard: CallInterceptor = extendedCardInterceptor({ require: ['task.execute.v3'], min_version: '3.0.0' });
export const guarded = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    cardResolver: resolver,
    clientConfig: { interceptors: [guard, extendedCardInterceptor('{"card_name":"worker-7"}')] },
  }),
);
// @ts-expect-error: the requirement is a requirement object or its JSON text
extendedCardInterceptor(42);
