"""REST routes made from the action declarations (:mod:`falcon_airflow.operate.declarations`): each
:class:`~falcon_airflow.operate.declarations.Route` of an action becomes one route of the server, which

1. reads the action's options from the request as Falcon's resources read them: the path's ``{key}`` segments,
   the other options from the query string by their Falcon names (a repeated parameter, such as ``lifecycle``, is
   joined with commas; a switch is ``true`` or ``false``), the declared body option from the request body (at most
   :data:`MAX_BODY_BYTES`; a route with ``properties`` reads the body as Java properties, some of which are
   options), ``doAs`` from the query string;
2. picks the answer's type from the request's ``Accept`` (``406`` when the route produces none of them, before
   anything runs);
3. runs the action for the caller the server authenticated (:func:`falcon_airflow.operate.execution.execute`, off
   the event loop): authorization with the server's ``[falcon]`` settings, the audit trail, the journal, the lock;
4. answers as Falcon's server did: the result type of the call (:mod:`falcon_airflow.server.bodies`) in the
   negotiated type; a refused or failed action ``400`` with ``APIResult`` ``FAILED`` as ``text/xml``; a denied one
   ``403`` with the authorization filter's JSON; with authorization on, an entity that is not in the store ``400``
   with the filter's JSON (a delete of one goes through, and succeeds); a fault of the server ``500`` with
   ``APIResult`` ``FAILED``.

The store is the entities folder and state folder of the api-server's own configuration; the action reaches
Airflow as :mod:`falcon_airflow.server.airflow_access` says.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from falcon_airflow.operate import audit, declarations
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.declarations import Action, Route
from falcon_airflow.operate.execution import Caller, Deployment, execute
from falcon_airflow.operate.gate import Denied, NotRegistered, deployment_api
from falcon_airflow.operate.options import MAX_GIVEN_FILE_BYTES, Options
from falcon_airflow.operate.outcomes import Outcome, Refused, Status
from falcon_airflow.operate.settings import Settings
from falcon_airflow.server import bodies
from falcon_airflow.server.access import client_hosts
from falcon_airflow.server.airflow_access import AIRFLOW_USER, client_factory
from falcon_airflow.server.authentication import Caller as Authenticated
from falcon_airflow.server.authentication import caller
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.prism_identity import HEADER as PRISM_HEADER
from falcon_airflow.server.prism_identity import writes_refused
from falcon_airflow.server.resources.admin import NotAcceptable

log = logging.getLogger(__name__)

MAX_BODY_BYTES = MAX_GIVEN_FILE_BYTES
"""The largest request body an action reads (an entity definition, a job's properties), as the command line's
``-file``."""

WORKERS = 16
"""Actions running at once in one api-server process; more wait their turn. They run on threads of their own, so the
Airflow calls they make back into this api-server are served meanwhile."""

AnswerContext = Callable[[Options, Outcome], Mapping[str, Any]]
"""What a converter needs beyond the outcome (``name`` of a submitted entity ...), by the action's options."""

Refusal = Callable[[Request, Refused], Response | None]
"""How a call answers a refusal when Falcon's resource did not answer with an ``APIResult`` (the metadata
resources: a text message, a 404); ``None``: the usual ``APIResult``."""

_pool: concurrent.futures.ThreadPoolExecutor | None = None


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="falcon-action")
    return _pool


class BodyTooLarge(Refused):
    """A request body past :data:`MAX_BODY_BYTES`."""


def _request_id(request: Request) -> str:
    return str(getattr(request.state, "request_id", "") or "") or uuid.uuid4().hex


def _failure(request: Request, message: str, status: int = 400) -> Response:
    code, content, media_type = bodies.failure(message, request_id=_request_id(request), status=status)
    return Response(content, status_code=code, media_type=media_type)


def _denial(request: Request, message: str, status: int = 403) -> Response:
    code, content, media_type = bodies.denial(message, request_id=_request_id(request), status=status)
    return Response(content, status_code=code, media_type=media_type)


def deployment(context: ServerContext, who: Authenticated) -> Deployment:
    """Where one request's action runs: the server's store, its own Airflow API, its ``[falcon]`` settings."""

    def config(section: str, key: str) -> str:
        return context.config.get(section, key) or ""

    resolved = Settings.resolve(airflow_config=config)
    settings = replace(resolved, url=deployment_api(config), entities=context.entities, state=context.state,
                       token=None, user=None, password=None)
    return Deployment(settings, context.falcon, settings.url,
                      client_factory(context.falcon(AIRFLOW_USER), who.token), store=context.open_store)


async def _body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise BodyTooLarge(f"the request body is larger than {MAX_BODY_BYTES:,} bytes ({int(declared):,} bytes): "
                           "refused unread")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise BodyTooLarge(f"the request body is larger than {MAX_BODY_BYTES:,} bytes: refused")
        chunks.append(chunk)
    return b"".join(chunks)


def _switch(value: str) -> bool:
    return value.strip().lower() in ("true", "1", "yes", "on")


