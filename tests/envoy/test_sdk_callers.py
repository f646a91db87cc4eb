"""The seed's incident end to end with real A2A SDK callers and a real SDK worker, through the
shipped envoy/envoy.yaml (both listeners, on free ports).

- worker: PyPI a2a-sdk 1.3.0's JSON-RPC routes on uvicorn (sdk_worker.py); after its rolling
  deploy it serves `task.execute.v3` on /a2a/v3 and rejects anything else with a
  `TASK_STATE_REJECTED` task (`unsupported_capability: <skill>`), also on its old endpoint /a2a.
- registry: envoy/registry.py: the primary serves the deployed card (3.0.0, v3, /a2a/v3, lag 0),
  the edge replica the card it copied 40 s before the deploy (2.0.0, v2, /a2a, lag 40 000 ms).
- Python planner: `A2ACardResolver(httpx_client, base_url=<host>/agents/worker-7)` (the card route
  `/agents/{id}/.well-known/agent-card.json`), then `ClientFactory(ClientConfig(httpx_client=...))
  .create(card)` and `send_message`; the caller's requirement as headers of its httpx client.
- Node planner: @a2a-js/sdk 1.3.0's `ClientFactory.createFromUrl` with its default card resolver
  (sdk_caller.mjs, a real node), the requirement through the SDK's `fetchImpl` option.

Each planner invokes the execute skill the card it resolved advertises, as the incident's did.
"""

import asyncio
import base64
import gzip
import json
import os
import subprocess
import sys

import httpx
import pytest

import harness
from conftest import oracle_hash
from test_adversarial import shipped_config

from a2a.client import A2ACardResolver, AgentCardResolutionError, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, TaskState
from google.protobuf.struct_pb2 import Struct

HERE = os.path.dirname(os.path.abspath(__file__))
CARD_PATH = "/agents/worker-7/.well-known/agent-card.json"
NODE = os.environ.get("NODE", "node")
PLANNERS = ["py", "node"]


def worker_card(generation, worker):
    """worker-7's card before (2) and after (3) the deploy, pointing at the real worker."""
    path = "/a2a" if generation == 2 else "/a2a/v3"
    return {
        "name": "worker-7",
        "description": "Python worker runtime that executes planner tasks",
        "version": "%d.0.0" % generation,
        "supportedInterfaces": [{"url": "http://127.0.0.1:%d%s" % (worker.port, path),
                                 "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": False, "pushNotifications": False},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "task.execute.v%d" % generation, "name": "Execute task",
                    "description": "Runs one planner task to completion", "tags": ["execution"]}],
    }


def compact(value):
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


# -- the real processes ----------------------------------------------------------------------

class Worker:
    def __init__(self, workdir):
        ready = os.path.join(workdir, "worker-ready.json")
        self.log = open(os.path.join(workdir, "worker.log"), "w")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "sdk_worker.py"), "--ready-file", ready],
                                     stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.port = harness.wait_until(lambda: (harness._read_json(ready) or {}).get("port"), 20, "the SDK worker")
        harness.wait_until(self._up, 20, "the SDK worker's routes")

    def _up(self):
        if self.proc.poll() is not None:
            raise RuntimeError("the SDK worker exited with %s" % self.proc.returncode)
        try:
            return harness.request(self.port, "/_worker/requests", timeout=2).status == 200
        except OSError:
            return False

    def seen(self):
        return harness.request(self.port, "/_worker/requests").json()

    def clear(self):
        assert harness.request(self.port, "/_worker/requests", "DELETE").status == 204

    def stop(self):
        harness.stop(self.proc)
        self.log.close()


class NodePlanner:
    """sdk_caller.mjs, one JSON line per delegation."""

    def __init__(self, workdir):
        self.err_path = os.path.join(workdir, "node-planner.log")
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen([NODE, os.path.join(HERE, "sdk_caller.mjs")], cwd=harness.ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     text=True, bufsize=1)

    def plan(self, base, path=None, headers=None, preferred=None):
        job = {"base": base, "path": path, "headers": headers, "preferred": preferred}
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            with open(self.err_path) as f:
                raise AssertionError("the node planner exited (%s): %s" % (self.proc.poll(), f.read()[-2000:]))
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(5)
            with open(self.err_path) as f:
                raise AssertionError("the node planner exited (%s): %s" % (self.proc.poll(), f.read()[-2000:]))
        out = json.loads(line)
        for f in out["fetches"]:
            f["body"] = base64.b64decode(f.pop("body_b64"))
            f["headers"] = dict(f["headers"])
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                harness.stop(self.proc)
        self.err.close()


