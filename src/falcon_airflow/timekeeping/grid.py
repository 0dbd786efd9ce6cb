"""The instance grid of an entity: instance k is ``start + k * frequency`` on the calendar of the entity's zone.

Every instance is computed from the start, never by chaining steps, so ``months(1)`` from January 31 gives
Feb 28/29, Mar 31, Apr 30 ... without drifting to the 28th. Validity is start-inclusive and end-exclusive.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, tzinfo

import pendulum

from falcon_airflow.timekeeping.frequency import Frequency, TimeUnit

_MAX_ADJUST_STEPS = 10_000
# Minutes and hours are elapsed time (pendulum adds them on the time line, whatever the zone's offsets do), so
# instance k of such a grid is exactly start + k * length; days and months follow the zone's calendar.
_ELAPSED_UNITS = frozenset({TimeUnit.MINUTES, TimeUnit.HOURS})


def _epoch_micros(moment: datetime) -> int:
    """Microseconds since the epoch, exactly (integer arithmetic on the UTC fields, no float, no pendulum diff)."""
    return calendar.timegm(moment.utctimetuple()) * 1_000_000 + moment.microsecond


@dataclass(frozen=True, slots=True)
class InstanceGrid:
    """Instances of one entity (or feed-on-cluster): ``start`` inclusive, ``end`` exclusive when given."""

    start: pendulum.DateTime
    frequency: Frequency
    end: pendulum.DateTime | None = None

    @classmethod
    def of(cls, start: datetime, frequency: Frequency, zone: tzinfo,
           end: datetime | None = None) -> InstanceGrid:
        """A grid whose calendar arithmetic happens in ``zone`` (start and end may be given in any zone)."""
        zoned_start = pendulum.instance(start).in_timezone(zone)  # type: ignore[arg-type]
        zoned_end = pendulum.instance(end).in_timezone(zone) if end is not None else None  # type: ignore[arg-type]
        return cls(zoned_start, frequency, zoned_end)

    def instance(self, index: int) -> pendulum.DateTime:
        """The ``index``-th instance (0 = start); may lie outside the validity window."""
        return self.frequency.step(self.start, index)

    def index_at_or_before(self, moment: datetime) -> int:
        """Largest k with instance(k) <= moment (negative when ``moment`` precedes the start)."""
        target = pendulum.instance(moment)
        elapsed = _epoch_micros(target) - _epoch_micros(self.start)
        length = self.frequency.millis * 1000
        if self.frequency.unit in _ELAPSED_UNITS:
            return elapsed // length
        index = elapsed // length  # an estimate on the calendar: months are not all 31 days, days not all 24 h
        steps = 0
        while self.instance(index) > target:
            index -= 1
            steps += 1
            if steps > _MAX_ADJUST_STEPS:  # pragma: no cover - the estimate is never this far off
                raise RuntimeError("instance search did not converge")
        while self.instance(index + 1) <= target:
            index += 1
            steps += 1
            if steps > _MAX_ADJUST_STEPS:  # pragma: no cover
                raise RuntimeError("instance search did not converge")
        return index

    def at_or_before(self, moment: datetime) -> pendulum.DateTime | None:
        """The latest instance at or before ``moment``; ``None`` when ``moment`` precedes the first instance."""
        index = self.index_at_or_before(moment)
        return self.instance(index) if index >= 0 else None

    def next_at_or_after(self, moment: datetime) -> pendulum.DateTime:
        """The first instance at or after ``moment`` (the start itself when ``moment`` is earlier)."""
        target = pendulum.instance(moment)
        if target <= self.start:
            return self.start
        index = self.index_at_or_before(target)
        found = self.instance(index)
        return found if found == target else self.instance(index + 1)

    def sequence(self, moment: datetime) -> int:
        """1-based number of the first instance at or after ``moment`` (Falcon's instance sequence)."""
        target = pendulum.instance(moment)
        if target <= self.start:
            return 1
        index = self.index_at_or_before(target)
        return index + 1 if self.instance(index) == target else index + 2

    def is_instance(self, moment: datetime) -> bool:
        target = pendulum.instance(moment)
        if target < self.start:
            return False
        return self.instance(self.index_at_or_before(target)) == target

    def contains(self, moment: datetime) -> bool:
        """Inside validity: start <= moment < end."""
        target = pendulum.instance(moment)
        return target >= self.start and (self.end is None or target < self.end)

    def between(self, first: datetime, last: datetime) -> Iterator[pendulum.DateTime]:
        """Instances in [first, last], both inclusive, clipped to the validity window."""
        lower = max(pendulum.instance(first), self.start)
        index = self.index_at_or_before(lower)
        if index < 0 or self.instance(index) < lower:
            index += 1
        upper = pendulum.instance(last)
        while True:
            moment = self.instance(index)
            if moment > upper or (self.end is not None and moment >= self.end):
                return
            yield moment
            index += 1

    def count_between(self, first: datetime, last_exclusive: datetime) -> int:
        """Number of instances in [first, last_exclusive)."""
        return sum(1 for moment in self.between(first, last_exclusive) if moment < pendulum.instance(last_exclusive))
