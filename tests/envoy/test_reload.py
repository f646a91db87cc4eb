"""Configuration pushed while traffic flows (file-based xDS): a filter configuration with one
mistake is refused, the log names the path of the mistake, and the running configuration keeps
giving the same verdicts to every request; a good one then takes effect.

Two ways of pushing, both watched files on disk: the whole listener (LDS, `path_config_source`
with a `watched_directory`, as a Kubernetes ConfigMap mount does) and the filter alone (ECDS:
the HTTP filter's `config_discovery`). test_config.py covers a bad LDS update without traffic.
"""

import json
import os
import socket
import threading
import time

import pytest

import harness

WASM_TYPE = "type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm"

# Configuration A: a 40 s old card is stale (503). B: the tolerance is 60 s, so it passes.
ROUTES = [{"path": "/reload/{id}/card"}]
GOOD_A = {"defaults": {"max_stale": "10s"}, "routes": ROUTES}
GOOD_B = {"defaults": {"max_stale": "60s"}, "routes": ROUTES}
# B with one mistake: accepting it would also let the stale card through.
BAD = {"defaults": {"max_stale": "60s"}, "agents": {"w": {"min_version": "latest"}}, "routes": ROUTES}
BAD_PATH = "/agents/w/min_version"

PATHS = {"fresh": "/reload/fresh/card", "stale": "/reload/stale/card"}
EXPECT_A = {"fresh": (200, "valid"), "stale": (503, "rejected")}
EXPECT_B = {"fresh": (200, "valid"), "stale": (200, "valid")}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write(path, value):
    """Atomic replace: Envoy watches for a file moved into place."""
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:
        json.dump(value, f)
    os.rename(tmp, path)


class Traffic:
    """Requests alternating between the fresh and the stale card, one new connection each,
    until stopped; records (monotonic time, kind, status, verdict or error)."""

    def __init__(self, port):
        self.port = port
        self.records = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(15)

    def _run(self):
        i = 0
        while not self.stopping.is_set():
            kind = ("fresh", "stale")[i % 2]
            i += 1
            try:
                resp = harness.request(self.port, PATHS[kind], timeout=5)
                outcome = (resp.status, resp.header("a2a-card-verdict"))
            except OSError as e:
                outcome = ("error", repr(e))
            self.records.append((time.monotonic(), kind, outcome))
            time.sleep(0.01)

    def since(self, t):
        return [r for r in self.records if r[0] >= t]

    def wait_for(self, count, timeout=10):
        target = len(self.records) + count
        harness.wait_until(lambda: len(self.records) >= target, timeout, "%d more requests" % count)


def _counter(envoy, name):
    return envoy.stats().get(name, 0)


def _check_push(envoy, traffic, push, rejected_stat, accepted_stat):
    """A: baseline; BAD pushed under traffic (refused, log names the path, verdicts unchanged);
    B pushed (accepted, the stale card now passes)."""
    traffic.wait_for(10)
    rejected = _counter(envoy, rejected_stat)
    t_bad = time.monotonic()
    push(BAD)
    harness.wait_until(lambda: _counter(envoy, rejected_stat) > rejected, 15, "Envoy to refuse the update")
    traffic.wait_for(20)
    assert "invalid plugin configuration at %s:" % BAD_PATH in envoy.log()
    until_good = time.monotonic()
    accepted = _counter(envoy, accepted_stat)
    push(GOOD_B)
    harness.wait_until(lambda: _counter(envoy, accepted_stat) > accepted, 15, "Envoy to take the update")

    def switched():
        recent = traffic.records[-6:]
        return len(recent) == 6 and all(outcome == EXPECT_B[kind] for _, kind, outcome in recent)

    harness.wait_until(switched, 15, "configuration B to answer")
    traffic.wait_for(10)

    # Before B was pushed: every answer was A's, during and after the refused push.
    before = [r for r in traffic.records if r[0] < until_good]
    assert len([r for r in before if r[0] >= t_bad]) >= 20
    wrong = [r for r in before if r[2] != EXPECT_A[r[1]]]
    assert not wrong, wrong[:5]
    # Around the good push every answer is A's or B's (no errors, no other status); B's last.
    after = traffic.since(until_good)
    odd = [r for r in after if r[2] not in (EXPECT_A[r[1]], EXPECT_B[r[1]])]
    assert not odd, odd[:5]
    assert all(r[2] == EXPECT_B[r[1]] for r in after[-6:])


