#!/usr/bin/env python3
"""A misbehaving Agent Card upstream on raw sockets (stdlib only, loopback only).

Used by tests/envoy/test_upstream_faults.py and envoy/soak.py. The request path picks the
behaviour: `/faults/<kind>/card` (any path whose second-to-last segment is a kind; a query
string is ignored). Every kind serves the same small card (`CARD`); the watermark header is
`x-replica-lag-ms: 120` unless the kind says otherwise.

    kind               what goes on the wire
    ok                 a well-formed answer (Content-Length)
    unique             the same, but no two answers carry the same card: the description is a
                       counter of the same width (`unique_card(n)`), so every body is new to a
                       cache keyed by the bytes and has `CARD_BYTES`'s length
    stale              the same with `x-replica-lag-ms: 40000`
    stall-headers      the headers, then nothing (the connection stays open)
    stall-body         the headers and half the body, then nothing
    reset-body         the headers and half the body, then a TCP reset
    close-body         the headers and half the body, then a clean close (shorter than its
                       Content-Length)
    long-body          a Content-Length 20 bytes short of the body sent (longer than its
                       Content-Length: the framed answer is a truncated card)
    long-body-valid    the whole card under its right Content-Length, then 64 stray bytes
    chunked-trailers   chunked, then trailers (one of them spoofs `a2a-card-verdict: valid`)
    stale-trailers     the same with a stale watermark
    named-trailers     chunked, then the trailers `?t=name:value,name:value` names (percent-decoded)
    1xx                `100 Continue` and `103 Early Hints`, then the answer
    big-header         a 64 KiB response header, then the answer (`?kib=N`: N KiB)
    drip               the whole answer, one byte per 100 ms
    drip-body          the headers at once, then the body one byte per 100 ms

`exchange()` is a raw HTTP/1.1 client for the same tests: it shows 1xx answers, trailers and
resets, which http.client hides.

Run alone: `python3 tests/envoy/fault_upstream.py --port 18083` (prints the port).
"""

import argparse
import json
import select
import socket
import struct
import sys
import threading
import time
from urllib.parse import unquote

