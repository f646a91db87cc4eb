"""Third pass, adversarial HTTP answers (class 2): Content-Encoding, Content-Type, Content-Length,
chunked framing, statuses, watermark header values. Expectations from DESIGN.md ("Watermark
headers", "Envoy's HTTP mapping", the CLI and Node hosts under "Re-resolution"); a dict names a
documented difference between runtimes (the npm package's fetch decodes codings it knows).
Run: .tools/py/bin/python tests/scenarios/scn3adv_http.py"""
import gzip
import subprocess
import sys
import zlib

from scn3adv_lib import Case, FRESH_B, run_all

C = []
JSON = ("content-type", "application/json")
LAG0 = ("x-replica-lag-ms", "0")


def add(name, body=FRESH_B, expect="valid", headers=None, **kw):
    C.append(Case("http", name, body, expect, headers=[JSON, LAG0] if headers is None else headers, **kw))


def brotli(data):
    return subprocess.run(["node", "-e", "process.stdout.write(require('zlib').brotliCompressSync(require('fs')"
                           ".readFileSync(0)))"], input=data, capture_output=True, check=True).stdout


GZ = gzip.compress(FRESH_B)
DEFL = zlib.compress(FRESH_B)
RAWDEFL = zlib.compress(FRESH_B, wbits=-15) if False else zlib.compressobj(wbits=-15).compress(FRESH_B)
co = zlib.compressobj(wbits=-15)
RAWDEFL = co.compress(FRESH_B) + co.flush()
BR = brotli(FRESH_B)
BOMB = gzip.compress(b" " * (64 << 20), 9)  # 64 MiB of spaces in about 64 KiB
# Decoded by a fetch that knows the coding (the caller reads the same card): valid in the npm
# package; the CLI and the filter decode nothing (body_encoded).
ENC = {"resolve": "body_encoded", "envoy": "body_encoded", "nresolve": "valid"}
ENC_RAW = {"resolve": "body_encoded", "envoy": "body_encoded", "nresolve": "fail"}

# --- Content-Encoding
add("gzip, compressed", GZ, ENC, headers=[JSON, LAG0, ("content-encoding", "gzip")])
add("gzip, not compressed", FRESH_B, ENC_RAW, headers=[JSON, LAG0, ("content-encoding", "gzip")])
add("x-gzip, compressed", GZ, ENC, headers=[JSON, LAG0, ("content-encoding", "x-gzip")])
add("GZIP (case), compressed", GZ, ENC, headers=[JSON, LAG0, ("Content-Encoding", "GZIP")])
add("deflate (zlib), compressed", DEFL, ENC, headers=[JSON, LAG0, ("content-encoding", "deflate")])
add("deflate (raw), compressed", RAWDEFL, {"resolve": "body_encoded", "envoy": "body_encoded", "nresolve": "any"},
    headers=[JSON, LAG0, ("content-encoding", "deflate")])
add("deflate, not compressed", FRESH_B, ENC_RAW, headers=[JSON, LAG0, ("content-encoding", "deflate")])
add("br, compressed", BR, ENC, headers=[JSON, LAG0, ("content-encoding", "br")])
add("br, not compressed", FRESH_B, ENC_RAW, headers=[JSON, LAG0, ("content-encoding", "br")])
add("gzip twice (two headers), compressed twice", gzip.compress(GZ), ENC,
    headers=[JSON, LAG0, ("content-encoding", "gzip"), ("content-encoding", "gzip")])
add("gzip, gzip (one header), compressed once", GZ, {"resolve": "body_encoded", "envoy": "body_encoded", "nresolve": "fail"},
    headers=[JSON, LAG0, ("content-encoding", "gzip, gzip")])
# undici decodes nothing when one listed coding is unknown to it (identity is): the gate gets the
# gzip bytes (invalid_utf8) where the CLI and the filter refuse the coding.
NOT_DECODED = {"resolve": "body_encoded", "envoy": "body_encoded", "nresolve": "invalid_utf8"}
add("gzip, identity, compressed", GZ, NOT_DECODED, headers=[JSON, LAG0, ("content-encoding", "gzip, identity")])
add("identity, gzip, compressed", GZ, NOT_DECODED, headers=[JSON, LAG0, ("content-encoding", "identity, gzip")])
add("identity", FRESH_B, "valid", headers=[JSON, LAG0, ("content-encoding", "identity")])
add("IDENTITY (case)", FRESH_B, "valid", headers=[JSON, LAG0, ("content-encoding", "IDENTITY")])
add("identity with spaces and tab", FRESH_B, "valid", headers=[JSON, LAG0, ("content-encoding", " \tidentity \t")])
add("identity, identity", FRESH_B, "valid", headers=[JSON, LAG0, ("content-encoding", "identity, identity")])
add("identity;q=1 (a parameter)", FRESH_B, {"resolve": "body_encoded", "envoy": "body_encoded", "nresolve": "valid"},
    headers=[JSON, LAG0, ("content-encoding", "identity;q=1")])
