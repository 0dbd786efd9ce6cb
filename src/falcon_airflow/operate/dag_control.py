"""The entity's DAGs in Airflow: which it has, the entity's status from them, pausing, killing, deleting and asking
Airflow to re-parse the store. Shared by the entity actions, their journal steps and the extension jobs."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from falcon_airflow.entities import Entity, EntityType, Feed, Process
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.config_store import iso
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.lifecycles import dag_prefixes
from falcon_airflow.operate.states import EntityStatus, entity_status, marker_line, with_marker

POLL_SECONDS = 2.0
DROP_RETRY_SECONDS = 15.0


def _validities(entity: Entity) -> list[datetime]:
    if isinstance(entity, (Feed, Process)):
        return [item.validity.end for item in entity.clusters]
    return []


def airflow_dags(context: Context, entity_type: EntityType, name: str) -> dict[str, dict[str, Any]]:
    """The DAGs Airflow has for an entity (every id it ever had), by id."""
    found: dict[str, dict[str, Any]] = {}
    for prefix in dag_prefixes(entity_type, name):
        found.update({str(dag["dag_id"]): dag for dag in context.airflow().dags(prefix)})
    return found


def status_of(context: Context, entity: Entity, dags: Mapping[str, Mapping[str, Any]] | None = None,
              schedule_states: Mapping[tuple[str, str], str] | None = None
              ) -> tuple[EntityStatus, list[dict[str, Any]]]:
    """The entity's status and, per DAG of its definition, whether Airflow has it and whether it is paused;
    ``dags`` and ``schedule_states`` (the store's, by type and name), when given, are read for many entities at
    once."""
    if not entity.entity_type.schedulable:
        return EntityStatus.SUBMITTED, []
    known = dags if dags is not None else airflow_dags(context, entity.entity_type, entity.name)
    rows = []
    paused = []
    for ref in context.entity_dags(entity):
        dag = known.get(ref.dag_id)
        rows.append({"dagId": ref.dag_id, "lifecycle": ref.purpose, "cluster": ref.cluster,
                     "exists": dag is not None, "paused": None if dag is None else bool(dag.get("is_paused"))})
        if dag is not None:
            paused.append(bool(dag.get("is_paused")))
    ended = all(end <= context.now() for end in _validities(entity)) if _validities(entity) else False
    state = (schedule_states.get((entity.entity_type.value, entity.name)) if schedule_states is not None
             else context.store.schedule_state(entity.entity_type, entity.name))
    return entity_status(paused, state, all_ended=ended), rows


def reparse(context: Context) -> str | None:
    """Ask Airflow to re-parse the DAG file that holds the falcon DAGs now; a note when it cannot. A store whose
    changes reach Airflow through the store's DAG bundle needs no request: a parse of the file would read the
    revision laid out before, and the bundle's refresh lays out and parses the new one by itself."""
    if not context.store.reparse_on_change:
        return None
    client = context.airflow()
    dags = [dag for dag in client.dags("falcon.") if not dag.get("is_stale")]
    if not dags:
        return "Airflow has no falcon DAG yet: the dag-processor picks the store up on its next scan"
    token = client.dag_details(str(dags[0]["dag_id"])).get("file_token")
    if not token:
        return "Airflow gave no file token: the dag-processor picks the change up on its next scan"
    client.request_reparse(str(token))
    return None


def _poll(items: Sequence[str], pending: Callable[[list[str]], list[str]], wait: float) -> list[str]:
    """Call ``pending`` with the items still pending (all of them first) every few seconds, at most ``wait``
    seconds, until it says none is; returns those still pending."""
    remaining = list(items)
    deadline = time.monotonic() + wait
    while True:
        remaining = pending(remaining)
        if not remaining or time.monotonic() >= deadline:
            return remaining
        time.sleep(max(0.0, min(POLL_SECONDS, deadline - time.monotonic())))


def set_paused(context: Context, dag_ids: Sequence[str], paused: bool, *, wait: float) -> list[str]:
    """Pause or unpause these DAGs, waiting at most ``wait`` seconds for Airflow to register missing ones
    (asking for a re-parse once). Returns the DAGs still missing."""
    client = context.airflow()
    asked = False

    def missing(remaining: list[str]) -> list[str]:
        nonlocal asked
        still = []
        for dag_id in remaining:
            dag = client.dag(dag_id)
            if dag is None:
                still.append(dag_id)
            elif bool(dag.get("is_paused")) != paused:
                client.set_paused(dag_id, paused)
        if still and not asked:  # ask once for a parse of the store, then wait (when allowed to)
            asked = True
            try:
                reparse(context)
            except AirflowError as problem:
                context.warnings.append(f"could not ask Airflow to re-parse: {problem.message}")
        return still

    return _poll(dag_ids, missing, wait)


def _parsed_since(dag: Mapping[str, Any], since: datetime, revision: int | None) -> bool:
    """Whether Airflow's record of a DAG comes from a parse of the store as changed: for the store's bundle, a
    parse of that revision or a later one (a parse already under way at the change read the one before); for DAG
    files, a parse that ended after the change."""
    version = str(dag.get("bundle_version") or "")
    if revision is not None and version.isdigit():
        return int(version) >= revision
    parsed = dag.get("last_parsed_time")
    if not parsed:
        return False
    return datetime.fromisoformat(str(parsed)) > since


def wait_until_parsed(context: Context, dag_ids: Sequence[str], *, since: datetime, wait: float) -> list[str]:
    """Wait at most ``wait`` seconds for Airflow to have parsed these DAGs from the store as it is now (what the
    scheduler creates runs from). Returns the DAGs Airflow has that still come from before; DAGs it does not have
    are not waited for (no run can be made of them)."""
    client = context.airflow()
    revision = context.store.bundle_revision()

    def unparsed(remaining: list[str]) -> list[str]:
        return [dag_id for dag_id in remaining
                if (dag := client.dag(dag_id)) is not None and not _parsed_since(dag, since, revision)]

    return _poll(dag_ids, unparsed, wait)


def kill_active_runs(context: Context, dag_id: str, reason: str) -> int:
    """Mark the DAG's queued and running runs failed with a KILLED note (running tasks are stopped)."""
    client = context.airflow()
    killed = 0
    for item in client.runs(dag_id, states=["queued", "running"]):
        line = marker_line("KILLED", item.get("queued_at"), context.user, iso(), reason)
        client.patch_run(dag_id, str(item["dag_run_id"]), state="failed", note=with_marker(item.get("note"), line))
        killed += 1
    return killed


def drop_dag(context: Context, dag_id: str) -> None:
    """Delete a DAG from Airflow (its runs too); waits a little while killed tasks are still stopping."""
    client = context.airflow()
    deadline = time.monotonic() + (0.0 if context.recovering else DROP_RETRY_SECONDS)
    while True:
        try:
            client.delete_dag(dag_id)
            return
        except AirflowError as problem:
            if problem.status != 409 or time.monotonic() >= deadline:
                raise
        time.sleep(1.0)


def pending_message(missing_dags: Sequence[str]) -> str:
    return (f"Airflow has not registered DAG(s) {', '.join(missing_dags)} yet; the next falcon-airflow command "
            "finishes this once the dag-processor has parsed the store")
