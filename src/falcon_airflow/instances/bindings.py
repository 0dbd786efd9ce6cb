"""Self-contained, JSON-serialisable descriptions of what a process instance reads and writes.

A :class:`FeedBinding` is a feed on one cluster reduced to what instance arithmetic needs (grid and location
template, storage base already joined); an :class:`InputBinding` / :class:`OutputBinding` adds the process's EL.
The compiler stores them in the DAG (as ``params``) and the macros resolve them for a run, so a worker needs
neither the entity files nor the workspace to know which paths a run reads: the Rendered Template tab shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import cached_property, lru_cache
from typing import Literal

import pendulum
from pydantic import BaseModel, ConfigDict, Field

from falcon_airflow.core.locations import availability_marker, instance_location
from falcon_airflow.core.tables import partition_marker
from falcon_airflow.el import ELContext, evaluate, parse
from falcon_airflow.el.syntax import Expression
from falcon_airflow.errors import InstanceError
from falcon_airflow.instances.availability import GridAvailability
from falcon_airflow.timekeeping import Frequency, parse_falcon_date, resolve_zone
from falcon_airflow.timekeeping.folders import holds_several_instances
from falcon_airflow.timekeeping.grid import InstanceGrid

Exists = Callable[[str], bool]
"""Whether a location (a folder or a flag file URI) exists; used for ``latest``/``future`` and optional inputs."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FeedBinding(_Frozen):
    feed: str
    cluster: str
    frequency: str
    timezone: str
    start: str
    end: str
    location: str
    """The data location template with the storage base joined (``file:///srv/data/in/${YEAR}``), or the catalog
    URI with its partition templates (``catalog:db:table#ds=${YEAR}${MONTH}${DAY}``)."""
    storage: Literal["filesystem", "table"] = "filesystem"
    availability_flag: str | None = None
    metastore: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """Table feeds: the cluster's ``registry`` interface (``thrift://host:port``), where partitions are looked up."""
    metastore_principal: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """Table feeds on a Kerberized metastore: its service principal (SASL clients only)."""
    storage_settings: dict[str, str] | None = Field(default=None, exclude_if=lambda value: value is None)
    """Feeds on S3: the cluster's S3A client settings (endpoint, path style, region: see
    :mod:`falcon_airflow.instances.s3`), with which the Airflow side reaches the feed's instances."""

    @cached_property
    def grid(self) -> InstanceGrid:
        return _feed_grid(self.start, self.frequency, self.timezone, self.end)

    @property
    def zone(self) -> pendulum.Timezone | pendulum.FixedTimezone:
        return resolve_zone(self.timezone).zone  # type: ignore[return-value]

    @cached_property
    def shares_folders(self) -> bool:
        """Whether one folder of the location holds several instances (an hourly feed under ``${YEAR}/${MONTH}``,
        FA055): a folder that is not one instance's alone."""
        return self.storage == "filesystem" and holds_several_instances(self.location, Frequency.parse(self.frequency))

    def path(self, instance: datetime) -> str:
        return instance_location(self.location, instance, self.zone)

    def marker(self, instance: datetime) -> str:
        """What must exist for the instance to be available: the flag file, else the folder; for a table feed its
        partition in the metastore (a catalog table has no flag file: the partition is added once complete)."""
        if self.storage == "table":
            return partition_marker(self.metastore, self.path(instance), self.metastore_principal)
        return availability_marker(self.path(instance), self.availability_flag)


@lru_cache(maxsize=16_384)
def _feed_grid(start: str, frequency: str, timezone: str, end: str) -> InstanceGrid:
    """A feed's grid on a cluster, built once for the bindings of every process that reads or writes the feed
    (grids are immutable)."""
    zone = resolve_zone(timezone).zone
    return InstanceGrid.of(parse_falcon_date(start), Frequency.parse(frequency), zone, parse_falcon_date(end))


def _time(node: Expression, text: str, context: ELContext) -> pendulum.DateTime | None:
    value = evaluate(node, context, source=text)
    if value is None or isinstance(value, pendulum.DateTime):
        return value
    raise InstanceError(f"expression '{text}' gives {value!r}, not a time")


def dataset_context(feed: FeedBinding, instance: datetime, exists: Exists | None) -> ELContext:
    """Dataset context: truncation in the feed's zone, results snapped to the feed's grid."""
    availability = None
    if exists is not None:
        availability = GridAvailability(feed.grid, instance, lambda moment: exists(feed.marker(moment)))
    return ELContext(instance_time=instance, zone=feed.zone, dataset=feed.grid, availability=availability)


class ResolvedInput(_Frozen):
    name: str
    feed: str
    start: datetime | None
    end: datetime | None
    optional: bool
    partition: str | None
    instances: tuple[datetime, ...]
    paths: tuple[str, ...]


class InputBinding(_Frozen):
    name: str
    feed: FeedBinding
    start: str
    end: str
    partition: str | None = None
    optional: bool = False

    def range(self, instance: datetime,
              exists: Exists | None = None) -> tuple[pendulum.DateTime | None, pendulum.DateTime | None]:
        context = dataset_context(self.feed, instance, exists)
        return _time(parse(self.start), self.start, context), _time(parse(self.end), self.end, context)

    def sub_path(self, path: str) -> str:
        """An input partition such as ``*/US`` is a sub-path of each instance folder (file feeds only)."""
        if not self.partition or self.partition == "null" or self.feed.storage == "table":
            return path
        return f"{path.rstrip('/')}/{self.partition.strip('/')}"

    def resolve(self, instance: datetime, exists: Exists | None = None) -> ResolvedInput:
        start, end = self.range(instance, exists)
        instances: tuple[pendulum.DateTime, ...] = ()
        if end is not None:
            instances = tuple(self.feed.grid.between(start if start is not None else self.feed.grid.start, end))
        paths = tuple(self.sub_path(self.feed.path(moment)) for moment in instances)
        return ResolvedInput(name=self.name, feed=self.feed.feed, start=start, end=end, optional=self.optional,
                             partition=self.partition, instances=instances, paths=paths)


class ResolvedOutput(_Frozen):
    name: str
    feed: str
    instance: datetime | None
    path: str | None


class OutputBinding(_Frozen):
    name: str
    feed: FeedBinding
    instance: str

    def time(self, instance: datetime) -> pendulum.DateTime | None:
        return _time(parse(self.instance), self.instance, dataset_context(self.feed, instance, None))

    def resolve(self, instance: datetime) -> ResolvedOutput:
        moment = self.time(instance)
        return ResolvedOutput(name=self.name, feed=self.feed.feed, instance=moment,
                              path=self.feed.path(moment) if moment is not None else None)
