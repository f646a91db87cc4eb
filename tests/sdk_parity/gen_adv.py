"""Adversarial card classes for the SDK differential test (`sdk_parity.py --corpus adv`).

gen_cards.py's grids vary one member at a time around a few templates. This corpus attacks the
classes those grids do not produce, each under its own label prefix (the first word):

  mut     every path of four full cards (v1, legacy, hybrid, proto-shaped) set to each of
          null, absent, {}, [], "", 0, -0, 1, 1e0, true, false, "true", "x", [null], [{}]
          (the JSON types and protobuf-JSON scalar spellings at every depth, not only the
          members the gate reads)
  alias   camelCase + snake_case spellings of one field at every depth of every message
          a2a-sdk parses, both orders, each side null / absent / a value; the oneof wrappers
          of a security scheme and of OAuthFlows under both names
  nulkey  `<proto field name>\\u0000...` and extension-syntax `[x]` names in every message,
          including the deep ones (provider, signatures, security requirements, schemes,
          flows), and inside maps and Structs (where they are data)
  jsproto JavaScript prototype names (`__proto__`, `constructor`, `toString`,
          `hasOwnProperty`, `valueOf`) as members at every depth, holding what a reader looks
          for (`{"__proto__": {"streaming": true}}`)
  bytes   the card as bytes the strict reader must refuse or read as the SDKs' HTTP clients
          do: duplicate member names by escape or in wide objects (before and after the
          16-member linear scan), UTF-8 BOM, UTF-16/32, NaN/Infinity, lone surrogates, invalid
          UTF-8, numbers at the double limit (2^1024 - 2^970 and its neighbours, as integers
          and decimals), in a Struct where a2a-sdk converts them and in unknown members
  url     legacy and v1 interface `url` forms a client would dial: relative, blank, spaces,
          userinfo, IDN, ports, non-http schemes, `0`, very long
  mixed   seeded random mixtures of v0.3 and v1.0 members, both spellings, nulls and the
          values above over a full card (several mutations per card)
  pver-fuzz  random protocolVersion strings (digits, dots, every kind of JavaScript whitespace
          and look-alikes, signs, exponents, hex prefixes, long digit runs) on a card the JS
          legacyCompat reading converts exactly when it takes that version for v0.3
  tree    random objects over the member names the readings look at (both spellings, NUL
          aliases, legacy and prototype names) holding values of every JSON type at every depth
  remix   gen_cards.py's grid cards with 1-4 random structural mutations each: a member set to
          one of the values above, renamed to or copied under its other spelling (snake_case,
          `\u0000`-suffixed), or moved to the end of its object (a2a-sdk: the last one wins)
  limits  wide and large cards: many skills, extensions, interfaces; a card near 64 KiB;
          unknown members nested to the gate's 64-level limit
  name    the card's `name` (what `card_name` is compared with, sdk_parity.py's NAME check):
          spaces, controls, NUL, U+2028, BOM, zero-width and combining characters, non-BMP,
          5000 characters; other spellings beside or instead of it (`Name`, `name\u0000`, ...);
          null and other JSON types; in the four card families

Entries are `{"id", "label", "card"}` and, for the `bytes` class, `raw` (the bytes served):
the readers then parse those bytes with their SDK's own HTTP client (`httpx.Response.json`,
`fetch`'s `Response.json`), and `card` is what Python's json makes of them (or None).
"""

import copy
import itertools
import json
import random

import gen_cards as g

URL = g.URL


def full(fam):
    """A card of family v1, legacy, hybrid or proto with every message a2a-sdk parses filled in."""
    c = g.full_card()
    if fam in ("legacy", "hybrid"):
        c["url"] = URL
        c["preferredTransport"] = "GRPC"
        c["protocolVersion"] = "0.3.0"
        c["additionalInterfaces"] = [{"url": URL + "/rest", "transport": "HTTP+JSON"}]
        c["supportsAuthenticatedExtendedCard"] = True
        c["security"] = [{"bearer": ["read"]}]
        c.pop("securityRequirements", None)
        c["skills"][0]["security"] = [{"bearer": []}]
        c["skills"][0].pop("securityRequirements", None)
    if fam == "legacy":
        c.pop("supportedInterfaces")
    if fam == "proto":
        c["securitySchemes"] = {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}}
    c["capabilities"]["pushNotifications"] = True
    c["capabilities"]["extendedAgentCard"] = True
    c["supportedInterfaces" if fam != "legacy" else "additionalInterfaces"].append(
        {"url": URL + "/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0", "transport": "GRPC"})
    return c


FAMS = ["v1", "legacy", "hybrid", "proto"]


