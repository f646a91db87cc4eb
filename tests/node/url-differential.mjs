// URL differential (DESIGN.md, "Which interface a client picks"; src/interface_url.rs): for the
// two HTTP bindings the gate grants an interface only when its url is one that both SDKs send to
// alike. @a2a-js/sdk passes the url to fetch (WHATWG URL, here Node's own `URL` and `Request`);
// a2a-sdk passes it to httpx (RFC 3986, here `httpx.Request` in .tools/py). For every generated
// url that the npm package grants, this checks that both read it, and to the same scheme, host,
// port and request target; for HTTP+JSON also after each SDK's REST client appends its path
// (a2a-sdk drops one trailing '/', @a2a-js/sdk every one) and the interface's tenant (a2a-sdk as
// it is, @a2a-js/sdk through encodeURIComponent). Refusing a url both would read alike is allowed
// (over-strict, counted).
//
//   node tests/node/url-differential.mjs [--count N] [--seed S] [--pkg DIR] [--python PY]
//
// The fixed-seed run in `make test` is url-differential.test.mjs.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// Pieces of urls: the schemes, hosts, ports and path characters where the two readings part
// (IPv4 shorthands, punycode, user information, backslashes, dot segments, escapes, spaces,
// empty queries), mixed with the ordinary ones.
const SCHEMES = ['http://', 'https://', 'HTTP://', 'hTTps://', 'ws://', 'wss://', 'http:/', 'http:', 'ftp://', '', '//', 'https:///', 'file://'];
const HOSTS = ['agent.example', 'AGENT.Example', 'a-b.example.', '127.0.0.1', '127.1', '0x7f.0.0.1', '010.0.0.1', '1.2.3.256',
  '[::1]', '[::FFFF:1.2.3.4]', '[fe80::1%25eth0]', '[1:2:3:4:5:6:7:8]', '[1::2::3]', '[::1.2.3]', 'x', '_a.example', 'a..b',
  '1a.example', 'example.123', 'example.0x1', '', 'user@h', 'u:p@h', 'h%41', 'b\u00fccher.example', 'xn--bcher-kva.example',
  'a_b', '-a.example', 'a~b', 'A.B.C', '.example'];
const PORTS = ['', ':', ':80', ':443', ':0', ':8080', ':65535', ':65536', ':080', ':+1', ':1a', ':000443'];
const ANY = [...'abcXYZ019-._~!$&()*+,;=:@/?#%[]\'"<>\\^`{|} \t', '%2e', '%2E', '%41', '%zz', '%', '\u00e9', '..', '.', '//',
  '/./', '/../', '%7e', '%7E', '\n', '\u00a0'];
export const TENANTS = ['', 'acme', 'acme-1_x.y~z!*()', 'a/b', 'a?b', 'a#b', 'a b', '%41', 'a%2Fb',
  '.', '..', "'", '\u00e9', 'a;b', 'a:b', 'a@b', 'a+b', 'a=b', 'a&b', 'a$b', 'a,b', '[a]'];
const GOOD = [...'abcXYZ019-._~!$&()*+,;=:@/?#%[]', '%41', '%7e', '%2F', '%3f', '//', '.a', 'a.', '/v1', 'message'];

export function rng(seed) {
  let x = (seed >>> 0) || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
}

/** `count` distinct urls from the pieces, half of them with path characters from GOOD only. */
export function generate(count, seed) {
  const r = rng(seed);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const seg = (chars) => Array.from({ length: Math.floor(r() * 7) }, () => pick(chars)).join('');
  const urls = new Set();
  for (let tries = 0; urls.size < count && tries < count * 20; tries++) {
    const chars = r() < 0.5 ? GOOD : ANY;
    // A third from the ordinary schemes, hosts and ports, so that many urls are granted.
    const ordinary = r() < 0.35;
    let u = (ordinary ? pick(SCHEMES.slice(0, 6)) + pick(['agent.example', 'a-b.example.', '127.0.0.1', '[::1]', 'A.B.C'])
      + pick(['', ':8080', ':443']) : pick(SCHEMES) + pick(HOSTS) + pick(PORTS)) + pick(['', '/']) + seg(chars)
      + pick(['', '/' + seg(chars), '?' + seg(chars), '#' + seg(chars), '/']);
    if (r() < 0.08) u = pick([' ', '\t', '\n']) + u;
    if (r() < 0.08) u += pick([' ', '\n', '/', '//', '?', '#']);
    urls.add(u);
  }
  return [...urls];
}

const DEFAULT_PORT = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };

/** Where fetch (WHATWG) sends `u`, or why it cannot. */
function whatwg(u) {
  try {
    const x = new URL(u);
    if (x.protocol === 'http:' || x.protocol === 'https:') new Request(x);
    return { ok: true, scheme: x.protocol.slice(0, -1), host: x.hostname, port: x.port || DEFAULT_PORT[x.protocol] || '', target: x.pathname + x.search };
  } catch (e) {
    return { ok: false, why: String(e.message) };
  }
}

