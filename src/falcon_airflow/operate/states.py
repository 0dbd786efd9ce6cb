"""Airflow run and task-instance states as Falcon instance and entity statuses (pure functions, no I/O).

Instance status, from the DAG run of the instance and its task instances (first rule that applies):

==========================================================================  =========
run failed, note carries a valid ``SUSPENDED`` marker (instance -suspend)  SUSPENDED
run failed, note carries a valid ``KILLED`` marker (instance -kill)        KILLED
run failed, an input sensor (``wait_for_*``) failed on its timeout          TIMEDOUT
run failed because someone marked it failed (UI/REST, after it was queued)  KILLED
run failed                                                                   FAILED
run success, ``last_only`` skipped (LAST_ONLY superseded the instance)      SKIPPED
run success                                                                  SUCCEEDED
queued/running: a non-sensor task failed (the run is about to fail)        FAILED (TIMEDOUT for a sensor)
queued/running: a work task runs, is queued, retries or is deferred        RUNNING
queued/running: work done, only ``late_data`` watching for late input      SUCCEEDED
queued/running: an input sensor has not succeeded yet                      WAITING
queued/running: inputs there, the work task not started (no free slot)     READY
queued/running: nothing started                                             WAITING
anything else                                                                UNDEFINED
==========================================================================  =========

A marker is a line ``[falcon-airflow] KILLED ... (queued <queued_at>)`` the commands put at the top of the run's
note; it is valid only while the run's ``queued_at`` is the one it names, so a run cleared since (rerun, resume)
never shows a stale state. A user's own note is kept below the marker.

Entity status: RUNNING when one of its DAGs is unpaused (whoever unpaused it); SUSPENDED when all of them are
paused and it was scheduled before; SUBMITTED otherwise (never scheduled, or its DAGs are not in Airflow yet);
COMPLETED instead of RUNNING/SUSPENDED once every validity of the entity has ended.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

MARKER = "[falcon-airflow]"
NOTE_LIMIT = 1000
SENSOR_PREFIX = "wait_for_"
LATE_TASK = "late_data"
LAST_ONLY_TASK = "last_only"
_MARKER_LINE = re.compile(r"^\[falcon-airflow\] (?P<kind>KILLED|SUSPENDED)\b.*\(queued (?P<queued>[^)]*)\)\s*$")
_BUSY = {"running", "queued", "scheduled", "up_for_retry", "up_for_reschedule", "restarting", "deferred",
         "awaiting_input"}
_DONE = {"success", "skipped"}
TIMEOUT_SIGNS = ("AirflowSensorTimeout", "TIMEDOUT:", "InputsTimedOut")


class InstanceStatus(StrEnum):
    """Falcon's ``InstancesResult.WorkflowStatus``."""

    WAITING = "WAITING"
    RUNNING = "RUNNING"
    SUSPENDED = "SUSPENDED"
    KILLED = "KILLED"
    FAILED = "FAILED"
    SUCCEEDED = "SUCCEEDED"
    ERROR = "ERROR"
    SKIPPED = "SKIPPED"
    UNDEFINED = "UNDEFINED"
    READY = "READY"
    KILLED_OR_IGNORED = "KILLED_OR_IGNORED"
    TIMEDOUT = "TIMEDOUT"


TERMINAL = frozenset({InstanceStatus.SUCCEEDED, InstanceStatus.FAILED, InstanceStatus.KILLED,
                      InstanceStatus.TIMEDOUT, InstanceStatus.SKIPPED})
ACTIVE = frozenset({InstanceStatus.WAITING, InstanceStatus.READY, InstanceStatus.RUNNING})


class EntityStatus(StrEnum):
    SUBMITTED = "SUBMITTED"
    SUSPENDED = "SUSPENDED"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    INVALID = "INVALID"  # fails validation: no DAG is built for it (not a Falcon status: Falcon refused it)


# -- notes ---------------------------------------------------------------------------------------------------------

def marker_line(kind: str, queued_at: str | None, user: str, at: str, reason: str | None = None) -> str:
    why = f" ({reason})" if reason else ""
    return f"{MARKER} {kind} by {user} at {at}{why} (queued {queued_at or '-'})"


def strip_markers(note: str | None) -> str:
    """The note without our marker lines (what the user wrote)."""
    lines = [line for line in (note or "").splitlines() if not line.startswith(MARKER)]
    return "\n".join(lines).strip()


def with_marker(note: str | None, line: str) -> str:
    """The note with ``line`` on top (earlier markers dropped), cut to Airflow's 1000 characters."""
    rest = strip_markers(note)
    text = f"{line}\n{rest}" if rest else line
    return text[:NOTE_LIMIT]


def valid_marker(run: Mapping[str, Any]) -> str | None:
    """``KILLED``/``SUSPENDED`` when the run's note carries a marker set since the run was last queued."""
    for line in str(run.get("note") or "").splitlines():
        match = _MARKER_LINE.match(line.strip())
        if match and match["queued"] == str(run.get("queued_at") or "-"):
            return match["kind"]
    return None


