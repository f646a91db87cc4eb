"""A verdict header means every condition was checked (issue 7 §2), through a real Envoy:

- upstream `a2a-card-*` headers never reach the client, on any answer (any method, any path);
- card routes are recognised under every spelling of their path an upstream may read, both by
  the filter alone and behind the shipped connection-manager normalisation;
- a caller's pin only adds a condition on top of the operator's freshness rule;
- HEAD is checked with a GET upstream and answered with headers only; conditional headers are
  removed, and an upstream 304 is never stamped valid;
- a valid answer's cache lifetime never outlives what is left of the tolerance.
"""

import itertools
import json
import os
import socket

import pytest

import harness
from test_responses import CARD, card_json, oracle_hash

_ids = itertools.count()

FORGED = [("a2a-card-verdict", "valid"), ("A2A-Card-Hash", "sha256:" + "0" * 64),
          ("a2a-card-staleness-ms", "1"), ("a2a-card-freshness", "pinned"), ("A2A-CARD-X", "y")]


def forged_values(resp):
    """Forged a2a-card-* headers that reached the client (values the gate itself never sends
    on these answers; a forged `a2a-card-verdict: valid` is checked by each test)."""
    forged = {("a2a-card-hash", "sha256:" + "0" * 64), ("a2a-card-staleness-ms", "1"),
              ("a2a-card-freshness", "pinned"), ("a2a-card-x", "y")}
    return [(k, v) for k, v in resp.headers if (k, v) in forged]


def script(registry, path, body=None, status=200, lag_ms="250", headers=(), **kw):
    hdrs = [("Content-Type", "application/json")] + list(headers)
    if lag_ms is not None:
        hdrs.append(("x-replica-lag-ms", lag_ms))
    registry.register(registry.script(path, card_json() if body is None else body, status, hdrs, **kw))
    return path


def fresh_id():
    return "v%d" % next(_ids)


def pin_case_card():
    with open(os.path.join(harness.ROOT, "tests", "vectors", "pin.json")) as f:
        case = json.load(f)["cases"][0]
    return case["card"], case["requirement"]["pin"]


# -- forged verdict headers never pass -------------------------------------------------------

@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
def test_forged_verdicts_are_stripped_from_every_method(gate, method):
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), lag_ms="40000", headers=FORGED)
    resp = gate.get(path, method=method)
    assert forged_values(resp) == [], resp
    assert resp.header("a2a-card-verdict") is None


def test_forged_verdicts_are_stripped_off_card_routes_and_from_non_2xx(gate, observe_gate):
    reg = gate.registry
    other = script(reg, "/not-a-card/%s" % fresh_id(), body=b"hello", headers=FORGED)
    for g in (gate, observe_gate):
        for method in ("GET", "HEAD", "POST"):
            resp = g.get(other, method=method)
            assert resp.status == 200, resp
            assert [h for h in resp.headers if h[0].startswith("a2a-card-")] == [], (method, resp)
    for status in (404, 500, 301, 204):
        path = script(reg, "/agents/%s/card" % fresh_id(), body=b"" if status == 204 else b"x", status=status,
                      headers=FORGED)
        resp = gate.get(path)
        assert forged_values(resp) == [], (status, resp)
        assert resp.header_all("a2a-card-verdict") in ([], ["rejected"]), (status, resp)


def test_local_replies_carry_only_the_gates_headers(gate):
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), headers=FORGED)
    resp = gate.get(path, {"a2a-min-card-version": "latest"})
    assert resp.status == 400, resp
    assert [h for h in resp.headers if h[0].startswith("a2a-card-")] == []
    stale = script(gate.registry, "/agents/%s/card" % fresh_id(), lag_ms="40000", headers=FORGED)
    resp = gate.get(stale)
    assert resp.status == 503
    assert [h for h in resp.headers if h[0].startswith("a2a-card-")] == [("a2a-card-verdict", "rejected"),
                                                                         ("a2a-card-hash", oracle_hash(CARD)),
                                                                         ("a2a-card-staleness-ms", "40000")]