@pytest.fixture(scope="module")
def world(workdir):
    sub = os.path.join(workdir, "sdk-callers")
    os.makedirs(sub, exist_ok=True)
    procs = []
    try:
        registry = harness.Registry(sub).start()
        procs.append(registry)
        worker = Worker(sub)
        procs.append(worker)
        envoy = harness.Envoy(shipped_config(registry.replica, registry.primary), sub, "sdk-callers")
        procs.append(envoy)
        envoy.start()
        node = NodePlanner(sub)
        procs.append(node)
        yield World(registry, worker, envoy, node)
    finally:
        for p in reversed(procs):
            p.stop()


class World:
    def __init__(self, registry, worker, envoy, node):
        self.registry, self.worker, self.envoy, self.node = registry, worker, envoy, node

    def base(self, where):
        port = {"replica": self.registry.replica, "gate": self.envoy.ports["registry_ingress"],
                "reresolve": self.envoy.ports["registry_ingress_reresolve"]}[where]
        return "http://127.0.0.1:%d/agents/worker-7" % port

    def serve(self, replica=None, lag_ms=40000, primary=3, replica_headers=(), path=CARD_PATH, status=200):
        """The replica serves `replica` (a generation, or bytes) with its lag; the primary serves
        the deployed card with lag 0."""
        if isinstance(replica, int):
            replica = compact(worker_card(replica, self.worker))
        headers = [("Content-Type", "application/json"), ("x-replica-lag-ms", str(lag_ms))] + list(replica_headers)
        self.registry.register(
            self.registry.script(path, replica, status=status, headers=headers, role="replica"),
            self.registry.script(path, compact(worker_card(primary, self.worker)),
                                 headers=[("Content-Type", "application/json"), ("x-replica-lag-ms", "0")],
                                 role="primary"))
        self.worker.clear()

    def plan(self, planner, where, headers=None, **options):
        if planner == "node":
            # The Node SDK's own options have no redirect or HTTP/2 switch: fetch follows
            # redirects and speaks HTTP/1.1.
            return self.node.plan(self.base(where) + "/", headers=headers, preferred=options.get("preferred"))
        return asyncio.run(py_plan(self.base(where), headers, **options))


# -- the Python planner ------------------------------------------------------------------------

async def py_plan(base, headers=None, follow_redirects=False, http2=False, via="resolver"):
    """A2ACardResolver + ClientFactory + send_message, as the Node planner's result dict."""
    fetches = []

    async def keep(response):
        await response.aread()
        fetches.append({"url": str(response.request.url), "method": response.request.method,
                        "status": response.status_code, "headers": dict(response.headers),
                        "body": response.content, "http_version": response.http_version,
                        "request_headers": dict(response.request.headers)})

    out = {"stage": "discovery", "error": None, "card": None, "picked": None, "reply": None, "fetches": fetches}
    options = {"http2": True, "http1": False} if http2 else {}
    # via "factory": the headers go as create_from_url's resolver_http_kwargs, not on the client.
    client_headers = {} if via == "factory" else headers or {}
    async with httpx.AsyncClient(headers=client_headers, event_hooks={"response": [keep]}, timeout=10,
                                 follow_redirects=follow_redirects, **options) as http:
        try:
            if via == "factory":
                factory = ClientFactory(ClientConfig(httpx_client=http, streaming=False))
                client = await factory.create_from_url(base, resolver_http_kwargs={"headers": headers or {}})
                card = client._card  # noqa: SLF001 - what the client was built on
            else:
                card = await A2ACardResolver(http, base).get_agent_card()
        except AgentCardResolutionError as e:
            out["error"] = e
            return out
        out["card"] = card
        out["stage"] = "send"
        # HTTP/2 prior knowledge reaches Envoy; the worker (uvicorn) speaks HTTP/1.1 only.
        async with httpx.AsyncClient(headers=headers or {}, event_hooks={"response": [keep]}, timeout=10) as plain:
            send_http = plain if http2 else http
            if via != "factory":
                client = ClientFactory(ClientConfig(httpx_client=send_http, streaming=False)).create(card)
            out["picked"] = client._transport.url  # noqa: SLF001 - where the transport sends
            skill = next((s.id for s in card.skills if s.id.startswith("task.execute")), "")
            metadata = Struct()
            metadata.update({"skill": skill})
            request = SendMessageRequest(message=Message(role=Role.ROLE_USER, message_id="m-1",
                                                         parts=[Part(text="plan step 1")]),
                                         metadata=metadata)
            last = None
            async for event in client.send_message(request):
                last = event
        status = last.task.status
        out["reply"] = {"state": TaskState.Name(status.state), "skill": skill,
                        "text": "".join(p.text for p in status.message.parts)}
        out["stage"] = "done"
    return out


