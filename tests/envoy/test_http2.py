"""The filter under HTTP/2 and connection reuse, through a real Envoy.

Service meshes speak HTTP/2 between proxies and many callers share one connection; the rest of
tests/envoy drives Envoy with HTTP/1.1 only. Each case below states what the caller must get
(README "What the caller gets", DESIGN.md) and checks it on the wire:

- downstream h2c (prior knowledge, the `h2` package): one stream, HEAD, and many concurrent
  streams on one connection with different caller headers (`a2a-min-card-version`,
  `cache-control: max-stale=N`, `a2a-card-pin`, `a2a-require-capabilities`) and different card
  bodies, whose answers the upstream interleaves: every stream gets the verdict an HTTP/1.1
  request alone on its own connection gets (the filter memoises requirements by path and caller
  headers and analyses by body bytes, per VM, across streams);
- caller headers repeated across several h2 header fields, and a name in upper case (h2 forbids
  it: Envoy refuses the stream, never a `valid` answer that ignored the header);
- caller headers sent as h2 request trailers (Envoy hands them to no request-header callback:
  see the case);
- an h2c upstream (a cluster with `http2_protocol_options`, `H2Upstream` below): the card in
  1-byte DATA frames, trailers forging `a2a-card-*` or carrying the watermark, 1xx (103 Early
  Hints forging a verdict) before the answer, RST_STREAM mid-body, a repeated or upper-case
  watermark header, and many streams multiplexed on one upstream connection with their frames
  interleaved;
- HTTP/1.1 keep-alive and pipelining with alternating caller headers, mixed-case names on
  HTTP/1.1, HTTP/1.0.

Skipped as a whole when the `h2` package (pinned in .ci/setup.sh's `py` venv) is missing.
"""

import itertools
import json
import select
import socket
import threading
import time

import pytest

import harness
from conftest import oracle_hash, plugin_config

h2 = pytest.importorskip("h2", reason="the h2 package (HTTP/2 client and server) is not installed: "
                                      "run .ci/setup.sh envoy")
import h2.config  # noqa: E402
import h2.connection  # noqa: E402
import h2.errors  # noqa: E402
import h2.events  # noqa: E402
import h2.exceptions  # noqa: E402
import h2.settings  # noqa: E402

_ids = itertools.count()


def card(version="3.1.0", skill="task.execute.v3", name="worker-h2"):
    return {
        "name": name,
        "description": "h2 test worker",
        "version": version,
        "supportedInterfaces": [{"url": "https://h2.example/a2a", "protocolBinding": "JSONRPC",
                                 "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": [{"id": skill, "name": "Execute", "description": "x", "tags": ["x"]}],
    }


def card_bytes(c):
    return json.dumps(c, separators=(",", ":")).encode()


# -- a small HTTP/2 client -----------------------------------------------------------------------

class Stream:
    """What one h2 stream got: 1xx header blocks, the final status and headers, body, trailers,
    and how it ended (`ended`, or `reset` with the error code)."""

    def __init__(self):
        self.informational = []
        self.status = None
        self.headers = []
        self.body = b""
        self.trailers = []
        self.ended = False
        self.reset = None

    @property
    def done(self):
        return self.ended or self.reset is not None

    def header(self, name):
        values = [v for k, v in self.headers if k == name]
        return values[0] if values else None

    def verdict_headers(self):
        return {k: v for k, v in self.headers if k.startswith("a2a-card-")}

    def summary(self):
        """What a caller decides on: the status, the verdict or error class, the reason codes
        and the card hash (from the headers or the problem document)."""
        if self.reset is not None or self.status is None:
            return ("reset", self.reset)
        out = {"status": self.status, "verdict": self.header("a2a-card-verdict"),
               "hash": self.header("a2a-card-hash")}
        if self.header("content-type") == "application/problem+json":
            doc = json.loads(self.body)
            out["class"] = doc.get("error_class") or doc.get("type")
            out["reasons"] = [r.get("code") for r in doc.get("reasons", [])]
            out["hash"] = doc.get("card_hash")
        return out

    def __repr__(self):
        return "<h2 %s %s %s body=%r trailers=%s 1xx=%s reset=%s>" % (
            "ended" if self.ended else "open", self.status, self.headers, self.body[:200],
            self.trailers, self.informational, self.reset)


def _text(pairs):
    return [(k.decode("latin-1") if isinstance(k, bytes) else k,
             v.decode("latin-1") if isinstance(v, bytes) else v) for k, v in pairs]


class H2Client:
    """One prior-knowledge h2c connection. `strict=False` sends header names as given (upper
    case too), which h2's own validation would refuse."""

    def __init__(self, port, strict=True, timeout=10):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        config = h2.config.H2Configuration(client_side=True, header_encoding=None,
                                           validate_outbound_headers=strict,
                                           normalize_outbound_headers=strict)
        self.conn = h2.connection.H2Connection(config)
        self.conn.initiate_connection()
        self.streams = {}
        self.terminated = None
        self._flush()

    def _flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, path, headers=(), method="GET", trailers=None):
        sid = self.conn.get_next_available_stream_id()
        block = [(":method", method), (":scheme", "http"), (":authority", "cardgate.test"),
                 (":path", path)] + list(headers)
        self.conn.send_headers(sid, block, end_stream=trailers is None)
        if trailers is not None:
            self.conn.send_headers(sid, list(trailers), end_stream=True)
        self.streams[sid] = Stream()
        self._flush()
        return sid

    def run(self, timeout=10):
        """Reads until every stream is done (or the connection ends, or `timeout`)."""
        deadline = time.monotonic() + timeout
        while not all(s.done for s in self.streams.values()) and self.terminated is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("h2 streams not done: %r" % self.streams)
            ready, _, _ = select.select([self.sock], [], [], min(left, 0.5))
            if not ready:
                continue
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                self.terminated = "closed"
                for st in self.streams.values():
                    if not st.done:
                        st.reset = "connection closed"
                break
            for event in self.conn.receive_data(data):
                self._event(event)
            self._flush()
        return self.streams

    def _event(self, event):
        s = self.streams.get(getattr(event, "stream_id", None))
        if isinstance(event, h2.events.InformationalResponseReceived):
            s.informational.append(_text(event.headers))
        elif isinstance(event, h2.events.ResponseReceived):
            s.headers = _text(event.headers)
            s.status = int(dict(s.headers)[":status"])
        elif isinstance(event, h2.events.DataReceived):
            s.body += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.TrailersReceived):
            s.trailers = _text(event.headers)
        elif isinstance(event, h2.events.StreamEnded):
            s.ended = True
        elif isinstance(event, h2.events.StreamReset):
            s.reset = event.error_code
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.terminated = event.error_code

    def close(self):
        try:
            self.conn.close_connection()
            self._flush()
        except (OSError, h2.exceptions.ProtocolError):
            pass
        self.sock.close()


