#!/usr/bin/env python3
"""Writes watermark_headers.json: one fresh card served with each watermark response header set
to a value shape that HTTP stacks and number readers treat differently (surrounding and inner
whitespace, signs, leading zeros, fractions, exponents, lists, quotes, a UTF-8 no-break space,
the 10 s boundary, leader flags, timestamp spellings).

Every runtime that reads responses replays these cases: the native runner through the core's
conventional header names, Node and Chromium by serving the exact header bytes to the package's
`resolveAgentCard` (Node also to `cardgate resolve`), Envoy by serving them upstream.

The expectations are not cardgate's: each case's header value is the observation member it names
(an HTTP stack removes only the spaces and tabs around a value, which DESIGN.md's reading removes
too), and freshness_reference.py (condition (b) written from DESIGN.md without reading src/)
gives the reason and the staleness figure. Card hashes come from oracle.py (`--write`).

    gen_watermark_headers.py          rewrite watermark_headers.json (then run oracle.py --write)
    gen_watermark_headers.py --check  exit 1 if the file differs from what this script writes
                                      (card hashes aside)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from freshness_reference import expected

HERE = Path(__file__).resolve().parent
OUT = HERE / "watermark_headers.json"

CARD = {
    "name": "Header Probe",
    "description": "A fresh card; only its watermark headers vary.",
    "supportedInterfaces": [{"url": "https://probe.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "version": "3.0.0",
    "capabilities": {},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "probe.run", "name": "Run", "description": "Runs one probe.", "tags": ["probe"]}],
}
REQUIREMENT = {"require": ["probe.run"], "max_stale": "10s"}
NOW = "2026-12-04T00:00:05Z"
MAX_STALE_MS = 10_000

FIGURES = [
    "250", " 250", "250 ", "\t250", "250\t", " 250 ", "", "+250", "-0", "0", "00", "0250",
    "250.0", "2.5e2", "250,", ",250", "250, 250", "250;x", "0x10", "1e400",
    "9999999999999999999999", "250\u00a0", "\u00a0250", "25 0", '"250"', "1.5", ".5", "5.",
    "NaN", "inf", "-1", "10000", "10001", "9999.9999", "10000.0001", "10", "9.999",
]
LEADER = ["true", "True", "TRUE", " true", "true ", "yes", "1", "false", "true, true", ""]
SYNCED = [
    "2026-12-04T00:00:00Z", " 2026-12-04T00:00:00Z", "2026-12-04T00:00:00Z ", "2026-12-04t00:00:00z",
    "2026-12-04 00:00:00Z", "2026-12-04T00:00:00+00:00", "2026-12-04T01:00:00+01:00",
    "2026-12-04T00:00:00.5Z", "2026-12-04T00:00:60Z", "2026-12-03T23:59:50Z", "2026-12-03T23:59:55Z",
    "2026-12-03T23:59:54.999Z", "2026-12-04T00:00:06Z", "2026-12-04T00:00:06.001Z",
    "Fri, 04 Dec 2026 00:00:00 GMT", "1764806400",
]

# (header names and the observation member each feeds, what else the answer carries)
SHAPES = [
    ("x-replica-lag-ms", "lag_ms", [], {}),
    ("x-replica-lag-s", "lag_s", [], {}),
    ("Age", "age_s", [("x-replica-lag-ms", "100")], {"lag_ms": "100"}),
    ("X-Consul-LastContact", "consul_last_contact_ms", [("X-Consul-KnownLeader", "true")], {"consul_known_leader": "true"}),
]


def octets(text: str) -> str:
    """A header value as the vectors write it: each character one octet of its UTF-8 bytes."""
    return text.encode("utf-8").decode("latin-1")


def case(name: str, headers: list[tuple[str, str]], observation: dict) -> dict:
    reason, staleness = expected({**observation, "now": NOW}, MAX_STALE_MS)
    expect: dict = {"verdict": "valid" if reason is None else "rejected",
                    "status": 200 if reason is None else 503}
    if reason is not None:
        expect["error_class"] = "stale_agent_card"
        expect["reason_codes"] = [reason]
    if staleness is not None:
        expect["staleness_ms"] = staleness
    return {
        "name": "watermark headers: " + name,
        "card": CARD,
        "requirement": REQUIREMENT,
        "observation": {"now": NOW},
        "headers": [[n, octets(v)] for n, v in headers],
        "expect": expect,
    }


def cases() -> list[dict]:
    out = []
    for header, member, extra_headers, extra_obs in SHAPES:
        for value in FIGURES:
            out.append(case(f"{header} {json.dumps(value, ensure_ascii=True)}",
                            extra_headers + [(header, value)], {**extra_obs, member: value}))
    for value in LEADER:
        out.append(case(f"X-Consul-KnownLeader {json.dumps(value, ensure_ascii=True)} with X-Consul-LastContact 5",
                        [("X-Consul-LastContact", "5"), ("X-Consul-KnownLeader", value)],
                        {"consul_last_contact_ms": "5", "consul_known_leader": value}))
    for value in SYNCED:
        out.append(case(f"x-replica-synced-at {json.dumps(value, ensure_ascii=True)} at {NOW}",
                        [("x-replica-synced-at", value)], {"synced_at": value}))
    return out


def document(old_hashes: dict) -> dict:
    all_cases = cases()
    for c in all_cases:
        if c["name"] in old_hashes:
            c["expect"]["card_hash"] = old_hashes[c["name"]]
    return {
        "description": "Watermark response headers, value shape by value shape (tests/vectors/gen_watermark_headers.py; "
                       "expectations from freshness_reference.py): whitespace around and inside a figure, signs, leading "
                       "zeros, fractions, exponents, lists, quotes, a UTF-8 no-break space, the 10 s boundary in ms and s, "
                       "Age on top of a lag, the Consul pair and its leader flag, RFC 3339 spellings and the 1 s skew.",
        "cases": all_cases,
    }


def main() -> int:
    old = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() else {"cases": []}
    hashes = {c["name"]: c["expect"]["card_hash"] for c in old["cases"] if "card_hash" in c["expect"]}
    new = document(hashes)
    text = json.dumps(new, indent=1, ensure_ascii=True) + "\n"
    if "--check" in sys.argv[1:]:
        strip = lambda d: [{**c, "expect": {k: v for k, v in c["expect"].items() if k != "card_hash"}} for c in d["cases"]]
        if strip(old) != strip(new) or old.get("description") != new["description"]:
            print("watermark_headers.json is not what gen_watermark_headers.py writes", file=sys.stderr)
            return 1
        print(f"watermark_headers.json: {len(new['cases'])} cases as generated")
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(new['cases'])} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
