#!/usr/bin/env python3
"""`make bench`: one run, one table (bench/README.md), printed and written to bench/results.md.

1. The native core (benches/gate.rs --serve) vs the Python peer (bench/peers/peer_python.py, run
   in this process) and the JS peer (bench/peers/peer_js.mjs, in benches/node.mjs --serve) on the
   three shared cards, with the native breakdown and the floor.
2. The npm package (pkg/, through benches/node.mjs) vs the JS peer: bytes, string, objects in.
3. Envoy: pass-through vs buffer-only vs cardgate (tests/envoy/bench.py).
4. The .wasm sizes, raw and gzip -9.

Sections 1 and 2 share one round-robin: every round runs each contender once per card, in an
order rotated from round to round, each a batch of about --batch-ms; the table shows medians
over the rounds and their p10-p90, and ratios taken within each round. Figures, never a test.

    .tools/py/bin/python bench/run.py [--rounds 25] [--batch-ms 30] [--envoy-rounds 5]
        [--envoy-seconds 2] [--skip-envoy] [--out bench/results.md]
"""

import argparse
import datetime
import importlib.util
import math
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CARDS = ("minimal", "typical", "large")
CARD_PATH = {c: os.path.join(ROOT, "bench", "cards", c + ".json") for c in CARDS}
CARD_BYTES = {c: open(CARD_PATH[c], "rb").read() for c in CARDS}
NATIVE_OPS = ("evaluate", "evaluate_json", "parse", "canonical", "hash", "card_hash", "card_view",
              "to_json", "floor")
NODE_OPS = ("peer", "pkg_bytes", "pkg_string", "pkg_objects")
WASM = (("dist/cardgate.wasm", "the Envoy filter"),
        ("pkg/web/cardgate_bg.wasm", "the npm package (its web and Node builds share it)"),
        ("target/buffer_only/buffer_only.wasm", "the buffer-only filter, bench/buffer_only"))
# Issue 10's reference sizes ("filter 309 KB, package 191 KB raw") and targets.
SIZE_BASELINE = {"dist/cardgate.wasm": 309_000, "pkg/web/cardgate_bg.wasm": 191_000}


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def sh(*cmd):
    try:
        return subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=60).stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        return "?"


class Worker:
    """A --serve process: one command line in, one answer line out."""

    def __init__(self, name, cmd, env=None):
        self.name = name
        self.log_path = os.path.join(ROOT, "target", "bench-%s.log" % name)
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, bufsize=1,
                                     env=dict(os.environ, **(env or {})))

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            self.log.flush()
            with open(self.log_path) as f:
                raise SystemExit("bench: the %s worker stopped on %r:\n%s" % (self.name, line, f.read()[-3000:]))
        return answer.rstrip("\n")

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
            self.proc.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def python_peer():
    spec = importlib.util.spec_from_file_location("peer_python", os.path.join(ROOT, "bench", "peers", "peer_python.py"))
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    required = frozenset(["task.execute.v3"])
    for card in CARDS:
        _, reasons = peer.evaluate(CARD_BYTES[card], required, (7,), 10.0, 0.5)
        assert not reasons, (card, reasons)

    def run(card, n):
        text = CARD_BYTES[card]
        evaluate = peer.evaluate
        start = time.perf_counter_ns()
        for _ in range(n):
            evaluate(text, required, (7,), 10.0, 0.5)
        return time.perf_counter_ns() - start

    return run


# ------------------------------------------------------------------ sections 1 and 2: timings

def core_rounds(args, log):
    native = Worker("native", ["cargo", "bench", "-q", "--bench", "gate", "--", "--serve"],
                    env={"CARGO_PROFILE_BENCH_PANIC": "unwind"})
    node = Worker("node", ["node", os.path.join("benches", "node.mjs"), "--serve"])
    try:
        same = {c: native.ask("check " + CARD_PATH[c]) == node.ask("check " + CARD_PATH[c]) for c in CARDS}
        allocs = {c: native.ask("allocs %s evaluate" % CARD_PATH[c]).split() for c in CARDS}
        py = python_peer()
        contenders = {}
        for op in NATIVE_OPS:
            contenders["native:" + op] = (lambda w, o: lambda card, n: int(w.ask("run %s %s %d" % (CARD_PATH[card], o, n))))(native, op)
        contenders["python:peer"] = py
        for op in NODE_OPS:
            contenders["node:" + op] = (lambda w, o: lambda card, n: int(w.ask("run %s %s %d" % (CARD_PATH[card], o, n))))(node, op)
        # Batch sizes: grow until a batch takes about --batch-ms (this also warms the JIT).
        target = args.batch_ms * 1e6
        size = {}
        for name, run in contenders.items():
            for card in CARDS:
                n = 1
                while True:
                    ns = run(card, n)
                    if ns >= target / 4 or n >= 1 << 24:
                        break
                    n *= 4
                size[name, card] = max(1, math.ceil(n * target / max(ns, 1)))
                run(card, size[name, card])
        log("native and JS: batch sizes set (%d contenders x %d cards), %d rounds" % (len(contenders), len(CARDS), args.rounds))
        names = list(contenders)
        us = {(name, card): [] for name in names for card in CARDS}
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for card in CARDS:
                for name in order:
                    n = size[name, card]
                    us[name, card].append(contenders[name](card, n) / n / 1000)
            # The round's native typical and Python peer figures in the log, to tell a slow phase
            # of the shared host (rounds slowed together) from one slowed batch.
            log("native and JS: round %d/%d done, native evaluate typical %.2f us, Python peer %.0f us"
                % (r + 1, args.rounds, us["native:evaluate", "typical"][-1], us["python:peer", "typical"][-1]))
        return us, same, allocs
    finally:
        native.close()
        node.close()


