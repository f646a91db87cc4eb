"""Configuration: every shipped Envoy config validates; invalid plugin configurations are refused
by Envoy with the exact field path in the log; a bad update keeps the running configuration."""

import glob
import json
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import harness

INVALID = [
    # (plugin configuration, the JSON Pointer the log must name)
    ('{"mode": "block"}', "/mode"),
    ('{"max_card_bytes": 0}', "/max_card_bytes"),
    ('{"max_card_bytes": 2000000}', "/max_card_bytes"),
    ('{"retry_after_s": -1}', "/retry_after_s"),
    ('{"allow_caller_relax": "no"}', "/allow_caller_relax"),
    ('{"well_known": 1}', "/well_known"),
    ('{"routes": {}}', "/routes"),
    ('{"routes": [{"card_pointer": "/card"}]}', "/routes/0"),
    ('{"routes": [{"path": "/ok"}, {"path": "agents/{id}"}]}', "/routes/1/path"),
    ('{"routes": [{"path": "/a/{id}/{id}"}]}', "/routes/0/path"),
    ('{"routes": [{"path": "/a/{id}", "agent": "w7"}]}', "/routes/0/agent"),
    # Third review: an empty fixed agent id names no agent; it was accepted (the defaults applied).
    ('{"routes": [{"path": "/a", "agent": ""}]}', "/routes/0/agent"),
    ('{"routes": [{"path": "/a", "card_pointer": "card"}]}', "/routes/0/card_pointer"),
    ('{"routes": [{"path": "/a", "watermark_pointer_unit": "s"}]}', "/routes/0/watermark_pointer_unit"),
    ('{"routes": [{"path": "/a", "watermark_pointer": "/w", "watermark_pointer_unit": "hours"}]}',
     "/routes/0/watermark_pointer_unit"),
    ('{"routes": [{"path": "/a", "watermark": {"lag_ms_header": "x lag"}}]}', "/routes/0/watermark/lag_ms_header"),
    # Twentieth session: a watermark header in the gate's own namespace (removed from every
    # upstream answer before it is read, so never seen) was accepted; every card went stale.
    ('{"routes": [{"path": "/a", "watermark": {"lag_ms_header": "A2A-Card-Lag-Ms"}}]}', "/routes/0/watermark/lag_ms_header"),
    ('{"watermark": {"synced_at_header": "a2a-card-synced"}}', "/watermark/synced_at_header"),
    ('{"watermark": {"consul": "yes"}}', "/watermark/consul"),
    ('{"watermark": {"etcd": true}}', "/watermark/etcd"),
    ('{"defaults": {"max_stale": "10"}}', "/defaults/max_stale"),
    ('{"agents": {"w7": {"pin": "sha256:abc"}}}', "/agents/w7/pin"),
    ('{"agents": {"w7": {"min_version": "latest"}}}', "/agents/w7/min_version"),
    ('{"unknown": 1}', "/unknown"),
    ('{"agents": {"Worker-7": {}, "worker-7": {"max_stale": "1s"}}}', "/agents/worker-7"),
    ('{"mode": "enforce", "mode": "observe"}', "/mode"),
    ("not json", "(the document)"),
    ('{"re_resolve": {}}', "/re_resolve"),
    ('{"re_resolve": {"cluster": ["primary", "primary"]}}', "/re_resolve/cluster/1"),
    ('{"re_resolve": {"cluster": "primary", "timeout": "2"}}', "/re_resolve/timeout"),
    ('{"re_resolve": {"cluster": "primary", "budget": {"per_second": 0}}}', "/re_resolve/budget/per_second"),
    ('{"routes": [{"path": "/a", "re_resolve": {"cluster": "p", "path": "/c/{id}"}}]}', "/routes/0/re_resolve/path"),
]


def config_with(plugin_config, port=18082):
    return harness.bootstrap(
        [harness.listener("ingress", "registry", [harness.wasm_filter("cardgate", plugin_config)])],
        [harness.cluster("registry", port)],
    )


@pytest.fixture(scope="module")
def validation_dir():
    path = harness.temp_workdir("cardgate-validate-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(harness.ROOT, "envoy", "*.yaml"))),
                         ids=os.path.basename)
