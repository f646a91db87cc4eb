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
  keys   near-miss member names (letter case, separators, NUL, zero-width, fullwidth) and
         protobuf extension-style names `[x]` in every object the SDKs read as a message
  esc    the same cards as bytes with escaped member names and values (`stre\u0061ming`)
  nul    U+0000 and other control or invisible characters in every string the gate reads
  long   very long strings (ids, uris, bindings, versions with hundreds of digits)
  scalar numbers (1, 1.0, -0, 0) where strings are read, strings ("false", "", "0") and
         numbers where booleans are read, per member
  empty  {} and [] in every member the gate or an SDK reads
  elems  null / number / string / array / duplicate elements in every list
  pver   protocolVersion forms (" 1.0", "v1.0", "1.0-rc", "0.3x", "00.3", ...) per place
  skill  skill id edge cases (empty, blank, case, duplicates, reserved prefixes, NFC/NFD)
  ext    (see above); exturi: extension uri edge cases
  box    capability flags and legacy members inside the wrong container
  pdtypes JSON types of every other field of every message protobuf parses (a2a-sdk refuses)
  schemes the inside of securitySchemes / security_schemes values (v0.3 types, v1.0 wrappers)
  secshape `security` (card, skill, with and without securityRequirements) and securitySchemes shapes
  top    top-level values that are not a card object
  depth  nesting inside the protobuf Struct fields (extension params, signature header) around
         ParseDict's limit of 100 messages, and deep unknown members up to the gate's 64 levels
  bind   protocolBinding / preferredTransport / transport spellings: case, spaces, look-alikes
  rand   seeded random combinations of all of the above

An entry may also carry `text` (the exact card bytes to serve, when they differ from the
compact serialization: escapes) and `probe` (extra capabilities the driver requires).
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


# ---------------------------------------------------------------------------------------------
# Adversarial classes (P2): near-miss names, escapes, odd characters, sizes, scalar types,
# empty containers, odd list elements, protocol version forms, skill ids, extension uris,
# members in the wrong container, non-object documents.

EXT2 = "https://example.com/ext/other/v1"


def proto_card():
    """A v1 card the JS SDK reads through AgentCard.fromJSON (snake_case read there)."""
    c = base("v1")
    apply_security(c, "proto-schemes")
    return c


def template(fam):
    return proto_card() if fam == "proto" else base(fam)


def at(card, path):
    """The container holding path[-1] (None when a step is missing)."""
    node = card
    for step in path[:-1]:
        if isinstance(node, dict) and isinstance(step, str) and step in node:
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
        else:
            return None
    return node


def dotted(path):
    return ".".join(str(p) for p in path)


FLAG_NEAR_MISS = {
    "streaming": ["Streaming", "STREAMING", "streaming\u0000", "streaming ", "\uff53treaming",
                  "stream\u0131ng", "streaming\u200b"],
    "pushNotifications": ["pushnotifications", "PushNotifications", "push-notifications",
                          "push_Notifications", "pushNotifications\u0000", "pushNotification",
                          "PUSH_NOTIFICATIONS"],
    "extendedAgentCard": ["extendedagentcard", "ExtendedAgentCard", "extended-agent-card",
                          "extendedAgentCard\u0000", "EXTENDED_AGENT_CARD"],
}
LIST_NEAR_MISS = ["supportedinterfaces", "SupportedInterfaces", "supported-interfaces",
                  "supportedInterfaces\u0000", "SUPPORTED_INTERFACES", "supportedInterface"]
MEMBER_NEAR_MISS = [("protocolBinding", "GRPC", ["ProtocolBinding", "protocolbinding", "protocol-binding",
                                                  "protocolBinding\u0000", "PROTOCOL_BINDING"]),
                    ("protocolVersion", "0.3", ["ProtocolVersion", "protocol-version", "protocolVersion\u0000",
                                                 "PROTOCOL_VERSION"])]
LEGACY_NEAR_MISS = [("url", ["URL", "Url", "url\u0000"]),
                    ("preferredTransport", ["preferredtransport", "PreferredTransport"]),
                    ("protocolVersion", ["protocolversion", "ProtocolVersion"]),
                    ("supportsAuthenticatedExtendedCard", ["supportsAuthenticatedExtendedcard",
                                                           "SupportsAuthenticatedExtendedCard"]),
                    ("additionalInterfaces", ["additionalinterfaces", "AdditionalInterfaces"])]
NUL_ALIASES = [
    ("v1", ("skills\u0000",), [skill("other.skill")]), ("v1", ("skills\u0000x",), None),
    ("v1", ("capabilities\u0000",), None), ("v1", ("capabilities\u0000",), {}),
    ("v1", ("capabilities", "streaming\u0000"), None), ("v1", ("capabilities", "streaming\u0000"), True),
    ("v1", ("capabilities", "extensions\u0000"), None), ("v1", ("capabilities", "push_notifications\u0000"), True),
    ("v1", ("capabilities", "extended_agent_card\u0000"), True),
    ("v1", ("skills", 0, "id\u0000"), "other.skill"), ("v1", ("capabilities", "extensions", 0, "uri\u0000"), EXT2),
    ("v1", ("supported_interfaces\u0000",), None), ("v1", ("supported_interfaces\u0000",), [iface("GRPC", "0.3")]),
    ("legacy", ("supported_interfaces\u0000",), [iface("GRPC", "0.3")]),
    ("v1", ("supportedInterfaces", 0, "protocol_binding\u0000"), "GRPC"),
    ("v1", ("supportedInterfaces", 0, "protocol_version\u0000"), None),
    ("proto", ("supportedInterfaces", 0, "protocol_binding\u0000"), None),
    ("v1", ("name\u0000",), 5), ("v1", ("supportedInterfaces\u0000",), None), ("v1", ("foo\u0000",), None),
]
# protobuf json_format reads "[...]" member names as extensions and refuses them on a message
# type without extensions (every A2A message), ignore_unknown_fields or not.
EXTENSION_NAMES = ["[x]", "[lf.a2a.v1.x]", "[]"]
EXTENSION_PLACES = [((), "v1"), (("capabilities",), "v1"), (("skills", 0), "v1"),
                    (("supportedInterfaces", 0), "v1"), (("capabilities", "extensions", 0), "v1"),
                    (("additionalInterfaces", 0), "legacy"), (("capabilities", "extensions", 0, "params"), "v1"),
                    (("securitySchemes", "bearer"), "proto"), (("provider",), "v1"), ((), "legacy")]