def fmt(x):
    if abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.2f" % x


def spread(values):
    """p10 and p90 (inclusive method), or min and max below 5 values."""
    if len(values) < 5:
        return min(values), max(values)
    q = statistics.quantiles(values, n=10, method="inclusive")
    return q[0], q[-1]


def cell(values, unit=""):
    lo, hi = spread(values)
    return "%s%s (%s-%s)" % (fmt(statistics.median(values)), unit, fmt(lo), fmt(hi))


def per_round(a, b, op):
    return [op(x, y) for x, y in zip(a, b)]


def core_tables(us, same, allocs, rounds):
    sizes = {c: len(CARD_BYTES[c]) for c in CARDS}
    head = "| %s | " + " | ".join("%s (%d B)" % (c, sizes[c]) for c in CARDS) + " |"
    rule = "|---|" + "---|" * len(CARDS)
    g = lambda name, card: us[name, card]  # noqa: E731
    lines = ["## 1. Native core vs the Python and JS peers, and the floor", "",
             "Microseconds per evaluation, median (p10-p90) of %d interleaved rounds; ratios are taken "
             "within each round, then summarised the same way. Requirement: task.execute.v3, min_version 7, max_stale 10 s, lag 500 ms; "
             "every card is valid." % rounds, "",
             head % "µs per evaluation", rule]

    def row(label, fn):
        lines.append("| %s | %s |" % (label, " | ".join(fn(c) for c in CARDS)))

    row("native `evaluate` (parse, card hash, checks, decision; no JSON)", lambda c: cell(g("native:evaluate", c)))
    row("native `evaluate` + decision JSON (what the CLI, npm package and filter do)", lambda c: cell(g("native:evaluate_json", c)))
    row("Python peer (json + rfc8785 + hashlib)", lambda c: cell(g("python:peer", c)))
    row("JS peer (JSON.parse + canonicalize 2.x + node:crypto)", lambda c: cell(g("node:peer", c)))
    row("**native speed-up over the Python peer** (peer / native `evaluate`)",
        lambda c: cell(per_round(g("python:peer", c), g("native:evaluate", c), lambda a, b: a / b), "x"))
    row("**native speed-up over the JS peer**",
        lambda c: cell(per_round(g("node:peer", c), g("native:evaluate", c), lambda a, b: a / b), "x"))

    def share(name):
        return lambda c: "%s · %.0f %%" % (cell(g(name, c)), 100 * statistics.median(g(name, c)) / statistics.median(g("native:evaluate", c)))

    row("breakdown (µs · share of `evaluate`): parse (strict I-JSON)", share("native:parse"))
    row("canonical form (RFC 8785)", share("native:canonical"))
    row("hash (SHA-256 + hex of the canonical bytes)", share("native:hash"))
    row("card hash as the gate computes it (canonical form + hash)", share("native:card_hash"))
    # The remainder of medians: a per-round difference of three noisy figures swings too much.
    checks = {c: statistics.median(g("native:evaluate", c)) - statistics.median(g("native:parse", c))
              - statistics.median(g("native:card_hash", c)) for c in CARDS}
    row("checks and the decision (median `evaluate` - median parse - median card hash)",
        lambda c: "%s · %.0f %%" % (fmt(checks[c]), 100 * checks[c] / statistics.median(g("native:evaluate", c))))
    row("of which the card view (every SDK reading of the card)", share("native:card_view"))
    row("decision JSON (`Decision::to_json`, on top of `evaluate`)", share("native:to_json"))
    row("floor: UTF-8 check + one scan + SHA-256 of the canonical bytes", lambda c: cell(g("native:floor", c)))
    row("**native `evaluate` / floor** (1 would be the hardware's minimum)",
        lambda c: cell(per_round(g("native:evaluate", c), g("native:floor", c), lambda a, b: a / b), "x"))
    row("allocations (peak heap bytes) in one `evaluate`", lambda c: "%s (%s B)" % tuple(allocs[c]))
    lines += ["", "The peers do less than cardgate: no duplicate-member or I-JSON checks, no SDK readings, "
              "no decision (they return the hash and a list of reason codes). Same decision JSON from the "
              "native core and the npm package on every card: %s." % ("yes" if all(same.values()) else "NO: %s" % same), ""]

    lines += ["## 2. npm package vs the JS peer", "",
              "Through `pkg/node` (`make pkg`), in the same Node process as the JS peer and the same rounds "
              "as section 1. Bytes in: `evaluateRaw(Uint8Array, requirement text, observation text)`; "
              "string in: `evaluateRaw(string, ...)`; objects in: `evaluate(card object, requirement object, "
              "observation object)` with a decision object out.", "", head % "µs per evaluation", rule]
    row("JS peer", lambda c: cell(g("node:peer", c)))
    for op, label in (("pkg_bytes", "bytes in"), ("pkg_string", "string in"), ("pkg_objects", "objects in")):
        row("package, %s" % label, lambda c, op=op: cell(g("node:" + op, c)))
    for op, label in (("pkg_bytes", "bytes in"), ("pkg_string", "string in"), ("pkg_objects", "objects in")):
        row("**package speed-up over the JS peer, %s** (peer / package)" % label,
            lambda c, op=op: cell(per_round(g("node:peer", c), g("node:" + op, c), lambda a, b: a / b), "x"))
    row("package bytes in / native `evaluate` + JSON (wasm and boundary cost)",
        lambda c: cell(per_round(g("node:pkg_bytes", c), g("native:evaluate_json", c), lambda a, b: a / b), "x"))
    lines.append("")
    return lines


