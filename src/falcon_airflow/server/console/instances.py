"""The console's instance views: a feed's grid of instance times x clusters, a process's instances.

``GET /console/api/instances/feed/<name>?start=&end=`` runs, for the caller, ``instance -listing`` (what is on
each cluster's storage), ``instance -status -lifecycle REPLICATION,IMPORT,EXPORT`` (the runs that brought an
instance to a cluster or took it out), ``instance -status -lifecycle EVICTION`` (the retention runs, whose reports
name what they evicted) and, for a feed with an SLA, ``entity -slaAlert``; :mod:`.feed_grid` makes the cells.

``GET /console/api/instances/process/<name>?start=&end=`` runs ``instance -status`` (state, Falcon's run number,
the reason a waiting instance waits) and ``instance -logs`` (each task's try and the link to its log in Airflow's
UI), and for each waiting instance ``instance -triage``: the walk up its missing inputs to the root cause.

Without ``start`` the window is the last :data:`DEFAULT_INSTANCES` instance times up to ``end`` (else now), as
Falcon's ``-numResults`` counts them.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.entities import EntityType, Feed, Process
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.operate.airflow_api import AirflowClient, AirflowError
from falcon_airflow.operate.lifecycles import Lifecycle, entity_dags
from falcon_airflow.operate.options import parse_time
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.operate.runs import parse_api_time, window
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.console.acting import airflow_client, failed, off_loop, run_action, ui_link
from falcon_airflow.server.console.feed_grid import Eviction, build_grid, evictions
from falcon_airflow.server.console.routes import PREFIX, ConsoleError
from falcon_airflow.timekeeping import format_falcon_date

router = APIRouter(prefix=PREFIX)

DEFAULT_INSTANCES = 24
"""Instance times a view shows when no ``start`` is given."""
MAX_TRIAGED = 10
"""Waiting instances a process view walks up (each walk reads Airflow and storage)."""
MAX_RETENTION_REPORTS = 100
"""Retention runs whose reports a feed grid reads, newest first."""
ALL = "100000"
"""``-numResults`` for a window: every instance of it (the window bounds the listing, not a page size)."""
RETENTION_TASK = "retention"


def _stored(request: Request, kind: EntityType, name: str) -> Feed | Process | None:
    context: ServerContext = request.app.state.falcon
    stored = context.open_store().workspace().get(kind, name)
    return stored if isinstance(stored, (Feed, Process)) else None


def _window(request: Request, entity: Feed | Process | None) -> tuple[str, str] | None:
    """The view's window as Falcon times (``None``: the entity is not known, the actions will say so)."""
    given = {key: (request.query_params.get(key) or "").strip() for key in ("start", "end")}
    try:
        start, end = (parse_time(given[key]) if given[key] else None for key in ("start", "end"))
    except Refused as wrong:
        raise ConsoleError(wrong.message, 400) from None
    if entity is None:
        return None
    try:
        first, last = window(entity, start, end, DEFAULT_INSTANCES, datetime.now().astimezone())
    except Refused as wrong:
        raise ConsoleError(wrong.message, 400) from None
    return format_falcon_date(first), format_falcon_date(last)


def _entity_values(kind: EntityType, name: str, bounds: tuple[str, str] | None) -> dict[str, Any]:
    values: dict[str, Any] = {"type": kind.value, "name": name, "num_results": ALL}
    if bounds is not None:
        values.update(start=bounds[0], end=bounds[1])
    return values


# -- a feed ------------------------------------------------------------------------------------------------------

def _report(client: AirflowClient, dag_id: str, run_id: str) -> Mapping[str, Any]:
    """The report a retention run's task returned (its XCom), as the job wrote it."""
    segment = "/".join(part.replace("/", "%2F") for part in (dag_id, "dagRuns", run_id))
    try:
        entry = client.request("GET", f"/dags/{segment}/taskInstances/{RETENTION_TASK}/xcomEntries/return_value")
    except AirflowError as problem:
        if problem.status == 404:
            return {}  # the run's task returned nothing (a dry run, a failed job)
        raise
    value = entry.get("value") if isinstance(entry, dict) else None
    for _ in range(2):  # the stored value is JSON text, which a backend may have written as a JSON string again
        if not isinstance(value, str):
            break
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, Mapping) else {}


