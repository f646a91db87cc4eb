"""Bad policy files: every host refuses alike (README, "Policies"). Each fixture of
tests/policies_invalid/ and a few more go through `cardgate policy check`, the npm package's
`checkPolicy` and the Envoy filter's on_configure (`envoy --mode validate`); the JSON Pointer each
names is compared with the fixture index. Also policies that should be accepted by all three."""
import sys, os, glob, re; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scn2_lib import *

IDX = json.load(open(ROOT + "/tests/policies_invalid/_expected.json"))["cases"]
P = cli_hash(FRESH)
CASES = []  # (name, text bytes, expected path or None for accepted)
for name, meta in sorted(IDX.items()):
    CASES.append((name, open(ROOT + "/tests/policies_invalid/" + name, "rb").read(), meta["path"]))
def extra(name, doc, path):
    CASES.append((name, doc.encode() if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False).encode(), path))
extra("max_stale upper-case unit", {"defaults": {"max_stale": "10S"}}, "/defaults/max_stale")
extra("max_stale leading zero", {"defaults": {"max_stale": "010s"}}, None)
extra("max_stale 0s", {"defaults": {"max_stale": "0s"}}, None)
extra("max_stale exactly ten years in hours", {"defaults": {"max_stale": "87600h"}}, None)
extra("max_stale u64 overflow", {"defaults": {"max_stale": "18446744073709551616ms"}}, "/defaults/max_stale")
extra("pin_mode upper case", {"agents": {"w": {"pin": P, "pin_mode": "REPLACE"}}}, "/agents/w/pin_mode")
extra("pin_mode without pin", {"defaults": {"max_stale": "1s", "pin_mode": "with_watermark"}}, None)
extra("pin_mode null", {"defaults": {"pin_mode": None}}, "/defaults/pin_mode")
extra("require null", {"defaults": {"require": None}}, "/defaults/require")
extra("ids differing only in case", {"agents": {"w": {}, "W": {}}}, "/agents/W")
extra("ids folding alike (accent)", {"agents": {"worker-7": {}, "w\u00f6rker-7": {"max_stale": "1s"}}}, "? accepted, or refused like case")
extra("$comment inside agents", {"agents": {"$comment": "the agents", "w": {}}}, "? a comment (allowed in every object) or an agent")
extra("$comment inside agents, an object", {"agents": {"$comment": {"max_stale": "1s"}}}, "? refused: a comment must be a string")
extra("$schema at the top", {"$schema": "./schema.json", "defaults": {}}, None)
extra("$schema not a string", {"$schema": 1}, "/$schema")
extra("BOM before the document", "\ufeff{\"defaults\": {}}", "")
extra("agent id with a NUL", {"agents": {"w\u0000": {}}}, "? accepted or /agents/w\u0000")
extra("agent id of spaces only", {"agents": {"  ": {}}}, "? accepted or refused")
extra("agent id with a slash", {"agents": {"team/w7": {"max_stale": "x"}}}, "/agents/team~1w7/max_stale")
extra("envoy routes in a policy file", {"defaults": {}, "routes": []}, "? /routes (a policy file has no filter settings)")
extra("min_version huge", {"defaults": {"min_version": "1" + "0" * 5000}}, None)
extra("require capability:Streaming (case)", {"defaults": {"require": ["capability:Streaming"]}}, "/defaults/require/0")
extra("require protocol:1", {"defaults": {"require": ["protocol:1"]}}, "/defaults/require/0")
extra("nested 40 deep in $comment", '{"$comment": "x", "defaults": {}, "agents": {"w": {"$comment": ' + '[' * 40 + ']' * 40 + '}}}',
      "/agents/w/$comment")

def cli(text):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        f.write(text); f.flush()
        r = subprocess.run([CLI, "policy", "check", f.name], capture_output=True)
    return r.returncode, r.stderr.decode().strip()

def node(texts):
    script = r"""
const { createRequire } = require('node:module');
const cg = require(process.argv[1] + '/node/index.cjs');
let input = ''; process.stdin.on('data', (c) => input += c); process.stdin.on('end', () => {
  const out = JSON.parse(input).map((b64) => {
    try { cg.checkPolicy(new Uint8Array(Buffer.from(b64, 'base64'))); return { ok: true }; }
    catch (e) { return { error: e.constructor.name, path: e.path ?? null, message: String(e.message) }; }
  });
  console.log(JSON.stringify(out));
});"""
    r = subprocess.run([NODE, "-e", script, PKG], input=json.dumps([base64.b64encode(t).decode() for t in texts]).encode(),
                       capture_output=True, timeout=60)
    return json.loads(r.stdout) if r.returncode == 0 else [{"error": "crash " + r.stderr.decode()[-200:]}] * len(texts)

def envoy(text, workdir, i):
    plugin = text.decode("utf-8", "surrogateescape")
    # A policy is the plugin configuration (plus filter settings); the text is passed as is.
    code, out = harness.validate(harness.bootstrap([harness.listener("l", "up", [harness.wasm_filter("cg", plugin)])],
                                                    [harness.cluster("up", 9)]), workdir, "bad%d" % i)
    m = re.search(r"invalid plugin configuration at ([^:]*): (.*)", out)
    return code, (m.group(1), m.group(2)[:160]) if m else (None, out[-200:] if code else "")

def ptr(msg):
    m = re.search(r"^cardgate: (?:[^:]*: )?(/[^:]*|)(?::|$)", msg)
    return m.group(1) if m else msg[:120]

if __name__ == "__main__":
    runtimes = RUNTIMES
    nodes = node([t for _, t, _ in CASES]) if "node" in runtimes else [None] * len(CASES)
    workdir = harness.temp_workdir("scn2-policies-")
    bad = 0
    for i, ((name, text, want), nd) in enumerate(zip(CASES, nodes)):
        code, msg = cli(text)
        print("== [bad-policy] %s\n   expect: %s" % (name, "accepted" if want is None else "refused at %r" % want))
        print("   cli  : exit %d %s" % (code, msg[:200]))
        if nd is not None:
            print("   node : %s" % ("accepted" if nd.get("ok") else "%s path=%r %s" % (nd["error"], nd.get("path"), nd.get("message", "")[:150])))
        if "envoy" in runtimes:
            ecode, (epath, emsg) = envoy(text, workdir, i)
            print("   envoy: exit %d path=%r %s" % (ecode, epath, emsg))
            accepted = {"cli": code == 0, "envoy": ecode == 0}
            if nd is not None:
                accepted["node"] = bool(nd.get("ok"))
            if len(set(accepted.values())) > 1:
                print("   <-- HOSTS DISAGREE on accepting it: %s" % accepted); bad += 1
            elif code != 0 and epath is not None:
                # the CLI names the pointer in its message, node in .path, Envoy in its log
                cp = re.search(r"invalid policy at (\S*?):", msg)
                cp = cp.group(1) if cp else None
                same = cp == epath and (nd is None or (nd.get("path") or "(the document)") == epath)
                if epath == "(the document)" and cp == "(document)":
                    same = nd is None or nd.get("path") == ""
                if not same:
                    print("   <-- pointers differ: cli %r node %r envoy %r" % (cp, None if nd is None else nd.get("path"), epath)); bad += 1
    print("\n%d policies, %d disagreements" % (len(CASES), bad))
