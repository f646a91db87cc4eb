"""An independent adversarial card corpus for the SDK differential (`sdk_parity.py --corpus indep`).

Written from the SDK sources (a2a-sdk 1.3.0 `a2a/client/card_resolver.py` and protobuf's
`json_format.ParseDict`; @a2a-js/sdk 1.3.0 `DefaultAgentCardResolver.normalizeAgentCard`,
`isLegacyAgentCard` / `isLegacyVersion` / `parseVersion`, `toCoreAgentCard`, `AgentCard.fromJSON`,
`ClientFactory.createFromNormalizedAgentCard`), not from the other generators. Each class aims at
one input detail that changes what a caller ends up with; the label's first word is the class.

  truthy    JSON values of every type and number spelling (raw bytes: `-0`, `0e5`, `1e-400`,
            `5e-324`, `1E400`, long zero fractions) in the places where an SDK tests truthiness
            rather than type: `supportsAuthenticatedExtendedCard` (a2a-sdk: Python truth; JS
            legacy: copied as is, then truthy), the flags on the JS raw path, legacy `url`
            (a2a-sdk builds interfaces only for a truthy url), `additionalInterfaces` (`or []`)
  legver    `protocolVersion` spellings against isLegacyVersion (0.3 <= parseVersion < 1.0, trims
            ECMAScript white space, parseInt of the first two dot segments) crossed with the
            supportedInterfaces key (absent, null, [], [iface], snake only) and the flags the
            conversion drops or rewrites (capabilities.extendedAgentCard, snake_case flags)
  proto     isProtoAgentCard triggers (the FIRST securitySchemes value without `type`, `type: null`,
            a skill's security at index > 0, `[{"schemes": []}]` that a2a-sdk reads as v0.3)
            crossed with camelCase/snake_case spellings in both document orders and nulls
  ext       supportsAuthenticatedExtendedCard x capabilities shape (absent, null, {}, string
            containing "extendedAgentCard", list holding it) x extendedAgentCard spellings x
            legacy markers x order
  iface     the a2a-sdk interface builder: url x preferredTransport x protocolVersion x
            additionalInterfaces shapes x the supportedInterfaces key
  coerce    values the JS proto path String()/Boolean()-coerces (numbers, booleans, one-element
            lists, nested lists, objects) at skill ids, uris, bindings, versions, flags, with and
            without a proto trigger
  names     member-name look-alikes (Cyrillic, fullwidth, dotless i, long s, Kelvin sign, ZWJ/ZWSP,
            trailing/leading space, case) and value look-alikes in bindings and versions, and
            escaped spellings in raw bytes (`\\u0073kills`, surrogate pairs, escaped duplicates)
  bulk      huge and repetitive lists (thousands of skills / interfaces / extensions, the
            distinguishing one at the end), long strings, deep nesting near each limit
  deep      every field of every message a2a-sdk's ParseDict reaches (security schemes, OAuth flows,
            scopes, requirements, signatures, provider...): other JSON types, the NUL-suffixed proto
            name, extension syntax, both spellings, before and after the member, good/null/wrong
            values; in each OAuth flow, the fields only other flows have (unknown there); v0.3 security schemes as both SDKs map them; requirement lists at card and skill
  reserved  skill ids and extension uris spelled like other capability kinds (`capability:streaming`,
            `binding:GRPC`...), probed; legacy interface lists whose picks differ between the SDKs
  version   the card's `version` (condition (a)) in odd spellings, escapes, aliases, duplicates and
            types; sdk_parity.py's VERSION check compares the gate's card_version with each reading's
  mix       random combinations of every class's mutations on random base cards, member order
            shuffled
"""

import copy
import itertools
import json
import random

MIXED_CARDS = 1500

URL = "https://agent.example/a2a"
URL2 = "https://agent.example/grpc"


def v1_base():
    return {
        "name": "Indep agent",
        "description": "independent corpus",
        "version": "1.2.0",
        "supportedInterfaces": [
            {"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": URL2, "protocolBinding": "GRPC", "protocolVersion": "0.3"},
        ],
        "capabilities": {
            "streaming": True,
            "pushNotifications": True,
            "extendedAgentCard": True,
            "extensions": [{"uri": "urn:indep:ext", "required": False}],
        },
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {"id": "indep.a", "name": "A", "description": "a", "tags": ["t"]},
            {"id": "indep.b", "name": "B", "description": "b", "tags": ["t"]},
        ],
    }


def legacy_base():
    return {
        "protocolVersion": "0.3.0",
        "name": "Indep legacy",
        "description": "independent corpus",
        "url": URL,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": URL2, "transport": "GRPC"}],
        "version": "1.2.0",
        "capabilities": {
            "streaming": True,
            "pushNotifications": True,
            "extensions": [{"uri": "urn:indep:ext", "required": False}],
        },
        "supportsAuthenticatedExtendedCard": True,
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {"id": "indep.a", "name": "A", "description": "a", "tags": ["t"]},
            {"id": "indep.b", "name": "B", "description": "b", "tags": ["t"]},
        ],
    }


def proto_base():
    """A v1.0 card the JS default resolver reads through AgentCard.fromJSON (proto-shaped scheme)."""
    c = v1_base()
    c["securitySchemes"] = {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}}
    c["securityRequirements"] = [{"schemes": {"bearer": {"list": []}}}]
    return c


BASES = {"v1": v1_base, "legacy": legacy_base, "proto": proto_base}

# Values of every JSON type; the ones given as text only exist as raw bytes (number spellings).
PLAIN_VALUES = [
    ("true", True), ("false", False), ("null", None), ("0", 0), ("1", 1), ("-1", -1),
    ('""', ""), ('" "', " "), ('"0"', "0"), ('"false"', "false"), ('"true"', "true"),
    ("[]", []), ("[0]", [0]), ("[false]", [False]), ("{}", {}), ('{"a":0}', {"a": 0}),
]
NUMBER_TEXTS = [
    "-0", "0.0", "-0.0", "0e0", "0E+5", "0e-5", "1e-400", "-1e-400", "5e-324", "2e-324", "3e-324",
    "1.0", "1e0", "1E+0", "0.1e1", "1e400", "-1e400", "0." + "0" * 400 + "1", "1" + "0" * 30,
    "0.000000000000000000001", "1e-7", "4.9e-324", "2.4703282292062328e-324",
    "2.4703282292062327e-324",
]


def raw_entry(label, text):
    raw = text.encode()
    try:
        card = json.loads(text)
    except ValueError:
        card = {}
    return {"label": label, "card": card if isinstance(card, dict) else {}, "raw": raw}


def dumps(card):
    return json.dumps(card, separators=(",", ":"), ensure_ascii=False)


def put_text(card, path, value_text):
    """The card's compact JSON with the member at `path` (a list of keys / indexes) replaced by
    raw JSON text `value_text` (a placeholder is set first, then swapped in the text)."""
    c = copy.deepcopy(card)
    node = c
    for k in path[:-1]:
        node = node[k]
    marker = "@@INDEP@@"
    node[path[-1]] = marker
    return dumps(c).replace(json.dumps(marker), value_text, 1)


def setp(card, path, value):
    node = card
    for k in path[:-1]:
        if isinstance(k, str) and k not in node:
            node[k] = {}
        node = node[k]
    node[path[-1]] = value


