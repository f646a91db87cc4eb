#!/usr/bin/env python3
"""Differential test: `cardgate canonicalize` against the PyPI `rfc8785` package.

Usage (from the repository root, as `make test-core` runs it):

    .tools/py/bin/python tests/jcs_differential.py --cardgate target/release/cardgate --count 10000

What it does
------------
1. Known answers. The examples of RFC 8785 (section 3.2.2 and 3.2.3 and the number table of
   appendix B) are checked against the oracle *and* against cardgate with the output bytes
   written out here by hand, so a bug shared by both sides still fails.
2. Generated documents. ``--count`` documents are produced from a fixed ``--seed`` (printed).
   Each is generated as exact JSON *text*, not as a Python object handed to a serializer, so
   cardgate's parser is exercised too: whitespace of every allowed kind between tokens,
   strings whose characters are written literally, with the short escapes, or as ``\\uXXXX``
   (upper or lower case hex, non-BMP characters as surrogate-pair escapes), and numbers written
   in many spellings of the same double (``1.50``, ``1E2``, ``100e-2``, ``0.00015E+4``, the
   exact decimal expansion, integer literals beyond 2^53 that must round to even ...).
   The value pool covers shortest round-trip doubles, the 1e21 and 1e-7 formatting
   boundaries, 5e-324, 1.7976931348623157e308, -0, 0.1+0.2, random bit patterns, all control
   characters, quotes, backslashes, "/", U+007F, U+2028/U+2029, non-BMP characters, and member
   names whose UTF-16 order differs from their code point order ("\\ue000" vs "\\U0001F600").
   The expected bytes are ``rfc8785.dumps(json.loads(text, parse_int=float))``.
3. Rejections. About 60 documents that strict I-JSON parsing must refuse (duplicate member
   names, also via escapes and nested; lone surrogate escapes; invalid UTF-8; trailing data;
   1e400; NaN/Infinity; empty input; comments; grammar errors) must make cardgate exit 2 with
   a non-empty one-line message on stderr and nothing on stdout.

Oracle choices
--------------
* ``rfc8785`` 0.1.4 serializes Python ``int`` with ``str()`` and refuses ints outside
  +-(2^53-1) (``IntegerDomainError``), while its ``float`` path follows ECMAScript
  Number.prototype.toString. RFC 8785 says every JSON number is an IEEE 754 double, so the
  oracle parses integer literals with ``parse_int=float``: "9007199254740993" becomes the
  double 9007199254740992 and serializes as such, exactly what the spec asks of cardgate.
  For integers within +-2^53 the two paths give the same text.
* ``json.loads`` is lenient where I-JSON is strict (it keeps the last duplicate, accepts
  NaN and lone surrogates), so the oracle only ever sees documents the generator built to be
  valid; it parses them with a duplicate-refusing hook and ``parse_constant`` that refuses
  NaN/Infinity, so a generator bug stops the run (exit 3) instead of producing a wrong
  expectation. The generator also checks that every number spelling parses back to the
  intended double.
* Nesting stays below 64 and documents below 60 000 bytes, inside cardgate's default limits
  (depth 64, 65 536 bytes), so those limits are not what is being compared here.

Each document is passed on stdin (``canonicalize -``); every 97th goes through a temporary
file path instead, so both CLI input forms are covered. On a mismatch the first few failing
inputs are printed (repr) with the expected and actual bytes, plus the smallest sub-value of
the document that still fails on its own, and the exit code is 1.

The last line is always ``jcs-differential: N passed, M failed (...)`` for CI to count.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import decimal
import json
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import time

import rfc8785

DEFAULT_SEED = 8785
MAX_DOC_BYTES = 60_000
FILE_MODE_EVERY = 97

# --------------------------------------------------------------------------------------------
# Known answers (RFC 8785), written out by hand.
# --------------------------------------------------------------------------------------------

RFC_3_2_2_INPUT = (
    "{\n"
    '  "numbers": [333333333.33333329, 1E30, 4.50,\n'
    "              2e-3, 0.000000000000000000000000001],\n"
    '  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n'
    '  "literals": [null, true, false]\n'
    "}\n"
)
RFC_3_2_2_OUTPUT = (
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
    '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
)
RFC_3_2_3_INPUT = (
    "{\n"
    '  "\\u20ac": "Euro Sign",\n'
    '  "\\r": "Carriage Return",\n'
    '  "\\ufb33": "Hebrew Letter Dalet With Dagesh",\n'
    '  "1": "One",\n'
    '  "\\ud83d\\ude00": "Emoji: Grinning Face",\n'
    '  "\\u0080": "Control",\n'
    '  "\\u00f6": "Latin Small Letter O With Diaeresis"\n'
    "}\n"
)
RFC_3_2_3_OUTPUT = (
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control",'
    '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",'
    '"\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'
)
# RFC 8785 appendix B: IEEE 754 bit pattern -> canonical text (NaN/Infinity rows omitted:
# they are not JSON and belong to the rejection set).
RFC_APPENDIX_B = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]
# More hand-checked answers around the ECMAScript formatting boundaries.
EXTRA_KNOWN_NUMBERS = [
    ("1e21", "1e+21"),
    ("1E+21", "1e+21"),
    ("999999999999999999999", "1e+21"),
    ("100000000000000000000", "100000000000000000000"),
    ("1e-7", "1e-7"),
    ("0.0000001", "1e-7"),
    ("1.5e-7", "1.5e-7"),
    ("0.000001", "0.000001"),
    ("1E-6", "0.000001"),
    ("-0", "0"),
    ("-0.0e5", "0"),
    ("0.30000000000000004", "0.30000000000000004"),
    ("1.50", "1.5"),
    ("1E2", "100"),
    ("100e-2", "1"),
    ("9007199254740993", "9007199254740992"),
    ("9007199254740995", "9007199254740996"),
    ("18446744073709551616", "18446744073709552000"),
    ("2.2250738585072014e-308", "2.2250738585072014e-308"),
    ("2.225073858507201e-308", "2.225073858507201e-308"),
    ("4.9e-324", "5e-324"),
    ("1e-400", "0"),
    ("0.1e1", "1"),
    ("123456789e-9", "0.123456789"),
    ("1e0000000000000000000000000000000000000000001", "10"),
    ("1e-99999999999999999999", "0"),
    ("0e99999999999", "0"),
    ("0." + "0" * 400 + "1e401", "1"),
    ("1" * 800 + "e-790", "1111111111.1111112"),
    ("2.4703282292062328e-324", "5e-324"),
    ("2.4703282292062327e-324", "0"),
    ("1.7976931348623158e308", "1.7976931348623157e+308"),
    (str(int((2 - 2**-52) * 2**1023) + 2**970 - 1), "1.7976931348623157e+308"),
]


def known_answers() -> list[tuple[str, str, str]]:
    """(label, input text, expected canonical text)."""
    cases = [
        ("rfc8785 3.2.2 example", RFC_3_2_2_INPUT, RFC_3_2_2_OUTPUT),
        ("rfc8785 3.2.3 sorting example", RFC_3_2_3_INPUT, RFC_3_2_3_OUTPUT),
    ]
    for bits, text in RFC_APPENDIX_B:
        value = struct.unpack(">d", bytes.fromhex(bits))[0]
        cases.append((f"rfc8785 appendix B {bits}", "[" + repr(value) + "]", "[" + text + "]"))
    for literal, text in EXTRA_KNOWN_NUMBERS:
        cases.append((f"number {literal}", "[" + literal + "]", "[" + text + "]"))
    cases.append(
        (
            "utf-16 vs code point member order",
            '{"\\ue000":1,"\\ud83d\\ude00":2,"\\u007f":3,"\u2028":4,"":5}',
            '{"":5,"\x7f":3,"\u2028":4,"\U0001f600":2,"\ue000":1}',
        )
    )
    cases.append(
        (
            "control characters and escapes",
            '["\\u0000\\u001f\\b\\f\\n\\r\\t\\/\\"\\\\\\u007F\\u2028\\u2029"]',
            '["\\u0000\\u001f\\b\\f\\n\\r\\t/\\"\\\\\x7f\u2028\u2029"]',
        )
    )
    cases.append(("top-level string", '  "x"  ', '"x"'))
    cases.append(("top-level number", "\t1.0E1\n", "10"))
    cases.append(("top-level literal", "\r\nnull\r\n", "null"))
    cases.append(("empty containers", ' { "a" : [ ] , "b" : { } } ', '{"a":[],"b":{}}'))
    return cases


# --------------------------------------------------------------------------------------------
# Oracle
# --------------------------------------------------------------------------------------------


class GeneratorBug(Exception):
    """The generator produced something that is not the valid document it meant to."""


def _refuse_duplicates(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise GeneratorBug(f"duplicate member {key!r}")
        seen.add(key)
    return dict(pairs)


def _refuse_constant(name):
    raise GeneratorBug(f"non-JSON constant {name}")


def oracle(text: str) -> bytes:
    value = json.loads(
        text,
        parse_int=float,
        object_pairs_hook=_refuse_duplicates,
        parse_constant=_refuse_constant,
    )
    return rfc8785.dumps(value)


# --------------------------------------------------------------------------------------------
# Generator: values, then their text with random but valid spellings.
# --------------------------------------------------------------------------------------------

JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")

SPECIAL_DOUBLES = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    0.2,
    0.1 + 0.2,
    0.3,
    1.5,
    4.35,
    1e21,
    -1e21,
    1e20,
    999999999999999900000.0,
    999999999999999700000.0,
    9.999999999999999e20,
    1.0000000000000001e21,
    1e22,
    1e23,
    9.999999999999997e22,
    1.0000000000000001e23,
    1e-7,
    -1e-7,
    1.0000000000000002e-7,
    9.999999999999999e-8,
    1e-6,
    9.999999999999997e-7,
    1.5e-7,
    5e-7,
    1e-5,
    5e-324,
    -5e-324,
    1e-323,
    2.2250738585072014e-308,
    2.225073858507201e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    float(2**53 - 1),
    float(2**53),
    -float(2**53),
    float(2**53 + 2),
    float(2**63),
    float(2**64),
    float(2**68),
    1e16,
    1e15 + 0.3,
    123456789012345680000.0,
    333333333.3333333,
    333333333.33333325,
    -0.0000033333333333333333,
    1424953923781206.2,
    0.5,
    2.5,
    1e300,
    1e-300,
    3.141592653589793,
    2.718281828459045,
]

STRING_CHARS = (
    [chr(c) for c in range(0x20)]  # every control character
    + ['"', "\\", "/", "\x7f", "\x80", "\x9f", "\xa0", "\xff"]
    + ["\u2028", "\u2029", "\ufeff", "\ufffd", "\ufffe", "\uffff", "\ue000", "\uf8ff"]
    + ["\u20ac", "\u00f6", "e\u0301", "\u00e9", "\u05d3", "\ufb33", "\u4e2d", "\u0301"]
    + ["\U00010000", "\U0001f600", "\U0001f1fa", "\U0010ffff", "\U0002a6d6", "\U000e0001"]
    + ["\ud7ff"]  # last BMP scalar before the surrogate range
)
ASCII_PRINTABLE = [chr(c) for c in range(0x20, 0x7F)]

# Member names whose order differs between UTF-16 code units and code points, or that
# look alike: the generator mixes them into objects.
TRICKY_KEYS = [
    "\ue000",
    "\U0001f600",
    "\uffff",
    "\U00010000",
    "\ufb33",
    "\ud7ff",
    "",
    "a",
    "A",
    "aa",
    "a\x00",
    "\x00",
    "\u00e9",
    "e\u0301",
    "\x7f",
    "\x80",
    "\u20ac",
    "\r",
    "1",
    "10",
    "2",
    "\u2028",
    "\\",
    '"',
    "/",
]

SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f",
                 "\n": "\\n", "\r": "\\r", "\t": "\\t"}


class Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    # ---- values -----------------------------------------------------------------------------

    def double(self) -> float:
        r = self.rng
        kind = r.random()
        if kind < 0.25:
            return r.choice(SPECIAL_DOUBLES)
        if kind < 0.40:
            # random bit pattern: covers the whole exponent range, subnormals included
            while True:
                v = struct.unpack("<d", r.getrandbits(64).to_bytes(8, "little"))[0]
                if math.isfinite(v):
                    return v
        if kind < 0.55:
            # integers, mostly around and beyond 2^53
            bits = r.choice([8, 31, 32, 52, 53, 54, 60, 64, 70, 100])
            v = r.getrandbits(bits)
            return float(-v if r.random() < 0.3 else v)
        if kind < 0.75:
            # a few significant digits near the 1e21 / 1e-7 switches or anywhere
            digits = r.randint(1, 17)
            mant = r.randint(10 ** (digits - 1), 10**digits - 1)
            exp = r.choice([r.randint(-30, 30), r.randint(-9, -5), r.randint(18, 23),
                            r.randint(-330, 310)])
            v = float(f"{mant}e{exp - digits + 1}")
            if not math.isfinite(v):
                v = 1.7976931348623157e308
            return -v if r.random() < 0.3 else v
        if kind < 0.85:
            # short decimals like prices: 12.34, 0.07
            v = r.randint(0, 10**6) / 10 ** r.randint(0, 6)
            return -v if r.random() < 0.2 else v
        # arithmetic results (0.1 + 0.2 style)
        a = r.randint(1, 99) / 10 ** r.randint(0, 3)
        b = r.randint(1, 99) / 10 ** r.randint(0, 3)
        return r.choice([a + b, a * b, a / b, a - b])

    def string(self, max_len: int = 12) -> str:
        r = self.rng
        n = r.randint(0, max_len)
        out = []
        for _ in range(n):
            if r.random() < 0.55:
                out.append(r.choice(ASCII_PRINTABLE))
            else:
                out.append(r.choice(STRING_CHARS))
        return "".join(out)

    def key(self) -> str:
        if self.rng.random() < 0.3:
            return self.rng.choice(TRICKY_KEYS)
        return self.string(8)

    def value(self, depth: int):
        r = self.rng
        if depth <= 0:
            kind = r.random() * 0.68  # scalars only
        else:
            kind = r.random()
        if kind < 0.35:
            return self.double()
        if kind < 0.60:
            return self.string()
        if kind < 0.68:
            return r.choice([None, True, False])
        if kind < 0.84:
            return [self.value(depth - 1) for _ in range(r.choice([0, 1, 2, 3, 5, 8]))]
        return self.obj(depth - 1)

    def obj(self, depth: int) -> dict:
        r = self.rng
        n = r.choice([0, 1, 2, 3, 4, 6, 9])
        out: dict = {}
        for _ in range(n):
            k = self.key()
            if k in out:
                continue
            out[k] = self.value(depth)
        return out

    def document_value(self):
        r = self.rng
        kind = r.random()
        if kind < 0.80:
            return self.obj(r.randint(0, 5))
        if kind < 0.95:
            return [self.value(r.randint(0, 4)) for _ in range(r.randint(0, 6))]
        if kind < 0.98:
            return self.value(0)
        # a deep but legal chain, depth <= 40
        v = self.value(0)
        for _ in range(r.randint(10, 40)):
            v = [v] if r.random() < 0.5 else {self.key(): v}
        return v

    # ---- text ---------------------------------------------------------------------------------

    def ws(self) -> str:
        r = self.rng
        if r.random() < 0.7:
            return ""
        return "".join(r.choice(" \t\n\r") for _ in range(r.randint(1, 4)))

    def hex4(self, code: int) -> str:
        h = f"{code:04x}"
        mode = self.rng.random()
        if mode < 0.4:
            return h
        if mode < 0.8:
            return h.upper()
        return "".join(c.upper() if self.rng.random() < 0.5 else c for c in h)

    def string_text(self, s: str) -> str:
        r = self.rng
        out = ['"']
        style = r.random()  # per-string bias: mostly literal, mostly escaped, or mixed
        for ch in s:
            code = ord(ch)
            must_escape = code < 0x20 or ch in '"\\'
            p = r.random()
            if not must_escape and (style < 0.5 and p < 0.9 or style >= 0.5 and p < 0.4):
                out.append(ch)
            elif ch in SHORT_ESCAPES and p < 0.7:
                out.append(SHORT_ESCAPES[ch])
            elif code > 0xFFFF:
                v = code - 0x10000
                out.append("\\u" + self.hex4(0xD800 + (v >> 10)))
                out.append("\\u" + self.hex4(0xDC00 + (v & 0x3FF)))
            else:
                out.append("\\u" + self.hex4(code))
        out.append('"')
        return "".join(out)

    def number_text(self, f: float) -> str:
        r = self.rng
        candidates = [repr(f)]
        sign = "-" if math.copysign(1.0, f) < 0 else ""
        a = abs(f)
        dec = decimal.Decimal(repr(a))
        _, digit_tuple, exp = dec.normalize().as_tuple()
        digits = "".join(map(str, digit_tuple)) if a != 0 else "0"
        if a == 0:
            exp = 0
        # value = int(digits) * 10**exp
        if a == int(a) and a < 1e30:
            candidates.append(sign + str(int(a)))
        choice = r.random()
        if choice < 0.25:
            text = candidates[-1]
        elif choice < 0.40:
            # trailing zeros: "1.50", "100.000"
            plain = format(dec, "f")
            if "." not in plain:
                plain += "."
            text = sign + plain + "0" * r.randint(1, 3)
        elif choice < 0.60:
            # mantissa with extra zeros and a compensating exponent: "100e-2", "1E2"
            z = r.randint(0, 3)
            e = exp - z
            m = digits + "0" * z if digits != "0" else "0"
            text = sign + m + r.choice("eE") + self.exp_text(e)
        elif choice < 0.75:
            # one digit before the point: "1.234E+5", or "0." form: "0.00015E+4"
            if r.random() < 0.5 or digits == "0":
                m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
                e = exp + len(digits) - 1
            else:
                lead = r.randint(0, 3)
                m = "0." + "0" * lead + digits
                e = exp + len(digits) + lead
            text = sign + m + r.choice("eE") + self.exp_text(e)
        elif choice < 0.85:
            # not the shortest digits: exact decimal value, truncated to 17..40 digits
            exact = decimal.Decimal(a)
            _, dt, ee = exact.as_tuple()
            ds = "".join(map(str, dt))
            keep = min(len(ds), r.randint(20, 40))
            if a == 0:
                text = sign + "0.000"
            else:
                m = ds[0] + ("." + ds[1:keep] if keep > 1 else "")
                text = sign + m + "e" + str(ee + len(ds) - 1)
        elif choice < 0.92 and a == int(a) and 2**53 <= a < 2**90:
            # an integer literal that is not a double and must round to this one:
            # off by less than half an ulp, or exactly half an ulp (ties go to even)
            half = 2 ** (math.frexp(a)[1] - 54)
            n = int(a) + r.choice([-1, 1]) * r.choice([1, half - 1, half, r.randint(1, half)])
            text = sign + str(n)
            if float(text) != f:  # a tie that rounds away from this double: use it exactly
                text = sign + str(int(a))
        else:
            text = r.choice(candidates)
        if not JSON_NUMBER.match(text):
            raise GeneratorBug(f"number spelling {text!r} for {f!r} is not JSON")
        back = float(text)
        if back != f or math.copysign(1.0, back) != math.copysign(1.0, f):
            raise GeneratorBug(f"number spelling {text!r} parses to {back!r}, not {f!r}")
        return text

    def exp_text(self, e: int) -> str:
        r = self.rng
        sign = "-" if e < 0 else r.choice(["", "+"])
        zeros = "0" * r.choice([0, 0, 0, 1, 2])
        return sign + zeros + str(abs(e))

    def text(self, v, nodes: list[str]) -> str:
        """Emit v as JSON text; record every value's text in nodes (for shrinking)."""
        if v is None:
            t = "null"
        elif v is True:
            t = "true"
        elif v is False:
            t = "false"
        elif isinstance(v, float):
            t = self.number_text(v)
        elif isinstance(v, str):
            t = self.string_text(v)
        elif isinstance(v, list):
            if not v:
                t = "[" + self.ws() + "]"
            else:
                parts = [self.ws() + self.text(x, nodes) + self.ws() for x in v]
                t = "[" + ",".join(parts) + "]"
        elif isinstance(v, dict):
            if not v:
                t = "{" + self.ws() + "}"
            else:
                members = []
                for k, x in v.items():
                    kt = self.string_text(k)
                    nodes.append("{" + kt + ":0}")
                    members.append(self.ws() + kt + self.ws() + ":" + self.ws()
                                   + self.text(x, nodes) + self.ws())
                t = "{" + ",".join(members) + "}"
        else:
            raise GeneratorBug(f"unexpected value {v!r}")
        nodes.append("[" + t + "]")
        return t

    def document(self) -> tuple[str, list[str]]:
        while True:
            nodes: list[str] = []
            v = self.document_value()
            t = self.ws() + self.text(v, nodes) + self.ws()
            if len(t.encode("utf-8")) <= MAX_DOC_BYTES:
                return t, nodes


