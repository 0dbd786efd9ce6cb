"""``api/admin/``: Falcon's admin resource.

* ``GET version``: a property list - ``Version`` (falcon-airflow's), ``Mode`` (``embedded``: one server, no Prism),
  ``Airflow`` (where Falcon said ``Hadoop``), ``authentication`` (the scheme) and ``safemode``;
* ``GET stack``: the server process's threads and the event loop's tasks, each as Falcon printed a Java thread
  (its name, ``State:``, then one frame a line, innermost first), as ``text/plain``;
* ``GET config/{build,deploy,startup,runtime}``: the server's settings as a property list (``startup`` is the
  ``[falcon]`` section with secrets masked); another type is answered ``204`` with no body, as Falcon did;
* ``GET`` or ``POST setSafeMode/{true,false}``: sets safemode in the store (Falcon 0.10's client sends ``GET``); the
  body is the new value as text. Another value is refused (``400``, Falcon's message).

Property lists are Falcon's ``AdminResource.PropertyList`` (:mod:`falcon_airflow.server.bodies`), ``text/xml``
unless ``Accept`` prefers JSON (Jersey's "mapped" notation).

With ``authorization_enabled`` every action but ``version`` needs an admin (:mod:`falcon_airflow.server.access`).
"""

from __future__ import annotations

import asyncio
import os
import platform
import sys
import threading
from collections.abc import Sequence
from types import CodeType, FrameType
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from falcon_airflow import __version__
from falcon_airflow.server.access import Admission
from falcon_airflow.server.authentication import Caller, caller
from falcon_airflow.server.bodies import (
    MEDIA_TYPES,
    PRODUCES_TEXT,
    PRODUCES_XML_JSON,
    Body,
    Format,
    PlainText,
    PropertyList,
    negotiate,
    render,
)
from falcon_airflow.server.configuration import ServerContext, masked_section

router = APIRouter(prefix="/api/admin", tags=["admin"])

CONFIG_TYPES = ("build", "deploy", "startup", "runtime")
DEPLOY_MODE = "embedded"


class NotAcceptable(Exception):
    """The request's ``Accept`` names none of the types the resource produces (406)."""

    def __init__(self, offered: Sequence[Format]) -> None:
        super().__init__(", ".join(MEDIA_TYPES[item] for item in offered))
        self.offered = tuple(MEDIA_TYPES[item] for item in offered)


def respond(request: Request, body: Body, produces: Sequence[Format]) -> Response:
    """``body`` in the type the request's ``Accept`` gets from a resource producing ``produces``."""
    chosen = negotiate(request.headers.get("accept"), produces)
    if chosen is None:
        raise NotAcceptable(produces)
    content, media_type = render(body, chosen)
    return Response(content, media_type=media_type)


# -- the stack dump --------------------------------------------------------------------------------------------------

def _frame_line(code: CodeType, lineno: int | None, module: str | None) -> str:
    where = f"{os.path.basename(code.co_filename)}:{lineno}" if lineno is not None else os.path.basename(
        code.co_filename)
    return f"{module + '.' if module else ''}{code.co_qualname}({where})"


def _thread_frames(frame: FrameType | None) -> list[str]:
    lines = []
    while frame is not None:
        lines.append(_frame_line(frame.f_code, frame.f_lineno, frame.f_globals.get("__name__")))
        frame = frame.f_back
    return lines


def _task_frames(task: asyncio.Task[Any]) -> list[str]:
    """A task's awaiting coroutines, innermost first."""
    chain: list[str] = []
    awaited: Any = task.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is not None:
            chain.append(_frame_line(frame.f_code, frame.f_lineno, frame.f_globals.get("__name__")))
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    return list(reversed(chain))


def stack_dump() -> str:
    """Every thread of this process and every task of the running event loop: name, state, frames."""
    frames = sys._current_frames()
    current = threading.get_ident()
    blocks = []
    for thread in sorted(threading.enumerate(), key=lambda item: item.name):
        ident = thread.ident
        state = "RUNNABLE (this request)" if ident == current else "alive"
        if thread.daemon:
            state += ", daemon"
        lines = _thread_frames(frames.get(ident)) if ident is not None else []
        blocks.append("\n".join([thread.name, f"State: {state}", *lines]))
    try:
        tasks = sorted(asyncio.all_tasks(), key=lambda task: task.get_name())
    except RuntimeError:  # no running loop in this thread
        tasks = []
    this_task = asyncio.current_task() if tasks else None
    for task in tasks:
        state = "RUNNING (this request)" if task is this_task else "WAITING"
        blocks.append("\n".join([f"task {task.get_name()}", f"State: {state}", *_task_frames(task)]))
    return "\n".join(blocks) + "\n"


# -- the routes ------------------------------------------------------------------------------------------------------

def _context(request: Request) -> ServerContext:
    context: ServerContext = request.app.state.falcon
    return context