def paths(node, prefix=()):
    """Every path (tuple of keys / indices) in node, parents before children."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            out.append(prefix + (k,))
            out.extend(paths(v, prefix + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.append(prefix + (i,))
            out.extend(paths(v, prefix + (i,)))
    return out


def setp(card, path, value):
    """A copy of card with path set to value (g.ABSENT removes it)."""
    c = copy.deepcopy(card)
    parent = g.at(c, path)
    if parent is None:
        return None
    key = path[-1]
    if isinstance(parent, dict):
        g.put(parent, key, value)
    elif isinstance(parent, list) and isinstance(key, int) and key < len(parent):
        if value is g.ABSENT:
            parent.pop(key)
        else:
            parent[key] = value
    else:
        return None
    return c


MUT_VALUES = [None, g.ABSENT, {}, [], "", 0, -0.0, 1, 1.0, True, False, "true", "x", [None], [{}]]


def grid_mut():
    out = []
    for fam in FAMS:
        card = full(fam)
        for path in paths(card):
            for v in MUT_VALUES:
                c = setp(card, path, v)
                if c is not None:
                    out.append((f"mut {fam} {g.dotted(path)}={g.show(v) if not isinstance(v, (list, dict)) else json.dumps(v)}", c))
    return out


# (path of the message in the full card, [(camelCase, snake_case, sample value)])
ALIASES = [
    ((), [("supportedInterfaces", "supported_interfaces", [g.iface("GRPC", "0.3")]),
          ("documentationUrl", "documentation_url", "https://d"), ("iconUrl", "icon_url", "https://i"),
          ("securityRequirements", "security_requirements", [{"schemes": {"k": {"list": []}}}]),
          ("defaultInputModes", "default_input_modes", ["a/b"]), ("defaultOutputModes", "default_output_modes", ["a/b"]),
          ("securitySchemes", "security_schemes", {"k": {"mtlsSecurityScheme": {}}})]),
    (("capabilities",), [("pushNotifications", "push_notifications", False),
                         ("extendedAgentCard", "extended_agent_card", False)]),
    (("supportedInterfaces", 0), [("protocolBinding", "protocol_binding", "GRPC"),
                                  ("protocolVersion", "protocol_version", "0.3")]),
    (("skills", 0), [("inputModes", "input_modes", ["x/y"]), ("outputModes", "output_modes", ["x/y"]),
                     ("securityRequirements", "security_requirements", [{"schemes": {}}])]),
    (("securitySchemes", "bearer"), [("httpAuthSecurityScheme", "http_auth_security_scheme", {"scheme": "basic"}),
                                     ("mtlsSecurityScheme", "mtls_security_scheme", {})]),
    (("securitySchemes", "bearer", "httpAuthSecurityScheme"), [("bearerFormat", "bearer_format", "JWT")]),
    (("securitySchemes", "o", "oauth2SecurityScheme", "flows"),
     [("clientCredentials", "client_credentials", {"tokenUrl": "https://t", "scopes": {}}),
      ("authorizationCode", "authorization_code", {"tokenUrl": "https://t"})]),
    (("securitySchemes", "o", "oauth2SecurityScheme", "flows", "implicit"),
     [("authorizationUrl", "authorization_url", "https://a"), ("refreshUrl", "refresh_url", "https://r"),
      ("pkceRequired", "pkce_required", True)]),
    (("securitySchemes", "o", "oauth2SecurityScheme"), [("oauth2MetadataUrl", "oauth2_metadata_url", "https://m")]),
]
SIDE = [g.ABSENT, None, "v"]


def alias_base(fam):
    c = full(fam)
    c["securitySchemes"] = {
        "bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}},
        "o": {"oauth2SecurityScheme": {"flows": {"implicit": {"authorizationUrl": "https://a", "scopes": {}}}}},
    }
    c.pop("security", None)
    for s in c["skills"]:
        s.pop("security", None)
    if "supportedInterfaces" not in c:
        c["supportedInterfaces"] = [g.iface("JSONRPC", "1.0")]
    return c


def grid_alias():
    out = []
    for fam in ("v1", "proto", "hybrid"):
        for where, fields in ALIASES:
            for camel, snake, sample in fields:
                for a, b, first in itertools.product(SIDE, SIDE, ("camel", "snake")):
                    if a is g.ABSENT and b is g.ABSENT:
                        continue
                    c = alias_base(fam)
                    obj = g.at(c, where + ("x",))
                    if not isinstance(obj, dict):
                        continue
                    obj.pop(camel, None)
                    obj.pop(snake, None)
                    va = sample if a == "v" else a
                    vb = copy.deepcopy(sample) if b == "v" else b
                    order = [(camel, va), (snake, vb)] if first == "camel" else [(snake, vb), (camel, va)]
                    for k, v in order:
                        if v is not g.ABSENT:
                            obj[k] = copy.deepcopy(v)
                    out.append((f"alias {fam} {g.dotted(where) or '(top)'} {camel}={g.show(va)} "
                                f"{snake}={g.show(vb)} {first}-first", c))
    return out


MESSAGES = [((), "description"), (("provider",), "organization"), (("capabilities",), "streaming"),
            (("capabilities", "extensions", 0), "uri"), (("supportedInterfaces", 0), "protocol_binding"),
            (("skills", 0), "id"), (("signatures", 0), "protected"), (("securityRequirements", 0), "schemes"),
            (("securityRequirements", 0, "schemes", "bearer"), "list"),
            (("securitySchemes", "bearer", "httpAuthSecurityScheme"), "scheme"),
            (("securitySchemes", "o", "oauth2SecurityScheme", "flows"), "implicit"),
            (("securitySchemes", "o", "oauth2SecurityScheme", "flows", "implicit"), "authorization_url"),
            (("securitySchemes", "o", "oauth2SecurityScheme", "flows", "implicit", "scopes"), "read"),
            (("capabilities", "extensions", 0, "params"), "a"), (("signatures", 0, "header"), "kid")]


def grid_nulkey():
    out = []
    for fam in ("v1", "proto"):
        for where, field in MESSAGES:
            for suffix, v in itertools.product(["\u0000", "\u0000x", "\u0000\u0000"], [None, 5, "s", {}, [], True]):
                c = alias_base(fam)
                obj = g.at(c, where + ("x",))
                if isinstance(obj, dict):
                    obj[field + suffix] = v
                    out.append((f"nulkey {fam} {g.dotted(where) or '(top)'} {field + suffix!r}={g.show(v)}", c))
            for name in ["[x]", "[]", "[a.b]", "[x]\n", "[x] ", "[X-1]"]:
                c = alias_base(fam)
                obj = g.at(c, where + ("x",))
                if isinstance(obj, dict):
                    obj[name] = 1
                    out.append((f"nulkey {fam} {g.dotted(where) or '(top)'} {name!r}=1", c))
    return out


JS_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]
JS_PAYLOADS = {
    (): {"supportedInterfaces": [g.iface("GRPC", "1.0")], "capabilities": {"streaming": True},
         "url": URL, "preferredTransport": "GRPC", "skills": [g.skill("evil")]},
    ("capabilities",): {"streaming": True, "pushNotifications": True, "extendedAgentCard": True,
                        "extensions": [{"uri": "urn:evil"}]},
    ("supportedInterfaces", 0): {"protocolBinding": "GRPC", "protocolVersion": "0.3"},
    ("skills", 0): {"id": "evil"},
    ("capabilities", "extensions", 0): {"uri": "urn:evil"},
}


def grid_jsproto():
    out = []
    for fam in ("v1", "legacy", "proto"):
        for where, payload in JS_PAYLOADS.items():
            for name in JS_NAMES:
                for v in (payload, None, 1, [payload]):
                    c = full(fam)
                    obj = g.at(c, where + ("x",))
                    if not isinstance(obj, dict):
                        continue
                    if where == ("capabilities",):
                        for k in ("streaming", "pushNotifications", "extendedAgentCard"):
                            obj.pop(k, None)
                    obj[name] = copy.deepcopy(v)
                    out.append((f"jsproto {fam} {g.dotted(where) or '(top)'}.{name}={json.dumps(v)[:30]}", c))
        c = full(fam)
        c["capabilities"] = {"__proto__": {"streaming": True}}
        out.append((f"jsproto {fam} capabilities only __proto__", c))
    return out


def text(card):
    return json.dumps(card, separators=(",", ":"), ensure_ascii=False)


HALF = 2 ** 1024 - 2 ** 970  # the first integer that rounds to infinity


def grid_bytes():
    """(label, raw bytes) pairs."""
    out = []
    v1 = g.base("v1")
    t = text(v1)
    b = t.encode()
    # Duplicate member names: plain, escaped, and in wide objects around the linear-scan limit.
    dups = [
        ("top streaming caps", '{"capabilities":{"streaming":false},' + t[1:-1] + ',"capabilities":{"streaming":true}}'),
        ("caps flag false-then-true", t.replace('"streaming":true', '"streaming":false,"streaming":true')),
        ("caps flag escaped", t.replace('"streaming":true', '"streaming":false,"stre\\u0061ming":true')),
        ("iface binding", t.replace('"protocolBinding":"JSONRPC"', '"protocolBinding":"X","protocolBinding":"GRPC"')),
        ("skill id", t.replace('"id":"task.execute.v3"', '"id":"a","\\u0069d":"task.execute.v3"')),
        ("ext uri", t.replace('"uri":"' + g.EXT + '"', '"uri":"urn:a","uri":"' + g.EXT + '"')),
        ("skills", t[:-1] + ',"skills":[{"id":"other","name":"o","description":"o","tags":["w"]}]}'),
        ("supportedInterfaces", t[:-1] + ',"supportedInterfaces":[{"url":"u","protocolBinding":"GRPC","protocolVersion":"0.3"}]}'),
        ("url legacy", text(g.base("legacy"))[:-1] + ',"url":""}'),
        ("null-then-value", t.replace('"streaming":true', '"streaming":null,"streaming":true')),
    ]
    for n_fill, pos in itertools.product([0, 5, 14, 15, 16, 17, 40, 300], ["before", "after"]):
        fill = ",".join(f'"f{i}":{i}' for i in range(n_fill))
        caps = '"streaming":false' + ("," + fill if fill else "") + ',"streaming":true' if pos == "after" else \
            (fill + "," if fill else "") + '"streaming":false,"streaming":true'
        dups.append((f"wide caps fill={n_fill} dup-{pos}", t.replace('"streaming":true', caps)))
        # Names that share length, first and last byte with the duplicate (same filter bit).
        fill2 = ",".join(f'"s{i:07d}g":{i}' for i in range(n_fill))
        caps2 = '"streaming":false' + ("," + fill2 if fill2 else "") + ',"streaming":true'
        dups.append((f"wide caps same-bit fill={n_fill} dup-{pos}", t.replace('"streaming":true', caps2)))
    # The same name spelt otherwise (escapes, raw UTF-8 against \u escapes, a surrogate pair,
    # `\/`), in objects of every width around the linear scan's limit.
    for n_fill in (0, 15, 16, 17, 100):
        pre = "".join(f'"f{i}":{i},' for i in range(n_fill))
        for name, a, b2 in [("esc", '"stre\\u0061ming"', '"streaming"'),
                            ("esc-both", '"str\\u0065aming"', '"stre\\u0061ming"'),
                            ("nul", '"a\\u0000"', '"a\\u0000"'), ("utf8", '"\\u00e9"', '"\u00e9"'),
                            ("pair", '"\\ud83d\\ude00"', '"\U0001f600"'), ("slash", '"a/b"', '"a\\/b"')]:
            caps = pre + a + ":false," + b2 + ":true" + ("" if "stre" in a else ',"streaming":true')
            dups.append((f"wide {name} fill={n_fill}", t.replace('"streaming":true', caps)))
    for label, s in dups:
        out.append(("bytes dup " + label, s.encode()))
    # Encodings and byte order marks.
    out.append(("bytes bom utf-8", b"\xef\xbb\xbf" + b))
    out.append(("bytes bom utf-16le", "\ufeff".encode("utf-16-le") + t.encode("utf-16-le")))
    out.append(("bytes utf-16be no bom", t.encode("utf-16-be")))
    out.append(("bytes utf-32le", t.encode("utf-32-le")))
    out.append(("bytes bom twice", b"\xef\xbb\xbf\xef\xbb\xbf" + b))
    out.append(("bytes leading ws", b" \t\r\n" + b + b" \n"))
    out.append(("bytes trailing nul", b + b"\x00"))
    out.append(("bytes trailing second doc", b + b"{}"))
    out.append(("bytes invalid utf-8 in description", t.replace("test agent", "test \udcff agent").encode("utf-8", "surrogateescape")))
    out.append(("bytes invalid utf-8 in skill id",
                t.replace("task.execute.v3", "task.execute.v3\udcc0").encode("utf-8", "surrogateescape")))
    out.append(("bytes overlong utf-8", t.replace("test agent", "test \udcc0\udcaf agent").encode("utf-8", "surrogateescape")))
    out.append(("bytes cesu surrogate bytes", t.replace("test agent", "\udced\udca0\udc80").encode("utf-8", "surrogateescape")))
    # Lone surrogates and pairs (escaped).
    for where, old, new in [("description", "test agent", "\\ud800"), ("skill id", "task.execute.v3", "task\\udc00"),
                            ("name key", '"name"', '"n\\ud83d"'), ("pair id", "task.execute.v3", "\\ud83d\\ude00"),
                            ("reversed pair", "test agent", "\\ude00\\ud83d")]:
        out.append((f"bytes surrogate {where}", t.replace(old, new, 1).encode()))
    # Numbers.
    for lit in ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1e-400", "-0", "0e0", "1E+2",
                str(HALF - 1), str(HALF), str(HALF + 1), "-" + str(HALF), str(2 ** 1024),
                "1.7976931348623157e308", "1.7976931348623158e308", "1.797693134862315807937289714053e308",
                "1.7976931348623159e308", "9" * 4301, "0." + "0" * 400 + "1", "1" + "0" * 308 + ".0e-300",
                "123456789012345678901234567890", "4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324"]:
        for place in ("params", "unknown", "header"):
            c = g.full_card()
            if place == "params":
                s = text(c).replace('"params":{"a":1}', '"params":{"a":' + lit + '}')
            elif place == "header":
                s = text(c).replace('"header":{"kid":"k1"}', '"header":{"kid":"k1","n":' + lit + '}')
            else:
                s = text(c)[:-1] + ',"x-number":' + lit + '}'
            out.append((f"bytes number {place} {lit[:40]}", s.encode()))
    return out


URL_FORMS = ["", " ", "0", "/a2a", "a2a", "//agent.example/a2a", "https://user:pw@agent.example/a2a",
             "https://agent.example:0/a2a", "https://agent.example:99999/a2a", "https://xn--bcher-kva.example/",
             "https://bücher.example/", " https://agent.example/a2a ", "https://agent.example/a2a\n", "\u0000",
             "javascript:alert(1)", "file:///etc/passwd", "http://[::1]:8080/", "https://agent.example/" + "a" * 3000,
             "HTTPS://AGENT.EXAMPLE/A2A", "https://agent.example/a2a#frag", "https://agent.example\\@evil/"]


def grid_url():
    out = []
    for fam, u in itertools.product(["legacy", "hybrid", "v1"], URL_FORMS):
        c = full(fam)
        if fam == "legacy":
            c["url"] = u
        elif fam == "hybrid":
            c["url"] = u
            c.pop("supportedInterfaces")
            c["supported_interfaces"] = [g.iface("GRPC", "1.0")]
        else:
            c["supportedInterfaces"][0]["url"] = u
        out.append((f"url {fam} {u[:40]!r}", c))
        if fam == "legacy":
            c = full(fam)
            c["additionalInterfaces"][0]["url"] = u
            out.append((f"url legacy additional {u[:40]!r}", c))
    return out


MIX_KEYS = {
    (): ["url", "preferredTransport", "protocolVersion", "additionalInterfaces", "supportsAuthenticatedExtendedCard",
         "supportedInterfaces", "supported_interfaces", "security", "securityRequirements", "securitySchemes",
         "capabilities", "skills", "defaultInputModes", "default_input_modes"],
    ("capabilities",): ["streaming", "pushNotifications", "push_notifications", "extendedAgentCard",
                        "extended_agent_card", "extensions"],
    ("supportedInterfaces", 0): ["protocolBinding", "protocol_binding", "protocolVersion", "protocol_version", "url"],
    ("skills", 0): ["id", "tags", "security", "securityRequirements"],
}
MIX_VALUES = {
    "url": [URL, "", None, "x"], "preferredTransport": ["GRPC", "HTTP+JSON", None, "", "jsonrpc"],
    "protocolVersion": ["0.3.0", "0.3", "1.0", "", None, " 0.3", "0.30", "1.0.0"],
    "additionalInterfaces": [None, [], [{"url": URL, "transport": "GRPC"}], [{"url": URL}], [{"transport": None}]],
    "supportsAuthenticatedExtendedCard": [True, False, None],
    "supportedInterfaces": [None, [], [g.iface("GRPC", "1.0")], [g.iface("JSONRPC", "0.3")], [g.iface(None, None)]],
    "supported_interfaces": [None, [], [g.iface("HTTP+JSON", "1.0")], [{"url": URL, "protocol_binding": "GRPC", "protocol_version": "1.0"}]],
    "security": [None, [], [{"bearer": []}], [{"schemes": {"bearer": {"list": []}}}], {}],
    "securityRequirements": [None, [], [{"schemes": {"bearer": {"list": []}}}]],
    "securitySchemes": [None, {}, {"bearer": {"type": "http", "scheme": "bearer"}},
                        {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}}],
    "capabilities": [None, {}, {"streaming": True}, {"push_notifications": True, "extendedAgentCard": True}],
    "skills": [[], [g.skill("a")], [g.skill("b", tags=False)]],
    "defaultInputModes": [None, [], ["text/plain"]], "default_input_modes": [None, ["text/plain"]],
    "streaming": [True, False, None], "pushNotifications": [True, False, None], "push_notifications": [True, False, None],
    "extendedAgentCard": [True, False, None], "extended_agent_card": [True, False, None],
    "extensions": [None, [], [{"uri": "urn:x"}]],
    "protocolBinding": ["GRPC", None, "", "JSONRPC"], "protocol_binding": ["GRPC", None, "HTTP+JSON"],
    "protocol_version": ["0.3", None, "1.0"], "id": ["a", "", None], "tags": [None, [], ["t"]],
}


def mixed_card(rng):
    c = full(rng.choice(FAMS))
    if "supportedInterfaces" not in c:
        c["supportedInterfaces"] = [g.iface("JSONRPC", "1.0")]
    muts = []
    for _ in range(rng.randint(1, 6)):
        where = rng.choice(list(MIX_KEYS))
        key = rng.choice(MIX_KEYS[where])
        vals = MIX_VALUES.get(key, [None])
        v = rng.choice(vals + [g.ABSENT])
        obj = g.at(c, where + ("x",))
        if not isinstance(obj, dict):
            continue
        if rng.random() < 0.5 and key in obj:
            obj.pop(key)  # re-add at the end: document order matters for a2a-sdk
        g.put(obj, key, copy.deepcopy(v))
        muts.append(f"{g.dotted(where + (key,))}={g.show(v) if not isinstance(v, (list, dict)) else json.dumps(v)[:30]}")
    return ("mixed " + " ".join(muts), c)


ALIAS_OF = {camel: snake for _, fields in ALIASES for camel, snake, _ in fields}
ALIAS_OF.update({"streaming": "streaming\u0000", "skills": "skills\u0000", "id": "id\u0000", "uri": "uri\u0000",
                 "capabilities": "capabilities\u0000", "extensions": "extensions\u0000"})


def remix_card(rng, grid_cards):
    """A gen_cards grid card (or a full card) with 1-4 structural mutations: a member set to a
    mixed value, renamed to its other spelling, copied under its other spelling, or moved last."""
    label, card = rng.choice(grid_cards)
    if not isinstance(card, dict):
        card = full(rng.choice(FAMS))
        label = "full"
    c = copy.deepcopy(card)
    muts = []
    for _ in range(rng.randint(1, 4)):
        ps = [p for p in paths(c) if isinstance(p[-1], str)]
        if not ps:
            break
        path = rng.choice(ps)
        parent = g.at(c, path)
        key = path[-1]
        if not isinstance(parent, dict) or key not in parent:
            continue
        op = rng.choice(["set", "rename", "copy", "last", "set"])
        other = ALIAS_OF.get(key) or {v: k for k, v in ALIAS_OF.items()}.get(key)
        if op == "set":
            v = rng.choice(MIX_VALUES.get(key, []) + MUT_VALUES)
            g.put(parent, key, copy.deepcopy(v))
        elif op in ("rename", "copy") and other:
            v = parent[key] if op == "copy" else parent.pop(key)
            if rng.random() < 0.3:
                v = rng.choice([None, True, False, "GRPC", "0.3", [], {}])
            parent[other] = copy.deepcopy(v)
        elif op == "last":
            parent[key] = parent.pop(key)
        else:
            continue
        muts.append(f"{op}:{g.dotted(path)}")
    return (f"remix [{label[:50]}] " + " ".join(muts), c)


PVER_ATOMS = ["0", "0", "3", "1", "9", "00", ".", ".", ".", " ", "\t", "\u00a0", "\u2028", "\ufeff", "\u3000",
              "\u200b", "\u180e", "\u0085", "+", "-", "e", "x", "0x", "v", "\u0663", "\uff13", "Infinity", "NaN",
              "9" * 40, "0" * 30, "\u0000", "_", ","]


def pver_card(rng):
    """gen_cards' detect card (the JS legacyCompat reading loses pushNotifications exactly when
    it takes the card for v0.3) with a random protocolVersion: JavaScript's isLegacyVersion
    (trim, split, parseInt) against the gate's restatement of it."""
    head = rng.choice(["", "", "0.3", "0.", " 0.", "0.3.", "0", "1."])
    v = head + "".join(rng.choice(PVER_ATOMS) for _ in range(rng.randint(1, 5)))
    c = g.detect_card()
    c["protocolVersion"] = v
    return (f"pver-fuzz protocolVersion={v!r}", c)


