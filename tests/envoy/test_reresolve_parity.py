"""The same answer, read both ways: as the registry's answer on the response path, and as the
primary's answer to a re-resolution. Both must get the same verdict class and status.

One raw-socket upstream (`answers`) serves each answer shape at its own path. Listener `direct`
routes card requests to it; listener `rr` routes them to `edge`, which answers every path with a
stale card, so the gate re-resolves from `answers` (the same path, the same bytes). The shapes
are those the response path already handles (test_adversarial.py, test_http_semantics.py,
test_upstream_faults.py): statuses with and without bodies, encodings, several Content-Type or
watermark headers, framing lies, trailers, the size limit, an empty body, a BOM, lifetime and
forged `a2a-card-*` headers.

Verdict classes: `valid` (the card served, its status kept), an error class with its status
(on `rr`, the primary's attempt is the last card, so the final decision is it), or no card at
all (`passthrough` on the response path, a `failed` attempt on `rr`, whose final answer is then
the edge's stale one).
"""

import json
import socket
import threading

import pytest

import harness
from conftest import plugin_config
from fault_upstream import CARD, CARD_BYTES

TIMEOUT_MS = 400
FRESH = [("Content-Type", "application/json"), ("x-replica-lag-ms", "0")]
STALE_CARD = json.dumps(dict(CARD, version="3.0.0"), separators=(",", ":")).encode()


def raw(status="200 OK", headers=FRESH, body=CARD_BYTES, length=True):
    lines = ["HTTP/1.1 %s" % status] + ["%s: %s" % h for h in headers]
    if length:
        lines.append("Content-Length: %d" % len(body))
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def chunked(body, trailers=()):
    head = raw(headers=FRESH + [("Transfer-Encoding", "chunked")], body=b"", length=False)
    half = len(body) // 2
    out = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n" % (half, body[:half], len(body) - half, body[half:])
    return head + out + b"".join(b"%s: %s\r\n" % t for t in trailers) + b"\r\n"


def card_of_size(size):
    body = json.dumps(dict(CARD, description=""), separators=(",", ":")).encode()
    out = json.dumps(dict(CARD, description="x" * (size - len(body))), separators=(",", ":")).encode()
    assert len(out) == size
    return out


NO_SKILL = json.dumps(dict(CARD, skills=[{"id": "other", "name": "Other"}]), separators=(",", ":")).encode()
LIFETIME = [("Cache-Control", "max-age=600, stale-while-revalidate=60"), ("Expires", "Thu, 01 Jan 2099 00:00:00 GMT"),
            ("CDN-Cache-Control", "max-age=600"), ("Surrogate-Control", "max-age=600"),
            ("X-Accel-Expires", "600")]
FORGED = [("a2a-card-verdict", "valid"), ("a2a-card-source", "forged"), ("a2a-card-hash", "sha256:" + "0" * 64),
          ("a2a-card-attempts", "9")]

