"""The console's SLA of an entity: what a feed (``slaLow``, ``slaHigh``) or a process (``shouldStartIn``,
``shouldEndIn``) declares, for the whole entity and on each cluster, and its instances that recently missed it.

``GET /console/api/sla/<type>/<name>`` answers once ``entity -definition`` says the caller may read the entity (the
same authorization and audit as the REST API). The misses are Falcon's own ``entity -slaAlert`` over the last
:data:`RECENT` (the SLA monitor DAGs' runs in Airflow), run for the caller as the REST API runs it; when Airflow
cannot tell, the declared SLA is still shown, with the reason the misses are not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.entities import Entity, EntityType, Feed, Process
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.console.acting import failed, off_loop, run_action
from falcon_airflow.server.console.routes import PREFIX, ConsoleError
from falcon_airflow.timekeeping import format_falcon_date

router = APIRouter(prefix=PREFIX)

RECENT = timedelta(days=7)
"""How far back the page looks for instances that missed their SLA."""
MAX_MISSES = 100
"""The newest misses the page lists."""


@dataclass(frozen=True)
class Declared:
    """One ``sla`` element: the entity's own (``cluster`` empty) or a cluster's; ``limits`` in Falcon's attribute
    names and frequency text (``("slaLow", "hours(1)")``)."""

    cluster: str
    limits: tuple[tuple[str, str], ...]

    def as_json(self) -> dict[str, Any]:
        return {"cluster": self.cluster or None, "limits": [{"name": key, "value": value}
                                                            for key, value in self.limits]}


def declared(entity: Entity) -> list[Declared]:
    """The SLAs an entity declares, its own first, then each cluster's in the order of its clusters."""
    found: list[Declared] = []
    if isinstance(entity, Feed):
        for cluster, sla in (("", entity.sla), *((item.name, item.sla) for item in entity.clusters)):
            if sla is not None:
                found.append(Declared(cluster, (("slaLow", str(sla.sla_low)), ("slaHigh", str(sla.sla_high)))))
    elif isinstance(entity, Process):
        for cluster, limits in (("", entity.sla), *((item.name, item.sla) for item in entity.clusters)):
            if limits is None:
                continue
            pairs = tuple((key, str(value)) for key, value in (("shouldStartIn", limits.should_start_in),
                                                               ("shouldEndIn", limits.should_end_in))
                          if value is not None)
            if pairs:
                found.append(Declared(cluster, pairs))
    return found


def newest_misses(instances: Sequence[dict[str, Any]], limit: int = MAX_MISSES) -> list[dict[str, str]]:
    """slaAlert's instances as the page lists them: newest first (then by cluster), at most ``limit``."""
    rows = [{"cluster": str(item.get("cluster", "")), "instanceTime": str(item.get("instanceTime", "")),
             "tag": str(item.get("tags", ""))} for item in instances]
    rows.sort(key=lambda row: (row["instanceTime"], row["cluster"]), reverse=True)
    return rows[:limit]


@router.get("/api/sla/{entity_type}/{name}")
async def entity_sla(request: Request, entity_type: str, name: str) -> Response:
    try:
        kind = EntityType(entity_type.lower())
    except ValueError:
        return JSONResponse({"error": f"unknown entity type: {entity_type}"}, status_code=400)
    try:
        # the definition first: it is the action that says whether the caller may read the entity at all
        await run_action(request, "entity", "definition", {"type": kind.value, "name": name})
    except ConsoleError as problem:
        return failed(problem)
    context: ServerContext = request.app.state.falcon
    stored = await off_loop(lambda: context.open_store().get(kind, name))
    found = declared(stored.entity) if stored is not None else []
    answer: dict[str, Any] = {"type": kind.value, "name": name, "applies": kind in (EntityType.FEED,
                                                                                   EntityType.PROCESS),
                              "declared": [item.as_json() for item in found], "misses": [], "missesError": None}
    if not found:
        return JSONResponse(answer)
    end = datetime.now(UTC)
    start = end - RECENT
    answer["window"] = {"start": format_falcon_date(start), "end": format_falcon_date(end)}
    try:
        missed = await run_action(request, "entity", "slaAlert", {"type": kind.value, "name": name,
                                                                  "start": format_falcon_date(start),
                                                                  "end": format_falcon_date(end)})
    except ConsoleError as problem:
        answer["missesError"] = problem.message
        return JSONResponse(answer)
    answer["misses"] = newest_misses(missed.payload.get("instances", []))
    return JSONResponse(answer)
