"""Where PyPI a2a-sdk's own client sends a message, for the URL send check
(tests/node/url-send.mjs).

stdin: JSON lines `{"id": N, "card": {...}, "binding": "JSONRPC" | "HTTP+JSON"}`. stdout: one
JSON line per entry, `{"id": N, "built": bool, "picked": [url], "sent": [...], "error": "..."}`
(`picked`: the url of the interface the factory picked, as handed to the transport producer). Each card is
parsed by `parse_agent_card` (as `A2ACardResolver.get_agent_card` does), a client is built by the
real `ClientFactory(ClientConfig(httpx_client=..., supported_protocol_bindings=[binding]))
.create(card)` (its own interface pick, version-dependent transport and tenant decorator), and
`send_message` is called once. The httpx client is a real `httpx.AsyncClient` whose transport
is an `httpx.MockTransport`: every request it is handed is recorded as httpx holds it (scheme,
host as WHATWG writes it, port with the scheme's default, raw path) and answered by raising, so
nothing leaves the machine. `wire` says whether httpx's own transport would send it at all
(httpcore takes `http`, `https`, `ws` and `wss` with a host: a `ws://` url gets a plain HTTP
POST, a `wss://` one HTTPS).

`--wire` (tests/node/url-adv.mjs): the httpx client is a plain one whose own transport sends,
with a request hook recording the same fields and an `x-case: N` header on every request, so a
local server can say what arrived on the wire for which entry.
"""

import asyncio
import copy
import ipaddress
import json
import sys

import httpx

from a2a.client.card_resolver import parse_agent_card
from a2a.client.client import ClientConfig
from a2a.client.client_factory import ClientFactory
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest

DEFAULT_PORT = {"http": 80, "https": 443, "ws": 80, "wss": 443}


class Recorded(Exception):
    """Raised by the mock transport once the request is recorded."""


def reading(request):
    x = request.url
    try:
        host = x.raw_host.decode("ascii")
        if ":" in host:
            host = "[" + ipaddress.IPv6Address(host).compressed + "]"
        port = x.port if x.port is not None else DEFAULT_PORT.get(x.scheme, "")
        return {"ok": bool(host), "scheme": x.scheme, "host": host, "port": str(port),
                "target": x.raw_path.decode("ascii"),
                "wire": x.scheme in ("http", "https", "ws", "wss") and bool(host)}
    except Exception as e:  # noqa: BLE001 - a url httpx holds but cannot be read back
        return {"ok": False, "why": f"{type(e).__name__}: {e}"[:200]}


async def main():
    sent = []

    def handler(request):
        sent.append(reading(request))
        raise Recorded()

    wire = "--wire" in sys.argv[1:]
    if wire:
        async def hook(request):
            sent.append(reading(request))

        http = httpx.AsyncClient(timeout=10, event_hooks={"request": [hook]})
    else:
        http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    factories = {
        b: ClientFactory(ClientConfig(httpx_client=http, streaming=False,
                                      supported_protocol_bindings=[b]))
        for b in ("JSONRPC", "HTTP+JSON")
    }
    # Which interface url the factory's pick hands its transport producer (the registered
    # producer itself still builds the transport).
    picked = []
    for binding, factory in factories.items():
        def recording(card, url, config, produce=factory._registry[binding]):  # noqa: SLF001
            picked.append(url)
            return produce(card, url, config)
        factory.register(binding, recording)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        entry = json.loads(line)
        sent.clear()
        picked.clear()
        http.headers["x-case"] = str(entry["id"])
        result = {"id": entry["id"], "built": False}
        try:
            card = parse_agent_card(copy.deepcopy(entry["card"]))
            client = factories[entry["binding"]].create(card)
            result["built"] = True
            request = SendMessageRequest(message=Message(
                message_id="m1", role=Role.ROLE_USER, parts=[Part(text="hi")]))
            async for _ in client.send_message(request):
                break
        except Exception as e:  # noqa: BLE001 - the request (if any) is recorded; the rest is why
            if not isinstance(e, Recorded) and (not sent or wire):
                result["error"] = f"{type(e).__name__}: {e}"[:200]
        result["sent"] = list(sent)
        result["picked"] = list(picked)
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    out.flush()


if __name__ == "__main__":
    asyncio.run(main())
