"""Upstream faults through a real Envoy: a raw-socket upstream (fault_upstream.py) that stalls,
resets, lies about its length, sends trailers, 1xx, a 64 KiB header or drips one byte per 100 ms.

Every stream must end within the route timeout with a defined answer (a complete card with its
verdict, a cardgate problem, Envoy's own 5xx for the upstream failure, or a reset of the
caller's stream), never a `valid` stamp on a partial card; and the worker keeps serving: a good
card right after each fault is still valid.

The client is a raw socket too (fault_upstream.exchange): http.client would hide 1xx answers,
trailers and resets.
"""

import json
import threading
import time
from urllib.parse import quote

import pytest

import harness
from fault_upstream import CARD_BYTES, FaultUpstream, exchange as raw_exchange, unique_card

ROUTE_TIMEOUT_S = 2.0
# Envoy answers a route timeout at ROUTE_TIMEOUT_S; allow for a loaded, shared machine.
DEADLINE_S = ROUTE_TIMEOUT_S + 2.5

PLUGIN = {
    "defaults": {"max_stale": "10s"},
    "routes": [{"path": "/faults/{id}/card"}],
}


def _with_route_timeout(listener, timeout_s):
    hcm = listener["filter_chains"][0]["filters"][0]["typed_config"]
    hcm["route_config"]["virtual_hosts"][0]["routes"][0]["route"]["timeout"] = "%gs" % timeout_s
    return hcm


def fault_config(upstream_port):
    plain = harness.listener("faults", "faults", [harness.wasm_filter("cardgate_faults", PLUGIN)])
    _with_route_timeout(plain, ROUTE_TIMEOUT_S)
    # Trailers are forwarded both ways on this one (HTTP/1 drops them unless told otherwise).
    trailers = harness.listener("trailers", "faults_trailers",
                                [harness.wasm_filter("cardgate_trailers", PLUGIN)])
    _with_route_timeout(trailers, ROUTE_TIMEOUT_S)["http_protocol_options"] = {"enable_trailers": True}
    with_trailers = harness.cluster("faults_trailers", upstream_port)
    with_trailers["typed_extension_protocol_options"] = {
        "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
            "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
            "explicit_http_config": {"http_protocol_options": {"enable_trailers": True}},
        }
    }
    return harness.bootstrap([plain, trailers], [harness.cluster("faults", upstream_port), with_trailers])


# -- fixtures ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def upstream():
    up = FaultUpstream().start()
    yield up
    up.stop()


@pytest.fixture(scope="module")
def faults_envoy(upstream, workdir):
    proc = harness.Envoy(fault_config(upstream.port), workdir, "faults")
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()


def exchange(port, path, timeout=DEADLINE_S + 5):
    return raw_exchange(port, path, timeout=timeout)


def assert_defined(ex):
    """Ended in time; never a `valid` stamp unless the caller got the whole card."""
    assert ex.end != "client timeout", ex
    assert ex.elapsed < DEADLINE_S, ex
    if ex.end != "complete":
        assert ex.status != 200 and ex.header("a2a-card-verdict") is None, ex
        return
    if ex.header("a2a-card-verdict") == "valid" or ex.status == 200:
        assert ex.status == 200 and ex.header("a2a-card-verdict") == "valid", ex
        assert ex.body == CARD_BYTES, ex


def assert_problem(ex, status, error_class):
    assert ex.end == "complete" and ex.status == status, ex
    assert ex.header("content-type") == "application/problem+json", ex
    assert json.loads(ex.body)["error_class"] == error_class, ex


def assert_envoy_failure(ex, statuses):
    """Envoy's own answer to an upstream failure (not a card, not a cardgate problem) or a reset."""
    if ex.end == "complete":
        assert ex.status in statuses, ex
        assert ex.header("a2a-card-verdict") is None, ex
        assert ex.header("content-type") != "application/problem+json", ex
    else:
        assert ex.end in ("reset", "closed") and ex.status is None, ex


def assert_still_serving(port):
    ex = exchange(port, "/faults/ok/card")
    assert ex.end == "complete" and ex.status == 200, ex
    assert ex.header("a2a-card-verdict") == "valid", ex
    assert ex.body == CARD_BYTES


def get(envoy, kind, listener="faults", query=""):
    return exchange(envoy.ports[listener], "/faults/%s/card%s" % (kind, query))


# -- the baseline -----------------------------------------------------------------------------

def test_the_fault_route_is_checked(faults_envoy):
    assert_still_serving(faults_envoy.ports["faults"])
    assert_problem(get(faults_envoy, "stale"), 503, "stale_agent_card")


