"""Deterministic generator of Agent Cards for the SDK differential test (tests/sdk_parity).

`generate(count, seed)` returns a list of `{"id", "label", "card"}`: fixed grids over the
members whose reading differs between cardgate and the A2A SDKs, then seeded random
combinations until `count` cards. Every card is a JSON object with no duplicate member names
(Python dicts cannot hold duplicates), so its bytes are valid strict I-JSON.

Grids (each label says which one and which values):
  ext    supportsAuthenticatedExtendedCard x capabilities.extendedAgentCard x extended_agent_card
  legacy url x preferredTransport x protocolVersion (no supportedInterfaces)
  hybrid supportedInterfaces (null, [], v1.0, snake_case only) x url x preferredTransport x protocolVersion
  addl   additionalInterfaces shapes x url x protocolVersion
  iface  protocolBinding / protocolVersion spellings inside one interface
  list   supportedInterfaces / supported_interfaces spellings of the list
  caps   capabilities absent / null / {} x family x supportsAuthenticatedExtendedCard
  flag   pushNotifications / push_notifications, streaming values, in both orders
  sec    v0.3 vs proto-shaped security (the @a2a-js/sdk AgentCard.fromJSON path) x family x snake_case
  null   null (and absence) for every member the gate reads, per family
  modes  default_input_modes / skill tags (the JS v0.3 conversion requires them)
  proto  spelling conflicts on a card with proto-shaped security (JS AgentCard.fromJSON path)
  case   binding letter case (`jsonrpc`, `Http+Json`, `grpc`)
  types  a member the gate reads with the wrong JSON type
  issue  the examples of issue 7
  rand   seeded random combinations of all of the above
"""

import copy
import itertools
import json
import random

class _Absent:
    """A member left out (survives deepcopy as itself)."""

    def __deepcopy__(self, memo):
        return self


ABSENT = _Absent()

URL = "https://agent.example/a2a"
EXT = "https://example.com/ext/trace/v1"
BINDINGS = ["JSONRPC", "GRPC", "HTTP+JSON", "jsonrpc"]
VERSIONS = ["1.0", "0.3", "0.3.0", "", None]
FAMILIES = ["v1", "legacy", "hybrid"]


def skill(sid, tags=True):
    s = {"id": sid, "name": sid, "description": "does " + sid}
    if tags:
        s["tags"] = ["work"]
    return s


def iface(binding="JSONRPC", version="1.0", url=URL):
    out = {"url": url}
    put(out, "protocolBinding", binding)
    put(out, "protocolVersion", version)
    return out


def put(obj, key, value):
    """Sets obj[key] unless value is ABSENT (then removes it); keeps insertion order."""
    obj.pop(key, None)
    if value is not ABSENT:
        obj[key] = value


def base(family):
    """A well-formed card of the family: v1 (supportedInterfaces), legacy (v0.3 url...), hybrid."""
    card = {"name": "Worker", "description": "test agent", "version": "3.0.0"}
    if family in ("v1", "hybrid"):
        card["supportedInterfaces"] = [iface("JSONRPC", "1.0")]
    if family in ("legacy", "hybrid"):
        card["url"] = URL
        card["preferredTransport"] = "JSONRPC"
        card["protocolVersion"] = "0.3.0"
    card["capabilities"] = {"streaming": True, "extensions": [{"uri": EXT}]}
    card["defaultInputModes"] = ["text/plain"]
    card["defaultOutputModes"] = ["text/plain"]
    card["skills"] = [skill("task.execute.v3")]
    return card


def show(v):
    if v is ABSENT:
        return "-"
    if v is None:
        return "null"
    if isinstance(v, str):
        return repr(v)
    return str(v).lower() if isinstance(v, bool) else str(v)


def grid_ext():
    out = []
    vals = [ABSENT, True, False, None]
    for fam, saec, eac, snake in itertools.product(["v1", "legacy"], vals, vals, [ABSENT, True]):
        c = base(fam)
        put(c["capabilities"], "extendedAgentCard", eac)
        put(c["capabilities"], "extended_agent_card", snake)
        put(c, "supportsAuthenticatedExtendedCard", saec)
        out.append((f"ext {fam} sAEC={show(saec)} caps.extendedAgentCard={show(eac)} extended_agent_card={show(snake)}", c))
    return out