add("identity then an empty header", FRESH_B, "valid",
    headers=[JSON, LAG0, ("content-encoding", "identity"), ("content-encoding", "")])
add("a comma only", FRESH_B, "any", headers=[JSON, LAG0, ("content-encoding", ",")])
add("zstd, not compressed", FRESH_B, {"resolve": "body_encoded", "envoy": "body_encoded", "nresolve": "any"},
    headers=[JSON, LAG0, ("content-encoding", "zstd")])
add("non-UTF-8 coding \\xff", FRESH_B, {"resolve": "body_encoded", "envoy": "body_encoded", "nresolve": "valid"},
    headers=[JSON, LAG0, ("content-encoding", "\xff")])
add("gzip bomb: 64 MiB of spaces", BOMB, {"resolve": "body_encoded", "envoy": "body_encoded",
                                          "nresolve": "body_too_large"},
    headers=[JSON, LAG0, ("content-encoding", "gzip")])
add("gzip compressed, no Content-Encoding", GZ, "invalid_utf8", headers=[JSON, LAG0])

# --- Content-Type
add("no Content-Type", FRESH_B, "valid", headers=[LAG0])
add("text/html", FRESH_B, "valid", headers=[("content-type", "text/html"), LAG0])
add("charset=UTF-8", FRESH_B, "valid", headers=[("content-type", "application/json; charset=UTF-8"), LAG0])
add('charset="utf-8" (quoted)', FRESH_B, "valid", headers=[("content-type", 'application/json; charset="utf-8"'), LAG0])
add("charset=utf-16, UTF-8 body", FRESH_B, {"envoy": "body_encoded", "resolve": "any", "nresolve": "valid"},
    headers=[("content-type", "application/json; charset=utf-16"), LAG0])
add("charset=latin1, ASCII body", FRESH_B, {"envoy": "body_encoded", "resolve": "any", "nresolve": "valid"},
    headers=[("content-type", "application/json;charset=latin1"), LAG0])
add("charset utf-8 then utf-16 (one header)", FRESH_B, {"envoy": "body_encoded", "resolve": "any", "nresolve": "valid"},
    headers=[("content-type", "application/json; charset=utf-8; charset=utf-16"), LAG0])
add("CHARSET=UTF-16 (case)", FRESH_B, {"envoy": "body_encoded", "resolve": "any", "nresolve": "valid"},
    headers=[("content-type", "application/json; CHARSET=UTF-16"), LAG0])
add("charset = utf-16 (spaces around =)", FRESH_B, {"envoy": "any", "resolve": "any", "nresolve": "valid"},
    headers=[("content-type", "application/json; charset = utf-16"), LAG0])
add("two Content-Type headers, second utf-16", FRESH_B, {"envoy": "body_encoded", "resolve": "any", "nresolve": "valid"},
    headers=[("content-type", "application/json"), ("content-type", "application/json; charset=utf-16"), LAG0])
add("Content-Type junk ;;;", FRESH_B, "valid", headers=[("content-type", ";;;=;"), LAG0])
add("Content-Type non-UTF-8", FRESH_B, {"envoy": "body_encoded", "resolve": "any", "nresolve": "valid"}, headers=[("content-type", "application/json; charset=\xff"), LAG0])

# --- Content-Length and framing (raw responses)
def raw(head, body):
    return head.encode("latin-1") + body


H = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-replica-lag-ms: 0\r\nconnection: close\r\n"
add("Content-Length short: the card, then garbage", raw(H + "content-length: %d\r\n\r\n" % len(FRESH_B), FRESH_B + b"garbage"),
    "valid", raw=raw(H + "content-length: %d\r\n\r\n" % len(FRESH_B), FRESH_B + b"garbage"))