@pytest.fixture
def reload_registry(registry):
    card = json.dumps({
        "name": "worker-r", "version": "1.0.0",
        "supportedInterfaces": [{"url": "https://wr.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["s"]}],
    }).encode()
    registry.register(
        registry.script(PATHS["fresh"], card, 200, [("Content-Type", "application/json"), ("x-replica-lag-ms", "250")]),
        registry.script(PATHS["stale"], card, 200, [("Content-Type", "application/json"), ("x-replica-lag-ms", "40000")]),
    )
    return registry


def test_lds_push_under_traffic(reload_registry, workdir):
    """The whole listener from a watched directory: a bad filter configuration in it makes
    Envoy refuse the listener update; the running listener keeps its verdicts."""
    conf_dir = os.path.join(workdir, "reload-lds")
    os.makedirs(conf_dir, exist_ok=True)
    lds = os.path.join(conf_dir, "listeners.json")
    port = _free_port()

    def push(plugin):
        listener = harness.listener("ingress", "registry", [harness.wasm_filter("cardgate", plugin)])
        listener["address"]["socket_address"]["port_value"] = port
        listener["@type"] = "type.googleapis.com/envoy.config.listener.v3.Listener"
        _write(lds, {"resources": [listener]})

    push(GOOD_A)
    config = {
        "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}}},
        "node": {"id": "cardgate-reload", "cluster": "cardgate-reload"},
        "dynamic_resources": {"lds_config": {
            "path_config_source": {"path": lds, "watched_directory": {"path": conf_dir}},
            "resource_api_version": "V3"}},
        "static_resources": {"clusters": [harness.cluster("registry", reload_registry.replica)]},
    }
    envoy = harness.Envoy(config, workdir, "reload-lds")
    try:
        envoy.start(listeners=["ingress"])
        with Traffic(port) as traffic:
            _check_push(envoy, traffic, push, "listener_manager.lds.update_rejected",
                        "listener_manager.lds.update_success")
    finally:
        envoy.stop()


def test_ecds_push_under_traffic(reload_registry, workdir):
    """The filter alone (ECDS from a watched file): a bad configuration is refused and the
    filter keeps the last good one; the listener itself never changes."""
    conf_dir = os.path.join(workdir, "reload-ecds")
    os.makedirs(conf_dir, exist_ok=True)
    ecds = os.path.join(conf_dir, "cardgate.json")

    def push(plugin):
        typed = harness.wasm_filter("cardgate", plugin)["typed_config"]
        _write(ecds, {"resources": [{
            "@type": "type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig",
            "name": "cardgate", "typed_config": typed}]})

    push(GOOD_A)
    discovered = {"name": "cardgate", "config_discovery": {
        "config_source": {"path_config_source": {"path": ecds, "watched_directory": {"path": conf_dir}},
                          "resource_api_version": "V3"},
        "type_urls": [WASM_TYPE]}}
    listener = harness.listener("ingress", "registry", [discovered])
    config = harness.bootstrap([listener], [harness.cluster("registry", reload_registry.replica)])
    config["node"] = {"id": "cardgate-reload", "cluster": "cardgate-reload"}
    envoy = harness.Envoy(config, workdir, "reload-ecds")
    try:
        envoy.start()
        port = envoy.ports["ingress"]
        prefix = "extension_config_discovery.http_filter.cardgate."
        harness.wait_until(lambda: _counter(envoy, prefix + "config_reload") >= 1, 15, "the first filter configuration")
        with Traffic(port) as traffic:
            _check_push(envoy, traffic, push, prefix + "config_fail", prefix + "config_reload")
    finally:
        envoy.stop()
