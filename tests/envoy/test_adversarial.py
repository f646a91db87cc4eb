"""Adversarial answers through the shipped envoy/envoy.yaml (its listeners, routes, filter chain
and plugin configuration, on free ports), from a raw-socket upstream that sends exactly the
bytes a test scripts: what the caller finally receives must be what the gate checked.

- Redirects on a card route: a caller's HTTP client follows them (fetch does), so the card it
  ends up with is the target's. Only a redirect to a card route this gate checks under the same
  policy rule, on the same authority, passes; others fail closed (and are re-resolved on the
  re_resolve listener).
- A Content-Type charset other than UTF-8 (the caller would decode the checked bytes as
  something else) and repeated Content-Encoding headers fail closed.
- Many distinct cards at once (more than the analysis cache holds): every answer's verdict is
  its own body's, and a changed body never reuses an older body's analysis.
"""

import concurrent.futures
import copy
import json
import socket
import threading
import time

import pytest
import yaml

import harness
from fault_upstream import CARD, CARD_BYTES

SHIPPED = harness.os.path.join(harness.ROOT, "envoy", "envoy.yaml")
FRESH = [("Content-Type", "application/json"), ("x-replica-lag-ms", "120")]


def raw_answer(status="200 OK", headers=FRESH, body=CARD_BYTES):
    lines = ["HTTP/1.1 %s" % status] + ["%s: %s" % h for h in headers]
    lines += ["Content-Length: %d" % len(body), "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class ScriptedUpstream:
    """Answers each request path (query removed) with the raw bytes scripted for it (a list of
    parts, sent apart; 404 otherwise), one request per connection; counts requests per path."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.answers = {}
        self.seen = {}
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def script(self, path, answer):
        with self.lock:
            self.answers[path] = answer

    def count(self, path):
        with self.lock:
            return self.seen.get(path, 0)

    def stop(self):
        # close() alone does not wake a thread blocked in accept() on Linux; shutdown() does.
        for end in (lambda: self.sock.shutdown(socket.SHUT_RDWR), self.sock.close):
            try:
                end()
            except OSError:
                pass
        self.thread.join(5)

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        conn.settimeout(10)
        try:
            buf = b""
            while b"\r\n\r\n" not in buf:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
            target = buf.split(b"\r\n", 1)[0].split(b" ")[1].decode("latin-1")
            path = target.split("?", 1)[0]
            with self.lock:
                self.seen[path] = self.seen.get(path, 0) + 1
                answer = self.answers.get(path)
            if answer is None:
                answer = raw_answer("404 Not Found", [], b"")
            # A list is sent part by part, 50 ms apart.
            for i, part in enumerate(answer if isinstance(answer, list) else [answer]):
                if i:
                    time.sleep(0.05)
                conn.sendall(part)
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(65536):
                pass
        except OSError:
            pass
        finally:
            conn.close()


def shipped_config(replica_port, primary_port):
    with open(SHIPPED) as f:
        config = yaml.safe_load(f)
    config["admin"]["address"]["socket_address"]["port_value"] = 0
    config["stats_flush_interval"] = "1s"
    for listener in config["static_resources"]["listeners"]:
        listener["address"]["socket_address"]["port_value"] = 0
        hcm = listener["filter_chains"][0]["filters"][0]["typed_config"]
        for f in hcm["http_filters"]:
            if f["name"] == "envoy.filters.http.wasm":
                f["typed_config"]["config"]["vm_config"]["code"]["local"]["filename"] = harness.WASM
    ports = {"registry_edge": replica_port, "primary": primary_port}
    for cluster in config["static_resources"]["clusters"]:
        endpoint = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
        endpoint["address"]["socket_address"]["port_value"] = ports[cluster["name"]]
    return config


@pytest.fixture(scope="module")
def upstreams():
    replica, primary = ScriptedUpstream(), ScriptedUpstream()
    yield replica, primary
    replica.stop()
    primary.stop()


@pytest.fixture(scope="module")
def shipped_envoy(upstreams, workdir):
    replica, primary = upstreams
    proc = harness.Envoy(shipped_config(replica.port, primary.port), workdir, "adversarial")
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def replica(upstreams):
    return upstreams[0]


@pytest.fixture
def primary(upstreams):
    return upstreams[1]


def get(envoy, path, listener="registry_ingress", headers=None, method="GET"):
    return harness.request(envoy.ports[listener], path, method, headers)


def assert_problem(resp, status, code):
    assert resp.status == status, resp
    assert resp.header("content-type") == "application/problem+json", resp
    assert resp.header("a2a-card-verdict") == "rejected", resp
    doc = resp.json()
    assert [r["code"] for r in doc["reasons"]] == [code], doc
    return doc


def assert_valid(resp, body=CARD_BYTES):
    assert resp.status == 200 and resp.header("a2a-card-verdict") == "valid", resp
    assert resp.body == body, resp


# -- redirects --------------------------------------------------------------------------------

# worker-7's rule (policies/incident.json); archive-search has a pin; "someone" only defaults.
@pytest.mark.parametrize("path, location", [
    # A path that is no card route: a caller following it gets the card unchecked.
    ("/agents/worker-7/card", "/cards/worker-7.json"),
    # A card route of another rule: the pinned archive-search card would be checked under the
    # defaults (30 s, no pin, no capability) when the caller follows it.
    ("/agents/archive-search/card", "/agents/someone/card"),
    ("/agents/worker-7/card", "/agents/someone/card"),
    # Another authority, absolute or scheme-relative: it does not come back through this gate.
    ("/agents/worker-7/card", "http://cdn.example/agents/worker-7/card"),
    ("/agents/worker-7/card", "//cdn.example/agents/worker-7/card"),
    # A relative reference resolved to a path that is no card route (`card.json` or
    # `card.xml` is one: a format suffix names the literal).
    ("/agents/worker-7/card", "profile"),
    # Read cut at the decoded `?`, this names worker-7's card route; a client removes the dot
    # segments first and asks for /cards/worker-7.json (tests/envoy/test_sdk_callers.py).
    ("/agents/worker-7/card", "/agents/worker-7/card%3F/../../../cards/worker-7.json"),
])
@pytest.mark.parametrize("status", ["301 Moved Permanently", "302 Found", "303 See Other",
                                    "307 Temporary Redirect", "308 Permanent Redirect"])
def test_redirect_a_caller_would_follow_past_the_gate_fails_closed(shipped_envoy, replica, path, location, status):
    replica.script(path, raw_answer(status, [("Location", location)], b""))
    # The target itself serves the stale card (an unchecked route would pass it as it is).
    replica.script("/cards/worker-7.json", raw_answer(headers=[("x-replica-lag-ms", "40000")]))
    resp = get(shipped_envoy, path)
    doc = assert_problem(resp, 502, "body_empty")
    assert "never checked" in doc["detail"] and status.split()[0] in doc["detail"], doc
    assert resp.header("location") is None, resp
    # What following that redirect would have got: the stale card, unchecked and unstamped.
    if location == "/cards/worker-7.json":
        unchecked = get(shipped_envoy, location)
        assert unchecked.status == 200 and unchecked.header("a2a-card-verdict") is None, unchecked


def test_redirect_within_the_same_rule_passes_and_its_target_is_checked(shipped_envoy, replica):
    replica.script("/agents/worker-7/card/", raw_answer("301 Moved Permanently",
                                                         [("Location", "/agents/worker-7/card")], b""))
    replica.script("/agents/worker-7/card", raw_answer())
    resp = get(shipped_envoy, "/agents/worker-7/card/")
    assert resp.status == 301 and resp.header("location") == "/agents/worker-7/card", resp
    assert resp.header("a2a-card-verdict") is None, resp
    assert_valid(get(shipped_envoy, resp.header("location")))
    # The same on this authority spelled out, and a well-known card of the same rule.
    authority = "127.0.0.1:%d" % shipped_envoy.ports["registry_ingress"]
    for location in ["http://%s/agents/worker-7/card" % authority,
                     "/agents/worker-7/.well-known/agent-card.json"]:
        replica.script("/agents/worker-7/card/", raw_answer("302 Found", [("Location", location)], b""))
        resp = get(shipped_envoy, "/agents/worker-7/card/")
        assert resp.status == 302 and resp.header("location") == location, resp
    # From a route under the defaults (the host's well-known card) to worker-7's stricter rule.
    replica.script("/.well-known/agent-card.json", raw_answer("308 Permanent Redirect",
                                                              [("Location", "/agents/worker-7/card")], b""))
    resp = get(shipped_envoy, "/.well-known/agent-card.json")
    assert resp.status == 308 and resp.header("a2a-card-verdict") is None, resp


def test_redirect_without_a_location_is_not_followed_and_passes(shipped_envoy, replica):
    replica.script("/agents/worker-7/card", raw_answer("302 Found", [("Content-Type", "text/plain")], b"moved"))
    resp = get(shipped_envoy, "/agents/worker-7/card")
    assert resp.status == 302 and resp.body == b"moved", resp
    assert resp.header("a2a-card-verdict") is None, resp


def test_redirect_to_another_scheme_on_the_same_authority_fails_closed(shipped_envoy, replica):
    # A caller following http -> https reaches another port and listener (on an egress sidecar,
    # TLS the sidecar cannot read): the gate cannot vouch that the card there is checked.
    port = shipped_envoy.ports["registry_ingress"]
    path = "/agents/worker-7/card"
    for scheme in ("https", "HTTPS"):
        replica.script(path, raw_answer("301 Moved Permanently",
                                        [("Location", "%s://127.0.0.1:%d%s" % (scheme, port, path))], b""))
        doc = assert_problem(get(shipped_envoy, path), 502, "body_empty")
        assert "leaves the request's scheme (http)" in doc["detail"], doc
    # The same scheme and authority: this listener checks the caller's next request.
    replica.script(path, raw_answer("301 Moved Permanently",
                                    [("Location", "http://127.0.0.1:%d%s" % (port, path))], b""))
    resp = get(shipped_envoy, path)
    assert resp.status == 301 and resp.header("a2a-card-verdict") is None, resp
    assert resp.header("location") == "http://127.0.0.1:%d%s" % (port, path), resp


def test_redirect_on_a_head_fails_closed_too(shipped_envoy, replica):
    replica.script("/agents/worker-7/card", raw_answer("302 Found", [("Location", "/cards/worker-7.json")], b""))
    resp = get(shipped_envoy, "/agents/worker-7/card", method="HEAD")
    assert resp.status == 502 and resp.header("a2a-card-verdict") == "rejected", resp
    assert resp.body == b"", resp


def test_redirect_past_the_gate_is_re_resolved_from_the_primary(shipped_envoy, replica, primary):
    path = "/agents/worker-7/.well-known/agent-card.json"
    replica.script(path, raw_answer("307 Temporary Redirect", [("Location", "https://cdn.example/w7.json")], b""))
    primary.script(path, raw_answer())
    before = primary.count(path)
    resp = get(shipped_envoy, path, listener="registry_ingress_reresolve")
    assert_valid(resp)
    assert resp.header("a2a-card-source") == "primary" and resp.header("a2a-card-attempts") == "2", resp
    assert primary.count(path) == before + 1


# -- what the caller would decode -------------------------------------------------------------

@pytest.mark.parametrize("content_type", [
    "application/json; charset=iso-8859-1",
    "application/json; charset=\"UTF-16\"",
    "application/json; charset=windows-1252",
])
def test_a_charset_other_than_utf8_fails_closed(shipped_envoy, replica, content_type):
    replica.script("/agents/worker-7/card",
                   raw_answer(headers=[("Content-Type", content_type), ("x-replica-lag-ms", "120")]))
    doc = assert_problem(get(shipped_envoy, "/agents/worker-7/card"), 502, "body_encoded")
    assert "charset" in doc["detail"], doc


def test_a_second_content_type_with_another_charset_fails_closed(shipped_envoy, replica):
    replica.script("/agents/worker-7/card", raw_answer(
        headers=FRESH + [("Content-Type", "application/json; charset=utf-16")]))
    assert_problem(get(shipped_envoy, "/agents/worker-7/card"), 502, "body_encoded")


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "application/json;charset=\"UTF-8\"",
                                          "application/json; charset=utf8", "application/json"])
def test_utf8_charsets_pass(shipped_envoy, replica, content_type):
    replica.script("/agents/worker-7/card",
                   raw_answer(headers=[("Content-Type", content_type), ("x-replica-lag-ms", "120")]))
    assert_valid(get(shipped_envoy, "/agents/worker-7/card"))


@pytest.mark.parametrize("encodings", [("identity", "gzip"), ("identity", "br"), ("", "gzip"),
                                       ("identity", "identity, deflate")])
def test_every_content_encoding_header_counts(shipped_envoy, replica, encodings):
    replica.script("/agents/worker-7/card",
                   raw_answer(headers=FRESH + [("Content-Encoding", e) for e in encodings]))
    assert_problem(get(shipped_envoy, "/agents/worker-7/card"), 502, "body_encoded")


# -- many distinct cards at once --------------------------------------------------------------

def _card(i, version):
    card = copy.deepcopy(CARD)
    card["name"] = "worker-7 replica %d" % i
    card["version"] = version
    return json.dumps(card, separators=(",", ":")).encode()


def test_many_distinct_cards_at_once_each_get_their_own_verdict(shipped_envoy, replica):
    """300 distinct cards (the analysis cache holds 128) under worker-7's rule, 16 at a time:
    every third is below the version floor, every fifth is stale. Then each body is changed by
    one byte that flips its verdict and asked for again: no answer reuses another body's
    analysis or verdict."""
    n = 300

    def script(flip):
        expected = {}
        for i in range(n):
            low = (i % 3 == 0) != flip
            body = _card(i, "2.9.0" if low else "3.9.0")
            lag = "40000" if i % 5 == 0 else "120"
            replica.script("/agents/worker-7;r=%d/card" % i,
                           raw_answer(headers=[("Content-Type", "application/json"), ("x-replica-lag-ms", lag)],
                                      body=body))
            expected[i] = (body, not low and lag == "120")
        return expected

    def check(expected):
        def one(i):
            return i, get(shipped_envoy, "/agents/worker-7;r=%d/card" % i)

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            results = list(pool.map(one, range(n)))
        for i, resp in results:
            body, valid = expected[i]
            if valid:
                assert_valid(resp, body)
            else:
                assert resp.status == 503 and resp.header("a2a-card-verdict") == "rejected", (i, resp)
                assert resp.json()["card"]["name"] == "worker-7 replica %d" % i, (i, resp)

    check(script(flip=False))
    check(script(flip=True))


# -- agent ids an upstream may read as another agent ------------------------------------------

@pytest.mark.parametrize("agent_id", ["worker-7%20", "%20worker-7", "worker-7%09", "worker-7%0A", "worker-7%C2%A0",
                                      "worker-7.", "worker-7%2E", "WORKER-7%20", "worker-7%3Fv=2", "worker-7%23x",
                                      # An accent- and case-insensitive collation (MySQL 8's default),
                                      # fullwidth forms, a soft hyphen, the Kelvin sign.
                                      "w%C3%B6rker-7", "W%C3%93RKER-7", "%EF%BD%97orker-7", "work%C2%ADer-7",
                                      "wor%E2%84%AAer-7", "wo%CC%88rker-7"])
def test_an_id_an_upstream_may_trim_or_cut_is_checked_under_that_agents_rule(shipped_envoy, replica, agent_id):
    """A registry that trims the id (or SQL that compares without trailing spaces or accents, or
    a handler that decodes before it cuts at `?`/`#`) serves worker-7's card for these ids: the
    card must meet worker-7's rule (10 s), not just the defaults (30 s)."""
    path = "/agents/%s/card" % agent_id
    stale = raw_answer(headers=[("Content-Type", "application/json"), ("x-replica-lag-ms", "20000")])
    replica.script("/agents/nobody/card", stale)
    # The defaults (30 s) take a 20 s old card: the baseline this relies on.
    assert_valid(get(shipped_envoy, "/agents/nobody/card"))
    with replica.lock:
        replica.answers = {k: v for k, v in replica.answers.items() if "worker-7" not in k.lower()}
    # Whatever spelling reaches the upstream (Envoy may decode %2E), it answers with the card.
    for spelling in {path, path.replace("%2E", "."), path.replace("%3Fv=2", "%3Fv%3D2")}:
        replica.script(spelling, stale)
    doc = assert_problem(get(shipped_envoy, path), 503, "watermark_exceeded")
    assert doc["staleness_ms"] == 20000, doc


@pytest.mark.parametrize("suffix", ["%3F", "%3Fformat=json", "%23top", "%3f"])
def test_a_path_an_upstream_may_cut_at_a_decoded_question_mark_is_checked(shipped_envoy, replica, suffix):
    """`/agents/worker-7/card%3F...`: a handler that decodes the path before it splits off the
    query (or fragment) serves the card; the gate reads the path that way too."""
    path = "/agents/worker-7/card" + suffix
    replica.script(path, raw_answer(headers=[("Content-Type", "application/json"), ("x-replica-lag-ms", "40000")]))
    assert_problem(get(shipped_envoy, path), 503, "watermark_exceeded")


@pytest.mark.parametrize("path", ["/agents/worker-7/%2563ard", "/%2561gents/worker-7/card",
                                  "/agents/%2577orker-7/card", "/agents/worker-7/card%253F"])
def test_a_path_encoded_twice_is_checked_as_decoded_twice(shipped_envoy, replica, path):
    """normalize_path keeps `%25`; a proxy between Envoy and the registry that decodes the path
    once more hands the registry worker-7's card path. The shipped route sends such paths
    through the filter, which reads them decoded twice too."""
    replica.script(path, raw_answer(headers=[("Content-Type", "application/json"), ("x-replica-lag-ms", "20000")]))
    assert_problem(get(shipped_envoy, path), 503, "watermark_exceeded")


# -- literal segments a router reads under Unicode case mappings -------------------------------

@pytest.mark.parametrize("path, served", [
    # Python's str.lower() (the fixture registry's lenient reading) maps the Kelvin sign to k.
    ("/agents/worker-7/.well-%E2%84%AAnown/agent-card.json", "/agents/worker-7/.well-known/agent-card.json"),
    # The host's own well-known card (the defaults, 30 s): 40 s behind.
    ("/.WELL-%E2%84%AANOWN/AGENT-CARD.JSON", "/.well-known/agent-card.json"),
    # Java's equalsIgnoreCase and Go's EqualFold read the long s as s.
    ("/agent%C5%BF/worker-7/card", "/agents/worker-7/card"),
    ("/agents/worker-7/.well-known/agent-card.j%C5%BFon", "/agents/worker-7/.well-known/agent-card.json"),
    # Windows file servers drop a trailing dot or space.
    ("/agents/worker-7/.well-known/agent-card.json.", "/agents/worker-7/.well-known/agent-card.json"),
    ("/agents/worker-7/card%20", "/agents/worker-7/card"),
    # Rails' (.:format) and Spring's suffix matching read a .json suffix as a format.
    ("/agents/worker-7/card.json", "/agents/worker-7/card"),
    ("/agents/worker-7/CARD.JSON", "/agents/worker-7/card"),
    ("/agents/worker-7/card.xml", "/agents/worker-7/card"),
    # Spring's suffix matching takes card.* whatever follows the dot.
    ("/agents/worker-7/card.json.json", "/agents/worker-7/card"),
    ("/agents/worker-7/card.j-s", "/agents/worker-7/card"),
])
def test_a_literal_segment_a_router_folds_to_ascii_is_a_card_route(shipped_envoy, replica, path, served):
    """Before: no card route matched (literals compared in ASCII case only; the shipped route
    regex sent `/agent%C5%BF/...` past the filter), and worker-7's card 20 s behind reached the
    caller as a plain 200, unchecked. Now it is checked under worker-7's rule (10 s), the host's
    well-known card under the defaults (30 s)."""
    lag = 20000 if "worker-7" in path else 40000
    stale = raw_answer(headers=[("Content-Type", "application/json"), ("x-replica-lag-ms", str(lag))])
    # The upstream serves the card under the path as sent (Envoy may decode nothing here).
    replica.script(path, stale)
    replica.script(path.replace("%20", " "), stale)
    resp = get(shipped_envoy, path)
    doc = assert_problem(resp, 503, "watermark_exceeded")
    assert doc["staleness_ms"] == lag, doc
    # The same answer on the ASCII spelling: the baseline.
    replica.script(served, stale)
    assert_problem(get(shipped_envoy, served), 503, "watermark_exceeded")


# -- caller headers Envoy removes before any filter -------------------------------------------

@pytest.mark.parametrize("connection", ["a2a-min-card-version", "keep-alive, A2A-Min-Card-Version"])
def test_a_caller_header_named_in_connection_never_reaches_the_gate(shipped_envoy, replica, connection):
    """HTTP/1.1 hop-by-hop: Envoy's codec removes a header the request's `Connection` names (and
    `Connection` itself) before any filter runs, so the gate cannot see that requirement or that
    one was sent, and checks the card against the rule alone (envoy/README.md, caller
    tightening). This pins Envoy's behaviour the README states: the same floor sent end to end
    is checked."""
    path = "/agents/worker-7/card"
    replica.script(path, raw_answer())  # version 3.1.0, fresh
    floor = {"a2a-min-card-version": "9.0.0"}
    resp = get(shipped_envoy, path, headers=dict(floor, Connection=connection))
    assert_valid(resp)
    doc = assert_problem(get(shipped_envoy, path, headers=floor), 503, "version_below_minimum")
    assert doc["card_version"] == "3.1.0", doc


# -- max_card_bytes, exactly and one byte over, in every framing ------------------------------

def _card_of_size(size):
    body = json.dumps(dict(CARD, description=""), separators=(",", ":")).encode()
    card = dict(CARD, description="x" * (size - len(body)))
    out = json.dumps(card, separators=(",", ":")).encode()
    assert len(out) == size
    return out


def _chunked(body, sizes, trailers=()):
    out, at = b"", 0
    for n in sizes:
        out += b"%x\r\n" % n + body[at:at + n] + b"\r\n"
        at += n
    assert at == len(body)
    return out + b"0\r\n" + b"".join(b"%s: %s\r\n" % t for t in trailers) + b"\r\n"


@pytest.mark.parametrize("framing", ["length", "length-split", "chunked", "chunked-trailers", "close",
                                     "close-split"])
@pytest.mark.parametrize("size", [65536, 65537])
def test_max_card_bytes_exactly_and_one_byte_over(shipped_envoy, replica, framing, size):
    """The shipped limit is 65536 bytes: a card of exactly that size passes whatever the framing
    (Content-Length, chunked with the last byte in a chunk of its own, chunked with trailers,
    close-delimited); one byte more is `502 body_too_large`, never valid and never Envoy's own
    error. `-split`: the body arrives in two parts 50 ms apart, the first 60 000 bytes of the
    card then the rest (a declared length of exactly the limit is no reason to judge early),
    or, one byte over, a whole card of exactly the limit then a newline (the limit reached is
    no end of the body: judged then, the card would pass and the newline follow it)."""
    body = _card_of_size(size)
    if framing == "close-split" and size == 65537:
        body = _card_of_size(65536) + b"\n"
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-replica-lag-ms: 120\r\n"
    if framing.startswith("length"):
        answer = head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % size + body
    elif framing.startswith("close"):
        answer = head + b"Connection: close\r\n\r\n" + body
    else:
        trailers = [(b"x-checksum", b"1"), (b"a2a-card-verdict", b"valid")] if framing == "chunked-trailers" else []
        answer = (head + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                  + _chunked(body, [size - 1, 1], trailers))
    if framing.endswith("-split"):
        cut = len(answer) - len(body) + (65536 if size == 65537 else 60000)
        answer = [answer[:cut], answer[cut:]]
    path = "/agents/worker-7;max=%s-%d/card" % (framing, size)
    replica.script(path, answer)
    resp = get(shipped_envoy, path)
    if size == 65536:
        assert_valid(resp, body)
    else:
        doc = assert_problem(resp, 502, "body_too_large")
        assert doc["reasons"][0]["figures"]["max_card_bytes"] == 65536, doc


@pytest.mark.parametrize("framing", ["length", "chunked", "close"])
def test_a_body_past_envoys_stream_buffer_is_never_a_card(shipped_envoy, replica, framing):
    """A 2 MiB answer, its first 60 000 body bytes sent apart (the filter holds them: under the
    limit) and the rest in one go. Declared by Content-Length, it is refused at its first bytes
    with its whole size. Undeclared, it is refused once past the limit: the shipped upstream
    cluster reads at most 256 KiB at a time, so no read takes the held body past the listener's
    1 MiB stream buffer before the filter sees it (else Envoy answers its own untyped 500,
    response_payload_too_large; envoy/README.md, "Buffer limits")."""
    size = 2 << 20
    body = _card_of_size(size)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nx-replica-lag-ms: 120\r\n"
    if framing == "length":
        whole = head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % size + body
    elif framing == "close":
        whole = head + b"Connection: close\r\n\r\n" + body
    else:
        whole = (head + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                 + _chunked(body, [60000, size - 60000]))
    cut = whole.index(body[60000:60100])
    path = "/agents/worker-7;big=%s/card" % framing
    replica.script(path, [whole[:cut], whole[cut:]])
    resp = get(shipped_envoy, path)
    assert body[:1000] not in resp.body, resp
    doc = assert_problem(resp, 502, "body_too_large")
    figures = doc["reasons"][0]["figures"]
    assert figures["body_bytes"] == size if framing == "length" else 65536 < figures["body_bytes"] < size, doc