def _evictions(request: Request, client: AirflowClient, runs: Sequence[Mapping[str, Any]]) -> list[Eviction]:
    done = sorted((run for run in runs if run.get("status") == "SUCCEEDED"),
                  key=lambda run: str(run.get("instance")), reverse=True)[:MAX_RETENTION_REPORTS]
    found: list[Eviction] = []
    for run in done:
        report = _report(client, str(run["dagId"]), str(run["dagRunId"]))
        found += evictions(str(run["cluster"]), str(run["dagRunId"]), run.get("endTime"),
                           ui_link(request, client, run.get("logFile")), report)
    return found


async def _feed(request: Request, name: str) -> dict[str, Any]:
    feed = await off_loop(lambda: _stored(request, EntityType.FEED, name))
    bounds = _window(request, feed)
    values = _entity_values(EntityType.FEED, name, bounds)
    listing = await run_action(request, "instance", "listing", {
        key: value for key, value in values.items() if key != "num_results"})
    assert isinstance(feed, Feed) and bounds is not None  # the listing found it
    made = {ref.lifecycle for ref in entity_dags(feed)}
    moved = [item.value for item in (Lifecycle.REPLICATION, Lifecycle.IMPORT, Lifecycle.EXPORT) if item in made]
    runs = (await run_action(request, "instance", "status", {**values, "lifecycle": ",".join(moved)})
            ).payload.get("instances", []) if moved else []
    retention: list[dict[str, Any]] = []
    if Lifecycle.EVICTION in made:
        # a retention run evicts instances older than its time minus the limit: the runs since the window began
        now = format_falcon_date(datetime.now().astimezone())
        since = {**values, "lifecycle": Lifecycle.EVICTION.value, "end": now}
        retention = (await run_action(request, "instance", "status", since)).payload.get("instances", [])
    client = airflow_client(request)
    try:
        evicted = await off_loop(lambda: _evictions(request, client, retention))
    except AirflowError as problem:
        raise ConsoleError(f"the retention reports could not be read from Airflow: {problem.message}", 502) from None
    late: list[tuple[str, str]] = []
    if any(feed.sla_for(placement) is not None for placement in feed.clusters):
        missed = await run_action(request, "entity", "slaAlert", {"type": "feed", "name": name, "start": bounds[0],
                                                                   "end": bounds[1]})
        late = [(str(item["cluster"]), str(item["instanceTime"])) for item in missed.payload.get("instances", [])]
    for run in runs:
        run["logFile"] = ui_link(request, client, run.get("logFile"))
    grid = build_grid([placement.name for placement in feed.clusters], listing.payload.get("instances", []), runs,
                      evicted, late, bounds)
    notes = [line for line in (listing.text or "").split("\n\n", 1)[1:] for line in line.splitlines() if line]
    return {"type": "feed", "name": name, **grid, "notes": notes}


# -- a process ---------------------------------------------------------------------------------------------------

def _durations(client: AirflowClient, dags: Sequence[str], bounds: tuple[str, str]) -> dict[tuple[str, str], Any]:
    """Each run's start, end and duration in seconds, from Airflow's runs of the window (Falcon's times are
    minutes)."""
    first, last = (parse_time(item) for item in bounds)
    found: dict[tuple[str, str], Any] = {}
    for dag_id in dags:
        for run in client.runs(dag_id, first=first, last=last):
            start, end = parse_api_time(run.get("start_date")), parse_api_time(run.get("end_date"))
            found[(dag_id, str(run.get("dag_run_id")))] = {
                "started": run.get("start_date"), "ended": run.get("end_date"),
                "duration": (end - start).total_seconds() if start is not None and end is not None else None}
    return found


