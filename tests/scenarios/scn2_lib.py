"""Second scenario pass (tests/scenarios/README.md): one scenario, every runtime that takes it.

A scenario is card bytes, a requirement (JSON form, or a policy file and an agent id), what the
resolver reported (an observation, served to Envoy as the conventional headers) and the outcome
DESIGN.md implies. `run_all` sends each one through

- the CLI: `cardgate check` (with `--requirement`/`--observation`, or `--policy`/`--agent` and
  watermark flags),
- the npm package: `evaluateRaw` (JSON text in, canonical text out; scenarios without a policy),
- the Envoy filter: a real Envoy whose plugin configuration holds the scenario's requirement as an
  agent rule (or the scenario's policy), the card served with the observation as headers,
- the browser: the web build's `evaluateRaw` in Chromium, and the inspector's form where the
  form can say it (tests/browser/harness.mjs),

and prints every runtime's outcome next to the expectation, flagging disagreements.
SCN2_RUNTIMES=cli,node,web,envoy picks runtimes. Needs target/release/cardgate, pkg/ and dist/cardgate.wasm (CARDGATE, PKG to use other builds).
"""

import base64
import copy
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../.."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "envoy"))
import server  # noqa: E402
import harness  # noqa: E402

CLI = os.environ.get("CARDGATE", ROOT + "/target/release/cardgate")
PKG = os.environ.get("PKG", ROOT + "/pkg")
NODE = ROOT + "/.tools/node/bin/node" if os.path.exists(ROOT + "/.tools/node/bin/node") else "node"

V = json.load(open(ROOT + "/tests/vectors/incident.json"))
STALE = V["cases"][0]["card"]
FRESH = copy.deepcopy(STALE)
FRESH["version"] = "3.0.0"
FRESH["skills"][0]["id"] = "task.execute.v3"
FRESH["supportedInterfaces"][0]["url"] = "wss://worker-7b.internal/a2a"

NOW = "2026-11-09T12:00:40Z"
ALL_WATERMARKS = {"lag_ms_header": "x-replica-lag-ms", "lag_s_header": "x-replica-lag-s",
                  "synced_at_header": "x-replica-synced-at", "consul": True, "age": True}
OBS_HEADERS = {"lag_ms": "x-replica-lag-ms", "lag_s": "x-replica-lag-s", "synced_at": "x-replica-synced-at",
               "consul_last_contact_ms": "X-Consul-LastContact", "consul_known_leader": "X-Consul-KnownLeader",
               "age_s": "Age"}
CLI_FLAGS = {"lag_ms": "--watermark-ms", "lag_s": "--lag-s", "synced_at": "--synced-at",
             "consul_last_contact_ms": "--consul-last-contact-ms", "consul_known_leader": "--consul-known-leader",
             "age_s": "--age-s"}


def b(card):
    return card if isinstance(card, bytes) else json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode()


def with_version(v, card=FRESH):
    c = copy.deepcopy(card)
    c["version"] = v
    return c


def cli_hash(card):
    r = subprocess.run([CLI, "hash", "-"], input=b(card), capture_output=True)
    return r.stdout.decode().strip()


