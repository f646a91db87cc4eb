"""The SDK differential's client-choice check: `binding:X` against the interface each SDK's client picks.

Driven by sdk_parity.py (after its readings and its own check), on whatever corpus it runs
(gen_choice.py's interface lists: `--corpus choice`). For each card and each binding X that any
reading has (`binding:X` in its capabilities), the real clients choose:

  py             PyPI a2a-sdk `ClientFactory._find_best_interface(card.supported_interfaces,
                 protocol_bindings=[X])` on the parse_agent_card result (py_pick.py)
  js_default     npm @a2a-js/sdk `new ClientFactory({transports: [T], preferredTransports: [X]})
  js_legacy      .createFromAgentCard(card)` with a recording transport factory T for X, with the
                 default resolver / a legacyCompat resolver (js_pick.mjs)
  js101_*        the same with @a2a-js/sdk 1.0.1 (its ClientFactory is 1.3.0's, byte for byte), or the
                 version sdk_parity.py's --second-sdk names
  py2            py_pick.py run by the interpreter sdk_parity.py's --second-py names (its a2a-sdk)

No pick (None, a throw) means that SDK's client cannot connect with X. The truth for the
requirement {binding:X} (+ protocol:P, for each P some reading declares): granted iff the card
has at least one judged reading that accepts it and in every such reading the pick exists and,
when P is required and every accepting reading declares P (DESIGN.md: a required version the
card does not declare is missing on its own), cardgate's strict Major.Minor of the pick's
protocolVersion is P, and, for the a2a-sdk readings, the transport its factory builds for the pick
speaks P's generation (py_pick.py's `wire`: "0.3" for 0.3 <= P < 1.0, else "1.0"; a2a-sdk takes
its v0.3 transport for a version packaging reads as 0.3 <= v < 1.0, so a pick at `1.0.0-rc.1`
gets v0.3 requests and does not serve protocol:1.0), and, for the @a2a-js/sdk readings of a
JSONRPC or HTTP+JSON binding, so does the transport its factory with `legacyCompat` builds
(js_pick.mjs's `wire`: isLegacyVersion, whose Number.parseInt makes a minor of 309 digits or more
Infinity, so `0.99...9` gets 1.0 requests). Whatever P, a pick whose interface names a tenant
(`tenant` as that reading holds it, neither absent, null nor "") and whose transport speaks v0.3
(a2a-sdk: `wire`; @a2a-js/sdk: the legacyCompat transport's `wire`, else its isLegacyVersion,
`legacy`, which takes an unversioned pick as v0.3) serves nothing: those transports send no
tenant (`drops_tenant`). cardgate is asked once per card and P (`{"require": [every binding:X,
protocol:P]}`, and once without P): a binding is granted when it is not in
missing_capabilities of a `valid` / `capability_mismatch` answer.
  UNSAFE       cardgate grants binding:X (with P) where the truth does not. The test fails.
  OVER-STRICT  the truth grants, cardgate does not (counted; also on cards every reading accepts).
  MODEL        the real SDK's pick differs from the documented model of its choice (below,
               `model_py` / `model_js`): counted and shown; the model is what cardgate implements,
               so a difference is a finding even when no grant is unsafe. py2's model is that of
               the a2a-sdk and packaging it runs: before a2a-sdk 1.2.3 the old pick rule, before
               packaging 26.1 Unicode case folding in the version (`model_py`'s arguments).
"""

import collections
import concurrent.futures
import json
import pathlib
import random
import sys
import time

from packaging.version import InvalidVersion, Version

PY_READINGS = ("py", "py2")  # sdk_parity.PY_READINGS: the documented model_py is a2a-sdk 1.3.0's
# packaging before 26.1 matches its version pattern case-insensitively in Unicode: these read as ASCII.
UNICODE_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def surrogate_free(s):
    return s.encode("utf-8", "surrogatepass").decode("utf-8", "ignore") == s