def card_fetches(out):
    return [f for f in out["fetches"] if f["url"].endswith("agent-card.json")]


def reading_of(planner, out):
    """What the planner's SDK parsed: the interface urls and skill ids, and the card version."""
    card = out["card"]
    if planner == "node":
        return ([i["url"] for i in card["supportedInterfaces"]], [s["id"] for s in card["skills"]], card["version"])
    return ([i.url for i in card.supported_interfaces], [s.id for s in card.skills], card.version)


def refusal(planner, out):
    """(status, problem document, verdict header) as the caller can read them, and what the
    SDK's exception itself carries."""
    if planner == "py":
        e = out["error"]
        assert isinstance(e, AgentCardResolutionError), e
        # The SDK's own exception carries the status; the httpx response it wraps (__cause__)
        # carries the verdict header and the problem document.
        cause = e.__cause__
        assert isinstance(cause, httpx.HTTPStatusError), repr(cause)
        response = cause.response
        return (e.status_code, response.json(), response.headers.get("a2a-card-verdict"),
                response.headers.get("content-type"), str(e))
    e = out["error"]
    # @a2a-js/sdk's DefaultAgentCardResolver throws a plain Error whose message ends with the
    # status; nothing else on it (no status property, no response, no cause).
    assert e["name"] == "Error" and e["constructor"] == "Error", e
    assert e["own"] == {} and e["cause"] is None, e
    status = int(e["message"].rsplit(": ", 1)[1])
    # The problem is only reachable through a fetch wrapper (here: the recording one).
    (f,) = card_fetches(out)
    return (status, json.loads(f["body"]), f["headers"].get("a2a-card-verdict"), f["headers"].get("content-type"),
            e["message"])


# -- the incident ------------------------------------------------------------------------------

@pytest.mark.parametrize("planner", PLANNERS)
def test_straight_from_the_lagging_replica_the_task_reaches_the_old_endpoint_and_is_rejected(world, planner):
    world.serve(replica=2)
    out = world.plan(planner, "replica")
    assert out["stage"] == "done", out
    assert reading_of(planner, out)[:2] == (["http://127.0.0.1:%d/a2a" % world.worker.port], ["task.execute.v2"])
    assert out["reply"]["state"] == "TASK_STATE_REJECTED", out["reply"]
    assert out["reply"]["text"] == "unsupported_capability: task.execute.v2"
    seen = world.worker.seen()
    assert [(r["method"], r["path"]) for r in seen["requests"]] == [("POST", "/a2a")]
    assert seen["executed"] == [{"skill": "task.execute.v2", "text": "plan step 1", "outcome": "rejected"}]


STALE = {"replica": 2, "lag_ms": 40000}
MISMATCH = {"replica": 3, "lag_ms": 120}
# Duplicate member: the SDKs' JSON readers keep the last "version" ("3.0.0"); the gate refuses it.
MALFORMED = {"replica": compact(worker_card(3, type("W", (), {"port": 1})))[:-1] + b',"version":"3.0.0"}',
             "lag_ms": 120}


