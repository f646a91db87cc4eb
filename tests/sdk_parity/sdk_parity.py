"""SDK differential test: cardgate's verdict against what both real A2A SDKs parse out of a card.

Usage: .tools/py/bin/python tests/sdk_parity/sdk_parity.py --cardgate target/release/cardgate
       [--count N] [--seed 7] [--jobs 2] [--out target/sdk_parity/results.json]
       [--corpus cards|adv|both|choice|indep] [--classes mut,bytes,...] [--mixed N] [--no-picks] [--picks-count N]
       [--second-sdk DIR] [--second-py PYTHON]

For each generated card (gen_cards.py; with --corpus adv, gen_adv.py's adversarial classes; with
--corpus indep, gen_indep.py's corpus written from the SDK sources independently of the other two)
these readings are taken, all in batch (one Python process, one Node process per SDK, JSON lines):
  py          PyPI a2a-sdk 1.3.0  a2a.client.card_resolver.parse_agent_card(deepcopy(card))
  js_default  npm @a2a-js/sdk 1.3.0  AgentCardResolver.default.normalizeAgentCard(structuredClone(card))
              (legacyCompat off: the resolver ClientFactory uses unless told otherwise)
  js_legacy   new DefaultAgentCardResolver({legacyCompat:{enabled:true}}).normalizeAgentCard(...)
  js101_default, js101_legacy  the same with npm @a2a-js/sdk 1.0.1, the lowest of the npm
              package's peer range, or the one `--second-sdk DIR` names (another version of the
              range) (.tools/a2a-sdk-1.0.1, installed by .ci/setup.sh; skipped when
              absent). Its toCoreAgentCard lacks 1.3.0's requireObject/requireArray checks
              (capabilities may be any non-null value, modes and skill tags any iterable: a
              string spreads into characters), so it refuses fewer v0.3 cards; nothing else in
              normalizeAgentCard differs.
  py2         with `--second-py PYTHON`: py_reader.py run by that interpreter, i.e. the a2a-sdk,
              protobuf (and its backend) and packaging installed there (another a2a-sdk 1.x, or
              the lowest protobuf/packaging a2a-sdk allows); its picks come from its py_pick.py.
              The reading rules below are 1.3.0's: a difference it shows is a finding.
              `make test-sdk-parity` passes .tools/py-a2a-old (a2a-sdk 1.0.0, protobuf 5.29.5,
              packaging 24.0; .ci/setup.sh core).
A card with `raw` bytes (gen_adv.py's `bytes` class: duplicates, byte order marks, UTF-16,
NaN, lone surrogates, numbers at the double limit...) is parsed by each reader as its SDK's
resolver does: httpx `Response(200, content=raw).json()` (a2a-sdk's A2ACardResolver) and
`new Response(raw).json()` (fetch, @a2a-js/sdk); the card is refused when that throws.
Each accepted reading becomes a capability set in cardgate's vocabulary (DESIGN.md
"Requirement"): skill ids, `extension:<uri>`, `capability:<flag>` (flag true; JS: truthy),
`binding:<protocolBinding>` (non-empty), `protocol:<Major.Minor>` of every interface's
protocolVersion. Then one `cardgate check CARD --pin <its hash> --requirement {"require": [...]}` per card requires
every capability any reading has plus every one the card's text mentions; granted = required
minus `missing_capabilities` on `valid`/`capability_mismatch`, nothing otherwise.
  UNSAFE       a granted capability that an accepting reading lacks, or any grant on a card every
               reading refuses. The test fails on any.
  PARTIAL      grants on a card that at least one reading refuses (reported: a policy question).
  OVER-STRICT  a capability every accepting reading has that cardgate does not grant (reported).
  VERSION      condition (a): on a card cardgate evaluates (`valid` or `capability_mismatch`), its
               decision's `card_version` differs from the `version` an accepting reading holds (the
               caller's minimum would be compared with a version its SDK does not show). Fails the test.
  NAME         the same for `name`: on a card cardgate evaluates, its decision's `agent` (the name
               `card_name` is compared with) differs from the `name` an accepting reading holds.
               Fails the test.
Full per-card results go to --out; every card's bytes to target/sdk_parity/cards/<id>.json.
Then (unless --no-picks) the client-choice check, client_picks.py: for every binding X a reading
has, the interface each real SDK's ClientFactory picks for X (py_pick.py, js_pick.mjs), against
cardgate's grant of binding:X alone and with each protocol:P (UNSAFE there fails the test too; an
a2a-sdk pick serves P only when the transport its factory builds for it speaks P's generation:
v0.3 for 0.3 <= P < 1.0; a pick that names a tenant and is spoken to in v0.3 serves nothing);
--picks-count N takes a seeded sample of the cards. `--corpus choice` is gen_choice.py's corpus
of interface lists (orders, binding spellings, version forms, tenants) made for that check.

Reading rules observed (a2a-sdk 1.3.0 with protobuf 7.36.2, @a2a-js/sdk 1.3.0). Evidence: card
labels of this generator (grep them in the results file) or a one-line probe card.

PyPI a2a-sdk `parse_agent_card`: three compatibility steps on the dict, then protobuf ParseDict
(unknown members ignored). Any exception = the card is refused (A2ACardResolver raises).
  P1 Flags are proto3 `optional`: camelCase and snake_case spellings both with non-null values
     refuse the card, whatever the values ("flag v1 pushNotifications=true push_notifications=false":
     ParseError "multiple _push_notifications oneof fields"). With a null, the LAST in document
     order wins and null clears: {pushNotifications:true, push_notifications:null} -> false;
     {push_notifications:null, pushNotifications:true} -> true; {push_notifications:true,
     pushNotifications:null} -> false.
  P2 Plain strings and lists accept both spellings, the last in document order wins, null clears:
     interface {protocolBinding:JSONRPC, protocolVersion:1.0, protocol_binding:GRPC,
     protocol_version:0.3} -> GRPC 0.3 ("issue interface with both spellings");
     {protocolBinding:JSONRPC, protocol_binding:null} -> binding ""; supportedInterfaces:[JSONRPC]
     then supported_interfaces:[GRPC] -> GRPC only, then supported_interfaces:null -> none.
  P3 supportsAuthenticatedExtendedCard is always removed; a truthy value (true, "true", 1) sets
     capabilities.extendedAgentCard=true only if the camelCase KEY is absent, so an explicit
     false/null wins ("ext v1 sAEC=true caps.extendedAgentCard=false" -> false). With
     capabilities null (or a list) that step raises -> refused ("caps v1 capabilities=null
     sAEC=true"); missing capabilities are created. With `extended_agent_card` present the added
     camelCase key makes two spellings -> refused (P1), even extended_agent_card:false.
  P4 url/preferredTransport/protocolVersion/additionalInterfaces are always removed. Interfaces
     are built only if the KEY supportedInterfaces is absent (null and [] count as present:
     "hybrid supportedInterfaces=null url=..." has no interface) and url is truthy (no url, "" or
     null: no interface at all, preferredTransport and additionalInterfaces are then lost:
     "legacy url='' preferredTransport='GRPC'", "issue additionalInterfaces without url").
     Defaults JSONRPC and "0.3.0" apply only to an absent key: preferredTransport:null -> binding
     "", protocolVersion null or "" -> version "" ("legacy url=... preferredTransport=null").
     Additional interfaces: binding = their transport ("" if missing/null), version = the
     top-level one ("addl ... protocolVersion='1.0'" -> GRPC 1.0). supported_interfaces is not
     looked at here and the built supportedInterfaces is appended after it, so it wins (P2):
     "list hybrid snake" -> JSONRPC 0.3.0 from url, HTTP+JSON ignored.
  P5 `security` is always mapped as v0.3 ({name:[scopes]}); the proto shape
     security:[{"schemes":...}] is refused ("sec v1 security=proto-security"); a proto-shaped
     securitySchemes (no `type`) + securityRequirements is accepted ("sec v1 security=proto-schemes").
     Exactly ("secshape ..."): `security` of the card and of each skill is popped and, unless
     that object has the KEY securityRequirements, iterated as a list of {scheme: scopes}: null,
     [], {} and "" give no requirement; a number or boolean, a non-empty string or object, an
     element that is not an object, scopes that are not null or a list of strings refuse the card
     (so does `[{"schemes": {...}}]`, whose scopes are an object; `[{"schemes": []}]` is read).
     With securityRequirements present, `security` is dropped unread, whatever it holds.
     securitySchemes, when truthy, must be an object whose values are objects (`type` is popped
     from each); [], "" and 0 then fail in ParseDict (a map must be an object): only null, {} or
     an object of objects is read (a scheme's inner fields are not modelled by the gate).
  P6 capabilities null or missing: accepted with every flag false (unless P3); skills missing:
     accepted, no skills; skills:null: refused (the security step iterates it); name/version/
     skills[].id missing or null: accepted as "" ("null v1 name=null").
  P7 A member with the wrong JSON type is refused by ParseDict ("types v1 capabilities.streaming=
     \"true\"", "types v1 version=3"), except legacy members that P4 drops unread on a card with
     the supportedInterfaces key ("types hybrid url=5" accepted); additionalInterfaces:{} is
     falsy -> [] (accepted). Strings and numbers for booleans ("false", "", "0", 0, 1) and
     numbers or booleans for strings are refused ("scalar ..."), so are a null element or a
     non-list value in a repeated field ("elems v1 skills.0.tags after null", "empty v1
     skills.0.tags={}"). A string or a list where a message is expected is iterated as member
     names: "x" or [] reads as an empty message ("elems proto supported_interfaces after \"x\"").
     The same holds in every message ParseDict reaches ("pdtypes ..."): provider, signatures
     (header is a Struct: an object), securityRequirements (schemes: a map of {list: [strings]}),
     skill name/description/tags/examples/inputModes/outputModes, extension description/
     required (boolean)/params (Struct), interface url/tenant; documentationUrl and iconUrl are
     proto3 optional (P1: two non-null spellings refuse). Security schemes ("schemes ..."): the
     step pops each securitySchemes value's `type` (a list or object `type` raises: unhashable)
     and, for apiKey/http/oauth2/openIdConnect/mutualTLS, wraps the rest as that v1.0 message
     (apiKey: `in` -> `location`); other types leave the rest to be read as a v1.0
     SecurityScheme, whose five wrappers are a oneof. OAuthFlows is a oneof too, so a v0.3
     oauth2 scheme listing two flows is refused ("schemes securitySchemes oauth2 two flows");
     scopes are map<string, string>. `security_schemes` (snake_case) is not mapped: its values
     are read as v1.0 SecuritySchemes (a v0.3 `type` is then an unknown member).
  P8 protobuf's upb backend looks a member name up as a proto FIELD name (snake_case) only up to
     its first U+0000 (the lowerCamel JSON-name lookup is exact). In the card, capabilities, a
     skill, an extension or an interface, `skills\u0000`, `skills\u0000x`, `streaming\u0000`,
     `id\u0000`, `uri\u0000`, `protocol_binding\u0000`... is a second spelling of that field
     (P1/P2: the last in document order wins, null clears, two non-null flag spellings refuse):
     "keys v1 'skills\x00'=[...]" -> only other.skill; "keys v1 'capabilities\x00'=null" -> no
     flags; "keys v1 'skills.0.id\x00'=..." -> the other id. `pushNotifications\u0000`,
     `supportedInterfaces\u0000` and `foo\u0000` are unknown names (ignored). No other reader
     does this (JS and the gate compare names whole).
  P9 A member name in protobuf's extension syntax (`[` [A-Za-z0-9._]* `]`, `[]` included, one
     trailing "\n" allowed) in any object ParseDict reads as a message refuses the card, whatever
     ignore_unknown_fields says: "keys v1 (top).[x]=1", "keys v1 skills.0.[x]=1", also inside
     provider or a securitySchemes value; inside a Struct (extension params) it is data.

npm @a2a-js/sdk `DefaultAgentCardResolver.normalizeAgentCard`: three paths; only the v0.3
conversion can throw. `AgentCardResolver.default` (what ClientFactory uses) has legacyCompat off.
  J1 legacyCompat on and isLegacyAgentCard -> toCoreAgentCard. Legacy = NOT supportedInterfaces
     a non-empty array, AND (url is a string, even "", with the KEY supportedInterfaces absent; or
     the KEY preferredTransport / additionalInterfaces / supportsAuthenticatedExtendedCard exists,
     even null; or protocolVersion is "", "0.3" or "0.3.x"). So url:null or a missing url alone
     is not legacy ("legacy url=null preferredTransport=- ..." -> raw, no interface), and
     supportedInterfaces:[] + protocolVersion "0.3" is legacy (-> JSONRPC 0.3 interface).
  J2 toCoreAgentCard ignores the card's own supportedInterfaces/supported_interfaces and builds
     {url (even missing or ""), protocolBinding: preferredTransport ?? "JSONRPC" (null ->
     JSONRPC, unlike P4), protocolVersion: protocolVersion || "0.3"} then one interface per
     additionalInterfaces item with binding = transport (may be missing) and version "0.3"
     always. Flags camelCase only (no snake_case: "sec legacy ... snake_case=yes" loses
     push_notifications); capabilities.extendedAgentCard is DISCARDED and replaced by
     supportsAuthenticatedExtendedCard when that key is present (null included): "legacy caps.
     extendedAgentCard true, no sAEC" -> unset; "caps.eAC false, sAEC true" -> true.
     Throws (refused): capabilities missing/null, defaultInputModes or defaultOutputModes not an
     array (snake_case spelling not read: "modes legacy default modes=snake"), skills not an
     array, a skill without tags ("modes legacy ... skill tags=no"), additionalInterfaces neither
     an array nor null (null reads as []), a securitySchemes value without a v0.3 `type`,
     proto-shaped skill security. The gate models every throw of toCoreAgentCard
     (sdk_reading::js_legacy_check, DESIGN.md's table, tests/vectors/sdk_legacy_compat.json)
     and refuses such a card (sdk_refuses_card): before, these cards were PARTIAL (70 of 2 418).
     Values are copied uncoerced (url:5, protocolVersion:0.3 pass through as numbers).
  J3 Else if isProtoAgentCard (security[0] has `schemes`, or the first securitySchemes value has
     no `type`, or a skill's security[0] has `schemes`) -> AgentCard.fromJSON: scalars camelCase
     if not null/undefined else snake_case (document order irrelevant); lists camelCase if it is
     an array (even []) else snake_case (supportedInterfaces:[] + supported_interfaces:[GRPC] ->
     none; supportedInterfaces:null + supported_interfaces:[GRPC] -> GRPC); Boolean()/String()
     coercion (streaming:"false" -> true); legacy top-level members are dropped, including
     supportsAuthenticatedExtendedCard (probe: proto-schemes card + sAEC true -> no flag).
  J4 Else the raw object, unchanged: snake_case never read, nulls stay null, legacy members never
     mapped (every v0.3 card has no interface at all under the default resolver: "legacy url=...
     preferredTransport='GRPC'" -> js_default has no binding), no type checks. Never throws.
  J6 AgentCard.fromJSON throws on a null item of a list it maps ("elems proto
     supported_interfaces after null"); other odd items are coerced (String(), Boolean()).
  J7 isLegacyVersion trims ECMAScript whitespace (U+FEFF, U+00A0, U+1680, U+3000, U+2028, tab,
     LF; not U+200B, U+180E, U+0085) and parseInt reads the leading ASCII digits of the first two
     dot segments: "0.3x", "0.3-rc", "0x0.3", "0 .3", "+0.3", "-0.3", "0.3e1", "0." + 500 zeros
     + "3" and "0.30" are legacy; "0.\u0663", "0.-3", ".3", "0.", "0" + 400 nines after the dot
     (Infinity) are not ("pver detect ..." cards: pushNotifications is lost exactly when the
     conversion runs).
Every reader (and the gate) compares member names and values after JSON decoding and exactly:
escaped spellings are the same member ("esc ..."); letter case, separators, a trailing space,
zero-width, fullwidth or dotless-i spellings are unknown members ("keys ..."; except P8);
U+0000, control and invisible characters in values are kept ("nul ..."); flags or legacy members
in another container (top level, an interface, a skill, capabilities.capabilities) are read by
no reading ("box ..."); skill ids and extension uris are taken as written, without case folding,
trimming or Unicode normalization ("skill ...", "exturi ...").
  J8 ClientFactory (not a reading: what a client does with one) keys interfaces by
     protocolBinding.toUpperCase() (`jsonrpc`, and `J\u017fONRPC` with U+017F LONG S, select
     JSONRPC; spaces and line feeds are kept, so " JSONRPC" selects nothing: "bind ..." cards)
     and prefers the one whose protocolVersion is exactly "1.0"; an interface without binding
     makes it throw. a2a-sdk's ClientFactory compares bindings exactly and reads versions with
     packaging.Version (" 1.0 ", "v1.0", "01.0" are 1.0 there; "0.3.0-x" is invalid, so that
     interface is never selected). The readings' capabilities compare binding strings exactly,
     as cardgate's vocabulary does, and count `protocol:` per interface independently of its
     binding; client_picks.py asks the real ClientFactory of each SDK which interface it picks.
     a2a-sdk's `_find_best_interface` catches only InvalidVersion: a version with a number of
     more than 4300 digits ("1." + 4301 zeros) makes packaging's int() raise ValueError, so the
     factory raises, no client at all for that binding, when its scan reaches that interface
     (no 1.0 one before it): "cpair v1 '0.3' then <4402 chars ...>".
  P10 Depth ("depth ..."): ParseDict refuses a message nested deeper than 100
     (max_recursion_depth; the card is 1). Inside a Struct (extension params at depth 4,
     signature header at depth 3) each member or element is a Value one level below its
     container and each object or list a Struct/ListValue one level below that Value: 48 nested
     objects holding a value in params are read, 49 refused ("depth v1 params obj levels=49
     inner=1"), 49 with the innermost empty read; header one level more. Deep unknown members
     are not messages (only the gate's own 64-level limit). JS has no limit.
Card objects (the npm package's evaluate(object, ...); tests/node/card-objects.test.mjs, not
this driver): @a2a-js/sdk reads the object the caller holds, not its JSON text:
isLegacyAgentCard's `in` is true for a member set to undefined, inherited or non-enumerable
(`{..., supportsAuthenticatedExtendedCard: undefined}` is legacy, so legacyCompat drops
capabilities.extendedAgentCard while the JSON text grants it); getters run on every read; toJSON,
Date, Map, Set and class instances read otherwise than their JSON. The package refuses every such
object with a TypeError (DESIGN.md "Card objects"); a member set to undefined counts as absent
except at the members the SDK tests with `in` or Object.values (isLegacyAgentCard's four keys,
security[].schemes, securitySchemes values and their type).
"""