def model_py(interfaces, x, old_rule=False, fold=False):
    """The documented a2a-sdk choice over a reading's [binding, version] list: the index or None.
    `old_rule`: a2a-sdk before 1.2.3, a first exact "1.0", else the first version above 1.0 / at
    least 0.3 in full PEP 440 order; `fold`: packaging before 26.1 (UNICODE_FOLD)."""
    if old_rule:
        exact = next((k for k, (b, v) in enumerate(interfaces) if b == x and v == "1.0"), None)
        if exact is not None:
            return exact
    best_gt, best_ge, best_none = None, None, None
    for k, (b, v) in enumerate(interfaces):
        if b != x:
            continue
        if not v:
            best_none = k if best_none is None else best_none
            continue
        try:
            ver = Version(v.translate(UNICODE_FOLD) if fold else v)
        except InvalidVersion:
            continue
        except ValueError:  # int() past Python's 4,300-digit limit: it leaves the factory
            return None
        if old_rule:
            gt, ge = ver > Version("1.0"), ver >= Version("0.3")
        else:
            mm = (ver.major, ver.minor)
            if mm == (1, 0):
                return k
            gt, ge = mm > (1, 0), mm >= (0, 3)
        if best_gt is None and gt:
            best_gt = k
        if best_ge is None and ge:
            best_ge = k
    for k in (best_gt, best_ge, best_none):
        if k is not None:
            return k
    return None


def generation(p):
    """The protocol generation a2a-sdk speaks at Major.Minor `p`: "0.3" for 0.3 <= p < 1.0, else
    "1.0" (numbers compared without int(), which refuses more than 4,300 digits)."""
    def num(digits):
        digits = digits.lstrip("0") or "0"
        return (len(digits), digits)
    mm = tuple(num(d) for d in p.split("."))
    return "0.3" if (num("0"), num("3")) <= mm < (num("1"), num("0")) else "1.0"


def names_tenant(tenant):
    """Whether a pick's `tenant`, as its reading holds it, names one: not absent, null or ""
    (a value of another type counts, as in cardgate: @a2a-js/sdk's raw reading keeps `0` or `false`,
    which its factory's truthiness test passes over; the card still names that tenant)."""
    return tenant is not None and tenant != ""


def speaks_v0_3(n, chosen):
    """Whether the transport reading `n`'s client builds for its pick speaks v0.3: a2a-sdk's
    producer (py_pick.py's `wire`), or @a2a-js/sdk's transport factory with legacyCompat
    (js_pick.mjs's `wire`; for a binding without such a factory here, `legacy`: its isLegacyVersion
    test, which reads an unversioned pick as v0.3)."""
    if n in PY_READINGS:
        return chosen.get("wire") == "0.3"
    wire = chosen.get("wire")
    return (wire if wire is not None else chosen.get("legacy")) == "0.3"


def drops_tenant(n, chosen):
    """The pick names a tenant and the client speaks v0.3 to it: those transports send no tenant
    (the JSON-RPC request has no `tenant`, the REST one goes to `{url}/v1/message:send`), so the
    task reaches the agent's default tenant, not the card's. It serves nothing."""
    return names_tenant(chosen.get("tenant")) and speaks_v0_3(n, chosen)


def model_js(interfaces, x):
    """The documented @a2a-js/sdk choice: keyed by toUpperCase, the last exact "1.0" else the first;
    any interface without a string binding makes the factory throw (None)."""
    if any(not isinstance(b, str) for b, _ in interfaces):
        return None
    best = {}
    for k, (b, v) in enumerate(interfaces):
        key = b.upper()
        if key not in best or v == "1.0":
            best[key] = k
    return best.get(x.upper())


