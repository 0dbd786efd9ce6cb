"""``entity -slaAlert``: the instances of a feed or process that missed their SLA in a time window, as Falcon's
``SchedulableEntityInstanceResult`` (one line per instance and cluster, tagged ``Missed SLA Low`` or ``Missed SLA
High``).

The record is Airflow's own: the SLA monitor DAG of the entity on each cluster has one run per instance, and its
``missed_<sla>`` task succeeds exactly when that SLA was missed (:mod:`falcon_airflow.dags.sla`). An instance that
missed both is tagged High, as Falcon reported the worse. Unlike Falcon's service, which forgot an instance once it
arrived, an instance that arrived late is still listed: the miss happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from falcon_airflow.compiler.common import sla_dag_id
from falcon_airflow.entities import EntityType, Feed, Process
from falcon_airflow.notifications.sla import HIGH_TAG, LOW_TAG
from falcon_airflow.operate import options as rules
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, succeeded
from falcon_airflow.operate.runs import tis_by_run
from falcon_airflow.timekeeping import format_falcon_date, parse_falcon_date

HIGH_TASKS = ("missed_slaHigh", "missed_shouldEndIn")
LOW_TASKS = ("missed_slaLow", "missed_shouldStartIn")


def _declares_sla(entity: Feed | Process) -> bool:
    if isinstance(entity, Feed):
        return any(entity.sla_for(placement) is not None for placement in entity.clusters)
    return entity.sla is not None or any(placement.sla is not None for placement in entity.clusters)


def _tag(states: dict[str, Any]) -> str | None:
    if any(states.get(task) == "success" for task in HIGH_TASKS):
        return HIGH_TAG
    if any(states.get(task) == "success" for task in LOW_TASKS):
        return LOW_TAG
    return None


def _chosen(context: Context, entity_type: EntityType, name: str | None) -> list[Feed | Process]:
    """The entity named, or (no ``-name``, as Falcon's CLI allows) every entity of the type."""
    if name:
        stored = context.store.get(entity_type, name)
        if stored is None:
            raise Refused(f"{name} ({entity_type.value}) not found")
        chosen = [stored.entity]
    else:
        chosen = sorted((item.entity for item in context.store.entities() if item.entity.entity_type is entity_type),
                        key=lambda entity: entity.name)
    return [entity for entity in chosen if isinstance(entity, Feed | Process)]


def missed_line(item: Mapping[str, Any]) -> str:
    """One missed instance as ``entity -slaAlert`` prints it (Falcon's ``SchedulableEntityInstance``'s fields)."""
    return (f"name: {item['entityName']}, type: {item['entityType']}, cluster: {item['cluster']}, "
            f"instanceTime: {item['instanceTime']}, tags: {item['tags']}")


def sla_alert(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    entity_type = rules.entity_type(given)
    if entity_type not in (EntityType.FEED, EntityType.PROCESS):
        raise Refused(f"slaAlert is only supported for feeds and processes, not {given}", usage=True)
    name = options.text("name")
    start = options.time("start")
    if start is None:
        raise Refused("slaAlert needs -start (the first instance time to look at)", usage=True)
    end = options.time("end") or context.now()
    if end < start:
        raise Refused(f"-end {format_falcon_date(end)} is before -start {format_falcon_date(start)}")
    entities = [entity for entity in _chosen(context, entity_type, name) if _declares_sla(entity)]
    if name and not entities:
        return succeeded(f"({entity_type.value}) {name} declares no SLA", instances=[])
    wanted = set(rules.names(options.text("clusters")))
    client = context.airflow()
    found: list[dict[str, str]] = []
    for entity in entities:
        for placement in entity.clusters:
            if wanted and placement.name not in wanted:
                continue
            dag_id = sla_dag_id(entity_type.value, entity.name, placement.name)
            runs = client.runs(dag_id, first=start, last=end)
            listed = tis_by_run(client.runs_task_instances(dag_id, first=start, last=end)) if runs else {}
            for run in runs:
                states = {str(item.get("task_id")): item.get("state")
                          for item in listed.get(str(run["dag_run_id"]), [])}
                tag = _tag(states)
                if tag is None:
                    continue
                moment = parse_falcon_date(str(run.get("logical_date") or run.get("data_interval_start"))
                                           .replace("+00:00", "Z")[:16] + "Z")
                found.append({"entityName": entity.name, "entityType": entity_type.value.upper(),
                              "cluster": placement.name, "instanceTime": format_falcon_date(moment), "tags": tag})
    found.sort(key=lambda item: (item["entityName"], item["cluster"], item["instanceTime"]))
    lines = [missed_line(item) for item in found]
    subject = f"({entity_type.value}) {name}" if name else f"any {entity_type.value}"
    message = (f"{len(found)} instance(s) of {subject} missed their SLA" if found
               else f"No instance of {subject} missed its SLA between {format_falcon_date(start)} "
                    f"and {format_falcon_date(end)}")
    return succeeded(message, text="\n".join(lines) if lines else message, instances=found)
