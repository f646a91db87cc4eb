"""The pre-1.0 callers' check: a `binding:X` cardgate grants to a caller naming only `protocol:0.3`
against where the real clients of a2a-sdk 0.3 and @a2a-js/sdk 0.3 send X, a
`capability:extendedAgentCard` against whether they fetch the extended card,
`capability:streaming` / `capability:pushNotifications` against the flag in the card each client
keeps, and `protocol:0.3` itself against whether both SDKs' resolvers read the card at all
(DESIGN.md, "Callers on a pre-1.0 SDK"; src/interface_choice.rs, `V03Clients`;
src/v03_card_model.rs).

    .tools/py/bin/python tests/sdk_parity/v03_picks.py --cardgate target/release/cardgate \\
        [--count N] [--seed S] [--py03 .tools/py-a2a-03/bin/python] [--js03 .tools/a2a-js-03]

Generates N cards (seeded): a v1.0 card offering JSONRPC, HTTP+JSON and GRPC at 0.3 in
`supportedInterfaces` (so the 1.x clients' picks serve), with its v0.3 members drawn from the
spellings the 0.3 clients read apart: `url` (absent, null, empty, spaces, a query, another
endpoint), `preferredTransport` / `preferred_transport` (absent, null, "", case and Unicode
variants, unknown names), `additionalInterfaces` / `additional_interfaces` (entries with
repeated, case-variant, missing or null transports and urls), one card in seven proto-shaped
(v1.0 `securitySchemes`, sometimes a v1.0 `security` list: @a2a-js/sdk 0.3.11 on converts such a
card, earlier 0.3 releases do not), `capabilities.extendedAgentCard` with
`supportsAuthenticatedExtendedCard` / `supports_authenticated_extended_card`, and
`capabilities.streaming`, `pushNotifications` and `push_notifications` (each true, false, null,
"true", 1 or absent); one card in three also has one or two members a2a-sdk 0.3's pydantic
`AgentCard` or @a2a-js/sdk 0.3.11's proto conversion checks edited (dropped, `null`, another
type, a snake_case spelling, security schemes of either shape, OAuth flows, `null` list
elements), some of which the resolver refuses. cardgate is asked once per card with {"require": [binding:JSONRPC,
binding:HTTP+JSON, binding:GRPC, capability:extendedAgentCard, capability:streaming,
capability:pushNotifications, protocol:0.3], "max_stale": "10s"} and a 0 ms lag; a capability
is granted when it is not in missing_capabilities of a `valid` or `capability_mismatch` answer.
The real clients (v03_py_pick.py, v03_js_pick.mjs) say where each sends X: a2a-sdk 0.3's
ClientFactory, @a2a-js/sdk 0.3's ClientFactory and, for JSONRPC, its A2AClient; and which
flags the card each keeps has (pydantic's model; the resolver's card; A2AClient's card).
  A caller naming protocol:0.3 is granted nothing else without it (its decision fails), so the
  other questions count a grant only where protocol:0.3 is granted too.
  UNSAFE       cardgate grants protocol:0.3 on a card a real 0.3 resolver refuses (a2a-sdk's
               `AgentCard.model_validate`; @a2a-js/sdk's `DefaultAgentCardResolver`, whose
               conversion of a proto-shaped card may throw), or binding:X and two real clients send X to different urls, or one
               sends it to a url an HTTP client cannot use alike (not a plain http(s) URL; for
               HTTP+JSON with a query or fragment); or it grants capability:extendedAgentCard and
               a real client that reads the card would not fetch the extended card (its
               `get_card()` / `getAgentCard()` tests the flag), or a flag a client that has the
               card does not hold. The test fails.
  LOUD         cardgate grants binding:X and a real client has no url for X (it raises or
               refuses the card: that caller fails loudly, not elsewhere). Counted; the model
               says every 0.3 client sends X, so this is a finding.
  OVER-STRICT  on a card cardgate reads (not malformed_card, which the 1.x SDKs' readings decide),
               every real client sends X to one plain url, fetches the extended card or holds
               the flag, and cardgate does not grant it (counted and shown: on a proto-shaped
               card the gate asks the reading of the @a2a-js/sdk 0.3 releases not run here too).
"""