Who = Annotated[Caller, Depends(caller)]
DoAs = Annotated[str | None, Query(alias="doAs")]


def _admit(request: Request, who: Caller, action: str, do_as: str | None, **target: Any) -> Admission:
    admission = Admission(_context(request), who, "admin", action, do_as=do_as,
                          address=request.client.host if request.client else None, target=target,
                          id=getattr(request.state, "request_id", ""))
    admission.decide()
    return admission


def _safemode(context: ServerContext) -> bool:
    return context.open_store().safemode


def _airflow_version() -> str:
    try:
        from airflow import __version__ as airflow_version
    except ImportError:  # the server runs inside the api-server; a bare test process may lack Airflow
        return "unknown"
    return str(airflow_version)


@router.get("/version")
def version(request: Request, who: Who, do_as: DoAs = None) -> Response:
    admission = _admit(request, who, "version", do_as)
    with admission.acting():
        context = _context(request)
        body = PropertyList((("Version", __version__), ("Mode", DEPLOY_MODE), ("Airflow", _airflow_version()),
                             ("authentication", context.authentication.scheme),
                             ("safemode", str(_safemode(context)).lower())))
        return respond(request, body, PRODUCES_XML_JSON)


@router.get("/stack")
async def stack(request: Request, who: Who, do_as: DoAs = None) -> Response:
    admission = await asyncio.to_thread(_admit, request, who, "stack", do_as)
    with admission.acting():
        # on the event loop's thread: the loop's tasks can be listed only from there
        return respond(request, PlainText(stack_dump()), PRODUCES_TEXT)


def build_properties() -> PropertyList:
    """``config/build``: the versions this process runs (a server's or a Prism's alike)."""
    return PropertyList((("build.version", __version__), ("project.version", __version__),
                         ("airflow.version", _airflow_version()), ("python.version", platform.python_version())))


def _config(context: ServerContext, kind: str) -> PropertyList:
    if kind == "build":
        return build_properties()
    if kind == "deploy":
        return PropertyList((("deploy.mode", DEPLOY_MODE), ("api.base_url", context.config.get("api", "base_url")),
                             ("entities.dir", str(context.entities)),
                             ("store.dir", "database" if context.store_kind == "database" else str(context.state))))
    if kind == "startup":
        return PropertyList(tuple(masked_section(context.config, "falcon").items()))
    document = context.open_store().safemode_record()
    return PropertyList((("safemode", str(bool(document.get("safemode", False))).lower()),
                         ("safemode.since", document.get("since")), ("safemode.by", document.get("by")),
                         ("authentication", context.authentication.scheme)))


@router.get("/config/{kind}")
def config(kind: str, request: Request, who: Who, do_as: DoAs = None) -> Response:
    admission = _admit(request, who, "config", do_as, type=kind)
    with admission.acting():
        if kind not in CONFIG_TYPES:
            return Response(status_code=204)  # Falcon's resource returned null for another type
        return respond(request, _config(_context(request), kind), PRODUCES_XML_JSON)


def safemode_mode(mode: str) -> str:
    """``true`` or ``false`` from ``setSafeMode/{mode}``; Falcon's refusal of anything else."""
    from falcon_airflow.operate.outcomes import Refused

    chosen = mode.strip().lower()
    if chosen not in ("true", "false"):
        raise Refused(f'Invalid value "{mode}" provided for safemode.')
    return chosen


def _set_safemode(request: Request, who: Caller, mode: str, do_as: str | None) -> Response:
    from falcon_airflow.operate import admin_actions
    from falcon_airflow.operate.context import Context
    from falcon_airflow.operate.settings import Settings

    admission = _admit(request, who, "setsafemode", do_as, mode=mode)
    with admission.acting():
        chosen = safemode_mode(mode)
        context = _context(request)
        cert, key = ((context.config.get("api", name) or "").strip() for name in ("client_ssl_cert", "client_ssl_key"))
        settings = Settings(url=context.config.get("api", "base_url") or "", entities=context.entities,
                            state=context.state, client_cert=(cert, key) if cert and key else None)
        store = context.open_store()
        store.act_as(do_as or who.user)
        acting = Context(settings=settings, store=store, user=do_as or who.user, do_as=do_as)
        with store.lock():
            admin_actions.set_safemode(acting, chosen)
        return respond(request, PlainText(str(store.safemode).lower()), PRODUCES_XML_JSON)


@router.get("/setSafeMode/{mode}")
def set_safemode_get(mode: str, request: Request, who: Who, do_as: DoAs = None) -> Response:
    return _set_safemode(request, who, mode, do_as)


@router.post("/setSafeMode/{mode}")
def set_safemode_post(mode: str, request: Request, who: Who, do_as: DoAs = None) -> Response:
    return _set_safemode(request, who, mode, do_as)
