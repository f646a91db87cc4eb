"""Interface-list cards for the SDK differential's client-choice check (`sdk_parity.py --corpus choice`).

Which interface a client connects to for a binding depends on the order, spelling and version of
every interface offering it (a2a-sdk's `ClientFactory._find_best_interface`, @a2a-js/sdk's
`ClientFactory.createFromNormalizedAgentCard`). These cards vary exactly that, each under its
own label prefix (the first word):

  cpair   two interfaces with the same binding (JSONRPC), every ordered pair of VERSIONS (a
          missing or null protocolVersion included): which one each SDK picks
  cbind   two interfaces at 0.3 and 1.0 (both orders) whose bindings are every ordered pair of
          BINDINGS (`jsonrpc`, `J\\u017fONRPC` with U+017F, which JavaScript upper-cases to
          `JSONRPC`, custom URIs, missing, null, "", `x\\u1c80` / `X\\u0412` and `a\\u00df` /
          `ASS`, which JavaScript's toUpperCase makes equal)
  cshape  pairs on each card shape: v1 (camelCase), snake_case members (raw or proto-shaped:
          only the JS fromJSON path reads them), proto-shaped, both spellings on one interface
          (raw or proto-shaped), legacy (v0.3 url + preferredTransport + protocolVersion +
          additionalInterfaces: every version after the first is the top-level one), hybrid
  corder  interface lists (v1, JSONRPC) on which a2a-sdk's old pick (before 1.2.3: a first exact
          "1.0", then full PEP 440 order) and its Major.Minor pick (1.2.3 on) differ, or packaging
          before 26.1 (Unicode case folding) and 26.1 on do (ORDERS); always in a --count sample
  cwire   one or two interfaces (JSONRPC, HTTP+JSON) at WIRE versions, alone and before or after
          an exact "1.0": semver pre-releases, development and post-releases of 1.0.0 and 0.3.0
          that the gate's Major.Minor reads as 1.0 / 0.3 but packaging as below 1.0 / 0.3, so
          a2a-sdk's factory builds the other generation's transport (`is_legacy_version`:
          `1.0.0-rc.1` gets its v0.3 transport); always in a --count sample
  cjswire one interface (JSONRPC, HTTP+JSON) at a JSWIRE version, alone and before an exact "1.0":
          versions the gate's Major.Minor reads as 0.x (x >= 3) whose minor @a2a-js/sdk's
          isLegacyVersion reads with Number.parseInt, Infinity from 309 digits on (around
          Number.MAX_VALUE), so its transport factory with legacyCompat speaks 1.0 where a2a-sdk
          speaks 0.3 (js_pick.mjs's `wire`), and the spellings around them that agree; always in a
          --count sample
  ctenant one interface (JSONRPC, HTTP+JSON) at versions around 0.3 and 1.0 (unversioned too) with
          a `tenant` absent, null, "" or "t1", and two JSONRPC ones at 0.3 / 1.0 / unversioned, each
          with or without one: whether the interface each client picks names a tenant and is
          spoken to in v0.3, whose transports send none (client_picks.py's `drops_tenant`); always
          in a --count sample
  ctodd   one or two interfaces of several bindings (custom ones too) at TVERSIONS with the odd
          TENANTS (blank, dots, `/`, non-ASCII, long, numbers, booleans, `0`, `false`, lists,
          objects), on every card shape, the other interface tenant-free at 1.0 or 0.3
  crand   seeded random cards: 1-4 interfaces, bindings from BINDINGS, versions from VERSIONS,
          tenants from TENANTS (mostly absent), each interface in camelCase, snake_case or both
          spellings, on a v1, proto-shaped, snake, legacy or hybrid card (a legacy card's
          additional interfaces carry the tenant, which v0.3 does not define)

Every interface has its own url (URL/i<k>), so a pick is identified by its interface.
Entries are `{"id", "label", "card"}` like gen_cards.py's.
"""

