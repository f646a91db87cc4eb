"""Third pass, adversarial input (tests/scenarios/README.md): one HTTP answer, every runtime.

A case is an upstream answer (status, headers, body bytes, or the raw response bytes for framing
cases) and a requirement. It is replayed through

- `cardgate check` on the body bytes, the observation the default headers give (`lag_ms` 0)
  (body cases only),
- npm `evaluateRaw` on the same bytes and observation (body cases only),
- `cardgate resolve URL` against a loopback server answering with the case's bytes and headers,
- npm `resolveAgentCard(URL)` against the same server,
- a real Envoy (tests/envoy/harness.py) whose upstream is the same server, one agent rule per
  case (the requirement), the conventional watermark headers,

and every outcome (verdict, error class, reason codes) is compared with the expectation and across
runtimes. Also watched: a panic (RUST_BACKTRACE=1, stderr and the Envoy log), a hang (timeouts),
the CLI's peak RSS, a refusal message that is empty. SCN3_RUNTIMES=check,eval,resolve,nresolve,envoy
picks runtimes. Needs target/release/cardgate, pkg/ and dist/cardgate.wasm.
"""

import base64
import copy
import json
import os
import random
import resource
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
RUNTIMES = os.environ.get("SCN3_RUNTIMES", "check,eval,resolve,nresolve,envoy").split(",")
# SCN3_CHAIN=1: each case is the second source of a re-resolution whose first answer is a stale
# replica (the fresh card, x-replica-lag-ms 50000): `resolve URL1 URL2`, `resolveAgentCard([..])`
# and the filter's `re_resolve` to a second cluster. No `check`/`evaluateRaw`.
CHAIN = os.environ.get("SCN3_CHAIN") == "1"
# SCN3_TEXT=1: evaluateRaw gets each valid-UTF-8 card as a JS string (the text path), not bytes.
AS_TEXT = os.environ.get("SCN3_TEXT") == "1"


def utf8(data):
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
SEED = int(os.environ.get("SCN3_SEED", "3"))
RNG = random.Random(SEED)

V = json.load(open(ROOT + "/tests/vectors/incident.json"))
FRESH = copy.deepcopy(V["cases"][0]["card"])
FRESH["version"] = "3.0.0"
FRESH["skills"][0]["id"] = "task.execute.v3"
NOW = "2026-11-09T12:00:40Z"
REQ = {"require": ["task.execute.v3"], "max_stale": "10s"}
DEFAULT_HEADERS = [("content-type", "application/json"), ("x-replica-lag-ms", "0")]
WATERMARKS = {"lag_ms_header": "x-replica-lag-ms", "lag_s_header": "x-replica-lag-s",
              "synced_at_header": "x-replica-synced-at", "consul": True, "age": True}


def b(card):
    return card if isinstance(card, bytes) else json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode()


FRESH_B = b(FRESH)


def with_member(text, where="top"):
    """The fresh card with `text` (raw JSON bytes) as the value of an unknown member `x` at the
    top level, or inside the first skill (`skill`)."""
    if where == "top":
        return FRESH_B[:-1] + b',"x":' + text + b"}"
    i = FRESH_B.index(b'"skills":[{') + len(b'"skills":[{')
    return FRESH_B[:i] + b'"x":' + text + b"," + FRESH_B[i:]


def replace(old, new, body=FRESH_B):
    assert old in body, old
    return body.replace(old, new, 1)


class Case:
    def __init__(self, area, name, body=b"", expect="", headers=None, status="200 OK", raw=None, check=None,
                 req=None, envoy=True):
        self.area, self.name, self.body, self.expect = area, name, body, expect
        self.headers = list(DEFAULT_HEADERS if headers is None else headers)
        self.status, self.raw = status, raw
        self.check = (raw is None and headers is None and status == "200 OK") if check is None else check
        self.req = req or REQ
        self.envoy = envoy
        self.out = {}
        self.notes = []


def outcome(d):
    if d is None:
        return ("none",)
    if d.get("verdict") == "valid":
        return ("valid",)
    return (d.get("verdict"), d.get("error_class"), tuple(r.get("code") for r in d.get("reasons", [])))


def short(o):
    if o is None:
        return "-"
    if o[0] == "rejected":
        return "%s %s" % (o[1], ",".join(o[2]))
    return " ".join(str(x) for x in o)