def grid_legacy():
    out = []
    urls = [URL, "", None, ABSENT]
    transports = [ABSENT, "GRPC", None]
    versions = [ABSENT, None, "", "0.3", "0.3.0", "1.0"]
    for url, pt, pv in itertools.product(urls, transports, versions):
        c = base("legacy")
        put(c, "url", url)
        put(c, "preferredTransport", pt)
        put(c, "protocolVersion", pv)
        out.append((f"legacy url={show(url)} preferredTransport={show(pt)} protocolVersion={show(pv)}", c))
    return out


def grid_hybrid():
    out = []
    lists = {
        "supportedInterfaces=null": ("supportedInterfaces", None),
        "supportedInterfaces=[]": ("supportedInterfaces", []),
        "supportedInterfaces=[JSONRPC 1.0]": ("supportedInterfaces", [iface("JSONRPC", "1.0")]),
        "supported_interfaces=[HTTP+JSON 0.3]": ("supported_interfaces", [
            {"url": URL, "protocol_binding": "HTTP+JSON", "protocol_version": "0.3"}]),
    }
    for (lname, (key, val)), url, pt, pv in itertools.product(
            lists.items(), [URL, ABSENT], [ABSENT, "GRPC"], [ABSENT, "1.0", "0.3"]):
        c = base("legacy")
        put(c, "url", url)
        put(c, "preferredTransport", pt)
        put(c, "protocolVersion", pv)
        c[key] = copy.deepcopy(val)
        out.append((f"hybrid {lname} url={show(url)} preferredTransport={show(pt)} protocolVersion={show(pv)}", c))
    return out


def grid_additional():
    out = []
    shapes = {
        "-": ABSENT,
        "null": None,
        "[]": [],
        "[GRPC]": [{"url": URL + "/grpc", "transport": "GRPC"}],
        "[no transport]": [{"url": URL + "/x"}],
        "[transport null]": [{"url": URL + "/x", "transport": None}],
        "[HTTP+JSON,GRPC]": [{"url": URL + "/rest", "transport": "HTTP+JSON"},
                             {"url": URL + "/grpc", "transport": "GRPC"}],
    }
    for (sname, shape), url, pv in itertools.product(shapes.items(), [URL, ABSENT, ""], [ABSENT, "1.0"]):
        c = base("legacy")
        put(c, "url", url)
        put(c, "protocolVersion", pv)
        put(c, "additionalInterfaces", copy.deepcopy(shape))
        out.append((f"addl additionalInterfaces={sname} url={show(url)} protocolVersion={show(pv)}", c))
    return out


def grid_iface():
    """Spellings of the two members of one interface."""
    out = []
    bindings = [
        ("camel=JSONRPC", [("protocolBinding", "JSONRPC")]),
        ("snake=GRPC", [("protocol_binding", "GRPC")]),
        ("camel=JSONRPC,snake=GRPC", [("protocolBinding", "JSONRPC"), ("protocol_binding", "GRPC")]),
        ("snake=GRPC,camel=JSONRPC", [("protocol_binding", "GRPC"), ("protocolBinding", "JSONRPC")]),
        ("camel=JSONRPC,snake=null", [("protocolBinding", "JSONRPC"), ("protocol_binding", None)]),
        ("camel=null,snake=GRPC", [("protocolBinding", None), ("protocol_binding", "GRPC")]),
        ("snake=null,camel=JSONRPC", [("protocol_binding", None), ("protocolBinding", "JSONRPC")]),
        ("camel=null", [("protocolBinding", None)]),
        ("camel=jsonrpc", [("protocolBinding", "jsonrpc")]),
    ]
    versions = [
        ("camel=1.0", [("protocolVersion", "1.0")]),
        ("snake=0.3", [("protocol_version", "0.3")]),
        ("camel=1.0,snake=0.3", [("protocolVersion", "1.0"), ("protocol_version", "0.3")]),
        ("snake=0.3,camel=1.0", [("protocol_version", "0.3"), ("protocolVersion", "1.0")]),
        ("camel=1.0,snake=null", [("protocolVersion", "1.0"), ("protocol_version", None)]),
        ("absent", []),
        ("camel=''", [("protocolVersion", "")]),
    ]
    for (bn, bm), (vn, vm) in itertools.product(bindings, versions):
        for fam in (["v1", "hybrid"] if bn in ("camel=JSONRPC,snake=GRPC", "snake=GRPC") else ["v1"]):
            c = base(fam)
            item = {"url": URL}
            for k, v in bm + vm:
                item[k] = v
            c["supportedInterfaces"] = [item]
            out.append((f"iface {fam} binding[{bn}] version[{vn}]", c))
    return out


