// Redirect locations as fetch reads them (tests/vectors/url/redirect_locations.json): generated
// pairs of the URL that answered and the `Location` it sent, each with the URL Node's fetch
// (undici) then requests (`fetch`) and the one the answer's `response.url` shows
// (`response_url`: `href` without the fragment). `fetch`: `new URL(location, base)` written as undici writes a request, scheme, host,
// port (none when it is the scheme's default) and `pathname + search` (no fragment, no `?` for
// an empty query); `null` when fetch requests nothing there (not a URL, not http(s), user
// information). `cardgate resolve` follows redirects by the same reading (src/bin/cardgate/url.rs,
// whose unit test replays the file).
//
//   node tests/node/redirect-locations.mjs --write    regenerate the file
//   node tests/node/redirect-locations.mjs --check    exit 1 when the file is not what this Node reads
//   node tests/node/redirect-locations.mjs --seed S --count N --out FILE
//       a bigger corpus, replayed by CARDGATE_REDIRECT_LOCATIONS=FILE cargo test --release
//       --bin cardgate redirect_locations
//
// redirect-locations.test.mjs runs --check's comparison in `make test`. `^` is left out of the
// pieces: Node 20 and 22 send it raw in a path, Node 24 on and the URL Standard today as `%5E`
// (cardgate follows the Standard; DESIGN.md, "Redirects").
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng } from './url-differential.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FILE = resolve(ROOT, 'tests/vectors/url/redirect_locations.json');
const SEED = 34;
const COUNT = 2000;

// The URLs that answer: a path with a query, a bare host, IPv6, an IPv4 address, a default
// port written out, a path whose segment looks like a Windows drive letter.
const BASES = ['http://a.example:8080/x/y/card.json?q=1', 'https://r.example/card', 'http://[::1]:9/a/',
  'http://127.0.0.1:8080/.well-known/agent-card.json', 'https://R.Example:443/p/q/', 'http://h.example/c:/d/'];
// Where the URL Standard's readings part from a naive join: schemes in any case and with one
// or no slash (relative when they repeat the base's), backslashes, runs of slashes.
const SCHEMES = ['http://', 'https://', 'HTTP://', 'hTTps://', 'http:', 'https:', 'http:/', 'https:/', 'http:\\\\',
  '//', '\\\\', '/\\', '\\/', '///', '////', '\\\\\\', '', '', '', 'ftp://', 'javascript:', 'ws://', 'h:'];
// Hosts: IPv4 shorthands and octal/hex parts, IPv6 forms, IDNA (mapped, deviation and
// invalid labels, full-width dots), percent-encoded hosts, user information, characters no
// HTTP request carries.
const HOSTS = ['b.example', 'B.Example', '127.1', '0x7f.0.0.1', '010.0.0.1', '1.2.3.256', '4294967295', '4294967296',
  '1.2.3', '1.2.3.4.', '09.0.0.1', '0x', '[::1]', '[::FFFF:1.2.3.4]', '[1::2::3]', '[::1%25eth0]', '[::]', '[0:0::1]',
  'bücher.example', 'Bücher.Example', 'xn--bcher-kva.example', 'xn--zz', 'xn--', 'ß.example', 'ﬀ.example',
  'Ａ.example', 'a。b', '例え.テスト', '😀.example', 'a\u00adb', 'a\u200db', 'İ.example', 'h%41', 'a%2eb', '%41%42',
  'u@h', 'u:p@h', '', 'a..b', 'example.123', 'x', '.example', 'a b', 'a%2Fb', 'a:b', '{x}', '`', '"', '_srv.example'];
const PORTS = ['', '', ':', ':80', ':443', ':080', ':8080', ':65536', ':0', ':1a'];
// Path segments: dot segments in every spelling, drive-letter look-alikes, characters fetch
// escapes, escapes it keeps, controls it removes.
const SEGMENTS = ['a', 'b', '.', '..', '%2e', '%2E%2e', '.%2E', '', 'é', 'a b', 'a\tb', 'a\nb', '%zz', '%41', '{x}', '|', '`',
  '"', "'", '<>', '\\', '~', '%7e', '..\\', '.\\', 'c:', 'C|', 'x:', 'ab:', 'c%3a'];