def _succeeded_for(client: AirflowClient, dag_id: str, run_id: str, started: str) -> float | None:
    """Seconds from the run's start to the end of its last succeeded task."""
    start = parse_api_time(started)
    try:
        ends = [parse_api_time(ti.get("end_date")) for ti in client.task_instances(dag_id, run_id)
                if ti.get("state") == "success" and ti.get("end_date")]
    except AirflowError:
        return None
    found = [end for end in ends if end is not None]
    return max(0.0, (max(found) - start).total_seconds()) if found and start is not None else None


def _tasks(request: Request, client: AirflowClient, logged: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return [{"task": action.get("action"), "status": action.get("status"), "try": action.get("tryNumber"),
             "log": ui_link(request, client, action.get("logFile"))}
            for action in (logged or {}).get("actions", [])]


async def _triage(request: Request, name: str, instance: str, cluster: str) -> dict[str, Any] | None:
    try:
        walked = await run_action(request, "instance", "triage", {"type": "process", "name": name,
                                                                    "start": instance})
    except ConsoleError as problem:
        return {"error": problem.message}
    nodes = [node for node in walked.payload.get("triage", []) if node.get("cluster") == cluster]
    return {"graph": nodes[0] if nodes else None, "text": walked.text}


async def _process(request: Request, name: str) -> dict[str, Any]:
    process = await off_loop(lambda: _stored(request, EntityType.PROCESS, name))
    bounds = _window(request, process)
    values = _entity_values(EntityType.PROCESS, name, bounds)
    status = (await run_action(request, "instance", "status", values)).payload.get("instances", [])
    logs = (await run_action(request, "instance", "logs", values)).payload.get("instances", [])
    assert isinstance(process, Process) and bounds is not None
    client = airflow_client(request)
    by_run = {(item.get("dagId"), item.get("dagRunId")): item for item in logs}
    try:
        times = await off_loop(lambda: _durations(client, sorted({str(item["dagId"]) for item in status}), bounds))
    except (AirflowError, FalconAirflowError) as problem:
        raise ConsoleError(f"the runs could not be read from Airflow: {getattr(problem, 'message', problem)}",
                           502) from None
    rows = []
    triaged = 0
    for item in sorted(status, key=lambda entry: (str(entry["instance"]), str(entry["cluster"])), reverse=True):
        key = (item.get("dagId"), item.get("dagRunId"))
        row = {"instance": item["instance"], "cluster": item["cluster"], "status": item["status"],
               "run": item.get("runId"), "startTime": item.get("startTime"), "endTime": item.get("endTime"),
               **times.get((str(key[0]), str(key[1])), {"duration": None}),
               "details": item.get("details"), "dagId": item.get("dagId"), "dagRunId": item.get("dagRunId"),
               "url": ui_link(request, client, item.get("logFile")), "tasks": _tasks(request, client, by_run.get(key))}
        if row["duration"] is None and row.get("started") and item["status"] == "SUCCEEDED":
            # the run goes on after the instance ended (a late-data sensor waits for late files): the instance
            # ended when the last of its tasks that succeeded did
            row["duration"] = await off_loop(functools.partial(_succeeded_for, client, str(key[0]), str(key[1]),
                                                               str(row["started"])))
        if item["status"] == "WAITING" and triaged < MAX_TRIAGED:
            triaged += 1
            row["triage"] = await _triage(request, name, str(item["instance"]), str(item["cluster"]))
        rows.append(row)
    return {"type": "process", "name": name, "start": bounds[0], "end": bounds[1],
            "clusters": [placement.name for placement in process.clusters], "instances": rows}


@router.get("/api/instances/{entity_type}/{name}")
async def instances(request: Request, entity_type: str, name: str) -> Response:
    kind = entity_type.lower()
    if kind not in ("feed", "process"):
        return JSONResponse({"error": f"instances are kept for feeds and processes, not {entity_type}"},
                            status_code=400)
    try:
        answer = await (_feed(request, name) if kind == "feed" else _process(request, name))
    except ConsoleError as problem:
        return failed(problem)
    return JSONResponse(answer)
