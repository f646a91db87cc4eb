#!/usr/bin/env python3
"""Soak: mixed card traffic through Envoy (`--concurrency 2`) with cardgate for a long while
(`make soak`, 10 minutes by default; `make test-envoy` runs it for 8 s on each Envoy version).

    .tools/py/bin/python envoy/soak.py [--seconds 600] [--connections 4] [--resolve-connections 2]

Two listeners, each with its own cardgate configuration and its own wrk:

- `soak` (gating only). Upstreams, all on loopback: an origin Envoy whose `direct_response`
  routes serve a valid card, a stale one (`x-replica-lag-ms: 40000`), one missing a required
  capability, a malformed one and an oversized one (70 KiB, over `max_card_bytes`); and
  tests/envoy/fault_upstream.py (a raw socket server) for faulty answers: chunked with trailers,
  1xx first, a 64 KiB header, a body longer than its Content-Length, a reset and a close
  mid-body, a stall (route timeout 1 s), and a new card body on every answer (`unique`: each one
  a miss of the filter's analysis cache, so its evictions run all along). Some requests carry
  caller headers (`a2a-card-name`, `a2a-min-card-version`, `a2a-require-capabilities`, one
  unreadable), so the same cached body is judged under requirements that differ per request.
- `soakr` (re-resolving). The origin answers every `/r/` path with a stale card, so every request
  dispatches a call to the `primary` cluster (the fault upstream, same path): a fresh card (the
  same one, or a new body each time), a stale one, a 404, a reset, a truncated body, a stall
  past the call's 1 s timeout, and a fresh card under a caller's `a2a-card-name` that no source's
  card has. A valid answer must name its source and attempt (`valid@primary/2`).

First ~1000 requests of the mixes from this script (warm-up, checked the same way), then `wrk`
(one connection per thread, so a Lua thread pairs each answer with its request) for the
duration. Every answer is classified (`valid` with the whole card, `valid@<source>/<attempts>`
for a re-resolved one, `problem:<status>:<class>` for a cardgate problem (its error class, or
the problem type of a refused request), `envoy:<status>` for a 5xx Envoy chose, `other:...`)
and compared with its path's expected set. The run fails on any wrong verdict, any 5xx that
neither cardgate nor an injected upstream fault explains, or an answer lost on a path without a
fault.

Memory is sampled after the warm-up (~1k requests), every 60 s and at the end: Envoy's RSS
(/proc/<pid>/status), its heap (`server.memory_allocated`) and the Wasm VMs' linear memories
(the read-write start of V8's guarded reservations in /proc/<pid>/smaps: size and resident).
The per-request figures are the growth from the ~1k sample (and from the first periodic one) to
the end divided by the requests in between (0 means flat).
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "envoy"))

import harness  # noqa: E402
from fault_upstream import CARD, CARD_BYTES, FaultUpstream, exchange  # noqa: E402

class Mix:
    """The traffic one listener gets: `kinds` maps a kind to (path, weight per `block` requests,
    expected outcomes, caller headers); `once` is one kind sent once per SCHEDULE_LEN requests in
    place of the first kind (a stall until a timeout)."""

    def __init__(self, listener, kinds, block, once):
        assert sum(k[1] for k in kinds.values()) == block
        self.listener, self.kinds, self.once = listener, kinds, once[0]
        # Every kind sent, `once` included (weight 0: the schedule places it).
        self.entries = dict(kinds, **{once[0]: (once[1], 0, once[2], {})})

    def all_kinds(self):
        return list(self.entries)

    def expected(self):
        return {k: set(v[2]) for k, v in self.entries.items()}

    def paths(self):
        return {k: v[0] for k, v in self.entries.items()}

    def headers(self):
        return {k: v[3] for k, v in self.entries.items()}

    def schedule(self, seed=20261201):
        block = [k for k, v in self.kinds.items() for _ in range(v[1])]
        items = block * (SCHEDULE_LEN // len(block))
        items[items.index(next(iter(self.kinds)))] = self.once
        random.Random(seed).shuffle(items)
        return items


SCHEDULE_LEN = 2000
FAULT_ROUTE_TIMEOUT = "1s"
LAG_HEADER = "x-replica-lag-ms"
STALE = "problem:503:stale_agent_card"

# The gating listener: the origin's cards, the fault upstream's answers, every body new
# (`unique`: each one a miss of the analysis cache, so its evictions run all along) and caller
# headers (the same body under requirements that differ per request).
GATE = Mix("soak", {
    "valid": ("/soak/valid/card", 65, ["valid"], {}),
    "stale": ("/soak/stale/card", 30, [STALE], {}),
    "mismatch": ("/soak/mismatch/card", 20, ["problem:409:capability_mismatch"], {}),
    "malformed": ("/soak/malformed/card", 20, ["problem:502:malformed_card"], {}),
    "oversized": ("/soak/oversized/card", 10, ["problem:502:malformed_card"], {}),
    "unique": ("/soak/fault/unique/card", 10, ["valid"], {}),
    "h_ok": ("/soak/valid/card", 5, ["valid"],
             {"a2a-card-name": "worker-f", "a2a-min-card-version": "3.0.0",
              "a2a-require-capabilities": "task.execute.v3"}),
    "h_name": ("/soak/valid/card", 5, [STALE], {"a2a-card-name": "worker-g"}),
    "h_version": ("/soak/valid/card", 3, [STALE], {"a2a-min-card-version": "3.2.0"}),
    "h_junk": ("/soak/valid/card", 2, ["problem:400:invalid_caller_requirement"],
               {"a2a-min-card-version": "three"}),
    "f_trailers": ("/soak/fault/chunked-trailers/card", 8, ["valid"], {}),
    "f_1xx": ("/soak/fault/1xx/card", 6, ["valid"], {}),
    "f_long": ("/soak/fault/long-body/card", 6, ["problem:502:malformed_card"], {}),
    "f_reset": ("/soak/fault/reset-body/card", 4, ["envoy:502", "envoy:503", "reset"], {}),
    "f_close": ("/soak/fault/close-body/card", 4, ["envoy:502", "envoy:503", "reset"], {}),
    "f_bighdr": ("/soak/fault/big-header/card", 2, ["valid"], {}),
}, 200, ("f_stall", "/soak/fault/stall-body/card", ["envoy:504"]))

# The re-resolving listener: the origin answers every /r/ path with a stale card, so each
# request re-resolves (a dispatched call to the `primary` cluster, the fault upstream, for the
# same path, whose second-to-last segment picks its answer). `valid@primary/2`: a valid card whose
# `a2a-card-source` is the primary, at `a2a-card-attempts` 2. A failed or refused re-resolution
# answers the last attempt that carried a card (DESIGN.md, Re-resolution): the replica's stale
# one, or the primary's.
RESOLVE = Mix("soakr", {
    "r_ok": ("/r/ok/card", 40, ["valid@primary/2"], {}),
    "r_unique": ("/r/unique/card", 20, ["valid@primary/2"], {}),
    "r_stale": ("/r/stale/card", 10, [STALE], {}),
    "r_name": ("/r/ok/card", 8, [STALE], {"a2a-card-name": "worker-g"}),
    "r_404": ("/r/missing/card", 10, [STALE], {}),
    "r_reset": ("/r/reset-body/card", 6, [STALE], {}),
    "r_long": ("/r/long-body/card", 6, ["problem:502:malformed_card"], {}),
}, 100, ("r_stall", "/r/stall-body/card", [STALE]))

MIXES = (GATE, RESOLVE)

PLUGIN = {
    "$comment": "soak: the incident's kind of rule; one agent needs a capability no card has",
    "defaults": {"max_stale": "10s"},
    "agents": {"mismatch": {"require": ["task.execute.v3", "task.execute.v9"]}},
    "routes": [{"path": "/soak/{id}/card"}, {"path": "/soak/fault/{id}/card"}],
}

# The re-resolving listener's: a budget no soak reaches (its refusals are tested in
# tests/envoy/test_reresolve.py), so every stale answer is re-resolved.
RESOLVE_PLUGIN = {
    "defaults": {"max_stale": "10s"},
    "routes": [{"path": "/r/{id}/card"}],
    "re_resolve": {"cluster": "primary", "timeout": "1s", "max_attempts": 2, "deadline": "3s",
                   "budget": {"per_second": 100000, "burst": 100000}},
}


def classify(status, header, body):
    """The same rules as the Lua script's `outcome`."""
    if status is None:
        return "reset"
    verdict = header("a2a-card-verdict")
    if status == 200 and verdict == "valid" and len(body) == len(CARD_BYTES):
        source = header("a2a-card-source")
        return "valid@%s/%s" % (source, header("a2a-card-attempts")) if source else "valid"
    if header("content-type") == "application/problem+json":
        # A decision's problem names its error class; a refusal of the request, its type.
        m = (re.search(rb'"error_class":"([A-Za-z0-9_]+)"', body)
             or re.search(rb'"type":"urn:cardgate:problem:([A-Za-z0-9_]+)"', body))
        return "problem:%d:%s" % (status, m.group(1).decode() if m else "?")
    if status >= 500:
        return "envoy:%d" % status
    return "other:%d:%s" % (status, verdict)


