// argv[2]: pkg dir; stdin: JSON list of {card_b64, requirement, observation}; prints one line per case
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const cg = require(process.argv[2] + '/node/index.cjs');
let input = '';
for await (const c of process.stdin) input += c;
const out = [];
for (const c of JSON.parse(input)) {
  const bytes = new Uint8Array(Buffer.from(c.card_b64, 'base64'));
  try {
    out.push({ raw: cg.evaluateRaw(bytes, c.requirement, c.observation) });
  } catch (e) {
    out.push({ error: e.constructor.name, message: String(e.message), path: e.path ?? null });
  }
}
console.log(JSON.stringify(out));
