"""The console's routes in the Falcon app: its page and assets (``/console/``, ``/console/static/<file>``) and the
JSON the page reads (``/console/api/...``).

The JSON runs Falcon's own read actions (``entity -list``, ``-definition``, ``-dependency``) through
:func:`falcon_airflow.operate.execution.execute` for the caller the app's middleware authenticated, so the console
sees what that caller may see on the REST API: the same authorization, the same redaction of secrets, the same audit
lines. The browser's Airflow session comes in as Airflow's ``_token`` cookie (:mod:`..authentication`). The list is
filtered, sorted and paged here (:mod:`.listing`), never in the browser.
"""

from __future__ import annotations

import asyncio
from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.entities.base import EntityType
from falcon_airflow.operate.lifecycles import entity_dags
from falcon_airflow.operate.outcomes import Outcome
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.console.listing import BadQuery, Row, parse_query, select
from falcon_airflow.server.resources.declared import _executor

PREFIX = "/console"
ASSETS = {"console.css": "text/css", "console.js": "text/javascript", "index.html": "text/html",
          "instances.js": "text/javascript", "lineage.js": "text/javascript"}
"""The files of ``static/`` the console serves, and their types: nothing else of the package is reachable."""
ASSETS["actions.js"] = "text/javascript"  # the action buttons (console/actions.py)
ASSETS["versions.js"] = "text/javascript"  # an entity's versions and diffs (console/versions.py)
ASSETS["sla.js"] = "text/javascript"  # an entity's SLA and misses (console/sla_view.py)
MOUNT = "/falcon"
"""Where the plugin mounts the app (provider/server_app.py's ``URL_PREFIX``): the part of the app's root path that is
not Airflow's own base path."""

router = APIRouter(prefix=PREFIX)


class ConsoleError(Exception):
    """An answer other than 200, as JSON ``{"error": message}`` (the page shows the message)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _asset(name: str) -> Response:
    data = resources.files("falcon_airflow.server.console").joinpath("static", name).read_bytes()
    # no-cache: a new release's page and script are never mixed with an old one's
    return Response(data, media_type=ASSETS[name], headers={"Cache-Control": "no-cache",
                                                             "X-Content-Type-Options": "nosniff"})


@router.get("/")
async def page() -> Response:
    return _asset("index.html")


@router.get("/static/{name}")
async def asset(name: str) -> Response:
    if name not in ASSETS:
        return JSONResponse({"error": "not found"}, status_code=404)
    return _asset(name)


async def _run(request: Request, action: str, values: dict[str, Any]) -> Outcome:
    """``entity -<action>`` for the request's caller, off the event loop, as the REST route runs it."""
    from falcon_airflow.server.console.acting import run_action  # acting builds on this module's ConsoleError

    return await run_action(request, "entity", action, values)


def _owners(context: ServerContext) -> dict[tuple[str, str], str]:
    """Each entity's ACL owner (the list action does not carry it); read only for names the list returned."""
    owners: dict[tuple[str, str], str] = {}
    for entity in context.open_store().workspace().entities():
        acl = getattr(entity, "acl", None)
        owners[(entity.entity_type.value, entity.name)] = str(getattr(acl, "owner", None) or "")
    return owners


def _rows(outcome: Outcome, owners: dict[tuple[str, str], str]) -> list[Row]:
    return [Row(str(item["type"]), str(item["name"]), str(item.get("status", "")),
                tuple(str(rule) for rule in item.get("rules", ())), tuple(str(tag) for tag in item.get("tag", ())),
                owners.get((str(item["type"]), str(item["name"])), ""),
                tuple(str(cluster) for cluster in item.get("cluster", ())))
            for item in outcome.payload.get("entity", [])]


def _failed(problem: ConsoleError) -> JSONResponse:
    return JSONResponse({"error": problem.message}, status_code=problem.status)


@router.get("/api/entities")
async def entities(request: Request) -> Response:
    try:
        query = parse_query(request.query_params)
    except BadQuery as wrong:
        return JSONResponse({"error": str(wrong)}, status_code=400)
    try:
        outcome = await _run(request, "list", {"fields": "status,tags,clusters"})
    except ConsoleError as problem:
        return _failed(problem)
    owners = await asyncio.get_running_loop().run_in_executor(_executor(), _owners, request.app.state.falcon)
    return JSONResponse(select(_rows(outcome, owners), query).as_json())


def airflow_base(request: Request) -> str:
    """Airflow's base path as the browser sees it: the app's root path without the plugin's mount point."""
    root = str(request.scope.get("root_path") or "")
    return root[:-len(MOUNT)] if root.endswith(MOUNT) else ""


@router.get("/api/entities/{entity_type}/{name}")
async def entity(request: Request, entity_type: str, name: str) -> Response:
    try:
        kind = EntityType(entity_type.lower())
    except ValueError:
        return JSONResponse({"error": f"unknown entity type: {entity_type}"}, status_code=400)
    try:
        # the definition first: it is the action that says whether the caller may read the entity at all
        definition = await _run(request, "definition", {"type": kind.value, "name": name})
        dependencies = await _run(request, "dependency", {"type": kind.value, "name": name})
        listed = await _run(request, "list", {"type": kind.value, "fields": "status,tags,clusters"})
    except ConsoleError as problem:
        return _failed(problem)
    context: ServerContext = request.app.state.falcon
    stored = await asyncio.get_running_loop().run_in_executor(
        _executor(), lambda: context.open_store().workspace().get(kind, name))
    owners = {(kind.value, name): str(getattr(getattr(stored, "acl", None), "owner", None) or "")}
    rows = [row for row in _rows(listed, owners) if row.name == name]
    row = rows[0] if rows else Row(kind.value, name)
    base = airflow_base(request)
    dags = [{"dag_id": ref.dag_id, "lifecycle": ref.purpose, "cluster": ref.cluster,
             "source_cluster": ref.source_cluster, "url": f"{base}/dags/{ref.dag_id}"}
            for ref in (entity_dags(stored) if stored is not None else [])]
    return JSONResponse({**row.as_json(), "definition": definition.payload.get("definition", ""),
                         "dependencies": dependencies.payload.get("entity", []), "dags": dags,
                         "issues": list(row.rules)})
