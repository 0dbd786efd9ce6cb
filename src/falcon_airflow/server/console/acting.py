"""Falcon's read actions of any command for the caller of a console request, and the Airflow client a console
view reads the rest with.

The instance and lineage views run ``instance -listing``, ``-status``, ``-logs``, ``-triage`` and ``entity
-definition`` as the REST resources run them: through :func:`falcon_airflow.operate.execution.execute` for the
caller the app's middleware authenticated, so they see what that caller may see, with the same audit lines. A
refusal becomes :class:`ConsoleError` (403 when the caller may not, 404 when nothing has that name).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import JSONResponse

from falcon_airflow.operate.airflow_api import AirflowClient
from falcon_airflow.operate.execution import Caller, execute
from falcon_airflow.operate.gate import Denied, NotRegistered
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, Status
from falcon_airflow.server.access import client_hosts
from falcon_airflow.server.authentication import caller
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.console.routes import ConsoleError, airflow_base
from falcon_airflow.server.resources.declared import _executor, deployment

T = TypeVar("T")


def failed(problem: ConsoleError) -> JSONResponse:
    return JSONResponse({"error": problem.message}, status_code=problem.status)


async def off_loop(work: Callable[[], T]) -> T:
    """``work()`` on the server's action threads: it reads the store, Airflow or storage."""
    return await asyncio.get_running_loop().run_in_executor(_executor(), work)


async def run_action(request: Request, command: str, action: str, values: dict[str, Any]) -> Outcome:
    """``<command> -<action>`` with ``values`` for the request's caller, as the REST route runs it."""
    context: ServerContext = request.app.state.falcon
    who = caller(request)
    acting = Caller(who.user, None, who.roles, client_hosts(request.client.host if request.client else None))
    options = Options(command, values, action=action, local_files=False)
    audit_id = str(getattr(request.state, "request_id", "") or "") or None

    def run() -> Outcome:
        return execute(command, action, options, acting, deployment=deployment(context, who), audit_id=audit_id)

    try:
        outcome = await off_loop(run)
    except NotRegistered as missing:
        raise ConsoleError(missing.message, 404) from None
    except Denied as denied:
        raise ConsoleError(denied.message, 403) from None
    except Refused as refused:
        raise ConsoleError("\n".join([refused.message, *refused.details]), 400) from None
    if outcome.status is not Status.SUCCEEDED:
        raise ConsoleError(outcome.message, 400)
    return outcome


def airflow_client(request: Request) -> AirflowClient:
    """The Airflow client the request's actions use (the server's own Airflow user, else the caller's token)."""
    context: ServerContext = request.app.state.falcon
    found = deployment(context, caller(request))
    assert found.airflow is not None  # the server's deployments always say how they reach Airflow
    return found.airflow(found.settings, False)


def ui_link(request: Request, client: AirflowClient, url: str | None) -> str | None:
    """A link of Airflow's UI the actions made absolute (``client.base``) as the browser reaches it: its path under
    Airflow's base path, on the page's own origin."""
    if not url:
        return None
    base = client.base.rstrip("/")
    path = url[len(base):] if url.startswith(base) else url
    return f"{airflow_base(request)}{path}" if path.startswith("/") else path
