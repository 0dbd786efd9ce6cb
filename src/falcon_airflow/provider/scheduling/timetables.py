"""Falcon frequencies as an Airflow timetable.

Instance k of an entity is ``validity start + k * frequency`` on the calendar of the entity's time zone - always
computed from the start, so ``months(1)`` from January 31 gives Feb 28, Mar 31, Apr 30 (Airflow's delta timetable
chains intervals and drifts to the 28th). Each instance becomes one DAG run:

* logical date = the instance (Falcon's nominal time); data interval = [instance, next instance);
* the run may start at the instance time itself, as a Falcon coordinator action materialised at its nominal time
  and then waited for its inputs (the sensors do the waiting);
* no run at or after the validity end (exclusive), none before the validity start;
* with catch-up every past instance inside validity runs (Falcon's behaviour); without it the scheduler starts at
  the current instance;
* run ids name the entity and the instance: ``scheduled__count-clicks__2026-03-01T05:00Z``.

The class is registered by the provider's plugin so that the scheduler can deserialize it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pendulum
from airflow.timetables.base import DagRunInfo, DataInterval, TimeRestriction, Timetable
from airflow.utils.types import DagRunType

from falcon_airflow.timekeeping import Frequency, format_falcon_date, parse_falcon_date, resolve_zone
from falcon_airflow.timekeeping.grid import InstanceGrid


class FalconFrequencyTimetable(Timetable):
    """Runs at every instance of a Falcon entity: ``frequency`` from ``start`` until ``end`` in ``timezone``."""

    def __init__(self, *, start: str, end: str, frequency: str, timezone: str = "UTC", entity: str = "") -> None:
        self.start = start
        self.end = end
        self.frequency = frequency
        self.timezone = timezone
        self.entity = entity
        zone = resolve_zone(timezone).zone
        self.grid = InstanceGrid.of(parse_falcon_date(start), Frequency.parse(frequency), zone,
                                    parse_falcon_date(end))
        self.description = (f"Falcon {frequency} from {start} until {end} ({timezone}); each instance runs at its "
                            "nominal time")

    # -- serialisation ------------------------------------------------------------------------------------------

    def serialize(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "frequency": self.frequency, "timezone": self.timezone,
                "entity": self.entity}

    @classmethod
    def deserialize(cls, data: dict[str, Any]) -> FalconFrequencyTimetable:
        return cls(start=data["start"], end=data["end"], frequency=data["frequency"],
                   timezone=data.get("timezone", "UTC"), entity=data.get("entity", ""))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FalconFrequencyTimetable) and self.serialize() == other.serialize()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.serialize().items())))

    @property
    def summary(self) -> str:
        return f"{self.frequency} {self.timezone}" if self.timezone != "UTC" else self.frequency

    # -- scheduling ---------------------------------------------------------------------------------------------

    def _info(self, instance: pendulum.DateTime) -> DagRunInfo:
        following = self.grid.instance(self.grid.index_at_or_before(instance) + 1)
        interval = DataInterval(_utc(instance), _utc(following))
        return DagRunInfo(run_after=_utc(instance), data_interval=interval)

    def _in_validity(self, instance: pendulum.DateTime | None) -> bool:
        return instance is not None and self.grid.contains(instance)

    def next_dagrun_info(self, *, last_automated_data_interval: DataInterval | None,
                         restriction: TimeRestriction) -> DagRunInfo | None:
        if last_automated_data_interval is not None:
            following = self.grid.index_at_or_before(last_automated_data_interval.start) + 1
            candidate = self.grid.instance(max(following, 0))
        else:
            candidate = self.grid.start
        if restriction.earliest is not None:
            candidate = max(candidate, self.grid.next_at_or_after(restriction.earliest))
        if not restriction.catchup:
            current = self.grid.at_or_before(pendulum.now("UTC"))
            if current is not None:
                candidate = max(candidate, current)
        if not self._in_validity(candidate):
            return None
        if restriction.latest is not None and candidate > restriction.latest:
            return None
        return self._info(candidate)

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        """A manual run stands for the instance at or before its trigger time (the first one when earlier)."""
        instance = self.grid.at_or_before(run_after) or self.grid.start
        if self.grid.end is not None and instance >= self.grid.end:
            instance = self.grid.at_or_before(self.grid.end.subtract(microseconds=1)) or self.grid.start
        return self._info(instance).data_interval  # type: ignore[return-value]

    def generate_run_id(self, *, run_type: DagRunType, run_after: datetime,
                        data_interval: DataInterval | None, **extra: Any) -> str:
        moment = data_interval.start if data_interval is not None else run_after
        suffix = f"{self.entity}__{format_falcon_date(moment)}" if self.entity else format_falcon_date(moment)
        if run_type is not DagRunType.SCHEDULED:  # several manual runs may stand for one instance
            suffix += f"__{_utc(run_after).format('YYYYMMDDTHHmmss')}"
        return run_type.generate_run_id(suffix=suffix)


def _utc(moment: datetime) -> pendulum.DateTime:
    return pendulum.instance(moment).in_timezone("UTC")
