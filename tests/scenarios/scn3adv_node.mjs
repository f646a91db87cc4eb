// Third pass, adversarial (scn3adv_lib.py): argv[2] pkg dir; stdin JSON list of
// {kind: "eval", card_b64, requirement, observation} | {kind: "resolve", url, requirement, options}
// | {kind: "policy", text}; prints one result per item: {raw} | {decision, ok} | {error, message, path}
// plus the process's peak RSS.
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const cg = require(process.argv[2] + '/node/index.cjs');
let input = '';
for await (const c of process.stdin) input += c;
const out = [];
for (const c of JSON.parse(input)) {
  const t0 = performance.now();
  try {
    if (c.kind === 'eval') {
      const bytes = new Uint8Array(Buffer.from(c.card_b64, 'base64'));
      // as_text: the card as a JS string (its UTF-8 decoded), the package's text path.
      const card = c.as_text ? Buffer.from(bytes).toString('utf8') : bytes;
      out.push({ raw: cg.evaluateRaw(card, c.requirement, c.observation) });
    } else if (c.kind === 'policy') {
      cg.checkPolicy(c.text);
      out.push({ ok: true });
    } else {
      let seen = null;
      const opts = { ...(c.options || {}), onDecision: (d) => { seen = d; }, onResolution: (d) => { seen = d; } };
      try {
        await cg.resolveAgentCard(c.url, c.requirement, opts);
        out.push({ ok: true, decision: seen });
      } catch (e) {
        out.push({ ok: false, cls: e.constructor.name, message: String(e.message), decision: e.decision || seen || null });
      }
    }
  } catch (e) {
    out.push({ error: e.constructor.name, message: String(e.message), path: e.path ?? null });
  }
  out[out.length - 1].ms = Math.round(performance.now() - t0);
}
console.log(JSON.stringify({ results: out, rss: process.memoryUsage().rss }));