@pytest.mark.parametrize("planner", PLANNERS)
@pytest.mark.parametrize("case, status, error_class, code, headers", [
    ("stale", 503, "stale_agent_card", "watermark_exceeded", None),
    # Fresh and deployed, but the caller also needs a skill worker-7 never had.
    ("mismatch", 409, "capability_mismatch", "capabilities_missing", {"a2a-require-capabilities": "task.cancel.v1"}),
    ("malformed", 502, "malformed_card", "duplicate_member", None),
])
def test_through_the_gate_the_sdk_call_fails_at_discovery_with_a_typed_reason(world, planner, case, status,
                                                                               error_class, code, headers):
    scenario = {"stale": STALE, "mismatch": MISMATCH, "malformed": MALFORMED}[case]
    world.serve(**scenario)
    out = world.plan(planner, "gate", headers=headers)
    assert out["stage"] == "discovery", out
    got_status, problem, verdict, ctype, message = refusal(planner, out)
    assert got_status == status, message
    assert verdict == "rejected" and ctype == "application/problem+json"
    assert problem["error_class"] == error_class and problem["type"] == "urn:cardgate:problem:" + error_class
    assert code in [r["code"] for r in problem["reasons"]], problem
    assert str(status) in message
    if case == "stale":
        assert problem["staleness_ms"] == 40000 and problem["card"]["version"] == "2.0.0"
    # No message was sent: the worker saw no request at all.
    assert world.worker.seen() == {"requests": [], "executed": []}


@pytest.mark.parametrize("planner", PLANNERS)
@pytest.mark.parametrize("where, source, attempts", [("reresolve", "primary", "2"), ("gate", None, None)])
def test_a_valid_card_is_the_one_the_sdk_parsed_and_the_client_sends_where_the_gate_granted(world, planner, where,
                                                                                             source, attempts):
    # The re-resolving listener behind the stale replica; the first listener behind a replica
    # that has caught up (120 ms behind).
    world.serve(**(STALE if where == "reresolve" else MISMATCH))
    out = world.plan(planner, where)
    assert out["stage"] == "done", out
    (f,) = card_fetches(out)
    assert f["status"] == 200 and f["headers"]["a2a-card-verdict"] == "valid", f
    assert f["headers"].get("a2a-card-source") == source and f["headers"].get("a2a-card-attempts") == attempts
    # The gate hashed the bytes this SDK received and parsed.
    assert f["headers"]["a2a-card-hash"] == oracle_hash(json.loads(f["body"]))
    served = json.loads(f["body"])
    granted = [i["url"] for i in served["supportedInterfaces"]]
    urls, skills, version = reading_of(planner, out)
    assert (urls, skills, version) == (granted, ["task.execute.v3"], "3.0.0")
    assert out["picked"] == granted[0] == "http://127.0.0.1:%d/a2a/v3" % world.worker.port
    assert out["reply"] == {"state": "TASK_STATE_COMPLETED", "text": "executed: plan step 1", "skill": "task.execute.v3"}
    assert [(r["method"], r["path"]) for r in world.worker.seen()["requests"]] == [("POST", "/a2a/v3")]


# -- the caller's requirement, through each SDK's own client options --------------------------

# (replica generation, lag, headers, expected status, reason code): the rule alone passes each
# card; the caller's header tightens it. A loosening header changes nothing.
REQUIREMENTS = [
    ("min-version", 3, 120, {"a2a-min-card-version": "4.0.0"}, 503, "version_below_minimum"),
    ("max-stale", 3, 5000, {"cache-control": "max-stale=2"}, 503, "watermark_exceeded"),
    ("capability", 3, 120, {"a2a-require-capabilities": "task.execute.v3, capability:streaming"}, 409,
     "capabilities_missing"),
    ("no-loosening", 2, 40000, {"cache-control": "max-stale=60", "a2a-min-card-version": "1.0.0"}, 503,
     "watermark_exceeded"),
]


@pytest.mark.parametrize("how", ["py-client-headers", "py-factory", "node-fetchImpl"])
@pytest.mark.parametrize("name, generation, lag_ms, headers, status, code", REQUIREMENTS,
                         ids=[r[0] for r in REQUIREMENTS])
