"""A loopback registry whose answers are set per path by the scenario driver (raw HTTP/1.1)."""
import socket, threading, json, sys

ROUTES = {}  # path -> (status_line, [(name, value)], body bytes)

def handle(conn):
    try:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        line = data.split(b"\r\n", 1)[0].decode("latin-1")
        method, path, _ = line.split(" ", 2)
        status, headers, body, raw = ROUTES.get(path, ("404 Not Found", [], b"nf", False))
        if raw:
            if body.startswith(b"HANG"):
                import time
                conn.sendall(body[4:])
                time.sleep(20)
                return
            conn.sendall(body)
            return
        out = f"HTTP/1.1 {status}\r\n".encode()
        names = {n.lower() for n, _ in headers}
        for n, v in headers:
            out += n.encode("latin-1") + b": " + v.encode("latin-1") + b"\r\n"
        if "content-length" not in names and "transfer-encoding" not in names:
            out += f"content-length: {len(body)}\r\n".encode()
        out += b"connection: close\r\n\r\n"
        if method != "HEAD":
            out += body
        conn.sendall(out)
    except Exception as e:  # noqa
        print("server error", e, file=sys.stderr)
    finally:
        conn.close()

def serve(port=0):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(64)
    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=handle, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    return s.getsockname()[1]