# name -> (agent id, the answer's bytes, the verdict class both ways, the status)
SHAPES = {
    "ok": ("p-ok", raw(), "valid", 200),
    "203": ("p-203", raw("203 Non-Authoritative Information"), "valid", 203),
    "204": ("p-204", raw("204 No Content", body=b""), "malformed_card", 502),
    "205-card": ("p-205", raw("205 Reset Content"), "malformed_card", 502),
    "206": ("p-206", raw("206 Partial Content", FRESH + [("Content-Range", "bytes 0-9/400")]),
            "malformed_card", 502),
    "304": ("p-304", raw("304 Not Modified", [("x-replica-lag-ms", "0")], b""), "malformed_card", 502),
    "302-elsewhere": ("p-302", raw("302 Found", FRESH + [("Location", "https://elsewhere.example/c")], b""),
                      "malformed_card", 502),
    "307-relative": ("p-307", raw("307 Temporary Redirect", FRESH + [("Location", "/cards/p.json")], b""),
                     "malformed_card", 502),
    "302-no-location": ("p-302n", raw("302 Found", [("Content-Type", "text/plain")], b"moved"), "none", 302),
    "300": ("p-300", raw("300 Multiple Choices", [("Content-Type", "text/plain")], b"choose"), "none", 300),
    "404": ("p-404", raw("404 Not Found", FRESH), "none", 404),
    "500": ("p-500", raw("500 Internal Server Error", FRESH), "none", 500),
    "503-card": ("p-503", raw("503 Service Unavailable"), "none", 503),
    "100-continue": ("p-100", b"HTTP/1.1 100 Continue\r\n\r\n" + raw(), "valid", 200),
    "103-early-hints": ("p-103", b"HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n" + raw(),
                        "valid", 200),
    # Every other 2xx is a card, as both SDK resolvers read it (DESIGN.md): an unasked 226 too.
    "226": ("p-226", raw("226 IM Used"), "valid", 226),
    "gzip": ("p-gzip", raw(headers=FRESH + [("Content-Encoding", "gzip")]), "malformed_card", 502),
    "identity-then-br": ("p-enc2", raw(headers=FRESH + [("Content-Encoding", "identity"),
                                                        ("Content-Encoding", "br")]), "malformed_card", 502),
    "charset-utf16": ("p-cs", raw(headers=[("Content-Type", "application/json; charset=utf-16"),
                                           ("x-replica-lag-ms", "0")]), "malformed_card", 502),
    "second-content-type": ("p-ct2", raw(headers=FRESH + [("Content-Type", "text/plain; charset=latin1")]),
                            "malformed_card", 502),
    "two-lags": ("p-lag2", raw(headers=FRESH + [("x-replica-lag-ms", "40000")]), "SAME", None),
    "no-watermark": ("p-nowm", raw(headers=[("Content-Type", "application/json")]), "stale_agent_card", 503),
    "stale": ("p-stale", raw(headers=[("Content-Type", "application/json"), ("x-replica-lag-ms", "40000")]),
              "stale_agent_card", 503),
    "stale-forged": ("p-forged", raw(headers=[("Content-Type", "application/json"),
                                              ("x-replica-lag-ms", "40000")] + FORGED), "stale_agent_card", 503),
    "empty-200": ("p-empty", raw(body=b""), "malformed_card", 502),
    "bom": ("p-bom", raw(body=b"\xef\xbb\xbf" + CARD_BYTES), "SAME", None),
    "not-json": ("p-junk", raw(body=b"<html>card</html>"), "malformed_card", 502),
    "max-card-bytes": ("p-max", raw(body=card_of_size(65536)), "valid", 200),
    "max-card-bytes+1": ("p-max1", raw(body=card_of_size(65537)), "malformed_card", 502),
    "one-mib": ("p-mib", raw(body=b"{" + b" " * (1 << 20) + b"}"), "malformed_card", 502),
    "two-mib-chunked": ("p-mib2", chunked(b"{" + b" " * (2 << 20) + b"}"), "malformed_card", 502),
    "chunked-trailers": ("p-trl", chunked(CARD_BYTES, [(b"x-checksum", b"1"), (b"a2a-card-verdict", b"valid")]),
                         "valid", 200),
    "long-body": ("p-long", raw(headers=FRESH + [("Content-Length", str(len(CARD_BYTES) - 20))],
                                length=False), "malformed_card", 502),
    "lifetime-and-forged": ("p-life", raw(headers=FRESH + LIFETIME + FORGED), "valid", 200),
    "capability": ("worker-7", raw(body=NO_SKILL), "capability_mismatch", 409),
}


class Upstream:
    """Answers each path (query removed) with its scripted bytes (`default`, else a 404), one
    request per connection; counts requests per path."""

    def __init__(self, default=None):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.answers, self.seen, self.default = {}, {}, default
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def script(self, path, answer):
        with self.lock:
            self.answers[path] = answer

    def count(self, path):
        with self.lock:
            return self.seen.get(path, 0)

    def stop(self):
        for end in (lambda: self.sock.shutdown(socket.SHUT_RDWR), self.sock.close):
            try:
                end()
            except OSError:
                pass

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
            path = buf.split(b"\r\n", 1)[0].split(b" ")[1].decode("latin-1").split("?", 1)[0]
            with self.lock:
                self.seen[path] = self.seen.get(path, 0) + 1
                answer = self.answers.get(path, self.default)
            if answer is None:
                answer = raw("404 Not Found", [], b"")
            if callable(answer):
                answer(conn)
                return
            conn.sendall(answer)
            conn.shutdown(socket.SHUT_WR)
            while conn.recv(65536):
                pass
        except OSError:
            pass
        finally:
            conn.close()


