"""Pinned hashes: a match with a stale or broken watermark, a mismatch with a fresh one, pin_mode,
pin formats, several pins (a rule's and a caller's `a2a-card-pin` in Envoy), canonical spellings."""
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scn2_lib import *

P = cli_hash(FRESH)
Q = cli_hash(STALE)
CAP = ["task.execute.v3"]
S = []
def p(name, req, obs, expect, card=FRESH, **kw):
    S.append(Scenario("pin", name, card, req, obs, expect, **kw))

p("match, lag 40 s, replace", {"require": CAP, "pin": P, "max_stale": "10s"}, {"lag_ms": "40000"}, "valid pinned st=40000")
p("match, no watermark, no max_stale", {"require": CAP, "pin": P}, {}, "valid pinned st=null")
p("match, unparsable watermark, replace", {"require": CAP, "pin": P}, {"lag_ms": "abc"}, "valid pinned (watermark not consulted)")
p("match, follower, replace", {"require": CAP, "pin": P}, {"consul_last_contact_ms": "0", "consul_known_leader": "false"},
  "valid pinned (watermark not consulted)")
p("match, synced_at in the future, replace", {"require": CAP, "pin": P}, None, "valid pinned", synced_offset_ms=60000,
  envoy_exact=False)
p("match, contradictory lags, replace", {"require": CAP, "pin": P, "max_stale": "10s"}, {"lag_ms": "0", "lag_s": "40"},
  "valid pinned")
p("match, with_watermark, lag 40 s", {"require": CAP, "pin": P, "max_stale": "10s", "pin_mode": "with_watermark"},
  {"lag_ms": "40000"}, "503 watermark_exceeded", form=False)
p("match, with_watermark at the tolerance", {"require": CAP, "pin": P, "max_stale": "10s", "pin_mode": "with_watermark"},
  {"lag_ms": "10000"}, "valid pinned st=10000", form=False)
p("match, with_watermark, no watermark", {"require": CAP, "pin": P, "max_stale": "10s", "pin_mode": "with_watermark"},
  {}, "503 freshness_unverifiable", form=False)
p("match, with_watermark, no max_stale", {"require": CAP, "pin": P, "pin_mode": "with_watermark"},
  {"lag_ms": "0"}, "503 tolerance_missing", form=False)
p("mismatch, fresh watermark", {"require": CAP, "pin": Q, "max_stale": "10s"}, {"lag_ms": "0"},
  "503 pinned_hash_mismatch alone")
p("mismatch, stale watermark, with_watermark", {"require": CAP, "pin": Q, "max_stale": "10s", "pin_mode": "with_watermark"},
  {"lag_ms": "40000"}, "503 pinned_hash_mismatch alone (watermark not reported)", form=False)
p("mismatch, below floor, capability missing", {"require": ["task.execute.v9"], "pin": Q, "min_version": "4"},
  {"lag_ms": "0"}, "503 pinned_hash_mismatch, version_below_minimum, capabilities_missing")
p("match, below floor", {"require": CAP, "pin": P, "min_version": "3.0.1"}, {}, "503 version_below_minimum")
p("match, capability missing", {"require": ["task.execute.v9"], "pin": P}, {}, "409 capabilities_missing")
# The same card in other bytes: the hash covers the RFC 8785 form without top-level signatures.
spaced = json.dumps(FRESH, indent=2).encode()
reordered = json.dumps(dict(reversed(list(FRESH.items()))), separators=(",", ":")).encode()
escaped = b(FRESH).replace(b'"worker-7"', b'"\\u0077orker-7"', 1)
signed = copy.deepcopy(FRESH); signed["signatures"] = [{"protected": "eyJ4IjoxfQ", "signature": "c2ln"}]
nested_sig = copy.deepcopy(FRESH); nested_sig["capabilities"]["signatures"] = []
number = copy.deepcopy(FRESH); number["x-n"] = 1.0
number_b = b(number).replace(b'"x-n":1.0', b'"x-n":1E0')
PN = cli_hash(number)
p("match, pretty-printed bytes", {"require": CAP, "pin": P}, {}, "valid pinned", card=spaced)
p("match, members reordered", {"require": CAP, "pin": P}, {}, "valid pinned", card=reordered)
p("match, a name escaped", {"require": CAP, "pin": P}, {}, "valid pinned", card=escaped)
p("match, top-level signatures added", {"require": CAP, "pin": P}, {}, "valid pinned", card=signed)
p("nested signatures member counts", {"require": CAP, "pin": P}, {}, "503 pinned_hash_mismatch", card=nested_sig)
p("number spelled 1E0 vs 1.0", {"require": CAP, "pin": PN}, {}, "valid pinned (same canonical number)", card=number_b)
p("duplicate member: no pin check", {"require": CAP, "pin": P}, {}, "502 duplicate_member",
  card=b(FRESH)[:-1] + b',"name":"x"}')
