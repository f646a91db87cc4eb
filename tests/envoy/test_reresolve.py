"""Re-resolution in a real Envoy: a stale replica's answer becomes the primary's current card.

One Envoy (module scope) with the fixture registry's replica as the route's upstream
(`registry_edge`) and its primary as a second cluster (`registry_primary`); each listener has
its own filter configuration (its own single-flight table, reuse cache and token bucket). The
fixture counts the requests each role answers, so "no call" and "one call" are measured at the
primary itself.
"""

import base64
import json
import re
import threading
import time

import pytest

import harness
from conftest import oracle_hash, plugin_config

CALLER = {"a2a-require-capabilities": "task.execute.v3"}
TIMEOUT_MS = 400


def card(generation, **extra):
    return json.dumps(dict({
        "name": "worker-7", "version": "%d.0.0" % generation,
        "supportedInterfaces": [{"url": "wss://worker-7.internal/a2a/v%d" % generation,
                                 "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True},
        "skills": [{"id": "task.execute.v%d" % generation, "name": "Execute task"}],
    }, **extra), separators=(",", ":")).encode()


V2, V3 = card(2), card(3)


def rr(**overrides):
    setting = {"cluster": "registry_primary", "timeout": "%dms" % TIMEOUT_MS,
               "budget": {"per_second": 1000, "burst": 1000}}
    setting.update(overrides)
    return setting


LISTENERS = {
    "rr": {"re_resolve": rr()},
    "rr_budget": {"re_resolve": rr(budget={"per_second": 0.001, "burst": 1})},
    "rr_down": {"re_resolve": rr(cluster=["registry_down", "no_such_cluster", "registry_primary"])},
    "rr_observe": {"re_resolve": rr(), "mode": "observe"},
    "rr_auth": {"re_resolve": rr(cluster="registry_primary_auth")},
    # A caller's pin may replace the watermark check.
    "rr_relax": {"re_resolve": rr(), "allow_caller_relax": True},
    # Two sources (both the primary) and a deadline shorter than two timeouts.
    "rr_deadline": {"re_resolve": rr(cluster=["registry_primary", "registry_primary_auth"], deadline="600ms")},
}
PRIMARY_TOKEN = "Bearer primary-token"


def with_credentials(cluster, authorization):
    """The cluster with an upstream `header_mutation` filter that sets `Authorization` on every
    request to it, the filter's re-resolution calls included (envoy/README.md, "A primary that
    wants credentials")."""
    cluster["typed_extension_protocol_options"] = {
        "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
            "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
            "explicit_http_config": {"http_protocol_options": {}},
            "http_filters": [
                {"name": "envoy.filters.http.header_mutation", "typed_config": {
                    "@type": "type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.HeaderMutation",
                    "mutations": {"request_mutations": [{"append": {
                        "header": {"key": "authorization", "value": authorization},
                        # Added only when absent: a caller's header the filter forwarded
                        # would stay and show (envoy/README.md overwrites instead).
                        "append_action": "ADD_IF_ABSENT"}}]}}},
                {"name": "envoy.filters.http.upstream_codec", "typed_config": {
                    "@type": "type.googleapis.com/envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec"}},
            ],
        }}
    return cluster
# The same settings on a route with `internal_redirect_policy`: Envoy follows the registry's
# redirects itself and runs the filter chain again for the target (envoy/README.md).
INTERNAL = {
    "rr_internal": {"re_resolve": rr()},
    "rr_internal_observe": {"re_resolve": rr(), "mode": "observe"},
    # Its own agent with worker-7's rule: the session registry keeps every script, and other
    # files' tests read worker-7's card from its replica.
    "rr_internal_id": {"re_resolve": rr(path="/primary/{id}/card.json"),
                       "agents": {"rr-int-strict": {"require": ["task.execute.v3"], "max_stale": "10s"}}},
    "internal": {},
}


def internal_redirects(listener):
    route = listener["filter_chains"][0]["filters"][0]["typed_config"]["route_config"]
    route["virtual_hosts"][0]["routes"][0]["route"]["internal_redirect_policy"] = {
        "max_internal_redirects": 2, "redirect_response_codes": [301, 302, 303, 307, 308]}
    return listener


@pytest.fixture(scope="module")
def rr_envoy(registry, workdir):
    listeners = [harness.listener(name, "registry_edge",
                                  [harness.wasm_filter("cardgate_" + name, plugin_config(**settings))])
                 for name, settings in LISTENERS.items()]
    listeners += [internal_redirects(harness.listener(
        name, "registry_edge", [harness.wasm_filter("cardgate_" + name, plugin_config(**settings))]))
        for name, settings in INTERNAL.items()]
    with __import__("socket").socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # nothing listens here once the socket closes
    config = harness.bootstrap(listeners, [harness.cluster("registry_edge", registry.replica),
                                           harness.cluster("registry_primary", registry.primary),
                                           with_credentials(harness.cluster("registry_primary_auth",
                                                                            registry.primary), PRIMARY_TOKEN),
                                           harness.cluster("registry_down", closed)])
    proc = harness.Envoy(config, workdir, "reresolve")
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()


def script(registry, path, replica=(V2, 40000), primary=(V3, 0), primary_status=200, delay_ms=0):
    specs = [registry.script(path, replica[0], 200, [("content-type", "application/json"),
                                                     ("x-replica-lag-ms", str(replica[1]))], role="replica")]
    if primary is not None:
        specs.append(registry.script(path, primary[0], primary_status,
                                     [("content-type", "application/json; charset=utf-8"),
                                      ("cache-control", "max-age=30"), ("x-replica-lag-ms", str(primary[1])),
                                      # forged: only the gate's own headers may say this
                                      ("a2a-card-source", "forged"), ("a2a-card-verdict", "forged")],
                                     role="primary", delay_ms=delay_ms))
    registry.register(*specs)


def get(envoy, listener, path, headers=None, method="GET"):
    t0 = time.monotonic()
    resp = harness.request(envoy.ports[listener], path, method, dict(CALLER, **(headers or {})))
    return resp, (time.monotonic() - t0) * 1000


def counters(envoy):
    stats = envoy.stats()
    return {k[len("wasmcustom.cardgate.reresolve."):]: v for k, v in stats.items()
            if k.startswith("wasmcustom.cardgate.reresolve.")}


def delta(before, after):
    return {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after) if after.get(k, 0) != before.get(k, 0)}