import argparse
import base64
import collections
import concurrent.futures
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import time

import client_picks
import gen_adv
import gen_cards
import gen_choice
import gen_indep

HERE = pathlib.Path(__file__).resolve().parent
READINGS = ["py", "js_default", "js_legacy"]
# The lowest @a2a-js/sdk of the npm package's peer range (js/build.mjs), installed by .ci/setup.sh:
# read too when present (its v0.3 conversion refuses fewer cards than 1.3.0's, nothing else differs).
SDK_LOWEST = "1.0.1"
LOWEST_DIR = HERE.parent.parent / ".tools" / f"a2a-sdk-{SDK_LOWEST}"
LOWEST_READINGS = ["js101_default", "js101_legacy"]
SECOND_PY_READING = "py2"  # with --second-py: the py reading by another interpreter's a2a-sdk
PY_READINGS = ("py", SECOND_PY_READING)
BASE_CANDIDATES = [
    "capability:streaming", "capability:pushNotifications", "capability:extendedAgentCard",
    "binding:JSONRPC", "binding:GRPC", "binding:HTTP+JSON", "protocol:0.3", "protocol:1.0",
]
BINDING_KEYS = {"protocolBinding", "protocol_binding", "preferredTransport", "transport"}
VERSION_KEYS = {"protocolVersion", "protocol_version"}
RESERVED = ("extension:", "capability:", "binding:", "protocol:")


