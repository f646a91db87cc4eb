// A minimal proxy-wasm host in Node (V8, the engine Envoy's default Wasm runtime embeds), to see
// where the filter's per-request time goes without Envoy: it counts every host call per request
// by name and times the filter's callbacks for the bench's card request (bench/README.md);
// wasm_us_per_request is the callbacks' time less the time in host functions.
// Informative only. Usage (bench/README.md has the recipe):
//   node bench/wasm_host.mjs MODULE.wasm CONFIG.json CARD.json [--unique] [--requests N]
// CONFIG.json: the plugin configuration (the bench's: bench/envoy_profile.py --dump-config FILE).
// With `node --cpu-prof` and a module that keeps its name section (cargo's output before
// wasm-opt), the profile names the Rust functions.
import { readFileSync } from "node:fs";

const [modPath, configPath, cardPath, ...rest] = process.argv.slice(2);
const unique = rest.includes("--unique");
const nIdx = rest.indexOf("--requests");
const requests = nIdx >= 0 ? Number(rest[nIdx + 1]) : 20000;
const config = readFileSync(configPath);
const cardText = readFileSync(cardPath, "utf8");
const enc = new TextEncoder();
const dec = new TextDecoder();

let mem;
let exp;
const calls = new Map();
let counting = false;
// While timing: the clock time spent in host functions (the JS side of every host call), so the
// callbacks' time less this is the time in Wasm (proxy_on_memory_allocate during a host call
// counts as host time; the clock reads themselves add a little to both sides).
let timing = false;
let inHost = 0n;
const requestHeaders = () => [
  [":authority", "127.0.0.1"], [":path", "/agents/worker-7/card"], [":method", "GET"],
  [":scheme", "http"], ["user-agent", "wrk"], ["a2a-require-capabilities", "task.execute.v3"],
  ["a2a-min-card-version", "7"], ["cache-control", "max-stale=10"], ["x-bench-card", "typical"],
  ["x-forwarded-proto", "http"], ["x-request-id", "0f0e0d0c-0b0a-4908-8706-050403020100"],
];
const responseHeaders = (len) => [
  [":status", "200"], ["content-type", "application/json"], ["x-replica-lag-ms", "500"],
  ["content-length", String(len)], ["date", "Tue, 01 Dec 2026 03:00:00 GMT"], ["server", "envoy"],
  ["x-envoy-upstream-service-time", "0"],
];
let maps = [[], [], [], []];
let body = new Uint8Array(0);

const u8 = () => new Uint8Array(mem.buffer);
const dv = () => new DataView(mem.buffer);
const str = (p, n) => dec.decode(u8().subarray(p, p + n));
function give(bytes, ptrPtr, sizePtr) {
  const p = exp.proxy_on_memory_allocate(bytes.length);
  u8().set(bytes, p);
  dv().setUint32(ptrPtr, p, true);
  dv().setUint32(sizePtr, bytes.length, true);
  return 0;
}
function serialize(pairs) {
  const parts = pairs.map(([k, v]) => [enc.encode(k), enc.encode(v)]);
  let size = 4 + 8 * parts.length;
  for (const [k, v] of parts) size += k.length + v.length + 2;
  const out = new Uint8Array(size);
  const d = new DataView(out.buffer);
  d.setUint32(0, parts.length, true);
  let o = 4;
  for (const [k, v] of parts) { d.setUint32(o, k.length, true); d.setUint32(o + 4, v.length, true); o += 8; }
  for (const [k, v] of parts) { out.set(k, o); o += k.length + 1; out.set(v, o); o += v.length + 1; }
  return out;
}
const host = {
  proxy_get_buffer_bytes(type, start, max, ptrPtr, sizePtr) {
    const src = type === 7 ? config : type === 1 ? body : null;
    if (!src) return 1;
    return give(src.subarray(start, Math.min(src.length, start + max)), ptrPtr, sizePtr);
  },
  proxy_get_header_map_pairs(map, ptrPtr, sizePtr) { return give(serialize(maps[map]), ptrPtr, sizePtr); },
  proxy_get_header_map_value(map, kp, kn, ptrPtr, sizePtr) {
    const k = str(kp, kn);
    const e = maps[map].find(([n]) => n === k);
    return e ? give(enc.encode(e[1]), ptrPtr, sizePtr) : 1;
  },
  proxy_add_header_map_value(map, kp, kn, vp, vn) { maps[map].push([str(kp, kn), str(vp, vn)]); return 0; },
  proxy_replace_header_map_value(map, kp, kn, vp, vn) {
    const k = str(kp, kn);
    maps[map] = maps[map].filter(([n]) => n !== k);
    maps[map].push([k, str(vp, vn)]);
    return 0;
  },
  proxy_remove_header_map_value(map, kp, kn) { const k = str(kp, kn); maps[map] = maps[map].filter(([n]) => n !== k); return 0; },
  proxy_set_header_map_pairs(map, p, n) {
    const d = new DataView(mem.buffer, p, n);
    const count = d.getUint32(0, true);
    let o = 4 + 8 * count;
    const pairs = [];
    for (let i = 0; i < count; i++) {
      const kn = d.getUint32(4 + 8 * i, true), vn = d.getUint32(8 + 8 * i, true);
      const k = str(p + o, kn); o += kn + 1;
      const v = str(p + o, vn); o += vn + 1;
      pairs.push([k, v]);
    }
    maps[map] = pairs;
    return 0;
  },
  proxy_define_metric(type, np, nn, idPtr) { dv().setUint32(idPtr, metricIds.length, true); metricIds.push(str(np, nn)); return 0; },
  proxy_increment_metric() { return 0; },
  proxy_record_metric() { return 0; },
  proxy_get_current_time_nanoseconds(p) { dv().setBigUint64(p, process.hrtime.bigint() + 1764558000000000000n, true); return 0; },
  proxy_log(level, p, n) { if (level >= 4) console.error("wasm log", level, str(p, n)); return 0; },
  proxy_get_property() { return 1; },
  proxy_set_effective_context() { return 0; },
  proxy_send_local_response() { localReplies++; return 0; },
};
const metricIds = [];
let localReplies = 0;
const imports = { env: {}, wasi_snapshot_preview1: {
  random_get(p, n) { for (let i = 0; i < n; i++) u8()[p + i] = (Math.random() * 256) | 0; return 0; },
  environ_get() { return 0; },
  environ_sizes_get(a, b) { dv().setUint32(a, 0, true); dv().setUint32(b, 0, true); return 0; },
  fd_write() { return 0; },
  proc_exit(c) { throw new Error("proc_exit " + c); },
} };
const module = new WebAssembly.Module(readFileSync(modPath));
for (const imp of WebAssembly.Module.imports(module)) {
  if (imp.module !== "env") continue;
  const f = host[imp.name] || (() => 0);
  imports.env[imp.name] = (...a) => {
    if (counting) calls.set(imp.name, (calls.get(imp.name) || 0) + 1);
    if (!timing) return f(...a);
    const t = process.hrtime.bigint();
    try { return f(...a); } finally { inHost += process.hrtime.bigint() - t; }
  };
}
const instance = new WebAssembly.Instance(module, imports);
exp = instance.exports;
mem = exp.memory;
exp._initialize();
exp.proxy_on_context_create(1, 0);
exp.proxy_on_vm_start(1, 0);
if (!exp.proxy_on_configure(1, config.length)) throw new Error("configuration refused");

