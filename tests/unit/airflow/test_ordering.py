"""FIFO/LIFO as priority weights from the instance in the run id; LAST_ONLY skips superseded instances."""

from __future__ import annotations

from types import SimpleNamespace

import pendulum
import pytest
from airflow.sdk.exceptions import AirflowSkipException

from falcon_airflow.provider.operators.ordering import LastOnlyOperator
from falcon_airflow.provider.scheduling.priority import NewestInstanceFirst, OldestInstanceFirst


def ti(run_id: str) -> SimpleNamespace:
    return SimpleNamespace(run_id=run_id)


def test_fifo_prefers_older_and_lifo_newer_instances() -> None:
    older, newer = ti("scheduled__p__2026-03-01T05:00Z"), ti("scheduled__p__2026-03-01T06:00Z")
    assert OldestInstanceFirst().get_weight(older) > OldestInstanceFirst().get_weight(newer)
    assert NewestInstanceFirst().get_weight(newer) > NewestInstanceFirst().get_weight(older)
    manual = ti("manual__p__2026-03-01T06:00Z__20261122T101010")
    assert NewestInstanceFirst().get_weight(manual) == NewestInstanceFirst().get_weight(newer)
    assert 0 < OldestInstanceFirst().get_weight(ti("no-instance-here")) < 2**31


def test_last_only_skips_an_instance_whose_successor_is_due() -> None:
    schedule = {"start": "2026-01-01T00:00Z", "end": "2099-01-01T00:00Z", "frequency": "hours(1)", "timezone": "UTC"}
    operator = LastOnlyOperator(task_id="last_only", schedule=schedule)
    old = SimpleNamespace(data_interval_start=pendulum.datetime(2026, 3, 1, 5, tz="UTC"))
    with pytest.raises(AirflowSkipException, match="newer instance 2026-03-01T06:00Z"):
        operator.execute({"dag_run": old})
    current = SimpleNamespace(data_interval_start=pendulum.now("UTC").start_of("hour"))
    operator.execute({"dag_run": current})  # the latest due instance runs