def major_minor(version):
    """cardgate's Major.Minor of a protocol version ("0.3.0" -> "0.3"), or None."""
    if not isinstance(version, str):
        return None
    parts = version.split(".", 2)
    if len(parts) < 2:
        return None
    digits = lambda s: s != "" and all("0" <= ch <= "9" for ch in s)  # noqa: E731
    if not digits(parts[0]) or not digits(parts[1]):
        return None
    if len(parts) == 3:
        rest = parts[2].replace("+", "-").split("-")[0]
        if not digits(rest):
            return None
    return parts[0] + "." + parts[1]


def js_truthy(v):
    return v not in (None, False, 0, "")


def capabilities(view, js):
    """A reading's view (py_reader / js_reader) as a set of cardgate capability names."""
    caps = set()
    for sid in view["skills"]:
        if isinstance(sid, str) and sid and not sid.startswith(RESERVED):
            caps.add(sid)
    for uri in view["extensions"]:
        if isinstance(uri, str) and uri:
            caps.add("extension:" + uri)
    for flag in ("streaming", "pushNotifications", "extendedAgentCard"):
        v = view[flag]
        if (js_truthy(v) if js else v is True):
            caps.add("capability:" + flag)
    for binding, version in view["interfaces"]:
        if isinstance(binding, str) and binding:
            caps.add("binding:" + binding)
        mm = major_minor(version)
        if mm:
            caps.add("protocol:" + mm)
    return caps


