#!/usr/bin/env python3
"""Profile the front Envoy of the bench (tests/envoy/bench.py) under one workload.

    .tools/py/bin/python bench/envoy_profile.py [--filter cardgate] [--workload typical-repeated]
        [--seconds 5] [--perf perf.data] [--stats] [--dump-config FILE]

Starts the bench's origin and front Envoys, warms up, then runs wrk against one contender while
`perf record` samples the front Envoy (user space). Prints wrk's figures, CPU per request and, with
--stats, the front Envoy's wasm counters. Informative only.
"""

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
spec = importlib.util.spec_from_file_location("envoy_bench", os.path.join(ROOT, "tests", "envoy", "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
harness = bench.harness


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--filter", default="cardgate", choices=bench.FILTERS)
    p.add_argument("--workload", default="typical-repeated")
    p.add_argument("--seconds", type=int, default=5)
    p.add_argument("--perf", default="")
    p.add_argument("--perf-args", default="-F 2000 -g")
    p.add_argument("--stats", action="store_true")
    p.add_argument("--buffer-wasm", default="", help="another module in buffer-only's place")
    p.add_argument("--buffer-config", default="", help="its plugin configuration (a string)")
    p.add_argument("--dump-config", default="", help="write the cardgate listener's plugin configuration here and exit")
    args = p.parse_args()
    if args.dump_config:
        found = []
        bench._walk(bench.front_config(1), lambda n: found.append(n["configuration"]["value"])
                    if isinstance(n, dict) and isinstance(n.get("configuration"), dict) else None)
        with open(args.dump_config, "w") as f:
            f.write(found[-1])
        return
    loads = {w[0]: w for w in bench.workloads()}
    key, _, path, headers, script, _ = loads[args.workload]
    workdir = harness.temp_workdir("cardgate-prof-")
    origin = harness.Envoy(bench.origin_config(), workdir, "origin")
    front = None
    try:
        origin.start()
        config = bench.front_config(origin.ports["origin"])
        if args.buffer_wasm:
            def swap(node):
                if isinstance(node, dict) and isinstance(node.get("vm_config"), dict) \
                        and node["vm_config"].get("vm_id") == "buffer_only":
                    node["vm_config"]["code"] = {"local": {"filename": os.path.abspath(args.buffer_wasm)}}
                    node["configuration"] = {"@type": "type.googleapis.com/google.protobuf.StringValue",
                                             "value": args.buffer_config}
            bench._walk(config, swap)
        front = harness.Envoy(config, workdir, "front").start()
        pid = front.proc.pid
        port = front.ports[bench.LISTENER[args.filter]]
        bench.check(front, args.filter, path, headers, script is not None)
        bench.wrk(port, path, headers, script, 2, 8, pid, workdir)
        perf = None
        if args.perf:
            perf = subprocess.Popen(["perf", "record", *args.perf_args.split(), "-o", args.perf, "-p", str(pid)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        res = bench.wrk(port, path, headers, script, args.seconds, 8, pid, workdir)
        if perf:
            perf.send_signal(2)
            perf.wait()
        print("%s %s: %.0f req/s, p50 %.0f us, p99 %.0f us, CPU %.1f us/req, %d requests"
              % (args.filter, key, res["rps"], res["p50_us"], res["p99_us"], res["cpu_us"], res["requests"]))
        if args.stats:
            for k, v in sorted(front.stats().items()):
                if "wasm" in k and v:
                    print("  %s %s" % (k, v))
    finally:
        if front:
            front.stop()
        origin.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
