"""cardgate beside Envoy's own HTTP filters, in both orders (envoy/README.md, "Beside other
filters"). Each listener of one Envoy puts the gate before or after a real Envoy filter; each test
asserts what the caller gets. Envoy lists `http_filters` downstream first: requests pass them in
list order, responses in reverse, so "X before the gate" means X is nearer the caller.

Findings (Envoy 1.40.0 and 1.36.2):
- `envoy.filters.http.cache` before the gate answers every cacheable GET itself, fetching the
  upstream with its own async client: the gate never sees the request or the answer, and a card
  40 s stale reaches the caller as a plain 200 (no verdict). After the gate it is safe as long as
  the route reads `Age` (the default); a route whose `watermark` leaves `age` out undercounts.
- A shared cache in front of the gate (another hop) keeps a valid answer no longer than its
  capped `max-age`, also for a caller that sends `Cache-Control: max-stale=N` (the gate's own
  tolerance header, which to an HTTP cache means "serve me expired answers"): valid answers carry
  `must-revalidate`.
- `envoy.filters.http.decompressor` after the gate (nearer the upstream) re-adds
  `Accept-Encoding: gzip` and, at the end of a decompressed body, adds trailers that Envoy never
  hands to a filter that is buffering (envoyproxy/envoy#29879): the answer stalls until the route
  timeout (fails closed, slowly). Before the gate it is safe: the gate removes its
  `Accept-Encoding`, and a registry that compresses anyway is refused (`body_encoded`).
- the compressor is safe in both orders; header rewrites nearer the upstream than the gate are
  trusted as the registry's (a rewritten watermark is believed), forged verdicts are removed;
  `local_reply_config` can turn the gate's rejection into a 200 that a2a-sdk reads as a card.
- a route's `internal_redirect_policy` made Envoy follow a card route's redirect itself: the
  target's card reached the caller unchecked. The gate now refuses such a target on the
  recreated request (`x-envoy-original-url`) unless it keeps the card route's rule.
- a listener buffer limit below the card's size: Envoy's own 500, never a verdict.
"""

import asyncio
import gzip
import itertools
import json
import time

import httpx
import pytest

import harness
from a2a.client import A2ACardResolver, AgentCardResolutionError

_ids = itertools.count()

CARD = json.dumps({
    "name": "worker-c", "description": "chain test", "version": "3.0.0",
    "supportedInterfaces": [{"url": "https://wc.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {}, "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
    "skills": [{"id": "task.execute.v3", "name": "x", "description": "x", "tags": ["t"]}],
}, separators=(",", ":")).encode()

PLUGIN = {"defaults": {"max_stale": "10s"}, "agents": {}, "routes": [{"path": "/c/{id}/card"}]}
# The same, on a route whose watermark sources leave `Age` out.
PLUGIN_NO_AGE = dict(PLUGIN, routes=[{"path": "/c/{id}/card", "watermark": {"lag_ms_header": "x-replica-lag-ms"}}])
VARY = ["a2a-require-capabilities", "a2a-min-card-version", "a2a-card-pin", "a2a-card-name", "cache-control"]


def gate(config=PLUGIN, name="cardgate"):
    return harness.wasm_filter(name, config)


def cache(allowed_vary=()):
    config = {"@type": "type.googleapis.com/envoy.extensions.filters.http.cache.v3.CacheConfig",
              "typed_config": {"@type": "type.googleapis.com/envoy.extensions.http.cache.simple_http_cache.v3.SimpleHttpCacheConfig"}}
    if allowed_vary:
        config["allowed_vary_headers"] = [{"exact": h} for h in allowed_vary]
    return {"name": "envoy.filters.http.cache", "typed_config": config}


def compressor():
    return {"name": "envoy.filters.http.compressor", "typed_config": {
        "@type": "type.googleapis.com/envoy.extensions.filters.http.compressor.v3.Compressor",
        "response_direction_config": {"common_config": {"min_content_length": 1, "content_type": ["application/json"]}},
        "compressor_library": {"name": "gzip", "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.compression.gzip.compressor.v3.Gzip"}}}}


def decompressor():
    return {"name": "envoy.filters.http.decompressor", "typed_config": {
        "@type": "type.googleapis.com/envoy.extensions.filters.http.decompressor.v3.Decompressor",
        "decompressor_library": {"name": "gzip", "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.compression.gzip.decompressor.v3.Gzip"}}}}