TREE_KEYS = {
    (): ["name", "version", "description", "url", "preferredTransport", "protocolVersion", "additionalInterfaces",
         "supportsAuthenticatedExtendedCard", "supportedInterfaces", "supported_interfaces", "capabilities",
         "skills", "security", "securityRequirements", "security_requirements", "securitySchemes",
         "security_schemes", "defaultInputModes", "defaultOutputModes", "provider", "signatures",
         "documentationUrl", "iconUrl", "skills\u0000", "capabilities\u0000", "[x]", "__proto__", "x"],
    "capabilities": ["streaming", "pushNotifications", "push_notifications", "extendedAgentCard",
                     "extended_agent_card", "extensions", "streaming\u0000", "push_notifications\u0000", "x"],
    "supportedInterfaces": ["url", "protocolBinding", "protocol_binding", "protocolVersion", "protocol_version",
                            "tenant", "transport", "protocol_binding\u0000", "x"],
    "additionalInterfaces": ["url", "transport", "protocolBinding", "protocolVersion"],
    "skills": ["id", "name", "description", "tags", "security", "securityRequirements", "examples", "inputModes",
               "id\u0000", "x"],
    "extensions": ["uri", "required", "params", "description", "uri\u0000"],
    "securitySchemes": ["type", "scheme", "httpAuthSecurityScheme", "apiKeySecurityScheme", "flows", "in"],
    "security": ["schemes", "bearer"],
}
TREE_SCALARS = [None, True, False, 0, 1, -0.0, 1.5, "", "x", "JSONRPC", "GRPC", "HTTP+JSON", "0.3", "0.3.0", "1.0",
                URL, "task.a", "urn:e"]