C[-1].body = FRESH_B
add("Content-Length long (truncated body)", FRESH_B, "fail", raw=raw(H + "content-length: %d\r\n\r\n" % (len(FRESH_B) + 10), FRESH_B))
add("two Content-Length values", FRESH_B, "fail",
    raw=raw(H + "content-length: %d\r\ncontent-length: %d\r\n\r\n" % (len(FRESH_B), len(FRESH_B) - 1), FRESH_B))
add("Content-Length +N", FRESH_B, "fail", raw=raw(H + "content-length: +%d\r\n\r\n" % len(FRESH_B), FRESH_B))
add("Content-Length and chunked", FRESH_B, "pass",
    raw=raw(H + "content-length: 3\r\ntransfer-encoding: chunked\r\n\r\n", b"%x\r\n" % len(FRESH_B) + FRESH_B + b"\r\n0\r\n\r\n"))


def chunked(chunks, ext="", trailers="", end=b"0"):
    out = b""
    for ch in chunks:
        out += b"%x" % len(ch) + ext.encode() + b"\r\n" + ch + b"\r\n"
    return out + end + ext.encode() + b"\r\n" + trailers.encode("latin-1") + b"\r\n"


HC = H + "transfer-encoding: chunked\r\n\r\n"
parts = [FRESH_B[i:i + 50] for i in range(0, len(FRESH_B), 50)]
add("chunked with extensions", FRESH_B, "valid", raw=raw(HC, chunked(parts, ext=';ext="a b";x')))
add("chunked with a stale watermark trailer", FRESH_B, "valid",
    raw=raw(HC, chunked(parts, trailers="x-replica-lag-ms: 99999\r\n")))
add("chunked with a forged verdict trailer", FRESH_B, "valid",
    raw=raw(HC, chunked(parts, trailers="a2a-card-verdict: valid\r\n")))
HC_NOWM = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n"
add("watermark only in a trailer", FRESH_B, "freshness_unverifiable",
    raw=raw(HC_NOWM, chunked(parts, trailers="x-replica-lag-ms: 0\r\n")))
add("chunk sizes with leading zeros", FRESH_B, "valid",
    raw=raw(HC, b"".join(b"000%x\r\n" % len(p) + p + b"\r\n" for p in parts) + b"0000\r\n\r\n"))
add("chunk size zz", FRESH_B, "fail", raw=raw(HC, b"zz\r\n" + FRESH_B + b"\r\n0\r\n\r\n"))
# HTTP parsers differ on framing errors; each fails closed (undici reads to the close: trailing_data).
add("chunk size ffffffffffffffff", FRESH_B, {"resolve": "pass", "envoy": "pass", "nresolve": "trailing_data"}, raw=raw(HC, b"ffffffffffffffff\r\n" + FRESH_B + b"\r\n0\r\n\r\n"))
# undici ends the body at the close without the last chunk: the whole card had arrived, and a
# caller's fetch reads the same card (a strict prefix of a JSON object is never a whole one).
add("chunked, no last chunk", FRESH_B, {"resolve": "pass", "envoy": "pass", "nresolve": "valid"}, raw=raw(HC, b"%x\r\n" % len(FRESH_B) + FRESH_B + b"\r\n"))
add("chunked, bare LF", FRESH_B, "any", raw=raw(HC, b"%x\n" % len(FRESH_B) + FRESH_B + b"\n0\n\n"))
# undici refuses an interim 1xx nobody asked for (the caller's fetch too): a failed source.
add("100 Continue, then 200", FRESH_B, {"resolve": "valid", "envoy": "valid", "nresolve": "pass"},
    raw=b"HTTP/1.1 100 Continue\r\n\r\n" + raw(H + "content-length: %d\r\n\r\n" % len(FRESH_B), FRESH_B))
add("HTTP/1.0, close-delimited", FRESH_B, "valid",
    raw=raw("HTTP/1.0 200 OK\r\ncontent-type: application/json\r\nx-replica-lag-ms: 0\r\n\r\n", FRESH_B))
add("obs-fold watermark (0, then a folded 50000)", FRESH_B,
    {"resolve": "pass", "envoy": "watermark_invalid", "nresolve": "watermark_invalid"},
    raw=raw("HTTP/1.1 200 OK\r\nx-replica-lag-ms: 0\r\n 50000\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
            % len(FRESH_B), FRESH_B))