def grid_list():
    out = []
    a = [iface("JSONRPC", "1.0")]
    b = [{"url": URL, "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"}]
    variants = [
        ("camel", [("supportedInterfaces", a)]),
        ("snake", [("supported_interfaces", b)]),
        ("camel,snake", [("supportedInterfaces", a), ("supported_interfaces", b)]),
        ("snake,camel", [("supported_interfaces", b), ("supportedInterfaces", a)]),
        ("camel,snake=null", [("supportedInterfaces", a), ("supported_interfaces", None)]),
        ("camel=null,snake", [("supportedInterfaces", None), ("supported_interfaces", b)]),
        ("snake,camel=null", [("supported_interfaces", b), ("supportedInterfaces", None)]),
        ("camel=[],snake", [("supportedInterfaces", []), ("supported_interfaces", b)]),
        ("snake,camel=[]", [("supported_interfaces", b), ("supportedInterfaces", [])]),
    ]
    for (vn, members), fam in itertools.product(variants, ["v1", "hybrid"]):
        c = base(fam)
        c.pop("supportedInterfaces", None)
        for k, v in members:
            c[k] = copy.deepcopy(v)
        out.append((f"list {fam} {vn}", c))
    return out


def grid_caps():
    out = []
    for caps, fam, saec in itertools.product(
            [ABSENT, None, {}, {"streaming": True}], FAMILIES, [ABSENT, True]):
        c = base(fam)
        put(c, "capabilities", copy.deepcopy(caps))
        put(c, "supportsAuthenticatedExtendedCard", saec)
        out.append((f"caps {fam} capabilities={show(caps)} sAEC={show(saec)}", c))
    return out


def grid_flags():
    out = []
    vals = [ABSENT, True, False, None]
    for fam, camel, snake in itertools.product(["v1", "legacy"], vals, vals):
        orders = ["camel,snake", "snake,camel"] if camel is not ABSENT and snake is not ABSENT else ["-"]
        for order in orders:
            c = base(fam)
            caps = {"extensions": [{"uri": EXT}]}
            pairs = [("pushNotifications", camel), ("push_notifications", snake)]
            if order == "snake,camel":
                pairs.reverse()
            for k, v in pairs:
                put(caps, k, v)
            c["capabilities"] = caps
            out.append((f"flag {fam} pushNotifications={show(camel)} push_notifications={show(snake)} order={order}", c))
    for fam, v in itertools.product(FAMILIES, [True, False, None]):
        c = base(fam)
        c["capabilities"]["streaming"] = v
        out.append((f"flag {fam} streaming={show(v)}", c))
    return out


V03_SECURITY = {
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
    "security": [{"bearer": []}],
}
PROTO_SECURITY = {  # security[0].schemes: the JS SDK's AgentCard.fromJSON path; Python refuses it
    "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}},
    "security": [{"schemes": {"bearer": {"list": []}}}],
}
PROTO_SCHEMES = {  # first scheme without "type": JS proto path; Python reads it as v1.0
    "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}},
    "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
}
SECURITY = {"none": {}, "v03": V03_SECURITY, "proto-security": PROTO_SECURITY,
            "proto-schemes": PROTO_SCHEMES, "proto-skill": "skill"}