TREE_BOOLS = {"streaming", "pushNotifications", "push_notifications", "extendedAgentCard", "extended_agent_card",
              "supportsAuthenticatedExtendedCard", "required"}
TREE_LISTS = {"defaultInputModes", "defaultOutputModes", "tags", "examples", "inputModes", "bearer"}
TREE_MAPS = {"params", "provider", "flows", "httpAuthSecurityScheme", "apiKeySecurityScheme", "schemes", "__proto__", "[x]"}
TREE_STRINGS = [None, "", "x", "JSONRPC", "GRPC", "HTTP+JSON", "jsonrpc", "0.3", "0.3.0", "1.0", " 0.3", URL, "task.a",
                "urn:e", "http", "oauth2", "apiKey"]


def tree_value(rng, key, depth):
    box = {"supported_interfaces": "supportedInterfaces", "protocol_binding": "supportedInterfaces",
           "security_schemes": "securitySchemes", "securityRequirements": "security",
           "security_requirements": "security"}.get(key, key)
    r = rng.random()
    if box in TREE_KEYS and depth < 4 and r < 0.8:
        item = lambda: tree_object(rng, box, depth + 1)  # noqa: E731
        if box in ("capabilities",) or (box == "securitySchemes" and r < 0.2):
            return item()
        if box == "securitySchemes":
            return {f"k{i}": item() for i in range(rng.randint(0, 2))}
        return [item() if rng.random() < 0.9 else rng.choice(TREE_SCALARS) for _ in range(rng.randint(0, 3))]
    if r < 0.85:  # mostly a value of the member's own type, so that some readings accept the card
        base_key = key.split("\u0000")[0]
        if base_key in TREE_BOOLS:
            return rng.choice([True, True, False, None])
        if base_key in TREE_LISTS:
            return rng.choice([[], ["text/plain"], None, ["a", "b"]])
        if base_key in TREE_MAPS:
            return rng.choice([{}, None, {"k": {"a": 1}}])
        return rng.choice(TREE_STRINGS)
    if r < 0.9 and depth < 4:
        return [rng.choice(TREE_SCALARS) for _ in range(rng.randint(0, 2))]
    if r < 0.15 and depth < 4:
        return {}
    return rng.choice(TREE_SCALARS)