def grid_keys():
    out = []
    for flag, names in FLAG_NEAR_MISS.items():
        for name, fam in itertools.product(names, ["v1", "legacy", "proto"]):
            c = template(fam)
            c["capabilities"].pop(flag, None)
            c["capabilities"][name] = True
            out.append((f"keys {fam} capabilities.{name!r}=true", c))
        for name in names:
            c = base("v1")
            c["capabilities"][flag] = False
            c["capabilities"][name] = True
            out.append((f"keys v1 capabilities.{flag}=false {name!r}=true", c))
    for name, fam in itertools.product(LIST_NEAR_MISS, ["v1", "proto", "legacy"]):
        c = template(fam)
        c.pop("supportedInterfaces", None)
        c[name] = [iface("GRPC", "0.3")]
        out.append((f"keys {fam} {name!r}=[GRPC 0.3]", c))
    for (real, value, names), fam in itertools.product(MEMBER_NEAR_MISS, ["v1", "proto"]):
        for name in names:
            c = template(fam)
            item = c["supportedInterfaces"][0]
            item.pop(real)
            item[name] = value
            out.append((f"keys {fam} supportedInterfaces.0.{name!r}={value!r}", c))
    for real, names in LEGACY_NEAR_MISS:
        for name in names:
            c = base("legacy")
            c["supportsAuthenticatedExtendedCard"] = True
            c["additionalInterfaces"] = [{"url": URL + "/grpc", "transport": "GRPC"}]
            c[name] = c.pop(real)
            out.append((f"keys legacy {name!r} instead of {real}", c))
    for name, fam in itertools.product(["Capabilities", "capabilities\u0000", "CAPABILITIES"], ["v1", "legacy"]):
        c = base(fam)
        caps = c.pop("capabilities")
        c["capabilities"] = {}
        c[name] = dict(caps, pushNotifications=True, extendedAgentCard=True)
        out.append((f"keys {fam} {name!r} holds the flags", c))
    # a2a-sdk's protobuf (upb) finds a member by its proto field name only up to a U+0000: in
    # every message object, `<field>\u0000<anything>` is a second spelling of `<field>`.
    for fam, path, value in NUL_ALIASES:
        c = template(fam)
        if path[-1].startswith("supported_interfaces"):
            c.pop("supportedInterfaces", None)
            c["supported_interfaces"] = [iface("JSONRPC", "1.0")]
        node = at(c, path)
        node[path[-1]] = copy.deepcopy(value)
        out.append((f"keys {fam} {dotted(path)!r}={json_text(value)}", c))
    for (path, fam), name in itertools.product(EXTENSION_PLACES, EXTENSION_NAMES):
        if name != "[x]" and path != ():
            continue
        c = template(fam)
        if fam == "legacy":
            c["additionalInterfaces"] = [{"url": URL + "/grpc", "transport": "GRPC"}]
        if path == ("capabilities", "extensions", 0, "params"):
            c["capabilities"]["extensions"][0]["params"] = {}
        if path == ("provider",):
            c["provider"] = {"organization": "Example", "url": "https://example.com"}
        node = c
        for step in path:
            node = node[step]
        node[name] = 1
        out.append((f"keys {fam} {dotted(path) or '(top)'}.{name}=1", c))
    return out


def escaped(card, replacements):
    """The compact serialization with exact substrings replaced by escaped spellings."""
    text = json.dumps(card, separators=(",", ":"), ensure_ascii=False)
    for plain, esc in replacements:
        if plain not in text:
            raise ValueError(f"gen_cards: {plain!r} is not in the card")
        text = text.replace(plain, esc)
    if json.loads(text) != card:
        raise ValueError("gen_cards: the escaped text reads as another card")
    return text