# ------------------------------------------------------------------ section 3: Envoy

def envoy_section(args, log):
    spec = importlib.util.spec_from_file_location("envoy_bench", os.path.join(ROOT, "tests", "envoy", "bench.py"))
    envoy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(envoy)
    data = envoy.run(args.envoy_rounds, args.envoy_seconds, args.connections, log)
    lines = ["## 3. Envoy: pass-through vs buffer-only filter vs cardgate", "",
             "Envoy %s, one worker, the shipped listener (envoy/envoy.yaml) three times: no Wasm filter, the "
             "buffer-only filter (bench/buffer_only) in cardgate's place, cardgate as shipped. wrk 1 thread, %d "
             "connections, %d s per run, %d rounds round-robin (+1 s warm-up each), loopback; the upstream is a "
             "second Envoy. Unique: every body differs (a counter in the description). Requirement: the shipped "
             "worker-7 rule tightened by the caller to the peers' (task.execute.v3, min_version 7, max-stale 10), "
             "lag 500 ms. CPU: the front Envoy's utime+stime over the run / requests. Ratios: median of the "
             "per-round ratios (CPU per request is the steadier figure on a loaded machine)."
             % (data["envoy"], data["connections"], data["seconds"], data["rounds"]), "",
             "| " + " | ".join(envoy.HEADER) + " |", "|" + "---|" * len(envoy.HEADER)]
    rows = envoy.summary_rows(data)
    for row in rows:
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "cardgate's verdict counters at the end: %s." % ", ".join(
        "%s %d" % (k.rsplit(".", 1)[-1], v) for k, v in sorted(data["verdicts"].items())), ""]
    return lines, data, envoy


# ------------------------------------------------------------------ section 4: sizes