# --------------------------------------------------------------------------------------------
# Rejections: bytes cardgate must refuse with exit 2 and a one-line message.
# --------------------------------------------------------------------------------------------


def rejections() -> list[tuple[str, bytes]]:
    cases = [
        # duplicate member names
        ("duplicate member", b'{"a":1,"a":2}'),
        ("duplicate member, same value", b'{"a":1,"a":1}'),
        ("duplicate member via escape", b'{"a":1,"\\u0061":2}'),
        ("duplicate member via uppercase escape", b'{"\\u00E9":1,"\xc3\xa9":2}'),
        ("duplicate member via short escape", b'{"/":1,"\\/":2}'),
        ("duplicate non-BMP member via surrogate escapes",
         b'{"\xf0\x9f\x98\x80":1,"\\ud83d\\ude00":2}'),
        ("duplicate empty member name", b'{"":1,"x":0,"":2}'),
        ("duplicate member nested in object", b'{"x":{"b":1,"c":2,"b":3}}'),
        ("duplicate member nested in array", b'[0,[{"k":null,"k":null}]]'),
        ("duplicate member deep", b'{"a":{"b":{"c":{"d":[{"e":1,"e":2}]}}}}'),
        ("duplicate member, not adjacent, whitespace", b'{ "k" : 1 ,\n "j":2,\t"k" : 3 }'),
        # lone surrogates
        ("lone high surrogate escape", b'["\\ud800"]'),
        ("lone low surrogate escape", b'["\\udc00"]'),
        ("high surrogate at end of string", b'["abc\\uD83D"]'),
        ("high surrogate followed by non-surrogate escape", b'["\\ud83d\\u0041"]'),
        ("high surrogate followed by literal", b'["\\ud83dx"]'),
        ("reversed surrogate pair", b'["\\ude00\\ud83d"]'),
        ("two high surrogates", b'["\\ud83d\\ud83d"]'),
        ("lone surrogate in member name", b'{"\\udfff":1}'),
        ("high surrogate then short escape", b'["\\ud800\\n"]'),
        # invalid UTF-8
        ("invalid byte 0xff", b'["\xff"]'),
        ("invalid UTF-8 in member name", b'{"\xfe":1}'),
        ("continuation byte alone", b'["\x80"]'),
        ("truncated 2-byte sequence", b'["\xc3"]'),
        ("truncated 3-byte sequence", b'["\xe2\x82"]'),
        ("overlong encoding of NUL", b'["\xc0\x80"]'),
        ("overlong encoding of slash", b'["\xe0\x80\xaf"]'),
        ("UTF-8 encoded surrogate", b'["\xed\xa0\x80"]'),
        ("CESU-8 encoded non-BMP", b'["\xed\xa0\xbd\xed\xb8\x80"]'),
        ("code point above U+10FFFF", b'["\xf4\x90\x80\x80"]'),
        ("latin-1 byte outside string", b'{"a":1}\xe9'),
        ("UTF-16LE document", '{"a":1}'.encode("utf-16-le")),
        # trailing data
        ("trailing object", b"{} {}"),
        ("trailing garbage", b'{"a":1}x'),
        ("trailing bracket", b"[1]]"),
        ("two numbers", b"1 2"),
        ("trailing NUL", b"{}\x00"),
        ("trailing comma at end", b"{},"),
        # numbers
        ("1e400", b"[1e400]"),
        ("-1e400", b'{"n":-1e400}'),
        ("1e309", b"[1e309]"),
        ("huge exponent", b"[1e99999999999999999999]"),
        ("halfway above the largest double", b"[1.7976931348623159e308]"),
        ("integer rounding up to 2^1024", b"[" + str(2**1024 - 2**970).encode() + b"]"),
        ("integer beyond double range", b"[1" + b"0" * 400 + b"]"),
        ("NaN", b"[NaN]"),
        ("Infinity", b"[Infinity]"),
        ("-Infinity", b"[-Infinity]"),
        ("nan lowercase", b'{"x":nan}'),
        ("leading zero", b"[01]"),
        ("leading plus", b"[+1]"),
        ("bare fraction", b"[.5]"),
        ("point without digits", b"[1.]"),
        ("exponent without digits", b"[1e]"),
        ("hex number", b"[0x10]"),
        ("minus alone", b"[-]"),
        # empty input and comments
        ("empty input", b""),
        ("only whitespace", b" \t\r\n"),
        ("line comment", b'// c\n{"a":1}'),
        ("block comment", b'{/* c */"a":1}'),
        ("hash comment", b'# c\n{"a":1}'),
        # other grammar errors
        ("trailing comma in array", b"[1,]"),
        ("trailing comma in object", b'{"a":1,}'),
        ("single quotes", b"{'a':1}"),
        ("unquoted member name", b"{a:1}"),
        ("raw control character in string", b'["a\x01b"]'),
        ("raw newline in string", b'["a\nb"]'),
        ("raw tab in string", b'["a\tb"]'),
        ("bad escape", b'["\\x41"]'),
        ("short unicode escape", b'["\\u12"]'),
        ("non-hex unicode escape", b'["\\u12G4"]'),
        ("uppercase U escape", b'["\\U0041"]'),
        ("unterminated string", b'["abc'),
        ("unterminated array", b"[1,2"),
        ("unterminated object", b'{"a":1'),
        ("missing colon", b'{"a" 1}'),
        ("missing value", b'{"a":}'),
        ("True capitalised", b"[True]"),
        ("form feed as whitespace", b"\x0c{}"),
        ("no-break space as whitespace", b"\xc2\xa0{}"),
        ("too deep", b"[" * 200 + b"]" * 200),
    ]
    return cases