const QUERIES = ['', '', '?', '?a=b', '?a b', '?é', "?'", '?`', '?{}', '?"<>', '?%zz', '?#', '?\\'];
const FRAGMENTS = ['', '', '#f', '#', '#a b'];

/** The URL fetch follows `location` answered by `base` to, or null when it requests nothing. */
function followed(base, location) {
  let url;
  try {
    url = new URL(location, base);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || !url.hostname) {
    return null;
  }
  return url;
}

/** The URL undici requests for `location` answered by `base`, or null. */
export function fetchRequests(base, location) {
  const url = followed(base, location);
  return url && `${url.protocol}//${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}${url.search}`;
}

/** The URL the answer's `response.url` then shows (no fragment; an empty query keeps its `?`). */
export function responseUrl(base, location) {
  const url = followed(base, location);
  if (url === null) return null;
  url.hash = '';
  return url.href;
}

export function generate(seed = SEED, count = COUNT) {
  const written = seed === SEED && count === COUNT;
  const r = rng(seed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const cases = [];
  for (let i = 0; i < count; i++) {
    const base = pick(BASES);
    let location = '';
    if (r() < 0.5) {
      location = pick(SCHEMES);
      if (/[/\\]{2}$/.test(location) || r() < 0.3) {
        // Half the time the base's own authority, as written or in upper case (a same-origin
        // redirect, where the Envoy filter reads the path: src/envoy/redirect.rs's test).
        const own = base.split('/')[2];
        location += r() < 0.5 ? pick([own, own.toUpperCase()]) : pick(HOSTS) + pick(PORTS);
      }
    }
    const segments = Math.floor(r() * 4);
    for (let j = 0; j < segments; j++) location += (r() < 0.7 ? '/' : '') + pick(SEGMENTS);
    if (r() < 0.2) location = pick(SEGMENTS) + location;
    location += pick(QUERIES) + pick(FRAGMENTS);
    if (r() < 0.05) location = ` ${location}\t `;
    if (r() < 0.03) location = `\u0001${location}`;
    cases.push({ base, location, fetch: fetchRequests(base, location), response_url: responseUrl(base, location) });
  }
  return {
    description: 'Redirect locations as fetch reads them: generated by tests/node/redirect-locations.mjs '
      + `(seed ${seed}, ${count} cases${written ? '' : ', not the checked-in file'}) with Node's URL (${process.version} when written); fetch is the URL undici `
      + 'then requests (scheme, host, port when not the default, pathname + search), null when it requests nothing; '
      + 'response_url is the URL the answer\'s response.url then shows (without the fragment). '
      + "Replayed by src/bin/cardgate/url.rs's unit test against `cardgate resolve`'s reading.",
    cases,
  };
}

/** The cases of the checked-in file whose `fetch` is not what this Node reads. */
export function stale() {
  const file = JSON.parse(readFileSync(FILE, 'utf8'));
  return file.cases.filter((c) => fetchRequests(c.base, c.location) !== c.fetch
    || responseUrl(c.base, c.location) !== c.response_url);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i < 0 ? undefined : process.argv[i + 1];
  };
  const out = arg('--out');
  if (process.argv.includes('--write') || out) {
    const { description, cases } = generate(Number(arg('--seed') ?? SEED), Number(arg('--count') ?? COUNT));
    // One case per line, so that a change of reading shows as a diff of its cases.
    const lines = cases.map((c) => ` ${JSON.stringify(c)}`).join(',\n');
    writeFileSync(out ?? FILE, `{"description": ${JSON.stringify(description)},\n"cases": [\n${lines}\n]}\n`);
  } else {
    const differ = stale();
    for (const c of differ.slice(0, 20)) console.log(JSON.stringify(c), '->', fetchRequests(c.base, c.location));
    console.log(`${differ.length} cases differ from this Node's reading`);
    process.exit(differ.length ? 1 : 0);
  }
}