def header_mutation(response_mutations):
    return {"name": "envoy.filters.http.header_mutation", "typed_config": {
        "@type": "type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.HeaderMutation",
        "mutations": {"response_mutations": response_mutations}}}


def set_header(name, value):
    return {"append": {"header": {"key": name, "value": value}, "append_action": "OVERWRITE_IF_EXISTS_OR_ADD"}}


def lua(code):
    return {"name": "envoy.filters.http.lua", "typed_config": {
        "@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua",
        "default_source_code": {"inline_string": code}}}


def listener(name, filters, routes=None, hcm=None):
    out = harness.listener(name, "registry", filters, hcm)
    if routes is not None:
        out["filter_chains"][0]["filters"][0]["typed_config"]["route_config"]["virtual_hosts"][0]["routes"] = routes
    return out


def route(**extra):
    return [{"match": {"prefix": "/"}, "route": dict({"cluster": "registry", "timeout": "10s"}, **extra)}]


# Maps every 4xx/5xx local reply to a 200 with a JSON body (an operator's "friendly errors").
LOCAL_REPLY_TO_200 = {"local_reply_config": {"mappers": [{
    "filter": {"status_code_filter": {"comparison": {"op": "GE", "value": {"default_value": 400, "runtime_key": "chain.lr"}}}},
    "status_code": 200, "body": {"inline_string": "{}"}}]}}

def small_buffers(out):
    out["per_connection_buffer_limit_bytes"] = 1024
    return out


LISTENERS = {
    "gate_only": lambda: listener("gate_only", [gate()]),
    "small_buffers": lambda: small_buffers(listener("small_buffers", [gate()])),
    "cache_before": lambda: listener("cache_before", [cache(VARY), gate()]),
    # The same, with the cache disabled on the card route (and only there).
    "cache_before_off_on_cards": lambda: listener("cache_before_off_on_cards", [cache(VARY), gate()], [
        {"match": {"prefix": "/c/"}, "route": {"cluster": "registry", "timeout": "10s"},
         "typed_per_filter_config": {"envoy.filters.http.cache": {
             "@type": "type.googleapis.com/envoy.config.route.v3.FilterConfig", "disabled": True}}},
        {"match": {"prefix": "/"}, "route": {"cluster": "registry", "timeout": "10s"}}]),
    "cache_after": lambda: listener("cache_after", [gate(), cache()]),
    "cache_after_no_age": lambda: listener("cache_after_no_age", [gate(PLUGIN_NO_AGE, "cardgate_no_age"), cache()]),
    "compressor_before": lambda: listener("compressor_before", [compressor(), gate()]),
    "compressor_after": lambda: listener("compressor_after", [gate(), compressor()]),
    "decompressor_before": lambda: listener("decompressor_before", [decompressor(), gate()]),
    # A short stream idle timeout (default 5 min): the stall below ends there.
    "decompressor_after": lambda: listener("decompressor_after", [gate(), decompressor()],
                                           hcm={"stream_idle_timeout": "1.5s"}),
    "mutation_before": lambda: listener("mutation_before", [
        header_mutation([set_header("a2a-card-verdict", "valid"), set_header("x-chain", "1")]), gate()]),
    "mutation_after": lambda: listener("mutation_after", [gate(), header_mutation([
        set_header("a2a-card-verdict", "valid"), set_header("a2a-card-hash", "sha256:" + "0" * 64)])]),
    "watermark_rewrite_after": lambda: listener("watermark_rewrite_after", [gate(), lua(
        "function envoy_on_response(h) h:headers():replace('x-replica-lag-ms', '0') end")]),
    "local_reply": lambda: listener("local_reply", [gate()], hcm=LOCAL_REPLY_TO_200),
    "internal_redirect": lambda: listener("internal_redirect", [gate()], route(internal_redirect_policy={
        "max_internal_redirects": 2, "redirect_response_codes": [301, 302, 303, 307, 308]})),
}