# --------------------------------------------------------------------------------------------
# Running cardgate
# --------------------------------------------------------------------------------------------


class Runner:
    def __init__(self, binary: str, timeout: float):
        self.binary = binary
        self.timeout = timeout

    def run(self, data: bytes, via_file: bool = False) -> tuple[int, bytes, bytes]:
        if via_file:
            fd, path = tempfile.mkstemp(prefix="jcs-diff-", suffix=".json")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                p = subprocess.run([self.binary, "canonicalize", path], stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=self.timeout)
            finally:
                os.unlink(path)
        else:
            p = subprocess.run([self.binary, "canonicalize", "-"], input=data,
                               capture_output=True, timeout=self.timeout)
        return p.returncode, p.stdout, p.stderr


def check_canonical(runner: Runner, text: str, expected: bytes, via_file: bool):
    """None when cardgate produced exactly `expected`, else a description."""
    try:
        rc, out, err = runner.run(text.encode("utf-8"), via_file)
    except subprocess.TimeoutExpired:
        return {"rc": None, "out": b"", "err": b"timeout"}
    if rc == 0 and out == expected:
        return None
    return {"rc": rc, "out": out, "err": err}


def check_rejection(runner: Runner, data: bytes):
    try:
        rc, out, err = runner.run(data)
    except subprocess.TimeoutExpired:
        return "timed out"
    problems = []
    if rc != 2:
        problems.append(f"exit {rc}, want 2")
    if out:
        problems.append(f"stdout not empty: {out[:200]!r}")
    msg = err.decode("utf-8", "replace")
    if msg.endswith("\n"):
        msg = msg[:-1]
    if not msg.strip():
        problems.append("stderr empty")
    elif "\n" in msg:
        problems.append(f"stderr is {msg.count(chr(10)) + 1} lines: {msg[:300]!r}")
    return "; ".join(problems) or None


