"""The checks of an SLA monitor: does an instance meet its SLA by a deadline after its nominal time?

A check that holds succeeds; one that does not hold by its deadline is *skipped* - the miss - and the monitor's
alert task (``trigger_rule=all_skipped``) reports it. The deadline is absolute (nominal time + the SLA), so a
monitor run that starts late still judges the instance by its own deadline.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from airflow.sdk import BaseSensorOperator
from airflow.sdk.exceptions import AirflowSkipException

from falcon_airflow.provider.sensors.feed import FeedInstanceSensor
from falcon_airflow.provider.triggers.feed import FeedInstancesTrigger
from falcon_airflow.timekeeping import parse_falcon_date

STARTED = frozenset({"running", "success", "failed", "up_for_retry", "up_for_reschedule", "restarting", "deferred"})
"""Task states that say a task has started (for ``shouldStartIn``)."""
FINISHED = frozenset({"success", "failed", "skipped", "upstream_failed", "removed"})
WAITING_TASKS = ("wait_for_", "last_only", "late_data")
"""Tasks of a process run that are not its work: input sensors, ordering, late-data watching."""


def _seconds_left(deadline: str) -> float:
    return parse_falcon_date(deadline).timestamp() - time.time()


class FeedSlaSensor(FeedInstanceSensor):
    """Succeeds once the feed instance is available; skipped when it is not by ``deadline`` (a Falcon time)."""

    template_fields: Sequence[str] = (*FeedInstanceSensor.template_fields, "deadline")

    def __init__(self, *, deadline: str, sla: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.deadline = deadline
        self.sla = sla

    def execute(self, context: Any) -> None:
        markers = self.marker_list()
        if not markers or self.poke(context):
            return
        left = _seconds_left(self.deadline)
        if left <= 0:
            raise AirflowSkipException(f"missed {self.sla}: feed {self.feed} instance not available by "
                                       f"{self.deadline} ({self.waiting_for})")
        self.defer(trigger=FeedInstancesTrigger(markers, float(self.poke_interval), time.time() + left),
                   method_name="execute_complete")

    def execute_complete(self, context: Any, event: dict[str, Any]) -> None:
        if event.get("status") == "available":
            self.log.info("feed %s instance available within %s", self.feed, self.sla)
            return
        if event.get("status") == "timeout":
            raise AirflowSkipException(f"missed {self.sla}: feed {self.feed} instance not available by "
                                       f"{self.deadline}")
        super().execute_complete(context, event)


class ProcessSlaSensor(BaseSensorOperator):
    """Watches the process DAG's run of the same instance: ``check="start"`` succeeds once any of its work tasks
    started, ``check="end"`` once all of them finished; skipped when that has not happened by ``deadline``.

    It reads task states through Airflow's task API (no database access from the worker) and holds no worker slot
    between checks (reschedule mode)."""

    template_fields: Sequence[str] = ("deadline",)
    ui_color = "#fdf1e8"

    def __init__(self, *, process_dag_id: str, check: str, deadline: str, sla: str, **kwargs: Any) -> None:
        kwargs.setdefault("mode", "reschedule")
        super().__init__(**kwargs)
        if check not in ("start", "end"):
            raise ValueError(f"check must be 'start' or 'end', not {check!r}")
        self.process_dag_id = process_dag_id
        self.check = check
        self.deadline = deadline
        self.sla = sla

    def _work_states(self, context: Any) -> list[str]:
        found = context["ti"].get_task_states(dag_id=self.process_dag_id, logical_dates=[context["logical_date"]])
        states: list[str] = []
        for tasks in (found or {}).values():
            states += [str(state or "none") for task_id, state in tasks.items()
                       if not str(task_id).startswith(WAITING_TASKS)]
        return states

    def poke(self, context: Any) -> bool:
        states = self._work_states(context)
        if self.check == "start":
            met = any(state in STARTED for state in states)
        else:
            met = bool(states) and all(state in FINISHED for state in states)
        if met:
            return True
        if _seconds_left(self.deadline) <= 0:
            what = "started" if self.check == "start" else "ended"
            seen = sorted(set(states)) or "no run"
            raise AirflowSkipException(f"missed {self.sla}: the work of {self.process_dag_id} for this instance had "
                                       f"not {what} by {self.deadline} (task states: {seen})")
        self.log.info("%s: %s not yet %s (deadline %s)", self.sla, self.process_dag_id,
                      "started" if self.check == "start" else "ended", self.deadline)
        return False

    def execute(self, context: Any) -> Any:
        # The sensor's own timeout would count from its first check; the deadline is what counts.
        self.timeout = max(1.0, _seconds_left(self.deadline) + 3 * float(self.poke_interval))
        return super().execute(context)


