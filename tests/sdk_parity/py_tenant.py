"""Tenant differential: does PyPI a2a-sdk's own client send the tenant of the interface it picks?

For each generated card (one or two interfaces of one binding, versions around 0.3 and 1.0,
tenants absent / "" / "acme", in both orders; or one next to a GRPC interface at its version) and each HTTP binding, the real
`ClientFactory(ClientConfig(httpx_client=..., supported_protocol_bindings=[binding])).create(card)`
builds a client (its own pick, version-dependent transport, tenant decorator) and sends one
message through an `httpx.MockTransport` that records the request and answers by raising, so
nothing leaves the machine. The tenant reached the agent when the JSON-RPC body's `params.tenant`
or the REST path's first segment after the url's path is the picked interface's tenant.

cardgate is asked `{"require": ["binding:X"]}` for the same card. UNSAFE: cardgate says valid,
the client built and sent, and a tenant named by the picked interface is not in the request
(a2a-sdk's v0.3 transports have none to send). Exit 1 on any UNSAFE.

    py_tenant.py --cardgate target/release/cardgate
"""

import asyncio
import copy
import itertools
import json
import subprocess
import sys

import httpx

from a2a.client.card_resolver import parse_agent_card
from a2a.client.client import ClientConfig
from a2a.client.client_factory import ClientFactory
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest

URL = "https://worker.example/a2a"
VERSIONS = ["0.3", "0.3.0", "1.0", "1.0.0", "1.0rc1", "0.9", "", "1.1"]
TENANTS = [None, "", "acme"]
BASE = {
    "name": "Worker", "description": "d", "version": "1", "capabilities": {},
    "defaultInputModes": ["text"], "defaultOutputModes": ["text"], "skills": [],
}


class Recorded(Exception):
    """Raised by the mock transport once the request is recorded."""


def cards():
    def iface(binding, version, tenant):
        i = {"url": URL, "protocolBinding": binding}
        if version:
            i["protocolVersion"] = version
        if tenant is not None:
            i["tenant"] = tenant
        return i

    for binding in ("JSONRPC", "HTTP+JSON"):
        for v, t in itertools.product(VERSIONS, TENANTS):
            yield binding, [iface(binding, v, t)]
        for (v1, t1), (v2, t2) in itertools.product(
                itertools.product(["0.3", "1.0", "1.0rc1"], [None, "acme"]), repeat=2):
            yield binding, [iface(binding, v1, t1), iface(binding, v2, t2)]
        # Another binding's interface at the same version, before or after, with or without a
        # tenant: only the tenant of the interface the client picks counts.
        for v, t, t_other, first in itertools.product(
                ["0.3", "1.0"], [None, "acme"], [None, "acme"], [True, False]):
            pair = [iface("GRPC", v, t_other), iface(binding, v, t)]
            yield binding, pair if first else pair[::-1]


async def send(card, binding):
    """(picked interface's tenant, whether the request carried it), or None when no request."""
    sent = []

    def handler(request):
        sent.append(request)
        raise Recorded()

    picked = []
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    factory = ClientFactory(ClientConfig(httpx_client=http, streaming=False,
                                         supported_protocol_bindings=[binding]))
    produce = factory._registry[binding]  # noqa: SLF001

    def recording(c, url, config):
        picked.append(url)
        return produce(c, url, config)

    factory.register(binding, recording)
    parsed = parse_agent_card(copy.deepcopy(card))
    try:
        client = factory.create(parsed)
        # The pick's tenant, as ClientFactory.create reads it off the interface it selected.
        chosen = ClientFactory._find_best_interface(  # noqa: SLF001
            list(parsed.supported_interfaces), protocol_bindings=[binding])
        async for _ in client.send_message(SendMessageRequest(message=Message(
                message_id="m1", role=Role.ROLE_USER, parts=[Part(text="hi")]))):
            break
    except Recorded:
        pass
    except Exception:  # noqa: BLE001 - no client or no request: nothing sent anywhere
        return None
    if not sent:
        return None
    request = sent[0]
    tenant = chosen.tenant
    if not tenant:
        return tenant, True
    if binding == "JSONRPC":
        got = json.loads(request.content).get("params", {}).get("tenant", "")
    else:
        rest = request.url.raw_path.decode("ascii")[len("/a2a"):]
        got = rest.split("/")[1] if rest.count("/") >= 2 else ""
    return tenant, got == tenant


def main():
    args = sys.argv[1:]
    cardgate = args[args.index("--cardgate") + 1]
    unsafe = checked = dropped = 0
    for binding, interfaces in cards():
        card = dict(BASE, supportedInterfaces=interfaces)
        outcome = asyncio.run(send(card, binding))
        req = {"require": [f"binding:{binding}"], "max_stale": "10s"}
        r = subprocess.run(
            [cardgate, "check", "-", "--requirement", json.dumps(req), "--lag-ms", "0"],
            input=json.dumps(card), capture_output=True, text=True, check=False)
        valid = r.returncode == 0
        checked += 1
        if outcome is None or outcome[1]:
            continue
        dropped += 1
        if valid:
            unsafe += 1
            print(f"UNSAFE {binding} {json.dumps(interfaces)}: cardgate valid, "
                  f"a2a-sdk's request carries no tenant {outcome[0]!r}")
    print(f"py_tenant: {checked} cards, {dropped} where a2a-sdk drops the picked tenant, "
          f"{unsafe} UNSAFE")
    return 1 if unsafe else 0


if __name__ == "__main__":
    sys.exit(main())