def test_stale_replica_then_valid_primary_serves_the_primary_card(rr_envoy, registry):
    path = "/agents/rr-ok/card"
    script(registry, path)
    before = counters(rr_envoy)
    resp, ms = get(rr_envoy, "rr", path)
    print("re-resolved in %.1f ms" % ms)
    assert resp.status == 200, resp
    assert resp.body == V3  # the primary's exact bytes
    assert resp.header_all("a2a-card-source") == ["registry_primary"]
    assert resp.header("a2a-card-attempts") == "2"
    assert resp.header_all("a2a-card-verdict") == ["valid"]
    assert resp.header("a2a-card-staleness-ms") == "0"
    assert resp.header("content-type") == "application/json; charset=utf-8"
    assert resp.header("cache-control") == "max-age=10, must-revalidate"
    assert registry.count("primary", path) == 1
    # The primary was asked for the whole card, as the gate asks every upstream.
    seen = dict(registry.last_request_headers(path))
    assert seen[":method"] == "GET"
    assert seen["host"] == "registry_primary"
    assert seen["accept-encoding"] == "identity"
    assert "if-none-match" not in seen and "range" not in seen
    assert delta(before, counters(rr_envoy)) == {"attempted": 1, "succeeded": 1, "calls": 1}


def test_credentials_for_the_primary_come_from_its_cluster_never_from_the_caller(rr_envoy, registry):
    """A call is shared by every caller waiting for it and its card reused for later ones, so it
    carries no caller's credentials: a primary that wants some gets them from its cluster."""
    path = "/agents/rr-auth/card"
    script(registry, path)
    caller = {"authorization": "Bearer caller-secret", "cookie": "session=caller"}
    resp, _ = get(rr_envoy, "rr_auth", path, caller)
    assert resp.status == 200, resp
    assert resp.header_all("a2a-card-source") == ["registry_primary_auth"]
    seen = registry.last_request_headers(path)
    assert dict(seen)["host"] == "registry_primary_auth"  # the primary's request, not the replica's
    assert [v for k, v in seen if k == "authorization"] == [PRIMARY_TOKEN]
    assert "cookie" not in dict(seen)
    assert "caller" not in json.dumps(seen)


def named(name, generation=3):
    card_ = json.loads(card(generation))
    card_["name"] = name
    return json.dumps(card_, separators=(",", ":")).encode()


@pytest.mark.parametrize("replica_card,what", [
    (named("worker-8"), "other"),  # another agent's fresh card meeting the requirement
    (named("billing", 2), "lacking"),  # another agent's fresh card lacking the capability
])
def test_card_name_re_resolves_another_agents_fresh_card(rr_envoy, registry, replica_card, what):
    path = "/agents/rr-name-%s/card" % what
    script(registry, path, replica=(replica_card, 0))
    # Without a name the replica's fresh card is the answer: accepted, or a 409 stop.
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == (200 if what == "other" else 409), resp
    assert registry.count("primary", path) == 0
    # With the caller's name, another agent's card is stale for this agent: the primary's wins.
    resp, _ = get(rr_envoy, "rr", path, {"a2a-card-name": "worker-7"})
    assert resp.status == 200, resp
    assert resp.body == V3
    assert resp.header_all("a2a-card-source") == ["registry_primary"]
    assert resp.header("a2a-card-attempts") == "2"
    assert registry.count("primary", path) == 1


def test_head_gets_the_primary_card_headers_only(rr_envoy, registry):
    path = "/agents/rr-head/card"
    script(registry, path)
    resp, _ = get(rr_envoy, "rr", path, method="HEAD")
    assert resp.status == 200, resp
    assert resp.body == b""
    assert resp.header("a2a-card-source") == "registry_primary"
    assert resp.header("content-length") == str(len(V3))


