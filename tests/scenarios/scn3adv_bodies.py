"""Third pass, adversarial bodies (class 1): every JSON grammar edge, duplicates, encodings, sizes,
costly shapes within the limit. Expectations from DESIGN.md "Card bytes" and the reason-code
table. Seeded (SCN3_SEED) for the random part. Run: .tools/py/bin/python tests/scenarios/scn3adv_bodies.py"""
import codecs
import json
import sys

from scn3adv_lib import Case, FRESH, FRESH_B, RNG, replace, run_all, with_member

C = []


def add(name, body, expect, **kw):
    C.append(Case("body", name, body, expect, **kw))


# --- numbers (an unknown member's value: counts for the hash only)
for text, exp in [(b"-0", "valid"), (b"-0.0", "valid"), (b"0e0", "valid"), (b"1E400", "number_out_of_range"),
                  (b"-1E400", "number_out_of_range"), (b"1e-400", "valid"), (b"-1e-400", "valid"),
                  (b"1e999999999999999999999999", "number_out_of_range"),
                  (b"1e-999999999999999999999999", "valid"), (b"0e999999999999999999999999", "valid"),
                  (b"1.7976931348623157e308", "valid"), (b"1.7976931348623159e308", "number_out_of_range"),
                  (b"4.9e-324", "valid"), (b"2.4703282292062327e-324", "valid"),
                  (b"1" + b"0" * 309, "number_out_of_range"), (b"1" + b"0" * 308, "valid"),
                  (b"0." + b"0" * 5000 + b"1", "valid"), (b"1" * 5000 + b"e-5000", "valid"),
                  # Inside a document, a digit after a leading 0 is a syntax error where the
                  # object expects `,` or `}` (DESIGN's "data after the number 0" is the top level).
                  (b"01", "json_syntax"), (b"-01", "json_syntax"), (b"00", "json_syntax"),
                  (b"1.", "json_syntax"), (b".1", "json_syntax"), (b"+1", "json_syntax"), (b"1e", "json_syntax"),
                  (b"1e+", "json_syntax"), (b"-", "json_syntax"), (b"0x10", "json_syntax"),
                  (b"Infinity", "json_syntax"), (b"-Infinity", "json_syntax"), (b"NaN", "json_syntax"),
                  (b"1_000", "json_syntax"), (b"\xef\xbc\x91", "json_syntax"), (b"1 2", "json_syntax")]:
    add("number %r" % text[:40], with_member(text), exp)
add("number -0 inside a skill", with_member(b"-0", "skill"), "valid")
add("version as a number 3", replace(b'"version":"3.0.0"', b'"version":3'), "wrong_type")
add("version 3e0", replace(b'"version":"3.0.0"', b'"version":3e0'), "wrong_type")

# --- strings
for text, exp in [(rb'"\"\\\/\b\f\n\r\t\u0041"', "valid"), (rb'"\u0000"', "valid"), (rb'"\x41"', "json_syntax"),
                  (rb'"\u00"', "json_syntax"), (rb'"\U0041"', "json_syntax"), (rb'"\'"', "json_syntax"),
                  (rb'"\ud800"', "lone_surrogate"), (rb'"\udc00"', "lone_surrogate"),
                  (rb'"\udc00\ud800"', "lone_surrogate"), (rb'"\ud83d\ude00"', "valid"),
                  (rb'"\ud800\u0041"', "lone_surrogate"), (rb'"\ud800\\"', "lone_surrogate"),
                  # the lone surrogate comes before the end of the text: the first problem
                  (rb'"\uD83D\uDE00"', "valid"), (rb'"\ud800', "lone_surrogate"),
                  (b'"\xed\xa0\x80"', "invalid_utf8"), (b'"\xed\xb0\x80"', "invalid_utf8"),
                  (b'"\xc0\xaf"', "invalid_utf8"), (b'"\xe0\x80\xaf"', "invalid_utf8"),
                  (b'"\xf0\x80\x80\xaf"', "invalid_utf8"), (b'"\xe2\x82"', "invalid_utf8"),
                  (b'"\xf8\x88\x80\x80\x80"', "invalid_utf8"), (b'"\xf4\x90\x80\x80"', "invalid_utf8"),
                  (b'"\xff"', "invalid_utf8"), (b'"\x80"', "invalid_utf8"),
                  ('"\u2028\u2029"'.encode(), "valid"), ('"\ufffe\uffff\U0001fffe\U0010ffff"'.encode(), "valid"),
                  (rb'"\ufffe\uffff\ud83f\udffe"', "valid"), (b'"\x01"', "json_syntax"), (b'"\x1f"', "json_syntax"),
                  (b'"\t"', "json_syntax"), (b'"\x7f"', "valid"), (b'"a\x00b"', "json_syntax"),
                  ('"\u00e9"'.encode(), "valid"), ('"e\u0301"'.encode(), "valid")]:
    add("string %r" % text[:40], with_member(text), exp)