@pytest.fixture(scope="module")
def chain(registry, workdir):
    config = harness.bootstrap([make() for make in LISTENERS.values()],
                               [harness.cluster("registry", registry.replica)])
    proc = harness.Envoy(config, workdir, "chain")
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()


def get(chain, listener_name, path, headers=None, timeout=10):
    return harness.request(chain.ports[listener_name], path, headers=headers, timeout=timeout)


def card_path():
    return "/c/chain-%d/card" % next(_ids)


def serve(registry, path, lag_ms, body=CARD, headers=()):
    registry.register(registry.script(path, body, headers=[
        ("Content-Type", "application/json"), ("x-replica-lag-ms", str(lag_ms))] + list(headers)))
    return path


def cache_control(resp):
    out = {}
    for value in resp.header_all("cache-control"):
        for directive in value.split(","):
            name, _, arg = directive.strip().partition("=")
            out[name.lower()] = arg or None
    return out


# -- envoy.filters.http.cache ----------------------------------------------------------------

def test_cache_before_the_gate_answers_past_it(chain, registry):
    """The cache filter nearer the caller fetches cacheable requests itself (an async client to
    the route's cluster, envoyproxy/envoy#36309): the gate never runs. A card 40 s behind reaches the
    caller as a plain 200, no verdict, no rejection counted. Never list the cache before the gate
    on card routes (README, "Beside other filters")."""
    path = serve(registry, card_path(), 40000, headers=[("Cache-Control", "max-age=60")])
    before = chain.counter("cardgate.verdict.rejected")
    resp = get(chain, "cache_before", path)
    assert resp.status == 200 and resp.body == CARD, resp
    assert resp.header("a2a-card-verdict") is None, resp
    assert chain.counter("cardgate.verdict.rejected") == before
    # The same card through the gate alone is refused.
    assert get(chain, "cache_after", path).status == 503
    # With the cache disabled on the card routes the gate runs (and other routes stay cached).
    resp = get(chain, "cache_before_off_on_cards", path)
    assert resp.status == 503 and resp.header("a2a-card-verdict") == "rejected", resp
    other = "/other/%d" % next(_ids)
    serve(registry, other, 0, headers=[("Cache-Control", "max-age=60")])
    get(chain, "cache_before_off_on_cards", other)
    assert get(chain, "cache_before_off_on_cards", other).status == 200
    assert registry.count("replica", other) == 1


def test_cache_after_the_gate_counts_age(chain, registry):
    """The cache nearer the upstream answers from its store with `Age`; the gate adds it to the
    replica lag (the route reads `Age`, the default): valid while lag + age is within the
    tolerance, `stale_agent_card` after. On a route whose `watermark` leaves `age` out the same
    cached answer stays valid with its stored lag: keep `age` on behind a cache."""
    path = serve(registry, card_path(), 8500, headers=[("Cache-Control", "max-age=60")])
    first = get(chain, "cache_after", path)
    assert first.status == 200 and first.header("a2a-card-verdict") == "valid", first
    assert first.header("a2a-card-staleness-ms") == "8500"
    no_age = get(chain, "cache_after_no_age", path)
    assert no_age.status == 200, no_age
    assert registry.count("replica", path) == 2  # one fill per listener's cache
    time.sleep(2.2)
    later = get(chain, "cache_after", path)
    assert later.status == 503, later
    problem = later.json()
    assert problem["error_class"] == "stale_agent_card" and problem["staleness_ms"] >= 10500, problem
    assert later.header("cache-control") == "no-store"
    # Age off: the cached answer, older than the tolerance, still passes.
    unaged = get(chain, "cache_after_no_age", path)
    assert unaged.status == 200 and unaged.header("a2a-card-staleness-ms") == "8500", unaged
    assert int(unaged.header("age")) >= 2
    assert registry.count("replica", path) == 2  # both answered from the caches


