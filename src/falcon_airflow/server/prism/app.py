"""The Prism's FastAPI app: Falcon's REST paths and bodies, served where the server would be (``/falcon`` on the
api-server, ``[falcon] mode = prism``), every request routed to the colos' servers and the answers merged.

* ``POST api/entities/submit|update|submitAndSchedule/...``, ``schedule|suspend|resume/...`` and ``DELETE
  delete/...``: to the entity's colos (:mod:`.routing`), each made to hold what the record wants
  (:mod:`.convergence`); an ``APIResult`` merged, ``200`` SUCCEEDED or PARTIAL, ``400`` FAILED; an update also
  deletes the entity from the colos its new definition no longer names;
* ``GET api/entities/status/...``: to the entity's colos, ``APIResult`` merged;
* ``GET api/entities/definition/...``: from the first of the entity's colos that answers (its server decides
  whether the caller may read it, and redacts its secrets);
* ``GET api/entities/list[/{type}]``: to every colo, one ``EntityList`` labelled by colo;
* ``GET api/entities/dependencies/{type}/{name}``: to the entity's colos, one ``EntityList`` labelled by colo;
* ``GET api/entities/summary/{type}?cluster=``: to the cluster's colo (every colo for a cluster the Prism has no
  record of), one ``EntitySummaryResult``;
* ``GET|POST api/instance/{action}/{type}/{name}``: to the entity's colos, one ``InstancesResult`` (JSON);
* ``GET api/admin/version``, ``stack``, ``config/...``: the Prism's own (:mod:`.admin`), no colo asked;
* ``POST api/prism/sync``: every recorded entity brought up to date on every colo (and deleted from those it
  left), ``APIResult`` merged.

``colo`` (Falcon's ``-colo``: one colo, several comma-separated, ``*`` all) narrows any of them to those colos.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import AsyncIterator, Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response

from falcon_airflow.entities import EntityType
from falcon_airflow.operate.options import sort_order
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.operate.runs import page
from falcon_airflow.operate.safemode import check_entity_operation, check_instance_operation
from falcon_airflow.operate.search import search_order
from falcon_airflow.server import bodies
from falcon_airflow.server.authentication import (
    SIMPLE,
    AuthenticationFailed,
    AuthenticationMiddleware,
    AuthenticationSettings,
    Authenticator,
    TokenVerifier,
    airflow_token_caller,
    caller,
)
from falcon_airflow.server.bodies import APIResult, ResultStatus
from falcon_airflow.server.bodies.conversion import property_list
from falcon_airflow.server.configuration import AirflowConfig, ServerConfig
from falcon_airflow.server.prism.colo_access import ColoAccess
from falcon_airflow.server.prism.colos import Colo, ColoNotApplicable, PrismSettings, selected
from falcon_airflow.server.prism.convergence import DELETED, Converger
from falcon_airflow.server.prism.forwarding import ColoAnswer, Forwarder, Identity, to_each
from falcon_airflow.server.prism.merging import (
    ColoResult,
    json_bytes,
    merge_entity_lists,
    merge_entity_summaries,
    merge_feed_lookups,
    merge_json_results,
    merge_results,
    merge_sla_alerts,
    order_search,
    read_api_result,
    read_entity_list,
    read_entity_summary,
    read_feed_lookup,
    read_sla_alert,
)
from falcon_airflow.server.prism.routing import (
    ENTITY_KINDS,
    DefinitionUnreadable,
    UnknownCluster,
    applicable_colos,
    read_definition,
)
from falcon_airflow.store.prism_record import Copy, EntityBusy, PrismRecord, Wanted, digest_of

MAX_BODY_BYTES = 4 * 1024 * 1024
"""As the server's: the largest definition Falcon's ``-file`` takes."""
SCHEDULE_STATES = {"schedule": "RUNNING", "resume": "RUNNING", "suspend": "SUSPENDED"}
INSTANCE_ACTIONS = ("running", "status", "list", "summary", "logs", "params", "listing", "dependencies", "triage",
                    "kill", "suspend", "resume", "rerun")
LIST_PAGING = ("offset", "numResults")
T = TypeVar("T")


class PrismRefused(Exception):
    """A request the Prism refuses before any colo is asked."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@functools.cache
def airflow_record() -> PrismRecord:
    """The record on the api-server's engine (Airflow's metadata database), as the store is reached."""
    from falcon_airflow.server.store_access import database_store

    return PrismRecord(database_store().engine)