def mentioned(card):
    """Capabilities the card's text mentions anywhere (bindings also upper-cased)."""
    out = set(BASE_CANDIDATES)

    def walk(node, key):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and node:
            if key in BINDING_KEYS:
                out.update({"binding:" + node, "binding:" + node.upper()})
            elif key in VERSION_KEYS and major_minor(node):
                out.add("protocol:" + major_minor(node))
            elif key == "id" and not node.startswith(RESERVED):
                out.add(node)
            elif key == "uri":
                out.add("extension:" + node)

    walk(card, None)
    return out


def card_bytes(card):
    return json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode()


def entry_bytes(e):
    """The bytes served for a generated entry: its raw bytes, its text, or its card's compact JSON."""
    return e["raw"] if "raw" in e else e["text"].encode() if "text" in e else card_bytes(e["card"])


def card_hash(card):
    """DESIGN.md's card hash, computed independently (PyPI rfc8785)."""
    import rfc8785

    doc = {k: v for k, v in card.items() if k != "signatures"} if isinstance(card, dict) else card
    return "sha256:" + hashlib.sha256(rfc8785.dumps(doc)).hexdigest()


def reader_line(e, extra=None):
    """One reader input line: the card, and the served bytes when they are not its compact JSON;
    plus the members `extra(e)` gives (the pick readers' bindings)."""
    if "raw" in e:  # the readers parse the bytes as their HTTP client does
        line = {"id": e["id"], "card": None, "raw": base64.b64encode(e["raw"]).decode()}
    else:
        line = {"id": e["id"], "card": e["card"]}
    if extra is not None:
        line.update(extra(e))
    return json.dumps(line) + "\n"