def check(entries, judged, readings, cardgate_check, run_batch, cardgate, here, node, lowest_dir, jobs,
          examples, major_minor, sample=None, seed=7, second_py=None, second_py_versions=None):
    """Runs the check over `entries` (sdk_parity.py's, readings taken), or a seeded `sample` of those
    with a binding; returns (summary, failed). `run_batch` is sdk_parity.py's reader driver;
    `second_py` the interpreter of the py2 reading (when `readings` has it), `second_py_versions`
    its sdk_parity.python_sdk_versions (which model_py its picks are compared with)."""
    models = {n: model_py if n in PY_READINGS else model_js for n in readings}
    if second_py_versions:
        old_rule = Version(second_py_versions["a2a-sdk"]) < Version("1.2.3")
        fold = Version(second_py_versions["packaging"]) < Version("26.1")
        models["py2"] = lambda ifs, x: model_py(ifs, x, old_rule, fold)
    todo = []
    for e in entries:
        caps = [set(r.get("caps", [])) for r in e["readings"].values() if r["ok"]]
        xs = sorted({c[len("binding:"):] for cs in caps for c in cs if c.startswith("binding:")})
        ps = sorted({c[len("protocol:"):] for cs in caps for c in cs if c.startswith("protocol:")})
        e["pick_bindings"] = [x for x in xs if surrogate_free(x)]
        e["pick_protocols"] = ps
        if e["pick_bindings"]:
            todo.append(e)
    with_binding = len(todo)
    if sample is not None and sample < len(todo):
        todo = sorted(random.Random(seed).sample(todo, sample), key=lambda e: e["id"])
    t0 = time.monotonic()
    cmds = {"py": ([sys.executable, str(here / "py_pick.py")], "Python"),
            "js": ([node, str(here / "js_pick.mjs")], "Node")}
    if "js101_default" in readings:
        manifest = pathlib.Path(lowest_dir) / "node_modules" / "@a2a-js" / "sdk" / "package.json"
        version = json.loads(manifest.read_text())["version"]
        cmds["js101"] = ([node, str(here / "js_pick.mjs"), "--sdk", str(lowest_dir)], f"Node (@a2a-js/sdk {version})")
    if "py2" in readings:
        cmds["py2"] = ([second_py, str(here / "py_pick.py")], f"Python ({second_py})")
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:  # one process each, side by side
        got = dict(zip(cmds, pool.map(
            lambda c: run_batch(c[0], todo, f"{c[1]} pick", extra=lambda e: {"bindings": e["pick_bindings"]}),
            cmds.values())))
    py, js, js101 = got["py"], got["js"], got.get("js101")

    for e in todo:
        i = e["id"]
        picks = {"py": py[i], "js_default": js[i]["default"], "js_legacy": js[i]["legacy"]}
        if js101 is not None:
            picks["js101_default"] = js101[i]["default"]
            picks["js101_legacy"] = js101[i]["legacy"]
        if "py2" in got:
            picks["py2"] = got["py2"][i]
        for name, p in picks.items():
            p.pop("id", None)
            for x, chosen in (p.get("picks") or {}).items():
                if chosen is not None and chosen.get("index") is None:
                    sys.exit(f"sdk_parity: card {i} {name} {x!r}: the client dialled an untagged url: {chosen}")
        e["picks"] = picks

    t_read = time.monotonic() - t0
    # cardgate: one run per card and protocol (and one without).
    runs = [(e, p) for e in todo for p in [None] + e["pick_protocols"]]

    def ask(run_):
        e, p = run_
        req = {"binding:" + x for x in e["pick_bindings"]} | ({"protocol:" + p} if p else set())
        return cardgate_check(cardgate, e["file"], e["hash"], req)

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        answers = list(pool.map(ask, runs))
    t_gate = time.monotonic() - t0 - t_read

    rows = []
    model_diffs = []
    for (e, p), a in zip(runs, answers):
        accepting = [n for n in judged if e["readings"][n]["ok"]]
        declared = p is not None and bool(accepting) and all(
            "protocol:" + p in e["readings"][n]["caps"] for n in accepting)
        granted = set(a["granted"])
        for x in e["pick_bindings"]:
            def fine(n):
                pr = e["picks"][n]
                chosen = (pr.get("picks") or {}).get(x) if pr["ok"] else None
                if chosen is None or drops_tenant(n, chosen):
                    return False
                if not declared:
                    return True
                # a2a-sdk's producer, or @a2a-js/sdk's transport factory with legacyCompat (its
                # default one speaks 1.0 to every pick: the caller's configuration), must speak P.
                return major_minor(chosen["version"]) == p and (
                    chosen.get("wire") == generation(p) if n in PY_READINGS
                    else chosen.get("wire") in (None, generation(p)))

            truth = bool(accepting) and all(fine(n) for n in accepting)
            rows.append({"card": e, "binding": x, "protocol": p, "declared": declared, "truth": truth,
                         "granted": "binding:" + x in granted, "all_accept": not e["refused_by"],
                         "answer": a["error_class"] or a["verdict"]})
        if p is None:
            for n in readings:
                r, pr = e["readings"][n], e["picks"][n]
                if not r["ok"] or not pr["ok"]:
                    continue
                ifs = r["view"]["interfaces"]
                model = models[n]
                for x in e["pick_bindings"]:
                    real = (pr["picks"].get(x) or {}).get("index")
                    want = model(ifs, x)
                    if real != want:
                        model_diffs.append({"card": e, "reading": n, "binding": x, "real": real, "model": want})

    unsafe = [r for r in rows if r["granted"] and not r["truth"]]
    strict = [r for r in rows if r["truth"] and not r["granted"]]
    strict_all = [r for r in strict if r["all_accept"]]
    grants = sum(r["granted"] for r in rows)
    truths = sum(r["truth"] for r in rows)

    def ucards(rs):
        return len({r["card"]["id"] for r in rs})

    print(f"\nClient picks: {len(todo)} cards" + (f" (a seeded sample of the {with_binding})" if len(todo) < with_binding else "")
          + f" with a binding, {len(runs)} cardgate runs, {len(rows)} (card, binding,"
          f" protocol) questions; the SDKs' clients connect in {truths}, cardgate grants {grants}"
          f" (pick readers {t_read:.1f} s, cardgate {t_gate:.1f} s)")
    print(f"  UNSAFE       {len(unsafe)} grants on {ucards(unsafe)} cards where some accepting reading's client"
          " picks no interface, one at another Major.Minor or a tenant it speaks v0.3 to")
    if unsafe:
        by = collections.Counter(r["card"]["label"].split()[0] for r in unsafe)
        print("               by grid: " + ", ".join(f"{k} {v}" for k, v in by.most_common()))
    print(f"  OVER-STRICT  {len(strict)} on {ucards(strict)} cards ({len(strict_all)} on {ucards(strict_all)} cards"
          " every reading accepts)")
    if strict:
        by = collections.Counter(r["card"]["label"].split()[0] for r in strict)
        print("               by grid: " + ", ".join(f"{k} {v}" for k, v in by.most_common()))
    by_reading = collections.Counter(d["reading"] for d in model_diffs)
    print(f"  MODEL        {len(model_diffs)} picks where a real client differs from the documented choice"
          + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(by_reading.items())) + ")" if model_diffs else ""))

    def show_row(r):
        e = r["card"]
        req = f"binding:{r['binding']}" + (f" + protocol:{r['protocol']}" + ("" if r["declared"] else " (not declared)")
                                            if r["protocol"] else "")
        print(f"- #{e['id']} {e['label']}\n    card {e['file']}: {json.dumps(e['card'], separators=(',', ':'))[:900]}")
        print(f"    require {req}: cardgate {r['answer']}, grants binding: {r['granted']}; truth {r['truth']}")
        for n, pr in e["picks"].items():
            if not e["readings"][n]["ok"]:
                print(f"    {n:<14} refuses the card")
                continue
            chosen = (pr.get("picks") or {}).get(r["binding"]) if pr["ok"] else None
            ifs = e["readings"][n]["view"]["interfaces"]
            print(f"    {n:<14} interfaces {json.dumps(ifs)[:300]} -> "
                  + ("no client" if chosen is None else f"#{chosen['index']} version {json.dumps(chosen['version'])[:40]}"
                     + f" wire {chosen.get('wire') if n in PY_READINGS or chosen.get('wire') else chosen.get('legacy')}"
                     + (f" tenant {json.dumps(chosen.get('tenant'))[:40]}" if names_tenant(chosen.get("tenant")) else "")))

    def spread(rs):
        by = collections.defaultdict(list)
        for r in rs:
            by[r["card"]["label"].split()[0]].append(r)
        out = []
        while len(out) < min(examples, len(rs)):
            for k in list(by):
                if by[k] and len(out) < examples:
                    out.append(by[k].pop(0))
        return out

    for title, rs in (("UNSAFE", unsafe), ("OVER-STRICT", strict)):
        if rs:
            picked = spread(rs)
            print(f"\nClient picks {title} examples ({len(picked)} of {len(rs)}):")
            for r in picked:
                show_row(r)
    if model_diffs:
        print(f"\nClient picks MODEL differences ({min(examples, len(model_diffs))} of {len(model_diffs)}):")
        for d in model_diffs[:examples]:
            e = d["card"]
            print(f"- #{e['id']} {e['label']} {d['reading']} binding {d['binding']!r}: real #{d['real']}, model"
                  f" #{d['model']}; interfaces {json.dumps(e['readings'][d['reading']]['view']['interfaces'])[:300]}")

    for e in todo:
        e["client_picks"] = []
    for r in rows:
        r["card"]["client_picks"].append({k: r[k] for k in ("binding", "protocol", "declared", "truth", "granted", "answer")})
    summary = {"cards": len(todo), "cards_with_binding": with_binding, "cardgate_runs": len(runs), "questions": len(rows), "truth_grants": truths,
               "cardgate_grants": grants, "unsafe": len(unsafe), "unsafe_cards": ucards(unsafe),
               "over_strict": len(strict), "over_strict_cards": ucards(strict),
               "over_strict_all_accept": len(strict_all), "model_diffs": len(model_diffs)}
    return summary, bool(unsafe)