class Prism:
    """What every request of one Prism shares. Its record is a database: the routes call it on worker threads
    (``asyncio.to_thread``), never on the api-server's event loop."""

    def __init__(self, settings: PrismSettings, record: Callable[[], PrismRecord],
                 forwarder: Forwarder | None = None) -> None:
        self.settings = settings
        self._record = record
        self.forwarder = forwarder or Forwarder(settings.timeout)

    @property
    def record(self) -> PrismRecord:
        return self._record()

    def colo_of_cluster(self, name: str) -> str | None:
        wanted = self.record.wanted("cluster", name)
        return None if wanted is None else read_definition("cluster", wanted.content).colo

    def cluster_colos(self, cluster: str) -> tuple[str, ...]:
        """Where a cluster's feeds and processes run: its colo; every colo for a cluster the Prism has no record
        of (or whose colo is not one of the Prism's), so that whichever colo knows it answers."""
        colo = self.colo_of_cluster(cluster)
        return (colo,) if colo in self.settings.names else self.settings.names

    def colos_of(self, kind: str, name: str | None, content: bytes | None = None) -> tuple[str, ...]:
        if content is None and name is not None:
            wanted = self.record.wanted(kind, name)
            content = None if wanted is None else wanted.content
        definition = None if content is None else read_definition(kind, content)
        return applicable_colos(definition, kind, self.settings.names, self.colo_of_cluster)

    def left_behind(self, applicable: tuple[str, ...], copies: dict[str, Copy],
                    among: set[str] | None = None) -> tuple[Colo, ...]:
        """The colos (of ``among``, else any) recorded holding a copy of an entity that no longer lives there: its
        definition was updated to clusters of other colos."""
        return tuple(self.settings.colo(name) for name in self.settings.names
                     if name in copies and name not in applicable and (among is None or name in among))

    def chosen(self, request: Request, applicable: tuple[str, ...]) -> tuple[Colo, ...]:
        names = selected(request.query_params.get("colo"), applicable)
        return tuple(self.settings.colo(name) for name in names)

    def converger(self, request: Request) -> Converger:
        found = caller(request)
        identity = Identity(found.user, found.token if found.scheme != SIMPLE else None)
        return Converger(self.record, self.forwarder, identity, request.query_params.get("doAs") or None)

    @property
    def change_term(self) -> float:
        """How long a Prism process that dies while changing an entity keeps other commands off it: longer than
        the slowest command (a definition and then a schedule state on the colos at once, then the deletes on the
        colos left, each call bounded by the colo timeout)."""
        return 3 * self.settings.timeout + 60

    async def in_safemode(self) -> bool:
        return await asyncio.to_thread(lambda: self.record.safemode)

    async def check_operation(self, operation: str, kind: str) -> None:
        """Falcon's refusal of an entity ``operation`` (``SUBMIT``, ``UPDATE`` ...) the Prism's own safemode does not
        allow, before any colo is asked (each colo still applies its own)."""
        check_entity_operation(await self.in_safemode(), operation, EntityType(kind))

    @contextlib.asynccontextmanager
    async def changing(self, kind: str, name: str, command: str) -> AsyncIterator[None]:
        """While ``command`` changes the entity, no other command through any of this Prism's processes does:
        a second one is refused at once (:class:`EntityBusy`), as Falcon's Prism refused it."""
        record = self.record
        holder = await asyncio.to_thread(record.hold, kind, name, command, term_seconds=self.change_term)
        try:
            yield
        finally:
            await asyncio.to_thread(record.let_go, kind, name, holder)


def _request_id(request: Request) -> str | None:
    return getattr(request.state, "request_id", None)


def _api_result(request: Request, result: APIResult) -> Response:
    fmt = bodies.negotiate(request.headers.get("accept"), bodies.PRODUCES_ENTITY_ACTION) or "xml"
    content, media_type = bodies.render(result, fmt)
    status = 400 if result.status == ResultStatus.FAILED else 200
    return Response(content, status_code=status, media_type=media_type)


def _failure(request: Request, message: str, status: int = 400) -> Response:
    code, content, media_type = bodies.failure(message, request_id=_request_id(request), status=status)
    return Response(content, status_code=code, media_type=media_type)


def _kind(given: str) -> str:
    kind = given.strip().lower()
    if kind not in ENTITY_KINDS:
        raise PrismRefused(f"Invalid entity type: {given}. Expected one of {', '.join(ENTITY_KINDS)}")
    return kind


async def _definition_body(request: Request) -> bytes:
    data = await request.body()
    if len(data) > MAX_BODY_BYTES:
        raise PrismRefused(f"the request body is larger than {MAX_BODY_BYTES:,} bytes: refused")
    if not data.strip():
        raise PrismRefused("the request has no entity definition")
    return data