@pytest.mark.parametrize("primary,status,what", [
    ((V3, 40000), 200, "stale"),
    ((b'{"error":"boom"}', 0), 500, "failing"),
])
def test_stale_replica_and_stale_or_failing_primary_fail_closed_with_both_attempts(
        rr_envoy, registry, primary, status, what):
    path = "/agents/rr-%s/card" % what
    script(registry, path, primary=primary, primary_status=status)
    before = counters(rr_envoy)
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 503, resp
    assert resp.header("content-type") == "application/problem+json"
    assert resp.header("a2a-card-attempts") == "2"
    problem = resp.json()
    attempts = problem["resolution"]["attempts"]
    assert [a["source"] for a in attempts] == ["registry_edge", "registry_primary"]
    assert attempts[0]["error_class"] == "stale_agent_card"
    if what == "stale":
        assert attempts[1]["error_class"] == "stale_agent_card"
        assert attempts[1]["staleness_ms"] == 40000
        assert problem["resolution"]["source"] == "registry_primary"
    else:
        assert attempts[1] == {"source": "registry_primary", "elapsed_ms": attempts[1]["elapsed_ms"],
                               "verdict": "failed", "error": "HTTP 500"}
        assert problem["resolution"]["source"] == "registry_edge"
    assert problem["resolution"]["outcome"] == "attempts_exhausted"
    assert delta(before, counters(rr_envoy)) == {"attempted": 1, "failed": 1, "calls": 1}


def test_down_and_unknown_clusters_are_failed_attempts_then_the_next_cluster(rr_envoy, registry):
    path = "/agents/rr-down/card"
    script(registry, path, primary=(V3, 40000))  # every source stale: the problem lists them all
    resp, _ = get(rr_envoy, "rr_down", path)
    assert resp.status == 503, resp
    assert resp.header("a2a-card-attempts") == "4"
    attempts = resp.json()["resolution"]["attempts"]
    assert [a["source"] for a in attempts] == ["registry_edge", "registry_down", "no_such_cluster",
                                               "registry_primary"]
    assert attempts[1]["verdict"] == "failed", attempts[1]  # connection refused: Envoy's 503
    assert attempts[2] == {"source": "no_such_cluster", "elapsed_ms": attempts[2]["elapsed_ms"],
                           "verdict": "failed", "error": "could not call cluster no_such_cluster: BadArgument"}
    assert attempts[3]["error_class"] == "stale_agent_card"
    script(registry, path)
    resp, _ = get(rr_envoy, "rr_down", path)
    assert resp.status == 200 and resp.body == V3, resp
    assert resp.header("a2a-card-source") == "registry_primary"
    assert resp.header("a2a-card-attempts") == "4"


