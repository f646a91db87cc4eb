"""The time boundary: staleness exactly at the tolerance, one ms over, clock skew, missing and
disagreeing sources, `max_stale` forms and zero, a caller's `max-stale` in Envoy."""
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scn2_lib import *

R = {"require": ["task.execute.v3"], "max_stale": "10s"}
S = []
def t(name, obs, expect, req=R, **kw):
    S.append(Scenario("time", name, FRESH, req, obs, expect, **kw))

t("lag_ms at the tolerance", {"lag_ms": "10000"}, "valid st=10000 (equal passes)")
t("lag_ms one ms over", {"lag_ms": "10001"}, "503 watermark_exceeded 10001>10000")
t("lag_ms a fraction over", {"lag_ms": "10000.0000001"}, "503 watermark_exceeded (rounded up to 10001)")
t("lag_ms JSON number at the tolerance", {"lag_ms": 10000}, "valid st=10000")
t("lag_ms with spaces", {"lag_ms": " 10000\t"}, "valid st=10000 (surrounding spaces/tabs allowed)")
t("lag_ms exponent", {"lag_ms": "1e4"}, "503 watermark_invalid")
t("lag_ms -0", {"lag_ms": "-0"}, "503 watermark_invalid (no sign)")
t("lag_ms 2^53+1", {"lag_ms": "9007199254740993"}, "503 watermark_invalid (out of range)")
t("lag_s at the tolerance", {"lag_s": "10"}, "valid st=10000")
t("lag_s one ms over", {"lag_s": "10.001"}, "503 watermark_exceeded 10001")
t("lag_s a half ms under", {"lag_s": "9.9995"}, "valid st=10000 (9999.5 rounded up)")
t("lag + Age at the tolerance", {"lag_ms": "9000", "age_s": "1"}, "valid st=10000")
t("lag + Age one ms over", {"lag_ms": "9001", "age_s": "1"}, "503 watermark_exceeded 10001")
t("Age fraction", {"lag_ms": "0", "age_s": "1.0"}, "503 watermark_invalid (age_s integer only)")
t("Age alone", {"age_s": "0"}, "503 freshness_unverifiable")
t("no watermark", {}, "503 freshness_unverifiable")
t("consul at the tolerance", {"consul_last_contact_ms": "10000", "consul_known_leader": "true"}, "valid st=10000")
t("consul one ms over", {"consul_last_contact_ms": "10001", "consul_known_leader": "true"}, "503 watermark_exceeded")
t("consul leader flag in caps", {"consul_last_contact_ms": "0", "consul_known_leader": "True"}, "503 watermark_invalid (lower case only)")
t("consul without the flag", {"consul_last_contact_ms": "0"}, "503 watermark_invalid (half a pair)")
t("consul flag without the lag", {"consul_known_leader": "true"}, "503 watermark_invalid (half a pair)")
t("lag beside a follower", {"lag_ms": "0", "consul_last_contact_ms": "0", "consul_known_leader": "false"}, "503 leader_unknown")
t("synced_at at the tolerance", None, "valid st=10000", synced_offset_ms=-10000, envoy=False)
t("synced_at one ms over", None, "503 watermark_exceeded 10001", synced_offset_ms=-10001, envoy_exact=False)
t("synced_at 1000 ms ahead (skew)", None, "valid st=0", synced_offset_ms=1000, envoy_exact=False)
t("synced_at 1001 ms ahead", None, "503 watermark_in_future", synced_offset_ms=1001, envoy=False)
t("synced_at 1500 ms ahead", None, "503 watermark_in_future", synced_offset_ms=1500, envoy_exact=False)
t("synced_at 1 h ahead", None, "503 watermark_in_future", synced_offset_ms=3600000, envoy_exact=False)
t("synced_at without a clock", {"synced_at": "2026-11-09T12:00:30Z"}, "503 clock_missing", envoy=False)
t("synced_at as an offset", {"synced_at": "2026-11-09T13:00:30+01:00", "now": NOW}, "valid st=10000", envoy=False)
t("synced_at -00:00", {"synced_at": "2026-11-09T12:00:30-00:00", "now": NOW}, "valid st=10000", envoy=False)
t("synced_at lower-case t and z", {"synced_at": "2026-11-09t12:00:30z", "now": NOW}, "valid st=10000", envoy=False)
t("synced_at sub-ms under", {"synced_at": "2026-11-09T12:00:30.0001Z", "now": NOW}, "valid st=10000 (9999.9 up)", envoy=False)
t("synced_at sub-ms over", {"synced_at": "2026-11-09T12:00:29.9999Z", "now": NOW}, "503 watermark_exceeded 10001", envoy=False)
t("synced_at with a space", {"synced_at": "2026-11-09 12:00:30Z", "now": NOW}, "503 watermark_invalid", envoy=False)
t("synced_at leap second", {"synced_at": "2026-11-09T12:00:60Z", "now": NOW}, "503 watermark_invalid", envoy=False)
t("synced_at epoch number", {"synced_at": "1794225630", "now": NOW}, "503 watermark_invalid", envoy=False)
t("two lags 1000 ms apart", {"lag_ms": "9000", "lag_s": "10"}, "valid st=10000 (agree within 1000, largest used)")
t("two lags 1001 ms apart", {"lag_ms": "9000", "lag_s": "10.001"}, "503 watermark_contradictory")
t("lag and consul 1000 apart", {"lag_ms": "0", "consul_last_contact_ms": "1000", "consul_known_leader": "true"}, "valid st=1000")
t("lag and synced_at agree", {"lag_ms": "5000"}, "valid st=5000", synced_offset_ms=-5000, envoy_exact=False)
t("lag and synced_at 5 s apart", {"lag_ms": "0"}, "503 watermark_contradictory", synced_offset_ms=-5000, envoy_exact=False)
t("lag beside a future synced_at", {"lag_ms": "0"}, "503 watermark_in_future", synced_offset_ms=5000, envoy_exact=False)
t("four sources agree", {"lag_ms": "5000", "lag_s": "5", "consul_last_contact_ms": "5000", "consul_known_leader": "true"},
  "valid st=5000", synced_offset_ms=-5000, envoy_exact=False)