def _prism(request: Request) -> Prism:
    found: Prism = request.app.state.prism
    return found


def entity_router() -> APIRouter:
    router = APIRouter(prefix="/api/entities")

    async def converge_all(request: Request, wanted: Wanted, colos: tuple[Colo, ...], *,
                           with_state: bool, living_on: tuple[str, ...] | None = None) -> Response:
        """``colos`` brought to ``wanted``; with ``living_on`` (the colos the entity lives on now), the entity also
        deleted from every other colo the record says holds a copy (an update moved it off them)."""
        prism = _prism(request)
        converger = prism.converger(request)
        copies = await asyncio.to_thread(prism.record.copies, wanted.kind, wanted.name)
        leaving = () if living_on is None else prism.left_behind(living_on, copies)
        async with prism.forwarder.client() as http:
            results = await to_each(colos, lambda colo: converger.converge(
                http, colo, wanted, copies.get(colo.name), with_state=with_state))
            results += await to_each(leaving, lambda colo: converger.remove(http, colo, wanted.kind, wanted.name))
        return _api_result(request, merge_results(results))

    async def submit(request: Request, kind: str, *, and_schedule: bool) -> Response:
        prism = _prism(request)
        kind = _kind(kind)
        content = await _definition_body(request)
        definition = read_definition(kind, content)
        await prism.check_operation("SUBMIT", kind)
        colos = prism.chosen(request, await asyncio.to_thread(prism.colos_of, kind, None, content))
        async with prism.changing(kind, definition.name, "submitAndSchedule" if and_schedule else "submit"):
            existing = await asyncio.to_thread(prism.record.wanted, kind, definition.name)
            if existing is not None and existing.schedule_state == DELETED:
                existing = None  # submitted again after a delete: a new entity, whatever a colo still holds
            if existing is not None and existing.digest != digest_of(content):
                raise PrismRefused(f"({kind}) {definition.name} already registered with the Prism with another "
                                   "definition. Can't be submitted again: update it, or delete it first.")
            user = caller(request).user
            state = "RUNNING" if and_schedule else None
            if existing is None or and_schedule:
                wanted = await asyncio.to_thread(prism.record.want, kind, definition.name, content, user=user,
                                                 schedule_state=state, keep_state=existing is not None)
            else:
                wanted = existing
            return await converge_all(request, wanted, colos, with_state=and_schedule)

    @router.post("/submit/{kind}")
    async def _submit(request: Request, kind: str) -> Response:
        return await submit(request, kind, and_schedule=False)

    @router.post("/submitAndSchedule/{kind}")
    async def _submit_and_schedule(request: Request, kind: str) -> Response:
        return await submit(request, kind, and_schedule=True)

    @router.post("/update/{kind}/{name}")
    async def _update(request: Request, kind: str, name: str) -> Response:
        prism = _prism(request)
        kind = _kind(kind)
        content = await _definition_body(request)
        definition = read_definition(kind, content)
        if definition.name != name:
            raise PrismRefused(f"the definition names {definition.name}, not {name}: an update keeps the name")
        await prism.check_operation("UPDATE", kind)
        # as Falcon's Prism: the colos the new definition no longer names drop the entity (unless -colo narrows the
        # update to some colos; a later sync finishes it then, as it does for a colo that was down)
        narrowed = (request.query_params.get("colo") or "").strip() not in ("", "*")
        async with prism.changing(kind, name, "update"):
            current = await asyncio.to_thread(prism.record.wanted, kind, name)
            if current is None or current.schedule_state == DELETED:
                raise PrismRefused(f"{name} ({kind}) not found in the Prism: submit it first")
            applicable = await asyncio.to_thread(prism.colos_of, kind, None, content)
            colos = prism.chosen(request, applicable)
            wanted = await asyncio.to_thread(prism.record.want, kind, name, content, user=caller(request).user)
            return await converge_all(request, wanted, colos, with_state=False,
                                      living_on=None if narrowed else applicable)

    @router.post("/validate/{kind}")
    async def _validate(request: Request, kind: str) -> Response:
        # each colo the definition would go to validates it against its own store, as a submit there would
        prism = _prism(request)
        kind = _kind(kind)
        content = await _definition_body(request)
        applicable = await asyncio.to_thread(prism.colos_of, kind, None, content)  # refuses an unreadable one
        return await forward_apiresult(request, "POST", f"api/entities/validate/{kind}", applicable,
                                       _passed(request, "skipDryRun"), body=content)

    @router.post("/updateClusterDependents/{cluster}")
    async def _update_cluster_dependents(request: Request, cluster: str) -> Response:
        # the cluster's feeds and processes run in its colo
        applicable = await asyncio.to_thread(_prism(request).cluster_colos, cluster)
        return await forward_apiresult(request, "POST", f"api/entities/updateClusterDependents/{quote(cluster)}",
                                       applicable, _passed(request, "skipDryRun"))

    @router.post("/touch/{kind}/{name}")
    async def _touch(request: Request, kind: str, name: str) -> Response:
        # nothing the Prism records changes: each of the entity's colos re-creates its DAGs
        kind = _kind(kind)
        await _prism(request).check_operation("TOUCH", kind)
        return await forward_apiresult(request, "POST", f"api/entities/touch/{kind}/{quote(name)}",
                                       await asyncio.to_thread(_prism(request).colos_of, kind, name),
                                       _passed(request, "skipDryRun"))

    @router.post("/{action}/{kind}/{name}")
    async def _state(request: Request, action: str, kind: str, name: str) -> Response:
        if action not in SCHEDULE_STATES:
            return _failure(request, f"the Prism does not route entity action {action!r} yet", 400)
        prism = _prism(request)
        kind = _kind(kind)
        await prism.check_operation(action.upper(), kind)
        async with prism.changing(kind, name, action):
            wanted = await asyncio.to_thread(prism.record.wanted, kind, name)
            if wanted is not None and wanted.schedule_state == DELETED:
                raise PrismRefused(f"{name} ({kind}) is being deleted: run prism sync, or submit it again")
            if wanted is None:  # submitted to the colos directly: the Prism only passes the request on
                return await forward_apiresult(request, "POST", f"api/entities/{action}/{kind}/{quote(name)}",
                                               await asyncio.to_thread(prism.colos_of, kind, name))
            colos = prism.chosen(request, await asyncio.to_thread(prism.colos_of, kind, name))
            await asyncio.to_thread(prism.record.want_state, kind, name, SCHEDULE_STATES[action],
                                    user=caller(request).user)
            wanted = await asyncio.to_thread(prism.record.wanted, kind, name)
            assert wanted is not None
            return await converge_all(request, wanted, colos, with_state=True)

    @router.delete("/delete/{kind}/{name}")
    async def _delete(request: Request, kind: str, name: str) -> Response:
        prism = _prism(request)
        kind = _kind(kind)
        await prism.check_operation("DELETE", kind)
        converger = prism.converger(request)
        async with prism.changing(kind, name, "delete"):
            applicable = await asyncio.to_thread(prism.colos_of, kind, name)
            colos = prism.chosen(request, applicable)
            # marked first: a colo that misses the delete gets it from the next sync, and no sync sends the entity
            # back to the colos that dropped it
            await asyncio.to_thread(prism.record.want_state, kind, name, DELETED, user=caller(request).user)
            async with prism.forwarder.client() as http:
                results = await to_each(colos, lambda colo: converger.remove(http, colo, kind, name))
            merged = merge_results(results)
            everywhere = {colo.name for colo in colos} >= set(applicable)
            left = await asyncio.to_thread(prism.record.copies, kind, name)
            if merged.status == ResultStatus.SUCCEEDED and (everywhere or not left):
                await asyncio.to_thread(prism.record.forget, kind, name)
            return _api_result(request, merged)

    @router.get("/status/{kind}/{name}")
    async def _status(request: Request, kind: str, name: str) -> Response:
        prism = _prism(request)
        kind = _kind(kind)
        extra = [(key, value) for key, value in request.query_params.multi_items() if key == "showScheduler"]
        return await forward_apiresult(request, "GET", f"api/entities/status/{kind}/{quote(name)}",
                                       await asyncio.to_thread(prism.colos_of, kind, name), extra)

    @router.get("/definition/{kind}/{name}")
    async def _definition(request: Request, kind: str, name: str) -> Response:
        # asked of a colo, not read from the record: the colo server decides whether the caller may read it and
        # redacts its secrets, which the record holds as submitted. The first of the entity's colos that answers.
        prism = _prism(request)
        kind = _kind(kind)
        colos = prism.chosen(request, await asyncio.to_thread(prism.colos_of, kind, name))
        identity = prism.converger(request).identity
        problems: list[ColoResult] = []
        async with prism.forwarder.client() as http:
            for colo in colos:
                answer = await prism.forwarder.send(http, colo, "GET", f"api/entities/definition/{kind}/{quote(name)}",
                                                    identity, query=prism.converger(request).query())
                if answer.reached and answer.status_code == 200:
                    return Response(answer.content, media_type=answer.media_type or "text/xml")
                if answer.reached and answer.status_code in (401, 403):
                    return Response(answer.content, status_code=answer.status_code,
                                    media_type=answer.media_type or "text/plain")
                problems.append(ColoResult(colo.name, ResultStatus.FAILED, answer.failure()
                                           if not answer.reached or not answer.content.lstrip().startswith(b"<")
                                           else read_api_result(colo.name, answer.content).message))
        return _api_result(request, merge_results(problems) if problems else APIResult(
            ResultStatus.FAILED, f"{name} ({kind}) is on no colo of this Prism"))

    async def entity_list(request: Request, kind: str | None) -> Response:
        prism = _prism(request)
        colos = prism.chosen(request, prism.settings.names)
        query = [(key, value) for key, value in request.query_params.multi_items()
                 if key not in ("colo", "doAs", *LIST_PAGING)]
        path = "api/entities/list" + (f"/{quote(kind)}" if kind else "")
        return await merged_entity_list(request, colos, path, query, offset=_number(request, "offset", 0),
                                        limit=_number(request, "numResults", None))

    async def merged_entity_list(request: Request, colos: tuple[Colo, ...], path: str,
                                 query: list[tuple[str, str]], *, offset: int = 0,
                                 limit: int | None = None) -> Response:
        """An ``EntityList`` call sent to ``colos``, their lists as one labelled by colo."""
        prism = _prism(request)
        converger = prism.converger(request)
        async with prism.forwarder.client() as http:
            answers = await to_each(colos, lambda colo: prism.forwarder.send(
                http, colo, "GET", path, converger.identity, query=query + converger.query()))
        lists, failed = [], []
        for answer in answers:
            if answer.reached and answer.status_code == 200:
                try:
                    lists.append((answer.colo, read_entity_list(answer.content)))
                    continue
                except ValueError:
                    pass
            failed.append(ColoResult(answer.colo, ResultStatus.FAILED, answer.failure() if not answer.reached
                                     else read_api_result(answer.colo, answer.content).message))
        if not lists:
            return _api_result(request, merge_results(failed))
        merged = merge_entity_lists(lists, offset=offset, limit=limit)
        fmt = bodies.negotiate(request.headers.get("accept"), bodies.PRODUCES_XML_JSON) or "xml"
        content, media_type = bodies.render(merged, fmt)
        response = Response(content, media_type=media_type)
        if failed:  # the colos missing from the list, and why: an EntityList has no message of its own
            response.headers["X-Falcon-Prism-Unreached"] = ",".join(result.colo for result in failed)
        return response

    @router.get("/list")
    async def _list_all(request: Request) -> Response:
        return await entity_list(request, None)

    @router.get("/list/{kind}")
    async def _list(request: Request, kind: str) -> Response:
        return await entity_list(request, kind)

    @router.get("/dependencies/{kind}/{name}")
    async def _dependencies(request: Request, kind: str, name: str) -> Response:
        # each colo answers for what it holds: a process only one colo runs is a dependency there only
        prism = _prism(request)
        kind = _kind(kind)
        colos = prism.chosen(request, await asyncio.to_thread(prism.colos_of, kind, name))
        return await merged_entity_list(request, colos, f"api/entities/dependencies/{kind}/{quote(name)}", [])

    @router.get("/summary/{kind}")
    async def _summary(request: Request, kind: str) -> Response:
        prism = _prism(request)
        kind = _kind(kind)
        cluster = (request.query_params.get("cluster") or "").strip()
        if not cluster:
            raise PrismRefused("entity -summary needs the cluster (-cluster) whose entities it summarises")
        applicable = await asyncio.to_thread(prism.cluster_colos, cluster)  # where its instances run
        return await forward_merged(request, f"api/entities/summary/{quote(kind)}", applicable,
                                    read_entity_summary, merge_entity_summaries, bodies.PRODUCES_XML_JSON)

    @router.get("/lookup/{kind}")
    async def _lookup(request: Request, kind: str) -> Response:
        # any colo may hold a feed whose location holds the path: every colo is asked, each place named once
        path = f"api/entities/lookup/{quote(_kind(kind))}"
        return await forward_merged(request, path, _prism(request).settings.names, read_feed_lookup,
                                    merge_feed_lookups, bodies.PRODUCES_JSON_TEXT, accept="application/json")

    @router.get("/sla-alert/{kind}")
    async def _sla_alert(request: Request, kind: str) -> Response:
        # an entity's SLA is watched where its instances run: the entity's colos, or every colo for a whole type
        prism = _prism(request)
        kind = _kind(kind)
        name = (request.query_params.get("name") or "").strip()
        applicable = (await asyncio.to_thread(prism.colos_of, kind, name) if name else prism.settings.names)
        return await forward_merged(request, f"api/entities/sla-alert/{quote(kind)}", applicable,
                                    read_sla_alert, merge_sla_alerts, bodies.PRODUCES_JSON_XML)

    return router


