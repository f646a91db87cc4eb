"""The SDK differential's independent adversarial corpus (tests/sdk_parity/gen_indep.py) through a
real Envoy: for each card and three requirements, the filter's answer (status, reason codes, card
hash) must be the native CLI's decision on the same bytes and watermark.

The shared vectors pin the decisions every runtime must reach; this adds a seeded sample of
cards written from the SDK sources (truthiness and number spellings, legacy and proto shapes,
every protobuf field's types, look-alike names, bulk and depth), served as an upstream would
serve them (raw bytes where the generator gives them). Bigger runs: CARDGATE_INDEP_CARDS=3000.
"""

import json
import os
import random
import shutil
import subprocess
import sys

import pytest

import harness
from test_vectors import view_of_decision, view_of_response

sys.path.insert(0, os.path.join(harness.ROOT, "tests", "sdk_parity"))
import gen_indep  # noqa: E402
from sdk_parity import entry_bytes as card_bytes  # noqa: E402

CLI = os.path.join(harness.ROOT, "target", "release", "cardgate")
CARDS = int(os.environ.get("CARDGATE_INDEP_CARDS", "300"))
SEED = 14
# Listener name -> the rule's `require` (max_stale 10 s each; every card is served with lag 0).
REQUIREMENTS = {
    "plain": [],
    "jsonrpc": ["binding:JSONRPC", "protocol:1.0"],
    "streaming": ["capability:streaming"],
}


def sample():
    entries = gen_indep.generate(seed=SEED, mixed=300)
    return random.Random(SEED).sample(entries, min(CARDS, len(entries)))


@pytest.fixture(scope="module")
def indep_envoy():
    # A workdir of its own: the session registry's log has the same name.
    workdir = harness.temp_workdir("cardgate-indep-")
    registry = harness.Registry(workdir).start()
    entries = sample()
    specs = [registry.script("/indep/%d/card" % i, card_bytes(e), 200,
                             [("Content-Type", "application/json"), ("x-replica-lag-ms", "0")])
             for i, e in enumerate(entries)]
    for i in range(0, len(specs), 50):
        registry.register(*specs[i : i + 50])
    listeners = [
        harness.listener(name, "registry", [harness.wasm_filter(
            "cardgate_" + name,
            {"defaults": {"max_stale": "10s", "require": require}, "routes": [{"path": "/indep/{id}/card"}]})])
        for name, require in REQUIREMENTS.items()
    ]
    envoy = harness.Envoy(harness.bootstrap(listeners, [harness.cluster("registry", registry.replica)]),
                          workdir, "indep")
    try:
        envoy.start()
        yield envoy, entries
    finally:
        envoy.stop()
        registry.stop()
        if not os.environ.get("CARDGATE_KEEP_LOGS"):
            shutil.rmtree(workdir, ignore_errors=True)


def native(card, require):
    args = [CLI, "check", "-", "--max-stale", "10s", "--lag-ms", "0"]
    for capability in require:
        args += ["--require", capability]
    proc = subprocess.run(args, input=card, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    assert proc.returncode in (0, 1), proc.stderr.decode("utf-8", "replace")
    return view_of_decision(json.loads(proc.stdout))


def test_independent_corpus_through_envoy_matches_native(indep_envoy):
    envoy, entries = indep_envoy
    assert os.path.exists(CLI), "%s is missing: run `cargo build --release --bin cardgate`" % CLI
    differences, valid, rejected = [], 0, 0
    for i, entry in enumerate(entries):
        card = card_bytes(entry)
        for name, require in REQUIREMENTS.items():
            got = view_of_response(harness.request(envoy.ports[name], "/indep/%d/card" % i, "GET", None))
            want = native(card, require)
            view = lambda d: (d["status"], d["reason_codes"], d["card_hash"])  # noqa: E731
            if view(got) != view(want):
                differences.append("%s | %s | Envoy %s | CLI %s" % (entry["label"][:100], name, view(got), view(want)))
            valid += got["status"] == 200
            rejected += got["status"] != 200
    # The sample must exercise both answers under each rule, or it checks little.
    assert valid > len(entries) // 4 and rejected > len(entries) // 4, (valid, rejected)
    assert not differences, "\n".join(differences[:20])
