"""Run-time answers to ``latest(n)`` and ``future(n, limit)``: which instances of a feed exist."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import pendulum

from falcon_airflow.timekeeping.grid import InstanceGrid


@dataclass(frozen=True)
class GridAvailability:
    """``latest(n)`` / ``future(n, limit)`` answered by probing instances of a feed grid with ``exists``.

    Instances are looked at from the reference instance (the process instance time, snapped to the feed grid)
    backwards for ``latest`` and forwards for ``future``, never outside the feed's validity; at most
    ``max_probes`` instances are probed, so a feed that never lands cannot make a run search forever.
    """

    grid: InstanceGrid
    reference: datetime
    exists: Callable[[pendulum.DateTime], bool]
    max_probes: int = 1000

    def latest(self, offset: int) -> datetime | None:
        anchor = self.grid.at_or_before(self.reference)
        if anchor is None:
            return None
        index = self.grid.index_at_or_before(anchor)
        if self.grid.end is not None:
            while index >= 0 and self.grid.instance(index) >= self.grid.end:
                index -= 1
        wanted = -offset
        for _ in range(self.max_probes):
            if index < 0:
                return None
            moment = self.grid.instance(index)
            if self.exists(moment):
                if wanted == 0:
                    return moment
                wanted -= 1
            index -= 1
        return None

    def future(self, offset: int, limit: int) -> datetime | None:
        start = self.grid.next_at_or_after(self.reference)
        index = self.grid.index_at_or_before(start)
        wanted = offset
        for _ in range(min(limit + 1, self.max_probes)):
            moment = self.grid.instance(index)
            if self.grid.end is not None and moment >= self.grid.end:
                return None
            if self.exists(moment):
                if wanted == 0:
                    return moment
                wanted -= 1
            index += 1
        return None