import itertools
import random

import gen_cards as g

ABSENT = g.ABSENT
URL = g.URL
BINDINGS = ["JSONRPC", "jsonrpc", "J\u017fONRPC", "GRPC", "HTTP+JSON", "https://example.com/bind/x", "urn:x-bind",
            ABSENT, None, "",
            # JavaScript upper-cases U+1C80 to U+0412 and U+00DF to "SS": custom bindings one client conflates
            "x\u1c80", "X\u0412", "a\u00df", "ASS"]
VERSIONS = ["1.0", "1.0.0", "1.0.1", "1", "01.0", "0.3", "0.3.0", "0.2", "2.0", "1.1", "", ABSENT, None, "v1.0",
            " 1.0", "1.0rc1", "1.0.0-beta", "1.0.post1", "x", "1.0a",
            "1." + "0" * 4400,  # past CPython's 4300-digit int() limit: packaging's Version raises ValueError
            # packaging before 26.1 reads U+017F as s, U+212A as k, U+0131 and U+0130 as i (26.1 on: invalid)
            "1.0.po\u017ft1", "1.0+\u212a", "1.0prev\u0131ew1", "0.3-prev\u0130ew1", "0.3rc1",
            "1.0.0-rc.1", "0.3.0-dev",  # a2a-sdk speaks v0.3 to the first, 1.0 to the second (cwire)
            "0." + "9" * 309]  # @a2a-js/sdk's legacyCompat transport speaks 1.0 to it, a2a-sdk v0.3 (cjswire)
# Versions the gate reads as Major.Minor 1.0 or 0.3 (digits, dots, then `-` or `+`), around packaging's
# 0.3 <= v < 1.0, which decides a2a-sdk's transport generation.
WIRE = ["1.0.0-rc.1", "1.0.0-alpha", "1.0.0-beta.2", "1.0.0-dev", "1.0.0-dev.1", "1.0.0-pre", "1.0.0-c1",
        "1.0.0-preview", "1.0.0-0", "1.0.0-1", "1.0.0-post1", "1.0.0+b", "1.0.0-rc.1+b", "1.0.0-RC1",
        "0.3.0-rc.1", "0.3.0-dev", "0.3.0-0", "0.3.0+b", "0.9.0-rc.1", "1.1.0-rc.1", "1.0.1-rc.1", "0.3.1-a"]
# Versions around Number.parseInt's finite range (Number.MAX_VALUE is 1.7976931348623157e308):
# a minor of 309 digits or more is Infinity to @a2a-js/sdk's isLegacyVersion (not legacy: its
# legacyCompat transport speaks 1.0), a number to packaging and the gate (0.3 <= v < 1.0: v0.3).
JSWIRE = ["0." + "9" * 309, "0." + "9" * 308, "0.17976931348623157" + "0" * 292, "0.17976931348623159" + "0" * 292,
          "0.3" + "0" * 400, "0." + "9" * 400 + ".0", "0." + "9" * 309 + ".1-rc.1", "0" * 400 + ".3", "0.3." + "9" * 400,
          "1" + "0" * 400 + ".0"]
# An interface's `tenant`: a2a-sdk and @a2a-js/sdk wrap the picked interface's transport in a tenant
# decorator, but their v0.3 transports send none. Absent, null and "" name none; the rest are odd
# spellings of one, and values that are not strings (a2a-sdk refuses them; @a2a-js/sdk's raw reading
# keeps them, its fromJSON reading makes them strings).
TENANTS = [ABSENT, None, "", "t1", " ", "0", "T1", "t/1", ".", "..", "%2e", "a b", "t\u00e9", "t\u017f",
           "t" * 300, 0, 1, False, True, [], {}, ["t1"], {"id": "t1"}]
