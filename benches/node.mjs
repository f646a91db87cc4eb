// Prints what one evaluation costs through the npm package (wasm) next to the native CLI's core,
// on the same card and inputs. Run: `make bench-js` (after `make pkg`). Figures, not a test: the
// machine is shared and noisy, so read the ratio of the two runs, measured back to back.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const cg = createRequire(import.meta.url)(join(ROOT, 'pkg', 'node', 'index.cjs'));

const card = JSON.stringify({
  name: 'worker-7',
  description: 'Executes planner tasks',
  version: '3.0.0',
  supportedInterfaces: [{ url: 'wss://worker-7.internal/a2a/v3', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [1, 2, 3].map((i) => ({ id: `task.execute.v${i}`, name: `Execute ${i}`, description: 'Runs a task', tags: ['exec'] })),
});
const bytes = new TextEncoder().encode(card);
const requirement = JSON.stringify({ require: ['task.execute.v3', 'capability:streaming'], min_version: '3.0.0', max_stale: '10s' });
const observation = JSON.stringify({ lag_ms: '1200', age_s: '2' });

function perOp(label, iters, fn) {
  for (let i = 0; i < iters / 10; i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iters; i++) fn();
  const us = Number(process.hrtime.bigint() - start) / 1000 / iters;
  console.log(`  ${label.padEnd(44)} ${us.toFixed(1).padStart(8)} µs/op`);
  return us;
}

console.log(`cardgate npm package benchmark (Node ${process.version}, ${bytes.length}-byte card)`);
const raw = perOp('evaluateRaw (bytes in, decision JSON out)', 20000, () => cg.evaluateRaw(bytes, requirement, observation));
const obj = perOp('evaluate (objects in, parsed decision out)', 20000, () =>
  cg.evaluate(card, { require: ['task.execute.v3', 'capability:streaming'], min_version: '3.0.0', max_stale: '10s' }, { lag_ms: '1200', age_s: '2', now: null }),
);
perOp('cardHash', 20000, () => cg.cardHash(bytes));
const heap = process.memoryUsage();
console.log(`  heap used ${(heap.heapUsed / 1048576).toFixed(1)} MiB, wasm+buffers (external+arrayBuffers) ${((heap.external + heap.arrayBuffers) / 1048576).toFixed(1)} MiB`);
console.log(`  object-API overhead over evaluateRaw: ${(obj / raw).toFixed(2)}x`);
// The same evaluation once through the CLI, to confirm both sides decide identically.
const native = execFileSync(join(ROOT, 'target', 'release', 'cardgate'), ['check', '-', `--requirement=${requirement}`, `--observation=${observation}`, '--no-clock'], { input: bytes }).toString().trim();
console.log(`  decision identical to the native CLI: ${native === cg.evaluateRaw(bytes, requirement, observation)}`);
