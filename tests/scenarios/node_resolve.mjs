// argv[2]: pkg dir; stdin: JSON {urls, requirement, options}; prints {ok, decision|error}
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const cg = require(process.argv[2] + '/node/index.cjs');
let input = '';
for await (const c of process.stdin) input += c;
const { urls, requirement, options } = JSON.parse(input);
let seen;
const opts = { ...(options || {}), onDecision: (d) => { seen = d; }, onResolution: (d) => { seen = d; } };
try {
  const card = await cg.resolveAgentCard(urls.length === 1 ? urls[0] : urls, requirement, opts);
  console.log(JSON.stringify({ ok: true, decision: seen, card }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, cls: e.constructor.name, message: String(e.message), decision: e.decision || seen || null, attempts: e.attempts || null, status: e.status ?? null }));
}