def rr(**overrides):
    setting = {"cluster": "answers", "timeout": "%dms" % TIMEOUT_MS,
               "budget": {"per_second": 1000, "burst": 1000}}
    setting.update(overrides)
    return setting


@pytest.fixture(scope="module")
def upstreams():
    answers = Upstream()
    edge = Upstream(default=raw(headers=[("Content-Type", "application/json"), ("x-replica-lag-ms", "40000")],
                                body=STALE_CARD))
    yield answers, edge
    answers.stop()
    edge.stop()


@pytest.fixture(scope="module")
def parity_envoy(upstreams, workdir):
    answers, edge = upstreams
    listeners = [
        harness.listener("direct", "answers", [harness.wasm_filter("cardgate_direct", plugin_config())]),
        harness.listener("direct_observe", "answers",
                         [harness.wasm_filter("cardgate_direct_observe", plugin_config(mode="observe"))]),
        harness.listener("rr", "edge", [harness.wasm_filter("cardgate_rr", plugin_config(re_resolve=rr()))]),
        harness.listener("rr_observe", "edge", [harness.wasm_filter(
            "cardgate_rr_observe", plugin_config(re_resolve=rr(), mode="observe"))]),
    ]
    config = harness.bootstrap(listeners, [harness.cluster("answers", answers.port),
                                           harness.cluster("edge", edge.port)])
    proc = harness.Envoy(config, workdir, "reresolve_parity")
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()
        assert "panicked" not in proc.log(), proc.log()[-3000:]


def get(envoy, listener, path, method="GET"):
    return harness.request(envoy.ports[listener], path, method)


def direct_reading(resp):
    """(verdict class, status) of the response path's answer."""
    verdict = resp.header("a2a-card-verdict")
    if verdict == "valid":
        return "valid", resp.status
    if verdict == "rejected":
        return resp.json()["error_class"], resp.status
    assert verdict is None, resp
    return "none", resp.status


def rr_reading(resp):
    """(verdict class, status) of the primary's answer to the re-resolution."""
    assert resp.header("a2a-card-attempts") == "2", resp
    if resp.header("a2a-card-verdict") == "valid":
        assert resp.header("a2a-card-source") == "answers", resp
        return "valid", resp.status
    attempts = resp.json()["resolution"]["attempts"]
    assert [a["source"] for a in attempts] == ["edge", "answers"], attempts
    assert attempts[0]["error_class"] == "stale_agent_card", attempts
    primary = attempts[1]
    if primary["verdict"] == "failed":
        # No card: the final decision is the edge's stale one.
        assert resp.status == 503, resp
        assert primary["error"].startswith("HTTP "), primary
        return "none", int(primary["error"].split()[1])
    # The primary's card decision is the last one: the final decision is it.
    assert resp.status == primary["status"], (resp, primary)
    return primary["error_class"] or "valid", primary["status"]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_primary_answer_gets_the_verdict_the_registry_answer_gets(parity_envoy, upstreams, shape):
    answers, _ = upstreams
    agent, answer, verdict, status = SHAPES[shape]
    path = "/agents/%s/card" % agent
    answers.script(path, answer)
    direct = get(parity_envoy, "direct", path)
    before = answers.count(path)
    resolved = get(parity_envoy, "rr", path)
    assert answers.count(path) == before + 1, "the primary was asked once"
    both = direct_reading(direct), rr_reading(resolved)
    print(shape, both)
    assert both[0] == both[1], (shape, direct, resolved)
    if verdict != "SAME":
        assert both[0] == (verdict, status), (shape, direct)
    for resp in (direct, resolved):
        # Forged verdict headers never reach the caller; a valid answer loses every lifetime
        # header a cache after the gate would obey.
        assert resp.header_all("a2a-card-verdict") in (["valid"], ["rejected"], []), resp
        assert "forged" not in resp.header_all("a2a-card-source"), resp
        assert resp.header("a2a-card-hash") != "sha256:" + "0" * 64, resp
        if both[0][0] == "valid":
            assert resp.body == answer.rsplit(b"\r\n\r\n", 1)[1] or shape == "chunked-trailers", resp
            for name in ("expires", "cdn-cache-control", "surrogate-control", "x-accel-expires"):
                assert resp.header(name) is None, (name, resp)
            assert "max-age=10" in resp.header("cache-control"), resp
            assert "stale-while-revalidate" not in resp.header("cache-control"), resp


