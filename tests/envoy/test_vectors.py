"""Every case of tests/vectors/ replayed through Envoy must give the native decision.

Each case's card bytes are served by the fixture registry at /vectors/<case-id>/card with its
observation as response headers (x-replica-lag-ms, x-replica-lag-s, x-registry-synced-at,
X-Consul-LastContact, X-Consul-KnownLeader, Age); the test plugin configuration holds each
case's requirement as the policy rule of agent <case-id>. The native decision comes from the
CLI (`target/release/cardgate check --policy ... --agent <case-id>`) with the same inputs.

The proxy's clock is real, so a `synced_at` case is translated: the registry stamps
`synced_at' = its clock - (now - synced_at)` when it answers. For those cases the staleness
figure (a few ms larger through Envoy) is not compared, and two kinds of cases cannot be
replayed with a real clock: a lag within 50 ms of `max_stale` or of the 1000 ms skew
(Envoy evaluates a little later than the registry stamps, and both clocks are read in whole
milliseconds), and `synced_at` without `now`
(a proxy always has a clock). A lag that is a JSON value no header can carry (true, an
object, an array) is served inside an envelope at /vector-envelopes/<unit>/<case-id>/card with
the value at /watermark; other such values are skipped. Each skip says why. A case with
`headers` is served with exactly those response headers and compared with its `expect` (the
CLI takes no response headers; tests/vectors.rs maps them through the core's WatermarkSources).
"""

import datetime
import json
import os
import re
import subprocess
import warnings

import pytest

import harness
from conftest import card_bytes, load_vectors

CLI = os.path.join(harness.ROOT, "target", "release", "cardgate")
HEADER_OF = {
    "lag_ms": "x-replica-lag-ms",
    "lag_s": "x-replica-lag-s",
    "consul_last_contact_ms": "X-Consul-LastContact",
    "consul_known_leader": "X-Consul-KnownLeader",
    "age_s": "Age",
}
VECTORS = load_vectors()


# What DESIGN.md reads as a timestamp (RFC 3339 date-time); Python's fromisoformat also takes
# forms the gate refuses (no offset, a space for T, an offset's minutes past 59, which it
# carries into the hour), which must be sent as they are.
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)")


def parse_time(text):
    if not RFC3339.fullmatch(text.strip(" \t")):
        return None
    try:
        return datetime.datetime.fromisoformat(text.strip(" \t").replace("z", "Z"))
    except ValueError:
        return None