def h2_get(port, path, headers=(), method="GET", **kw):
    client = H2Client(port, **kw)
    try:
        sid = client.request(path, headers, method)
        return client.run()[sid]
    finally:
        client.close()


def h1(port, path, headers=None, method="GET"):
    """The same request over HTTP/1.1, alone on a new connection: the reference answer."""
    resp = harness.request(port, path, method, headers)
    s = Stream()
    s.status, s.headers, s.body, s.ended = resp.status, resp.headers, resp.body, True
    return s


# -- an h2c upstream -------------------------------------------------------------------------------

class GoAway(Exception):
    """The upstream sent GOAWAY: its connection closes now."""


# The trailer section H2Upstream sends after the card, by kind (see H2Upstream).
TRAILERS = {
    "lagtrailer": [("x-replica-lag-ms", "100")],
    "lagboth": [("x-replica-lag-ms", "40000")],
    "lagsame": [("x-replica-lag-ms", "120")],
    "gztrailer": [("content-encoding", "gzip")],
    "cstrailer": [("content-type", "application/json; charset=iso-8859-1")],
    "oktrailer": [("x-card-checksum", "1")],
    "cltrailer": [("content-length", "3")],
    "cctrailer": [("cache-control", "max-age=86400"), ("expires", "Thu, 01 Jan 2099 00:00:00 GMT"),
                  ("x-card-checksum", "1")],
}


