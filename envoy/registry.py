#!/usr/bin/env python3
"""Fixture Agent Card registry: a primary and a lagging edge replica (stdlib only).

It reproduces the incident of shared/seed/agent-card-discovery-invariants.md: during a rolling
deploy the worker renamed its capability `task.execute.v2` -> `task.execute.v3` and moved its
endpoint; the primary already serves the new card while the edge replica, 40 s behind, still
serves the old one and says so only in a response header (`x-replica-lag-ms: 40000`).

    python3 envoy/registry.py --primary 127.0.0.1:18081 --replica 127.0.0.1:18082

Paths served by both the primary and the replica (the replica serves what it last synced):

    GET|HEAD /agents/worker-7/card                        the card itself (registry API)
    (POST, PUT, DELETE, OPTIONS and PATCH get scripted answers too, for the filter's tests)
    GET|HEAD /agents/worker-7/.well-known/agent-card.json the card (multi-agent well-known URI)
    GET|HEAD /v1/resolve/worker-7                         a ResolvedCard envelope:
             {"card": {...}, "replication": {"lag_ms": N}, "state": "active"}

Control endpoints (loopback only, used by the demo and the tests):

    POST /_fixture/replica   {"synced": false, "lag_ms": 40000}   make the replica stale (default)
    POST /_fixture/replica   {"synced": true,  "lag_ms": 120}     the replica caught up
    PUT  /_fixture/responses {"path": "/x", "status": 200, "headers": [["k", "v"]],
                              "body_b64": "...", "chunks": 1, "chunk_delay_ms": 0,
                              "synced_at_lag_ms": 3000}
         registers a scripted answer for that exact path (both ports, or only the port named by
         "role": "primary" or "replica"; a role's own script wins); HEAD gets its headers.
         With "delay_ms", the answer waits that long before its headers (a slow primary).
         With "variants": {"header": "a2a-version", "bodies_b64": {"1.0": "...", "": "..."}},
         the body is the one listed for that request header's value ("": the header absent),
         else "body_b64" (a card endpoint that serves variants, `Vary`).
         With synced_at_lag_ms, an `x-registry-synced-at` header is stamped at send time:
         this machine's clock minus that many ms (RFC 3339, ms precision).
         A scripted path is also served under its lenient spellings, as many web frameworks
         do: percent-escapes decoded (%2F too), `\\` as `/`, duplicate and trailing slashes
         merged, `.`/`..` resolved, `;params` dropped, letter case ignored (`lenient_path`).
    GET  /_fixture/requests?path=/x   headers of the last request seen for that path (exact or
         lenient spelling), with the method as a first `:method` entry
    GET  /_fixture/count?role=primary&path=/x   {"count": N}: requests that role answered for
         that exact path (any method), for the single-flight and reuse-cache tests
    GET  /_fixture/health             200 "ok"

The replica's answers carry `x-replica-lag-ms` (the watermark a careful resolver exposes);
the primary answers `x-replica-lag-ms: 0`.
"""

import argparse
import base64
import json
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote_to_bytes, urlsplit

AGENT_ID = "worker-7"


