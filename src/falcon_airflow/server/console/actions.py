"""The console's actions: what the caller may do to an entity and its instances, and doing it.

* ``GET /console/api/actions/<type>/<name>``: the actions the server's authorization lets the caller take on the
  entity (``entity``: schedule, suspend, resume, delete; ``instance``: kill, rerun, suspend, resume) - the page
  shows a button for each and for nothing else;
* ``GET /console/api/write-token``: the token the page sends with its writes (:mod:`.write_token`);
* ``POST /console/api/actions/<type>/<name>/<action>``: ``entity -<action>``;
* ``POST /console/api/actions/<type>/<name>/instances/<action>`` with ``{"start", "end"[, "clusters"]}``, or with
  ``{"instance"[, "cluster"]}`` for one instance (a button of the instances view: refused with 409 when the
  instance's status is not one the action changes, :mod:`.applicable`): ``instance -<action>`` (a rerun clears the
  runs, a kill marks them failed, as the command line's).

The entity actions offered are those the entity's state allows too (no resume of a running entity).

The list of allowed actions is a courtesy to the page: every action runs through
:func:`falcon_airflow.operate.execution.execute` as the REST resources run it, which decides again whether the
caller may (``[falcon] authorization_enabled``), writes the audit trail's lines as for the command line, holds the
store's lock and answers what happened; a colo that takes entity changes only from its Prism refuses them here too.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.entities.base import EntityType
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.authorization import Policy, Target, authorize
from falcon_airflow.operate.authorization import Request as Asked
from falcon_airflow.operate.execution import Caller, execute
from falcon_airflow.operate.gate import Denied, NotRegistered, ServerIdentity
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, Status
from falcon_airflow.server.access import client_hosts
from falcon_airflow.server.authentication import AIRFLOW_SESSION_COOKIE, caller, cookies_of
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.console import write_token
from falcon_airflow.server.console.applicable import INSTANCE_STATES, entity_actions, refusal
from falcon_airflow.server.prism_identity import HEADER as PRISM_HEADER
from falcon_airflow.server.prism_identity import writes_refused
from falcon_airflow.server.resources.declared import _executor, deployment

router = APIRouter(prefix="/console/api")

ENTITY_ACTIONS: dict[str, tuple[str, ...]] = {
    "cluster": ("delete",), "datasource": ("delete",),
    "feed": ("schedule", "suspend", "resume", "delete"), "process": ("schedule", "suspend", "resume", "delete")}
"""What the page offers per entity type: clusters and datasources are never scheduled."""
INSTANCE_ACTIONS = ("kill", "rerun", "suspend", "resume")
"""Instance actions, for feeds and processes."""
INSTANCE_FIELDS = ("start", "end", "clusters", "instance", "cluster", "lifecycle")
MAX_BODY_BYTES = 4096


class ActionError(Exception):
    """An answer other than 200, as ``{"error": message}``."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _answer(body: dict[str, Any], status: int = 200) -> JSONResponse:
    # never kept by a cache: an answer about rights or a token is this moment's and this user's
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


def _kind(entity_type: str) -> EntityType:
    try:
        return EntityType(entity_type.lower())
    except ValueError:
        raise ActionError(f"unknown entity type: {entity_type}", 400) from None


def _acting(request: Request) -> Caller:
    who = caller(request)
    return Caller(who.user, None, who.roles, client_hosts(request.client.host if request.client else None))