add("name with \\u0000", replace(b'"name":"', b'"name":"\\u0000'), "valid")
add("skill id spelled with escapes", replace(b'"id":"task.execute.v3"', rb'"id":"task\u002eexecute\u002ev3"'), "valid")
add("skill id with a lone surrogate", replace(b'"id":"task.execute.v3"', rb'"id":"task.execute.v3\udfff"'),
    "lone_surrogate")
add("skill id with U+2028", replace(b'"id":"task.execute.v3"', '"id":"task.execute.v3\u2028"'.encode()),
    "capabilities_missing")
add("version with a raw NUL", replace(b'"version":"3.0.0"', b'"version":"3.0.0\x00"'), "json_syntax")

# --- nesting (under an unknown member; the card object is level 1)
for depth, exp in [(62, "valid"), (63, "valid"), (64, "too_deep"), (65, "too_deep"), (126, "too_deep"),
                   (127, "too_deep"), (128, "too_deep"), (20000, "too_deep")]:
    add("nesting: %d arrays under x" % depth, with_member(b"[" * depth + b"]" * depth), exp)
add("nesting: 63 objects under x", with_member(b'{"a":' * 63 + b"1" + b"}" * 63), "valid")
add("nesting: 64 objects under x", with_member(b'{"a":' * 64 + b"1" + b"}" * 64), "too_deep")
add("nesting: 30000 unclosed [", with_member(b"[" * 30000), "too_deep")
add("nesting: 64 arrays, then a syntax error", with_member(b"[" * 64 + b"x"), "too_deep")

# --- duplicates
add("duplicate name", replace(b'"name":', b'"name":"A","name":'), "duplicate_member")
add("duplicate name spelled \\u006e", replace(b'"name":', rb'"\u006eame":"A","name":'), "duplicate_member")
add("duplicate skill id in a skill", replace(b'"id":"task.execute.v3"', b'"id":"x","id":"task.execute.v3"'),
    "duplicate_member")
add("duplicate at depth 10", with_member(b'{"a":' * 9 + b'{"k":1,"k":2}' + b"}" * 9), "duplicate_member")
add("duplicate \\/ vs /", with_member(rb'{"a/b":1,"a\/b":2}'), "duplicate_member")
add("duplicate \\u00e9 vs raw", with_member('{"\u00e9":1,"\\u00e9":2}'.encode()), "duplicate_member")
add("duplicate emoji raw vs pair", with_member('{"\U0001f600":1,"\\ud83d\\ude00":2}'.encode()), "duplicate_member")
add("not duplicate NFC vs NFD", with_member('{"\u00e9":1,"e\u0301":2}'.encode()), "valid")
add("not duplicate by case", with_member(b'{"K":1,"k":2}'), "valid")
add("duplicate \\u0000 names", with_member(rb'{"\u0000":1,"\u0000":2}'), "duplicate_member")
add("duplicate empty names", with_member(b'{"":1,"":2}'), "duplicate_member")
add("duplicate x before a later syntax error", with_member(b'{"k":1,"k":2,}'), "duplicate_member")
add("duplicate after a lone surrogate", with_member(rb'{"k":"\ud800","k":2}'), "lone_surrogate")
add("duplicate capabilities", replace(b'"capabilities":', b'"capabilities":{},"capabilities":'), "duplicate_member")

# --- encodings, BOM, NUL, whitespace
text = FRESH_B.decode()
add("UTF-8 BOM", b"\xef\xbb\xbf" + FRESH_B, "json_syntax")
add("BOM only", b"\xef\xbb\xbf", "json_syntax")
add("BOM after whitespace", b" \xef\xbb\xbf" + FRESH_B, "json_syntax")
for enc in ("utf-16-le", "utf-16-be", "utf-16", "utf-32-le", "utf-32-be", "utf-32"):
    add("body in %s" % enc, codecs.encode(text, enc), "fail")
add("leading NUL", b"\x00" + FRESH_B, "json_syntax")
add("trailing NUL", FRESH_B + b"\x00", "trailing_data")
add("all NUL", b"\x00" * 100, "json_syntax")
add("trailing garbage", FRESH_B + b"x", "trailing_data")
add("a second document", FRESH_B + b"{}", "trailing_data")
add("trailing }", FRESH_B + b"}", "trailing_data")
add("trailing NBSP", FRESH_B + "\u00a0".encode(), "trailing_data")
add("trailing VT", FRESH_B + b"\x0b", "trailing_data")
add("trailing FF", FRESH_B + b"\x0c", "trailing_data")
add("leading FF", b"\x0c" + FRESH_B, "json_syntax")
add("whitespace everywhere", b" \t\r\n" + json.dumps(FRESH, indent="\t", separators=(" ,\r\n", "\t:\r ")).encode()
    + b"\r\n\t ", "valid")
