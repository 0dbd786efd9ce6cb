"""Falcon's instance order as Airflow priority-weight strategies.

All waiting instances of a process are active DAG runs (their sensors are deferred and hold no slot), and the
workflow task allows ``parallel`` of them to run at once (``max_active_tis_per_dag``). Which ready instance runs
first is the scheduler's choice: among task instances of equal weight it queues the oldest logical date first, and
a run's logical date is its Falcon instance, so FIFO needs nothing of ours. LIFO does: :class:`NewestInstanceFirst`
weighs each task instance by the Falcon instance time in its run id. :class:`OldestInstanceFirst` is its mirror; the
plugin registers both so that the scheduler can deserialize any DAG that names either.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from airflow.task.priority_strategy import PriorityWeightStrategy

_INSTANCE_IN_RUN_ID = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})")
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_CEILING = 100_000_000  # minutes: keeps weights positive and inside a 32-bit column until the 2180s


def instance_minutes(run_id: str | None) -> int:
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
        return instance_minutes(getattr(ti, "run_id", None)) + 1


class OldestInstanceFirst(PriorityWeightStrategy):
    """FIFO: the earlier the instance, the higher the priority."""

    def get_weight(self, ti: Any) -> int:
        return _CEILING - instance_minutes(getattr(ti, "run_id", None))