def tree_object(rng, box, depth):
    keys = TREE_KEYS.get(box, ["x"])
    chosen = rng.sample(keys, rng.randint(0, min(len(keys), 7)))
    return {k: tree_value(rng, k, depth) for k in chosen}


def tree_card(rng):
    """A random object over the member names every reading looks at (both spellings, NUL
    aliases, legacy and prototype names) and values of every JSON type, at every depth."""
    c = tree_object(rng, (), 0)
    c.setdefault("name", "W")
    c.setdefault("version", "1")
    # The gate wants skills with ids: most cards get them, so their other members count.
    if not isinstance(c.get("skills"), list) and rng.random() < 0.9:
        c["skills"] = [g.skill("task.a")]
    for sk in c["skills"] if isinstance(c.get("skills"), list) else []:
        if isinstance(sk, dict) and rng.random() < 0.9:
            sk["id"] = sk.get("id") if isinstance(sk.get("id"), str) and sk.get("id") else "task.b"
    return ("tree " + ",".join(c)[:80], c)


def grid_limits():
    out = []
    for n in (100, 1000):
        c = g.base("v1")
        c["skills"] = [g.skill(f"s{i}") for i in range(n)]
        out.append((f"limits skills={n}", c))
        c = g.base("v1")
        c["capabilities"]["extensions"] = [{"uri": f"urn:e{i}"} for i in range(n)]
        out.append((f"limits extensions={n}", c))
        c = g.base("v1")
        c["supportedInterfaces"] = [g.iface(["JSONRPC", "GRPC"][i % 2], "1.0") for i in range(n)]
        out.append((f"limits interfaces={n}", c))
    for size in (60000, 65400, 65600):
        c = g.base("v1")
        c["description"] = ""
        pad = size - len(text(c).encode())
        c["description"] = "d" * max(pad, 0)
        out.append((f"limits bytes~{size}", c))
    for depth in (60, 62, 63, 64):
        c = g.base("v1")
        inner = {"streaming": True}
        for _ in range(depth - 1):
            inner = {"x": inner}
        c["x-deep"] = inner
        out.append((f"limits unknown depth={depth}", c))
    return out


