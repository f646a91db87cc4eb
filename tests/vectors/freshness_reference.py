#!/usr/bin/env python3
"""A second implementation of condition (b), written from DESIGN.md ("Observation", rules 1-7 and
"One (b) reason") without reading src/, replayed against the CLI on random observations.

Each case draws up to four observation members from pools of valid, boundary and invalid values
(text and JSON numbers, timestamps with offsets, sub-nanosecond digits, leap seconds, year 0000)
and a tolerance, computes the first (b) reason and the staleness figure with exact rational
arithmetic (fractions.Fraction: no binary floating point), and compares them with
`cardgate check --no-clock`. Exit 1 on any difference.

    freshness_reference.py --cardgate target/release/cardgate [--count N] [--seed S]
"""

from __future__ import annotations

import argparse
import calendar
import datetime
import json
import random
import re
import subprocess
import sys
from fractions import Fraction
from math import ceil

CARD = b'{"name":"W","version":"1.0","skills":[{"id":"s"}]}'
DECIMAL = re.compile(r"^[0-9]+(\.[0-9]+)?$")
INTEGER = re.compile(r"^[0-9]+$")
RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
SKEW_NS = 1_000_000_000
MAX_STALENESS_MS = 2**53


def figure(value, integer: bool) -> Fraction | None:
    """Rule 2: a non-negative decimal (text: digits[.digits], spaces/tabs around; a JSON number:
    its shortest decimal form), or None."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")) or value < 0:
            return None
        exact = Fraction(repr(float(value))) if "e" not in repr(float(value)) else Fraction(value)
        return None if integer and exact.denominator != 1 else exact
    text = value.strip(" \t")
    return Fraction(text) if (INTEGER if integer else DECIMAL).match(text) else None


def instant(value) -> Fraction | None:
    """An RFC 3339 date-time in seconds since 1970 (exact), or None."""
    m = RFC3339.match(value.strip(" \t")) if isinstance(value, str) else None
    if not m:
        return None
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    if not 1 <= mo <= 12 or d < 1 or d > calendar.monthrange(y if y else 2000, mo)[1]:
        return None
    if h > 23 or mi > 59 or s > 59:
        return None
    offset = 0
    if m.group(8) not in ("Z", "z"):
        oh, om = int(m.group(8)[1:3]), int(m.group(8)[4:6])
        if oh > 23 or om > 59:
            return None
        offset = (1 if m.group(8)[0] == "+" else -1) * (oh * 60 + om)
    # Year 0000 (a leap year, proleptic Gregorian) is 366 days before 0001-01-01.
    base = datetime.date(max(y, 1), mo, 28 if (y == 0 and mo == 2 and d == 29) else d)
    days = (base - datetime.date(1970, 1, 1)).days - (366 if y == 0 else 0) + (1 if (y == 0 and mo == 2 and d == 29) else 0)
    frac = Fraction(m.group(7)[1:]) / 10 ** len(m.group(7)[1:]) if m.group(7) else Fraction(0)
    return Fraction(days * 86400 + h * 3600 + mi * 60 + s - offset * 60) + frac


def expected(obs: dict, max_stale_ms: int | None) -> tuple[str | None, int | None]:
    """The first (b) reason (None: passed) and the staleness figure in ms when there is one."""
    lags_ns = []
    for name, ms_per_unit in (("lag_ms", 1), ("lag_s", 1000)):
        if name in obs:
            f = figure(obs[name], False)
            if f is None:
                return "watermark_invalid", None
            lags_ns.append(ceil(f * ms_per_unit * 1_000_000))
    last_contact = leader = age = synced = None
    if "consul_last_contact_ms" in obs:
        last_contact = figure(obs["consul_last_contact_ms"], True)
        if last_contact is None:
            return "watermark_invalid", None
    if "consul_known_leader" in obs:
        v = obs["consul_known_leader"]
        if not (isinstance(v, str) and v.strip(" \t") in ("true", "false")):
            return "watermark_invalid", None
        leader = v.strip(" \t") == "true"
    if "age_s" in obs:
        age = figure(obs["age_s"], True)
        if age is None:
            return "watermark_invalid", None
    if "synced_at" in obs:
        synced = instant(obs["synced_at"])
        if synced is None:
            return "watermark_invalid", None
    if last_contact is not None and leader is False:
        return "leader_unknown", None
    if (last_contact is None) != (leader is None):
        return "watermark_invalid", None
    if last_contact is not None:
        lags_ns.append(int(last_contact) * 1_000_000)
    if synced is not None:
        if "now" not in obs:
            return "clock_missing", None
        lag_s = instant(obs["now"]) - synced
        if -lag_s * 1_000_000_000 > SKEW_NS:
            return "watermark_in_future", None
        lags_ns.append(max(0, ceil(lag_s * 1_000_000_000)))
    if not lags_ns:
        return "freshness_unverifiable", None
    if max(lags_ns) - min(lags_ns) > SKEW_NS:
        return "watermark_contradictory", None
    staleness = ceil(Fraction(max(lags_ns), 1_000_000) + (age or 0) * 1000)
    if staleness > MAX_STALENESS_MS:
        return "watermark_invalid", None
    if max_stale_ms is None:
        return "tolerance_missing", staleness
    return ("watermark_exceeded" if staleness > max_stale_ms else None), staleness


POOL = {
    "lag_ms": ["0", "1", "999", "1000", "10000", "10000.5", "9999.0001", " 40 ", "\t7\t", "0.0000001", "1e3", "-1",
               "", "x", ".5", "5.", "007", "9007199254740992", "9007199254740993", 0, 1, 10000.000000000002, 5e-324,
               1e21, 3.5, None, True, [], "NaN", "+1", "1 0"],
    "lag_s": ["0", "1", "10", "10.000000000000002", "9.9999999999", "1.0000000001", "3.5", "40", "x", "-3", 10,
              9.999999999999998, 0.5, None],
    "consul_last_contact_ms": ["0", "1000", "10000", "2000.5", "1.0", "-5", "x", 2000, 2000.5, None],
    "consul_known_leader": ["true", "false", " true", "TRUE", "yes", True, None],
    "age_s": ["0", "1", "3", "10", "1.5", "1.0", "-1", "x", 3, 1.5, None],
    "synced_at": ["2026-11-09T12:00:40Z", "2026-11-09T12:00:30Z", "2026-11-09T12:00:41Z",
                  "2026-11-09T12:00:41.0000000001Z", "2026-11-09T12:00:40.9999999999Z", "2026-11-09T12:00:30.0009Z",
                  "2026-11-09t12:00:35z", "2026-11-09T13:00:35+01:00", "2026-11-09T12:00:35-00:00",
                  "2026-11-09T23:59:60Z", "2026-02-29T00:00:00Z", "2024-02-29T00:00:00Z", "2026-11-09 12:00:35Z",
                  "2026-11-09T12:00:35", "2026-11-09T12:00:35.Z", "0000-01-01T00:00:00Z", "0000-02-29T00:00:00Z",
                  "2026-11-09T12:00:45Z", 5, None, "x"],
    "now": ["2026-11-09T12:00:40Z", "2026-11-09T12:00:40.0009Z", "2026-11-09T12:00:40.0000000001Z",
            "2026-11-09T11:00:40-01:00"],
}
TOLERANCES = [None, 0, 1, 1000, 10000, 10001, 60000, 315360000000]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cardgate", required=True)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261109)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    diffs = 0
    for _ in range(args.count):
        obs = {k: rnd.choice(POOL[k]) for k in rnd.sample(sorted(POOL), rnd.randint(0, 4))}
        tol = rnd.choice(TOLERANCES)
        req = {} if tol is None else {"max_stale": "%dms" % tol}
        # DESIGN.md rule 4: with digits beyond the nanosecond in both timestamps, the gate may
        # err by 1 ns toward refusing; such a pair is not compared.
        beyond_ns = [k for k in ("synced_at", "now") if isinstance(obs.get(k), str) and re.search(r"\.\d{10}", obs[k])]
        if len(beyond_ns) == 2:
            continue
        code, staleness = expected(obs, tol)
        proc = subprocess.run(
            [args.cardgate, "check", "-", "--requirement", json.dumps(req), "--observation", json.dumps(obs), "--no-clock"],
            input=CARD, capture_output=True, check=False)
        if proc.returncode not in (0, 1):
            got = ("exit %d" % proc.returncode, proc.stderr.decode(errors="replace")[:200])
        else:
            d = json.loads(proc.stdout)
            codes = [r["code"] for r in d.get("reasons", [])]
            got = (codes[0] if codes else None, d.get("staleness_ms"))
            # staleness_ms is unspecified on a (b) failure other than tolerance/exceeded (vectors README, 4).
            if code not in (None, "watermark_exceeded", "tolerance_missing"):
                got = (got[0], None)
            if len(codes) > 1:
                got = ("several reasons: %s" % codes, got[1])
        if got != (code, staleness):
            diffs += 1
            if diffs <= 20:
                print("differs: observation %s requirement %s: DESIGN.md gives %s, cardgate %s"
                      % (json.dumps(obs), json.dumps(req), (code, staleness), got))
    print("freshness_reference: %d random observations, %d difference(s)" % (args.count, diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
