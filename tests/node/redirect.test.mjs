// Redirects while resolving a card (DESIGN.md "Redirects"): the package follows them itself in
// Node (`redirect: 'manual'`), at most 5, never from an https source to http, and records the
// URL that answered as the attempt's `final_url`, as `cardgate resolve` does.
//
// End to end: real HTTP servers on 127.0.0.1 (chains, the bound, an error after a redirect,
// headers across origins, parity with the CLI), and, in a child process that trusts a
// self-signed certificate (NODE_EXTRA_CA_CERTS), a real https server behind Node's own fetch
// (https -> http refused before the http request, http -> https followed). A caller's fetch that
// ignores `redirect: 'manual'` and the browser build's check run on test doubles.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ensureConsumer, importPackage, importWebPackage } from './consumer.mjs';
import { CLI } from './helpers.mjs';

const cg = await importPackage();
// Asynchronous: the servers answering the child live in this process.
const run = (file, args, env) =>
  promisify(execFile)(file, args, { encoding: 'utf8', env: env ?? process.env }).then(
    ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
    (e) => ({ status: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

const CARD = {
  name: 'worker-7',
  version: '3.0.0',
  supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  skills: [{ id: 'task.execute.v3', name: 'Execute task', description: 'Runs one planner task.', tags: [] }],
};
const REQ = { require: ['task.execute.v3'], min_version: '3.0.0', max_stale: '10s' };
const DOWNGRADE =
  ': a source asked over https must answer over https (the card and its watermark headers would cross the ' +
  'network unprotected, where anyone on the path can forge them)';

/** A server whose routes are `path -> (base) => [status, headers, body]`; records every request. */
function serve(routes, tls) {
  const requests = [];
  const handler = (req, res) => {
    requests.push({ path: req.url, headers: req.headers });
    const route = routes[req.url];
    const [status, headers, body] = route ? route(server.base) : [404, {}, 'no route'];
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
  const server = tls ? createTlsServer(tls, handler) : createServer(handler);
  server.requests = requests;
  server.hits = (path) => requests.filter((r) => r.path === path).length;
  server.start = async (host = '127.0.0.1') => {
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    server.base = `${tls ? 'https' : 'http'}://${host}:${server.address().port}`;
    return server;
  };
  server.stop = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return server;
}

const fresh = () => [200, { 'x-replica-lag-ms': '0' }, JSON.stringify(CARD)];
const moved = (status, to) => () => [status, { location: to }, ''];

const ROUTES = {
  '/card': fresh,
  '/a': moved(302, '/b'),
  '/b': moved(301, '/card'),
  '/moved': moved(301, '/gone'),
  '/nowhere': () => [302, {}, ''],
  '/r0': moved(307, '/r1'),
  '/r1': moved(308, '/r2'),
  '/r2': moved(303, '/r3'),
  '/r3': moved(302, '/r4'),
  '/r4': moved(301, '/r5'),
  '/r5': moved(302, '/card'),
  // A Location of raw bytes: `/é/` in UTF-8, then a byte that is no UTF-8 (Node writes a header
  // string's code units as bytes).
  '/bytes': moved(302, '/\u00c3\u00a9/\u00ff'),
  // A fragment and an empty query: recorded as `response.url` shows the URL (`/card?`).
  '/frag': moved(302, '/card?#f'),
  '/%C3%A9/%EF%BF%BD': fresh,
  '/hop-nowhere': moved(302, '/nowhere'),
  '/badloc': moved(302, 'http://[bad'),
  '/to-stale': moved(302, '/stale'),
  '/stale': () => [200, { 'x-replica-lag-ms': '60000' }, JSON.stringify(CARD)],
};

let http;
let other; // the same server under another origin (localhost instead of 127.0.0.1)
before(async () => {
  http = await serve({
    ...ROUTES,
    '/cross': () => [302, { location: `${other}/card` }, ''],
    '/same': moved(302, '/card'),
  }).start();
  other = http.base.replace('127.0.0.1', 'localhost');
});
after(() => http.stop());

/** Resolves `sources` and returns the final decision and the attempts, valid or not. */
async function resolution(sources, options = {}) {
  let got = null;
  try {
    await cg.resolveAgentCard(sources, REQ, { ...options, onResolution: (decision, info) => (got = { decision, info }) });
  } catch (e) {
    if (got === null) throw e;
  }
  return got;
}

const urls = (attempts) => attempts.map((a) => [a.source, a.final_url ?? '-', a.error ?? a.verdict]);

test('a redirected card records the URL that answered; without a redirect nothing changes', async () => {
  const { decision, info } = await resolution([`${http.base}/a`]);
  assert.equal(decision.verdict, 'valid');
  assert.deepEqual(urls(info.attempts), [[`${http.base}/a`, `${http.base}/card`, 'valid']]);
  assert.equal(info.url, `${http.base}/a`);
  assert.equal(info.finalUrl, `${http.base}/card`);
  assert.equal(decision.resolution.message, `accepted the card from ${http.base}/a (redirected to ${http.base}/card) at attempt 1`);
  // A single URL (the plain path): the same URL on onDecision and on the result.
  const seen = [];
  const card = await cg.resolveAgentCard(`${http.base}/a`, REQ, { onDecision: (_, i) => seen.push(i) });
  assert.equal(card.name, 'worker-7');
  assert.equal(seen[0].finalUrl, `${http.base}/card`);
  // No redirect: the plain decision, no final_url, no finalUrl.
  const plain = await resolution([`${http.base}/card`]);
  assert.equal(plain.decision.resolution, undefined);
  assert.equal('final_url' in plain.info.attempts[0], false);
  assert.equal('finalUrl' in plain.info, false);
});

test('at most 5 redirects are followed; a sixth makes a failed source', async () => {
  assert.equal((await resolution([`${http.base}/r1`])).decision.verdict, 'valid');
  const before = http.hits('/r5');
  const { decision, info } = await resolution([`${http.base}/r0`, `${http.base}/card`]);
  assert.equal(decision.verdict, 'valid');
  assert.deepEqual(urls(info.attempts), [
    [`${http.base}/r0`, '-', `${http.base}/r0 redirected more than 5 times (the limit)`],
    [`${http.base}/card`, '-', 'valid'],
  ]);
  assert.equal(http.hits('/r5') - before, 1, 'the sixth redirect is not followed');
});

test('a redirect that ends in an error status names where it ended; one without Location fails', async () => {
  const { decision, info } = await resolution([`${http.base}/moved`, `${http.base}/nowhere`]);
  assert.equal(decision.reasons[0].code, 'source_unavailable');
  assert.deepEqual(urls(info.attempts), [
    [`${http.base}/moved`, `${http.base}/gone`, 'answered 404 Not Found, not 2xx'],
    [`${http.base}/nowhere`, '-', `${http.base}/nowhere answered 302 without a Location header`],
  ]);
});

test('a Location that is not a URL, and a missing Location after a hop, fail naming where they ended', async () => {
  const { info } = await resolution([`${http.base}/badloc`, `${http.base}/hop-nowhere`]);
  assert.deepEqual(urls(info.attempts), [
    [`${http.base}/badloc`, '-', `${http.base}/badloc answered 302 with a Location that is not a URL: "http://[bad"`],
    [`${http.base}/hop-nowhere`, `${http.base}/nowhere`, `${http.base}/nowhere answered 302 without a Location header`],
  ]);
});

test('a redirected card that is refused still names the URL that served it', async () => {
  const { decision, info } = await resolution([`${http.base}/to-stale`, `${http.base}/moved`]);
  assert.deepEqual(decision.reasons.map((r) => r.code), ['watermark_exceeded']);
  assert.deepEqual(urls(info.attempts), [
    [`${http.base}/to-stale`, `${http.base}/stale`, 'rejected'],
    [`${http.base}/moved`, `${http.base}/gone`, 'answered 404 Not Found, not 2xx'],
  ]);
  assert.equal(info.url, `${http.base}/to-stale`);
  assert.equal(info.finalUrl, `${http.base}/stale`);
});

test('the same attempts as cardgate resolve, final_url included', { skip: !existsSync(CLI) && 'no native CLI' }, async () => {
  const sources = [`${http.base}/r0`, `${http.base}/moved`, `${http.base}/a`];
  const cli = await run(CLI, ['resolve', ...sources, '--require', 'task.execute.v3', '--min-version', '3.0.0', '--max-stale', '10s']);
  assert.equal(cli.status, 0, cli.stderr);
  const native = JSON.parse(cli.stdout);
  const { decision } = await resolution(sources);
  const strip = (d) => JSON.parse(JSON.stringify(d, (k, v) => (k === 'elapsed_ms' ? 0 : v)));
  // The npm package says "answered 404 Not Found, not 2xx" where the CLI says "HTTP 404 Not
  // Found" (unchanged wording of both hosts); everything else is the same.
  const npm = strip(decision);
  npm.resolution.attempts[1].error = 'HTTP 404 Not Found';
  assert.deepEqual(npm, strip(native));
  assert.equal(native.resolution.attempts[2].final_url, `${http.base}/card`);
  // The URL that answered, as fetch's response.url shows it, by both hosts.
  const frag = await run(CLI, ['resolve', `${http.base}/frag`, '--require', 'task.execute.v3', '--min-version', '3.0.0', '--max-stale', '10s']);
  assert.equal(frag.status, 0, frag.stderr);
  const followed = await fetch(`${http.base}/frag`);
  await followed.text();
  assert.equal(followed.url, `${http.base}/card?`);
  assert.equal(JSON.parse(frag.stdout).resolution.attempts[0].final_url, followed.url);
  const npmFrag = await resolution([`${http.base}/frag`]);
  assert.equal(npmFrag.decision.resolution.attempts[0].final_url, followed.url);
});

test("a Location of raw bytes is read as UTF-8, as fetch reads it when it follows (the SDK's path)", async () => {
  const want = `${http.base}/%C3%A9/%EF%BF%BD`;
  // What @a2a-js/sdk's fetch does: it follows the redirect itself.
  const followed = await fetch(`${http.base}/bytes`);
  await followed.text();
  assert.equal(followed.url, want);
  const { decision, info } = await resolution([`${http.base}/bytes`]);
  assert.equal(decision.verdict, 'valid');
  assert.deepEqual(urls(info.attempts), [[`${http.base}/bytes`, want, 'valid']]);
  if (existsSync(CLI)) {
    const cli = await run(CLI, ['resolve', `${http.base}/bytes`, '--require', 'task.execute.v3', '--max-stale', '10s']);
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).resolution.attempts[0].final_url, want);
  }
});

test('credentials stay on their origin: Authorization, Cookie and Proxy-Authorization are dropped on a cross-origin hop', async () => {
  const headers = { Authorization: 'Bearer secret', cookie: 'a=b', 'Proxy-Authorization': 'Basic cHJveHk6cHc=', 'x-trace': '1' };
  await cg.resolveAgentCard(`${http.base}/same`, REQ, { headers });
  const same = http.requests.at(-1);
  assert.equal(same.headers.authorization, 'Bearer secret');
  assert.equal(same.headers.cookie, 'a=b');
  assert.equal(same.headers['proxy-authorization'], 'Basic cHJveHk6cHc=');
  await cg.resolveAgentCard(`${http.base}/cross`, REQ, { headers });
  const cross = http.requests.at(-1);
  assert.equal(cross.headers.host, other.replace('http://', ''));
  assert.equal(cross.headers.authorization, undefined);
  assert.equal(cross.headers.cookie, undefined);
  assert.equal(cross.headers['proxy-authorization'], undefined);
  assert.equal(cross.headers['x-trace'], '1');
});

// ---------------------------------------------------------------- https, on test doubles

/** A fetch double: `url -> [status, headers, body]`; records each call (URL and init). */
function fakeFetch(routes, calls = []) {
  const f = async (url, init) => {
    calls.push({ url, init });
    const route = routes[url];
    if (!route) throw new TypeError(`fetch failed: no route for ${url}`);
    const [status, headers, body] = route;
    return new Response(status === 200 ? body : null, { status, headers });
  };
  f.calls = calls;
  return f;
}
const CARD_TEXT = JSON.stringify(CARD);

test('https -> http is a failed source at any hop, the http URL never asked; http -> https is followed', async () => {
  const fetch = fakeFetch({
    'https://a.example/card': [302, { location: 'http://b.example/card' }, ''],
    'https://c.example/card': [301, { location: 'https://d.example/card' }, ''],
    'https://d.example/card': [302, { location: 'http://e.example/card' }, ''],
    'http://f.example/card': [302, { location: 'https://g.example/card' }, ''],
    'https://g.example/card': [200, { 'x-replica-lag-ms': '0' }, CARD_TEXT],
    'http://b.example/card': [200, { 'x-replica-lag-ms': '0' }, CARD_TEXT],
    'http://e.example/card': [200, { 'x-replica-lag-ms': '0' }, CARD_TEXT],
  });
  const { decision, info } = await resolution(['https://a.example/card', 'https://c.example/card', 'http://f.example/card'], { fetch });
  assert.equal(decision.verdict, 'valid');
  assert.deepEqual(urls(info.attempts), [
    ['https://a.example/card', '-', `https://a.example/card redirected to http://b.example/card${DOWNGRADE}`],
    ['https://c.example/card', '-', `https://c.example/card redirected to http://e.example/card${DOWNGRADE}`],
    ['http://f.example/card', 'https://g.example/card', 'valid'],
  ]);
  const asked = fetch.calls.map((c) => c.url);
  assert.deepEqual(asked, ['https://a.example/card', 'https://c.example/card', 'https://d.example/card', 'http://f.example/card', 'https://g.example/card']);
  assert.ok(fetch.calls.every((c) => c.init.redirect === 'manual'));
  // A single URL: the typed fetch error, whose message names both URLs.
  await assert.rejects(cg.resolveAgentCard('https://a.example/card', REQ, { fetch }), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError);
    assert.equal(e.message, `GET https://a.example/card failed: https://a.example/card redirected to http://b.example/card${DOWNGRADE}`);
    return true;
  });
});

