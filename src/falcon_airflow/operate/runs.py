"""An entity's instances as Airflow sees them: the DAG runs in a time window, each with its Falcon status.

An instance is the run whose logical date is the instance time. When an instance has several runs (a scheduled
run and manual ones), the latest queued one stands for it; ``-allAttempts`` shows all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from falcon_airflow.entities import Entity, Feed, Process
from falcon_airflow.operate.airflow_api import AirflowClient, AirflowError
from falcon_airflow.operate.lifecycles import DagRef
from falcon_airflow.operate.options import parse_time
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.operate.states import (
    InstanceStatus,
    failed_sensors,
    instance_status,
    log_shows_timeout,
    marked_failed,
    run_id_number,
    valid_marker,
)
from falcon_airflow.timekeeping import TimeUnit, format_falcon_date

DEFAULT_NUM_RESULTS = 10
_FIXED_UNITS = {TimeUnit.MINUTES: timedelta(minutes=1), TimeUnit.HOURS: timedelta(hours=1),
                TimeUnit.DAYS: timedelta(days=1), TimeUnit.MONTHS: timedelta(days=30)}


def parse_api_time(value: Any) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def validity_bounds(entity: Entity) -> tuple[datetime, datetime]:
    """The earliest validity start and the latest validity end over the entity's clusters."""
    if isinstance(entity, (Feed, Process)):
        starts = [item.validity.start for item in entity.clusters]
        ends = [item.validity.end for item in entity.clusters]
        return min(starts), max(ends)
    raise Refused("Instance management functions don't apply to Cluster entities")


def window(entity: Entity, start: datetime | None, end: datetime | None, num_results: int | None,
           now: datetime) -> tuple[datetime, datetime]:
    """Falcon's instance window: end = -end or now, at most the validity end; start = -start or end minus
    numResults (default 10) frequencies (a month counted as 30 days), at least the validity start."""
    assert isinstance(entity, (Feed, Process))
    first_valid, last_valid = validity_bounds(entity)
    last = min(end or now, last_valid)
    if start is None:
        count = num_results if num_results is not None and num_results > 0 else DEFAULT_NUM_RESULTS
        first = last - _FIXED_UNITS[entity.frequency.unit] * entity.frequency.count * count
    else:
        first = start
    first = max(first, first_valid)
    if first > last:
        raise Refused(f"Specified End date {format_falcon_date(last)} is before the entity was scheduled "
                      f"{format_falcon_date(first)}")
    return first, last


@dataclass
class InstanceRecord:
    """One instance (one run) of one DAG of an entity."""

    ref: DagRef
    instance: datetime
    run: dict[str, Any]
    tis: list[dict[str, Any]]
    status: InstanceStatus
    attempts: int = 1
    details: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return str(self.run.get("dag_run_id"))

    @property
    def started(self) -> datetime | None:
        return parse_api_time(self.run.get("start_date"))

    @property
    def ended(self) -> datetime | None:
        return parse_api_time(self.run.get("end_date"))

    def task(self, task_id: str) -> dict[str, Any] | None:
        return next((ti for ti in self.tis if ti.get("task_id") == task_id), None)

    def as_json(self, client: AirflowClient) -> dict[str, Any]:
        """Falcon's ``InstancesResult.Instance`` fields, plus the Airflow ids."""
        started, ended = self.started, self.ended
        actions = [{"action": ti.get("task_id"), "status": str(ti.get("state") or "none").upper(),
                    "logFile": client.task_url(self.ref.dag_id, self.run_id, str(ti.get("task_id")),
                                               int(ti.get("try_number") or 0) or None)}
                   for ti in self.tis]
        document = {"instance": format_falcon_date(self.instance), "status": self.status.value,
                    "cluster": self.ref.cluster, "sourceCluster": self.ref.source_cluster,
                    "lifecycle": self.ref.lifecycle.value,
                    "startTime": format_falcon_date(started) if started else None,
                    "endTime": format_falcon_date(ended) if ended else None,
                    "runId": run_id_number(self.tis), "details": self.details or None,
                    "logFile": client.run_url(self.ref.dag_id, self.run_id),
                    "dagId": self.ref.dag_id, "dagRunId": self.run_id, "actions": actions}
        document.update(self.extra)
        return document