def _number(request: Request, key: str, default: int | None) -> Any:
    given = request.query_params.get(key)
    if given is None or given == "":
        return default
    if not given.isdigit():
        raise PrismRefused(f"{key} must be a whole number, not {given!r}")
    return int(given)


async def forward_merged(request: Request, path: str, applicable: tuple[str, ...],
                         read: Callable[[str, bytes], tuple[ColoResult, Sequence[T]]],
                         merge: Callable[[list[tuple[ColoResult, Sequence[T]]]], APIResult],
                         produces: tuple[bodies.Format, ...], *, accept: str = "text/xml") -> Response:
    """A read forwarded as it is (its query but ``colo`` and ``doAs``) to the applicable colos the request chose;
    each answer ``read`` into its header and items, ``merge``d into one result in the format the caller accepts."""
    prism = _prism(request)
    colos = prism.chosen(request, applicable)
    converger = prism.converger(request)
    query = [(key, value) for key, value in request.query_params.multi_items() if key not in ("colo", "doAs")]
    async with prism.forwarder.client() as http:
        answers = await to_each(colos, lambda colo: prism.forwarder.send(
            http, colo, "GET", path, converger.identity, query=query + converger.query(), accept=accept))
    found: list[tuple[ColoResult, Sequence[T]]] = []
    for answer in answers:
        if not answer.reached or answer.status_code in (401, 403, 404, 406):  # no result of the colo's to read
            found.append((ColoResult(answer.colo, ResultStatus.FAILED, answer.failure()), ()))
        else:
            found.append(read(answer.colo, answer.content))
    merged = merge(found)
    fmt = bodies.negotiate(request.headers.get("accept"), produces) or produces[0]
    content, media_type = bodies.render(merged, fmt)
    return Response(content, status_code=400 if merged.status == ResultStatus.FAILED else 200,
                    media_type=media_type)


