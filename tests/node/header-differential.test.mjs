// The two hosts that fetch a card by URL read its watermark headers each through their own HTTP
// stack: the npm package through the runtime's fetch (undici here: it trims, joins repeated
// names with ", ", refuses some bytes) and its own header reading (js/api.js
// `observationFromHeaders`), `cardgate resolve` through ureq and the core's
// (`watermark_sources::observe`). This differential serves one fresh card with each watermark
// header set to value shapes that HTTP stacks treat differently (surrounding and inner
// whitespace, signs, leading zeros, fractions, exponents, lists, quotes, NBSP, control bytes,
// the 10 s boundary, leader flags, timestamp spellings) and asks that both hosts give the same
// verdict, reasons and staleness, or both fail the source.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { importPackage } from './consumer.mjs';
import { CLI } from './helpers.mjs';

const cg = await importPackage();

const CARD = JSON.stringify({
  name: 'w',
  version: '3.0.0',
  supportedInterfaces: [{ url: 'https://w.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  skills: [{ id: 's', name: 's', description: 'd', tags: [] }],
});
const REQ = { require: ['s'], max_stale: '10s' };
const NOW = '2026-12-04T00:00:05Z';

const FIGURES = [
  '250', ' 250', '250 ', '\t250', '250\t', ' 250 ', '', ' ', '+250', '-0', '0', '00', '0250',
  '250.0', '2.5e2', '250,', ',250', '250, 250', '250;x', '0x10', '1e400',
  '9999999999999999999999', '250\u00a0', '\u00a0250', '25 0', '"250"', '250\x0b', '\x0c250',
  '1.5', '.5', '5.', 'NaN', 'inf', '-1', '10000', '10001', '9999.9999', '10000.0001', '10', '9.999',
];
const SHAPES = [];
for (const v of FIGURES) {
  SHAPES.push([['x-replica-lag-ms', v]]);
  SHAPES.push([['x-replica-lag-s', v]]);
  SHAPES.push([['x-replica-lag-ms', '100'], ['age', v]]);
  SHAPES.push([['x-consul-lastcontact', v], ['x-consul-knownleader', 'true']]);
  SHAPES.push([['x-consul-lastcontact', '5'], ['x-consul-knownleader', v]]);
}
for (const v of ['true', 'True', 'TRUE', ' true', 'true ', 'yes', '1', 'false', 'true, true']) {
  SHAPES.push([['x-consul-lastcontact', '5'], ['x-consul-knownleader', v]]);
}
for (const v of [
  '2026-12-04T00:00:00Z', ' 2026-12-04T00:00:00Z', '2026-12-04T00:00:00Z ', '2026-12-04t00:00:00z',
  '2026-12-04 00:00:00Z', '2026-12-04T00:00:00+00:00', '2026-12-04T00:00:00.5Z', '2026-12-04T00:00:60Z',
  '2026-12-03T23:59:50Z', '2026-12-03T23:59:55Z', '2026-12-03T23:59:54.999Z', 'Fri, 04 Dec 2026 00:00:00 GMT',
]) {
  SHAPES.push([['x-replica-synced-at', v]]);
}
// Repeated names: kept apart on the wire, joined by fetch.
SHAPES.push([['x-replica-lag-ms', '250'], ['X-Replica-Lag-Ms', '250']]);
SHAPES.push([['age', '1'], ['age', '1'], ['x-replica-lag-ms', '0']]);

let server;
let base;
before(async () => {
  server = createServer((socket) => {
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const shape = SHAPES[Number(/^GET \/s\/(\d+) /.exec(head)?.[1])];
      if (!shape) {
        socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
        return;
      }
      const lines = ['HTTP/1.1 200 OK', ...shape.map(([n, v]) => `${n}: ${v}`), `content-length: ${CARD.length}`, 'connection: close', '', ''];
      socket.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), Buffer.from(CARD)]));
    });
    socket.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

const FAILED_SOURCE = 'failed source';
const summary = (d) => `${d.verdict} [${(d.reasons ?? []).map((r) => r.code)}] staleness ${d.staleness_ms ?? '-'}`;

async function viaPackage(url) {
  let decision = null;
  try {
    await cg.resolveAgentCard(url, REQ, { now: NOW, onDecision: (d) => { decision = d; } });
  } catch (e) {
    if (decision === null) {
      assert.equal(e.name, 'AgentCardFetchError', `the package threw ${e.name}: ${e.message}`);
      return FAILED_SOURCE;
    }
  }
  return summary(decision);
}

async function viaCli(url) {
  const child = spawn(CLI, ['resolve', url, `--requirement=${JSON.stringify(REQ)}`, '--max-attempts=1', `--now=${NOW}`]);
  const out = [];
  child.stdout.on('data', (d) => out.push(d));
  const status = await new Promise((resolve) => child.on('close', resolve));
  assert.ok(status === 0 || status === 1, `cardgate resolve exited ${status}`);
  const d = JSON.parse(Buffer.concat(out).toString('utf8'));
  const failed = d.resolution?.attempts?.[0]?.outcome === 'failed' || (d.reasons ?? []).some((r) => r.code === 'source_unavailable');
  return failed ? FAILED_SOURCE : summary(d);
}

test('the package and cardgate resolve read every watermark header shape alike', async (t) => {
  const apart = [];
  const tally = new Map();
  for (const [i, shape] of SHAPES.entries()) {
    const url = `${base}/s/${i}`;
    const [pkg, cli] = [await viaPackage(url), await viaCli(url)];
    const verdict = pkg.split(' ')[0];
    tally.set(verdict, (tally.get(verdict) ?? 0) + 1);
    if (pkg !== cli) apart.push(`${JSON.stringify(shape)}\n    package: ${pkg}\n    cli:     ${cli}`);
  }
  t.diagnostic(`${SHAPES.length} header shapes: ${[...tally].map(([k, n]) => `${n} ${k}`).join(', ')}`);
  // Both verdicts occur: the shapes reach past the parsers into the rule.
  assert.ok((tally.get('valid') ?? 0) > 10 && (tally.get('rejected') ?? 0) > 10, JSON.stringify([...tally]));
  assert.deepEqual(apart, [], `${apart.length} shapes read apart:\n${apart.join('\n')}`);
});
