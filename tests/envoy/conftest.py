"""Fixtures: one fixture registry and one Envoy (several listeners, one per filter setting) per
session, against the Envoy named by CARDGATE_ENVOY (default: .tools/envoy-1.40.0)."""

import base64
import glob
import hashlib
import json
import os
import shutil
import sys

import pytest
import rfc8785

sys.path.insert(0, os.path.dirname(__file__))

import harness  # noqa: E402

ALL_WATERMARKS = {"lag_ms_header": "x-replica-lag-ms", "lag_s_header": "x-replica-lag-s",
                  "synced_at_header": "x-registry-synced-at", "consul": True, "age": True}


def load_vectors():
    """Every case of tests/vectors/*.json as (case id, file, case)."""
    out = []
    for path in sorted(glob.glob(os.path.join(harness.ROOT, "tests", "vectors", "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        stem = os.path.splitext(os.path.basename(path))[0]
        for i, case in enumerate(doc["cases"]):
            out.append(("%s-%d" % (stem, i), os.path.basename(path), case))
    return out


def oracle_hash(card):
    """cardgate's card hash computed independently: SHA-256 of the card less `signatures` in
    PyPI rfc8785's canonical form."""
    unsigned = {k: v for k, v in card.items() if k != "signatures"}
    return "sha256:" + hashlib.sha256(rfc8785.dumps(unsigned)).hexdigest()


def card_bytes(case):
    if "card" in case:
        return json.dumps(case["card"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if "card_text" in case:
        return case["card_text"].encode("utf-8")
    return base64.b64decode(case["card_base64"])


def plugin_config(**settings):
    """The test plugin configuration: a policy (incident rule + one rule per vector case) and
    the card routes the tests use."""
    agents = {"worker-7": {"require": ["task.execute.v3"], "max_stale": "10s"},
              "Mixed-Case-7": {"require": ["task.execute.v3"], "max_stale": "10s"}}
    for case_id, _, case in load_vectors():
        agents[case_id] = case["requirement"]
    config = {
        "$comment": "e2e test configuration",
        "defaults": {"max_stale": "10s"},
        "agents": agents,
        "routes": [
            {"path": "/agents/{id}/card"},
            {"path": "/v1/resolve/{id}", "card_pointer": "/card",
             "watermark_pointer": "/replication/lag_ms", "watermark": {"age": True}},
            {"path": "/vectors/{id}/card", "watermark": ALL_WATERMARKS},
            # Vector cases whose watermark is a JSON value no header can carry (true, {}, [...])
            # are served inside an envelope, the value at /watermark.
            {"path": "/vector-envelopes/ms/{id}/card", "card_pointer": "/card", "watermark": {},
             "watermark_pointer": "/watermark", "watermark_pointer_unit": "ms"},
            {"path": "/vector-envelopes/s/{id}/card", "card_pointer": "/card", "watermark": {},
             "watermark_pointer": "/watermark", "watermark_pointer_unit": "s"},
        ],
        "retry_after_s": 5,
    }
    config.update(settings)
    return config


LISTENERS = {
    "enforce": {},
    "observe": {"mode": "observe"},
    "relax": {"allow_caller_relax": True},
    # No defaults: each vector case's rule is exactly its requirement.
    "vectors": {"defaults": {}},
    # worker-7's rule, and looser rules (and defaults) under ids a registry may read as worker-7.
    "variants": {"defaults": {"max_stale": "1h"}, "agents": {"worker-7": {"require": ["task.execute.v3"], "max_stale": "10s"},
                            "worker-7 ": {"max_stale": "1h"}, "w\u00f6rker-7": {"max_stale": "1h"},
                            "worker-7?x": {"max_stale": "1h"},
                            # An id the fold does not cover: a collation may read `hub` as it.
                            "\u0127ub": {"require": ["task.execute.v3"], "max_stale": "10s"}}},
}


@pytest.fixture(scope="session")
def workdir():
    path = harness.temp_workdir()
    yield path
    if os.environ.get("CARDGATE_KEEP_LOGS"):
        print("logs kept in", path)
    else:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def registry(workdir):
    reg = harness.Registry(workdir).start()
    yield reg
    reg.stop()


@pytest.fixture(scope="session")
def envoy(registry, workdir):
    listeners = [
        harness.listener(name, "registry_edge", [harness.wasm_filter("cardgate_" + name, plugin_config(**settings))])
        for name, settings in LISTENERS.items()
    ]
    # The enforce filter behind the HTTP connection manager options envoy/envoy.yaml turns on.
    listeners.append(harness.listener("normalized", "registry_edge",
                                      [harness.wasm_filter("cardgate_normalized", plugin_config())],
                                      harness.SHIPPED_PATH_OPTIONS))
    listeners.append(harness.listener("plain", "registry_edge", []))
    config = harness.bootstrap(listeners, [harness.cluster("registry_edge", registry.replica)])
    proc = harness.Envoy(config, workdir, "gate")
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()


class Gate:
    """Requests through one listener of the session Envoy."""

    def __init__(self, envoy, registry, listener):
        self.envoy = envoy
        self.registry = registry
        self.port = envoy.ports[listener]

    def get(self, path, headers=None, method="GET"):
        return harness.request(self.port, path, method, headers)


@pytest.fixture
def gate(envoy, registry):
    return Gate(envoy, registry, "enforce")


@pytest.fixture
def variant_gate(envoy, registry):
    return Gate(envoy, registry, "variants")


@pytest.fixture
def observe_gate(envoy, registry):
    return Gate(envoy, registry, "observe")


@pytest.fixture
def relax_gate(envoy, registry):
    return Gate(envoy, registry, "relax")


@pytest.fixture
def vector_gate(envoy, registry):
    return Gate(envoy, registry, "vectors")


@pytest.fixture
def normalized_gate(envoy, registry):
    return Gate(envoy, registry, "normalized")


@pytest.fixture
def plain(envoy, registry):
    return Gate(envoy, registry, "plain")
