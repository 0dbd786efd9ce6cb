"""The Prism's own ``admin -stack``, ``admin -config`` and ``admin -setsafemode``: about the Prism's process, settings
and state, not a colo's (ask a colo's server for its own), as Falcon's Prism answered them.

* ``GET api/admin/stack``: the Prism process's threads and event-loop tasks, as a server prints its own;
* ``GET api/admin/config/{build,deploy,startup,runtime}``: the Prism's settings as a property list (``deploy`` names
  the mode and the colos, ``startup`` is the ``[falcon]`` section with secrets masked); another type ``204``;
* ``GET`` or ``POST api/admin/setSafeMode/{true,false}``: the Prism's own safemode, in its metadata database (where
  a server keeps its own), which every process of the Prism reads. In safemode the Prism refuses what a server in
  safemode refuses (:mod:`falcon_airflow.operate.safemode`), before any colo is asked, and ``prism sync``; each colo
  keeps its own safemode.

With ``[falcon] authorization_enabled`` all three need an admin (``admin.users``, ``admin.groups`` or a superuser),
the same policy a colo server applies, decided here from the Prism's own ``[falcon]`` settings; the caller's groups
are its configured ``groups.<user>`` and its Airflow roles. ``doAs`` is checked against the proxy-user rules.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import Response

from falcon_airflow.operate.authorization import Policy, authorize
from falcon_airflow.operate.authorization import Request as Asked
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.server import bodies
from falcon_airflow.server.access import request_hosts, user_groups
from falcon_airflow.server.authentication import caller
from falcon_airflow.server.bodies import PlainText, PropertyList
from falcon_airflow.server.configuration import ServerConfig, masked_section
from falcon_airflow.server.resources.admin import CONFIG_TYPES, build_properties, safemode_mode, stack_dump

PRISM_MODE = "prism"


def refusal(request: Request, config: ServerConfig, action: str) -> str | None:
    """Why the caller may not run ``admin -<action>`` on the Prism, or None when it may."""
    def falcon(key: str) -> str | None:
        return config.get("falcon", key)

    policy = Policy.load(falcon)
    if not policy.enabled:
        return None
    who = caller(request)
    try:
        authorize(policy, falcon, lambda user: user_groups(falcon, user, who), user=who.user,
                  do_as=request.query_params.get("doAs") or None, request=Asked("admin", action, ()),
                  hosts=request_hosts(falcon, who.user, request.client.host if request.client else None))
    except Refused as refused:
        return refused.message
    return None


def settings_of(config: ServerConfig, kind: str, colos: tuple[str, ...], scheme: str) -> PropertyList:
    """The Prism's settings of one ``kind`` of :data:`CONFIG_TYPES`."""
    if kind == "build":
        return build_properties()
    if kind == "deploy":
        return PropertyList((("deploy.mode", PRISM_MODE), ("prism.colos", ",".join(colos)),
                             ("api.base_url", config.get("api", "base_url"))))
    if kind == "startup":
        return PropertyList(tuple(masked_section(config, "falcon").items()))
    enabled = Policy.load(lambda key: config.get("falcon", key)).enabled
    return PropertyList((("authentication", scheme), ("authorization_enabled", str(enabled).lower())))


def router(config: ServerConfig, colos: tuple[str, ...], scheme: str) -> APIRouter:
    """The routes, for the Prism of ``colos`` configured by ``config`` (authentication ``scheme``)."""
    routes = APIRouter(prefix="/api/admin")

    def refused(request: Request, message: str) -> Response:
        code, content, media_type = bodies.denial(message, request_id=getattr(request.state, "request_id", None))
        return Response(content, status_code=code, media_type=media_type)

    @routes.get("/stack")
    async def _stack(request: Request) -> Response:
        problem = refusal(request, config, "stack")
        if problem is not None:
            return refused(request, problem)
        content, media_type = bodies.render(PlainText(stack_dump()), "text")
        return Response(content, media_type=media_type)

    @routes.get("/config/{kind}")
    async def _config(request: Request, kind: str) -> Response:
        problem = refusal(request, config, "config")
        if problem is not None:
            return refused(request, problem)
        if kind not in CONFIG_TYPES:
            return Response(status_code=204)  # as a server, as Falcon: nothing for another type
        fmt = bodies.negotiate(request.headers.get("accept"), bodies.PRODUCES_XML_JSON) or "xml"
        content, media_type = bodies.render(settings_of(config, kind, colos, scheme), fmt)
        return Response(content, media_type=media_type)

    async def set_safemode(request: Request, mode: str) -> Response:
        problem = refusal(request, config, "setsafemode")
        if problem is not None:
            return refused(request, problem)
        chosen = safemode_mode(mode)
        await asyncio.to_thread(request.app.state.prism.record.set_safemode, chosen == "true",
                                user=caller(request).user)
        fmt = bodies.negotiate(request.headers.get("accept"), bodies.PRODUCES_XML_JSON) or "xml"
        content, media_type = bodies.render(PlainText(chosen), fmt)
        return Response(content, media_type=media_type)

    # Falcon 0.10's client sends GET; POST as a server takes it too
    routes.add_api_route("/setSafeMode/{mode}", set_safemode, methods=["GET", "POST"])
    return routes
