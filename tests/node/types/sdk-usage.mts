// CardGateResolver satisfies @a2a-js/sdk's AgentCardResolver and plugs into ClientFactory.
import type { AgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type AgentCardResolver,
} from '@a2a-js/sdk/client';
import { CardGateResolver } from 'cardgate';

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