def latest(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return max(runs, key=lambda run: (str(run.get("queued_at") or ""), str(run.get("run_after") or "")))


def group_by_instance(runs: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        if run.get("logical_date"):
            grouped.setdefault(str(run["logical_date"]), []).append(run)
    return grouped


def assess(client: AirflowClient, ref: DagRef, run: dict[str, Any], tis: list[dict[str, Any]] | None = None,
           attempts: int = 1) -> InstanceRecord:
    """The Falcon status of one run, reading what the status depends on (task instances; for failed runs the
    event log and, when an input sensor failed, its log)."""
    tis = client.task_instances(ref.dag_id, str(run["dag_run_id"])) if tis is None else tis
    marked = timed_out = False
    details = ""
    if run.get("state") == "failed" and valid_marker(run) is None:
        for sensor in failed_sensors(tis):
            tries = int(sensor.get("try_number") or 0)
            if tries < 1:
                continue
            try:
                log = client.task_log(ref.dag_id, str(run["dag_run_id"]), str(sensor["task_id"]), tries)
            except AirflowError:
                continue
            if log_shows_timeout(log):
                timed_out = True
                details = f"{sensor['task_id']} timed out"
                break
        if not timed_out:
            try:
                marked = marked_failed(run, client.event_logs(ref.dag_id, str(run["dag_run_id"]),
                                                              ["patch_dag_run"]))
            except AirflowError:
                marked = False
    instance = parse_api_time(run.get("logical_date"))
    assert instance is not None
    status = instance_status(run, tis, marked=marked, timed_out=timed_out)
    if not details:
        note = str(run.get("note") or "").splitlines()
        details = note[0] if note and status in (InstanceStatus.KILLED, InstanceStatus.SUSPENDED) else ""
    return InstanceRecord(ref, instance, run, tis, status, attempts, details)


def tis_by_run(task_instances: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Task instances grouped by their run, each run's in the order Airflow lists one run's (by map index)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for ti in task_instances:
        grouped.setdefault(str(ti.get("dag_run_id")), []).append(ti)
    return {run_id: sorted(tis, key=lambda ti: int(ti.get("map_index") or 0)) for run_id, tis in grouped.items()}


def collect(client: AirflowClient, refs: Sequence[DagRef], first: datetime, last: datetime, *,
            all_attempts: bool = False, states: Sequence[str] | None = None) -> list[InstanceRecord]:
    """Every instance of these DAGs whose time is in [first, last], oldest first.

    The task instances of every run of the window are read in one listing per DAG; only when ``states`` picks some
    of the window's runs (the running ones of a whole validity) are they read run by run."""
    records: list[InstanceRecord] = []
    for ref in refs:
        grouped = group_by_instance(client.runs(ref.dag_id, first=first, last=last, states=states))
        chosen: list[tuple[dict[str, Any], int]] = []  # (run, how many runs its instance has)
        for _, runs in sorted(grouped.items()):
            picked = sorted(runs, key=lambda run: str(run.get("queued_at") or "")) if all_attempts \
                else [latest(runs)]
            chosen.extend((run, len(runs)) for run in picked)
        listed = tis_by_run(client.runs_task_instances(ref.dag_id, first=first, last=last)) \
            if states is None and len(chosen) > 1 else None
        records.extend(assess(client, ref, run, None if listed is None else listed.get(str(run["dag_run_id"]), []),
                              attempts=attempts) for run, attempts in chosen)
    return sorted(records, key=lambda record: (record.instance, record.ref.dag_id))


def apply_filters(records: list[InstanceRecord], filters: Mapping[str, list[str]]) -> list[InstanceRecord]:
    """Falcon's instance ``-filterBy`` (STATUS, CLUSTER, SOURCECLUSTER: any value matches, case-insensitive;
    STARTEDAFTER: started at or after the earliest value)."""
    kept = []
    for record in records:
        keep = True
        for key, values in filters.items():
            wanted = {value.lower() for value in values}
            if key == "STATUS":
                keep = record.status.value.lower() in wanted
            elif key == "CLUSTER":
                keep = record.ref.cluster.lower() in wanted
            elif key == "SOURCECLUSTER":
                keep = (record.ref.source_cluster or "").lower() in wanted
            elif key == "STARTEDAFTER":
                earliest = min(parse_time(value) for value in values)
                keep = record.started is not None and record.started >= earliest
            if not keep:
                break
        if keep:
            kept.append(record)
    return kept


def descending(order: str | None, direction: str | None, start_given: bool) -> bool:
    """Whether Falcon's instance orders run backwards: as ``direction`` says; else start and end times newest first
    and status and cluster ascending; without an order, newest first unless -start was given."""
    if direction is not None:
        return direction == "desc"
    if order is None:
        return not start_given
    return order in ("starttime", "endtime")


def sort_records(records: list[InstanceRecord], order: str | None, direction: str | None,
                 start_given: bool) -> list[InstanceRecord]:
    """Falcon's orders (status, cluster, starttime, endtime); without one, newest first unless -start was given."""
    backwards = descending(order, direction, start_given)
    if order is None:
        if direction is None:  # collected oldest first
            return list(reversed(records)) if backwards else records
        return sorted(records, key=lambda record: record.instance, reverse=backwards)
    epoch = datetime.min.replace(tzinfo=first_tz(records))

    def key(record: InstanceRecord) -> Any:
        if order == "status":
            return record.status.value
        if order == "cluster":
            return record.ref.cluster
        if order == "starttime":
            return record.started or epoch
        return record.ended or epoch

    return sorted(records, key=key, reverse=backwards)


def first_tz(records: Sequence[InstanceRecord]) -> Any:
    return records[0].instance.tzinfo if records else None


def page(items: list[Any], offset: int, num_results: int | None) -> list[Any]:
    """Falcon's pagination: numResults must be > 0; an offset past the end gives nothing."""
    if num_results is not None and num_results < 1:
        raise Refused(f"Value for param numResults should be > than 0  : {num_results}")
    start = max(0, offset)
    return items[start:start + num_results] if num_results is not None else items[start:]
