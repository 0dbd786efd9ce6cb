"""Falcon's LAST_ONLY execution order: :class:`LastOnlyOperator` runs before the workflow and skips an instance
for which a newer instance is already due, as Falcon skipped it. FIFO and LIFO are priority-weight strategies
(:mod:`falcon_airflow.provider.scheduling.priority`).
"""

from __future__ import annotations

from typing import Any

import pendulum
from airflow.sdk import BaseOperator
from airflow.sdk.exceptions import AirflowSkipException

from falcon_airflow.provider.macros import instance
from falcon_airflow.provider.scheduling.timetables import FalconFrequencyTimetable
from falcon_airflow.timekeeping import format_falcon_date


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
