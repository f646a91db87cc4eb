import json, subprocess, sys, os, gzip, base64, copy
sys.path.insert(0, os.path.dirname(__file__))
import server
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
CLI = os.environ.get("CARDGATE", ROOT + "/target/release/cardgate")
PKG = os.environ.get("PKG", ROOT + "/pkg")
NODE = ROOT + "/.tools/node/bin/node" if os.path.exists(ROOT + "/.tools/node/bin/node") else "node"
port = server.serve()
V = json.load(open(ROOT + "/tests/vectors/incident.json"))
STALE = V["cases"][0]["card"]
FRESH = copy.deepcopy(STALE); FRESH["version"] = "3.0.0"; FRESH["skills"][0]["id"] = "task.execute.v3"
FRESH["supportedInterfaces"][0]["url"] = "wss://worker-7b.internal/a2a"
def b(card): return json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode()
REQ = {"require": ["task.execute.v3"], "max_stale": "10s"}
NOW = "2026-11-09T12:00:40Z"
def req_flags(r):
    return ["--requirement", json.dumps(r)]
def run(name, sources, req=REQ, cli_extra=(), node_opts=None, expect=None):
    urls = []
    for i, s in enumerate(sources):
        p = f"/{name.replace(' ', '_')}/{i}/.well-known/agent-card.json"
        status, headers, body = s[:3]
        raw = len(s) > 3 and s[3]
        server.ROUTES[p] = (status, headers, body, raw)
        urls.append(f"http://127.0.0.1:{port}{p}")
    r = subprocess.run([CLI, "resolve", *urls, *req_flags(req), "--now", NOW, *cli_extra], capture_output=True, timeout=30)
    try: cd = json.loads(r.stdout)
    except Exception: cd = None
    cli = (r.returncode, cd.get("verdict") if cd else None, cd.get("error_class") if cd else None, [x["code"] for x in cd.get("reasons", [])] if cd else r.stderr.decode()[-200:])
    o = {"now": NOW, "timeoutMs": 5000}
    o.update(node_opts or {})
    n = subprocess.run([NODE, ROOT + "/tests/scenarios/node_resolve.mjs", PKG], input=json.dumps({"urls": urls, "requirement": req, "options": o}).encode(), capture_output=True, timeout=30)
    try:
        nd = json.loads(n.stdout)
        d = nd.get("decision") or {}
        node = (nd["ok"], nd.get("cls"), d.get("verdict"), d.get("error_class"), [x["code"] for x in d.get("reasons", [])], nd.get("message", "")[:150] if not d else "")
    except Exception:
        node = ("crash", n.stderr.decode()[-300:])
    print(f"== {name}\n  CLI : {cli}\n  NODE: {node}" + (f"\n  EXPECT: {expect}" if expect else ""))
    return cd, nd if 'nd' in dir() else None
if __name__ == "__main__":
    exec(open(sys.argv[1]).read())
