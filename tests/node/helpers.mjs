// Shared by the node tests: the vectors, their exact bytes, and the native CLI as the reference.
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './consumer.mjs';

export { ROOT };
export const VECTORS_DIR = join(ROOT, 'tests', 'vectors');
export const CLI = join(ROOT, 'target', 'release', 'cardgate');

// The seed's incident: the edge replica serves the pre-deploy card, 40 s behind.
export const STALE_CARD = {
  name: 'worker-7',
  version: '2.0.0',
  supportedInterfaces: [{ url: 'wss://worker-7.internal/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  skills: [{ id: 'task.execute.v2', name: 'Execute task', description: 'Runs one planner task.', tags: ['task'] }],
};
export const FRESH_CARD = {
  ...STALE_CARD,
  version: '3.0.0',
  supportedInterfaces: [{ url: 'wss://worker-7.internal/a2a/v3', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  skills: [{ id: 'task.execute.v3', name: 'Execute task', description: 'Runs one planner task.', tags: ['task'] }],
};

/** Every case of tests/vectors/*.json, with `file` added. */
export function loadVectors() {
  const files = readdirSync(VECTORS_DIR).filter((f) => f.endsWith('.json')).sort();
  const cases = [];
  for (const file of files) {
    const doc = JSON.parse(readFileSync(join(VECTORS_DIR, file), 'utf8'));
    for (const c of doc.cases) cases.push({ ...c, file });
  }
  return cases;
}

/** The exact bytes a case sends (DESIGN.md "Vectors"). */
export function caseBytes(c) {
  const forms = ['card', 'card_text', 'card_base64'].filter((k) => Object.prototype.hasOwnProperty.call(c, k));
  if (forms.length !== 1) throw new Error(`${c.name}: needs exactly one of card/card_text/card_base64`);
  if (forms[0] === 'card') return Buffer.from(JSON.stringify(c.card), 'utf8');
  if (forms[0] === 'card_text') return Buffer.from(c.card_text, 'utf8');
  return Buffer.from(c.card_base64, 'base64');
}

/** CLI arguments for a case: the requirement and observation in their JSON forms, verbatim,
 * and no clock unless the case supplies one (as the native runner does). */
export function cliArgs(c) {
  const args = [
    'check',
    '-',
    `--requirement=${JSON.stringify(c.requirement ?? {})}`,
    `--observation=${JSON.stringify(c.observation ?? {})}`,
  ];
  if ((c.observation ?? {}).now === undefined) args.push('--no-clock');
  return args;
}

/** The native decision JSON for a case, or {skip: reason}. */
export function cliDecision(c) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`cargo build --release --bin cardgate\``);
  const args = cliArgs(c);
  // The card goes in as a file: from a pipe the CLI reads at most limit + 1 bytes and can only
  // say "at least" about an oversized body, where the package (handed all the bytes) is exact.
  const dir = mkdtempSync(join(tmpdir(), 'cardgate-vector-'));
  const file = join(dir, 'card.json');
  writeFileSync(file, caseBytes(c));
  args[1] = file;
  let run;
  try {
    run = spawnSync(CLI, args, { maxBuffer: 16 << 20 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (run.status !== 0 && run.status !== 1) {
    throw new Error(`${c.name}: cardgate exited ${run.status}: ${run.stderr}`);
  }
  return { json: run.stdout.toString('utf8').replace(/\n$/, ''), status: run.status };
}

/** Runs the CLI with raw arguments; returns {status, stdout, stderr}. */
export function cli(args, input) {
  const run = spawnSync(CLI, args, { input, maxBuffer: 16 << 20 });
  return { status: run.status, stdout: run.stdout.toString('utf8'), stderr: run.stderr.toString('utf8') };
}

/** Checks every member of `expect` against a decision object; returns a list of differences. */
export function compareExpect(expect, decision) {
  const diffs = [];
  const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  for (const [key, want] of Object.entries(expect)) {
    let got;
    if (key === 'reason_codes') got = (decision.reasons ?? []).map((r) => r.code);
    else got = decision[key];
    if (key === 'missing_capabilities' && got === undefined) got = [];
    if (!eq(got, want)) diffs.push(`${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  return diffs;
}

/** An HTTP/1.1 answer byte for byte: the status line, each [name, value] header in order (a
 * value's characters are its octets, U+0000-U+00FF; a name may repeat), `content-length` and
 * `connection: close`, then the body (a string is sent as UTF-8). */
export function rawAnswer(status, headers, body) {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const lines = [`HTTP/1.1 ${status}`, ...headers.map(([n, v]) => `${n}: ${v}`),
    `content-length: ${bytes.length}`, 'connection: close', '', ''];
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), bytes]);
}

/** A loopback server that answers each connection's first request with the bytes
 * `answer(method, path, head)` gives (a 404 when it gives nothing), exactly as given: no HTTP
 * library between the test and the client. Resolves to { base: 'http://127.0.0.1:PORT', close }. */
export async function rawServer(answer) {
  const server = createServer((socket) => {
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const [method, path] = head.split(' ');
      socket.end(answer(method, path, head) ?? rawAnswer('404 Not Found', [], 'nf'));
    });
    socket.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Listens on a free loopback port; resolves to the server's base URL, `http://127.0.0.1:PORT`. */
export function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
}

/** The package's `@a2a-js/sdk` peer range as installed in `consumer` (tests/node/consumer.mjs):
 * `range` as written, `lowest` its `>=X.Y.Z <N` groups (null for another form), and
 * `lowestModules`, the node_modules .ci/setup.sh installs that lowest release into. */
export function sdkPeerRange(consumer) {
  const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules', 'cardgate', 'package.json'), 'utf8'));
  const range = manifest.peerDependencies?.['@a2a-js/sdk'];
  const lowest = /^>=(\d+\.\d+\.\d+) <(\d+)$/.exec(range ?? '');
  return { manifest, range, lowest, lowestModules: lowest && join(ROOT, '.tools', `a2a-sdk-${lowest[1]}`, 'node_modules') };
}

/** The SDK's client module and version from a node_modules directory. */
export async function loadSdkClient(nodeModules) {
  const dir = join(nodeModules, '@a2a-js', 'sdk');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const client = await import(pathToFileURL(join(dir, pkg.exports['./client'].import)).href);
  return { version: pkg.version, client };
}

export { execFileSync };

/** Runs `fn` while `proto` (Object.prototype, Array.prototype) holds the member `key` described
 * by `descriptor` (a value, or a getter), as a polluted prototype would; removes it after. */
export function whilePolluted(proto, key, descriptor, fn) {
  Object.defineProperty(proto, key, { configurable: true, ...descriptor });
  try {
    return fn();
  } finally {
    delete proto[key];
  }
}