def _passed(request: Request, *names: str) -> list[tuple[str, str]]:
    """The request's query parameters called ``names``, to pass on to the colos as they are."""
    return [(key, value) for key, value in request.query_params.multi_items() if key in names]


async def forward_apiresult(request: Request, method: str, path: str, applicable: tuple[str, ...],
                            query: list[tuple[str, str]] | None = None, *, body: bytes | None = None) -> Response:
    """A call forwarded as it is to the colos (with ``body``, a definition, when given), their ``APIResult``s
    merged."""
    prism = _prism(request)
    colos = prism.chosen(request, applicable)
    converger = prism.converger(request)

    async def one(colo: Colo) -> ColoResult:
        answer = await prism.forwarder.send(http, colo, method, path, converger.identity,
                                            query=(query or []) + converger.query(), body=body,
                                            content_type=None if body is None else "text/xml")
        if not answer.reached or not answer.content.lstrip().startswith(b"<"):
            return ColoResult(colo.name, ResultStatus.FAILED, answer.failure())
        return read_api_result(colo.name, answer.content)

    async with prism.forwarder.client() as http:
        results = await to_each(colos, one)
    return _api_result(request, merge_results(results))


def _json_documents(answers: Sequence[ColoAnswer]) -> list[tuple[str, dict[str, Any] | None, str | None]]:
    """Each colo's JSON result, or why there is none (its failure, or the message of the XML result it gave)."""
    documents: list[tuple[str, dict[str, Any] | None, str | None]] = []
    for answer in answers:
        if not answer.reached:
            documents.append((answer.colo, None, answer.failure()))
            continue
        try:
            document = json.loads(answer.content)
        except ValueError:
            document = None
        if isinstance(document, dict) and "status" in document:
            documents.append((answer.colo, document, None))
        elif answer.content.lstrip().startswith(b"<"):
            documents.append((answer.colo, None, read_api_result(answer.colo, answer.content).message))
        else:
            documents.append((answer.colo, None, answer.failure()))
    return documents


