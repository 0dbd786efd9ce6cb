"""Airflow run and task states mapped to Falcon's instance and entity statuses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from falcon_airflow.operate.states import (
    EntityStatus,
    InstanceStatus,
    entity_status,
    instance_status,
    log_shows_timeout,
    marked_failed,
    marker_line,
    run_id_number,
    strip_markers,
    valid_marker,
    with_marker,
)

QUEUED_AT = "2026-06-01T10:00:00.000001Z"


def run(state: str, note: str | None = None, queued_at: str = QUEUED_AT) -> dict[str, Any]:
    return {"state": state, "note": note, "queued_at": queued_at}


def tis(**states: str | None) -> list[dict[str, Any]]:
    return [{"task_id": task, "state": state, "try_number": 1} for task, state in states.items()]


PROCESS = {"wait_for_input": "success", "clear_outputs": "success", "workflow": "success",
           "mark_outputs_available": "success"}


def process(**overrides: str | None) -> list[dict[str, Any]]:
    return tis(**{**PROCESS, **overrides})


@pytest.mark.parametrize(("state", "tasks", "expected"), [
    ("queued", process(wait_for_input=None, clear_outputs=None, workflow=None, mark_outputs_available=None),
     InstanceStatus.WAITING),
    ("running", process(wait_for_input="deferred", clear_outputs=None, workflow=None, mark_outputs_available=None),
     InstanceStatus.WAITING),
    ("running", process(wait_for_input="up_for_reschedule", clear_outputs=None, workflow=None,
                        mark_outputs_available=None), InstanceStatus.WAITING),
    ("running", process(clear_outputs=None, workflow=None, mark_outputs_available=None), InstanceStatus.READY),
    ("running", process(workflow="running", mark_outputs_available=None), InstanceStatus.RUNNING),
    ("running", process(workflow="queued", mark_outputs_available=None), InstanceStatus.RUNNING),
    ("running", process(workflow="up_for_retry", mark_outputs_available=None), InstanceStatus.RUNNING),
    ("running", process(workflow="failed", mark_outputs_available="upstream_failed"), InstanceStatus.FAILED),
    ("running", tis(**PROCESS, late_data="deferred"), InstanceStatus.SUCCEEDED),
    ("running", tis(**PROCESS, late_data="running"), InstanceStatus.RUNNING),
    ("success", process(), InstanceStatus.SUCCEEDED),
    ("success", tis(wait_for_input="success", last_only="skipped", clear_outputs="skipped", workflow="skipped",
                    mark_outputs_available="skipped"), InstanceStatus.SKIPPED),
    ("failed", process(workflow="failed", mark_outputs_available="upstream_failed"), InstanceStatus.FAILED),
    ("success", tis(retention="success"), InstanceStatus.SUCCEEDED),
    ("running", tis(wait_for_source="success", replicate="running"), InstanceStatus.RUNNING),
    ("removed", process(), InstanceStatus.UNDEFINED),
])
def test_instance_status(state: str, tasks: list[dict[str, Any]], expected: InstanceStatus) -> None:
    assert instance_status(run(state), tasks) is expected


def test_a_sensor_that_gave_up_on_its_timeout_is_timedout() -> None:
    failed = process(wait_for_input="failed", clear_outputs="upstream_failed", workflow="upstream_failed",
                     mark_outputs_available="upstream_failed")
    assert instance_status(run("failed"), failed, timed_out=True) is InstanceStatus.TIMEDOUT
    assert instance_status(run("failed"), failed) is InstanceStatus.FAILED
    assert instance_status(run("running"), failed, timed_out=True) is InstanceStatus.TIMEDOUT


def test_a_run_marked_failed_by_hand_is_killed() -> None:
    marked = process(workflow="failed", mark_outputs_available="skipped")
    assert instance_status(run("failed"), marked, marked=True) is InstanceStatus.KILLED


def test_markers_decide_killed_and_suspended_while_the_run_is_not_requeued() -> None:
    killed = with_marker("my note", marker_line("KILLED", QUEUED_AT, "alice", "2026-06-01T10:05:00Z"))
    suspended = with_marker(None, marker_line("SUSPENDED", QUEUED_AT, "alice", "2026-06-01T10:05:00Z"))
    stopped = process(workflow="failed", mark_outputs_available="skipped")

    assert instance_status(run("failed", killed), stopped) is InstanceStatus.KILLED
    assert instance_status(run("failed", suspended), stopped, marked=True) is InstanceStatus.SUSPENDED
    # re-queued since (cleared by a rerun or a resume), then failed on its own: the marker is stale
    assert valid_marker(run("failed", killed, queued_at="2026-06-01T11:00:00Z")) is None
    assert instance_status(run("failed", killed, queued_at="2026-06-01T11:00:00Z"), stopped) is InstanceStatus.FAILED


def test_markers_keep_the_users_note_and_fit_airflows_limit() -> None:
    line = marker_line("KILLED", QUEUED_AT, "alice", "2026-06-01T10:05:00Z")
    note = with_marker("checked by ops", line)
    assert note.splitlines() == [line, "checked by ops"]
    assert strip_markers(note) == "checked by ops"
    replaced = with_marker(note, marker_line("SUSPENDED", QUEUED_AT, "bob", "2026-06-01T10:06:00Z"))
    assert replaced.count("[falcon-airflow]") == 1 and replaced.endswith("checked by ops")
    assert len(with_marker("x" * 2000, line)) == 1000


def test_marked_failed_only_counts_failures_set_since_the_run_was_last_queued() -> None:
    events = [{"event": "patch_dag_run", "when": "2026-06-01T10:03:00Z",
               "extra": json.dumps({"state": "failed", "method": "PATCH"})}]
    assert marked_failed(run("failed"), events)
    assert not marked_failed(run("failed", queued_at="2026-06-01T10:04:00Z"), events)
    assert not marked_failed(run("failed"), [{**events[0], "extra": json.dumps({"note": "x"})}])
    assert not marked_failed(run("failed"), [{**events[0], "event": "patch_task_instance"}])


def test_timeout_is_read_from_the_sensor_log() -> None:
    assert log_shows_timeout([{"event": "Task failed with exception",
                               "error_detail": [{"exc_type": "AirflowSensorTimeout"}]}])
    assert log_shows_timeout(["TIMEDOUT: input clicks (feed raw-clicks) still misses 1 instance(s)"])
    assert not log_shows_timeout([{"event": "Task failed with exception", "error_detail": [{"exc_type": "OSError"}]}])


def test_falcons_run_id_counts_reruns_and_retries() -> None:
    assert run_id_number([{"task_id": "workflow", "try_number": 3, "state": "success"},
                          {"task_id": "wait_for_x", "try_number": 9, "state": "success"}]) == 2
    assert run_id_number([{"task_id": "workflow", "try_number": 0, "state": None}]) == 0  # never ran yet


@pytest.mark.parametrize(("state", "expected"), [
    (None, 2),  # a rerun cleared it: its coming try is the instance's new run
    ("restarting", 2),  # cleared while it ran (-rerun -force)
    ("scheduled", 1),  # the scheduler has begun the try: try_number counts it already
    ("success", 1), ("failed", 1), ("up_for_retry", 1),  # a retry counts once it starts
])
def test_a_rerun_counts_as_soon_as_the_work_task_is_cleared(state: str | None, expected: int) -> None:
    tis = [{"task_id": "wait_for_x", "try_number": 1, "state": "success"},
           {"task_id": "clear_outputs", "try_number": 1, "state": state},
           {"task_id": "workflow", "try_number": 2, "state": state}]
    assert run_id_number(tis) == expected


@pytest.mark.parametrize(("paused", "scheduled", "ended", "expected"), [
    ([], None, False, EntityStatus.SUBMITTED),
    ([True], None, False, EntityStatus.SUBMITTED),
    ([], "RUNNING", False, EntityStatus.SUBMITTED),
    ([False], None, False, EntityStatus.RUNNING),
    ([False, True], "RUNNING", False, EntityStatus.RUNNING),
    ([True, True], "SUSPENDED", False, EntityStatus.SUSPENDED),
    ([True], "RUNNING", False, EntityStatus.SUSPENDED),
    ([False], "RUNNING", True, EntityStatus.COMPLETED),
    ([True], None, True, EntityStatus.SUBMITTED),
])
def test_entity_status(paused: list[bool], scheduled: str | None, ended: bool, expected: EntityStatus) -> None:
    assert entity_status(paused, scheduled, all_ended=ended) is expected


def test_a_marker_with_a_reason_is_still_recognised() -> None:
    line = marker_line("KILLED", QUEUED_AT, "alice", "2026-06-01T10:05:00Z", "entity delete")
    assert line == ("[falcon-airflow] KILLED by alice at 2026-06-01T10:05:00Z (entity delete) "
                    f"(queued {QUEUED_AT})")
    assert valid_marker(run("failed", line)) == "KILLED"