// Spellings fetch reads as the https URL (the URL parser drops leading spaces and C0 controls,
// and tabs and newlines anywhere): the https check reads the parsed scheme, not the text.
const HTTPS_SPELLINGS = [' https://a.example/card', '\u0001https://a.example/card', 'ht\ttps://a.example/card',
  'HTTPS://a.example/card', 'https://a.example/card\n'];

test('an https source spelled so that only the URL parser reads it as https is still protected', async () => {
  for (const spelling of HTTPS_SPELLINGS) {
    const fetch = fakeFetch({
      'https://a.example/card': [302, { location: 'http://b.example/card' }, ''],
      'http://b.example/card': [200, { 'x-replica-lag-ms': '0' }, CARD_TEXT],
    });
    await assert.rejects(cg.resolveAgentCard(spelling, REQ, { fetch }), (e) => {
      assert.ok(e instanceof cg.AgentCardFetchError, JSON.stringify(spelling));
      assert.ok(e.message.endsWith(`https://a.example/card redirected to http://b.example/card${DOWNGRADE}`), `${JSON.stringify(spelling)}: ${e.message}`);
      return true;
    });
    assert.deepEqual(fetch.calls.map((c) => c.url), ['https://a.example/card'], JSON.stringify(spelling));
  }
});

/** A fetch that ignores `redirect: 'manual'`: it answers as if it had followed to `to`. */
const followsItself = (to) => async () => ({
    ok: true,
    status: 200,
    statusText: 'OK',
    url: to,
    redirected: true,
    headers: new Headers({ 'x-replica-lag-ms': '0' }),
    body: null,
    arrayBuffer: async () => new TextEncoder().encode(CARD_TEXT).buffer,
  });

