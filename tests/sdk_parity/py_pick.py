"""Which interface PyPI a2a-sdk's own ClientFactory connects to, for the SDK differential's
interface-choice check (sdk_parity.py, "Client picks").

stdin: JSON lines `{"id": N, "card": {...}, "bindings": ["JSONRPC", ...]}` (or `raw`: base64
bytes, parsed by httpx's `Response.json()` as `A2ACardResolver` does). stdout: one JSON line per
card, `{"id": N, "ok": true, "picks": {"<binding>": null | {"index": i, "version": "..."}}}`, or
`{"id": N, "ok": false, "error": "..."}` when `parse_agent_card` refuses the card.
The card is parsed as py_reader.py does it (`parse_agent_card` of a deep copy), then for each
binding X `ClientFactory._find_best_interface(list(card.supported_interfaces),
protocol_bindings=[X])`, the static method `ClientFactory.create` calls (for a client configured
with `supported_protocol_bindings=[X]`, either value of `use_client_preference`) and each
transport producer calls again with the chosen url. An exception or None = no client.
"""

import base64
import copy
import json
import sys

import httpx

from a2a.client.card_resolver import parse_agent_card
from a2a.client.client_factory import ClientFactory


def pick(interfaces, binding):
    try:
        chosen = ClientFactory._find_best_interface(list(interfaces), protocol_bindings=[binding])
    except Exception:  # noqa: BLE001 - a raise in the factory means no client
        return None
    if chosen is None:
        return None
    index = next(k for k, i in enumerate(interfaces) if i is chosen)
    return {"index": index, "version": chosen.protocol_version, "binding": chosen.protocol_binding}


def main():
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
            interfaces = list(parsed.supported_interfaces)
            result = {"id": entry["id"], "ok": True,
                      "picks": {x: pick(interfaces, x) for x in entry["bindings"]}}
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