def grid_escapes():
    out = []

    def add(label, card, *replacements):
        out.append((f"esc {label}", card, {"text": escaped(card, replacements)}))

    c = base("v1")
    add("stre\\u0061ming", c, ('"streaming":', '"stre\\u0061ming":'))
    c = base("v1")
    c["capabilities"]["pushNotifications"] = True
    add("push\\u004eotifications", c, ('"pushNotifications":', '"push\\u004eotifications":'))
    c = base("v1")
    c["capabilities"].update(pushNotifications=True, push_notifications=False)
    add("pushNotifications + push\\u005fnotifications", c, ('"push_notifications":', '"push\\u005fnotifications":'))
    c = base("v1")
    c["capabilities"]["extendedAgentCard"] = False
    c["supportsAuthenticatedExtendedCard"] = True
    add("sAEC true + extendedAgentC\\u0061rd false", c, ('"extendedAgentCard":', '"extendedAgentC\\u0061rd":'))
    c = base("v1")
    c["capabilities"]["extendedAgentCard"] = None
    c["supportsAuthenticatedExtendedCard"] = True
    add("sAEC true + \\u0065xtendedAgentCard null", c, ('"extendedAgentCard":', '"\\u0065xtendedAgentCard":'))
    c = base("v1")
    c["supportsAuthenticatedExtendedCard"] = True
    add("supportsAuthenticatedExtendedC\\u0061rd true", c,
        ('"supportsAuthenticatedExtendedCard":', '"supportsAuthenticatedExtendedC\\u0061rd":'))
    c = base("v1")
    c["capabilities"]["extended_agent_card"] = False
    c["supportsAuthenticatedExtendedCard"] = True
    add("sAEC true + extended\\u005fagent_card false", c, ('"extended_agent_card":', '"extended\\u005fagent_card":'))
    for key in ("url", "preferredTransport", "protocolVersion"):
        c = base("legacy")
        c["preferredTransport"] = "GRPC"
        add(f"legacy {key} escaped", c, (f'"{key}":', '"\\u00' + format(ord(key[0]), "02x") + key[1:] + '":'))
    c = base("legacy")
    c["supportedInterfaces"] = None
    add("hybrid supportedInterf\\u0061ces null", c, ('"supportedInterfaces":', '"supportedInterf\\u0061ces":'))
    c = base("v1")
    add("supportedInterf\\u0061ces", c, ('"supportedInterfaces":', '"supportedInterf\\u0061ces":'))
    c = base("v1")
    add("protocolBind\\u0069ng / protocol\\u0056ersion", c,
        ('"protocolBinding":', '"protocolBind\\u0069ng":'), ('"protocolVersion":', '"protocol\\u0056ersion":'))
    c = base("v1")
    c["supportedInterfaces"][0]["protocol_binding"] = "GRPC"
    add("protocolBinding + protocol\\u005fbinding", c, ('"protocol_binding":', '"protocol\\u005fbinding":'))
    c = base("v1")
    add("values JSON\\u0052PC 1.\\u0030 t\\u0061sk uri \\/", c, ('"JSONRPC"', '"JSON\\u0052PC"'),
        ('"1.0"', '"1.\\u0030"'), ('"task.execute.v3"', '"t\\u0061sk.execute.v3"'),
        ('"https://example.com/ext/trace/v1"', '"https:\\/\\/example.com\\/ext\\/trace\\/v1"'))
    c = proto_card()
    c["capabilities"]["push_notifications"] = True
    add("proto sch\\u0065mes + push_notifications", c, ('"schemes":', '"sch\\u0065mes":'))
    c = base("v1")
    apply_security(c, "v03")
    c["capabilities"]["push_notifications"] = True
    add("v03 typ\\u0065 + push_notifications", c, ('"type":', '"typ\\u0065":'))
    c = base("legacy")
    c["additionalInterfaces"] = None
    add("legacy additionalInterf\\u0061ces null", c, ('"additionalInterfaces":', '"additionalInterf\\u0061ces":'))
    c = base("v1")
    c["supportedInterfaces"] = []
    c["supportsAuthenticatedExtendedCard"] = None
    c["capabilities"]["pushNotifications"] = True
    add("v1 [] + supportsAuthenticatedExtendedC\\u0061rd null", c,
        ('"supportsAuthenticatedExtendedCard":', '"supportsAuthenticatedExtendedC\\u0061rd":'))
    c = base("v1")
    c["capabilities"]["streaming"] = True
    add("capabilit\\u0069es", c, ('"capabilities":', '"capabilit\\u0069es":'))
    return out


ODD = ["\u0000", "\u0001", "\u007f", "\u200b", "\ufeff", "\u2028", "\u00a0", "\U0001f600"]


def grid_odd_chars():
    out = []
    for ch in ODD:
        show_ch = f"U+{ord(ch):04X}"
        places = [
            ("v1", ("supportedInterfaces", 0, "protocolBinding"), ["JSONRPC" + ch, ch + "JSONRPC"], ["binding:JSONRPC"]),
            ("v1", ("supportedInterfaces", 0, "protocolVersion"), ["1.0" + ch, ch + "1.0"], ["protocol:1.0"]),
            ("legacy", ("protocolVersion",), ["0.3" + ch, ch + "0.3"], ["protocol:0.3"]),
            ("detect", ("protocolVersion",), ["0.3" + ch, ch + "0.3"], ["capability:pushNotifications"]),
            ("legacy", ("preferredTransport",), ["GRPC" + ch], ["binding:GRPC"]),
            ("legacy", ("url",), [ch], ["binding:JSONRPC"]),
            ("v1", ("skills", 0, "id"), ["task.execute.v3" + ch, ch], ["task.execute.v3"]),
            ("v1", ("capabilities", "extensions", 0, "uri"), [EXT + ch], ["extension:" + EXT]),
            ("v1", ("name",), [ch], []),
            ("v1", ("version",), ["3.0.0" + ch], []),
        ]
        for fam, path, values, probe in places:
            for v in values:
                c = detect_card() if fam == "detect" else base(fam)
                at(c, path)[path[-1]] = v
                out.append((f"nul {fam} {dotted(path)}={v.replace(ch, show_ch)!r}", c, {"probe": probe}))
    return out


def detect_card():
    """Proto-shaped (`security: [{"schemes": []}]`, which the v0.3 conversion also takes),
    `supportedInterfaces: []`, a snake_case flag, no other legacy member: the JS legacyCompat
    resolver converts it (camelCase flags only: no pushNotifications) exactly when
    protocolVersion is a legacy version; every other reading has pushNotifications."""
    c = base("v1")
    c["security"] = [{"schemes": []}]
    c["supportedInterfaces"] = []
    c["capabilities"]["push_notifications"] = True
    c["protocolVersion"] = "1.0"
    return c