test("a caller's fetch that follows redirects itself fails an https source (the hops are unknown)", async () => {
  const { decision, info } = await resolution(['https://a.example/card'], { fetch: followsItself('https://b.example/card') });
  assert.equal(decision.verdict, 'rejected');
  assert.deepEqual(urls(info.attempts), [
    [
      'https://a.example/card',
      'https://b.example/card',
      "https://a.example/card: options.fetch followed redirects itself (it ignored redirect: 'manual'), so whether every hop stayed on https cannot be checked",
    ],
  ]);
  // An http source was never protected: its card is judged, with the URL that answered.
  const http = await resolution(['http://a.example/card'], { fetch: followsItself('https://b.example/card') });
  assert.equal(http.decision.verdict, 'valid');
  assert.deepEqual(urls(http.info.attempts), [['http://a.example/card', 'https://b.example/card', 'valid']]);
});

// A fetch shows that it followed either way alone: `response.url` another URL with `redirected`
// false (a wrapper that copies only some members), or `redirected` true without a `url` (a fetch
// that keeps no URL). Either fails an https source; only the URL asked again, without its
// fragment, is no redirect.
test("a caller's fetch that shows its redirect only by response.url or only by response.redirected fails an https source", async () => {
  const why = "https://a.example/card: options.fetch followed redirects itself (it ignored redirect: 'manual'), so whether every hop stayed on https cannot be checked";
  const shown = (url, redirected) => async () => Object.assign(await followsItself(url)(), { redirected });
  for (const [url, redirected, final] of [
    ['https://b.example/card', false, 'https://b.example/card'],
    ['', true, '-'],
    [undefined, true, '-'],
  ]) {
    const { decision, info } = await resolution(['https://a.example/card'], { fetch: shown(url, redirected) });
    assert.equal(decision.verdict, 'rejected', JSON.stringify([url, redirected]));
    assert.deepEqual(urls(info.attempts), [['https://a.example/card', final, why]], JSON.stringify([url, redirected]));
  }
  for (const asked of ['https://a.example/card', 'https://a.example/card#part']) {
    const { decision, info } = await resolution([asked], { fetch: shown('https://a.example/card', false) });
    assert.equal(decision.verdict, 'valid', asked);
    assert.deepEqual(urls(info.attempts), [[asked, '-', 'valid']], asked);
  }
  // Asked alone, the refusal's error carries no URL that answered when the fetch kept none.
  await assert.rejects(cg.resolveAgentCard('https://a.example/card', REQ, { fetch: shown('', true) }), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError, `${e.name}: ${e.message}`);
    assert.equal(e.finalUrl, null);
    return true;
  });
});