def header_text(value):
    """The header form of an observation value, or None when a header cannot carry it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    text = str(value) if isinstance(value, int) else repr(value)
    return None if "e" in text.lower() else text


ENVELOPE_UNIT = {"lag_ms": "ms", "lag_s": "s"}


def replay_plan(case):
    """(registry headers, extra spec members, skip reason or None)."""
    obs = dict(case.get("observation", {}))
    headers, extra = [("Content-Type", "application/json")], {}
    if "headers" in case:
        # The case's own response headers (conventional names; values are latin-1 octets),
        # replacing the default media type when they set one. Its observation is at most `now`.
        given = [tuple(h) for h in case["headers"]]
        if any(k.lower() == "x-replica-synced-at" for k, _ in given) and "now" in obs:
            return None, None, "a synced-at header read against the case's fixed now: a proxy's clock is real"
        if any(k.lower() == "content-type" for k, _ in given):
            headers = []
        return headers + given, extra, None
    for key, value in obs.items():
        if key == "now":
            continue
        text = header_text(value)
        if text is None:
            if key in ENVELOPE_UNIT and set(obs) - {"now"} == {key}:
                extra["envelope"] = (ENVELOPE_UNIT[key], value)
                continue
            return None, None, "observation %s=%r cannot be sent as a header or an envelope" % (key, value)
        if key == "synced_at":
            continue
        headers.append((HEADER_OF[key], text))
    if "synced_at" in obs:
        synced = parse_time(obs["synced_at"]) if isinstance(obs["synced_at"], str) else None
        if "now" not in obs:
            return None, None, "synced_at without now: a proxy always has a clock"
        now = parse_time(obs["now"])
        if synced is None or now is None:
            headers.append(("x-registry-synced-at", obs["synced_at"]))  # unparseable: sent as is
        else:
            lag_ms = (now - synced).total_seconds() * 1000.0
            max_stale = case["requirement"].get("max_stale")
            max_ms = _duration_ms(max_stale) if max_stale else None
            if max_ms is not None and abs(max_ms - lag_ms) <= 50:
                return None, None, "lag within 50 ms of max_stale: a real clock cannot hit the boundary"
            if abs(-lag_ms - 1000) <= 50:
                return None, None, "future offset within 50 ms of the 1000 ms skew: a real clock cannot hit the boundary"
            extra["synced_at_lag_ms"] = lag_ms
    return headers, extra, None


def _duration_ms(text):
    units = {"ms": 1, "s": 1000, "m": 60000, "h": 3600000}
    for suffix in ("ms", "s", "m", "h"):
        if text.endswith(suffix) and text[: -len(suffix)].isdigit():
            return int(text[: -len(suffix)]) * units[suffix]
    return None


def native_decision(case_id, case, policy_path):
    """The native CLI's decision JSON text for the case, as the filter's policy rule sees it."""
    args = [CLI, "check", "-", "--policy", policy_path, "--agent", case_id]
    # What the filter reads: header text for every value a header carries (the envelope's
    # JSON values stay as they are).
    obs = {k: (v if k == "now" or header_text(v) is None else header_text(v)) for k, v in case.get("observation", {}).items()}
    args += ["--observation", json.dumps(obs)]
    proc = subprocess.run(args, input=card_bytes(case), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return proc.stdout.decode("utf-8").rstrip("\n")


def view_of_decision(d):
    return {
        "status": d["status"],
        "error_class": d.get("error_class"),
        "reason_codes": [r["code"] for r in d.get("reasons", [])],
        "missing_capabilities": d.get("missing_capabilities", []),
        "card_hash": d.get("card_hash"),
        "staleness_ms": d.get("staleness_ms"),
        "freshness": d.get("freshness"),
    }


def view_of_response(resp):
    if resp.status == 200:
        staleness = resp.header("a2a-card-staleness-ms")
        assert resp.header("a2a-card-verdict") == "valid", resp
        return {
            "status": 200,
            "error_class": None,
            "reason_codes": [],
            "missing_capabilities": [],
            "card_hash": resp.header("a2a-card-hash"),
            "staleness_ms": int(staleness) if staleness is not None else None,
            "freshness": resp.header("a2a-card-freshness"),
        }
    assert resp.header("content-type") == "application/problem+json", resp
    problem = resp.json()
    assert problem["status"] == resp.status
    return view_of_decision(problem)


POOL_RESET_RETRIES = 16


def is_pool_reset(resp):
    """Whether `resp` is Envoy's router reply for an upstream connection reset before any
    response header (503, text/plain), not an answer that went through the filter."""
    return (resp.status == 503 and resp.header("content-type") == "text/plain"
            and resp.body.startswith(b"upstream connect error or disconnect/reset before headers"))


@pytest.fixture(scope="module")
def served(registry, workdir):
    """Registers every replayable case with the registry; writes the policy for the CLI."""
    specs, plans = [], {}
    for case_id, _, case in VECTORS:
        headers, extra, skip = replay_plan(case)
        plans[case_id] = (headers, extra, skip)
        if skip is None and "envelope" in extra:
            unit, value = extra["envelope"]
            body = b'{"card":' + card_bytes(case) + b',"watermark":' + json.dumps(value).encode() + b"}"
            specs.append(registry.script("/vector-envelopes/%s/%s/card" % (unit, case_id), body, 200, headers))
        elif skip is None:
            specs.append(registry.script("/vectors/%s/card" % case_id, card_bytes(case), 200, headers, **extra))
    for i in range(0, len(specs), 50):
        registry.register(*specs[i : i + 50])
    policy = os.path.join(workdir, "vectors-policy.json")
    with open(policy, "w") as f:
        json.dump({"agents": {cid: case["requirement"] for cid, _, case in VECTORS}}, f)
    if not os.path.exists(CLI):
        pytest.fail("%s is missing: run `cargo build --release --bin cardgate`" % CLI)
    return plans, policy


@pytest.mark.parametrize("case_id,file,case", VECTORS, ids=[v[0] for v in VECTORS])
def test_vector_through_envoy_matches_native_and_expect(case_id, file, case, served, vector_gate):
    plans, policy = served
    _, extra, skip = plans[case_id]
    if skip:
        pytest.skip(skip)
    path = ("/vector-envelopes/%s/%s/card" % (extra["envelope"][0], case_id) if "envelope" in extra
            else "/vectors/%s/card" % case_id)
    resp = vector_gate.get(path)
    # Envoy 1.36.2 sometimes answers its own 503 for the cases right after the 200 kB
    # body_too_large case: pooled connections to the fixture registry found closed as the
    # request went out (2 of 12 full e2e runs on 2026-12-07, 3 and 9 cases in a row; never on
    # 1.40.0; cause not found). The filter never answers text/plain, so this is no decision: the
    # request is sent again, each attempt draining one closed connection, and the first answer
    # that is not that reply is judged like any other.
    # Each time it happens, the pytest summary shows the front Envoy's upstream connection
    # counters, to tell Envoy's own closes (`destroy_local`) from the registry's (`destroy_remote`).
    if is_pool_reset(resp):
        counters = {k: v for k, v in vector_gate.envoy.stats().items()
                    if k.startswith("cluster.registry_edge.upstream_cx") and v}
        warnings.warn("%s: Envoy's upstream-reset 503, asked again; %s" % (case_id, counters))
    for _ in range(POOL_RESET_RETRIES):
        if not is_pool_reset(resp):
            break
        resp = vector_gate.get(path)
    got = view_of_response(resp)
    expect = case["expect"]
    if "headers" in case:
        # The CLI takes no response headers: the native runner maps them through the core's
        # WatermarkSources (tests/vectors.rs); here the answer is compared with `expect` alone.
        for key, want in expect.items():
            if key == "verdict":
                assert (got["status"] == 200) == (want == "valid"), case["name"]
            else:
                assert got[key] == want, "%s: %s: %s" % (case["name"], key, got[key])
        return
    native_json = native_decision(case_id, case, policy)
    native = view_of_decision(json.loads(native_json))
    byte_comparable = not ({"synced_at_lag_ms", "envelope"} & set(extra)) and native["reason_codes"] != ["body_too_large"]
    if resp.status != 200 and byte_comparable:
        # A rejection's body is the decision itself: byte for byte the CLI's. Three exceptions
        # compare the view only: a synced_at figure depends on the real clock, the filter stops
        # buffering at the limit (its body_too_large says "at least N bytes"), and an envelope's
        # watermark is described as the envelope member it came from.
        assert resp.body.decode("utf-8") == native_json, case["name"]
    if "synced_at_lag_ms" in extra:
        got.pop("staleness_ms")
        native.pop("staleness_ms")
    assert got == native, "%s: %s\nenvoy:  %s\nnative: %s" % (file, case["name"], got, native)
    for key, want in expect.items():
        if key == "verdict":
            assert (got["status"] == 200) == (want == "valid"), case["name"]
        elif key in got:
            assert got[key] == want, "%s: %s: %s" % (case["name"], key, got[key])