const phase = { request: 0n, response_headers: 0n, body: 0n, done: 0n };
function one(id, time) {
  maps = [requestHeaders(), [], [], []];
  const text = unique ? cardText.replace('"description": "', '"description": "#' + id + " ") : cardText;
  body = enc.encode(text);
  let t0 = process.hrtime.bigint();
  exp.proxy_on_context_create(id, 1);
  exp.proxy_on_request_headers(id, maps[0].length, 1);
  let t1 = process.hrtime.bigint();
  maps[2] = responseHeaders(body.length);
  exp.proxy_on_response_headers(id, maps[2].length, 0);
  let t2 = process.hrtime.bigint();
  exp.proxy_on_response_body(id, Math.min(body.length, 1024), 0);
  exp.proxy_on_response_body(id, body.length, 1);
  let t3 = process.hrtime.bigint();
  exp.proxy_on_done(id);
  exp.proxy_on_log?.(id); // dropped from dist/cardgate.wasm (envoy/envoy.mk), as Envoy skips a missing callback
  exp.proxy_on_delete(id);
  let t4 = process.hrtime.bigint();
  if (time) {
    phase.request += t1 - t0; phase.response_headers += t2 - t1; phase.body += t3 - t2; phase.done += t4 - t3;
  }
}
let id = 2;
for (let i = 0; i < 3000; i++) one(id++, false);
const verdict = maps[2].find(([k]) => k === "a2a-card-verdict");
if (!verdict || verdict[1] !== "valid" || localReplies) throw new Error("the card was not passed: " + JSON.stringify(maps[2]));
counting = true;
one(id++, false);
counting = false;
const perRequest = [...calls.entries()].sort((a, b) => b[1] - a[1]);
const total = perRequest.reduce((s, [, n]) => s + n, 0);
const cpu0 = process.cpuUsage();
timing = true;
for (let i = 0; i < requests; i++) {
  one(id++, true);
  // The filter hands its metrics to the host on a tick (every 50 ms): at about 4000 requests
  // a second, once per 200 requests.
  if (i % 200 === 199) exp.proxy_on_tick?.(1);
}
timing = false;
const cpu = process.cpuUsage(cpu0);
// CPU time of the process (steadier than the clock on a shared machine), host side included.
const us = (cpu.user + cpu.system) / requests;
const ph = Object.fromEntries(Object.entries(phase).map(([k, v]) => [k, (Number(v) / 1000 / requests).toFixed(2)]));
console.log(JSON.stringify({ module: modPath, unique, host_calls_per_request: total, calls: Object.fromEntries(perRequest),
  cpu_us_per_request: us.toFixed(2), wall_us_by_callback: ph,
  wasm_us_per_request: ((Number(Object.values(phase).reduce((a, b) => a + b, 0n)) - Number(inHost)) / 1000 / requests).toFixed(2),
  host_us_per_request: (Number(inHost) / 1000 / requests).toFixed(2) }));