def test_shipped_envoy_config_validates(path):
    # Shipped configs name the filter relative to the repository root.
    import subprocess
    proc = subprocess.run([harness.envoy_binary(), "--mode", "validate", "-c", path, "--disable-hot-restart",
                           "-l", "info", "--component-log-level", "wasm:info"],
                          cwd=harness.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    out = proc.stdout.decode("utf-8", "replace")
    assert proc.returncode == 0, out[-3000:]
    assert "configured: mode=" in out


# The bootstrap path (`--mode validate`, a static listener) for a sample: each run starts V8 and
# compiles the module (about 3 s here), so all of INVALID go through one running Envoy below.
VALIDATE_SAMPLE = [INVALID[0], INVALID[11], INVALID[24]]


def test_invalid_bootstrap_configurations_are_refused_with_their_field_path(validation_dir):
    def run(item):
        i, (plugin, pointer) = item
        return plugin, pointer, harness.validate(config_with(plugin), validation_dir, "invalid-%d" % i)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, enumerate(VALIDATE_SAMPLE)))
    assert len(results) == len(VALIDATE_SAMPLE)
    for plugin, pointer, (code, out) in results:
        assert code != 0, "accepted: %s" % plugin
        wanted = "invalid plugin configuration at %s:" % pointer
        assert wanted in out, "%s: %r not in log:\n%s" % (plugin, wanted, out[-2000:])


def test_valid_test_configuration_validates(validation_dir):
    code, out = harness.validate(config_with('{"mode": "observe", "defaults": {"max_stale": "5s"}}'),
                                 validation_dir, "valid")
    assert code == 0, out[-2000:]


class _LdsEnvoy:
    """One Envoy whose listener comes from a file (LDS): `update(plugin)` moves a new listener
    with that plugin configuration into place."""

    def __init__(self, registry, workdir, name, plugin):
        lds_dir = os.path.join(workdir, name)
        os.makedirs(lds_dir, exist_ok=True)
        self.lds = os.path.join(lds_dir, "listeners.json")
        self.port = _free_port()
        self.update(plugin)
        config = {
            "admin": {"address": {"socket_address": {"address": "127.0.0.1", "port_value": 0}}},
            "node": {"id": "cardgate-test", "cluster": "cardgate-test"},
            "dynamic_resources": {"lds_config": {"path_config_source": {"path": self.lds},
                                                 "resource_api_version": "V3"}},
            "static_resources": {"clusters": [harness.cluster("registry", registry.replica)]},
        }
        self.envoy = harness.Envoy(config, workdir, name)

    def update(self, plugin):
        listener = harness.listener("ingress", "registry", [harness.wasm_filter("cardgate", plugin)])
        listener["address"]["socket_address"]["port_value"] = self.port
        listener["@type"] = "type.googleapis.com/envoy.config.listener.v3.Listener"
        tmp = self.lds + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"resources": [listener]}, f)
        os.rename(tmp, self.lds)  # Envoy watches for moves into place

    def rejected(self):
        return self.envoy.stats().get("listener_manager.lds.update_rejected", 0)

    def update_is_rejected(self, plugin, pointer):
        """Moves `plugin` into place; waits until Envoy rejects it and its log names `pointer`."""
        before, log_at = self.rejected(), len(self.envoy.log())
        self.update(plugin)
        wanted = "invalid plugin configuration at %s:" % pointer
        harness.wait_until(lambda: self.rejected() > before and wanted in self.envoy.log()[log_at:],
                           20, "Envoy to reject %s naming %s" % (plugin, pointer))


def test_invalid_plugin_configurations_are_refused_with_their_field_path(registry, workdir):
    """Each invalid configuration as a listener update to one running Envoy: rejected, with the
    field's JSON Pointer in the log, and the configuration before keeps answering."""
    lds = _LdsEnvoy(registry, workdir, "lds-invalid", '{"defaults": {"max_stale": "10s"}}')
    try:
        lds.envoy.start(listeners=["ingress"])
        registry.register(registry.script("/lds/.well-known/agent-card.json", b"{}", 200, [("x-replica-lag-ms", "0")]))
        assert harness.request(lds.port, "/lds/.well-known/agent-card.json").status == 502  # missing fields
        assert len(INVALID) >= 10
        for plugin, pointer in INVALID:
            lds.update_is_rejected(plugin, pointer)
        assert lds.rejected() >= len(INVALID)
        assert harness.request(lds.port, "/lds/.well-known/agent-card.json").status == 502  # the old filter
    finally:
        lds.envoy.stop()