def run_batch(cmd, entries, what, extra=None):
    """Feeds every card to one reader process as JSON lines (with `extra`, see reader_line);
    returns its answers by id."""
    feed = "".join(reader_line(e, extra) for e in entries)
    proc = subprocess.run(cmd, input=feed, capture_output=True, text=True, cwd=HERE)
    if proc.returncode != 0:
        sys.exit(f"sdk_parity: the {what} reader failed (exit {proc.returncode}):\n{proc.stderr}")
    answers = {}
    for line in proc.stdout.split("\n"):  # not splitlines(): U+2028 may stand inside a line
        if line.strip():
            a = json.loads(line)
            answers[a["id"]] = a
    missing = [e["id"] for e in entries if e["id"] not in answers]
    if missing:
        sys.exit(f"sdk_parity: the {what} reader gave no answer for cards {missing[:10]}")
    return answers


def sdk_versions(node):
    """Refuses to run against other SDK versions than the ones this test documents."""
    from importlib.metadata import version

    py = version("a2a-sdk")
    js = subprocess.run(
        [node, "--input-type=module", "-e",
         "import {readFileSync} from 'node:fs';"
         "const u = new URL('../package.json', import.meta.resolve('@a2a-js/sdk'));"
         "console.log(JSON.parse(readFileSync(u)).version)"],
        capture_output=True, text=True, cwd=HERE)
    if js.returncode != 0:
        sys.exit("sdk_parity: @a2a-js/sdk is not installed (npm ci):\n" + js.stderr)
    return py, js.stdout.strip()


def python_sdk_versions(python):
    """What the interpreter `python` reads cards with: a2a-sdk, protobuf (and its backend:
    upb, or pure python with PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python), packaging."""
    probe = ("import json; from importlib.metadata import version as v;"
             " from google.protobuf.internal import api_implementation as a;"
             " print(json.dumps({p: v(p) for p in ('a2a-sdk', 'protobuf', 'packaging')} | {'backend': a.Type()}))")
    if not os.access(python, os.X_OK):
        sys.exit(f"sdk_parity: --second-py: no executable {python}")
    proc = subprocess.run([python, "-c", probe], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"sdk_parity: --second-py {python}: no a2a-sdk (with protobuf, packaging) there:\n{proc.stderr}")
    return json.loads(proc.stdout)


def cardgate_check(cardgate, path, pin, required):
    # The requirement as JSON (ASCII escapes): a capability may hold U+0000, which argv cannot.
    args = [cardgate, "check", str(path), "--pin", pin, "--requirement", json.dumps({"require": sorted(required)})]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"cardgate check {path} exit {proc.returncode}: {proc.stderr.strip()}")
    d = json.loads(proc.stdout)
    codes = [r["code"] for r in d.get("reasons", [])]
    if "pinned_hash_mismatch" in codes:
        raise RuntimeError(f"cardgate check {path}: the harness computed another hash than cardgate")
    cls = d.get("error_class")
    if d["verdict"] == "valid" or cls == "capability_mismatch":
        granted = set(required) - set(d.get("missing_capabilities", []))
    else:
        granted = set()
    answer = {"verdict": d["verdict"], "error_class": cls, "reason_codes": codes,
              "granted": sorted(granted), "card_version": d.get("card_version"), "agent": d.get("agent")}
    if cls == "malformed_card":
        answer["malformed"] = {k: d["reasons"][0].get(k) for k in ("code", "path", "message")}
    return answer


def kind(cap):
    return cap.split(":", 1)[0] + ":" if cap.startswith(RESERVED) else "skill"