def grid_long():
    out = []
    long_cases = [
        ("v1", ("skills", 0, "id"), "s" * 20000),
        ("v1", ("capabilities", "extensions", 0, "uri"), EXT + "/" + "a" * 20000),
        ("v1", ("supportedInterfaces", 0, "protocolBinding"), "JSONRPC" * 3000),
        ("v1", ("supportedInterfaces", 0, "protocolVersion"), "1." + "0" * 5000),
        ("v1", ("supportedInterfaces", 0, "protocolVersion"), "1" * 400 + ".0"),
        ("v1", ("supportedInterfaces", 0, "protocolVersion"), "0.3." + "9" * 400),
        ("legacy", ("protocolVersion",), "0." + "0" * 500 + "3"),
        ("detect", ("protocolVersion",), "0." + "0" * 500 + "3"),
        ("detect", ("protocolVersion",), "0." + "9" * 400),
        ("detect", ("protocolVersion",), "0" * 400 + ".3"),
        ("detect", ("protocolVersion",), "0.3" + " " * 10000),
        ("legacy", ("url",), URL + "/" + "u" * 20000),
        ("v1", ("name",), "n" * 30000),
    ]
    for fam, path, v in long_cases:
        c = detect_card() if fam == "detect" else base(fam)
        at(c, path)[path[-1]] = v
        out.append((f"long {fam} {dotted(path)}=<{len(v)} chars {v[:6]!r}...>", c))
    return out


STRING_MEMBERS = [("v1", ("name",)), ("v1", ("version",)), ("v1", ("skills", 0, "id")),
                  ("v1", ("capabilities", "extensions", 0, "uri")),
                  ("v1", ("supportedInterfaces", 0, "protocolBinding")),
                  ("v1", ("supportedInterfaces", 0, "protocolVersion")),
                  ("proto", ("supportedInterfaces", 0, "protocol_binding")),
                  ("legacy", ("url",)), ("legacy", ("preferredTransport",)), ("legacy", ("protocolVersion",)),
                  ("detect", ("protocolVersion",)),
                  ("legacy", ("additionalInterfaces", 0, "url")), ("legacy", ("additionalInterfaces", 0, "transport"))]
BOOL_MEMBERS = [("v1", ("capabilities", "streaming")), ("v1", ("capabilities", "pushNotifications")),
                ("proto", ("capabilities", "push_notifications")), ("v1", ("capabilities", "extendedAgentCard")),
                ("proto", ("capabilities", "extended_agent_card")), ("v1", ("supportsAuthenticatedExtendedCard",)),
                ("legacy", ("supportsAuthenticatedExtendedCard",))]
STRING_WRONG = [1, 1.0, -0.0, 0, True, False]
BOOL_WRONG = ["false", "", "0", "true", 0, 1, 1.0, -0.0]


def scalar_card(fam):
    c = detect_card() if fam == "detect" else template(fam)
    if fam == "legacy":
        c["additionalInterfaces"] = [{"url": URL + "/grpc", "transport": "GRPC"}]
    if fam == "proto":
        c["supportedInterfaces"][0]["protocol_binding"] = c["supportedInterfaces"][0].pop("protocolBinding")
    return c


def grid_scalar():
    out = []
    for (fam, path), values in [(m, STRING_WRONG) for m in STRING_MEMBERS] + [(m, BOOL_WRONG) for m in BOOL_MEMBERS]:
        for v in values:
            c = scalar_card(fam)
            at(c, path)[path[-1]] = v
            out.append((f"scalar {fam} {dotted(path)}={json_text(v)}", c))
    return out


EMPTY_MEMBERS = [("v1", p) for p in [("name",), ("version",), ("capabilities",), ("capabilities", "streaming"),
                                     ("capabilities", "pushNotifications"), ("capabilities", "extendedAgentCard"),
                                     ("capabilities", "extensions"), ("capabilities", "extensions", 0),
                                     ("capabilities", "extensions", 0, "uri"), ("skills",), ("skills", 0),
                                     ("skills", 0, "id"), ("skills", 0, "tags"), ("supportedInterfaces",),
                                     ("supportedInterfaces", 0), ("supportedInterfaces", 0, "protocolBinding"),
                                     ("supportedInterfaces", 0, "protocolVersion"), ("supportsAuthenticatedExtendedCard",),
                                     ("securitySchemes",), ("security",), ("securityRequirements",),
                                     ("defaultInputModes",), ("provider",), ("signatures",), ("supported_interfaces",)]] + \
    [("legacy", p) for p in [("url",), ("preferredTransport",), ("protocolVersion",), ("additionalInterfaces",),
                             ("additionalInterfaces", 0), ("additionalInterfaces", 0, "transport"),
                             ("capabilities",), ("securitySchemes",), ("security",), ("skills",),
                             ("supportedInterfaces",)]] + \
    [("proto", p) for p in [("capabilities",), ("supportedInterfaces",), ("supported_interfaces",),
                            ("capabilities", "push_notifications"), ("skills", 0, "security")]]


def grid_empty():
    out = []
    for (fam, path), empty in itertools.product(EMPTY_MEMBERS, [{}, []]):
        c = scalar_card(fam)
        c["capabilities"]["pushNotifications"] = True
        node = at(c, path)
        if node is None:
            continue
        node[path[-1]] = copy.deepcopy(empty)
        out.append((f"empty {fam} {dotted(path)}={json_text(empty)}", c))
    return out


LISTS = [("v1", ("skills",)), ("v1", ("capabilities", "extensions")), ("v1", ("supportedInterfaces",)),
         ("proto", ("supported_interfaces",)), ("legacy", ("additionalInterfaces",)), ("v1", ("skills", 0, "tags")),
         ("v1", ("security",)), ("legacy", ("security",)), ("v1", ("securityRequirements",)),
         ("legacy", ("defaultInputModes",)), ("v1", ("signatures",)), ("v1", ("skills", 0, "security"))]
ODD_ELEMENTS = [None, 1, "x", [], {}]


