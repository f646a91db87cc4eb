// Card variants (DESIGN.md, "Card variants"): @a2a-js/sdk's own card handler with `legacyCompat`
// (a real Express server) serves a v1.0 card to `A2A-Version: 1.0`, what @a2a-js/sdk's resolver
// sends, and a v0.3-shaped card to a request without it, what a2a-sdk's A2ACardResolver sends
// when used without its ClientFactory (which sets `A2A-Version: 1.0`), with
// `Vary: A2A-Version`. `cardgate resolve` judges the card served to what it asked, says so on
// stderr when the answer varies, and judges the other variant with `--header 'A2A-Version:'`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { agentCardHandler } from '@a2a-js/sdk/server/express';
import express from 'express';
import { importPackage } from './consumer.mjs';
import { CLI } from './helpers.mjs';

const cg = await importPackage();
const CARD = {
  name: 'worker-7',
  description: 'Task execution worker.',
  version: '3.0.0',
  supportedInterfaces: [
    { url: 'http://127.0.0.1:1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://127.0.0.1:1/a2a/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ],
  capabilities: { streaming: true },
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [{ id: 'task.execute.v3', name: 'Execute task', description: 'Runs one planner task.', tags: ['tasks'] }],
};
const PATH = '/.well-known/agent-card.json';

let server;
let base;
before(async () => {
  const app = express();
  app.use(PATH, agentCardHandler({ agentCardProvider: async () => CARD, legacyCompat: { enabled: true } }));
  // The same card from a handler without legacyCompat: no Vary, one card for every caller.
  app.use(`/plain${PATH}`, agentCardHandler({ agentCardProvider: async () => CARD }));
  await new Promise((resolve) => {
    server = app.listen(0, '127.0.0.1', resolve);
  });
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

/** The bytes the server sends for these request headers, and its Vary. */
async function served(path, headers) {
  const r = await fetch(`${base}${path}`, { headers });
  return { body: await r.text(), vary: r.headers.get('vary') };
}

/** `cardgate resolve` of `path` (asynchronous: the server answering it lives in this process). */
async function resolve(path, extra = []) {
  const args = ['resolve', `${base}${path}`, '--require', 'task.execute.v3', ...extra];
  const { status, stdout, stderr } = await promisify(execFile)(CLI, args, { encoding: 'utf8' }).then(
    (out) => ({ status: 0, ...out }),
    (e) => ({ status: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
  return { status, decision: JSON.parse(stdout), stderr };
}

test('the server serves two cards, by A2A-Version', async () => {
  const v1 = await served(PATH, { 'A2A-Version': '1.0' });
  const legacy = await served(PATH, {});
  assert.equal(v1.vary, 'A2A-Version');
  assert.notEqual(cg.cardHash(v1.body), cg.cardHash(legacy.body));
  assert.equal(JSON.parse(legacy.body).protocolVersion, '0.3', 'a v0.3-shaped card without A2A-Version');
});

test('resolve judges the card served to its request and says the answer varies', { skip: !existsSync(CLI) && 'no native CLI' }, async () => {
  const v1 = await served(PATH, { 'A2A-Version': '1.0' });
  const legacy = await served(PATH, {});
  // The watermark: these cards carry none, so a pin stands in for it.
  const asked = await resolve(PATH, ['--pin', cg.cardHash(v1.body)]);
  assert.equal(asked.status, 0, asked.stderr);
  assert.equal(asked.decision.card_hash, cg.cardHash(v1.body), 'the card served to A2A-Version: 1.0');
  assert.match(asked.stderr, /varies its card on A2A-Version \(its Vary header\): this decision is about the card served to A2A-Version: 1\.0;/);
  // a2a-sdk's variant: no A2A-Version (an empty one, which the server reads as none).
  const none = await resolve(PATH, ['--pin', cg.cardHash(legacy.body), '--header', 'A2A-Version:']);
  assert.equal(none.status, 0, none.stderr);
  assert.equal(none.decision.card_hash, cg.cardHash(legacy.body), 'the card a2a-sdk is served');
  assert.match(none.stderr, /the card served to an empty A2A-Version/);
  // Pinned to the other variant's hash: refused (the pin binds a caller to the judged bytes).
  const crossed = await resolve(PATH, ['--pin', cg.cardHash(legacy.body)]);
  assert.equal(crossed.status, 1);
  // No Vary, no note.
  const plain = await resolve(`/plain${PATH}`, ['--pin', cg.cardHash(v1.body)]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.doesNotMatch(plain.stderr, /varies/);
});
