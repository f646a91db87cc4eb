"""Which interface PyPI a2a-sdk's own ClientFactory connects to, for the SDK differential's
interface-choice check (sdk_parity.py, "Client picks").

stdin: JSON lines `{"id": N, "card": {...}, "bindings": ["JSONRPC", ...]}` (or `raw`: base64
bytes, parsed by httpx's `Response.json()` as `A2ACardResolver` does). stdout: one JSON line per
card, `{"id": N, "ok": true, "picks": {"<binding>": null | {"index": i, "version": "..."}}}`, or
`{"id": N, "ok": false, "error": "..."}` when `parse_agent_card` refuses the card.
The card is parsed by py_reader.py's loop (`parse_agent_card` of a deep copy), then for each
binding X `ClientFactory._find_best_interface(list(card.supported_interfaces),
protocol_bindings=[X])`, the static method `ClientFactory.create` calls (for a client configured
with `supported_protocol_bindings=[X]`, either value of `use_client_preference`) and each
transport producer calls again with the chosen url. An exception or None = no client.
"""

from a2a.client.client_factory import ClientFactory

from py_reader import serve


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
    serve(lambda entry, parsed: {"picks": {
        x: pick(list(parsed.supported_interfaces), x) for x in entry["bindings"]}})


if __name__ == "__main__":
    main()