import argparse
import base64
import collections
import json
import pathlib
import random
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")
FLAGS = ("streaming", "pushNotifications")
A = "https://agent.example"
URLS = [A + "/v03", A + "/v03", A + "/rest/", A + "/other", A + "/q?x=1", A + "/f#x", "", " " + A + "/v03",
        "grpc.example:443", "/relative", A + "/v03/", "http://agent.example/plain", "https://agent.example"]
TRANSPORTS = ["JSONRPC", "JSONRPC", "GRPC", "HTTP+JSON", "jsonrpc", "http+json", "Grpc", "",
              "J\u017fONRPC", "JSONRPC ", "KAFKA", "HTTP+json"]


def gen_card(rnd):
    card = {
        "name": "Worker", "description": "test agent", "version": "3.0.0",
        "supportedInterfaces": [
            {"url": A + "/s/jsonrpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": A + "/s/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
            {"url": "grpc.example:443", "protocolBinding": "GRPC", "protocolVersion": "0.3"},
        ],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
    }

    def maybe(p, key, value):
        if rnd.random() < p:
            card[key] = value()

    def entries():
        out = []
        for _ in range(rnd.randint(0, 3)):
            e = {}
            r = rnd.random()
            if r < 0.9:
                e["transport"] = rnd.choice(TRANSPORTS) if r < 0.85 else None
            r = rnd.random()
            if r < 0.93:
                e["url"] = rnd.choice(URLS) if r < 0.88 else None
            out.append(e)
        return out

    maybe(0.9, "url", lambda: rnd.choice(URLS) if rnd.random() < 0.95 else None)
    maybe(0.6, "preferredTransport", lambda: rnd.choice(TRANSPORTS) if rnd.random() < 0.9 else None)
    maybe(0.15, "preferred_transport", lambda: rnd.choice(TRANSPORTS) if rnd.random() < 0.9 else None)
    maybe(0.6, "additionalInterfaces", lambda: entries() if rnd.random() < 0.92 else None)
    maybe(0.12, "additional_interfaces", lambda: entries() if rnd.random() < 0.85 else rnd.choice([None, {}, "x"]))
    if rnd.random() < 0.8:
        card["capabilities"]["extendedAgentCard"] = True
    flags = [True, True, False, None, "true", 1]
    maybe(0.6, "supportsAuthenticatedExtendedCard", lambda: rnd.choice(flags))
    maybe(0.1, "supports_authenticated_extended_card", lambda: rnd.choice(flags))
    for camel, snake in (("streaming", None), ("pushNotifications", "push_notifications")):
        if rnd.random() < 0.7:
            card["capabilities"][camel] = rnd.choice(flags)
        if snake and rnd.random() < 0.3:
            card["capabilities"][snake] = rnd.choice(flags)
    if rnd.random() < 0.15:
        # Proto-shaped: the v1.0 schemes (which the 1.x SDKs read), with or without the
        # `security` list in its v1.0 shape under the v0.3 name (which a2a-sdk 1.x refuses).
        card["securitySchemes"] = {"k": {"apiKeySecurityScheme": {"location": "header", "name": "k"}}}
        if rnd.random() < 0.3:
            card["security"] = [{"schemes": {"k": {"list": []}}}]
    # One card in three: one or two edits of the members a2a-sdk 0.3's pydantic model checks
    # (src/v03_card_model.rs), some it refuses, some it reads.
    for _ in range(rnd.choice([0, 0, 0, 0, 1, 1, 2])):
        rnd.choice(MODEL_EDITS)(card, rnd)
    return card


def _drop_or_null(key):
    def edit(card, rnd):
        if rnd.random() < 0.5:
            card.pop(key, None)
        else:
            card[key] = None
    return edit


def _set(key, *values):
    return lambda card, rnd: card.__setitem__(key, rnd.choice(values))


def _skill(*edits):
    def edit(card, rnd):
        if not isinstance(card.get("skills"), list):
            return
        skill = card["skills"][0]
        key, value = rnd.choice(edits)
        if value is KeyError:
            skill.pop(key, None)
        else:
            skill[key] = value
    return edit


def _caps(key, *values):
    def edit(card, rnd):
        if isinstance(card.get("capabilities"), dict):
            card["capabilities"][key] = rnd.choice(values)
    return edit


def _snake_modes(card, rnd):
    # The snake_case name alone (read), or behind a camelCase null (refused: the alias wins).
    card["default_input_modes"] = card.pop("defaultInputModes", ["text/plain"])
    if rnd.random() < 0.5:
        card["defaultInputModes"] = None


def _string_throws(card, rnd):
    value = rnd.choice([{"toString": 0}, [1, [{"toString": "x"}]], {"valueOf": 0}, "fine"])
    if rnd.random() < 0.5:
        camel, snake = rnd.choice([("protocolVersion", "protocol_version"), ("preferredTransport", "preferred_transport"),
                                   ("documentationUrl", "documentation_url")])
        card.update({camel: None, snake: value})
    else:
        card.update({"additionalInterfaces": None,
                     "additional_interfaces": [{"transport": "JSONRPC", "url": A + "/v03", rnd.choice(["url", "transport"]): value}]})
    if rnd.random() < 0.7:
        card["securitySchemes"] = {"k": {"mtlsSecurityScheme": {}}}


SCHEMES_03 = [
    {"type": "apiKey", "in": "header", "name": "k"}, {"type": "apiKey", "name": "k"},
    {"type": "apiKey", "in": "Header", "name": "k"}, {"type": "apiKey", "in_": "query", "name": "k"},
    {"type": "http", "scheme": "bearer"}, {"type": "http"}, {"type": "http", "scheme": 5},
    {"type": "oauth2", "flows": {}}, {"type": "oauth2"}, {"type": "oauth2", "flows": {}, "oauth2MetadataUrl": 5},
    {"type": "oauth2", "flows": {}, "oauth2MetadataUrl": "https://m"},
    {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {}}}},
    {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "https://a", "scopes": {"a": 1}}}},
    {"type": "openIdConnect", "openIdConnectUrl": "https://o"}, {"type": "openIdConnect"},
    {"type": "mutualTLS"}, {"type": "kerberos"}, {"type": None}, {"description": 5}, {}, "x",
    {"httpAuthSecurityScheme": {"scheme": "bearer"}},
]
MODEL_EDITS = [
    *[_drop_or_null(k) for k in ("url", "name", "description", "version", "capabilities",
                                  "defaultInputModes", "defaultOutputModes", "skills")],
    _set("description", 5, "", ["d"]),
    _set("defaultOutputModes", "text/plain", [1], [], ["a", None]),
    _snake_modes,
    _skill(("tags", KeyError), ("tags", None), ("name", KeyError), ("description", KeyError),
           ("description", 7), ("examples", "x"), ("examples", ["e"]), ("inputModes", ["a", 1]),
           ("outputModes", None), ("security", [{"k": ["a"]}]), ("security", [{"k": "a"}])),
    _set("provider", {"organization": "o", "url": "https://p"}, {"organization": "o"},
         {"url": "https://p"}, None, "p"),
    _caps("extensions", [{"uri": "u"}], [{"uri": 5}], [{"description": "d"}],
          [{"uri": "u", "params": []}], [{"uri": "u", "required": "yes"}], None),
    _caps("stateTransitionHistory", True, "on", 2, "maybe", None, 0.0),
    lambda card, rnd: card.__setitem__("securitySchemes", {"k": rnd.choice(SCHEMES_03)}),
    _set("security", [{"k": ["a"]}], [{"k": "a"}], [], None),
    _set("signatures", [{"protected": "p", "signature": "s"}], [{"protected": "p"}],
         [{"protected": "p", "signature": "s", "header": []}], None),
    # Proto-shaped schemes that @a2a-js/sdk 0.3.11's conversion throws on, or converts.
    lambda card, rnd: card.__setitem__("securitySchemes", {"k": rnd.choice([
        {}, {"apiKeySecurityScheme": None}, {"oauth2SecurityScheme": {"flows": {}}}, {"oauth2_security_scheme": {}},
        {"oauth2SecurityScheme": {"flows": {"implicit": {"authorizationUrl": "https://a", "scopes": {}}}}},
        {"mtlsSecurityScheme": {}}, {"apiKeySecurityScheme": None, "mtls_security_scheme": {}}])}),
    lambda card, rnd: card.update({"additionalInterfaces": None, "additional_interfaces": [None]}),
    # Values JavaScript's String() throws on (an object with its own toString, in an array too),
    # behind a camelCase null that pydantic reads, on a card the conversion takes for proto JSON.
    _string_throws,
    # A scheme keyed __proto__ becomes the prototype of the map ts-proto builds: not converted.
    lambda card, rnd: card.__setitem__("securitySchemes", rnd.choice([
        {"__proto__": {}}, {"__proto__": {"oauth2SecurityScheme": {}}}, {"k": {"mtlsSecurityScheme": {}}, "__proto__": {}}])),
    _set("documentationUrl", 5, "https://d", None),
    _set("protocolVersion", None, 0.3, "0.3.0"),
]