# Names (`card_name` compares the gate's reading of `name` with the caller's): text a reader
# might change (spaces, controls, NUL, line separators, BOM, zero-width, combining, non-BMP,
# long), and member shapes around it (another spelling, a NUL-suffixed member, null, a number).
NAME_TEXTS = ["", " ", "worker-7", " worker-7 ", "W\u00f6rker-7", "Wo\u0308rker-7", "\u0000", "a\u0000b",
              "a\u2028b", "\ufeffworker", "wor\u200bker", "\U0001f916", "\t\n\r", "\\u0041", "x" * 5000,
              "\u00a0worker\u3000"]
NAME_SHAPES = [{"Name": "other"}, {"NAME": "other"}, {"name\u0000": "other"}, {"name\u0000x": "other"},
               {"_name": "other"}, {"displayName": "other"}, {"name_": "other"}]


def grid_name():
    out = []
    for fam in ("v1", "legacy", "hybrid", "proto"):
        for text_ in NAME_TEXTS:
            c = full(fam)
            c["name"] = text_
            out.append((f"name {fam} name={text_[:20]!r}", c))
        for shape in NAME_SHAPES:
            for with_name in (True, False):
                c = full(fam)
                if not with_name:
                    c.pop("name", None)
                c.update(shape)
                out.append((f"name {fam} {'name=W ' if with_name else ''}{json.dumps(shape)[:30]}", c))
        for v in (None, 5, True, [], {}, ["a"]):
            c = full(fam)
            c["name"] = v
            out.append((f"name {fam} name={g.show(v)}", c))
    return out


