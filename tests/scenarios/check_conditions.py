import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check import *
import hashlib
def H(card):
    r = subprocess.run([CLI, "hash", "-"], input=b(card) if not isinstance(card, bytes) else card, capture_output=True); return r.stdout.decode().strip()
R = {"require": ["task.execute.v3"], "max_stale": "10s"}
O0 = {"lag_ms": "0"}
def v(ver):
    c = copy.deepcopy(FRESH); c["version"] = ver; return c
for ver, mv, exp in [("3.0.0-rc.1", "3.0.0", "stale below"), ("3.0.0+build.7", "3.0.0", "valid"), ("3.0.0", "3.0.0+b", "valid"), ("3.0.0-rc.1+b", "3.0.0-rc.1", "valid"), ("3.0.0-rc.2", "3.0.0-rc.10", "below (numeric ids)"), ("3.0.0-alpha", "3.0.0-alpha.1", "below"), ("3", "3.0.0-rc.1", "valid"), ("3.0", "3.0.0", "valid"), ("v3.0.0", "3.0.0", "incomparable"), ("latest", "1", "incomparable"), ("3.0.0-01", "3.0.0-0", "incomparable"), ("99999999999999999999999.0", "3", "valid"), ("3.0.0-rc.1", None, "valid (no floor)"), ("", None, "valid? incomparable only matters with floor")]:
    r = dict(R); 
    if mv: r["min_version"] = mv
    case(f"version {ver!r} vs {mv!r}", v(ver), r, O0, exp)
c = copy.deepcopy(FRESH); del c["version"]; case("no version", c, R, O0, "malformed missing_field")
case("int version", v(3), R, O0, "malformed wrong_type")
case("null version", v(None), R, O0, "malformed wrong_type")
# pins
P = H(FRESH)
case("pin match, no watermark", FRESH, {"require": ["task.execute.v3"], "pin": P}, {}, "valid pinned")
case("pin match, stale watermark replace", FRESH, {"require": ["task.execute.v3"], "pin": P, "max_stale": "10s"}, {"lag_ms": "40000"}, "valid pinned")
case("pin match, stale watermark with_watermark", FRESH, {"require": ["task.execute.v3"], "pin": P, "max_stale": "10s", "pin_mode": "with_watermark"}, {"lag_ms": "40000"}, "stale watermark_exceeded")
case("pin match, with_watermark no tol", FRESH, {"require": ["task.execute.v3"], "pin": P, "pin_mode": "with_watermark"}, {"lag_ms": "0"}, "stale tolerance_missing")
case("pin mismatch fresh", STALE, {"require": ["task.execute.v3"], "pin": P, "max_stale": "10s"}, {"lag_ms": "0"}, "stale pinned_hash_mismatch + caps")
case("pin uppercase", FRESH, {"pin": P.upper().replace("SHA256", "sha256")}, {}, "requirement error")
case("pin match but below floor", FRESH, {"pin": P, "min_version": "4"}, {}, "stale version_below_minimum")
sig = copy.deepcopy(FRESH); sig["signatures"] = [{"protected": "x", "signature": "y"}]
case("pin over card with signatures added", sig, {"pin": P}, {}, "valid (signatures excluded from hash)")
mv = copy.deepcopy(FRESH); mv["supportedInterfaces"][0]["url"] = "wss://evil/a2a"
case("pin, endpoint moved", mv, {"pin": P}, {}, "stale pinned_hash_mismatch")
case("pin_mode without pin", FRESH, {"pin_mode": "with_watermark", "max_stale": "10s"}, O0, "no change -> valid")
case("pin_mode bogus", FRESH, {"pin_mode": "both"}, O0, "RangeError")
# capabilities
case("cap by skill name", FRESH, {"require": ["Execute task"], "max_stale": "10s"}, O0, "cap mismatch")
case("cap by tag", FRESH, {"require": ["execute"], "max_stale": "10s"}, O0, "cap mismatch")
case("streaming true", FRESH, {"require": ["capability:streaming"], "max_stale": "10s"}, O0, "valid")
case("push false", FRESH, {"require": ["capability:pushNotifications"], "max_stale": "10s"}, O0, "cap mismatch")
case("binding+proto", FRESH, {"require": ["binding:JSONRPC", "protocol:1.0"], "max_stale": "10s"}, O0, "valid")
case("binding lower", FRESH, {"require": ["binding:jsonrpc"], "max_stale": "10s"}, O0, "cap mismatch")
case("proto 1", FRESH, {"require": ["protocol:1"], "max_stale": "10s"}, O0, "requirement error? (Major.Minor)")
case("proto 1.0.0", FRESH, {"require": ["protocol:1.0.0"], "max_stale": "10s"}, O0, "requirement error? (Major.Minor)")
case("capability:unknown", FRESH, {"require": ["capability:foo"], "max_stale": "10s"}, O0, "requirement error")
case("empty cap", FRESH, {"require": [""], "max_stale": "10s"}, O0, "requirement error")
v03 = {"name": "w", "version": "3.0.0", "url": "https://w/a2a", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0", "capabilities": {"streaming": True}, "defaultInputModes": [], "defaultOutputModes": [], "skills": [{"id": "task.execute.v3", "name": "x", "description": "d", "tags": []}]}
case("v0.3 card skill", v03, {"require": ["task.execute.v3"], "max_stale": "10s"}, O0, "valid")
case("v0.3 card binding", v03, {"require": ["binding:JSONRPC"], "max_stale": "10s"}, O0, "cap mismatch (no binding from v0.3)")
case("v0.3 card streaming", v03, {"require": ["capability:streaming"], "max_stale": "10s"}, O0, "valid?")
hyb = copy.deepcopy(FRESH); hyb["url"] = "https://old/a2a"; hyb["preferredTransport"] = "GRPC"
case("hybrid v1+legacy binding", hyb, {"require": ["binding:JSONRPC", "protocol:1.0"], "max_stale": "10s"}, O0, "cap mismatch (legacyCompat ignores supportedInterfaces)")
case("skills missing", {"name": "w", "version": "1"}, {"max_stale": "10s"}, O0, "malformed missing_field")
case("observation unknown member", FRESH, R, {"lag": "0"}, "TypeError")
case("observation number", FRESH, R, {"lag_ms": 0}, "valid")
case("observation null", FRESH, R, {"lag_ms": None}, "stale watermark_invalid")
case("observation neg number", FRESH, R, {"lag_ms": -0.0}, "? -0")
case("observation exp number", FRESH, R, {"lag_ms": 1e3}, "valid (number)")
case("requirement max_stale bare", FRESH, {"max_stale": "10"}, O0, "RangeError")
case("requirement max_stale neg", FRESH, {"max_stale": "-1s"}, O0, "RangeError")
case("requirement max_stale huge", FRESH, {"max_stale": "99999999999999999999h"}, {"lag_ms": "1e3"}, "RangeError or valid?")
case("max_stale 0s with lag 0", FRESH, {"max_stale": "0s"}, O0, "valid")
case("max_stale 1.5s", FRESH, {"max_stale": "1.5s"}, O0, "RangeError")
go()