def plain(url, binding):
    """A url an HTTP client uses alike: a plain absolute http(s) URL (REST: no query or fragment)."""
    if not isinstance(url, str):
        return False
    if binding == "GRPC":
        return url.strip() != ""
    if not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/%-]*)?([?#][^\s]*)?", url):
        return False
    return binding != "HTTP+JSON" or not re.search(r"[?#]", url)


def run_lines(cmd, cards):
    feed = "".join(json.dumps({"id": i, "raw": base64.b64encode(raw).decode()}) + "\n" for i, raw in enumerate(cards))
    proc = subprocess.run(cmd, input=feed, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"v03_picks: {' '.join(map(str, cmd))} failed:\n{proc.stderr}")
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return {o["id"]: o for o in out}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cardgate", required=True)
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--py03", default=str(ROOT / ".tools/py-a2a-03/bin/python"))
    ap.add_argument("--js03", default=str(ROOT / ".tools/a2a-js-03"))
    ap.add_argument("--examples", type=int, default=3)
    args = ap.parse_args()

    rnd = random.Random(args.seed)
    cards = [json.dumps(gen_card(rnd)).encode() for _ in range(args.count)]
    py = run_lines([args.py03, str(HERE / "v03_py_pick.py")], cards)
    js = run_lines(["node", str(HERE / "v03_js_pick.mjs"), "--sdk", args.js03], cards)

    require = [f"binding:{x}" for x in BINDINGS] + ["capability:" + f for f in ("extendedAgentCard",) + FLAGS] + ["protocol:0.3"]
    counts = collections.Counter()
    shown = collections.defaultdict(list)
    by_capability = collections.defaultdict(collections.Counter)

    def report(verdict, cap, raw, clients, d):
        """Counts a finding (by capability too) and keeps the first examples."""
        counts[verdict] += 1
        by_capability[verdict][cap] += 1
        if len(shown[verdict]) < args.examples:
            shown[verdict].append((cap, raw.decode(), clients, d.get("detail", "")))
    with tempfile.TemporaryDirectory() as tmp:
        for i, raw in enumerate(cards):
            path = pathlib.Path(tmp) / f"{i}.json"
            path.write_bytes(raw)
            proc = subprocess.run(
                [args.cardgate, "check", str(path), "--watermark-ms", "0",
                 "--requirement", json.dumps({"require": require, "max_stale": "10s"})],
                capture_output=True, text=True)
            if proc.returncode not in (0, 1):
                sys.exit(f"v03_picks: cardgate check exit {proc.returncode}: {proc.stderr}")
            d = json.loads(proc.stdout)
            granted = set()
            if d["verdict"] == "valid" or d.get("error_class") == "capability_mismatch":
                granted = set(require) - set(d.get("missing_capabilities", []))
            malformed = d.get("error_class") == "malformed_card"
            # protocol:0.3 against the 0.3 resolvers: a caller on one has the card or nothing
            # (a2a-sdk's pydantic model; @a2a-js/sdk's resolver, whose conversion of a
            # proto-shaped card may throw).
            counts["questions"] += 1
            resolved = {"a2a-sdk 0.3": py[i]["reads"], "@a2a-js/sdk 0.3": js[i]["flags"]["factory"] is not None}
            verdict = None
            if "protocol:0.3" in granted:
                counts["granted"] += 1
                counts["granted protocol"] += 1
                if not all(resolved.values()):
                    verdict = "UNSAFE"
            elif not malformed and all(resolved.values()):
                verdict = "OVER-STRICT"
            if verdict:
                report(verdict, "protocol:0.3", raw, resolved, d)
            if "protocol:0.3" not in granted:
                # A caller naming protocol:0.3 gets nothing without it: its decision fails.
                granted = set()
            # Each 0.3 client that reads the card fetches the extended card only on its flag.
            reads = {"a2a-sdk 0.3": py[i]["reads"], "@a2a-js/sdk 0.3": any(u is not None for u in js[i]["factory"].values())}
            fetches = {"a2a-sdk 0.3": py[i]["extended"], "@a2a-js/sdk 0.3": js[i]["extended"]}
            counts["questions"] += 1
            if "capability:extendedAgentCard" in granted:
                counts["granted"] += 1
                counts["granted extended"] += 1
                if any(reads[k] and not fetches[k] for k in reads):
                    report("UNSAFE", "capability:extendedAgentCard", raw, fetches, d)
            elif (not malformed and (json.loads(raw).get("capabilities") or {}).get("extendedAgentCard") is True and all(reads.values())
                  and all(fetches.values()) and "capability:extendedAgentCard" in d.get("missing_capabilities", [])):
                report("OVER-STRICT", "capability:extendedAgentCard", raw, fetches, d)
            # The flags as each 0.3 client holds them (null: it has no card).
            holds = {"a2a-sdk 0.3": py[i]["flags"], "@a2a-js/sdk 0.3": js[i]["flags"]["factory"],
                     "@a2a-js/sdk 0.3 A2AClient": js[i]["flags"]["a2aclient"]}
            for f in FLAGS:
                cap = "capability:" + f
                held = {k: v[f] for k, v in holds.items() if v is not None}
                counts["questions"] += 1
                verdict = None
                if cap in granted:
                    counts["granted"] += 1
                    counts["granted flags"] += 1
                    if not all(held.values()):
                        verdict = "UNSAFE"
                elif (not malformed and len(held) == len(holds) and all(held.values())
                      and cap in d.get("missing_capabilities", [])):
                    verdict = "OVER-STRICT"
                if verdict:
                    report(verdict, cap, raw, held, d)
            for x in BINDINGS:
                sent = {"a2a-sdk 0.3": py[i]["factory"][x], "@a2a-js/sdk 0.3": js[i]["factory"][x]}
                if x == "JSONRPC":
                    sent["@a2a-js/sdk 0.3 A2AClient"] = js[i]["a2aclient"]
                urls = {u if isinstance(u, str) else json.dumps(u) for u in sent.values() if u is not None}
                is_granted = f"binding:{x}" in granted
                counts["questions"] += 1
                if is_granted:
                    counts["granted"] += 1
                    verdict = None
                    if len(urls) > 1 or any(not plain(u, x) for u in urls):
                        verdict = "UNSAFE"
                    elif any(u is None for u in sent.values()):
                        verdict = "LOUD"
                else:
                    verdict = "OVER-STRICT" if (not malformed and len(urls) == 1 and all(u is not None for u in sent.values())
                                                and all(plain(u, x) for u in urls)) else None
                if verdict:
                    report(verdict, f"binding:{x}", raw, sent, d)

    print(f"pre-1.0 callers: {args.count} cards (seed {args.seed}), {counts['questions']} (card, capability) questions "
          f"(each binding and capability) for protocol:0.3, cardgate grants {counts['granted']} "
          f"({counts['granted protocol']} of them protocol:0.3, {counts['granted extended']} capability:extendedAgentCard, "
          f"{counts['granted flags']} capability:streaming or capability:pushNotifications)")
    for name in ("UNSAFE", "LOUD", "OVER-STRICT"):
        split = ", ".join(f"{cap} {n}" for cap, n in sorted(by_capability[name].items()))
        print(f"  {name:12} {counts[name]}" + (f" ({split})" if split else ""))
        for x, card, sent, detail in shown[name]:
            print(f"    {x} card {card}\n      clients {json.dumps(sent)}\n      cardgate: {detail[:300]}")
    if counts["UNSAFE"]:
        sys.exit("v03_picks: cardgate grants a binding the pre-1.0 clients send apart, an extended card they do not fetch, "
                 "a flag a client does not hold, or protocol:0.3 on a card a 0.3 resolver refuses")
    print("v03_picks: ok: no unsafe grant")


if __name__ == "__main__":
    main()
