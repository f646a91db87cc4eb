"""How a caller on a pre-1.0 SDK (PyPI a2a-sdk 0.3.x) reads the SDK differential's cards, against
the gate's grants. Informative only: the gate models the 1.x SDKs (DESIGN.md, "How the SDKs read
a card"), and this shows what that leaves out for 0.3 callers that do not state `protocol:0.3`
(with it, their bindings are checked: v03_picks.py).

    python3 -m venv /tmp/a2a-0.3 && /tmp/a2a-0.3/bin/pip install a2a-sdk==0.3.26
    /tmp/a2a-0.3/bin/python tests/sdk_parity/v03_callers.py target/sdk_parity/adv/results.json

RESULTS.json is what sdk_parity.py wrote (each card's file and the gate's grants). A 0.3 caller
reads a card with `AgentCard.model_validate(response.json())` (a2a/client/card_resolver.py) and
its ClientFactory sends a binding to `{preferredTransport or JSONRPC: url}` updated with each
`additionalInterfaces` entry's `{transport: url}` (a2a/client/client_factory.py). Counted per card:
- refused: the 0.3 reader refuses the card (a v1.0-only card has no `url`): that caller fails
  loudly, as the gate wants;
- lacks: the gate grants a skill, extension or flag the 0.3 reading does not have;
- version / name: the 0.3 reading holds another `version` or `name` than the gate evaluated;
- binding elsewhere: for a granted `binding:X`, the url a 0.3 client sends X to is none of the
  urls the card's v1.0 interfaces declare for X (so no 1.x client's pick), a lower bound of the
  cards where a 0.3 caller goes elsewhere than the gate checked;
- binding missing: a granted binding the 0.3 client cannot send at all (it fails loudly).
"""

import collections
import json
import sys

from a2a.types import AgentCard


def member(obj, camel, snake):
    """A member under either spelling, as the 1.x readers accept both."""
    if not isinstance(obj, dict):
        return None
    return obj[camel] if camel in obj else obj.get(snake)


def v03_capabilities(card):
    caps = {s.id for s in card.skills or []}
    caps |= {"extension:" + e.uri for e in card.capabilities.extensions or []}
    if card.capabilities.streaming:
        caps.add("capability:streaming")
    if card.capabilities.push_notifications:
        caps.add("capability:pushNotifications")
    if card.supports_authenticated_extended_card:
        caps.add("capability:extendedAgentCard")
    return caps


def v03_urls(card):
    """What a 0.3 ClientFactory sends each transport to."""
    urls = {card.preferred_transport or "JSONRPC": card.url}
    urls.update({i.transport: i.url for i in card.additional_interfaces or []})
    return urls


def main(path):
    results = json.load(open(path))
    counts = collections.Counter()
    examples = collections.defaultdict(list)
    for entry in results["cards"]:
        gate = entry.get("cardgate") or {}
        granted = set(gate.get("granted") or [])
        raw = open(entry["file"], "rb").read()
        counts["cards"] += 1
        try:
            card = AgentCard.model_validate(json.loads(raw))
        except Exception:
            counts["refused"] += 1
            counts["refused, gate grants"] += bool(granted)
            continue
        if not granted:
            continue
        counts["read, gate grants"] += 1
        plain = {c for c in granted if not c.startswith(("binding:", "protocol:"))}
        lacks = sorted(plain - v03_capabilities(card))
        if lacks:
            counts["lacks"] += 1
            examples["lacks"].append((entry["file"], lacks))
        if gate.get("card_version") not in (None, card.version):
            counts["version"] += 1
        if gate.get("agent") not in (None, card.name):
            counts["name"] += 1
        declared = member(json.loads(raw), "supportedInterfaces", "supported_interfaces")
        sent = v03_urls(card)
        for binding in sorted(c.split(":", 1)[1] for c in granted if c.startswith("binding:")):
            if binding not in sent:
                counts["binding missing"] += 1
                continue
            if not isinstance(declared, list) or not declared:
                continue  # interfaces built from the legacy members: the 1.x readers use them too
            v1 = {i.get("url") for i in declared
                  if isinstance(i, dict) and member(i, "protocolBinding", "protocol_binding") == binding}
            if sent[binding] not in v1:
                counts["binding elsewhere"] += 1
                examples["binding elsewhere"].append((entry["file"], binding, sent[binding]))
    print(path, json.dumps(dict(counts)))
    for kind, found in examples.items():
        for example in found[:3]:
            print("  %s: %s" % (kind, example))


if __name__ == "__main__":
    for p in sys.argv[1:]:
        main(p)
