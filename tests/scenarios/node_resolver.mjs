import { createRequire } from 'node:module';
import { createServer } from 'node:http';
const require = createRequire(import.meta.url);
const cg = require(process.argv[2] + '/node/index.cjs');
const { ClientFactory, ClientFactoryOptions } = await import(process.cwd() + '/../../node_modules/@a2a-js/sdk/dist/client/index.js');
const fresh = JSON.parse(process.argv[3]);
let lag = '9000';
let extra = {};
const srv = createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json', 'x-replica-lag-ms': lag, ...extra }); res.end(JSON.stringify(fresh)); });
await new Promise((r) => srv.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${srv.address().port}/agents/w/`;
const req = { require: ['task.execute.v3'], max_stale: '10s' };
const log = (k, v) => console.log(k.padEnd(44), v);
const resolver = new cg.CardGateResolver({ requirement: req });
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { cardResolver: resolver }));
const card = await resolver.resolve(base);
log('resolve lag 9000 of 10s', 'accepted');
await new Promise((r) => setTimeout(r, 1500));
try { await factory.createFromAgentCard(card); log('createFromAgentCard 1.5s later', 'ACCEPTED (expected refused: aged 10.5s)'); }
catch (e) { log('createFromAgentCard 1.5s later', 'refused ' + e.constructor.name + ' ' + e.decision?.reasons?.map((r) => r.code)); }
lag = '0';
const c2 = await resolver.resolve(base);
try { await factory.createFromAgentCard(c2); log('createFromAgentCard right after lag 0', 'accepted'); } catch (e) { log('createFromAgentCard lag 0', 'refused ' + e.message); }
const mutated = { ...c2, supportedInterfaces: [{ url: 'wss://evil/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
try { await factory.createFromAgentCard(mutated); log('createFromAgentCard mutated endpoint', 'ACCEPTED (expected refused)'); } catch (e) { log('createFromAgentCard mutated endpoint', 'refused ' + e.constructor.name); }
// Age header counts
lag = '5000'; extra = { age: '6' };
try { await resolver.resolve(base); log('resolve lag 5000 + Age 6', 'ACCEPTED (expected refused 11000)'); } catch (e) { log('resolve lag 5000 + Age 6', 'refused ' + e.decision?.staleness_ms); }
extra = {};
// sources must contain baseUrl
const r2 = new cg.CardGateResolver({ requirement: req, sources: [base] });
try { await r2.resolve('http://127.0.0.1:1/agents/other/'); log('resolve base not in sources', 'ACCEPTED?'); } catch (e) { log('resolve base not in sources', 'refused ' + e.constructor.name + ': ' + e.message.slice(0, 80)); }
// a card returned by resolve, then mutated in place, then createFromAgentCard
lag = '0';
const c3 = await resolver.resolve(base);
c3.skills[0].id = 'task.execute.v9';
try { await factory.createFromAgentCard(c3); log('createFromAgentCard card mutated in place', 'ACCEPTED (expected refused)'); } catch (e) { log('createFromAgentCard card mutated in place', 'refused ' + e.constructor.name); }
// gateAgentCard with no watermark
try { cg.gateAgentCard(fresh, req, {}); log('gateAgentCard no watermark', 'ACCEPTED'); } catch (e) { log('gateAgentCard no watermark', 'refused ' + e.constructor.name + ' ' + e.decision.reasons.map((r) => r.code) + ' card attached=' + !!e.decision.card + ' e.card=' + !!e.card); }
srv.close();
