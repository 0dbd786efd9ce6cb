"""Replication of a feed from a source cluster to a target cluster: the window, the instance, what is copied.

Falcon's rules: one replication per (source, target) pair; it runs on the feed's frequency inside the overlap of
both validities, both starts shifted by the source's ``delay``; the instance replicated at run time ``T`` is
``now(0, -delay)``. Partition expressions of the source and target (``${cluster.colo}/*``) are evaluated against
their own cluster and joined; the copy is restricted to files matching that include pattern, and the part of it
without glob characters is appended to both the source and target folders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import pendulum

from falcon_airflow.core.partitions import evaluate_cluster_expression, normalize_partition
from falcon_airflow.errors import InstanceError
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.timekeeping import Frequency, format_falcon_date
from falcon_airflow.timekeeping.grid import InstanceGrid

_GLOB_CHARACTERS = re.compile(r"[*?\[\]{}]")


@dataclass(frozen=True)
class Replication:
    source: FeedOnCluster
    target: FeedOnCluster

    @property
    def delay(self) -> Frequency | None:
        return self.source.placement.delay

    @property
    def window(self) -> tuple[pendulum.DateTime, pendulum.DateTime]:
        """[start, end) of the replication runs; :class:`InstanceError` when the validities do not overlap."""
        source, target = self.source.placement.validity, self.target.placement.validity
        zone = self.source.feed.zone.zone
        start = pendulum.instance(max(source.start, target.start)).in_timezone(zone)  # type: ignore[arg-type]
        if self.delay is not None:
            start = self.delay.step(start)
        end = pendulum.instance(min(source.end, target.end))
        if start >= end:
            raise InstanceError(f"source cluster '{self.source.cluster_name}' and target cluster "
                                f"'{self.target.cluster_name}' of feed '{self.source.name}' do not have "
                                "overlapping dates for replication")
        return start, end

    @property
    def grid(self) -> InstanceGrid:
        """Run times of the replication: the feed's frequency from the window start, in the feed's zone."""
        start, end = self.window
        return InstanceGrid.of(start, self.source.feed.frequency, self.source.feed.zone.zone, end)

    def instance_for_run(self, run_time: datetime) -> pendulum.DateTime | None:
        """The feed instance a run at ``run_time`` copies: ``now(0, -delay)`` snapped to the source grid."""
        moment = pendulum.instance(run_time)
        if self.delay is not None:
            moment = moment.subtract(minutes=self.delay.minutes)
        return self.source.grid.at_or_before(moment)

    @property
    def include_pattern(self) -> str:
        """The joined, evaluated partition expressions (empty: copy the whole instance)."""
        parts = []
        for side in (self.source, self.target):
            expression = side.placement.partition
            if expression is not None and side.cluster is not None:
                expression = evaluate_cluster_expression(expression, side.cluster.expression_variables())
            parts.append(expression)
        return normalize_partition(*parts)

    @property
    def fixed_include_prefix(self) -> str:
        """The leading components of the include pattern that hold no glob character (``US/*`` gives ``US``)."""
        fixed = []
        for component in self.include_pattern.split("/") if self.include_pattern else []:
            if _GLOB_CHARACTERS.search(component):
                break
            fixed.append(component)
        return "/".join(fixed)

    def paths(self, instance: datetime) -> tuple[str, str]:
        """(source folder, target folder) of one instance, the include prefix appended to both."""
        moment = pendulum.instance(instance)
        if not self.source.grid.is_instance(moment):
            raise InstanceError(f"{format_falcon_date(moment)} is not an instance of feed '{self.source.name}' on "
                                f"cluster '{self.source.cluster_name}'")
        origin = self.source.path(moment, base=self.source.read_base)
        destination = self.target.path(moment)
        prefix = self.fixed_include_prefix
        if prefix and not origin.startswith("catalog:"):
            origin, destination = f"{origin.rstrip('/')}/{prefix}", f"{destination.rstrip('/')}/{prefix}"
        return origin, destination


def replication_paths(source: FeedOnCluster, target: FeedOnCluster, instance: datetime) -> list[tuple[str, str]]:
    replication = Replication(source, target)
    replication.window  # noqa: B018  (raises when the validities do not overlap)
    return [replication.paths(instance)]