def instance_router() -> APIRouter:
    router = APIRouter(prefix="/api/instance")

    async def forward(request: Request, action: str, kind: str, name: str) -> Response:
        if action not in INSTANCE_ACTIONS:
            return _failure(request, f"the Prism does not route instance action {action!r} yet")
        prism = _prism(request)
        kind = _kind(kind)
        if action == "resume":
            check_instance_operation(await prism.in_safemode(), "RESUME")
        colos = prism.chosen(request, await asyncio.to_thread(prism.colos_of, kind, name))
        query = [(key, value) for key, value in request.query_params.multi_items() if key != "colo"]
        body = await request.body() if request.method == "POST" else None
        identity = prism.converger(request).identity
        path = f"api/instance/{action}/{kind}/{quote(name)}"
        async with prism.forwarder.client() as http:
            answers = await to_each(colos, lambda colo: prism.forwarder.send(
                http, colo, request.method, path, identity, query=query, body=body,
                content_type=request.headers.get("content-type"), accept="application/json"))
        merged = merge_json_results(_json_documents(answers))
        if merged["status"] != ResultStatus.SUCCEEDED.value:
            # as Falcon's Prism: an instance call that did not succeed everywhere is a failure naming each colo's
            return _failure(request, str(merged["message"]))
        return Response(json_bytes(merged), media_type="application/json")

    @router.get("/search")
    async def _search(request: Request) -> Response:
        # instances across entities, so every colo; each colo gives all it matched, and the Prism orders and pages
        # them as one server would
        prism = _prism(request)
        colos = prism.chosen(request, prism.settings.names)
        order = search_order(request.query_params.get("orderBy"))
        direction = sort_order(request.query_params.get("sortOrder"))
        offset, limit = _number(request, "offset", 0), _number(request, "numResults", None)
        page([], offset, limit)  # the paging is checked before any colo is asked
        query = [(key, value) for key, value in request.query_params.multi_items()
                 if key not in ("colo", *LIST_PAGING)]
        identity = prism.converger(request).identity
        async with prism.forwarder.client() as http:
            answers = await to_each(colos, lambda colo: prism.forwarder.send(
                http, colo, "GET", "api/instance/search", identity, query=query, accept="application/json"))
        merged = merge_json_results(_json_documents(answers))
        if merged["status"] != ResultStatus.SUCCEEDED.value:
            return _failure(request, str(merged["message"]))
        if "instances" in merged:
            ordered = order_search(merged["instances"], order, direction, bool(request.query_params.get("start")))
            merged["instances"] = page(ordered, offset, limit)
        return Response(json_bytes(merged), media_type="application/json")

    @router.get("/{action}/{kind}/{name}")
    async def _get(request: Request, action: str, kind: str, name: str) -> Response:
        return await forward(request, action, kind, name)

    @router.post("/{action}/{kind}/{name}")
    async def _post(request: Request, action: str, kind: str, name: str) -> Response:
        return await forward(request, action, kind, name)

    return router