def _run(args, inp=None, timeout=30, env=None):
    """Run with a timeout; returns (rc, stdout, stderr, maxrss_kb, seconds)."""
    t0 = time.time()
    p = subprocess.Popen(args, stdin=subprocess.PIPE if inp is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        out, err = p.communicate(inp, timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return (None, out, err, 0, time.time() - t0)
    # The peak RSS of all children so far: it rises past a bound only with the child that did it.
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (p.returncode, out, err, rss, time.time() - t0)


PEAK = 0
ENV = dict(os.environ, RUST_BACKTRACE="1")


def cli_outcome(c, rt, res):
    rc, out, err, rss, secs = res
    if rc is None:
        c.out[rt] = ("HANG",)
        c.notes.append("%s: no answer within the timeout" % rt)
        return None
    if b"panicked" in err:
        c.notes.append("%s PANIC: %s" % (rt, err.decode("utf-8", "replace")[-300:]))
    global PEAK
    if secs > 2:
        c.notes.append("%s took %.1f s" % (rt, secs))
    if rss > 200 * 1024 and rss > PEAK:
        c.notes.append("%s peak RSS %d MiB" % (rt, rss // 1024))
        PEAK = rss
    try:
        d = json.loads(out)
    except ValueError:
        c.out[rt] = ("exit%s" % rc, err.decode("utf-8", "replace").strip()[-160:])
        return None
    c.out[rt] = outcome(d)
    check_messages(c, rt, d)
    return d


def check_messages(c, rt, d):
    for r in d.get("reasons", []) or []:
        if not (r.get("message") or "").strip():
            c.notes.append("%s: reason %s without a message" % (rt, r.get("code")))


def run_check(cases, tmp):
    for i, c in enumerate(cases):
        if not c.check:
            continue
        path = os.path.join(tmp, "card%d.json" % i)
        with open(path, "wb") as f:
            f.write(c.body)
        res = _run([CLI, "check", path, "--requirement", json.dumps(c.req), "--observation", '{"lag_ms":"0"}',
                    "--no-clock"], env=ENV)
        c.check_raw = res[1].decode("utf-8", "replace").rstrip("\n")
        cli_outcome(c, "check", res)


def urls(c, port):
    u = ["http://127.0.0.1:%d%s" % (port, c.path)]
    return ["http://127.0.0.1:%d%s" % (port, c.path1)] + u if CHAIN else u


def run_resolve(cases, port):
    for c in cases:
        res = _run([CLI, "resolve", *urls(c, port), "--requirement", json.dumps(c.req),
                    "--now", NOW, "--deadline", "4s"], timeout=20, env=ENV)
        cli_outcome(c, "resolve", res)


def run_node(cases, port):
    items, owners = [], []
    for c in cases:
        if "eval" in RUNTIMES and c.check:
            items.append({"kind": "eval", "card_b64": base64.b64encode(c.body).decode(), "requirement": json.dumps(c.req),
                          "as_text": AS_TEXT and utf8(c.body),
                          "observation": '{"lag_ms":"0"}'})
            owners.append((c, "eval"))
        if "nresolve" in RUNTIMES:
            u = urls(c, port)
            items.append({"kind": "resolve", "url": u if CHAIN else u[0], "requirement": c.req,
                          "options": {"now": NOW, "timeoutMs": 4000}})
            owners.append((c, "nresolve"))
    if not items:
        return
    res = _run([NODE, HERE + "/scn3adv_node.mjs", PKG], inp=json.dumps(items).encode(), timeout=900)
    rc, out, err, rss, secs = res
    try:
        parsed = json.loads(out)
    except ValueError:
        for c, rt in owners:
            c.out[rt] = ("node-crash", err.decode("utf-8", "replace")[-200:])
        return
    print("node: %d items, peak RSS %d MiB, %.1f s" % (len(items), parsed["rss"] // (1 << 20), secs))
    for (c, rt), r in zip(owners, parsed["results"]):
        if r.get("ms", 0) > 3000:
            c.notes.append("%s took %d ms" % (rt, r["ms"]))
        if "raw" in r:
            d = json.loads(r["raw"])
            c.out[rt] = outcome(d)
            c.eval_raw = r["raw"]
            check_messages(c, rt, d)
        elif "decision" in r and r["decision"]:
            c.out[rt] = outcome(r["decision"])
            check_messages(c, rt, r["decision"])
        elif "decision" in r:
            c.out[rt] = ("thrown", r.get("cls"), r.get("message", "")[:120])
        else:
            c.out[rt] = ("thrown", r.get("error"), r.get("message", "")[:120])


def run_envoy(cases, port):
    todo = [c for c in cases if c.envoy]
    agents = {c.sid: c.req for c in todo}
    route = {"path": "/s/{id}/card", "watermark": WATERMARKS}
    if CHAIN:
        route["re_resolve"] = {"cluster": "up2", "path": "/p/{id}/card", "timeout": "4s",
                               "budget": {"per_second": 1000, "burst": 100000}}
    lst = harness.listener("adv", "up", [harness.wasm_filter("cg_adv", {
        "defaults": {}, "agents": agents, "well_known": False, "routes": [route]})])
    workdir = harness.temp_workdir("scn3adv-envoy-")
    env = harness.Envoy(harness.bootstrap([lst], [harness.cluster("up", port), harness.cluster("up2", port)]),
                        workdir, "scn3adv")
    env.start()
    try:
        for c in todo:
            try:
                resp = harness.request(env.ports["adv"], c.path1 if CHAIN else c.path, timeout=15)
            except Exception as e:  # noqa: BLE001
                c.out["envoy"] = ("request-error", repr(e)[:120])
                continue
            c.out["envoy"] = envoy_outcome(c, resp)
    finally:
        log = env.log() if hasattr(env, "log") else ""
        env.stop()
    if "panicked" in log:
        print("ENVOY LOG HAS A PANIC:\n" + "\n".join(l for l in log.splitlines() if "panicked" in l)[:2000])


def envoy_outcome(c, resp):
    verdict = resp.header("a2a-card-verdict")
    if 200 <= resp.status < 300 and verdict == "valid":
        return ("valid",)
    try:
        d = resp.json()
    except ValueError:
        return ("pass", resp.status, verdict)
    if not isinstance(d, dict) or "verdict" not in d:
        return ("pass", resp.status, verdict)
    check_messages(c, "envoy", d)
    if d.get("status") != resp.status:
        c.notes.append("envoy: HTTP %d, decision status %s" % (resp.status, d.get("status")))
    return outcome(d)


def matches(expect, o, rt):
    if isinstance(expect, dict):
        expect = expect.get(rt, "any")
    if CHAIN and expect == "pass":
        expect = "watermark_exceeded"  # no card from the case: the stale replica's is the last
    if o is None or expect == "any":
        return True
    if o[0] == "pass" and o[1] == 200:
        return False  # a 2xx card answer on a card route without a verdict: never right
    if expect == "valid":
        return o == ("valid",)
    if expect == "fail":
        return o[0] != "valid"
    if expect == "pass":  # no card: passed through (Envoy), a failed source, a fetch error (Node)
        return o[0] in ("pass", "thrown") or (o[0] == "rejected" and "source_unavailable" in o[2])
    return o[0] == "rejected" and expect in o[2][:1]


def report(cases):
    bad = []
    for c in cases:
        outs = c.out
        line = "== [%s] %s\n   expect: %s" % (c.area, c.name, c.expect)
        vals = {}
        for rt in ("check", "eval", "resolve", "nresolve", "envoy"):
            if rt in outs:
                o = outs[rt]
                flag = "" if matches(c.expect, o, rt) else "  <-- not as expected"
                if flag:
                    bad.append((c, rt, "expectation"))
                line += "\n   %-8s: %s%s" % (rt, short(o), flag)
                vals[rt] = o
        # Cross-runtime: every runtime that saw the same bytes must agree.
        decided = {rt: o for rt, o in vals.items() if o[0] in ("valid", "rejected")}
        if len(set(decided.values())) > 1 and not isinstance(c.expect, dict):
            line += "\n   RUNTIMES DISAGREE"
            bad.append((c, "all", "disagree"))
        if getattr(c, "check_raw", None) and getattr(c, "eval_raw", None) and c.check_raw != c.eval_raw:
            line += "\n   evaluateRaw bytes differ from check:\n     %s\n     %s" % (c.check_raw[:240], c.eval_raw[:240])
            bad.append((c, "eval", "bytes"))
        for n in c.notes:
            line += "\n   NOTE " + n
            bad.append((c, "note", n))
        print(line)
    print("\n%d cases, %d flags" % (len(cases), len(bad)))
    for c, rt, why in bad:
        print("   FLAG %s %s: [%s] %s" % (rt, why, c.area, c.name))
    return bad


def run_all(cases):
    port = server.serve()
    for i, c in enumerate(cases):
        c.sid = "c%03d" % i
        c.path = "/%s/%s/card" % ("p" if CHAIN else "s", c.sid)
        if CHAIN:
            c.check = False
            c.path1 = "/s/%s/card" % c.sid
            server.ROUTES[c.path1] = ("200 OK", [("content-type", "application/json"), ("x-replica-lag-ms", "50000")],
                                      FRESH_B, False)
        if c.raw is not None:
            server.ROUTES[c.path] = (None, None, c.raw, True)
        else:
            server.ROUTES[c.path] = (c.status, c.headers, c.body, False)
    with tempfile.TemporaryDirectory() as tmp:
        if "check" in RUNTIMES:
            run_check(cases, tmp)
    if "resolve" in RUNTIMES:
        run_resolve(cases, port)
    run_node(cases, port)
    if "envoy" in RUNTIMES:
        run_envoy(cases, port)
    return report(cases)
