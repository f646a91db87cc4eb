"""Where PyPI a2a-sdk 0.3.x's own client sends each binding, for the pre-1.0 callers' check
(v03_picks.py). Run by an interpreter with a2a-sdk 0.3 (.ci/setup.sh core: .tools/py-a2a-03).

stdin: JSON lines {"id": N, "raw": base64 of the card's bytes}. stdout: one JSON line per card,
{"id": N, "reads": bool, "extended": bool, "factory": {"<binding>": url | null}}: the bytes through
`AgentCard.model_validate(json.loads(...))` (what its A2ACardResolver does with
`response.json()`), then for each binding X `ClientFactory(ClientConfig(supported_transports=[X]))`
with a recording transport producer registered for X, and `.create(card)`: the SDK's own
selection, the producer's url is where the client would send. A raise is no client (null).
`extended`: the card's `supports_authenticated_extended_card`, which its transports test before
they fetch the extended card. `flags`: `{"streaming": bool, "pushNotifications": bool}`, the
truthiness of the model's `capabilities.streaming` and `capabilities.push_notifications`.
"""

import base64
import json
import sys

from a2a.client import ClientConfig, ClientFactory
from a2a.types import AgentCard

BINDINGS = ("JSONRPC", "HTTP+JSON", "GRPC")


class Sent(Exception):
    """Carries the url the factory hands to the transport producer."""


def record(card, url, config, interceptors):
    raise Sent(url)


def picks(raw):
    try:
        card = AgentCard.model_validate(json.loads(raw))
    except Exception:
        return {"reads": False, "extended": False, "flags": None, "factory": {x: None for x in BINDINGS}}
    out = {}
    for x in BINDINGS:
        factory = ClientFactory(ClientConfig(supported_transports=[x]))
        factory.register(x, record)
        try:
            factory.create(card)
            out[x] = None
        except Sent as sent:
            out[x] = sent.args[0] if isinstance(sent.args[0], str) else {"notString": repr(sent.args[0])}
        except Exception:
            out[x] = None
    caps = card.capabilities
    flags = {"streaming": bool(caps.streaming), "pushNotifications": bool(caps.push_notifications)}
    return {"reads": True, "extended": bool(card.supports_authenticated_extended_card), "flags": flags, "factory": out}


for line in sys.stdin:
    if line.strip():
        req = json.loads(line)
        print(json.dumps({"id": req["id"], **picks(base64.b64decode(req["raw"]))}), flush=True)
