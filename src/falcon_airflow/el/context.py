"""What an EL expression is evaluated against.

Two contexts, as in Falcon:

* **action** (``dataset=None``): the instance (nominal) time of the entity, truncations in the entity's zone, no
  snapping - process properties, ``formatTime(instanceTime(), ...)`` and Falcon's server-side checks;
* **dataset** (``dataset`` set): a time computed as in action context is then snapped down to the feed's instance
  grid (feed frequency, feed zone, first instance = the feed cluster's validity start); a time before the first
  instance resolves to nothing. This is how process input ranges and output instances name feed instances.

``availability`` answers ``latest(n)``/``future(n, limit)`` at run time; without it those functions return the
instance time, which is what Falcon's validation did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Protocol

import pendulum

from falcon_airflow.timekeeping.grid import InstanceGrid


class Availability(Protocol):
    """Run-time knowledge of which feed instances exist (``latest``/``future``)."""

    def latest(self, offset: int) -> datetime | None:
        """``offset`` = 0 is the newest available instance at or before the instance time, -1 the one before..."""

    def future(self, offset: int, limit: int) -> datetime | None:
        """The ``offset``-th available instance at or after the instance time, looking at most ``limit`` ahead."""


@dataclass(frozen=True)
class ELContext:
    instance_time: datetime
    zone: tzinfo = pendulum.UTC
    dataset: InstanceGrid | None = None
    availability: Availability | None = None
    user: str | None = None
    data_in: Callable[[str, str], str] | None = None

    @property
    def local_instance_time(self) -> pendulum.DateTime:
        return pendulum.instance(self.instance_time).in_timezone(self.zone)  # type: ignore[arg-type]

    def snap(self, moment: datetime | None) -> pendulum.DateTime | None:
        """In dataset context, the feed instance at or before ``moment``; unchanged in action context."""
        if moment is None:
            return None
        if self.dataset is None:
            return pendulum.instance(moment)
        return self.dataset.at_or_before(moment)