def admin_router() -> APIRouter:
    router = APIRouter()

    @router.get("/api/admin/version")
    async def _version(request: Request) -> Response:
        try:
            own = version("falcon-airflow")
        except PackageNotFoundError:
            own = "unknown"
        prism = _prism(request)
        safemode = await prism.in_safemode()
        body = property_list({"Version": own, "Mode": "prism", "colos": ",".join(prism.settings.names),
                              "authentication": request.app.state.authentication,
                              "safemode": str(safemode).lower()})
        fmt = bodies.negotiate(request.headers.get("accept"), bodies.PRODUCES_JSON_XML) or "json"
        content, media_type = bodies.render(body, fmt)
        return Response(content, media_type=media_type)

    @router.post("/api/prism/sync")
    async def _sync(request: Request) -> Response:
        """Every entity the record holds brought up to date on its colos (those of ``colo``): a colo that was down
        gets what it missed, as the caller (each colo server decides whether the caller may)."""
        prism = _prism(request)
        if await prism.in_safemode():
            raise PrismRefused("prism sync is not allowed while the Prism is in safemode: it changes the colos' "
                               "entities (admin -setsafemode false first)")
        chosen = {colo.name for colo in prism.chosen(request, prism.settings.names)}
        converger = prism.converger(request)
        # clusters first: the feeds and processes of a colo name them
        recorded = await asyncio.to_thread(prism.record.all_wanted)
        everything = sorted(recorded, key=lambda item: (item.kind != "cluster", item.kind, item.name))
        lines: dict[str, list[str]] = {name: [] for name in prism.settings.names if name in chosen}
        failed: dict[str, bool] = dict.fromkeys(lines, False)

        async def sync_one(http: httpx.AsyncClient, kind: str, name: str) -> None:
            # read under the entity's lease: a command may have changed it since the record was listed
            wanted = await asyncio.to_thread(prism.record.wanted, kind, name)
            if wanted is None:
                return  # deleted everywhere since
            applicable = await asyncio.to_thread(prism.colos_of, kind, name)
            colos = [prism.settings.colo(colo) for colo in applicable if colo in chosen]
            copies = await asyncio.to_thread(prism.record.copies, kind, name)
            leaving = prism.left_behind(applicable, copies, chosen)
            results = [*await to_each(colos, lambda colo: converger.converge(http, colo, wanted,
                                                                              copies.get(colo.name))),
                       *await to_each(leaving, lambda colo: converger.remove(http, colo, kind, name))]
            for result in results:
                lines[result.colo].append(f"{name}({kind}): {result.message}")
                failed[result.colo] = failed[result.colo] or result.status != ResultStatus.SUCCEEDED
            left = await asyncio.to_thread(prism.record.copies, kind, name)
            if wanted.schedule_state == DELETED and not left:  # dropped everywhere
                await asyncio.to_thread(prism.record.forget, kind, name)

        async with prism.forwarder.client() as http:
            for entity in everything:
                try:
                    async with prism.changing(entity.kind, entity.name, "sync"):
                        await sync_one(http, entity.kind, entity.name)
                except EntityBusy as busy:  # the running command brings the entity's colos to what it wants
                    for colo in await asyncio.to_thread(prism.colos_of, entity.kind, entity.name):
                        if colo in lines:
                            lines[colo].append(f"{entity.name}({entity.kind}): not synced: {busy}")
        summary = [ColoResult(colo, ResultStatus.FAILED if failed[colo] else ResultStatus.SUCCEEDED,
                              "; ".join(lines[colo]) or "nothing to sync") for colo in lines]
        return _api_result(request, merge_results(summary))

    return router


