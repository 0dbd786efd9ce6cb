"""Falcon's execution order on Airflow: FIFO, LIFO and LAST_ONLY.

All waiting instances of a process are active DAG runs (their sensors are deferred and hold no slot), and the
workflow task allows ``parallel`` of them to run at once (``max_active_tis_per_dag``). Which ready instance runs
first is the scheduler's priority: :class:`OldestInstanceFirst` (FIFO) or :class:`NewestInstanceFirst` (LIFO)
weighs each task instance by the Falcon instance time in its run id. LAST_ONLY adds :class:`LastOnlyOperator`
before the workflow: an instance for which a newer instance is already due is skipped, as Falcon skipped it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pendulum
from airflow.sdk import BaseOperator
from airflow.sdk.exceptions import AirflowSkipException
from airflow.task.priority_strategy import PriorityWeightStrategy

from falcon_airflow.macros import instance
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.timetables import FalconFrequencyTimetable

_INSTANCE_IN_RUN_ID = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})")
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_CEILING = 100_000_000  # minutes: keeps weights positive and inside a 32-bit column until the 2180s


def _instance_minutes(run_id: str | None) -> int:
    """Minutes since 2000 of the Falcon instance named in a run id (0 when it names none)."""
    match = _INSTANCE_IN_RUN_ID.search(run_id or "")
    if match is None:
        return 0
    year, month, day, hour, minute = (int(part) for part in match.groups())
    moment = datetime(year, month, day, hour, minute, tzinfo=UTC)
    return max(0, int((moment - _EPOCH).total_seconds() // 60))


class NewestInstanceFirst(PriorityWeightStrategy):
    """LIFO: the later the instance, the higher the priority."""

    def get_weight(self, ti: Any) -> int:
        return _instance_minutes(getattr(ti, "run_id", None)) + 1


class OldestInstanceFirst(PriorityWeightStrategy):
    """FIFO: the earlier the instance, the higher the priority."""

    def get_weight(self, ti: Any) -> int:
        return _CEILING - _instance_minutes(getattr(ti, "run_id", None))


class LastOnlyOperator(BaseOperator):
    """Skip this instance (and its workflow) when a newer instance of the process is already due."""

    ui_color = "#f0e8fd"

    def __init__(self, *, schedule: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.schedule = schedule

    def execute(self, context: Any) -> None:
        timetable = FalconFrequencyTimetable(start=self.schedule["start"], end=self.schedule["end"],
                                             frequency=self.schedule["frequency"],
                                             timezone=self.schedule.get("timezone", "UTC"))
        current = instance(context["dag_run"])
        following = timetable.grid.instance(timetable.grid.index_at_or_before(current) + 1)
        if timetable.grid.contains(following) and following <= pendulum.now("UTC"):
            raise AirflowSkipException(f"LAST_ONLY: instance {format_falcon_date(current)} is skipped because the "
                                       f"newer instance {format_falcon_date(following)} is already due")
        self.log.info("instance %s is the latest due instance: it runs", format_falcon_date(current))
