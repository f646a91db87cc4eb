#!/usr/bin/env python3
"""`make demo`: the seed's incident, replayed through a real Envoy with cardgate, on loopback.

Starts the fixture registry (envoy/registry.py: primary :18081, edge replica :18082, 40 s behind)
and Envoy with the shipped envoy/envoy.yaml (cardgate on :18080, cardgate with re-resolution on
:18083, admin :18901), then asks for worker-7's card the way the planner did (it will invoke
task.execute.v3 and tolerates 10 s of staleness) once straight from the replica and once through
cardgate, lets the replica catch up, asks again, lets it fall behind again and asks through the
re-resolving listener, and stops everything it started.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import http.client

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PRIMARY, REPLICA, GATE, ADMIN = 18081, 18082, 18080, 18901
GATE_RERESOLVE = 18083
CARD_PATH = "/agents/worker-7/card"
CALLER = {"a2a-require-capabilities": "task.execute.v3", "Cache-Control": "max-stale=10"}


def get(port, path, method="GET", headers=None, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        t0 = time.perf_counter()
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        elapsed_ms = (time.perf_counter() - t0) * 1000
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data, elapsed_ms
    finally:
        conn.close()


def wait_for(check, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit("demo: timed out waiting for %s" % what)


def port_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def say(text=""):
    print(text, flush=True)


def skill_ids(card):
    return ", ".join(s.get("id", "?") for s in card.get("skills", []))


def endpoint(card):
    interfaces = card.get("supportedInterfaces") or [{}]
    return interfaces[0].get("url", "?")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envoy", default=os.path.join(ROOT, ".tools", "envoy-1.40.0", "bin", "envoy"))
    args = parser.parse_args()

    busy = [p for p in (PRIMARY, REPLICA, GATE, GATE_RERESOLVE, ADMIN) if not port_free(p)]
    if busy:
        raise SystemExit("demo: loopback port(s) %s already in use; stop what holds them and retry" % busy)
    wasm = os.path.join(ROOT, "dist", "cardgate.wasm")
    if not os.path.exists(wasm):
        raise SystemExit("demo: %s is missing: run `make filter`" % wasm)

    logdir = tempfile.mkdtemp(prefix="cardgate-demo-")
    procs = []

    def stop_all(*_):
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in reversed(procs):
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)

    def on_signal(signum, _frame):
        stop_all()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        with open(os.path.join(logdir, "registry.log"), "w") as reg_log:
            procs.append(subprocess.Popen(
                [sys.executable, os.path.join(ROOT, "envoy", "registry.py"),
                 "--primary", "127.0.0.1:%d" % PRIMARY, "--replica", "127.0.0.1:%d" % REPLICA, "--lag-ms", "40000"],
                stdout=reg_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        with open(os.path.join(logdir, "envoy.log"), "w") as envoy_log:
            procs.append(subprocess.Popen(
                [args.envoy, "-c", os.path.join("envoy", "envoy.yaml"), "--concurrency", "1",
                 "--disable-hot-restart", "-l", "warning"],
                cwd=ROOT, stdout=envoy_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
        wait_for(lambda: get(PRIMARY, "/_fixture/health")[0] == 200, 10, "the fixture registry")

        def envoy_ready():
            if procs[1].poll() is not None:
                with open(os.path.join(logdir, "envoy.log")) as f:
                    raise SystemExit("demo: Envoy exited:\n" + f.read()[-3000:])
            return get(ADMIN, "/ready")[0] == 200 and not port_free(GATE) and not port_free(GATE_RERESOLVE)

        wait_for(envoy_ready, 30, "Envoy")
        run_story(os.path.join(logdir, "envoy.log"))
        say()
        say("(logs: %s; everything the demo started is stopped now)" % logdir)
    finally:
        stop_all()


def run_story(envoy_log):
    say("cardgate demo: the stale Agent Card incident, replayed through a real Envoy")
    say("=" * 76)
    say("worker-7 just finished a rolling deploy: its skill task.execute.v2 is now task.execute.v3")
    say("and its endpoint moved. The registry primary (:%d) serves the new card; the edge" % PRIMARY)
    say("replica (:%d) is 40 s behind and still serves the old one (version 2.0.0)." % REPLICA)
    say("The policy (policies/incident.json, in envoy/envoy.yaml) wants worker-7's card at version")
    say("3.0.0 or later, with task.execute.v3, at most 10 s behind; the planner asks for the same:")
    say("    GET %s   a2a-require-capabilities: task.execute.v3   Cache-Control: max-stale=10" % CARD_PATH)
    say()

    # 1. Without cardgate: straight from the replica, as in the incident.
    status, headers, body, ms = get(REPLICA, CARD_PATH, headers=CALLER)
    card = json.loads(body)
    say("1) WITHOUT cardgate (the caller asks the edge replica directly)")
    say("   HTTP %d in %.1f ms: a well-formed card, version %s, skills [%s], endpoint %s"
        % (status, ms, card["version"], skill_ids(card), endpoint(card)))
    say("   The replica's lag is only in a header nobody checks (x-replica-lag-ms: %s)."
        % headers.get("x-replica-lag-ms"))
    say("   The planner would dispatch task.execute.v2 to the old endpoint; the worker answers")
    say("   TaskRejected(unsupported_capability) and the task is silently orphaned.")
    say()

    # 2. With cardgate: the same request through Envoy.
    status, headers, body, ms = get(GATE, CARD_PATH, headers=CALLER)
    problem = json.loads(body)
    say("2) WITH cardgate (the same request through Envoy on :%d)" % GATE)
    say("   HTTP %d %s in %.1f ms, Retry-After: %s, %s"
        % (status, problem.get("error_class"), ms, headers.get("retry-after"), headers.get("content-type")))
    for reason in problem.get("reasons", []):
        say("   - %s: %s" % (reason["code"], reason["message"]))
        figures = reason.get("figures", {})
        if "staleness_ms" in figures and "max_stale_ms" in figures:
            say("     (in plain words: this copy is %g s behind the primary; the caller accepts %g s)"
                % (figures["staleness_ms"] / 1000.0, figures["max_stale_ms"] / 1000.0))
    say("   missing capabilities: %s; staleness: %s ms; stale card attached, hash %s"
        % (", ".join(problem.get("missing_capabilities", [])), problem.get("staleness_ms"), problem.get("card_hash")))
    say("   The planner gets a discovery-layer error at t+0 instead of an orphaned task.")
    say()

    # 3. The replica catches up.
    get(PRIMARY, "/_fixture/replica", "POST", {"Content-Type": "application/json"},
        json.dumps({"synced": True, "lag_ms": 120}))
    status, headers, body, ms = get(GATE, CARD_PATH, headers=CALLER)
    card = json.loads(body)
    say("3) The replica catches up (lag 120 ms); the same request through cardgate:")
    say("   HTTP %d in %.1f ms: %s, skills [%s], endpoint %s"
        % (status, ms, headers.get("a2a-card-verdict"), skill_ids(card), endpoint(card)))
    say("   a2a-card-staleness-ms: %s, a2a-card-hash: %s"
        % (headers.get("a2a-card-staleness-ms"), headers.get("a2a-card-hash")))
    say("   The card is forwarded byte for byte; delegation proceeds on the current card.")
    say()

    # 4. The replica falls behind again; this time the gate re-resolves from the primary.
    get(PRIMARY, "/_fixture/replica", "POST", {"Content-Type": "application/json"},
        json.dumps({"synced": False, "lag_ms": 40000}))
    status, headers, body, ms = get(GATE_RERESOLVE, CARD_PATH, headers=CALLER)
    card = json.loads(body)
    say("4) The replica is 40 s behind again; the same request through cardgate with re-resolution")
    say("   (listener :%d, re_resolve: {\"cluster\": \"primary\"} in envoy/envoy.yaml):" % GATE_RERESOLVE)
    say("   HTTP %d in %.1f ms: %s, version %s, skills [%s], endpoint %s"
        % (status, ms, headers.get("a2a-card-verdict"), card.get("version"), skill_ids(card), endpoint(card)))
    say("   a2a-card-source: %s, a2a-card-attempts: %s, a2a-card-staleness-ms: %s"
        % (headers.get("a2a-card-source"), headers.get("a2a-card-attempts"), headers.get("a2a-card-staleness-ms")))
    for attempt in resolution_on_record(envoy_log):
        if attempt.get("verdict") == "failed":
            say("   - %s: failed (%s)" % (attempt["source"], attempt.get("error")))
            continue
        why = "; ".join(r["message"] for r in attempt.get("reasons", [])) or "all conditions hold"
        say("   - %s: %s%s after %d ms, staleness %s ms: %s"
            % (attempt["source"], attempt["verdict"],
               " " + attempt["error_class"] if attempt.get("error_class") else "",
               attempt["elapsed_ms"], attempt.get("staleness_ms"), why))
    say("   The task proceeds at t+0 on the primary's current card; the stale attempt is on record")
    say("   (Envoy's log, event cardgate.re_resolved).")
    say()

    stats = get(ADMIN, "/stats?filter=wasmcustom")[2].decode()
    counters = [line for line in stats.splitlines()
                if "verdict" in line or "reason" in line or "reresolve." in line]
    say("Envoy counters (admin :%d/stats):" % ADMIN)
    for line in counters:
        say("   " + line)


def resolution_on_record(envoy_log, timeout=5):
    """The attempts of the last re-resolution the filter logged (event cardgate.re_resolved)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(envoy_log, errors="replace") as f:
            lines = [l for l in f if "cardgate.re_resolved" in l]
        if lines:
            text = lines[-1]
            return json.loads(text[text.index('{"event"'):].strip())["resolution"]["attempts"]
        time.sleep(0.05)
    return []


if __name__ == "__main__":
    main()
