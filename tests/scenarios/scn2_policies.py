"""Policies: per-agent rules over defaults, agent ids as the filter reads an `{id}` (case, trailing
space or dot, accents, fullwidth, `;params`, a decoded `?`), pin_mode and max_stale in rules, through
`cardgate check --policy P --agent ID` and an Envoy listener with the same policy (`/agents/{id}/card`)."""
import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scn2_lib import *
from urllib.parse import quote

P = cli_hash(FRESH)
Q = cli_hash(STALE)
INCIDENT = json.load(open(ROOT + "/policies/incident.json"))
S = []
def pol(name, policy, agent, obs, expect, card=FRESH, path=None, **kw):
    S.append(Scenario("policy", name, card, None, obs, expect, policy=policy, agent=agent,
                      path=path or ("/agents/%s/card" % quote(agent, safe="")), **kw))

pol("incident: worker-7 fresh v3 card", INCIDENT, "worker-7", {"lag_ms": "5000"}, "valid st=5000")
pol("incident: worker-7 at its 10 s", INCIDENT, "worker-7", {"lag_ms": "10000"}, "valid st=10000")
pol("incident: worker-7 15 s behind", INCIDENT, "worker-7", {"lag_ms": "15000"}, "503 watermark_exceeded 15000>10000")
pol("incident: the stale card", INCIDENT, "worker-7", {"lag_ms": "40000"}, "503 watermark_exceeded, version_below_minimum, capabilities_missing", card=STALE)
pol("incident: unknown agent under the 30 s default", INCIDENT, "worker-8", {"lag_ms": "25000"}, "valid (defaults)")
pol("incident: unknown agent over the 30 s default", INCIDENT, "worker-8", {"lag_ms": "30001"}, "503 watermark_exceeded 30001>30000")
pol("incident: Worker-7 (ASCII case)", INCIDENT, "Worker-7", {"lag_ms": "15000"}, "503 watermark_exceeded (worker-7's 10 s)")
pol("incident: 'worker-7 ' (trailing space)", INCIDENT, "worker-7 ", {"lag_ms": "15000"}, "503 watermark_exceeded (worker-7's rule)")
pol("incident: 'worker-7.' (trailing dot)", INCIDENT, "worker-7.", {"lag_ms": "15000"}, "503 watermark_exceeded (worker-7's rule)")
pol("incident: 'w\u00f6rker-7' (accent)", INCIDENT, "w\u00f6rker-7", {"lag_ms": "15000"}, "503 watermark_exceeded (worker-7's rule)")
pol("incident: fullwidth '\uff57orker-7'", INCIDENT, "\uff57orker-7", {"lag_ms": "15000"}, "503 watermark_exceeded (worker-7's rule)")
pol("incident: soft hyphen 'wor\u00adker-7'", INCIDENT, "wor\u00adker-7", {"lag_ms": "15000"}, "503 watermark_exceeded (worker-7's rule)")
pol("incident: 'worker-7?x' (decoded ?)", INCIDENT, "worker-7?x", {"lag_ms": "15000"}, "503 watermark_exceeded (worker-7's rule)")
pol("incident: 'WORKER\u20147' (em dash, not a hyphen)", INCIDENT, "WORKER\u20147", {"lag_ms": "15000"}, "valid? (defaults: an em dash folds to nothing)")
pol("incident: archive-search, pin placeholder", INCIDENT, "archive-search", {"lag_ms": "0"},
    "503 pinned_hash_mismatch, capabilities_missing (search.archive)")
pol("incident: archive-search, no watermark", INCIDENT, "archive-search", {},
    "503 pinned_hash_mismatch, capabilities_missing (not freshness_unverifiable)")
pol("incident: Archive-Search", INCIDENT, "Archive-Search", {}, "as archive-search")
pol("incident: well-known card (no agent: defaults)", INCIDENT, None, {"lag_ms": "25000"}, "valid (defaults 30 s); CLI: exit 2, --policy with agent rules needs --agent (since 8aa0050)",
    path="/.well-known/agent-card.json")
pol("incident: agent well-known route", INCIDENT, "worker-7", {"lag_ms": "15000"}, "503 watermark_exceeded (worker-7's rule)",
    path="/agents/worker-7/.well-known/agent-card.json")

# Rules over defaults: a member the rule sets replaces the default's.
OV = {"defaults": {"require": ["task.execute.v9"], "max_stale": "30s", "min_version": "9"},
      "agents": {"a": {"require": ["binding:JSONRPC"]}, "b": {"max_stale": "5s"}, "c": {"min_version": "1"}}}
pol("rule require replaces defaults' require", OV, "a", {"lag_ms": "0"}, "503 version_below_minimum (floor 9 from defaults; task.execute.v9 not required)")
pol("rule max_stale replaces defaults' max_stale", OV, "b", {"lag_ms": "6000"}, "503 watermark_exceeded 6000>5000, version_below_minimum, capabilities_missing")
pol("rule min_version replaces defaults' floor", OV, "c", {"lag_ms": "25000"}, "409 capabilities_missing (task.execute.v9)")
pol("unknown agent takes the defaults", OV, "zz", {"lag_ms": "0"}, "503 version_below_minimum, capabilities_missing")
PM = {"defaults": {"max_stale": "10s", "pin_mode": "with_watermark"},
      "agents": {"pinned": {"pin": P}, "pinned-replace": {"pin": P, "pin_mode": "replace"}, "nopin": {}}}