test('a fetch that fails after a redirect says where it had been sent', async () => {
  const calls = [];
  const fetch = fakeFetch({ 'https://a.example/card': [302, { location: 'https://b.example/card' }, ''] }, calls);
  await assert.rejects(cg.resolveAgentCard('https://a.example/card', REQ, { fetch }), (e) => {
    assert.ok(e instanceof cg.AgentCardFetchError, `${e.name}: ${e.message}`);
    assert.equal(e.message, 'GET https://a.example/card failed (redirected to https://b.example/card): fetch failed: no route for https://b.example/card');
    return true;
  });
  assert.deepEqual(calls.map((c) => c.url), ['https://a.example/card', 'https://b.example/card']);
});

test('the browser build lets the browser follow and checks the URL that answered', async () => {
  const web = await importWebPackage();
  await web.default(readFileSync(join(ensureConsumer(), 'node_modules', 'cardgate', 'web', 'cardgate_bg.wasm')));
  const attemptsOf = async (source, fetch) => {
    let got = null;
    await web.resolveAgentCard([source], REQ, { fetch, onResolution: (_, i) => (got = i) }).catch(() => {});
    return urls(got.attempts);
  };
  const calls = [];
  const follow = (to) => async (url, init) => (calls.push(init.redirect), followsItself(to)());
  assert.deepEqual(await attemptsOf('https://a.example/card', follow('http://b.example/card')), [
    ['https://a.example/card', 'http://b.example/card', `https://a.example/card redirected to http://b.example/card${DOWNGRADE}`],
  ]);
  assert.deepEqual(calls, ['follow']);
  for (const spelling of HTTPS_SPELLINGS) {
    const [[, answered, why]] = await attemptsOf(spelling, follow('http://b.example/card'));
    assert.equal(answered, 'http://b.example/card', JSON.stringify(spelling));
    assert.ok(why.endsWith(`https://a.example/card redirected to http://b.example/card${DOWNGRADE}`), `${JSON.stringify(spelling)}: ${why}`);
  }
  // https -> https: on a page that is not https nothing shows an http hop in between.
  const [[, , why]] = await attemptsOf('https://a.example/card', follow('https://c.example/card'));
  assert.match(why, /on a page that is not https the browser does not block http hops/);
  // On an https page the browser blocks every http hop (mixed content): accepted.
  globalThis.location = { protocol: 'https:', href: 'https://a.example/page' };
  try {
    assert.deepEqual(await attemptsOf('https://a.example/card', follow('https://c.example/card')), [
      ['https://a.example/card', 'https://c.example/card', 'valid'],
    ]);
    // A URL relative to that https page is an https source too (fetch resolves it against the
    // page): answered over http (a loopback host, not mixed content), it is refused.
    for (const relative of ['/card', '//a.example/card', 'card']) {
      await assert.rejects(web.resolveAgentCard(relative, REQ, { fetch: follow('http://127.0.0.1/card') }), (e) => {
        assert.ok(e instanceof web.AgentCardFetchError, relative);
        assert.match(e.message, /must answer over https/, relative);
        return true;
      });
    }
  } finally {
    delete globalThis.location;
  }
  assert.deepEqual(await attemptsOf('http://a.example/card', follow('https://c.example/card')), [
    ['http://a.example/card', 'https://c.example/card', 'valid'],
  ]);
});