def grid_elements():
    out = []
    for (fam, path), (where, elem) in itertools.product(
            LISTS, [("after", e) for e in ODD_ELEMENTS] + [("before", None), ("before", {}), ("dup", None)]):
        c = scalar_card(fam)
        c["capabilities"]["pushNotifications"] = True
        if path == ("supported_interfaces",):
            c["supported_interfaces"] = c.pop("supportedInterfaces")
        if path[-1] in ("security", "securityRequirements", "signatures") and path[-1] not in at(c, path):
            at(c, path)[path[-1]] = ([{"bearer": []}] if path[-1] == "security" and fam != "proto"
                                     else [{"schemes": {"bearer": {"list": []}}}] if path[-1] != "signatures"
                                     else [{"protected": "e30", "signature": "c2ln"}])
            c.setdefault("securitySchemes", {"bearer": {"type": "http", "scheme": "bearer"}})
        lst = at(c, path)[path[-1]]
        if where == "dup":
            lst.append(copy.deepcopy(lst[0]))
        elif where == "before":
            lst.insert(0, copy.deepcopy(elem))
        else:
            lst.append(copy.deepcopy(elem))
        out.append((f"elems {fam} {dotted(path)} {where} {json_text(elem) if where != 'dup' else 'first'}", c))
    # Object.values order: array-index keys first, ascending, then insertion order.
    typed, untyped = {"type": "http", "scheme": "bearer"}, {"httpAuthSecurityScheme": {"scheme": "bearer"}}
    for keys in [("b", "0"), ("b", "1", "0"), ("b", "4294967295"), ("b", "4294967294"), ("b", "01"), ("b", "-1"),
                 ("b", "1.0"), ("b", "1e0"), ("0", "b")]:
        for first_typed in (True, False):
            c = base("v1")
            c["capabilities"]["push_notifications"] = True
            c["securitySchemes"] = {k: copy.deepcopy(typed if (i == 0) == first_typed else untyped)
                                    for i, k in enumerate(keys)}
            out.append((f"elems v1 securitySchemes keys {'/'.join(keys)} first-inserted {'typed' if first_typed else 'untyped'}", c))
    for first in [None, [], "x", 1, {"type": None}, {}]:
        for fam in ["v1", "legacy"]:
            c = base(fam)
            c["capabilities"]["push_notifications"] = True
            c["securitySchemes"] = {"a": copy.deepcopy(first), "bearer": {"type": "http", "scheme": "bearer"}}
            out.append((f"elems {fam} securitySchemes first value {json_text(first)}", c))
    return out


VERSION_FORMS = ["1", "1.0", "1.0.0", " 1.0", "1.0 ", "v1.0", "V1.0", "1.0-rc", "1.0.0-rc.1", "1.0+build", "1.0.0+b",
                 "1.0.x", "1.0.", "1..0", "1.0.0.0", "01.0", "1.00", "\uff11.\uff10", "0.3", "0.3.0", "0.3 ", " 0.3",
                 "\t0.3", "\n0.3", "\u00a00.3", "\u16800.3", "\u180e0.3", "\u00850.3", "\u30000.3",
                 "0.3.0-rc", "0.3x", "0.3-rc", "00.3", "0.03", "0.30", "0.9", "0.99", "0.2", "2.0", ".3", "0.", "0",
                 "-0.3", "+0.3", "0.-3", "0x0.3", "0 .3", "0. 3", "0.+3", "0e0.3", "0.3e1", "0.\u0663", "", " ", "v0.3"]


def grid_protocol_versions():
    out = []
    for v, place in itertools.product(VERSION_FORMS, ["iface", "legacy", "detect", "hybrid"]):
        if place == "iface":
            c = base("v1")
            c["supportedInterfaces"][0]["protocolVersion"] = v
        elif place == "legacy":
            c = base("legacy")
            c["protocolVersion"] = v
        elif place == "detect":
            c = detect_card()
            c["protocolVersion"] = v
        else:
            c = proto_card()
            c["capabilities"]["push_notifications"] = True
            c["supportedInterfaces"] = []
            c["url"] = URL
            c["protocolVersion"] = v
        out.append((f"pver {place} protocolVersion={v!r}", c, {"probe": ["protocol:1.0", "protocol:0.3"]}))
    return out


NFC, NFD = "caf\u00e9.run", "cafe\u0301.run"


def grid_skill_ids():
    out = []
    cases = [
        ("''", [""], ["task.execute.v3"]), ("' '", [" "], []), ("upper", ["TASK.EXECUTE.V3"], ["task.execute.v3"]),
        ("trailing space", ["task.execute.v3 "], ["task.execute.v3"]),
        ("duplicate", ["task.execute.v3", "task.execute.v3"], []),
        ("reserved extension:", ["extension:" + EXT2], ["extension:" + EXT2]),
        ("reserved capability:", ["capability:pushNotifications"], ["capability:pushNotifications"]),
        ("reserved binding:", ["binding:GRPC"], ["binding:GRPC"]),
        ("reserved protocol:", ["protocol:0.3"], ["protocol:0.3"]),
        ("NFD", [NFD], [NFC]), ("NFC", [NFC], [NFD]),
        ("fullwidth", ["\uff54ask.execute.v3"], ["task.execute.v3"]),
        ("many", [f"s{i}" for i in range(50)] + ["task.execute.v3"], ["s49", "s50"]),
    ]
    for (name, ids, probe), fam in itertools.product(cases, ["v1", "legacy", "proto"]):
        c = template(fam)
        c["skills"] = [skill(i) for i in ids]
        out.append((f"skill {fam} ids {name}", c, {"probe": probe}))
    return out


