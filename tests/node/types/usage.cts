// Type-checked against the installed package, Node CommonJS entry.
import cardgate = require('cardgate');

const d = cardgate.evaluate('{"name":"w","version":"1","capabilities":{},"skills":[]}', { max_stale: '1s' }, { lag_s: 0 });
const e = cardgate.toError(d);
const retry: cardgate.RetryHint | undefined = e?.retry;
const isStale: boolean = e instanceof cardgate.StaleAgentCardError;
export { retry, isStale };
