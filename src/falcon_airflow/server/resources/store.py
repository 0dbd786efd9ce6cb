"""``api/store/``: the store as the DAG bundle reads it. Not a Falcon resource, not for users.

* ``GET revision``: ``{"revision": N, "store": id}``, the store's newest revision (the bundle's version) and which
  store it is;
* ``GET snapshot[?revision=N]``: the definitions in force, schedule states and ``-doAs`` users as of revision
  ``N`` (the newest without it), as :mod:`falcon_airflow.store.wire` writes them; a revision the store never had:
  ``404``.

The dag-processor and the workers call them (:mod:`falcon_airflow.dags.store_bundle`): they cannot open Airflow's
metadata database from a task process, so the server, which holds the api-server's engine, reads the store for
them. Falcon's user authentication does not apply here (the middleware lets these two paths through,
:data:`PATHS`); each call must carry a bundle token (:mod:`falcon_airflow.store.bundle_token`) instead, or it is
answered ``401`` with nothing of the store. Answers are JSON (``{"error": ...}`` when refused); ``409`` when the
server does not keep the store in the database (``[falcon] store`` is not ``database``), ``503`` when no bundle key
can be derived.
"""

from __future__ import annotations

import logging
import re

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.server import store_access
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.store.bundle_token import (
    SCHEME,
    BundleKeyMissing,
    BundleTokenError,
    bundle_key,
    check_authorization,
)
from falcon_airflow.store.wire import snapshot_document

log = logging.getLogger("falcon_airflow.server")

PREFIX = "/api/store"
PATHS = frozenset({f"{PREFIX}/revision", f"{PREFIX}/snapshot"})
"""The paths the user authentication leaves to this module's own check."""
_REVISION = re.compile(r"[0-9]{1,18}")

router = APIRouter(prefix=PREFIX, tags=["store"])


def _error(message: str, status: int, **headers: str) -> Response:
    return JSONResponse({"error": message}, status_code=status, headers=headers or None)


def _refusal(request: Request) -> Response | None:
    """The answer to a request that may not read the store, ``None`` for one that may."""
    context: ServerContext = request.app.state.falcon
    try:
        key = bundle_key(context.config.get)
    except BundleKeyMissing as missing:
        log.error("falcon-airflow: cannot serve the store to the DAG bundle: %s", missing.message)
        return _error(missing.message, 503)
    try:
        check_authorization(key, request.headers.get("authorization"))
    except BundleTokenError as problem:
        client = request.client.host if request.client else "?"
        log.warning("falcon-airflow: refused %s %s from %s: %s", request.method, request.url.path, client,
                    problem.message)
        return _error(problem.message, 401, **{"WWW-Authenticate": SCHEME})
    kind = context.store_kind
    if kind != "database":
        return _error(f"this server keeps the store in files ([falcon] store = {kind}), not in Airflow's "
                      "metadata database: there is nothing for the DAG bundle to read", 409)
    return None


@router.get("/revision")
def revision(request: Request) -> Response:
    refused = _refusal(request)
    if refused is not None:
        return refused
    store = store_access.database_store()
    return JSONResponse({"revision": store.revision(), "store": store.store_id()})


@router.get("/snapshot")
def snapshot(request: Request) -> Response:
    refused = _refusal(request)
    if refused is not None:
        return refused
    given = request.query_params.get("revision")
    if given is not None and not _REVISION.fullmatch(given):
        return _error(f"revision must be a whole number, not {given[:40]!r}", 400)
    try:
        found = store_access.database_store().snapshot(int(given) if given is not None else None)
    except LookupError as unknown:
        return _error(str(unknown), 404)
    return JSONResponse(snapshot_document(found))
