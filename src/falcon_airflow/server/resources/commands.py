"""The route of falcon-airflow's own command line: ``POST /api/falcon-airflow/{command}/{action}``.

``falcon-airflow entity|instance|admin|metadata|extension`` with a Falcon server (``FALCON_URL``, or ``-url``
naming the server's ``/falcon`` prefix) sends each command here: the option values as given, and the content of
the file ``-file`` names (read on the caller's machine; the server never reads a path a caller names). The server
runs the action as it runs Falcon's own routes - the caller it authenticated, its own configuration, audit, store
and lock (:func:`falcon_airflow.operate.execution.execute`) - and answers with the outcome itself, which the
command prints as it always did. Falcon's clients use Falcon's routes; this one only saves our command line the
round trip through Falcon's bodies, and serves the actions Falcon's API has no route for.

Request (JSON): ``{"options": {key: value}, "file": {"name": ..., "data": base64} | null}``. Answer (JSON): the
outcome (``status``, ``message``, its payload, ``text``, ``warnings``, ``exit_code``) with 200, or
``{"status": "FAILED", "message", "details", "usage"}`` with 400 (refused), 403 (denied), 502 (Airflow failed).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.operate import declarations
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.execution import Caller, execute
from falcon_airflow.operate.gate import Denied
from falcon_airflow.operate.options import MAX_GIVEN_FILE_BYTES, Options
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.server.access import client_hosts
from falcon_airflow.server.authentication import caller
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.prism_identity import HEADER as PRISM_HEADER
from falcon_airflow.server.prism_identity import writes_refused
from falcon_airflow.server.resources.declared import _executor, _request_id, deployment

log = logging.getLogger("falcon_airflow.server")
router = APIRouter(tags=["falcon-airflow"])
COMMANDS = ("entity", "instance", "admin", "metadata", "extension")
LOCAL_ONLY = frozenset({"url", "entities", "json", "format", "debug"})
"""Options of the command line that say where and how it runs here, never sent to the server."""
MAX_REQUEST_BYTES = MAX_GIVEN_FILE_BYTES * 2 + 65_536
"""A file (base64: 4/3 of its size) and the options."""


def failed(message: str, *, status: int, details: tuple[str, ...] = (), usage: bool = False) -> Response:
    return JSONResponse({"status": "FAILED", "message": message, "details": list(details), "usage": usage},
                        status_code=status)


def _request_options(command: str, action: str, document: Any) -> Options:
    if not isinstance(document, dict) or not isinstance(document.get("options", {}), dict):
        raise Refused("the request is not {\"options\": {...}, \"file\": ...}", usage=True)
    # Options keeps the command's own options and actions (an action option may carry a value: -setsafemode true)
    values = {key: value for key, value in document.get("options", {}).items() if key not in LOCAL_ONLY}
    files: dict[str, tuple[bytes, str]] = {}
    sent = document.get("file")
    if isinstance(sent, dict):
        try:
            data = base64.b64decode(str(sent.get("data", "")), validate=True)
        except (binascii.Error, ValueError):
            raise Refused("the file sent with the request is not base64", usage=True) from None
        files["file"] = (data, str(sent.get("name") or "(file)"))
    return Options(command, values, action=action, files=files, local_files=False)


@router.post("/api/falcon-airflow/{command}/{action}")
async def run_command(command: str, action: str, request: Request) -> Response:
    context: ServerContext = request.app.state.falcon
    if command not in COMMANDS or action not in {item.name for item in declarations.command(command).actions}:
        return failed(f"unknown command {command} -{action}", status=404, usage=True)
    body = await request.body()
    if len(body) > MAX_REQUEST_BYTES:
        return failed(f"the request is larger than {MAX_REQUEST_BYTES:,} bytes", status=413)
    try:
        document = json.loads(body or b"{}")
        options = _request_options(command, action, document)
    except ValueError:
        return failed("the request is not JSON", status=400, usage=True)
    except Refused as refused:
        return failed(refused.message, status=400, usage=refused.usage)
    who = caller(request)
    not_from_prism = writes_refused(context.config.get, command, action, request.headers.get(PRISM_HEADER))
    if not_from_prism is not None:
        return failed(not_from_prism, status=403)
    do_as = options.text("do_as")
    address = request.client.host if request.client else None
    acting = Caller(who.user, do_as, who.roles, client_hosts(address))
    notes: list[str] = []

    def run() -> dict[str, Any]:
        outcome = execute(command, action, options, acting, deployment=deployment(context, who),
                          audit_id=_request_id(request), notes=notes.append)
        return {**outcome.as_json(), "text": outcome.text, "warnings": list(outcome.warnings),
                "exit_code": outcome.exit_code, "notes": notes}

    try:
        answer = await asyncio.get_running_loop().run_in_executor(_executor(), run)
    except Denied as denied:
        return failed(denied.message, status=403, details=denied.details)
    except Refused as refused:
        return failed(refused.message, status=400, details=refused.details, usage=refused.usage)
    except AirflowError as problem:
        return failed(problem.message, status=502)
    except Exception as problem:  # a fault of the server; the audit trail already says FAILED
        log.exception("%s -%s failed", command, action)
        return failed(f"{type(problem).__name__}: {problem}", status=500)
    return JSONResponse(answer)