def worker_card(generation):
    """The worker's Agent Card before (2.0.0) and after (3.0.0) the rolling deploy, as in the
    shared vectors (tests/vectors/incident.json) and policies/incident.json."""
    endpoint = "wss://worker-7.internal/a2a" if generation == 2 else "wss://worker-7.internal/a2a/v3"
    return {
        "name": "worker-7",
        "description": "Python worker runtime that executes planner tasks",
        "version": "%d.0.0" % generation,
        "supportedInterfaces": [
            {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": True, "pushNotifications": False},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": [
            {
                "id": "task.execute.v%d" % generation,
                "name": "Execute task",
                "description": "Runs one planner task to completion",
                "tags": ["execution"],
            }
        ],
    }


def lenient_path(path):
    """How a lenient upstream reads a path: the same resource for /A/./b//c/, /a/%62/c;x, ..."""
    text = unquote_to_bytes(path).decode("utf-8", "replace").replace("\\", "/")
    out = []
    for segment in text.split("/"):
        segment = segment.split(";", 1)[0]
        if segment in ("", "."):
            continue
        if segment == "..":
            if out:
                out.pop()
            continue
        out.append(segment)
    return "/" + "/".join(out).lower()


def rfc3339_ms(unix_s):
    """RFC 3339 UTC with milliseconds, e.g. 2026-11-09T12:00:37.250Z."""
    ms = int(round(unix_s * 1000))
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class State:
    """Shared by both listeners; guarded by one lock."""

    def __init__(self, lag_ms):
        self.lock = threading.Lock()
        self.replica_synced = False
        self.replica_lag_ms = lag_ms
        self.responses = {}  # path -> spec
        self.lenient = {}  # lenient_path(path) -> spec
        self.requests = {}  # path and lenient_path(path) -> [[name, value], ...] of the last request
        self.counts = {}  # (role, path) -> requests answered

    def card_for(self, role):
        with self.lock:
            if role == "primary":
                return worker_card(3), 0
            return worker_card(3 if self.replica_synced else 2), self.replica_lag_ms


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "cardgate-fixture-registry"
    sys_version = ""

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle plus delayed ACKs
        # add 40 ms to answers on a reused connection.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):  # quiet unless asked
        if self.server.verbose:
            sys.stderr.write("registry[%s] %s\n" % (self.server.role, fmt % args))

    # -- helpers -------------------------------------------------------------------------
    def _send(self, status, headers, body, head=False, chunks=1, delay_ms=0):
        self.send_response(status)
        names = {k.lower() for k, _ in headers}
        chunked = chunks > 1 and not head and status not in (204, 304)
        for k, v in headers:
            self.send_header(k, v)
        if status not in (204, 304):
            if chunked:
                if "transfer-encoding" not in names:
                    self.send_header("Transfer-Encoding", "chunked")
            elif "content-length" not in names:
                self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if head or status in (204, 304):
            return
        if not chunked:
            self.wfile.write(body)
            return
        size = max(1, -(-len(body) // chunks))
        for i in range(0, len(body), size):
            piece = body[i : i + size]
            self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
            self.wfile.flush()
            if delay_ms:
                time.sleep(delay_ms / 1000.0)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _json(self, status, value):
        self._send(status, [("Content-Type", "application/json")], compact(value))

    def _read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    # -- serving cards -------------------------------------------------------------------
    def _serve(self, head):
        state = self.server.state
        path = urlsplit(self.path).path
        seen = [[":method", self.command]] + [[k, v] for k, v in self.headers.items()]
        role = self.server.role
        with state.lock:
            state.requests[path] = state.requests[lenient_path(path)] = seen
            if not path.startswith("/_fixture/"):
                state.counts[(role, path)] = state.counts.get((role, path), 0) + 1
            spec = state.responses.get((role, path)) or state.responses.get((None, path))
            if spec is None and not path.startswith("/_fixture/"):
                lenient = lenient_path(path)
                spec = state.lenient.get((role, lenient)) or state.lenient.get((None, lenient))
        if path == "/_fixture/health":
            return self._send(200, [("Content-Type", "text/plain")], b"ok", head)
        if path == "/_fixture/count":
            query = parse_qs(urlsplit(self.path).query)
            key = ((query.get("role") or [""])[0], (query.get("path") or [""])[0])
            with state.lock:
                count = state.counts.get(key, 0)
            return self._json(200, {"count": count})
        if path == "/_fixture/requests":
            query = parse_qs(urlsplit(self.path).query)
            wanted = (query.get("path") or [""])[0]
            with state.lock:
                seen = state.requests.get(wanted)
                if seen is None:
                    seen = state.requests.get(lenient_path(wanted))
            return self._json(200 if seen is not None else 404, seen or [])
        if spec is not None:
            if spec.get("delay_ms"):
                time.sleep(float(spec["delay_ms"]) / 1000.0)
            body = base64.b64decode(spec.get("body_b64", ""))
            variants = spec.get("variants")
            if variants:
                sent = self.headers.get(variants["header"])
                chosen = variants["bodies_b64"].get(sent if sent is not None else "")
                if chosen is not None:
                    body = base64.b64decode(chosen)
            headers = [tuple(h) for h in spec.get("headers", [])]
            if "synced_at_lag_ms" in spec:
                stamp = time.time() - float(spec["synced_at_lag_ms"]) / 1000.0
                headers.append(("x-registry-synced-at", rfc3339_ms(stamp)))
            return self._send(
                int(spec.get("status", 200)),
                headers,
                body,
                head,
                int(spec.get("chunks", 1)),
                int(spec.get("chunk_delay_ms", 0)),
            )
        card, lag_ms = state.card_for(self.server.role)
        common = [
            ("Cache-Control", "max-age=30"),
            ("x-replica-lag-ms", str(lag_ms)),
            ("x-registry-role", self.server.role),
        ]
        if path in ("/agents/%s/card" % AGENT_ID, "/agents/%s/.well-known/agent-card.json" % AGENT_ID):
            return self._send(200, [("Content-Type", "application/json")] + common, compact(card), head)
        if path == "/v1/resolve/%s" % AGENT_ID:
            envelope = {"card": card, "replication": {"lag_ms": lag_ms}, "state": "active"}
            return self._send(200, [("Content-Type", "application/json")] + common, compact(envelope), head)
        return self._json(404, {"error": "no such agent", "path": path})

    def do_GET(self):
        self._serve(head=False)

    def do_HEAD(self):
        self._serve(head=True)

    def _write(self):
        self._read_body()
        self._serve(head=False)

    do_DELETE = do_OPTIONS = do_PATCH = _write

    # -- control -------------------------------------------------------------------------
    def do_POST(self):
        state = self.server.state
        path = urlsplit(self.path).path
        if not path.startswith("/_fixture/"):
            self._read_body()
            return self._serve(head=False)  # scripted answers also serve writes
        try:
            body = json.loads(self._read_body() or b"{}")
        except ValueError as e:
            return self._json(400, {"error": str(e)})
        if path == "/_fixture/replica":
            with state.lock:
                state.replica_synced = bool(body.get("synced", state.replica_synced))
                state.replica_lag_ms = int(body.get("lag_ms", state.replica_lag_ms))
                answer = {"synced": state.replica_synced, "lag_ms": state.replica_lag_ms}
            return self._json(200, answer)
        return self._json(404, {"error": "unknown control path"})

    def do_PUT(self):
        state = self.server.state
        if urlsplit(self.path).path != "/_fixture/responses":
            self._read_body()
            return self._serve(head=False)  # scripted answers also serve writes
        try:
            body = json.loads(self._read_body())
            specs = body if isinstance(body, list) else [body]
            with state.lock:
                for spec in specs:
                    role = spec.get("role")
                    if role not in (None, "primary", "replica"):
                        raise ValueError("role must be primary or replica")
                    state.responses[(role, spec["path"])] = spec
                    state.lenient[(role, lenient_path(spec["path"]))] = spec
        except (ValueError, KeyError, TypeError) as e:
            return self._json(400, {"error": str(e)})
        return self._json(200, {"registered": len(specs)})


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A proxy closing an idle keep-alive connection is not an error worth a traceback.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def listen(role, hostport, state, verbose):
    host, _, port = hostport.rpartition(":")
    server = Server((host or "127.0.0.1", int(port)), Handler)
    server.role = role
    server.state = state
    server.verbose = verbose
    thread = threading.Thread(target=server.serve_forever, name=role, daemon=True)
    thread.start()
    return server


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--primary", default="127.0.0.1:18081", help="host:port of the primary")
    parser.add_argument("--replica", default="127.0.0.1:18082", help="host:port of the edge replica")
    parser.add_argument("--lag-ms", type=int, default=40000, help="the stale replica's lag")
    parser.add_argument("--ready-file", help="written with the bound ports once listening")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    state = State(args.lag_ms)
    servers = [listen("primary", args.primary, state, args.verbose),
               listen("replica", args.replica, state, args.verbose)]
    if args.ready_file:
        with open(args.ready_file, "w") as f:
            json.dump({s.role: s.server_address[1] for s in servers}, f)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    for s in servers:
        s.shutdown()


if __name__ == "__main__":
    main()
