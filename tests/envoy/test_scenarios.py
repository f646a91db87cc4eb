"""Scenarios from the independent scenario review (tests/scenarios/README.md) through a real
Envoy: the same answers as tests/cli.rs (its "scenarios from the review" section) and tests/node/scenarios.test.mjs serve
through `cardgate resolve` and the npm package, with the same decision (DESIGN.md, "Watermark
headers" and "Observation"), and the encodings where the runtimes are documented to differ."""

import os

import pytest

import harness

from test_http_semantics import fresh_id, script

HEADER_SCENARIOS = [
    ("dup", [("X-Replica-Lag-Ms", "0"), ("x-replica-lag-ms", "0")], "watermark_invalid"),
    ("age", [("x-replica-lag-ms", "5000"), ("Age", "6")], "watermark_exceeded"),
    ("agedup", [("x-replica-lag-ms", "0"), ("Age", "1"), ("age", "1")], "watermark_invalid"),
    ("ageonly", [("Age", "0")], "freshness_unverifiable"),
    ("follower", [("X-Consul-LastContact", "0"), ("X-Consul-KnownLeader", "false")], "leader_unknown"),
    ("empty", [("x-replica-lag-ms", "")], "watermark_invalid"),
    ("neg", [("x-replica-lag-ms", "-1")], "watermark_invalid"),
    ("both", [("x-replica-lag-ms", "0"), ("x-replica-lag-s", "40")], "watermark_contradictory"),
]


@pytest.mark.parametrize("name,headers,code", HEADER_SCENARIOS, ids=[c[0] for c in HEADER_SCENARIOS])
def test_watermark_header_scenarios_decide_as_the_cli_and_node(gate, name, headers, code):
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), lag_ms=None, headers=headers)
    resp = gate.get(path)
    assert resp.status == 503, resp
    doc = resp.json()
    assert doc["error_class"] == "stale_agent_card", doc
    assert [r["code"] for r in doc["reasons"]] == [code], doc
    assert resp.header("a2a-card-verdict") != "valid"


# (An empty Content-Encoding lists no coding: read as none here, in Node and by the CLI.)
# A Content-Encoding the gate cannot read fails closed in Envoy (as in `cardgate resolve`); the
# npm package reads what fetch hands it (an unknown coding passes through undecoded).
@pytest.mark.parametrize("encoding", ["x-custom", "gzip, identity"])
def test_an_unknown_content_encoding_is_body_encoded(gate, encoding):
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), lag_ms="0",
                  headers=[("Content-Encoding", encoding)])
    resp = gate.get(path)
    assert resp.status == 502, resp
    assert [r["code"] for r in resp.json()["reasons"]] == ["body_encoded"], resp


def test_an_empty_content_encoding_lists_no_coding(gate):
    path = script(gate.registry, "/agents/%s/card" % fresh_id(), lag_ms="0", headers=[("Content-Encoding", "")])
    resp = gate.get(path)
    assert resp.status == 200, resp
    assert resp.header("a2a-card-verdict") == "valid", resp


# -- second scenario review (tests/scenarios/README.md, scn2_shipped.py) ---------------------
# The shipped envoy/envoy.yaml reads the conventional watermark headers, as `cardgate resolve` and
# the npm package's resolveAgentCard do (DESIGN.md, "Watermark headers"). It used to read only
# x-replica-lag-ms, Consul and Age: a registry answering `x-replica-lag-ms: 0` beside a
# contradicting `x-replica-lag-s: 40` or a `x-replica-synced-at` an hour ahead chose which figure
# the gate believed, and the card was stamped valid there while the CLI and npm refused it.

@pytest.fixture(scope="module")
def shipped_gate(registry, workdir):
    from test_shipped_routes import shipped_for_test
    proc = harness.Envoy(shipped_for_test(registry), workdir, "shipped-scn2")
    try:
        proc.start()
        yield proc
    finally:
        proc.stop()


def _in_an_hour():
    import datetime
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


SHIPPED_WATERMARK_SCENARIOS = [
    ("lag_s_contradicts", [("x-replica-lag-ms", "0"), ("x-replica-lag-s", "40")], 503, ["watermark_contradictory"]),
    ("synced_at_ahead", [("x-replica-lag-ms", "0"), ("x-replica-synced-at", None)], 503, ["watermark_in_future"]),
    ("lag_s_alone", [("x-replica-lag-s", "0")], 200, []),
]