add("CR only line ends", FRESH_B.replace(b",", b"\r,\r"), "valid")
add("U+3000 as whitespace", FRESH_B.replace(b",", "\u3000,".encode(), 1), "json_syntax")
add("empty body", b"", "body_empty")
add("whitespace only", b" \r\n\t", "body_empty")
add("invalid UTF-8 after whitespace only", b" \xff", "invalid_utf8")
add("invalid UTF-8 late, after a syntax error", b"{x" + b" " * 10 + b"\xff", "invalid_utf8")
add("top level []", b"[]", "not_an_object")
add("top level null", b"null", "not_an_object")
add("top level string", b'"x"', "not_an_object")
add("top level -0", b"-0", "not_an_object")
add("top level 01 (the number 0, then data)", b"01", "trailing_data")
add("comment", b"/*c*/" + FRESH_B, "json_syntax")
add("trailing comma in object", FRESH_B[:-1] + b",}", "json_syntax")
add("single quotes", FRESH_B.replace(b'"name"', b"'name'"), "json_syntax")


# --- sizes (limit 65536)
def padded(total):
    base = with_member(b'""')
    pad = total - len(base)
    return with_member(b'"' + b"a" * pad + b'"')


add("body of exactly 65536 bytes", padded(65536), "valid")
add("body of 65537 bytes", padded(65537), "body_too_large")
add("65536 bytes + trailing newline", padded(65536) + b"\n", "body_too_large")
add("65530 bytes + 6 whitespace", padded(65530) + b" " * 6, "valid")
add("1 MiB body", padded(1 << 20), "body_too_large")
add("65536 bytes of [", b"[" * 65536, "too_deep")
add("65537 bytes, invalid UTF-8 at the end", padded(65536) + b"\xff", "body_too_large")


# --- costly shapes within the limit (time and memory are watched)
def fill(prefix, item, sep, suffix, total=65000):
    n = (total - len(prefix) - len(suffix)) // (len(item(0)) + len(sep))
    return prefix + sep.join(item(i) for i in range(n)) + suffix


add("an object of ~7000 distinct members", with_member(fill(b"{", lambda i: b'"k%05d":1' % i, b",", b"}", 64000)), "valid")
add("~7000 members, the last a duplicate of the first",
    with_member(fill(b"{", lambda i: b'"k%05d":1' % i, b",", b',"k00000":2}', 64000)), "duplicate_member")
add("~7000 members in reverse order (hash sorts them)",
    with_member(fill(b"{", lambda i: b'"k%05d":1' % (99999 - i), b",", b"}", 64000)), "valid")
add("an array of 21000 empty objects", with_member(fill(b"[", lambda i: b"{}", b",", b"]", 64000)), "valid")
add("3000 skills", replace(b'"skills":[', fill(b'"skills":[', lambda i: b'{"id":"s%05d","name":"n"},' % i, b"", b"",
                                                 60000)), "valid")
add("64 KiB of \\u0000 escapes", with_member(fill(b'"', lambda i: rb"\u0000", b"", b'"', 64000)), "valid")
add("64 KiB of surrogate pairs", with_member(fill(b'"', lambda i: rb"\ud83d\ude00", b"", b'"', 64000)), "valid")
add("a 64 KiB member name", with_member(b'{"' + b"n" * 63000 + b'":1}'), "valid")
add("a 64 KiB number", with_member(b"0." + b"1" * 63000), "valid")
add("62 levels, many times", with_member(fill(b"[", lambda i: b"[" * 61 + b"]" * 61, b",", b"]", 64000)), "valid")

# --- seeded random JSON values of edge tokens, as an unknown member's value
TOKENS = [b"-0", b"1e400", b"1e-400", b"0", b"01", b"1.5e+3", rb'"\ud800"', rb'"\ud83d\ude00"', rb'"\u0000"',
          b'"\xe2\x80\xa8"', b'"\xff"', b'"\xed\xa0\x80"', b"true", b"nul", b"[]", b"{}", b'""', b"\xef\xbb\xbf"]


def rand_value(depth=0):
    r = RNG.random()
    if depth > 70 or r < 0.4:
        return RNG.choice(TOKENS)
    if r < 0.7:
        return b"[" + b",".join(rand_value(depth + 1) for _ in range(RNG.randrange(3))) + b"]"
    keys = [RNG.choice([b'"a"', rb'"\u0061"', b'"b"', b'""', rb'"\/"', b'"/"']) for _ in range(RNG.randrange(3))]
    return b"{" + b",".join(k + b":" + rand_value(depth + 1) for k in keys) + b"}"


for i in range(80):
    add("random value %d" % i, with_member(rand_value()), "any")

# --- seeded random mutations of the fresh card: one byte changed, dropped, or repeated
for i in range(60):
    body = bytearray(FRESH_B)
    pos = RNG.randrange(len(body))
    op = RNG.choice(["set", "drop", "dup", "insert"])
    byte = RNG.choice([0, 0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x80, 0xc3, 0xed, 0xff, 0x20, 0x30, 0x65])
    if op == "set":
        body[pos] = byte
    elif op == "drop":
        del body[pos]
    elif op == "dup":
        body[pos:pos] = body[pos:pos + 1]
    else:
        body[pos:pos] = bytes([byte])
    add("mutation %d: %s 0x%02x at %d" % (i, op, byte, pos), bytes(body), "any")

if __name__ == "__main__":
    run_all(C)
    sys.exit(0)