# -- path variants ---------------------------------------------------------------------------

def variants(agent):
    """Spellings of /agents/<agent>/card a lenient upstream serves as the card."""
    return [
        "/agents/%s/card/" % agent,
        "/agents/%s/card//" % agent,
        "//agents//%s///card" % agent,
        "/agents/%s/./card" % agent,
        "/agents/./%s/card" % agent,
        "/agents/zz/../%s/card" % agent,
        "/agents/%s/%%63ard" % agent,
        "/agents/%s/%%2e/card" % agent,
        "/agents/%s/%%2E%%2E/%s/card" % (agent, agent),
        "/%%61gents/%s/card" % agent,
        "/AGENTS/%s/Card" % agent,
        "/agents/%s/card;jsessionid=1" % agent,
        "/agents/%s/card?x=1" % agent,
        "/agents%%2F%s%%2Fcard" % agent,
        "/agents/%s%%2Fcard" % agent,
        "/agents\\%s\\card" % agent,
    ]


WELL_KNOWN_VARIANTS = [
    "/%s/.well-known/agent-card.json/",
    "/%s/%%2Ewell-known/agent-card.json",
    "/%s/%%2ewell-known/agent-card%%2Ejson",
    "/%s/.Well-Known/Agent-Card.JSON",
    "/%s/./.well-known//agent-card.json",
    "/%s/x/../.well-known/agent-card.json",
    "/%s/.well-known/agent-card.json;v=1",
]


def check_variant_is_gated(g, path, stale):
    resp = g.get(path)
    assert forged_values(resp) == [], (path, resp)
    if resp.status in (400, 404) and resp.header("a2a-card-verdict") is None:
        # Envoy refused the path itself, or (normalised) it names no card: nothing was served.
        assert resp.body != card_json(), (path, resp)
        return resp
    if resp.status in (301, 302, 307, 308):
        return resp  # normalisation redirects (escaped slashes): the client asks again
    if stale:
        assert resp.status == 503, (path, resp)
        assert resp.header_all("a2a-card-verdict") == ["rejected"], (path, resp)
        assert resp.json()["reasons"][0]["code"] == "watermark_exceeded"
    else:
        assert resp.status == 200, (path, resp)
        assert resp.header_all("a2a-card-verdict") == ["valid"], (path, resp)
        assert resp.header_all("a2a-card-hash") == [oracle_hash(CARD)], (path, resp)
    return resp


@pytest.mark.parametrize("listener", ["enforce", "normalized"])
def test_path_variants_of_a_stale_card_are_gated(envoy, registry, listener):
    from conftest import Gate
    g = Gate(envoy, registry, listener)
    agent = fresh_id()
    script(registry, "/agents/%s/card" % agent, lag_ms="40000", headers=FORGED)
    plain = Gate(envoy, registry, "plain")
    for path in variants(agent):
        # Without the gate the upstream serves the stale card, forged verdict and all ...
        unguarded = plain.get(path)
        assert (unguarded.status, unguarded.header("a2a-card-verdict")) == (200, "valid"), (path, unguarded)
        # ... through it, never.
        resp = check_variant_is_gated(g, path, stale=True)
        if listener == "enforce":
            # The filter alone (no connection-manager normalisation) gates every variant.
            assert resp.status == 503, (path, resp)
    # Unchanged plain paths keep working.
    assert g.get("/agents/%s/card" % agent).status == 503


@pytest.mark.parametrize("listener", ["enforce", "normalized"])
def test_path_variants_of_a_fresh_card_are_stamped_once(envoy, registry, listener):
    from conftest import Gate
    g = Gate(envoy, registry, listener)
    agent = fresh_id()
    script(registry, "/agents/%s/card" % agent, headers=FORGED)
    for path in variants(agent):
        check_variant_is_gated(g, path, stale=False)