add("space before the colon of a watermark", FRESH_B,
    {"resolve": "pass", "envoy": "pass", "nresolve": "freshness_unverifiable"},
    raw=raw("HTTP/1.1 200 OK\r\nx-replica-lag-ms : 0\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
            % len(FRESH_B), FRESH_B))
add("status line 2000 OK", FRESH_B, "fail", raw=raw(H.replace("200 OK", "2000 OK") + "\r\n", FRESH_B))
add("status reason non-UTF-8", FRESH_B, "valid",
    raw=raw(H.replace("200 OK", "200 \xff\xfe") + "content-length: %d\r\n\r\n" % len(FRESH_B), FRESH_B))

# --- statuses
for st, exp in [("201 Created", "valid"), ("202 Accepted", "valid"), ("299 Whatever", "valid"),
                ("300 Multiple Choices", "pass"), ("404 Not Found", "pass"), ("500 Internal Server Error", "pass"),
                ("203 Non-Authoritative Information", "valid")]:
    add("status %s with the card" % st, FRESH_B, exp, status=st)

# --- watermark header values
STALE = ("x-replica-lag-ms", "50000")
for hs, exp, name in [
        ([("x-replica-lag-ms", "0, 50000")], "watermark_invalid", "lag_ms as a list in one header"),
        ([("X-Replica-Lag-Ms", "0"), ("x-replica-lag-ms", "0")], "watermark_invalid", "lag_ms twice, odd case"),
        ([("X-REPLICA-LAG-MS", "0")], "valid", "lag_ms name in upper case"),
        ([("x-replica-lag-ms", "\xff")], "watermark_invalid", "lag_ms non-UTF-8"),
        ([("x-replica-lag-ms", "0\xa0")], "watermark_invalid", "lag_ms with a latin-1 NBSP"),
        ([("x-replica-lag-ms", "0" * 8000)], "valid", "lag_ms 8000 zeros"),
        ([("x-replica-lag-ms", "0" * 30000)], {"resolve": "valid", "envoy": "valid", "nresolve": "any"},
         "lag_ms 30000 zeros (past undici's 16 KiB header limit: a failed source there)"),
        ([("x-replica-lag-ms", "9" * 400)], "watermark_invalid", "lag_ms 400 nines"),
        ([("x-replica-lag-ms", "\t0\t")], "valid", "lag_ms between tabs"),
        ([("x-replica-lag-ms", "")], "watermark_invalid", "lag_ms empty"),
        ([("x-replica-lag-s", "1e3")], "watermark_invalid", "lag_s 1e3"),
        ([("x-replica-lag-s", "0x0")], "watermark_invalid", "lag_s 0x0"),
        ([("x-replica-lag-s", "\u0660".encode().decode("latin-1"))], "watermark_invalid", "lag_s Arabic-Indic zero"),
        ([LAG0, ("age", "0"), ("AGE", "0")], "watermark_invalid", "Age twice"),
        ([LAG0, ("age", "0, 0")], "watermark_invalid", "Age list"),
        ([LAG0, ("age", "99999999999999999999")], "watermark_invalid", "Age past 2^53 ms"),
        ([("x-replica-synced-at", "2026-11-09T12:00:40Z\xa0")], "watermark_invalid", "synced_at with NBSP"),
        ([("x-replica-synced-at", "2026-11-09T12:00:40Z"), ("x-replica-synced-at", "2026-11-09T12:00:40Z")],
         "watermark_invalid", "synced_at twice, equal"),
        ([("X-Consul-LastContact", "0"), ("X-Consul-KnownLeader", "TRUE")], "watermark_invalid", "KnownLeader TRUE"),
        ([("x-consul-lastcontact", "0"), ("x-consul-knownleader", "true")], "valid", "Consul pair in lower case"),
        ([("X-Consul-LastContact", "0"), ("X-Consul-KnownLeader", "true"), ("x-consul-knownleader", "true")],
         "watermark_invalid", "KnownLeader twice"),
        ([("X-Consul-LastContact", "0"), ("X-Consul-KnownLeader", "true, false")], "watermark_invalid",
         "KnownLeader list"),
        ([LAG0] + [("x-pad-%d" % i, "v") for i in range(500)], {"resolve": "pass", "envoy": "pass", "nresolve": "valid"},
         "500 extra headers (ureq and Envoy allow 100)"),
]:
    add("header: " + name, FRESH_B, exp, headers=[JSON] + hs)

if __name__ == "__main__":
    run_all(C)
