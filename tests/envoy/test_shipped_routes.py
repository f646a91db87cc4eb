"""Issue 10: what the gate costs traffic, through a real Envoy.

- The shipped envoy/envoy.yaml disables the filter on every route that is not a card route, so
  that traffic never enters the Wasm VM; its route regex covers every plugin route (and the
  spellings the filter matches), and the route removes the gate's verdict header names instead.
- The per-VM analysis cache: a repeated card body reuses its analysis (cardgate.analysis.hit)
  while freshness and the requirement are still checked per request.
"""

import copy
import itertools
import json
import os
import re
from urllib.parse import quote

import pytest
import yaml

import harness
from test_responses import CARD, card_json, serve

SHIPPED = os.path.join(harness.ROOT, "envoy", "envoy.yaml")
WASM_REL = "dist/cardgate.wasm"
GATE_HEADERS = ["a2a-card-verdict", "a2a-card-hash", "a2a-card-staleness-ms", "a2a-card-freshness",
                "a2a-card-error-class", "a2a-card-reasons", "a2a-card-source", "a2a-card-attempts"]
_ids = itertools.count()


def shipped():
    with open(SHIPPED) as f:
        return yaml.safe_load(f)


def hcm(listener):
    return listener["filter_chains"][0]["filters"][0]["typed_config"]


def plugin(listener):
    wasm = next(f for f in hcm(listener)["http_filters"] if f["name"] == "envoy.filters.http.wasm")
    return json.loads(wasm["typed_config"]["config"]["configuration"]["value"])


def card_regex(listener):
    routes = hcm(listener)["route_config"]["virtual_hosts"][0]["routes"]
    enabled = [r for r in routes if "typed_per_filter_config" not in r]
    disabled = [r for r in routes if "typed_per_filter_config" in r]
    assert len(enabled) == 1 and len(disabled) == 1, routes
    assert routes[-1] is disabled[0] and disabled[0]["match"] == {"prefix": "/"}, routes
    per = disabled[0]["typed_per_filter_config"]["envoy.filters.http.wasm"]
    assert per == {"@type": "type.googleapis.com/envoy.config.route.v3.FilterConfig", "disabled": True}
    assert sorted(disabled[0]["response_headers_to_remove"]) == sorted(GATE_HEADERS)
    # Python's re and Envoy's RE2 read this regex alike (a flag, an alternation, literals).
    return re.compile(enabled[0]["match"]["safe_regex"]["regex"])


def spellings(path):
    """Forms of a card path the filter also matches (routes.rs path_variants), as they reach
    the route after the shipped normalisation."""
    segs = path.strip("/").split("/")
    return [path, path.upper(), path + "/", "/" + "/".join(s + ";p=1" for s in segs),
            path.replace("/", "//"), path + "?q=1",
            # Encoded twice (normalize_path keeps %25): a proxy after Envoy may decode it again.
            "".join("%%25%02X" % ord(c) if c.isalpha() else c for c in path),
            # A letter as a character a router may fold to it (routes.rs literal_matches): here
            # its fullwidth form, percent-encoded UTF-8 (normalize_path keeps it encoded).
            re.sub("[A-Za-z]", lambda m: quote(chr(ord(m.group().lower()) + 0xFEE0)), path, count=1),
            path.replace("s", "%C5%BF", 1).replace("k", "%E2%84%AA", 1)]


@pytest.mark.parametrize("index", [0, 1])
def test_every_card_route_keeps_the_filter_and_other_routes_disable_it(index):
    listener = shipped()["static_resources"]["listeners"][index]
    regex = card_regex(listener)
    config = plugin(listener)
    paths = [r["path"].replace("{id}", "worker-7").replace("*", "x") for r in config["routes"]]
    if config.get("well_known"):
        paths += ["/.well-known/agent-card.json", "/any/where/.well-known/agent-card.json"]
    assert len(paths) >= 4
    for path in paths:
        for form in spellings(path):
            # Envoy matches the path without its query.
            assert regex.fullmatch(form.split("?")[0]), (form, regex.pattern)
    for other in ["/v1/tasks/42", "/", "/health", "/v1/messages:send", "/agent"]:
        assert not regex.fullmatch(other), other


