#!/usr/bin/env python3
"""Throughput of card requests through Envoy with and without cardgate (informative, not a test).

One Envoy (one worker) serves the card itself from a `direct_response` listener (so no Python
server limits the figures), and two front listeners proxy to it: one with the cardgate filter,
one without. wrk (Debian package `wrk`) drives each front listener on loopback for a few
seconds; everything shares this machine's cores, so treat the ratio as indicative.

    .tools/py/bin/python tests/envoy/bench.py [--seconds 5] [--connections 8]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))

import harness  # noqa: E402

CARD = {
    "name": "worker-7",
    "description": "Python worker runtime that executes planner tasks",
    "version": "2.4.0",
    "supportedInterfaces": [{"url": "wss://worker-7.internal/a2a/v3", "protocolBinding": "JSONRPC",
                             "protocolVersion": "1.0"}],
    "capabilities": {"streaming": True, "pushNotifications": False},
    "defaultInputModes": ["application/json"],
    "defaultOutputModes": ["application/json"],
    "skills": [{"id": "task.execute.v3", "name": "Execute task", "description": "Runs one planner task",
                "tags": ["execution"]}],
}


def origin_listener(name):
    body = json.dumps(CARD, separators=(",", ":"))
    return {
        "name": name,
        "address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}},
        "filter_chains": [{"filters": [{
            "name": "envoy.filters.network.http_connection_manager",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                "stat_prefix": name,
                "route_config": {"virtual_hosts": [{"name": name, "domains": ["*"], "routes": [{
                    "match": {"prefix": "/"},
                    "direct_response": {"status": 200, "body": {"inline_string": body}},
                    "response_headers_to_add": [
                        {"header": {"key": "content-type", "value": "application/json"}},
                        {"header": {"key": "x-replica-lag-ms", "value": "120"}}],
                }]}]},
                "http_filters": [{"name": "envoy.filters.http.router", "typed_config": {
                    "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],
            },
        }]}],
    }


def wrk(port, seconds, connections):
    out = subprocess.run(
        ["wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds,
         "-H", "a2a-require-capabilities: task.execute.v3", "-H", "Cache-Control: max-stale=10",
         "http://127.0.0.1:%d/agents/worker-7/card" % port],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=seconds + 30).stdout.decode()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    latency = re.search(r"Latency\s+(\S+)", out).group(1)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, latency, int(errors.group(1)) if errors else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk is missing (apt-get install -y wrk)")

    workdir = harness.temp_workdir("cardgate-bench-")
    plugin = {"defaults": {"max_stale": "10s"}, "routes": [{"path": "/agents/{id}/card"}]}
    # The origin's port is only known once Envoy runs: a first Envoy serves the origin, a second
    # one carries the two front listeners.
    origin = harness.Envoy(harness.bootstrap([origin_listener("origin")], []), workdir, "origin")
    front = None
    try:
        origin.start()
        config = harness.bootstrap(
            [harness.listener("with_cardgate", "origin", [harness.wasm_filter("cardgate", plugin)]),
             harness.listener("without", "origin", [])],
            [harness.cluster("origin", origin.ports["origin"])])
        front = harness.Envoy(config, workdir, "front").start()
        check = harness.request(front.ports["with_cardgate"], "/agents/worker-7/card",
                                headers={"a2a-require-capabilities": "task.execute.v3"})
        assert check.header("a2a-card-verdict") == "valid", check
        results = {"without": [], "with_cardgate": []}
        for _ in range(args.rounds):
            for name in ("without", "with_cardgate"):
                results[name].append(wrk(front.ports[name], args.seconds, args.connections))
        print("card GET through Envoy 1 worker, wrk 1 thread %d connections, %d s x %d rounds, loopback"
              % (args.connections, args.seconds, args.rounds))
        best = {}
        for name, runs in results.items():
            best[name] = max(r[0] for r in runs)
            print("  %-14s %s" % (name, "  ".join("%.0f req/s (latency avg %s, non-2xx %d)" % r for r in runs)))
        print("  ratio with/without (best rounds): %.2f" % (best["with_cardgate"] / best["without"]))
        print("  wasm module: %d bytes" % os.path.getsize(harness.WASM))
    finally:
        if front:
            front.stop()
        origin.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
