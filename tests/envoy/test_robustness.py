"""Nothing the upstream or the caller sends traps the filter: random bodies, watermark headers
with non-UTF-8 bytes, hostile caller headers. A trap would kill the worker's VM (Envoy logs the
wasm RuntimeError and answers 5xx until reload): afterwards a valid card must still pass."""

import json
import random

from test_responses import CARD, card_json, oracle_hash, serve

ANSWERS = {200, 304, 400, 409, 502, 503}


def random_body(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    if kind == 1:
        return b"[" * rng.randrange(1, 200)
    if kind == 2:
        text = card_json()
        cut = rng.randrange(len(text))
        return text[:cut] + bytes([rng.randrange(256)]) + text[cut + 1:]
    if kind == 3:
        return json.dumps({"name": 1, "version": [], "capabilities": "x", "skills": {}}).encode()
    if kind == 4:
        return b'{"a":"\\ud800"}'
    return card_json(dict(CARD, skills=[{"id": "\u00e9" * rng.randrange(1, 50)}] * rng.randrange(1, 40)))


def random_header_value(rng):
    choices = ["40000", "-1", "1e3", "NaN", " ", "0x10", "9" * 40, "\xff\xfe", "12\xe9", "true", ""]
    return rng.choice(choices)


def test_random_answers_and_headers_never_trap_the_filter(gate):
    rng = random.Random(20261109)
    for i in range(150):
        headers = [("x-replica-lag-ms", random_header_value(rng))]
        if rng.random() < 0.3:
            headers.append(("Age", random_header_value(rng)))
        if rng.random() < 0.3:
            headers.append(("X-Consul-LastContact", random_header_value(rng)))
            headers.append(("X-Consul-KnownLeader", rng.choice(["true", "false", "\xff"])))
        path = serve(gate.registry, body=random_body(rng), headers=headers, lag_ms=None,
                     chunks=rng.choice([1, 1, 3, 17]))
        caller = {}
        if rng.random() < 0.3:
            caller["Cache-Control"] = rng.choice(["max-stale=5", "max-stale=\xff", "max-stale=99999999999", "max-stale"])
        if rng.random() < 0.3:
            caller["a2a-require-capabilities"] = rng.choice(["task.execute.v3", ",,,", "capability:\xe9", "binding:"])
        if rng.random() < 0.2:
            caller["a2a-card-pin"] = rng.choice(["sha256:" + "a" * 64, "\xff", ""])
        resp = gate.get(path, caller)
        assert resp.status in ANSWERS, (i, resp)
        if resp.status >= 400:
            problem = resp.json()
            assert problem["status"] == resp.status
    assert "RuntimeError" not in gate.envoy.log()
    assert "panicked" not in gate.envoy.log()
    fresh = serve(gate.registry)
    resp = gate.get(fresh)
    assert resp.status == 200
    assert resp.header("a2a-card-hash") == oracle_hash(CARD)
