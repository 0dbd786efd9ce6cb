"""The two listings instance commands read most (a DAG's runs in a window and their task instances), read by the
server straight from the metadata database of the api-server it runs in.

Through the REST API the server would be a client of its own process: every run and task instance of a window turned
into Airflow's response models, into JSON, over HTTP and back, page by page. Here one query each gives the same rows,
as dicts with the REST API's field names and its JSON spelling of values (times as Airflow's responses write them),
so that what reads them cannot tell the two apart.

Only reads are served this way, and only when the server acts in Airflow as its own user (``[falcon] airflow_user``):
Falcon's server has then decided who may read, as it does for every request. A caller who brings an Airflow token
of their own is read through the REST API, so that Airflow's auth manager decides for that caller too. Every change
(pause, mark, clear) goes through the REST API whatever the mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import TypeAdapter

_TIME = TypeAdapter(datetime)
"""Airflow's responses are pydantic models: their times are written as pydantic writes a datetime in JSON."""


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return _TIME.dump_python(value, mode="json")
    if isinstance(value, Enum):
        return value.value
    return value


def _rows(result: Any) -> list[dict[str, Any]]:
    """The rows of ``result`` as dicts of the columns' values."""
    keys = list(result.keys())
    return [dict(zip(keys, row, strict=True)) for row in result]


def _as_json(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with their values as JSON values. Only the columns that hold a time or an enum are looked at value by
    value (a listing has thousands of rows)."""
    if not rows:
        return rows
    plain = {str, int, float, bool, dict, list, type(None)}  # exact types: a str enum is not plain
    special = [key for key in rows[0] if any(type(row[key]) not in plain for row in rows)]
    for row in rows:
        for key in special:
            row[key] = _json_value(row[key])
    return rows


def _session() -> Any:
    from airflow.utils.session import create_session

    return create_session()


def dag_runs(dag_id: str, *, first: datetime | None, last: datetime | None,
             states: Sequence[str] | None) -> list[dict[str, Any]]:
    """The DAG's runs whose logical date is in [first, last] (either open), in ``states`` if given, oldest first:
    the fields of ``GET /api/v2/dags/{dag_id}/dagRuns`` that are the run's own (not its DAG versions)."""
    from airflow.models.dagrun import DagRun, DagRunNote
    from sqlalchemy import select

    query = (select(DagRun.run_id.label("dag_run_id"), DagRun.dag_id, DagRun.logical_date, DagRun.queued_at,
                    DagRun.start_date, DagRun.end_date, DagRun.data_interval_start, DagRun.data_interval_end,
                    DagRun.run_after, DagRun.last_scheduling_decision, DagRun.run_type,
                    DagRun.__table__.c.state.label("state"), DagRun.triggered_by, DagRun.triggering_user_name,
                    DagRun.conf, DagRunNote.content.label("note"), DagRun.bundle_version)
             .outerjoin(DagRunNote, DagRunNote.dag_run_id == DagRun.id)
             .where(DagRun.dag_id == dag_id)
             .order_by(DagRun.logical_date, DagRun.id))
    if first is not None:
        query = query.where(DagRun.logical_date >= first)
    if last is not None:
        query = query.where(DagRun.logical_date <= last)
    if states:
        query = query.where(DagRun.__table__.c.state.in_(list(states)))
    with _session() as session:
        rows = _rows(session.execute(query))
    for row in rows:
        start, end = row["start_date"], row["end_date"]
        row["duration"] = (end - start).total_seconds() if start is not None and end is not None else None
    return _as_json(rows)


def runs_task_instances(dag_id: str, *, first: datetime, last: datetime) -> list[dict[str, Any]]:
    """The task instances of every run of the DAG whose logical date is in [first, last], in the order they were
    made: of the fields of ``GET /api/v2/dags/{dag_id}/dagRuns/~/taskInstances``, those an instance's status and
    actions are made of (a listing of a thousand runs has thousands of task instances; an action that needs more of
    them, their times or rendered fields, reads one run's task instances through the REST API)."""
    from airflow.models.dagrun import DagRun
    from airflow.models.taskinstance import TaskInstance
    from sqlalchemy import and_, select

    query = (select(TaskInstance.task_id, TaskInstance.dag_id, TaskInstance.run_id.label("dag_run_id"),
                    TaskInstance.map_index, TaskInstance.state, TaskInstance.try_number, TaskInstance.max_tries)
             .join(DagRun, and_(DagRun.dag_id == TaskInstance.dag_id, DagRun.run_id == TaskInstance.run_id))
             .where(TaskInstance.dag_id == dag_id, DagRun.logical_date >= first, DagRun.logical_date <= last)
             .order_by(TaskInstance.id))
    with _session() as session:
        return _as_json(_rows(session.execute(query)))


def dags(prefix: str) -> list[dict[str, Any]]:
    """The DAGs whose id starts with ``prefix``, stale ones too, by id: of the fields of ``GET /api/v2/dags``, the
    DAG's own columns (``dag_id``, ``dag_display_name``, ``is_paused``, ``is_stale``, ``fileloc``,
    ``relative_fileloc``, ``bundle_name``, ``bundle_version``) - what an entity's status reads of its DAGs. One query
    for 10,000 DAGs, where the REST API answers a page of 100 at a time by default."""
    from airflow.models.dag import DagModel
    from sqlalchemy import select

    table = DagModel.__table__.c
    query = (select(table.dag_id, table.dag_display_name, table.is_paused, table.is_stale, table.fileloc,
                    table.relative_fileloc, table.bundle_name, table.bundle_version)
             .where(table.dag_id.startswith(prefix, autoescape=True))
             .order_by(table.dag_id))
    with _session() as session:
        rows = _rows(session.execute(query))
    for row in rows:
        row["dag_display_name"] = row["dag_display_name"] or row["dag_id"]
        row["is_paused"] = bool(row["is_paused"])
        row["is_stale"] = bool(row["is_stale"])
    return rows