@pytest.mark.parametrize("listener", ["enforce", "normalized"])
def test_well_known_variants_are_gated(envoy, registry, listener):
    from conftest import Gate
    g = Gate(envoy, registry, listener)
    base = "wk-" + fresh_id()
    script(registry, "/%s/.well-known/agent-card.json" % base, lag_ms="40000", headers=FORGED)
    for template in WELL_KNOWN_VARIANTS:
        resp = check_variant_is_gated(g, template % base, stale=True)
        if listener == "enforce":
            assert resp.status == 503, (template, resp)


def test_agent_id_spellings_find_the_agents_rule(gate):
    # Mixed-Case-7's rule requires task.execute.v3; to a case-insensitive registry mixed-case-7
    # is the same agent, so it gets the same rule, not the looser defaults.
    card = dict(CARD, skills=[dict(CARD["skills"][0], id="task.execute.v2")])
    script(gate.registry, "/agents/mixed-case-7/card", body=card_json(card))
    # An upstream that drops ;parameters reads the last one as mixed-case-7 too: both the rule
    # for "mixed-case-7;v=1" (the defaults) and Mixed-Case-7's apply.
    for path in ("/agents/mixed-case-7/card", "/agents/MIXED-CASE-7/card", "/Agents/Mixed-Case-7/card/",
                 "/agents/mixed-case-7;v=1/card"):
        resp = gate.get(path)
        assert resp.status == 409, (path, resp)
        assert resp.json()["missing_capabilities"] == ["task.execute.v3"]


def test_normalising_listener_forwards_the_normalised_path(normalized_gate):
    agent = fresh_id()
    script(normalized_gate.registry, "/agents/%s/card" % agent)
    resp = normalized_gate.get("/agents/zz/..//%s/./%%63ard" % agent)
    assert resp.status == 200, resp
    assert resp.header("a2a-card-verdict") == "valid"
    seen = dict(normalized_gate.registry.last_request_headers("/agents/%s/card" % agent))
    assert seen[":method"] == "GET"
    # Escaped slashes are redirected to their unescaped form (path_with_escaped_slashes_action).
    resp = normalized_gate.get("/agents%%2F%s%%2Fcard" % agent)
    assert resp.status in (301, 302, 307, 308), resp
    assert resp.header("location").endswith("/agents/%s/card" % agent), resp


# -- caller pins only tighten ----------------------------------------------------------------

def test_caller_pin_adds_to_the_operator_tolerance(gate):
    reg = gate.registry
    pin = {"a2a-card-pin": oracle_hash(CARD)}
    cases = [("250", 200, None), ("10000", 200, None), ("40000", 503, "watermark_exceeded"),
             (None, 503, "freshness_unverifiable"), ("junk", 503, "watermark_invalid")]
    for lag, status, code in cases:
        path = script(reg, "/agents/%s/card" % fresh_id(), lag_ms=lag)
        resp = gate.get(path, pin)
        assert resp.status == status, (lag, resp)
        if code:
            assert [r["code"] for r in resp.json()["reasons"]] == [code], (lag, resp)
        else:
            assert resp.header("a2a-card-freshness") == "pinned"
            assert resp.header("a2a-card-hash") == oracle_hash(CARD)
    # A wrong pin fails even on a fresh card; a stale card with a wrong pin reports the pin.
    path = script(reg, "/agents/%s/card" % fresh_id(), lag_ms="40000")
    resp = gate.get(path, {"a2a-card-pin": "sha256:" + "a" * 64})
    assert [r["code"] for r in resp.json()["reasons"]] == ["pinned_hash_mismatch"]


def test_caller_pin_cannot_loosen_on_head_or_envelopes(gate):
    reg = gate.registry
    pin = {"a2a-card-pin": oracle_hash(CARD)}
    stale = script(reg, "/agents/%s/card" % fresh_id(), lag_ms="40000")
    assert gate.get(stale, pin, method="HEAD").status == 503
    envelope = "/v1/resolve/%s" % fresh_id()
    reg.register(reg.script(envelope, json.dumps({"card": CARD, "replication": {"lag_ms": 40000}}), 200, []))
    assert gate.get(envelope, pin).status == 503