GRIDS = [grid_mut, grid_alias, grid_nulkey, grid_jsproto, grid_url, grid_limits, grid_name]
MIXED_CARDS = 2000


def generate(count=None, seed=7, classes=None, mixed=MIXED_CARDS):
    """Every class's cards, then `mixed` cards of each random class (mixed, pver-fuzz, tree, remix); a seeded
    sample of `count` of them if given."""
    rng = random.Random(seed)
    entries = []
    for grid in GRIDS:
        entries.extend({"label": lc[0], "card": lc[1]} for lc in grid())
    for label, raw in grid_bytes():
        try:
            card = json.loads(raw)
        except (ValueError, RecursionError):
            card = None
        entries.append({"label": label, "card": card, "raw": raw})
    for _ in range(mixed):
        label, card = mixed_card(rng)
        entries.append({"label": label, "card": card})
    for _ in range(mixed):
        label, card = pver_card(rng)
        entries.append({"label": label, "card": card})
    for _ in range(mixed):
        label, card = tree_card(rng)
        entries.append({"label": label, "card": card})
    grid_cards = [(label, card) for label, card, _ in g.fixed_entries()]
    for _ in range(mixed):
        label, card = remix_card(rng, grid_cards)
        entries.append({"label": label, "card": card})
    if classes:
        entries = [e for e in entries if e["label"].split()[0] in classes]
    if count is not None and count < len(entries):
        entries = rng.sample(entries, count)
    for i, e in enumerate(entries):
        e["id"] = i
    return entries


if __name__ == "__main__":
    import collections
    import sys

    es = generate(int(sys.argv[1]) if len(sys.argv) > 1 else None)
    print(len(es), dict(collections.Counter(e["label"].split()[0] for e in es)))