def shipped_for_test(registry):
    """envoy/envoy.yaml on free ports, its clusters pointed at the fixture registry."""
    config = copy.deepcopy(shipped())
    config["admin"]["address"]["socket_address"]["port_value"] = 0
    for listener in config["static_resources"]["listeners"]:
        listener["address"]["socket_address"]["port_value"] = 0
        wasm = next(f for f in hcm(listener)["http_filters"] if f["name"] == "envoy.filters.http.wasm")
        code = wasm["typed_config"]["config"]["vm_config"]["code"]["local"]
        assert code["filename"] == WASM_REL
        code["filename"] = harness.WASM
    ports = {"registry_edge": registry.replica, "primary": registry.primary}
    for cluster in config["static_resources"]["clusters"]:
        endpoint = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
        endpoint["address"]["socket_address"]["port_value"] = ports[cluster["name"]]
    return config


@pytest.fixture(scope="module")
def shipped_envoy(registry, workdir):
    proc = harness.Envoy(shipped_for_test(registry), workdir, "shipped")
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()


def cardgate_stats(envoy):
    return {k: v for k, v in envoy.stats().items() if k.startswith("wasmcustom.cardgate.")}


def test_non_card_route_never_enters_the_filter(shipped_envoy, registry):
    port = shipped_envoy.ports["registry_ingress"]
    forged = [(h, "forged") for h in GATE_HEADERS] + [("a2a-card-x", "y")]
    other = "/v1/tasks/%d" % next(_ids)
    registry.register(registry.script(other, b'{"task":"42"}', 200,
                                      [("Content-Type", "application/json")] + forged))
    before = cardgate_stats(shipped_envoy)
    log_before = shipped_envoy.log().count("[wasm]")
    for method in ("GET", "HEAD", "POST"):
        resp = harness.request(port, other, method)
        assert resp.status == 200, resp
        # The route removes the gate's own header names ...
        assert [h for h in resp.headers if h[0] in GATE_HEADERS] == [], resp
        # ... and the filter (which strips every a2a-card-* name it sees) did not run.
        assert resp.header("a2a-card-x") == "y", resp
    assert cardgate_stats(shipped_envoy) == before
    assert shipped_envoy.log().count("[wasm]") == log_before

    # A card route through the same listener still is checked (any letter case).
    card = dict(CARD, description="shipped %d" % next(_ids))
    for path in ("/agents/s%d/card" % next(_ids), "/AGENTS/s%d/CARD" % next(_ids)):
        registry.register(registry.script(path, card_json(card), 200,
                                          [("Content-Type", "application/json"), ("x-replica-lag-ms", "250")]
                                          + forged))
        valid = cardgate_stats(shipped_envoy).get("wasmcustom.cardgate.verdict.valid", 0)
        resp = harness.request(port, path)
        assert resp.status == 200, resp
        assert resp.header("a2a-card-verdict") == "valid", resp
        assert resp.header("a2a-card-x") is None, resp
        assert cardgate_stats(shipped_envoy).get("wasmcustom.cardgate.verdict.valid", 0) == valid + 1


def test_repeated_body_reuses_its_analysis_and_is_still_checked_per_request(gate):
    # One body, unique to this test, served under four paths with different watermarks.
    card = dict(CARD, description="cache %d" % next(_ids))
    hit0, miss0 = gate.envoy.counter("cardgate.analysis.hit"), gate.envoy.counter("cardgate.analysis.miss")
    fresh = serve(gate.registry, card_json(card), lag_ms="250")
    stale = serve(gate.registry, card_json(card), lag_ms="40000")
    unknown = serve(gate.registry, card_json(card), lag_ms=None)
    resp = gate.get(fresh)
    assert resp.status == 200 and resp.header("a2a-card-verdict") == "valid", resp
    assert resp.header("a2a-card-staleness-ms") == "250", resp
    assert gate.envoy.counter("cardgate.analysis.miss") == miss0 + 1
    resp = gate.get(stale)
    assert resp.status == 503, resp
    assert resp.json()["reasons"][0]["code"] == "watermark_exceeded", resp
    resp = gate.get(unknown)
    assert resp.status == 503, resp
    assert resp.json()["reasons"][0]["code"] == "freshness_unverifiable", resp
    # The caller's requirement too: the same cached body, a capability it lacks.
    resp = gate.get(fresh, {"a2a-require-capabilities": "task.other.v1"})
    assert resp.status == 409, resp
    resp = gate.get(fresh)
    assert resp.status == 200 and resp.header("a2a-card-verdict") == "valid", resp
    assert gate.envoy.counter("cardgate.analysis.hit") == hit0 + 4
    assert gate.envoy.counter("cardgate.analysis.miss") == miss0 + 1
    # One byte more (a trailing space: the same card, the same hash) is a new body.
    resp = gate.get(serve(gate.registry, card_json(card) + b" ", lag_ms="250"))
    assert resp.status == 200, resp
    assert gate.envoy.counter("cardgate.analysis.miss") == miss0 + 2
