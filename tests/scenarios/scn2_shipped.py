"""What the shipped envoy/envoy.yaml does per route (its own watermark settings and routes) against
`cardgate resolve URL --policy policies/incident.json --agent ID` asking the same upstream
directly, and the npm package's resolveAgentCard with the rule as its requirement."""
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scn2_lib import *
import yaml

POLICY = ROOT + "/policies/incident.json"
INC = json.load(open(POLICY))

def shipped_envoy(upstream_port):
    cfg = yaml.safe_load(open(ROOT + "/envoy/envoy.yaml"))
    cfg["admin"]["address"]["socket_address"]["port_value"] = 0
    for l in cfg["static_resources"]["listeners"]:
        l["address"]["socket_address"]["port_value"] = 0
        for f in l["filter_chains"][0]["filters"][0]["typed_config"]["http_filters"]:
            if f["name"] == "envoy.filters.http.wasm":
                f["typed_config"]["config"]["vm_config"]["code"]["local"]["filename"] = harness.WASM
    for c in cfg["static_resources"]["clusters"]:
        ep = c["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]["address"]["socket_address"]
        ep["port_value"] = upstream_port
    return cfg

def rule(agent):
    r = dict(INC["defaults"]); r.update(INC["agents"].get(agent, {})); r.pop("$comment", None)
    return r

CASES = [  # (name, agent, path, headers, card, expect)
    ("lag_ms and a contradicting lag_s", "worker-7", "/agents/worker-7/card",
     [("x-replica-lag-ms", "0"), ("x-replica-lag-s", "40")], FRESH,
     "503 watermark_contradictory (DESIGN: an upstream cannot choose which figure the gate believes)"),
    ("lag_ms beside a synced_at an hour ahead", "worker-7", "/agents/worker-7/card",
     [("x-replica-lag-ms", "0"), ("x-replica-synced-at", "FUTURE")], FRESH, "503 watermark_in_future"),
    ("lag_ms beside a synced_at 40 s old", "worker-7", "/agents/worker-7/card",
     [("x-replica-lag-ms", "0"), ("x-replica-synced-at", "PAST40")], FRESH, "503 watermark_contradictory"),
    ("only lag_s, 40 s", "worker-7", "/agents/worker-7/card", [("x-replica-lag-s", "40")], FRESH, "503 (watermark_exceeded)"),
    ("only lag_s, 0 s", "worker-8", "/agents/worker-8/card", [("x-replica-lag-s", "0")], FRESH, "valid st=0 (a conventional source)"),
    ("only synced_at, just now", "worker-8", "/agents/worker-8/card", [("x-replica-synced-at", "NOW")], FRESH, "valid (a conventional source)"),
    ("lag_ms 0 on the agent well-known route", "worker-7", "/agents/worker-7/.well-known/agent-card.json",
     [("x-replica-lag-ms", "0")], FRESH, "valid"),
    ("stale card on the well-known card", None, "/.well-known/agent-card.json", [("x-replica-lag-ms", "40000")], STALE,
     "503 watermark_exceeded 40000>30000 (CLI: exit 2, --policy with agent rules needs --agent, since 8aa0050)"),
    ("archive-search, lag 0", "archive-search", "/agents/archive-search/card", [("x-replica-lag-ms", "0")], FRESH,
     "503 pinned_hash_mismatch, capabilities_missing"),
    ("Consul follower", "worker-7", "/agents/worker-7/card", [("X-Consul-LastContact", "0"), ("X-Consul-KnownLeader", "false")],
     FRESH, "503 leader_unknown"),
    ("lag_ms + Age over", "worker-7", "/agents/worker-7/card", [("x-replica-lag-ms", "5000"), ("Age", "6")], FRESH,
     "503 watermark_exceeded 11000"),
]

def now_text(kind):
    t = time.time()
    off = {"FUTURE": 3600, "PAST40": -40, "NOW": 0}[kind]
    return rfc3339(datetime.datetime.utcfromtimestamp(t + off))

def main():
    port = server.serve()
    workdir = harness.temp_workdir("scn2-shipped-")
    env = harness.Envoy(shipped_envoy(port), workdir, "shipped")
    env.start()
    bad = 0
    try:
        for name, agent, path, headers, card, expect in CASES:
            hs = [(n, now_text(v) if v in ("FUTURE", "PAST40", "NOW") else v) for n, v in headers]
            server.ROUTES[path] = ("200 OK", [("content-type", "application/json")] + hs, b(card), False)
            resp = harness.request(env.ports["registry_ingress"], path)
            e = envoy_summary(resp)
            args = [CLI, "resolve", "http://127.0.0.1:%d%s" % (port, path), "--policy", POLICY]
            if agent:
                args += ["--agent", agent]
            r = subprocess.run(args, capture_output=True, timeout=30)
            try:
                c = summary(json.loads(r.stdout))
            except ValueError:
                c = {"error": r.stderr.decode()[-200:]}
            n = subprocess.run([NODE, HERE + "/node_resolve.mjs", PKG], input=json.dumps({
                "urls": ["http://127.0.0.1:%d%s" % (port, path)], "requirement": rule(agent),
                "options": {"timeoutMs": 5000}}).encode(), capture_output=True, timeout=30)
            try:
                nd = json.loads(n.stdout)
                ns = summary(nd.get("decision")) if nd.get("decision") else ({"verdict": "valid", "status": 200, "error_class": None, "codes": []} if nd.get("ok") else {"error": str(nd)[:200]})
            except ValueError:
                ns = {"error": n.stderr.decode()[-200:]}
            print("== [shipped] %s (%s)\n   expect: %s" % (name, path, expect))
            print("   envoy (shipped): %s\n   cli resolve    : %s\n   npm resolve    : %s" % (short(e), short(c), short(ns) if "error" not in ns else ns["error"]))
            if (e.get("verdict"), e.get("error_class")) != (c.get("verdict"), c.get("error_class")):
                print("   <-- OUTCOMES DIFFER"); bad += 1
    finally:
        env.stop()
    print("\n%d scenarios, %d outcome disagreements" % (len(CASES), bad))

if __name__ == "__main__":
    main()