# Pin formats (input errors everywhere; Envoy: refused config, or 400 to a caller header).
for name, bad in [("upper-case hex", "sha256:" + P[7:].upper()), ("upper-case prefix", "SHA256:" + P[7:]),
                  ("no prefix", P[7:]), ("63 hex digits", P[:-1]), ("65 hex digits", P + "0"),
                  ("space after the colon", "sha256: " + P[7:]), ("sha-256 prefix", "sha-256:" + P[7:]),
                  ("trailing newline", P + "\n")]:
    p("pin " + name, {"require": CAP, "pin": bad}, {}, "input error at /pin", envoy=False, form=False)
    if "newline" not in name:
        p("caller a2a-card-pin " + name, {"require": CAP, "pin": bad}, {"lag_ms": "0"}, "input error; Envoy 400",
          envoy_rule={"require": CAP, "max_stale": "10s"}, caller=[("a2a-card-pin", bad)], node=False, form=False)
# Several pins (Envoy: a rule's pin and a caller's; a caller's on a watermark rule).
WW = {"require": CAP, "pin": P, "max_stale": "10s", "pin_mode": "with_watermark"}
p("caller pin on a 10s rule, lag 0", WW, {"lag_ms": "0"}, "valid pinned st=0 (pin on top of the watermark)",
  envoy_rule={"require": CAP, "max_stale": "10s"}, caller=[("a2a-card-pin", P)], node=False, form=False)
p("caller pin on a 10s rule, lag 40 s", WW, {"lag_ms": "40000"}, "503 watermark_exceeded",
  envoy_rule={"require": CAP, "max_stale": "10s"}, caller=[("a2a-card-pin", P)], node=False, form=False)
p("caller pin on a 10s rule, no watermark", WW, {}, "503 freshness_unverifiable",
  envoy_rule={"require": CAP, "max_stale": "10s"}, caller=[("a2a-card-pin", P)], node=False, form=False)
p("caller pin equal to the rule's (replace kept)", {"require": CAP, "pin": P}, {"lag_ms": "40000"}, "valid pinned",
  caller=[("a2a-card-pin", P)], node=False, form=False)
p("caller pin differs from the rule's", {"require": CAP, "pin": P}, {"lag_ms": "0"}, "Envoy 400 (no card matches both)",
  caller=[("a2a-card-pin", Q)], node=False, form=False)
p("caller max-stale on a pin-only rule, lag 40 s", {"require": CAP, "pin": P, "max_stale": "5s", "pin_mode": "with_watermark"},
  {"lag_ms": "40000"}, "503 watermark_exceeded", envoy_rule={"require": CAP, "pin": P},
  caller=[("Cache-Control", "max-stale=5")], node=False, form=False)
p("two caller pins in one header (P, Q)", {"require": CAP, "pin": P}, {"lag_ms": "0"}, "? 400 (no card matches both) or refused",
  envoy_rule={"require": CAP, "max_stale": "10s"}, caller=[("a2a-card-pin", P + ", " + Q)], node=False, form=False)
p("the same caller pin twice in one header (P, P)", WW, {"lag_ms": "0"}, "? valid pinned, or 400",
  envoy_rule={"require": CAP, "max_stale": "10s"}, caller=[("a2a-card-pin", P + ", " + P)], node=False, form=False)

if __name__ == "__main__":
    run_all(S)