t("bad lag_s beside a good lag_ms", {"lag_ms": "0", "lag_s": "abc"}, "503 watermark_invalid (lag_s)")
# max_stale forms
def ms(name, max_stale, obs, expect, **kw):
    t(name, obs, expect, req={"require": ["task.execute.v3"], "max_stale": max_stale}, **kw)
ms("max_stale 0s, lag 0", "0s", {"lag_ms": "0"}, "valid st=0")
ms("max_stale 0ms, lag 0.0001 ms", "0ms", {"lag_ms": "0.0001"}, "503 watermark_exceeded 1>0")
ms("max_stale 0m, lag_s 0", "0m", {"lag_s": "0"}, "valid")
ms("max_stale 10000ms = 10s", "10000ms", {"lag_ms": "10000"}, "valid st=10000")
ms("max_stale 2m at the tolerance", "2m", {"lag_ms": "120000"}, "valid")
ms("max_stale 1h one ms over", "1h", {"lag_s": "3600.001"}, "503 watermark_exceeded")
ms("max_stale 87600h at the tolerance", "87600h", {"lag_s": "315360000"}, "valid st=315360000000")
ms("max_stale 87600h one ms over", "87600h", {"lag_s": "315360000.001"}, "503 watermark_exceeded")
ms("max_stale 315360000000ms = 87600h", "315360000000ms", {"lag_ms": "315360000000"}, "valid")
ms("max_stale 87601h", "87601h", {"lag_ms": "0"}, "input error (over ten years)", envoy=False)
ms("max_stale 010s", "010s", {"lag_ms": "10000"}, "? a non-negative integer: 10s, valid", envoy=False)
ms("max_stale 10S", "10S", {"lag_ms": "0"}, "input error (unit case)", envoy=False)
ms("max_stale 10sec", "10sec", {"lag_ms": "0"}, "input error", envoy=False)
ms("max_stale +10s", "+10s", {"lag_ms": "0"}, "input error", envoy=False)
ms("max_stale empty", "", {"lag_ms": "0"}, "input error", envoy=False)
t("no max_stale, lag 0", {"lag_ms": "0"}, "503 tolerance_missing", req={"require": ["task.execute.v3"]})
t("no max_stale, bad lag", {"lag_ms": "x"}, "503 watermark_invalid (observation before tolerance)", req={"require": ["task.execute.v3"]})
# A caller's Cache-Control: max-stale tightens the rule (Envoy); the CLI/npm get the tightened requirement.
t("caller max-stale=5 under a 10s rule", {"lag_ms": "6000"}, "503 watermark_exceeded 6000>5000",
  req={"require": ["task.execute.v3"], "max_stale": "5s"}, envoy_rule=R, caller=[("Cache-Control", "max-stale=5")], form=False)
t("caller max-stale=20 never relaxes", {"lag_ms": "15000"}, "503 watermark_exceeded 15000>10000",
  caller=[("Cache-Control", "max-stale=20")])
t("caller max-stale=0, lag 0", {"lag_ms": "0"}, "valid st=0",
  req={"require": ["task.execute.v3"], "max_stale": "0s"}, envoy_rule=R, caller=[("Cache-Control", "max-stale=0")])
t("caller max-stale on a rule without max_stale", {"lag_ms": "0"}, "503 tolerance_missing",
  req={"require": ["task.execute.v3"]}, caller=[("Cache-Control", "max-stale=60")])

if __name__ == "__main__":
    run_all(S)