# Versions around both SDKs' v0.3 tests (packaging's 0.3 <= v < 1.0; isLegacyVersion, unversioned too).
TVERSIONS = ["0.3", "0.3.0", "1.0", "1.0.0", "1", "1.1", "0.2", "0.9", "1.0rc1", "1.0.0-rc.1", "0.3.0-dev", "",
             ABSENT, None, "v0.3", "0." + "9" * 309]
LONG = "1." + "0" * 4301  # the shortest part int() refuses
# What each a2a-sdk client picks (old rule with packaging < 26.1 / Major.Minor with 26.1 on).
ORDERS = [["0.3", "1.0.0"],  # 0.3, the first at least 0.3 / 1.0.0
          ["1.0.0", "1.1"],  # 1.1, the first above 1.0 / 1.0.0
          ["1.0.0", "1.0.post1"],  # 1.0.post1 / 1.0.0
          ["0.3rc1"],  # none: below 0.3 / 0.3rc1
          ["1", LONG],  # none: ValueError / 1
          [LONG, "1.0"],  # 1.0, the exact one / none: ValueError
          ["1.0.0", "1.0.po\u017ft1"],  # 1.0.post1 / 1.0.0
          ["0.3", "1.0+\u212a"],  # 1.0+k / 0.3
          ["1.0prev\u0131ew1"],  # a 1.0 pre-release / none
          ["0.3-prev\u0130ew1"],  # none: below 0.3 / none: invalid
          ["", "0.3-prev\u0130ew1"]]  # the one without a version / the same
SHAPES = ["v1", "snake", "proto", "proto-snake", "both", "proto-both", "legacy", "hybrid"]
SPELLINGS = ["camel", "snake", "both"]


def iface(k, binding, version, spelling="camel", tenant=ABSENT):
    """Interface k (url URL/i<k>) in camelCase, snake_case or both spellings (both: camelCase
    with these values first, then snake_case holding a different binding/version pair), with
    `tenant` (one name in both spellings) unless ABSENT."""
    out = {"url": f"{URL}/i{k}"}
    g.put(out, "tenant", tenant)
    if spelling in ("camel", "both"):
        g.put(out, "protocolBinding", binding)
        g.put(out, "protocolVersion", version)
    if spelling == "snake":
        g.put(out, "protocol_binding", binding)
        g.put(out, "protocol_version", version)
    if spelling == "both":  # a2a-sdk reads the last one; JS fromJSON the camelCase one
        g.put(out, "protocol_binding", "GRPC" if binding == "JSONRPC" else "JSONRPC")
        g.put(out, "protocol_version", "1.0" if version != "1.0" else "0.3")
    return out


def spelling(shape, s):
    """The spelling an interface gets on a card of `shape` (v1, proto, hybrid: its own)."""
    return "snake" if shape.endswith("snake") else "both" if shape.endswith("both") else s


def card(shape, ifs):
    """A card of `shape` offering the interfaces `ifs`, a list of (binding, version, spelling) or
    (binding, version, spelling, tenant)."""
    ifs = [i if len(i) == 4 else (*i, ABSENT) for i in ifs]
    if shape in ("legacy", "hybrid"):
        c = g.base(shape)
        # v0.3: the first is url + preferredTransport + protocolVersion, the others additional.
        (b0, v0, _, _), rest = ifs[0], ifs[1:]
        if shape == "legacy":
            g.put(c, "preferredTransport", b0)
            g.put(c, "protocolVersion", v0)
            c["url"] = URL + "/i0"
            if rest:
                c["additionalInterfaces"] = [
                    dict({"url": f"{URL}/i{k + 1}"}, **({} if b is ABSENT else {"transport": b}),
                         **({} if t is ABSENT else {"tenant": t})) for k, (b, _, _, t) in enumerate(rest)]
            return c
        c["url"] = URL + "/legacy"
        g.put(c, "preferredTransport", b0)
        g.put(c, "protocolVersion", v0)
        c["supportedInterfaces"] = [iface(k, b, v, s, t) for k, (b, v, s, t) in enumerate(ifs)]
        return c
    c = g.template("proto" if shape.startswith("proto") else "v1")
    lst = [iface(k, b, v, spelling(shape, s), t) for k, (b, v, s, t) in enumerate(ifs)]
    if shape.endswith("snake"):
        c.pop("supportedInterfaces")
        c["supported_interfaces"] = lst
    else:
        c["supportedInterfaces"] = lst
    return c