def test_a_requirement_passed_through_the_sdk_options_is_honoured(world, how, name, generation, lag_ms, headers,
                                                                  status, code):
    world.serve(replica=generation, lag_ms=lag_ms)
    planner = "node" if how.startswith("node") else "py"
    if planner == "py":
        # httpx.AsyncClient(headers=...), the client A2ACardResolver is handed, or
        # ClientFactory.create_from_url(..., resolver_http_kwargs={"headers": ...}).
        out = asyncio.run(py_plan(world.base("gate"), headers,
                                  via="factory" if how == "py-factory" else "resolver"))
    else:
        out = world.plan("node", "gate", headers=headers)
    assert out["stage"] == "discovery", out
    got, problem, verdict, _, _ = refusal(planner, out)
    assert (got, verdict) == (status, "rejected")
    assert code in [r["code"] for r in problem["reasons"]], problem
    # What went upstream: the caller's headers reached the gate (the registry sees them too).
    sent = dict(world.registry.last_request_headers(CARD_PATH))
    for k, v in headers.items():
        assert sent.get(k) == v, (k, sent)
    assert world.worker.seen()["requests"] == []
    # Without the header, the same card passes the rule (the header made the difference).
    if name != "no-loosening":
        again = world.plan(planner, "gate")
        assert again["stage"] == "done", again


@pytest.mark.parametrize("planner", PLANNERS)
def test_a_caller_header_the_gate_cannot_read_is_a_400_at_discovery(world, planner):
    world.serve(**MISMATCH)
    out = world.plan(planner, "gate", headers={"cache-control": "max-stale=ten"})
    assert out["stage"] == "discovery", out
    got, problem, _, ctype, _ = refusal(planner, out)
    assert (got, ctype) == (400, "application/problem+json")
    assert problem["type"] == "urn:cardgate:problem:invalid_caller_requirement", problem
    assert world.worker.seen()["requests"] == []


# -- what a demanding user of each SDK also hits -------------------------------------------------

def test_head_with_the_sdk_httpx_client_is_checked_like_the_get(world):
    world.serve(**MISMATCH)

    async def both():
        async with httpx.AsyncClient() as http:
            url = world.base("gate") + "/.well-known/agent-card.json"
            return await http.head(url), await http.get(url)

    head, get = asyncio.run(both())
    assert head.status_code == 200 and head.content == b""
    assert head.headers["a2a-card-verdict"] == get.headers["a2a-card-verdict"] == "valid"
    assert head.headers["a2a-card-hash"] == get.headers["a2a-card-hash"] == oracle_hash(json.loads(get.content))
    assert head.headers["content-length"] == str(len(get.content))
    world.serve(**STALE)

    async def stale_head():
        async with httpx.AsyncClient() as http:
            return await http.head(world.base("gate") + "/.well-known/agent-card.json")

    resp = asyncio.run(stale_head())
    assert resp.status_code == 503 and resp.headers["a2a-card-verdict"] == "rejected"


def test_node_default_resolver_needs_the_trailing_slash_python_adds_the_segment(world):
    """Python's A2ACardResolver appends the well-known path to base_url; @a2a-js/sdk resolves it
    as a relative URL (new URL(path, base)), which replaces the last segment without a slash."""
    world.serve(**MISMATCH)
    out = world.node.plan(world.base("gate"))  # no trailing slash
    assert out["stage"] == "discovery", out
    (f,) = out["fetches"]
    assert f["url"].endswith(":%d/agents/.well-known/agent-card.json" % world.envoy.ports["registry_ingress"])
    # The shipped well_known route checks that path too (defaults: 30 s, no capability) and the
    # registry has no card there: the caller gets its 404, untouched.
    assert f["status"] == 404 and "a2a-card-verdict" not in f["headers"]
    assert out["error"]["message"].endswith(": 404")
    assert world.worker.seen()["requests"] == []


@pytest.mark.parametrize("planner", PLANNERS)
def test_redirect_to_a_card_route_of_the_same_rule_is_followed_and_its_target_checked(world, planner):
    target = "/agents/worker-7/card"
    world.serve(replica=b"", lag_ms=0, status=302, replica_headers=[("Location", target)])
    world.serve(path=target, **STALE)
    out = world.plan(planner, "gate", follow_redirects=True)
    # fetch follows redirects by default; httpx when the user turns it on. Either way the
    # card the SDK ends up with is the target's, which the gate checked: stale, 503.
    assert out["stage"] == "discovery", out
    assert [f["status"] for f in out["fetches"]] == ([302, 503] if planner == "py" else [503])
    got, problem, verdict, _, _ = refusal(planner, out)
    assert (got, verdict, problem["error_class"]) == (503, "rejected", "stale_agent_card")
    assert world.worker.seen()["requests"] == []