def apply_security(c, name):
    shape = SECURITY[name]
    if shape == "skill":
        c["skills"][0]["security"] = [{"schemes": {"bearer": {"list": []}}}]
        c["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    else:
        for k, v in shape.items():
            c[k] = copy.deepcopy(v)


def snake_everything(c):
    """Moves the members the gate reads to their snake_case spelling (no camelCase left)."""
    if "supportedInterfaces" in c:
        items = c.pop("supportedInterfaces")
        c["supported_interfaces"] = [
            {("protocol_binding" if k == "protocolBinding" else "protocol_version" if k == "protocolVersion" else k): v
             for k, v in i.items()} for i in items]
    else:
        c["supported_interfaces"] = [{"url": URL, "protocol_binding": "GRPC", "protocol_version": "1.0"}]
    caps = c.get("capabilities")
    if isinstance(caps, dict):
        caps["push_notifications"] = True
        caps["extended_agent_card"] = True
    for k in ("defaultInputModes", "defaultOutputModes"):
        if k in c:
            snake = "default_input_modes" if k == "defaultInputModes" else "default_output_modes"
            c[snake] = c.pop(k)


def grid_security():
    out = []
    for sec, fam, snake in itertools.product(SECURITY, FAMILIES, [False, True]):
        c = base(fam)
        apply_security(c, sec)
        if snake:
            snake_everything(c)
        out.append((f"sec {fam} security={sec} snake_case={'yes' if snake else 'no'}", c))
    return out


NULLABLE = [
    ("name",), ("version",), ("capabilities",), ("skills",), ("skills", 0, "id"), ("skills", 0, "tags"),
    ("capabilities", "extensions"), ("capabilities", "extensions", 0, "uri"),
    ("capabilities", "streaming"), ("capabilities", "pushNotifications"),
    ("capabilities", "extendedAgentCard"), ("supportedInterfaces",),
    ("supportedInterfaces", 0, "protocolBinding"), ("supportedInterfaces", 0, "protocolVersion"),
    ("url",), ("preferredTransport",), ("protocolVersion",), ("additionalInterfaces",),
    ("additionalInterfaces", 0, "transport"), ("supportsAuthenticatedExtendedCard",),
    ("defaultInputModes",),
]


def grid_nulls():
    out = []
    for path, fam, how in itertools.product(NULLABLE, FAMILIES, ["null", "absent"]):
        c = base(fam)
        c["capabilities"]["pushNotifications"] = True
        c["capabilities"]["extendedAgentCard"] = True
        if fam != "v1":
            c["additionalInterfaces"] = [{"url": URL + "/grpc", "transport": "GRPC"}]
            c["supportsAuthenticatedExtendedCard"] = True
        node = c
        for step in path[:-1]:
            if isinstance(node, dict) and step not in node:
                node = None
                break
            node = node[step]
        if node is None or (isinstance(node, dict) and path[-1] not in node):
            continue  # the member does not exist on this family
        if how == "null":
            node[path[-1]] = None
        else:
            del node[path[-1]]
        out.append((f"null {fam} {'.'.join(str(p) for p in path)}={how}", c))
    return out


def grid_modes():
    out = []
    for fam, modes, tags in itertools.product(["v1", "legacy"], ["camel", "snake", "both", "none"], [True, False]):
        c = base(fam)
        if modes in ("snake", "both"):
            c["default_input_modes"] = ["text/plain"]
            c["default_output_modes"] = ["text/plain"]
        if modes in ("snake", "none"):
            del c["defaultInputModes"], c["defaultOutputModes"]
        if not tags:
            del c["skills"][0]["tags"]
        out.append((f"modes {fam} default modes={modes} skill tags={'yes' if tags else 'no'}", c))
    return out


def grid_issue():
    out = []
    c = base("v1")
    c["supportedInterfaces"] = [{"url": URL, "protocolBinding": "JSONRPC", "protocolVersion": "1.0",
                                 "protocol_binding": "GRPC", "protocol_version": "0.3"}]
    out.append(("issue interface with both spellings", c))
    c = base("v1")
    c["supported_interfaces"] = [{"url": URL, "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"}]
    out.append(("issue supportedInterfaces then supported_interfaces", c))
    c = base("legacy")
    del c["url"]
    c["supported_interfaces"] = [{"url": URL, "protocol_binding": "HTTP+JSON", "protocol_version": "0.3"}]
    c["preferredTransport"] = "GRPC"
    c["protocolVersion"] = "1.0"
    out.append(("issue supported_interfaces alone plus legacy GRPC 1.0", c))
    c = base("legacy")
    c["url"] = URL
    c["supported_interfaces"] = [{"url": URL, "protocol_binding": "HTTP+JSON", "protocol_version": "0.3"}]
    c["preferredTransport"] = "GRPC"
    c["protocolVersion"] = "1.0"
    out.append(("issue supported_interfaces plus legacy url GRPC 1.0", c))
    c = base("legacy")
    c["supportedInterfaces"] = None
    c["preferredTransport"] = "GRPC"
    out.append(("issue supportedInterfaces null with legacy url/preferredTransport", c))
    for u in (ABSENT, "", None):
        c = base("legacy")
        put(c, "url", u)
        c["preferredTransport"] = "GRPC"
        out.append((f"issue preferredTransport with url={show(u)}", c))
    c = base("legacy")
    del c["url"]
    c["additionalInterfaces"] = [{"url": URL, "transport": "GRPC"}]
    out.append(("issue additionalInterfaces without url", c))
    for v in (False, None):
        c = base("v1")
        c["capabilities"]["extendedAgentCard"] = v
        c["supportsAuthenticatedExtendedCard"] = True
        out.append((f"issue capabilities.extendedAgentCard={show(v)} with sAEC true", c))
    c = base("v1")
    c["capabilities"] = {"pushNotifications": True, "push_notifications": False}
    out.append(("issue pushNotifications true, push_notifications false", c))
    c = base("legacy")
    c["capabilities"] = {"extendedAgentCard": True}
    c["protocolVersion"] = "0.3"
    out.append(("issue legacy 0.3 card with capabilities.extendedAgentCard", c))
    return out


def grid_proto():
    """Spelling conflicts on the JS AgentCard.fromJSON path (camelCase first) vs Python (last wins)."""
    out = []
    grpc = {"url": URL, "protocol_binding": "GRPC", "protocol_version": "0.3"}
    variants = [
        ("iface camel,snake", lambda c: c["supportedInterfaces"][0].update(protocol_binding="GRPC", protocol_version="0.3")),
        ("iface snake,camel", lambda c: c.update(supportedInterfaces=[{"url": URL, "protocol_binding": "GRPC",
                                                                       "protocolBinding": "JSONRPC"}])),
        ("iface camel=null,snake", lambda c: c.update(supportedInterfaces=[{"url": URL, "protocolBinding": None,
                                                                            "protocol_binding": "GRPC"}])),
        ("list camel,snake", lambda c: c.update(supported_interfaces=[dict(grpc)])),
        ("list camel=[],snake", lambda c: c.update(supportedInterfaces=[], supported_interfaces=[dict(grpc)])),
        ("list camel=null,snake", lambda c: c.update(supportedInterfaces=None, supported_interfaces=[dict(grpc)])),
        ("list snake only", lambda c: (c.pop("supportedInterfaces"), c.update(supported_interfaces=[dict(grpc)]))),
        ("flag camel=null,snake=true", lambda c: c["capabilities"].update(pushNotifications=None, push_notifications=True)),
        ("flag snake=true,camel=false", lambda c: c["capabilities"].update(push_notifications=True, pushNotifications=False)),
        ("flag snake only", lambda c: c["capabilities"].update(extended_agent_card=True)),
        ("sAEC=true", lambda c: c.update(supportsAuthenticatedExtendedCard=True)),
        ("legacy url+preferredTransport", lambda c: c.update(url=URL, preferredTransport="GRPC")),
    ]
    for (name, change), sec in itertools.product(variants, ["proto-schemes", "proto-security"]):
        c = base("v1")
        apply_security(c, sec)
        change(c)
        out.append((f"proto {sec} {name}", c))
    return out


def grid_case():
    """Binding letter case: ClientFactory matches case-insensitively, the vocabulary does not."""
    out = []
    c = base("v1")
    c["supportedInterfaces"][0]["protocolBinding"] = "jsonrpc"
    out.append(("case v1 protocolBinding='jsonrpc'", c))
    c = base("v1")
    c["supportedInterfaces"][0]["protocolBinding"] = "Http+Json"
    out.append(("case v1 protocolBinding='Http+Json'", c))
    c = base("legacy")
    c["preferredTransport"] = "jsonrpc"
    out.append(("case legacy preferredTransport='jsonrpc'", c))
    c = base("legacy")
    c["additionalInterfaces"] = [{"url": URL + "/grpc", "transport": "grpc"}]
    out.append(("case legacy additionalInterfaces transport='grpc'", c))
    return out


WRONG_TYPES = [
    (("version",), 3), (("capabilities",), []), (("capabilities", "streaming"), "true"),
    (("capabilities", "pushNotifications"), 1), (("capabilities", "extensions", 0, "uri"), 5),
    (("skills", 0, "id"), 5), (("skills",), {}), (("supportedInterfaces",), {}),
    (("supportedInterfaces", 0, "protocolBinding"), 1), (("supportedInterfaces", 0, "protocolVersion"), 1.0),
    (("url",), 5), (("protocolVersion",), 0.3), (("preferredTransport",), ["GRPC"]),
    (("supportsAuthenticatedExtendedCard",), "true"), (("additionalInterfaces",), {}),
]


def grid_types():
    """A member the gate reads with the wrong JSON type (the gate refuses; the SDKs differ)."""
    out = []
    for path, value in WRONG_TYPES:
        for fam in FAMILIES:
            c = base(fam)
            c["supportsAuthenticatedExtendedCard"] = True
            if fam != "v1":
                c["additionalInterfaces"] = [{"url": URL + "/grpc", "transport": "GRPC"}]
            node = c
            for step in path[:-1]:
                node = node.get(step) if isinstance(node, dict) else node[step] if node else None
            if node is None or (path[-1] not in node and path[-1] != "pushNotifications"):
                continue  # the member does not exist on this family
            node[path[-1]] = value
            out.append((f"types {fam} {'.'.join(str(p) for p in path)}={json_text(value)}", c))
    return out


def json_text(v):
    return json.dumps(v)


def random_card(rng):
    """A card drawn from every facet at once."""
    fam = rng.choice(FAMILIES)
    c = base(fam)
    label = [f"rand {fam}"]

    def pick(name, options, weights=None):
        v = rng.choices(options, weights)[0]
        label.append(f"{name}={show(v)}")
        return v

    # interfaces
    if rng.random() < 0.5:
        items = []
        for _ in range(rng.choice([0, 1, 1, 2])):
            item = {"url": URL}
            for camel, snake, values in (("protocolBinding", "protocol_binding", BINDINGS + [None]),
                                         ("protocolVersion", "protocol_version", VERSIONS)):
                keys = rng.choice([[camel], [snake], [camel, snake], [snake, camel], []])
                for k in keys:
                    item[k] = rng.choice(values)
            items.append(item)
        key = rng.choice(["supportedInterfaces", "supported_interfaces"])
        c.pop("supportedInterfaces", None)
        c[key] = rng.choice([items, items, None])
        label.append(f"{key}={show(c[key])}")
        if rng.random() < 0.2:
            other = "supported_interfaces" if key == "supportedInterfaces" else "supportedInterfaces"
            c[other] = [iface(rng.choice(BINDINGS), rng.choice(VERSIONS[:3]))]
            label.append(f"{other}={show(c[other])}")
    if rng.random() < 0.5:
        put(c, "url", pick("url", [URL, "", None, ABSENT]))
        put(c, "preferredTransport", pick("preferredTransport", [ABSENT, None] + BINDINGS))
        put(c, "protocolVersion", pick("protocolVersion", [ABSENT] + VERSIONS + ["1.0"]))
    if rng.random() < 0.3:
        put(c, "additionalInterfaces", pick("additionalInterfaces", [
            ABSENT, None, [], [{"url": URL, "transport": rng.choice(BINDINGS)}], [{"url": URL}]]))
    # capabilities
    r = rng.random()
    if r < 0.1:
        put(c, "capabilities", pick("capabilities", [ABSENT, None, {}]))
    else:
        caps = {}
        for camel, snake in (("streaming", None), ("pushNotifications", "push_notifications"),
                             ("extendedAgentCard", "extended_agent_card")):
            keys = rng.choice([[camel], [camel], [], [snake], [camel, snake], [snake, camel]])
            for k in keys:
                if k is not None:
                    caps[k] = rng.choice([True, True, False, None])
        if rng.random() < 0.7:
            caps["extensions"] = [{"uri": EXT}]
        c["capabilities"] = caps
        label.append(f"capabilities={show(caps)}")
    if rng.random() < 0.4:
        put(c, "supportsAuthenticatedExtendedCard", pick("sAEC", [True, False, None]))
    sec = rng.choice(list(SECURITY))
    apply_security(c, sec)
    label.append(f"security={sec}")
    if rng.random() < 0.2:
        c["default_input_modes"] = c.pop("defaultInputModes")
        label.append("default_input_modes")
    if rng.random() < 0.2:
        c["skills"].append(skill("report.v1", tags=rng.random() < 0.7))
        label.append("skill report.v1")
    return " ".join(label), c


GRIDS = [grid_issue, grid_ext, grid_legacy, grid_hybrid, grid_additional, grid_iface, grid_list,
         grid_caps, grid_flags, grid_security, grid_nulls, grid_modes, grid_proto, grid_case, grid_types]


def generate(count=700, seed=7):
    """The fixed grids, then seeded random cards up to `count` (a seeded sample if fewer)."""
    rng = random.Random(seed)
    fixed = [lc for g in GRIDS for lc in g()]
    if count < len(fixed):
        fixed = rng.sample(fixed, count)
    cards = list(fixed)
    while len(cards) < count:
        cards.append(random_card(rng))
    return [{"id": i, "label": label, "card": card} for i, (label, card) in enumerate(cards)]


if __name__ == "__main__":
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 700
    for entry in generate(n):
        print(json.dumps(entry, separators=(",", ":")))