def create_prism_app(*, config: ServerConfig | None = None, verify_token: TokenVerifier | None = None,
                     record: Callable[[], PrismRecord] | None = None, forwarder: Forwarder | None = None) -> FastAPI:
    """The Prism. ``config`` defaults to Airflow's configuration of this process, ``record`` to the metadata
    database's tables."""
    from falcon_airflow.server import header_spelling
    from falcon_airflow.server.app import RequestIds, failure
    from falcon_airflow.server.prism import admin as prism_admin
    from falcon_airflow.server.prism import command_route

    config = config or AirflowConfig()
    settings = PrismSettings.from_config(config.get)
    authentication = AuthenticationSettings.from_config(config.get)
    header_spelling.install()
    app = FastAPI(title="Apache Falcon Prism (falcon-airflow)", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.prism = Prism(settings, record or airflow_record,
                            forwarder or Forwarder(settings.timeout, access=ColoAccess.from_config(config.get)))
    app.state.authentication = authentication.scheme

    async def unauthenticated(request: Request, problem: AuthenticationFailed) -> Response:
        response = failure(request, problem.message, problem.status)
        if problem.status == 401:
            response.headers["WWW-Authenticate"] = "PseudoAuth, Bearer" if authentication.scheme == SIMPLE \
                else "Bearer"
        return response

    @app.exception_handler(AuthenticationFailed)
    async def _authentication(request: Request, problem: AuthenticationFailed) -> Response:
        return await unauthenticated(request, problem)

    @app.exception_handler(PrismRefused)
    async def _refused(request: Request, problem: PrismRefused) -> Response:
        return _failure(request, problem.message)

    @app.exception_handler(Refused)  # a request the Prism checks as a server would (paging, orders)
    async def _refused_as_a_server_would(request: Request, problem: Refused) -> Response:
        return _failure(request, problem.message)

    for refusal in (ColoNotApplicable, UnknownCluster, DefinitionUnreadable, EntityBusy):
        async def _named(request: Request, problem: Exception) -> Response:
            return _failure(request, str(problem))

        app.add_exception_handler(refusal, _named)

    app.include_router(admin_router())
    app.include_router(prism_admin.router(config, settings.names, authentication.scheme))  # -stack, -config
    app.include_router(entity_router())
    app.include_router(instance_router())
    app.include_router(command_route.router())  # falcon-airflow's own command line
    app.add_middleware(AuthenticationMiddleware, authenticator=Authenticator(
        authentication, verify_token or airflow_token_caller), respond=unauthenticated)
    app.add_middleware(RequestIds)
    return app
