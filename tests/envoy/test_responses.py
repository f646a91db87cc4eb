"""Every response path of the filter, through a real Envoy, against the fixture registry."""

import itertools
import json
import re
import time
import urllib.parse

import pytest

import harness
from conftest import oracle_hash

_ids = itertools.count()

CARD = {
    "name": "worker-9",
    "description": "test worker",
    "version": "3.1.0",
    "supportedInterfaces": [{"url": "https://w9.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {"streaming": True},
    "defaultInputModes": ["application/json"],
    "defaultOutputModes": ["application/json"],
    "skills": [{"id": "task.execute.v3", "name": "Execute", "description": "x", "tags": ["x"]}],
}


def card_json(card=CARD):
    return json.dumps(card, separators=(",", ":")).encode()


def serve(registry, body=None, status=200, headers=(), lag_ms="250", **kw):
    """Registers a scripted answer under a fresh /agents/<id>/card path; returns the path."""
    path = "/agents/t%d/card" % next(_ids)
    hdrs = [("Content-Type", "application/json")] + list(headers)
    if lag_ms is not None:
        hdrs.append(("x-replica-lag-ms", lag_ms))
    registry.register(registry.script(path, card_json() if body is None else body, status, hdrs, **kw))
    return path


def verdict_headers(resp):
    return {k: v for k, v in resp.headers if k.startswith("a2a-card-")}


# -- valid ------------------------------------------------------------------------------------

def test_valid_card_is_forwarded_unchanged_with_verdict_headers(gate):
    path = serve(gate.registry)
    resp = gate.get(path)
    assert resp.status == 200, resp
    assert resp.body == card_json()
    assert resp.header("a2a-card-verdict") == "valid"
    assert resp.header("a2a-card-hash") == oracle_hash(CARD)
    assert resp.header("a2a-card-staleness-ms") == "250"
    assert resp.header("a2a-card-freshness") == "watermark"
    assert resp.header("content-type") == "application/json"


def test_non_card_paths_are_not_touched(gate):
    gate.registry.register(gate.registry.script("/other/thing", b"hello", 200, [("x-replica-lag-ms", "99999")]))
    resp = gate.get("/other/thing")
    assert (resp.status, resp.body) == (200, b"hello")
    assert verdict_headers(resp) == {}


# -- rejections -------------------------------------------------------------------------------

def test_stale_card_is_503_with_retry_after_and_the_card_attached(gate):
    path = serve(gate.registry, lag_ms="40000")
    resp = gate.get(path)
    assert resp.status == 503, resp
    assert resp.header("retry-after") == "5"
    assert resp.header("content-type") == "application/problem+json"
    assert resp.header("a2a-card-verdict") == "rejected"
    problem = resp.json()
    assert problem["type"] == "urn:cardgate:problem:stale_agent_card"
    assert problem["error_class"] == "stale_agent_card"
    assert [r["code"] for r in problem["reasons"]] == ["watermark_exceeded"]
    assert problem["reasons"][0]["message"] == "staleness 40000 ms exceeds max_stale 10000 ms"
    assert problem["card"] == CARD
    assert problem["card_hash"] == oracle_hash(CARD)


def test_capability_mismatch_is_409(gate):
    path = serve(gate.registry)
    resp = gate.get(path, {"a2a-require-capabilities": "task.execute.v3, task.cancel"})
    assert resp.status == 409, resp
    problem = resp.json()
    assert problem["error_class"] == "capability_mismatch"
    assert problem["missing_capabilities"] == ["task.cancel"]
    assert resp.header("retry-after") is None


def test_malformed_card_is_502(gate):
    path = serve(gate.registry, body=b'{"name": "w", "version": ')
    resp = gate.get(path)
    assert resp.status == 502, resp
    problem = resp.json()
    assert problem["error_class"] == "malformed_card"
    assert [r["code"] for r in problem["reasons"]] == ["json_syntax"]
    assert problem["card_text"] == '{"name": "w", "version": '


def test_oversized_body_is_502_body_too_large_not_an_envoy_error(gate):
    big = dict(CARD, description="x" * 70000)
    path = serve(gate.registry, body=card_json(big))
    resp = gate.get(path)
    assert resp.status == 502, resp
    problem = resp.json()
    assert [r["code"] for r in problem["reasons"]] == ["body_too_large"]
    figures = problem["reasons"][0]["figures"]
    assert figures["max_card_bytes"] == 65536
    assert 65536 < figures["body_bytes"] <= len(card_json(big))
    assert problem["card_text"].startswith('{"name":"worker-9"')


def test_body_just_under_the_limit_passes(gate):
    body = card_json(dict(CARD, description=""))
    pad = 65536 - len(body)
    path = serve(gate.registry, body=card_json(dict(CARD, description="x" * pad)))
    resp = gate.get(path)
    assert len(resp.body) == 65536
    assert resp.status == 200, resp


def test_compressed_body_fails_closed_and_accept_encoding_is_removed(gate):
    path = serve(gate.registry, body=b"\x1f\x8b\x08\x00garbage", headers=[("Content-Encoding", "gzip")])
    resp = gate.get(path, {"Accept-Encoding": "gzip, br"})
    assert resp.status == 502, resp
    problem = resp.json()
    assert [r["code"] for r in problem["reasons"]] == ["body_encoded"]
    assert "gzip" in problem["detail"]
    seen = dict(gate.registry.last_request_headers(path))
    assert "accept-encoding" not in seen


def test_identity_content_encoding_is_fine(gate):
    path = serve(gate.registry, headers=[("Content-Encoding", "identity")])
    assert gate.get(path).status == 200


# -- bodiless answers -------------------------------------------------------------------------

def test_upstream_304_is_never_valid(gate):
    # The gate removes conditional headers, so an upstream 304 answers nobody's question: no card,
    # fail closed, whatever the watermark says.
    for lag in ("250", "40000", None):
        path = serve(gate.registry, body=b"", status=304, lag_ms=lag, headers=[("a2a-card-verdict", "valid")])
        resp = gate.get(path, {"If-None-Match": '"v1"'})
        assert resp.status == 502, (lag, resp)
        assert resp.header_all("a2a-card-verdict") == ["rejected"]
        problem = resp.json()
        assert problem["error_class"] == "malformed_card"
        assert [r["code"] for r in problem["reasons"]] == ["body_empty"]
        assert "304" in problem["detail"]


def test_head_is_answered_without_hanging(gate):
    path = serve(gate.registry)
    t0 = time.monotonic()
    resp = gate.get(path, method="HEAD")
    assert time.monotonic() - t0 < 3
    assert resp.status == 200, resp
    assert resp.body == b""
    assert resp.header("a2a-card-verdict") == "valid"
    stale = serve(gate.registry, lag_ms="40000")
    assert gate.get(stale, method="HEAD").status == 503


def test_204_and_empty_200_are_body_empty_without_hanging(gate):
    for status in (204, 200):
        path = serve(gate.registry, body=b"", status=status)
        t0 = time.monotonic()
        resp = gate.get(path)
        assert time.monotonic() - t0 < 3
        assert resp.status == 502, (status, resp)
        assert [r["code"] for r in resp.json()["reasons"]] == ["body_empty"]


def test_non_2xx_answers_pass_through_untouched(gate):
    # A redirect passes when a caller following it comes back to a card route under the same
    # rule (the defaults here); one past the gate fails closed (test_adversarial.py).
    for status, body, location in ((404, b'{"error":"no such agent"}', "/elsewhere"), (500, b"boom", "/elsewhere"),
                                   (301, b"", "/agents/t-moved/card"), (300, b"", "/elsewhere")):
        path = serve(gate.registry, body=body, status=status, headers=[("Location", location)])
        resp = gate.get(path)
        assert (resp.status, resp.body) == (status, body), resp
        assert resp.header("a2a-card-verdict") is None
    path = serve(gate.registry, body=b"", status=301, headers=[("Location", "/elsewhere")])
    resp = gate.get(path)
    assert resp.status == 502 and resp.header("a2a-card-verdict") == "rejected", resp


def test_writes_to_a_card_path_are_not_checked_and_lose_forged_verdicts(gate):
    path = serve(gate.registry, lag_ms="40000", headers=[("a2a-card-verdict", "valid"), ("A2A-Card-Hash", "x")])
    resp = gate.get(path, method="POST")
    assert resp.status == 200, resp
    assert resp.body == card_json()
    assert verdict_headers(resp) == {}
    assert gate.get(path).status == 503


# -- spoofing ---------------------------------------------------------------------------------

def test_upstream_cannot_fake_a_verdict(gate):
    fake = [("a2a-card-verdict", "valid"), ("A2A-Card-Hash", "sha256:" + "0" * 64),
            ("a2a-card-staleness-ms", "1"), ("a2a-card-anything", "x")]
    stale = serve(gate.registry, lag_ms="40000", headers=fake)
    resp = gate.get(stale)
    assert resp.status == 503
    assert resp.header_all("a2a-card-verdict") == ["rejected"]
    assert resp.header("a2a-card-anything") is None
    fresh = serve(gate.registry, headers=fake)
    resp = gate.get(fresh)
    assert resp.status == 200
    assert resp.header_all("a2a-card-hash") == [oracle_hash(CARD)]
    assert resp.header_all("a2a-card-staleness-ms") == ["250"]
    assert resp.header("a2a-card-anything") is None


def test_repeated_watermark_header_is_invalid(gate):
    path = serve(gate.registry, lag_ms="250", headers=[("x-replica-lag-ms", "40000")])
    resp = gate.get(path)
    assert resp.status == 503
    assert [r["code"] for r in resp.json()["reasons"]] == ["watermark_invalid"]


# -- caller tightening ------------------------------------------------------------------------

def test_caller_can_tighten_max_stale(gate):
    path = serve(gate.registry, lag_ms="5000")
    assert gate.get(path).status == 200
    resp = gate.get(path, {"Cache-Control": "no-cache, max-stale=2"})
    assert resp.status == 503
    assert resp.json()["reasons"][0]["message"] == "staleness 5000 ms exceeds max_stale 2000 ms"
    assert gate.get(path, {"Cache-Control": "max-stale"}).status == 200  # bare: ignored


def test_caller_min_version_and_pin(gate):
    path = serve(gate.registry)
    resp = gate.get(path, {"a2a-min-card-version": "4.0.0"})
    assert resp.status == 503
    assert [r["code"] for r in resp.json()["reasons"]] == ["version_below_minimum"]
    resp = gate.get(path, {"a2a-card-pin": "sha256:" + "a" * 64})
    assert resp.status == 503
    assert [r["code"] for r in resp.json()["reasons"]] == ["pinned_hash_mismatch"]
    fresh = serve(gate.registry, lag_ms="1000")
    resp = gate.get(fresh, {"a2a-card-pin": oracle_hash(CARD)})
    assert resp.status == 200, resp
    assert resp.header("a2a-card-freshness") == "pinned"
    # A caller's pin adds a hash condition; it never replaces the operator's watermark check.
    stale = serve(gate.registry, lag_ms="40000")
    resp = gate.get(stale, {"a2a-card-pin": oracle_hash(CARD)})
    assert resp.status == 503, resp
    assert [r["code"] for r in resp.json()["reasons"]] == ["watermark_exceeded"]


def test_caller_card_name(gate):
    # a2a-card-name: the card's name exactly; another agent's card fails (b), a 503 to re-resolve.
    path = serve(gate.registry)
    resp = gate.get(path, {"a2a-card-name": " worker-9 "})
    assert resp.status == 200, resp
    for other in ("worker-8", "Worker-9", "worker-9."):
        resp = gate.get(path, {"a2a-card-name": other})
        assert resp.status == 503, (other, resp)
        reasons = resp.json()["reasons"]
        assert [r["code"] for r in reasons] == ["card_name_mismatch"], other
        assert reasons[0]["figures"] == {"agent": "worker-9", "card_name": other}
        assert resp.json()["error_class"] == "stale_agent_card"
    # Non-ASCII names travel as UTF-8 bytes; a Latin-1 byte is not read as a name.
    named = serve(gate.registry, body=card_json(dict(CARD, name="wörker-9")))
    assert gate.get(named, {"a2a-card-name": "wörker-9".encode()}).status == 200
    resp = gate.get(named, {"a2a-card-name": "wörker-9".encode("latin-1")})
    assert resp.status == 400 and resp.json()["header"] == "a2a-card-name", resp
    resp = gate.get(path, {"a2a-card-name": ""})
    assert resp.status == 400 and resp.json()["header"] == "a2a-card-name", resp
    resp = gate.get(path)
    assert "a2a-card-name" in (resp.header("vary") or ""), resp


def test_caller_cannot_relax_the_policy(gate):
    stale = serve(gate.registry, lag_ms="40000")
    resp = gate.get(stale, {"Cache-Control": "max-stale=60"})
    assert resp.status == 503
    assert resp.json()["reasons"][0]["message"] == "staleness 40000 ms exceeds max_stale 10000 ms"


def test_relaxing_is_a_policy_switch(relax_gate):
    stale = serve(relax_gate.registry, lag_ms="40000")
    assert relax_gate.get(stale).status == 503
    resp = relax_gate.get(stale, {"Cache-Control": "max-stale=60"})
    assert resp.status == 200, resp
    assert resp.header("a2a-card-staleness-ms") == "40000"


def test_unreadable_caller_headers_are_400(gate):
    path = serve(gate.registry)
    for headers, named in (({"Cache-Control": "max-stale=soon"}, "cache-control"),
                           ({"a2a-min-card-version": "latest"}, "a2a-min-card-version"),
                           ({"a2a-card-pin": "md5:abc"}, "a2a-card-pin"),
                           ({"a2a-require-capabilities": "capability:teleport"}, "a2a-require-capabilities")):
        resp = gate.get(path, headers)
        assert resp.status == 400, (headers, resp)
        problem = resp.json()
        assert problem["type"] == "urn:cardgate:problem:invalid_caller_requirement"
        assert problem["header"] == named


# -- bodies split across callbacks, envelopes -------------------------------------------------

def test_chunked_body_split_across_many_callbacks(gate):
    before = gate.envoy.counter("cardgate.body_chunks")
    body = card_json(dict(CARD, description="y" * 4000))
    path = serve(gate.registry, body=body, chunks=40, chunk_delay_ms=3)
    resp = gate.get(path)
    assert resp.status == 200, resp
    assert resp.body == body
    assert resp.header("a2a-card-hash") == oracle_hash(dict(CARD, description="y" * 4000))
    # Counted when the stream ends.
    harness.wait_until(lambda: gate.envoy.counter("cardgate.body_chunks") - before >= 5, 5,
                       "cardgate.body_chunks to count the callbacks")


def test_chunked_oversized_body_is_cut_off(gate):
    body = card_json(dict(CARD, description="z" * 200000))
    path = serve(gate.registry, body=body, chunks=50, chunk_delay_ms=1)
    resp = gate.get(path)
    assert resp.status == 502
    assert [r["code"] for r in resp.json()["reasons"]] == ["body_too_large"]
    assert "at least" in resp.json()["reasons"][0]["message"]


def test_envelope_extraction(gate):
    reg = gate.registry
    envelope = {"card": CARD, "replication": {"lag_ms": 40000}, "state": "active"}
    stale = "/v1/resolve/t%d" % next(_ids)
    fresh = "/v1/resolve/t%d" % next(_ids)
    missing = "/v1/resolve/t%d" % next(_ids)
    reg.register(
        reg.script(stale, json.dumps(envelope), 200, [("Content-Type", "application/json")]),
        reg.script(fresh, json.dumps(dict(envelope, replication={"lag_ms": 120})), 200, []),
        reg.script(missing, json.dumps({"state": "active"}), 200, []),
    )
    resp = gate.get(stale)
    assert resp.status == 503, resp
    assert resp.json()["card"] == CARD
    assert resp.json()["staleness_ms"] == 40000
    resp = gate.get(fresh)
    assert resp.status == 200, resp
    assert resp.header("a2a-card-hash") == oracle_hash(CARD)
    assert resp.header("a2a-card-staleness-ms") == "120"
    assert json.loads(resp.body)["state"] == "active"  # the envelope is forwarded as served
    resp = gate.get(missing)
    assert resp.status == 502
    assert [r["code"] for r in resp.json()["reasons"]] == ["missing_field"]


# -- the incident, observe mode, metrics, logs ------------------------------------------------

def test_incident_replayed(gate, plain):
    reg = gate.registry
    reg.replica_state(synced=False, lag_ms=40000)
    try:
        caller = {"a2a-require-capabilities": "task.execute.v3", "Cache-Control": "max-stale=10"}
        without = plain.get("/agents/worker-7/card", caller)
        assert without.status == 200
        assert json.loads(without.body)["skills"][0]["id"] == "task.execute.v2"
        resp = gate.get("/agents/worker-7/card", caller)
        assert resp.status == 503
        problem = resp.json()
        assert [r["code"] for r in problem["reasons"]] == ["watermark_exceeded", "capabilities_missing"]
        assert problem["missing_capabilities"] == ["task.execute.v3"]
        assert problem["staleness_ms"] == 40000
        reg.replica_state(synced=True, lag_ms=120)
        resp = gate.get("/agents/worker-7/card", caller)
        assert resp.status == 200
        assert json.loads(resp.body)["skills"][0]["id"] == "task.execute.v3"
    finally:
        reg.replica_state(synced=False, lag_ms=40000)


@pytest.mark.parametrize("agent_id", ["worker-7%20", "w%C3%B6rker-7", "W%C3%96RKER-7", "worker-7%3Fx", "worker-7",
                                      # Characters the fold does not cover: every agent's rule.
                                      "worker-%E2%81%B7", "worker-%D9%A7", "worker-7%20%C2%AD", "worker-7.json",
                                      # A combining Latin small letter (an `o` to ICU), a format suffix.
                                      "w%CD%A6rker-7", "worker-7.xml",
                                      # ASCII ids a collation may read as the agent `ħub`.
                                      "hub", "HUB"])
def test_a_looser_rule_for_a_variant_id_never_loosens_the_agent(variant_gate, agent_id):
    """The policy gives `worker-7 `, `wörker-7` and `worker-7?x` an hour where worker-7 has
    10 s: a registry that trims, compares accent-insensitively or cuts at `?` answers those
    paths with worker-7's card, so each is held to worker-7's rule too (before: the variant's
    own rule alone, and the 40 s old card was `valid`)."""
    path = "/agents/%s/card" % agent_id
    hdrs = [("Content-Type", "application/json"), ("x-replica-lag-ms", "40000")]
    registry = variant_gate.registry
    for spelling in {path, urllib.parse.unquote(path)}:
        registry.register(registry.script(spelling, card_json(), 200, hdrs))
    resp = variant_gate.get(path)
    assert resp.status == 503 and resp.header("a2a-card-verdict") == "rejected", resp
    assert "watermark_exceeded" in [r["code"] for r in resp.json()["reasons"]], resp.json()


def test_observe_mode_never_blocks(observe_gate):
    before = observe_gate.envoy.counter("cardgate.observe.not_blocked")
    stale = serve(observe_gate.registry, lag_ms="40000")
    resp = observe_gate.get(stale, {"a2a-require-capabilities": "task.cancel"})
    assert resp.status == 200
    assert resp.body == card_json()
    assert resp.header("a2a-card-verdict") == "rejected"
    assert resp.header("a2a-card-error-class") == "stale_agent_card"
    assert resp.header("a2a-card-reasons") == "watermark_exceeded,capabilities_missing"
    assert observe_gate.envoy.counter("cardgate.observe.not_blocked") == before + 1


def test_observe_mode_does_not_refuse_unreadable_caller_headers(observe_gate):
    path = serve(observe_gate.registry)
    resp = observe_gate.get(path, {"a2a-min-card-version": "latest"})
    assert resp.status == 200, resp
    assert resp.header("a2a-card-verdict") == "valid"


def test_metrics_count_verdicts_and_reasons(gate):
    envoy = gate.envoy
    before = envoy.stats()
    gate.get(serve(gate.registry, lag_ms="40000"))
    gate.get(serve(gate.registry))
    gate.get(serve(gate.registry, body=b"[]"))
    after = envoy.stats()

    def delta(name):
        return after.get("wasmcustom." + name, 0) - before.get("wasmcustom." + name, 0)

    assert delta("cardgate.verdict.rejected") == 2
    assert delta("cardgate.verdict.valid") == 1
    assert delta("cardgate.reason.watermark_exceeded") == 1
    assert delta("cardgate.reason.not_an_object") == 1
    assert delta("cardgate.error_class.malformed_card") == 1
    prom = harness.request(envoy.admin, "/stats/prometheus").body.decode()
    assert re.search(r'^cardgate_reason\{cardgate_reason="watermark_exceeded"\} \d+$', prom, re.M), prom[:2000]
    assert re.search(r'^cardgate_verdict\{cardgate_verdict="valid"\} \d+$', prom, re.M)
    # Histograms are flushed periodically (stats_flush_interval, 5 s by default).
    deadline = time.monotonic() + 12
    while time.monotonic() < deadline:
        prom = harness.request(envoy.admin, "/stats/prometheus").body.decode()
        if re.search(r"^cardgate_staleness_ms_count\{\} [1-9]", prom, re.M) and \
                re.search(r"^cardgate_evaluation_us_count\{\} [1-9]", prom, re.M):
            break
        time.sleep(0.5)
    else:
        raise AssertionError("histograms never showed up in /stats/prometheus")
    # In µs: no evaluation takes a second.
    took = envoy.histogram("cardgate.evaluation_us")
    assert took["sum"] / took["count"] < 1e6, took


def test_one_structured_log_line_per_rejection(gate):
    path = serve(gate.registry, lag_ms="40000")
    gate.get(path, {"a2a-require-capabilities": "task.cancel"})

    def logged():
        for line in gate.envoy.log().splitlines():
            if '"event":"cardgate.rejected"' in line and '"path":"%s"' % path in line:
                return line
        return None

    line = harness.wait_until(logged, 5, "the rejection log line")
    record = json.loads(line[line.index("{"):])
    assert record["reasons"] == ["watermark_exceeded", "capabilities_missing"]
    assert record["staleness_ms"] == 40000
    assert record["card_hash"] == oracle_hash(CARD)
    assert record["agent"] == "worker-9"