// ---------------------------------------------------------------- https, end to end

test("Node's own fetch over real TLS: https -> http refused before the http request, http -> https followed", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cardgate-redirect-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
    ], { stdio: 'pipe' });
  } catch (e) {
    t.skip(`openssl failed: ${e.message}`);
    return;
  }
  const plain = await serve({ '/card': fresh, '/up': () => [302, { location: `${tls.base}/card` }, ''] }).start();
  const tls = await serve(
    {
      '/card': fresh,
      '/down': () => [302, { location: `${plain.base}/card` }, ''],
      '/hop': moved(307, '/card'),
    },
    { key: readFileSync(key), cert: readFileSync(cert) },
  ).start();
  t.after(() => Promise.all([plain.stop(), tls.stop()]));
  const cases = [[[`${tls.base}/down`], REQ], [[`${plain.base}/up`], REQ], [[`${tls.base}/hop`], REQ]];
  const child = await run(
    process.execPath,
    [join(import.meta.dirname, 'redirect-child.mjs'), join(ensureConsumer(), 'esm.mjs'), JSON.stringify(cases)],
    { ...process.env, NODE_EXTRA_CA_CERTS: cert },
  );
  assert.equal(child.status, 0, child.stderr);
  const [down, up, hop] = JSON.parse(child.stdout);
  assert.deepEqual(urls(down.attempts), [[`${tls.base}/down`, '-', `${tls.base}/down redirected to ${plain.base}/card${DOWNGRADE}`]]);
  assert.equal(plain.hits('/card'), 0, 'the http URL was never asked');
  assert.deepEqual(urls(up.attempts), [[`${plain.base}/up`, `${tls.base}/card`, 'valid']]);
  assert.equal(up.finalUrl, `${tls.base}/card`);
  assert.deepEqual(urls(hop.attempts), [[`${tls.base}/hop`, `${tls.base}/card`, 'valid']]);
});