class H2Upstream:
    """An h2c server on loopback whose answer is picked by the path `/agents/<kind>-<n>/card`
    (query `?lag=MS&v=VERSION&skill=ID`): every step of every open stream is taken in turn, so
    the frames of concurrent streams on one connection interleave.

        ok             HEADERS (x-replica-lag-ms), DATA (the whole card), END_STREAM
        frames         HEADERS, the card in 1-byte DATA frames
        trailers       HEADERS, DATA, trailers forging a2a-card-verdict: valid and a hash
        lagtrailer     HEADERS without a watermark, DATA, trailers with x-replica-lag-ms: 100
        lagboth        HEADERS (x-replica-lag-ms), DATA, trailers with x-replica-lag-ms: 40000
        lagsame        HEADERS (x-replica-lag-ms: 120), DATA, trailers with the same figure
        gztrailer      as ok, then trailers with content-encoding: gzip
        cstrailer      as ok, then trailers with content-type: ...; charset=iso-8859-1
        oktrailer      as ok, then trailers naming no field the gate reads (x-card-checksum)
        cltrailer      as ok, then trailers with content-length: 3 (a framing field)
        cctrailer      as ok, then trailers with a day-long cache lifetime and x-card-checksum
        early          103 (forging a2a-card-verdict: valid, a2a-card-hash), then as ok
        reset          HEADERS, half the card, RST_STREAM (INTERNAL_ERROR)
        dupwm          two x-replica-lag-ms fields (120 and 40000)
        upper          the watermark header's name in upper case (h2 forbids it)
        empty          HEADERS with END_STREAM: a 200 without a body
        trailersonly   HEADERS, then trailers with END_STREAM: no DATA at all
        badlength      content-length 20 bytes short of the DATA sent
        goaway         HEADERS, half the card, GOAWAY and the connection closed
    """

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.connections = 0
        self.requests = []
        self.conns = set()

    def start(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def stop(self):
        self.stopping.set()
        try:
            self.sock.close()
        except OSError:
            pass
        with self.lock:
            for c in list(self.conns):
                try:
                    c.close()
                except OSError:
                    pass

    def _accept(self):
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
                self.conns.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, sock):
        config = h2.config.H2Configuration(client_side=False, header_encoding=None,
                                           validate_outbound_headers=False,
                                           normalize_outbound_headers=False)
        conn = h2.connection.H2Connection(config)
        conn.initiate_connection()
        active = {}  # stream id -> iterator of steps
        try:
            sock.sendall(conn.data_to_send())
            while not self.stopping.is_set():
                ready, _, _ = select.select([sock], [], [], 0.002 if active else 0.2)
                if ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    for event in conn.receive_data(data):
                        if isinstance(event, h2.events.RequestReceived):
                            headers = dict(_text(event.headers))
                            with self.lock:
                                self.requests.append(headers)
                            active[event.stream_id] = self._steps(conn, event.stream_id, headers)
                        elif isinstance(event, h2.events.StreamReset):
                            active.pop(event.stream_id, None)
                for sid in list(active):
                    try:
                        next(active[sid])
                    except StopIteration:
                        del active[sid]
                    except GoAway:
                        sock.sendall(conn.data_to_send())
                        return
                    except (h2.exceptions.StreamClosedError, h2.exceptions.FlowControlError):
                        del active[sid]
                out = conn.data_to_send()
                if out:
                    sock.sendall(out)
        except OSError:
            return
        finally:
            with self.lock:
                self.conns.discard(sock)
            sock.close()

    @staticmethod
    def _steps(conn, sid, req):
        path, _, query = req.get(":path", "").partition("?")
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        kind = path.split("/")[2].split("-")[0] if path.count("/") >= 3 else ""
        body = card_bytes(card(params.get("v", "3.1.0"), params.get("skill", "task.execute.v3")))
        lag = params.get("lag", "120")
        head = [(":status", "200"), ("content-type", "application/json")]
        wm = [("x-replica-lag-ms", lag)]
        if kind == "early":
            conn.send_headers(sid, [(":status", "103"), ("link", "</x.css>; rel=preload"),
                                    ("a2a-card-verdict", "valid"), ("a2a-card-hash", "sha256:" + "0" * 64)])
            yield
        if kind == "dupwm":
            wm = [("x-replica-lag-ms", "120"), ("x-replica-lag-ms", "40000")]
        elif kind == "upper":
            wm = [("X-Replica-Lag-Ms", lag)]
        elif kind == "lagtrailer":
            wm = []
        if kind == "badlength":
            head = head + [("content-length", str(len(body) - 20))]
        conn.send_headers(sid, head + wm, end_stream=kind == "empty")
        yield
        if kind == "empty":
            return
        if kind == "trailersonly":
            conn.send_headers(sid, [("x-card-checksum", "1")], end_stream=True)
            return
        if kind == "goaway":
            conn.send_data(sid, body[:len(body) // 2])
            yield
            conn.close_connection(h2.errors.ErrorCodes.NO_ERROR, last_stream_id=0)
            raise GoAway
        if kind == "frames":
            for i in range(len(body)):
                conn.send_data(sid, body[i:i + 1])
                yield
            conn.end_stream(sid)
        elif kind == "reset":
            conn.send_data(sid, body[:len(body) // 2])
            yield
            conn.reset_stream(sid, h2.errors.ErrorCodes.INTERNAL_ERROR)
        elif kind == "trailers" or kind in TRAILERS:
            conn.send_data(sid, body)
            yield
            if kind == "trailers":
                trailers = [("a2a-card-verdict", "valid"), ("a2a-card-hash", "sha256:" + "0" * 64),
                            ("x-card-checksum", "1234")]
            else:
                trailers = TRAILERS[kind]
            conn.send_headers(sid, trailers, end_stream=True)
        else:
            # Two DATA frames, a step apart, so concurrent streams interleave.
            conn.send_data(sid, body[:len(body) // 2])
            yield
            conn.send_data(sid, body[len(body) // 2:], end_stream=True)


# -- fixtures --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def h2_upstream():
    up = H2Upstream().start()
    yield up
    up.stop()


@pytest.fixture(scope="module")
def h2_envoy(h2_upstream, registry, workdir):
    """An Envoy whose enforce filter's cluster speaks h2c to `H2Upstream` (listener `h2up`; in
    observe mode `h2up_observe`; `h2rr` re-resolves from it), and
    in front of the fixture registry one listener that keeps HTTP/1.1 request trailers
    (`enable_trailers`: `h1trailers`) and one that answers an invalid h2 request with a stream
    error instead of closing the connection (`h2stream`)."""
    listener = harness.listener("h2up", "h2_upstream",
                                [harness.wasm_filter("cardgate_h2up", plugin_config())])
    h1trailers = harness.listener("h1trailers", "registry_edge",
                                  [harness.wasm_filter("cardgate_h1trailers", plugin_config())],
                                  {"http_protocol_options": {"enable_trailers": True}})
    cluster = harness.cluster("h2_upstream", h2_upstream.port)
    cluster["typed_extension_protocol_options"] = {
        "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
            "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
            "explicit_http_config": {"http2_protocol_options": {}},
        }
    }
    h2stream = harness.listener("h2stream", "registry_edge",
                                [harness.wasm_filter("cardgate_h2stream", plugin_config())],
                                {"http2_protocol_options": {"override_stream_error_on_invalid_http_message": True}})
    # The same h2c cluster behind an observe-mode filter, and as the source a route re-resolves
    # from when the fixture registry's replica answers a stale card.
    observe = harness.listener("h2up_observe", "h2_upstream",
                               [harness.wasm_filter("cardgate_h2up_observe", plugin_config(mode="observe"))])
    rr = harness.listener("h2rr", "registry_edge", [harness.wasm_filter("cardgate_h2rr", plugin_config(
        re_resolve={"cluster": "h2_upstream", "timeout": "2s", "budget": {"per_second": 1000, "burst": 1000}}))])
    clusters = [cluster, harness.cluster("registry_edge", registry.replica)]
    proc = harness.Envoy(harness.bootstrap([listener, h1trailers, h2stream, observe, rr], clusters),
                         workdir, "h2up")
    proc.upstream = h2_upstream
    proc.registry = registry
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()


def serve(registry, body, lag_ms="250", chunks=1, chunk_delay_ms=0):
    path = "/agents/h2t%d/card" % next(_ids)
    headers = [("Content-Type", "application/json"), ("x-replica-lag-ms", lag_ms)]
    registry.register(registry.script(path, body, 200, headers, chunks=chunks, chunk_delay_ms=chunk_delay_ms))
    return path


def assert_valid(s, body):
    assert s.reset is None and s.ended, s
    assert s.status == 200 and s.header("a2a-card-verdict") == "valid", s
    assert s.body == body, s
    assert s.header("a2a-card-hash") == oracle_hash(json.loads(body)), s


def assert_problem(s, status, reasons):
    assert s.reset is None and s.ended, s
    assert s.status == status, s
    assert s.header("a2a-card-verdict") != "valid", s
    doc = json.loads(s.body)
    assert [r["code"] for r in doc["reasons"]] == reasons, doc


# -- downstream HTTP/2 ------------------------------------------------------------------------------

def test_h2_stream_gets_the_same_verdict_as_http1(gate):
    """A valid card over h2c: 200, the card's exact bytes, verdict headers; a stale one: 503."""
    body = card_bytes(card())
    fresh = serve(gate.registry, body)
    assert_valid(h2_get(gate.port, fresh), body)
    stale = serve(gate.registry, body, lag_ms="40000")
    assert_problem(h2_get(gate.port, stale), 503, ["watermark_exceeded"])


def test_h2_head_is_checked_and_has_no_body(gate):
    body = card_bytes(card())
    s = h2_get(gate.port, serve(gate.registry, body), method="HEAD")
    assert s.ended and s.status == 200 and s.header("a2a-card-verdict") == "valid", s
    assert s.body == b"", s
    s = h2_get(gate.port, serve(gate.registry, body, lag_ms="40000"), method="HEAD")
    assert s.status == 503 and s.body == b"" and s.header("a2a-card-verdict") != "valid", s


CALLER_VARIANTS = [
    (),
    (("a2a-min-card-version", "3.0.0"),),
    (("a2a-min-card-version", "4.0.0"),),
    (("cache-control", "max-stale=0"),),
    (("cache-control", "max-stale=5"),),
    (("a2a-require-capabilities", "task.execute.v3"),),
    (("a2a-require-capabilities", "task.cancel"),),
    (("a2a-card-pin", "sha256:" + "a" * 64),),
    (("a2a-min-card-version", "latest"),),  # unreadable: 400
]


def test_concurrent_h2_streams_each_get_their_own_verdict(gate):
    """48 streams on one h2c connection: 4 card bodies (valid; version 2.0.0; other skill;
    stale) x the caller header variants above (a correct pin for each body added), their
    answers sent in 3 chunks 20 ms apart so the upstream answers interleave. Each stream's
    answer must be the one an HTTP/1.1 request alone gets: status, verdict, error reasons,
    card hash, and its own body."""
    bodies = [card_bytes(card()), card_bytes(card("2.0.0")), card_bytes(card(skill="task.other")),
              card_bytes(card(name="stale-one"))]
    lags = ["250", "250", "250", "40000"]
    paths = [serve(gate.registry, b, lag, chunks=3, chunk_delay_ms=20) for b, lag in zip(bodies, lags)]
    cases = []
    for path, body in zip(paths, bodies):
        pin = (("a2a-card-pin", oracle_hash(json.loads(body))),)
        for variant in CALLER_VARIANTS + [pin]:
            cases.append((path, body, variant))
    cases = cases + cases[::-1][:12]  # the same requests again, in another order (memo hits)
    client = H2Client(gate.port)
    try:
        sids = [client.request(path, variant) for path, _, variant in cases]
        got = client.run(timeout=20)
    finally:
        client.close()
    assert client.terminated is None
    wrong = []
    for sid, (path, body, variant) in zip(sids, cases):
        s = got[sid]
        ref = h1(gate.port, path, dict(variant))
        if s.summary() != ref.summary() or (s.status == 200 and s.body != body):
            wrong.append((path, variant, s.summary(), ref.summary()))
        if s.status == 200:
            assert s.header("a2a-card-hash") == oracle_hash(json.loads(body))
    assert not wrong, wrong
    statuses = {got[sid].status for sid in sids}
    assert {200, 503, 400} <= statuses, statuses  # the variants do decide differently


def test_h2_caller_header_repeated_across_fields(gate):
    """A caller header split over several h2 fields is read whole, as on HTTP/1.1: capabilities
    are united, the strictest max-stale counts, a second version floor or pin is refused."""
    body = card_bytes(card())
    path = serve(gate.registry, body)
    s = h2_get(gate.port, path, [("a2a-require-capabilities", "task.execute.v3"),
                                 ("a2a-require-capabilities", "task.cancel")])
    assert s.status == 409, s
    s = h2_get(gate.port, path, [("cache-control", "max-stale=60"), ("cache-control", "max-stale=0")])
    assert_problem(s, 503, ["watermark_exceeded"])
    s = h2_get(gate.port, path, [("a2a-min-card-version", "3.0.0"), ("a2a-min-card-version", "9.0.0")])
    assert s.status == 400 and "a2a-min-card-version" in s.body.decode(), s
    s = h2_get(gate.port, path, [("a2a-card-pin", oracle_hash(json.loads(body))),
                                 ("a2a-card-pin", oracle_hash(json.loads(body)))])
    assert s.status == 400 and "a2a-card-pin" in s.body.decode(), s
    # Cookie-style crumbs of cache-control (";"-free, comma-joined by h2 peers) read the same.
    s = h2_get(gate.port, path, [("cache-control", "no-cache"), ("cache-control", "max-stale=0")])
    assert_problem(s, 503, ["watermark_exceeded"])


def test_h2_upper_case_caller_header_name_never_passes_unread(gate, h2_envoy):
    """h2 forbids upper-case field names (RFC 9113 8.2.1). Envoy refuses such a request, never a
    `valid` answer that ignored `A2A-Min-Card-Version: 9.0.0`. By default (the tests' listeners,
    envoy.yaml) it closes the whole connection, ending the other streams on it too; with
    `http2_protocol_options.override_stream_error_on_invalid_http_message` only that stream is
    reset and a neighbour stream gets its verdict."""
    body = card_bytes(card())
    path = serve(gate.registry, body, chunks=3, chunk_delay_ms=100)
    for port in (gate.port, h2_envoy.ports["h2stream"]):
        client = H2Client(port, strict=False)
        try:
            neighbour = client.request(path)
            time.sleep(0.05)
            upper = client.request(path, [("A2A-Min-Card-Version", "9.0.0")])
            got = client.run()
        finally:
            client.close()
        s = got[upper]
        assert s.reset is not None or s.status in (400, 503), s
        assert s.header("a2a-card-verdict") != "valid", s
        if port == h2_envoy.ports["h2stream"]:
            assert client.terminated is None
            assert_valid(got[neighbour], body)
        else:
            assert got[neighbour].header("a2a-card-verdict") in (None, "valid"), got[neighbour]


def _with_trailers(port, path, trailers, headers=()):
    client = H2Client(port)
    try:
        sid = client.request(path, headers, trailers=trailers)
        return client.run()[sid]
    finally:
        client.close()


def test_h2_caller_requirement_in_request_trailers_fails_closed(gate, observe_gate):
    """Caller headers sent as h2 request trailers arrive after the filter read the requirement
    from the headers. RFC 9110 6.5.1 lets a recipient ignore trailers, but a gate that ignored
    them would answer `valid` for a check it did not make (README: a caller header the gate
    cannot use is refused, never ignored). Expected: 400 `invalid_caller_requirement` naming
    the header, for every caller header that states a requirement; trailers that state none
    (another name, a `cache-control` without `max-stale`) change nothing. Observe mode logs it
    and never blocks."""
    body = card_bytes(card())
    path = serve(gate.registry, body)
    for trailer in [("a2a-min-card-version", "9.0.0"), ("cache-control", "max-stale=0"),
                    ("a2a-require-capabilities", "task.cancel"), ("a2a-card-pin", "sha256:" + "a" * 64),
                    ("a2a-min-card-version", "latest")]:
        s = _with_trailers(gate.port, path, [trailer])
        assert s.status == 400, (trailer, s)
        doc = json.loads(s.body)
        assert doc["type"] == "urn:cardgate:problem:invalid_caller_requirement", doc
        assert trailer[0] in doc["detail"] and "request trailer" in doc["detail"], doc
    assert_valid(_with_trailers(gate.port, path, [("x-request-checksum", "1")]), body)
    assert_valid(_with_trailers(gate.port, path, [("cache-control", "no-cache")]), body)
    s = _with_trailers(observe_gate.port, path, [("a2a-min-card-version", "9.0.0")])
    assert s.status == 200 and s.body == body, s
    # The log line may reach the file after the answer reaches the client (as in
    # test_responses): wait for it rather than read once.
    wanted = "refused caller trailer on %s: a2a-min-card-version" % path
    harness.wait_until(lambda: any(wanted in line and "(mode observe" in line
                                   for line in gate.envoy.log().splitlines()),
                       5, "the observe-mode log line for the refused trailer")


@pytest.mark.parametrize("slow", [{"delay_ms": 400}, {"chunks": 2, "chunk_delay_ms": 400}],
                         ids=["upstream headers pending", "upstream body pending"])
def test_h2_requirement_in_trailers_sent_while_the_answer_is_pending(gate, slow):
    """The caller's request ends with a trailer `a2a-min-card-version: 9.0.0` 150 ms after its
    headers, while the upstream has not sent its headers yet, or only half its body: the answer
    is not decided, so the trailer is refused (400 naming it)."""
    path = "/agents/h2t%d/card" % next(_ids)
    gate.registry.register(gate.registry.script(path, card_bytes(card()), 200, [
        ("content-type", "application/json"), ("x-replica-lag-ms", "100")], **slow))
    client = H2Client(gate.port)
    try:
        sid = client.conn.get_next_available_stream_id()
        client.conn.send_headers(sid, [(":method", "GET"), (":scheme", "http"),
                                       (":authority", "cardgate.test"), (":path", path)])
        client.streams[sid] = Stream()
        client._flush()
        time.sleep(0.15)
        client.conn.send_headers(sid, [("a2a-min-card-version", "9.0.0")], end_stream=True)
        client._flush()
        s = client.run()[sid]
    finally:
        client.close()
    assert s.status == 400 and s.header("a2a-card-verdict") != "valid", s
    assert "a2a-min-card-version" in json.loads(s.body)["detail"], s


def test_chunked_http1_request_trailers(h2_envoy, gate):
    """The same over HTTP/1.1 (a chunked GET): where the listener keeps request trailers
    (`enable_trailers`) the filter refuses a requirement there (400); where it does not (Envoy's
    default, the shipped envoy.yaml) Envoy drops them before any filter or upstream sees them,
    and the card is checked against the headers' requirement alone (documented)."""
    from fault_upstream import _Reader
    path = serve(gate.registry, card_bytes(card()))
    wire = ("GET %s HTTP/1.1\r\nHost: cardgate.test\r\nTransfer-Encoding: chunked\r\n\r\n"
            "0\r\na2a-min-card-version: 9.0.0\r\n\r\n" % path).encode()
    got = {}
    for name, port in (("kept", h2_envoy.ports["h1trailers"]), ("dropped", gate.port)):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            sock.sendall(wire)
            got[name] = _read_h1_response(_Reader(sock))
        finally:
            sock.close()
    assert got["kept"].status == 400 and b"a2a-min-card-version" in got["kept"].body, got
    assert got["dropped"].status == 200, got


# -- HTTP/1.1 connection reuse, HTTP/1.0, mixed case ---------------------------------------------

def _read_h1_response(reader, head=False):
    status = int(reader.line().split(" ")[1])
    fields = reader.fields()
    names = dict(fields)
    body = b""
    if head:
        pass
    elif names.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int(reader.line().split(";")[0], 16)
            if size == 0:
                reader.fields()
                break
            body += reader.exactly(size)
            reader.exactly(2)
    else:
        body = reader.exactly(int(names.get("content-length", "0")))
    s = Stream()
    s.status, s.headers, s.body, s.ended = status, fields, body, True
    return s


H1_ROUND = [{}, {"a2a-min-card-version": "4.0.0"}, {"Cache-Control": "max-stale=0"},
            {"a2a-require-capabilities": "task.cancel"}, {"A2A-MIN-CARD-VERSION": "4.0.0"},
            {"a2a-min-card-version": "3.0.0", "cache-control": "max-stale=9"}]


def test_keep_alive_with_alternating_caller_headers(gate):
    """One HTTP/1.1 connection, two paths, the caller headers alternating request by request
    (mixed-case names too): each answer is the one a request alone on a new connection gets."""
    import http.client
    body = card_bytes(card())
    paths = [serve(gate.registry, body), serve(gate.registry, card_bytes(card("2.0.0")))]
    conn = http.client.HTTPConnection("127.0.0.1", gate.port, timeout=10)
    try:
        for _ in range(2):
            for path in paths:
                for headers in H1_ROUND:
                    conn.request("GET", path, headers=headers)
                    r = conn.getresponse()
                    s = Stream()
                    s.status, s.body, s.ended = r.status, r.read(), True
                    s.headers = [(k.lower(), v) for k, v in r.getheaders()]
                    ref = h1(gate.port, path, headers)
                    assert s.summary() == ref.summary(), (path, headers, s, ref)
    finally:
        conn.close()
    assert h1(gate.port, paths[0], {"A2A-MIN-CARD-VERSION": "4.0.0"}).status == 503


def test_pipelined_http1_requests_with_alternating_caller_headers(gate):
    """Requests written at once on one connection (pipelining), GETs and HEADs, the caller
    headers alternating: the answers come back in order, each with its own request's verdict, a
    HEAD's without a body (the connection stays in sync). A request with an unreadable caller
    header gets its 400 with `connection: close` (a reply the filter sends while decoding the
    request: Envoy then closes an HTTP/1.1 connection), so it comes last here; the requests
    pipelined after such a one are left unanswered for the caller to send again."""
    from fault_upstream import _Reader
    body = card_bytes(card())
    paths = [serve(gate.registry, body, chunks=2, chunk_delay_ms=5),
             serve(gate.registry, card_bytes(card("2.0.0")), chunks=2, chunk_delay_ms=5)]
    reqs = [(p, h, "HEAD" if i % 3 == 2 else "GET")
            for i, (h, p) in enumerate((h, p) for h in H1_ROUND for p in paths)]
    reqs += [(paths[0], {"a2a-min-card-version": "latest"}, "GET"), (paths[0], {}, "GET")]
    wire = b""
    for path, headers, method in reqs:
        lines = ["%s %s HTTP/1.1" % (method, path), "Host: cardgate.test"] + ["%s: %s" % kv for kv in headers.items()]
        wire += ("\r\n".join(lines) + "\r\n\r\n").encode()
    sock = socket.create_connection(("127.0.0.1", gate.port), timeout=10)
    try:
        sock.sendall(wire)
        reader = _Reader(sock)
        got = [_read_h1_response(reader, head=method == "HEAD") for _, _, method in reqs[:-1]]
        with pytest.raises(EOFError):
            _read_h1_response(reader)
    finally:
        sock.close()
    assert got[-1].status == 400 and got[-1].header("connection") == "close", got[-1]
    for (path, headers, method), s in zip(reqs, got):
        ref = h1(gate.port, path, headers, method)
        assert (s.status, s.header("a2a-card-verdict"), s.header("a2a-card-hash")) == \
            (ref.status, ref.header("a2a-card-verdict"), ref.header("a2a-card-hash")), (path, headers, method, s, ref)
        assert s.body == ref.body or method == "GET" and s.status != 200 and s.summary() == ref.summary(), (s, ref)
    assert {s.status for s in got} >= {200, 400, 503}


def test_http10_request_is_never_stamped_valid(gate):
    """Envoy refuses HTTP/1.0 unless `accept_http_10` is set (neither the tests' listeners nor
    envoy.yaml set it): 426, no verdict, the upstream not asked."""
    from fault_upstream import _Reader
    path = serve(gate.registry, card_bytes(card()))
    for head in ("GET %s HTTP/1.0\r\n\r\n", "GET %s HTTP/1.0\r\nHost: cardgate.test\r\n\r\n"):
        sock = socket.create_connection(("127.0.0.1", gate.port), timeout=10)
        try:
            sock.sendall((head % path).encode())
            s = _read_h1_response(_Reader(sock))
        finally:
            sock.close()
        assert s.status == 426 and s.header("a2a-card-verdict") != "valid", s
    assert gate.registry.count("replica", path) == 0


# -- upstream HTTP/2 ---------------------------------------------------------------------------------

def up_path(kind, **params):
    query = "&".join("%s=%s" % kv for kv in params.items())
    return "/agents/%s-%d/card%s" % (kind, next(_ids), "?" + query if query else "")


def h2_upstream_methods(h2_envoy):
    return [r.get(":method") for r in h2_envoy.upstream.requests]


def test_h2_upstream_card_in_one_byte_data_frames(h2_envoy):
    body = card_bytes(card())
    for client in (lambda p: h2_get(h2_envoy.ports["h2up"], p), lambda p: h1(h2_envoy.ports["h2up"], p)):
        assert_valid(client(up_path("ok")), body)
        assert_valid(client(up_path("frames")), body)
        assert_problem(client(up_path("frames", lag="40000")), 503, ["watermark_exceeded"])
    # A HEAD is asked upstream as a GET, checked, and answered without the body.
    s = h2_get(h2_envoy.ports["h2up"], up_path("frames"), method="HEAD")
    assert s.ended and s.status == 200 and s.header("a2a-card-verdict") == "valid" and s.body == b"", s
    assert h2_upstream_methods(h2_envoy)[-1] == "GET"


def test_h2_upstream_trailers_cannot_forge_a_verdict_or_carry_the_watermark(h2_envoy):
    """Trailers forging `a2a-card-verdict: valid`: a fresh card is valid (the forged trailers
    removed, the others forwarded to an h2 caller), a stale one 503. A watermark field in the
    trailers is an invalid watermark (DESIGN.md "Watermark headers"), alone or beside the
    header's figure, contradicting it (40000 after 120) or not; trailers that restate the
    body's encoding (gzip, a foreign charset) are refused as the same header is. Trailers naming
    no such field change nothing, over an h2 or an HTTP/1.1 caller."""
    port = h2_envoy.ports["h2up"]
    body = card_bytes(card())
    s = h2_get(port, up_path("trailers"))
    assert_valid(s, body)
    assert [k for k, _ in s.trailers if k.startswith("a2a-card-")] == [], s
    assert ("x-card-checksum", "1234") in s.trailers, s
    assert_problem(h2_get(port, up_path("trailers", lag="40000")), 503, ["watermark_exceeded"])
    for kind in ("lagtrailer", "lagboth", "lagsame"):
        for s in (h2_get(port, up_path(kind)), h1(port, up_path(kind))):
            assert_problem(s, 503, ["watermark_invalid"])
            assert "trailers" in json.loads(s.body)["reasons"][0]["message"], s
            assert s.header("a2a-card-staleness-ms") is None, s
    for kind in ("gztrailer", "cstrailer"):
        for s in (h2_get(port, up_path(kind)), h1(port, up_path(kind))):
            assert_problem(s, 502, ["body_encoded"])
    # A HEAD is asked upstream as a GET and its trailers read the same way.
    for kind, status in (("lagboth", 503), ("gztrailer", 502), ("cltrailer", 502)):
        s = h2_get(port, up_path(kind), method="HEAD")
        assert s.ended and s.status == status and s.header("a2a-card-verdict") != "valid", (kind, s)
    s = h2_get(port, up_path("oktrailer"), method="HEAD")
    assert s.ended and s.status == 200 and s.header("a2a-card-verdict") == "valid" and s.body == b"", s
    for s in (h2_get(port, up_path("oktrailer")), h1(port, up_path("oktrailer"))):
        assert_valid(s, body)
        assert s.header("a2a-card-staleness-ms") == "120", s
    # A framing field in the trailers: Envoy 1.40's h2 codec resets the upstream stream itself
    # (502, no verdict); where it passes (1.36), the filter refuses it.
    for s in (h2_get(port, up_path("cltrailer")), h1(port, up_path("cltrailer"))):
        assert s.status == 502 and s.header("a2a-card-verdict") != "valid", s
        if s.header("a2a-card-verdict") is not None:
            assert [r["code"] for r in json.loads(s.body)["reasons"]] == ["body_encoded"], s
    # A cache lifetime in the trailers is removed: the headers carry the capped one.
    s = h2_get(port, up_path("cctrailer"))
    assert_valid(s, body)
    assert s.trailers == [("x-card-checksum", "1")], s


def test_h2_upstream_trailers_in_observe_mode(h2_envoy):
    """Observe mode forwards the card and says what enforce mode would have refused."""
    port = h2_envoy.ports["h2up_observe"]
    body = card_bytes(card())
    for kind, reason in (("lagboth", "watermark_invalid"), ("gztrailer", "body_encoded")):
        s = h2_get(port, up_path(kind))
        assert s.status == 200 and s.body == body, s
        assert s.header("a2a-card-verdict") == "rejected", s
        assert reason in s.header("a2a-card-reasons"), s
    s = h2_get(port, up_path("oktrailer"))
    assert s.status == 200 and s.header("a2a-card-verdict") == "valid", s


def test_h2_upstream_trailers_on_a_re_resolution(h2_envoy):
    """The replica answers a stale card; the route re-resolves from the h2c cluster, whose answer
    ends with trailers: read as the response path reads them. Trailers naming no watermark: its
    card is served (`a2a-card-source`); a watermark trailer: that attempt is `watermark_invalid`
    and the route fails closed with both attempts listed."""
    registry = h2_envoy.registry
    port = h2_envoy.ports["h2rr"]
    body = card_bytes(card())
    stale = card_bytes(card("2.0.0", "task.execute.v2"))
    served = {}
    for kind in ("oktrailer", "lagboth", "gztrailer"):
        path = "/agents/%s-rr%d/card" % (kind, next(_ids))
        registry.register(registry.script(path, stale, 200, [("Content-Type", "application/json"),
                                                             ("x-replica-lag-ms", "40000")]))
        served[kind] = h2_get(port, path)
    s = served["oktrailer"]
    assert_valid(s, body)
    assert s.header("a2a-card-source") == "h2_upstream" and s.header("a2a-card-attempts") == "2", s
    for kind, status, reason in (("lagboth", 503, "watermark_invalid"), ("gztrailer", 502, "body_encoded")):
        s = served[kind]
        assert s.status == status and s.header("a2a-card-verdict") != "valid", (kind, s)
        attempts = json.loads(s.body)["resolution"]["attempts"]
        assert len(attempts) == 2, (kind, attempts)
        assert reason in json.dumps(attempts[1]), (kind, attempts)


def test_h2_upstream_1xx_before_the_answer(h2_envoy):
    """A 103 Early Hints forging `a2a-card-verdict: valid` before the final answer: the final
    answer is checked as usual, and no 1xx the caller sees carries an `a2a-card-*` header."""
    port = h2_envoy.ports["h2up"]
    body = card_bytes(card())
    s = h2_get(port, up_path("early"))
    assert_valid(s, body)
    for block in s.informational:
        assert [k for k, _ in block if k.startswith("a2a-card-")] == [], s
    s = h2_get(port, up_path("early", lag="40000"))
    assert_problem(s, 503, ["watermark_exceeded"])
    for block in s.informational:
        assert [k for k, _ in block if k.startswith("a2a-card-")] == [], s


def test_h2_upstream_reset_mid_body(h2_envoy):
    """RST_STREAM after half the card: the caller's stream is reset or gets Envoy's 5xx,
    never a verdict; the next card on the same upstream connection is valid."""
    port = h2_envoy.ports["h2up"]
    for s in (h2_get(port, up_path("reset")), h1(port, up_path("reset"))):
        assert s.header("a2a-card-verdict") != "valid", s
        assert s.reset is not None or s.status >= 500, s
    assert_valid(h2_get(port, up_path("ok")), card_bytes(card()))


def test_h2_upstream_repeated_or_upper_case_watermark(h2_envoy):
    """Two watermark fields are an invalid watermark (README); an upper-case name is an h2
    protocol error Envoy answers itself: neither is ever `valid`."""
    port = h2_envoy.ports["h2up"]
    assert_problem(h2_get(port, up_path("dupwm")), 503, ["watermark_invalid"])
    s = h2_get(port, up_path("upper"))
    assert s.header("a2a-card-verdict") != "valid", s
    assert s.reset is not None or s.status >= 500, s


def test_h2_upstream_multiplexed_streams_each_get_their_own_verdict(h2_envoy, h2_upstream):
    """40 streams from one h2 caller connection, multiplexed by Envoy onto the h2c upstream
    connection, their DATA frames interleaved: bodies differing in version, skill and watermark,
    and caller headers differing per stream. Each answer equals the same request's answer alone
    over HTTP/1.1."""
    port = h2_envoy.ports["h2up"]
    kinds = ["ok", "frames", "trailers", "early"]
    params = [{}, {"v": "2.0.0"}, {"skill": "task.other"}, {"lag": "40000"}, {"lag": "9000"}]
    callers = [(), (("cache-control", "max-stale=5"),), (("a2a-min-card-version", "3.0.0"),),
               (("a2a-require-capabilities", "task.execute.v3"),)]
    cases = []
    for i in range(40):
        p = params[i % len(params)]
        # One path per body (the upstream answers by path): the same path, other caller headers.
        path = "/agents/%s-x%d/card?%s" % (kinds[i % len(kinds)], i % 10,
                                         "&".join("%s=%s" % kv for kv in p.items()))
        cases.append((path, callers[(i // 3) % len(callers)]))
    connections = h2_upstream.connections
    client = H2Client(port)
    try:
        sids = [client.request(path, caller) for path, caller in cases]
        got = client.run(timeout=20)
    finally:
        client.close()
    # One upstream connection carried them (at most one new one, if none was open).
    assert h2_upstream.connections - connections <= 1
    wrong = []
    for sid, (path, caller) in zip(sids, cases):
        ref = h1(port, path, dict(caller))
        if got[sid].summary() != ref.summary() or (ref.status == 200 and got[sid].body != ref.body):
            wrong.append((path, caller, got[sid].summary(), ref.summary()))
    assert not wrong, wrong
    assert len({got[sid].status for sid in sids}) >= 2


def test_h2_upstream_answers_without_a_whole_card(h2_envoy):
    """A 200 without DATA, a 200 whose only frame after HEADERS is trailers: `body_empty` (502).
    A content-length that the DATA overruns, GOAWAY mid-body: Envoy's own 5xx or a reset, never
    a verdict on part of a card."""
    port = h2_envoy.ports["h2up"]
    assert_problem(h2_get(port, up_path("empty")), 502, ["body_empty"])
    assert_problem(h2_get(port, up_path("trailersonly")), 502, ["body_empty"])
    for kind in ("badlength", "goaway"):
        for s in (h2_get(port, up_path(kind)), h1(port, up_path(kind))):
            assert s.header("a2a-card-verdict") is None, (kind, s)
            assert s.reset is not None or s.status >= 500, (kind, s)
    assert_valid(h2_get(port, up_path("ok")), card_bytes(card()))


def test_h2_caller_with_a_tiny_flow_control_window(gate):
    """A caller that opens its stream window 16 bytes at a time: the filter buffers the card,
    decides, and the card reaches the caller whole, stamped."""
    body = card_bytes(card())
    path = serve(gate.registry, body)
    client = H2Client(gate.port)
    try:
        client.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 16})
        client._flush()
        sid = client.request(path)
        s = client.run()[sid]
    finally:
        client.close()
    assert_valid(s, body)


def test_h2_stream_reset_by_the_caller_leaves_its_neighbours_alone(gate):
    """Of 12 streams on one connection, every third is reset by the caller right after its
    request: the others get their own verdicts, the connection stays usable."""
    body = card_bytes(card())
    fresh = serve(gate.registry, body, chunks=3, chunk_delay_ms=30)
    stale = serve(gate.registry, body, lag_ms="40000", chunks=3, chunk_delay_ms=30)
    client = H2Client(gate.port)
    try:
        sids = [client.request(fresh if i % 2 else stale) for i in range(12)]
        for sid in sids[::3]:
            client.conn.reset_stream(sid, h2.errors.ErrorCodes.CANCEL)
            client.streams[sid].reset = "cancelled by the test"
        client._flush()
        got = client.run(timeout=15)
        again = client.request(fresh)
        client.run()
    finally:
        client.close()
    for i, sid in enumerate(sids):
        if i % 3 == 0:
            continue
        if i % 2:
            assert_valid(got[sid], body)
        else:
            assert_problem(got[sid], 503, ["watermark_exceeded"])
    assert_valid(client.streams[again], body)


# -- re-resolution under HTTP/2 ------------------------------------------------------------------

from test_reresolve import V3, counters, delta, rr_envoy, script  # noqa: E402,F401  (rr_envoy: a fixture)


def test_h2_streams_with_different_requirements_share_one_re_resolution_call(rr_envoy, registry):
    """8 streams on one h2c connection ask for one stale replica card (the primary answers V3
    after 300 ms); half of them also require version 4.0.0. One call reaches the primary (single
    flight: the call carries no caller header), and each stream's answer is decided on its own
    requirement: V3's bytes from the primary (200) for the first half, 503
    `version_below_minimum` with both attempts for the others."""
    path = "/agents/rr-h2-flight/card"
    script(registry, path, delay_ms=300)
    base = [("a2a-require-capabilities", "task.execute.v3")]
    client = H2Client(rr_envoy.ports["rr"])
    try:
        sids = [client.request(path, base + ([("a2a-min-card-version", "4.0.0")] if i % 2 else []))
                for i in range(8)]
        got = client.run(timeout=15)
    finally:
        client.close()
    for i, sid in enumerate(sids):
        s = got[sid]
        if i % 2:
            assert s.status == 503 and s.header("a2a-card-attempts") == "2", s
            doc = json.loads(s.body)
            assert [r["code"] for r in doc["reasons"]] == ["version_below_minimum"], doc
        else:
            assert s.status == 200 and s.body == V3, s
            assert s.header("a2a-card-source") == "registry_primary", s
    assert registry.count("primary", path) == 1


def test_h2_waiter_fails_closed_when_the_caller_resets_the_stream_that_made_the_call(rr_envoy, registry):
    """Stream A makes the re-resolution call (the primary takes 1.5 s), stream B on the same h2
    connection joins it, then the caller resets A (RST_STREAM CANCEL, the connection stays): B
    fails closed at once (503, the call's attempt `cancelled`), and the connection still serves."""
    path = "/agents/rr-h2-orphan/card"
    script(registry, path, delay_ms=1500)
    caller = [("a2a-require-capabilities", "task.execute.v3")]
    client = H2Client(rr_envoy.ports["rr"])
    try:
        a = client.request(path, caller)
        harness.wait_until(lambda: registry.count("primary", path) == 1, 5, "A's call to reach the primary")
        before = counters(rr_envoy)
        b = client.request(path, caller)
        harness.wait_until(lambda: delta(before, counters(rr_envoy)).get("coalesced") == 1, 5,
                           "B to join A's call")
        t0 = time.monotonic()
        client.conn.reset_stream(a, h2.errors.ErrorCodes.CANCEL)
        client.streams[a].reset = "cancelled by the test"
        client._flush()
        got = client.run(timeout=10)
        ms = (time.monotonic() - t0) * 1000
        s = got[b]
        assert s.status == 503, s
        attempts = json.loads(s.body)["resolution"]["attempts"]
        assert attempts[1]["verdict"] == "failed" and "cancelled" in attempts[1]["error"], attempts
        assert ms < 1000, ms
        fresh = "/agents/rr-h2-after/card"
        script(registry, fresh, replica=(V3, 100))
        c = client.request(fresh, caller)
        assert client.run(timeout=10)[c].status == 200
    finally:
        client.close()
