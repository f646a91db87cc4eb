"""Reads Agent Cards with PyPI a2a-sdk's own parser, for the SDK differential test.

stdin: JSON lines `{"id": N, "card": {...}}`. stdout: one JSON line per card,
`{"id": N, "ok": true, "view": {...}}` with what the parsed protobuf AgentCard holds, or
`{"id": N, "ok": false, "error": "..."}` when `parse_agent_card` refuses the card.
The card goes through `a2a.client.card_resolver.parse_agent_card` exactly as
`A2ACardResolver.get_agent_card` hands it the `response.json()` dict (a deep copy: the
function edits its argument). An entry with `raw` (the served bytes, base64) is parsed as
`get_agent_card` does it, by httpx's `Response.json()`; when that raises, the card is refused.
"""

import base64
import copy
import json
import sys

import httpx

from a2a.client.card_resolver import parse_agent_card


def view(card):
    """What a caller using this AgentCard sees, in the members the gate reads."""
    caps = card.capabilities
    return {
        "skills": [s.id for s in card.skills],
        "extensions": [e.uri for e in caps.extensions],
        "streaming": caps.streaming,
        "pushNotifications": caps.push_notifications,
        "extendedAgentCard": caps.extended_agent_card,
        "interfaces": [[i.protocol_binding, i.protocol_version] for i in card.supported_interfaces],
        "version": card.version,
        "name": card.name,
    }


def serve(answer):
    """The JSON-lines loop both readers share: each entry's card parsed as the resolver does it,
    then `answer(entry, parsed)` (a dict to send) or the refusal."""
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        entry = json.loads(line)
        try:
            if "raw" in entry:
                card = httpx.Response(200, content=base64.b64decode(entry["raw"])).json()
            else:
                card = copy.deepcopy(entry["card"])
            parsed = parse_agent_card(card)
        except Exception as e:  # noqa: BLE001 - any exception means the caller gets no card
            result = {"id": entry["id"], "ok": False, "error": f"{type(e).__name__}: {e}"[:300]}
        else:
            result = {"id": entry["id"], "ok": True, **answer(entry, parsed)}
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    out.flush()


def main():
    serve(lambda _entry, parsed: {"view": view(parsed)})


if __name__ == "__main__":
    main()
