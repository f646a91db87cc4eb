"""policies/schema.json (checked with PyPI jsonschema) and `cardgate policy check` must agree.

The schema is generated from the Rust types that read policies (``src/policy.rs``, schemars); a
cargo test fails when the checked-in copy differs (``CARDGATE_BLESS=1 cargo test --lib
the_checked_in_schema_is_generated_from_the_types`` rewrites it). This test checks that what the
types generate still judges policies as the Rust reader does.

Run from the repository root: ``.tools/py/bin/python -m pytest -q tests/policy_schema_test.py``.
The cardgate binary comes from ``CARDGATE_BIN`` (default ``target/release/cardgate``).

* Every example policy ``policies/*.json`` (except ``schema.json``) validates against the schema
  and passes ``cardgate policy check`` (exit 0).
* A few edge-case policies written below (empty policy, every capability form, every duration
  unit, versions with pre-release and build suffixes, agent ids that need JSON Pointer escapes)
  are accepted by both, so a schema stricter than the Rust validator shows up too.
* About 60 single field values (durations, versions, pins, capability names, including values
  with a trailing newline, which Python's ``re`` lets ``$`` match before but ECMA-262 and
  cardgate do not) must be judged alike by both; the only allowed difference is the 10-year
  cap on ``max_stale``, which cardgate enforces and the schema's pattern does not.
* Every fixture ``tests/policies_invalid/*.json`` is listed in
  ``tests/policies_invalid/_expected.json`` with the JSON Pointer that cardgate must name. cardgate
  must exit 2 with that pointer on stderr; where the index says ``"schema": "reject"`` the
  schema must reject the document too, with an error located at that pointer (or, for an
  unknown member, at its parent object with the member named in the message).
  ``"rust-only"`` cases (duplicate member names, which a schema never sees because they are gone
  once the JSON is parsed, and numeric limits a pattern does not express) are checked against
  cardgate only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parent.parent
POLICIES = ROOT / "policies"
SCHEMA_PATH = POLICIES / "schema.json"
INVALID = Path(__file__).resolve().parent / "policies_invalid"
INDEX_PATH = INVALID / "_expected.json"
CARDGATE = Path(os.environ.get("CARDGATE_BIN", "target/release/cardgate"))
if not CARDGATE.is_absolute():
    CARDGATE = ROOT / CARDGATE

PIN = "sha256:" + "0123456789abcdef" * 4

# Policies both validators must accept.
VALID_EDGE_POLICIES = {
    "empty policy": {},
    "schema and comment only": {"$schema": "./schema.json", "$comment": "nothing required"},
    "empty defaults and agents": {"defaults": {}, "agents": {}},
    "every capability form": {
        "defaults": {
            "require": [
                "task.execute.v3",
                "extension:https://example.com/ext/v1",
                "capability:streaming",
                "capability:pushNotifications",
                "capability:extendedAgentCard",
                "binding:JSONRPC",
                "binding:GRPC",
                "protocol:1.0",
                "protocol:0.3",
            ],
            "max_stale": "10s",
        }
    },
    "empty require list": {"defaults": {"require": [], "max_stale": "0s"}},
    "repeated capability (kept once)": {"defaults": {"require": ["a.b", "a.b"]}},
    "every duration unit": {
        "defaults": {"max_stale": "250ms"},
        "agents": {
            "a": {"max_stale": "0ms"},
            "b": {"max_stale": "2m"},
            "c": {"max_stale": "1h"},
            "d": {"max_stale": "87600h"},
            "e": {"max_stale": "007s"},
        },
    },
    "comparable versions": {
        "agents": {
            "a": {"min_version": "7"},
            "b": {"min_version": "1.2"},
            "c": {"min_version": "2.0.0.1"},
            "d": {"min_version": "3.0.0-alpha.1"},
            "e": {"min_version": "3.0.0+sha.5"},
            "f": {"min_version": "3.0.0-rc.1+build.7"},
            "g": {"min_version": "12345678901234567890.0"},
        }
    },
    "pin only, with comments in rules": {
        "defaults": {"$comment": "pinned", "pin": PIN},
        "agents": {"w7": {"$comment": "worker", "pin": PIN, "require": ["task.execute.v3"]}},
    },
    "agent ids needing pointer escapes": {
        "agents": {"team/w~7": {"max_stale": "5s"}, "\u00e9 \U0001f600": {}}
    },
}


# Single field values both validators must judge alike, written into {"defaults": {FIELD: VALUE}}
# (a "require" value is wrapped in a list). True: both accept; False: both reject. A string:
# cardgate rejects and the schema may accept, for the reason given (a numeric limit that a
# pattern does not express).
TEN_YEARS = "the 10-year cap on max_stale is checked by cardgate only"
FIELD_PROBES = [
    ("max_stale", "10s", True),
    ("max_stale", "010s", True),
    ("max_stale", "0ms", True),
    ("max_stale", "87600h", True),
    ("max_stale", "10s\n", False),
    ("max_stale", "\n10s", False),
    ("max_stale", "10ms\n", False),
    ("max_stale", "10S", False),
    ("max_stale", "1ms ", False),
    ("max_stale", "\uff11s", False),
    ("max_stale", "\u0663s", False),
    ("max_stale", "10sec", False),
    ("max_stale", "1h30m", False),
    ("max_stale", "s", False),
    ("max_stale", "87601h", TEN_YEARS),
    ("max_stale", "99999999999999999999s", TEN_YEARS),
    ("min_version", "1", True),
    ("min_version", "01.2", True),
    ("min_version", "1.2.3-0", True),
    ("min_version", "1.2.3-01", False),
    ("min_version", "1.2.3-rc.007", False),
    ("min_version", "1.2.3-0a", True),
    ("min_version", "1.2.3--x", True),
    ("min_version", "1.2.3+build.01", True),
    ("min_version", "1\n", False),
    ("min_version", "1.2.3-alpha\n", False),
    ("min_version", "1.2.3-", False),
    ("min_version", "1.2.3+", False),
    ("min_version", "1.2.3-a..b", False),
    ("min_version", "1.2.3.4-alpha", False),
    ("min_version", "1.2-alpha", False),
    ("min_version", "1.2.3-\u03b1", False),
    ("min_version", "1.2.3-alpha+b+c", False),
    ("min_version", "1.2.3-alpha_1", False),
    ("min_version", "1..2", False),
    ("min_version", "1.", False),
    ("min_version", ".1", False),
    ("min_version", "", False),
    ("min_version", "\uff11.2", False),
    ("card_name", "worker-7", True),
    ("card_name", " ", True),
    ("card_name", " worker 7\n", True),
    ("card_name", "w\u00f6rker \U0001f916", True),
    ("card_name", "", False),
    ("pin", PIN, True),
    ("pin", PIN + "\n", False),
    ("pin", PIN.upper(), False),
    ("pin", PIN[:-1] + "g", False),
    ("pin", "sha256: " + PIN[8:], False),
    ("require", "a", True),
    ("require", " ", True),
    ("require", "extension", True),
    ("require", "capability", True),
    ("require", "extension: ", True),
    ("require", "binding: ", True),
    ("require", "binding:JSONRPC\n", True),
    ("require", "protocol:1.0", True),
    ("require", "protocol:01.0", True),
    ("require", "protocol:1.0\n", False),
    ("require", "protocol:1.0 ", False),
    ("require", "protocol:1", False),
    ("require", "protocol:1.0.0", False),
    ("require", "protocol:a.b", False),
    ("require", "protocol:", False),
    ("require", "protocol:\u0661.\u0660", False),
    ("require", "capability:streaming\n", False),
    ("require", "capability:streaming ", False),
    ("require", "capability:Streaming", False),
    ("require", "capability:", False),
    ("require", "extension:", False),
    ("require", "binding:", False),
]


def _strict_pairs(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate member {key!r}")
        seen[key] = value
    return seen


def load_strict(path: Path):
    return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_strict_pairs)


def pointer(parts) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def parent_pointer(ptr: str) -> tuple[str, str]:
    head, _, last = ptr.rpartition("/")
    return head, last.replace("~1", "/").replace("~0", "~")


@pytest.fixture(scope="module")
def schema():
    assert SCHEMA_PATH.is_file(), f"{SCHEMA_PATH} is missing"
    return load_strict(SCHEMA_PATH)


@pytest.fixture(scope="module")
def validator(schema):
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def cardgate_check(path: Path) -> subprocess.CompletedProcess:
    assert CARDGATE.is_file(), f"cardgate binary {CARDGATE} not built (set CARDGATE_BIN)"
    return subprocess.run(
        [str(CARDGATE), "policy", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )


def all_errors(errors):
    """Every error, including those nested in anyOf/oneOf contexts."""
    for error in errors:
        yield error
        yield from all_errors(error.context or [])


def example_policies() -> list[Path]:
    return sorted(p for p in POLICIES.glob("*.json") if p.name != "schema.json")


def invalid_index() -> dict:
    return json.loads(INDEX_PATH.read_text(encoding="utf-8"))["cases"]


def invalid_fixtures() -> list[str]:
    return sorted(p.name for p in INVALID.glob("*.json") if p.name != INDEX_PATH.name)


# ---- the schema itself ---------------------------------------------------------------------


def test_schema_is_a_valid_json_schema(validator):
    assert validator.schema.get("$schema"), "schema.json should declare its dialect in $schema"


def test_schema_rejects_a_non_object(validator):
    assert list(validator.iter_errors([])), "a JSON array is not a policy"


# ---- valid policies: both accept ----------------------------------------------------------------


def test_there_are_example_policies():
    assert example_policies(), f"no example policies in {POLICIES}"


@pytest.mark.parametrize("path", example_policies(), ids=lambda p: p.name)
def test_example_policy_is_valid_for_schema_and_cardgate(path, validator):
    doc = load_strict(path)
    errors = [f"{pointer(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, f"schema rejects {path.name}: {errors}"
    p = cardgate_check(path)
    assert p.returncode == 0, f"cardgate policy check {path.name}: exit {p.returncode}: {p.stderr}"


@pytest.mark.parametrize("name", sorted(VALID_EDGE_POLICIES))
def test_edge_policy_is_valid_for_schema_and_cardgate(name, validator, tmp_path):
    doc = VALID_EDGE_POLICIES[name]
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    errors = [f"{pointer(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
    p = cardgate_check(path)
    assert (not errors, p.returncode) == (True, 0), (
        f"{name}: schema errors {errors}; cardgate exit {p.returncode}: {p.stderr.strip()}"
    )


@pytest.mark.parametrize(
    "field,value,verdict", FIELD_PROBES, ids=[f"{f}={v!r}" if len(v) < 40 else f"{f}=...{v[-6:]!r}" for f, v, _ in FIELD_PROBES]
)
def test_schema_and_cardgate_judge_field_values_alike(field, value, verdict, validator, tmp_path):
    doc = {"defaults": {field: [value] if field == "require" else value}}
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    schema_ok = validator.is_valid(doc)
    p = cardgate_check(path)
    assert p.returncode in (0, 2), f"cardgate exit {p.returncode}: {p.stderr}"
    cardgate_ok = p.returncode == 0
    if isinstance(verdict, str):
        assert not cardgate_ok, f"{field}={value!r}: cardgate accepts it ({verdict})"
        return
    assert (schema_ok, cardgate_ok) == (verdict, verdict), (
        f"{field}={value!r}: want both {'accepting' if verdict else 'rejecting'}; "
        f"schema {'accepts' if schema_ok else 'rejects'}, cardgate "
        f"{'accepts' if cardgate_ok else 'rejects: ' + p.stderr.strip()}"
    )


# ---- invalid policies: both reject, naming the same place --------------------------------------


def test_invalid_fixtures_match_their_index():
    index = invalid_index()
    files = invalid_fixtures()
    assert len(files) >= 15
    assert sorted(index) == files, (
        f"not indexed: {sorted(set(files) - set(index))}; "
        f"indexed but missing: {sorted(set(index) - set(files))}"
    )
    for name, case in index.items():
        assert case["schema"] in {"reject", "rust-only", "not-json"}, name


@pytest.mark.parametrize("name", invalid_fixtures())
def test_cardgate_rejects_invalid_fixture_naming_the_path(name):
    expected = invalid_index()[name]["path"]
    p = cardgate_check(INVALID / name)
    message = p.stderr.strip()
    assert p.returncode == 2, f"{name}: exit {p.returncode}, want 2; stderr {p.stderr!r}"
    assert message, f"{name}: no message on stderr"
    assert "\n" not in message, f"{name}: message is not one line: {message!r}"
    if expected:
        # the pointer, as a whole token: not a prefix of a longer pointer
        token = r"(?<![\w~/$])" + re.escape(expected) + r"(?![\w~/$])"
        assert re.search(token, message), f"{name}: stderr {message!r} does not name {expected}"


@pytest.mark.parametrize(
    "name", [n for n in invalid_fixtures() if invalid_index().get(n, {}).get("schema") != "rust-only"]
)
def test_schema_rejects_invalid_fixture_at_the_path(name, validator):
    case = invalid_index()[name]
    path = INVALID / name
    if case["schema"] == "not-json":
        with pytest.raises(ValueError):
            load_strict(path)
        return
    doc = load_strict(path)
    errors = list(all_errors(validator.iter_errors(doc)))
    assert errors, f"schema accepts {name}, cardgate must reject it at {case['path']}"
    expected = case["path"]
    parent, member = parent_pointer(expected)
    located = [(pointer(e.absolute_path), e.message) for e in errors]
    ok = any(
        where == expected or (expected and where == parent and repr(member) in message)
        for where, message in located
    )
    assert ok, f"{name}: schema errors {located} are not at {expected}"