def rfc3339(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def shift(now, ms):
    t = datetime.datetime.strptime(now, "%Y-%m-%dT%H:%M:%SZ") + datetime.timedelta(milliseconds=ms)
    return rfc3339(t)


class Scenario:
    """name, area, card, requirement (dict | None), observation (dict), expect (text),
    policy (dict | None) + agent (str), caller (Envoy request headers), synced_offset_ms (a
    synced_at relative to each host's clock), envoy (False: not expressible there), form,
    envoy_rule (the agent rule Envoy gets when `caller` headers tighten it to `requirement`)."""

    def __init__(self, area, name, card, requirement=None, observation=None, expect="", policy=None, agent=None,
                 caller=None, synced_offset_ms=None, envoy=True, node=True, form=True, cli_extra=(), path=None,
                 envoy_exact=True, envoy_rule=None):
        self.area, self.name, self.card = area, name, b(card)
        self.requirement, self.observation = requirement, dict(observation or {})
        self.expect, self.policy, self.agent = expect, policy, agent
        self.caller = list(caller or [])
        self.synced_offset_ms = synced_offset_ms
        self.envoy, self.node, self.form = envoy, node and policy is None, form and policy is None
        self.cli_extra = list(cli_extra)
        self.path = path
        self.envoy_exact = envoy_exact
        self.envoy_rule = envoy_rule
        if synced_offset_ms is not None:
            self.observation.setdefault("now", NOW)
            self.observation["synced_at"] = shift(self.observation["now"], synced_offset_ms)
        self.out = {}


def summary(d):
    """The comparable part of a decision."""
    if d is None:
        return None
    return {
        "verdict": d.get("verdict"), "status": d.get("status"), "error_class": d.get("error_class"),
        "codes": [r["code"] for r in d.get("reasons", [])],
        "figures": [r.get("figures") for r in d.get("reasons", [])],
        "staleness_ms": d.get("staleness_ms"), "freshness": d.get("freshness"), "card_hash": d.get("card_hash"),
        "missing": d.get("missing_capabilities"),
    }


def short(s):
    if s is None:
        return "-"
    if "error" in s:
        return "ERROR " + s["error"][:160]
    out = "%s %s" % (s["status"], s.get("error_class") or s["verdict"])
    if s["codes"]:
        out += " " + ",".join(s["codes"])
    if s.get("staleness_ms") is not None:
        out += " st=%s" % s["staleness_ms"]
    if s.get("freshness"):
        out += " " + s["freshness"]
    return out


# ------------------------------------------------------------------------------------------ CLI

def run_cli(sc, tmp):
    card = os.path.join(tmp, "card.json")
    with open(card, "wb") as f:
        f.write(sc.card)
    args = [CLI, "check", card]
    if sc.policy is not None:
        pol = os.path.join(tmp, "policy.json")
        with open(pol, "w") as f:
            f.write(sc.policy if isinstance(sc.policy, str) else json.dumps(sc.policy))
        args += ["--policy", pol]
        if sc.agent is not None:
            args += ["--agent", sc.agent]
        obs = sc.observation
        for k, v in obs.items():
            if k == "now":
                args += ["--now", v]
            else:
                args += [CLI_FLAGS[k], str(v)]
        if "now" not in obs:
            args += ["--no-clock"]
    else:
        args += ["--requirement", json.dumps(sc.requirement or {}), "--observation", json.dumps(sc.observation)]
        if "now" not in sc.observation:
            args += ["--no-clock"]
    args += sc.cli_extra
    r = subprocess.run(args, capture_output=True, timeout=30)
    raw = r.stdout.decode()
    try:
        d = json.loads(raw)
        s = summary(d)
        s["exit"] = r.returncode
    except ValueError:
        d, s = None, {"error": "exit %d: %s" % (r.returncode, r.stderr.decode().strip()[-300:])}
    sc.out["cli"] = s
    sc.cli_raw = raw.rstrip("\n")
    sc.cli_stderr = r.stderr.decode()
    return d


# ----------------------------------------------------------------------------------------- Node

def run_node(scs):
    todo = [sc for sc in scs if sc.node]
    inp = [{"card_b64": base64.b64encode(sc.card).decode(), "requirement": json.dumps(sc.requirement or {}),
            "observation": json.dumps(sc.observation)} for sc in todo]
    n = subprocess.run([NODE, HERE + "/node_eval.mjs", PKG], input=json.dumps(inp).encode(), capture_output=True,
                       timeout=120)
    res = json.loads(n.stdout) if n.returncode == 0 else [{"error": "crash", "message": n.stderr.decode()[-300:]}] * len(todo)
    for sc, r in zip(todo, res):
        if "raw" in r:
            sc.out["node"] = summary(json.loads(r["raw"]))
            sc.node_raw = r["raw"]
        else:
            sc.out["node"] = {"error": "%s %s %s" % (r.get("error"), r.get("path"), r.get("message"))}
            sc.node_raw = None


# -------------------------------------------------------------------------------------- browser

def run_browser(scs):
    todo = [sc for sc in scs if sc.node]
    inp = [{"card": sc.card.decode("utf-8", "replace"), "requirement": sc.requirement or {},
            "observation": sc.observation, "form": sc.form} for sc in todo]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(inp, f)
    n = subprocess.run([NODE, HERE + "/scn2_browser.mjs", f.name], capture_output=True, timeout=600, cwd=ROOT)
    os.unlink(f.name)
    if n.returncode != 0:
        for sc in todo:
            sc.out["web"] = {"error": "browser run failed: " + n.stderr.decode()[-300:]}
        return
    for sc, r in zip(todo, json.loads(n.stdout)):
        sc.out["web"] = summary(json.loads(r["raw"])) if "raw" in r else {"error": r.get("thrown", "?")}
        sc.web_raw = r.get("raw")
        sc.form_raw = r.get("form")
        sc.form_error = r.get("form_error")


# ---------------------------------------------------------------------------------------- Envoy

def sid(i):
    return "scn2-%03d" % i


def envoy_obs_headers(sc, real_now_ms):
    hs = []
    for k, v in sc.observation.items():
        if k == "now":
            continue
        if k == "synced_at" and sc.synced_offset_ms is not None:
            v = rfc3339(datetime.datetime.utcfromtimestamp((real_now_ms + sc.synced_offset_ms) / 1000))
        hs.append((OBS_HEADERS[k], v if isinstance(v, str) else json.dumps(v)))
    return hs


def run_envoy(scs, extra_listeners=()):
    """Scenarios with a plain requirement share one listener (one agent rule each); each distinct
    policy gets its own listener."""
    todo = [sc for sc in scs if sc.envoy]
    port = server.serve()
    agents = {}
    policies = []
    for i, sc in enumerate(todo):
        sc.sid = sid(i)
        if sc.policy is None:
            agents[sc.sid] = sc.envoy_rule if sc.envoy_rule is not None else (sc.requirement or {})
        else:
            key = sc.policy if isinstance(sc.policy, str) else json.dumps(sc.policy, sort_keys=True)
            if key not in policies:
                policies.append(key)
            sc.listener = "pol%d" % policies.index(key)
    listeners = [harness.listener("req", "up", [harness.wasm_filter("cg_req", {
        "defaults": {}, "agents": agents, "well_known": False,
        "routes": [{"path": "/s/{id}/card", "watermark": ALL_WATERMARKS}]})])]
    for i, key in enumerate(policies):
        pol = json.loads(key)
        cfg = dict(pol)
        cfg.pop("$schema", None)
        cfg.setdefault("routes", [{"path": "/agents/{id}/card", "watermark": ALL_WATERMARKS},
                                  {"path": "/agents/{id}/.well-known/agent-card.json", "watermark": ALL_WATERMARKS}])
        cfg.setdefault("watermark", ALL_WATERMARKS)
        listeners.append(harness.listener("pol%d" % i, "up", [harness.wasm_filter("cg_pol%d" % i, cfg)]))
    listeners += list(extra_listeners)
    workdir = harness.temp_workdir("scn2-envoy-")
    env = harness.Envoy(harness.bootstrap(listeners, [harness.cluster("up", port)]), workdir, "scn2")
    try:
        env.start()
        for sc in todo:
            real_now_ms = time.time() * 1000
            if sc.policy is None:
                path, lport = "/s/%s/card" % sc.sid, env.ports["req"]
            else:
                path, lport = sc.path or "/agents/%s/card" % sc.agent, env.ports[sc.listener]
            upath = "/u/%s" % sc.sid
            server.ROUTES[path] = ("200 OK", [("content-type", "application/json")] + envoy_obs_headers(sc, real_now_ms),
                                   sc.card, False)
            resp = harness.request(lport, path, headers=dict(sc.caller) if sc.caller else None)
            sc.envoy_resp = resp
            sc.out["envoy"] = envoy_summary(resp)
            del upath
    finally:
        env.stop()
    return env


def envoy_summary(resp):
    if resp.status == 200 and resp.header("a2a-card-verdict") == "valid":
        st = resp.header("a2a-card-staleness-ms")
        return {"verdict": "valid", "status": 200, "error_class": None, "codes": [], "figures": [],
                "staleness_ms": None if st in (None, "", "null") else int(st),
                "freshness": resp.header("a2a-card-freshness"), "card_hash": resp.header("a2a-card-hash"),
                "missing": None}
    try:
        d = resp.json()
    except ValueError:
        return {"error": "HTTP %d %r verdict=%r" % (resp.status, resp.body[:120], resp.header("a2a-card-verdict"))}
    if d.get("verdict") == "refused":
        return {"error": "HTTP %d refused: %s" % (resp.status, d.get("detail"))}
    s = summary(d)
    if s["status"] != resp.status:
        s["error"] = "HTTP status %d but decision says %s" % (resp.status, s["status"])
    return s


# ---------------------------------------------------------------------------------------- report

def comparable(s):
    if s is None or "error" in s:
        return ("error",)
    return (s["verdict"], s["status"], s["error_class"], tuple(s["codes"]), json.dumps(s["figures"], sort_keys=True),
            s["staleness_ms"], s["freshness"], s["card_hash"])


def report(scs):
    disagreements = []
    for sc in scs:
        outs = sc.out
        base = comparable(outs.get("cli"))
        print("== [%s] %s\n   expect: %s" % (sc.area, sc.name, sc.expect))
        for rt in ("cli", "node", "web", "envoy"):
            if rt in outs:
                flag = ""
                c = comparable(outs[rt])
                if rt == "envoy" and not sc.envoy_exact and c != base and c[:4] == base[:4]:
                    flag = "  (figures differ: host clock)"
                elif c != base:
                    flag = "  <-- DIFFERS from cli"
                    disagreements.append((sc, rt))
                print("   %-5s: %s%s" % (rt, short(outs[rt]), flag))
        # Byte-level: node, web, form and Envoy's problem body against the CLI's output.
        for rt, raw in (("node", getattr(sc, "node_raw", None)), ("web", getattr(sc, "web_raw", None)),
                        ("form", getattr(sc, "form_raw", None))):
            if raw is not None and getattr(sc, "cli_raw", None) and raw != sc.cli_raw:
                print("   %s bytes differ from cli:\n      cli : %s\n      %s: %s" % (rt, sc.cli_raw[:300], rt, raw[:300]))
                disagreements.append((sc, rt + "-bytes"))
        if getattr(sc, "form_error", None):
            print("   form error: %s" % sc.form_error[:200])
        r = getattr(sc, "envoy_resp", None)
        if r is not None and r.status != 200 and sc.envoy_exact and getattr(sc, "cli_raw", None):
            body = r.body.decode("utf-8", "replace")
            if body.startswith("{") and body != sc.cli_raw and '"refused"' not in body:
                print("   envoy body differs from cli:\n      cli  : %s\n      envoy: %s" % (sc.cli_raw[:300], body[:300]))
                disagreements.append((sc, "envoy-bytes"))
    print("\n%d scenarios, %d runtime disagreements" % (len(scs), len(disagreements)))
    for sc, rt in disagreements:
        print("   DIFF %s: [%s] %s" % (rt, sc.area, sc.name))
    return disagreements


RUNTIMES = os.environ.get("SCN2_RUNTIMES", "cli,node,web,envoy").split(",")


def run_all(scs):
    with tempfile.TemporaryDirectory() as tmp:
        for sc in scs:
            run_cli(sc, tmp)
    if "node" in RUNTIMES:
        run_node(scs)
    if "web" in RUNTIMES:
        run_browser(scs)
    if "envoy" in RUNTIMES:
        run_envoy(scs)
    return report(scs)