def delp(card, path):
    node = card
    for k in path[:-1]:
        node = node[k]
    if isinstance(node, dict):
        node.pop(path[-1], None)


# ---------------------------------------------------------------------------------------------
# truthy


def gen_truthy():
    out = []
    # (base, path, label): places where a value's truthiness, not its type, decides something.
    spots = [
        ("legacy", ["supportsAuthenticatedExtendedCard"]),
        ("v1", ["supportsAuthenticatedExtendedCard"]),
        ("v1", ["capabilities", "streaming"]),
        ("v1", ["capabilities", "extendedAgentCard"]),
        ("legacy", ["capabilities", "pushNotifications"]),
        ("legacy", ["url"]),
        ("legacy", ["additionalInterfaces"]),
        ("legacy", ["protocolVersion"]),
        ("legacy", ["preferredTransport"]),
        ("v1", ["capabilities", "extensions", 0, "required"]),
        ("legacy", ["capabilities", "extensions"]),
        ("legacy", ["skills", 0, "examples"]),
        ("legacy", ["skills", 0, "security"]),
        ("legacy", ["signatures"]),
        ("legacy", ["securitySchemes"]),
        ("v1", ["securitySchemes"]),
        ("v1", ["security"]),
    ]
    for base, path in spots:
        card = BASES[base]()
        if base == "v1" and path[0] == "supportsAuthenticatedExtendedCard":
            del card["capabilities"]["extendedAgentCard"]
        where = ".".join(str(p) for p in path)
        for text, value in PLAIN_VALUES:
            c = copy.deepcopy(card)
            setp(c, path, value)
            out.append({"label": f"truthy {base} {where}={text}", "card": c})
        for text in NUMBER_TEXTS:
            out.append(raw_entry(f"truthy {base} {where}={text[:24]} raw", put_text(card, path, text)))
        # absent
        c = copy.deepcopy(card)
        delp(c, path)
        out.append({"label": f"truthy {base} {where}=absent", "card": c})
    # sAEC x capabilities presence on a legacy card without capabilities at all (setdefault).
    for text, value in PLAIN_VALUES:
        c = legacy_base()
        del c["capabilities"]
        c["supportsAuthenticatedExtendedCard"] = value
        out.append({"label": f"truthy legacy nocaps sAEC={text}", "card": c})
    return out


# ---------------------------------------------------------------------------------------------
# legver

PV_STRINGS = [
    "0.3", "0.3.0", "0.3.1", "0.4", "0.5.0", "0.9", "0.99", "0.9.9", "0.03", "00.3", "0.30", "0.300",
    "0.2", "0.2.9", "0.1", "1.0", "1.0.0", "1", "0", "0.", ".3", "", " ", "\t", " 0.5", "0.5 ",
    "\u00a00.4", "0.4\u200b", "\ufeff0.3", "\u30000.6", "0.4.x", "0.4-rc", "0.3.0-rc.1", "0.3+b",
    "0x0.4", "+0.4", "-0.4", "0.4e0", "0_3", "0,3", "0.3.0.0.0", "0.3\u0000", "\u0660.\u0663",
    "０.３", "v0.3", "0.3\n", "\n0.3", "1.0\u00a0", "0.999999999999999999999", "0." + "9" * 400,
    "0." + "0" * 20 + "3", "2.0", "10.0", "0.10",
]
PV_OTHER = [("num0.3", 0.3), ("num0", 0), ("num1", 1), ("null", None), ("true", True), ("list", ["0.3"])]
SI_SHAPES = ["absent", "null", "empty", "one", "snake", "one+snake", "junk-str", "junk-obj", "junk-list", "junk-null"]