def test_httpx_default_does_not_follow_a_redirect_and_fails_at_discovery(world):
    world.serve(replica=b"", lag_ms=0, status=302, replica_headers=[("Location", "/agents/worker-7/card")])
    out = world.plan("py", "gate")
    assert out["stage"] == "discovery"
    assert out["error"].status_code == 302 and "a2a-card-verdict" not in out["fetches"][0]["headers"]


@pytest.mark.parametrize("planner", PLANNERS)
def test_redirect_past_the_gate_fails_closed_before_the_sdk_follows_it(world, planner):
    world.serve(replica=b"", lag_ms=0, status=302, replica_headers=[("Location", "/cards/worker-7.json")])
    world.serve(path="/cards/worker-7.json", **STALE)
    out = world.plan(planner, "gate", follow_redirects=True)
    assert out["stage"] == "discovery", out
    assert len(out["fetches"]) == 1
    got, problem, verdict, _, _ = refusal(planner, out)
    assert (got, verdict) == (502, "rejected") and problem["reasons"][0]["code"] == "body_empty"
    assert world.worker.seen()["requests"] == []


@pytest.mark.parametrize("planner", PLANNERS)
def test_gzip_the_sdk_asks_for_is_not_passed_upstream_and_a_gzipped_card_fails_closed(world, planner):
    body = compact(worker_card(3, world.worker))
    world.serve(**MISMATCH)
    out = world.plan(planner, "replica")
    asked = dict(world.registry.last_request_headers(CARD_PATH)).get("accept-encoding") or ""
    assert "gzip" in asked  # each SDK's HTTP client asks for gzip by default
    out = world.plan(planner, "gate")
    assert out["stage"] == "done"
    assert "accept-encoding" not in dict(world.registry.last_request_headers(CARD_PATH))
    # A registry that compresses anyway: the SDK decodes it straight from the replica; the gate
    # refuses it (502 body_encoded), and the re-resolving listener gets the primary's card.
    world.serve(replica=gzip.compress(body), lag_ms=120, replica_headers=[("Content-Encoding", "gzip")])
    assert world.plan(planner, "replica")["stage"] == "done"
    out = world.plan(planner, "gate")
    got, problem, _, _, _ = refusal(planner, out)
    assert got == 502 and problem["reasons"][0]["code"] == "body_encoded"
    out = world.plan(planner, "reresolve")
    assert out["stage"] == "done" and out["reply"]["state"] == "TASK_STATE_COMPLETED"
    assert card_fetches(out)[0]["headers"]["a2a-card-source"] == "primary"


def test_a2a_sdk_over_http2_prior_knowledge_gets_the_same_verdicts(world):
    world.serve(**STALE)
    out = asyncio.run(py_plan(world.base("gate"), http2=True))
    assert out["fetches"][0]["http_version"] == "HTTP/2"
    assert out["error"].status_code == 503
    assert json.loads(out["error"].__cause__.response.content)["error_class"] == "stale_agent_card"
    out = asyncio.run(py_plan(world.base("reresolve"), http2=True))
    assert out["stage"] == "done" and out["reply"]["state"] == "TASK_STATE_COMPLETED"
    (f,) = card_fetches(out)
    assert f["http_version"] == "HTTP/2" and f["headers"]["a2a-card-hash"] == oracle_hash(json.loads(f["body"]))
    # httpx with http2=True and HTTP/1.1 left on speaks HTTP/1.1 to an http:// URL.
    out = asyncio.run(py_plan_h2_default(world.base("gate")))
    assert out == ("HTTP/1.1", 503)


async def py_plan_h2_default(base):
    async with httpx.AsyncClient(http2=True) as http:
        try:
            await A2ACardResolver(http, base).get_agent_card()
        except AgentCardResolutionError as e:
            return e.__cause__.response.http_version, e.status_code
    return None


