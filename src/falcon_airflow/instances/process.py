"""A process on one cluster: its instances, and for each instance the feed instances it reads and writes.

Input ``start``/``end`` and output ``instance`` expressions are evaluated in dataset context: truncation in the
feed's time zone, the result snapped down to the feed's instance grid, nothing when it precedes the feed's first
instance. An input's instances are every feed instance in [start, end], inside the feed's validity.

The reverse questions - which process instances read a feed instance (consumers), which one writes it (producer) -
rely on the expressions being monotone in the instance time (every Falcon date function is), so they are answered
by binary search over the process's instances instead of walking them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

import pendulum

from falcon_airflow.entities import Cluster, Input, Output, Process, ProcessCluster
from falcon_airflow.errors import InstanceError
from falcon_airflow.instances.bindings import Exists, InputBinding, OutputBinding, ResolvedInput, ResolvedOutput
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.timekeeping.grid import InstanceGrid
from falcon_airflow.workspace import Workspace


def check_instance(grid: InstanceGrid, moment: datetime, what: str) -> pendulum.DateTime:
    """``moment`` as an instance of ``grid``, or an :class:`InstanceError` saying why it is none."""
    target = pendulum.instance(moment)
    if target < grid.start:
        raise InstanceError(f"{format_falcon_date(target)} is before the first instance of {what} "
                            f"({format_falcon_date(grid.start)})")
    if grid.end is not None and target >= grid.end:
        raise InstanceError(f"{format_falcon_date(target)} is not before the end of {what}'s validity "
                            f"({format_falcon_date(grid.end)}, exclusive)")
    if not grid.is_instance(target):
        before = grid.at_or_before(target)
        after = grid.next_at_or_after(target)
        raise InstanceError(f"{format_falcon_date(target)} is not an instance of {what} (every "
                            f"{grid.frequency}); the nearest are {format_falcon_date(before or grid.start)} and "
                            f"{format_falcon_date(after)}")
    return target


@dataclass(frozen=True)
class ProcessOnCluster:
    workspace: Workspace
    process: Process
    placement: ProcessCluster

    @classmethod
    def of(cls, workspace: Workspace, process: Process, cluster: str | None = None) -> ProcessOnCluster:
        """The process on ``cluster`` (its first cluster when not given)."""
        if cluster is None:
            return cls(workspace, process, process.clusters[0])
        placement = process.cluster(cluster)
        if placement is None:
            names = ", ".join(item.name for item in process.clusters)
            raise InstanceError(f"process '{process.name}' does not run on cluster '{cluster}' (it runs on {names})")
        return cls(workspace, process, placement)

    @property
    def cluster_name(self) -> str:
        return self.placement.name

    @property
    def cluster(self) -> Cluster | None:
        return self.workspace.clusters.get(self.placement.name)

    @cached_property
    def grid(self) -> InstanceGrid:
        validity = self.placement.validity
        return InstanceGrid.of(validity.start, self.process.frequency, self.process.zone.zone, validity.end)

    def feed(self, name: str) -> FeedOnCluster:
        feed = self.workspace.feeds.get(name)
        if feed is None:
            raise InstanceError(f"feed '{name}' used by process '{self.process.name}' is not defined")
        placement = feed.cluster(self.cluster_name)
        if placement is None:
            raise InstanceError(f"feed '{name}' is not defined on cluster '{self.cluster_name}', where process "
                                f"'{self.process.name}' runs")
        return FeedOnCluster(feed, placement, self.cluster)

    def check_instance(self, moment: datetime) -> pendulum.DateTime:
        return check_instance(self.grid, moment, f"process '{self.process.name}' on cluster '{self.cluster_name}'")

    def instances(self, first: datetime, last: datetime) -> Iterator[pendulum.DateTime]:
        """Process instances in [first, last], inside validity."""
        return self.grid.between(first, last)

    # -- forward: a process instance to feed instances ------------------------------------------------------------

    def input_binding(self, item: Input) -> InputBinding:
        return InputBinding(name=item.name, feed=self.feed(item.feed).binding(), start=item.start, end=item.end,
                            partition=item.partition, optional=item.optional)

    def output_binding(self, item: Output) -> OutputBinding:
        return OutputBinding(name=item.name, feed=self.feed(item.feed).binding(), instance=item.instance)

    def resolve_inputs(self, instance: datetime, exists: Exists | None = None) -> tuple[ResolvedInput, ...]:
        return tuple(self.input_binding(item).resolve(instance, exists) for item in self.process.inputs)

    def resolve_outputs(self, instance: datetime) -> tuple[ResolvedOutput, ...]:
        return tuple(self.output_binding(item).resolve(instance) for item in self.process.outputs)

    # -- backward: a feed instance to process instances ----------------------------------------------------------

    def _last_index(self) -> int:
        end = self.grid.end
        if end is None:
            raise InstanceError(f"process '{self.process.name}' has no validity end")
        index = self.grid.index_at_or_before(end)
        return index - 1 if self.grid.instance(index) >= end else index

    def _search(self, last: int, satisfied: Callable[[int], bool]) -> int:
        """Smallest index in [0, last] where the monotone ``satisfied`` holds; ``last + 1`` when none."""
        low, high = 0, last + 1
        while low < high:
            middle = (low + high) // 2
            if satisfied(middle):
                high = middle
            else:
                low = middle + 1
        return low

    def consumers_of(self, feed_name: str, feed_instance: datetime) -> list[pendulum.DateTime]:
        """Process instances whose inputs from ``feed_name`` include ``feed_instance``."""
        feed = self.feed(feed_name)
        target = check_instance(feed.grid, feed_instance, f"feed '{feed_name}' on cluster '{self.cluster_name}'")
        last = self._last_index()
        found: set[pendulum.DateTime] = set()
        for item in self.process.inputs:
            if item.feed != feed_name:
                continue

            binding = self.input_binding(item)

            def range_of(index: int, binding: InputBinding = binding) -> tuple[pendulum.DateTime | None,
                                                                                pendulum.DateTime | None]:
                return binding.range(self.grid.instance(index))

            def ends_at_or_after(index: int) -> bool:
                end = range_of(index)[1]
                return end is not None and end >= target

            def starts_after(index: int) -> bool:
                start = range_of(index)[0]
                return start is not None and start > target

            first = self._search(last, ends_at_or_after)
            beyond = self._search(last, starts_after)
            found.update(self.grid.instance(index) for index in range(first, beyond))
        return sorted(found)

    def producer_of(self, feed_name: str, feed_instance: datetime) -> pendulum.DateTime | None:
        """The process instance whose output to ``feed_name`` is ``feed_instance``, if there is one."""
        feed = self.feed(feed_name)
        target = check_instance(feed.grid, feed_instance, f"feed '{feed_name}' on cluster '{self.cluster_name}'")
        last = self._last_index()
        for item in self.process.outputs:
            if item.feed != feed_name:
                continue

            binding = self.output_binding(item)

            def output_at(index: int, binding: OutputBinding = binding) -> pendulum.DateTime | None:
                return binding.time(self.grid.instance(index))

            def at_or_after(index: int) -> bool:
                moment = output_at(index)
                return moment is not None and moment >= target

            index = self._search(last, at_or_after)
            if index <= last and output_at(index) == target:
                return self.grid.instance(index)
        return None
