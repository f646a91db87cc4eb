import json, subprocess, sys, os, base64, copy, tempfile
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
CLI = os.environ.get("CARDGATE", ROOT + "/target/release/cardgate")
PKG = os.environ.get("PKG", ROOT + "/pkg")
NODE = ROOT + "/.tools/node/bin/node" if os.path.exists(ROOT + "/.tools/node/bin/node") else "node"
V = json.load(open(ROOT + "/tests/vectors/incident.json"))
STALE = V["cases"][0]["card"]
FRESH = copy.deepcopy(STALE); FRESH["version"] = "3.0.0"; FRESH["skills"][0]["id"] = "task.execute.v3"
def b(card): return json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode()
CASES = []
def case(name, card, req, obs, expect):
    CASES.append((name, card if isinstance(card, bytes) else b(card), req, obs, expect))
def go():
    node_in = [{"card_b64": base64.b64encode(c).decode(), "requirement": r, "observation": o} for _, c, r, o, _ in CASES]
    n = subprocess.run([NODE, ROOT + "/tests/scenarios/node_eval.mjs", PKG], input=json.dumps(node_in).encode(), capture_output=True)
    nodes = json.loads(n.stdout) if n.returncode == 0 else [{"crash": n.stderr.decode()[-300:]}] * len(CASES)
    for (name, card, req, obs, expect), nd in zip(CASES, nodes):
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            f.write(card); f.flush()
            r = subprocess.run([CLI, "check", f.name, "--requirement", json.dumps(req), "--observation", json.dumps(obs)] + ([] if "now" in obs else ["--no-clock"]), capture_output=True)
        out = r.stdout.decode()
        try: cd = json.loads(out); cs = (r.returncode, cd["verdict"], cd.get("error_class"), [x["code"] for x in cd.get("reasons", [])])
        except Exception: cs = (r.returncode, r.stderr.decode().strip()[-200:])
        if "raw" in nd:
            same = nd["raw"] == out.rstrip("\n")
            ns = "same bytes" if same else "DIFFERENT: " + nd["raw"][:300]
        else:
            ns = nd
        print(f"== {name}\n  CLI : {cs}\n  NODE: {ns}\n  EXPECT: {expect}")