def main():
    global READINGS, LOWEST_DIR, SDK_LOWEST
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--cardgate", required=True, help="the cardgate CLI to test")
    ap.add_argument("--count", type=int, default=None,
                    help="cards to generate (default: every grid card plus gen_cards.RANDOM_CARDS random ones)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("--node", default="node")
    ap.add_argument("--out", default="target/sdk_parity/results.json")
    ap.add_argument("--examples", type=int, default=10)
    ap.add_argument("--readings", default=None,
                    help="readings the verdicts use (all are taken and shown): default all of "
                         + ",".join(READINGS + LOWEST_READINGS) + " (the last two when that SDK is installed)")
    ap.add_argument("--corpus", choices=["cards", "adv", "both", "choice", "indep"], default="cards",
                    help="gen_cards.py's grids and random cards, gen_adv.py's adversarial classes, or both"
                         " (--count then applies to each); gen_choice.py's interface lists; gen_indep.py's"
                         " independent corpus (--classes and --mixed apply)")
    ap.add_argument("--classes", default=None,
                    help="adv corpus: only these comma-separated classes (label prefixes)")
    ap.add_argument("--mixed", type=int, default=None,
                    help=f"adv corpus: random cards of each random class (mixed, remix): default {gen_adv.MIXED_CARDS};"
                         f" choice corpus: random interface lists (crand): default {gen_choice.RANDOM_CARDS}")
    ap.add_argument("--no-picks", action="store_true",
                    help="skip the client-choice check (client_picks.py: binding:X against the interface"
                         " each SDK's ClientFactory picks)")
    ap.add_argument("--picks-count", type=int, default=None,
                    help="client-choice check on a seeded sample of this many cards with a binding (default: all)")
    ap.add_argument("--second-sdk", default=None, metavar="DIR",
                    help=f"take the js101_* readings and picks from the @a2a-js/sdk installed under DIR/node_modules"
                         f" instead of {SDK_LOWEST} (e.g. another version of the package's peer range)")
    ap.add_argument("--second-py", default=None, metavar="PYTHON",
                    help=f"also take the {SECOND_PY_READING} reading and picks with the a2a-sdk of this Python"
                         " interpreter (e.g. a venv with another a2a-sdk, protobuf or packaging version)")
    args = ap.parse_args()
    if args.second_sdk:
        LOWEST_DIR = pathlib.Path(args.second_sdk).resolve()
        manifest = LOWEST_DIR / "node_modules" / "@a2a-js" / "sdk" / "package.json"
        if not manifest.is_file():
            sys.exit(f"sdk_parity: --second-sdk: no @a2a-js/sdk under {LOWEST_DIR}/node_modules")
        SDK_LOWEST = json.loads(manifest.read_text())["version"]
    if LOWEST_DIR.joinpath("node_modules", "@a2a-js", "sdk").is_dir():
        READINGS = READINGS + LOWEST_READINGS
    else:
        print(f"sdk_parity: note: no @a2a-js/sdk {SDK_LOWEST} in {LOWEST_DIR} (.ci/setup.sh js installs it):"
              " its readings are skipped", file=sys.stderr)
    py2_versions = None
    if args.second_py:
        # The readers run in this directory: a relative path is the caller's (not resolved: a venv's python is a link).
        args.second_py = os.path.abspath(args.second_py)
        py2_versions = python_sdk_versions(args.second_py)
        READINGS = READINGS + [SECOND_PY_READING]
    judged = args.readings.split(",") if args.readings else list(READINGS)
    if not judged or set(judged) - set(READINGS):
        sys.exit(f"sdk_parity: --readings takes a comma-separated subset of {','.join(READINGS)}")
    t0 = time.monotonic()
    cardgate = os.path.abspath(args.cardgate)
    if not os.access(cardgate, os.X_OK):
        sys.exit(f"sdk_parity: no executable cardgate at {args.cardgate}")
    py_version, js_version = sdk_versions(args.node)
    if (py_version, js_version) != ("1.3.0", "1.3.0"):
        sys.exit(f"sdk_parity: expected a2a-sdk 1.3.0 and @a2a-js/sdk 1.3.0, found {py_version} and {js_version}"
                 " (the reading rules in this file's docstring are for those versions)")

    entries = []
    if args.corpus in ("cards", "both"):
        entries = gen_cards.generate(args.count, args.seed)
    if args.corpus in ("adv", "both"):
        classes = set(args.classes.split(",")) if args.classes else None
        mixed = gen_adv.MIXED_CARDS if args.mixed is None else args.mixed
        for e in gen_adv.generate(args.count, args.seed, classes, mixed):
            entries.append(dict(e, id=len(entries)))
    if args.corpus == "indep":
        classes = set(args.classes.split(",")) if args.classes else None
        entries = gen_indep.generate(args.count, args.seed, args.mixed, classes)
    if args.corpus == "choice":
        entries = gen_choice.generate(args.count, args.seed,
                                      gen_choice.RANDOM_CARDS if args.mixed is None else args.mixed)
    out_path = pathlib.Path(args.out)
    cards_dir = out_path.parent / "cards"
    cards_dir.mkdir(parents=True, exist_ok=True)
    for old in cards_dir.glob("*.json"):
        old.unlink()
    for e in entries:
        e["file"] = cards_dir / f"{e['id']:04d}.json"
        e["file"].write_bytes(entry_bytes(e))
        if "raw" not in e:
            e["hash"] = card_hash(e["card"])
        else:  # bytes the strict reader may refuse: pinned to what cardgate makes of them, if anything
            h = subprocess.run([cardgate, "hash", str(e["file"])], capture_output=True, text=True).stdout.strip()
            e["hash"] = h if h.startswith("sha256:") else "sha256:" + "0" * 64

    # The independent hash must be cardgate's (a few cards are enough to catch a drift).
    for e in [e for e in entries if "raw" not in e][:3]:
        h = subprocess.run([cardgate, "hash", str(e["file"])], capture_output=True, text=True).stdout.strip()
        if h != e["hash"]:
            sys.exit(f"sdk_parity: cardgate hash {e['file']} = {h}, harness computed {e['hash']}")

    t_read = time.monotonic()
    py = run_batch([sys.executable, str(HERE / "py_reader.py")], entries, "Python")
    js = run_batch([args.node, str(HERE / "js_reader.mjs")], entries, "Node")
    js101 = None
    if LOWEST_READINGS[0] in READINGS:
        js101 = run_batch([args.node, str(HERE / "js_reader.mjs"), "--sdk", str(LOWEST_DIR)], entries,
                          f"Node (@a2a-js/sdk {SDK_LOWEST})")
    py2 = None
    if py2_versions is not None:
        py2 = run_batch([args.second_py, str(HERE / "py_reader.py")], entries, f"Python ({args.second_py})")
    t_read = time.monotonic() - t_read

    for e in entries:
        readings = {"py": dict(py[e["id"]], path="parse_agent_card"),
                    "js_default": js[e["id"]]["default"], "js_legacy": js[e["id"]]["legacy"]}
        if js101 is not None:
            readings["js101_default"] = js101[e["id"]]["default"]
            readings["js101_legacy"] = js101[e["id"]]["legacy"]
        if py2 is not None:
            readings[SECOND_PY_READING] = dict(py2[e["id"]], path="parse_agent_card")
        for name, r in readings.items():
            r.pop("id", None)
            if r["ok"]:
                r["caps"] = sorted(capabilities(r["view"], js=name not in PY_READINGS))
        e["readings"] = readings
        e["required"] = set(mentioned(e["card"])) | set(e.get("probe", []))
        for r in readings.values():
            e["required"].update(r.get("caps", []))
        # A capability with a lone surrogate cannot be required (a requirement is I-JSON too).
        e["required"] = {c for c in e["required"] if c.encode("utf-8", "surrogatepass").decode("utf-8", "ignore") == c}

    t_gate = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        answers = pool.map(lambda e: cardgate_check(cardgate, e["file"], e["hash"], e["required"]), entries)
        for e, a in zip(entries, answers):
            e["cardgate"] = a
    t_gate = time.monotonic() - t_gate

    # Verdicts.
    for e in entries:
        granted = set(e["cardgate"]["granted"])
        judged_readings = {n: r for n, r in e["readings"].items() if n in judged}
        accepting = {n: set(r["caps"]) for n, r in judged_readings.items() if r["ok"]}
        refused = [n for n, r in judged_readings.items() if not r["ok"]]
        e["accepted_by"], e["refused_by"] = sorted(accepting), refused
        if accepting:
            common = set.intersection(*accepting.values())
            e["unsafe"] = sorted(granted - common)
            e["unsafe_by_reading"] = {n: sorted(granted - caps) for n, caps in accepting.items() if granted - caps}
            e["over_strict"] = sorted(common - granted)
        else:
            e["unsafe"] = sorted(granted)
            e["unsafe_by_reading"] = {"(all refuse)": sorted(granted)} if granted else {}
            e["over_strict"] = []
        e["partial_grants"] = sorted(granted) if refused and accepting else []
        # On a card the gate evaluates (valid or capability_mismatch), every accepting reading must
        # hold the very strings it decided on: condition (a)'s card_version, and the decision's
        # `agent` (its reading of `name`, which `card_name` is compared with).
        evaluated = e["cardgate"]["verdict"] == "valid" or e["cardgate"]["error_class"] == "capability_mismatch"

        def held_apart(member, gate_value):
            return sorted(n for n, r in judged_readings.items()
                          if evaluated and r["ok"] and r["view"].get(member) != gate_value)

        e["version_unsafe"] = held_apart("version", e["cardgate"]["card_version"])
        e["name_unsafe"] = held_apart("name", e["cardgate"].get("agent"))

    n = len(entries)
    unsafe = [e for e in entries if e["unsafe"]]
    partial = [e for e in entries if e["partial_grants"]]
    strict = [e for e in entries if e["over_strict"]]
    strict_all = [e for e in strict if not e["refused_by"]]
    version_unsafe = [e for e in entries if e["version_unsafe"]]
    name_unsafe = [e for e in entries if e["name_unsafe"]]

    print(f"\nSDK differential: {n} cards (seed {args.seed}), a2a-sdk {py_version}, @a2a-js/sdk {js_version},"
          f" cardgate {args.cardgate}; verdicts over readings {','.join(judged)}"
          + (f" (js101_*: @a2a-js/sdk {SDK_LOWEST})" if LOWEST_READINGS[0] in READINGS else "")
          + (f" ({SECOND_PY_READING}: {args.second_py}: a2a-sdk {py2_versions['a2a-sdk']}, protobuf"
             f" {py2_versions['protobuf']} ({py2_versions['backend']}), packaging {py2_versions['packaging']})"
             if py2_versions else ""))
    print(f"  {'reading':<12}{'accepted':>10}{'refused':>10}   paths taken (accepted)")
    for name in READINGS:
        rs = [e["readings"][name] for e in entries]
        paths = collections.Counter(r["path"] for r in rs if r["ok"])
        print(f"  {name:<12}{sum(r['ok'] for r in rs):>10}{sum(not r['ok'] for r in rs):>10}   "
              + ", ".join(f"{p} {c}" for p, c in sorted(paths.items())))
    every = sum(1 for e in entries if not e["accepted_by"])
    some = sum(1 for e in entries if e["accepted_by"] and e["refused_by"])
    print(f"  cards: every reading accepts {n - every - some}, some refuse {some}, all refuse {every}")
    decisions = collections.Counter(e["cardgate"]["error_class"] or "valid" for e in entries)
    malformed = collections.Counter(e["cardgate"]["malformed"]["code"] for e in entries if "malformed" in e["cardgate"])
    print("  cardgate: " + ", ".join(f"{k} {v}" for k, v in sorted(decisions.items()))
          + (" (malformed: " + ", ".join(f"{k} {v}" for k, v in sorted(malformed.items())) + ")" if malformed else ""))

    def breakdown(es, field):
        by_kind = collections.Counter(kind(c) for e in es for c in e[field])
        by_grid = collections.Counter(e["label"].split()[0] for e in es)
        return (", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())),
                ", ".join(f"{k} {v}" for k, v in by_grid.most_common()))

    print()
    n_unsafe = sum(len(e["unsafe"]) for e in unsafe)
    print(f"  UNSAFE       {len(unsafe)} cards, {n_unsafe} capability grants an SDK reading lacks")
    if unsafe:
        kinds, grids = breakdown(unsafe, "unsafe")
        lacking = collections.Counter(r for e in unsafe for r in e["unsafe_by_reading"])
        print(f"               by kind: {kinds}\n               by grid: {grids}")
        only = collections.Counter(next(iter(e["unsafe_by_reading"])) for e in unsafe if len(e["unsafe_by_reading"]) == 1)
        print("               cards per reading lacking a grant: " + ", ".join(f"{k} {v}" for k, v in sorted(lacking.items()))
              + "; the only one lacking: " + ", ".join(f"{k} {v}" for k, v in sorted(only.items())))
    print(f"  VERSION      {len(version_unsafe)} cards the gate evaluates on a version an accepting reading does not hold")
    for e in version_unsafe[:args.examples]:
        print(f"    #{e['id']} {e['label']}: cardgate {e['cardgate']['card_version']!r}, "
              + ", ".join(f"{n} {e['readings'][n]['view'].get('version')!r}" for n in e["version_unsafe"]))
    print(f"  NAME         {len(name_unsafe)} cards the gate evaluates on a name an accepting reading does not hold")
    for e in name_unsafe[:args.examples]:
        print(f"    #{e['id']} {e['label']}: cardgate {e['cardgate']['agent']!r}, "
              + ", ".join(f"{n} {e['readings'][n]['view'].get('name')!r}" for n in e["name_unsafe"]))
    print(f"  PARTIAL      {len(partial)} cards with grants although some reading refuses the card"
          f" ({sum(len(e['partial_grants']) for e in partial)} grants)")
    n_strict = sum(len(e["over_strict"]) for e in strict)
    print(f"  OVER-STRICT  {len(strict)} cards, {n_strict} capabilities every accepting reading has, not granted"
          f" ({len(strict_all)} cards where every reading accepts)")
    if strict:
        kinds, grids = breakdown(strict, "over_strict")
        print(f"               by kind: {kinds}\n               by grid: {grids}")

    def examples(title, es, field):
        if not es:
            return
        # Spread the examples over the grids.
        by_grid = collections.defaultdict(list)
        for e in es:
            by_grid[e["label"].split()[0]].append(e)
        picked = []
        while len(picked) < min(args.examples, len(es)):
            for g in list(by_grid):
                if by_grid[g] and len(picked) < args.examples:
                    picked.append(by_grid[g].pop(0))
        print(f"\n{title} examples ({len(picked)} of {len(es)}):")
        for e in picked:
            print(f"- #{e['id']} {e['label']}\n    card {e['file']}: {json.dumps(e['card'], separators=(',', ':'))}")
            for name in READINGS:
                r = e["readings"][name]
                if r["ok"]:
                    print(f"    {name:<10} accepts ({r['path']}): {' '.join(r['caps'])}")
                else:
                    print(f"    {name:<10} REFUSES: {r['error']}")
            g = e["cardgate"]
            answer = g["error_class"] or g["verdict"]
            print(f"    cardgate   {answer}: grants {' '.join(g['granted']) or 'nothing'}")
            print(f"    {field}: {' '.join(e[field])}")

    examples("UNSAFE", unsafe, "unsafe")
    examples("PARTIAL (grants on a card some reading refuses)", partial, "partial_grants")
    examples("OVER-STRICT", strict, "over_strict")

    picks_summary, picks_failed = None, False
    if not args.no_picks:
        t_picks = time.monotonic()
        picks_summary, picks_failed = client_picks.check(
            entries, judged, READINGS, cardgate_check, run_batch, cardgate, HERE, args.node, LOWEST_DIR,
            args.jobs, args.examples, major_minor, args.picks_count, args.seed, args.second_py,
            py2_versions)
        print(f"  client picks in {time.monotonic() - t_picks:.1f} s")

    out_path.parent.mkdir(parents=True, exist_ok=True)
    results = {
        "sdk": {"a2a-sdk": py_version, "@a2a-js/sdk": js_version}
        | ({SECOND_PY_READING: py2_versions} if py2_versions else {}), "seed": args.seed, "count": n,
        "readings": judged,
        "cardgate": args.cardgate,
        "summary": {"unsafe_cards": len(unsafe), "unsafe_grants": n_unsafe, "version_unsafe_cards": len(version_unsafe),
                    "name_unsafe_cards": len(name_unsafe),
                    "partial_cards": len(partial),
                    "over_strict_cards": len(strict), "over_strict_capabilities": n_strict,
                    "decisions": dict(decisions), "client_picks": picks_summary},
        "cards": [{k: (str(v) if k == "file" else sorted(v) if k == "required" else v)
                   for k, v in e.items() if k != "raw"} for e in entries],
    }
    # Written as it is encoded: a long run (600 000 cards) held the whole text beside the
    # results and ran out of memory (24 GB) here, after its summaries were printed.
    with out_path.open("w") as out:
        json.dump(results, out, indent=1)
        out.write("\n")
    elapsed = time.monotonic() - t0
    print(f"\n  {n} cards in {elapsed:.1f} s (SDK readers {t_read:.1f} s, cardgate {t_gate:.1f} s,"
          f" {args.jobs} jobs); full results: {out_path}")
    if unsafe or picks_failed or version_unsafe or name_unsafe:
        if name_unsafe:
            print(f"sdk_parity: FAIL: on {len(name_unsafe)} cards cardgate compares card_name with a name an SDK's"
                  " parsed card does not hold")
        if version_unsafe:
            print(f"sdk_parity: FAIL: on {len(version_unsafe)} cards cardgate checks the minimum version against a"
                  " version string an SDK's parsed card does not hold")
        if unsafe:
            print(f"sdk_parity: FAIL: cardgate grants {n_unsafe} capabilities on {len(unsafe)} cards that an SDK's"
                  " parsed card lacks")
        if picks_failed:
            print(f"sdk_parity: FAIL: cardgate grants {picks_summary['unsafe']} bindings on {picks_summary['unsafe_cards']}"
                  " cards where an SDK's client picks no interface or one at another protocol version")
        return 1
    print("sdk_parity: ok: no unsafe grant")
    return 0


if __name__ == "__main__":
    sys.exit(main())
