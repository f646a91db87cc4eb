#!/usr/bin/env python3
"""The incident's worker as a real PyPI a2a-sdk 1.3.0 server (Starlette app on uvicorn), for
tests/envoy/test_sdk_callers.py.

worker-7 has finished its rolling deploy: it now offers `task.execute.v3` on `/a2a/v3`. Its old
endpoint `/a2a` is still served by the same request handler, as during the incident. The
executor reads the skill the caller asks for from the request's metadata (`{"skill": ...}`, the
id the caller took from the card it resolved) and answers with a Task: `TASK_STATE_REJECTED`
with the text `unsupported_capability: <skill>` for anything but `task.execute.v3` (the seed's
`TaskRejected`), else `TASK_STATE_COMPLETED` with `executed: <text>`.

Every request that reaches the worker is recorded (method, path, headers), and every message
its executor was handed (the skill asked for, the outcome): `GET /_worker/requests` returns
`{"requests": [...], "executed": [...]}` and `DELETE /_worker/requests` clears both, so a test
can say the worker saw no request at all.

    python sdk_worker.py --ready-file FILE      # binds 127.0.0.1:0, writes {"port": N} to FILE
"""

import argparse
import json
import os
import socket

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from a2a.helpers.proto_helpers import get_message_text, new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill

CURRENT_SKILL = "task.execute.v3"
SEEN = []  # one dict per request that reached the worker (control paths excluded)
EXECUTED = []  # one dict per message the executor was handed: the skill asked for, the outcome


class Worker(AgentExecutor):
    async def execute(self, context, event_queue):
        skill = str(context.metadata.get("skill", ""))
        text = get_message_text(context.message) if context.message else ""
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        EXECUTED.append({"skill": skill, "text": text,
                         "outcome": "completed" if skill == CURRENT_SKILL else "rejected"})
        if skill != CURRENT_SKILL:
            await updater.reject(new_text_message("unsupported_capability: %s" % skill,
                                                  context_id=task.context_id, task_id=task.id))
        else:
            await updater.complete(new_text_message("executed: %s" % text,
                                                    context_id=task.context_id, task_id=task.id))

    async def cancel(self, context, event_queue):
        return None


def own_card(base):
    """The card the worker's request handler is built with (the registry serves the cards the
    callers resolve)."""
    return AgentCard(
        name="worker-7", description="Python worker runtime that executes planner tasks",
        version="3.0.0",
        supported_interfaces=[AgentInterface(url=base + "/a2a/v3", protocol_binding="JSONRPC",
                                             protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=False, push_notifications=False),
        default_input_modes=["text/plain"], default_output_modes=["text/plain"],
        skills=[AgentSkill(id=CURRENT_SKILL, name="Execute task",
                           description="Runs one planner task to completion", tags=["execution"])],
    )


class Recorder:
    """ASGI middleware: records every request but the control paths."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and not scope["path"].startswith("/_worker/"):
            SEEN.append({"method": scope["method"], "path": scope["path"],
                         "headers": [[k.decode("latin-1"), v.decode("latin-1")]
                                     for k, v in scope["headers"]]})
        await self.app(scope, receive, send)


async def requests_log(request: Request):
    if request.method == "DELETE":
        SEEN.clear()
        EXECUTED.clear()
        return Response(status_code=204)
    return JSONResponse({"requests": SEEN, "executed": EXECUTED})


def app_for(base):
    handler = DefaultRequestHandler(agent_executor=Worker(), task_store=InMemoryTaskStore(),
                                    agent_card=own_card(base))
    routes = (create_jsonrpc_routes(handler, "/a2a/v3") + create_jsonrpc_routes(handler, "/a2a")
              + [Route("/_worker/requests", requests_log, methods=["GET", "DELETE"])])
    return Recorder(Starlette(routes=routes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ready-file", required=True)
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app_for("http://127.0.0.1:%d" % port), log_level="warning",
                            lifespan="off")
    server = uvicorn.Server(config)
    with open(args.ready_file + ".tmp", "w") as f:
        json.dump({"port": port}, f)
    os.replace(args.ready_file + ".tmp", args.ready_file)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
