#!/usr/bin/env python3
"""Independent oracle for the shared decision vectors (tests/vectors/*.json).

It does not use cardgate. For every case it rebuilds the exact bytes the case sends
(`card` -> compact json.dumps, `card_text` -> UTF-8, `card_base64` -> decoded), parses
them with its own strict I-JSON reader (Python's json module plus explicit checks for
duplicates, lone surrogates, non-finite numbers, depth and size), and for every card that
parses as JSON computes

    "sha256:" + hex(sha256(rfc8785.dumps(card without top-level "signatures")))

with the PyPI `rfc8785` package. DESIGN.md: `card_hash` appears whenever the body parsed as
JSON, even when it is not a usable card (`not_an_object`, `missing_field`, `wrong_type`); for a
top-level value that is not an object there is no member to strip.

    oracle.py [--check]   verify every stored expect.card_hash (default); exit 1 on any difference
    oracle.py --write     fill/refresh expect.card_hash in place

Besides the hashes, --check verifies the file format, unique case names, that a case
expecting a parse-level malformed_card reason really fails this reader with that reason
(and carries no card_hash), and that pins are consistent with the expectation (a valid
pinned case pins the card's own hash; a pinned_hash_mismatch case does not), and that card
names are (a card_name_mismatch case names another card than its own, any other read card its own).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import sys
from pathlib import Path

import rfc8785

HERE = Path(__file__).resolve().parent
MAX_CARD_BYTES = 65536
MAX_DEPTH = 64
JSON_WS = " \t\n\r"

# Reasons that are decided while reading the bytes (the card never parses as JSON).
PARSE_REASONS = {
    "body_empty",
    "body_too_large",
    "invalid_utf8",
    "json_syntax",
    "trailing_data",
    "duplicate_member",
    "lone_surrogate",
    "number_out_of_range",
    "too_deep",
}
# Reasons decided after parsing (the JSON parsed, so the decision still carries a card_hash).
SHAPE_REASONS = {"not_an_object", "missing_field", "wrong_type"}
EXPECT_KEYS = {
    "verdict",
    "status",
    "error_class",
    "reason_codes",
    "missing_capabilities",
    "freshness",
    "staleness_ms",
    "card_hash",
}


class ParseFailure(Exception):
    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code


def case_bytes(case: dict) -> bytes:
    forms = [k for k in ("card", "card_text", "card_base64") if k in case]
    if len(forms) != 1:
        raise ValueError(f"case must have exactly one of card/card_text/card_base64, has {forms}")
    if "card" in case:
        return json.dumps(case["card"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if "card_text" in case:
        return case["card_text"].encode("utf-8")
    return base64.b64decode(case["card_base64"], validate=True)


def _no_duplicates(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ParseFailure("duplicate_member", repr(key))
        seen.add(key)
    return dict(pairs)


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value) or math.isnan(value):
        raise ParseFailure("number_out_of_range", text)
    return value


def _parse_int(text: str) -> float:
    # Every JSON number is an IEEE double (I-JSON); 9007199254740993 becomes ...992.
    try:
        value = float(int(text))
    except OverflowError as exc:
        raise ParseFailure("number_out_of_range", text) from exc
    return value


def _reject_constant(text: str):
    raise ParseFailure("json_syntax", f"non-JSON literal {text}")


def _has_surrogate(s: str) -> bool:
    return any(0xD800 <= ord(ch) <= 0xDFFF for ch in s)


def _check_value(value, depth: int) -> None:
    """Depth counts containers: the top-level object is depth 1."""
    if isinstance(value, (dict, list)):
        depth += 1
        if depth > MAX_DEPTH:
            raise ParseFailure("too_deep", f"depth {depth}")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str) and _has_surrogate(key):
                raise ParseFailure("lone_surrogate", repr(key))
            _check_value(item, depth)
    elif isinstance(value, str) and _has_surrogate(value):
        raise ParseFailure("lone_surrogate", repr(value))


def _nesting_depth_of_text(text: str) -> int:
    """Maximum bracket depth outside strings (so too_deep wins over Python's own limits)."""
    depth = best = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def strict_parse(raw: bytes):
    if len(raw) > MAX_CARD_BYTES:
        raise ParseFailure("body_too_large", f"{len(raw)} bytes")
    if raw.strip(b" \t\n\r") == b"":
        raise ParseFailure("body_empty")
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise ParseFailure("invalid_utf8", str(exc)) from exc
    decoder = json.JSONDecoder(
        object_pairs_hook=_no_duplicates,
        parse_float=_parse_float,
        parse_int=_parse_int,
        parse_constant=_reject_constant,
        strict=True,
    )
    start = len(text) - len(text.lstrip(JSON_WS))
    try:
        value, end = decoder.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        if _nesting_depth_of_text(text) > MAX_DEPTH:
            raise ParseFailure("too_deep", "before a syntax error") from exc
        raise ParseFailure("json_syntax", str(exc)) from exc
    except RecursionError as exc:
        raise ParseFailure("too_deep", "recursion") from exc
    if text[end:].strip(JSON_WS):
        raise ParseFailure("trailing_data", repr(text[end:end + 20]))
    _check_value(value, 0)
    return value


def card_hash_of_value(card) -> str:
    stripped = {k: v for k, v in card.items() if k != "signatures"} if isinstance(card, dict) else card
    return "sha256:" + hashlib.sha256(rfc8785.dumps(stripped)).hexdigest()


def card_hash_of_bytes(raw: bytes):
    """The hash the gate must report; raises ParseFailure when the bytes do not parse as JSON."""
    return card_hash_of_value(strict_parse(raw))


def card_hash_of_card(card: dict) -> str:
    """Hash of a `card` value sent in its compact serialization (used to build pins)."""
    return card_hash_of_bytes(case_bytes({"card": card}))


def vector_files():
    return sorted(p for p in HERE.glob("*.json"))


def process(write: bool) -> int:
    errors: list[str] = []
    names: dict[str, str] = {}
    total = 0
    for path in vector_files():
        doc = json.loads(path.read_text(encoding="utf-8"))
        if set(doc) != {"description", "cases"} or not isinstance(doc["cases"], list):
            errors.append(f"{path.name}: top level must be {{description, cases}}")
            continue
        changed = False
        for case in doc["cases"]:
            total += 1
            name = case.get("name", "<unnamed>")
            where = f"{path.name}: {name!r}"
            if name in names:
                errors.append(f"{where}: duplicate name (also in {names[name]})")
            names[name] = path.name
            allowed = {"name", "card", "card_text", "card_base64", "requirement", "observation", "headers", "expect"}
            if set(case) - allowed or not {"name", "requirement", "observation", "expect"} <= set(case):
                errors.append(f"{where}: bad members {sorted(case)}")
                continue
            expect = case["expect"]
            if set(expect) - EXPECT_KEYS:
                errors.append(f"{where}: unknown expect members {sorted(set(expect) - EXPECT_KEYS)}")
            codes = expect.get("reason_codes", [])
            try:
                raw = case_bytes(case)
            except ValueError as exc:
                errors.append(f"{where}: {exc}")
                continue
            try:
                got = card_hash_of_bytes(raw)
                parse_code = None
            except ParseFailure as exc:
                got, parse_code = None, exc.code
            # Parse-level expectations must agree with this independent reader.
            expected_parse = [c for c in codes if c in PARSE_REASONS]
            if expected_parse != ([parse_code] if parse_code else []):
                errors.append(f"{where}: oracle reads the bytes as {parse_code or 'parseable'}, expect says {codes}")
            if expect.get("error_class") == "malformed_card" and len(codes) != 1:
                errors.append(f"{where}: malformed_card must have exactly one reason")
            if codes == ["not_an_object"] and got is not None and strict_parse(raw).__class__ is dict:
                errors.append(f"{where}: expects not_an_object but the document is an object")
            # Pins: a valid pinned case pins its own card; a mismatch case pins something else.
            pin = case["requirement"].get("pin")
            if pin is not None and got is not None:
                if expect.get("freshness") == "pinned" or (
                    expect.get("verdict") == "rejected"
                    and "pinned_hash_mismatch" not in codes
                    and "card_name_mismatch" not in codes
                ):
                    if pin != got:
                        errors.append(f"{where}: pin {pin} is not the card's hash {got}")
                if "pinned_hash_mismatch" in codes and pin == got:
                    errors.append(f"{where}: expects pinned_hash_mismatch but the pin matches")
            # Card names: a card_name_mismatch case names another card; a card the gate reads
            # under a card_name (valid, or rejected for another reason) carries exactly that name.
            expected_name = case["requirement"].get("card_name")
            if expected_name is not None and got is not None:
                doc_value = strict_parse(raw)
                name = doc_value.get("name") if isinstance(doc_value, dict) else None
                if "card_name_mismatch" in codes:
                    if name == expected_name:
                        errors.append(f"{where}: expects card_name_mismatch but the names are equal")
                elif expect.get("error_class") != "malformed_card" and name != expected_name:
                    errors.append(f"{where}: card name {name!r} is not card_name {expected_name!r}")
            if write:
                if got is None:
                    if "card_hash" in expect:
                        del expect["card_hash"]
                        changed = True
                elif expect.get("card_hash") != got:
                    expect["card_hash"] = got
                    changed = True
            else:
                if got is None and "card_hash" in expect:
                    errors.append(f"{where}: card does not parse as JSON but expect has card_hash")
                elif got is not None and expect.get("card_hash") != got:
                    errors.append(f"{where}: card_hash {expect.get('card_hash')} != oracle {got}")
        if write and changed:
            path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for err in errors:
        print(err, file=sys.stderr)
    verb = "wrote" if write else "checked"
    print(f"oracle: {verb} {total} cases in {len(vector_files())} files, {len(errors)} problem(s)")
    return 1 if errors else 0


def main(argv: list[str]) -> int:
    args = argv[1:]
    if args not in ([], ["--check"], ["--write"]):
        print(__doc__, file=sys.stderr)
        return 2
    return process(write=args == ["--write"])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
