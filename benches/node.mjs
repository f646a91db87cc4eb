// What one evaluation costs through the npm package (pkg/, `make pkg`) next to the JS peer
// (bench/peers/peer_js.mjs: JSON.parse + npm canonicalize + node:crypto), on the shared cards.
//
//   node benches/node.mjs            one pass, printed (`make bench-js`)
//   node benches/node.mjs --against DIR [--rounds N]
//                                    same-process A/B: this package (pkg/) and the package in DIR
//                                    (e.g. `make pkg` on another branch, copied), interleaved
//                                    rounds, CPU time per call; median and min of each, and of the
//                                    per-round ratio
//   node benches/node.mjs --serve    a worker for `make bench` (bench/run.py), which round-robins
//                                    it with the native core and the Python peer. Protocol, one
//                                    line each way: `run <card path> <op> <iterations>` answers
//                                    the elapsed nanoseconds, `check <card path>` the package's
//                                    decision JSON, `quit` ends.
//
// The package is measured at its three boundaries: bytes in (evaluateRaw(Uint8Array)), string
// in (evaluateRaw(string)) and objects in (evaluate(card object, requirement object, observation
// object), decision object out). The peer takes the card text, as its author wrote it.
// Figures, never a test: the machine is shared and noisy, compare ratios from one run.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const serveMode = process.argv.includes('--serve');
const argAfter = (flag) => {
  const i = process.argv.indexOf(flag);
  return i < 0 ? undefined : process.argv[i + 1];
};
const againstDir = argAfter('--against');
const abRounds = Number(argAfter('--rounds') ?? 21);
// The peer runs its own command line on import: give it none.
process.argv.splice(2);

const require = createRequire(import.meta.url);
const cg = require(join(ROOT, 'pkg', 'node', 'index.cjs'));

// npm canonicalize 2.x, which the peer needs: .ci/setup.sh bench installs it into .tools/.
const localCanonicalize = join(ROOT, '.tools', 'bench-node', 'node_modules', 'canonicalize');
if (!process.env.CANONICALIZE && existsSync(localCanonicalize)) process.env.CANONICALIZE = localCanonicalize;
let peer = null;
try {
  peer = (await import(pathToFileURL(join(ROOT, 'bench', 'peers', 'peer_js.mjs')).href)).evaluate;
} catch (e) {
  if (serveMode) throw e;
  console.log(`JS peer skipped (${e.message.split('\n')[0]}): run \`.ci/setup.sh bench\` or \`make bench\``);
}

// The peers' requirement (bench/README.md).
const REQUIREMENT = { require: ['task.execute.v3'], min_version: '7', max_stale: '10s' };
const OBSERVATION = { lag_ms: '500' };
const REQUIREMENT_TEXT = JSON.stringify(REQUIREMENT);
const OBSERVATION_TEXT = JSON.stringify(OBSERVATION);
const OBSERVATION_NO_CLOCK = { ...OBSERVATION, now: null };

const cards = new Map();
function card(path) {
  let c = cards.get(path);
  if (!c) {
    const bytes = new Uint8Array(readFileSync(path));
    const text = new TextDecoder().decode(bytes);
    c = { bytes, text, object: JSON.parse(text) };
    const decision = JSON.parse(cg.evaluateRaw(bytes, REQUIREMENT_TEXT, OBSERVATION_TEXT));
    if (decision.verdict !== 'valid') throw new Error(`${path}: package decision is not valid: ${JSON.stringify(decision)}`);
    if (peer) {
      const [, reasons] = peer(text, ['task.execute.v3'], [7], 10, 0.5);
      if (reasons.length) throw new Error(`${path}: JS peer rejects it: ${reasons}`);
    }
    cards.set(path, c);
  }
  return c;
}

const OPS = {
  peer: (c) => peer(c.text, ['task.execute.v3'], [7], 10, 0.5),
  pkg_bytes: (c) => cg.evaluateRaw(c.bytes, REQUIREMENT_TEXT, OBSERVATION_TEXT),
  pkg_string: (c) => cg.evaluateRaw(c.text, REQUIREMENT_TEXT, OBSERVATION_TEXT),
  pkg_objects: (c) => cg.evaluate(c.object, REQUIREMENT, OBSERVATION_NO_CLOCK),
};

let sink = 0;
/** CPU µs per call of `f` over `n` calls (steadier than the clock on a shared machine). */
function cpuPerCall(f, c, n) {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) sink ^= f(c) ? 1 : 0;
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

function run(path, op, n) {
  const c = card(path);
  const f = OPS[op];
  if (!f) throw new Error(`unknown op ${op}`);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) sink ^= f(c) ? 1 : 0;
  return process.hrtime.bigint() - start;
}

