#!/usr/bin/env python3
"""Card requests through Envoy: no filter vs a buffer-only proxy-wasm filter vs cardgate.

Informative, not a test. `make bench` (bench/run.py) runs this as its Envoy section; alone it
prints its own table (`make bench-envoy`):

    .tools/py/bin/python tests/envoy/bench.py [--seconds 4] [--rounds 3] [--connections 8]

One front Envoy (one worker) carries three copies of the shipped listener (envoy/envoy.yaml,
including its route and filter settings): without the cardgate filter ("pass-through"), with
the buffer-only filter (bench/buffer_only: holds the headers, buffers the body to the end,
copies it into the VM, forwards it unchanged) in its place, and as shipped ("cardgate"). A
second Envoy is the upstream: the shared cards (bench/cards/) as fixed bodies
(`direct_response`), or, for "unique" bodies, the same card with a per-request counter in its
description (a Lua filter builds it from the x-bench-n request header that wrk's script counts),
so no two bodies are the same. A non-card route (/v1/tasks/42, 495 bytes of JSON) measures what
the filter costs traffic it does not check.

wrk (1 thread) drives each contender in turn, round-robin over the rounds, on loopback; CPU
per request is the front Envoy's utime+stime (/proc/<pid>/stat) over the run divided by the
requests wrk completed. Everything shares this machine's cores, so read the ratios.
"""

import argparse
import copy
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import harness  # noqa: E402
import yaml  # noqa: E402

ROOT = harness.ROOT
CARDS_DIR = os.path.join(ROOT, "bench", "cards")
SHIPPED = os.path.join(ROOT, "envoy", "envoy.yaml")
BUFFER_ONLY = os.path.join(ROOT, "target", "buffer_only", "buffer_only.wasm")
CARD_PATH = "/agents/worker-7/card"
OTHER_PATH = "/v1/tasks/42"
# The peers' requirement (bench/README.md) as a caller tightens the shipped worker-7 rule, which
# also requires binding:JSONRPC and protocol:1.0 (every shared card has both); lag 500 ms comes
# from the upstream's x-replica-lag-ms.
CARD_HEADERS = {
    "a2a-require-capabilities": "task.execute.v3",
    "a2a-min-card-version": "7",
    "cache-control": "max-stale=10",
}
FILTERS = ("pass-through", "buffer-only", "cardgate")
LISTENER = {"pass-through": "pass_through", "buffer-only": "buffer_only", "cardgate": "cardgate"}
WRK_UNIQUE = """-- One unique card body per request: the upstream puts x-bench-n in the card's description.
local n = 0
request = function()
  n = n + 1
  local h = {}
  for k, v in pairs(wrk.headers) do h[k] = v end
  h["x-bench-n"] = tostring(n)
  return wrk.format(nil, nil, h)
end
"""


def workloads(cards=("minimal", "typical")):
    """(key, label, path, headers, wrk script or None, filters) in table order."""
    out = []
    for card in cards:
        size = os.path.getsize(os.path.join(CARDS_DIR, card + ".json"))
        for body in ("repeated", "unique"):
            headers = dict(CARD_HEADERS, **{"x-bench-card": card})
            out.append(("%s-%s" % (card, body), "%s card (%d B), %s body" % (card, size, body),
                        CARD_PATH, headers, WRK_UNIQUE if body == "unique" else None, FILTERS))
    out.append(("non-card", "non-card route (495 B JSON)", OTHER_PATH, {}, None,
                ("pass-through", "cardgate")))
    return out


def _walk(node, fn):
    fn(node)
    if isinstance(node, dict):
        for v in node.values():
            _walk(v, fn)
    elif isinstance(node, list):
        for v in node:
            _walk(v, fn)


def _mentions(node, text):
    found = []
    _walk(node, lambda n: found.append(True) if n == text else None)
    return bool(found)