def request_values(action: Action, route: Route, request: Request) -> dict[str, Any]:
    """The action's options from the request's path and query string."""
    declared = declarations.command(action.command)
    values: dict[str, Any] = {key: request.path_params[key] for key in route.path_keys()}
    for dest in action.options:
        if dest in values or dest == route.body:
            continue
        option = declared.option_by_dest(dest)
        given = [item for item in request.query_params.getlist(option.name) if item != ""]
        if not given:
            continue
        values[dest] = _switch(given[-1]) if option.switch else ",".join(given)
    return values


def body_properties(route: Route, data: bytes) -> tuple[dict[str, str], bytes | None]:
    """A Java properties body (``route.properties``): the options its declared properties set, and the body itself
    when it holds any other property (``None`` otherwise). Read as ``java.util.Properties.load`` reads a stream:
    ISO-8859-1, escapes and continuations."""
    from falcon_airflow.properties import read_properties

    wanted = dict(route.properties)
    values: dict[str, str] = {}
    others = False
    for key, value, _ in read_properties(data.decode("iso-8859-1")):
        if key in wanted:
            values[wanted[key]] = value
        else:
            others = True
    return values, data if others else None


def _audit_refusal(context: ServerContext, who: Authenticated, action: Action, do_as: str | None, request_id: str,
                   message: str) -> None:
    """A request refused before its action could run (its body): its one audit line."""
    entry = audit.Entry(datetime.now(UTC), who.user, do_as, action.command, action.name, {}, "REFUSED", message,
                        request_id)
    with contextlib.suppress(OSError):
        audit.append(context.open_store(), entry)


def endpoint(action: Action, route: Route, answers: Mapping[str, AnswerContext],
             refusals: Mapping[str, Refusal] | None = None) -> Callable[..., Any]:
    """The route's request handler."""
    answer = route.answer or action.key
    refusal = (refusals or {}).get(answer)
    produces: tuple[bodies.Format, ...] = tuple(route.produces)  # type: ignore[arg-type]

    async def handle(request: Request) -> Response:
        context: ServerContext = request.app.state.falcon
        who = caller(request)
        request_id = _request_id(request)
        do_as = request.query_params.get("doAs") or None
        not_from_prism = writes_refused(context.config.get, action.command, action.name,
                                        request.headers.get(PRISM_HEADER))
        if not_from_prism is not None:
            _audit_refusal(context, who, action, do_as, request_id, not_from_prism)
            return _denial(request, not_from_prism)
        chosen = bodies.negotiate(request.headers.get("accept"), produces)
        if chosen is None:
            raise NotAcceptable(produces)
        values = request_values(action, route, request)
        files: dict[str, tuple[bytes, str]] = {}
        if route.body is not None or route.properties:
            try:
                data: bytes | None = await _body(request)
            except BodyTooLarge as refused:
                _audit_refusal(context, who, action, do_as, request_id, refused.message)
                return _failure(request, refused.message)
            if route.properties and data is not None:
                given, data = body_properties(route, data)
                values.update(given)
            if route.body is not None and data is not None:
                files[route.body] = (data, "(request body)")
        options = Options(action.command, values, action=action.name, files=files, local_files=False)
        address = request.client.host if request.client else None
        acting = Caller(who.user, do_as, who.roles, client_hosts(address))

        def run() -> Outcome:
            return execute(action.command, action.name, options, acting, deployment=deployment(context, who),
                           audit_id=request_id)

        try:
            outcome = await asyncio.get_running_loop().run_in_executor(_executor(), run)
        except NotRegistered as missing:
            return _denial(request, missing.message, status=400)
        except Denied as denied:
            return _denial(request, denied.message)
        except Refused as refused:
            answered = refusal(request, refused) if refusal is not None else None
            return answered or _failure(request, bodies.refusal_message(answer, refused))
        except AirflowError as problem:
            return _failure(request, bodies.refusal_message(answer, Refused(problem.message)))
        except Exception as problem:  # a fault of the server: Falcon's 500, the audit trail already says FAILED
            log.exception("%s failed", action.key)
            return _failure(request, f"{type(problem).__name__}: {problem}", status=500)
        if outcome.status is Status.FAILED:
            return _failure(request, bodies.refusal_message(answer, Refused(outcome.message)))
        extra = answers[answer](options, outcome) if answer in answers else {}
        body = bodies.from_outcome(answer, outcome, request_id=request_id, **extra)
        content, media_type = bodies.render(body, chosen)
        return Response(content, media_type=media_type)

    handle.__name__ = f"{action.command}_{action.name}"
    return handle


def router(command: str, answers: Mapping[str, AnswerContext] | None = None,
           refusals: Mapping[str, Refusal] | None = None) -> APIRouter:
    """The routes of every action of ``command`` that declares one (each also with a trailing slash, as Falcon's
    clients sometimes build them); ``refusals`` answer the refusals of the calls they name."""
    found = APIRouter(tags=[command])
    for action in declarations.command(command).actions:
        for route in action.routes:
            handle = endpoint(action, route, answers or {}, refusals)
            found.add_api_route(route.path, handle, methods=[route.method], name=f"{action.key} {route.path}")
            found.add_api_route(route.path.rstrip("/") + "/", handle, methods=[route.method],
                                include_in_schema=False, name=f"{action.key} {route.path}/")
    return found