def show(v):
    if isinstance(v, str) and len(v) > 24:
        return f"<{len(v)} chars {v[:6]!r}...>"
    return g.show(v)


def grid_pair():
    return [(f"cpair v1 {show(a)} then {show(b)}", card("v1", [("JSONRPC", a, "camel"), ("JSONRPC", b, "camel")]))
            for a, b in itertools.product(VERSIONS, VERSIONS)]


def grid_bind():
    out = []
    for a, b in itertools.product(BINDINGS, BINDINGS):
        for va, vb in (("0.3", "1.0"), ("1.0", "0.3")):
            out.append((f"cbind v1 {show(a)}@{va} then {show(b)}@{vb}",
                        card("v1", [(a, va, "camel"), (b, vb, "camel")])))
    return out


SHAPE_PAIRS = [("0.3", "1.0"), ("1.0", "0.3"), ("1.0.0", "1.0"), ("1", "1.0"), ("1.0", "1.0"), ("", "0.3"),
               (ABSENT, "1.0"), (None, "0.3.0"), ("2.0", "1.1"), ("v1.0", "0.3")]


def grid_shape():
    out = []
    for shape, (a, b), (ba, bb) in itertools.product(SHAPES, SHAPE_PAIRS,
                                                     [("JSONRPC", "JSONRPC"), ("jsonrpc", "JSONRPC"), ("GRPC", "JSONRPC")]):
        out.append((f"cshape {shape} {show(ba)}@{show(a)} then {show(bb)}@{show(b)}",
                    card(shape, [(ba, a, "camel"), (bb, b, "camel")])))
    return out


def random_card(rng):
    shape = rng.choice(SHAPES)
    n = rng.randint(1, 4)
    # Mostly one or two bindings, so that several interfaces compete for one.
    pool = rng.sample(BINDINGS, rng.choice([1, 1, 2, 2, 3]))
    ifs = [(rng.choice(pool), rng.choice(VERSIONS), rng.choice(SPELLINGS),
            ABSENT if rng.random() < 0.6 else rng.choice(TENANTS)) for _ in range(n)]
    if shape == "legacy":  # the additional interfaces have no version of their own
        label = f"crand legacy {show(ifs[0][0])}@{show(ifs[0][1])}" + "".join(
            f" +{show(b)}{tenant_label(t)}" for b, _, _, t in ifs[1:])
    else:
        label = f"crand {shape} " + " ".join(
            f"{show(b)}@{show(v)}" + ("" if spelling(shape, s) == "camel" else "/" + spelling(shape, s)) + tenant_label(t)
            for b, v, s, t in ifs)
    return label, card(shape, ifs)


def tenant_label(t):
    return "" if t is ABSENT else f"~{show(t)}" if not isinstance(t, (list, dict)) else f"~{t!r}"


def grid_order():
    return [("corder v1 " + " then ".join(show(v) for v in vs), card("v1", [("JSONRPC", v, "camel") for v in vs]))
            for vs in ORDERS]


def grid_tenant():
    out = []
    for b in ("JSONRPC", "HTTP+JSON"):
        for v, t in itertools.product(["0.3", "0.3.0", "1.0", "1.0.0", "1.0rc1", "1.0.0-rc.1", "", ABSENT],
                                      [ABSENT, None, "", "t1"]):
            out.append((f"ctenant v1 {b}@{show(v)}{tenant_label(t)}", card("v1", [(b, v, "camel", t)])))
    for (va, ta), (vb, tb) in itertools.product(itertools.product(["0.3", "1.0", ABSENT], [ABSENT, "t1"]), repeat=2):
        out.append((f"ctenant v1 {show(va)}{tenant_label(ta)} then {show(vb)}{tenant_label(tb)}",
                    card("v1", [("JSONRPC", va, "camel", ta), ("JSONRPC", vb, "camel", tb)])))
    return out