def front_config(origin_port):
    """The shipped bootstrap with its cardgate listener three times (no filter, buffer-only,
    cardgate), every port 0, the upstream cluster pointed at the origin Envoy."""
    with open(SHIPPED) as f:
        shipped = yaml.safe_load(f)
    wasm_rel = "dist/cardgate.wasm"
    # The first listener with the filter (the second one adds re_resolve, which a valid card
    # never uses).
    listeners = [l for l in shipped["static_resources"]["listeners"] if _mentions(l, wasm_rel)]
    if not listeners:
        raise SystemExit("bench: expected a listener with %s in %s" % (wasm_rel, SHIPPED))
    base = listeners[0]
    base["address"] = {"socket_address": {"address": "127.0.0.1", "port_value": 0}}
    out = []
    for variant in FILTERS:
        listener = copy.deepcopy(base)
        listener["name"] = LISTENER[variant]
        removed = []

        def fix(node):
            if not isinstance(node, dict):
                return
            if isinstance(node.get("http_filters"), list):
                keep = []
                for flt in node["http_filters"]:
                    if _mentions(flt, wasm_rel) and variant == "pass-through":
                        removed.append(flt.get("name"))
                    else:
                        keep.append(flt)
                node["http_filters"] = keep
            if "stat_prefix" in node:
                node["stat_prefix"] = LISTENER[variant]
            vm = node.get("vm_config")
            if isinstance(vm, dict) and _mentions(vm, wasm_rel):
                if variant == "buffer-only":
                    vm["vm_id"] = "buffer_only"
                    vm["code"] = {"local": {"filename": BUFFER_ONLY}}
                    node["name"] = node["root_id"] = "buffer_only"
                else:
                    vm["code"] = {"local": {"filename": os.path.abspath(harness.WASM)}}
            if "route_config" in node:
                node["route_config"].setdefault("max_direct_response_body_size_bytes", 1 << 20)

        _walk(listener, fix)

        def drop_per_route(node):
            if isinstance(node, dict) and isinstance(node.get("typed_per_filter_config"), dict):
                for name in removed:
                    node["typed_per_filter_config"].pop(name, None)

        _walk(listener, drop_per_route)
        out.append(listener)
    clusters = copy.deepcopy(shipped["static_resources"].get("clusters", []))
    upstream = set()
    _walk(base, lambda n: upstream.add(n["cluster"]) if isinstance(n, dict) and isinstance(n.get("cluster"), str) else None)
    for c in clusters:
        if c["name"] in upstream:
            c["load_assignment"] = harness.cluster(c["name"], origin_port)["load_assignment"]
    config = copy.deepcopy(shipped)
    config["admin"] = {"address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}}}
    config["static_resources"] = {"listeners": out, "clusters": clusters}
    return config


def _lua_string(text):
    level = "=" * 4
    assert ("]" + level + "]") not in text
    return "[" + level + "[" + text + "]" + level + "]"


def origin_config(cards=("minimal", "typical")):
    """The upstream: each card as a fixed body (x-bench-card picks it) or, with x-bench-n, the
    same card with the counter in its description; /v1/tasks/* answers 495 bytes of JSON."""
    lag = [{"header": {"key": "content-type", "value": "application/json"}},
           {"header": {"key": "x-replica-lag-ms", "value": "500"}}]
    routes = []
    templates = []
    for card in cards:
        with open(os.path.join(CARDS_DIR, card + ".json"), encoding="utf-8") as f:
            text = f.read()
        marker = '"description": "'
        at = text.index(marker) + len(marker)
        templates.append("  %s = {%s, %s}," % (card, _lua_string(text[:at] + "#"), _lua_string(" " + text[at:])))
        routes.append({"match": {"prefix": "/agents/", "headers": [
            {"name": "x-bench-card", "string_match": {"exact": card}}]},
            "direct_response": {"status": 200, "body": {"inline_string": text}},
            "response_headers_to_add": lag})
    with open(os.path.join(CARDS_DIR, "minimal.json"), encoding="utf-8") as f:
        other = f.read()
    routes.append({"match": {"prefix": "/"}, "direct_response": {"status": 200, "body": {"inline_string": other}},
                   "response_headers_to_add": lag})
    lua = "\n".join([
        "local cards = {", *templates, "}",
        "function envoy_on_request(h)",
        "  local n = h:headers():get('x-bench-n')",
        "  if n == nil then return end",
        "  local t = cards[h:headers():get('x-bench-card')]",
        "  h:respond({[':status'] = '200', ['content-type'] = 'application/json',",
        "             ['x-replica-lag-ms'] = '500'}, t[1] .. n .. t[2])",
        "end",
    ])
    listener = {
        "name": "origin",
        "address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}},
        "filter_chains": [{"filters": [{
            "name": "envoy.filters.network.http_connection_manager",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                "stat_prefix": "origin",
                "route_config": {"max_direct_response_body_size_bytes": 1 << 20,
                                 "virtual_hosts": [{"name": "origin", "domains": ["*"], "routes": routes}]},
                "http_filters": [
                    {"name": "envoy.filters.http.lua", "typed_config": {
                        "@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua",
                        "default_source_code": {"inline_string": lua}}},
                    {"name": "envoy.filters.http.router", "typed_config": {
                        "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],
            },
        }]}],
    }
    return harness.bootstrap([listener], [])


def _duration_us(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    value, unit = float(m.group(1)), m.group(2)
    return value * {"us": 1, "ms": 1e3, "s": 1e6, "m": 60e6}[unit]


def _cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


def wrk(port, path, headers, script, seconds, connections, pid, workdir):
    cmd = ["wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "--latency"]
    for k, v in headers.items():
        cmd += ["-H", "%s: %s" % (k, v)]
    if script:
        script_path = os.path.join(workdir, "unique.lua")
        with open(script_path, "w") as f:
            f.write(script)
        cmd += ["-s", script_path]
    cmd.append("http://127.0.0.1:%d%s" % (port, path))
    before = _cpu_ticks(pid)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=seconds + 30).stdout.decode()
    cpu_s = (_cpu_ticks(pid) - before) / os.sysconf("SC_CLK_TCK")
    try:
        requests = int(re.search(r"(\d+) requests in", out).group(1))
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        dist = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.M))
    except AttributeError:
        raise SystemExit("bench: unexpected wrk output:\n" + out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "p50_us": _duration_us(dist["50"]), "p99_us": _duration_us(dist["99"]),
            "cpu_us": cpu_s * 1e6 / max(1, requests), "requests": requests,
            "non2xx": int(bad.group(1)) if bad else 0, "socket_errors": errors.group(1) if errors else ""}


def check(front, name, path, headers, unique):
    """One request by hand: 200, and from cardgate a valid verdict on card routes."""
    h = dict(headers)
    if unique:
        h["x-bench-n"] = "1"
    resp = harness.request(front.ports[LISTENER[name]], path, headers=h)
    if resp.status != 200 or (unique and b'"description": "#1 ' not in resp.body):
        raise SystemExit("bench: %s %s answered %r" % (name, path, resp))
    verdict = resp.header("a2a-card-verdict")
    if name == "cardgate" and path == CARD_PATH and verdict != "valid":
        raise SystemExit("bench: cardgate did not pass the card: %r" % resp)
    return len(resp.body)


def run(rounds=3, seconds=3, connections=8, log=print):
    """Runs every contender `rounds` times, round-robin; returns {workload key: {filter: [runs]}},
    the workloads and the Envoy version."""
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk is missing (.ci/setup.sh bench installs it)")
    if not os.path.exists(BUFFER_ONLY):
        # `make bench-envoy` builds only the cardgate filter.
        subprocess.run(["make", "--no-print-directory", "buffer-only"], cwd=ROOT, check=True)
    if not os.path.exists(harness.WASM):
        raise SystemExit("bench: %s is missing (make filter)" % harness.WASM)
    version = subprocess.run([harness.envoy_binary(), "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT).stdout.decode()
    version = (re.search(r"version: \S+?/([\d.]+)", version) or re.search(r"([\d]+\.[\d]+\.[\d]+)", version)).group(1)
    workdir = harness.temp_workdir("cardgate-bench-")
    origin = harness.Envoy(origin_config(), workdir, "origin")
    front = None
    loads = workloads()
    try:
        origin.start()
        front = harness.Envoy(front_config(origin.ports["origin"]), workdir, "front").start()
        pid = front.proc.pid
        sizes = {}
        for key, _, path, headers, script, filters in loads:
            for name in filters:
                sizes[key] = check(front, name, path, headers, script is not None)
        results = {key: {name: [] for name in filters} for key, _, _, _, _, filters in loads}
        contenders = [(w, name) for w in loads for name in w[5]]
        log("envoy: %d contenders x %d rounds x %d s (+1 s warm-up each), Envoy %s"
            % (len(contenders), rounds, seconds, version))
        for (key, _, path, headers, script, _), name in contenders:
            wrk(front.ports[LISTENER[name]], path, headers, script, 1, connections, pid, workdir)
        for r in range(rounds):
            # Rotate the order each round so no contender always follows the same one.
            shift = r % len(contenders)
            for (key, _, path, headers, script, _), name in contenders[shift:] + contenders[:shift]:
                res = wrk(front.ports[LISTENER[name]], path, headers, script, seconds, connections, pid, workdir)
                results[key][name].append(res)
            log("envoy: round %d/%d done" % (r + 1, rounds))
        counters = front.stats()
        verdicts = {k: v for k, v in counters.items() if "cardgate.verdict" in k and v}
        return {"results": results, "workloads": loads, "envoy": version, "verdicts": verdicts,
                "seconds": seconds, "rounds": rounds, "connections": connections, "sizes": sizes}
    finally:
        if front:
            front.stop()
        origin.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def med(runs, field):
    return statistics.median(r[field] for r in runs)


def ratio(runs, base, field):
    """Median over the rounds of this round's figure / the base's figure in the same round."""
    return statistics.median(r[field] / b[field] for r, b in zip(runs, base))


def summary_rows(data):
    """Table rows: (workload label, filter, req/s median (min-max), p50, p99, CPU us/req, then
    req/s and CPU as ratios to pass-through and, for cardgate, to buffer-only, each the median
    of the per-round ratios)."""
    rows = []
    for key, label, _, _, _, filters in data["workloads"]:
        res = data["results"][key]
        base = res["pass-through"]
        for name in filters:
            runs = res[name]
            rps = [r["rps"] for r in runs]
            vs_pass = cpu_pass = vs_buffer = cpu_buffer = ""
            if name == "pass-through":
                vs_pass = cpu_pass = "1"
            else:
                vs_pass = "%.2f" % ratio(runs, base, "rps")
                cpu_pass = "%.2f" % ratio(runs, base, "cpu_us")
            if name == "cardgate" and "buffer-only" in res:
                vs_buffer = "%.2f" % ratio(runs, res["buffer-only"], "rps")
                cpu_buffer = "%.2f" % ratio(runs, res["buffer-only"], "cpu_us")
            bad = sum(r["non2xx"] for r in runs)
            rows.append([label, name, "%.0f (%.0f-%.0f)" % (statistics.median(rps), min(rps), max(rps)),
                         "%.0f" % med(runs, "p50_us"), "%.0f" % med(runs, "p99_us"),
                         "%.1f" % med(runs, "cpu_us"), vs_pass, vs_buffer, cpu_pass, cpu_buffer]
                        + (["%d non-2xx" % bad] if bad else []))
    return rows


HEADER = ["workload", "filter", "req/s median (min-max)", "p50 µs", "p99 µs", "CPU µs/req",
          "req/s vs pass-through", "req/s vs buffer-only", "CPU vs pass-through", "CPU vs buffer-only"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()
    data = run(args.rounds, args.seconds, args.connections)
    print("Envoy %s, 1 worker; wrk 1 thread, %d connections, %d s x %d rounds round-robin, loopback"
          % (data["envoy"], data["connections"], data["seconds"], data["rounds"]))
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    for row in summary_rows(data):
        print("| " + " | ".join(row) + " |")
    print("cardgate verdicts counted by the filter: %s" % json.dumps(data["verdicts"]))


if __name__ == "__main__":
    main()