def sizes_section():
    lines = ["## 4. Wasm sizes", "", "Issue 10's reference sizes (\"filter 309 KB, package 191 KB raw\") read as 1000-byte kB.", "",
             "| module | raw bytes | gzip -9 bytes | raw vs issue 10 |", "|---|---|---|---|"]
    for rel, label in WASM:
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            lines.append("| `%s` (%s) | missing | | |" % (rel, label))
            continue
        raw = os.path.getsize(path)
        gz = len(subprocess.run(["gzip", "-9", "-c", path], stdout=subprocess.PIPE, check=True).stdout)
        base = SIZE_BASELINE.get(rel)
        vs = "%+.1f %% (of %d kB)" % (100 * (raw / base - 1), base // 1000) if base else ""
        lines.append("| `%s` (%s) | %d | %d | %s |" % (rel, label, raw, gz, vs))
    return lines + [""]


# ------------------------------------------------------------------ targets

def targets_section(us, envoy_data):
    med = lambda name, card: statistics.median(us[name, card])  # noqa: E731
    t = []

    def target(what, value, goal, ok):
        t.append("| %s | %s | %s | %s |" % (what, value, goal, "met" if ok else "**missed**"))

    ev = med("native:evaluate", "typical")
    target("native `evaluate`, typical card", "%s µs" % fmt(ev), "<= 10 µs", ev <= 10)
    ev_l = med("native:evaluate", "large")
    target("native `evaluate`, large card", "%s µs" % fmt(ev_l), "<= 150 µs", ev_l <= 150)
    for peer, goal in (("python:peer", 25), ("node:peer", 6)):
        x = statistics.median(per_round(us[peer, "typical"], us["native:evaluate", "typical"], lambda a, b: a / b))
        target("native speed-up over the %s peer, typical" % peer.split(":")[0].replace("node", "JS").replace("python", "Python"),
               "%.1fx" % x, ">= %dx" % goal, x >= goal)
    for card, goal in (("minimal", 1.0), ("typical", 1.5), ("large", 1.5)):
        x = statistics.median(per_round(us["node:peer", card], us["node:pkg_bytes", card], lambda a, b: a / b))
        target("npm package (bytes in) speed-up over the JS peer, %s" % card, "%.2fx" % x, ">= %.1fx" % goal, x >= goal)
    if envoy_data:
        res = envoy_data["results"]
        for card, goal in (("typical", 0.90), ("minimal", 0.95)):
            for body in ("repeated", "unique"):
                r = res["%s-%s" % (card, body)]
                x = statistics.median(a["rps"] / b["rps"] for a, b in zip(r["cardgate"], r["buffer-only"]))
                target("Envoy req/s cardgate / buffer-only, %s card, %s body" % (card, body), "%.2f" % x, ">= %.2f" % goal, x >= goal)
        r = res["non-card"]
        x = statistics.median(a["rps"] / b["rps"] for a, b in zip(r["cardgate"], r["pass-through"]))
        target("Envoy req/s non-card route, cardgate listener / pass-through", "%.2f" % x, ">= 0.97", x >= 0.97)
    for rel, base in SIZE_BASELINE.items():
        path = os.path.join(ROOT, rel)
        if os.path.exists(path):
            raw = os.path.getsize(path)
            target("`%s` raw size" % rel, "%d B" % raw, "<= %d B (+10 %% of %d kB)" % (base * 1.1, base // 1000), raw <= base * 1.1)
    return ["## Issue 10 targets", "", "Medians from the tables above (absolute times depend on the machine and its load).", "",
            "| target | now | goal | |", "|---|---|---|---|"] + t + [""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--batch-ms", type=float, default=30)
    parser.add_argument("--envoy-rounds", type=int, default=5)
    parser.add_argument("--envoy-seconds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--skip-envoy", action="store_true")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results.md"))
    args = parser.parse_args()

    def log(msg):
        print("bench: %s (load %s)" % (msg, load()), file=sys.stderr, flush=True)

    started = time.monotonic()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load_start = load()
    log("start")
    us, same, allocs = core_rounds(args, log)
    load_mid = load()
    envoy_lines, envoy_data = [], None
    if not args.skip_envoy:
        envoy_lines, envoy_data, _ = envoy_section(args, log)
    load_end = load()

    commit = sh("git", "rev-parse", "--short=12", "HEAD")
    dirty = sh("git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results.md")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    flags = next((l for l in open("/proc/cpuinfo") if l.startswith("flags")), "")
    if os.environ.get("MAKELEVEL"):
        command = "make bench" + (' BENCH_ARGS="%s"' % " ".join(sys.argv[1:]) if sys.argv[1:] else "")
    else:
        command = " ".join(["bench/run.py"] + sys.argv[1:])
    head = [
        "# cardgate benchmark results", "",
        "Written by `make bench` (bench/run.py; bench/README.md says what each figure is). One run on one machine: "
        "compare ratios within it, not absolute times across machines.", "",
        "| | |", "|---|---|",
        "| command | `%s` |" % command,
        "| date | %s |" % date,
        "| commit | %s%s |" % (commit, " (with uncommitted changes)" if dirty else ""),
        "| machine | %s, %d cores%s, Linux %s |" % (cpu, os.cpu_count(), " (SHA extensions)" if " sha_ni" in flags else "", platform.release()),
        "| runtimes | %s; Node %s; Python %s; native build: cargo release profile (bench), as the CLI |"
        % (sh("rustc", "--version"), sh("node", "--version"), platform.python_version()),
        "| load average (1, 5, 15 min) | start %s; after sections 1-2 %s; end %s |" % (load_start, load_mid, load_end),
        "| duration | %.0f s (builds excluded) |" % (time.monotonic() - started),
        "",
    ]
    lines = head + core_tables(us, same, allocs, args.rounds) + envoy_lines + sizes_section() + targets_section(us, envoy_data)
    text = "\n".join(lines).rstrip() + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)
    log("done in %.0f s, written to %s" % (time.monotonic() - started, os.path.relpath(args.out, ROOT)))


if __name__ == "__main__":
    main()
