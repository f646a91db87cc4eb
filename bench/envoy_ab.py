#!/usr/bin/env python3
"""A/B of cardgate builds in one front Envoy (for work on the filter; informative only).

    .tools/py/bin/python bench/envoy_ab.py A.wasm B.wasm ... [--workloads typical-repeated,typical-unique]
        [--rounds 5] [--seconds 2]

One front Envoy (one worker) as in tests/envoy/bench.py carries the buffer-only listener and one
copy of the shipped cardgate listener per module given (each its own VM). wrk drives every
(workload, contender) pair in turn, round-robin with the order rotated each round; per round each
module's req/s and CPU per request are divided by buffer-only's in the same round, and the table
gives the medians. The load average is printed with the table.
"""

import argparse
import copy
import importlib.util
import os
import shutil
import statistics

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
spec = importlib.util.spec_from_file_location("envoy_bench", os.path.join(ROOT, "tests", "envoy", "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
harness = bench.harness


def config_for(origin_port, modules):
    config = bench.front_config(origin_port)
    listeners = config["static_resources"]["listeners"]
    cardgate = next(l for l in listeners if l["name"] == "cardgate")
    out = [l for l in listeners if l["name"] == "buffer_only"]
    for i, path in enumerate(modules):
        listener = copy.deepcopy(cardgate)
        listener["name"] = "m%d" % i

        def fix(node):
            if isinstance(node, dict):
                if "stat_prefix" in node:
                    node["stat_prefix"] = "m%d" % i
                vm = node.get("vm_config")
                if isinstance(vm, dict):
                    vm["vm_id"] = "m%d" % i
                    vm["code"] = {"local": {"filename": os.path.abspath(path)}}

        bench._walk(listener, fix)
        out.append(listener)
    config["static_resources"]["listeners"] = out
    return config


def main():
    p = argparse.ArgumentParser()
    p.add_argument("modules", nargs="+")
    p.add_argument("--workloads", default="typical-repeated,typical-unique,minimal-repeated")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=int, default=2)
    args = p.parse_args()
    loads = {w[0]: w for w in bench.workloads()}
    chosen = [loads[k] for k in args.workloads.split(",")]
    workdir = harness.temp_workdir("cardgate-ab-")
    origin = harness.Envoy(bench.origin_config(), workdir, "origin")
    front = None
    names = ["buffer_only"] + ["m%d" % i for i in range(len(args.modules))]
    try:
        origin.start()
        front = harness.Envoy(config_for(origin.ports["origin"], args.modules), workdir, "front").start()
        pid = front.proc.pid
        pairs = [(w, n) for w in chosen for n in names]
        for (key, _, path, headers, script, _), n in pairs:
            bench.wrk(front.ports[n], path, headers, script, 1, 8, pid, workdir)
        res = {(w[0], n): [] for w, n in pairs}
        for r in range(args.rounds):
            shift = r % len(pairs)
            for (key, _, path, headers, script, _), n in pairs[shift:] + pairs[:shift]:
                res[(key, n)].append(bench.wrk(front.ports[n], path, headers, script, args.seconds, 8, pid, workdir))
        print("load %s; %d rounds x %d s; modules: %s" % (" ".join(open("/proc/loadavg").read().split()[:3]),
              args.rounds, args.seconds, ", ".join("m%d=%s" % (i, m) for i, m in enumerate(args.modules))))
        print("| workload | contender | req/s | p50 µs | p99 µs | CPU µs/req | req/s vs buffer-only | CPU vs buffer-only | CPU - buffer-only µs |")
        print("|---|---|---|---|---|---|---|---|---|")
        for w in chosen:
            base = res[(w[0], "buffer_only")]
            for n in names:
                runs = res[(w[0], n)]
                rr = statistics.median(a["rps"] / b["rps"] for a, b in zip(runs, base))
                cr = statistics.median(a["cpu_us"] / b["cpu_us"] for a, b in zip(runs, base))
                cd = statistics.median(a["cpu_us"] - b["cpu_us"] for a, b in zip(runs, base))
                bad = sum(r["non2xx"] for r in runs)
                print("| %s | %s | %.0f | %.0f | %.0f | %.1f | %.2f | %.2f | %.1f |%s" % (
                    w[0], n, statistics.median(r["rps"] for r in runs), statistics.median(r["p50_us"] for r in runs),
                    statistics.median(r["p99_us"] for r in runs), statistics.median(r["cpu_us"] for r in runs),
                    rr, cr, cd, " %d non-2xx" % bad if bad else ""))
    finally:
        if front:
            front.stop()
        origin.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