def test_operator_pin_rule_plus_caller_tolerance_needs_both(gate):
    # pin-0 is a vector case's rule: {"require": ["ledger.reconcile"], "pin": <that card's hash>}
    # (plus the test defaults' max_stale, which a pin-only rule does not consult).
    card, pin = pin_case_card()
    body = json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode()
    script(gate.registry, "/agents/pin-0/card", body=body, lag_ms="40000")
    resp = gate.get("/agents/pin-0/card")
    assert resp.status == 200, resp
    assert resp.header("a2a-card-freshness") == "pinned"
    resp = gate.get("/agents/pin-0/card", {"Cache-Control": "max-stale=5"})
    assert resp.status == 503, resp
    assert resp.json()["reasons"][0]["message"] == "staleness 40000 ms exceeds max_stale 5000 ms"
    resp = gate.get("/agents/pin-0/card", {"a2a-card-pin": "sha256:" + "b" * 64})
    assert resp.status == 400, resp  # two different pins: no card can match both
    assert resp.json()["header"] == "a2a-card-pin"


# -- HEAD and conditional requests -----------------------------------------------------------

def test_head_is_checked_with_a_get_and_answered_with_headers_only(gate):
    reg = gate.registry
    path = script(reg, "/agents/%s/card" % fresh_id(), headers=FORGED)
    conn = harness.http.client.HTTPConnection("127.0.0.1", gate.port, timeout=10)
    try:
        conn.request("HEAD", path)
        head = conn.getresponse()
        assert head.read() == b""
        headers = [(k.lower(), v) for k, v in head.getheaders()]
        assert head.status == 200, headers
        assert [v for k, v in headers if k == "a2a-card-verdict"] == ["valid"]
        assert [v for k, v in headers if k == "a2a-card-hash"] == [oracle_hash(CARD)]
        assert dict(headers).get("content-length") == str(len(card_json())), headers
        assert dict(headers).get("content-type") == "application/json"
        # The same connection still works: no stray body bytes followed the HEAD answer.
        conn.request("GET", path)
        get = conn.getresponse()
        assert (get.status, get.read()) == (200, card_json())
    finally:
        conn.close()
    assert dict(reg.last_request_headers(path))[":method"] == "GET"
    # Raw bytes: after the HEAD answer's headers, nothing.
    with socket.create_connection(("127.0.0.1", gate.port), timeout=5) as s:
        s.sendall(("HEAD %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head_part, _, rest = data.partition(b"\r\n\r\n")
    assert b"a2a-card-verdict: valid" in head_part.lower(), data
    assert rest == b"", data


def test_head_fails_on_every_condition_not_just_freshness(gate):
    reg = gate.registry
    fresh = script(reg, "/agents/%s/card" % fresh_id())
    resp = gate.get(fresh, {"a2a-require-capabilities": "task.cancel"}, method="HEAD")
    assert resp.status == 409, resp
    assert resp.body == b""
    resp = gate.get(fresh, {"a2a-min-card-version": "9"}, method="HEAD")
    assert resp.status == 503, resp
    resp = gate.get(fresh, {"a2a-card-pin": "sha256:" + "c" * 64}, method="HEAD")
    assert resp.status == 503, resp
    broken = script(reg, "/agents/%s/card" % fresh_id(), body=b"{not json")
    assert gate.get(broken, method="HEAD").status == 502
    # Under a pin-only rule, HEAD checks the pin on the card the upstream would send.
    card, _ = pin_case_card()
    script(reg, "/agents/pin-1/card", body=card_json(dict(card, version="9.9.9")), lag_ms=None)
    resp = gate.get("/agents/pin-1/card", method="HEAD")
    assert resp.status == 503, resp
    assert resp.header("a2a-card-verdict") == "rejected"


def test_observe_mode_head_has_no_body_either(observe_gate):
    path = script(observe_gate.registry, "/agents/%s/card" % fresh_id(), lag_ms="40000")
    resp = observe_gate.get(path, method="HEAD")
    assert (resp.status, resp.body) == (200, b"")
    assert resp.header("a2a-card-verdict") == "rejected"


def test_conditional_and_range_headers_are_removed(gate):
    reg = gate.registry
    path = script(reg, "/agents/%s/card" % fresh_id())
    caller = {"If-None-Match": '"abc"', "If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT",
              "If-Range": '"abc"', "Range": "bytes=0-10", "If-Match": "*",
              "If-Unmodified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"}
    resp = gate.get(path, caller)
    assert resp.status == 200, resp
    assert resp.body == card_json()
    assert resp.header("a2a-card-verdict") == "valid"
    seen = {k for k, _ in reg.last_request_headers(path)}
    for name in caller:
        assert name.lower() not in seen, (name, seen)
    # Off card routes, conditional requests pass untouched.
    other = script(reg, "/not-a-card/%s" % fresh_id(), body=b"x")
    gate.get(other, {"If-None-Match": '"abc"'})
    assert "if-none-match" in {k for k, _ in reg.last_request_headers(other)}


def test_upstream_206_is_never_valid(gate):
    # Even when the partial body happens to be a whole card: a 206 is spliced into what the
    # client holds, so what the client ends up using was never checked.
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), status=206,
                  headers=[("Content-Range", "bytes 0-%d/9999" % (len(card_json()) - 1))])
    resp = gate.get(path, {"Range": "bytes=0-%d" % (len(card_json()) - 1)})
    assert resp.status == 502, resp
    assert [r["code"] for r in resp.json()["reasons"]] == ["body_empty"]
    assert "206" in resp.json()["detail"]