def gen_legver():
    out = []
    pvs = [(json.dumps(s, ensure_ascii=True)[:28], s) for s in PV_STRINGS] + PV_OTHER
    for (pl, pv), shape, markers in itertools.product(pvs, SI_SHAPES, ["none", "url", "pt", "sAEC"]):
        c = v1_base()
        c["capabilities"]["push_notifications"] = c["capabilities"].pop("pushNotifications")
        c["protocolVersion"] = pv
        iface = [{"url": URL2, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]
        if shape == "absent":
            del c["supportedInterfaces"]
        elif shape == "null":
            c["supportedInterfaces"] = None
        elif shape == "empty":
            c["supportedInterfaces"] = []
        elif shape == "one":
            c["supportedInterfaces"] = iface
        elif shape == "snake":
            del c["supportedInterfaces"]
            c["supported_interfaces"] = iface
        elif shape == "one+snake":
            c["supported_interfaces"] = iface
        else:
            c["supportedInterfaces"] = [{"junk-str": "x", "junk-obj": {}, "junk-list": [], "junk-null": None}[shape]]
        if markers == "url":
            c["url"] = URL
        elif markers == "pt":
            c["preferredTransport"] = "GRPC"
        elif markers == "sAEC":
            c["supportsAuthenticatedExtendedCard"] = False
        out.append({"label": f"legver pv={pl} si={shape} mark={markers}", "card": c})
    return out


# ---------------------------------------------------------------------------------------------
# proto


def gen_proto():
    out = []
    schemes_variants = {
        "none": None,
        "first-untyped": {"b": {"httpAuthSecurityScheme": {"scheme": "bearer"}}, "a": {"type": "apiKey", "in": "header", "name": "k"}},
        "second-untyped": {"a": {"type": "apiKey", "in": "header", "name": "k"}, "b": {"httpAuthSecurityScheme": {"scheme": "bearer"}}},
        "type-null": {"a": {"type": None, "httpAuthSecurityScheme": {"scheme": "bearer"}}},
        "type-empty": {"a": {"type": "", "httpAuthSecurityScheme": {"scheme": "bearer"}}},
        "empty-obj": {"a": {}},
        "list-val": {"a": []},
        "null-val": {"a": None},
        "mtls": {"a": {"type": "mutualTLS"}},
    }
    security_variants = {
        "none": None,
        "proto": [{"schemes": {"a": {"list": []}}}],
        "proto-empty": [{"schemes": []}],
        "proto-second": [{}, {"schemes": {}}],
        "v03": [{"a": []}],
        "empty": [],
    }
    skill_sec = {"none": None, "s0": 0, "s1": 1}
    spellings = {
        "camel": {},
        "snake-only": {"caps_snake": True, "si_snake": True},
        "both-camel-first": {"caps_both": "camel-first", "si_both": "camel-first"},
        "both-snake-first": {"caps_both": "snake-first", "si_both": "snake-first"},
        "camel-null-snake": {"camel_null": True},
        "snake-null-camel": {"snake_null": True},
    }
    for (sn, sv), (qn, qv), (kn, kv), (pn, pv), base in itertools.product(
            schemes_variants.items(), security_variants.items(), skill_sec.items(), spellings.items(),
            ["v1", "legacy"]):
        c = BASES[base]()
        if sv is not None:
            c["securitySchemes"] = copy.deepcopy(sv)
        if qv is not None:
            c["security"] = copy.deepcopy(qv)
        if kv is not None:
            c["skills"][kv]["security"] = [{"schemes": []}]
        caps = c["capabilities"]
        gi = {"url": URL, "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        if pv.get("caps_snake"):
            caps["push_notifications"] = caps.pop("pushNotifications")
            if "extendedAgentCard" in caps:
                caps["extended_agent_card"] = caps.pop("extendedAgentCard")
        if pv.get("si_snake") and "supportedInterfaces" in c:
            c["supported_interfaces"] = c.pop("supportedInterfaces")
        if pv.get("caps_both"):
            new = {}
            for k, v in list(caps.items()):
                if k == "pushNotifications":
                    pair = [("pushNotifications", True), ("push_notifications", False)]
                    new.update(pair if pv["caps_both"] == "camel-first" else pair[::-1])
                else:
                    new[k] = v
            c["capabilities"] = new
        if pv.get("si_both"):
            pair = [("supportedInterfaces", c.get("supportedInterfaces", [])), ("supported_interfaces", [gi])]
            if pv["si_both"] == "snake-first":
                pair = pair[::-1]
            c.pop("supportedInterfaces", None)
            c.update(pair)
        if pv.get("camel_null"):
            caps["pushNotifications"] = None
            caps["push_notifications"] = True
            c["supportedInterfaces"] = None
            c["supported_interfaces"] = [gi]
        if pv.get("snake_null"):
            caps.pop("pushNotifications")
            caps["push_notifications"] = None
            caps["pushNotifications"] = True
            c.pop("supportedInterfaces", None)
            c["supported_interfaces"] = None
            c["supportedInterfaces"] = [gi]
        out.append({"label": f"proto {base} schemes={sn} security={qn} skillsec={kn} names={pn}", "card": c})
    return out


# ---------------------------------------------------------------------------------------------
# ext

def gen_ext():
    out = []
    saec = [("absent", None, False), ("true", True, True), ("false", False, True), ("null", None, True),
            ("1", 1, True), ("str", "no", True), ("[]", [], True), ("{}", {}, True)]
    caps_shapes = ["absent", "null", "empty", "str-has", "str-not", "list-has", "list-not", "flags"]
    eac = [("none", []), ("camel-true", [("extendedAgentCard", True)]), ("camel-false", [("extendedAgentCard", False)]),
           ("camel-null", [("extendedAgentCard", None)]), ("snake-true", [("extended_agent_card", True)]),
           ("snake-false", [("extended_agent_card", False)]), ("snake-null", [("extended_agent_card", None)]),
           ("camel-null,snake-true", [("extendedAgentCard", None), ("extended_agent_card", True)]),
           ("snake-null,camel-true", [("extended_agent_card", None), ("extendedAgentCard", True)]),
           ("snake-true,camel-null", [("extended_agent_card", True), ("extendedAgentCard", None)])]
    for (an, av, present), cs, (en, ev), base, order in itertools.product(
            saec, caps_shapes, eac, ["v1", "legacy", "proto"], ["sAEC-first", "sAEC-last"]):
        if cs in ("absent", "null", "str-has", "str-not", "list-has", "list-not") and en != "none":
            continue
        c = BASES[base]()
        c.pop("supportsAuthenticatedExtendedCard", None)
        caps = {"streaming": True}
        if cs == "flags":
            caps = {"streaming": True}
            caps.update(ev)
        elif cs == "empty":
            caps = dict(ev)
        capv = {"absent": None, "null": None, "str-has": "xx extendedAgentCard xx", "str-not": "streaming",
                "list-has": ["extendedAgentCard"], "list-not": ["x"]}.get(cs, caps)
        rest = {k: v for k, v in c.items() if k != "capabilities"}
        new = {}
        if present and order == "sAEC-first":
            new["supportsAuthenticatedExtendedCard"] = av
        for k, v in rest.items():
            new[k] = v
            if k == "version" and cs != "absent":
                new["capabilities"] = capv
        if present and order == "sAEC-last":
            new["supportsAuthenticatedExtendedCard"] = av
        out.append({"label": f"ext {base} sAEC={an} caps={cs} eac={en} {order}", "card": new})
    return out


# ---------------------------------------------------------------------------------------------
# iface

def gen_iface(rng, n):
    urls = [("s", URL), ("empty", ""), ("ws", " "), ("null", None), ("0", 0), ("1", 1), ("true", True),
            ("list", [URL]), ("obj", {"u": 1}), ("absent", "ABSENT")]
    pts = [("absent", "ABSENT"), ("null", None), ("empty", ""), ("GRPC", "GRPC"), ("grpc", "grpc"),
           ("HTTP+JSON", "HTTP+JSON"), ("5", 5), ("list", ["GRPC"]), (" JSONRPC", " JSONRPC")]
    pvs = [("absent", "ABSENT"), ("null", None), ("empty", ""), ("0.3", "0.3"), ("1.0", "1.0"), ("0.3.0", "0.3.0"),
           ("num", 1.0), ("0.5", "0.5")]
    ais = [("absent", "ABSENT"), ("null", None), ("[]", []), ("{}", {}), ("{t}", {"transport": "GRPC"}), ('""', ""),
           ('"ab"', "ab"), ("0", 0), ("[null]", [None]), ('["x"]', ["x"]), ("[{}]", [{}]),
           ("[t:null]", [{"url": URL2, "transport": None}]), ("[GRPC]", [{"url": URL2, "transport": "GRPC"}]),
           ("[GRPC url5]", [{"url": 5, "transport": "GRPC"}]), ("[no url]", [{"transport": "GRPC"}]),
           ("[GRPC,JSONRPC1.0]", [{"url": URL2, "transport": "GRPC"}, {"url": URL2, "transport": "JSONRPC", "protocolVersion": "1.0"}]),
           ("[jsonrpc]", [{"url": URL2, "transport": "jsonrpc"}])]
    sis = [("absent", "ABSENT"), ("null", None), ("[]", []), ("[H]", [{"url": URL, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]),
           ("snake[H]", "SNAKE")]
    grid = list(itertools.product(urls, pts, pvs, ais, sis))
    rng.shuffle(grid)
    out = []
    for (un, uv), (tn, tv), (vn, vv), (an, av), (sn, sv) in grid[:n]:
        c = legacy_base()
        for key in ("url", "preferredTransport", "protocolVersion", "additionalInterfaces"):
            c.pop(key)
        for key, v in (("url", uv), ("preferredTransport", tv), ("protocolVersion", vv), ("additionalInterfaces", av)):
            if v != "ABSENT":
                c[key] = copy.deepcopy(v)
        if sv == "SNAKE":
            c["supported_interfaces"] = [{"url": URL, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]
        elif sv != "ABSENT":
            c["supportedInterfaces"] = copy.deepcopy(sv)
        out.append({"label": f"iface url={un} pt={tn} pv={vn} ai={an} si={sn}", "card": c})
    return out


# ---------------------------------------------------------------------------------------------
# coerce

COERCE_VALUES = [("5", 5), ("1.5", 1.5), ("true", True), ("false", False), ('["x"]', ["indep.x"]),
                 ('[["x"]]', [["indep.x"]]), ('["a","b"]', ["indep.a", "indep.b"]), ("{}", {}), ("[]", []),
                 ('[null]', [None]), ("0", 0), ('""', ""), ('"null"', "null"), ('"undefined"', "undefined"),
                 ('"[object Object]"', "[object Object]")]


def gen_coerce():
    out = []
    spots = [
        ["skills", 0, "id"], ["capabilities", "extensions", 0, "uri"], ["supportedInterfaces", 0, "protocolBinding"],
        ["supportedInterfaces", 0, "protocolVersion"], ["supportedInterfaces", 0, "protocol_binding"],
        ["supportedInterfaces", 0, "tenant"], ["supportedInterfaces", 0, "url"], ["version"],
        ["capabilities", "streaming"], ["capabilities", "push_notifications"], ["name"],
        ["skills", 0, "tags"], ["skills", 0, "tags", 0], ["capabilities", "extensions", 0], ["skills", 0],
        ["supportedInterfaces", 0], ["capabilities"], ["skills"], ["supportedInterfaces"],
        ["capabilities", "extensions"],
    ]
    for path, (vn, v), base in itertools.product(spots, COERCE_VALUES, ["v1", "proto"]):
        c = BASES[base]()
        if path[-1] == "protocol_binding":
            del c["supportedInterfaces"][0]["protocolBinding"]
        if path[-1] == "push_notifications":
            del c["capabilities"]["pushNotifications"]
        setp(c, path, copy.deepcopy(v))
        out.append({"label": f"coerce {base} {'.'.join(map(str, path))}={vn}", "card": c})
    return out


# ---------------------------------------------------------------------------------------------
# names

NAME_LOOKALIKES = {
    "skills": ["ѕkills", "skіlls", "ｓkills", "skills ", " skills", "Skills", "SKILLS", "skil\u200bls", "skills\u200d",
               "s\u0336kills", "skiIls", "skılls", "\u017fkills", "skills\t", "skill", "skills_", "_skills"],
    "streaming": ["ѕtreaming", "streamıng", "strea\u200bming", "Streaming", "streaming ", "stre\u0430ming", "\u017ftreaming",
                  "streaming\ufeff"],
    "pushNotifications": ["pushnotifications", "push_Notifications", "pushNotification", "pushNotificationſ",
                          "pushNotifications\u200b", "pushNotifıcations", "PushNotifications", "push-notifications",
                          "pushNotifications\u0000"],
    "supportedInterfaces": ["supportedinterfaces", "supported_Interfaces", "supportedInterfaceſ", "supportedInterfaces ",
                            "supported_interfaces\u0000", "supportedInterfaces\u0000", "supportedİnterfaces",
                            "supported_ınterfaces"],
    "protocolBinding": ["protocolbinding", "protocol_Binding", "protocolBındıng", "protocolBinding ", "protocol_binding\u200b",
                        "protocol-binding", "ProtocolBinding"],
    "id": ["ıd", "Id", "ID", "іd", "id ", "\u200bid"],
    "uri": ["URI", "urı", "uri ", "ur\u0456"],
}
VALUE_LOOKALIKES = {
    "protocolBinding": ["JSONRPС", "ＪＳＯＮＲＰＣ", "jsonrpc", "JsonRpc", "JSONRPC\u0000", "JSONRPC\u200b", " JSONRPC",
                        "J\u017fONRPC", "JSONRPC\n", "GRPC\u0131", "grpc", "gRPC", "HTTP+json", "HTTP＋JSON",
                        "http+json", "\u0130TTP+JSON", "K\u212a"],
    "protocolVersion": ["１.0", "1.0\u00a0", "\u0661.\u0660", "1.0\u200b", "1.０", "1 .0", "1.0.0", "01.0", "1.00",
                        "1.0.0-rc", "1.0.0+x", "v1.0", "V1.0", "1.0-", "1.0.", ".1.0", "1..0", "\ufeff1.0", "1.0\u0000",
                        "1.\u0030", "1\u20240"],
}


def gen_names():
    out = []
    for canon, looks in NAME_LOOKALIKES.items():
        for look, base, keep in itertools.product(looks, ["v1", "legacy", "proto"], ["both", "only"]):
            c = BASES[base]()
            # Find the object holding `canon`: top level, capabilities, the first interface, skill, extension.
            holders = [c, c.get("capabilities") or {}, (c.get("supportedInterfaces") or [{}])[0], c["skills"][0],
                       (c.get("capabilities") or {}).get("extensions", [{}])[0]]
            holder = next((h for h in holders if canon in h), None)
            if holder is None:
                if canon == "supportedInterfaces":
                    holder = c
                    holder[canon] = [{"url": URL, "protocolBinding": "GRPC", "protocolVersion": "1.0"}]
                elif canon == "protocolBinding":
                    c["supportedInterfaces"] = [{"url": URL, "protocolBinding": "GRPC", "protocolVersion": "1.0"}]
                    holder = c["supportedInterfaces"][0]
                else:
                    continue
            val = holder[canon]
            if keep == "only":
                del holder[canon]
            if canon in ("skills", "supportedInterfaces"):
                alt = copy.deepcopy(val) if isinstance(val, list) else val
                if isinstance(alt, list) and alt and isinstance(alt[0], dict):
                    if canon == "skills":
                        alt[0]["id"] = "indep.lookalike"
                    else:
                        alt[0]["protocolBinding"] = "HTTP+JSON"
                holder[look] = alt
            elif canon in ("id", "uri"):
                holder[look] = "indep.look." + canon
            elif canon == "protocolBinding":
                holder[look] = "HTTP+JSON"
            else:
                holder[look] = not val if isinstance(val, bool) else val
            out.append({"label": f"names {base} {keep} {json.dumps(look)}", "card": c})
    for field, looks in VALUE_LOOKALIKES.items():
        for look, pos in itertools.product(looks, ["first", "second", "only"]):
            c = v1_base()
            ifs = [{"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]
            alt = {"url": URL2, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            alt[field] = look
            c["supportedInterfaces"] = {"first": [alt] + ifs, "second": ifs + [alt], "only": [alt]}[pos]
            out.append({"label": f"names value {field}={json.dumps(look)} {pos}", "card": c})
    # Escaped member names and values in raw bytes.
    esc = [
        ('"\\u0073kills"', "skills"), ('"sk\\u0069lls"', "skills"), ('"\\u0073\\u006B\\u0069\\u006C\\u006C\\u0073"', "skills"),
        ('"capabilit\\u0069es"', "capabilities"), ('"stream\\u0069ng"', "streaming"),
        ('"supported\\u0049nterfaces"', "supportedInterfaces"), ('"protocol\\u0042inding"', "protocolBinding"),
        ('"extendedAgent\\u0043ard"', "extendedAgentCard"), ('"push\\u004eotifications"', "pushNotifications"),
        ('"\\u0069d"', "id"), ('"\\u0075ri"', "uri"), ('"url\\/"', None), ('"\\/url"', None),
        ('"skills\\u0000"', None), ('"skills\\ud800"', None), ('"skills\\udc00"', None), ('"\\ud83d\\ude00skills"', None),
    ]
    for text, canon in esc:
        name = json.loads(text)
        for base, dup in itertools.product(["v1", "legacy"], ["alone", "before", "after"]):
            c = BASES[base]()
            holder_path = {"streaming": ["capabilities"], "extendedAgentCard": ["capabilities"],
                           "pushNotifications": ["capabilities"], "protocolBinding": ["supportedInterfaces", 0],
                           "id": ["skills", 0], "uri": ["capabilities", "extensions", 0]}.get(canon or "", [])
            if canon == "protocolBinding" and "supportedInterfaces" not in c:
                continue
            holder = c
            for k in holder_path:
                holder = holder[k]
            key = canon or "skills"
            if key not in holder:
                continue
            original = holder[key]
            alt = copy.deepcopy(original)
            if key == "skills":
                alt = [dict(alt[0], id="indep.escaped")]
            elif key == "supportedInterfaces":
                alt = [dict(alt[0], protocolBinding="HTTP+JSON")]
            elif isinstance(alt, bool):
                alt = not alt
            elif isinstance(alt, str):
                alt = alt + ".esc"
            marker = "@@ESC@@"
            items = list(holder.items())
            holder.clear()
            for k, v in items:
                if k == key:
                    if dup == "before":
                        holder[marker] = alt
                        holder[k] = v
                    elif dup == "after":
                        holder[k] = v
                        holder[marker] = alt
                    else:
                        holder[marker] = alt
                else:
                    holder[k] = v
            text_card = dumps(c).replace(json.dumps(marker), text, 1)
            out.append(raw_entry(f"names esc {base} {dup} {text}", text_card))
    return out


# ---------------------------------------------------------------------------------------------
# bulk

def nest(depth, inner):
    v = inner
    for _ in range(depth):
        v = {"n": v}
    return v


def nest_list(depth, inner):
    v = inner
    for _ in range(depth):
        v = [v]
    return v


def gen_bulk():
    out = []
    for n in (1000, 3000):
        c = v1_base()
        c["skills"] = [{"id": "indep.same", "name": "s", "description": "d", "tags": ["t"]} for _ in range(n)]
        c["skills"].append({"id": "indep.last", "name": "s", "description": "d", "tags": ["t"]})
        out.append({"label": f"bulk skills n={n} last-distinct", "card": c})
        c = v1_base()
        c["supportedInterfaces"] = [{"url": URL, "protocolBinding": "GRPC", "protocolVersion": "0.3"} for _ in range(n // 4)]
        c["supportedInterfaces"].append({"url": URL2, "protocolBinding": "GRPC", "protocolVersion": "1.0"})
        c["supportedInterfaces"].append({"url": URL2, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"})
        out.append({"label": f"bulk interfaces n={n // 4} 1.0-last", "card": c})
        c = legacy_base()
        c["additionalInterfaces"] = [{"url": URL2, "transport": "GRPC"} for _ in range(n // 4)] + [{"url": URL2, "transport": "HTTP+JSON"}]
        out.append({"label": f"bulk additional n={n // 4}", "card": c})
        c = v1_base()
        c["capabilities"]["extensions"] = [{"uri": f"urn:indep:e{k}"} for k in range(n // 4)]
        out.append({"label": f"bulk extensions n={n // 4}", "card": c})
    for size in (1000, 20000, 60000, 65000, 66000, 70000):
        c = v1_base()
        c["description"] = "x" * size
        out.append({"label": f"bulk description len={size}", "card": c})
        c = v1_base()
        c["skills"][0]["id"] = "i" * size
        out.append({"label": f"bulk skill-id len={size}", "card": c})
    # Deep nesting near the limits: params (Struct at depth 4), header (depth 3), unknown member,
    # lists in params, and the card's own nesting limit (64 per the gate).
    for d in range(44, 52):
        for inner_name, inner in (("val", 1), ("empty", {}), ("null", None), ("list", [1]), ("emptylist", [])):
            c = v1_base()
            c["capabilities"]["extensions"][0]["params"] = nest(d, inner)
            out.append({"label": f"bulk params-obj depth={d} inner={inner_name}", "card": c})
            c = v1_base()
            c["capabilities"]["extensions"][0]["params"] = {"l": nest_list(d, inner)}
            out.append({"label": f"bulk params-list depth={d} inner={inner_name}", "card": c})
            c = v1_base()
            c["signatures"] = [{"protected": "e30", "signature": "c2ln", "header": nest(d, inner)}]
            out.append({"label": f"bulk header depth={d} inner={inner_name}", "card": c})
    for d in range(58, 68):
        c = v1_base()
        c["x-unknown"] = nest(d, 1)
        out.append({"label": f"bulk unknown depth={d}", "card": c})
        c = v1_base()
        c["x-unknown"] = nest_list(d, 1)
        out.append({"label": f"bulk unknown-list depth={d}", "card": c})
    # Wide objects: many unknown members, many duplicate-looking names.
    c = v1_base()
    for k in range(2000):
        c["capabilities"][f"x{k}"] = k
    out.append({"label": "bulk caps-unknown n=2000", "card": c})
    return out


# ---------------------------------------------------------------------------------------------
# deep: every field of every message a2a-sdk's ParseDict reaches, on a card that fills them all


def full_card():
    c = v1_base()
    c["provider"] = {"url": "https://provider.example", "organization": "P"}
    c["documentationUrl"] = "https://agent.example/doc"
    c["iconUrl"] = "https://agent.example/icon"
    c["supportedInterfaces"][0]["tenant"] = "t1"
    c["capabilities"]["extensions"][0]["description"] = "e"
    c["capabilities"]["extensions"][0]["params"] = {"k": [1, "v", None, True, {"n": 1.5}]}
    flows = {
        "authorizationCode": {"authorizationUrl": "https://a/auth", "tokenUrl": "https://a/tok",
                              "refreshUrl": "https://a/ref", "scopes": {"read": "r"}, "pkceRequired": True},
        "clientCredentials": {"tokenUrl": "https://a/tok", "refreshUrl": "", "scopes": {"read": "r"}},
        "implicit": {"authorizationUrl": "https://a/auth", "scopes": {}},
        "password": {"tokenUrl": "https://a/tok", "scopes": {"w": "w"}},
        "deviceCode": {"deviceAuthorizationUrl": "https://a/dev", "tokenUrl": "https://a/tok", "scopes": {}},
    }
    c["securitySchemes"] = {
        "key": {"apiKeySecurityScheme": {"description": "k", "location": "header", "name": "X-Key"}},
        "bearer": {"httpAuthSecurityScheme": {"scheme": "bearer", "bearerFormat": "JWT"}},
        "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://a/.well-known/openid-configuration"}},
        "mtls": {"mtlsSecurityScheme": {"description": "m"}},
    }
    for name, flow in flows.items():
        c["securitySchemes"]["oauth_" + name] = {"oauth2SecurityScheme": {
            "flows": {name: flow}, "oauth2MetadataUrl": "https://a/meta"}}
    c["securityRequirements"] = [{"schemes": {"key": {"list": []}, "oauth_implicit": {"list": ["read"]}}}]
    c["skills"][0].update({"examples": ["e"], "inputModes": ["text/plain"], "outputModes": ["text/plain"],
                           "securityRequirements": [{"schemes": {"bearer": {"list": []}}}]})
    c["signatures"] = [{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln", "header": {"kid": "1"}}]
    return c


def message_spots():
    """(path to a message object, its descriptor) for every message object in full_card()."""
    from a2a.types import a2a_pb2  # the generator reads the descriptor only to know field names

    out = []

    def walk(node, desc, path):
        out.append((path, desc))
        for key, val in node.items():
            f = next((f for f in desc.fields if key in (f.json_name, f.name)), None)
            if f is None or f.message_type is None or f.message_type.full_name.startswith("google."):
                continue
            if f.message_type.GetOptions().map_entry:
                vf = f.message_type.fields_by_name["value"]
                if vf.message_type is not None:
                    for k, v in val.items():
                        walk(v, vf.message_type, path + [key, k])
            elif f.is_repeated:
                for i, v in enumerate(val):
                    walk(v, f.message_type, path + [key, i])
            else:
                walk(val, f.message_type, path + [key])

    walk(full_card(), a2a_pb2.AgentCard.DESCRIPTOR, [])
    return out


def wrong_values(f):
    """JSON values of another type than the field takes."""
    from google.protobuf.descriptor import FieldDescriptor as F

    if f.is_repeated and not (f.message_type and f.message_type.GetOptions().map_entry):
        return [("obj", {}), ("str", "x"), ("num", 1), ("nullelem", [None]), ("numelem", [1])]
    if f.message_type is not None:
        return [("str", "x"), ("list", []), ("listname", [f.json_name]), ("num", 0), ("bool", True)]
    if f.cpp_type == F.CPPTYPE_BOOL:
        return [("str", "true"), ("num", 1), ("list", [True]), ("obj", {})]
    return [("num", 1), ("bool", False), ("list", ["x"]), ("obj", {})]


def gen_deep():
    out = []
    try:
        spots = message_spots()
    except ImportError:  # another interpreter: the class needs a2a-sdk's descriptor
        return out
    for path, desc in spots:
        where = ".".join(map(str, path)) or "(top)"
        for f in desc.fields:
            c0 = full_card()
            holder = c0
            for k in path:
                holder = holder[k]
            names = {f.json_name, f.name}
            present = next((n for n in holder if n in names), None)
            good = copy.deepcopy(holder[present]) if present else None
            # Wrong types under the JSON name.
            for vn, v in wrong_values(f):
                c = copy.deepcopy(c0)
                h = c
                for k in path:
                    h = h[k]
                h.pop(f.name, None)
                h[f.json_name] = v
                out.append({"label": f"deep {where}.{f.json_name}={vn}", "card": c})
            # Spellings: NUL-suffixed proto name, extension syntax, both spellings in both orders.
            spell = [("nul", f.name + "\u0000"), ("nulx", f.name + "\u0000x"), ("jsonnul", f.json_name + "\u0000"),
                     ("ext", "[" + f.name + "]"), ("extnl", "[x]\n")]
            if f.name != f.json_name:
                spell.append(("snake", f.name))
            for (sn, alias), order, val in itertools.product(spell, ["after", "before"], ["good", "null", "wrong"]):
                if good is None and val == "good":
                    continue
                c = copy.deepcopy(c0)
                h = c
                for k in path:
                    h = h[k]
                v = {"good": good, "null": None, "wrong": wrong_values(f)[0][1]}[val]
                items = list(h.items())
                h.clear()
                if order == "before":
                    h[alias] = copy.deepcopy(v)
                h.update(items)
                if order == "after":
                    h[alias] = copy.deepcopy(v)
                out.append({"label": f"deep {where}.{json.dumps(alias)} {sn} {order} {val}", "card": c})
    # Each OAuth flow message has its own fields: a field of another flow (`authorizationUrl` in
    # clientCredentials) is an unknown member there, whatever its value or NUL-suffixed spelling.
    flow_spots = [(path, desc) for path, desc in spots if desc.name.endswith("OAuthFlow")]
    every = {f.name: f for _, desc in flow_spots for f in desc.fields}
    for path, desc in flow_spots:
        where = ".".join(map(str, path))
        own = {f.name for f in desc.fields}
        for name, f in sorted(every.items()):
            if name in own:
                continue
            for alias, (vn, v) in [(f.json_name, wrong_values(f)[0]), (f.json_name, ("good", True if f.cpp_type == f.CPPTYPE_BOOL else "https://x")),
                                   (f.name + "\u0000", wrong_values(f)[0]), (f.name, wrong_values(f)[1])]:
                c = full_card()
                h = c
                for k in path:
                    h = h[k]
                h[alias] = v
                out.append({"label": f"deep foreign {where}.{json.dumps(alias)}={vn}", "card": c})
    # v0.3 security schemes as a2a-sdk maps them (type popped, `in` renamed) and JS's conversion reads them.
    v03 = {
        "apiKey": {"type": "apiKey", "in": "header", "name": "k"},
        "apiKey-location": {"type": "apiKey", "location": "header", "name": "k"},
        "apiKey-in+location": {"type": "apiKey", "in": "header", "location": "query", "name": "k"},
        "http": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
        "http-snake": {"type": "http", "scheme": "bearer", "bearer_format": "JWT"},
        "oauth2-one": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "https://a", "scopes": {}}}},
        "oauth2-device": {"type": "oauth2", "flows": {"deviceCode": {"deviceAuthorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {}}}},
        "oauth2-device+implicit": {"type": "oauth2", "flows": {"deviceCode": {"tokenUrl": "https://t", "scopes": {}},
                                                               "implicit": {"authorizationUrl": "https://a", "scopes": {}}}},
        "oauth2-empty-flows": {"type": "oauth2", "flows": {}},
        "oauth2-null-flow": {"type": "oauth2", "flows": {"implicit": None, "password": {"tokenUrl": "https://t", "scopes": {}}}},
        "oauth2-falsy-flow": {"type": "oauth2", "flows": {"implicit": 0, "password": {"tokenUrl": "https://t", "scopes": {}}}},
        "oauth2-scope-num": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "https://a", "scopes": {"r": 1}}}},
        "oauth2-scopes-list": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "https://a", "scopes": ["r"]}}},
        "oauth2-no-flows": {"type": "oauth2"},
        "oauth2-snake-flow": {"type": "oauth2", "flows": {"client_credentials": {"tokenUrl": "https://t", "scopes": {}}}},
        "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://a"},
        "mtls": {"type": "mutualTLS"},
        "mtls-extra": {"type": "mutualTLS", "httpAuthSecurityScheme": {"scheme": "x"}},
        "type-Upper": {"type": "ApiKey", "in": "header", "name": "k"},
        "type-space": {"type": "apiKey ", "in": "header", "name": "k"},
        "type-wrapper": {"type": "other", "apiKeySecurityScheme": {"name": "k"}},
        "type-two-wrappers": {"type": "other", "apiKeySecurityScheme": {}, "mtlsSecurityScheme": {}},
        "type-num": {"type": 1, "mtlsSecurityScheme": {}},
        "type-absent": {"mtlsSecurityScheme": {}},
        "type-null": {"type": None, "mtlsSecurityScheme": {}},
    }
    for (name, scheme), base, first in itertools.product(v03.items(), ["legacy", "v1"], ["first", "second"]):
        c = BASES[base]()
        ok = {"type": "mutualTLS"}
        c["securitySchemes"] = {"a": copy.deepcopy(scheme), "b": ok} if first == "first" else {"b": ok, "a": copy.deepcopy(scheme)}
        c["security"] = [{"a": []}]
        out.append({"label": f"deep scheme v03 {name} {base} {first}", "card": c})
    # Security requirement lists, card and skill level, both shapes and names.
    reqs = [("v03", "security", [{"a": ["s"]}]), ("v03-str", "security", [{"a": "s"}]), ("v03-nullscopes", "security", [{"a": None}]),
            ("v03-two", "security", [{"a": []}, {}]), ("proto-sec", "security", [{"schemes": {"a": {"list": []}}}]),
            ("v1", "securityRequirements", [{"schemes": {"a": {"list": ["s"]}}}]),
            ("v1-snake", "security_requirements", [{"schemes": {"a": {"list": ["s"]}}}]),
            ("v1-liststr", "securityRequirements", [{"schemes": {"a": {"list": "s"}}}]),
            ("v1-null", "securityRequirements", [{"schemes": {"a": None}}]),
            ("v1-empty", "securityRequirements", [{"schemes": {"a": {}}}]),
            ("v1-and-v03", "both", None)]
    for (rn, key, val), level, base in itertools.product(reqs, ["card", "skill0", "skill1"], ["legacy", "v1", "proto"]):
        c = BASES[base]()
        h = c if level == "card" else c["skills"][int(level[-1])]
        if key == "both":
            h["security"] = [{"a": ["s"]}]
            h["securityRequirements"] = [{"schemes": {"b": {"list": []}}}]
        else:
            h[key] = copy.deepcopy(val)
        c.setdefault("securitySchemes", {"a": {"type": "mutualTLS"}})
        out.append({"label": f"deep req {rn} {level} {base}", "card": c})
    return out

# ---------------------------------------------------------------------------------------------
# reserved: skill ids and extension uris spelled like the gate's other capability kinds, and
# legacy interface lists whose picks differ between the SDKs (same binding in other spellings)

RESERVED_IDS = ["capability:streaming", "capability:pushNotifications", "capability:extendedAgentCard",
                "binding:GRPC", "binding:JSONRPC", "protocol:1.0", "protocol:0.3", "extension:urn:indep:none",
                "Capability:streaming", "capability:Streaming", "capability:streaming ", "binding:", "protocol:",
                "extension:", "capability:", "skill:indep.a", ":indep.a", "urn:indep:ext"]


def valid_capability(cap):
    """Whether a requirement may name `cap` (a malformed one is a requirement error, exit 2)."""
    import re

    kind, _, rest = cap.partition(":")
    if kind == "capability":
        return rest in ("streaming", "pushNotifications", "extendedAgentCard")
    if kind == "protocol":
        return re.fullmatch(r"[0-9]+\.[0-9]+", rest) is not None
    if kind in ("binding", "extension"):
        return rest != ""
    return cap != ""


def gen_reserved():
    out = []
    for rid, base, where in itertools.product(RESERVED_IDS, ["v1", "legacy"], ["skill", "uri", "both"]):
        c = BASES[base]()
        caps = c["capabilities"]
        caps["streaming"] = False
        caps.pop("pushNotifications", None)
        caps.pop("extendedAgentCard", None)
        c.pop("supportsAuthenticatedExtendedCard", None)
        if base == "v1":
            c["supportedInterfaces"] = [c["supportedInterfaces"][0]]
        else:
            c.pop("additionalInterfaces")
        if where in ("skill", "both"):
            c["skills"].append({"id": rid, "name": "r", "description": "r", "tags": ["t"]})
        if where in ("uri", "both"):
            caps["extensions"].append({"uri": rid})
        probe = [rid] if valid_capability(rid) else []
        probe += ["extension:" + rid, "capability:streaming", "binding:GRPC", "protocol:0.3",
                 "extension:urn:indep:none", "capability:pushNotifications"]
        out.append({"label": f"reserved {base} {where} {json.dumps(rid)}", "card": c, "probe": probe})
    pvs = ["0.3", "0.3.0", "1.0", "1.0.0", "", None, "0.4", "2.0"]
    pts = ["JSONRPC", "jsonrpc", "GRPC", None, "J\u017fONRPC"]
    adds = [[], [{"url": URL2, "transport": "JSONRPC"}], [{"url": URL2, "transport": "jsonrpc"}],
            [{"url": URL2, "transport": "GRPC"}, {"url": URL2, "transport": "grpc"}],
            [{"url": URL2, "transport": "HTTP+JSON"}, {"url": URL2, "transport": "JSONRPC"}]]
    for pv, pt, ai in itertools.product(pvs, pts, adds):
        c = legacy_base()
        c["protocolVersion"] = pv
        c["preferredTransport"] = pt
        c["additionalInterfaces"] = copy.deepcopy(ai)
        if pv is None:
            del c["protocolVersion"]
        out.append({"label": f"reserved pick pv={json.dumps(pv)} pt={json.dumps(pt)} ai={len(ai)}:{','.join(str(a['transport']) for a in ai)}",
                    "card": c, "probe": ["binding:JSONRPC", "binding:jsonrpc", "binding:GRPC", "binding:grpc", "protocol:1.0", "protocol:0.3", "protocol:2.0", "protocol:0.4"]})
    return out

# ---------------------------------------------------------------------------------------------
# version: the card's `version`, which condition (a) compares, in every spelling a reader might
# take apart from the gate (the driver's VERSION check compares the gate's card_version)

VERSIONS = ["1.2.0", "1.2", "2", "0.0.1", "1.2.0-rc.1", "1.2.0+b.5", "1.2.0-rc.01", " 1.2.0", "1.2.0 ", "\u00a01.2.0",
            "１.2.0", "1.2.0\u0000", "\u0000", "", "v1.2.0", "1.2.0\u200b", "1." + "9" * 300, "1.2.0-" + "a" * 500,
            "\u0661.\u0662", "1.2.0\n", "\ufeff1.2.0", "latest", "1.2.0-\u0130", "1.2.0-a.b-c"]


def gen_version():
    out = []
    for v, base in itertools.product(VERSIONS, ["v1", "legacy", "proto"]):
        c = BASES[base]()
        c["version"] = v
        out.append({"label": f"version {base} {json.dumps(v)[:40]}", "card": c})
    esc = ['"\\u0031.2.0"', '"1\\u002e2.0"', '"\\u0031\\u002e\\u0032\\u002e\\u0030"', '"1.2.0\\u0000"', '"1.2.0\\ud800"',
           '"1.2.0\\/"', '"\\ud83d\\ude00"']
    for text, base in itertools.product(esc, ["v1", "legacy", "proto"]):
        out.append(raw_entry(f"version esc {base} {text}", put_text(BASES[base](), ["version"], text)))
    for base, order in itertools.product(["v1", "legacy", "proto"], ["before", "after"]):
        for alias, val in (("version\u0000", "9.9.9"), ("version\u0000", None), ("[version]", "9.9.9"),
                           ("Version", "9.9.9"), ("\u0076ersion ", "9.9.9")):
            c = BASES[base]()
            items = list(c.items())
            c.clear()
            if order == "before":
                c[alias] = val
            c.update(items)
            if order == "after":
                c[alias] = val
            out.append({"label": f"version alias {base} {json.dumps(alias)}={json.dumps(val)} {order}", "card": c})
        # a duplicate `version` in the bytes (both readers keep the last)
        t = dumps(BASES[base]())
        dup = t.replace('"version":"1.2.0"', '"version":"1.2.0","version":"0.0.1"' if order == "after"
                        else '"version":"0.0.1","version":"1.2.0"', 1)
        out.append(raw_entry(f"version dup {base} {order}", dup))
    for v, base in itertools.product([5, 1.2, True, None, ["1.2.0"], {"v": "1"}], ["v1", "legacy", "proto"]):
        c = BASES[base]()
        c["version"] = v
        out.append({"label": f"version type {base} {json.dumps(v)}", "card": c})
    return out


# ---------------------------------------------------------------------------------------------
# mix

def mutations():
    """Small card edits, each a function (card, rng) -> None."""
    def m_saec(c, r):
        c["supportsAuthenticatedExtendedCard"] = r.choice([True, False, None, 1, 0, "", "x", [], {}])

    def m_pv(c, r):
        c["protocolVersion"] = r.choice(PV_STRINGS + [None, 0.3])

    def m_url(c, r):
        c["url"] = r.choice([URL, "", " ", None, 0, URL2])

    def m_pt(c, r):
        c["preferredTransport"] = r.choice(["JSONRPC", "GRPC", "grpc", "HTTP+JSON", None, "", " GRPC"])

    def m_ai(c, r):
        c["additionalInterfaces"] = r.choice([None, [], [{"url": URL2, "transport": "GRPC"}],
                                              [{"url": URL2, "transport": "HTTP+JSON"}, {"url": URL2}],
                                              [{"url": URL2, "transport": "JSONRPC", "protocolVersion": "1.0"}]])

    def m_si(c, r):
        key = r.choice(["supportedInterfaces", "supported_interfaces"])
        c[key] = r.choice([None, [], [{"url": URL, "protocolBinding": r.choice(["JSONRPC", "GRPC", "HTTP+JSON", "jsonrpc"]),
                                       "protocolVersion": r.choice(["1.0", "0.3", "0.3.0", "1.0.0", "", None])}
                                      for _ in range(r.randint(1, 3))]])

    def m_iface_snake(c, r):
        for i in c.get("supportedInterfaces") or []:
            if isinstance(i, dict) and r.random() < 0.5:
                k = r.choice(["protocolBinding", "protocolVersion"])
                snake = {"protocolBinding": "protocol_binding", "protocolVersion": "protocol_version"}[k]
                i[snake] = r.choice(["GRPC", "1.0", "0.3", None, "HTTP+JSON"])
                if r.random() < 0.3:
                    i[k] = i.pop(k, None)

    def m_caps(c, r):
        caps = c.get("capabilities")
        if not isinstance(caps, dict):
            c["capabilities"] = caps = {}
        flag = r.choice(["streaming", "pushNotifications", "extendedAgentCard", "push_notifications", "extended_agent_card"])
        caps[flag] = r.choice([True, False, None, 1, "true"])

    def m_caps_shape(c, r):
        c["capabilities"] = r.choice([None, {}, "extendedAgentCard", [], ["x"], True])

    def m_proto(c, r):
        k = r.randrange(3)
        if k == 0:
            c["securitySchemes"] = {"b": {"httpAuthSecurityScheme": {"scheme": "bearer"}}}
        elif k == 1:
            c["security"] = [{"schemes": []}]
        else:
            sk = c.get("skills")
            if isinstance(sk, list) and sk and isinstance(sk[-1], dict):
                sk[-1]["security"] = [{"schemes": []}]

    def m_skill(c, r):
        sk = c.get("skills")
        if not isinstance(sk, list):
            return
        op = r.randrange(5)
        if op == 0:
            sk.append({"id": r.choice(["indep.a", "indep.c", "", None, 5]), "name": "n", "description": "d", "tags": ["t"]})
        elif op == 1 and sk and isinstance(sk[0], dict):
            sk[0].pop("tags", None)
        elif op == 2 and sk and isinstance(sk[0], dict):
            sk[0]["examples"] = r.choice(["ab", {}, 5, [], None])
        elif op == 3:
            c["skills"] = r.choice([None, [], {}, "x", [None]])
        else:
            r.shuffle(sk)

    def m_modes(c, r):
        k = r.choice(["defaultInputModes", "defaultOutputModes", "default_input_modes"])
        c[k] = r.choice([None, [], "text", ["text/plain"], {}])
        if r.random() < 0.3:
            c.pop("defaultInputModes", None)

    def m_ext(c, r):
        caps = c.get("capabilities")
        if isinstance(caps, dict):
            caps["extensions"] = r.choice([None, [], [{"uri": "urn:indep:x", "required": r.choice([True, False, None, 1])}],
                                           [None], {}, "u", [{"uri": "urn:indep:x", "params": nest(r.randint(40, 50), 1)}]])

    def m_nul(c, r):
        k = r.choice(["skills\u0000", "capabilities\u0000", "version\u0000", "supported_interfaces\u0000"])
        c[k] = r.choice([None, [], {}, "9.9.9", [{"id": "indep.nul", "tags": []}]])

    def m_version(c, r):
        c["version"] = r.choice(["1.2.0", "1.2", "2", "1.2.0-rc.1", " 1.2.0", "１.2.0", 1.2, None, "", "1.2.0+b"])

    def m_drop(c, r):
        k = r.choice(list(c))
        c.pop(k)

    def m_security(c, r):
        c["security"] = r.choice([None, [], {}, "", [{"a": []}], [{"a": None}], [{"a": "s"}], [None], 5])

    def m_schemes(c, r):
        c["securitySchemes"] = r.choice([None, {}, [], "", {"a": {"type": "apiKey", "in": "header", "name": "k"}},
                                         {"a": {"type": "oauth2", "flows": {}}}, {"a": {"type": "x"}},
                                         {"a": {"type": None}}, {"a": None}])

    return [m_saec, m_pv, m_url, m_pt, m_ai, m_si, m_iface_snake, m_caps, m_caps_shape, m_proto, m_skill,
            m_modes, m_ext, m_nul, m_version, m_drop, m_security, m_schemes]


def shuffled(v, r):
    if isinstance(v, dict):
        items = list(v.items())
        r.shuffle(items)
        return {k: shuffled(x, r) for k, x in items}
    if isinstance(v, list):
        return [shuffled(x, r) for x in v]
    return v


def gen_mix(rng, n):
    ms = mutations()
    out = []
    for k in range(n):
        base = rng.choice(list(BASES))
        c = BASES[base]()
        picked = rng.sample(ms, rng.randint(1, 5))
        for m in picked:
            m(c, rng)
        if rng.random() < 0.5:
            c = shuffled(c, rng)
        names = "+".join(m.__name__[2:] for m in picked)
        out.append({"label": f"mix {base} {names} #{k}", "card": c})
    return out


# ---------------------------------------------------------------------------------------------

CLASSES = ["truthy", "legver", "proto", "ext", "iface", "coerce", "names", "bulk", "deep", "reserved", "version", "mix"]


def generate(count=None, seed=7, mixed=None, classes=None):
    """Every class's systematic grid (the `iface` grid a seeded sample of 1500) plus `mixed` random
    cards; `classes`: only those (label prefixes); with `count`, a seeded sample of that many."""
    rng = random.Random(seed)
    mixed = MIXED_CARDS if mixed is None else mixed
    makers = {"truthy": gen_truthy, "legver": gen_legver, "proto": gen_proto, "ext": gen_ext,
              "iface": lambda: gen_iface(rng, 1500), "coerce": gen_coerce, "names": gen_names,
              "bulk": gen_bulk, "deep": gen_deep, "reserved": gen_reserved, "version": gen_version, "mix": lambda: gen_mix(rng, mixed)}
    entries = []
    for name in CLASSES:
        if classes is None or name in classes:
            entries += makers[name]()
    if count is not None and count < len(entries):
        entries = random.Random(seed).sample(entries, count)
    return [dict(e, id=k) for k, e in enumerate(entries)]


if __name__ == "__main__":
    import collections
    import sys

    es = generate(seed=int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    print(len(es), dict(collections.Counter(e["label"].split()[0] for e in es)))