def grid_odd_tenant():
    out = []
    for b, v, t in itertools.product(["JSONRPC", "HTTP+JSON", "GRPC", "jsonrpc", "urn:x-bind"], TVERSIONS, TENANTS[3:]):
        out.append((f"ctodd v1 {show(b)}@{show(v)}{tenant_label(t)}", card("v1", [(b, v, "camel", t)])))
    for shape, (v, other), t in itertools.product(SHAPES, [("0.3", "1.0"), ("1.0", "0.3"), ("", "1.0"), (ABSENT, "0.3")],
                                                  ["t1", 0, False, "", None]):
        for b in ("JSONRPC", "HTTP+JSON"):
            out.append((f"ctodd {shape} {b}@{show(v)}{tenant_label(t)} then @{show(other)}",
                        card(shape, [(b, v, "camel", t), (b, other, "camel", ABSENT)])))
            out.append((f"ctodd {shape} {b}@{show(other)} then @{show(v)}{tenant_label(t)}",
                        card(shape, [(b, other, "camel", ABSENT), (b, v, "camel", t)])))
    return out


def grid_wire():
    out = []
    for v in WIRE:
        for b in ("JSONRPC", "HTTP+JSON"):
            out.append((f"cwire v1 {b}@{v}", card("v1", [(b, v, "camel")])))
        out.append((f"cwire v1 {v} then 1.0", card("v1", [("JSONRPC", v, "camel"), ("JSONRPC", "1.0", "camel")])))
        out.append((f"cwire v1 1.0 then {v}", card("v1", [("JSONRPC", "1.0", "camel"), ("JSONRPC", v, "camel")])))
        out.append((f"cwire v1 0.3 then {v}", card("v1", [("JSONRPC", "0.3", "camel"), ("JSONRPC", v, "camel")])))
    return out


def grid_jswire():
    out = []
    for v in JSWIRE:
        for b in ("JSONRPC", "HTTP+JSON"):
            out.append((f"cjswire v1 {b}@{show(v)}", card("v1", [(b, v, "camel")])))
        out.append((f"cjswire v1 {show(v)} then 1.0", card("v1", [("JSONRPC", v, "camel"), ("JSONRPC", "1.0", "camel")])))
    return out


GRIDS = [grid_pair, grid_bind, grid_shape, grid_odd_tenant]
RANDOM_CARDS = 1000


def generate(count=None, seed=7, random_cards=RANDOM_CARDS):
    """The corder, cwire, cjswire and ctenant cards, every grid card, then `random_cards` seeded random ones;
    the corder, cwire, cjswire and ctenant cards and a seeded sample of the others, `count` in all, if given."""
    rng = random.Random(seed)
    orders = [{"label": label, "card": c} for label, c in grid_order() + grid_wire() + grid_jswire() + grid_tenant()]
    entries = [{"label": label, "card": c} for grid in GRIDS for label, c in grid()]
    for _ in range(random_cards):
        label, c = random_card(rng)
        entries.append({"label": label, "card": c})
    if count is not None and count < len(orders) + len(entries):
        entries = rng.sample(entries, max(0, count - len(orders)))
    entries = orders + entries
    for i, e in enumerate(entries):
        e["id"] = i
    return entries


if __name__ == "__main__":
    import collections
    import sys

    es = generate(int(sys.argv[1]) if len(sys.argv) > 1 else None)
    print(len(es), dict(collections.Counter(e["label"].split()[0] for e in es)))