def test_a_partially_replicated_card_is_re_resolved(rr_envoy, registry):
    path = "/agents/rr-partial/card"
    script(registry, path, replica=(V3[: len(V3) // 2], 100))  # truncated, though the lag is fine
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 200 and resp.body == V3, resp
    assert resp.header("a2a-card-attempts") == "2"


def test_primary_timeout_fails_closed_within_the_timeout(rr_envoy, registry):
    path = "/agents/rr-slow/card"
    script(registry, path, delay_ms=3000)
    resp, ms = get(rr_envoy, "rr", path)
    print("failed closed in %.1f ms (timeout %d ms)" % (ms, TIMEOUT_MS))
    assert resp.status == 503, resp
    assert ms < TIMEOUT_MS + 600
    attempts = resp.json()["resolution"]["attempts"]
    assert attempts[1]["verdict"] == "failed"
    assert "no answer within %d ms" % TIMEOUT_MS in attempts[1]["error"]


def test_a_primary_card_longer_than_4_kib_is_read_whole(rr_envoy, registry):
    # Only a call answer over max_card_bytes is cut to its first 4 KiB (for the problem).
    path = "/agents/rr-long/card"
    long_v3 = card(3, description="d" * 6000)
    script(registry, path, primary=(long_v3, 0))
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 200 and resp.body == long_v3, resp
    assert resp.header("a2a-card-source") == "registry_primary"


def test_an_attempt_records_the_time_its_answer_took(rr_envoy, registry):
    path = "/agents/rr-took/card"
    script(registry, path, primary=(V3, 40000), delay_ms=200)
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 503, resp
    attempts = resp.json()["resolution"]["attempts"]
    # Stale, or on a loaded machine past the timeout: either way no sooner than the delay, and
    # within the request's own time.
    assert 200 <= attempts[1]["elapsed_ms"] < 10000, attempts


def test_a_refused_answer_from_the_primary_is_not_reused(rr_envoy, registry):
    # A fresh primary card without the capability ends the resolution (409) but is not kept:
    # once the primary has the capability, the next request asks it again and gets it.
    path = "/agents/rr-refusal/card"
    script(registry, path, primary=(V2, 0))
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 409, resp
    script(registry, path)
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 200 and resp.body == V3, resp
    assert registry.count("primary", path) == 2


def test_the_deadline_shortens_the_last_call(rr_envoy, registry):
    # The first source answers (stale) after 350 ms of the 600 ms deadline; the second is
    # given what is left (not the 400 ms timeout), in which its 350 ms answer cannot come.
    path = "/agents/rr-deadline/card"
    script(registry, path, primary=(V3, 40000), delay_ms=350)
    resp, _ = get(rr_envoy, "rr_deadline", path)
    assert resp.status == 503, resp
    last = resp.json()["resolution"]["attempts"][-1]
    assert last["source"] == "registry_primary_auth" and last["verdict"] == "failed", last
    given = re.match(r"no answer within (\d+) ms", last["error"])
    assert given and int(given.group(1)) < TIMEOUT_MS, last


def test_the_resolution_time_histogram_is_in_ms(rr_envoy, registry):
    path = "/agents/rr-histogram/card"
    script(registry, path, delay_ms=200)
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 200, resp

    def histogram():
        found = rr_envoy.histogram("cardgate.reresolve_ms")
        return found if found.get("count") and found.get("sum", 0) >= 200 else None

    # Flushed by Envoy every second (harness: stats_flush_interval). This resolution took at
    # least 200 ms; none in this Envoy outlasts the 5 s default deadline.
    found = harness.wait_until(histogram, 10, "cardgate.reresolve_ms in /stats/prometheus")
    assert found["sum"] / found["count"] <= 5000, found


def test_a_card_valid_by_its_pin_alone_is_not_reused_for_callers_without_it(rr_envoy, registry):
    # The primary sends no watermark: its card is valid for a caller who pinned it (a listener
    # that lets a caller's pin replace the watermark check), never for one who did not (kept
    # for reuse, it would be judged on a watermark it never had).
    path = "/agents/rr-pinned/card"
    registry.register(
        registry.script(path, V2, 200, [("content-type", "application/json"), ("x-replica-lag-ms", "40000")],
                        role="replica"),
        registry.script(path, V3, 200, [("content-type", "application/json")], role="primary"))
    pin = oracle_hash(json.loads(V3))
    resp, _ = get(rr_envoy, "rr_relax", path, {"a2a-card-pin": pin})
    assert resp.status == 200 and resp.body == V3, resp
    assert resp.header("a2a-card-freshness") == "pinned"
    resp, _ = get(rr_envoy, "rr_relax", path)
    assert resp.status == 503, resp
    assert registry.count("primary", path) == 2


def test_capability_mismatch_on_a_fresh_replica_asks_no_one_else(rr_envoy, registry):
    path = "/agents/rr-mismatch/card"
    script(registry, path, replica=(V2, 100))
    before = counters(rr_envoy)
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 409, resp
    assert "resolution" not in resp.json()
    assert resp.header("a2a-card-attempts") is None
    assert registry.count("primary", path) == 0
    assert delta(before, counters(rr_envoy)) == {}


def test_observe_mode_does_not_re_resolve(rr_envoy, registry):
    path = "/agents/rr-observe/card"
    script(registry, path)
    resp, _ = get(rr_envoy, "rr_observe", path)
    assert resp.status == 200 and resp.body == V2
    assert resp.header("a2a-card-verdict") == "rejected"
    assert registry.count("primary", path) == 0


def test_single_flight_concurrent_requests_make_one_primary_call(rr_envoy, registry):
    path = "/agents/rr-flight/card"
    script(registry, path, delay_ms=300)
    n = 8
    before = counters(rr_envoy)
    results = [None] * n
    start = threading.Barrier(n)

    def one(i):
        start.wait()
        results[i] = get(rr_envoy, "rr", path)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert all(r is not None and r[0].status == 200 and r[0].body == V3 for r in results), results
    assert registry.count("primary", path) == 1
    d = delta(before, counters(rr_envoy))
    print("single flight: %s, latencies %s ms" % (d, sorted(int(r[1]) for r in results)))
    assert d["attempted"] == n and d["succeeded"] == n and d["calls"] == 1
    assert d.get("coalesced", 0) + d.get("reused", 0) == n - 1
    assert d.get("coalesced", 0) >= 1


def test_reuse_cache_holds_for_what_is_left_of_the_tolerance(rr_envoy, registry):
    path = "/agents/rr-cache/card"
    script(registry, path, primary=(V3, 500))
    tight = {"Cache-Control": "max-stale=2"}  # 2 s; the primary's card is 500 ms behind
    resp, _ = get(rr_envoy, "rr", path, tight)
    fetched_before = time.monotonic()  # the primary's card was fetched before this
    assert resp.status == 200 and registry.count("primary", path) == 1
    before = counters(rr_envoy)
    resp, _ = get(rr_envoy, "rr", path, tight)
    assert resp.status == 200 and resp.body == V3, resp
    assert resp.header("a2a-card-source") == "registry_primary"
    assert int(resp.header("a2a-card-staleness-ms")) >= 500
    assert registry.count("primary", path) == 1  # reused: no new call
    assert delta(before, counters(rr_envoy)) == {"attempted": 1, "succeeded": 1, "reused": 1}
    # A caller with the default 10 s tolerance reuses the same bytes too.
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 200 and registry.count("primary", path) == 1
    time.sleep(max(0, fetched_before + 1.6 - time.monotonic()))  # 500 ms + 1.6 s > 2 s
    resp, _ = get(rr_envoy, "rr", path, tight)
    assert resp.status == 200 and resp.body == V3
    assert registry.count("primary", path) == 2  # past the tolerance: asked again


def script_variants(registry, path, delay_ms=0):
    """A stale replica, and a primary that serves by `A2A-Version` with `Vary: A2A-Version`:
    V3 to `1.0`, otherwise a fresh card without task.execute.v3."""
    registry.register(
        registry.script(path, V2, 200, [("content-type", "application/json"),
                                        ("x-replica-lag-ms", "40000")], role="replica"),
        registry.script(path, V2, 200, [("content-type", "application/json"), ("x-replica-lag-ms", "0"),
                                        ("vary", "A2A-Version")], role="primary", delay_ms=delay_ms,
                        variants={"header": "a2a-version",
                                  "bodies_b64": {"1.0": base64.b64encode(V3).decode("ascii")}}))


def test_calls_ask_with_the_callers_variant_headers_and_never_share_a_variant(rr_envoy, registry):
    """A primary that serves a card by `A2A-Version` (as @a2a-js/sdk's own card handler does,
    `Vary: A2A-Version`): each caller's re-resolution asks with its own `A2A-Version` and
    `Accept`, and neither the reuse cache nor a shared call hands one caller's variant to a
    caller that asked otherwise. The reply keeps the source's `Vary` beside the gate's."""
    path = "/agents/rr-variant/card"
    script_variants(registry, path)
    v1 = {"A2A-Version": "1.0", "Accept": "*/*"}
    resp, _ = get(rr_envoy, "rr", path, v1)
    assert resp.status == 200 and resp.body == V3, resp
    assert resp.header("a2a-card-source") == "registry_primary"
    varies = [n.strip() for v in resp.header_all("vary") for n in v.split(",")]
    assert "A2A-Version" in varies and "a2a-require-capabilities" in varies, varies
    sent = registry.last_request_headers(path)
    assert ("a2a-version", "1.0") in sent and ("accept", "*/*") in sent, sent
    assert registry.count("primary", path) == 1
    # No A2A-Version: another variant, so the primary is asked again (not the V3 kept for v1.0
    # callers), without the header and with the default Accept; its card lacks the capability.
    before = counters(rr_envoy)
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 409 and resp.json()["error_class"] == "capability_mismatch", resp
    assert registry.count("primary", path) == 2
    sent = registry.last_request_headers(path)
    assert not [v for k, v in sent if k == "a2a-version"], sent
    assert ("accept", "application/json") in sent, sent
    assert delta(before, counters(rr_envoy)) == {"attempted": 1, "failed": 1, "calls": 1}
    # The v1.0 variant again: from the reuse cache, no call.
    resp, _ = get(rr_envoy, "rr", path, v1)
    assert resp.status == 200 and resp.body == V3, resp
    assert registry.count("primary", path) == 2
    # The same version with another `Accept` is another variant: asked, not reused.
    resp, _ = get(rr_envoy, "rr", path, {"A2A-Version": "1.0", "Accept": "application/json"})
    assert resp.status == 200 and resp.body == V3, resp
    assert registry.count("primary", path) == 3


def test_a_variant_header_that_is_not_text_fails_closed_without_a_call(rr_envoy, registry):
    """Envoy passes a caller's obs-text bytes through; a call's headers are text, so the
    filter cannot ask another source what the caller asked: every source is a failed attempt
    naming the header, and no call is made."""
    path = "/agents/rr-variant-junk/card"
    script_variants(registry, path)
    before = counters(rr_envoy)
    resp, _ = get(rr_envoy, "rr", path, {"A2A-Version": "1.0\xff"})
    assert resp.status == 503, resp
    attempts = resp.json()["resolution"]["attempts"]
    assert attempts[0]["error_class"] == "stale_agent_card"
    assert attempts[1]["verdict"] == "failed"
    assert attempts[1]["error"] == ("the caller's a2a-version header is not UTF-8 text, so no other "
                                    "source can be asked with it"), attempts
    assert registry.count("primary", path) == 0
    assert delta(before, counters(rr_envoy)) == {"attempted": 1, "failed": 1}
    # Each source in turn is such a failed attempt.
    resp, _ = get(rr_envoy, "rr_down", path, {"A2A-Version": "1.0\xff"})
    attempts = resp.json()["resolution"]["attempts"]
    assert [a["source"] for a in attempts] == ["registry_edge", "registry_down", "no_such_cluster",
                                               "registry_primary"]
    assert {a["error"] for a in attempts[1:]} == {attempts[1]["error"]}, attempts
    assert registry.count("primary", path) == 0


def test_concurrent_callers_of_different_variants_never_share_a_call(rr_envoy, registry):
    path = "/agents/rr-variant-flight/card"
    script_variants(registry, path, delay_ms=300)
    results = {}
    start = threading.Barrier(6)

    def ask(name, headers):
        start.wait()
        results[name] = get(rr_envoy, "rr", path, headers)[0]

    threads = [threading.Thread(target=ask, args=("v1-%d" % i, {"A2A-Version": "1.0"})) for i in range(3)]
    threads += [threading.Thread(target=ask, args=("none-%d" % i, {})) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(results) == 6, results
    for name, resp in results.items():
        if name.startswith("v1"):
            assert resp.status == 200 and resp.body == V3, (name, resp)
        else:
            assert resp.status == 409 and resp.json()["error_class"] == "capability_mismatch", (name, resp)
    # One call per variant: the three callers of each share it (the primary answers after
    # 300 ms, long after all six asked).
    assert registry.count("primary", path) == 2


def test_budget_exhausted_fails_closed_at_once(rr_envoy, registry):
    script(registry, "/agents/rr-budget-a/card")
    script(registry, "/agents/rr-budget-b/card")
    resp, _ = get(rr_envoy, "rr_budget", "/agents/rr-budget-a/card")
    assert resp.status == 200, resp  # the one token
    before = counters(rr_envoy)
    resp, ms = get(rr_envoy, "rr_budget", "/agents/rr-budget-b/card")
    print("over budget answered in %.1f ms" % ms)
    assert resp.status == 503, resp
    resolution = resp.json()["resolution"]
    assert resolution["outcome"] == "over_budget"
    assert "budget" in resolution["message"]
    assert len(resolution["attempts"]) == 1
    assert registry.count("primary", "/agents/rr-budget-b/card") == 0
    assert delta(before, counters(rr_envoy)) == {"attempted": 1, "failed": 1, "over_budget": 1}


def test_bad_re_resolve_configuration_is_refused_with_its_path(registry, workdir):
    plugin = plugin_config(routes=[{"path": "/agents/{id}/card",
                                    "re_resolve": {"cluster": "registry_primary", "timeout": "0ms"}}])
    config = harness.bootstrap(
        [harness.listener("ingress", "registry", [harness.wasm_filter("cardgate", plugin)])],
        [harness.cluster("registry", registry.replica)])
    code, out = harness.validate(config, workdir, "bad-re-resolve")
    assert code != 0
    assert "invalid plugin configuration at /routes/0/re_resolve/timeout:" in out, out[-2000:]


@pytest.mark.parametrize("status,headers", [
    (206, [("content-range", "bytes 0-9/400")]),
    (200, [("content-encoding", "gzip")]),
], ids=["partial", "encoded"])
def test_answers_refused_at_their_headers_are_re_resolved_and_never_leak(rr_envoy, registry, status, headers):
    # The replica's body arrives slowly, while the primary is being asked: none of it may
    # reach the caller, whose answer is the primary's card.
    path = "/agents/rr-hdr-%d/card" % status
    body = b"X" * 400
    registry.register(
        registry.script(path, body, status, [("x-replica-lag-ms", "0")] + headers, chunks=4,
                        chunk_delay_ms=100, role="replica"),
        registry.script(path, V3, 200, [("content-type", "application/json"), ("x-replica-lag-ms", "0")],
                        role="primary", delay_ms=150))
    resp, _ = get(rr_envoy, "rr", path)
    assert resp.status == 200, resp
    assert resp.body == V3
    assert resp.header("a2a-card-attempts") == "2"
    assert resp.header("content-encoding") is None and resp.header("content-range") is None


def test_waiters_fail_closed_at_once_when_the_stream_that_made_the_call_goes_away(rr_envoy, registry):
    # A's stream makes the call (the primary takes 1.5 s); B joins it; A's caller hangs up.
    # Envoy cancels A's call, so B must not wait for an answer that will never come.
    import socket
    path = "/agents/rr-orphan/card"
    script(registry, path, delay_ms=1500)
    a = socket.create_connection(("127.0.0.1", rr_envoy.ports["rr"]))
    a.sendall(b"GET %s HTTP/1.1\r\nhost: x\r\na2a-require-capabilities: task.execute.v3\r\n\r\n" % path.encode())
    harness.wait_until(lambda: registry.count("primary", path) == 1, 5, "A's call to reach the primary")
    result = {}

    def b():
        result["b"] = get(rr_envoy, "rr", path)

    before = counters(rr_envoy)
    t = threading.Thread(target=b)
    t.start()
    harness.wait_until(lambda: delta(before, counters(rr_envoy)).get("coalesced") == 1, 5, "B to join A's call")
    time.sleep(0.2)  # B's cancelled attempt then took at least 200 ms
    a.close()
    t.join(10)
    resp, ms = result["b"]
    print("waiter answered %.0f ms after it asked (the primary would take 1500 ms)" % ms)
    assert resp.status == 503, resp
    attempts = resp.json()["resolution"]["attempts"]
    assert attempts[1]["verdict"] == "failed" and "cancelled" in attempts[1]["error"], attempts
    assert 200 <= attempts[1]["elapsed_ms"] < 1400, attempts
    assert ms < 1400
    assert registry.count("primary", path) == 1


# -- a redirect Envoy followed itself (internal_redirect_policy) ------------------------------

_moved = iter(range(1, 10**6))


def moved_away(registry, path):
    """The replica answers `path` with a redirect (absolute: Envoy follows no other) to a path
    that is no card route, whose answer is a stale card: the target, unchecked, would pass."""
    target = "/elsewhere/%d/card.json" % next(_moved)
    registry.register(
        registry.script(path, b"", 302, [("Location", "http://127.0.0.1:%d%s" % (registry.replica, target))],
                        role="replica"),
        registry.script(target, V2, 200, [("content-type", "application/json"), ("x-replica-lag-ms", "40000")],
                        role="replica"))
    return target


def same_answer(internal, response_path):
    """The two answers agree on everything but the first attempt's reason text (and the date)."""
    assert internal.status == response_path.status, (internal, response_path)
    assert internal.body == response_path.body or internal.header("content-type") == "application/problem+json"
    skip = {"date", "content-length", "x-envoy-upstream-service-time"}
    assert sorted((k, v) for k, v in internal.headers if k not in skip) == \
        sorted((k, v) for k, v in response_path.headers if k not in skip), (internal.headers, response_path.headers)


def test_internal_redirect_refused_is_re_resolved_like_a_refused_redirect(rr_envoy, registry):
    path = "/agents/rr-int-ok/card"
    script(registry, path)
    target = moved_away(registry, path)
    before = counters(rr_envoy)
    resp, _ = get(rr_envoy, "rr_internal", path)
    # Before: 502 body_empty at once, the primary never asked.
    assert resp.status == 200, resp
    assert resp.body == V3
    assert resp.header_all("a2a-card-source") == ["registry_primary"]
    assert resp.header("a2a-card-attempts") == "2"
    assert resp.header_all("a2a-card-verdict") == ["valid"]
    assert resp.header("a2a-card-staleness-ms") == "0"
    assert resp.header("cache-control") == "max-age=10, must-revalidate"
    assert registry.count("primary", path) == 1
    assert registry.count("replica", target) == 0  # refused before the target was asked
    assert delta(before, counters(rr_envoy)) == {"attempted": 1, "succeeded": 1, "calls": 1}
    # The same route without internal redirects: the caller gets the redirect's refusal
    # re-resolved on the response path, with the same answer.
    script(registry, path)
    moved_away(registry, path)
    same_answer(resp, get(rr_envoy, "rr", path)[0])


@pytest.mark.parametrize("primary,status,what", [
    ((V3, 40000), 200, "stale"),
    ((b'{"error":"boom"}', 0), 500, "failing"),
])
def test_internal_redirect_refused_then_a_stale_or_failing_primary_fails_closed_with_both_attempts(
        rr_envoy, registry, primary, status, what):
    path = "/agents/rr-int-%s/card" % what
    answers = {}
    for listener in ("rr_internal", "rr"):
        script(registry, path, primary=primary, primary_status=status)
        moved_away(registry, path)
        before = counters(rr_envoy)
        resp, _ = get(rr_envoy, listener, path)
        assert delta(before, counters(rr_envoy)) == {"attempted": 1, "failed": 1, "calls": 1}
        # Stale: the primary's decision (503); failing: the route's own refusal (502).
        assert resp.status == (503 if what == "stale" else 502), resp
        assert resp.header("a2a-card-verdict") == "rejected"
        assert resp.header("a2a-card-attempts") == "2"
        problem = resp.json()
        attempts = problem["resolution"]["attempts"]
        assert [a["source"] for a in attempts] == ["registry_edge", "registry_primary"]
        assert attempts[0]["error_class"] == "malformed_card"
        assert problem["resolution"]["outcome"] == "attempts_exhausted"
        answers[listener] = resp, problem
    (internal, doc), (response_path, expected) = answers["rr_internal"], answers["rr"]
    # Before, the internal redirect's answer was a 502 with no resolution.
    first = doc["resolution"]["attempts"][0]["reasons"]
    assert [r["code"] for r in first] == ["body_empty"], doc
    assert "internal_redirect_policy" in first[0]["message"], doc
    same_answer(internal, response_path)
    for key in ("type", "title", "status", "error_class", "card_hash", "staleness_ms"):
        assert doc.get(key) == expected.get(key), (doc, expected)
    assert [a.get("verdict") for a in doc["resolution"]["attempts"]] == \
        [a.get("verdict") for a in expected["resolution"]["attempts"]]
    assert registry.count("primary", path) == 2


def test_internal_redirect_refused_in_observe_mode_is_not_re_resolved(rr_envoy, registry):
    path = "/agents/rr-int-observe/card"
    script(registry, path)
    target = moved_away(registry, path)
    resp, _ = get(rr_envoy, "rr_internal_observe", path)
    # Counted and logged; the request goes on to the target, which is no card route.
    assert resp.status == 200 and resp.body == V2, resp
    assert resp.header("a2a-card-verdict") is None
    assert registry.count("replica", target) == 1
    assert registry.count("primary", path) == 0


def test_internal_redirect_refused_without_re_resolve_fails_closed_at_once(rr_envoy, registry):
    path = "/agents/rr-int-none/card"
    script(registry, path)
    target = moved_away(registry, path)
    resp, _ = get(rr_envoy, "internal", path)
    assert resp.status == 502 and resp.header("a2a-card-verdict") == "rejected", resp
    doc = resp.json()
    assert doc["error_class"] == "malformed_card" and "resolution" not in doc, doc
    assert "internal_redirect_policy" in doc["detail"], doc
    assert registry.count("replica", target) == 0
    assert registry.count("primary", path) == 0


def test_internal_redirect_is_re_resolved_under_the_original_routes_rule_and_id(rr_envoy, registry):
    # rr-int-strict's route (worker-7's rule) redirects to a card route of a looser rule (the
    # defaults): the gate refuses it, and asks the primary for rr-int-strict's card (the
    # original route's {id}), which must meet that rule with the caller's headers.
    path, looser = "/agents/rr-int-strict/card", "/agents/rr-int-looser/card"
    asked = "/primary/rr-int-strict/card.json"
    registry.register(
        registry.script(path, b"", 302, [("Location", "http://127.0.0.1:%d%s" % (registry.replica, looser))],
                        role="replica"),
        registry.script(looser, V2, 200, [("x-replica-lag-ms", "100")], role="replica"),
        registry.script(asked, V3, 200, [("content-type", "application/json"), ("x-replica-lag-ms", "1500")],
                        role="primary"))
    before = registry.count("primary", asked)
    resp, _ = get(rr_envoy, "rr_internal_id", path)
    assert resp.status == 200 and resp.body == V3, resp
    assert resp.header("a2a-card-source") == "registry_primary" and resp.header("a2a-card-attempts") == "2"
    assert registry.count("primary", asked) == before + 1
    assert registry.count("replica", looser) == 0
    # The caller's own tolerance (1 s) is combined with the rule: the primary's card, 1.5 s
    # behind, fails it.
    resp, _ = get(rr_envoy, "rr_internal_id", path, {"Cache-Control": "max-stale=1"})
    assert resp.status == 503, resp
    assert resp.json()["resolution"]["attempts"][1]["error_class"] == "stale_agent_card"


def test_internal_redirect_re_resolution_whose_cluster_redirects_fails_closed(rr_envoy, registry):
    # The re-resolution's call is no request through the filter chain: a primary that redirects
    # is judged as any re-resolution answer, a failed attempt (on both paths alike).
    path = "/agents/rr-int-loop/card"
    answers = []
    for listener in ("rr_internal", "rr"):
        moved_away(registry, path)
        registry.register(registry.script(path, b"", 302, [("Location", "http://127.0.0.1:%d%s" % (
            registry.replica, path))], role="primary"))
        resp, _ = get(rr_envoy, listener, path)
        assert resp.status == 502 and resp.header("a2a-card-attempts") == "2", resp
        attempts = resp.json()["resolution"]["attempts"]
        assert attempts[1]["source"] == "registry_primary" and attempts[1]["verdict"] != "valid", attempts
        answers.append(resp)
    same_answer(*answers)


def test_internal_redirect_re_resolution_times_out_and_fails_closed(rr_envoy, registry):
    path = "/agents/rr-int-slow/card"
    script(registry, path, delay_ms=3000)
    moved_away(registry, path)
    resp, ms = get(rr_envoy, "rr_internal", path)
    assert resp.status == 502, resp
    assert ms < TIMEOUT_MS + 600
    attempts = resp.json()["resolution"]["attempts"]
    assert "no answer within %d ms" % TIMEOUT_MS in attempts[1]["error"], attempts


def test_internal_redirect_re_resolved_for_a_head_gets_the_headers_only(rr_envoy, registry):
    path = "/agents/rr-int-head/card"
    script(registry, path)
    moved_away(registry, path)
    resp, _ = get(rr_envoy, "rr_internal", path, method="HEAD")
    assert resp.status == 200, resp
    assert resp.body == b""
    assert resp.header("a2a-card-source") == "registry_primary"
    assert resp.header("content-length") == str(len(V3))


def test_internal_redirect_concurrent_refusals_make_one_primary_call(rr_envoy, registry):
    path = "/agents/rr-int-flight/card"
    script(registry, path, delay_ms=300)
    moved_away(registry, path)
    n = 4
    before = counters(rr_envoy)
    results = [None] * n
    start = threading.Barrier(n)

    def one(i):
        start.wait()
        results[i] = get(rr_envoy, "rr_internal", path)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert all(r is not None and r[0].status == 200 and r[0].body == V3 for r in results), results
    assert registry.count("primary", path) == 1
    d = delta(before, counters(rr_envoy))
    assert d["attempted"] == n and d["succeeded"] == n and d["calls"] == 1
    assert d.get("coalesced", 0) + d.get("reused", 0) == n - 1


@pytest.mark.parametrize("listener", ["rr_internal", "internal"])
def test_internal_redirect_header_sent_by_a_caller_never_reaches_the_gate(rr_envoy, registry, listener):
    # Envoy removes a caller's x-envoy-original-url before the filters: a direct request for a
    # path that is no card route is neither refused nor re-resolved (the gate never judges it),
    # and the upstream does not see the header either.
    path, other = "/agents/rr-int-forged/card", "/elsewhere/forged/card.json"
    script(registry, path)
    registry.register(registry.script(other, V2, 200, [("x-replica-lag-ms", "40000")], role="replica"))
    resp, _ = get(rr_envoy, listener, other, {"x-envoy-original-url": "http://127.0.0.1%s" % path})
    assert resp.status == 200 and resp.body == V2 and resp.header("a2a-card-verdict") is None, resp
    assert registry.count("primary", path) == 0
    assert "x-envoy-original-url" not in dict(registry.last_request_headers(other))
