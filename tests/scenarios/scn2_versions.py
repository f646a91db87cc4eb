"""Version floors: the SemVer edge cases DESIGN.md ("Version ordering") promises, as a requirement's
`min_version` (CLI, npm, web, an Envoy rule) and, for some, as a caller's `a2a-min-card-version`."""
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scn2_lib import *

O = {"lag_ms": "0"}
S = []
def r(x):
    return repr(x) if len(x) < 40 else "'%s...' (%d chars)" % (x[:6], len(x))
def v(card_v, floor, expect, header=False, **kw):
    req = {"require": ["task.execute.v3"], "max_stale": "10s"}
    if floor is not None:
        req["min_version"] = floor
    S.append(Scenario("version", "card %s, floor %s" % (r(card_v), r(floor or "")), with_version(card_v), req, O, expect, **kw))
    if header:
        S.append(Scenario("version", "card %s, caller a2a-min-card-version %s" % (r(card_v), r(floor)), with_version(card_v), req, O,
                          expect + " (via the caller header)", envoy_rule={"require": ["task.execute.v3"], "max_stale": "10s"},
                          caller=[("a2a-min-card-version", floor)], node=False, form=False))

BELOW, OK, INC = "503 version_below_minimum", "valid", "503 version_incomparable"
# SemVer 2.0.0 section 11's own chain, each below the next
chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
for lo, hi in zip(chain, chain[1:]):
    v(lo, hi, BELOW, header=(lo == "1.0.0-beta.2"))
    v(hi, lo, OK)
v("1.0.0-rc.1.0", "1.0.0-rc.1", OK + " (more identifiers rank higher)")
v("1.0.0-RC.1", "1.0.0-rc.1", BELOW + " (ASCII: R < r)")
v("1.0.0-0", "1.0.0-0", OK + " (equal)")
v("1.0.0-0a", "1.0.0-0", OK + " (alphanumeric above numeric; leading zero allowed there)")
v("1.0.0-rc.01", "1.0.0-rc.1", INC + " (numeric identifier with a leading zero)")
v("1.0.0+build.1", "1.0.0+build.2", OK + " (build ignored)", header=True)
v("1.0.0-rc.1+b", "1.0.0-rc.1", OK)
v("1.0.0+001", "1.0.0", OK + " (build identifiers may have leading zeros)")
v("1.0.0-x-y", "1.0.0-x", OK + " (hyphen inside an identifier)")
v("1.0.0-x_y", "1.0.0", "? SemVer identifiers are [0-9A-Za-z-]: incomparable")
v("1.0.0-\u00e9", "1.0.0-a", "? non-ASCII identifier: incomparable")
v("01.0.0", "1.0.0", "valid? digit runs compare as integers (DESIGN), SemVer forbids the leading zero")
v("1.00.0", "1.0.1", BELOW)
v("18446744073709551616.0.0", "18446744073709551615.0.0", OK + " (past u64)", header=True)
v("18446744073709551615.0.0", "18446744073709551616", BELOW)
v("1.0.0-rc.18446744073709551616", "1.0.0-rc.18446744073709551615", OK + " (numeric identifiers past u64)")
v("1.0.0-rc.18446744073709551615", "1.0.0-rc.9", OK + " (numeric, not text, order)")
v("1" + "0" * 3000, "9" * 2999, OK + " (3001 digits)")
v("9" * 2999, "1" + "0" * 3000, BELOW)
v("0.0.0", "0", OK + " (equal)")
v("0.0.0-rc.1", "0", BELOW)
v("3", "3.0.0-rc.1", OK + " (3 is 3.0.0)")
v("1.2.3.4", "1.2.3", OK)
v("1.2.3", "1.2.3.0.0.1", BELOW)
v("1.2.3.0.0.0", "1.2.3", OK + " (trailing zeros equal)")
v("1.2.3.4-rc.1", "1.0.0", INC + " (pre-release after four components)")
v("1.2-rc.1", "1.0.0", INC)
v("1.0.0-", "1.0.0", INC)
v("1.0.0+", "1.0.0", INC)
v("1.0.0-rc..1", "1.0.0", INC)
v("", "1.0.0", INC)
v(" 1.0.0", "1.0.0", INC + " (nothing trimmed)")
v("1.0.0\n", "1.0.0", INC)
v("v1.0.0", "1.0.0", INC)
v("\uff11.0.0", "1.0.0", INC + " (fullwidth digit)")
v("-1", "0", INC)
v("1.0.0-rc.1", "1.0.0-rc.1+meta", OK + " (build on the floor ignored)")
v("01.0.0-rc.1", "1.0.0-rc.1", "valid? (leading zero in the core, as 01.0.0) or incomparable (SemVer)")
v("1.0.0-00", "1.0.0-0", INC + " (numeric identifier 00)")
v("1.0.0+b..x", "1.0.0", INC + " (empty build identifier)")
v("1.0.0-rc.1+b+c", "1.0.0", INC + " (two + signs)")
# Floors that are not comparable: an input error everywhere (Envoy: a refused config / a 400 to a header).
def bad_floor(floor, expect):
    req = {"require": ["task.execute.v3"], "max_stale": "10s", "min_version": floor}
    S.append(Scenario("version", "incomparable floor %r" % floor, FRESH, req, O, expect, envoy=False))
    S.append(Scenario("version", "incomparable caller a2a-min-card-version %r" % floor, FRESH, req, O, expect + " (Envoy: 400)",
                      envoy_rule={"require": ["task.execute.v3"], "max_stale": "10s"}, caller=[("a2a-min-card-version", floor)],
                      node=False, form=False))
bad_floor("1.0.0-rc.01", "input error at /min_version")
bad_floor("v1", "input error at /min_version")
bad_floor("1.0.0+", "input error at /min_version")
# A caller floor below the rule's never relaxes it.
S.append(Scenario("version", "caller floor 1.0.0 under a 3.1.0 rule", FRESH,
                  {"require": ["task.execute.v3"], "max_stale": "10s", "min_version": "3.1.0"}, O, BELOW,
                  caller=[("a2a-min-card-version", "1.0.0")], node=False, form=False))
S.append(Scenario("version", "caller floor header twice (1.0.0, 9.0.0)", FRESH,
                  {"require": ["task.execute.v3"], "max_stale": "10s", "min_version": "9.0.0"}, O, "? the higher floor wins, or a 400",
                  envoy_rule={"require": ["task.execute.v3"], "max_stale": "10s"},
                  caller=[("a2a-min-card-version", "1.0.0, 9.0.0")], node=False, form=False))

if __name__ == "__main__":
    run_all(S)