def test_upstream_205_with_a_card_body_is_never_valid(gate):
    # RFC 9110 15.3.6: a 205 has no content. Envoy's HTTP/1 codec still forwards a body framed by
    # Content-Length, httpx (a2a-sdk) reads it as the card, while fetch (@a2a-js/sdk) treats 205
    # as a null-body status and reads nothing: the two callers read different answers.
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), status=205)
    resp = gate.get(path)
    assert resp.status == 502, resp
    assert resp.header_all("a2a-card-verdict") == ["rejected"]
    assert [r["code"] for r in resp.json()["reasons"]] == ["body_empty"]
    assert "205" in resp.json()["detail"]


def test_upstream_304_on_head_and_observe(gate, observe_gate):
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), body=b"", status=304)
    resp = gate.get(path, method="HEAD")
    assert resp.status == 502, resp
    resp = observe_gate.get(path)
    assert resp.status == 304
    assert resp.header_all("a2a-card-verdict") == ["rejected"]


# -- cache lifetime --------------------------------------------------------------------------

def cache_control(resp):
    return {d.strip().split("=")[0].lower(): (d.strip().split("=", 1) + [None])[1]
            for d in ", ".join(resp.header_all("cache-control")).split(",") if d.strip()}


def test_valid_card_cache_lifetime_is_capped_to_the_tolerance_left(gate):
    reg = gate.registry
    path = script(reg, "/agents/%s/card" % fresh_id(), lag_ms="2500",
                  headers=[("Cache-Control", "public, max-age=60, s-maxage=120, stale-while-revalidate=30"),
                           ("Cache-Control", "stale-if-error=600"), ("Expires", "Thu, 01 Dec 2099 16:00:00 GMT"),
                           ("CDN-Cache-Control", "max-age=600"), ("Surrogate-Control", "max-age=600"),
                           ("Vary", "Accept")])
    resp = gate.get(path)
    assert resp.status == 200, resp
    assert cache_control(resp) == {"public": None, "max-age": "7", "s-maxage": "7", "must-revalidate": None}, resp.headers
    assert resp.header("expires") is None
    assert resp.header("cdn-cache-control") is None
    assert resp.header("surrogate-control") is None
    vary = ", ".join(resp.header_all("vary")).lower()
    assert "accept" in vary and "a2a-card-pin" in vary and "a2a-require-capabilities" in vary
    # No Cache-Control upstream: one is added. A shorter upstream lifetime is kept.
    bare = script(reg, "/agents/%s/card" % fresh_id(), lag_ms="0")
    assert cache_control(gate.get(bare)) == {"max-age": "10", "must-revalidate": None}
    short = script(reg, "/agents/%s/card" % fresh_id(), lag_ms="0", headers=[("Cache-Control", "max-age=3")])
    assert cache_control(gate.get(short)) == {"max-age": "3", "must-revalidate": None}
    # At the edge of the tolerance: nothing left.
    edge = script(reg, "/agents/%s/card" % fresh_id(), lag_ms="9999", headers=[("Cache-Control", "max-age=60")])
    assert cache_control(gate.get(edge)) == {"max-age": "0", "must-revalidate": None}
    # A caller's tighter tolerance caps it further.
    assert cache_control(gate.get(path, {"Cache-Control": "max-stale=5"}))["max-age"] == "2"