@pytest.fixture(scope="module")
def front(registry, workdir):
    """A second Envoy in front of the gate's Envoy: a shared cache one hop nearer the caller
    (a CDN or an edge proxy). Envoy's cache refuses answers with `Vary` unless
    `allowed_vary_headers` lists them, and with them listed it crashes on such an answer
    (envoyproxy/envoy#40469, seen on 1.36.2 and 1.40.0); so the gate's hop removes `Vary` with a
    filter nearer the caller, as an operator who wants the card cached might."""
    gate_hop = listener("gate_no_vary", [header_mutation([{"remove": "vary"}]), gate()])
    gate_envoy = harness.Envoy(harness.bootstrap([gate_hop], [harness.cluster("registry", registry.replica)]),
                               workdir, "gate_hop")
    front_envoy = None
    try:
        gate_envoy.start()
        front_envoy = harness.Envoy(
            harness.bootstrap([listener("front", [cache()])],
                              [harness.cluster("registry", gate_envoy.ports["gate_no_vary"])]),
            workdir, "front_cache")
        front_envoy.start()
        yield front_envoy
    finally:
        if front_envoy:
            front_envoy.stop()
        gate_envoy.stop()


def test_shared_cache_in_front_does_not_stretch_a_verdict_with_max_stale(front, registry):
    """A caller states its tolerance as `Cache-Control: max-stale=10`; to an HTTP cache that also
    means "an answer expired up to 10 s ago will do" (RFC 9111 5.2.1.2). The gate caps a valid
    answer's `max-age` to the tolerance left and adds `must-revalidate`, so an expired verdict is
    never reused: the cache asks again through the gate. (Without `must-revalidate`, Envoy's
    cache served the stored `valid` 2 s past its `max-age=1`: a card 11 s behind.)"""
    path = serve(registry, card_path(), 9000)
    caller = {"Cache-Control": "max-stale=10"}
    first = harness.request(front.ports["front"], path, headers=caller)
    assert first.status == 200 and first.header("a2a-card-verdict") == "valid", first
    assert cache_control(first) == {"max-age": "1", "must-revalidate": None}, first.headers
    # Within max-age the cache answers (the registry is not asked again).
    again = harness.request(front.ports["front"], path, headers=caller)
    assert again.status == 200 and registry.count("replica", path) == 1, again
    # Why the gate's Vary must stay: with it removed, a caller requiring a capability the card
    # lacks gets the stored `valid` too (through the gate alone: 409).
    stricter = harness.request(front.ports["front"], path, headers={"a2a-require-capabilities": "other.cap"})
    assert stricter.status == 200 and stricter.header("a2a-card-verdict") == "valid", stricter
    assert registry.count("replica", path) == 1
    # The replica falls further behind; the stored verdict expires.
    serve(registry, path, 40000)
    time.sleep(2.2)
    late = harness.request(front.ports["front"], path, headers=caller)
    assert late.status == 503, late
    assert late.header("a2a-card-verdict") == "rejected"
    assert registry.count("replica", path) == 2


# -- compression -----------------------------------------------------------------------------

@pytest.mark.parametrize("listener_name", ["compressor_before", "compressor_after"])
def test_compressor_either_side_the_gate_checks_the_plain_card(chain, registry, listener_name):
    """Before the gate (nearer the caller) the compressor gzips the checked card for a caller
    that accepts gzip; the caller's client decodes exactly the bytes the gate hashed. After the
    gate it never compresses: the gate removed `Accept-Encoding` from the card request."""
    path = serve(registry, card_path(), 1000)
    resp = get(chain, listener_name, path, {"Accept-Encoding": "gzip"})
    assert resp.status == 200 and resp.header("a2a-card-verdict") == "valid", resp
    body = gzip.decompress(resp.body) if resp.header("content-encoding") == "gzip" else resp.body
    assert body == CARD
    assert resp.header("content-encoding") == ("gzip" if listener_name == "compressor_before" else None)
    stale = serve(registry, card_path(), 40000)
    assert get(chain, listener_name, stale, {"Accept-Encoding": "gzip"}).status == 503


