"""Falcon's REST server as a FastAPI application: Falcon's resources under ``/api/...``.

Airflow's api-server mounts it at ``/falcon`` (the provider plugin's ``fastapi_apps``, see
:mod:`falcon_airflow.provider.server_app`), so a Falcon client is pointed at ``http://<api-server>:8080/falcon``,
behind the same port, TLS and proxies as Airflow's UI. Every request is authenticated first
(:mod:`.authentication`), then each resource decides on the server whether the caller may act
(:mod:`.access`).

Errors are answered as Falcon's server answered them, because its clients read them that way:

* a refused or failed request: ``400`` (or the given status) with an ``APIResult`` of status ``FAILED`` as
  ``text/xml`` whatever ``Accept`` says (Falcon's ``FalconWebException``); the stock CLI prints its message;
* a request the caller may not make: ``403`` with ``{"errorCode": 403, "errorMessage": ..., "requestId": ...}`` as
  ``application/json`` (Falcon's authorization filter);
* an unauthenticated request: ``401`` with ``WWW-Authenticate`` and the reason; a wrong parameter ``400``, never
  FastAPI's ``422`` (Jersey 1.9's client has no name for it and fails on it);
* ``Accept`` naming nothing the resource produces: ``406``.
"""

from __future__ import annotations

import uuid

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.server import bodies
from falcon_airflow.server.access import AuditUnavailable, Denied, refused_login
from falcon_airflow.server.authentication import (
    AUTH_COOKIE,
    SIMPLE,
    USER_NAME_PARAMETER,
    AuthenticationFailed,
    AuthenticationMiddleware,
    Authenticator,
    TokenVerifier,
    airflow_token_caller,
    cookie_header,
    cookies_of,
)
from falcon_airflow.server.configuration import AirflowConfig, ServerConfig, ServerContext


def request_id(request: Request) -> str:
    return str(getattr(request.state, "request_id", "") or "")


def failure(request: Request, message: str, status: int = 400) -> Response:
    """Falcon's ``APIResult`` with status ``FAILED``, as ``text/xml`` (``FalconWebException.newAPIException``)."""
    code, content, media_type = bodies.failure(message, request_id=request_id(request), status=status)
    return Response(content, status_code=code, media_type=media_type)


def forbidden(request: Request, message: str) -> Response:
    """Falcon's authorization filter's answer."""
    code, content, media_type = bodies.denial(message, request_id=request_id(request))
    return Response(content, status_code=code, media_type=media_type)


class RequestIds:
    """Gives every request an id (``request.state.request_id``): ``APIResult.requestId`` and the audit lines'
    ``id``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope.setdefault("state", {})["request_id"] = uuid.uuid4().hex
        await self.app(scope, receive, send)


def create_app(*, config: ServerConfig | None = None, verify_token: TokenVerifier | None = None) -> FastAPI:
    """The Falcon server. ``config`` defaults to Airflow's configuration of this process; ``verify_token`` to
    Airflow's auth manager (the api-server's)."""
    from falcon_airflow.server import header_spelling
    from falcon_airflow.server.console import actions as console_actions
    from falcon_airflow.server.console import instances as console_instances
    from falcon_airflow.server.console import lineage_view as console_lineage
    from falcon_airflow.server.console import routes as console_routes
    from falcon_airflow.server.console import sla_view as console_sla
    from falcon_airflow.server.console import versions as console_versions
    from falcon_airflow.server.prism.colos import server_mode
    from falcon_airflow.server.resources import admin, commands, entities, extension, instances, metadata, store

    config = config or AirflowConfig()
    if server_mode(config.get("falcon", "mode")) == "prism":
        # Falcon's distributed mode: the same path serves the Prism, which keeps no store but its record
        from falcon_airflow.server.prism.app import create_prism_app

        return create_prism_app(config=config, verify_token=verify_token)
    context = ServerContext.from_config(config)
    header_spelling.install()
    app = FastAPI(title="Apache Falcon REST API (falcon-airflow)", docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.falcon = context

    async def unauthenticated(request: Request, problem: AuthenticationFailed) -> Response:
        response = failure(request, problem.message, problem.status)
        if problem.status == 401:
            challenges = ["PseudoAuth", "Bearer"] if context.authentication.scheme == SIMPLE else ["Bearer"]
            response.headers["WWW-Authenticate"] = ", ".join(challenges)
        if AUTH_COOKIE in cookies_of(request.headers.get("cookie", "")):
            # hadoop-auth clears a cookie it refused
            response.headers.append("Set-Cookie", cookie_header(None, 0, path=request.scope.get("root_path") or "/",
                                                                secure=request.url.scheme == "https"))
        return response

    def audit_refusal(request: Request, problem: AuthenticationFailed) -> None:
        claimed = request.query_params.get(USER_NAME_PARAMETER)
        refused_login(context, claimed, request.client.host if request.client else None, request.url.path,
                      request.method, problem.message)

    @app.exception_handler(AuthenticationFailed)
    async def _authentication(request: Request, problem: AuthenticationFailed) -> Response:
        return await unauthenticated(request, problem)

    @app.exception_handler(Denied)
    async def _denied(request: Request, problem: Denied) -> Response:
        return forbidden(request, problem.message)

    @app.exception_handler(AuditUnavailable)
    async def _audit(request: Request, problem: AuditUnavailable) -> Response:
        return failure(request, problem.message, 503)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, problem: RequestValidationError) -> Response:
        messages = []
        for error in problem.errors():
            where = ".".join(str(part) for part in error.get("loc", ()) if part not in ("query", "path", "body"))
            messages.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
        return failure(request, "; ".join(messages) or "Invalid request")

    @app.exception_handler(admin.NotAcceptable)
    async def _not_acceptable(request: Request, problem: admin.NotAcceptable) -> Response:
        return Response(f"Not Acceptable: this resource produces {', '.join(problem.offered)}\n", status_code=406,
                        media_type="text/plain")

    @app.exception_handler(Refused)
    async def _refused(request: Request, problem: Refused) -> Response:
        message = "\n".join([problem.message, *problem.details])
        return failure(request, message)

    app.include_router(admin.router)
    app.include_router(entities.router())
    app.include_router(instances.router())
    app.include_router(metadata.router())
    app.include_router(extension.router())
    app.include_router(commands.router)  # falcon-airflow's own command line (resources/commands.py)
    app.include_router(store.router)  # the DAG bundle's, authenticated by a bundle token (resources/store.py)
    app.include_router(console_routes.router)  # the console's pages in Airflow's UI (console/routes.py)
    app.include_router(console_actions.router)  # the console's actions (console/actions.py)
    app.include_router(console_instances.router)  # its instance grids (console/instances.py)
    app.include_router(console_lineage.router)  # its lineage graphs and columns (console/lineage_view.py)
    app.include_router(console_versions.router)  # an entity's versions and their diffs (console/versions.py)
    app.include_router(console_sla.router)  # an entity's SLA and recent misses (console/sla_view.py)

    authenticator = Authenticator(context.authentication, verify_token or airflow_token_caller)
    app.add_middleware(AuthenticationMiddleware, authenticator=authenticator, respond=unauthenticated,
                       on_refused=audit_refusal, own_check=store.PATHS)
    app.add_middleware(RequestIds)
    return app

