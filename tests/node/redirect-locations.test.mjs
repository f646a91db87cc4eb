// tests/vectors/url/redirect_locations.json holds what Node's fetch requests for each redirect
// (the reading `cardgate resolve`'s unit test holds its own to), written with Node 20: on Node 20
// and 22, regenerated from the same seed it is the same file, and every case is still this
// Node's reading. Node 24 on read one more class of hosts: an `xn--` label that is not valid
// Punycode (`xn--zz`, `xn--`), which Node 20 and 22 (and the `url` crate `resolve` uses) refuse
// as no URL; there, exactly those cases may differ (`resolve` refuses them: a failed source,
// never another place).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FILE, fetchRequests, generate, stale } from './redirect-locations.mjs';

const MAJOR = Number(process.versions.node.split('.')[0]);

/** Whether `c` (a case of the file) is one Node 24 on reads and Node 20 and 22 refuse. */
function newerNodeReadsBadPunycode(c, now) {
  if (c.fetch !== null || c.response_url !== null || now.fetch === null) return false;
  return new URL(now.fetch).hostname.split('.').some((label) => label.startsWith('xn--'));
}

test('redirect locations: the vectors are what this Node reads', () => {
  const file = JSON.parse(readFileSync(FILE, 'utf8'));
  const generated = generate();
  assert.equal(file.cases.length, generated.cases.length);
  if (MAJOR <= 22) {
    assert.deepEqual(file.cases, generated.cases, 'regenerate with: node tests/node/redirect-locations.mjs --write');
    assert.deepEqual(stale(), []);
  } else {
    const differ = generated.cases.filter((now, i) => JSON.stringify(now) !== JSON.stringify(file.cases[i]));
    const unexplained = differ.filter((now) => {
      const c = file.cases.find((f) => f.base === now.base && f.location === now.location);
      return !c || !newerNodeReadsBadPunycode(c, now);
    });
    assert.deepEqual(unexplained, [], `${process.version} reads these otherwise than Node 20`);
    // The class is there to be told apart (the generator's hosts include `xn--zz` and `xn--`).
    assert.ok(differ.length > 0, `${process.version} reads every case as Node 20 does: drop the exception`);
  }
  // The reading itself: undici requests pathname + search (no fragment, no empty `?`).
  assert.equal(fetchRequests('http://a/x', '///B.example:80/c/../d?#f'), 'http://b.example/d');
  assert.equal(fetchRequests('https://a/x', 'http://u:p@b/'), null);
  // The one class Node versions read apart (besides `^`, which the generator leaves out).
  assert.equal(fetchRequests('http://a/x', 'http://xn--zz/card'), MAJOR <= 22 ? null : 'http://xn--zz/card');
});