def test_every_new_body_is_judged_and_passed_whole(faults_envoy, upstream):
    """`unique` (the soak's cache churn): each answer a card never seen, so each is a miss of
    the analysis cache, judged on its own bytes and passed byte for byte (never a cached one)."""
    bodies = []
    for _ in range(3):
        before = upstream.count("unique")
        misses = faults_envoy.counter("cardgate.analysis.miss")
        ex = get(faults_envoy, "unique")
        assert upstream.count("unique") == before + 1
        assert ex.status == 200 and ex.header("a2a-card-verdict") == "valid", ex
        assert ex.body == unique_card(upstream.served_unique) and len(ex.body) == len(CARD_BYTES)
        assert faults_envoy.counter("cardgate.analysis.miss") == misses + 1
        bodies.append(ex.body)
    assert len(set(bodies)) == 3


# -- faults that end early --------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["reset-body", "close-body"])
def test_truncated_answers_never_pass(faults_envoy, upstream, kind):
    """Half a card, then a reset or a close short of Content-Length: the held headers never
    reached the caller, so Envoy answers its own 502 (or resets); never the half card."""
    before = upstream.count(kind)
    chunks = faults_envoy.counter("cardgate.body_chunks")
    ex = get(faults_envoy, kind)
    assert upstream.count(kind) == before + 1  # the fault really ran (no retry hid it)
    assert_defined(ex)
    assert_envoy_failure(ex, {502, 503})
    # The half body's callbacks are counted when the stream ends, though it was never judged.
    harness.wait_until(lambda: faults_envoy.counter("cardgate.body_chunks") > chunks, 5,
                       "cardgate.body_chunks to count the half body")
    assert_still_serving(faults_envoy.ports["faults"])


def test_body_longer_than_its_content_length_is_a_truncated_card(faults_envoy):
    """Envoy frames the answer by Content-Length: the caller would get a cut card, so it is a
    malformed card (cardgate's 502), never valid."""
    ex = get(faults_envoy, "long-body")
    assert_defined(ex)
    assert_problem(ex, 502, "malformed_card")
    assert_still_serving(faults_envoy.ports["faults"])


def test_stray_bytes_after_a_complete_card_do_not_touch_it(faults_envoy):
    """The framed answer is the whole card (valid); the stray bytes only poison the upstream
    connection, which Envoy drops: the next request still works."""
    ex = get(faults_envoy, "long-body-valid")
    assert_defined(ex)
    assert ex.status == 200 and ex.header("a2a-card-verdict") == "valid", ex
    assert_still_serving(faults_envoy.ports["faults"])
    assert_still_serving(faults_envoy.ports["faults"])


# -- faults that never end: the route timeout -------------------------------------------------

SLOW = ["stall-headers", "stall-body", "drip", "drip-body"]


def test_stalls_and_drips_end_at_the_route_timeout_while_the_worker_keeps_serving(faults_envoy):
    """Headers then nothing, half a body then nothing, one byte per 100 ms (all of it, or the
    body only): Envoy's 504 at the route timeout, and meanwhile the same single worker answers
    good cards at once."""
    results = {}

    def run(kind):
        results[kind] = get(faults_envoy, kind)

    threads = [threading.Thread(target=run, args=(k,)) for k in SLOW]
    for t in threads:
        t.start()
    time.sleep(0.3)  # the slow answers are in flight
    quick = exchange(faults_envoy.ports["faults"], "/faults/ok/card")
    assert quick.elapsed < 1.5, quick
    assert quick.status == 200 and quick.header("a2a-card-verdict") == "valid", quick
    for t in threads:
        t.join(DEADLINE_S + 10)
    for kind in SLOW:
        ex = results[kind]
        assert_defined(ex)
        assert_envoy_failure(ex, {504})
        assert ex.end == "complete", (kind, ex)
        assert ex.elapsed >= ROUTE_TIMEOUT_S - 0.2, (kind, ex)
    assert_still_serving(faults_envoy.ports["faults"])


# -- unusual but well-formed answers ----------------------------------------------------------

@pytest.mark.parametrize("listener", ["faults", "trailers"])
def test_chunked_card_with_trailers(faults_envoy, listener):
    """Evaluated when the trailers end the body. Where trailers are forwarded, an upstream
    trailer cannot carry a verdict either (the upstream sends `a2a-card-verdict: valid`)."""
    ex = get(faults_envoy, "chunked-trailers", listener)
    assert_defined(ex)
    assert ex.status == 200 and ex.header("a2a-card-verdict") == "valid", ex
    assert ex.body == CARD_BYTES
    assert [k for k, _ in ex.trailers if k.startswith("a2a-card-")] == [], ex
    if listener == "trailers":
        assert ("x-card-checksum", "1234") in ex.trailers, ex
    assert_problem(get(faults_envoy, "stale-trailers", listener), 503, "stale_agent_card")
    assert_still_serving(faults_envoy.ports[listener])


