"""Caller headers in Envoy (`Cache-Control: max-stale=N`, `a2a-require-capabilities`,
`a2a-min-card-version`, `a2a-card-pin`) against the CLI given the requirement they should tighten
the rule to (DESIGN.md "Tightening"; envoy/README.md "Caller tightening")."""
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scn2_lib import *

RULE = {"require": ["task.execute.v3"], "max_stale": "10s"}
S = []
def c(name, caller, tightened, obs, expect, card=FRESH):
    S.append(Scenario("caller", name, card, tightened, obs, expect, envoy_rule=RULE, caller=caller, node=False, form=False))

T5 = {"require": ["task.execute.v3"], "max_stale": "5s"}
c("max-stale=5", [("Cache-Control", "max-stale=5")], T5, {"lag_ms": "6000"}, "503 watermark_exceeded 6000>5000")
c("MAX-STALE=5 (directive names are case-insensitive, RFC 9111 5.2)", [("Cache-Control", "MAX-STALE=5")], T5, {"lag_ms": "6000"},
  "503 watermark_exceeded 6000>5000 (or a 400: never the 10 s rule alone)")
c("Max-Stale=5", [("Cache-Control", "Max-Stale=5")], T5, {"lag_ms": "6000"}, "503 watermark_exceeded (or 400)")
c('max-stale="5" (quoted-string form)', [("Cache-Control", 'max-stale="5"')], T5, {"lag_ms": "6000"},
  "503 watermark_exceeded (RFC 9111: senders should not quote, recipients should accept) or 400")
c("no-cache, max-stale=5", [("Cache-Control", "no-cache, max-stale=5")], T5, {"lag_ms": "6000"}, "503 watermark_exceeded")
c("max-stale=5 in a second Cache-Control line", [("Cache-Control", "no-cache"), ("Cache-Control", "max-stale=5")], T5,
  {"lag_ms": "6000"}, "503 watermark_exceeded")
c("max-stale=5.5", [("Cache-Control", "max-stale=5.5")], T5, {"lag_ms": "6000"}, "400 (delta-seconds are digits) or 503")
c("max-stale=-1", [("Cache-Control", "max-stale=-1")], T5, {"lag_ms": "6000"}, "400")
c("max-stale=5, max-stale=20", [("Cache-Control", "max-stale=5, max-stale=20")], T5, {"lag_ms": "6000"},
  "503 (the smaller) or 400; never 20 s")
c("max-stale=99999999999999999999", [("Cache-Control", "max-stale=99999999999999999999")], RULE, {"lag_ms": "6000"},
  "valid (10 s rule) or 400")
c("bare max-stale ignored", [("Cache-Control", "max-stale")], RULE, {"lag_ms": "6000"}, "valid (documented: ignored)")
c("max-stale = 5 (spaces)", [("Cache-Control", "max-stale = 5")], T5, {"lag_ms": "6000"}, "503 or 400; not the 10 s rule")
c("require two, comma-separated", [("a2a-require-capabilities", "task.execute.v3, capability:pushNotifications")],
  {"require": ["task.execute.v3", "capability:pushNotifications"], "max_stale": "10s"}, {"lag_ms": "0"}, "409 capabilities_missing")
c("require with an empty item", [("a2a-require-capabilities", "task.execute.v3,,capability:streaming")],
  {"require": ["task.execute.v3", "capability:streaming"], "max_stale": "10s"}, {"lag_ms": "0"}, "valid, or 400 (empty name)")
c("require unknown flag", [("a2a-require-capabilities", "capability:teleport")],
  {"require": ["task.execute.v3", "capability:teleport"], "max_stale": "10s"}, {"lag_ms": "0"}, "400")
c("require binding + protocol", [("a2a-require-capabilities", "binding:JSONRPC, protocol:0.3")],
  {"require": ["task.execute.v3", "binding:JSONRPC", "protocol:0.3"], "max_stale": "10s"}, {"lag_ms": "0"},
  "409 capabilities_missing (binding:JSONRPC and protocol:0.3)")
c("require an extension URI with a comma", [("a2a-require-capabilities", "extension:https://e.example/x?a=1,2")],
  {"require": ["task.execute.v3", "extension:https://e.example/x?a=1", "2"], "max_stale": "10s"}, {"lag_ms": "0"},
  "? split at the comma: 409 for both pieces")
c("min version with spaces", [("a2a-min-card-version", " 3.0.0 ")], {"require": ["task.execute.v3"], "max_stale": "10s", "min_version": "3.0.0"},
  {"lag_ms": "0"}, "valid (HTTP strips the spaces)")
c("min version above the card", [("a2a-min-card-version", "3.0.1")], {"require": ["task.execute.v3"], "max_stale": "10s", "min_version": "3.0.1"},
  {"lag_ms": "0"}, "503 version_below_minimum")

if __name__ == "__main__":
    run_all(S)
