"""LAST_ONLY skips an instance whose successor is due."""

from __future__ import annotations

from types import SimpleNamespace

import pendulum
import pytest
from airflow.sdk.exceptions import AirflowSkipException

from falcon_airflow.provider.operators.ordering import LastOnlyOperator


def test_last_only_skips_an_instance_whose_successor_is_due() -> None:
    schedule = {"start": "2026-01-01T00:00Z", "end": "2099-01-01T00:00Z", "frequency": "hours(1)", "timezone": "UTC"}
    operator = LastOnlyOperator(task_id="last_only", schedule=schedule)
    old = SimpleNamespace(data_interval_start=pendulum.datetime(2026, 3, 1, 5, tz="UTC"))
    with pytest.raises(AirflowSkipException, match="newer instance 2026-03-01T06:00Z"):
        operator.execute({"dag_run": old})
    current = SimpleNamespace(data_interval_start=pendulum.now("UTC").start_of("hour"))
    operator.execute({"dag_run": current})  # the latest due instance runs