def grid_extension_uris():
    out = []
    cases = [
        ("''", [{"uri": ""}], []), ("' '", [{"uri": " "}], []),
        ("trailing slash", [{"uri": EXT + "/"}], ["extension:" + EXT]),
        ("upper", [{"uri": EXT.upper()}], ["extension:" + EXT]),
        ("duplicate", [{"uri": EXT}, {"uri": EXT}], []),
        ("NFD", [{"uri": "https://example.com/" + NFD}], ["extension:https://example.com/" + NFC]),
        ("second has no uri", [{"uri": EXT}, {}], []), ("second uri null", [{"uri": EXT}, {"uri": None}], []),
        ("required flag", [{"uri": EXT, "required": True}], []),
        ("uri with spaces", [{"uri": " " + EXT + " "}], ["extension:" + EXT]),
        ("urn", [{"uri": "urn:x:ext"}], []),
    ]
    for (name, exts, probe), fam in itertools.product(cases, ["v1", "legacy", "proto"]):
        c = template(fam)
        c["capabilities"]["extensions"] = copy.deepcopy(exts)
        out.append((f"exturi {fam} {name}", c, {"probe": probe}))
    return out


def grid_box():
    out = []
    flags = {"streaming": True, "pushNotifications": True, "extendedAgentCard": True}
    boxes = [
        ("top-level flags", lambda c: c.update(flags)),
        ("top-level snake flags", lambda c: c.update(push_notifications=True, extended_agent_card=True)),
        ("flags in supportedInterfaces[0]", lambda c: c.get("supportedInterfaces", [{}])[0].update(flags)),
        ("flags in skills[0]", lambda c: c["skills"][0].update(flags)),
        ("flags in extensions[0]", lambda c: c["capabilities"]["extensions"][0].update(flags)),
        ("capabilities.capabilities", lambda c: c["capabilities"].update(capabilities=dict(flags))),
        ("top-level extensions", lambda c: c.update(extensions=[{"uri": EXT2}])),
        ("capabilities.sAEC", lambda c: c["capabilities"].update(supportsAuthenticatedExtendedCard=True)),
        ("capabilities.legacy members", lambda c: c["capabilities"].update(
            url=URL, preferredTransport="GRPC", protocolVersion="0.3",
            additionalInterfaces=[{"url": URL, "transport": "HTTP+JSON"}])),
        ("top-level protocolBinding", lambda c: c.update(protocolBinding="GRPC", protocol_binding="HTTP+JSON")),
        ("transport in supportedInterfaces[0]", lambda c: c.update(
            supportedInterfaces=[{"url": URL, "transport": "GRPC", "protocolVersion": "0.3"}])),
        ("protocolBinding in additionalInterfaces[0]", lambda c: c.update(
            additionalInterfaces=[{"url": URL, "protocolBinding": "GRPC", "protocolVersion": "1.0"}])),
        ("supportedInterfaces in capabilities", lambda c: c["capabilities"].update(
            supportedInterfaces=[iface("GRPC", "0.3")])),
        ("supportedInterfaces nested list", lambda c: c.update(supportedInterfaces=[[iface("GRPC", "0.3")]])),
        ("card wrapped in agentCard", lambda c: c.update(agentCard=copy.deepcopy(c))),
        ("security proto on second skill", lambda c: c.update(skills=[skill("a"), dict(
            skill("task.execute.v3"), security=[{"schemes": {"bearer": {"list": []}}}])])),
        ("securitySchemes in capabilities", lambda c: c["capabilities"].update(
            securitySchemes={"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}})),
        ("extensions as object", lambda c: c["capabilities"].update(extensions={"uri": EXT2})),
    ]
    for (name, change), fam in itertools.product(boxes, ["v1", "legacy", "proto"]):
        c = template(fam)
        c["capabilities"]["push_notifications"] = False if fam == "v1" else True
        c["capabilities"].pop("streaming", None)
        try:
            change(c)
        except (KeyError, IndexError):
            continue
        out.append((f"box {fam} {name}", c, {"probe": ["extension:" + EXT2, "capability:streaming",
                                                       "capability:extendedAgentCard"]}))
    return out


SECURITY_VALUES = [None, [], {}, "", "x", 0, 1, True, False, {"a": []}, [{}], [{"bearer": []}], [{"bearer": None}],
                   [{"bearer": ["read"]}], [{"bearer": [None]}], [{"bearer": [1]}], [{"bearer": [True]}],
                   [{"bearer": "read"}], [{"bearer": {}}], [{"schemes": {"bearer": {"list": []}}}],
                   [{"schemes": []}], [None], [1], ["x"], [[]], [{"bearer": []}, None]]
SCHEMES_VALUES = [None, {}, [], "", 0, "x", [1], {"a": None}, {"a": []}, {"a": "x"}, {"a": 1}, {"a": {}},
                  {"a": {"type": "http", "scheme": "bearer"}}, {"a": {"type": "bogus"}}]


def grid_security_shapes():
    """`security` (card, skill) and `securitySchemes` shapes: a2a-sdk reads `security` as v0.3
    requirements unless the object has `securityRequirements`."""
    out = []
    for value, place in itertools.product(SECURITY_VALUES, ["card", "card+securityRequirements",
                                                            "card+security_requirements", "skill",
                                                            "skill+securityRequirements"]):
        c = base("v1")
        c["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        obj = c if place.startswith("card") else c["skills"][0]
        obj["security"] = copy.deepcopy(value)
        if "+" in place:
            obj[place.split("+")[1]] = [{"schemes": {"bearer": {"list": []}}}]
        out.append((f"secshape {place} security={json_text(value)}", c))
    for value, fam in itertools.product(SCHEMES_VALUES, ["v1", "legacy"]):
        c = base(fam)
        c["securitySchemes"] = copy.deepcopy(value)
        out.append((f"secshape {fam} securitySchemes={json_text(value)}", c))
    return out


def full_card():
    """A v1 card with every message a2a-sdk parses filled in."""
    c = base("v1")
    c["provider"] = {"organization": "Example", "url": "https://example.com"}
    c["documentationUrl"] = "https://example.com/docs"
    c["iconUrl"] = "https://example.com/icon.png"
    c["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    c["securityRequirements"] = [{"schemes": {"bearer": {"list": ["read"]}}}]
    c["signatures"] = [{"protected": "e30", "signature": "c2ln", "header": {"kid": "k1"}}]
    c["skills"][0].update(examples=["do it"], inputModes=["text/plain"], output_modes=["text/plain"],
                          securityRequirements=[{"schemes": {"bearer": {"list": []}}}])
    c["capabilities"]["extensions"][0].update(description="trace", required=False, params={"a": 1})
    c["supportedInterfaces"][0]["tenant"] = "t1"
    return c


PROTO_TYPED = [("description",), ("provider",), ("provider", "url"), ("provider", "organization"), ("documentationUrl",),
               ("iconUrl",), ("securityRequirements",), ("securityRequirements", 0, "schemes"),
               ("securityRequirements", 0, "schemes", "bearer"), ("securityRequirements", 0, "schemes", "bearer", "list"),
               ("defaultInputModes",), ("defaultOutputModes",), ("signatures",), ("signatures", 0, "protected"),
               ("signatures", 0, "header"), ("skills", 0, "name"), ("skills", 0, "description"), ("skills", 0, "tags"),
               ("skills", 0, "examples"), ("skills", 0, "inputModes"), ("skills", 0, "output_modes"),
               ("skills", 0, "securityRequirements"), ("capabilities", "extensions", 0, "description"),
               ("capabilities", "extensions", 0, "required"), ("capabilities", "extensions", 0, "params"),
               ("supportedInterfaces", 0, "url"), ("supportedInterfaces", 0, "tenant")]
PROTO_VALUES = [1, True, "x", [], {}, [None], [1], ["x"], [{}]]


def grid_proto_types():
    """The JSON types protobuf ParseDict accepts for every field of every message of the card."""
    out = []
    for path, v in itertools.product(PROTO_TYPED, PROTO_VALUES):
        c = full_card()
        at(c, path)[path[-1]] = copy.deepcopy(v)
        out.append((f"pdtypes {dotted(path)}={json_text(v)}", c))
    for camel, snake in (("documentationUrl", "documentation_url"), ("iconUrl", "icon_url")):
        for second in ("https://example.com/other", None):
            c = full_card()
            c[snake] = second
            out.append((f"pdtypes {camel} and {snake}={json_text(second)}", c))
    for obj, key, v in ((("provider",), "url\u0000", 5), (("provider",), "url\u0000", "https://x"),
                        (("provider",), "[x]", 1), (("signatures", 0), "[x]", 1),
                        (("securityRequirements", 0), "[x]", 1), (("securitySchemes", "bearer"), "[x]", 1),
                        (("capabilities", "extensions", 0), "required\u0000", "yes"),
                        (("skills", 0), "tags\u0000", 5), ((), "icon_url\u0000", "https://x")):
        c = full_card()
        node = c
        for step in obj:
            node = node[step]
        node[key] = v
        out.append((f"pdtypes {dotted(obj) or '(top)'}.{key!r}={json_text(v)}", c))
    return out


SCHEME_CASES = {
    "apiKey": {"type": "apiKey", "in": "header", "name": "X-Key", "description": "k"},
    "apiKey in=5": {"type": "apiKey", "in": 5, "name": "X-Key"},
    "apiKey in+location": {"type": "apiKey", "in": "header", "location": "query", "name": "X-Key"},
    "apiKey name=[]": {"type": "apiKey", "in": "header", "name": []},
    "http scheme=5": {"type": "http", "scheme": 5},
    "http bearerFormat=null": {"type": "http", "scheme": "bearer", "bearerFormat": None},
    "oauth2 clientCredentials": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {"read": "Read"}}}},
    "oauth2 two flows": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {}},
                                                    "authorizationCode": {"authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {}}}},
    "oauth2 one flow + null flow": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {}},
                                                               "implicit": None}},
    "oauth2 scopes list": {"type": "oauth2", "flows": {"password": {"tokenUrl": "https://t", "scopes": ["read"]}}},
    "oauth2 scope value 1": {"type": "oauth2", "flows": {"password": {"tokenUrl": "https://t", "scopes": {"read": 1}}}},
    "oauth2 pkceRequired='yes'": {"type": "oauth2", "flows": {"authorizationCode": {"authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {}, "pkceRequired": "yes"}}},
    "oauth2 flows=[]": {"type": "oauth2", "flows": []},
    "oauth2 metadata": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "https://a", "scopes": {}}}, "oauth2MetadataUrl": "https://m"},
    "openIdConnect": {"type": "openIdConnect", "openIdConnectUrl": "https://o"},
    "openIdConnect url=5": {"type": "openIdConnect", "openIdConnectUrl": 5},
    "mutualTLS": {"type": "mutualTLS", "description": "mtls"},
    "type=[]": {"type": [], "scheme": "bearer"},
    "type={}": {"type": {}, "scheme": "bearer"},
    "type=5": {"type": 5, "scheme": "bearer"},
    "type=bogus": {"type": "bogus", "scheme": 5},
    "type=APIKEY": {"type": "APIKEY", "name": 5},
    "v1 http": {"httpAuthSecurityScheme": {"scheme": "bearer"}},
    "v1 http scheme=5": {"httpAuthSecurityScheme": {"scheme": 5}},
    "v1 two wrappers": {"httpAuthSecurityScheme": {"scheme": "bearer"}, "mtlsSecurityScheme": {}},
    "v1 wrapper snake+camel": {"httpAuthSecurityScheme": {"scheme": "bearer"}, "http_auth_security_scheme": {"scheme": "basic"}},
    "v1 wrapper list": {"httpAuthSecurityScheme": []},
}