@pytest.mark.parametrize("listener_name", ["compressor_before", "compressor_after", "decompressor_before"])
def test_a_registry_that_compresses_anyway_fails_closed(chain, registry, listener_name):
    path = serve(registry, card_path(), 1000, gzip.compress(CARD), [("Content-Encoding", "gzip")])
    resp = get(chain, listener_name, path, {"Accept-Encoding": "gzip"})
    assert resp.status == 502 and resp.header("a2a-card-verdict") == "rejected", resp
    assert "Content-Encoding" in resp.json()["detail"]


def test_decompressor_before_the_gate_asks_for_identity(chain, registry):
    """The decompressor nearer the caller adds `Accept-Encoding: gzip`; the gate, after it,
    removes it again: the registry sends the plain card and the verdict works."""
    path = serve(registry, card_path(), 1000)
    resp = get(chain, "decompressor_before", path)
    assert resp.status == 200 and resp.header("a2a-card-verdict") == "valid" and resp.body == CARD, resp
    sent = dict(registry.last_request_headers(path))
    assert "accept-encoding" not in sent, sent


def test_decompressor_after_the_gate_stalls_until_the_stream_idle_timeout(chain, registry):
    """The decompressor nearer the upstream re-adds `Accept-Encoding: gzip` after the gate removed
    it, and ends a decompressed body with trailers (its byte counts) that Envoy never delivers to
    a filter still buffering the body (envoyproxy/envoy#29879): the gate waits for an end that
    never comes; the route timeout no longer applies (the upstream answer is complete), and the
    connection manager's `stream_idle_timeout` (5 min by default, 1.5 s here) ends the stream. Never a verdict; but every
    card from a registry that honours gzip fails, slowly. List the decompressor before the
    gate."""
    path = serve(registry, card_path(), 1000, gzip.compress(CARD), [("Content-Encoding", "gzip")])
    started = time.monotonic()
    resp = get(chain, "decompressor_after", path)
    assert time.monotonic() - started >= 1.4
    assert resp.status == 504 and resp.header("a2a-card-verdict") is None, resp
    assert resp.body != CARD
    assert dict(registry.last_request_headers(path)).get("accept-encoding") == "gzip"
    # A registry that ignores Accept-Encoding still gets its plain card checked.
    plain = serve(registry, card_path(), 1000)
    assert get(chain, "decompressor_after", plain).header("a2a-card-verdict") == "valid"


# -- header rewrites, local replies, redirects ------------------------------------------------

def test_verdict_headers_forged_nearer_the_upstream_are_removed(chain, registry):
    stale = serve(registry, card_path(), 40000)
    resp = get(chain, "mutation_after", stale)
    assert resp.status == 503 and resp.header_all("a2a-card-verdict") == ["rejected"], resp
    fresh = serve(registry, card_path(), 1000)
    resp = get(chain, "mutation_after", fresh)
    assert resp.status == 200 and resp.header_all("a2a-card-verdict") == ["valid"], resp
    assert resp.header("a2a-card-hash") != "sha256:" + "0" * 64


def test_a_filter_nearer_the_caller_rewrites_what_it_likes(chain, registry):
    """Filters nearer the caller run after the gate on the answer: the gate cannot protect its
    headers from them. A mutation that sets `a2a-card-verdict: valid` changes the forwarded
    answers (a valid card keeps `valid`); the gate's own rejections are local replies, which
    Envoy sends without running the response mutations of filters nearer the caller."""
    fresh = serve(registry, card_path(), 1000)
    resp = get(chain, "mutation_before", fresh)
    assert resp.status == 200 and resp.header_all("a2a-card-verdict") == ["valid"], resp
    assert resp.header("x-chain") == "1"
    stale = serve(registry, card_path(), 40000)
    resp = get(chain, "mutation_before", stale)
    assert resp.status == 503 and resp.header_all("a2a-card-verdict") == ["rejected"], resp


def test_a_watermark_rewritten_nearer_the_upstream_is_believed(chain, registry):
    """A filter between the registry and the gate is part of the resolver: a Lua script that
    sets `x-replica-lag-ms: 0` makes a card 40 s behind valid. Only filters that report the
    registry's own watermark belong there."""
    stale = serve(registry, card_path(), 40000)
    resp = get(chain, "watermark_rewrite_after", stale)
    assert resp.status == 200 and resp.header("a2a-card-verdict") == "valid", resp
    assert resp.header("a2a-card-staleness-ms") == "0"