# -- Envoy configurations ---------------------------------------------------------------------

def origin_config():
    card = CARD_BYTES.decode()
    oversized = json.dumps(dict(CARD, description="x" * (70 * 1024)), separators=(",", ":"))
    bodies = {
        "valid": (card, "120"),
        "stale": (card, "40000"),
        "mismatch": (card, "120"),
        "malformed": (card[: len(card) // 2], "120"),
        "oversized": (oversized, "120"),
    }
    routes = [{
        "match": {"path": "/soak/%s/card" % kind},
        "direct_response": {"status": 200, "body": {"inline_string": body}},
        "response_headers_to_add": [
            {"header": {"key": "content-type", "value": "application/json"}},
            {"header": {"key": LAG_HEADER, "value": lag}}],
    } for kind, (body, lag) in bodies.items()]
    # The re-resolving listener's replica: stale on every path.
    routes.append({
        "match": {"prefix": "/r/"},
        "direct_response": {"status": 200, "body": {"inline_string": card}},
        "response_headers_to_add": [
            {"header": {"key": "content-type", "value": "application/json"}},
            {"header": {"key": LAG_HEADER, "value": "40000"}}],
    })
    router = {"name": "envoy.filters.http.router",
              "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}
    listener = {
        "name": "origin",
        "address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}},
        "filter_chains": [{"filters": [{
            "name": "envoy.filters.network.http_connection_manager",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                "stat_prefix": "origin",
                "route_config": {"max_direct_response_body_size_bytes": 131072,
                                 "virtual_hosts": [{"name": "origin", "domains": ["*"], "routes": routes}]},
                "http_filters": [router],
            },
        }]}],
    }
    return harness.bootstrap([listener], [])


def front_config(origin_port, fault_port):
    gate = harness.listener(GATE.listener, "origin", [harness.wasm_filter("cardgate", PLUGIN)])
    vhost = gate["filter_chains"][0]["filters"][0]["typed_config"]["route_config"]["virtual_hosts"][0]
    vhost["routes"] = [
        {"match": {"prefix": "/soak/fault/"}, "route": {"cluster": "faults", "timeout": FAULT_ROUTE_TIMEOUT}},
        {"match": {"prefix": "/"}, "route": {"cluster": "origin", "timeout": "5s"}},
    ]
    resolve = harness.listener(RESOLVE.listener, "origin",
                               [harness.wasm_filter("cardgate_reresolve", RESOLVE_PLUGIN)])
    return harness.bootstrap([gate, resolve], [harness.cluster("origin", origin_port),
                                               harness.cluster("faults", fault_port),
                                               harness.cluster("primary", fault_port)])


class FrontEnvoy(harness.Envoy):
    """harness.Envoy with N workers (the harness runs one)."""

    concurrency = 2

    def start(self, timeout=30, listeners=None):
        real = subprocess.Popen

        def popen(args, **kw):
            args = list(args)
            i = args.index("--concurrency")
            args[i + 1] = str(self.concurrency)
            return real(args, **kw)

        subprocess.Popen = popen
        try:
            return super().start(timeout, listeners)
        finally:
            subprocess.Popen = real


# -- memory -----------------------------------------------------------------------------------

def vm_memories(pid):
    """(size, resident) of each Wasm linear memory: V8 reserves a guarded region per memory
    and makes its start read-write as the memory grows."""
    maps, cur = [], None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) ", line)
            if m:
                cur = {"start": int(m.group(1), 16), "end": int(m.group(2), 16), "perm": m.group(3), "rss": 0}
                maps.append(cur)
            elif line.startswith("Rss:") and cur is not None:
                cur["rss"] = int(line.split()[1]) * 1024
    out = []
    for prev, m in zip(maps, maps[1:]):
        if (m["perm"].startswith("---") and m["end"] - m["start"] >= 4 << 30
                and prev["end"] == m["start"] and prev["perm"].startswith("rw")):
            out.append((prev["end"] - prev["start"], prev["rss"]))
    return out


def sample(envoy):
    with open("/proc/%d/status" % envoy.proc.pid) as f:
        rss = int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) * 1024
    stats = envoy.stats()
    vms = vm_memories(envoy.proc.pid)
    return {
        "t": time.monotonic(),
        "requests": sum(stats.get("http.%s.downstream_rq_total" % m.listener, 0) for m in MIXES),
        "rss": rss,
        "heap": stats.get("server.memory_allocated", 0),
        "vm_count": len(vms),
        "vm_size": sum(s for s, _ in vms),
        "vm_rss": sum(r for _, r in vms),
        "vms": vms,
    }