def grid_schemes():
    """The inside of a securitySchemes (or security_schemes) value, as a2a-sdk maps and parses it."""
    out = []
    for (name, scheme), key in itertools.product(SCHEME_CASES.items(), ["securitySchemes", "security_schemes"]):
        c = base("v1")
        c[key] = {"s": copy.deepcopy(scheme)}
        c["security"] = [{"s": []}]
        out.append((f"schemes {key} {name}", c))
    return out


def nested(levels, inner, kind="obj"):
    """`levels` nested objects ({"a": ...}) or lists, `inner` innermost (an empty one: {} or [])."""
    v = inner
    for i in range(levels):
        if i == 0 and inner in ({}, []):
            v = {} if kind == "obj" else []
            continue
        v = {"a": v} if kind == "obj" else [v]
    return v


def grid_depth():
    """Nesting inside protobuf Struct fields (extension params, signature header): ParseDict
    counts two message levels per JSON level there and refuses past 100; and deep data the
    SDKs ignore (unknown members), up to the gate's own limit of 64 levels."""
    out = []
    for levels, inner, kind, fam in itertools.product([46, 47, 48, 49, 50, 51], [1, {}], ["obj", "list", "mixed"],
                                                      ["v1", "legacy", "proto"]):
        c = template(fam)
        v = nested(levels, inner, "list" if kind == "list" else "obj")
        if kind == "mixed":
            v = nested(levels - 1, inner if inner != {} else [], "list")
            v = {"a": v}
        params = v if isinstance(v, dict) else {"a": v}
        label_levels = levels if isinstance(v, dict) else levels + 1
        c["capabilities"]["extensions"] = [{"uri": EXT, "params": params}]
        out.append((f"depth {fam} params {kind} levels={label_levels} inner={json_text(inner)}", c))
    for levels, inner in itertools.product([48, 49, 50, 51, 52], [1, {}]):
        c = base("v1")
        c["signatures"] = [{"protected": "e30", "signature": "x", "header": nested(levels, inner)}]
        out.append((f"depth v1 header obj levels={levels} inner={json_text(inner)}", c))
    c = base("v1")
    c["capabilities"]["extensions"] = [{"uri": EXT, "params": nested(47, 1)}, {"uri": EXT + "/2", "params": nested(49, 1)}]
    out.append(("depth v1 params second extension levels=49", c))
    c = base("v1")
    c["capabilities"]["extensions"] = [{"uri": EXT, "params": nested(49, 1)}, {"uri": EXT + "/2", "params": None}]
    out.append(("depth v1 params levels=49 then params=null in another extension", c))
    for levels in [58, 59, 60, 61]:
        c = base("v1")
        c["capabilities"]["extensions"] = [{"uri": EXT, "params": nested(levels, 1)}]
        out.append((f"depth v1 params obj levels={levels} (gate limit)", c))
        c = base("v1")
        c["x-unknown"] = nested(levels + 3, 1)
        out.append((f"depth v1 unknown member levels={levels + 3}", c))
    return out