# A reading of the Location that cuts it at a decoded `?` or `#` (or decodes it twice) names
# worker-7's card route; the SDK's HTTP client removes the dot segments first and asks for
# /cards/worker-7.json, a path no card route covers, which the shipped listener passes unchecked.
# Until the fifteenth session the gate forwarded these redirects and the SDK delegated on the
# stale card it found there (the incident, through the gate).
DOT_SEGMENT_ESCAPES = [
    "/agents/worker-7/card%3F/../../../cards/worker-7.json",
    "/agents/worker-7/card%23/../../../cards/worker-7.json",
    "/agents/worker-7/card%253F/../../../cards/worker-7.json",
    "../card%3F/../../../cards/worker-7.json",
    # fetch reads %2e as a dot; httpx sends it as written and Envoy's normalize_path decodes it.
    "/agents/worker-7/card%3F/%2e%2e/%2E%2E/.%2e/cards/worker-7.json",
    # %2F: Envoy answers the follow-up with its own redirect to the unescaped, normalized path.
    "/agents/worker-7/card%3F%2F..%2F..%2F..%2Fcards%2Fworker-7.json",
]


@pytest.mark.parametrize("planner", PLANNERS)
@pytest.mark.parametrize("location", DOT_SEGMENT_ESCAPES)
def test_redirect_whose_dot_segments_leave_the_card_route_fails_closed(world, planner, location):
    world.serve(replica=b"", lag_ms=0, status=302, replica_headers=[("Location", location)])
    world.serve(path="/cards/worker-7.json", **STALE)
    out = world.plan(planner, "gate", follow_redirects=True)
    assert out["stage"] == "discovery", (out["reply"], [(f["url"], f["status"]) for f in out["fetches"]])
    got, problem, verdict, _, _ = refusal(planner, out)
    assert (got, verdict) == (502, "rejected") and problem["reasons"][0]["code"] == "body_empty"
    assert "is not a card route this gate checks" in problem["detail"], problem["detail"]
    assert world.worker.seen()["requests"] == []
    # The re-resolving listener asks the primary instead, and the delegation succeeds.
    out = world.plan(planner, "reresolve", follow_redirects=True)
    assert out["stage"] == "done" and out["reply"]["state"] == "TASK_STATE_COMPLETED", out


def test_binding_requirement_is_the_binding_the_callers_client_speaks(world):
    """`binding:JSONRPC` (worker-7's rule) states the binding the caller's client speaks; the
    gate checks the interface each SDK's client picks *for that binding* (DESIGN.md, "Which
    interface a client picks"). A client that may speak several bindings and is not told which
    picks by card order instead: @a2a-js/sdk's default ClientFactory (JSON-RPC and REST
    transports, no `preferredTransports`) takes the first interface it has a transport for. On a
    card listing HTTP+JSON (the old endpoint) before JSONRPC, that client speaks REST to an
    interface no condition was about. The docs tell callers to name the binding
    (envoy/README.md, js/README.md); this pins what each client does."""
    card = worker_card(3, world.worker)
    card["supportedInterfaces"].insert(0, {"url": "http://127.0.0.1:%d/a2a" % world.worker.port,
                                           "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"})
    world.serve(replica=compact(card), lag_ms=120)
    # Told the binding it speaks, the Node client uses the JSONRPC interface the gate checked.
    told = world.plan("node", "gate", preferred=["JSONRPC"])
    assert told["stage"] == "done" and told["picked"].endswith("/a2a/v3"), (told["stage"], told["picked"], told["error"])
    assert told["reply"]["state"] == "TASK_STATE_COMPLETED", told
    # a2a-sdk's default ClientConfig speaks JSON-RPC only: the same interface.
    py = world.plan("python", "gate")
    assert py["stage"] == "done" and py["picked"].endswith("/a2a/v3"), (py["stage"], py["picked"], py["error"])
    # Not told, the Node client follows card order: REST to the first interface (a 404 here).
    # If @a2a-js/sdk changes this, this assertion fails and the docs must change with it.
    untold = world.plan("node", "gate")
    assert untold["stage"] != "done", untold
    rest = [f for f in untold["fetches"] if f["url"].endswith("/a2a/message:send")]
    assert rest and all(f["status"] == 404 for f in rest), [f["url"] for f in untold["fetches"]]