@pytest.mark.parametrize("name,headers,status,codes", SHIPPED_WATERMARK_SCENARIOS,
                         ids=[c[0] for c in SHIPPED_WATERMARK_SCENARIOS])
def test_shipped_config_reads_every_conventional_watermark_header(shipped_gate, registry, name, headers, status, codes):
    headers = [(n, v if v is not None else _in_an_hour()) for n, v in headers]
    path = script(registry, "/agents/%s/card" % fresh_id(), lag_ms=None, headers=headers)
    resp = harness.request(shipped_gate.ports["registry_ingress"], path)
    assert resp.status == status, resp
    if status == 200:
        assert resp.header("a2a-card-verdict") == "valid", resp
    else:
        assert [r["code"] for r in resp.json()["reasons"]] == codes, resp
        assert resp.header("a2a-card-verdict") != "valid"


# A policy nested deeper than a policy may be (32 levels: `cardgate policy check`, npm
# checkPolicy) is refused by on_configure at the same place and for the same reason; the filter
# read its configuration with the card limit (64) and named another member for 33 to 64 levels.
def test_a_configuration_nested_past_the_policy_limit_is_refused_as_the_cli_refuses_it(workdir):
    import re
    import subprocess
    import tempfile
    plugin = '{"defaults": {}, "agents": {"w": {"$comment": ' + "[" * 40 + "]" * 40 + "}}}"
    code, out = harness.validate(harness.bootstrap(
        [harness.listener("l", "up", [harness.wasm_filter("cg", plugin)])], [harness.cluster("up", 9)]),
        workdir, "scn2-deep")
    assert code != 0, out
    found = re.search(r"invalid plugin configuration at (\S*): (.*)", out)
    assert found, out
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        f.write(plugin)
        f.flush()
        cli = subprocess.run([os.path.join(harness.ROOT, "target", "release", "cardgate"), "policy", "check", f.name],
                             capture_output=True, text=True)
    assert cli.returncode == 2, cli
    pointer = re.search(r"invalid policy at (\S*): ", cli.stderr).group(1)
    assert found.group(1) == pointer, (found.group(0), cli.stderr)
    assert "nesting deeper than 32 levels" in found.group(2), found.group(0)


# The shipped envelope route (/v1/resolve/{id}) reads the listener's watermark headers beside the
# envelope's figure (DESIGN.md, "Watermark headers": a value from a JSON envelope that disagrees
# with a header feeding the same figure is invalid). It used to read only `Age` there, so an
# envelope saying 0 ms beside `x-replica-lag-s: 40` or `x-replica-lag-ms: 40000` was stamped valid.
SHIPPED_ENVELOPE_SCENARIOS = [
    ("envelope_0_header_lag_s_40", [("x-replica-lag-s", "40")], 503),
    ("envelope_0_header_lag_ms_40000", [("x-replica-lag-ms", "40000")], 503),
    ("envelope_0_header_lag_ms_0", [("x-replica-lag-ms", "0")], 200),
    ("envelope_0_no_header", [], 200),
]


@pytest.mark.parametrize("name,headers,status", SHIPPED_ENVELOPE_SCENARIOS,
                         ids=[c[0] for c in SHIPPED_ENVELOPE_SCENARIOS])
def test_shipped_envelope_route_reads_the_watermark_headers_too(shipped_gate, registry, name, headers, status):
    from test_responses import CARD
    import json
    envelope = json.dumps({"card": CARD, "replication": {"lag_ms": 0}}).encode()
    path = script(registry, "/v1/resolve/%s" % fresh_id(), body=envelope, lag_ms=None, headers=headers)
    resp = harness.request(shipped_gate.ports["registry_ingress"], path)
    assert resp.status == status, resp
    if status == 200:
        assert resp.header("a2a-card-verdict") == "valid", resp
    else:
        assert resp.header("a2a-card-verdict") != "valid", resp
        codes = [r["code"] for r in resp.json()["reasons"]]
        assert codes and all(c.startswith("watermark_") for c in codes), resp