if (againstDir) {
  const other = require(join(resolve(againstDir), 'node', 'index.cjs'));
  const otherOps = {
    pkg_bytes: (c) => other.evaluateRaw(c.bytes, REQUIREMENT_TEXT, OBSERVATION_TEXT),
    pkg_string: (c) => other.evaluateRaw(c.text, REQUIREMENT_TEXT, OBSERVATION_TEXT),
    pkg_objects: (c) => other.evaluate(c.object, REQUIREMENT, OBSERVATION_NO_CLOCK),
  };
  const q = (xs, p) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const f = (v) => v.toFixed(2).padStart(8);
  console.log(`A/B, Node ${process.version}: A = ${join(ROOT, 'pkg')}, B = ${resolve(againstDir)}`);
  console.log(`CPU µs per call, ${abRounds} interleaved rounds, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`card     entry        A median B median    A min    B min  B/A median (p10-p90)${peer ? '  JS peer median, min' : ''}`);
  for (const name of ['minimal', 'typical', 'large']) {
    const c = card(join(ROOT, 'bench', 'cards', `${name}.json`));
    for (const op of Object.keys(otherOps)) {
      if (JSON.stringify(otherOps[op](c)) !== JSON.stringify(OPS[op](c))) throw new Error(`${name} ${op}: the two packages decide differently`);
      let n = 1;
      while (cpuPerCall(OPS[op], c, n) * n < 20000) n *= 2;
      const a = [];
      const b = [];
      const ratio = [];
      const peers = [];
      for (let r = 0; r < abRounds; r++) {
        let x;
        let y;
        if (r % 2) {
          x = cpuPerCall(OPS[op], c, n);
          y = cpuPerCall(otherOps[op], c, n);
        } else {
          y = cpuPerCall(otherOps[op], c, n);
          x = cpuPerCall(OPS[op], c, n);
        }
        if (peer) peers.push(cpuPerCall(OPS.peer, c, Math.max(1, n >> 1)));
        a.push(x);
        b.push(y);
        ratio.push(y / x);
      }
      const p = peer ? `${f(q(peers, 0.5))} ${f(Math.min(...peers))}` : '';
      console.log(`${name.padEnd(8)} ${op.padEnd(12)}${f(q(a, 0.5))} ${f(q(b, 0.5))} ${f(Math.min(...a))} ${f(Math.min(...b))}  ${q(ratio, 0.5).toFixed(2)} (${q(ratio, 0.1).toFixed(2)}-${q(ratio, 0.9).toFixed(2)})       ${p}`);
    }
  }
} else if (serveMode) {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    const w = line.trim().split(/\s+/);
    if (w[0] === 'run') process.stdout.write(`${run(w[1], w[2], Number(w[3]))}\n`);
    else if (w[0] === 'check') process.stdout.write(`${cg.evaluateRaw(card(w[1]).bytes, REQUIREMENT_TEXT, OBSERVATION_TEXT)}\n`);
    else if (w[0] === 'quit') break;
    else throw new Error(`bad command ${line}`);
  }
  rl.close();
} else {
  console.log(`cardgate npm package vs the JS peer, one pass (Node ${process.version}; \`make bench\` has the interleaved table)`);
  for (const name of ['minimal', 'typical', 'large']) {
    const path = join(ROOT, 'bench', 'cards', `${name}.json`);
    const c = card(path);
    console.log(`${name}.json (${c.bytes.length} bytes)`);
    const us = {};
    for (const op of Object.keys(OPS)) {
      if (op === 'peer' && !peer) continue;
      // Warm up and size the batch to about 0.3 s.
      let n = 1;
      while (Number(run(path, op, n)) < 75e6) n *= 2;
      n *= 4;
      us[op] = Number(run(path, op, n)) / 1000 / n;
      const vs = us.peer ? `  (JS peer / this: ${(us.peer / us[op]).toFixed(2)})` : '';
      console.log(`  ${op.padEnd(12)} ${us[op].toFixed(2).padStart(9)} µs/op${op === 'peer' ? '' : vs}`);
    }
    // The package decides exactly as the native CLI does.
    const cli = join(ROOT, 'target', 'release', 'cardgate');
    if (existsSync(cli)) {
      const native = execFileSync(cli, ['check', '-', `--requirement=${REQUIREMENT_TEXT}`, `--observation=${OBSERVATION_TEXT}`, '--no-clock'], { input: c.bytes }).toString().trim();
      console.log(`  decision identical to the native CLI: ${native === OPS.pkg_bytes(c)}`);
    }
  }
  if (sink === 2) console.log('');
}