BINDING_FORMS = ["JSONRPC", "jsonrpc", "JsonRpc", " JSONRPC", "JSONRPC ", "JSONRPC\n", "\tJSONRPC", "JSON-RPC",
                 "JSON_RPC", "JSONRPC\u0000", "J\u017fONRPC", "\uff2aSONRPC", "JSONRPC\u200b", "GRPC", "gRPC",
                 "HTTP+JSON", "http+json", "HTTP+JSON ", "HTTP JSON", "HTTP%2BJSON", "HTTP+J\u017fON", "REST", ""]


def grid_bindings():
    """Binding spellings (case, spacing, look-alikes, Unicode case mappings such as U+017F,
    which String.prototype.toUpperCase makes "S"): cardgate's vocabulary is exact."""
    out = []
    for b, place in itertools.product(BINDING_FORMS, ["iface", "legacy", "addl", "proto"]):
        if place in ("iface", "proto"):
            c = template("proto" if place == "proto" else "v1")
            c["supportedInterfaces"][0]["protocolBinding"] = b
        elif place == "legacy":
            c = base("legacy")
            c["preferredTransport"] = b
        else:
            c = base("legacy")
            c["additionalInterfaces"] = [{"url": URL + "/2", "transport": b}]
        out.append((f"bind {place} binding={b!r}", c, {"probe": ["binding:" + b.strip().upper()] if b.strip() else []}))
    return out


def grid_top():
    out = []
    for v in [[], [base("v1")], "card", 1, None, True, {}, {"card": base("v1")}, {"agentCard": base("v1")}]:
        out.append((f"top {json_text(v)[:40]}", v))
    return out


GRIDS = [grid_issue, grid_ext, grid_legacy, grid_hybrid, grid_additional, grid_iface, grid_list,
         grid_caps, grid_flags, grid_security, grid_nulls, grid_modes, grid_proto, grid_case, grid_types,
         grid_keys, grid_escapes, grid_odd_chars, grid_long, grid_scalar, grid_empty, grid_elements,
         grid_protocol_versions, grid_skill_ids, grid_extension_uris, grid_box, grid_security_shapes,
         grid_proto_types, grid_schemes, grid_top, grid_depth, grid_bindings]
RANDOM_CARDS = 300


def fixed_entries():
    """Every grid's cards, in order, as (label, card, extra)."""
    return [(lc[0], lc[1], lc[2] if len(lc) > 2 else {}) for g in GRIDS for lc in g()]


def generate(count=None, seed=7):
    """The fixed grids, then seeded random cards up to `count` (default: every grid card plus
    RANDOM_CARDS random ones; a seeded sample of the grids if fewer)."""
    rng = random.Random(seed)
    fixed = fixed_entries()
    if count is None:
        count = len(fixed) + RANDOM_CARDS
    if count < len(fixed):
        fixed = rng.sample(fixed, count)
    cards = list(fixed)
    while len(cards) < count:
        cards.append(random_card(rng) + ({},))
    return [dict(extra, id=i, label=label, card=card) for i, (label, card, extra) in enumerate(cards)]

if __name__ == "__main__":
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else None
    for entry in generate(n):
        print(json.dumps(entry, separators=(",", ":")))