def test_head_reads_the_same_both_ways(parity_envoy, upstreams):
    answers, _ = upstreams
    for agent, answer in (("p-head-205", raw("205 Reset Content")), ("p-head-ok", raw())):
        path = "/agents/%s/card" % agent
        answers.script(path, answer)
        direct = get(parity_envoy, "direct", path, "HEAD")
        resolved = get(parity_envoy, "rr", path, "HEAD")
        assert (direct.status, direct.header("a2a-card-verdict")) == \
               (resolved.status, resolved.header("a2a-card-verdict")), (direct, resolved)
        assert direct.body == resolved.body == b""


def _stall(conn):
    conn.sendall(b"")
    conn.recv(65536)  # the gate gives up first


def _reset_mid_body(conn):
    head = raw(body=CARD_BYTES)
    conn.sendall(head[:len(head) - len(CARD_BYTES) // 2])
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")


def _close_mid_body(conn):
    head = raw(body=CARD_BYTES)
    conn.sendall(head[:len(head) - len(CARD_BYTES) // 2])
    conn.shutdown(socket.SHUT_WR)


@pytest.mark.parametrize("behaviour,error", [
    (_stall, "no answer within %d ms" % TIMEOUT_MS),
    (_reset_mid_body, "no answer"),
    (_close_mid_body, "no answer"),
    (raw("302 Found", FRESH + [("Location", "https://elsewhere.example/c")], b""), None),
], ids=["timeout", "reset", "close", "redirect"])
def test_a_primary_that_gives_no_card_fails_closed_in_enforce_and_is_not_asked_in_observe(
        parity_envoy, upstreams, behaviour, error):
    answers, _ = upstreams
    path = "/agents/p-fault-%s/card" % getattr(behaviour, "__name__", "redirect").strip("_")
    answers.script(path, behaviour)
    resp = get(parity_envoy, "rr", path)
    assert resp.status in (502, 503) and resp.header("a2a-card-verdict") == "rejected", resp
    attempts = resp.json()["resolution"]["attempts"]
    assert attempts[1]["source"] == "answers" and attempts[1]["verdict"] != "valid", attempts
    if error:
        assert error in attempts[1]["error"], attempts
    # Observe mode never changes an answer, so it never re-resolves: the edge's stale card
    # passes with its rejected verdict, and the primary is not asked.
    before = answers.count(path)
    resp = get(parity_envoy, "rr_observe", path)
    assert resp.status == 200 and resp.body == STALE_CARD, resp
    assert resp.header("a2a-card-verdict") == "rejected", resp
    assert resp.header("a2a-card-error-class") == "stale_agent_card", resp
    assert answers.count(path) == before
    # The same answer on the response path, observe mode: never valid.
    if not callable(behaviour):
        resp = get(parity_envoy, "direct_observe", path)
        assert resp.header("a2a-card-verdict") == "rejected", resp
    assert "panicked" not in parity_envoy.log()


@pytest.mark.parametrize("shape", ["max-card-bytes+1", "one-mib", "two-mib-chunked"])
def test_observe_mode_passes_an_oversized_answer_whole_with_its_rejected_verdict(parity_envoy, upstreams, shape):
    """Observe mode never changes an answer: an oversized one, refused at its first bytes when
    its length is declared (or once past the limit when not), still reaches the caller whole,
    with the verdict enforce mode would give."""
    answers, _ = upstreams
    agent, answer, _, _ = SHAPES[shape]
    path = "/agents/%s-observe/card" % agent
    answers.script(path, answer)
    resp = get(parity_envoy, "direct_observe", path)
    body = answer.split(b"\r\n\r\n", 1)[1]
    if b"Transfer-Encoding: chunked" in answer:
        body = b"{" + b" " * (2 << 20) + b"}"
    assert resp.status == 200 and resp.body == body, (resp.status, len(resp.body))
    assert resp.header("a2a-card-verdict") == "rejected", resp
    assert resp.header("a2a-card-error-class") == "malformed_card", resp
    assert "body_too_large" in resp.header("a2a-card-reasons"), resp
    assert "panicked" not in parity_envoy.log()