def allowed_actions(context: ServerContext, acting: Caller, kind: EntityType, name: str) -> dict[str, Any]:
    """The entity and instance actions the server would let ``acting`` run on the entity (nothing is run or
    audited); :class:`ActionError` 404 when the store has no such entity, 403 when the caller may not read it."""
    stored = context.open_store().get(kind, name)
    if stored is None:
        raise ActionError(f"{name} ({kind.value}) not found", 404)
    policy = Policy.load(context.falcon)
    identity = ServerIdentity(acting, context.falcon)
    target = Target(kind.value, name, getattr(stored.entity, "acl", None))

    def may(command: str, action: str) -> bool:
        if writes_refused(context.config.get, command, action, None) is not None:
            return False
        if not policy.enabled:
            return True
        try:
            authorize(policy, context.falcon, identity.groups, user=acting.user, do_as=None,
                      request=Asked(command, action, (target,)), hosts=identity.hosts())
        except Refused:
            return False
        return True

    if not may("entity", "definition"):
        raise ActionError(f"Permission denied: user={acting.user} may not read {kind.value} {name}", 403)
    instance = INSTANCE_ACTIONS if kind.schedulable else ()
    # which of these apply depends on the entity's status (no resume of a running feed): see :func:`actions_of`
    return {"entity": [action for action in ENTITY_ACTIONS[kind.value] if may("entity", action)],
            "instance": [action for action in instance if may("instance", action)],
            "instanceStates": {action: sorted(INSTANCE_STATES[action]) for action in instance}}


