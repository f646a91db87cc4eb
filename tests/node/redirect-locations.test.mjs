// tests/vectors/url/redirect_locations.json holds what this Node's fetch requests for each
// redirect (the reading `cardgate resolve`'s unit test holds its own to): regenerated from the
// same seed it is the same file, and every case is still this Node's reading.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FILE, fetchRequests, generate, stale } from './redirect-locations.mjs';

test('redirect locations: the vectors are what this Node reads', () => {
  const file = JSON.parse(readFileSync(FILE, 'utf8'));
  assert.deepEqual(file.cases, generate().cases, 'regenerate with: node tests/node/redirect-locations.mjs --write');
  assert.deepEqual(stale(), []);
  // The reading itself: undici requests pathname + search (no fragment, no empty `?`).
  assert.equal(fetchRequests('http://a/x', '///B.example:80/c/../d?#f'), 'http://b.example/d');
  assert.equal(fetchRequests('https://a/x', 'http://u:p@b/'), null);
});
