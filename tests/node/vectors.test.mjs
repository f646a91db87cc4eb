// The shared vectors replayed through the installed package (ESM and CommonJS, and the browser
// build instantiated in Node): every `expect` member, and the decision JSON byte-identical to the
// native CLI (given the same requirement and observation JSON) for every case.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureConsumer, importPackage, importWebPackage, requirePackage } from './consumer.mjs';
import { caseBytes, cliDecision, compareExpect, loadVectors } from './helpers.mjs';

const dir = ensureConsumer();
const esm = await importPackage(dir);
const cjs = await requirePackage(dir);
const web = await importWebPackage(dir);
await web.default(readFileSync(join(dir, 'node_modules/cardgate/web/cardgate_bg.wasm')));
const cases = loadVectors();

test('the vectors are there', () => {
  assert.ok(cases.length >= 100, `only ${cases.length} vector cases found`);
  assert.equal(new Set(cases.map((c) => c.name)).size, cases.length, 'case names are unique');
});

// A case with `headers` (response headers served with the card) needs a host that reads an HTTP
// response; `evaluate` takes no headers, so it is skipped here: vectors-headers.test.mjs serves
// it over HTTP to the package's resolveAgentCard and to `cardgate resolve`.
const HEADERS_SKIP = 'the case sets response headers, which evaluate() does not take (served over HTTP in vectors-headers.test.mjs)';

for (const c of cases) {
  test(`${c.file}: ${c.name}`, c.headers ? { skip: HEADERS_SKIP } : {}, () => {
    const bytes = caseBytes(c);
    // Requirement and observation as JSON text: passed verbatim, exactly what the native runner reads.
    const req = JSON.stringify(c.requirement ?? {});
    const obs = JSON.stringify(c.observation ?? {});
    const raw = esm.evaluateRaw(bytes, req, obs);
    const decision = JSON.parse(raw);
    assert.deepEqual(compareExpect(c.expect, decision), [], 'expect members');
    assert.deepEqual(esm.evaluate(bytes, req, obs), decision, 'evaluate == JSON.parse(evaluateRaw)');

    // Same bytes through CommonJS and through the browser build.
    assert.equal(cjs.evaluateRaw(bytes, req, obs), raw, 'CommonJS entry');
    assert.equal(web.evaluateRaw(bytes, req, obs), raw, 'web build');

    // Object forms of the requirement/observation give the same decision (with `now: null`
    // the wrapper adds no clock, so the inputs are identical).
    assert.equal(
      esm.evaluateRaw(bytes, c.requirement ?? {}, { ...(c.observation ?? {}), now: c.observation?.now ?? null }),
      raw,
      'object inputs',
    );
    // A `card` given as a value can be passed as the object itself.
    if (c.card !== undefined) assert.equal(esm.evaluateRaw(c.card, req, obs), raw, 'card as object');

    // cardHash(bytes) is the decision's card_hash whenever the body parsed, and throws otherwise.
    if (decision.card_hash !== undefined) assert.equal(esm.cardHash(bytes), decision.card_hash, 'cardHash agrees');
    else assert.throws(() => esm.cardHash(bytes), (e) => e instanceof TypeError || e instanceof RangeError);

    const native = cliDecision(c);
    assert.equal(raw, native.json, 'byte-identical to target/release/cardgate check');
    assert.equal(native.status, decision.verdict === 'valid' ? 0 : 1, 'CLI exit code');
  });
}