@pytest.mark.parametrize("name, value", [
    # nginx's proxy_cache obeys X-Accel-Expires before Cache-Control and Expires.
    ("X-Accel-Expires", "86400"),
    ("X-Accel-Expires", "@4102444800"),
    # RFC 9213 targeted fields: each overrides Cache-Control for the CDN it names.
    ("Cloudflare-CDN-Cache-Control", "max-age=86400"),
    ("Akamai-Cache-Control", "max-age=86400"),
    # Akamai's own lifetime header.
    ("Edge-Control", "cache-maxage=1d"),
])
def test_valid_card_loses_every_lifetime_header_a_cache_after_the_gate_obeys(gate, name, value):
    """A cache in front of the gate (nearer the caller) that reads one of these would keep the
    `valid` answer a day, far past the 10 s tolerance. Before: forwarded as the upstream sent it
    (beside the capped Cache-Control). Now removed, as Expires and CDN-Cache-Control are."""
    reg = gate.registry
    path = script(reg, "/agents/%s/card" % fresh_id(), lag_ms="2500",
                  headers=[(name, value), ("Cache-Control", "public, max-age=86400"), (name, value)])
    resp = gate.get(path)
    assert resp.status == 200 and resp.header("a2a-card-verdict") == "valid", resp
    assert cache_control(resp) == {"public": None, "max-age": "7", "must-revalidate": None}, resp.headers
    assert resp.header(name) is None, resp.headers
    # Not a valid answer: nothing is capped or removed (the gate's rejections are its own replies;
    # non-card answers pass as sent).
    other = script(reg, "/v1/other/%s" % fresh_id(), headers=[(name, value)])
    assert gate.get(other).header(name) == value


def test_pinned_cache_lifetime(gate):
    # Caller pin on top of the watermark: what is left of the tolerance.
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), lag_ms="1000",
                  headers=[("Cache-Control", "max-age=60")])
    resp = gate.get(path, {"a2a-card-pin": oracle_hash(CARD)})
    assert resp.status == 200, resp
    assert cache_control(resp) == {"max-age": "9", "must-revalidate": None}
    # Pin-only rule: no tolerance to spend, caches after the gate must revalidate.
    card, _ = pin_case_card()
    body = json.dumps(card, separators=(",", ":"), ensure_ascii=False).encode()
    script(gate.registry, "/agents/pin-2/card", body=body, lag_ms=None, headers=[("Cache-Control", "max-age=3600")])
    resp = gate.get("/agents/pin-2/card")
    assert resp.status == 200, resp
    assert resp.header("a2a-card-freshness") == "pinned"
    assert cache_control(resp) == {"max-age": "0", "must-revalidate": None}


def test_rejections_and_passthrough_keep_their_own_cache_headers(gate):
    stale = script(gate.registry, "/agents/%s/card" % fresh_id(), lag_ms="40000",
                   headers=[("Cache-Control", "max-age=60")])
    assert gate.get(stale).header_all("cache-control") == ["no-store"]
    missing = script(gate.registry, "/agents/%s/card" % fresh_id(), body=b"{}", status=404,
                     headers=[("Cache-Control", "max-age=60")])
    assert gate.get(missing).header_all("cache-control") == ["max-age=60"]