def discover(chain, listener_name, base):
    """a2a-sdk 1.3.0's discovery of the card under `base`, through one listener."""
    async def run():
        async with httpx.AsyncClient() as http:
            url = "http://127.0.0.1:%d%s" % (chain.ports[listener_name], base)
            return await A2ACardResolver(http, url).get_agent_card()
    return asyncio.run(run())


def test_local_reply_mapper_turns_a_rejection_into_a_200(chain, registry):
    """`local_reply_config` applies to the gate's rejections (local replies): a mapper that
    rewrites 4xx/5xx to 200 hands the caller a 200 with the mapper's body. The
    `a2a-card-verdict: rejected` header survives, but no SDK reads it, and a2a-sdk 1.3.0 reads
    `{}` as an empty card: discovery "succeeds" on a card 40 s behind, the silent failure the gate
    exists to prevent. Such a mapper must never match card routes (README)."""
    base = "/c/chain-%d" % next(_ids)
    serve(registry, base + "/.well-known/agent-card.json", 40000)
    resp = get(chain, "local_reply", base + "/.well-known/agent-card.json")
    assert resp.status == 200 and resp.body == b"{}", resp
    assert resp.header("a2a-card-verdict") == "rejected"
    card = discover(chain, "local_reply", base)
    assert card.name == "" and len(card.supported_interfaces) == 0
    # Without the mapper the same discovery fails, with the gate's status.
    with pytest.raises(AgentCardResolutionError) as caught:
        discover(chain, "gate_only", base)
    assert caught.value.status_code == 503


def test_a_card_over_the_listener_buffer_limit_fails_closed(chain, registry):
    """The gate buffers the whole card; a listener whose `per_connection_buffer_limit_bytes` is
    below the card's size makes Envoy end the answer itself (a 500 without the card), never a
    verdict. Keep the buffer limit above `max_card_bytes` (64 KiB by default)."""
    big = json.loads(CARD)
    big["description"] = "x" * 4096
    body = json.dumps(big, separators=(",", ":")).encode()
    path = serve(registry, card_path(), 1000, body)
    assert get(chain, "gate_only", path).header("a2a-card-verdict") == "valid"
    resp = get(chain, "small_buffers", path)
    assert resp.header("a2a-card-verdict") is None, resp
    assert resp.status == 500 and body not in resp.body, resp


def test_internal_redirect_target_is_checked_as_the_card_route(chain, registry):
    """With the route's `internal_redirect_policy`, Envoy follows a registry's redirect itself
    and runs the filter chain again for the target: what the caller gets must still be checked
    under the card route it asked for."""
    target = "/elsewhere/%d/card.json" % next(_ids)
    serve(registry, target, 40000)
    path = card_path()
    registry.register(registry.script(path, b"", 302, [("Location", "http://127.0.0.1:%d%s" % (registry.replica, target))]))
    resp = get(chain, "internal_redirect", path)
    # Before the gate judged the recreated stream by its own path (no card route): a card 40 s
    # behind reached the caller as a 200 without a verdict.
    assert resp.status == 502 and resp.header("a2a-card-verdict") == "rejected", resp
    assert "internal_redirect_policy" in resp.json()["detail"], resp.json()
    assert registry.count("replica", target) == 0  # refused before asking
    # A redirect to a card route under the same rule is followed and checked there.
    fresh = serve(registry, card_path(), 1000)
    moved = card_path()
    absolute = "http://127.0.0.1:%d%s"  # Envoy follows absolute Locations only
    registry.register(registry.script(moved, b"", 302, [("Location", absolute % (registry.replica, fresh))]))
    resp = get(chain, "internal_redirect", moved)
    assert resp.status == 200 and resp.header("a2a-card-verdict") == "valid" and resp.body == CARD, resp
    stale = serve(registry, card_path(), 40000)
    registry.register(registry.script(moved, b"", 302, [("Location", absolute % (registry.replica, stale))]))
    assert get(chain, "internal_redirect", moved).status == 503
