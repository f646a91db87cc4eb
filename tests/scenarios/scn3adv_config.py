"""Third pass, adversarial configuration (class 3).

1. Policy files: the JSON edges of class 1 inside a policy (escapes, surrogates, numbers, nesting
   at and past the policy's 32 levels, escape-spelled duplicates, BOM, NUL, size at and over
   1 MiB) and odd values, through `cardgate policy check`, npm `checkPolicy` and the Envoy
   filter's on_configure (`envoy --mode validate`): accepted alike, refused at the same pointer
   (drivers of scn2_bad_policies.py).
2. The filter's own members (Envoy only): wrong types, number forms, bounds, huge values.
3. The CLI's flags: repeated, conflicting, empty, non-UTF-8 argv, special files as the card.
Watched everywhere: exit codes, a panic, a hang (timeouts), a message naming the problem.
Run: .tools/py/bin/python tests/scenarios/scn3adv_config.py [policies|filter|flags]"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scn2_bad_policies as bp  # noqa: E402
from scn2_lib import CLI, FRESH, ROOT, b, cli_hash, harness  # noqa: E402

P = cli_hash(FRESH)
POL = []  # (name, text bytes, expected pointer | None accepted | "?" either)


def pol(name, text, want):
    POL.append((name, text if isinstance(text, bytes) else text.encode(), want))


def nest(n):
    return "[" * n + "]" * n


pol("$comment with every escape", r'{"$comment": "\"\\\/\b\f\n\r\t\u0041\u0000", "defaults": {}}', None)
pol("$comment with a lone surrogate", r'{"$comment": "\ud800", "defaults": {}}', "/$comment")
pol("$comment with raw invalid UTF-8", b'{"$comment": "\xff", "defaults": {}}', "")
pol("$comment with an overlong /", b'{"$comment": "\xc0\xaf", "defaults": {}}', "")
pol("$comment with U+2028", '{"$comment": "\u2028", "defaults": {}}', None)
pol("agent id spelled with escapes, duplicate", r'{"agents": {"w7": {}, "\u0077\u0037": {}}}', "/agents/w7")
pol("require spelled with escapes, duplicate", r'{"defaults": {"require": [], "\u0072equire": ["a"]}}',
    "/defaults/require")
pol("max_stale spelled with escapes", r'{"defaults": {"\u006dax_stale": "10s"}}', None)
pol("max_stale value with escapes", r'{"defaults": {"max_stale": "\u0031\u0030s"}}', None)
pol("defaults twice", '{"defaults": {}, "defaults": {"max_stale": "1s"}}', "/defaults")
pol("agent id with a lone surrogate", r'{"agents": {"w\udfff": {}}}', "?")
pol("agent id of 100000 characters", '{"agents": {"%s": {}}}' % ("w" * 100000), "?")
pol("5000 agents", json.dumps({"agents": {"w%d" % i: {"max_stale": "%ds" % (i % 50 + 1)} for i in range(5000)}}), None)
pol("require of 10000 items", json.dumps({"defaults": {"require": ["cap.%d" % i for i in range(10000)]}}), None)
pol("require the same item twice", '{"defaults": {"require": ["a", "a"]}}', "?")
pol("require extension of 60000 characters", json.dumps({"defaults": {"require": ["extension:" + "u" * 60000]}}), None)
# A $comment must be a string: below the limit the type is refused at /$comment, past it the
# nesting at the 32nd level's pointer.
for depth, want in [(29, "/$comment"), (30, "?"), (31, "?"), (32, "?"), (33, "?"), (34, "?"), (200, "?"), (100000, "?")]:
    pol("$comment nested %d deep" % depth, '{"$comment": %s}' % nest(depth), want)
pol("1e400 in a $comment", '{"$comment": 1e400}', "?")
pol("-0 as max_stale", '{"defaults": {"max_stale": -0}}', "/defaults/max_stale")
pol("max_stale 1e3s", '{"defaults": {"max_stale": "1e3s"}}', "/defaults/max_stale")
pol("max_stale fullwidth digits", '{"defaults": {"max_stale": "\uff11\uff10s"}}', "/defaults/max_stale")
pol("max_stale with a NUL", r'{"defaults": {"max_stale": "10s\u0000"}}', "/defaults/max_stale")
pol("max_stale 10sec", '{"defaults": {"max_stale": "10sec"}}', "/defaults/max_stale")
pol("max_stale 0.5s", '{"defaults": {"max_stale": "0.5s"}}', "/defaults/max_stale")
pol("max_stale PT10S", '{"defaults": {"max_stale": "PT10S"}}', "/defaults/max_stale")
pol("max_stale 10s10ms", '{"defaults": {"max_stale": "10s10ms"}}', "/defaults/max_stale")
pol("max_stale empty", '{"defaults": {"max_stale": ""}}', "/defaults/max_stale")
pol("max_stale 3000 digits", '{"defaults": {"max_stale": "%sms"}}' % ("9" * 3000), "/defaults/max_stale")
pol("max_stale 3000 leading zeros", '{"defaults": {"max_stale": "%s1s"}}' % ("0" * 3000), None)
pol("min_version with a trailing space", '{"defaults": {"min_version": "3.0.0 "}}', "/defaults/min_version")
pol("min_version spelled with escapes", r'{"defaults": {"min_version": "\u0033.0.0"}}', None)
pol("pin with a fullwidth digit", '{"defaults": {"pin": "sha256:%s"}}' % ("\uff10" + P[8:][1:]), "/defaults/pin")
pol("pin with a trailing space", '{"defaults": {"pin": "%s "}}' % P, "/defaults/pin")
pol("pin_mode spelled with escapes", r'{"defaults": {"pin": "%s", "pin_mode": "\u0072eplace"}}' % P, None)
pol("UTF-8 BOM", b"\xef\xbb\xbf{}", "")
pol("UTF-16LE", '{"defaults": {}}'.encode("utf-16-le"), "")
pol("trailing NUL", b'{"defaults": {}}\x00', "")
pol("trailing garbage", b'{"defaults": {}} x', "")
pol("empty file", b"", "")
pol("whitespace only", b" \n", "")
pol("top level []", b"[]", "")
pol("top level null", b"null", "")
body = '{"$comment": "%s", "defaults": {}}'
pol("1 MiB exactly", body % ("c" * ((1 << 20) - len(body % ""))), None)
pol("1 MiB + 1", body % ("c" * ((1 << 20) + 1 - len(body % ""))), "?")


def run_policies():
    texts = [t for _, t, _ in POL]
    nodes = bp.node(texts)
    workdir = harness.temp_workdir("scn3adv-policies-")
    flags = 0
    for i, ((name, text, want), nd) in enumerate(zip(POL, nodes)):
        code, msg = bp.cli(text)
        cp = re.search(r"invalid policy at (\S*?):", msg)
        cp = cp.group(1) if cp else ("(document)" if code else None)
        if "panicked" in msg:
            print("   CLI PANIC")
            flags += 1
        try:
            text.decode("utf-8")
            utf8 = True
        except UnicodeDecodeError:
            utf8 = False
        if utf8:
            ecode, (epath, emsg) = bp.envoy(text, workdir, i)
            if "panicked" in (emsg or ""):
                print("   ENVOY PANIC")
                flags += 1
        else:
            ecode, epath, emsg = None, None, "(not UTF-8: an Envoy StringValue cannot carry it)"
        npath = None if nd.get("ok") else (nd.get("path") if nd.get("path") is not None else "(none)")
        print("== [policy] %s\n   expect: %s" % (name, "accepted" if want is None else "either" if want == "?"
                                                else "refused at %r" % want))
        print("   cli  : exit %d %s" % (code, msg[:160]))
        print("   node : %s" % ("accepted" if nd.get("ok") else "%s path=%r %s" % (nd.get("error"), nd.get("path"),
                                                                                 nd.get("message", "")[:140])))
        print("   envoy: %s" % ("-" if ecode is None else "exit %d path=%r %s" % (ecode, epath, (emsg or "")[:140])))
        acc = {"cli": code == 0, "node": bool(nd.get("ok"))}
        if ecode is not None:
            acc["envoy"] = ecode == 0
        if len(set(acc.values())) > 1:
            print("   <-- HOSTS DISAGREE on accepting it: %s" % acc)
            flags += 1
            continue
        if want is None and not acc["cli"]:
            print("   <-- refused, expected accepted")
            flags += 1
        if want not in (None, "?") and acc["cli"]:
            print("   <-- accepted, expected refused")
            flags += 1
        if not acc["cli"]:
            doc = lambda p: "" if p in ("(document)", "(the document)", "") else p  # noqa: E731
            ptrs = {"cli": doc(cp), "node": doc(npath)}
            if ecode is not None and epath is not None:
                ptrs["envoy"] = doc(epath)
            if len(set(ptrs.values())) > 1:
                print("   <-- pointers differ: %s" % ptrs)
                flags += 1
            elif want not in (None, "?") and ptrs["cli"] != want:
                print("   <-- pointer %r, expected %r" % (ptrs["cli"], want))
                flags += 1
    print("\n%d policies, %d flags" % (len(POL), flags))


# ------------------------------------------------------------------------ the filter's members
FILT = [
    ('{"max_card_bytes": 65536.0}', "?"), ('{"max_card_bytes": 6.5536e4}', "?"), ('{"max_card_bytes": 1e400}', "/max_card_bytes"),
    ('{"max_card_bytes": -0}', "/max_card_bytes"), ('{"max_card_bytes": 1048576}', None),
    ('{"max_card_bytes": 1048577}', "/max_card_bytes"), ('{"max_card_bytes": "65536"}', "/max_card_bytes"),
    ('{"max_card_bytes": null}', "?"), ('{"max_card_bytes": 18446744073709551616}', "/max_card_bytes"),
    ('{"max_card_bytes": 1}', None), ('{"retry_after_s": 86400}', None), ('{"retry_after_s": 86401}', "/retry_after_s"),
    ('{"retry_after_s": 1.5}', "/retry_after_s"), ('{"retry_after_s": 5, "retry_after_s": 6}', "/retry_after_s"),
    ('{"mode": "ENFORCE"}', "/mode"), ('{"mode": null}', "?"), ('{"well_known": "true"}', "/well_known"),
    ('{"routes": [%s]}' % ",".join('{"path": "/r%d/{id}/card"}' % i for i in range(2000)), None),
    ('{"routes": [{"path": "/%s"}]}' % "/".join("s" for _ in range(5000)), "?"),
    ('{"routes": [{"path": "/a/{id}"}, {"path": "/a/{id}"}]}', "?"),
    ('{"routes": [{"path": ""}]}', "/routes/0/path"), ('{"routes": [{"path": "/a", "agent": ""}]}', "/routes/0/agent"),
    ('{"routes": [{"path": "/a/{id}", "unknown": 1}]}', "/routes/0/unknown"),
    ('{"routes": [{"path": "/a/{id}", "card_pointer": "/%s"}]}' % "/".join("x" * 1 for _ in range(3000)), "?"),
    ('{"routes": [{"path": "/a/{id}", "watermark": {"lag_ms_header": ""}}]}', "/routes/0/watermark/lag_ms_header"),
    ('{"routes": [{"path": "/a/{id}", "watermark": {"lag_ms_header": "X-Lag"}}]}', "?"),
    ('{"routes": [{"path": "/a/{id}", "watermark": {"lag_ms_header": "age"}}]}', "?"),
    ('{"routes": [{"path": "/a/{id}", "watermark": {"lag_ms_header": "x-l", "lag_s_header": "x-l"}}]}', "?"),
    ('{"routes": [{"path": "/a/{id}", "watermark": {"lag_ms_header": "x-l\u00e9"}}]}', "/routes/0/watermark/lag_ms_header"),
    ('{"routes": [{"path": "/a/{id}", "watermark": {"lag_ms_header": "x-lag\\u0000"}}]}', "/routes/0/watermark/lag_ms_header"),
    ('{"routes": [{"path": "/a/{id}", "watermark": {"lag_ms_header": "a2a-card-verdict"}}]}', "?"),
    ('{"routes": [{"path": "/a/{id}", "watermark": {"lag_ms_header": ":status"}}]}', "?"),
    ('{"re_resolve": {"cluster": "p", "timeout": "60001ms"}}', "/re_resolve/timeout"),
    ('{"re_resolve": {"cluster": "p", "timeout": "0ms"}}', "/re_resolve/timeout"),
    ('{"re_resolve": {"cluster": "p", "timeout": "1m"}}', None),
    ('{"re_resolve": {"cluster": "p", "max_attempts": 1}}', "/re_resolve/max_attempts"),
    ('{"re_resolve": {"cluster": "p", "max_attempts": 3}}', "/re_resolve/max_attempts"),
    ('{"re_resolve": {"cluster": "p", "max_attempts": 2.0}}', "?"),
    ('{"re_resolve": {"cluster": "p", "budget": {"per_second": 1e-300}}}', "?"),
    ('{"re_resolve": {"cluster": "p", "budget": {"per_second": 1e308}}}', "?"),
    ('{"re_resolve": {"cluster": "p", "budget": {"per_second": 1e400}}}', "/re_resolve/budget/per_second"),
    ('{"re_resolve": {"cluster": "p", "budget": {"burst": 100000}}}', None),
    ('{"re_resolve": {"cluster": "p", "budget": {"burst": 100001}}}', "/re_resolve/budget/burst"),
    ('{"re_resolve": {"cluster": "p", "budget": {"burst": 1.5}}}', "/re_resolve/budget/burst"),
    ('{"re_resolve": {"cluster": ""}}', "/re_resolve/cluster"), ('{"re_resolve": {"cluster": []}}', "/re_resolve/cluster"),
    ('{"re_resolve": {"cluster": ["p%d" % i for i in range(1)]}}'.replace('["p%d" % i for i in range(1)]', '["p"]'), None),
    ('{"re_resolve": false}', "?"), ('{"re_resolve": true}', "/re_resolve"), ('{"re_resolve": null}', "?"),
    ('{"re_resolve": {"cluster": "p", "authority": "a\\r\\nx: y"}}', "/re_resolve/authority"),
    ('{"re_resolve": {"cluster": "p", "path": "relative"}}', "/re_resolve/path"),
    ('{"re_resolve": {"cluster": "p", "path": "/c?x=\\u0000"}}', "?"),
    # An empty (or whitespace) plugin configuration is all defaults (src/envoy/config.rs); a
    # policy file of that text is refused by `policy check` and `checkPolicy` (see README).
    ('', None), ('   ', None), ('{}', None), ('{"defaults": {}}}', ""),
]


def run_filter():
    workdir = harness.temp_workdir("scn3adv-filter-")
    flags = 0
    for i, (text, want) in enumerate(FILT):
        cfg = harness.bootstrap([harness.listener("l", "up", [harness.wasm_filter("cg", text)])],
                                [harness.cluster("up", 9), harness.cluster("p", 9)])
        code, out = harness.validate(cfg, workdir, "filt%d" % i)
        m = re.search(r"invalid plugin configuration at ([^:]*): (.*)", out)
        path, why = (m.group(1), m.group(2)[:200]) if m else (None, "")
        other = "" if m or code == 0 else out.strip().splitlines()[-1][:200]
        print("== [filter] %s\n   expect: %s\n   envoy : exit %d %s %s%s" % (
            text[:110], "accepted" if want is None else "either" if want == "?" else "refused at %r" % want,
            code, repr(path) if path is not None else "", why, other))
        if "panicked" in out:
            print("   <-- PANIC")
            flags += 1
        if want is None and code != 0 or want not in (None, "?") and code == 0:
            print("   <-- not as expected")
            flags += 1
        if code != 0 and want not in (None, "?", "") and path != want:
            print("   <-- pointer %r, expected %r" % (path, want))
            flags += 1
    print("\n%d filter configurations, %d flags" % (len(FILT), flags))


# ------------------------------------------------------------------------------------ CLI flags
def run_flags():
    tmp = tempfile.mkdtemp(prefix="scn3adv-flags-")
    card = os.path.join(tmp, "card.json")
    with open(card, "wb") as f:
        f.write(b(FRESH))
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    base = [CLI, "check", card, "--watermark-ms", "0", "--no-clock"]
    cases = [
        ("repeated --max-stale", base + ["--max-stale", "10s", "--max-stale", "20s"], 2),
        ("repeated --require (allowed)", base + ["--require", "task.execute.v3", "--require", "task.execute.v3",
                                                 "--max-stale", "10s"], 0),
        ("--require empty", base + ["--require", "", "--max-stale", "10s"], 2),
        ("--max-stale empty", base + ["--max-stale", ""], 2),
        ("--max-stale missing its value", base + ["--max-stale"], 2),
        ("--max-stale=10s (= form)", base + ["--max-stale=10s"], "?"),
        ("--watermark-ms twice", [CLI, "check", card, "--watermark-ms", "0", "--lag-ms", "0", "--max-stale", "1s"], 2),
        ("--watermark-ms and the same in --observation", base + ["--observation", '{"lag_ms": "0"}', "--max-stale", "1s"], 2),
        # --no-clock: never read the machine's clock; a given --now is still the clock (0).
        ("--no-clock and --now", base + ["--now", "2026-11-09T12:00:40Z", "--max-stale", "1s"], 0),
        ("--requirement with a duplicate member", base + ["--requirement", '{"max_stale": "1s", "max_stale": "9s"}'], 2),
        ("--requirement with a lone surrogate", base + ["--requirement", '{"require": ["\\ud800"]}'], 2),
        ("--requirement nested 100 deep", base + ["--requirement", '{"x": %s}' % nest(100)], 2),
        ("--requirement of 120 KiB", base + ["--requirement", '{"require": ["%s"]}' % ("a" * (120 << 10))], "?"),
        # --help: flags add to --requirement (a flag's value replaces the requirement's).
        ("--max-stale and a --requirement max_stale", base + ["--max-stale", "1s", "--requirement", '{"max_stale": "9s"}'], 0),
        ("--pin and --policy", base + ["--pin", P, "--policy", ROOT + "/policies/incident.json", "--agent", "worker-7"], "?"),
        ("--agent without --policy", base + ["--agent", "w", "--max-stale", "1s"], 2),
        ("--policy without --agent", base + ["--policy", ROOT + "/policies/incident.json"], "?"),
        ("--max-card-bytes 0", base + ["--max-card-bytes", "0", "--max-stale", "1s"], "?"),
        ("--max-card-bytes -1", base + ["--max-card-bytes", "-1", "--max-stale", "1s"], 2),
        ("--max-card-bytes 2^64", base + ["--max-card-bytes", "18446744073709551616", "--max-stale", "1s"], 2),
        ("--max-card-bytes 2^62 (no allocation of it)", base + ["--max-card-bytes", "4611686018427387904", "--max-stale", "1s"], "?"),
        ("non-UTF-8 --agent", base + ["--policy", ROOT + "/policies/incident.json", "--agent", b"w\xff"], 2),
        ("non-UTF-8 --require", base + ["--require", b"cap\xff", "--max-stale", "1s"], 2),
        ("non-UTF-8 card path", [CLI, "check", b"/tmp/\xff.json", "--max-stale", "1s", "--no-clock"], 2),
        ("non-UTF-8 option name", base + [b"--max-stale\xff", "1s"], 2),
        ("unknown option", base + ["--max-stail", "1s"], 2),
        ("a directory as the card", [CLI, "check", tmp, "--max-stale", "1s", "--watermark-ms", "0", "--no-clock"], 2),
        ("/dev/zero as the card", [CLI, "check", "/dev/zero", "--max-stale", "1s", "--watermark-ms", "0", "--no-clock"], 1),
        ("/dev/urandom as the card", [CLI, "check", "/dev/urandom", "--max-stale", "1s", "--watermark-ms", "0", "--no-clock"], 1),
        ("/dev/null as the card", [CLI, "check", "/dev/null", "--max-stale", "1s", "--watermark-ms", "0", "--no-clock"], 1),
        ("two card paths", [CLI, "check", card, card, "--max-stale", "1s"], 2),
        ("no card path", [CLI, "check", "--max-stale", "1s"], 2),
        ("resolve with no URL", [CLI, "resolve", "--max-stale", "1s"], 2),
        ("resolve ftp://", [CLI, "resolve", "ftp://127.0.0.1/x", "--max-stale", "1s"], 2),
        ("resolve URL with a space", [CLI, "resolve", "http://127.0.0.1:9/a b", "--max-stale", "1s"], "?"),
        ("resolve URL with userinfo", [CLI, "resolve", "http://u:p@127.0.0.1:9/x", "--max-stale", "1s"], "?"),
        ("resolve --max-attempts 0", [CLI, "resolve", "http://127.0.0.1:9/x", "--max-stale", "1s", "--max-attempts", "0"], 2),
        ("resolve --deadline 0s", [CLI, "resolve", "http://127.0.0.1:9/x", "--max-stale", "1s", "--deadline", "0s"], "?"),
        ("resolve --timeout twice", [CLI, "resolve", "http://127.0.0.1:9/x", "--timeout", "1s", "--timeout", "2s"], 2),
        ("resolve a watermark flag", [CLI, "resolve", "http://127.0.0.1:9/x", "--watermark-ms", "0"], 2),
        ("policy check of a FIFO nobody writes", [CLI, "policy", "check", fifo], "hang-ok"),
        ("policy check /dev/zero", [CLI, "policy", "check", "/dev/zero"], 2),
        ("hash /dev/zero", [CLI, "hash", "/dev/zero"], 2),
        ("canonicalize /dev/zero", [CLI, "canonicalize", "/dev/zero"], 2),
    ]
    flags = 0
    env = dict(os.environ, RUST_BACKTRACE="1")
    for name, args, want in cases:
        try:
            r = subprocess.run(args, capture_output=True, timeout=10, env=env)
            code, err, out = r.returncode, r.stderr.decode("utf-8", "replace").strip(), r.stdout[:200]
        except subprocess.TimeoutExpired:
            code, err, out = None, "(no answer in 10 s)", b""
        print("== [flags] %s\n   expect: %s\n   cli   : exit %s %s %s" % (name, want, code, err[-220:],
                                                                       out[:100].decode("utf-8", "replace")))
        if "panicked" in err:
            print("   <-- PANIC")
            flags += 1
        if code is None and want != "hang-ok" or want not in ("?", "hang-ok") and code != want:
            print("   <-- not as expected")
            flags += 1
        if code == 2 and len(err) < 12:
            print("   <-- no message")
            flags += 1
    print("\n%d flag cases, %d flags" % (len(cases), flags))


if __name__ == "__main__":
    which = sys.argv[1:] or ["policies", "filter", "flags"]
    if "flags" in which:
        run_flags()
    if "filter" in which:
        run_filter()
    if "policies" in which:
        run_policies()