@pytest.mark.parametrize("listener", ["faults", "trailers"])
def test_trailers_read_as_the_headers_are(faults_envoy, listener):
    """Where the cluster keeps trailers (`trailers`), they are read (DESIGN.md "Response
    trailers"): a framing field there (`content-length`, which Node's fetch checks the body
    against and httpx ignores) or an encoding is `502 body_encoded`, a watermark field is
    `503 watermark_invalid`, a cache lifetime is removed (the headers carry the capped one) and
    other trailers pass. Where Envoy drops them (`faults`), every one of these is valid."""
    def named(*fields):
        return get(faults_envoy, "named-trailers", listener,
                   "?t=" + ",".join(quote("%s:%s" % f, safe="") for f in fields))
    cases = [
        ((("content-length", "3"),), 502, "body_encoded"),
        ((("Transfer-Encoding", "gzip"),), 502, "body_encoded"),
        ((("content-encoding", "gzip"),), 502, "body_encoded"),
        ((("x-replica-lag-ms", "40000"),), 503, "watermark_invalid"),
        ((("X-Replica-Lag-Ms", "120"),), 503, "watermark_invalid"),
        ((("age", "1"),), 503, "watermark_invalid"),
    ]
    for fields, status, code in cases:
        ex = named(*fields)
        assert_defined(ex)
        if listener == "faults":
            assert ex.status == 200 and ex.header("a2a-card-verdict") == "valid", (fields, ex)
            continue
        assert_problem(ex, status, "malformed_card" if status == 502 else "stale_agent_card")
        assert [r["code"] for r in json.loads(ex.body)["reasons"]] == [code], (fields, ex)
    ex = named(("cache-control", "max-age=86400"), ("Expires", "Thu, 01 Jan 2099 00:00:00 GMT"),
               ("CDN-Cache-Control", "max-age=86400"), ("x-card-checksum", "1"))
    assert_defined(ex)
    assert ex.status == 200 and ex.header("a2a-card-verdict") == "valid", ex
    assert ex.body == CARD_BYTES
    assert "max-age=86400" not in (ex.header("cache-control") or ""), ex
    if listener == "trailers":
        assert [k.lower() for k, _ in ex.trailers] == ["x-card-checksum"], ex
    assert_still_serving(faults_envoy.ports[listener])


def test_fields_the_sdk_readers_read_apart(faults_envoy):
    """The answers the twenty-sixth session's framing differential found `cardgate resolve` or
    the npm package reading apart from an SDK: behind Envoy the caller gets what Envoy's own
    codec read, so the filter only has to judge what it is handed. A Transfer-Encoding other
    than one `chunked` and a header name with a space before its colon are refused by Envoy's
    codec (`502`, a protocol error, no verdict header); one `chunked` (any case) is a valid card."""
    for te in ("chunked", "Chunked"):
        ex = get(faults_envoy, "odd-fields", query="?te=" + quote(te, safe=""))
        assert_defined(ex)
        assert ex.status == 200 and ex.header("a2a-card-verdict") == "valid", (te, ex)
        assert ex.body == CARD_BYTES
    odd = ["te=" + quote(v, safe="") for v in ("chunked, identity", "identity, chunked", "gzip",
                                               "identity", "")]
    odd += ["te=identity,chunked", "te=chunked,chunked", "ws=40000"]
    for query in odd:
        ex = get(faults_envoy, "odd-fields", query="?" + query)
        assert_defined(ex)
        assert ex.status == 502 and ex.header("a2a-card-verdict") is None, (query, ex)
    assert_still_serving(faults_envoy.ports["faults"])


def test_informational_answers_before_the_card(faults_envoy):
    """100 Continue and 103 Early Hints, then the card: the card is checked as usual."""
    ex = get(faults_envoy, "1xx")
    assert_defined(ex)
    assert ex.status == 200 and ex.header("a2a-card-verdict") == "valid", ex
    assert all(100 <= s < 200 for s, _ in ex.informational), ex
    assert_still_serving(faults_envoy.ports["faults"])


def test_64_kib_response_header(faults_envoy):
    """Within Envoy's header limit the card is checked as usual; past it (here 256 KiB) Envoy
    refuses the upstream answer itself."""
    ex = get(faults_envoy, "big-header")
    assert_defined(ex)
    if ex.status == 200:
        assert ex.header("a2a-card-verdict") == "valid", ex
    else:
        assert_envoy_failure(ex, {502, 503})
    huge = get(faults_envoy, "big-header", query="?kib=256")
    assert_defined(huge)
    assert_envoy_failure(huge, {502, 503})
    assert_still_serving(faults_envoy.ports["faults"])


def test_no_fault_trapped_the_filter(faults_envoy):
    log = faults_envoy.log()
    assert "RuntimeError" not in log
    assert "panicked" not in log
    assert faults_envoy.stats().get("wasm.envoy.wasm.runtime.v8.active", 0) >= 2  # main + worker VMs