def shrink(runner: Runner, nodes: list[str]):
    """Smallest recorded sub-value text that fails on its own, with its expectation."""
    for t in sorted(set(nodes), key=len)[:400]:
        try:
            expected = oracle(t)
        except Exception:  # noqa: BLE001 - a node that the oracle refuses is no reproducer
            continue
        if check_canonical(runner, t, expected, False) is not None:
            return t, expected
    return None


def show(label: str, text: str, expected: bytes, got: dict, reproducer) -> None:
    print(f"--- FAIL {label}", file=sys.stderr)
    shown = text if len(text) <= 1500 else text[:1500] + "...(truncated)"
    print(f"  input    {shown!r}", file=sys.stderr)
    print(f"  expected {expected!r}", file=sys.stderr)
    print(f"  actual   exit {got['rc']}: {got['out'][:1500]!r}", file=sys.stderr)
    if got["err"]:
        print(f"  stderr   {got['err'][:500]!r}", file=sys.stderr)
    if reproducer is not None:
        t, e = reproducer
        print(f"  smallest failing part: input {t!r} expected {e!r}", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cardgate", default="target/release/cardgate", help="cardgate binary")
    ap.add_argument("--count", type=int, default=10000, help="generated documents")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--show", type=int, default=5, help="failures printed in full")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per cardgate run")
    args = ap.parse_args()

    if not (os.path.isfile(args.cardgate) and os.access(args.cardgate, os.X_OK)):
        print(f"jcs-differential: cardgate binary {args.cardgate!r} not found or not executable",
              file=sys.stderr)
        return 2
    runner = Runner(args.cardgate, args.timeout)
    print(f"jcs-differential: seed {args.seed}, {args.count} documents, rfc8785 "
          f"{getattr(rfc8785, '__version__', '?')}, {args.jobs} jobs, cardgate {args.cardgate}")

    # The oracle must agree with the RFC before it may judge cardgate.
    known = known_answers()
    for label, text, want in known:
        got = oracle(text)
        if got != want.encode("utf-8"):
            print(f"jcs-differential: ORACLE disagrees with the RFC on {label}: "
                  f"{got!r} != {want.encode()!r}", file=sys.stderr)
            return 3

    t_gen = time.monotonic()
    gen = Generator(args.seed)
    docs = []  # (label, text, expected, nodes)
    for label, text, want in known:
        docs.append((label, text, want.encode("utf-8"), [text]))
    try:
        for i in range(args.count):
            text, nodes = gen.document()
            docs.append((f"doc #{i}", text, oracle(text), nodes))
    except GeneratorBug as e:
        print(f"jcs-differential: generator bug: {e}", file=sys.stderr)
        return 3
    total_bytes = sum(len(d[1].encode("utf-8")) for d in docs)

    t0 = time.monotonic()
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(check_canonical, runner, text, exp, i % FILE_MODE_EVERY == 1)
                   for i, (_, text, exp, _) in enumerate(docs)]
        for doc, fut in zip(docs, futures):
            got = fut.result()
            if got is not None:
                failures.append((doc, got))
        neg = rejections()
        neg_results = list(pool.map(lambda c: check_rejection(runner, c[1]), neg))
    run_s = time.monotonic() - t0

    for (label, text, expected, nodes), got in failures[: args.show]:
        show(label, text, expected, got, shrink(runner, nodes))
    if len(failures) > args.show:
        print(f"... and {len(failures) - args.show} more canonicalization failures",
              file=sys.stderr)
    neg_failed = [(c, r) for c, r in zip(neg, neg_results) if r is not None]
    for (label, data), problem in neg_failed:
        print(f"--- FAIL rejection {label}: input {data[:200]!r}: {problem}", file=sys.stderr)

    n_docs = len(docs)
    passed = (n_docs - len(failures)) + (len(neg) - len(neg_failed))
    failed = len(failures) + len(neg_failed)
    spawns = n_docs + len(neg)
    print(
        f"jcs-differential: {passed} passed, {failed} failed "
        f"({n_docs - len(failures)}/{n_docs} documents canonical incl. {len(known)} known answers, "
        f"{len(neg) - len(neg_failed)}/{len(neg)} rejected; {total_bytes} bytes; "
        f"elapsed {time.monotonic() - t_gen:.1f} s (cardgate {run_s:.1f} s, "
        f"{spawns / run_s if run_s else 0:.0f} docs/s); seed {args.seed})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