pol("defaults' pin_mode with_watermark + rule pin, lag 40 s", PM, "pinned", {"lag_ms": "40000"}, "503 watermark_exceeded")
pol("defaults' pin_mode with_watermark + rule pin, lag 0", PM, "pinned", {"lag_ms": "0"}, "valid pinned st=0")
pol("rule pin_mode replace over defaults, lag 40 s", PM, "pinned-replace", {"lag_ms": "40000"}, "valid pinned")
pol("pin_mode without a pin changes nothing", PM, "nopin", {"lag_ms": "0"}, "valid watermark")
NS = {"defaults": {}, "agents": {"w": {"require": ["task.execute.v3"]}}}
pol("no max_stale anywhere, lag 0", NS, "w", {"lag_ms": "0"}, "503 tolerance_missing")
pol("no max_stale anywhere, caller max-stale=60", NS, "w", {"lag_ms": "0"}, "503 tolerance_missing (caller cannot open it)",
    caller=[("Cache-Control", "max-stale=60")])
# Variants naming different agents: every rule must hold.
VAR = {"defaults": {"max_stale": "60s"}, "agents": {"w": {"max_stale": "5s"}, "w;v=1": {"max_stale": "20s"}}}
pol("'w;v=1' is w;v=1 and w (5 s wins)", VAR, "w;v=1", {"lag_ms": "10000"}, "503 watermark_exceeded 10000>5000", path="/agents/w;v=1/card")
pol("'w;v=1' within both", VAR, "w;v=1", {"lag_ms": "4000"}, "valid", path="/agents/w;v=1/card")
W5 = {"defaults": {"max_stale": "60s"}, "agents": {"w": {"max_stale": "5s"}}}
pol("unknown 'w;v=1' where only w has a rule", W5, "w;v=1", {"lag_ms": "10000"}, "503 watermark_exceeded 10000>5000 (read as w)",
    path="/agents/w;v=1/card")
pol("unknown 'w;' where only w has a rule", W5, "w;", {"lag_ms": "10000"}, "503 watermark_exceeded 10000>5000 (read as w)",
    path="/agents/w;/card")
pol("unknown 'w#x' where only w has a rule", W5, "w#x", {"lag_ms": "10000"}, "503 watermark_exceeded 10000>5000 (read as w)")
KQ = {"defaults": {"max_stale": "60s"}, "agents": {"x?y": {"max_stale": "20s"}, "x": {"max_stale": "5s"},
                                                 "z#k": {"max_stale": "20s"}, "z": {"max_stale": "5s"}}}
pol("known 'x?y' beside 'x' (%3F)", KQ, "x?y", {"lag_ms": "10000"}, "503: x?y's rule and x's (a registry may cut at ?; both ways since 69a3267)",
    path="/agents/x%3Fy/card")
pol("known 'z#k' beside 'z' (%23)", KQ, "z#k", {"lag_ms": "10000"}, "503: z#k's rule and z's (both ways)", path="/agents/z%23k/card")
PINS = {"defaults": {"max_stale": "60s"}, "agents": {"w": {"pin": P}, "w;v=1": {"pin": Q}}}
pol("variants pinning different hashes", PINS, "w;v=1", {"lag_ms": "0"}, "CLI exit 2; Envoy 400 naming :path", path="/agents/w;v=1/card")
ACC = {"defaults": {"max_stale": "60s"}, "agents": {"worker-7": {"max_stale": "5s"}, "w\u00f6rker-7": {"max_stale": "20s"}}}
pol("ids that fold alike: exact 'w\u00f6rker-7'", ACC, "w\u00f6rker-7", {"lag_ms": "10000"}, "both rules tightened (5 s): 503 (a known id too, since 69a3267)")
pol("ids that fold alike: 'W\u00d6RKER-7'", ACC, "W\u00d6RKER-7", {"lag_ms": "10000"}, "both rules tightened (5 s): 503")
pol("ids that fold alike: 'WORKER-7'", ACC, "WORKER-7", {"lag_ms": "10000"}, "worker-7's rule (ASCII case): 503")
SL = {"defaults": {"max_stale": "60s"}, "agents": {"team/w7": {"max_stale": "5s"}}}
pol("agent id with a slash, %2F in the path", SL, "team/w7", {"lag_ms": "10000"}, "503 watermark_exceeded 10000>5000",
    path="/agents/team%2Fw7/card")
# CLI flags given with --policy override the rule (documented: "flags given here override it").
S.append(Scenario("policy", "CLI --max-stale 60s over worker-7's 10 s (override, not tighten)", FRESH, None, {"lag_ms": "15000"},
                  "CLI: valid (flags override); Envoy's caller max-stale=60 never relaxes: 503", policy=INCIDENT, agent="worker-7",
                  cli_extra=["--max-stale", "60s"], caller=[("Cache-Control", "max-stale=60")], path="/agents/worker-7/card"))

if __name__ == "__main__":
    run_all(S)