async def _off_loop(work: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(_executor(), work)


@router.get("/actions/{entity_type}/{name}")
async def actions_of(request: Request, entity_type: str, name: str) -> Response:
    context: ServerContext = request.app.state.falcon
    acting = _acting(request)
    try:
        kind = _kind(entity_type)
        allowed = await _off_loop(lambda: allowed_actions(context, acting, kind, name))
        status = await _entity_status(request, kind, name)
    except ActionError as problem:
        return _answer({"error": problem.message}, problem.status)
    allowed["entity"] = entity_actions(status, allowed["entity"])
    return _answer({"type": kind.value, "name": name, "user": acting.user, "status": status, **allowed})


async def _entity_status(request: Request, kind: EntityType, name: str) -> str:
    """The entity's status as ``entity -status`` says it (RUNNING when one of its DAGs is unpaused, whoever
    unpaused it): the store's schedule state alone would call an entity of the entities folder whose DAGs run
    SUBMITTED."""
    if not kind.schedulable:
        return "SUBMITTED"
    outcome = await _run(request, "entity", "status", {"type": kind.value, "name": name})
    status = str(outcome.payload.get("entityStatus") or outcome.message).split(" ", 1)[0].upper()
    return status or "SUBMITTED"


@router.get("/write-token")
async def token(request: Request) -> Response:
    session = cookies_of(request.headers.get("cookie", "")).get(AIRFLOW_SESSION_COOKIE, "").strip('"')
    if not session or request.headers.get("authorization"):
        return _answer({"error": "a write token is for a browser signed in to Airflow's UI (its session cookie), "
                                 "not for a request with a bearer token"}, 400)
    issued = write_token.issue(session, caller(request).user)
    return _answer({"header": write_token.HEADER, "token": issued.token, "expires": issued.expires})


async def _run(request: Request, command: str, action: str, values: dict[str, Any]) -> Outcome:
    """``<command> -<action>`` for the request's caller, as the REST route runs it: authorization, audit, lock."""
    context: ServerContext = request.app.state.falcon
    refused = writes_refused(context.config.get, command, action, request.headers.get(PRISM_HEADER))
    if refused is not None:
        raise ActionError(refused, 403)
    who = caller(request)
    acting = _acting(request)
    options = Options(command, values, action=action, local_files=False)
    audit_id = str(getattr(request.state, "request_id", "") or "") or None
    try:
        outcome: Outcome = await _off_loop(lambda: execute(command, action, options, acting,
                                                           deployment=deployment(context, who), audit_id=audit_id))
    except NotRegistered as missing:
        raise ActionError(missing.message, 404) from None
    except Denied as denied:
        raise ActionError(denied.message, 403) from None
    except Refused as refusal:
        raise ActionError("\n".join([refusal.message, *refusal.details]), 400) from None
    except AirflowError as problem:
        raise ActionError(f"Airflow: {problem.message}", 502) from None
    if outcome.status is Status.FAILED:
        raise ActionError(outcome.message, 400)
    return outcome


def _done(command: str, action: str, outcome: Outcome) -> Response:
    return _answer({"command": command, "action": action, "status": outcome.status.value,
                    "message": outcome.message, "warnings": list(outcome.warnings)})


@router.post("/actions/{entity_type}/{name}/{action}")
async def entity_action(request: Request, entity_type: str, name: str, action: str) -> Response:
    try:
        kind = _kind(entity_type)
        if action not in ENTITY_ACTIONS[kind.value]:
            raise ActionError(f"the console does not {action} a {kind.value} (one of "
                              f"{', '.join(ENTITY_ACTIONS[kind.value])})", 400)
        outcome = await _run(request, "entity", action, {"type": kind.value, "name": name})
    except ActionError as problem:
        return _answer({"error": problem.message}, problem.status)
    return _done("entity", action, outcome)


async def _instance_values(request: Request) -> dict[str, str]:
    """``start``, ``end`` and optionally ``clusters`` of the JSON body, as text."""
    data = await request.body()
    if len(data) > MAX_BODY_BYTES:
        raise ActionError(f"the request body is larger than {MAX_BODY_BYTES} bytes", 400)
    try:
        body = json.loads(data or b"{}")
    except ValueError:
        raise ActionError("the request body is not JSON", 400) from None
    if not isinstance(body, dict):
        raise ActionError('the request body must be {"start": ..., "end": ...}', 400)
    values: dict[str, str] = {}
    for key in INSTANCE_FIELDS:
        value = body.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise ActionError(f"{key} must be text (yyyy-MM-ddTHH:mmZ for a time)", 400)
        values[key] = value.strip()
    if "instance" in values:  # one instance (a button of the grid): its time is the window
        values.setdefault("start", values["instance"])
        values.setdefault("end", values["instance"])
    for key in ("start", "end"):
        if key not in values:
            raise ActionError(f"{key} is required (yyyy-MM-ddTHH:mmZ)", 400)
    return values


async def _check_state(request: Request, kind: EntityType, name: str, action: str, values: dict[str, str]) -> None:
    """Refuse (409) an action on one instance whose status it does not change, before anything is written: the
    page's button was for the state it showed, which may have changed since."""
    asked = {"type": kind.value, "name": name, "start": values["instance"], "end": values["instance"],
             **({"lifecycle": values["lifecycle"]} if values.get("lifecycle") else {})}
    found = (await _run(request, "instance", "status", asked)).payload.get("instances", [])
    cluster = values.get("cluster")
    mine = [item for item in found if str(item.get("instance")) == values["instance"]
            and (not cluster or str(item.get("cluster")) == cluster)]
    if not mine:
        raise ActionError(f"{kind.value} {name} has no instance {values['instance']}"
                          + (f" on {cluster}" if cluster else ""), 404)
    for item in mine:
        why = refusal(action, str(item.get("status") or ""))
        if why is not None:
            raise ActionError(f"{why}: {kind.value} {name} {values['instance']} on {item.get('cluster')} is "
                              f"{item.get('status')}; refused", 409)


@router.post("/actions/{entity_type}/{name}/instances/{action}")
async def instance_action(request: Request, entity_type: str, name: str, action: str) -> Response:
    try:
        kind = _kind(entity_type)
        if not kind.schedulable:
            raise ActionError(f"a {kind.value} has no instances", 400)
        if action not in INSTANCE_ACTIONS:
            raise ActionError(f"unknown instance action: {action} (one of {', '.join(INSTANCE_ACTIONS)})", 400)
        values = await _instance_values(request)
        if "instance" in values:
            await _check_state(request, kind, name, action, values)
        asked = {key: value for key, value in values.items() if key not in ("instance", "cluster")}
        if values.get("cluster"):
            asked["clusters"] = values["cluster"]
        outcome = await _run(request, "instance", action, {"type": kind.value, "name": name, **asked})
    except ActionError as problem:
        return _answer({"error": problem.message}, problem.status)
    return _done("instance", action, outcome)