def test_bad_update_keeps_the_running_configuration(registry, workdir):
    """Listeners from a file (LDS): an update with an invalid plugin configuration is rejected
    by Envoy and the old filter keeps answering."""
    lds = _LdsEnvoy(registry, workdir, "lds", '{"defaults": {"max_stale": "10s"}}')
    try:
        lds.envoy.start(listeners=["ingress"])
        registry.register(registry.script("/lds/.well-known/agent-card.json", b"{}", 200, [("x-replica-lag-ms", "0")]))
        assert harness.request(lds.port, "/lds/.well-known/agent-card.json").status == 502  # missing fields: malformed
        lds.update_is_rejected('{"defaults": {"max_stale": "ten seconds"}}', "/defaults/max_stale")
        assert harness.request(lds.port, "/lds/.well-known/agent-card.json").status == 502  # the old filter still runs
    finally:
        lds.envoy.stop()


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _manifest_configs():
    import yaml
    out = []
    for path in sorted(glob.glob(os.path.join(harness.ROOT, "envoy", "k8s", "*.yaml"))):
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                if doc["kind"] == "WasmPlugin":
                    out.append((os.path.basename(path), doc["spec"]["pluginConfig"]))
                elif doc["kind"] == "EnvoyExtensionPolicy":
                    out.extend((os.path.basename(path), w["config"]) for w in doc["spec"]["wasm"])
    return out


def test_fleet_manifests_carry_valid_filter_configurations(validation_dir):
    configs = _manifest_configs()
    assert {name for name, _ in configs} == {"istio-wasmplugin.yaml", "envoy-gateway-extension-policy.yaml"}
    for i, (name, plugin) in enumerate(configs):
        code, out = harness.validate(config_with(json.dumps(plugin)), validation_dir, "manifest-%d" % i)
        assert code == 0, "%s: %s" % (name, out[-2000:])
        assert "configured: mode=" in out


def test_fleet_manifests_hold_response_headers():
    import yaml
    for path in sorted(glob.glob(os.path.join(harness.ROOT, "envoy", "k8s", "*.yaml"))):
        with open(path) as f:
            text = f.read()
        docs = list(yaml.safe_load_all(text))
        assert len(docs) == 2, path
        assert "allow_on_headers_stop_iteration" in json.dumps(docs[1]), path


def test_shipped_envoy_config_carries_the_incident_policy():
    import yaml
    with open(os.path.join(harness.ROOT, "envoy", "envoy.yaml")) as f:
        bootstrap = yaml.safe_load(f)
    http_filters = bootstrap["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0][
        "typed_config"]["http_filters"]
    wasm = next(f for f in http_filters if f["name"] == "envoy.filters.http.wasm")["typed_config"]["config"]
    assert wasm["allow_on_headers_stop_iteration"] is True
    plugin = json.loads(wasm["configuration"]["value"])
    with open(os.path.join(harness.ROOT, "policies", "incident.json")) as f:
        policy = json.load(f)
    assert plugin["defaults"] == policy["defaults"]
    assert plugin["agents"] == policy["agents"]
    assert "re_resolve" not in plugin
    # The re-resolving listener: the same policy and routes, plus re_resolve (without the
    # $comment members, which say the same thing).
    second = bootstrap["static_resources"]["listeners"][1]["filter_chains"][0]["filters"][0][
        "typed_config"]["http_filters"]
    wasm2 = next(f for f in second if f["name"] == "envoy.filters.http.wasm")["typed_config"]["config"]
    plugin2 = json.loads(wasm2["configuration"]["value"])

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "$comment"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    assert strip({k: v for k, v in plugin2.items() if k != "re_resolve"}) == strip(plugin)
    assert plugin2["re_resolve"]["cluster"] == "primary"
    clusters = {c["name"] for c in bootstrap["static_resources"]["clusters"]}
    assert {"registry_edge", "primary"} <= clusters


def test_shipped_envoy_config_normalises_paths_as_the_tests_do():
    # tests/envoy/test_http_semantics.py runs its "normalized" listener with these options.
    import yaml
    with open(os.path.join(harness.ROOT, "envoy", "envoy.yaml")) as f:
        bootstrap = yaml.safe_load(f)
    hcm = bootstrap["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]["typed_config"]
    assert {k: hcm.get(k) for k in harness.SHIPPED_PATH_OPTIONS} == harness.SHIPPED_PATH_OPTIONS
