"""Which interface PyPI a2a-sdk's own ClientFactory connects to, for the SDK differential's
interface-choice check (sdk_parity.py, "Client picks").

stdin: JSON lines `{"id": N, "card": {...}, "bindings": ["JSONRPC", ...]}` (or `raw`: base64
bytes, parsed by httpx's `Response.json()` as `A2ACardResolver` does). stdout: one JSON line per
card, `{"id": N, "ok": true, "picks": {"<binding>": null | {"index": i, "version": "...", "wire": "0.3" | "1.0",
"tenant": "..."}}}`, or
`{"id": N, "ok": false, "error": "..."}` when `parse_agent_card` refuses the card.
The card is parsed by py_reader.py's loop (`parse_agent_card` of a deep copy), then for each
binding X `ClientFactory._find_best_interface(list(card.supported_interfaces),
protocol_bindings=[X])`, the static method `ClientFactory.create` calls (for a client configured
with `supported_protocol_bindings=[X]`, either value of `use_client_preference`) and each
transport producer calls again with the chosen url. An exception or None = no client.
`wire` is the protocol generation of the transport that producer then builds for the pick: "0.3"
for its Compat* (v0.3) transport, which it takes when `is_legacy_version` (packaging reads the
version as 0.3 <= v < 1.0: `1.0.0-rc.1` too), else "1.0". For JSONRPC and HTTP+JSON the real
producer builds it; for other bindings (no producer without the grpc extra) `is_legacy_version`,
the producers' own test, says which. `tenant` is the picked interface's as a2a-sdk holds it (a
string, "" when unset): `ClientFactory` wraps the transport in its tenant decorator when it is not
"", and its v0.3 transports send none (client_picks.py's truth).
"""

import httpx

from a2a.client.client import ClientConfig
from a2a.client.client_factory import ClientFactory
from a2a.compat.v0_3.versions import is_legacy_version

from py_reader import serve


def pick(card, binding):
    interfaces = list(card.supported_interfaces)
    try:
        chosen = ClientFactory._find_best_interface(list(interfaces), protocol_bindings=[binding])
    except Exception:  # noqa: BLE001 - a raise in the factory means no client
        return None
    if chosen is None:
        return None
    index = next(k for k, i in enumerate(interfaces) if i is chosen)
    try:
        generation = wire(card, binding, chosen)
    except Exception:  # noqa: BLE001 - the producer raising means no client either
        return None
    return {"index": index, "version": chosen.protocol_version, "binding": chosen.protocol_binding,
            "wire": generation, "tenant": chosen.tenant}


FACTORIES = {}
HTTPX = httpx.AsyncClient()  # one shared client: building one per transport is slow


def factory_for(binding):
    """A ClientFactory speaking only `binding` (None when it cannot be built: GRPC without the extra)."""
    if binding not in FACTORIES:
        try:
            FACTORIES[binding] = ClientFactory(ClientConfig(supported_protocol_bindings=[binding], httpx_client=HTTPX))
        except Exception:  # noqa: BLE001
            FACTORIES[binding] = None
    return FACTORIES[binding]


def wire(card, binding, chosen):
    """The protocol generation of the transport the factory's producer builds for the pick."""
    factory = factory_for(binding)
    producer = factory._registry.get(binding) if factory is not None else None
    if producer is None:
        return "0.3" if is_legacy_version(chosen.protocol_version) else "1.0"
    transport = producer(card, chosen.url, factory._config)
    return "0.3" if type(transport).__name__.startswith("Compat") else "1.0"


def main():
    serve(lambda entry, parsed: {"picks": {
        x: pick(parsed, x) for x in entry["bindings"]}})


if __name__ == "__main__":
    main()