def mib(n):
    return "%.1f MiB" % (n / 1048576.0)


def show(label, s):
    print("  %-10s requests %8d  envoy RSS %s  heap %s  wasm VMs %d: linear memory %s (resident %d KiB), pages %s"
          % (label, s["requests"], mib(s["rss"]), mib(s["heap"]), s["vm_count"], mib(s["vm_size"]),
             s["vm_rss"] // 1024, [round(size / 65536) for size, _ in s["vms"]]), flush=True)


# -- traffic ----------------------------------------------------------------------------------

def warm_up(port, mix, items, count):
    """`count` requests of the schedule from here, classified like wrk's; returns the tallies."""
    tally = {}
    want = mix.expected()
    where = mix.paths()
    headers = mix.headers()
    for i in range(count):
        kind = items[i % len(items)]
        ex = exchange(port, where[kind], headers=list(headers[kind].items()), timeout=10)
        status = ex.status if ex.end == "complete" else None
        o = classify(status, ex.header, ex.body)
        tally[(kind, o)] = tally.get((kind, o), 0) + 1
        if o not in want[kind]:
            print("warm-up: wrong answer for %s: %s %r" % (kind, o, ex), flush=True)
    return tally


LUA = r"""
-- Generated by envoy/soak.py. One connection per thread: each answer belongs to the last request.
local schedule = %(schedule)s
local paths = %(paths)s
local headers = %(headers)s
local expected = %(expected)s
local card_len = %(card_len)d
local pos = 0
local calls = 0
local pending = nil
stats = {}
first_wrong = nil
threads = {}

local function bump(key) stats[key] = (stats[key] or 0) + 1 end

function setup(thread)
  thread:set("offset", #threads * 997)
  table.insert(threads, thread)
end

function init(args)
  pos = offset or 0
end

function request()
  pos = pos + 1
  calls = calls + 1
  local kind = schedule[(pos - 1) %% #schedule + 1]
  if pending ~= nil then
    -- wrk builds one request per thread before connecting and never sends it
    if calls == 2 then stats[pending .. " sent"] = stats[pending .. " sent"] - 1 else bump(pending .. " lost") end
  end
  pending = kind
  bump(kind .. " sent")
  return wrk.format("GET", paths[kind], headers[kind])
end

local function outcome(status, headers, body)
  local verdict = headers["a2a-card-verdict"]
  if status == 200 and verdict == "valid" and #body == card_len then
    local source = headers["a2a-card-source"]
    if source then return "valid@" .. source .. "/" .. tostring(headers["a2a-card-attempts"]) end
    return "valid"
  end
  if headers["content-type"] == "application/problem+json" then
    local class = string.match(body, '"error_class":"([%%w_]+)"')
      or string.match(body, '"type":"urn:cardgate:problem:([%%w_]+)"') or "?"
    return "problem:" .. status .. ":" .. class
  end
  if status >= 500 then return "envoy:" .. status end
  return "other:" .. status .. ":" .. tostring(verdict)
end

function response(status, headers, body)
  local kind = pending
  pending = nil
  if kind == nil then bump("unpaired") return end
  local o = outcome(status, headers, body)
  bump(kind .. " = " .. o)
  if not expected[kind][o] then
    bump("wrong")
    if string.sub(o, 1, 6) == "envoy:" then bump("unchosen5xx") end
    if first_wrong == nil then first_wrong = kind .. " -> " .. o .. " " .. string.sub(body, 1, 300) end
  end
end

function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("stats")) do io.write(string.format("SOAK\t%%s\t%%d\n", k, v)) end
    local w = t:get("first_wrong")
    if w then io.write("SOAKWRONG\t" .. w .. "\n") end
  end
  local e = summary.errors
  io.write(string.format("SOAKSUM\t%%d\t%%d\t%%d\t%%d\t%%d\t%%d\t%%d\n", summary.requests, summary.duration,
    e.connect, e.read, e.write, e.status, e.timeout))
end
"""


def lua_value(v):
    if isinstance(v, dict):
        return "{" + ", ".join("[%s] = %s" % (lua_value(k), lua_value(x)) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "{" + ", ".join(lua_value(x) for x in v) + "}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def lua_script(mix, items):
    return LUA % {
        "schedule": lua_value(items),
        "paths": lua_value(mix.paths()),
        "headers": lua_value(mix.headers()),
        "expected": lua_value({k: {o: True for o in sorted(v)} for k, v in mix.expected().items()}),
        "card_len": len(CARD_BYTES),
    }


def run_wrk(runs, seconds, script_of, front, interval, samples):
    """One wrk per (port, connections) in `runs`, all at once; their outputs in that order."""
    procs, outs, readers = [], [], []
    for i, (port, connections) in enumerate(runs):
        cmd = ["wrk", "-t%d" % connections, "-c%d" % connections, "-d%ds" % seconds, "--timeout", "10s",
               "-s", script_of[i], "http://127.0.0.1:%d" % port]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out = []
        reader = threading.Thread(target=lambda p=proc, o=out: o.append(p.stdout.read().decode("utf-8", "replace")),
                                  daemon=True)
        reader.start()
        procs.append(proc)
        outs.append(out)
        readers.append(reader)
    started = time.monotonic()
    try:
        while any(p.poll() is None for p in procs):
            try:
                next(p for p in procs if p.poll() is None).wait(interval)
            except subprocess.TimeoutExpired:
                samples.append(sample(front))
                show("%4.0f s" % (time.monotonic() - started), samples[-1])
        for reader in readers:
            reader.join(30)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    return ["".join(out) for out in outs]


def parse_wrk(text):
    tallies, wrong, summary = {}, [], None
    for line in text.splitlines():
        parts = line.split("\t")
        if parts[0] == "SOAK" and len(parts) == 3:
            tallies[parts[1]] = tallies.get(parts[1], 0) + int(parts[2])
        elif parts[0] == "SOAKWRONG":
            wrong.append(parts[1])
        elif parts[0] == "SOAKSUM":
            summary = [int(x) for x in parts[1:]]
    return tallies, wrong, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("SOAK_SECONDS") or 600))
    parser.add_argument("--connections", type=int, default=4,
                        help="wrk threads to the gating listener, one connection each")
    parser.add_argument("--resolve-connections", type=int, default=2,
                        help="wrk threads to the re-resolving listener, one connection each")
    parser.add_argument("--warm-up", type=int, default=1000, help="requests before the first sample")
    parser.add_argument("--interval", type=int, default=60, help="seconds between memory samples")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs)")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("soak: wrk is missing (apt-get install -y wrk)")

    workdir = harness.temp_workdir("cardgate-soak-")
    faults = FaultUpstream().start()
    origin = harness.Envoy(origin_config(), workdir, "origin")
    front = None
    failures = []
    try:
        origin.start()
        front = FrontEnvoy(front_config(origin.ports["origin"], faults.port), workdir, "front").start()
        schedules = [m.schedule() for m in MIXES]
        scripts = []
        for mix, items in zip(MIXES, schedules):
            scripts.append(os.path.join(workdir, "soak-%s.lua" % mix.listener))
            with open(scripts[-1], "w") as f:
                f.write(lua_script(mix, items))
        connections = [args.connections, args.resolve_connections]
        print("soak: Envoy %s --concurrency %d, cardgate %d bytes, %d s of wrk (%s) after %d warm-up requests"
              % (os.path.basename(os.path.dirname(os.path.dirname(front.binary))), FrontEnvoy.concurrency,
                 os.path.getsize(harness.WASM), args.seconds,
                 ", ".join("%d connections to %s" % (c, m.listener) for m, c in zip(MIXES, connections)),
                 args.warm_up), flush=True)
        for mix, items in zip(MIXES, schedules):
            print("  %s mix per %d requests: %s" % (mix.listener, SCHEDULE_LEN, ", ".join(
                "%s %d" % (k, items.count(k)) for k in mix.all_kinds())), flush=True)

        # The warm-up: its requests split between the listeners as the connections are.
        warm_wrong = 0
        for mix, items, c in zip(MIXES, schedules, connections):
            count = args.warm_up * c // sum(connections)
            warm = warm_up(front.ports[mix.listener], mix, items, count)
            want = mix.expected()
            warm_wrong += sum(n for (k, o), n in warm.items() if o not in want[k])
        if warm_wrong:
            failures.append("%d wrong answers in the warm-up" % warm_wrong)
        first = sample(front)
        show("at %d" % first["requests"], first)

        samples = []
        texts = run_wrk([(front.ports[m.listener], c) for m, c in zip(MIXES, connections)],
                        args.seconds, scripts, front, args.interval, samples)
        last = sample(front)
        show("at end", last)
        wrong = unchosen = fault_5xx = bad_lost = total = 0
        errors = [0, 0, 0, 0]
        seconds = 0.0
        for mix, text in zip(MIXES, texts):
            tallies, wrong_samples, summary = parse_wrk(text)
            if summary is None:
                failures.append("no summary from wrk (%s)" % mix.listener)
                raise SystemExit("soak: no summary from wrk:\n" + text[-3000:])
            n, duration_us, e_connect, e_read, e_write, e_status, e_timeout = summary
            total += n
            seconds = max(seconds, duration_us / 1e6)
            errors = [x + y for x, y in zip(errors, (e_connect, e_read, e_write, e_timeout))]
            want = mix.expected()
            print("\nanswers by path (wrk phase, listener %s, %d requests):" % (mix.listener, n))
            for kind in mix.all_kinds():
                sent = tallies.get(kind + " sent", 0)
                answers = {k.split(" = ", 1)[1]: v for k, v in tallies.items() if k.startswith(kind + " = ")}
                lost = tallies.get(kind + " lost", 0)
                print("  %-11s sent %8d  %s%s" % (kind, sent, ", ".join("%s %d" % kv for kv in sorted(answers.items())),
                                                 ", lost %d" % lost if lost else ""))
                if lost and "reset" not in want[kind]:
                    bad_lost += lost
            wrong += tallies.get("wrong", 0)
            unchosen += tallies.get("unchosen5xx", 0)
            fault_5xx += sum(v for k, v in tallies.items() if " = envoy:" in k and k.startswith("f_"))
            if tallies.get("wrong", 0):
                failures.append("%d wrong verdicts on %s, first: %s"
                                % (tallies["wrong"], mix.listener, "; ".join(wrong_samples[:3])))
            if tallies.get("unpaired"):
                failures.append("%d answers without a request on %s" % (tallies["unpaired"], mix.listener))
        requests = last["requests"]
        print("\nsoak figures:")
        print("  requests            %d (%d warm-up + %d wrk in %.0f s, %.0f/s)" % (
            requests, first["requests"], total, seconds, total / max(seconds, 1e-9)))
        stats = front.stats()
        counters = {}
        for key, value in stats.items():
            for name in ("reresolve.", "analysis."):
                if "cardgate." + name in key and isinstance(value, int):
                    short = name + key.rsplit(name, 1)[1]
                    counters[short] = counters.get(short, 0) + value
        print("  re-resolution       %d calls to the primary cluster; %s" % (
            stats.get("cluster.primary.upstream_rq_total", 0),
            ", ".join("%s %d" % kv for kv in sorted(counters.items()) if kv[0].startswith("reresolve."))))
        print("  analysis cache      %s" % ", ".join(
            "%s %d" % kv for kv in sorted(counters.items()) if kv[0].startswith("analysis.")))
        print("  wrong verdicts      %d" % (wrong + warm_wrong))
        print("  unchosen 5xx        %d (Envoy's own 5xx for injected upstream faults, expected: %d)" % (unchosen, fault_5xx))
        print("  lost answers        %d on fault-free paths; wrk socket errors connect %d read %d write %d timeout %d"
              % (bad_lost, *errors))
        def per_request(key, since):
            done = max(last["requests"] - since["requests"], 1)
            return "%+.2f" % ((last[key] - since[key]) / done)

        # Growth per request from the 1k sample, and from the first periodic one (after warm-up).
        later = samples[0] if len(samples) > 1 else None

        def growth(key):
            text = "%s bytes/request since %d requests" % (per_request(key, first), first["requests"])
            if later:
                text += ", %s since %d requests" % (per_request(key, later), later["requests"])
            return text

        at = "at %d" % first["requests"]
        print("  envoy RSS           %s %s -> %s at end (%s)" % (mib(first["rss"]), at, mib(last["rss"]), growth("rss")))
        print("  envoy heap          %s %s -> %s at end (%s)" % (mib(first["heap"]), at, mib(last["heap"]), growth("heap")))
        print("  wasm VM memory      %d VMs, linear memory %s (resident %d KiB) %s -> %d VMs, %s (resident %d KiB)"
              " at end (%s)" % (first["vm_count"], mib(first["vm_size"]), first["vm_rss"] // 1024, at, last["vm_count"],
                                mib(last["vm_size"]), last["vm_rss"] // 1024, growth("vm_size")))
        log = front.log()
        for needle in ("RuntimeError", "panicked", "Wasm VM failed"):
            if needle in log:
                failures.append("Envoy log has %r" % needle)
        if unchosen:
            failures.append("%d 5xx that neither cardgate nor a fault explains" % unchosen)
        if bad_lost > sum(connections):  # at most one in flight per connection when wrk stops
            failures.append("%d answers lost on fault-free paths" % bad_lost)
    finally:
        if front:
            front.stop()
        origin.stop()
        faults.stop()
        if args.keep or failures:
            print("logs kept in", workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if failures:
        print("\nsoak FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("\nsoak passed")


if __name__ == "__main__":
    main()