def marked_failed(run: Mapping[str, Any], events: Iterable[Mapping[str, Any]]) -> bool:
    """Whether someone set this run to failed (UI "Mark failed", REST PATCH) since it was last queued."""
    queued = str(run.get("queued_at") or "")
    for event in events:
        if event.get("event") != "patch_dag_run":
            continue
        extra = str(event.get("extra") or "")
        if '"state": "failed"' not in extra and "'state': 'failed'" not in extra:
            continue
        if not queued or str(event.get("when") or "") >= queued:
            return True
    return False


def log_shows_timeout(entries: Iterable[Any]) -> bool:
    """Whether a sensor's log says it gave up on its timeout (Airflow's or Falcon's wording)."""
    return any(any(sign in str(entry) for sign in TIMEOUT_SIGNS) for entry in entries)


# -- instances -----------------------------------------------------------------------------------------------------

def is_sensor(task_id: str) -> bool:
    return task_id.startswith(SENSOR_PREFIX)


def failed_sensors(tis: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [ti for ti in tis if is_sensor(str(ti.get("task_id"))) and ti.get("state") == "failed"]


def instance_status(run: Mapping[str, Any], tis: Sequence[Mapping[str, Any]], *, marked: bool = False,
                    timed_out: bool = False) -> InstanceStatus:
    """The Falcon status of one instance (see the table in the module docstring).

    ``marked``: the run was set to failed by hand since it was queued (see :func:`marked_failed`);
    ``timed_out``: a failed input sensor's log shows its timeout (see :func:`log_shows_timeout`).
    """
    state = str(run.get("state") or "")
    states = {str(ti.get("task_id")): str(ti.get("state") or "none") for ti in tis}
    sensors = {task: value for task, value in states.items() if is_sensor(task)}
    work = {task: value for task, value in states.items() if not is_sensor(task) and task != LATE_TASK}
    late = states.get(LATE_TASK)
    if state == "failed":
        kind = valid_marker(run)
        if kind == "SUSPENDED":
            return InstanceStatus.SUSPENDED
        if kind == "KILLED":
            return InstanceStatus.KILLED
        if timed_out and "failed" in sensors.values():
            return InstanceStatus.TIMEDOUT
        if marked:
            return InstanceStatus.KILLED
        return InstanceStatus.FAILED
    if state == "success":
        if states.get(LAST_ONLY_TASK) == "skipped":
            return InstanceStatus.SKIPPED
        return InstanceStatus.SUCCEEDED
    if state not in ("queued", "running"):
        return InstanceStatus.UNDEFINED
    if "failed" in sensors.values():
        return InstanceStatus.TIMEDOUT if timed_out else InstanceStatus.FAILED
    if any(value in ("failed", "upstream_failed") for value in work.values()) or late == "failed":
        return InstanceStatus.FAILED
    if any(value in _BUSY for value in work.values()):
        return InstanceStatus.RUNNING
    if work and all(value in _DONE for value in work.values()):
        if late in ("running", "queued", "up_for_retry", "restarting"):
            return InstanceStatus.RUNNING  # the late-data task re-runs the workflow
        if states.get(LAST_ONLY_TASK) == "skipped":
            return InstanceStatus.SKIPPED
        return InstanceStatus.SUCCEEDED
    if any(value not in _DONE for value in sensors.values()):
        return InstanceStatus.WAITING
    if sensors and any(value == "none" for value in work.values()):
        return InstanceStatus.READY
    return InstanceStatus.WAITING


_CLEARED = {None, "none", "restarting"}
"""States of a task instance cleared after a try (by a rerun: ``None``; while it ran: ``restarting``) whose next try
the scheduler has not started yet: Airflow adds one to ``try_number`` only when it schedules that try."""


def run_id_number(tis: Sequence[Mapping[str, Any]]) -> int:
    """Falcon's run id (0 for the first run, +1 per rerun or retry, as the Oozie workflow's run number): the work
    task's try number minus one, plus the try a rerun has asked for and the scheduler not yet begun (a work task
    cleared after a try), so an instance shows its new run id as soon as it is rerun.

    The DAG run's ``clear_number`` is not used: Airflow's REST API does not return it, and it also counts clears that
    start no new run of the work (a resume before the workflow started, a rerun of an instance whose workflow never
    ran)."""
    tries = [int(ti.get("try_number") or 0) + (1 if ti.get("state") in _CLEARED and ti.get("try_number") else 0)
             for ti in tis if not is_sensor(str(ti.get("task_id"))) and ti.get("task_id") != LATE_TASK]
    return max(0, max(tries, default=0) - 1)


# -- entities ------------------------------------------------------------------------------------------------------

def entity_status(paused: Sequence[bool], scheduled: str | None, *, all_ended: bool = False) -> EntityStatus:
    """``paused``: the pause flag of each of the entity's DAGs that exist in Airflow; ``scheduled``: the store's
    schedule state (``None`` when never scheduled); ``all_ended``: every validity of the entity is over."""
    running = any(not flag for flag in paused)
    if (running or (paused and scheduled is not None)) and all_ended:
        return EntityStatus.COMPLETED
    if running:  # unpaused, whoever did it (the UI, dags_are_paused_at_creation=False)
        return EntityStatus.RUNNING
    if paused and scheduled is not None:
        return EntityStatus.SUSPENDED
    return EntityStatus.SUBMITTED