CARD = {
    "name": "worker-f",
    "description": "fault upstream card",
    "version": "3.1.0",
    "supportedInterfaces": [{"url": "https://wf.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {"streaming": True},
    "defaultInputModes": ["application/json"],
    "defaultOutputModes": ["application/json"],
    "skills": [{"id": "task.execute.v3", "name": "Execute", "description": "x", "tags": ["x"]}],
}
CARD_BYTES = json.dumps(CARD, separators=(",", ":")).encode()

KINDS = ("ok", "unique", "stale", "stall-headers", "stall-body", "reset-body", "close-body",
         "long-body", "long-body-valid", "chunked-trailers", "stale-trailers", "named-trailers", "1xx",
         "big-header", "drip", "drip-body")


def unique_card(n):
    """`CARD` with the description replaced by `n` in as many characters (`n` < 10**18)."""
    width = len(CARD["description"])
    return json.dumps(dict(CARD, description="u%0*d" % (width - 1, n)), separators=(",", ":")).encode()


DRIP_INTERVAL_S = 0.1
STALL_LIMIT_S = 60.0  # a stalled answer is abandoned after this even if the proxy never gives up


def _head(status, headers):
    lines = ["HTTP/1.1 %s" % status] + ["%s: %s" % h for h in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _card_headers(lag_ms="120", length=None, close=False):
    """`close`: the server closes the connection after this answer and says so (a pooled
    connection closed without notice fails the proxy's next request on it, an unrelated fault)."""
    headers = [("Content-Type", "application/json"), ("x-replica-lag-ms", lag_ms)]
    if length is not None:
        headers.append(("Content-Length", str(length)))
    if close:
        headers.append(("Connection", "close"))
    return headers


class FaultUpstream:
    """One listening socket, a thread per connection; `stop()` closes everything."""

    def __init__(self, host="127.0.0.1", port=0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.conns = set()
        self.seen = {}  # kind -> requests received
        self.served_unique = 0
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self._accept, name="fault-upstream", daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.stopping.set()
        # close() alone does not wake a thread blocked in accept() on Linux; shutdown() does.
        for end in (lambda: self.sock.shutdown(socket.SHUT_RDWR), self.sock.close):
            try:
                end()
            except OSError:
                pass
        with self.lock:
            conns = list(self.conns)
        for c in conns:
            try:
                c.close()
            except OSError:
                pass
        if self.thread:
            self.thread.join(5)

    def count(self, kind):
        with self.lock:
            return self.seen.get(kind, 0)

    # -- connections ---------------------------------------------------------------------
    def _accept(self):
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.conns.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        buf = b""
        try:
            while not self.stopping.is_set():
                while b"\r\n\r\n" not in buf:
                    data = self._recv(conn, STALL_LIMIT_S)
                    if not data:
                        return
                    buf += data
                head, _, buf = buf.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target = (lines[0].split(" ") + ["", ""])[:2]
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip() or 0)
                while len(buf) < length:
                    data = self._recv(conn, STALL_LIMIT_S)
                    if not data:
                        return
                    buf += data
                buf = buf[length:]
                segments = target.split("?", 1)[0].split("/")
                kind = segments[-2] if len(segments) >= 2 else ""
                with self.lock:
                    self.seen[kind] = self.seen.get(kind, 0) + 1
                query = target.split("?", 1)[1] if "?" in target else ""
                params = dict(p.partition("=")[::2] for p in query.split("&") if p)
                if not self._answer(conn, kind, method == "HEAD", params):
                    return
        except OSError:
            return
        finally:
            with self.lock:
                self.conns.discard(conn)
            try:
                conn.close()
            except OSError:
                pass

    def _recv(self, conn, limit_s):
        """Up to 64 KiB, or b"" once the peer closed, the server stops or `limit_s` passed."""
        deadline = time.monotonic() + limit_s
        while not self.stopping.is_set() and time.monotonic() < deadline:
            ready, _, _ = select.select([conn], [], [], 0.2)
            if ready:
                return conn.recv(65536)
        return b""

    def _hold(self, conn):
        """Sends nothing more; returns once the peer closed the connection (or a limit)."""
        while self._recv(conn, STALL_LIMIT_S):
            pass

    def _drip(self, conn, data):
        for i in range(len(data)):
            if self.stopping.wait(DRIP_INTERVAL_S):
                return False
            conn.sendall(data[i:i + 1])
        return True

    def _answer(self, conn, kind, head, params):
        """Writes the answer for `kind`; True if the connection may serve another request."""
        card = CARD_BYTES
        half = len(card) // 2
        if kind in ("ok", "stale", "unique"):
            if kind == "unique":
                with self.lock:
                    self.served_unique += 1
                    card = unique_card(self.served_unique)
            lag = "40000" if kind == "stale" else "120"
            conn.sendall(_head("200 OK", _card_headers(lag, len(card))) + (b"" if head else card))
            return True
        if kind == "stall-headers":
            conn.sendall(_head("200 OK", _card_headers(length=len(card))))
            self._hold(conn)
            return False
        if kind in ("stall-body", "reset-body", "close-body"):
            conn.sendall(_head("200 OK", _card_headers(length=len(card))) + card[:half])
            if kind == "stall-body":
                self._hold(conn)
            elif kind == "reset-body":
                time.sleep(0.01)  # let the half body reach the proxy first
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return False
        if kind == "long-body":
            conn.sendall(_head("200 OK", _card_headers(length=len(card) - 20, close=True)) + card)
            return False
        if kind == "long-body-valid":
            conn.sendall(_head("200 OK", _card_headers(length=len(card))) + card + b"X" * 64)
            return False
        if kind in ("chunked-trailers", "stale-trailers", "named-trailers"):
            lag = "40000" if kind == "stale-trailers" else "120"
            if kind == "named-trailers":
                trailers = [tuple(unquote(f).split(":", 1)) for f in params.get("t", "").split(",") if f]
            else:
                trailers = [("x-card-checksum", "1234"), ("a2a-card-verdict", "valid")]
            headers = _card_headers(lag) + [("Transfer-Encoding", "chunked"),
                                            ("Trailer", ", ".join(k for k, _ in trailers))]
            out = _head("200 OK", headers)
            for i in range(0, len(card), 64):
                piece = card[i:i + 64]
                out += b"%x\r\n" % len(piece) + piece + b"\r\n"
            out += b"0\r\n" + b"".join(b"%s: %s\r\n" % (k.encode(), v.encode()) for k, v in trailers) + b"\r\n"
            conn.sendall(out)
            return True
        if kind == "odd-fields":
            # `te`: Transfer-Encoding headers (comma-separated, each URL-quoted), the card chunked;
            # `ws`: a second lag header written with a space before its colon (RFC 9112 5.1).
            headers = _card_headers(close=True)
            if "ws" in params:
                headers.append(("x-replica-lag-ms ", unquote(params["ws"])))
            tes = [unquote(v) for v in params.get("te", "").split(",") if "te" in params]
            if not tes:
                headers.append(("Content-Length", str(len(card))))
                conn.sendall(_head("200 OK", headers) + card)
                return False
            headers += [("Transfer-Encoding", v) for v in tes]
            conn.sendall(_head("200 OK", headers) + b"%x\r\n" % len(card) + card + b"\r\n0\r\n\r\n")
            return False
        if kind == "1xx":
            conn.sendall(_head("100 Continue", []))
            time.sleep(0.005)
            conn.sendall(_head("103 Early Hints", [("Link", "</style.css>; rel=preload; as=style")]))
            time.sleep(0.005)
            conn.sendall(_head("200 OK", _card_headers(length=len(card))) + card)
            return True
        if kind == "big-header":
            size = 1024 * int(params.get("kib", "64"))
            headers = _card_headers(length=len(card), close=True) + [("x-padding", "p" * size)]
            conn.sendall(_head("200 OK", headers) + card)
            return False
        if kind == "drip":
            self._drip(conn, _head("200 OK", _card_headers(length=len(card), close=True)) + card)
            return False
        if kind == "drip-body":
            conn.sendall(_head("200 OK", _card_headers(length=len(card), close=True)))
            self._drip(conn, card)
            return False
        body = b'{"error":"unknown fault kind"}'
        conn.sendall(_head("404 Not Found", [("Content-Type", "application/json"),
                                             ("Content-Length", str(len(body)))]) + body)
        return True


# -- a raw HTTP/1.1 client (the tests and the soak's warm-up) ------------------------------------

class Exchange:
    """What the caller saw: informational answers, the final answer (or none) and how the
    stream ended (`complete`, `reset` or `closed` before the answer was complete)."""

    def __init__(self):
        self.informational = []  # [(status, headers)]
        self.status = None
        self.headers = []
        self.body = b""
        self.trailers = []
        self.end = None
        self.elapsed = None

    def header(self, name):
        values = [v for k, v in self.headers if k == name]
        return values[0] if values else None

    def __repr__(self):
        return "<%s %s %s body=%r trailers=%s 1xx=%s %.2fs>" % (
            self.end, self.status, [(k, v[:80]) for k, v in self.headers], self.body[:120], self.trailers,
            [s for s, _ in self.informational], self.elapsed or 0)


class _Reader:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buf += data

    def line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, _, self.buf = self.buf.partition(b"\r\n")
        return line.decode("latin-1")

    def exactly(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def rest(self):
        try:
            while True:
                self._fill()
        except EOFError:
            out, self.buf = self.buf, b""
            return out

    def fields(self):
        out = []
        while True:
            line = self.line()
            if not line:
                return out
            name, _, value = line.partition(":")
            out.append((name.strip().lower(), value.strip()))


def exchange(port, path, headers=(), timeout=10, method="GET"):
    ex = Exchange()
    started = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        lines = ["%s %s HTTP/1.1" % (method, path), "Host: cardgate.test"] + ["%s: %s" % h for h in headers]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        reader = _Reader(sock)
        try:
            while True:
                status = int(reader.line().split(" ")[1])
                fields = reader.fields()
                if 100 <= status < 200:
                    ex.informational.append((status, fields))
                    continue
                ex.status, ex.headers = status, fields
                break
            names = dict(fields)
            if method == "HEAD" or status in (204, 304):
                pass
            elif names.get("transfer-encoding", "").lower() == "chunked":
                while True:
                    size = int(reader.line().split(";")[0], 16)
                    if size == 0:
                        ex.trailers = reader.fields()
                        break
                    ex.body += reader.exactly(size)
                    reader.exactly(2)
            elif "content-length" in names:
                ex.body = reader.exactly(int(names["content-length"]))
            else:
                ex.body = reader.rest()
            ex.end = "complete"
        except EOFError:
            ex.end = "closed"
        except ConnectionResetError:
            ex.end = "reset"
        except socket.timeout:
            ex.end = "client timeout"
    finally:
        sock.close()
        ex.elapsed = time.monotonic() - started
    return ex


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    upstream = FaultUpstream(port=args.port).start()
    print(upstream.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        upstream.stop()
        sys.exit(0)


if __name__ == "__main__":
    main()