// httpx's reading, for a JSON list of urls: the same fields, the IPv6 host bracketed and
// compressed as WHATWG writes it.
const HTTPX = String.raw`
import ipaddress, json, sys
import httpx
DEFAULT_PORT = {"http": 80, "https": 443, "ws": 80, "wss": 443}
out = []
for u in json.load(sys.stdin):
    try:
        x = httpx.Request("POST", u).url
        host = x.raw_host.decode("ascii")
        if ":" in host:
            host = "[" + ipaddress.IPv6Address(host).compressed + "]"
        port = x.port if x.port is not None else DEFAULT_PORT.get(x.scheme, "")
        out.append({"ok": bool(host), "scheme": x.scheme, "host": host, "port": str(port),
                    "target": x.raw_path.decode("ascii")})
    except Exception as e:
        out.append({"ok": False, "why": f"{type(e).__name__}: {e}"})
json.dump(out, sys.stdout)
`;

function httpx(urls, python) {
  const r = spawnSync(python, ['-c', HTTPX], { input: JSON.stringify(urls), maxBuffer: 1 << 28, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`httpx reading failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** WHATWG's and httpx's readings as one comparable string (a bare `?` is dropped by fetch). */
function same(a, b) {
  const norm = (x) => ({ ...x, target: x.target === '' ? '/' : x.target });
  return a.ok && b.ok && JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

export function run(options = {}) {
  const o = { count: 4000, seed: 1, pkg: join(ROOT, 'pkg'), python: join(ROOT, '.tools/py/bin/python'), ...options };
  const cg = createRequire(import.meta.url)(join(o.pkg, 'node', 'index.cjs'));
  const urls = generate(o.count, o.seed);
  const r = rng(o.seed + 1);
  const tenants = urls.map(() => (r() < 0.6 ? undefined : TENANTS[Math.floor(r() * TENANTS.length)]));
  // REST: each SDK's join of the url, the tenant and a method path.
  const restPy = urls.map((u, i) => (u.endsWith('/') ? u.slice(0, -1) : u) + (tenants[i] ? `/${tenants[i]}` : '') + '/message:send');
  const restJs = urls.map((u, i) => u.replace(/\/+$/, '') + (tenants[i] ? `/${encodeURIComponent(tenants[i])}` : '') + '/message:send');
  const py = httpx([...urls, ...restPy], o.python);
  const stats = { urls: urls.length, tenantGrants: 0, readApart: { JSONRPC: 0, 'HTTP+JSON': 0 }, granted: { JSONRPC: 0, 'HTTP+JSON': 0 }, overStrict: { JSONRPC: 0, 'HTTP+JSON': 0 } };
  const unsafe = [];
  urls.forEach((u, i) => {
    for (const binding of ['JSONRPC', 'HTTP+JSON']) {
      const card = {
        name: 'w', description: 'd', version: '1.0.0', capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [],
        supportedInterfaces: [{ url: u, protocolBinding: binding, protocolVersion: '1.0', ...(tenants[i] === undefined ? {} : { tenant: tenants[i] }) }],
      };
      const d = cg.evaluate(card, { require: [`binding:${binding}`], max_stale: '10s' }, { lag_ms: 0 });
      const granted = d.verdict === 'valid';
      const [js, pyr] = binding === 'JSONRPC' ? [whatwg(u), py[i]] : [whatwg(restJs[i]), py[urls.length + i]];
      const alike = same(js, pyr);
      if (!alike && (js.ok || pyr.ok)) stats.readApart[binding] += 1;
      if (granted) {
        stats.granted[binding] += 1;
        if (binding === 'HTTP+JSON' && tenants[i]) stats.tenantGrants += 1;
        if (!alike) unsafe.push({ url: u, tenant: tenants[i], binding, whatwg: js, httpx: pyr });
      } else if (alike) {
        stats.overStrict[binding] += 1;
        if (o.samples) o.samples.push(`${binding} ${JSON.stringify(u)}`);
      }
    }
  });
  return { stats, unsafe };
}

/** The command-line options of this script and url-send.mjs: `--count N --seed S --pkg DIR
 * --python PY`, and each of `flags` (a name without value, set to `flags[name]()`). */
export function cliOptions(argv, flags = {}) {
  const o = {};
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    if (k in flags) {
      o[k.slice(2)] = flags[k]();
      continue;
    }
    const v = argv[++i];
    if (k === '--count') o.count = Number(v);
    else if (k === '--seed') o.seed = Number(v);
    else if (k === '--pkg') o.pkg = resolve(v);
    else if (k === '--python') o.python = v;
    else throw new Error(`unknown argument ${k}`);
  }
  return o;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { stats, unsafe } = run(cliOptions(process.argv));
  console.log(JSON.stringify(stats));
  for (const u of unsafe.slice(0, 20)) console.log('UNSAFE', JSON.stringify(u));
  console.log(`${unsafe.length} granted urls read apart`);
  process.exitCode = unsafe.length ? 1 : 0;
}
